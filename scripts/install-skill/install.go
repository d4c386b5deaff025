package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// skillName is the directory name hosts look the skill up by.
const skillName = "subagent-driven-development"

// manifestName is the file, inside an installed copy, that records the
// SHA-256 of every file the installer wrote, in sha256sum's format (so
// `sha256sum -c .sdd-go-manifest` works there too). It is how a later run
// tells an untouched copy from one somebody edited.
const manifestName = ".sdd-go-manifest"

// origSuffix marks a superpowers bash script set aside by --replace-scripts.
const origSuffix = ".bash-orig"

// commands are the binaries, and the superpowers scripts they replace.
var commands = ship.Commands

// Env is everything the installer takes from the process, so tests can
// run it in a temporary HOME without touching the real one.
type Env struct {
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	Environ        []string // for child processes; nil means inherit
	Dir            string   // working directory: where the module is looked for
	GoCmd          string   // the go tool
	GOOS           string
}

func system() Env {
	wd, _ := os.Getwd()
	return Env{
		Stdout: os.Stdout, Stderr: os.Stderr,
		Getenv: os.Getenv,
		Dir:    wd,
		GoCmd:  "go",
		GOOS:   runtime.GOOS,
	}
}

type options struct {
	dir        string
	force      bool
	noBinaries bool
	replace    string
	restore    string
	bin        string
}

// usageError is a command line the installer cannot act on: exit 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

const usageText = `usage: go run ./scripts/install-skill [--dir DIR] [--force] [--no-binaries]
       go run ./scripts/install-skill --replace-scripts DIR [--bin DIR] [--no-binaries]
       go run ./scripts/install-skill --restore DIR

Installs the sdd-go binaries (go install ./cmd/..., as they ship) and copies skill/ to
~/.claude/skills/subagent-driven-development/, or swaps the bash scripts of
an installed superpowers skill for the binaries and back.

`

func newFlagSet(o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("install-skill", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.dir, "dir", "", "install the skill into `DIR` instead of ~/.claude/skills/"+skillName)
	fs.BoolVar(&o.force, "force", false, "overwrite an installed copy even if it was modified")
	fs.BoolVar(&o.noBinaries, "no-binaries", false, "do not run go install ./cmd/...")
	fs.StringVar(&o.replace, "replace-scripts", "", "replace the bash scripts in the superpowers skill `DIR` (or its scripts/) with the binaries")
	fs.StringVar(&o.restore, "restore", "", "put back the bash scripts set aside by --replace-scripts in `DIR`")
	fs.StringVar(&o.bin, "bin", "", "with --replace-scripts: take the binaries from `DIR` instead of go env GOBIN / GOPATH/bin")
	return fs
}

func parseArgs(args []string) (options, bool, error) {
	var o options
	fs := newFlagSet(&o)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, true, nil
		}
		return o, false, usageError{err.Error()}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case fs.NArg() > 0:
		return o, false, usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	case set["replace-scripts"] && set["restore"]:
		return o, false, usageError{"--replace-scripts and --restore exclude each other"}
	case (set["replace-scripts"] || set["restore"]) && (set["dir"] || set["force"]):
		return o, false, usageError{"--dir and --force apply to the skill install, not to --replace-scripts or --restore"}
	case set["bin"] && !set["replace-scripts"]:
		return o, false, usageError{"--bin goes with --replace-scripts"}
	}
	for name, v := range map[string]string{"dir": o.dir, "replace-scripts": o.replace, "restore": o.restore, "bin": o.bin} {
		if set[name] && v == "" {
			return o, false, usageError{"--" + name + " needs a directory"}
		}
	}
	return o, false, nil
}

// Main runs the installer and returns the exit status.
func Main(args []string, env Env) int {
	o, help, err := parseArgs(args)
	if help {
		fmt.Fprint(env.Stdout, usageText)
		newFlagSet(&options{}).VisitAll(func(f *flag.Flag) {
			name, usage := flag.UnquoteUsage(f)
			fmt.Fprintf(env.Stdout, "  --%s %s\n    \t%s\n", f.Name, name, usage)
		})
		return 0
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(env.Stderr, "install-skill: %s\n%s", ue.msg, usageText)
		return 2
	}
	switch {
	case o.replace != "":
		err = replaceScripts(o, env)
	case o.restore != "":
		err = restoreScripts(o.restore, env)
	default:
		err = install(o, env)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "install-skill: %v\n", err)
		return 1
	}
	return 0
}

