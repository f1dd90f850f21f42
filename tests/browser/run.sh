#!/bin/sh
# The view-browser test: run.sh BRP SRCROOT. Debian's python3 explicitly (a
# python3 found first on PATH may not see Debian's selenium); a script, so
# that `meson test --setup=valgrind` runs it as it is.
here=$(dirname "$0")
py=/usr/bin/python3
[ -x "$py" ] || py=python3
exec "$py" "$here/test_view.py" "$@"
