/*
 * Committed matches (format versions 3 and 4, docs/format.md sections 15, 16
 * and 18), every case run under both protocols: RPL_COMMIT_V2 (the current
 * one, written as version 4) and RPL_COMMIT_V1 (version 3):
 *   recorded     a committed match recorded with its seed closes to the
 *                revealed compact form (no layout stored), reads back with
 *                the derived layouts and verifies ok, deal revealed; the
 *                verdict counts the players' seeds, and its line says when
 *                the deals are only as fair as the platform (a seat without
 *                a seed; protocol 1)
 *   refusals     the recorder refuses a layout that is not derived, a seed
 *                that is not the one committed to, a seed after a layout
 *                that was not derived
 *   growing      a committed log cut before the reveal is unrevealed; an R
 *                section with the seed appended makes it revealed; the
 *                wrong seed in it is a mismatch, never ok
 *   forgeries    a layout card changed, the seed changed: caught
 *   header       version 3 stores only the parameters that differ from
 *                frozen revision 1, and reads them back; refusals
 *   signed       a signing recorder's revealed compact form ends with one
 *                signature over the whole log, and its growing form is
 *                signed at each flush: both verify ok under the key, the
 *                deals revealed or unrevealed; an unrelated key: untrusted
 *   identity     the growing log revealed later, the unrevealed one and the
 *                compact form have one identity (the compact form's claims
 *                are in one C at the end); the same deals and play without
 *                the commitment, or with other players' seeds, another
 *   signed_retry a signing recorder whose file append fails half way (a file
 *                size limit) and whose next flush succeeds writes a log
 *                that reads to its end, every signature verifying: the part
 *                written is cut off, nothing is hashed twice
 *   claims_order a committed match's claims enter the identity sorted by
 *                deal, the match's last, a deal's in the log's order:
 *                recorded sorted, scrambled or in place, one identity; two
 *                claims of a deal swapped, another
 *   claims_limit a version-3 C that takes the match past RPL_MAX_CLAIMS is
 *                refused whole; one that reaches it is read
 *   signed_forgery  a signed, committed log whose seed or layout was changed
 *                after signing: tampered wins over the mismatch the change
 *                also makes, with keys and without; a mismatch that was
 *                signed (the platform dealt other deals and signed them) is
 *                a mismatch, never untrusted or ok
 */
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

#include "libreplay/deal.h"

/* Append a section (type, payload) with its CRC to the file. */
static void append_section(const char *path, char type, const unsigned char *payload, size_t len)
{
	size_t n;
	unsigned char *d = tl_read_file(path, &n), *out = malloc(n + len + 16);
	size_t k = n;
	uLong crc;

	assert_non_null(out);
	memcpy(out, d, n);
	out[k++] = (unsigned char)type;
	assert_true(len < 128);
	out[k++] = (unsigned char)len;
	memcpy(out + k, payload, len);
	k += len;
	crc = crc32(0L, out + n, (uInt)(k - n));
	for (int i = 0; i < 4; i++)
		out[k++] = (unsigned char)(crc >> (8 * i));
	tl_write_file(path, out, k);
	free(out);
	free(d);
}

static const uint8_t seed_a[32] = { 0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
	                                16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31 };
static const uint8_t pseeds[2][32] = { { 0x11 }, { 0x22 } };

/* The protocol the cases run under (main runs them under each). */
static int protocol = RPL_COMMIT_V2;

struct committed {
	uint8_t commitment[32];
	rpl_rules *rules;
	rpl_match_info info;
	const char *names[4];
};

static void committed_info_of(struct committed *c, const char *profile, int nplayers, int nps, const char *overrides)
{
	static const char *const keys[] = { "platform" }, *const values[] = { "test" };
	memset(c, 0, sizeof(*c));
	c->rules = tl_rules(profile, overrides ? overrides : "target=3000"); /* NULL: a match of several deals */
	c->info.rules = c->rules;
	c->info.nplayers = nplayers;
	for (int s = 0; s < nplayers; s++)
		c->info.players[s] = (const char *[]){ "Ana", "Bia", "Caio", "Dora" }[s];
	c->info.first_dealer = nplayers - 1;
	c->info.start_time = 1767225600;
	c->info.nmeta = 1;
	c->info.meta_keys = keys;
	c->info.meta_values = values;
	c->info.commitment = c->commitment;
	c->info.nplayer_seeds = nps;
	c->info.player_seeds = pseeds;
	c->info.commit_version = protocol;
	assert_int_equal(rpl_deal_commit_match(c->commitment, seed_a, &c->info), 0);
}

static void committed_info(struct committed *c, int nplayers, int nps, const char *overrides)
{
	committed_info_of(c, "stbl", nplayers, nps, overrides);
}

/* The layout of deal d of c's match, derived from seed_a under its protocol. */
static void derive(rpl_layout *out, const struct committed *c, int d)
{
	assert_int_equal(rpl_deal_derive_match(out, seed_a, &c->info, d), 0);
}

/*
 * Bots play deals derived from seed_a (tamper: deal 2's stock gets its top
 * two cards swapped, recorded unchecked) until the match is over or
 * max_deals were dealt; claims after each deal and for the match.
 */
static void play(rpl_recorder *rec, rpl_game *g, const struct committed *c, int max_deals, int tamper)
{
	rpl_bot *bot = NULL;

	assert_int_equal(rpl_bot_new(&bot, RPL_BOT_GREEDY, 7), 0);
	while (rpl_game_phase(g) != RPL_PHASE_MATCH_OVER && rpl_game_deal_number(g) < max_deals) {
		rpl_layout lay;
		rpl_score sc[2];
		int32_t claim[2];
		int d = rpl_game_deal_number(g) + 1;
		derive(&lay, c, d);
		if (tamper && d == 2) {
			rpl_card t = lay.stock[0];
			lay.stock[0] = lay.stock[1];
			lay.stock[1] = t;
		}
		assert_int_equal(rpl_game_deal(g, &lay), 0);
		assert_int_equal(rpl_recorder_deal(rec, &lay), 0);
		while (rpl_game_phase(g) < RPL_PHASE_DEAL_OVER) {
			rpl_action a;
			assert_int_equal(rpl_bot_choose(bot, g, &a), 0);
			assert_int_equal(rpl_game_apply(g, &a), 0);
			assert_int_equal(rpl_recorder_action(rec, &a), 0);
		}
		rpl_game_deal_score(g, 0, &sc[0]);
		rpl_game_deal_score(g, 1, &sc[1]);
		claim[0] = sc[0].total;
		claim[1] = sc[1].total;
		assert_int_equal(rpl_recorder_claim(rec, d, claim), 0);
	}
	if (rpl_game_phase(g) == RPL_PHASE_MATCH_OVER) {
		int32_t total[2] = { rpl_game_total(g, 0), rpl_game_total(g, 1) };
		assert_int_equal(rpl_recorder_claim(rec, 0, total), 0);
	}
	rpl_bot_free(bot);
}

