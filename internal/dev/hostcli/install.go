package hostcli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// completeMarker is written into a cache directory once its install is
// whole (npm finished, the binary runs and reports Version, every
// package's Files are there): a directory without it is a broken or
// interrupted install, never reused.
const completeMarker = ".sdd-go-complete"

// Platform names c's platform build for goos/goarch as the npm wrappers'
// optionalDependencies do: darwin-, linux- or c.Windows-, then x64 or
// arm64, then -musl for musl when c.Musl (c.MuslLinux- then the
// architecture, where it is set).
func (c CLI) Platform(goos, goarch string, musl bool) (string, error) {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[goarch]
	system := map[string]string{"darwin": "darwin", "linux": "linux", "windows": c.Windows}[goos]
	if arch == "" || system == "" {
		return "", fmt.Errorf("no %s build for %s/%s", c.Title, goos, goarch)
	}
	if goos == "linux" && musl && c.Musl {
		if c.MuslLinux != "" {
			return c.MuslLinux + "-" + arch, nil
		}
		return system + "-" + arch + "-musl", nil
	}
	return system + "-" + arch, nil
}

// platforms are the names Platform gives.
func (c CLI) platforms() map[string]bool {
	all := map[string]bool{}
	for _, goos := range []string{"darwin", "linux", "windows"} {
		for _, goarch := range []string{"amd64", "arm64"} {
			for _, musl := range []bool{false, true} {
				p, _ := c.Platform(goos, goarch, musl)
				all[p] = true
			}
		}
	}
	return all
}

// isMusl reports whether this Linux system's C library is musl: its
// dynamic loader is /lib/ld-musl-<arch>.so.1.
func isMusl() bool {
	m, _ := filepath.Glob("/lib/ld-musl-*.so.1")
	return len(m) > 0
}

// HostPlatform is c's platform build for the running system.
func (c CLI) HostPlatform() (string, error) {
	return c.Platform(runtime.GOOS, runtime.GOARCH, runtime.GOOS == "linux" && c.Musl && isMusl())
}

// CacheDir is where Install keeps c.Version: the user's cache directory,
// sdd-go/<c.Name>/<c.Version>.
func (c CLI) CacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "sdd-go", c.Name, c.Version), nil
}

// binaryIn is the path of platform's binary under the install dir.
func (c CLI) binaryIn(dir, platform string) string {
	bin := filepath.Join(dir, filepath.FromSlash(c.expand(c.Binary, platform)))
	if !c.Node && strings.HasPrefix(platform, c.Windows+"-") {
		bin += ".exe"
	}
	return bin
}

// Install makes sure c.Version of platform's binary is in dir and returns
// its path. A complete install there is reused as it is; anything else in
// dir (an interrupted install) is removed and npm installs c.Packages
// again, into a directory beside dir that is renamed into place only once
// the binary runs and reports c.Version. Every package is installed with
// --ignore-scripts (the binaries are native and need neither node nor a
// wrapper's install script; a Node CLI's optional native modules that
// need one stay unbuilt, and the CLI does without them) and --save-exact
// (a package.json left in the install pins what it holds). npm's output
// goes to log.
func (c CLI) Install(ctx context.Context, npm, dir, platform string, log io.Writer) (string, error) {
	if !c.platforms()[platform] {
		return "", fmt.Errorf("no %s build for platform %s", c.Title, platform)
	}
	bin := c.binaryIn(dir, platform)
	if _, err := os.Stat(filepath.Join(dir, completeMarker)); err == nil {
		if err := c.checkVersion(ctx, bin); err == nil {
			return bin, nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".installing-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp's 0700 would become the cache's
		return "", err
	}
	var specs strings.Builder
	for _, p := range c.Packages {
		spec := c.expand(p.Spec, platform)
		fmt.Fprintf(log, "hostcli: npm install %s into %s\n", spec, dir)
		cmd := exec.CommandContext(ctx, npm, "install", "--ignore-scripts", "--no-audit", "--no-fund", "--save-exact", "--prefix", filepath.Join(tmp, p.Dir), spec)
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("npm install %s: %w", spec, err)
		}
		specs.WriteString(spec + "\n")
	}
	if err := c.checkVersion(ctx, c.binaryIn(tmp, platform)); err != nil {
		return "", err
	}
	for _, p := range c.Packages {
		for _, f := range p.Files {
			if _, err := os.Stat(filepath.Join(tmp, p.Dir, filepath.FromSlash(f))); err != nil {
				return "", fmt.Errorf("npm install %s left no %s: %v", c.expand(p.Spec, platform), f, err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, completeMarker), []byte(specs.String()), 0o644); err != nil {
		return "", err
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another install may have won the race; its copy is as good.
		if _, serr := os.Stat(filepath.Join(dir, completeMarker)); serr == nil {
			return bin, nil
		}
		return "", err
	}
	return bin, nil
}

// checkVersion runs bin --version (node bin --version for a Node CLI),
// which must print c.VersionOutput (on stderr where c.VersionOnStderr), in its Env with a HOME and TMPDIR of
// its own (even --version writes there: Codex links its helpers into
// ~/.codex, OpenCode makes its directories, Copilot unpacks itself into
// its cache, Gemini writes ~/.gemini/projects.json).
func (c CLI) checkVersion(ctx context.Context, bin string) error {
	if _, err := os.Stat(bin); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: not installed", bin)
	}
	base, err := os.MkdirTemp("", "hostcli-version-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(base)
	home, tmp := filepath.Join(base, "home"), filepath.Join(base, "tmp")
	for _, d := range []string{home, tmp} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return err
		}
	}
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "--version")
	if c.Node {
		node, err := exec.LookPath("node")
		if err != nil {
			return fmt.Errorf("%s is run by node: %v", c.Title, err)
		}
		cmd = exec.CommandContext(ctx, node, bin, "--version")
	}
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Env = c.Env(home, tmp, filepath.SplitList(os.Getenv("PATH")))
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s --version: %v: %s", bin, err, strings.TrimSpace(out.String()+"\n"+errOut.String()))
	}
	printed := out.String()
	if c.VersionOnStderr {
		printed = errOut.String()
	}
	if want := c.expand(c.VersionOutput, ""); strings.Join(strings.Fields(printed), " ") != want {
		return fmt.Errorf("%s --version printed %q, want %s", bin, strings.TrimSpace(printed), want)
	}
	return nil
}

// InstallHere installs c.Version of the host's platform build with the
// npm on PATH into CacheDir, with npm's output on log, and returns the
// binary's path: what make test-host-<name> runs.
func (c CLI) InstallHere(ctx context.Context, log io.Writer) (string, error) {
	platform, err := c.HostPlatform()
	if err != nil {
		return "", err
	}
	dir, err := c.CacheDir()
	if err != nil {
		return "", err
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("npm is needed to install %s %s: %v", c.Title, c.Version, err)
	}
	return c.Install(ctx, npm, dir, platform, log)
}
