/*
 * Signatures (sign.h) and signed recording:
 *
 *   keys         a key pair saved and read back, unencrypted and encrypted
 *                (a wrong or missing passphrase refused), the public key's
 *                text form, key ids as minisign prints them, keyrings
 *   prehash      the incremental BLAKE2b-512 equals the one-shot hash at
 *                every point, and its signature is minisign's prehashed
 *                Ed25519 (a plain Ed25519 signature of that digest)
 *   every cut    a match recorded by bots with a signing recorder flushed
 *                every few turns (the growing form, taken before close), and
 *                its compact form, cut to every length L: the signature
 *                report says exactly what the whole signature sections within
 *                the first L bytes cover (each flush ends at one), the status
 *                follows, and no proper cut of the compact log verifies ok
 *                against the trusted key; no cut is ever tampered; without
 *                keys, a cut no signature ends is untrusted (the header says
 *                the log is signed), the compact log cut before its
 *                signature and the growing log cut before its last flush's
 *                signature included
 *   who covers   a countersignature by another key keeps a log trusted; a
 *                section appended and signed by another key does not, and the
 *                report still says what the trusted key covers; a key that
 *                carries the trusted key's id with another public key is
 *                named as an impostor; fingerprints are BLAKE2b of the key
 *   every bit    each single bit of a signed compact log flipped, its CRC
 *                recomputed: never ok, and tampered whenever the signed bytes
 *                or the signature changed
 *   framing      with trusted keys, bytes no trusted key signs get no verdict
 *                of their own: an illegal meld (a sample's) appended after the
 *                last trusted signature is untrusted, the illegal decision a
 *                detail whose line names no seat; signed, it is illegal and
 *                named, and stays named when unsigned bytes follow; every
 *                finding of the replay (ok, incomplete, mismatch, malformed)
 *                after the trusted bytes is untrusted, and a broken signature
 *                stays tampered
 */
