#!/bin/sh
# The installed toolkit works from wherever it is installed:
#   install.sh BUILDDIR SRCROOT CC [CFLAGS...]
# 1. meson install into a fresh temporary destination (no rebuild);
# 2. the installed brp starts without LD_LIBRARY_PATH (its run path finds the
#    installed library relative to itself) and verifies a shipped sample;
# 3. the man pages and the bash completion are where man and bash look; the Python
#    package holds every module of bindings/python/libreplay/ and the _config.py that
#    names the installed library, and, imported from the moved prefix, loads the
#    library of that prefix (found relative to its own files) and reads a sample
#    (not against a sanitized library, which a plain python3 cannot load);
# 4. examples/table_server.c and object_store.c compile and link against the installed headers
#    and library through the installed (relocatable) pkg-config file alone,
#    each records a match, and the installed brp verifies it ok.
set -u

[ $# -ge 3 ] || { echo "usage: install.sh BUILDDIR SRCROOT CC [CFLAGS...]" >&2; exit 2; }
build=$1
root=$2
cc=$3
shift 3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/brp-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
export LC_ALL=C TZ=UTC
unset LD_LIBRARY_PATH LIBREPLAY_LIBRARY
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}

dest=$tmp/dest
meson install -C "$build" --no-rebuild --quiet --destdir "$dest" > "$tmp/install.log" 2>&1 || {
	cat "$tmp/install.log"
	echo "FAIL: meson install"
	exit 1
}
brp=$(find "$dest" -path '*/bin/brp' -type f | head -1)
[ -n "$brp" ] || { echo "FAIL: no bin/brp installed"; exit 1; }
prefix=$(dirname "$(dirname "$brp")")
# the Python package, when the build has it (cffi found): every module of the source's package, and
# _config.py naming the library where it is installed (checked before the move: it names the
# configured prefix)
pkg=$(find "$dest" -path '*/libreplay/__init__.py' | head -1)
if [ -n "$pkg" ]; then
	pkg=$(dirname "$pkg")
	for f in "$root"/bindings/python/libreplay/*.py; do
		[ -f "$pkg/$(basename "$f")" ] || bad "the Python module $(basename "$f") is not installed (bindings/python/meson.build)"
	done
	lib=$(sed -n 's/^LIBRARY = "\(.*\)"$/\1/p' "$pkg/_config.py" 2>/dev/null)
	case $lib in
	"${prefix#"$dest"}"/*/libreplay.so.0) [ -e "$dest$lib" ] || bad "the Python package's _config.py names $lib, not installed" ;;
	*) bad "the Python package's _config.py names no library under the prefix: '$lib'" ;;
	esac
