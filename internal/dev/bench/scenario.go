package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/gitenv"
)

// Repo is a throw-away git repository built for a scenario, with the plan
// the commands are given and the range review-package packages.
type Repo struct {
	Dir  string   // the work tree; every command runs here
	Plan string   // the plan, relative to Dir
	Base string   // BASE as a caller passes it: a full commit name
	Head string   // HEAD as a caller passes it
	Env  []string // the hermetic environment every process of the scenario gets
	// Task is the task number task-brief extracts: one in the middle of
	// the plan, so the plan is read past it to the end.
	Task string
}

// initRepo makes dir/home and an empty repository dir/repo (branch main)
// and returns the repository and the hermetic environment to run git in.
func initRepo(ctx context.Context, dir string) (work string, env []string, err error) {
	home := filepath.Join(dir, "home")
	work = filepath.Join(dir, "repo")
	if err := os.MkdirAll(home, 0o777); err != nil {
		return "", nil, err
	}
	env = gitenv.Hermetic(home)
	if err := gitDo(ctx, "", env, nil, "init", "-q", "-b", "main", work); err != nil {
		return "", nil, err
	}
	return work, env, nil
}

// Realistic sizes the per-invocation scenario: a mid-sized project, a plan
// of Tasks tasks, and a task range of Commits commits that each replace
// ChangedLines lines (as many insertions as deletions).
type Realistic struct {
	Files        int // source files in the base commit
	FileLines    int // lines per source file
	Tasks        int // tasks in the plan
	Commits      int // commits in BASE..HEAD
	ChangedLines int // lines replaced by each commit
}

// DefaultRealistic is docs/bench.md's realistic scenario: a 40-task plan
// and five commits of 2,000 changed lines each.
var DefaultRealistic = Realistic{Files: 250, FileLines: 240, Tasks: 40, Commits: 5, ChangedLines: 2000}

// BuildRealistic creates the realistic repository under dir (which must
// exist and be empty): the plan at docs/plans/feature-plan.md, a base commit
// holding the plan and the sources, then s.Commits commits, checked out.
func BuildRealistic(ctx context.Context, dir string, s Realistic) (*Repo, error) {
	work, env, err := initRepo(ctx, dir)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var plan bytes.Buffer
	WritePlan(&plan, s.Tasks, 90)

	files := make([][][]byte, s.Files)
	for i := range files {
		files[i] = make([][]byte, s.FileLines)
		for j := range files[i] {
			files[i][j] = codeLine(nil, rng, i, j)
		}
	}
	path := func(i int) string { return fmt.Sprintf("internal/pkg%02d/file%03d.go", i%25, i) }

	var stream bytes.Buffer
	fi := newFastImport(&stream)
	blobs := map[string]int{"docs/plans/feature-plan.md": fi.blob(plan.Bytes())}
	for i := range files {
		blobs[path(i)] = fi.blob(joinLines(files[i]))
	}
	fi.commit("Initial import", blobs)

	// Each commit replaces blocks of 10 lines, 10 lines apart, in the next
	// files along, until ChangedLines lines are replaced.
	next := 0
	for c := 1; c <= s.Commits; c++ {
		changed := map[string]int{}
		left := s.ChangedLines
		for left > 0 {
			i := next % s.Files
			next++
			for start := 5; start+10 <= s.FileLines && left > 0; start += 20 {
				for j := start; j < start+10 && left > 0; j++ {
					files[i][j] = codeLine(nil, rng, i, j+1000*c)
					left--
				}
			}
			changed[path(i)] = fi.blob(joinLines(files[i]))
		}
		fi.commit(fmt.Sprintf("Task %d: step %d", 20, c), changed)
	}
	if err := gitDo(ctx, work, env, &stream, "fast-import", "--quiet"); err != nil {
		return nil, err
	}
	if err := gitDo(ctx, work, env, nil, "reset", "-q", "--hard"); err != nil {
		return nil, err
	}
	base, err := gitOutput(ctx, work, env, "rev-parse", "HEAD~"+strconv.Itoa(s.Commits))
	if err != nil {
		return nil, err
	}
	return &Repo{Dir: work, Plan: "docs/plans/feature-plan.md", Base: base, Head: "HEAD", Env: env,
		Task: strconv.Itoa((s.Tasks + 1) / 2)}, nil
}