#include "testlib.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static unsigned char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	assert_int_equal(fseek(f, 0, SEEK_SET), 0);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void keys(void **state)
{
	const char *sec = tl_tmp_path("k.key"), *pub = tl_tmp_path("k.pub"), *ring = tl_tmp_path("ring");
	rpl_seckey *k = NULL, *k2 = NULL;
	rpl_pubkey pk, pk2, pk3;
	rpl_keyring *kr = NULL;
	char line[RPL_PUBKEY_TEXT], id[RPL_KEY_ID_TEXT], text[512], *p;
	unsigned char *file;
	size_t n;

	(void)state;
	/* a key id reads little-endian, as minisign prints it */
	{
		const uint8_t raw[8] = { 0x47, 0x18, 0xa5, 0x2a, 0x34, 0x46, 0x02, 0xd9 };
		rpl_key_id_format(raw, id);
		assert_string_equal(id, "D90246342AA51847");
	}
	/* a public key minisign made (minisign -G -W), and its text again */
	assert_int_equal(rpl_pubkey_parse(&pk, "RWRHGKUqNEYC2VN9cqbrpFJIxaPg4F1h1b9YzAOg/6kbcEHdzLeHNZN/\n"), 0);
	rpl_key_id_format(pk.id, id);
	assert_string_equal(id, "D90246342AA51847");
	rpl_pubkey_format(&pk, line);
	assert_string_equal(line, "RWRHGKUqNEYC2VN9cqbrpFJIxaPg4F1h1b9YzAOg/6kbcEHdzLeHNZN/");
	assert_int_equal(rpl_pubkey_parse(&pk2, "RWRHGKUqNEYC2VN9cqbrpFJIxaPg4F1h1b9YzAOg/6kbcEHdzLeHNZN"), RPL_EPARSE);
	assert_int_equal(rpl_pubkey_parse(&pk2, "not base64 at all"), RPL_EPARSE);

	/* unencrypted: saved and read back; existing files refused without RPL_KEY_OVERWRITE */
	unlink(sec);
	unlink(pub);
	assert_int_equal(rpl_seckey_generate(&k), 0);
	assert_int_equal(rpl_seckey_save(k, sec, pub, NULL, 0), 0);
	assert_int_equal(rpl_seckey_save(k, sec, pub, NULL, 0), RPL_EIO);
	assert_int_equal(rpl_seckey_file_encrypted(sec), 0);
	{
		struct stat st;
		assert_int_equal(stat(sec, &st), 0);
		assert_int_equal(st.st_mode & 0777, 0600);
	}
	assert_int_equal(rpl_seckey_load(&k2, sec, NULL), 0);
	rpl_seckey_public(k, &pk);
	rpl_seckey_public(k2, &pk2);
	assert_memory_equal(&pk, &pk2, sizeof(pk));
	rpl_seckey_free(k2);
	k2 = NULL;
	/* the public key file: minisign's comment line with the id, then the key */
	file = read_all(pub, &n);
	file[n] = '\0';
	rpl_key_id_format(pk.id, id);
	rpl_pubkey_format(&pk, line);
	snprintf(text, sizeof(text), "untrusted comment: minisign public key %s\n%s\n", id, line);
	assert_string_equal((char *)file, text);
	free(file);

	/* encrypted (scrypt's interactive limits): the right passphrase only */
	assert_int_equal(rpl_seckey_save(k, sec, NULL, "correct horse", RPL_KEY_OVERWRITE | RPL_KEY_FAST_KDF), 0);
	assert_int_equal(rpl_seckey_file_encrypted(sec), 1);
	assert_int_equal(rpl_seckey_load(&k2, sec, NULL), RPL_ESTATE);
	rpl_seckey_free(k2);
	assert_int_equal(rpl_seckey_load(&k2, sec, "wrong horse"), RPL_EINVAL);
	assert_non_null(strstr(rpl_seckey_errmsg(k2), "wrong passphrase"));
	rpl_seckey_free(k2);
	assert_int_equal(rpl_seckey_load(&k2, sec, "correct horse"), 0);
	rpl_seckey_public(k2, &pk2);
	assert_memory_equal(&pk, &pk2, sizeof(pk));
	rpl_seckey_free(k2);
	/* a damaged key: the checksum says so */
	file = read_all(sec, &n);
	file[n] = '\0';
	p = strchr((char *)file, '\n') + 1;
	p[120] = p[120] == 'A' ? 'B' : 'A'; /* in the encrypted key, not in the scrypt parameters */
	write_text(sec, (char *)file);
	free(file);
	assert_int_equal(rpl_seckey_load(&k2, sec, "correct horse"), RPL_EINVAL);
	rpl_seckey_free(k2);
	/* not a key */
	write_text(sec, "hello\n");
	assert_int_equal(rpl_seckey_load(&k2, sec, NULL), RPL_EPARSE);
	rpl_seckey_free(k2);

	/* keyrings: comments, blank lines and several keys; the exact key, not only its id */
	assert_int_equal(rpl_keyring_new(&kr), 0);
	snprintf(text, sizeof(text),
	         "# the platform\nuntrusted comment: minisign public key %s\n%s\n\n"
	         "RWRHGKUqNEYC2VN9cqbrpFJIxaPg4F1h1b9YzAOg/6kbcEHdzLeHNZN/\n",
	         id, line);
	write_text(ring, text);
	assert_int_equal(rpl_keyring_add_file(kr, ring), 0);
	assert_int_equal(rpl_keyring_count(kr), 2);
	assert_true(rpl_keyring_has(kr, &pk));
	pk3 = pk;
	pk3.key[0] ^= 1;
	assert_false(rpl_keyring_has(kr, &pk3));
	write_text(ring, "untrusted comment: x\nRWRH garbage\n");
	assert_int_equal(rpl_keyring_add_file(kr, ring), RPL_EPARSE);
	assert_non_null(strstr(rpl_keyring_errmsg(kr), "line 2"));
	write_text(ring, "# nothing\n");
	assert_int_equal(rpl_keyring_add_file(kr, ring), RPL_EPARSE);
	rpl_keyring_free(kr);
	rpl_seckey_free(k);
	unlink(sec);
	unlink(pub);
	unlink(ring);
}

static void prehash(void **state)
{
	uint8_t data[3000], d1[64], d2[64], sig[64];
	rpl_prehash *h = NULL;
	rpl_seckey *k = NULL;
	rpl_pubkey pk;
	size_t off = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 3);
	assert_int_equal(rpl_prehash_new(&h), 0);
	assert_int_equal(rpl_seckey_generate(&k), 0);
	rpl_seckey_public(k, &pk);
	for (size_t step = 1; off < sizeof(data); step = step * 5 % 211 + 1) {
		size_t m = off + step > sizeof(data) ? sizeof(data) - off : step;
		rpl_prehash_update(h, data + off, m);
		off += m;
		assert_int_equal(rpl_prehash_length(h), off);
		rpl_prehash_digest(h, d1);
		crypto_generichash(d2, sizeof(d2), data, off, NULL, 0);
		assert_memory_equal(d1, d2, 64);
		rpl_prehash_sign(h, k, sig);
		assert_int_equal(crypto_sign_verify_detached(sig, d2, sizeof(d2), pk.key), 0);
	}
	rpl_prehash_free(h);
	rpl_seckey_free(k);
}

/* A match by bots, flushed every three turns; the file size after each flush is where a signature ends. */
struct recording {
	unsigned char *growing, *compact;
	size_t ngrowing, ncompact;
	size_t *ends;
	size_t nends;
};

static size_t file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return (size_t)st.st_size;
}

