#!/bin/sh
# brp recover of a signed log (issue 22): the salvage keeps it trusted up to
# its last valid signature.
#   recover_signed.sh BRP SRCROOT
# tests/cli/signed/growing-cut.brp is a signed growing log cut inside the
# signature of its last flush (tests/cli/signed/make.py). Its salvage is its
# bytes up to the last whole signature, verbatim; brp verify -K with its key
# says the trusted key covers the whole of it, and that it is unclosed; read
# from standard input it is the same salvage. With --unsigned: re-encoded,
# closed, unsigned, so untrusted under -K (and it keeps the two decisions no
# signature covered).
set -u

[ $# -eq 2 ] || { echo "usage: recover_signed.sh BRP SRCROOT" >&2; exit 2; }
brp=$1
root=$2
case $brp in /*) ;; *) brp=$(pwd)/$brp ;; esac
case $root in /*) ;; *) root=$(pwd)/$root ;; esac
in=$root/tests/cli/signed/growing-cut.brp
pub=$root/tests/cli/signed/signer.pub
tmp=$(mktemp -d "${TMPDIR:-/tmp}/brp-recover-signed.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 2
export LC_ALL=C TZ=UTC
fail=0

bad() {
	echo "FAIL: $*"
	fail=1
}

# field NAME FILE: the value of a top-level or signature field of a JSON line
field() {
	/usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[2]))
for k in sys.argv[1].split("."):
    d = d[k]
print(json.dumps(d))' "$1" "$2"
}

"$brp" recover --json "$in" -o signed.brp > rep.json || bad "brp recover: exit $?"
covered=$(field covered rep.json)
[ "$(field signed rep.json)" = true ] || bad "not kept signed: $(cat rep.json)"
[ "$(wc -c < signed.brp)" -eq "$covered" ] || bad "the salvage holds $(wc -c < signed.brp) bytes, not $covered"
head -c "$covered" "$in" | cmp -s - signed.brp || bad "the salvage is not the input's first $covered bytes"
rc=0
"$brp" verify --json -K "$pub" signed.brp > v.json || rc=$?
[ "$(field signature.status v.json)" = '"ok"' ] || bad "verify -K: $(cat v.json)"
[ "$(field signature.trusted v.json)" = true ] || bad "verify -K: not trusted: $(cat v.json)"
[ "$(field signature.covered v.json)" = "$covered" ] || bad "verify -K: covered $(field signature.covered v.json)"
[ "$(field closed v.json)" = false ] || bad "verify -K: the salvage is said closed"
"$brp" verify -K "$pub" signed.brp > v.txt 2>&1
grep -q 'unclosed' v.txt || bad "verify -K does not say unclosed: $(cat v.txt)"
grep -q "trusted" v.txt || bad "verify -K does not say trusted: $(cat v.txt)"
[ $fail -eq 0 ] && echo "ok: $(cat v.txt)"

"$brp" recover --json - -o piped.brp < "$in" > piped.json || bad "brp recover -: exit $?"
cmp -s signed.brp piped.brp || bad "brp recover - made other bytes than brp recover FILE"

"$brp" recover --unsigned --json "$in" -o unsigned.brp > urep.json || bad "brp recover --unsigned: exit $?"
[ "$(field signed urep.json)" = false ] || bad "--unsigned kept it signed"
"$brp" verify --json -K "$pub" unsigned.brp > uv.json
[ "$(field signature.status uv.json)" = '"unsigned"' ] || bad "--unsigned: $(cat uv.json)"
[ "$(field closed uv.json)" = true ] || bad "--unsigned: not closed"
[ "$(field recovered uv.json)" = true ] || bad "--unsigned: not marked recovered"
u=$(field decisions urep.json)
s=$(field decisions rep.json)
c=$(field uncovered_decisions rep.json)
[ "$u" -eq $((s + c)) ] || bad "--unsigned kept $u decisions, the signed salvage $s and $c uncovered"
[ $fail -eq 0 ] && echo "ok: --unsigned: $(field message urep.json)"

[ $fail -eq 0 ] && echo "all ok"
exit $fail