func logf(env Env, format string, args ...any) {
	fmt.Fprintf(env.Stderr, "install-skill: "+format+"\n", args...)
}

// modulePath is the module the installer belongs to.
const modulePath = "github.com/sdd-go/sdd-go"

// moduleRoot finds the sdd-go checkout the installer runs from, dir being
// a directory inside it. The go tool finds and reads go.mod, so a checkout
// with CRLF line ends (Git for Windows' default) is found like any other.
func moduleRoot(env Env, dir string) (string, error) {
	notHere := fmt.Errorf("not inside an sdd-go checkout (no go.mod of %s above %s)", modulePath, dir)
	c := goCmd(env, dir, "env", "GOMOD")
	var errb bytes.Buffer
	c.Stderr = &errb
	out, err := c.Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v: %s", err, strings.TrimSpace(errb.String()))
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull || gomod == "NUL" || gomod == "/dev/null" {
		return "", notHere
	}
	c = goCmd(env, dir, "mod", "edit", "-json", gomod)
	errb.Reset()
	c.Stderr = &errb
	out, err = c.Output()
	if err != nil {
		return "", fmt.Errorf("go mod edit -json %s: %v: %s", gomod, err, strings.TrimSpace(errb.String()))
	}
	var mod struct{ Module struct{ Path string } }
	if err := json.Unmarshal(out, &mod); err != nil {
		return "", fmt.Errorf("go mod edit -json %s: %v", gomod, err)
	}
	if mod.Module.Path != modulePath {
		return "", notHere
	}
	return filepath.Dir(gomod), nil
}

func homeDir(env Env) (string, error) {
	key := "HOME"
	if env.GOOS == "windows" {
		key = "USERPROFILE"
	}
	h := env.Getenv(key)
	if h == "" {
		return "", fmt.Errorf("$%s is not set; say where to install with --dir", key)
	}
	return h, nil
}

func goCmd(env Env, dir string, args ...string) *exec.Cmd {
	c := exec.Command(env.GoCmd, args...)
	c.Dir = dir
	c.Env = env.Environ
	return c
}

func goInstall(env Env, root string) error {
	logf(env, "building and installing the commands as they ship (go install ./cmd/...)")
	b := ship.Build{Go: env.GoCmd, Root: root, Install: true, Version: ship.DefaultVersion(ship.GitIn(root)), Env: env.Environ}
	if err := b.Run(context.Background()); err != nil {
		return err
	}
	bin, err := goBinDir(env, root)
	if err == nil {
		logf(env, "installed %s into %s (it must be on PATH)", strings.Join(commands, ", "), bin)
	}
	return nil
}

// goBinDir is where go install puts binaries: GOBIN, else the first
// GOPATH entry's bin.
func goBinDir(env Env, dir string) (string, error) {
	c := goCmd(env, dir, "env", "GOBIN", "GOPATH")
	var errb bytes.Buffer
	c.Stderr = &errb
	out, err := c.Output()
	if err != nil {
		return "", fmt.Errorf("go env GOBIN GOPATH: %v: %s", err, strings.TrimSpace(errb.String()))
	}
	lines := strings.Split(strings.TrimRight(string(out), "\r\n"), "\n")
	if len(lines) > 0 && strings.TrimSpace(lines[0]) != "" {
		return strings.TrimSpace(lines[0]), nil
	}
	if len(lines) > 1 {
		if first := filepath.SplitList(strings.TrimSpace(lines[1])); len(first) > 0 && first[0] != "" {
			return filepath.Join(first[0], "bin"), nil
		}
	}
	return "", errors.New("go env reports neither GOBIN nor GOPATH")
}

// ---- installing the skill text ----

func install(o options, env Env) error {
	root, err := moduleRoot(env, env.Dir)
	if err != nil {
		return err
	}
	if !o.noBinaries {
		if err := goInstall(env, root); err != nil {
			return err
		}
	}
	target := o.dir
	if target == "" {
		home, err := homeDir(env)
		if err != nil {
			return err
		}
		target = filepath.Join(home, ".claude", "skills", skillName)
	}
	return installSkill(filepath.Join(root, "skill"), target, o.force, env)
}

