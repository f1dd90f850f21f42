#!/usr/bin/env bash
# The one entry point for working on libreplay/brp on Debian (12 or later).
#
#   tools/dev.sh demo   install what is missing, configure, build, run brp on samples/
#   tools/dev.sh test   install what is missing, configure, build, run the test suite
#   tools/dev.sh build  install what is missing, configure, build (tools/bench.sh uses it)
#
# Idempotent: run it as often as you like; apt-get runs only when a package is
# missing, and an existing build directory is reconfigured, not recreated.
# Environment:
#   BRP_BUILDDIR=DIR  build directory (default: build/ at the top of the tree)
#   BRP_WERROR=1      configure with -Dwerror=true (CI sets it)
#   BRP_SANITIZE=1    configure with -Db_sanitize=address,undefined
set -euo pipefail

die() {
	echo "dev.sh: $*" >&2
	exit 1
}

usage() {
	sed -n '2,13s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BRP_BUILDDIR:-$root/build}
case $build in /*) ;; *) build=$root/$build ;; esac

packages=(meson ninja-build pkg-config gcc libsqlite3-dev zlib1g-dev libcsv-dev libcmocka-dev libsodium-dev
	python3 sqlite3 xz-utils bc time scdoc bash-completion man-db libxlsxwriter-dev
	python3-openpyxl libreoffice-calc-nogui poppler-utils chromium chromium-driver python3-selenium
	minisign python3-nacl clang-format
	python3-cffi python3-pandas python3-dask python3-distributed python3-pytest parallel)

install_missing() {
	local missing=() p sudo=
	if ! command -v dpkg-query > /dev/null; then
		echo "dev.sh: not a Debian system: make sure these are installed: ${packages[*]}" >&2
		return 0
	fi
	for p in "${packages[@]}"; do
		if ! dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q 'install ok installed'; then
			missing+=("$p")
		fi
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo > /dev/null || die "missing ${missing[*]}; not root and no sudo"
		sudo=sudo
	fi
	echo "dev.sh: installing ${missing[*]}"
	$sudo apt-get update
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
}

configure() {
	local opts=(-Dpkgconfig.relocatable=true)
	if [ "${BRP_WERROR:-0}" = 1 ]; then opts+=(-Dwerror=true); else opts+=(-Dwerror=false); fi
	if [ "${BRP_SANITIZE:-0}" = 1 ]; then
		opts+=('-Db_sanitize=address,undefined' -Db_lundef=false)
	else
		opts+=(-Db_sanitize=none)
	fi
	if [ -f "$build/meson-private/coredata.dat" ]; then
		meson setup --reconfigure "${opts[@]}" "$build" "$root"
	else
		meson setup "${opts[@]}" "$build" "$root"
	fi
	meson compile -C "$build"
}

# step ARG...: print "$ brp ARG..." and run brp with exactly those arguments at the top of the tree, so
# that a step's label is what it runs (tests/cli/readme.py checks that the demo has no label of its own).
# A disputed log exits 1 or 2 by design: a step shows its exit status rather than stopping the demo.
step() {
	local rc=0
	echo
	echo "\$ brp $*"
	(cd "$root" && "$build/tools/brp" "$@") || rc=$?
	[ $rc -eq 0 ] || echo "(exit $rc)"
}

# brp on what ships in samples/: every profile, then every meld dispute.
demo() {
	local brp=$build/tools/brp profile cards verdict out rc got bad=0 rows=0
	[ -x "$brp" ] || die "no $brp after the build"
	"$brp" --version
	# the main job: every shipped match log judged; samples/MANIFEST says what each verdict must be
	step verify samples/
	step verify --json samples/disputed/meld-two-wilds.brp
	(cd "$root" && step stats samples/*.brp)
	while IFS=$'\t' read -r file verdict _; do
		case $file in '' | '#'*) continue ;; esac
		# a disputed log exits 1 or 2 by design: only its verdict matters here
		got=$(cd "$root/samples" && { "$brp" verify --json "$file" 2> /dev/null || true; } | sed 's/.*"verdict":"\([a-z]*\)".*/\1/')
		[ "$got" = "$verdict" ] || die "$file: verdict $got, samples/MANIFEST says $verdict"
	done < "$root/samples/MANIFEST"
	echo
	echo "every sample has the verdict samples/MANIFEST gives it"
	for profile in kzv stbl aberto; do
		step rules "$profile"
	done
	echo
	echo "each row of samples/melds.tsv: brp meld --rules PROFILE CARDS..."
	while IFS=$'\t' read -r profile cards verdict _; do
		case $profile in '' | '#'*) continue ;; esac
		rows=$((rows + 1))
		rc=0
		# shellcheck disable=SC2086 # the cards are separate arguments
		out=$("$brp" meld --rules "$profile" $cards) || rc=$?
		case $rc in
		0) got=valid ;;
		1) got=invalid ;;
		*) die "brp meld --rules $profile $cards failed (exit $rc)" ;;
		esac
		if [ "$got" = "$verdict" ]; then
			printf '%-6s %-44s %s\n' "$profile" "$cards" "$out"
		else
			printf '%-6s %-44s %s  <-- MISMATCH: samples/melds.tsv says %s\n' "$profile" "$cards" "$out" "$verdict"
			bad=$((bad + 1))
		fi
	done < "$root/samples/melds.tsv"
	echo
	echo "$rows meld disputes, $bad mismatches"
	[ "$bad" -eq 0 ] || die "$bad verdicts differ from samples/melds.tsv"
}

[ $# -eq 1 ] || usage
case $1 in
demo)
	install_missing
	configure
	demo
	;;
test)
	install_missing
	configure
	# the suite must leave the source tree as it found it: what git says of it before and after
	snap=$(mktemp "${TMPDIR:-/tmp}/brp-tree.XXXXXX")
	sh "$root/tests/style/tree-check.sh" snapshot "$root" "$snap"
	rc=0
	meson test -C "$build" --print-errorlogs || rc=$?
	sh "$root/tests/style/tree-check.sh" compare "$root" "$snap" || rc=1
	rm -f "$snap"
	exit $rc
	;;
build)
	install_missing
	configure
	;;
-h | --help | help) usage ;;
*) usage ;;
esac