/* Record a committed match into path: with_seed gives the recorder the seed; close: the compact form. */
static void record(const char *path, struct committed *c, int with_seed, int close, int max_deals, int tamper)
{
	rpl_recorder *rec = NULL;
	rpl_game *g = NULL;

	assert_int_equal(rpl_game_new(&g, c->rules, c->info.nplayers, c->info.first_dealer), 0);
	assert_int_equal(rpl_recorder_open(&rec, path, &c->info, tamper ? RPL_RECORD_UNCHECKED : 0), 0);
	if (with_seed)
		assert_int_equal(rpl_recorder_seed(rec, seed_a), 0);
	play(rec, g, c, max_deals, tamper);
	if (close)
		assert_int_equal(rpl_recorder_close(rec), 0);
	else
		assert_int_equal(rpl_recorder_flush(rec), 0);
	rpl_recorder_free(rec);
	rpl_game_free(g);
}

static void verdict(const char *path, rpl_verdict *v)
{
	assert_int_equal(rpl_verify_file(path, NULL, v), 0);
}

static void test_recorded(void **state)
{
	const char *path = tl_tmp_path("rec.brp");
	struct committed c;
	rpl_reader *rd = NULL;
	rpl_event ev;
	rpl_verdict v;
	int deals = 0, reveals = 0, claims = 0, got;
	(void)state;

	for (int nps = 0; nps <= 2; nps += 2) {
		committed_info(&c, nps ? 2 : 4, nps, NULL);
		record(path, &c, 1, 1, 100, 0);
		assert_int_equal(rpl_reader_open(&rd, path), 0);
		assert_int_equal(rpl_reader_format_version(rd), protocol == RPL_COMMIT_V1 ? 3 : 6);
		assert_int_equal(rpl_reader_info(rd)->commit_version, protocol);
		assert_non_null(rpl_reader_info(rd)->commitment);
		assert_memory_equal(rpl_reader_info(rd)->commitment, c.commitment, 32);
		assert_int_equal(rpl_reader_info(rd)->nplayer_seeds, nps);
		deals = reveals = claims = 0;
		while ((got = rpl_reader_next(rd, &ev)) == 1) {
			if (ev.kind == RPL_EV_REVEAL) {
				assert_int_equal(deals, 0); /* the compact form reveals first */
				assert_memory_equal(ev.seed, seed_a, 32);
				reveals++;
			} else if (ev.kind == RPL_EV_DEAL) {
				rpl_layout want;
				assert_int_equal(ev.deal, ++deals);
				derive(&want, &c, ev.deal);
				assert_true(rpl_layout_same(&want, &ev.layout, c.info.nplayers));
			} else if (ev.kind == RPL_EV_CLAIM) {
				claims++;
			}
		}
		assert_int_equal(got, 0);
		assert_int_equal(reveals, 1);
		assert_true(deals >= 2);
		assert_int_equal(claims, deals + 1);
		rpl_reader_free(rd);
		rd = NULL;
		verdict(path, &v);
		assert_int_equal(v.kind, RPL_VERDICT_OK);
		assert_int_equal(v.deal_commitment, RPL_DEAL_REVEALED);
		assert_memory_equal(v.commitment, c.commitment, 32);
		assert_string_equal(rpl_deal_commitment_name(v.deal_commitment), "revealed");
		/* what the players added, and the line that says when the deals are only as fair as the platform */
		assert_int_equal(v.player_seeds, nps);
		assert_int_equal(v.players, c.info.nplayers);
		assert_int_equal(v.commit_version, protocol);
		{
			char line[512];
			const char *fair = strstr((rpl_verdict_format(&v, line, sizeof(line)), line), "; deal commitment");
			assert_non_null(fair);
			if (nps == 0 && protocol == RPL_COMMIT_V2)
				assert_string_equal(fair, "; deal commitment revealed, 0 of 4 players added a seed: the deals are "
				                          "only as fair as the platform");
			else if (nps == 0)
				assert_string_equal(fair, "; deal commitment revealed, 0 of 4 players added a seed, protocol 1 "
				                          "commits to the seed alone: the deals are only as fair as the platform");
			else if (protocol == RPL_COMMIT_V2)
				assert_string_equal(fair, "; deal commitment revealed"); /* every seat added one */
			else
				assert_string_equal(fair, "; deal commitment revealed, protocol 1 commits to the seed alone: the "
				                          "deals are only as fair as the platform");
		}
		rpl_rules_free(c.rules);
	}
	unlink(path);
}

