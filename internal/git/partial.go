package git

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// PartialClone reports whether the repository git finds from the working
// directory is, or may be, a partial clone: one whose objects may be
// missing, which git fetches from a promisor remote when a command first
// needs them. Two commands that need the same missing objects, run side by
// side, would each fetch them; the second started once the first has
// fetched finds them there.
//
// It is judged from files, without running git (a git process costs more
// than the calls it would let run side by side save on a small range):
// `git clone --filter` and `git fetch --filter` record the promisor remote
// in the repository's configuration (remote.<name>.promisor,
// extensions.partialClone), and so does `git -c` in the environment. (A
// promisor remote named in the user's own configuration matters only
// where objects are missing, and only such a clone or fetch leaves them
// missing.) A
// configuration that includes other files, or a repository that cannot be
// found the way git finds it, is reported as a partial clone: unsure, the
// caller waits for the fetch, which is always right.
func PartialClone() bool {
	for _, kv := range os.Environ() {
		if promisorParameter(kv) {
			return true
		}
	}
	dir, ok := gitDir()
	if !ok {
		return true
	}
	common := dir
	if c := os.Getenv("GIT_COMMON_DIR"); c != "" {
		common = c
	} else if b, err := os.ReadFile(dir + sep + "commondir"); err == nil {
		// A linked worktree: the configuration is the main repository's.
		common = strings.TrimRight(string(b), "\r\n")
		if !filepath.IsAbs(common) {
			common = dir + sep + common
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return true
	}
	for _, config := range []string{common + sep + "config", dir + sep + "config.worktree"} {
		b, err := os.ReadFile(config)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil || promisorConfig(string(b)) {
			return true
		}
	}
	return false
}

const sep = string(filepath.Separator)

// promisorKey reports whether a configuration key (section.key, or
// section.subsection.key, in lower case) may make a remote a promisor:
// remote.<name>.promisor, extensions.partialclone, or an include, which
// may set either.
func promisorKey(key string) bool {
	return strings.HasPrefix(key, "remote.") && strings.HasSuffix(key, ".promisor") ||
		key == "extensions.partialclone" || strings.HasPrefix(key, "include")
}

// promisorParameter reports whether an environment entry sets a
// promisorKey for every git: GIT_CONFIG_PARAMETERS (git -c, as
// 'key'='value' pairs) or GIT_CONFIG_KEY_<n>.
func promisorParameter(kv string) bool {
	k, v, _ := strings.Cut(kv, "=")
	switch {
	case k == "GIT_CONFIG_PARAMETERS":
		for _, f := range strings.Split(strings.ToLower(v), "'") {
			if promisorKey(f) {
				return true
			}
		}
	case strings.HasPrefix(k, "GIT_CONFIG_KEY_"):
		return promisorKey(strings.ToLower(v))
	}
	return false
}

// promisorConfig reports whether a configuration file sets a promisorKey
// or cannot be read well enough to tell. It reads section headers and key
// names only: [section], [section "subsection"] or [section.subsection],
// then key = value or a lone key, in any case; # and ; start comments, and
// a line ending in a backslash goes on on the next one.
func promisorConfig(text string) bool {
	section, continued := "", false
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		if continued {
			continued = strings.HasSuffix(l, `\`)
			continue
		}
		if l == "" || l[0] == '#' || l[0] == ';' {
			continue
		}
		if l[0] == '[' {
			end := strings.IndexByte(l, ']')
			if end < 0 {
				return true
			}
			header := strings.TrimSpace(l[1:end])
			name, sub, quoted := strings.Cut(header, " ")
			if !quoted {
				name, sub, _ = strings.Cut(header, ".")
			}
			section = strings.ToLower(name) + "."
			if sub != "" {
				section += "sub." // which remote does not matter
			}
			if l = strings.TrimSpace(l[end+1:]); l == "" {
				continue // a key may follow on the header's line
			}
		}
		continued = strings.HasSuffix(l, `\`)
		key := strings.FieldsFunc(l, func(r rune) bool { return r == '=' || r == ' ' || r == '\t' })
		if len(key) == 0 || promisorKey(section+strings.ToLower(key[0])) {
			return true
		}
	}
	return false
}

// gitDir finds the repository's git directory as git does: $GIT_DIR, else,
// from the working directory up, the first directory holding a .git
// directory or a .git file ("gitdir: <path>"), or that is itself a git
// directory (a bare repository, or the inside of .git). The walk goes
// through "..", so the kernel, not the spelling of a path, decides where
// each parent is, as it does for git.
func gitDir() (string, bool) {
	if d := os.Getenv("GIT_DIR"); d != "" {
		return d, true
	}
	dir := "."
	for {
		dotGit := dir + sep + ".git"
		fi, err := os.Stat(dotGit)
		switch {
		case err == nil && fi.IsDir():
			return dotGit, true
		case err == nil:
			b, err := os.ReadFile(dotGit)
			path, ok := strings.CutPrefix(strings.TrimRight(string(b), "\r\n"), "gitdir: ")
			if err != nil || !ok {
				return "", false
			}
			if !filepath.IsAbs(path) {
				path = dir + sep + path
			}
			return path, true
		case !errors.Is(err, fs.ErrNotExist):
			return "", false
		}
		if isGitDir(dir) {
			return dir, true
		}
		here, err := os.Stat(dir)
		if err != nil {
			return "", false
		}
		parent := dir + sep + ".."
		up, err := os.Stat(parent)
		if err != nil || os.SameFile(here, up) {
			return "", false // the root, and no repository
		}
		dir = parent
	}
}

// isGitDir reports whether dir looks like a git directory: HEAD, objects
// and refs.
func isGitDir(dir string) bool {
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(dir + sep + name); err != nil {
			return false
		}
	}
	return true
}
