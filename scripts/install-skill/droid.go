package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// Factory Droid (0.225.2) runs a command without asking when the risk
// level its model gives it is within the session's autonomy (--auto
// low|medium|high), or when the command is in the commandAllowlist of
// ~/.factory/settings.json, whatever its risk; in a headless run
// (droid exec) any other command ends the run (the notes of
// internal/dev/droidhost). The install for Droid adds the narrowest
// entries that let the skill's steps run: the four commands by their
// single-quoted paths in the install (the form host-droid.md writes;
// Droid matches an entry against the command's first words), the folder
// as named and as resolved. The user's other settings and entries stay,
// in their order; --uninstall removes these entries and nothing else.
//
// Droid reads settings.json as JSON with comments (JSONC); the installer
// edits plain JSON only, and names the entries to add by hand otherwise.

// droidSettings is Droid's user settings file as the installer edits it:
// its top-level members in their order, each value as written.
type droidSettings struct {
	path    string // where it is written: through a link, its target
	shown   string // its path as the user knows it
	mode    fs.FileMode
	members []member
}

type member struct {
	key   string
	value json.RawMessage
}

const allowlistKey = "commandAllowlist"

// droidSettingsPath is ~/.factory/settings.json, HOME being
// FACTORY_HOME_OVERRIDE when that is set.
func droidSettingsPath(env Env) (string, error) {
	base, err := configBase(hostDroid, env)
	if err != nil {
		return "", err
	}
	return under(base, ".factory/settings.json"), nil
}

// readDroidSettings reads the settings file; none yet is an empty one.
// A file that is no plain JSON object is refused.
func readDroidSettings(env Env) (*droidSettings, error) {
	p, err := droidSettingsPath(env)
	if err != nil {
		return nil, err
	}
	s := &droidSettings{path: p, shown: p, mode: 0o644}
	if fi, err := os.Lstat(p); err == nil && fi.Mode().Type() == fs.ModeSymlink {
		// A dotfiles manager's link: the file it leads to is changed.
		if s.path, err = filepath.EvalSymlinks(p); err != nil {
			return nil, err
		}
	}
	fi, err := os.Stat(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return s, nil
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	s.mode = fi.Mode().Perm()
	b, err := os.ReadFile(s.path)
	if err != nil {
		return nil, err
	}
	if s.members, err = parseObject(b); err != nil {
		return nil, fmt.Errorf("%s: %v; nothing was changed. Droid reads it (comments and all), but this installer edits plain JSON only: change its %q by hand (the skill's %s, each by its single-quoted path in the skill's bin/)",
			p, err, allowlistKey, strings.Join(ship.Commands, ", "))
	}
	if _, _, err := s.allowlist(); err != nil {
		return nil, err
	}
	return s, nil
}

// parseObject reads a JSON object's members in their order.
func parseObject(b []byte) ([]member, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a plain JSON object")
	}
	var ms []member
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, errors.New("not plain JSON")
		}
		key, ok := t.(string)
		if !ok {
			return nil, errors.New("not plain JSON")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, errors.New("not plain JSON")
		}
		ms = append(ms, member{key, v})
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil, errors.New("not plain JSON")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more than one JSON value")
	}
	return ms, nil
}

// format is the object, two spaces an indent, a newline at its end.
func (s *droidSettings) format() []byte {
	var b bytes.Buffer
	b.WriteString("{")
	for i, m := range s.members {
		if i > 0 {
			b.WriteString(",")
		}
		key, _ := json.Marshal(m.key)
		b.WriteString("\n  ")
		b.Write(key)
		b.WriteString(": ")
		var v bytes.Buffer
		if json.Indent(&v, m.value, "  ", "  ") != nil {
			v.Reset()
			v.Write(m.value)
		}
		b.Write(v.Bytes())
	}
	if len(s.members) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// allowlist is the commandAllowlist's entries, and where it is among the
// members (-1: none). An allowlist that is not a list of strings is an
// error.
func (s *droidSettings) allowlist() ([]string, int, error) {
	for i, m := range s.members {
		if m.key != allowlistKey {
			continue
		}
		var list []string
		if err := json.Unmarshal(m.value, &list); err != nil {
			return nil, i, fmt.Errorf("%s: its %q is not a list of commands", s.shown, allowlistKey)
		}
		return list, i, nil
	}
	return nil, -1, nil
}

// setAllowlist makes list the commandAllowlist, in the place it had, or
// last; an empty list is removed.
func (s *droidSettings) setAllowlist(list []string, at int) {
	if len(list) == 0 {
		if at >= 0 {
			s.members = slices.Delete(s.members, at, at+1)
		}
		return
	}
	v, _ := json.Marshal(list)
	if at < 0 {
		s.members = append(s.members, member{allowlistKey, v})
		return
	}
	s.members[at].value = v
}

// write writes the settings whole, beside and renamed, keeping the
// file's mode (its API keys may be private).
func (s *droidSettings) write(env Env) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		return err
	}
	return writeBeside(filepath.Dir(s.path), filepath.Base(s.path), s.format(), s.mode, os.Rename)
}

// allowlistEntries are the entries for the skill in target: each command
// by its single-quoted path, the folder as named (when absolute) and as
// the kernel resolves it (when it exists).
func allowlistEntries(target string, env Env) ([]string, error) {
	var dirs []string
	if filepath.IsAbs(target) {
		dirs = append(dirs, target)
	}
	resolved, err := filepath.EvalSymlinks(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		if !filepath.IsAbs(resolved) {
			resolved = filepath.Join(env.Dir, resolved)
		}
		if !slices.Contains(dirs, resolved) {
			dirs = append(dirs, resolved)
		}
	}
	var entries []string
	for _, d := range dirs {
		for _, c := range ship.Commands {
			entries = append(entries, "'"+filepath.ToSlash(d)+"/bin/"+c+"'")
		}
	}
	return entries, nil
}

// addAllowlist adds the entries for the skill in target to the settings
// read before the install (readDroidSettings).
func addAllowlist(target string, s *droidSettings, env Env) error {
	entries, err := allowlistEntries(target, env)
	if err != nil {
		return err
	}
	list, at, err := s.allowlist()
	if err != nil {
		return err
	}
	added := 0
	for _, e := range entries {
		if !slices.Contains(list, e) {
			list = append(list, e)
			added++
		}
	}
	if added > 0 {
		s.setAllowlist(list, at)
		if err := s.write(env); err != nil {
			return err
		}
		logf(env, "added the skill's %d commands, by their paths, to %q in %s: Droid runs them at any autonomy level without asking", len(ship.Commands), allowlistKey, s.shown)
	}
	logf(env, "droid exec offers its Task tool, which every dispatch uses, only with --auto high (host-droid.md)")
	return nil
}

// removeAllowlist removes entries from the settings' commandAllowlist,
// and nothing else.
func removeAllowlist(entries []string, env Env) error {
	p, err := droidSettingsPath(env)
	if err != nil {
		return err
	}
	if ok, err := exists(p); err != nil || !ok {
		return err
	}
	s, err := readDroidSettings(env)
	if err != nil {
		return err
	}
	list, at, err := s.allowlist()
	if err != nil {
		return err
	}
	kept := slices.DeleteFunc(slices.Clone(list), func(e string) bool { return slices.Contains(entries, e) })
	if len(kept) == len(list) {
		return nil
	}
	s.setAllowlist(kept, at)
	if err := s.write(env); err != nil {
		return err
	}
	logf(env, "removed the skill's commands from %q in %s", allowlistKey, s.shown)
	return nil
}