static void flushed(rpl_recorder *rec, const char *path, struct recording *r)
{
	size_t n;

	assert_int_equal(rpl_recorder_flush(rec), 0);
	n = file_size(path);
	if (r->nends && r->ends[r->nends - 1] == n)
		return; /* nothing new: no new signature */
	r->ends = realloc(r->ends, (r->nends + 1) * sizeof(*r->ends));
	assert_non_null(r->ends);
	r->ends[r->nends++] = n;
}

static void record(struct recording *r, const rpl_seckey *key, int nplayers, uint64_t seed)
{
	const char *path = tl_tmp_path("growing.brp");
	const char *names[4] = { "Ana", "Bia", "Caio", "Dora" };
	rpl_rules *rules = tl_rules("stbl", "target=0");
	rpl_match_info info;
	rpl_recorder *rec = NULL;
	rpl_bot *bot = NULL;
	rpl_rng rng;
	int turns = 0;

	memset(r, 0, sizeof(*r));
	memset(&info, 0, sizeof(info));
	info.rules = rules;
	info.nplayers = nplayers;
	for (int s = 0; s < nplayers; s++)
		info.players[s] = names[s];
	info.first_dealer = nplayers - 1;
	info.start_time = 1767225600;
	rpl_rng_seed(&rng, seed);
	assert_int_equal(rpl_bot_new(&bot, RPL_BOT_GREEDY, seed), 0);
	assert_int_equal(rpl_recorder_open_signed(&rec, path, &info, 0, key), 0);
	flushed(rec, path, r); /* open wrote the header and signed it */
	for (;;) {
		const rpl_game *g = rpl_recorder_game(rec);
		rpl_layout lay;
		int32_t sc[2];
		rpl_score s0, s1;
		if (rpl_game_phase(g) == RPL_PHASE_MATCH_OVER)
			break;
		rpl_layout_shuffle(&lay, nplayers, &rng);
		assert_int_equal(rpl_recorder_deal(rec, &lay), 0);
		flushed(rec, path, r);
		while (rpl_game_phase(g) < RPL_PHASE_DEAL_OVER) {
			rpl_action a;
			assert_int_equal(rpl_bot_choose(bot, g, &a), 0);
			assert_int_equal(rpl_recorder_action(rec, &a), 0);
			if (rpl_game_phase(g) == RPL_PHASE_DRAW && ++turns % 3 == 0)
				flushed(rec, path, r);
		}
		rpl_game_deal_score(g, 0, &s0);
		rpl_game_deal_score(g, 1, &s1);
		sc[0] = s0.total;
		sc[1] = s1.total;
		assert_int_equal(rpl_recorder_claim(rec, rpl_game_deal_number(g), sc), 0);
		assert_int_equal(rpl_recorder_claim(rec, 0, sc), 0);
		flushed(rec, path, r);
	}
	r->growing = read_all(path, &r->ngrowing);
	assert_int_equal(r->ngrowing, r->ends[r->nends - 1]);
	assert_int_equal(rpl_recorder_close(rec), 0);
	r->compact = read_all(path, &r->ncompact);
	rpl_recorder_free(rec);
	rpl_bot_free(bot);
	rpl_rules_free(rules);
	unlink(path);
}

static void verify_memory(const unsigned char *data, size_t n, const rpl_keyring *kr, rpl_verdict *v)
{
	rpl_reader *rd = NULL;
	int err = rpl_reader_open_memory(&rd, data, n);

	assert_true(err != RPL_ENOMEM && rd);
	assert_int_equal(rpl_verify_reader_trusted(rd, NULL, kr, v, NULL), 0);
	rpl_reader_free(rd);
}

/* The line of a verdict, which must fit. */
static void line_of(const rpl_verdict *v, char *line, size_t size)
{
	assert_true(rpl_verdict_format(v, line, size) < size);
}

/* Every cut of data: the report matches the whole signatures before the cut (ends[]). */
static void cuts(const unsigned char *data, size_t n, const size_t *ends, size_t nends, const rpl_keyring *kr,
                 const rpl_pubkey *pk, int compact)
{
	for (size_t len = 0; len <= n; len++) {
		rpl_verdict v;
		size_t covered = 0;
		int want;
		for (size_t i = 0; i < nends; i++)
			if (ends[i] <= len)
				covered = ends[i];
		want = covered == 0 ? RPL_SIG_UNSIGNED : covered == len ? RPL_SIG_OK : RPL_SIG_PARTIAL;
		verify_memory(data, len, kr, &v);
		if (v.signature.status != want || v.signature.covered != covered || v.signature.size != len) {
			fail_msg("%s cut at %zu of %zu: signature %s covering %llu of %llu, expected %s covering %zu",
			         compact ? "compact" : "growing", len, n, rpl_signature_status_name(v.signature.status),
			         (unsigned long long)v.signature.covered, (unsigned long long)v.signature.size,
			         rpl_signature_status_name(want), covered);
		}
		assert_int_not_equal(v.kind, RPL_VERDICT_TAMPERED);
		if (covered)
			assert_memory_equal(v.signature.key.id, pk->id, RPL_KEY_ID_BYTES);
		assert_int_equal(v.signature.key_trusted, covered != 0);
		/* trusted: a trusted key covers every byte of the cut, not only some */
		assert_int_equal(v.signature.trusted, covered != 0 && covered == len);
		assert_int_equal(v.signature.trusted_covered, covered);
		if (compact && len < n)
			assert_int_not_equal(v.kind, RPL_VERDICT_OK);
		if (v.kind == RPL_VERDICT_OK)
			assert_int_equal(want, RPL_SIG_OK);
		/* without keys: once the header (which says the log is signed) is read, a cut that no signature ends is untrusted */
		verify_memory(data, len, NULL, &v);
		if (v.header_flags & RPL_LOG_SIGNED)
			assert_true(want == RPL_SIG_OK ? v.kind != RPL_VERDICT_UNTRUSTED : v.kind == RPL_VERDICT_UNTRUSTED);
		else
			assert_int_equal(v.kind, RPL_VERDICT_MALFORMED); /* the header itself is cut */
		if (len > 0 && len < n)
			assert_true(v.kind != RPL_VERDICT_OK || want == RPL_SIG_OK);
	}
}