// BuildLargePlan creates a repository under dir with no commit and a plan
// of about size bytes outside it at dir/big-plan.md: tasks tasks of equal
// size, task-brief's target in the middle.
func BuildLargePlan(ctx context.Context, dir string, size int64, tasks int) (*Repo, error) {
	work, env, err := initRepo(ctx, dir)
	if err != nil {
		return nil, err
	}
	planPath := filepath.Join(dir, "big-plan.md")
	f, err := os.Create(planPath)
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	// Size a sample plan to learn the bytes per line, then scale.
	var sample countWriter
	WritePlan(&sample, 2, 5000)
	lineBytes := sample.n / 10000
	WritePlan(w, tasks, int(size/int64(tasks)/lineBytes))
	if err := w.Flush(); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	return &Repo{Dir: work, Plan: planPath, Env: env, Task: strconv.Itoa((tasks + 1) / 2)}, nil
}

// LargeDiffLines is how many lines each of BuildLargeDiff's files has by
// default.
const LargeDiffLines = 16384

// BuildLargeDiff creates a repository under dir whose BASE..HEAD diff -U10
// is about diffBytes long: files of fileLines lines, in HEAD every
// third line replaced, so with -U10 every line of every file is in the
// diff once and a third of them twice. The commits are written with
// fast-import and not checked out: git diff between commits never reads
// the work tree, and the plan is a small untracked file.
func BuildLargeDiff(ctx context.Context, dir string, diffBytes int64, fileLines int) (*Repo, error) {
	work, env, err := initRepo(ctx, dir)
	if err != nil {
		return nil, err
	}
	// Blobs compressed fast: the bench times git reading them, not writing.
	if err := gitDo(ctx, work, env, nil, "config", "core.compression", "1"); err != nil {
		return nil, err
	}
	planRel := filepath.Join("docs", "plan.md")
	if err := os.MkdirAll(filepath.Join(work, "docs"), 0o777); err != nil {
		return nil, err
	}
	var plan bytes.Buffer
	WritePlan(&plan, 3, 20)
	if err := os.WriteFile(filepath.Join(work, planRel), plan.Bytes(), 0o666); err != nil {
		return nil, err
	}

	rng := rand.New(rand.NewPCG(3, 4))
	sample := codeLine(nil, rng, 0, 0)
	perFile := int64(fileLines) * int64(len(sample)) * 4 / 3
	nFiles := int((diffBytes + perFile/2) / perFile)
	if nFiles < 1 {
		nFiles = 1
	}

	pr, pw := io.Pipe()
	errc := make(chan error, 1)
	go func() {
		bw := bufio.NewWriterSize(pw, 1<<20)
		fi := newFastImport(bw)
		baseBlobs := map[string]int{}
		headBlobs := map[string]int{}
		var a, b []byte
		for i := 0; i < nFiles; i++ {
			a, b = a[:0], b[:0]
			for j := 0; j < fileLines; j++ {
				line := codeLine(nil, rng, i, j)
				a = append(a, line...)
				if j%3 == 0 {
					line = codeLine(line[:0], rng, i, j+fileLines)
				}
				b = append(b, line...)
			}
			p := fmt.Sprintf("gen/part%03d/data%04d.txt", i%50, i)
			baseBlobs[p] = fi.blob(a)
			headBlobs[p] = fi.blob(b)
		}
		fi.commit("Base", baseBlobs)
		fi.commit("Large change", headBlobs)
		err := bw.Flush()
		pw.CloseWithError(err)
		errc <- err
	}()
	err = gitDo(ctx, work, env, pr, "fast-import", "--quiet")
	pr.CloseWithError(io.ErrClosedPipe)
	if gerr := <-errc; err == nil && gerr != nil {
		err = gerr
	}
	if err != nil {
		return nil, err
	}
	base, err := gitOutput(ctx, work, env, "rev-parse", "HEAD~1")
	if err != nil {
		return nil, err
	}
	return &Repo{Dir: work, Plan: planRel, Base: base, Head: "HEAD", Env: env}, nil
}

