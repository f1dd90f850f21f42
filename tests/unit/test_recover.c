/*
 * Salvage and damage, through the public API (log.h, sim.h):
 *
 *   every cut    a match recorded by bots with a flush after every turn, its
 *                growing-form file taken before rpl_recorder_close (the
 *                recorder is freed without closing, as after a crash), then
 *                cut to every length L from 0 to its size. rpl_recover fails
 *                exactly when the header is incomplete; otherwise its log
 *                verifies as ok or incomplete (never malformed or illegal)
 *                and holds every turn flushed whole within the first L bytes
 *                (the file size after each flush is known), and nothing more;
 *                again with a flush after every decision, so that cuts fall
 *                inside turns: the decisions of an unfinished turn are dropped.
 *   every bit    each single bit of a small compact log flipped: verification
 *                returns a verdict (no crash, no error) and never says ok.
 *   signed cuts  a signed growing log cut at every section boundary and at
 *                every byte of its last flush: the salvage is its bytes up
 *                to the last whole signature, verbatim, trusted under the
 *                key over all of it, unclosed, what was cut reported; with
 *                RPL_RECOVER_UNSIGNED, re-encoded, closed, unsigned
 *   signed tampered  edited in the middle: kept up to the last signature
 *                before the edit, the broken one named; its header edited:
 *                salvaged unsigned, the broken signature named
 *   signed undecodable  a signer signed bytes that do not decode: kept up to
 *                the signature before the damage
 */
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/*
 * A scratch file name: under $TMPDIR, else /dev/shm when there is one (every
 * salvage closes its log with an fsync, thousands here: free on a tmpfs, up
 * to seconds on a disk), else /tmp.
 */

static unsigned char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
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

static void write_all(const char *path, const unsigned char *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	if (n)
		assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static size_t file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return (size_t)st.st_size;
}

/* What the file held after each flush. */
struct flushpoint {
	size_t size;  /* bytes of the file */
	int deals;    /* deals started */
	int actions;  /* decisions recorded */
	int complete; /* decisions up to the end of the last turn (a discard, the morto it brings, the deal's end) */
	int claims;   /* claims recorded */
};

struct recording {
	unsigned char *data; /* the growing form, as left by the last flush */
	size_t len;
	size_t header_end; /* bytes of the magic and the header */
	struct flushpoint *pt;
	size_t npt;
	int deals, actions, complete, claims;
};

static void flushed(rpl_recorder *rec, const char *path, struct recording *r)
{
	assert_int_equal(rpl_recorder_flush(rec), 0);
	r->pt = realloc(r->pt, (r->npt + 1) * sizeof(*r->pt));
	assert_non_null(r->pt);
	r->pt[r->npt].size = file_size(path);
	r->pt[r->npt].deals = r->deals;
	r->pt[r->npt].actions = r->actions;
	r->pt[r->npt].complete = r->complete;
	r->pt[r->npt].claims = r->claims;
	r->npt++;
}

/*
 * Bots play a match of profile/overrides; the recorder flushes after every
 * turn (when the next seat is to draw, or the deal is over), after each
 * deal's layout and after each claim. Then r->data is the file as the last
 * flush left it (the growing form) and the recorder is freed without closing,
 * as after a crash; or, with close, the file after rpl_recorder_close (the
 * compact form).
 */
