package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"time"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// Entry is one member of an archive.
type Entry struct {
	Name string      // slash-separated; a directory's ends in "/"
	Mode fs.FileMode // permission bits, plus fs.ModeDir for a directory
	Src  string      // the file to copy; "" for a directory, or when Data holds the bytes
	Data []byte
}

// Layout lists what the archive for t holds, sorted by name (so parents
// come before children):
//
//	<base>/bin/<commands>   mode 0755
//	<base>/skill/…          the repository's skill/ directory
//	<base>/README.md, <base>/LICENSE
func Layout(root, binDir, version string, t Target) ([]Entry, error) {
	skill, err := ship.SkillFiles(root, "skill")
	if err != nil {
		return nil, err
	}
	files := append(ship.DocFiles(root), skill...)
	files = append(files, ship.BinaryFiles(binDir, t.OS, "bin")...)
	return entries(ArchiveBase(version, t)+"/", files), nil
}

// PluginLayout lists what the plugin archive for t holds: the plugin
// (ship.PluginFiles) at the archive's root, where `claude --plugin-dir
// ARCHIVE.zip` looks for .claude-plugin/plugin.json.
func PluginLayout(root, binDir, version string, t Target) ([]Entry, error) {
	files, err := ship.PluginFiles(root, binDir, t.OS, version)
	if err != nil {
		return nil, err
	}
	return entries("", files), nil
}

// SkillFolderLayout lists what the skill archive for t holds: the skill as
// a folder of its own (ship.SkillFolderFiles), named as the skill is, to
// unpack into Codex CLI's or OpenCode's skills directory.
func SkillFolderLayout(root, binDir, version string, t Target) ([]Entry, error) {
	files, err := ship.SkillFolderFiles(root, binDir, t.OS)
	if err != nil {
		return nil, err
	}
	return entries(ship.SkillName+"/", files), nil
}

// entries puts files under top ("" or a folder ending in "/") and adds an
// entry for every directory they are in, sorted by name.
func entries(top string, files []ship.File) []Entry {
	var out []Entry
	dirs := map[string]bool{}
	for _, f := range files {
		name := top + f.Path
		for d := path.Dir(name); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
			out = append(out, Entry{Name: d + "/", Mode: fs.ModeDir | 0o755})
		}
		out = append(out, Entry{Name: name, Mode: f.Mode, Src: f.Src, Data: f.Data})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
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
// copies exactly that many bytes, so a file that changes meanwhile fails;
// or writes e.Data when there is no Src.
func copyEntry(e Entry, open func(size int64) (io.Writer, error)) error {
	if e.Src == "" {
		w, err := open(int64(len(e.Data)))
		if err == nil {
			_, err = w.Write(e.Data)
		}
		return err
	}
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