// WritePlan writes a plan in the shape of superpowers' writing-plans skill:
// a header, then tasks "### Task N: …" of about linesPerTask lines each with
// steps and fenced code (one fence holding a "## Task" line that must not
// count as a heading), and a final non-task section.
func WritePlan(w io.Writer, tasks, linesPerTask int) {
	bw := bufio.NewWriterSize(w, 64<<10)
	defer bw.Flush()
	fmt.Fprintf(bw, "# Feature Implementation Plan\n\n> **For agentic workers:** execute this plan task by task.\n\n"+
		"**Goal:** a feature of %d tasks.\n\n**Architecture:** small packages, each tested first.\n\n---\n\n", tasks)
	rng := rand.New(rand.NewPCG(5, 6))
	var line []byte
	for t := 1; t <= tasks; t++ {
		fmt.Fprintf(bw, "### Task %d: Component %d\n\n**Files:**\n- Create: `internal/pkg%02d/file%03d.go`\n- Test: `internal/pkg%02d/file%03d_test.go`\n\n",
			t, t, t%25, t, t%25, t)
		n := 8
		for step := 1; n < linesPerTask; step++ {
			fmt.Fprintf(bw, "- [ ] **Step %d: Write the failing test for behaviour %d of component %d**\n\n```go\n", step, step, t)
			n += 3
			for j := 0; j < 12 && n < linesPerTask-2; j++ {
				if step == 2 && j == 0 {
					fmt.Fprintf(bw, "## Task %d: a heading inside a fence is not a heading\n", t+1)
				} else {
					line = codeLine(line[:0], rng, t, j)
					bw.Write(line)
				}
				n++
			}
			bw.WriteString("```\n\nRun: `go test ./...` and expect the new test to fail before the code exists.\n\n")
			n += 3
		}
	}
	bw.WriteString("## Final Review\n\nDispatch the final reviewer over the whole range.\n")
}

// codeLine appends one line of Go-looking code (about 72 bytes, newline
// included) to dst.
func codeLine(dst []byte, rng *rand.Rand, file, line int) []byte {
	dst = append(dst, "\tvalue"...)
	dst = strconv.AppendInt(dst, int64(file), 10)
	dst = append(dst, '_')
	dst = strconv.AppendInt(dst, int64(line), 10)
	dst = append(dst, " := compute(ctx, "...)
	dst = strconv.AppendUint(dst, rng.Uint64(), 36)
	dst = append(dst, ", \""...)
	dst = strconv.AppendUint(dst, rng.Uint64()%1e9, 16)
	dst = append(dst, "\") // step\n"...)
	return dst
}

func joinLines(lines [][]byte) []byte {
	var b []byte
	for _, l := range lines {
		b = append(b, l...)
	}
	return b
}

// fastImport writes a git fast-import stream: blobs, then commits on
// refs/heads/main, each on top of the previous one.
type fastImport struct {
	w     io.Writer
	mark  int
	last  int
	clock int64
}

func newFastImport(w io.Writer) *fastImport { return &fastImport{w: w, clock: 1700000000} }

func (f *fastImport) blob(data []byte) int {
	f.mark++
	fmt.Fprintf(f.w, "blob\nmark :%d\ndata %d\n", f.mark, len(data))
	f.w.Write(data)
	io.WriteString(f.w, "\n")
	return f.mark
}

// commit records files (path → blob mark) on top of the previous commit;
// paths are written sorted so the stream is deterministic.
func (f *fastImport) commit(msg string, files map[string]int) {
	f.mark++
	f.clock += 60
	fmt.Fprintf(f.w, "commit refs/heads/main\nmark :%d\nauthor Bench <bench@example.com> %d +0000\ncommitter Bench <bench@example.com> %d +0000\ndata %d\n%s\n",
		f.mark, f.clock, f.clock, len(msg), msg)
	if f.last != 0 {
		fmt.Fprintf(f.w, "from :%d\n", f.last)
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		fmt.Fprintf(f.w, "M 100644 :%d %s\n", files[p], p)
	}
	io.WriteString(f.w, "\n")
	f.last = f.mark
}

func gitDo(ctx context.Context, dir string, env []string, stdin io.Reader, args ...string) error {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return nil
}

func gitOutput(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return strings.TrimRight(string(out), "\n"), nil
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }
