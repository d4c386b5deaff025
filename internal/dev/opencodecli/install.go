package opencodecli

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

// Package is the npm package of the wrapper (opencode-ai); the binary
// lives in one package per platform, "opencode-" + platform, which is all
// Install takes: with --ignore-scripts the wrapper's opencode command is a
// stub that only its install script would replace.
const Package = "opencode-ai"

// PluginPackage is the package opencode wants in every configuration
// directory (see PreinstallPlugin), pinned to Version as opencode pins it.
const PluginPackage = "@opencode-ai/plugin"

// configDeps is the directory of an install holding PluginPackage,
// installed alone, with its package.json and package-lock.json.
const configDeps = "config"

// completeMarker is written into a cache directory once its install is
// whole (npm finished, the binary runs and reports Version, the plugin
// package is there): a directory without it is a broken or interrupted
// install, never reused.
const completeMarker = ".sdd-go-complete"

// Platform names the platform package for goos/goarch, as the wrapper's
// optionalDependencies list them; musl picks the Linux builds linked
// against musl (Alpine). The -baseline builds, for x64 processors without
// AVX2, are not used.
func Platform(goos, goarch string, musl bool) (string, error) {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[goarch]
	if arch == "" {
		return "", fmt.Errorf("no OpenCode build for %s/%s", goos, goarch)
	}
	switch goos {
	case "darwin", "windows":
		return goos + "-" + arch, nil
	case "linux":
		if musl {
			return "linux-" + arch + "-musl", nil
		}
		return "linux-" + arch, nil
	}
	return "", fmt.Errorf("no OpenCode build for %s/%s", goos, goarch)
}

// isMusl reports whether this Linux system's C library is musl: its
// dynamic loader is /lib/ld-musl-<arch>.so.1.
func isMusl() bool {
	m, _ := filepath.Glob("/lib/ld-musl-*.so.1")
	return len(m) > 0
}

// HostPlatform is the platform package for the running system.
func HostPlatform() (string, error) {
	return Platform(runtime.GOOS, runtime.GOARCH, runtime.GOOS == "linux" && isMusl())
}

// CacheDir is where Install keeps Version: the user's cache directory,
// sdd-go/opencode/<version>.
func CacheDir() (string, error) {
	c, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(c, "sdd-go", "opencode", Version), nil
}

// binaryIn is the path of platform's binary under an npm prefix.
func binaryIn(prefix, platform string) string {
	name := "opencode"
	if strings.HasPrefix(platform, "windows-") {
		name += ".exe"
	}
	return filepath.Join(prefix, "node_modules", "opencode-"+platform, "bin", name)
}

// Install makes sure Version of platform's binary is in dir, with
// PluginPackage installed beside it for PreinstallPlugin, and returns the
// binary's path. A complete install there is reused as it is; anything
// else in dir (an interrupted install) is removed and npm installs both
// again, into a directory beside dir that is renamed into place only once
// the binary runs and reports Version. Both are installed with
// --ignore-scripts: the binary is native (a Bun executable), and neither
// needs a script. npm's output goes to log.
func Install(ctx context.Context, npm, dir, platform string, log io.Writer) (string, error) {
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
	cli := "opencode-" + platform + "@" + Version
	plugin := PluginPackage + "@" + Version
	for _, step := range []struct{ spec, prefix string }{{cli, tmp}, {plugin, filepath.Join(tmp, configDeps)}} {
		fmt.Fprintf(log, "opencodecli: npm install %s into %s\n", step.spec, dir)
		// --save-exact: the package.json PreinstallPlugin copies pins
		// Version, as opencode's own install would.
		cmd := exec.CommandContext(ctx, npm, "install", "--ignore-scripts", "--no-audit", "--no-fund", "--save-exact", "--prefix", step.prefix, step.spec)
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("npm install %s: %w", step.spec, err)
		}
	}
	if err := checkVersion(ctx, binaryIn(tmp, platform)); err != nil {
		return "", err
	}
	for _, f := range []string{"package.json", "package-lock.json", "node_modules/@opencode-ai/plugin/package.json"} {
		if _, err := os.Stat(filepath.Join(tmp, configDeps, f)); err != nil {
			return "", fmt.Errorf("npm install %s left no %s: %v", plugin, f, err)
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, completeMarker), []byte(cli+"\n"+plugin+"\n"), 0o644); err != nil {
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

// checkVersion runs bin --version, which must print Version alone.
func checkVersion(ctx context.Context, bin string) error {
	if _, err := os.Stat(bin); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: not installed", bin)
	}
	// Even --version makes its directories under HOME and the XDG
	// directories: give it a HOME of its own.
	home, err := os.MkdirTemp("", "opencode-version-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = Env(home, home, filepath.SplitList(os.Getenv("PATH")))
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s --version: %v: %s", bin, err, strings.TrimSpace(out.String()))
	}
	if f := strings.Fields(out.String()); len(f) == 0 || f[0] != Version {
		return fmt.Errorf("%s --version printed %q, want %s", bin, strings.TrimSpace(out.String()), Version)
	}
	return nil
}
