package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// asideMark marks a file moved out of the way because it was running
// (see replaceFile); any later run removes such files once it can (sweep).
const asideMark = ".sdd-go-old-"

// replaceFile renames tmp over path. Windows refuses to replace or delete
// the file of a running program (an agent may be running the old
// sdd-workspace.exe) but lets it be renamed: then the old file is moved
// aside, tmp takes its place, and the old one is removed if it can be, or
// left for a later run.
func replaceFile(tmp, path string, env Env) error {
	err := os.Rename(tmp, path)
	if err == nil {
		return nil
	}
	if _, serr := os.Lstat(path); serr != nil {
		return err
	}
	aside, aerr := moveAside(path)
	if aerr != nil {
		return err // the original failure says more
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Rename(aside, path)
		return err
	}
	removeAside(aside, env)
	return nil
}

// removeFile removes path, moving it aside first when it cannot be removed
// because it is running.
func removeFile(path string, env Env) error {
	err := os.Remove(path)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	aside, aerr := moveAside(path)
	if aerr != nil {
		return err
	}
	removeAside(aside, env)
	return nil
}

// moveAside renames path to a hidden name beside it that no shell runs.
func moveAside(path string) (string, error) {
	dir, base := filepath.Split(path)
	for i := 0; ; i++ {
		aside := dir + fmt.Sprintf(".%s%s%d-%d", base, asideMark, os.Getpid(), i)
		if ok, err := exists(aside); err != nil {
			return "", err
		} else if ok {
			continue
		}
		return aside, os.Rename(path, aside)
	}
}

func removeAside(aside string, env Env) {
	if err := os.Remove(aside); err != nil {
		logf(env, "%s: moved aside while still running; a later run of install-skill removes it", aside)
	}
}