fi
# move the whole tree elsewhere: nothing may depend on the configured prefix
pkgrel=
[ -n "$pkg" ] && case $pkg in "$prefix"/*) pkgrel=${pkg#"$prefix"/} ;; esac
mv "$prefix" "$tmp/moved"
prefix=$tmp/moved
brp=$prefix/bin/brp

# the Python package from the moved prefix: the library beside it, never the configured path
case " $* " in
*" -fsanitize="*) echo "the moved Python package is not imported: a sanitized library needs its runtime first" ;;
*)
	if [ -n "$pkgrel" ] && ! python3 -c 'import cffi' > /dev/null 2>&1; then
		echo "the moved Python package is not imported: python3 has no cffi"
	elif [ -n "$pkgrel" ]; then
		cat > "$tmp/moved.py" << 'EOF'
import sys
import libreplay
prefix, sample = sys.argv[1], sys.argv[2]
maps = [l.split()[-1] for l in open("/proc/self/maps") if "libreplay.so" in l]
assert maps and all(m.startswith(prefix + "/") for m in maps), "libreplay.so loaded from %s" % sorted(set(maps))
assert libreplay.verify(sample)["verdict"] == "ok"
EOF
		PYTHONPATH=$(dirname "$prefix/$pkgrel") python3 "$tmp/moved.py" "$prefix" "$root/samples/stbl-4p.brp" \
			> "$tmp/py" 2>&1 || bad "the moved Python package: $(cat "$tmp/py")"
	fi
	;;
esac

"$brp" --version > "$tmp/version" 2>&1 || bad "installed brp does not start: $(cat "$tmp/version")"
"$brp" verify "$root/samples/stbl-4p.brp" > "$tmp/verify" 2>&1 || bad "installed brp verify: $(cat "$tmp/verify")"
grep -q ': ok: ' "$tmp/verify" || bad "installed brp verify says: $(cat "$tmp/verify")"

for page in brp brp-verify brp-export; do
	[ -s "$prefix/share/man/man1/$page.1" ] || bad "no installed man page $page.1"
done
# the documents the pages name, where they say
for doc in format.md rules.md notation.md schema.md security.md view.md report.md img/report-1.png python.md api.md; do
	[ -s "$prefix/share/doc/libreplay/$doc" ] || bad "no installed document share/doc/libreplay/$doc"
done
grep -q 'share/doc/libreplay' "$prefix/share/man/man1/brp.1" || bad "brp(1) does not say where the documents are"
[ -s "$prefix/share/bash-completion/completions/brp" ] || bad "no installed bash completion"
for h in libreplay.h log.h game.h; do
	[ -f "$prefix/include/libreplay/$h" ] || bad "no installed header libreplay/$h"
done

pc=$(find "$prefix" -name libreplay.pc | head -1)
if [ -z "$pc" ]; then
	bad "no installed libreplay.pc"
else
	export PKG_CONFIG_PATH=$(dirname "$pc")
	flags=$(pkg-config --cflags --libs libreplay) || bad "pkg-config cannot read the installed libreplay.pc"
	libdir=$(pkg-config --variable=libdir libreplay)
	case $libdir in "$prefix"/*) ;; *) bad "the installed libreplay.pc points outside its tree: $libdir" ;; esac
	# the README's own line, as it stands there, run in a copy of the examples
	line=$(sed -n 's/^    \(cc -o table_server examples\/table_server.c .*\)$/\1/p' "$root/README.md")
	[ -n "$line" ] || bad "README.md has no line 'cc -o table_server examples/table_server.c ...'"
	mkdir -p "$tmp/readme/examples"
	cp "$root/examples/table_server.c" "$tmp/readme/examples/"
	# the compiler and flags this build was made with stand for the line's 'cc' (a sanitized library
	# needs a sanitized program, whose runtime must come first)
	run_line="$cc $* ${line#cc }"
	if (cd "$tmp/readme" && sh -c "$run_line") > "$tmp/cc.log" 2>&1; then
		(cd "$tmp/readme" && ./table_server "$tmp/readme.brp" 5) > "$tmp/run" 2>&1 ||
			bad "the README's table_server does not run: $(cat "$tmp/run")"
	else
		bad "the README's line does not build table_server: $run_line: $(cat "$tmp/cc.log")"
	fi
	# shellcheck disable=SC2086
	if "$cc" "$@" -o "$tmp/table_server" "$root/examples/table_server.c" $flags \
		-Wl,-rpath,"$libdir" > "$tmp/cc.log" 2>&1; then
		"$tmp/table_server" "$tmp/match.brp" 5 > "$tmp/run" 2>&1 || bad "table_server: $(cat "$tmp/run")"
		grep -q '^refused from ' "$tmp/run" || bad "table_server shows no refusal: $(cat "$tmp/run")"
		"$brp" verify "$tmp/match.brp" > "$tmp/v2" 2>&1 || bad "the example's log: $(cat "$tmp/v2")"
	else
		bad "examples/table_server.c does not build against the installed library: $(cat "$tmp/cc.log")"
	fi
	# shellcheck disable=SC2086
	if "$cc" "$@" -o "$tmp/object_store" "$root/examples/object_store.c" $flags \
		-Wl,-rpath,"$libdir" > "$tmp/cc.log" 2>&1; then
		"$tmp/object_store" "$tmp/bucket" 5 > "$tmp/run" 2>&1 || bad "object_store: $(cat "$tmp/run")"
		"$brp" verify "$tmp/bucket/match.brp" > "$tmp/v3" 2>&1 || bad "the object store's log: $(cat "$tmp/v3")"
	else
		bad "examples/object_store.c does not build against the installed library: $(cat "$tmp/cc.log")"
	fi
fi

[ $fail -eq 0 ] && echo "installed into a moved prefix: brp, man pages, completion, pkg-config, example ok"
exit $fail