/* The signatures stripped: the log is no longer signed, and its header says it was (even without keys). */
static void stripped(const unsigned char *data, size_t n, const rpl_keyring *kr, const rpl_pubkey *pk)
{
	rpl_verdict v;
	char line[2048], want[512], id[RPL_KEY_ID_TEXT], fp[RPL_KEY_FINGERPRINT_TEXT];
	size_t covered = 0;

	assert_int_equal(data[n - 112], 's');
	verify_memory(data, n - 112, NULL, &v);
	assert_int_equal(v.kind, RPL_VERDICT_UNTRUSTED);
	assert_true(v.header_flags & RPL_LOG_SIGNED);
	assert_int_equal(v.keys, 0);
	assert_false(v.replay_trusted);
	/* what no signature covers: all of it when stripped whole, else what follows the last signature */
	if (v.signature.status == RPL_SIG_UNSIGNED) {
		snprintf(want, sizeof(want),
		         "the header declares the log signed, but no signature is in it: none covers bytes 0 to %zu; the "
		         "replay finds %s: ",
		         n - 112, rpl_verdict_name(v.replay));
	} else {
		covered = v.signature.covered;
		rpl_key_id_format(pk->id, id);
		rpl_pubkey_fingerprint(pk, fp);
		snprintf(want, sizeof(want),
		         "the header declares the log signed, but no signature covers bytes %zu to %zu: the last, by key %s "
		         "(fingerprint %s), signs bytes 0 to %zu; the replay finds %s: ",
		         covered, n - 112, id, fp, covered, rpl_verdict_name(v.replay));
	}
	line_of(&v, line, sizeof(line));
	if (!strstr(line, want))
		fail_msg("the line\n  %s\nlacks\n  %s", line, want);
	assert_int_equal(strncmp(v.message, "the header declares the log signed, but ", 40), 0);
	/* with the key: untrusted as well */
	verify_memory(data, n - 112, kr, &v);
	assert_int_equal(v.kind, RPL_VERDICT_UNTRUSTED);
	assert_int_equal(v.keys, 1);
	line_of(&v, line, sizeof(line));
	if (v.signature.status == RPL_SIG_UNSIGNED)
		assert_non_null(strstr(line, "the header declares the log signed, but no signature is in it, and trusted "
		                             "keys were given"));
	else
		assert_non_null(strstr(line, "; no key signs the rest"));
	/* whole: ok either way */
	verify_memory(data, n, NULL, &v);
	assert_true(v.kind == RPL_VERDICT_OK || v.kind == RPL_VERDICT_INCOMPLETE);
}

static void every_cut(void **state)
{
	struct recording r;
	rpl_seckey *k = NULL;
	rpl_keyring *kr = NULL;
	rpl_pubkey pk;
	rpl_verdict v;
	size_t compact_end;

	(void)state;
	assert_int_equal(rpl_seckey_generate(&k), 0);
	rpl_seckey_public(k, &pk);
	assert_int_equal(rpl_keyring_new(&kr), 0);
	assert_int_equal(rpl_keyring_add(kr, &pk), 0);
	record(&r, k, 2, 7);
	assert_true(r.nends > 10);
	/* the whole growing form: every flush signed, the last covers it all */
	verify_memory(r.growing, r.ngrowing, kr, &v);
	assert_int_equal(v.kind, RPL_VERDICT_OK);
	assert_int_equal(v.signature.status, RPL_SIG_OK);
	assert_int_equal(v.signature.count, (int)r.nends);
	cuts(r.growing, r.ngrowing, r.ends, r.nends, kr, &pk, 0);
	stripped(r.growing, r.ngrowing, kr, &pk); /* cut between the last flush's sections and its signature */
	/* the compact form: one signature, at its end, after E */
	verify_memory(r.compact, r.ncompact, kr, &v);
	assert_int_equal(v.kind, RPL_VERDICT_OK);
	assert_int_equal(v.signature.count, 1);
	assert_true(v.signature.trusted);
	compact_end = r.ncompact;
	assert_int_equal(r.compact[r.ncompact - 112], 's');
	cuts(r.compact, r.ncompact, &compact_end, 1, kr, &pk, 1);
	stripped(r.compact, r.ncompact, kr, &pk); /* a closed log without its one signature */
	verify_memory(r.compact, r.ncompact - 112, NULL, &v);
	assert_int_equal(v.replay, RPL_VERDICT_OK); /* what the bytes hold is a whole match, closed */
	assert_true(v.closed);
	free(r.growing);
	free(r.compact);
	free(r.ends);
	rpl_keyring_free(kr);
	rpl_seckey_free(k);
}

