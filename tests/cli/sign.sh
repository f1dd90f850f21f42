#!/bin/sh
# Keys and signatures against minisign, the independent client (issue 14):
#   brp -> minisign  a detached signature made by brp sign --detached, with an
#                    unencrypted and with an encrypted brp key, is accepted by
#                    minisign -Vm (and refused once the log changes); minisign
#                    signs with brp's encrypted key (its format and scrypt)
#   minisign -> brp  a key made by minisign -G -W signs with brp sign and
#                    brp simulate -k; brp verify -K with minisign's .pub says
#                    ok and trusted, naming the key by its fingerprint
#                    (computed here); with another key, untrusted
#   keys             a wrong or missing passphrase, a public key for a secret
#                    key, an existing key file, a keyring of several keys
#   in place         brp sign leaves the log as it was when it fails (a damaged
#                    log, an unreadable key); signing twice keeps both
#                    signatures valid, and the first key trusted reads the
#                    second signature as a countersignature
#   export           a tampered log exports with its verdict (SQLite and CSV)
#
#   sign.sh BRP MINISIGN [SQLITE3]
set -eu

[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: sign.sh BRP MINISIGN [SQLITE3]" >&2; exit 2; }
brp=$1
minisign=$2
sqlite3=${3:-}
case $brp in /*) ;; *) brp=$(pwd)/$brp ;; esac
export LC_ALL=C LANG=C TZ=UTC

tmp=$(mktemp -d "${TMPDIR:-/tmp}/brp-sign.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp"

failed=0
bad() {
	echo "FAILED: $*"
	failed=1
}
# expect RC LABEL COMMAND...: run the command, its exit status must be RC
expect() {
	want=$1
	label=$2
	shift 2
	rc=0
	"$@" > out 2> err || rc=$?
	if [ "$rc" -ne "$want" ]; then
		bad "$label: exit $rc, not $want: $(head -c 300 out) $(head -c 300 err)"
	fi
}
json_field() { # json_field KEY: the value of "KEY": in out (a string, number or bool)
	sed -n "s/.*\"$1\":\\(\"[^\"]*\"\\|[a-z0-9]*\\).*/\\1/p" out | head -1
}

"$brp" simulate -n 2 -o sim -q
cp sim/match-000001.brp a.brp
cp sim/match-000002.brp b.brp

# brp -> minisign
expect 0 "keygen" "$brp" keygen -o k
# the key id in hex without leading zeros, as minisign writes it (rpl_key_id_format): 1 to 16 digits
grep -q '^untrusted comment: minisign public key [1-9A-F][0-9A-F]\{0,15\}$' k.pub || bad "k.pub: not a minisign public key file"
[ "$(stat -c %a k.key)" = 600 ] || bad "k.key is not mode 0600"
expect 3 "keygen over an existing key" "$brp" keygen -o k
expect 0 "keygen -f" "$brp" keygen -f -o k
expect 0 "sign --detached" "$brp" sign --detached -k k.key a.brp
cmp -s a.brp sim/match-000001.brp || bad "sign --detached changed the log"
expect 0 "minisign -Vm on brp's detached signature" "$minisign" -Vm a.brp -p k.pub
expect 0 "sign --detached -t" "$brp" sign --detached -k k.key -t "match 1 of the final" a.brp
expect 0 "minisign -Vm with brp's trusted comment" "$minisign" -Vm a.brp -p k.pub
grep -q "match 1 of the final" out || bad "minisign does not show brp's trusted comment"
cp a.brp a2.brp
printf x >> a2.brp
cp a.brp.minisig a2.brp.minisig
expect 1 "minisign -Vm on a changed log" "$minisign" -Vm a2.brp -p k.pub
echo "correct horse" > pass
expect 0 "keygen --encrypt" sh -c "\"$brp\" keygen -o e --encrypt --fast-kdf --passphrase-fd 3 3< pass"
expect 0 "sign --detached, encrypted key" sh -c "\"$brp\" sign --detached -k e.key --passphrase-fd 3 b.brp 3< pass"
expect 0 "minisign -Vm, encrypted brp key" "$minisign" -Vm b.brp -p e.pub
echo hello > f
expect 0 "minisign -S with brp's encrypted key" sh -c "\"$minisign\" -S -s e.key -m f < pass"
expect 0 "minisign -V of that" "$minisign" -Vm f -p e.pub

