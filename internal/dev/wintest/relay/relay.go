// Package relay lets a Windows program running under Wine use the Linux
// git: Wine cannot wait for a native Linux child process, so the stand-in
// git.exe (internal/dev/wintest/gitstub) runs inside Wine and hands its
// arguments, working directory and git-related environment over loopback
// TCP to a Server on the Linux side, which runs the real git there and sends
// back its stdout, stderr and exit status as they come.
//
// Paths cross the boundary in both directions: the working directory and
// any argument or variable that is an absolute Windows path (Z:\tmp\x) are
// turned into Linux paths through the Wine prefix's drive letters, and the
// one path the commands read from git, `rev-parse --show-toplevel`, is
// printed back in the style of the git being imitated: Git for Windows
// (Z:/tmp/x), MSYS2 (/z/tmp/x), Cygwin (/cygdrive/z/tmp/x) or an MSYS
// mount (/home/me/x when Z:\tmp\msys64 is the MSYS root, /tmp/x when
// Z:\tmp\Temp is mounted at /tmp, as MSYS2 mounts %TEMP%). A relative path
// is passed as it is, so tests write it with forward slashes: Git for
// Windows would take a backslash as a separator, the Linux git does not.
//
// This is test harness code: the product never uses it.
package relay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// AddrEnv names the variable holding the Server's address (host:port); the
// stand-in git.exe reads it.
const AddrEnv = "SDD_GITRELAY"

// AddrFile is the file beside the stand-in git.exe that holds the address
// when $SDD_GITRELAY is not set (testscripts pass only chosen variables).
const AddrFile = "gitrelay.addr"

// StyleEnv, MountEnv and MountAtEnv choose how the stand-in prints its top
// level; see Restyle.
const (
	StyleEnv   = "SDD_GITRELAY_STYLE"
	MountEnv   = "SDD_GITRELAY_MOUNT"
	MountAtEnv = "SDD_GITRELAY_MOUNT_AT"
)

// The git styles Restyle knows.
const (
	StyleGitForWindows = "gfw"
	StyleMSYS          = "msys"
	StyleCygwin        = "cygwin"
	StyleMount         = "mount"
)

// Request is what the stand-in sends: one git run.
type Request struct {
	Args  []string // git's arguments, without "git"
	Dir   string   // the Windows working directory
	Env   []string // the variables that reach git (see Forwarded)
	Style string   // how --show-toplevel is printed
	Mount string   // the Windows directory mounted (StyleMount)
	At    string   // where it is mounted in MSYS's name space; "" is "/"
	// Stdin is git's standard input, read whole by the stand-in, for a
	// call that reads it (ReadsStdin); nil for the others, which get none.
	Stdin []byte
}

// ReadsStdin says whether git with args reads its standard input, which
// the stand-in then reads to its end and sends: `--stdin` (rev-list) or
// a `cat-file --batch…` (sdd-ledger's check of its recorded shas).
func ReadsStdin(args []string) bool {
	for _, a := range args {
		if a == "--stdin" || strings.HasPrefix(a, "--batch") {
			return true
		}
	}
	return false
}

// Frame types on the wire: one byte, a big-endian uint32 length, the payload.
const (
	frameRequest = 'R' // client → server: JSON Request
	frameStdout  = 'O'
	frameStderr  = 'E'
	frameExit    = 'X' // payload: the exit status, decimal
)

func writeFrame(w io.Writer, typ byte, p []byte) error {
	var h [5]byte
	h[0] = typ
	binary.BigEndian.PutUint32(h[1:], uint32(len(p)))
	if _, err := w.Write(h[:]); err != nil {
		return err
	}
	_, err := w.Write(p)
	return err
}

func readFrame(r io.Reader) (byte, []byte, error) {
	var h [5]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(h[1:])
	if n > 64<<20 {
		return 0, nil, fmt.Errorf("relay: frame of %d bytes", n)
	}
	p := make([]byte, n)
	_, err := io.ReadFull(r, p)
	return h[0], p, err
}

// Forwarded reports whether the variable named key reaches git. Only what
// configures git or its output crosses over; PATH, TEMP and the rest of the
// Windows environment mean nothing on Linux.
func Forwarded(key string) bool {
	k := strings.ToUpper(key)
	switch k {
	case "HOME", "XDG_CONFIG_HOME", "COLUMNS", "LANG", "LANGUAGE", "TZ", "TERM":
		return true
	}
	return strings.HasPrefix(k, "GIT_") || strings.HasPrefix(k, "LC_")
}