static void record_signed(struct recording *r, const char *profile, const char *overrides, int nplayers, uint64_t seed,
                          int close, int every_decision, const rpl_seckey *key)
{
	const char *path = tl_tmp_path("growing.brp");
	const char *names[4] = { "Ana", "Bia", "Caio", "Dora" };
	rpl_rules *rules = tl_rules(profile, overrides);
	rpl_match_info info;
	rpl_recorder *rec = NULL;
	rpl_bot *bot = NULL;
	rpl_rng rng;

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
	r->header_end = file_size(path); /* with a key, the header's signature included */
	for (;;) {
		const rpl_game *g = rpl_recorder_game(rec);
		rpl_layout lay;
		int32_t sc[2];
		rpl_score s0, s1;
		if (rpl_game_phase(g) == RPL_PHASE_MATCH_OVER)
			break;
		rpl_layout_shuffle(&lay, nplayers, &rng);
		assert_int_equal(rpl_recorder_deal(rec, &lay), 0);
		r->deals++;
		flushed(rec, path, r);
		int prev = 0;
		while (rpl_game_phase(g) < RPL_PHASE_DEAL_OVER) {
			rpl_action a;
			assert_int_equal(rpl_bot_choose(bot, g, &a), 0);
			assert_int_equal(rpl_recorder_action(rec, &a), 0);
			r->actions++;
			/* where a turn ends (docs/notation.md): its discard, the morto that discard brings, the deal's end */
			if ((a.kind == RPL_ACT_DISCARD && rpl_game_phase(g) != RPL_PHASE_MORTO) ||
			    (a.kind == RPL_ACT_MORTO && prev == RPL_ACT_DISCARD) || rpl_game_phase(g) >= RPL_PHASE_DEAL_OVER)
				r->complete = r->actions;
			prev = a.kind;
			if (every_decision || rpl_game_phase(g) == RPL_PHASE_DRAW || rpl_game_phase(g) >= RPL_PHASE_DEAL_OVER)
				flushed(rec, path, r);
		}
		rpl_game_deal_score(g, 0, &s0);
		rpl_game_deal_score(g, 1, &s1);
		sc[0] = s0.total;
		sc[1] = s1.total;
		assert_int_equal(rpl_recorder_claim(rec, rpl_game_deal_number(g), sc), 0);
		r->claims++;
		flushed(rec, path, r);
	}
	/* the growing form, taken before close */
	r->data = read_all(path, &r->len);
	assert_int_equal(r->len, r->pt[r->npt - 1].size);
	if (close) {
		free(r->data);
		assert_int_equal(rpl_recorder_close(rec), 0);
		r->data = read_all(path, &r->len);
	}
	rpl_recorder_free(rec);
	rpl_bot_free(bot);
	rpl_rules_free(rules);
	unlink(path);
}

static void record(struct recording *r, const char *profile, const char *overrides, int nplayers, uint64_t seed,
                   int close, int every_decision)
{
	record_signed(r, profile, overrides, nplayers, seed, close, every_decision, NULL);
}