static void test_refusals(void **state)
{
	const char *path = tl_tmp_path("ref.brp");
	struct committed c;
	rpl_recorder *rec = NULL;
	rpl_layout lay;
	uint8_t wrong[32];
	(void)state;

	committed_info(&c, 4, 0, NULL);
	assert_int_equal(rpl_recorder_open(&rec, path, &c.info, 0), 0);
	memcpy(wrong, seed_a, 32);
	wrong[5] ^= 4;
	assert_int_equal(rpl_recorder_seed(rec, wrong), RPL_EINVAL);
	assert_int_equal(rpl_recorder_seed(rec, seed_a), 0);
	assert_int_equal(rpl_recorder_seed(rec, seed_a), RPL_ESTATE);
	/* deal 2's layout as deal 1, then deal 1 with two stock cards swapped: refused, nothing changes */
	derive(&lay, &c, 2);
	assert_int_equal(rpl_recorder_deal(rec, &lay), RPL_EILLEGAL);
	assert_int_equal(rpl_recorder_rule(rec), RPL_RULE_LAYOUT);
	assert_non_null(strstr(rpl_recorder_errmsg(rec), "committed seed"));
	derive(&lay, &c, 1);
	{
		rpl_layout bad = lay;
		bad.stock[0] = lay.stock[1];
		bad.stock[1] = lay.stock[0];
		assert_int_equal(rpl_recorder_deal(rec, &bad), RPL_EILLEGAL);
	}
	assert_int_equal(rpl_game_deal_number(rpl_recorder_game(rec)), 0);
	/* the hands in another order are the same deal */
	{
		rpl_layout turned = lay;
		rpl_card t = turned.hand[1][0];
		turned.hand[1][0] = turned.hand[1][10];
		turned.hand[1][10] = t;
		assert_int_equal(rpl_recorder_deal(rec, &turned), 0);
	}
	rpl_recorder_free(rec);
	rec = NULL;

	/* a seed given after a deal that was not derived: refused */
	assert_int_equal(rpl_recorder_open(&rec, path, &c.info, RPL_RECORD_UNCHECKED), 0);
	derive(&lay, &c, 1);
	{
		rpl_card t = lay.morto[0][0];
		lay.morto[0][0] = lay.morto[1][0];
		lay.morto[1][0] = t;
	}
	assert_int_equal(rpl_recorder_deal(rec, &lay), 0);
	assert_int_equal(rpl_recorder_seed(rec, seed_a), RPL_EILLEGAL);
	rpl_recorder_free(rec);
	rec = NULL;

	/* no commitment: no seed */
	c.info.commitment = NULL;
	assert_int_equal(rpl_recorder_open(&rec, path, &c.info, 0), 0);
	assert_int_equal(rpl_recorder_seed(rec, seed_a), RPL_ESTATE);
	rpl_recorder_free(rec);
	rec = NULL;
	c.info.commitment = c.commitment;
	c.info.nplayer_seeds = 5;
	assert_int_equal(rpl_recorder_open(&rec, path, &c.info, 0), RPL_EINVAL);
	rpl_recorder_free(rec);
	rpl_rules_free(c.rules);
	unlink(path);
}

static void test_growing(void **state)
{
	const char *path = tl_tmp_path("grow.brp");
	struct committed c;
	rpl_verdict v;
	size_t n;
	unsigned char *saved;
	uint8_t wrong[32];
	(void)state;

	committed_info(&c, 4, 0, NULL);
	/* the platform keeps the seed: the recording flushed, never closed, holds the layouts */
	record(path, &c, 0, 0, 100, 0);
	verdict(path, &v);
	assert_int_equal(v.deal_commitment, RPL_DEAL_UNREVEALED);
	assert_int_equal(v.kind, RPL_VERDICT_OK); /* every decision is there: judged as played */
	saved = tl_read_file(path, &n);
	/* the seed revealed at the end */
	append_section(path, 'R', seed_a, 32);
	verdict(path, &v);
	assert_int_equal(v.kind, RPL_VERDICT_OK);
	assert_int_equal(v.deal_commitment, RPL_DEAL_REVEALED);
	/* the seed: another one is a mismatch, never ok */
	tl_write_file(path, saved, n);
	memcpy(wrong, seed_a, 32);
	wrong[0] ^= 1;
	append_section(path, 'R', wrong, 32);
	verdict(path, &v);
	assert_int_equal(v.kind, RPL_VERDICT_MISMATCH);
	assert_int_equal(v.deal_commitment, RPL_DEAL_MISMATCH);
	assert_int_equal(v.deal_mismatch, 0);
	assert_non_null(strstr(v.message, "commits to"));
	/* two reveals, or a short one: malformed */
	tl_write_file(path, saved, n);
	append_section(path, 'R', seed_a, 32);
	append_section(path, 'R', seed_a, 32);
	verdict(path, &v);
	assert_int_equal(v.kind, RPL_VERDICT_MALFORMED);
	tl_write_file(path, saved, n);
	append_section(path, 'R', seed_a, 31);
	verdict(path, &v);
	assert_int_equal(v.kind, RPL_VERDICT_MALFORMED);
	free(saved);
	rpl_rules_free(c.rules);
	unlink(path);
}

/*
 * Flip one bit of the seed that a revealed compact log's header carries (the
 * 32 bytes after the dealing byte 2) and mend the header's CRC, so that only
 * the content changes; whatever follows (a signature) is kept as it was.
 */
/* The frame at pos: its payload's offset in *pay, its length returned. */
static size_t frame_len(const unsigned char *d, size_t pos, size_t *pay)
{
	size_t len = 0, shift = 0, q = pos + 1;
	for (;;) {
		len |= (size_t)(d[q] & 0x7f) << shift;
		shift += 7;
		if (!(d[q++] & 0x80))
			break;
	}
	*pay = q;
	return len;
}

/* A sealed log's checksum (format.md 19.5, after E) computed again; the offset just past it. */
static size_t reseal(unsigned char *d)
{
	size_t pos = 8, pay;
	uLong crc;
	for (;;) {
		size_t len = frame_len(d, pos, &pay);
		char t = (char)d[pos];
		pos = pay + len;
		if (t == 'E')
			break;
	}
	crc = crc32(0L, d, (uInt)pos);
	for (int i = 0; i < 4; i++)
		d[pos + i] = (unsigned char)(crc >> (8 * i));
	return pos + 4;
}

static void flip_seed(const char *path)
{
	size_t n;
	unsigned char *d = tl_read_file(path, &n);
	size_t hlen = d[9] & 0x80 ? (size_t)(d[9] & 0x7f) | (size_t)d[10] << 7 : d[9];
	size_t pay = d[9] & 0x80 ? 11 : 10, end = pay + hlen, pos = 0;
	uLong crc;

	assert_true(d[8] == 'H' || d[8] == 'Z'); /* Z: sealed, the log's one checksum mended (format.md 19.5) */
	assert_int_equal(d[pay], 0);             /* raw */
	for (size_t i = pay; i + 33 < end; i++)
		if (d[i] == 2 && memcmp(d + i + 1, seed_a, 32) == 0)
			pos = i + 1;
	assert_true(pos > 0);
	d[pos + 7] ^= 0x40;
	if (d[8] == 'Z') {
		reseal(d);
	} else {
		crc = crc32(0L, d + 8, (uInt)(end - 8));
		for (int i = 0; i < 4; i++)
			d[end + i] = (unsigned char)(crc >> (8 * i));
	}
	tl_write_file(path, d, n);
	free(d);
}