/* Recompute the CRC of the section holding byte at (when its frame still parses). */
static void fix_crc(unsigned char *d, size_t n, size_t at)
{
	size_t pos = 8;
	int sealed = d[8] == 'Z';

	while (pos < n) {
		size_t start = pos, len = 0, p = pos + 1;
		int shift = 0;
		while (p < n && (d[p] & 0x80)) {
			len |= (size_t)(d[p] & 0x7f) << shift;
			shift += 7;
			p++;
		}
		if (p >= n)
			return;
		len |= (size_t)(d[p] & 0x7f) << shift;
		p++;
		if (p + len + 4 > n)
			return;
		if (sealed && d[start] != 'E') {
			pos = p + len; /* a sealed log (format.md 19.5): no checksum before E's */
			continue;
		}
		if (at >= (sealed ? 8 : start) && at < p + len + 4) {
			uLong c = crc32(0L, Z_NULL, 0);
			/* a sealed log's checksum: every byte from the magic to the end of E */
			c = sealed ? crc32(c, d, (uInt)(p + len)) : crc32(c, d + start, (uInt)(p + len - start));
			for (int i = 0; i < 4; i++)
				d[p + len + (size_t)i] = (unsigned char)(c >> (8 * i));
			return;
		}
		sealed = 0;
		pos = p + len + 4;
	}
}

static void every_bit(void **state)
{
	struct recording r;
	rpl_seckey *k = NULL;
	rpl_keyring *kr = NULL;
	rpl_pubkey pk;
	unsigned char *d;
	int tampered = 0;

	(void)state;
	assert_int_equal(rpl_seckey_generate(&k), 0);
	rpl_seckey_public(k, &pk);
	assert_int_equal(rpl_keyring_new(&kr), 0);
	assert_int_equal(rpl_keyring_add(kr, &pk), 0);
	record(&r, k, 4, 3);
	d = malloc(r.ncompact);
	assert_non_null(d);
	for (size_t i = 8; i < r.ncompact; i++) {
		for (int b = 0; b < 8; b++) {
			rpl_verdict v;
			memcpy(d, r.compact, r.ncompact);
			d[i] ^= (unsigned char)(1u << b);
			fix_crc(d, r.ncompact, i);
			if (memcmp(d, r.compact, r.ncompact) == 0)
				continue; /* a bit of a CRC: recomputed, it is the log again */
			verify_memory(d, r.ncompact, kr, &v);
			if (v.kind == RPL_VERDICT_OK)
				fail_msg("bit %d of byte %zu flipped: ok (signature %s, %llu of %llu, %s)", b, i,
				         rpl_signature_status_name(v.signature.status), (unsigned long long)v.signature.covered,
				         (unsigned long long)v.signature.size, v.message);
			if (v.signature.status == RPL_SIG_OK && v.signature.trusted && v.signature.covered == r.ncompact)
				fail_msg("bit %d of byte %zu flipped: still signed whole", b, i);
			tampered += v.kind == RPL_VERDICT_TAMPERED;
		}
	}
	/* a flip in the frames (types, lengths) may break the framing; every other one is tampered */
	assert_true(tampered > (int)(r.ncompact - 8) * 8 * 8 / 10);
	free(d);
	free(r.growing);
	free(r.compact);
	free(r.ends);
	rpl_keyring_free(kr);
	rpl_seckey_free(k);
}

/* Append a signature section made with a raw Ed25519 key pair and any key id (a forger's). */
static unsigned char *append_forged_sig(const unsigned char *data, size_t n, const uint8_t id[RPL_KEY_ID_BYTES],
                                        const uint8_t pk[32], const uint8_t sk[64], size_t *outn)
{
	unsigned char *d = malloc(n + 112), digest[64];
	uLong crc;

	assert_non_null(d);
	memcpy(d, data, n);
	crypto_generichash(digest, sizeof(digest), data, n, NULL, 0);
	d[n] = 's';
	d[n + 1] = 106;
	d[n + 2] = 'E';
	d[n + 3] = 'D';
	memcpy(d + n + 4, id, RPL_KEY_ID_BYTES);
	crypto_sign_detached(d + n + 12, NULL, digest, sizeof(digest), sk);
	memcpy(d + n + 76, pk, 32);
	crc = crc32(0, d + n, 108);
	for (int i = 0; i < 4; i++)
		d[n + 108 + i] = (unsigned char)(crc >> (8 * i));
	*outn = n + 112;
	return d;
}