static void every_cut(const char *profile, int nplayers, uint64_t seed, int every_decision)
{
	struct recording r;
	const char *in = tl_tmp_path("cut.brp"), *out = tl_tmp_path("salvaged.brp");
	int last_actions = -1;

	record(&r, profile, "target=0", nplayers, seed, 0, every_decision);
	assert_true(r.npt > 20);
	assert_true(r.len < 8192);
	print_message("%s, %d players: %zu bytes, %zu flushes, %d decisions\n", profile, nplayers, r.len, r.npt, r.actions);
	for (size_t L = 0; L <= r.len; L++) {
		rpl_recover_report rep;
		rpl_verdict v;
		const struct flushpoint *p = NULL;
		int err, near = !every_decision || L < r.header_end + 2;

		/* flushed after every decision: the lengths next to each flush are enough (and faster) */
		for (size_t i = 0; i < r.npt && !near; i++)
			near = L + 1 >= r.pt[i].size && L <= r.pt[i].size + 1;
		if (!near)
			continue;
		write_all(in, r.data, L);
		memset(&rep, 0xAA, sizeof(rep));
		err = rpl_recover(in, out, 0, &rep);
		if (L < r.header_end) {
			/* (a) no header, nothing to salvage, and nothing written */
			if (err != RPL_ECORRUPT)
				tl_fail("length %zu: rpl_recover returned %d, not RPL_ECORRUPT", L, err);
			assert_true(rep.message[0] != '\0');
			assert_int_equal(access(out, F_OK), -1);
			continue;
		}
		if (err != 0)
			tl_fail("length %zu (header %zu bytes): rpl_recover returned %d: %s", L, r.header_end, err, rep.message);
		/* the last flush whose bytes are all within the first L */
		for (size_t i = 0; i < r.npt; i++)
			if (r.pt[i].size <= L)
				p = &r.pt[i];
		assert_int_equal(rep.total_bytes, L);
		assert_int_equal(rep.damaged, L != (p ? p->size : r.header_end));
		/*
		 * (c) every turn flushed whole, and nothing else: the decisions of a
		 * turn flushed in part are dropped (none when flushes fall between turns)
		 */
		if (!p) {
			assert_int_equal(rep.deals, 0);
			assert_int_equal(rep.actions, 0);
			assert_int_equal(rep.dropped_actions, 0);
		} else {
			if (rep.deals != p->deals || rep.actions != p->complete || rep.claims != p->claims ||
			    rep.dropped_actions != p->actions - p->complete)
				tl_fail("length %zu: kept %d deals, %d decisions, %d claims, dropped %d; flushed: %d deals, "
				        "%d decisions of which %d in whole turns, %d claims",
				        L, rep.deals, rep.actions, rep.claims, rep.dropped_actions, p->deals, p->actions, p->complete,
				        p->claims);
			assert_int_equal(rep.read_bytes, p->size);
		}
		if (!every_decision)
			assert_int_equal(rep.dropped_actions, 0);
		/* (b) the salvaged log verifies as ok or incomplete, holding what was kept */
		assert_int_equal(rpl_verify_file(out, NULL, &v), 0);
		if (v.kind != RPL_VERDICT_OK && v.kind != RPL_VERDICT_INCOMPLETE)
			tl_fail("length %zu: the salvaged log is %s: %s", L, rpl_verdict_name(v.kind), v.message);
		assert_int_equal(v.actions, rep.actions);
		assert_int_equal(v.deals, rep.deals);
		assert_int_equal(v.recovered, 1);
		if (v.kind == RPL_VERDICT_OK) /* only a cut after the last decision holds the whole match */
			assert_int_equal(rep.actions, r.actions);
		else
			assert_true(rep.actions < r.actions);
		/* growing the input never loses a decision */
		assert_true(rep.actions >= last_actions);
		last_actions = rep.actions;
		unlink(out);
	}
	assert_int_equal(last_actions, r.actions);
	unlink(in);
	free(r.pt);
	free(r.data);
}

static void test_recover_every_cut(void **state)
{
	(void)state;
	/* flushes after each turn; 2 players, STBL, one deal: a growing log of some 2 KB */
	every_cut("stbl", 2, 11, 0);
}

static void test_recover_every_cut_mid_turn(void **state)
{
	(void)state;
	/* flushes after each decision, so that cuts fall inside turns; ABERTO, 4 players; the cuts next to each flush */
	every_cut("aberto", 4, 12, 1);
}

/* A whole growing-form log: recover keeps all of it and says it was whole. */
static void test_recover_whole_growing(void **state)
{
	struct recording r;
	const char *in = tl_tmp_path("whole.brp"), *out = tl_tmp_path("whole-out.brp");
	rpl_recover_report rep;
	rpl_verdict v;

	(void)state;
	record(&r, "kzv", "target=0", 4, 3, 0, 0);
	write_all(in, r.data, r.len);
	/* the unclosed log itself: every decision legal, the match over, no end section */
	assert_int_equal(rpl_verify_file(in, NULL, &v), 0);
	assert_int_equal(v.kind, RPL_VERDICT_OK);
	assert_int_equal(v.recovered, 0);
	assert_int_equal(rpl_recover(in, out, 0, &rep), 0);
	assert_int_equal(rep.damaged, 0);
	assert_int_equal(rep.read_bytes, r.len);
	assert_int_equal(rep.actions, r.actions);
	assert_int_equal(rep.claims, r.claims);
	assert_int_equal(rpl_verify_file(out, NULL, &v), 0);
	assert_int_equal(v.kind, RPL_VERDICT_OK);
	assert_int_equal(v.recovered, 1);
	assert_int_equal(v.actions, r.actions);
	unlink(in);
	unlink(out);
	free(r.pt);
	free(r.data);
}

/* A small compact log: STBL, 2 players, one deal, closed. */
static unsigned char *compact_log(size_t *len)
{
	struct recording r;

	record(&r, "stbl", "target=0", 2, 11, 1, 0);
	free(r.pt);
	*len = r.len;
	return r.data;
}

