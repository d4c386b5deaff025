#!/usr/bin/env bash
# Runs the three commands end to end on the bundled example plan in a
# throw-away repository and shows what each prints. Usage: demo.sh BIN_DIR
set -euo pipefail

bin=$(cd "${1:?usage: demo.sh BIN_DIR}" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

export GIT_CONFIG_NOSYSTEM=1 HOME="$tmp/home"
export GIT_AUTHOR_NAME=demo GIT_AUTHOR_EMAIL=demo@example.com
export GIT_COMMITTER_NAME=demo GIT_COMMITTER_EMAIL=demo@example.com
mkdir -p "$HOME"

run() { printf '\n$ %s\n' "$*"; "$@"; }

git init -q -b main "$tmp/repo"
cd "$tmp/repo"
mkdir -p docs/plans
cp "$here/examples/plan.md" docs/plans/greeting.md
git add -A && git commit -qm "Add the plan"

run "$bin/sdd-workspace" docs/plans/greeting.md
ws=$("$bin/sdd-workspace" docs/plans/greeting.md)
printf '# SDD ledger \xe2\x80\x94 plan: docs/plans/greeting.md\n' > "$ws/progress.md"

base=$(git rev-parse HEAD)
printf 'Task 1: base=%s\n' "$base" >> "$ws/progress.md"
run "$bin/task-brief" docs/plans/greeting.md 1
printf '\n--- %s\n' "$ws/task-1-brief.md"; cat "$ws/task-1-brief.md"

# Pretend to be the implementer: two commits for one task.
mkdir -p greet
printf 'package greet\n\nfunc Hello(name string) string {\n\tif name == "" {\n\t\tname = "world"\n\t}\n\treturn "Hello, " + name + "!"\n}\n' > greet/greet.go
git add -A && git commit -qm "greet: Hello"
printf 'package greet\n\nimport "testing"\n\nfunc TestHello(t *testing.T) {\n\tif Hello("") != "Hello, world!" {\n\t\tt.Fatal("empty name")\n\t}\n}\n' > greet/greet_test.go
git add -A && git commit -qm "greet: test Hello"

head=$(git rev-parse HEAD)
run "$bin/review-package" docs/plans/greeting.md "$base" "$head"
printf 'Task 1: reviewed_head=%s\n' "$head" >> "$ws/progress.md"
pkg=$(ls "$ws"/review-*.diff)
printf '\n--- %s (first 12 lines)\n' "$pkg"; head -n 12 "$pkg"

printf 'Task 1: complete (commits %s..%s, review clean)\n' "$(git rev-parse --short "$base")" "$(git rev-parse --short "$head")" >> "$ws/progress.md"
printf '\n--- %s\n' "$ws/progress.md"; cat "$ws/progress.md"

printf '\n$ git status --porcelain   # the workspace is invisible to git\n'
git status --porcelain
printf '(nothing)\n'
