#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Check C formatting against .clang-format (make lint); --fix rewrites files.
set -eu
cd "$(dirname "$0")/.."
case "${1:-}" in
"" | --fix) ;;
-h | --help)
	echo "usage: scripts/lint.sh [--fix]: check the C sources' formatting against"
	echo ".clang-format (exit 1 naming the files that differ); --fix rewrites them"
	exit 0
	;;
*)
	echo "lint: unknown argument '$1' (usage: scripts/lint.sh [--fix])" >&2
	exit 2
	;;
esac
if ! command -v clang-format >/dev/null 2>&1; then
	echo "lint: clang-format is not installed (apt-get install clang-format)" >&2
	exit 1
fi
# git's list where this is a checkout of its own; in a tree that is not
# (an unpacked tarball, maybe inside another repository, whose ls-files
# would list nothing here) the files on disk
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
	files=$(git ls-files '*.c' '*.h')
else
	files=$(find app lib tests -name '*.[ch]')
fi
if [ -z "$files" ]; then
	echo "lint: no C files found under $(pwd -P)" >&2
	exit 1
fi
if [ "${1:-}" = "--fix" ]; then
	# shellcheck disable=SC2086
	clang-format -i $files
	exit 0
fi
bad=""
for f in $files; do
	clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad="$bad $f"
done
if [ -n "$bad" ]; then
	echo "lint: not formatted (run 'make format'):$bad" >&2
	exit 1
fi
echo "lint: $(echo "$files" | wc -w) files formatted"