static void test_flip_every_bit(void **state)
{
	size_t len;
	unsigned char *data = compact_log(&len), *copy;
	int counts[5] = { 0 };

	(void)state;
	copy = malloc(len);
	assert_non_null(copy);
	for (size_t i = 0; i < len; i++) {
		for (int bit = 0; bit < 8; bit++) {
			rpl_reader *rd = NULL;
			rpl_verdict v;
			int err;

			memcpy(copy, data, len);
			copy[i] ^= (unsigned char)(1u << bit);
			err = rpl_reader_open_memory(&rd, copy, len);
			if (err == 0) {
				assert_int_equal(rpl_verify_reader(rd, NULL, &v), 0);
			} else {
				/* no header: the verdict rpl_verify_file would give */
				assert_non_null(rd);
				assert_true(err == RPL_ECORRUPT || err == RPL_EUNSUPPORTED);
				v.kind = RPL_VERDICT_MALFORMED;
			}
			rpl_reader_free(rd);
			if (v.kind == RPL_VERDICT_OK)
				tl_fail("byte %zu bit %d flipped: the log still verifies ok", i, bit);
			assert_true(v.kind >= 0 && v.kind <= 4);
			counts[v.kind]++;
		}
	}
	/* a checksum guards every byte after the magic: the damage is always found */
	assert_int_equal(counts[RPL_VERDICT_MALFORMED], (int)(8 * len));
	free(copy);
	free(data);
}

/* ---- signed logs ---- */

/* A section of a log: its type, where it starts and where it ends (past its CRC). */
struct sec {
	char type;
	size_t off, end;
};

static size_t sections(const unsigned char *d, size_t n, struct sec *s, size_t cap)
{
	size_t p = 8, k = 0;

	while (p < n) {
		size_t len = 0;
		int shift = 0;
		assert_true(k < cap);
		s[k].type = (char)d[p];
		s[k].off = p++;
		while (d[p] & 0x80) {
			len |= (size_t)(d[p++] & 0x7f) << shift;
			shift += 7;
		}
		len |= (size_t)d[p++] << shift;
		p += len + 4;
		s[k++].end = p;
	}
	assert_int_equal(p, n);
	return k;
}

/* Decisions of the sections at or after from, in the first n bytes (read up to their first damage). */
static int actions_from(const unsigned char *d, size_t n, size_t from)
{
	rpl_reader *rd = NULL;
	rpl_event ev;
	int k = 0;

	assert_int_equal(rpl_reader_open_memory(&rd, d, n), 0);
	while (rpl_reader_next(rd, &ev) == 1)
		k += ev.kind == RPL_EV_ACTION && ev.offset >= from;
	rpl_reader_free(rd);
	return k;
}

/* out holds exactly p[0..n) */
static void holds(const char *out, const unsigned char *p, size_t n)
{
	size_t got;
	unsigned char *d = tl_read_file(out, &got);

	assert_int_equal(got, n);
	assert_memory_equal(d, p, n);
	free(d);
}

/* The salvage of a signed log verifies under -K: the trusted key covers all of it; unclosed. */
static void verifies_trusted(const char *out, const rpl_keyring *kr, size_t covered, int actions)
{
	rpl_verdict v;

	assert_int_equal(rpl_verify_file_trusted(out, NULL, kr, &v, NULL), 0);
	assert_int_equal(v.signature.status, RPL_SIG_OK);
	assert_int_equal(v.signature.trusted, 1);
	assert_int_equal(v.signature.covered, covered);
	assert_int_equal(v.bytes, covered);
	assert_int_equal(v.closed, 0);
	assert_int_equal(v.recovered, 0);
	if (v.kind == RPL_VERDICT_UNTRUSTED || v.kind == RPL_VERDICT_TAMPERED || v.kind == RPL_VERDICT_MALFORMED)
		tl_fail("the signed salvage of %zu bytes is %s: %s", covered, rpl_verdict_name(v.kind), v.message);
	assert_int_equal(v.actions, actions);
}

