package compat

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// A history is one git repository shape the scenarios run against. Each is
// built once per run with git fast-import (fixed dates and identity, so every
// SHA is the same on every machine and every run) and then copied into each
// scenario that uses it.
type history struct {
	name string
	// stream is the fast-import input; empty for a repository without commits.
	stream func() []byte
	// config is appended to .git/config (core.abbrev, diff.renames, ...).
	config string
	// good are revisions that resolve; full lists names whose full SHA
	// (resolved once at build time) is also a good revision.
	good []string
	full []string
	// objects are revisions (blob, tree) resolved at build time and used by
	// their full SHA as BASE or HEAD.
	objects []string
	// wtHead is what a linked worktree's HEAD points at.
	wtHead string
}

// template is a built history: its repository on disk and its resolved SHAs.
type template struct {
	*history
	dir  string            // holds .git
	shas map[string]string // revision name → full SHA
}

const (
	fixedDate   = 1767225600 // 2026-01-01T00:00:00Z
	authorIdent = "Compat Tester <compat@example.com>"
)

// fi writes a fast-import stream with a clock that advances one minute per
// commit, so histories are deterministic.
type fi struct {
	buf   bytes.Buffer
	clock int64
	mark  int
}

func (f *fi) stamp() string {
	f.clock += 60
	return fmt.Sprintf("%s %d +0000", authorIdent, fixedDate+f.clock)
}

func (f *fi) data(b []byte) {
	fmt.Fprintf(&f.buf, "data %d\n", len(b))
	f.buf.Write(b)
	f.buf.WriteByte('\n')
}

// fileOp is one fast-import file command: "M mode path" with data, "D path",
// or "R from to".
type fileOp struct {
	op, mode, path, to string
	data               []byte
}

func put(path string, data []byte) fileOp {
	return fileOp{op: "M", mode: "100644", path: path, data: data}
}
func putMode(mode, path string, data []byte) fileOp {
	return fileOp{op: "M", mode: mode, path: path, data: data}
}
func del(path string) fileOp          { return fileOp{op: "D", path: path} }
func ren(from, to string) fileOp      { return fileOp{op: "R", path: from, to: to} }
func quotePath(p string) string       { return `"` + strings.ReplaceAll(p, `"`, `\"`) + `"` }
func (f *fi) reset(ref string, m int) { fmt.Fprintf(&f.buf, "reset %s\nfrom :%d\n\n", ref, m) }

// commit appends a commit to ref; from and merge are marks (0 for none).
func (f *fi) commit(ref, msg string, from int, merges []int, ops ...fileOp) int {
	f.mark++
	fmt.Fprintf(&f.buf, "commit %s\nmark :%d\n", ref, f.mark)
	st := f.stamp()
	fmt.Fprintf(&f.buf, "author %s\ncommitter %s\n", st, st)
	f.data([]byte(msg + "\n"))
	if from > 0 {
		fmt.Fprintf(&f.buf, "from :%d\n", from)
	}
	for _, m := range merges {
		fmt.Fprintf(&f.buf, "merge :%d\n", m)
	}
	for _, o := range ops {
		switch o.op {
		case "M":
			fmt.Fprintf(&f.buf, "M %s inline %s\n", o.mode, quotePath(o.path))
			f.data(o.data)
		case "D":
			fmt.Fprintf(&f.buf, "D %s\n", quotePath(o.path))
		case "R":
			fmt.Fprintf(&f.buf, "R %s %s\n", quotePath(o.path), quotePath(o.to))
		}
	}
	f.buf.WriteByte('\n')
	return f.mark
}

func (f *fi) tag(name string, m int, msg string) {
	fmt.Fprintf(&f.buf, "tag %s\nfrom :%d\ntagger %s\n", name, m, f.stamp())
	f.data([]byte(msg + "\n")) // data ends with the optional LF
}

// numbered returns n lines "<prefix> line i", with line k replaced by edit
// when k > 0: big files with a one-line change show the context width.
func numbered(prefix string, n, k int, edit string) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		if i == k {
			b.WriteString(edit + "\n")
			continue
		}
		fmt.Fprintf(&b, "%s line %d\n", prefix, i)
	}
	return b.Bytes()
}