// readTree returns the regular files under dir, by slash-separated
// relative path.
func readTree(dir string) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = b
		return nil
	})
	return out, err
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func readManifest(path string) (map[string]string, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	m := map[string]string{}
	for i, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if line == "" {
			continue
		}
		s, rel, ok := strings.Cut(line, "  ")
		if !ok || len(s) != 64 || rel == "" {
			return nil, false, fmt.Errorf("%s:%d: not a manifest line", path, i+1)
		}
		m[rel] = s
	}
	return m, true, nil
}

func formatManifest(files map[string][]byte) []byte {
	var rels []string
	for rel := range files {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	var b bytes.Buffer
	for _, rel := range rels {
		fmt.Fprintf(&b, "%s  %s\n", sum(files[rel]), rel)
	}
	return b.Bytes()
}

// changes lists the files of an installed copy that differ from what the
// installer wrote last time, or that it would overwrite without having
// written them: the files a plain install must not touch.
func changes(target string, src map[string][]byte, manifest map[string]string, haveManifest bool) ([]string, error) {
	var out []string
	if haveManifest {
		for rel, want := range manifest {
			b, err := os.ReadFile(filepath.Join(target, filepath.FromSlash(rel)))
			switch {
			case errors.Is(err, fs.ErrNotExist):
				out = append(out, rel+" (deleted)")
			case err != nil:
				return nil, err
			case sum(b) != want:
				out = append(out, rel+" (edited)")
			}
		}
	}
	for rel := range src {
		if _, ours := manifest[rel]; ours {
			continue
		}
		if _, err := os.Lstat(filepath.Join(target, filepath.FromSlash(rel))); err == nil {
			out = append(out, rel+" (not installed by this tool)")
		}
	}
	sort.Strings(out)
	return out, nil
}

func installSkill(srcDir, target string, force bool, env Env) error {
	src, err := readTree(srcDir)
	if err != nil {
		return fmt.Errorf("reading the skill: %w", err)
	}
	if _, ok := src["SKILL.md"]; !ok {
		return fmt.Errorf("%s has no SKILL.md", srcDir)
	}
	delete(src, manifestName)
	manifest, haveManifest, err := readManifest(filepath.Join(target, manifestName))
	if err != nil {
		return err
	}
	changed, err := changes(target, src, manifest, haveManifest)
	if err != nil {
		return err
	}
	if len(changed) > 0 {
		if !force {
			return fmt.Errorf("%s was modified since it was installed:\n  %s\nnothing was changed; keep your edits elsewhere and run again with --force to overwrite them",
				target, strings.Join(changed, "\n  "))
		}
		logf(env, "--force: overwriting local changes in %s: %s", target, strings.Join(changed, ", "))
	}
	if err := os.MkdirAll(target, 0o755); err != nil {
		return err
	}
	written := 0
	var rels []string
	for rel := range src {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	for _, rel := range rels {
		p := filepath.Join(target, filepath.FromSlash(rel))
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, src[rel]) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := writeFileAtomic(p, src[rel], 0o644); err != nil {
			return err
		}
		written++
	}
	removed := 0
	for rel := range manifest {
		if _, still := src[rel]; still {
			continue
		}
		// Shipped last time, gone from the skill now; unmodified (or
		// --force), since changes() let us get here.
		err := os.Remove(filepath.Join(target, filepath.FromSlash(rel)))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		removed++
	}
	mb := formatManifest(src)
	if old, err := os.ReadFile(filepath.Join(target, manifestName)); err != nil || !bytes.Equal(old, mb) {
		if err := writeFileAtomic(filepath.Join(target, manifestName), mb, 0o644); err != nil {
			return err
		}
	}
	if written == 0 && removed == 0 {
		logf(env, "skill at %s is up to date", target)
		return nil
	}
	logf(env, "installed the skill in %s (%d file(s) written, %d removed, %d unchanged)",
		target, written, removed, len(src)-written)
	return nil
}

// writeFileAtomic writes a new file beside path and renames it over path,
// so a reader never sees half a file.
func writeFileAtomic(path string, data []byte, mode fs.FileMode) error {
	return writeBeside(path, data, mode, os.Rename)
}

// writeBeside writes data with mode to a new file beside path, then puts it
// in place with place(tmp, path); the new file is removed if that fails.
func writeBeside(path string, data []byte, mode fs.FileMode, place func(tmp, path string) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp, mode); err != nil {
		return err
	}
	return place(tmp, path)
}

