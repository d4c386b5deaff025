package claudecode

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

// Package is the npm package of the wrapper; the binary lives in one
// package per platform, Package + "-" + platform.
const Package = "@anthropic-ai/claude-code"

// completeMarker is written into a cache directory once its install is
// whole (npm finished, the binary runs and reports Version): a directory
// without it is a broken or interrupted install, never reused.
const completeMarker = ".sdd-go-complete"

// Platform names the platform package for goos/goarch, as the wrapper's
// optionalDependencies list them; musl picks the Linux builds linked
// against musl (Alpine).
func Platform(goos, goarch string, musl bool) (string, error) {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[goarch]
	if arch == "" {
		return "", fmt.Errorf("no Claude Code build for %s/%s", goos, goarch)
	}
	switch goos {
	case "darwin":
		return "darwin-" + arch, nil
	case "windows":
		return "win32-" + arch, nil
	case "linux":
		if musl {
			return "linux-" + arch + "-musl", nil
		}
		return "linux-" + arch, nil
	}
	return "", fmt.Errorf("no Claude Code build for %s/%s", goos, goarch)
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
// sdd-go/claude-code/<version>.
func CacheDir() (string, error) {
	c, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(c, "sdd-go", "claude-code", Version), nil
}

// binaryIn is the path of platform's binary under an npm prefix.
func binaryIn(prefix, platform string) string {
	name := "claude"
	if strings.HasPrefix(platform, "win32-") {
		name += ".exe"
	}
	return filepath.Join(prefix, "node_modules", "@anthropic-ai", "claude-code-"+platform, name)
}

// Install makes sure Version of platform's binary is in dir and returns
// its path. A complete install there is reused as it is; anything else in
// dir (an interrupted install) is removed and npm installs the platform
// package again, into a directory beside dir that is renamed into place
// only once the binary runs and reports Version. Only the platform package
// is installed, with --ignore-scripts: the binary is native and needs
// neither node nor the wrapper's install script. npm's output goes to log.
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
	spec := Package + "-" + platform + "@" + Version
	fmt.Fprintf(log, "claudecode: npm install %s into %s\n", spec, dir)
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

// checkVersion runs bin --version, which must print Version first.
func checkVersion(ctx context.Context, bin string) error {
	if _, err := os.Stat(bin); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: not installed", bin)
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = append(os.Environ(), "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1")
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s --version: %v: %s", bin, err, strings.TrimSpace(out.String()))
	}
	if f := strings.Fields(out.String()); len(f) == 0 || f[0] != Version {
		return fmt.Errorf("%s --version printed %q, want %s", bin, strings.TrimSpace(out.String()), Version)
	}
	return nil
}
