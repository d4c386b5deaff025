package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
)

// manifestName is the file, in a directory the installer fills, that
// records the SHA-256 of every file it wrote there, in sha256sum's format
// (so `sha256sum -c .sdd-go-manifest` works there too). It is how a later
// run tells an untouched install from one somebody edited. Claude Code's
// plugin validator passes over it.
const manifestName = ".sdd-go-manifest"

// newFile is what the installer puts at one path.
type newFile struct {
	data []byte
	mode fs.FileMode
}

// placed counts what place did.
type placed struct{ written, removed, unchanged int }

// place makes dir hold files (by slash-separated path) as the installer's
// own: a file whose bytes or mode differ is written beside and renamed
// over the old one, a file the last run wrote and files no longer lists is
// removed, and the manifest then lists exactly files. Nothing is changed
// when dir, or a path of the install in it, is a link (links.go), and,
// unless force, when a file the last run wrote was edited or deleted, or
// one in the way was not written by the installer.
//
// Until the run ends the manifest lists both the old and the new sum of
// each file, so a run that is cut short leaves an install the next run
// still recognises as untouched, and --uninstall removes whole. A file the
// run adds is listed twice (pending), so that the next run, finding it
// missing, knows it was never placed rather than deleted.
func place(dir string, files map[string]newFile, force bool, env Env) (placed, error) {
	var did placed
	scratch.wait()
	if err := refuseObstacles(dir, obstacles(dir, []string{manifestName})); err != nil {
		return did, err
	}
	manifest, err := readManifest(under(dir, manifestName))
	if err != nil {
		return did, err
	}
	rels := append(append(sortedKeys(files), sortedKeys(manifest)...), manifestName)
	if err := refuseObstacles(dir, obstacles(dir, rels)); err != nil {
		return did, err
	}
	edited, foreign, err := changes(dir, files, manifest)
	if err != nil {
		return did, err
	}
	if err := refuseChanges(dir, edited, foreign, force, env); err != nil {
		return did, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return did, err
	}
	sweep(dir, rels)
	final := map[string][]string{}
	interim := map[string][]string{}
	for rel, sums := range manifest {
		interim[rel] = sums
	}
	for rel, f := range files {
		s := sum(f.data)
		final[rel] = []string{s}
		_, err := os.Lstat(under(dir, rel))
		switch {
		case slices.Contains(interim[rel], s):
		case interim[rel] == nil && err != nil:
			interim[rel] = []string{s, s} // pending
		default:
			interim[rel] = append(interim[rel], s)
		}
	}
	if err := writeManifest(dir, interim); err != nil {
		return did, err
	}
	for _, rel := range sortedKeys(files) {
		f, p := files[rel], under(dir, rel)
		if same, err := holds(p, f, env); err != nil {
			return did, err
		} else if same {
			did.unchanged++
			continue
		}
		parent, name := split(dir, rel)
		if err := os.MkdirAll(parent, 0o755); err != nil {
			return did, err
		}
		if err := writeBeside(parent, name, f.data, f.mode, func(tmp, path string) error { return replaceFile(tmp, path, env) }); err != nil {
			return did, err
		}
		did.written++
	}
	for _, rel := range sortedKeys(manifest) {
		if _, still := files[rel]; still {
			continue
		}
		// Written last time, not shipped now; unmodified (or --force),
		// since changes() let us get here.
		p := under(dir, rel)
		if ok, err := exists(p); err != nil {
			return did, err
		} else if !ok {
			// Gone already: deleted, or never placed by a run cut short,
			// which may have left its folder empty.
			removeEmptyParents(dir, rel)
			continue
		}
		if err := removeFile(p, env); err != nil {
			return did, err
		}
		removeEmptyParents(dir, rel)
		did.removed++
	}
	return did, writeManifest(dir, final)
}