/* The forgery cases of the committed deal: a layout card, the seed. */
static void test_forgeries(void **state)
{
	const char *path = tl_tmp_path("forge.brp");
	struct committed c;
	rpl_verdict v;
	(void)state;

	/* a layout card: deal 2's stock top swapped, then the seed revealed: mismatch at deal 2 */
	committed_info(&c, 4, 0, NULL);
	record(path, &c, 0, 0, 3, 1); /* growing: the reveal is appended */
	verdict(path, &v);
	assert_int_equal(v.deal_commitment, RPL_DEAL_UNREVEALED);
	append_section(path, 'R', seed_a, 32);
	verdict(path, &v);
	assert_int_equal(v.kind, RPL_VERDICT_MISMATCH);
	assert_int_equal(v.deal_commitment, RPL_DEAL_MISMATCH);
	assert_int_equal(v.deal_mismatch, 2);
	assert_non_null(strstr(v.message, "deal 2"));

	/* the seed in a revealed compact log: another seed derives other deals, so it is caught */
	record(path, &c, 1, 1, 100, 0);
	flip_seed(path);
	verdict(path, &v);
	assert_int_not_equal(v.kind, RPL_VERDICT_OK);
	/* and what it commits to is not what was published */
	assert_memory_not_equal(v.commitment, c.commitment, 32);
	rpl_rules_free(c.rules);
	unlink(path);
}

/* Version 3 stores the parameters that differ from frozen revision 1, and reads them back. */
static void test_header(void **state)
{
	const char *path = tl_tmp_path("hdr.brp");
	struct committed c;
	rpl_reader *rd = NULL;
	size_t n0, n2;
	unsigned char *d;
	int v = 0;
	(void)state;

	committed_info(&c, 4, 0, ""); /* the profile as it is */
	record(path, &c, 1, 1, 1, 0);
	free(tl_read_file(path, &n0));
	rpl_rules_free(c.rules);

	committed_info(&c, 4, 0, "target=1500 bonus_clean=250");
	record(path, &c, 1, 1, 1, 0);
	d = tl_read_file(path, &n2);
	assert_int_equal(rpl_reader_open(&rd, path), 0);
	rpl_rules_get_id(rpl_reader_info(rd)->rules, RPL_P_TARGET, &v);
	assert_int_equal(v, 1500);
	rpl_rules_get_id(rpl_reader_info(rd)->rules, RPL_P_BONUS_CLEAN, &v);
	assert_int_equal(v, 250);
	rpl_rules_get_id(rpl_reader_info(rd)->rules, RPL_P_BONUS_DIRTY, &v);
	assert_int_equal(v, 100);
	for (int id = 1; id <= RPL_P_COUNT; id++) {
		int a = 0, b = 0;
		rpl_rules_get_id(rpl_reader_info(rd)->rules, id, &a);
		rpl_rules_get_id(c.rules, id, &b);
		assert_int_equal(a, b);
	}
	rpl_reader_free(rd);
	rd = NULL;
	/* the header of the default rules has no pair: "stbl" (version 6 as 5: its code 1), revision 1, 0 pairs */
	{
		const unsigned char head3[] = { 0x00, 0x03, 0x04, 's', 't', 'b', 'l', 0x01, 0x00, 0x04 },
							head5[] = { 0x00, 0x06, 0x01, 0x01, 0x00, 0x04 };
		const unsigned char *head = protocol == RPL_COMMIT_V1 ? head3 : head5;
		size_t headlen = protocol == RPL_COMMIT_V1 ? sizeof(head3) : sizeof(head5);
		unsigned char *d0;
		size_t m, pay;
		rpl_rules_free(c.rules);
		committed_info(&c, 4, 0, ""); /* the profile as it is */
		record(path, &c, 1, 1, 1, 0);
		d0 = tl_read_file(path, &m);
		pay = d0[9] & 0x80 ? 11 : 10;
		assert_memory_equal(d0 + pay, head, headlen);
		assert_true(n2 > m); /* the two overrides cost bytes; the defaults none */
		assert_int_equal(n0, m);
		free(d0);
	}
	/* crafted headers: pairs that differ are accepted, a pair equal to the revision or out of order is corrupt */
	{
		struct {
			unsigned char pairs[8];
			size_t n;
			int err;
		} cases[] = {
			{ { 0x00 }, 1, 0 },
			{ { 0x01, 0x03, 0x02 }, 3, 0 },                        /* target = 1 */
			{ { 0x01, 0x03, 0x00 }, 3, RPL_ECORRUPT },             /* target = 0: the revision's own (STBL) */
			{ { 0x02, 0x04, 0x02, 0x03, 0x02 }, 5, RPL_ECORRUPT }, /* ids 4 then 3 */
			{ { 0x02, 0x03, 0x02, 0x03, 0x04 }, 5, RPL_ECORRUPT }, /* id 3 twice */
			{ { 0x01, 0x10, 0x06 }, 3, RPL_ECORRUPT },             /* max_wilds = 3: out of range */
			{ { 0x01, 0x7f, 0x02 }, 3, RPL_EUNSUPPORTED },         /* id 127: unknown */
		};
		for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
			unsigned char x[256];
			size_t j = 0, lenpos;
			uLong crc;
			rpl_reader *r2 = NULL;
			memcpy(x,
			       "\x89"
			       "BRP\r\n\x1a\n",
			       8);
			j = 8;
			x[j++] = 'H';
			lenpos = j++;
			x[j++] = 0x00; /* raw */
			memcpy(x + j, protocol == RPL_COMMIT_V1 ? "\x03\x04stbl\x01" : "\x04\x04stbl\x01", 7);
			j += 7;
			memcpy(x + j, cases[k].pairs, cases[k].n);
			j += cases[k].n;
			memcpy(x + j, "\x02\x00\x00\x01\x00\x00\x01",
			       7); /* 2 players, no names, dealer 1, start 0, no meta, committed */
			j += 7;
			memcpy(x + j, c.commitment, 32);
			j += 32;
			x[j++] = 0; /* no player seed */
			if (protocol != RPL_COMMIT_V1)
				x[j++] = 0; /* version 4: the header's flags */
			x[lenpos] = (unsigned char)(j - lenpos - 1);
			crc = crc32(0L, x + 8, (uInt)(j - 8));
			for (int i = 0; i < 4; i++)
				x[j++] = (unsigned char)(crc >> (8 * i));
			assert_int_equal(rpl_reader_open_memory(&r2, x, j), cases[k].err);
			if (cases[k].err == 0) {
				int target = -1;
				rpl_rules_get_id(rpl_reader_info(r2)->rules, RPL_P_TARGET, &target);
				assert_int_equal(target, k == 1 ? 1 : 0); /* the frozen revision's STBL target: one deal */
				assert_memory_equal(rpl_reader_info(r2)->commitment, c.commitment, 32);
			}
			rpl_reader_free(r2);
		}
	}
	free(d);
	rpl_rules_free(c.rules);
	unlink(path);
}