static rpl_keyring *keyring_of(const rpl_seckey *key)
{
	rpl_keyring *kr = NULL;
	rpl_pubkey pk;

	assert_int_equal(rpl_keyring_new(&kr), 0);
	rpl_seckey_public(key, &pk);
	assert_int_equal(rpl_keyring_add(kr, &pk), 0);
	return kr;
}

/*
 * A signed growing log (a flush after every turn, each flush signed) cut at
 * every section boundary and at every byte of its last flush: the salvage
 * is the input's bytes up to the last signature whole within the cut,
 * verbatim, holding the decisions that signature covers (the recording's
 * at that flush); it verifies with the key as trusted over the whole log,
 * unclosed; what followed is reported, to the decision. --unsigned instead
 * records every complete turn again, closed, unsigned, and never keeps less.
 */
static void test_recover_signed_cuts(void **state)
{
	const char *in = tl_tmp_path("signed-cut.brp"), *out = tl_tmp_path("signed-out.brp");
	const char *out2 = tl_tmp_path("signed-unsigned.brp");
	struct recording r;
	rpl_seckey *key = NULL;
	rpl_keyring *kr;
	static struct sec sec[4096];
	size_t nsec, last_flush, ncut = 0;
	char want[RPL_ERRMSG_SIZE];

	(void)state;
	assert_int_equal(rpl_seckey_generate(&key), 0);
	kr = keyring_of(key);
	record_signed(&r, "stbl", "target=0", 2, 11, 0, 0, key);
	nsec = sections(r.data, r.len, sec, sizeof(sec) / sizeof(sec[0]));
	assert_int_equal(sec[nsec - 1].type, 's');
	last_flush = r.pt[r.npt - 2].size;
	for (size_t L = r.header_end - 1; L <= r.len; L++) {
		rpl_recover_report rep, rep2;
		rpl_verdict v;
		const struct flushpoint *p = NULL;
		size_t S = 0;
		int boundary = 0;
		for (size_t i = 0; i < nsec; i++) {
			boundary |= sec[i].end == L;
			if (sec[i].type == 's' && sec[i].end <= L)
				S = sec[i].end;
		}
		if (!boundary && L <= last_flush)
			continue;
		ncut++;
		write_all(in, r.data, L);
		assert_int_equal(rpl_recover(in, out, 0, &rep), 0);
		assert_int_equal(rep.total_bytes, L);
		if (S == 0) { /* the header without its signature: nothing is signed */
			assert_int_equal(rep.kept_signed, 0);
			continue;
		}
		assert_int_equal(rep.kept_signed, 1);
		assert_int_equal(rep.covered, S);
		assert_int_equal(rep.invalid_offset, 0);
		holds(out, r.data, S);
		for (size_t i = 0; i < r.npt; i++)
			if (r.pt[i].size == S)
				p = &r.pt[i];
		if (S == r.header_end) {
			assert_int_equal(rep.deals, 0);
			assert_int_equal(rep.actions, 0);
		} else {
			assert_non_null(p); /* every signature ends a flush */
			assert_int_equal(rep.deals, p->deals);
			assert_int_equal(rep.actions, p->actions);
			assert_int_equal(rep.claims, p->claims);
		}
		assert_int_equal(rep.dropped_actions, 0);
		assert_int_equal(rep.out_closed, 0);
		assert_int_equal(rep.uncovered_actions, actions_from(r.data, L, S));
		assert_int_equal(rep.damaged, !boundary && L != r.len);
		if (L == S)
			snprintf(want, sizeof(want), "kept bytes 0 to %zu, signed by key ", S);
		else
			snprintf(want, sizeof(want),
			         "; cut %zu bytes after the last signature: %d decisions that no signature covers", L - S,
			         rep.uncovered_actions);
		if (!strstr(rep.message, want))
			tl_fail("length %zu: '%s' does not say '%s'", L, rep.message, want);
		verifies_trusted(out, kr, S, rep.actions);
		/* --unsigned: the salvage of old, every complete turn, closed, no signature */
		assert_int_equal(rpl_recover(in, out2, RPL_RECOVER_UNSIGNED, &rep2), 0);
		assert_int_equal(rep2.kept_signed, 0);
		assert_int_equal(rep2.covered, 0);
		assert_int_equal(rep2.out_closed, 1);
		assert_true(rep2.actions >= rep.actions);
		assert_int_equal(rpl_verify_file_trusted(out2, NULL, kr, &v, NULL), 0);
		assert_int_equal(v.signature.status, RPL_SIG_UNSIGNED);
		assert_int_equal(v.signature.trusted, 0);
		assert_int_equal(v.closed, 1);
		assert_int_equal(v.recovered, 1);
		assert_int_equal(v.actions, rep2.actions);
	}
	print_message("%zu bytes, %zu sections, %zu cuts salvaged\n", r.len, nsec, ncut);
	assert_true(ncut > 40);
	unlink(in);
	unlink(out);
	unlink(out2);
	free(r.pt);
	free(r.data);
	rpl_keyring_free(kr);
	rpl_seckey_free(key);
}