// Drives maps Wine drive letters (lower case) to Linux directories.
type Drives map[byte]string

// PrefixDrives reads the drive letters of a Wine prefix from its
// dosdevices/ symlinks ("z:" → "/").
func PrefixDrives(prefix string) (Drives, error) {
	dir := filepath.Join(prefix, "dosdevices")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	d := Drives{}
	for _, e := range ents {
		n := e.Name()
		if len(n) != 2 || n[1] != ':' || !isLetter(n[0]) {
			continue
		}
		target, err := filepath.EvalSymlinks(filepath.Join(dir, n))
		if err != nil {
			continue // a drive pointing nowhere
		}
		d[lower(n[0])] = target
	}
	if len(d) == 0 {
		return nil, fmt.Errorf("%s: no drive letters", dir)
	}
	return d, nil
}

// ToUnix turns an absolute Windows path (Z:\tmp\x, Z:/tmp/x, \\?\Z:\tmp\x)
// into the Linux path Wine maps it to; ok is false for anything else.
func (d Drives) ToUnix(p string) (string, bool) {
	p = strings.TrimPrefix(p, `\\?\`)
	if len(p) < 3 || !isLetter(p[0]) || p[1] != ':' || (p[2] != '\\' && p[2] != '/') {
		return "", false
	}
	base, ok := d[lower(p[0])]
	if !ok {
		return "", false
	}
	rest := strings.ReplaceAll(p[3:], `\`, "/")
	if rest == "" {
		return base, true
	}
	return strings.TrimSuffix(base, "/") + "/" + rest, true
}

// ToWindows turns a Linux path into the Windows path Git for Windows would
// print for it (forward slashes), choosing the drive whose directory is the
// longest prefix of p.
func (d Drives) ToWindows(p string) (string, bool) {
	best, bestLen := byte(0), -1
	for letter, base := range d {
		b := strings.TrimSuffix(base, "/")
		if (p == b || strings.HasPrefix(p, b+"/") || b == "") && len(b) > bestLen {
			best, bestLen = letter, len(b)
		}
	}
	if bestLen < 0 {
		return "", false
	}
	rest := strings.TrimPrefix(p[bestLen:], "/")
	return string(upper(best)) + ":/" + rest, true
}

// Restyle prints a Git for Windows path (Z:/tmp/x) as the git of style
// would: gfw leaves it; msys gives /z/tmp/x; cygwin /cygdrive/z/tmp/x;
// mount gives the path below mount (a Windows directory mounted at at, "/"
// when at is empty) as at/rest, and the msys form for a path outside it,
// as MSYS2 does.
func Restyle(gfw, style, mount, at string) string {
	if len(gfw) < 3 || gfw[1] != ':' || gfw[2] != '/' {
		return gfw
	}
	msys := "/" + string(lower(gfw[0])) + strings.TrimSuffix("/"+gfw[3:], "/")
	switch style {
	case StyleMSYS:
		return msys
	case StyleCygwin:
		return "/cygdrive" + msys
	case StyleMount:
		m := strings.TrimRight(strings.ReplaceAll(mount, `\`, "/"), "/")
		if m == "" {
			return msys
		}
		at = strings.TrimRight(at, "/")
		if strings.EqualFold(gfw, m) {
			if at == "" {
				return "/"
			}
			return at
		}
		if len(gfw) > len(m) && strings.EqualFold(gfw[:len(m)], m) && gfw[len(m)] == '/' {
			return at + gfw[len(m):]
		}
		return msys
	}
	return gfw
}

// Server runs git for stand-ins. Env is git's base environment (PATH and
// the locale, no git configuration); each request's forwarded variables
// are laid over it.
type Server struct {
	Git    string // the real git
	Drives Drives
	Env    []string
	Log    io.Writer // one line per run when not nil

	mu sync.Mutex
}

// Serve answers connections on l until it is closed.
func (s *Server) Serve(l net.Listener) error {
	for {
		c, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		go s.handle(c)
	}
}

func (s *Server) logf(format string, args ...any) {
	if s.Log != nil {
		s.mu.Lock()
		fmt.Fprintf(s.Log, format+"\n", args...)
		s.mu.Unlock()
	}
}

// frameWriter sends everything written to it as frames of one type; the
// lock keeps stdout and stderr frames whole.
type frameWriter struct {
	mu  *sync.Mutex
	w   io.Writer
	typ byte
}

func (f frameWriter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := writeFrame(f.w, f.typ, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (s *Server) handle(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	typ, p, err := readFrame(r)
	if err != nil || typ != frameRequest {
		return
	}
	var req Request
	if err := json.Unmarshal(p, &req); err != nil {
		return
	}
	var mu sync.Mutex
	stderr := frameWriter{&mu, c, frameStderr}
	status := s.run(c, r, req, frameWriter{&mu, c, frameStdout}, stderr)
	mu.Lock()
	_ = writeFrame(c, frameExit, []byte(fmt.Sprint(status)))
	mu.Unlock()
}

// run runs one request's git and returns the status a shell would see.
func (s *Server) run(c net.Conn, r io.Reader, req Request, stdout, stderr io.Writer) int {
	dir, ok := s.Drives.ToUnix(req.Dir)
	if !ok {
		fmt.Fprintf(stderr, "git relay: cannot map the working directory %q\n", req.Dir)
		return 128
	}
	args := make([]string, len(req.Args))
	for i, a := range req.Args {
		args[i] = s.mapValue(a)
	}
	env := s.environ(req.Env)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The stand-in closes the connection when it is killed (as the commands
	// kill git on an interrupt): then git must go too.
	go func() {
		_, _ = io.Copy(io.Discard, r)
		cancel()
	}()
	cmd := exec.CommandContext(ctx, s.Git, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stderr = stderr
	if req.Stdin != nil {
		cmd.Stdin = bytes.NewReader(req.Stdin)
	}
	topLevel := isTopLevel(req.Args)
	var out io.Writer = stdout
	var buf strings.Builder
	if topLevel {
		out = &buf
	}
	cmd.Stdout = out
	err := cmd.Run()
	if topLevel {
		_, _ = io.WriteString(stdout, s.restyleLines(buf.String(), req))
	}
	s.logf("git relay: %s: git %s: %v", dir, strings.Join(args, " "), err)
	return status(err)
}

// mapValue turns an absolute Windows path into its Linux path; anything
// else passes unchanged (Git for Windows takes both spellings).
func (s *Server) mapValue(v string) string {
	if u, ok := s.Drives.ToUnix(v); ok {
		return u
	}
	return v
}

// environ is the base environment without anything the request sets or
// that would configure git, plus the request's forwarded variables.
func (s *Server) environ(reqEnv []string) []string {
	var env []string
	for _, kv := range s.Env {
		k, _, _ := strings.Cut(kv, "=")
		if !Forwarded(k) {
			env = append(env, kv)
		}
	}
	for _, kv := range reqEnv {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !Forwarded(k) {
			continue
		}
		env = append(env, strings.ToUpper(k)+"="+s.mapValue(v))
	}
	return env
}

func isTopLevel(args []string) bool {
	rp := false
	for _, a := range args {
		if a == "rev-parse" {
			rp = true
		}
		if rp && a == "--show-toplevel" {
			return true
		}
	}
	return false
}

func (s *Server) restyleLines(out string, req Request) string {
	lines := strings.SplitAfter(out, "\n")
	for i, l := range lines {
		body := strings.TrimSuffix(l, "\n")
		if w, ok := s.Drives.ToWindows(body); ok && strings.HasPrefix(body, "/") {
			lines[i] = Restyle(w, req.Style, req.Mount, req.At) + l[len(body):]
		}
	}
	return strings.Join(lines, "")
}

func status(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		if code := ee.ExitCode(); code >= 0 {
			return code
		}
	}
	return 127
}

// Run is the stand-in's side: it sends req to the Server at addr, copies
// git's output to stdout and stderr as it arrives and returns git's status.
func Run(addr string, req Request, stdout, stderr io.Writer) (int, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	p, err := json.Marshal(req)
	if err != nil {
		return 0, err
	}
	if err := writeFrame(c, frameRequest, p); err != nil {
		return 0, err
	}
	r := bufio.NewReader(c)
	for {
		typ, p, err := readFrame(r)
		if err != nil {
			return 0, fmt.Errorf("relay: %w", err)
		}
		switch typ {
		case frameStdout:
			if _, err := stdout.Write(p); err != nil {
				return 0, err
			}
		case frameStderr:
			_, _ = stderr.Write(p)
		case frameExit:
			var code int
			if _, err := fmt.Sscan(string(p), &code); err != nil {
				return 0, fmt.Errorf("relay: exit frame %q", p)
			}
			return code, nil
		default:
			return 0, fmt.Errorf("relay: unknown frame %q", typ)
		}
	}
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func lower(c byte) byte    { return c | 0x20 }
func upper(c byte) byte    { return c &^ 0x20 }