// ---- swapping the superpowers scripts ----

// scriptsDir accepts the superpowers skill directory or its scripts/.
func scriptsDir(dir string) (string, error) {
	for _, d := range []string{filepath.Join(dir, "scripts"), dir} {
		for _, name := range commands {
			for _, n := range []string{name, name + origSuffix} {
				if fi, err := os.Lstat(filepath.Join(d, n)); err == nil && fi.Mode().IsRegular() {
					return d, nil
				}
			}
		}
	}
	return "", fmt.Errorf("%s holds none of %s (neither directly nor in scripts/): not a superpowers subagent-driven-development skill",
		dir, strings.Join(commands, ", "))
}

func isScript(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, 2)
	n, _ := io.ReadFull(f, head)
	return n == 2 && string(head) == "#!", nil
}

func exists(path string) (bool, error) {
	_, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// installed is where a command's binary goes in the scripts directory. On
// Windows it is <name>.exe: the skill text runs scripts/<name>, and cmd,
// PowerShell and Git Bash all find scripts\<name>.exe for that, while an
// extensionless file is one cmd and PowerShell cannot run (they hand it to
// the "open with" picker, the very failure of superpowers#2307).
func installed(dir, name string, env Env) string {
	p := filepath.Join(dir, name)
	if env.GOOS == "windows" {
		p += ".exe"
	}
	return p
}

// asideMark marks a binary moved out of the way because it was running
// (see replaceFile); any later run removes such files once it can.
const asideMark = ".sdd-go-old-"

// replaceFile renames tmp over path. Windows refuses to replace or delete
// the file of a running program (an agent may be running the old
// sdd-workspace.exe) but lets it be renamed: then the old file is moved
// aside, tmp takes its place, and the old one is removed if it can be, or
// left for a later run.
func replaceFile(tmp, path string, env Env) error {
	err := os.Rename(tmp, path)
	if err == nil {
		return nil
	}
	if _, serr := os.Lstat(path); serr != nil {
		return err
	}
	aside, aerr := moveAside(path)
	if aerr != nil {
		return err // the original failure says more
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Rename(aside, path)
		return err
	}
	removeAside(aside, env)
	return nil
}

// removeFile removes path, moving it aside first when it cannot be removed
// because it is running.
func removeFile(path string, env Env) error {
	err := os.Remove(path)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	aside, aerr := moveAside(path)
	if aerr != nil {
		return err
	}
	removeAside(aside, env)
	return nil
}

// moveAside renames path to a hidden name beside it that no shell runs.
func moveAside(path string) (string, error) {
	dir, base := filepath.Split(path)
	for i := 0; ; i++ {
		aside := filepath.Join(dir, fmt.Sprintf(".%s%s%d-%d", base, asideMark, os.Getpid(), i))
		if ok, err := exists(aside); err != nil {
			return "", err
		} else if ok {
			continue
		}
		return aside, os.Rename(path, aside)
	}
}

func removeAside(aside string, env Env) {
	if err := os.Remove(aside); err != nil {
		logf(env, "%s: moved aside while still running; a later run of install-skill removes it", aside)
	}
}

// removeAsides removes what earlier runs moved aside, where it can.
func removeAsides(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), asideMark) {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

func replaceScripts(o options, env Env) error {
	dir, err := scriptsDir(o.replace)
	if err != nil {
		return err
	}
	bin := o.bin
	if bin == "" {
		root, rootErr := moduleRoot(env, env.Dir)
		if !o.noBinaries {
			if rootErr != nil {
				return fmt.Errorf("%v; pass --bin DIR or --no-binaries", rootErr)
			}
			if err := goInstall(env, root); err != nil {
				return err
			}
		}
		wd := env.Dir
		if rootErr == nil {
			wd = root
		}
		if bin, err = goBinDir(env, wd); err != nil {
			return err
		}
	}
	removeAsides(dir)
	type step struct {
		name, binPath string
		target        string // where the binary goes
		data          []byte
		setAside      bool // the bash script is still in place
		stale         bool // an extensionless binary copy an older installer left on Windows
	}
	var steps []step
	// Check everything first, so a refusal leaves the directory as it was.
	for _, name := range commands {
		s := step{name: name, binPath: installed(bin, name, env), target: installed(dir, name, env)}
		if s.data, err = os.ReadFile(s.binPath); err != nil {
			return fmt.Errorf("no %s binary: %v (build it with go install ./cmd/... or pass --bin DIR)", name, err)
		}
		script := filepath.Join(dir, name)
		hasOrig, err := exists(script + origSuffix)
		if err != nil {
			return err
		}
		hasScript, err := exists(script)
		if err != nil {
			return err
		}
		switch {
		case hasOrig && hasScript && s.target != script:
			// Replaced before by an installer that copied the binary to
			// the extensionless name, which no Windows shell runs.
			ok, err := isScript(script)
			if err != nil {
				return err
			}
			if ok {
				return fmt.Errorf("both %s and %s exist: remove the one that is not the original script", script, name+origSuffix)
			}
			s.stale = true
		case hasOrig:
			// Replaced before: only the binary may need refreshing.
		case !hasScript:
			return fmt.Errorf("%s is missing and there is no %s to go by", script, name+origSuffix)
		default:
			ok, err := isScript(script)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("%s is not a script (no #! line) and there is no %s: refusing to set it aside", script, name+origSuffix)
			}
			s.setAside = true
		}
		steps = append(steps, s)
	}
	for _, s := range steps {
		script := filepath.Join(dir, s.name)
		if s.setAside {
			if err := os.Rename(script, script+origSuffix); err != nil {
				return err
			}
		}
		if s.stale {
			if err := removeFile(script, env); err != nil {
				return err
			}
		}
		if !s.setAside {
			if old, err := os.ReadFile(s.target); err == nil && bytes.Equal(old, s.data) {
				logf(env, "%s: already replaced, up to date", s.target)
				continue
			}
		}
		if err := writeBinary(s.target, s.data, env); err != nil {
			return err
		}
		if s.setAside {
			logf(env, "%s: replaced by %s (original kept as %s)", s.target, s.binPath, s.name+origSuffix)
		} else {
			logf(env, "%s: already replaced, binary updated from %s", s.target, s.binPath)
		}
	}
	return nil
}

