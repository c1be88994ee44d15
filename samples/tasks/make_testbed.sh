#!/usr/bin/env bash
# Creates a sample task's /testbed: a git repository of <task>/repo/ at its base commit.
# Deterministic: fixed author, committer, dates and config, so base_commit is the same hash on every machine.
# Usage: make_testbed.sh <task-dir> <out-dir>    (prints the base commit)
set -euo pipefail
task="${1:?usage: make_testbed.sh <task-dir> <out-dir>}"
out="${2:?usage: make_testbed.sh <task-dir> <out-dir>}"
if [ ! -d "$task/repo" ]; then echo "make_testbed: $task has no repo/ directory" >&2; exit 2; fi
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then echo "make_testbed: $out exists and is not empty" >&2; exit 2; fi
mkdir -p "$out"
cp -R "$task/repo/." "$out/"
find "$out" -type d -exec chmod 755 {} + && find "$out" -type f -exec chmod 644 {} +
cd "$out"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME="SWE-Gym Sample" GIT_AUTHOR_EMAIL="samples@swegym-console.invalid"
export GIT_COMMITTER_NAME="SWE-Gym Sample" GIT_COMMITTER_EMAIL="samples@swegym-console.invalid"
export GIT_AUTHOR_DATE="2024-01-01T00:00:00+0000" GIT_COMMITTER_DATE="2024-01-01T00:00:00+0000"
git -c init.defaultBranch=main init -q
git add -A
git -c commit.gpgsign=false commit -q -m "base commit of $(basename "$task")"
git rev-parse HEAD