/*
 * A parameter that gained a value (docs/format.md section 12): ABERTO's
 * one_card_pile_no_return is face (2) today and true (1) in frozen revision
 * 1, so today's ABERTO header stores the pair (22, 2), and an ABERTO header
 * without that pair, as every log written before, reads as true.
 */
static void test_header_gained_value(void **state)
{
	static const unsigned char pair[] = { 0x01, 0x01, 0x16, 0x04 }; /* revision 1, 1 pair: id 22, zigzag(2) */
	static const unsigned char none[] = { 0x01, 0x00 };             /* revision 1, no pair */
	static const char *const overrides[] = { "", "one_card_pile_no_return=true" };
	(void)state;

	for (int k = 0; k < 2; k++) {
		struct committed c;
		rpl_recorder *rec = NULL;
		rpl_reader *rd = NULL;
		const uint8_t *d;
		size_t n, pay, at;
		int v = -1;

		committed_info_of(&c, "aberto", 4, 0, overrides[k]);
		assert_int_equal(rpl_recorder_open_memory(&rec, &c.info, 0, NULL), 0);
		assert_int_equal(rpl_recorder_flush(rec), 0);
		assert_int_equal(rpl_recorder_log(&d, &n, rec), 0);
		pay = d[9] & 0x80 ? 11 : 10;
		assert_true(n > pay + 9 + sizeof(pair));
		/* version 3 names the profile, version 5 gives its code (2: aberto) */
		at = protocol == RPL_COMMIT_V1 ? pay + 9 : pay + 3;
		if (protocol == RPL_COMMIT_V1)
			assert_memory_equal(d + pay + 2,
			                    "\x06"
			                    "aberto",
			                    7);
		else
			assert_int_equal(d[pay + 2], 2);
		if (k == 0)
			assert_memory_equal(d + at, pair, sizeof(pair));
		else
			assert_memory_equal(d + at, none, sizeof(none));
		assert_int_equal(rpl_reader_open_memory(&rd, d, n), 0);
		rpl_rules_get_id(rpl_reader_info(rd)->rules, RPL_P_ONE_CARD_PILE_NO_RETURN, &v);
		assert_int_equal(v, k == 0 ? RPL_NO_RETURN_FACE : RPL_NO_RETURN_CARD);
		rpl_reader_free(rd);
		rpl_recorder_free(rec);
		rpl_rules_free(c.rules);
	}
}

/*
 * A deal longer than a section may hold (1 048 576 decisions): the revealed
 * compact form closes its one D at the limit and goes on in an A, and the
 * log reads back whole (format.md 16.3). A take/discard loop under
 * pile_rule=free, recorded unchecked.
 */
static void test_long_deal(void **state)
{
	const char *path = tl_tmp_path("long.brp");
	struct committed c;
	rpl_recorder *rec = NULL;
	rpl_layout lay;
	rpl_action a;
	rpl_verdict v;
	size_t n, pos = 8, sections[3] = { 0, 0, 0 };
	unsigned char *d;
	const long loops = 530000;
	(void)state;

	committed_info(&c, 4, 0, "pile_rule=free");
	assert_int_equal(rpl_recorder_open(&rec, path, &c.info, RPL_RECORD_UNCHECKED), 0);
	assert_int_equal(rpl_recorder_seed(rec, seed_a), 0);
	derive(&lay, &c, 1);
	assert_int_equal(rpl_recorder_deal(rec, &lay), 0);
	memset(&a, 0, sizeof(a));
	a.kind = RPL_ACT_DRAW;
	assert_int_equal(rpl_recorder_action(rec, &a), 0);
	a.kind = RPL_ACT_DISCARD;
	a.ncards = 1;
	a.cards[0] = lay.stock[0];
	assert_int_equal(rpl_recorder_action(rec, &a), 0);
	for (long i = 0; i < loops; i++) {
		rpl_action take = { 0 };
		take.kind = RPL_ACT_TAKE;
		assert_int_equal(rpl_recorder_action(rec, &take), 0);
		assert_int_equal(rpl_recorder_action(rec, &a), 0);
	}
	assert_int_equal(rpl_recorder_close(rec), 0);
	rpl_recorder_free(rec);
	d = tl_read_file(path, &n);
	while (pos < n) {
		size_t len = 0, shift = 0, q = pos + 1;
		for (;;) {
			len |= (size_t)(d[q] & 0x7f) << shift;
			shift += 7;
			if (!(d[q++] & 0x80))
				break;
		}
		if (d[pos] == 'D')
			sections[0]++;
		else if (d[pos] == 'A')
			sections[1]++;
		else if (d[pos] == 'E')
			sections[2]++;
		/* sealed (format.md 19.5): one checksum, after E */
		pos = q + len + (d[8] != 'Z' || d[pos] == 'E' ? 4 : 0);
	}
	assert_int_equal(pos, n);
	assert_int_equal(sections[0], 1);
	assert_true(sections[1] >= 1);
	assert_int_equal(sections[2], 1);
	free(d);
	verdict(path, &v);
	assert_int_not_equal(v.kind, RPL_VERDICT_MALFORMED);
	assert_int_equal(v.actions, 2 + 2 * loops);
	assert_int_equal(v.deal_commitment, RPL_DEAL_REVEALED);
	rpl_rules_free(c.rules);
	unlink(path);
}

/* A new secret key, and in *kr a keyring that trusts it alone. */
static rpl_seckey *trusted_key(rpl_keyring **kr)
{
	rpl_seckey *key = NULL;
	rpl_pubkey pk;

	assert_int_equal(rpl_seckey_generate(&key), 0);
	assert_int_equal(rpl_keyring_new(kr), 0);
	rpl_seckey_public(key, &pk);
	assert_int_equal(rpl_keyring_add(*kr, &pk), 0);
	return key;
}

/* A committed match recorded by a signing recorder, closed (revealed compact form) or only flushed. */
static void test_signed(void **state)
{
	const char *path = tl_tmp_path("signed.brp");
	struct committed c;
	rpl_seckey *key = NULL, *other = NULL;
	rpl_keyring *kr = NULL, *otherkr = NULL;
	rpl_verdict v;
	size_t n;
	(void)state;

	key = trusted_key(&kr);
	other = trusted_key(&otherkr);
	for (int close = 1; close >= 0; close--) {
		rpl_recorder *rec = NULL;
		rpl_game *g = NULL;
		committed_info(&c, 4, 2, NULL);
		assert_int_equal(rpl_game_new(&g, c.rules, c.info.nplayers, c.info.first_dealer), 0);
		assert_int_equal(rpl_recorder_open_signed(&rec, path, &c.info, 0, key), 0);
		if (close)
			assert_int_equal(rpl_recorder_seed(rec, seed_a), 0);
		play(rec, g, &c, close ? 100 : 2, 0);
		if (close)
			assert_int_equal(rpl_recorder_close(rec), 0);
		else
			assert_int_equal(rpl_recorder_flush(rec), 0);
		rpl_recorder_free(rec);
		rpl_game_free(g);
		free(tl_read_file(path, &n));
		assert_int_equal(rpl_verify_file_trusted(path, NULL, kr, &v, NULL), 0);
		assert_int_equal(v.signature.status, RPL_SIG_OK);
		assert_true(v.signature.trusted);
		assert_int_equal(v.signature.covered, n);
		assert_int_equal(v.signature.size, n);
		assert_int_equal(v.kind, close ? RPL_VERDICT_OK : RPL_VERDICT_INCOMPLETE);
		assert_int_equal(v.deal_commitment, close ? RPL_DEAL_REVEALED : RPL_DEAL_UNREVEALED);
		assert_memory_equal(v.commitment, c.commitment, 32);
		if (close) {
			assert_int_equal(rpl_verify_file_trusted(path, NULL, otherkr, &v, NULL), 0);
			assert_int_equal(v.kind, RPL_VERDICT_UNTRUSTED);
			assert_int_equal(v.deal_commitment, RPL_DEAL_REVEALED);
		}
		rpl_rules_free(c.rules);
	}
	rpl_keyring_free(kr);
	rpl_keyring_free(otherkr);
	rpl_seckey_free(key);
	rpl_seckey_free(other);
	unlink(path);
}

/* docs/format.md 17.3: the commitment and the players' seeds are in the identity record, the reveal is not. */
static void test_identity(void **state)
{
	const char *path = tl_tmp_path("ident.brp");
	struct committed c;
	rpl_verdict v;
	char compact[RPL_MATCH_ID_SIZE];
	(void)state;

	committed_info(&c, 4, 2, NULL);
	record(path, &c, 1, 1, 100, 0); /* revealed compact form: one D, one C */
	verdict(path, &v);
	assert_int_equal(v.kind, RPL_VERDICT_OK);
	memcpy(compact, v.match_id, sizeof(compact));
	assert_int_equal(strlen(compact), 64);
	record(path, &c, 0, 0, 100, 0); /* growing, each claim in its place, the seed kept back */
	verdict(path, &v);
	assert_int_equal(v.deal_commitment, RPL_DEAL_UNREVEALED);
	assert_string_equal(v.match_id, compact);
	append_section(path, 'R', seed_a, 32); /* then revealed */
	verdict(path, &v);
	assert_int_equal(v.deal_commitment, RPL_DEAL_REVEALED);
	assert_string_equal(v.match_id, compact);

	c.info.nplayer_seeds = 1; /* another set of players' seeds: other deals, another match */
	record(path, &c, 0, 0, 100, 0);
	verdict(path, &v);
	assert_true(v.match_id[0] != '\0');
	assert_string_not_equal(v.match_id, compact);
	rpl_rules_free(c.rules);
	committed_info(&c, 4, 2, NULL);
	c.info.commitment = NULL; /* the same deals and play, the commitment stripped */
	record(path, &c, 0, 1, 100, 0);
	verdict(path, &v);
	assert_int_equal(v.kind, RPL_VERDICT_OK);
	assert_int_equal(v.deal_commitment, RPL_DEAL_NONE);
	assert_true(v.match_id[0] != '\0');
	assert_string_not_equal(v.match_id, compact);
	rpl_rules_free(c.rules);
	unlink(path);
}

/* A claim, recorded after deal `after` has ended (0: after the last). */
struct sched_claim {
	int after, deal;
	int32_t score[2];
};

/*
 * Three deals of a committed match played by bots, its claims recorded as
 * the schedule says; closed (the compact form: every claim in one C at
 * the end) or flushed and left growing (each claim in its place).
 */