// writeBinary writes an executable beside path and puts it in place with
// replaceFile.
func writeBinary(path string, data []byte, env Env) error {
	return writeBeside(path, data, 0o755, func(tmp, path string) error { return replaceFile(tmp, path, env) })
}

func restoreScripts(target string, env Env) error {
	dir, err := scriptsDir(target)
	if err != nil {
		return err
	}
	removeAsides(dir)
	var todo []string
	for _, name := range commands {
		script := filepath.Join(dir, name)
		hasOrig, err := exists(script + origSuffix)
		if err != nil {
			return err
		}
		if hasOrig {
			todo = append(todo, name)
			continue
		}
		hasScript, err := exists(script)
		if err != nil {
			return err
		}
		if !hasScript {
			return fmt.Errorf("%s is missing and there is no %s to restore it from", script, name+origSuffix)
		}
		if ok, err := isScript(script); err != nil {
			return err
		} else if !ok {
			return fmt.Errorf("%s is not the bash script and there is no %s to restore it from", script, name+origSuffix)
		}
	}
	for _, name := range commands {
		script := filepath.Join(dir, name)
		if !slices.Contains(todo, name) {
			logf(env, "%s: already the original script", script)
			continue
		}
		// The binary goes first: while it is there, a Windows shell runs
		// it in preference to the script.
		if exe := installed(dir, name, env); exe != script {
			if err := removeFile(exe, env); err != nil {
				return err
			}
		}
		if err := os.Rename(script+origSuffix, script); err != nil {
			return err
		}
		logf(env, "%s: original script restored", script)
	}
	return nil
}
