package ship

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"sort"
)

// PluginName is the Claude Code plugin this project ships. Claude Code
// lists it as sdd-go@<source> (sdd-go@skills-dir when it sits in
// ~/.claude/skills/) and shows the model its skill as
// sdd-go:subagent-driven-development.
const PluginName = "sdd-go"

// SkillName is the skill's name: the folder of skill/ under the plugin's
// skills/, and the name the model knows it by after the plugin's.
const SkillName = "subagent-driven-development"

// The skill's token budgets, as a host estimates them (`claude plugin
// details`: about four characters a token): always on, its listing in
// every session; on invoke, SKILL.md's body each time it is loaded. The
// text's checks (skilltext) and the real host (claudehost) hold it to
// them. The anchor's text costs about 30 and 6.9k; 3600 is the bound the
// project set on invoke (tasks side by side must fit in it too).
const (
	AlwaysOnBudget = 30
	OnInvokeBudget = 3600
)

// Homepage is the project's address, in plugin.json.
const Homepage = "https://github.com/sdd-go/sdd-go"

// File is one file of what ships, in a release archive or an installed
// plugin.
type File struct {
	Path string      // slash-separated, relative to the archive's or plugin's root
	Mode fs.FileMode // 0644, or 0755 for a binary or an executable source
	Src  string      // the file it copies; "" when Data holds its bytes
	Data []byte
}

// PluginFiles is the plugin, sorted by path:
//
//	.claude-plugin/plugin.json                PluginJSON(version)
//	README.md, LICENSE                        from the repository root
//	skills/subagent-driven-development/…      every file of skill/, whatever it holds
//	bin/<command>                             from binDir, named for goos
//
// Claude Code puts the plugin's bin/ on the PATH of its tools, so the skill
// finds the commands by name. binDir "" leaves bin/ out: the skill then
// runs whatever of that name is on PATH, or does their work by hand.
func PluginFiles(root, binDir, goos, version string) ([]File, error) {
	files := append(DocFiles(root), File{Path: ".claude-plugin/plugin.json", Mode: 0o644, Data: PluginJSON(version)})
	skill, err := SkillFiles(root, "skills/"+SkillName)
	if err != nil {
		return nil, err
	}
	files = append(files, skill...)
	if binDir != "" {
		files = append(files, BinaryFiles(binDir, goos, "bin")...)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// pluginJSON is .claude-plugin/plugin.json; every field is one
// `claude plugin validate --strict` looks for (without author, say, it
// warns and --strict fails).
type pluginJSON struct {
	Name        string   `json:"name"`
	Version     string   `json:"version"`
	Description string   `json:"description"`
	Author      author   `json:"author"`
	Homepage    string   `json:"homepage"`
	Repository  string   `json:"repository"`
	License     string   `json:"license"`
	Keywords    []string `json:"keywords"`
}

type author struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// PluginJSON is the plugin's manifest for version, the version stamped
// into its binaries (Claude Code shows it in `claude plugin list`).
func PluginJSON(version string) []byte {
	b, err := json.MarshalIndent(pluginJSON{
		Name:    PluginName,
		Version: version,
		Description: "Subagent-driven development: carry out a written multi-task plan with a fresh " +
			"implementer subagent and a review for every task, a progress ledger on disk, and " +
			"sdd-workspace, task-brief and review-package as native binaries.",
		Author:     author{Name: "the sdd-go authors", URL: Homepage},
		Homepage:   Homepage,
		Repository: Homepage,
		License:    "MIT",
		Keywords:   []string{"subagent-driven-development", "sdd", "plan", "subagents", "code-review"},
	}, "", "  ")
	if err != nil {
		panic(err) // strings and slices of strings always marshal
	}
	return append(b, '\n')
}

// DocFiles are the README and the licence, which go with every copy.
func DocFiles(root string) []File {
	return []File{
		{Path: "README.md", Mode: 0o644, Src: filepath.Join(root, "README.md")},
		{Path: "LICENSE", Mode: 0o644, Src: filepath.Join(root, "LICENSE")},
	}
}

// SkillFolderFiles is the skill as a folder of its own, sorted by path,
// for a host that loads skills from a skills directory and puts no
// plugin's bin/ on PATH (Codex CLI, OpenCode):
//
//	SKILL.md, …                every file of skill/, at the folder's root
//	README.md, LICENSE         from the repository root
//	bin/<command>              from binDir, named for goos
//
// The host's file of the skill (skill/host-<host>.md) has the model run
// the commands as <skill dir>/bin/<command>.
func SkillFolderFiles(root, binDir, goos string) ([]File, error) {
	skill, err := SkillFiles(root, "")
	if err != nil {
		return nil, err
	}
	files := append(DocFiles(root), skill...)
	files = append(files, BinaryFiles(binDir, goos, "bin")...)
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// SkillFiles are the files of root/skill under the folder under ("" for
// the folder's root). They are
// 0644, or 0755 when the source has any executable bit: the builder's
// umask must not show in what ships. Anything but regular files and
// directories is refused, and so is a skill without SKILL.md.
func SkillFiles(root, under string) ([]File, error) {
	dir := filepath.Join(root, "skill")
	var files []File
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file or directory; the skill ships only those", p)
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		mode := fs.FileMode(0o644)
		if fi.Mode()&0o111 != 0 {
			mode = 0o755
		}
		files = append(files, File{Path: path.Join(under, filepath.ToSlash(rel)), Mode: mode, Src: p})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the skill: %w", err)
	}
	if !slices.ContainsFunc(files, func(f File) bool { return f.Path == path.Join(under, "SKILL.md") }) {
		return nil, fmt.Errorf("%s has no SKILL.md", dir)
	}
	return files, nil
}

// BinaryFiles are the commands built for goos in binDir, under the folder
// under.
func BinaryFiles(binDir, goos, under string) []File {
	var files []File
	for _, c := range Commands {
		name := BinaryName(c, goos)
		files = append(files, File{Path: under + "/" + name, Mode: 0o755, Src: filepath.Join(binDir, name)})
	}
	return files
}
