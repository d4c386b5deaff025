#!/usr/bin/env bash
# Runs the commands end to end on the bundled example plan in a throw-away
# repository and shows what each prints: the three drop-ins alone, then
# Task 1 of the plan as the skill runs it, one sdd-ledger step at a time
# (the subagents' work stood in for by commits and a review file written
# here). Usage: demo.sh BIN_DIR
set -euo pipefail

bin=$(cd "${1:?usage: demo.sh BIN_DIR}" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

export GIT_CONFIG_NOSYSTEM=1 HOME="$tmp/home"
export GIT_AUTHOR_NAME=demo GIT_AUTHOR_EMAIL=demo@example.com
export GIT_COMMITTER_NAME=demo GIT_COMMITTER_EMAIL=demo@example.com
export PATH="$bin:$PATH"
mkdir -p "$HOME"

run() { printf '\n$ %s\n' "$*"; "$@"; }

git init -q -b main "$tmp/repo"
cd "$tmp/repo"
mkdir -p docs/plans
cp "$here/examples/plan.md" docs/plans/greeting.md
git add -A && git commit -qm "Add the plan"
git switch -q -c feature/greeting
plan=docs/plans/greeting.md

printf '\n=== The drop-ins\n'
run sdd-workspace "$plan"
run task-brief "$plan" 1

printf '\n=== Task 1 as the skill runs it: every step one sdd-ledger call\n'
run sdd-ledger look "$plan" main
run sdd-ledger start "$plan"
run sdd-ledger task "$plan" 1

# The implementer: two commits for one task.
mkdir -p greet
printf 'package greet\n\nfunc Hello(name string) string {\n\tif name == "" {\n\t\tname = "world"\n\t}\n\treturn "Hello, " + name + "!"\n}\n' > greet/greet.go
git add -A && git commit -qm "greet: Hello"
printf 'package greet\n\nimport "testing"\n\nfunc TestHello(t *testing.T) {\n\tif Hello("") != "Hello, world!" {\n\t\tt.Fatal("empty name")\n\t}\n}\n' > greet/greet_test.go
git add -A && git commit -qm "greet: test Hello"

run sdd-ledger package "$plan" 1 implementer-1
pkg=$(ls "$(sdd-workspace "$plan")"/review-*.diff)
printf '\n--- %s (first 12 lines)\n' "$pkg"; head -n 12 "$pkg"

# The reviewer: its review beside the package, its answer first.
printf 'Spec: ✅\nOpen: none\nMinor: greet.go:3 a doc comment would help\nNot verifiable: none\nReview: %s\n\n## Details\nBoth commits read.\n' "${pkg%.diff}.md" > "${pkg%.diff}.md"

run sdd-ledger look "$plan" main
run sdd-ledger close "$plan" 1 'greet.Hello(name) returns "Hello, <name>!"'
printf '\n--- %s\n' "$(sdd-workspace "$plan")/progress.md"; cat "$(sdd-workspace "$plan")/progress.md"

printf '\n$ git status --porcelain   # the workspace is invisible to git\n'
git status --porcelain
printf '(nothing)\n'