func linearStream() []byte {
	f := &fi{}
	c1 := f.commit("refs/heads/main", "add big file", 0, nil,
		put("src/big.txt", numbered("big", 60, 0, "")),
		put("README", []byte("readme\n")))
	c2 := f.commit("refs/heads/main", "edit line 30", c1, nil,
		put("src/big.txt", numbered("big", 60, 30, "changed thirty")))
	c3 := f.commit("refs/heads/main", "edit two lines\n\nwith a body", c2, nil,
		put("src/big.txt", numbered("big", 60, 5, "changed five")),
		put("src/small.txt", []byte("small\n")))
	f.commit("refs/heads/feature", "feature work", c2, nil,
		put("src/feature.txt", []byte("feature\nno newline at end")))
	f.commit("refs/heads/main", "rename small", c3, nil, ren("src/small.txt", "src/tiny.txt"))
	return f.buf.Bytes()
}

func longStream() []byte {
	f := &fi{}
	var log bytes.Buffer
	last := 0
	for i := 1; i <= 45; i++ {
		fmt.Fprintf(&log, "entry %d\n", i)
		ops := []fileOp{put("log.txt", bytes.Clone(log.Bytes()))}
		if i%3 == 0 {
			ops = append(ops, put("src/big.txt", numbered("big", 80, 1+(i*7)%80, fmt.Sprintf("edit %d", i))))
		}
		if i%10 == 0 {
			ops = append(ops, put(fmt.Sprintf("dir%d/f.txt", i), []byte("x\n")))
		}
		last = f.commit("refs/heads/main", fmt.Sprintf("commit number %d", i), last, nil, ops...)
		switch i {
		case 10:
			f.tag("v1.0", last, "release 1.0")
		case 20:
			f.reset("refs/tags/light", last)
		case 30:
			f.reset("refs/heads/feature", last)
		case 40:
			f.tag("v2.0", last, "release 2.0\n\nsecond")
		}
	}
	return f.buf.Bytes()
}

func mergeStream() []byte {
	f := &fi{}
	bin := []byte("\x00\x01\x02binary\x00data\xff")
	c1 := f.commit("refs/heads/main", "base", 0, nil,
		put("big.txt", numbered("big", 50, 0, "")),
		put("old.txt", numbered("old", 20, 0, "")),
		put("bin.dat", bin),
		put("run.sh", []byte("#!/bin/sh\necho hi\n")),
		put("crlf.txt", []byte("one\r\ntwo\r\nthree\r\n")),
		put("caf\xc3\xa9.txt", []byte("accent\n")),
		put("latin\xe9.txt", []byte("invalid utf-8 name\n")))
	// The feature's changes, which the merge brings to main as they are.
	feature := []fileOp{
		ren("old.txt", "new.txt"),
		put("new.txt", numbered("old", 20, 7, "renamed and edited")),
		putMode("100755", "run.sh", []byte("#!/bin/sh\necho hi\n")),
		put("bin.dat", append(bytes.Clone(bin), 0, 9)),
		putMode("120000", "link", []byte("big.txt")),
		put("crlf.txt", []byte("one\r\nTWO\r\nthree\r\n")),
	}
	f2 := f.commit("refs/heads/feature", "rename and chmod", c1, nil, feature...)
	m2 := f.commit("refs/heads/main", "main edit", c1, nil,
		put("big.txt", numbered("big", 50, 25, "main changed 25")),
		del("caf\xc3\xa9.txt"))
	m3 := f.commit("refs/heads/main", "Merge branch 'feature'", m2, []int{f2}, feature...)
	f.tag("v1.0", m3, "merged")
	f.commit("refs/heads/main", "after merge", m3, nil,
		put("big.txt", numbered("big", 50, 40, "after merge 40")))
	f.commit("refs/heads/side", "side branch", f2, nil, put("side.txt", []byte("side\n")))
	return f.buf.Bytes()
}