static void who_covers(void **state)
{
	struct recording r;
	rpl_seckey *k = NULL;
	rpl_keyring *kr = NULL;
	rpl_pubkey pk, zero = { { 0 }, { 0 } }, raw = { { 0 }, { 0 } };
	rpl_verdict v;
	uint8_t fpk[32], fsk[64];
	unsigned char *d, *e;
	size_t n, m;
	char fp[RPL_KEY_FINGERPRINT_TEXT];

	(void)state;
	for (int i = 0; i < 32; i++)
		raw.key[i] = (uint8_t)i;
	rpl_pubkey_fingerprint(&raw, fp);
	assert_string_equal(fp, "cb2f5160fc1f7e05a55ef49d340b48da"); /* hashlib.blake2b(bytes(range(32)), digest_size=32) */
	assert_int_equal(rpl_seckey_generate(&k), 0);
	rpl_seckey_public(k, &pk);
	assert_int_equal(rpl_keyring_new(&kr), 0);
	assert_int_equal(rpl_keyring_add(kr, &pk), 0);
	record(&r, k, 2, 11);
	crypto_sign_keypair(fpk, fsk);

	/* a countersignature by a key the verifier does not know: still trusted whole */
	d = append_forged_sig(r.compact, r.ncompact, (const uint8_t *)"\1\2\3\4\5\6\7\x08", fpk, fsk, &n);
	verify_memory(d, n, kr, &v);
	assert_int_equal(v.signature.status, RPL_SIG_OK);
	assert_int_equal(v.signature.count, 2);
	assert_false(v.signature.key_trusted);
	assert_true(v.signature.trusted);
	assert_int_equal(v.signature.trusted_covered, r.ncompact);
	assert_memory_equal(v.signature.trusted_key.key, pk.key, 32);
	assert_false(v.signature.id_clash);
	free(d);

	/* the growing form, a claim appended, signed by the forger under the trusted key's id */
	m = r.ngrowing + 9;
	e = malloc(m);
	assert_non_null(e);
	memcpy(e, r.growing, r.ngrowing);
	{
		unsigned char *c = e + r.ngrowing;
		uLong crc;
		c[0] = 'C';
		c[1] = 3;
		c[2] = 1;    /* deal 1 */
		c[3] = 0x02; /* side 0: 1 */
		c[4] = 0x04; /* side 1: 2 */
		crc = crc32(0, c, 5);
		for (int i = 0; i < 4; i++)
			c[5 + i] = (unsigned char)(crc >> (8 * i));
	}
	d = append_forged_sig(e, m, pk.id, fpk, fsk, &n);
	verify_memory(d, n, kr, &v);
	assert_int_equal(v.signature.status, RPL_SIG_OK); /* the forger's signature covers everything */
	assert_false(v.signature.key_trusted);
	assert_false(v.signature.trusted);
	assert_int_equal(v.signature.trusted_covered, r.ngrowing);
	assert_true(v.signature.id_clash);
	assert_memory_equal(v.signature.clash_key.key, fpk, 32);
	assert_memory_equal(v.signature.key.id, pk.id, RPL_KEY_ID_BYTES);
	assert_int_not_equal(v.kind, RPL_VERDICT_OK);
	free(d);
	free(e);

	/* no trusted key at all: nothing is trusted, no clash */
	verify_memory(r.compact, r.ncompact, NULL, &v);
	assert_false(v.signature.trusted);
	assert_false(v.signature.key_trusted);
	assert_int_equal(v.signature.trusted_covered, 0);
	assert_memory_equal(&v.signature.trusted_key, &zero, sizeof(zero));
	free(r.growing);
	free(r.compact);
	free(r.ends);
	rpl_keyring_free(kr);
	rpl_seckey_free(k);
}

/*
 * A sample re-recorded by a signing recorder without the rules engine (as
 * brp import records), flushed before each deal, so that each flush ends with
 * a signature: its growing form (never closed), and in *before_last the size
 * of the file at the flush before the last deal.
 */