// changes lists the files of dir that differ from what the installer wrote
// last time (edited, or deleted while still shipped), and those it would
// overwrite with other bytes without having written them (foreign): the
// files a plain install must not touch.
func changes(dir string, files map[string]newFile, manifest map[string][]string) (edited, foreign []string, err error) {
	for rel, sums := range manifest {
		b, err := os.ReadFile(under(dir, rel))
		_, shipped := files[rel]
		switch {
		case errors.Is(err, fs.ErrNotExist) && shipped && !pending(sums):
			edited = append(edited, rel+" (deleted)")
		case errors.Is(err, fs.ErrNotExist):
			// Not shipped any more, so it would be removed anyway, or
			// never placed by a run cut short.
		case err != nil:
			return nil, nil, err
		case !slices.Contains(sums, sum(b)):
			edited = append(edited, rel+" (edited)")
		}
	}
	for rel, f := range files {
		if _, ours := manifest[rel]; ours {
			continue
		}
		b, err := os.ReadFile(under(dir, rel))
		if err == nil && !bytes.Equal(b, f.data) {
			foreign = append(foreign, rel)
		}
	}
	sort.Strings(edited)
	sort.Strings(foreign)
	return edited, foreign, nil
}

// refuseChanges stops the run when it would overwrite or remove files the
// user edited or that the installer did not write, unless force; a folder
// never installed into is not called modified.
func refuseChanges(dir string, edited, foreign []string, force bool, env Env) error {
	all := append(slices.Clone(edited), foreign...)
	switch {
	case len(all) == 0:
		return nil
	case force:
		logf(env, "--force: overwriting local changes in %s: %s", dir, strings.Join(all, ", "))
		return nil
	}
	var b strings.Builder
	if len(edited) > 0 {
		fmt.Fprintf(&b, "%s was modified since it was installed:\n  %s\n", dir, strings.Join(edited, "\n  "))
	}
	if len(foreign) > 0 {
		fmt.Fprintf(&b, "%s holds files install-skill did not write:\n  %s\n", dir, strings.Join(foreign, "\n  "))
	}
	b.WriteString("nothing was changed; keep them elsewhere and run again with --force to overwrite or remove them")
	return errors.New(b.String())
}

// pending reports whether a file's sums in a manifest hold one line
// twice: a run's mark of a file it was to add, which a manifest of a run
// that ended never holds (sha256sum -c only checks it twice).
func pending(sums []string) bool {
	for i, s := range sums {
		if slices.Contains(sums[i+1:], s) {
			return true
		}
	}
	return false
}

// holds reports whether p already is f, mode included where the OS keeps
// one.
func holds(p string, f newFile, env Env) (bool, error) {
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil || !bytes.Equal(b, f.data) {
		return false, err
	}
	if env.GOOS == "windows" {
		return true, nil
	}
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().Perm() == f.mode, err
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// readManifest returns the sums the manifest at path lists for each file;
// none when there is no manifest.
func readManifest(path string) (map[string][]string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	m := map[string][]string{}
	for i, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if line == "" {
			continue
		}
		s, rel, ok := strings.Cut(line, "  ")
		if !ok || len(s) != 64 || rel == "" {
			return nil, fmt.Errorf("%s:%d: not a manifest line", path, i+1)
		}
		m[rel] = append(m[rel], s)
	}
	return m, nil
}

// formatManifest is one "<sha256>  <path>" line per sum, sorted by path.
func formatManifest(m map[string][]string) []byte {
	var b bytes.Buffer
	for _, rel := range sortedKeys(m) {
		for _, s := range m[rel] {
			fmt.Fprintf(&b, "%s  %s\n", s, rel)
		}
	}
	return b.Bytes()
}

func writeManifest(dir string, m map[string][]string) error {
	b := formatManifest(m)
	if old, err := os.ReadFile(under(dir, manifestName)); err == nil && bytes.Equal(old, b) {
		return nil
	}
	return writeBeside(dir, manifestName, b, 0o644, os.Rename)
}

// removeEmptyParents removes the folders of dir leading to rel, deepest
// first, while they are empty.
func removeEmptyParents(dir, rel string) {
	for d := path.Dir(rel); d != "."; d = path.Dir(d) {
		if os.Remove(under(dir, d)) != nil {
			return
		}
	}
}

func exists(path string) (bool, error) {
	_, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}
