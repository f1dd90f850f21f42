#!/bin/sh
# The C sources are as .clang-format writes them (docs/conventions.md): every
# .c and .h that git tracks under libreplay/, tools/, tests/ and examples/.
# On a fault, prints each file that differs and the command that fixes it.
#
#   format-check.sh SRCROOT
set -eu

[ $# -eq 1 ] || { echo "usage: format-check.sh SRCROOT" >&2; exit 2; }
cd "$1"
cf=$(command -v clang-format || command -v clang-format-14 || true)
[ -n "$cf" ] || { echo "format-check: clang-format is not installed (tools/dev.sh installs it)"; exit 1; }
if [ -d .git ] || git rev-parse --git-dir > /dev/null 2>&1; then
	files=$(git ls-files 'libreplay/*.[ch]' 'tools/*.[ch]' 'tests/*.[ch]' 'examples/*.[ch]')
else
	files=$(find libreplay tools tests examples -name '*.[ch]' | sort)
fi
bad=0
for f in $files; do
	if ! "$cf" --style=file "$f" | cmp -s "$f" -; then
		echo "format-check: $f is not as .clang-format writes it"
		bad=1
	fi
done
if [ $bad = 1 ]; then
	echo "format-check: fix with: clang-format -i --style=file FILE (from the source root)"
	exit 1
fi
echo "format-check: $(echo "$files" | wc -w) files as .clang-format writes them"