static unsigned char *rerecord(const char *sample, const rpl_seckey *k, size_t *n, size_t *before_last)
{
	char src[512];
	const char *path = tl_tmp_path("rerecord.brp");
	rpl_reader *rd = NULL;
	rpl_recorder *rec = NULL;
	rpl_event ev;
	unsigned char *data;
	int got;

	snprintf(src, sizeof(src), "%s/samples/%s", SRCROOT, sample);
	assert_int_equal(rpl_reader_open(&rd, src), 0);
	assert_int_equal(rpl_recorder_open_signed(&rec, path, rpl_reader_info(rd), RPL_RECORD_UNCHECKED, k), 0);
	while ((got = rpl_reader_next(rd, &ev)) == 1) {
		switch (ev.kind) {
		case RPL_EV_DEAL:
			assert_int_equal(rpl_recorder_flush(rec), 0);
			*before_last = file_size(path);
			assert_int_equal(rpl_recorder_deal(rec, &ev.layout), 0);
			break;
		case RPL_EV_ACTION: assert_int_equal(rpl_recorder_action(rec, &ev.action), 0); break;
		case RPL_EV_CLAIM: assert_int_equal(rpl_recorder_claim(rec, ev.deal, ev.score), 0); break;
		default: break;
		}
	}
	assert_int_equal(got, 0);
	assert_int_equal(rpl_recorder_flush(rec), 0);
	rpl_recorder_free(rec); /* not closed: the growing form stays */
	rpl_reader_free(rd);
	data = tl_read_file(path, n);
	unlink(path);
	return data;
}

/* data with a claim section appended (deal 1: 0 to 0), unsigned; *m its size. */
static unsigned char *with_claim(const unsigned char *data, size_t n, size_t *m)
{
	unsigned char *d = malloc(n + 9);
	rpl_reader *rd = NULL;
	uLong crc;
	int version;

	assert_non_null(d);
	assert_int_equal(rpl_reader_open_memory(&rd, data, n), 0);
	version = rpl_reader_format_version(rd);
	rpl_reader_free(rd);
	memcpy(d, data, n);
	d[n] = 'C';
	d[n + 1] = 3;
	d[n + 2] = version >= 5 ? 2 : 1; /* deal 1: tagged deal << 1 from version 5 (format.md 19.3) */
	d[n + 3] = 0;
	d[n + 4] = 0;
	crc = crc32(0, d + n, 5);
	for (int i = 0; i < 4; i++)
		d[n + 5 + (size_t)i] = (unsigned char)(crc >> (8 * i));
	*m = n + 9;
	return d;
}

