package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// Target is one GOOS/GOARCH pair.
type Target struct{ OS, Arch string }

func (t Target) String() string { return t.OS + "/" + t.Arch }

// DefaultTargets are what a release ships: the three OSes the tools are
// tested for, on both architectures their machines come in.
var DefaultTargets = []Target{
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"linux", "amd64"}, {"linux", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// parseTargets reads "linux/amd64,windows/arm64".
func parseTargets(s string) ([]Target, error) {
	var ts []Target
	for _, f := range strings.Split(s, ",") {
		goos, goarch, ok := strings.Cut(strings.TrimSpace(f), "/")
		if !ok || goos == "" || goarch == "" || strings.Contains(goarch, "/") {
			return nil, fmt.Errorf("bad target %q: want GOOS/GOARCH, e.g. linux/amd64", f)
		}
		ts = append(ts, Target{goos, goarch})
	}
	return ts, nil
}

// Config is one run of dist.
type Config struct {
	Root    string    // the repository: cmd/, skill/, README.md, LICENSE
	Out     string    // where archives and checksums go
	Version string    // stamped into the binaries and the file names
	GoCmd   string    // the go command
	Targets []Target  // what to build
	ModTime time.Time // every archive entry's modification time
	Log     io.Writer // progress and the go command's output
}

// validVersion keeps the version usable as a file name and as one word of
// -ldflags (which splits on spaces).
var validVersion = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z._+-]*$`)

func checkVersion(v string) error {
	if !validVersion.MatchString(v) {
		return fmt.Errorf("bad version %q: want letters, digits and . _ + - (a tag such as v1.2.3)", v)
	}
	return nil
}

// ArchiveBase is the archive's name without extension and its top folder.
func ArchiveBase(version string, t Target) string {
	return "sdd-go_" + version + "_" + t.OS + "_" + t.Arch
}

// ArchiveName is the archive's file name: a zip for Windows, where
// Explorer opens it without tools, a gzipped tar elsewhere, which keeps the
// executable bits.
func ArchiveName(version string, t Target) string {
	if t.OS == "windows" {
		return ArchiveBase(version, t) + ".zip"
	}
	return ArchiveBase(version, t) + ".tar.gz"
}

// ChecksumsName is the checksums file's name.
func ChecksumsName(version string) string { return "sdd-go_" + version + "_checksums.txt" }

// fallbackTime stamps archive entries when neither SOURCE_DATE_EPOCH nor
// git gives a time.
var fallbackTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// SourceDate is the time every archive entry carries: SOURCE_DATE_EPOCH
// (the reproducible-builds convention) when set, else the commit time of
// HEAD, else fallbackTime. A fixed time, unlike the files' own, is the
// same on every machine and every checkout.
func SourceDate(epoch string, git func(args ...string) (string, error)) (time.Time, error) {
	if epoch != "" {
		n, err := strconv.ParseInt(epoch, 10, 64)
		if err != nil || n < 0 {
			return time.Time{}, fmt.Errorf("bad SOURCE_DATE_EPOCH %q: want seconds since 1970", epoch)
		}
		return time.Unix(n, 0).UTC(), nil
	}
	if s, err := git("log", "-1", "--format=%ct"); err == nil {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
			return time.Unix(n, 0).UTC(), nil
		}
	}
	return fallbackTime, nil
}

// Run builds every target's archive into cfg.Out, then the checksums file.
func Run(ctx context.Context, cfg Config) error {
	if err := checkVersion(cfg.Version); err != nil {
		return err
	}
	for _, p := range []string{"README.md", "LICENSE", "skill"} {
		if _, err := os.Stat(filepath.Join(cfg.Root, p)); err != nil {
			return fmt.Errorf("not the root of an sdd-go clone: %w", err)
		}
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "sdd-go-dist-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	var names []string
	for _, t := range cfg.Targets {
		binDir := filepath.Join(work, t.OS+"_"+t.Arch)
		fmt.Fprintf(cfg.Log, "dist: build %s\n", t)
		if err := build(ctx, cfg, t, binDir); err != nil {
			return fmt.Errorf("build %s: %w", t, err)
		}
		entries, err := Layout(cfg.Root, binDir, cfg.Version, t)
		if err != nil {
			return err
		}
		name := ArchiveName(cfg.Version, t)
		err = writeFile(filepath.Join(cfg.Out, name), func(w io.Writer) error {
			if t.OS == "windows" {
				return WriteZip(w, entries, cfg.ModTime)
			}
			return WriteTarGz(w, entries, cfg.ModTime)
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(cfg.Log, "dist: wrote %s\n", filepath.Join(cfg.Out, name))
		names = append(names, name)
	}
	sums := filepath.Join(cfg.Out, ChecksumsName(cfg.Version))
	err = writeFile(sums, func(w io.Writer) error { return WriteChecksums(w, cfg.Out, names) })
	if err != nil {
		return err
	}
	fmt.Fprintf(cfg.Log, "dist: wrote %s\n", sums)
	return nil
}

// build compiles the commands for t into binDir, as they ship.
func build(ctx context.Context, cfg Config, t Target, binDir string) error {
	b := ship.Build{Go: cfg.GoCmd, Root: cfg.Root, Out: binDir, GOOS: t.OS, GOARCH: t.Arch, Version: cfg.Version}
	return b.Run(ctx)
}

// Entry is one member of an archive.
type Entry struct {
	Name string      // slash-separated; a directory's ends in "/"
	Mode fs.FileMode // permission bits, plus fs.ModeDir for a directory
	Src  string      // the file to copy; "" for a directory
}

// Layout lists what the archive for t holds, sorted by name (so parents
// come before children):
//
//	<base>/bin/<commands>   mode 0755
//	<base>/skill/…          the repository's skill/ directory
//	<base>/README.md, <base>/LICENSE
//
// Files are 0644, or 0755 when the source has any executable bit:
// the builder's umask must not show in a release.
func Layout(root, binDir, version string, t Target) ([]Entry, error) {
	top := ArchiveBase(version, t) + "/"
	entries := []Entry{
		{Name: top, Mode: fs.ModeDir | 0o755},
		{Name: top + "bin/", Mode: fs.ModeDir | 0o755},
		{Name: top + "README.md", Mode: 0o644, Src: filepath.Join(root, "README.md")},
		{Name: top + "LICENSE", Mode: 0o644, Src: filepath.Join(root, "LICENSE")},
	}
	for _, c := range ship.Commands {
		name := ship.BinaryName(c, t.OS)
		entries = append(entries, Entry{Name: top + "bin/" + name, Mode: 0o755, Src: filepath.Join(binDir, name)})
	}
	err := filepath.WalkDir(filepath.Join(root, "skill"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		name := top + filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			entries = append(entries, Entry{Name: name + "/", Mode: fs.ModeDir | 0o755})
		case d.Type().IsRegular():
			fi, err := d.Info()
			if err != nil {
				return err
			}
			mode := fs.FileMode(0o644)
			if fi.Mode()&0o111 != 0 {
				mode = 0o755
			}
			entries = append(entries, Entry{Name: name, Mode: mode, Src: p})
		default:
			return fmt.Errorf("%s: not a regular file or directory; a release holds only those", p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	return entries, nil
}

// WriteTarGz writes entries as a gzipped tar owned by root:root with one
// modification time and no gzip name or time, so equal inputs give equal bytes.
func WriteTarGz(w io.Writer, entries []Entry, mtime time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		hdr := &tar.Header{
			Name:    e.Name,
			Mode:    int64(e.Mode.Perm()),
			ModTime: mtime,
		}
		if e.Mode.IsDir() {
			hdr.Typeflag = tar.TypeDir
			if err := tw.WriteHeader(hdr); err != nil {
				return err
			}
			continue
		}
		hdr.Typeflag = tar.TypeReg
		if err := copyEntry(e, func(size int64) (io.Writer, error) {
			hdr.Size = size
			return tw, tw.WriteHeader(hdr)
		}); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// WriteZip writes entries as a zip with Unix modes recorded (unzip and
// bsdtar restore them) and one modification time.
func WriteZip(w io.Writer, entries []Entry, mtime time.Time) error {
	zw := zip.NewWriter(w)
	for _, e := range entries {
		fh := &zip.FileHeader{Name: e.Name, Method: zip.Deflate, Modified: mtime.UTC()}
		fh.SetMode(e.Mode)
		if e.Mode.IsDir() {
			fh.Method = zip.Store
			if _, err := zw.CreateHeader(fh); err != nil {
				return err
			}
			continue
		}
		if err := copyEntry(e, func(int64) (io.Writer, error) { return zw.CreateHeader(fh) }); err != nil {
			return err
		}
	}
	return zw.Close()
}

// copyEntry opens e.Src, asks open for the writer given its size, and
// copies exactly that many bytes, so a file that changes meanwhile fails.
func copyEntry(e Entry, open func(size int64) (io.Writer, error)) error {
	f, err := os.Open(e.Src)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", e.Src)
	}
	w, err := open(fi.Size())
	if err != nil {
		return err
	}
	n, err := io.Copy(w, io.LimitReader(f, fi.Size()))
	if err == nil && n != fi.Size() {
		err = fmt.Errorf("%s: changed while being archived", e.Src)
	}
	return err
}

// WriteChecksums writes one "<sha256>  <name>" line per file of dir named
// in names, sorted, which is the format sha256sum -c reads.
func WriteChecksums(w io.Writer, dir string, names []string) error {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	bw := bufio.NewWriter(w)
	for _, name := range sorted {
		sum, err := fileSHA256(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		fmt.Fprintf(bw, "%x  %s\n", sum, path.Base(filepath.ToSlash(name)))
	}
	return bw.Flush()
}

func fileSHA256(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// writeFile writes target through a temporary file in its directory and
// renames it into place, so an interrupted run leaves no half archive that
// a checksum could later vouch for.
func writeFile(target string, write func(io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriter(f)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), target); err != nil {
		return err
	}
	return nil
}