static void claims_log(const char *path, struct committed *c, const struct sched_claim *cl, size_t n, int close)
{
	rpl_recorder *rec = NULL;
	rpl_game *g = NULL;
	rpl_bot *bot = NULL;

	assert_int_equal(rpl_game_new(&g, c->rules, c->info.nplayers, c->info.first_dealer), 0);
	assert_int_equal(rpl_recorder_open(&rec, path, &c->info, 0), 0);
	assert_int_equal(rpl_recorder_seed(rec, seed_a), 0);
	assert_int_equal(rpl_bot_new(&bot, RPL_BOT_GREEDY, 7), 0);
	for (int d = 1; d <= 3; d++) {
		rpl_layout lay;
		derive(&lay, c, d);
		assert_int_equal(rpl_game_deal(g, &lay), 0);
		assert_int_equal(rpl_recorder_deal(rec, &lay), 0);
		while (rpl_game_phase(g) < RPL_PHASE_DEAL_OVER) {
			rpl_action a;
			assert_int_equal(rpl_bot_choose(bot, g, &a), 0);
			assert_int_equal(rpl_game_apply(g, &a), 0);
			assert_int_equal(rpl_recorder_action(rec, &a), 0);
		}
		for (size_t i = 0; i < n; i++)
			if (cl[i].after == d || (d == 3 && cl[i].after == 0))
				assert_int_equal(rpl_recorder_claim(rec, cl[i].deal, cl[i].score), 0);
	}
	if (close)
		assert_int_equal(rpl_recorder_close(rec), 0);
	else
		assert_int_equal(rpl_recorder_flush(rec), 0);
	rpl_recorder_free(rec);
	rpl_bot_free(bot);
	rpl_game_free(g);
}

static void claims_id(const char *path, struct committed *c, const struct sched_claim *cl, size_t n, int close,
                      char id[RPL_MATCH_ID_SIZE])
{
	rpl_verdict v;

	claims_log(path, c, cl, n, close);
	verdict(path, &v);
	assert_int_equal(strlen(v.match_id), 64);
	memcpy(id, v.match_id, RPL_MATCH_ID_SIZE);
}

/*
 * A committed match's claims enter the identity by deal, the match's
 * (deal 0) last, a deal's several in the order the log gives them
 * (docs/format.md 17.2), by a sort since issue 22: recorded in that order,
 * scrambled, or each in its place in the growing form, one identity; two
 * claims of one deal swapped, another.
 */
static void test_claims_order(void **state)
{
	const char *path = tl_tmp_path("claims-order.brp");
	static const struct sched_claim sorted[] = {
		{ 0, 1, { 10, 20 } }, { 0, 1, { 11, 21 } }, { 0, 2, { 5, 5 } }, { 0, 3, { 7, 7 } }, { 0, 0, { 1, 1 } },
	};
	static const struct sched_claim scrambled[] = {
		{ 0, 0, { 1, 1 } }, { 0, 3, { 7, 7 } }, { 0, 1, { 10, 20 } }, { 0, 2, { 5, 5 } }, { 0, 1, { 11, 21 } },
	};
	static const struct sched_claim in_place[] = {
		{ 1, 1, { 10, 20 } }, { 1, 0, { 1, 1 } }, { 2, 2, { 5, 5 } }, { 2, 1, { 11, 21 } }, { 3, 3, { 7, 7 } },
	};
	static const struct sched_claim swapped[] = {
		{ 0, 1, { 11, 21 } }, { 0, 1, { 10, 20 } }, { 0, 2, { 5, 5 } }, { 0, 3, { 7, 7 } }, { 0, 0, { 1, 1 } },
	};
	struct committed c;
	char a[RPL_MATCH_ID_SIZE], b[RPL_MATCH_ID_SIZE];
	(void)state;

	committed_info(&c, 4, 2, NULL);
	claims_id(path, &c, sorted, 5, 1, a);
	claims_id(path, &c, scrambled, 5, 1, b);
	assert_string_equal(a, b);
	claims_id(path, &c, in_place, 5, 0, b);
	assert_string_equal(a, b);
	claims_id(path, &c, in_place, 5, 1, b);
	assert_string_equal(a, b);
	claims_id(path, &c, swapped, 5, 1, b);
	assert_string_not_equal(a, b);
	rpl_rules_free(c.rules);
	unlink(path);
}

/*
 * A version-3 C holds several claims: the reader counts them before
 * delivering any, and a C that takes the match past RPL_MAX_CLAIMS is
 * refused whole (RPL_ELIMIT at its offset); one that reaches it exactly is
 * read. A committed growing log of RPL_MAX_CLAIMS - 1 claims, then a C of
 * one claim, or of two, appended.
 */
static void test_claims_limit(void **state)
{
	const char *path = tl_tmp_path("claims-limit.brp");
	/* version 5 (format.md 19.3): deal 1 (tag 2), scores 1 and 2; each claim 3 bytes */
	const unsigned char two[] = { 0x02, 0x02, 0x04, 0x02, 0x02, 0x04 }, *one = two;
	struct committed c;
	rpl_recorder *rec = NULL;
	rpl_reader *rd = NULL;
	rpl_layout lay;
	rpl_event ev;
	unsigned char *base;
	size_t len;
	unsigned n;
	int err;
	char want[RPL_ERRMSG_SIZE];
	(void)state;

	committed_info(&c, 4, 2, NULL);
	assert_int_equal(rpl_recorder_open(&rec, path, &c.info, 0), 0);
	derive(&lay, &c, 1);
	assert_int_equal(rpl_recorder_deal(rec, &lay), 0);
	for (n = 0; n < RPL_MAX_CLAIMS - 1; n++)
		assert_int_equal(rpl_recorder_claim(rec, (int)(n % 7), (int32_t[2]){ 1, 2 }), 0);
	assert_int_equal(rpl_recorder_flush(rec), 0);
	rpl_recorder_free(rec);
	base = tl_read_file(path, &len);
	for (int extra = 1; extra <= 2; extra++) {
		tl_write_file(path, base, len);
		append_section(path, 'C', extra == 1 ? one : two, 3 * (size_t)extra);
		assert_int_equal(rpl_reader_open(&rd, path), 0);
		n = 0;
		while ((err = rpl_reader_next(rd, &ev)) == 1)
			n += ev.kind == RPL_EV_CLAIM;
		if (extra == 1) {
			assert_int_equal(err, 0);
			assert_int_equal(n, RPL_MAX_CLAIMS);
		} else {
			assert_int_equal(err, RPL_ELIMIT);
			assert_int_equal(n, RPL_MAX_CLAIMS - 1);
			assert_int_equal(rpl_reader_offset(rd), len);
			snprintf(want, sizeof(want),
			         "byte %zu: section 'C' takes the match past 65536 claims, the most a log holds", len);
			assert_string_equal(rpl_reader_errmsg(rd), want);
		}
		rpl_reader_free(rd);
		rd = NULL;
	}
	free(base);
	rpl_rules_free(c.rules);
	unlink(path);
}

