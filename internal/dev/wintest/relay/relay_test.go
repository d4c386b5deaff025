package relay

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/gitenv"
)

var drives = Drives{'z': "/", 'c': "/home/me/.wine/drive_c"}

func TestToUnix(t *testing.T) {
	for in, want := range map[string]string{
		`Z:\tmp\x`:            "/tmp/x",
		`z:/tmp/x`:            "/tmp/x",
		`Z:\`:                 "/",
		`\\?\Z:\tmp\long`:     "/tmp/long",
		`C:\users\me\repo`:    "/home/me/.wine/drive_c/users/me/repo",
		`C:\`:                 "/home/me/.wine/drive_c",
		`Z:\tmp\dépôt\my dir`: "/tmp/dépôt/my dir",
	} {
		got, ok := drives.ToUnix(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"repo", `sub\dir`, "/tmp/x", "D:\\x", "C:x", "HEAD~1", "--show-toplevel"} {
		_, ok := drives.ToUnix(in)
		assert.False(t, ok, in)
	}
}

func TestToWindows(t *testing.T) {
	for in, want := range map[string]string{
		"/tmp/x":                             "Z:/tmp/x",
		"/":                                  "Z:/",
		"/home/me/.wine/drive_c/users/me":    "C:/users/me",
		"/home/me/.wine/drive_c":             "C:/",
		"/home/me/.wine/drive_cx":            "Z:/home/me/.wine/drive_cx",
		"/home/me/.wine/drive_c/a b/dépôt/x": "C:/a b/dépôt/x",
	} {
		got, ok := drives.ToWindows(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
}

func TestRestyle(t *testing.T) {
	const p = "C:/Users/me/repo"
	assert.Equal(t, p, Restyle(p, StyleGitForWindows, "", ""))
	assert.Equal(t, p, Restyle(p, "", "", ""))
	assert.Equal(t, "/c/Users/me/repo", Restyle(p, StyleMSYS, "", ""))
	assert.Equal(t, "/cygdrive/c/Users/me/repo", Restyle(p, StyleCygwin, "", ""))
	assert.Equal(t, "/c", Restyle("C:/", StyleMSYS, "", ""))
	assert.Equal(t, "/home/me/repo", Restyle("C:/msys64/home/me/repo", StyleMount, `C:\msys64`, ""))
	assert.Equal(t, "/home/me/repo", Restyle("C:/MSYS64/home/me/repo", StyleMount, `c:\msys64\`, ""))
	assert.Equal(t, "/", Restyle("C:/msys64", StyleMount, `C:\msys64`, ""))
	// Outside the MSYS root, MSYS2 falls back to the drive form.
	assert.Equal(t, "/c/msys64x/repo", Restyle("C:/msys64x/repo", StyleMount, `C:\msys64`, ""))
	assert.Equal(t, "/d/work", Restyle("D:/work", StyleMount, `C:\msys64`, ""))
	// A directory mounted elsewhere than at the root: MSYS2 mounts %TEMP%
	// at /tmp.
	const temp = `C:\Users\me\AppData\Local\Temp`
	assert.Equal(t, "/tmp/x", Restyle("C:/Users/me/AppData/Local/Temp/x", StyleMount, temp, "/tmp"))
	assert.Equal(t, "/tmp/x", Restyle("C:/Users/me/AppData/Local/Temp/x", StyleMount, temp, "/tmp/"))
	assert.Equal(t, "/tmp", Restyle("C:/Users/me/AppData/Local/Temp", StyleMount, temp, "/tmp"))
	assert.Equal(t, "/c/Users/me/x", Restyle("C:/Users/me/x", StyleMount, temp, "/tmp"))
}

func TestForwarded(t *testing.T) {
	for _, k := range []string{"GIT_DIR", "git_config_nosystem", "HOME", "XDG_CONFIG_HOME", "COLUMNS", "LC_ALL", "LANG", "TZ"} {
		assert.True(t, Forwarded(k), k)
	}
	for _, k := range []string{"PATH", "TEMP", "TMP", "USERPROFILE", "SYSTEMROOT", "SDD_GITRELAY", "WINEPREFIX"} {
		assert.False(t, Forwarded(k), k)
	}
}

// TestRoundTrip runs the real git through a Server and a client on this
// machine: output, exit status, paths mapped both ways and the styled top
// level.
func TestRoundTrip(t *testing.T) {
	git, err := exec.LookPath("git")
	require.NoError(t, err)
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	home := filepath.Join(tmp, "home")
	repo := filepath.Join(tmp, "my repo")
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "sub"), 0o755))
	require.NoError(t, os.MkdirAll(home, 0o755))
	env := gitenv.Hermetic(home)
	init := exec.Command(git, "init", "-q", "-b", "main", repo)
	init.Env = env
	require.NoError(t, init.Run())

	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	srv := &Server{Git: git, Drives: Drives{'z': "/"}, Env: os.Environ()}
	go func() { _ = srv.Serve(l) }()

	win := func(p string) string { return "Z:" + strings.ReplaceAll(p, "/", `\`) }
	at := ""
	run := func(style string, args ...string) (int, string, string) {
		t.Helper()
		var out, errb bytes.Buffer
		code, err := Run(l.Addr().String(), Request{
			Args: args, Dir: win(filepath.Join(repo, "sub")), Env: append(env, "PATH=C:\\windows"), Style: style,
			Mount: win(tmp), At: at,
		}, &out, &errb)
		require.NoError(t, err)
		return code, out.String(), errb.String()
	}
	code, out, _ := run("", "rev-parse", "--show-toplevel")
	assert.Equal(t, 0, code)
	assert.Equal(t, "Z:"+repo+"\n", out)
	_, out, _ = run(StyleMSYS, "rev-parse", "--show-toplevel")
	assert.Equal(t, "/z"+repo+"\n", out)
	_, out, _ = run(StyleCygwin, "rev-parse", "--show-toplevel")
	assert.Equal(t, "/cygdrive/z"+repo+"\n", out)
	_, out, _ = run(StyleMount, "rev-parse", "--show-toplevel")
	assert.Equal(t, "/my repo\n", out)
	at = "/tmp"
	_, out, _ = run(StyleMount, "rev-parse", "--show-toplevel")
	assert.Equal(t, "/tmp/my repo\n", out)
	// Git's standard input goes over for a call that reads it (sdd-ledger's
	// check of its shas).
	var out2, errb2 bytes.Buffer
	code, err = Run(l.Addr().String(), Request{Args: []string{"hash-object", "--stdin"}, Dir: win(repo), Env: env, Stdin: []byte("x\n")}, &out2, &errb2)
	require.NoError(t, err)
	assert.Equal(t, 0, code, errb2.String())
	assert.Equal(t, "587be6b4c3f93f93c489c0111bba5596147a26cb\n", out2.String(), "git hash-object of \"x\\n\"")
	assert.True(t, ReadsStdin([]string{"cat-file", "--batch-check=%(objectname)"}))
	assert.False(t, ReadsStdin([]string{"rev-parse", "HEAD"}))
	// The commands ask for the top level and the way up in one call: the
	// way up passes unchanged.
	_, out, _ = run(StyleMount, "rev-parse", "--show-toplevel", "--show-cdup")
	assert.Equal(t, "/tmp/my repo\n../\n", out)
	at = ""
	// Other output is untouched, a Windows path argument is mapped, and
	// git's stderr and status come back.
	_, out, _ = run("", "rev-parse", "--show-prefix")
	assert.Equal(t, "sub/\n", out)
	code, out, _ = run("", "-C", win(repo), "rev-parse", "--show-prefix")
	assert.Equal(t, 0, code)
	assert.Equal(t, "\n", out)
	code, _, errOut := run("", "rev-parse", "--verify", "nope")
	assert.Equal(t, 128, code)
	assert.Contains(t, errOut, "fatal:")
	code, _, errOut = run("", "no-such-command")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "no-such-command")
	// The hermetic identity crossed over: a commit gets the fixed author.
	code, _, errOut = run("", "commit", "-q", "--allow-empty", "-m", "x")
	require.Equal(t, 0, code, errOut)
	_, out, _ = run("", "log", "-1", "--format=%an <%ae>")
	assert.Equal(t, "SDD Test <sdd@example.com>\n", out)
}