# minisign -> brp
expect 0 "minisign -G -W" "$minisign" -G -W -p m.pub -s m.key
cp sim/match-000001.brp c.brp
expect 0 "brp sign with minisign's key" "$brp" sign -k m.key c.brp
expect 0 "brp verify -K minisign's .pub" "$brp" verify --json -K m.pub c.brp
mid=$(sed -n 's/^untrusted comment: minisign public key //p' m.pub)
# the fingerprint of minisign's public key, computed here: the first 16 bytes of BLAKE2b-256 of the key
mfp=$(python3 -c 'import base64, hashlib, sys
print(hashlib.blake2b(base64.b64decode(open(sys.argv[1]).read().split("\n")[1])[10:42], digest_size=32).hexdigest()[:32])' m.pub)
[ "$(json_field key)" = "\"$mid\"" ] || bad "the signer's key is $(json_field key), not $mid"
[ "$(json_field fingerprint)" = "\"$mfp\"" ] || bad "the signer's fingerprint is $(json_field fingerprint), not $mfp"
[ "$(json_field trusted)" = true ] || bad "minisign's key is not trusted with -K m.pub"
[ "$(json_field verdict)" = '"ok"' ] || bad "signed by minisign's key: $(cat out)"
expect 1 "brp verify -K another key" "$brp" verify --json -K k.pub c.brp
[ "$(json_field verdict)" = '"untrusted"' ] || bad "another key: $(cat out)"
expect 0 "brp verify without keys" "$brp" verify c.brp
grep -q "signed by key $mid (fingerprint $mfp)\$" out || bad "without keys the line does not name the key: $(cat out)"
expect 0 "brp simulate -k minisign's key" "$brp" simulate -n 2 -k m.key -o msim -q
expect 0 "verify the signed simulation" "$brp" verify -K m.pub msim

# keys
expect 3 "sign with the wrong passphrase" sh -c "echo wrong | \"$brp\" sign -k e.key --passphrase-fd 0 b.brp"
grep -q "wrong passphrase" err || bad "a wrong passphrase is not named: $(cat err)"
expect 3 "sign with no passphrase and no terminal" sh -c "\"$brp\" sign -k e.key b.brp < /dev/null"
expect 3 "a public key as the secret key" "$brp" sign -k k.pub b.brp
expect 3 "a secret key as a trusted key" "$brp" verify -K k.key b.brp
cat k.pub m.pub e.pub > ring
expect 0 "a keyring" "$brp" verify --keyring ring c.brp
grep -q "signed by the trusted key $mid (fingerprint $mfp)\$" out || bad "--keyring: minisign's key is not trusted: $(cat out)"

# in place
cp sim/match-000002.brp d.brp
cp d.brp d.orig
expect 0 "sign twice (1)" "$brp" sign -k k.key d.brp
expect 0 "sign twice (2)" "$brp" sign -k m.key d.brp
expect 0 "verify a log signed twice" "$brp" verify --json -K m.pub d.brp
[ "$(json_field status)" = '"ok"' ] && [ "$(json_field trusted)" = true ] || bad "signed twice: $(cat out)"
# the first key trusted: minisign's signature after it is a countersignature, and the line names both keys
kid=$(sed -n 's/^untrusted comment: minisign public key //p' k.pub)
expect 0 "verify a countersigned log" "$brp" verify -K k.pub d.brp
grep -q "; signed by the trusted key $kid (fingerprint [0-9a-f]\{32\}), countersigned by key $mid (fingerprint $mfp)\$" out ||
	bad "countersigned: $(cat out)"
cp d.orig bad.brp
printf '\001' | dd of=bad.brp bs=1 seek=40 conv=notrunc 2> /dev/null
cp bad.brp bad.orig
expect 3 "sign a damaged log" "$brp" sign -k k.key bad.brp
cmp -s bad.brp bad.orig || bad "a failed sign changed the log"
[ -z "$(ls ./*~ 2> /dev/null)" ] || bad "a failed sign left $(ls ./*~)"
expect 3 "sign with a missing key" "$brp" sign -k nokey d.orig
expect 3 "sign a missing log" "$brp" sign -k k.key missing.brp

# export: the signature's public key changed (its CRC recomputed): it no longer verifies
cp sim/match-000001.brp t.brp
expect 0 "sign for the export" "$brp" sign -k k.key t.brp
size=$(stat -c %s t.brp)
python3 - t.brp << 'PYEOF' || bad "cannot craft a tampered log"
import sys, zlib
d = bytearray(open(sys.argv[1], "rb").read())
s = len(d) - 112
d[len(d) - 36] ^= 1
d[-4:] = zlib.crc32(bytes(d[s:-4])).to_bytes(4, "little")
open(sys.argv[1], "wb").write(bytes(d))
PYEOF
expect 1 "verify the tampered log" "$brp" verify t.brp
grep -q ": tampered: the signature at byte $((size - 112)) " out || bad "not tampered at $((size - 112)): $(cat out)"
expect 0 "export --csv a tampered log" "$brp" export --csv csv t.brp
grep -q ',"tampered",' csv/matches.csv || bad "matches.csv: no tampered verdict"
if [ -n "$sqlite3" ]; then
	expect 0 "export --sqlite a tampered log" "$brp" export --sqlite t.db t.brp
	[ "$("$sqlite3" t.db "SELECT verdict, verdict_offset FROM matches")" = "tampered|$((size - 112))" ] ||
		bad "the database does not say tampered at $((size - 112))"
fi

[ $failed -eq 0 ] && echo "sign.sh: all passed"
exit $failed