static void test_signed_retry(void **state)
{
	const char *path = tl_tmp_path("retry.brp");
	struct committed c;
	rpl_seckey *key = NULL;
	rpl_keyring *kr = NULL;
	rpl_recorder *rec = NULL;
	rpl_game *g = NULL;
	rpl_verdict v;
	struct rlimit was, small;
	size_t n, m;
	void (*old)(int);
	(void)state;

	key = trusted_key(&kr);
	committed_info(&c, 4, 0, NULL);
	assert_int_equal(rpl_game_new(&g, c.rules, 4, c.info.first_dealer), 0);
	assert_int_equal(rpl_recorder_open_signed(&rec, path, &c.info, 0, key), 0);
	play(rec, g, &c, 1, 0);
	assert_int_equal(rpl_recorder_flush(rec), 0);
	free(tl_read_file(path, &n));
	/* deal 2 flushed into a file that may grow by 40 bytes only: the append fails half way */
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &was), 0);
	small = was;
	small.rlim_cur = (rlim_t)n + 40;
	old = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	play(rec, g, &c, 2, 0);
	assert_int_equal(rpl_recorder_flush(rec), RPL_EIO);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &was), 0);
	signal(SIGXFSZ, old);
	free(tl_read_file(path, &m));
	assert_int_equal(m, n); /* the part written was cut off */
	/* room again: the next flush appends deal 2 (a failed recording takes no more decisions) */
	assert_int_equal(rpl_recorder_flush(rec), 0);
	free(tl_read_file(path, &m));
	assert_true(m > n);
	assert_int_equal(rpl_verify_file_trusted(path, NULL, kr, &v, NULL), 0);
	assert_int_equal(v.signature.status, RPL_SIG_OK);
	assert_int_equal(v.signature.covered, m);
	assert_true(v.kind == RPL_VERDICT_OK || v.kind == RPL_VERDICT_INCOMPLETE);
	assert_int_equal(v.deals, 2);
	rpl_recorder_free(rec);
	rpl_game_free(g);
	rpl_rules_free(c.rules);
	rpl_keyring_free(kr);
	rpl_seckey_free(key);
	unlink(path);
}

/* A signed, committed log changed after signing is tampered, whatever else the change makes it. */
static void test_signed_forgery(void **state)
{
	const char *path = tl_tmp_path("sigforge.brp");
	struct committed c;
	rpl_seckey *key = NULL;
	rpl_keyring *kr = NULL;
	rpl_verdict v;
	rpl_recorder *rec = NULL;
	rpl_game *g = NULL;
	(void)state;

	key = trusted_key(&kr);

	/* the seed of a signed, revealed compact log changed: the deals are no longer those committed */
	committed_info(&c, 4, 0, NULL);
	assert_int_equal(rpl_game_new(&g, c.rules, 4, c.info.first_dealer), 0);
	assert_int_equal(rpl_recorder_open_signed(&rec, path, &c.info, 0, key), 0);
	assert_int_equal(rpl_recorder_seed(rec, seed_a), 0);
	play(rec, g, &c, 100, 0);
	assert_int_equal(rpl_recorder_close(rec), 0);
	rpl_recorder_free(rec);
	rpl_game_free(g);
	rec = NULL;
	g = NULL;
	flip_seed(path);
	for (int keys = 0; keys <= 1; keys++) {
		assert_int_equal(rpl_verify_file_trusted(path, NULL, keys ? kr : NULL, &v, NULL), 0);
		assert_int_equal(v.kind, RPL_VERDICT_TAMPERED);
		assert_int_equal(v.signature.status, RPL_SIG_INVALID);
		assert_non_null(strstr(v.message, "changed after signing"));
	}

	/*
	 * a platform that dealt deal 2 otherwise and signed it, the seed revealed
	 * after its last signature: never ok; untrusted (anyone may append an R),
	 * the mismatch a detail; without keys too in version 4, whose header
	 * declares the log signed (no signature covers the R); a mismatch in
	 * version 3, which has no such flag
	 */
	assert_int_equal(rpl_game_new(&g, c.rules, 4, c.info.first_dealer), 0);
	assert_int_equal(rpl_recorder_open_signed(&rec, path, &c.info, RPL_RECORD_UNCHECKED, key), 0);
	play(rec, g, &c, 3, 1); /* the platform keeps the seed: nothing checks the layouts yet */
	assert_int_equal(rpl_recorder_flush(rec), 0);
	rpl_recorder_free(rec);
	rpl_game_free(g);
	append_section(path, 'R', seed_a, 32); /* revealed after the last signature */
	for (int keys = 0; keys <= 1; keys++) {
		assert_int_equal(rpl_verify_file_trusted(path, NULL, keys ? kr : NULL, &v, NULL), 0);
		assert_int_equal(v.header_flags, protocol == RPL_COMMIT_V1 ? 0 : RPL_LOG_SIGNED);
		assert_int_equal(v.kind, keys || v.header_flags ? RPL_VERDICT_UNTRUSTED : RPL_VERDICT_MISMATCH);
		assert_int_equal(v.replay, RPL_VERDICT_MISMATCH);
		assert_false(v.replay_trusted);
		assert_int_equal(v.deal_commitment, RPL_DEAL_MISMATCH);
		assert_int_equal(v.deal_mismatch, 2);
		assert_int_equal(v.signature.status, RPL_SIG_PARTIAL);
	}

	rpl_rules_free(c.rules);
	rpl_keyring_free(kr);
	rpl_seckey_free(key);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recorded),       cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_growing),        cmocka_unit_test(test_forgeries),
		cmocka_unit_test(test_header),         cmocka_unit_test(test_header_gained_value),
		cmocka_unit_test(test_long_deal),      cmocka_unit_test(test_signed),
		cmocka_unit_test(test_identity),       cmocka_unit_test(test_signed_retry),
		cmocka_unit_test(test_signed_forgery), cmocka_unit_test(test_claims_order),
		cmocka_unit_test(test_claims_limit),
	};
	int failed = cmocka_run_group_tests_name("protocol 2 (format version 4)", tests, NULL, NULL);

	protocol = RPL_COMMIT_V1;
	return failed + cmocka_run_group_tests_name("protocol 1 (format version 3)", tests, NULL, NULL);
}