static void framing(void **state)
{
	rpl_seckey *k = NULL;
	rpl_keyring *kr = NULL;
	rpl_pubkey pk;
	rpl_verdict v;
	char line[2048], want[512], id[RPL_KEY_ID_TEXT], fp[RPL_KEY_FINGERPRINT_TEXT];
	unsigned char *d, *e;
	size_t n, m, before;

	(void)state;
	assert_int_equal(rpl_seckey_generate(&k), 0);
	rpl_seckey_public(k, &pk);
	rpl_key_id_format(pk.id, id);
	rpl_pubkey_fingerprint(&pk, fp);
	assert_int_equal(rpl_keyring_new(&kr), 0);
	assert_int_equal(rpl_keyring_add(kr, &pk), 0);
	/* deal 2 of meld-two-wilds: seat 1 melds two wilds at turn 2; the signature after it stripped */
	d = rerecord("disputed/meld-two-wilds.brp", k, &n, &before);
	assert_int_equal(d[n - 112], 's');
	verify_memory(d, n - 112, kr, &v);
	assert_int_equal(v.kind, RPL_VERDICT_UNTRUSTED);
	assert_int_equal(v.replay, RPL_VERDICT_ILLEGAL);
	assert_false(v.replay_trusted);
	assert_int_equal(v.deal, 2);
	assert_int_equal(v.turn, 2);
	assert_int_equal(v.seat, 1); /* kept in the struct; the line and the JSON leave it out */
	assert_int_equal(v.rule, RPL_RULE_MELD_WILDS);
	assert_true(v.replay_offset >= before);
	assert_int_equal(v.keys, 1);
	assert_false(v.signature.trusted);
	assert_int_equal(v.signature.trusted_covered, before);
	assert_non_null(strstr(v.replay_message, "2 wilds in one meld"));
	line_of(&v, line, sizeof(line));
	snprintf(want, sizeof(want),
	         "untrusted, unclosed: the trusted key %s (fingerprint %s) signs bytes 0 to %zu of %zu; no key signs the "
	         "rest; in the rest the replay finds illegal: deal 2, turn 2 (meld.wilds)",
	         id, fp, before, n - 112);
	assert_string_equal(line, want);
	assert_null(strstr(v.message, "seat"));
	assert_null(strstr(v.message, "wilds in one meld"));
	/* without keys: the header declares the log signed, and its end is not: untrusted, no seat named */
	verify_memory(d, n - 112, NULL, &v);
	assert_int_equal(v.kind, RPL_VERDICT_UNTRUSTED);
	assert_int_equal(v.replay, RPL_VERDICT_ILLEGAL);
	assert_int_equal(v.keys, 0);
	assert_true(v.header_flags & RPL_LOG_SIGNED);
	line_of(&v, line, sizeof(line));
	snprintf(want, sizeof(want),
	         "untrusted, unclosed: the header declares the log signed, but no signature covers bytes %zu to %zu: the "
	         "last, by key %s (fingerprint %s), signs bytes 0 to %zu; the replay finds illegal: deal 2, turn 2 "
	         "(meld.wilds)",
	         before, n - 112, id, fp, before);
	assert_string_equal(line, want);

	/* signed: the platform's own log holds the illegal meld, named with its seat */
	verify_memory(d, n, kr, &v);
	assert_int_equal(v.kind, RPL_VERDICT_ILLEGAL);
	assert_int_equal(v.replay, RPL_VERDICT_ILLEGAL);
	assert_true(v.replay_trusted);
	assert_true(v.signature.trusted);
	line_of(&v, line, sizeof(line));
	snprintf(want, sizeof(want), "; signed by the trusted key %s (fingerprint %s)", id, fp);
	assert_non_null(strstr(line, "illegal, unclosed: deal 2, turn 2, seat 1: meld 2c 3c 4c 2h 2s: meld.wilds: "));
	assert_non_null(strstr(line, want));
	/* and unsigned bytes after it: untrusted, the signed decision still named */
	e = with_claim(d, n, &m);
	verify_memory(e, m, kr, &v);
	assert_int_equal(v.kind, RPL_VERDICT_UNTRUSTED);
	assert_int_equal(v.replay, RPL_VERDICT_ILLEGAL);
	assert_true(v.replay_trusted);
	line_of(&v, line, sizeof(line));
	assert_non_null(strstr(line, "; in the trusted bytes the replay finds illegal: deal 2, turn 2, seat 1: meld 2c 3c "
	                             "4c 2h 2s: meld.wilds: ABERTO: 2 wilds in one meld"));
	free(e);
	/* a byte of the signed deal 1 changed, CRC mended, unsigned bytes after: tampered, not untrusted */
	e = with_claim(d, n, &m);
	e[200] ^= 0x01;
	fix_crc(e, m, 200);
	verify_memory(e, m, kr, &v);
	assert_int_equal(v.kind, RPL_VERDICT_TAMPERED);
	free(e);
	free(d);

	/* every other finding after the trusted bytes: untrusted, the finding a detail */
	{
		/*
		 * the claim appended is wrong (deal 1 did not end 0 to 0, or never
		 * ended): a mismatch in the rest, unless the platform's own wrong
		 * match total, in the signed bytes, comes first
		 */
		static const struct {
			const char *sample;
			int replay, claimed_trusted;
		} finding[] = {
			{ "stbl-4p.brp", RPL_VERDICT_OK, 0 },
			{ "disputed/unfinished.brp", RPL_VERDICT_INCOMPLETE, 0 },
			{ "disputed/claim-match.brp", RPL_VERDICT_MISMATCH, 1 },
		};
		for (size_t i = 0; i < sizeof(finding) / sizeof(finding[0]); i++) {
			d = rerecord(finding[i].sample, k, &n, &before);
			verify_memory(d, n, kr, &v);
			assert_int_equal(v.kind, finding[i].replay); /* signed whole: the finding is the verdict */
			assert_true(v.replay_trusted);
			e = with_claim(d, n, &m);
			verify_memory(e, m, kr, &v);
			assert_int_equal(v.kind, RPL_VERDICT_UNTRUSTED);
			assert_int_equal(v.replay, RPL_VERDICT_MISMATCH);
			assert_int_equal(v.replay_trusted, finding[i].claimed_trusted);
			assert_int_equal(v.claim_deal, finding[i].claimed_trusted ? 0 : 1);
			free(e);
			/* the last signature stripped */
			verify_memory(d, n - 112, kr, &v);
			assert_int_equal(v.kind, RPL_VERDICT_UNTRUSTED);
			assert_int_equal(v.replay, finding[i].replay);
			assert_false(v.replay_trusted);
			line_of(&v, line, sizeof(line));
			snprintf(want, sizeof(want), "; in the rest the replay finds %s: ", rpl_verdict_name(finding[i].replay));
			assert_non_null(strstr(line, want));
			/* damage after the trusted bytes: malformed is a detail too */
			d[n - 112 - 2] ^= 0x01; /* in the CRC of the last unsigned section */
			verify_memory(d, n - 112, kr, &v);
			assert_int_equal(v.kind, RPL_VERDICT_UNTRUSTED);
			assert_int_equal(v.replay, RPL_VERDICT_MALFORMED);
			assert_false(v.replay_trusted);
			assert_non_null(strstr(v.message, "in the rest the replay finds malformed: "));
			free(d);
		}
	}
	rpl_keyring_free(kr);
	rpl_seckey_free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keys),       cmocka_unit_test(prehash),   cmocka_unit_test(every_cut),
		cmocka_unit_test(who_covers), cmocka_unit_test(every_bit), cmocka_unit_test(framing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