/* The section at off of p gets its CRC again (after an edit of its payload). */
static void mend_crc(unsigned char *p, const struct sec *s)
{
	uLong c = crc32(0L, p + s->off, (uInt)(s->end - 4 - s->off));

	for (int i = 0; i < 4; i++)
		p[s->end - 4 + i] = (unsigned char)(c >> (8 * i));
}

/*
 * A signed log edited in the middle, its CRC mended: the signatures after
 * the edit no longer verify; the salvage keeps what the last signature
 * before it covers, and names the first that fails.
 */
static void test_recover_signed_tampered(void **state)
{
	const char *in = tl_tmp_path("tampered.brp"), *out = tl_tmp_path("tampered-out.brp");
	struct recording r;
	rpl_seckey *key = NULL;
	rpl_keyring *kr;
	rpl_recover_report rep;
	static struct sec sec[4096];
	size_t nsec, mid, S = 0, bad = 0;
	char want[80];

	(void)state;
	assert_int_equal(rpl_seckey_generate(&key), 0);
	kr = keyring_of(key);
	record_signed(&r, "stbl", "target=0", 2, 11, 0, 0, key);
	nsec = sections(r.data, r.len, sec, sizeof(sec) / sizeof(sec[0]));
	for (mid = nsec / 2; sec[mid].type != 'A'; mid++)
		;
	r.data[sec[mid].end - 5] ^= 0x01; /* the last byte of its stream */
	mend_crc(r.data, &sec[mid]);
	for (size_t i = 0; i < nsec; i++) {
		if (sec[i].type == 's' && i < mid)
			S = sec[i].end;
		if (sec[i].type == 's' && i > mid && !bad)
			bad = sec[i].off;
	}
	write_all(in, r.data, r.len);
	assert_int_equal(rpl_recover(in, out, 0, &rep), 0);
	assert_int_equal(rep.kept_signed, 1);
	assert_int_equal(rep.covered, S);
	assert_int_equal(rep.invalid_offset, bad);
	snprintf(want, sizeof(want), "the signature at byte %zu does not verify", bad);
	if (!strstr(rep.message, want))
		tl_fail("'%s' does not say '%s'", rep.message, want);
	holds(out, r.data, S);
	verifies_trusted(out, kr, S, rep.actions);
	/* the header edited (a seat's name): no signature holds, so the salvage is unsigned, and says why */
	{
		size_t at = sec[0].off;
		rpl_verdict v;
		while (at + 3 <= sec[0].end && memcmp(r.data + at, "Ana", 3) != 0)
			at++;
		assert_true(at + 3 <= sec[0].end);
		r.data[at + 2] = 'b';
		mend_crc(r.data, &sec[0]);
		write_all(in, r.data, r.len);
		assert_int_equal(rpl_recover(in, out, 0, &rep), 0);
		assert_int_equal(rep.kept_signed, 0);
		assert_int_equal(rep.invalid_offset, sec[1].off);
		snprintf(want, sizeof(want), "; the signature at byte %zu does not verify", sec[1].off);
		if (!strstr(rep.message, want))
			tl_fail("'%s' does not say '%s'", rep.message, want);
		assert_int_equal(rpl_verify_file(out, NULL, &v), 0);
		assert_int_equal(v.signature.status, RPL_SIG_UNSIGNED);
		assert_int_equal(v.recovered, 1);
	}
	unlink(in);
	unlink(out);
	free(r.pt);
	free(r.data);
	rpl_keyring_free(kr);
	rpl_seckey_free(key);
}

