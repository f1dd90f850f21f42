/*
 * rpl_sign_log and the header flag that says a log is signed (docs/format.md
 * section 18.1), on every shipped log that reads to its end:
 *
 *   first signature  a log with no signature gets its header written again
 *                    as version 4 with RPL_LOG_SIGNED, every other section's
 *                    bytes unchanged, one signature appended; the match
 *                    identity and the replay's verdict are the unsigned
 *                    log's, and the signature is ok and trusted under the key;
 *                    a version-3 committed log (protocol 1, which version 4
 *                    cannot hold) only gets the signature
 *   countersigned    a log signed already keeps its bytes: the second
 *                    signature is only appended, and both verify
 *   stripped         a signed log cut before its signature keeps its flag,
 *                    and signing it again only appends
 *   damaged          a log that does not read to its end is refused and left
 *                    as it was
 */
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libreplay/deal.h"
#include "libreplay/sign.h"

#define SIG_SECTION 112 /* an ED signature section: type, length, 106 bytes, CRC */

/* The logs of the tree that read to their end (the damaged ones are tried apart). */
static const char *const logs[] = {
	"samples/kzv-4p.brp",
	"samples/stbl-2p.brp",
	"samples/stbl-4p.brp",
	"samples/aberto-4p.brp",
	"samples/committed-4p.brp",
	"samples/committed-v4-4p.brp",
	"samples/disputed/meld-two-wilds.brp",
	"samples/disputed/deal-mismatch.brp",
	"samples/disputed/claim-deal.brp",
	"samples/disputed/unfinished.brp",
	"samples/disputed/recovered.brp",
	"samples/disputed/claims-cut.brp",
	"tests/format/legacy/stbl-2p.brp",
	"tests/format/legacy/kzv-4p.brp",
};

/* What a log is: its version, header flags, identity, where its header ends, its replay verdict. */
struct what {
	int version;
	unsigned flags;
	char id[RPL_MATCH_ID_SIZE];
	size_t header_end;
	int sealed;
	int kind, deal_commitment;
	int sig_status, sig_count, key_trusted;
};

static void what_of(const unsigned char *d, size_t n, const rpl_keyring *kr, struct what *w)
{
	rpl_reader *rd = NULL;
	rpl_event ev;
	rpl_verdict v;
	size_t len = 0, pos = 9;
	int shift = 0, got;

	memset(w, 0, sizeof(*w));
	assert_int_equal(rpl_reader_open_memory(&rd, d, n), 0);
	while ((got = rpl_reader_next(rd, &ev)) > 0)
		;
	assert_int_equal(got, 0);
	w->version = rpl_reader_format_version(rd);
	w->flags = rpl_reader_flags(rd);
	assert_int_equal(rpl_reader_match_id(rd, w->id), 0);
	rpl_reader_free(rd);
	/* the header's section: type byte 'H' at 8, a varint length, the payload, the CRC; or, in a
	   sealed log (format.md 19.5), 'Z' and no CRC: the log's one checksum ends it, after E */
	assert_true(d[8] == 'H' || d[8] == 'Z');
	w->sealed = d[8] == 'Z';
	do {
		len |= (size_t)(d[pos] & 0x7f) << shift;
		shift += 7;
	} while (d[pos++] & 0x80);
	w->header_end = pos + len + (w->sealed ? 0 : 4);
	assert_int_equal(rpl_reader_open_memory(&rd, d, n), 0);
	assert_int_equal(rpl_verify_reader_trusted(rd, NULL, kr, &v, NULL), 0);
	rpl_reader_free(rd);
	w->kind = v.kind;
	w->deal_commitment = v.deal_commitment;
	w->sig_status = v.signature.status;
	w->sig_count = v.signature.count;
	w->key_trusted = v.signature.key_trusted;
}

static void sign_file(rpl_seckey *k, const char *path)
{
	int err = rpl_sign_log(k, path);
	if (err != 0)
		tl_fail("rpl_sign_log(%s): %s", path, rpl_seckey_errmsg(k));
}

