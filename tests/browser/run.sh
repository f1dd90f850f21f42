#!/bin/sh
# The browser tests: run.sh [TEST.py] BRP SRCROOT (default test_view.py). Debian's
# python3 explicitly (a python3 found first on PATH may not see Debian's selenium);
# a script, so that `meson test --setup=valgrind` runs it as it is.
here=$(dirname "$0")
script=test_view.py
case "${1-}" in *.py) script=$1; shift ;; esac
py=/usr/bin/python3
[ -x "$py" ] || py=python3
exec "$py" "$here/$script" "$@"