// histories is the fixed catalogue; scenarios name them by index.
var histories = []*history{
	{name: "empty", wtHead: "refs/heads/wt"},
	{
		name: "linear", stream: linearStream, wtHead: "refs/heads/feature",
		good: []string{"HEAD", "HEAD~1", "HEAD~2", "HEAD^", "main", "feature", "main~3", "HEAD~4"},
		full: []string{"HEAD~1", "HEAD~3", "feature"},
	},
	{
		name: "long", stream: longStream, wtHead: "refs/heads/feature",
		good: []string{"HEAD", "HEAD~1", "HEAD~5", "HEAD~30", "v1.0", "v2.0", "light", "feature", "main", "v1.0^{commit}"},
		full: []string{"HEAD~2", "v1.0", "light"},
	},
	{
		name: "merges", stream: mergeStream, wtHead: "refs/heads/side",
		good:    []string{"HEAD", "HEAD~1", "HEAD~2", "HEAD^2", "HEAD~1^2", "HEAD~1^1", "v1.0", "feature", "side", "main"},
		full:    []string{"HEAD~3", "feature"},
		objects: []string{"HEAD:big.txt", "HEAD^{tree}", "HEAD~1:bin.dat"},
	},
	{
		name: "abbrev", stream: linearStream, wtHead: "refs/heads/feature",
		config: "[core]\n\tabbrev = 12\n[diff]\n\trenames = false\n",
		good:   []string{"HEAD", "HEAD~1", "HEAD~3", "main", "feature"},
		full:   []string{"HEAD~2"},
	},
}

// hermeticGitEnv is the environment for every git call the checker makes
// itself: no system or user configuration, a fixed identity and clock.
func hermeticGitEnv(home string) []string {
	date := fmt.Sprintf("@%d +0000", fixedDate)
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1",
		"LC_ALL=C",
		"TZ=UTC",
		"GIT_AUTHOR_NAME=Compat Tester", "GIT_AUTHOR_EMAIL=compat@example.com",
		"GIT_COMMITTER_NAME=Compat Tester", "GIT_COMMITTER_EMAIL=compat@example.com",
		"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date,
	}
}

func runGit(ctx context.Context, dir string, env []string, stdin []byte, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = env
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s in %s: %v: %s", strings.Join(args, " "), dir, err, errb.String())
	}
	return strings.TrimSpace(out.String()), nil
}

// buildTemplates creates every history under dir/<name>.
func buildTemplates(ctx context.Context, dir string) ([]*template, error) {
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, err
	}
	env := hermeticGitEnv(home)
	var out []*template
	for _, h := range histories {
		repo := filepath.Join(dir, h.name)
		if _, err := runGit(ctx, dir, env, nil, "init", "-q", "-b", "main", repo); err != nil {
			return nil, err
		}
		// Hook samples and the description are noise every copy would pay for.
		_ = os.RemoveAll(filepath.Join(repo, ".git", "hooks"))
		_ = os.Remove(filepath.Join(repo, ".git", "description"))
		t := &template{history: h, dir: repo, shas: map[string]string{}}
		if h.stream != nil {
			if _, err := runGit(ctx, repo, env, h.stream(), "fast-import", "--quiet"); err != nil {
				return nil, err
			}
			// One pack and packed refs: every scenario copies the repository
			// (twice), so fewer files make the whole run faster.
			if _, err := runGit(ctx, repo, env, nil, "repack", "-a", "-d", "-q"); err != nil {
				return nil, err
			}
			if _, err := runGit(ctx, repo, env, nil, "pack-refs", "--all", "--prune"); err != nil {
				return nil, err
			}
			for _, r := range append(append([]string{}, h.full...), h.objects...) {
				sha, err := runGit(ctx, repo, env, nil, "rev-parse", "--verify", r)
				if err != nil {
					return nil, err
				}
				t.shas[r] = sha
			}
		}
		if h.config != "" {
			f, err := os.OpenFile(filepath.Join(repo, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return nil, err
			}
			_, err = f.WriteString(h.config)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return nil, err
			}
		}
		out = append(out, t)
	}
	return out, nil
}