/*
 * A signer signed bytes that do not decode (the first deal section's count
 * of decisions made 127 while its stream holds none, its CRC mended, then
 * signed over all of it): reading
 * stops inside what the last signature covers, so the salvage keeps what
 * the signature before the damage covers (the header's), and says where
 * reading stopped.
 */
static void test_recover_signed_undecodable(void **state)
{
	const char *in = tl_tmp_path("undecodable.brp"), *out = tl_tmp_path("undecodable-out.brp");
	struct recording r;
	rpl_seckey *key = NULL;
	rpl_keyring *kr;
	rpl_recover_report rep;
	rpl_prehash *h = NULL;
	rpl_pubkey pk;
	static struct sec sec[4096];
	unsigned char *d, sig[RPL_SIGNATURE_BYTES];
	size_t nsec, n, d_at, at;
	uLong c;

	(void)state;
	assert_int_equal(rpl_seckey_generate(&key), 0);
	kr = keyring_of(key);
	rpl_seckey_public(key, &pk);
	record_signed(&r, "stbl", "target=0", 2, 11, 0, 0, key);
	nsec = sections(r.data, r.len, sec, sizeof(sec) / sizeof(sec[0]));
	/* magic, H, s (the header's signature), D: kept; the D's count (version 5: its first field) 0 becomes 127 */
	assert_true(nsec > 3 && sec[0].type == 'H' && sec[1].type == 's' && sec[2].type == 'D');
	d_at = sec[2].off;
	n = sec[2].end;
	d = malloc(n + 112);
	assert_non_null(d);
	memcpy(d, r.data, n);
	for (at = d_at + 1; d[at] & 0x80; at++) /* the type, the length, then the count */
		;
	assert_int_equal(d[++at], 0x00); /* the layout alone */
	d[at] = 0x7f;                    /* and 127 decisions that its stream does not hold */
	mend_crc(d, &sec[2]);
	/* a signature over all of it, as a signer that signs what it is given would write */
	assert_int_equal(rpl_prehash_new(&h), 0);
	rpl_prehash_update(h, d, n);
	rpl_prehash_sign(h, key, sig);
	d[n] = 's';
	d[n + 1] = 106;
	memcpy(d + n + 2, "ED", 2);
	memcpy(d + n + 4, pk.id, RPL_KEY_ID_BYTES);
	memcpy(d + n + 12, sig, RPL_SIGNATURE_BYTES);
	memcpy(d + n + 76, pk.key, RPL_PUBKEY_BYTES);
	c = crc32(0L, d + n, 108);
	for (int i = 0; i < 4; i++)
		d[n + 108 + i] = (unsigned char)(c >> (8 * i));
	write_all(in, d, n + 112);
	assert_int_equal(rpl_recover(in, out, 0, &rep), 0);
	assert_int_equal(rep.kept_signed, 1);
	assert_int_equal(rep.covered, sec[1].end);
	assert_int_equal(rep.damaged, 1);
	assert_int_equal(rep.read_bytes, d_at);
	assert_int_equal(rep.deals, 0);
	assert_non_null(strstr(rep.message, "; damaged or cut at byte"));
	holds(out, d, sec[1].end);
	verifies_trusted(out, kr, sec[1].end, 0);
	unlink(in);
	unlink(out);
	free(d);
	rpl_prehash_free(h);
	free(r.pt);
	free(r.data);
	rpl_keyring_free(kr);
	rpl_seckey_free(key);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recover_every_cut),          cmocka_unit_test(test_recover_every_cut_mid_turn),
		cmocka_unit_test(test_recover_whole_growing),      cmocka_unit_test(test_flip_every_bit),
		cmocka_unit_test(test_recover_signed_cuts),        cmocka_unit_test(test_recover_signed_tampered),
		cmocka_unit_test(test_recover_signed_undecodable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