static void first_signature(void **state)
{
	const char *path = tl_tmp_path("signed.brp");
	rpl_seckey *k = NULL, *k2 = NULL;
	rpl_keyring *kr = NULL;
	rpl_pubkey pk;
	(void)state;

	assert_int_equal(rpl_seckey_generate(&k), 0);
	assert_int_equal(rpl_seckey_generate(&k2), 0);
	rpl_seckey_public(k, &pk);
	assert_int_equal(rpl_keyring_new(&kr), 0);
	assert_int_equal(rpl_keyring_add(kr, &pk), 0);
	for (size_t i = 0; i < sizeof(logs) / sizeof(logs[0]); i++) {
		char src[512];
		unsigned char *orig, *signed1, *signed2;
		size_t n, n1, n2;
		struct what before, after, twice;
		int v3_committed;

		tl_context = logs[i];
		snprintf(src, sizeof(src), "%s/%s", SRCROOT, logs[i]);
		orig = tl_read_file(src, &n);
		what_of(orig, n, NULL, &before);
		assert_int_equal(before.sig_status, RPL_SIG_UNSIGNED);
		assert_int_equal(before.flags, 0);
		v3_committed = before.version == 3 && before.deal_commitment != RPL_DEAL_NONE;
		tl_write_file(path, orig, n);
		sign_file(k, path);
		signed1 = tl_read_file(path, &n1);
		what_of(signed1, n1, kr, &after);
		if (v3_committed) {
			/* protocol 1 cannot be written as version 4: the bytes as they were, the signature after */
			assert_int_equal(after.version, 3);
			assert_int_equal(after.flags, 0);
			assert_int_equal(n1, n + SIG_SECTION);
			assert_memory_equal(signed1, orig, n);
		} else {
			/* versions 2 and 4 become version 4 (their C sections read alike), versions 5 and 6 stay */
			assert_int_equal(after.version, before.version >= 5 ? before.version : 4);
			assert_int_equal(after.flags, RPL_LOG_SIGNED);
			/* only the header changed: every later section's bytes follow it as they were (a sealed
			   log's checksum, its last 4 bytes, computed again) */
			assert_int_equal(after.sealed, before.sealed);
			assert_int_equal(n1 - after.header_end, n - before.header_end + SIG_SECTION);
			assert_memory_equal(signed1 + after.header_end, orig + before.header_end,
			                    n - before.header_end - (before.sealed ? 4 : 0));
			assert_memory_equal(signed1, orig, 8); /* the magic */
		}
		assert_int_equal(signed1[n1 - SIG_SECTION], 's');
		assert_string_equal(after.id, before.id);
		assert_int_equal(after.deal_commitment, before.deal_commitment);
		assert_int_equal(after.sig_status, RPL_SIG_OK);
		assert_true(after.key_trusted);
		assert_int_equal(after.kind, before.kind); /* what the replay finds does not change */

		/* a second signature by another key is only appended; the first still verifies */
		sign_file(k2, path);
		signed2 = tl_read_file(path, &n2);
		assert_int_equal(n2, n1 + SIG_SECTION);
		assert_memory_equal(signed2, signed1, n1);
		what_of(signed2, n2, kr, &twice);
		assert_int_equal(twice.sig_status, RPL_SIG_OK);
		assert_int_equal(twice.sig_count, 2);
		assert_string_equal(twice.id, before.id);
		assert_int_equal(twice.flags, after.flags);

		/* the first signature cut off: the header still says signed; signing again appends */
		tl_write_file(path, signed1, n1 - SIG_SECTION);
		sign_file(k2, path);
		free(signed2);
		signed2 = tl_read_file(path, &n2);
		assert_int_equal(n2, n1);
		assert_memory_equal(signed2, signed1, n1 - SIG_SECTION);
		free(orig);
		free(signed1);
		free(signed2);
	}
	tl_context = NULL;
	unlink(path);
	rpl_keyring_free(kr);
	rpl_seckey_free(k);
	rpl_seckey_free(k2);
}

/* A log that does not read to its end is not signed, and is left byte for byte. */
static void damaged(void **state)
{
	static const char *const bad[] = { "samples/disputed/truncated.brp", "samples/disputed/damaged-byte.brp",
		                               "samples/disputed/not-a-log.brp" };
	const char *path = tl_tmp_path("damaged.brp");
	rpl_seckey *k = NULL;
	(void)state;

	assert_int_equal(rpl_seckey_generate(&k), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char src[512];
		unsigned char *orig, *after;
		size_t n, m;
		snprintf(src, sizeof(src), "%s/%s", SRCROOT, bad[i]);
		orig = tl_read_file(src, &n);
		tl_write_file(path, orig, n);
		assert_int_equal(rpl_sign_log(k, path), RPL_ECORRUPT);
		after = tl_read_file(path, &m);
		assert_int_equal(m, n);
		assert_memory_equal(after, orig, n);
		free(orig);
		free(after);
	}
	unlink(path);
	rpl_seckey_free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(first_signature),
		cmocka_unit_test(damaged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
