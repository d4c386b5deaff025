package codexcli

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

// Package is the npm package of the wrapper. Each platform's native build
// is published as a version of the same package, Version + "-" +
// platform, which the wrapper depends on under the alias Package + "-" +
// platform; Install installs that alias alone.
const Package = "@openai/codex"

// completeMarker is written into a cache directory once its install is
// whole (npm finished, the binary runs and reports Version): a directory
// without it is a broken or interrupted install, never reused.
const completeMarker = ".sdd-go-complete"

// Platform names the platform build for goos/goarch as the wrapper's
// optionalDependencies do. The Linux builds are linked statically against
// musl, so one build serves glibc and musl systems alike.
func Platform(goos, goarch string) (string, error) {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[goarch]
	if arch == "" {
		return "", fmt.Errorf("no Codex build for %s/%s", goos, goarch)
	}
	switch goos {
	case "darwin":
		return "darwin-" + arch, nil
	case "windows":
		return "win32-" + arch, nil
	case "linux":
		return "linux-" + arch, nil
	}
	return "", fmt.Errorf("no Codex build for %s/%s", goos, goarch)
}

// HostPlatform is the platform build for the running system.
func HostPlatform() (string, error) {
	return Platform(runtime.GOOS, runtime.GOARCH)
}

// triples are the Rust target triples the platform packages keep their
// binary under (vendor/<triple>/bin/), as the wrapper's bin/codex.js maps
// them.
var triples = map[string]string{
	"linux-x64":    "x86_64-unknown-linux-musl",
	"linux-arm64":  "aarch64-unknown-linux-musl",
	"darwin-x64":   "x86_64-apple-darwin",
	"darwin-arm64": "aarch64-apple-darwin",
	"win32-x64":    "x86_64-pc-windows-msvc",
	"win32-arm64":  "aarch64-pc-windows-msvc",
}

// CacheDir is where Install keeps Version: the user's cache directory,
// sdd-go/codex/<version>.
func CacheDir() (string, error) {
	c, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(c, "sdd-go", "codex", Version), nil
}

// Spec is the npm spec Install installs for platform: the alias the
// wrapper's optionalDependencies name.
func Spec(platform string) string {
	return Package + "-" + platform + "@npm:" + Package + "@" + Version + "-" + platform
}

// binaryIn is the path of platform's binary under an npm prefix.
func binaryIn(prefix, platform string) string {
	name := "codex"
	if strings.HasPrefix(platform, "win32-") {
		name += ".exe"
	}
	return filepath.Join(prefix, "node_modules", "@openai", "codex-"+platform, "vendor", triples[platform], "bin", name)
}

// Install makes sure Version of platform's binary is in dir and returns
// its path. A complete install there is reused as it is; anything else in
// dir (an interrupted install) is removed and npm installs the platform
// build again, into a directory beside dir that is renamed into place
// only once the binary runs and reports Version. Only the platform build
// is installed, with --ignore-scripts: the binary is native and needs
// neither node nor the wrapper. npm's output goes to log.
func Install(ctx context.Context, npm, dir, platform string, log io.Writer) (string, error) {
	if triples[platform] == "" {
		return "", fmt.Errorf("no Codex build for platform %s", platform)
	}
	bin := binaryIn(dir, platform)
	if _, err := os.Stat(filepath.Join(dir, completeMarker)); err == nil {
		if err := checkVersion(ctx, bin); err == nil {
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
	spec := Spec(platform)
	fmt.Fprintf(log, "codexcli: npm install %s into %s\n", spec, dir)
	cmd := exec.CommandContext(ctx, npm, "install", "--ignore-scripts", "--no-audit", "--no-fund", "--prefix", tmp, spec)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm install %s: %w", spec, err)
	}
	if err := checkVersion(ctx, binaryIn(tmp, platform)); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, completeMarker), []byte(spec+"\n"), 0o644); err != nil {
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

// checkVersion runs bin --version, which must print "codex-cli Version".
// Even --version links the CLI's helpers into $CODEX_HOME/tmp, so it runs
// with a HOME of its own, removed afterwards.
func checkVersion(ctx context.Context, bin string) error {
	if _, err := os.Stat(bin); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: not installed", bin)
	}
	base, err := os.MkdirTemp("", "codex-version-")
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
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Stdout, cmd.Stderr = &out, io.Discard
	cmd.Env = Env(home, filepath.Join(home, ".codex"), tmp, filepath.SplitList(os.Getenv("PATH")))
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s --version: %v: %s", bin, err, strings.TrimSpace(out.String()))
	}
	if f := strings.Fields(out.String()); len(f) != 2 || f[0] != "codex-cli" || f[1] != Version {
		return fmt.Errorf("%s --version printed %q, want codex-cli %s", bin, strings.TrimSpace(out.String()), Version)
	}
	return nil
}
