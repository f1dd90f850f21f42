/*
 * brp-hostile: the worst logs of each kind a reader accepts, for
 * tools/bench-hostile.sh and the hostile-limits test (not installed).
 *
 *   brp-hostile KIND OUT [PAST]  write the log of KIND to OUT; one line on
 *                          stdout says what it holds. PAST (claims and
 *                          decisions only): also the same log made to pass the
 *                          limit by one section, which readers must refuse
 *   brp-hostile list       the kinds, one a line
 *
 * Each log is within the limits of docs/format.md section 10 (written by
 * the library's own recorder wherever it can be, so no writer refuses it),
 * except "decisions-past" (and the PAST logs), which must be refused:
 *
 *   claims          a committed match of one deal and RPL_MAX_CLAIMS claims,
 *                   their deals scattered over 0..RPL_MAX_DEALS (the match
 *                   identity sorts them), growing form; PAST: one C more
 *   decisions       RPL_MAX_DECISIONS legal decisions in one deal (a
 *                   take/discard loop under pile_rule=free: the engine
 *                   replays every one), a D and three A sections, growing
 *   decisions-past  the same and 36 copies of its last A section: 42 million
 *                   decisions declared, as the log of issue 22 held; refused
 *   header          the largest header: 4 names of RPL_MAX_NAME bytes, 64
 *                   metadata entries of RPL_MAX_META_TEXT bytes, random text
 *                   (deflated, 137 KB inflated), and a deal played out
 *   deals           RPL_MAX_DEALS legal deals, each drawn and discarded to
 *                   the end of its stock (1.3 million decisions)
 *   sections        RPL_MAX_DECISIONS decisions, a flush after each: one
 *                   section a decision (4 million sections, 36 MiB)
 *   signatures      a signed recording flushed after every decision up to
 *                   the file limit: a signature section every 121 bytes
 *                   (about 550 000 signatures to check)
 *   empty-sections  a short deal, then empty continuation sections (count
 *                   0, 8 bytes each) up to the file limit: 8 million
 *
 * It uses the public API only, and zlib for the CRC of the sections it
 * frames itself (decisions-past, empty-sections). Deterministic: the same
 * KIND gives the same bytes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "libreplay/libreplay.h"

#define FILE_LIMIT (64u << 20) /* the reader's file limit (docs/format.md section 10) */

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("brp-hostile: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void check(int err, const char *what, const rpl_recorder *rec)
{
	if (err < 0)
		die("%s: %s (%s)", what, rpl_strerror(err), rec ? rpl_recorder_errmsg(rec) : "");
}

/* ---- bytes ---- */

struct bytes {
	uint8_t *p;
	size_t n, cap;
};

static void put(struct bytes *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 1 << 16;
		while (cap < b->n + n)
			cap *= 2;
		if (!(b->p = realloc(b->p, cap)))
			die("out of memory");
		b->cap = cap;
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

/* A section as docs/format.md section 3 frames it (payload under 128 bytes). */
static void put_section(struct bytes *b, char type, const uint8_t *payload, size_t len)
{
	uint8_t head[2] = { (uint8_t)type, (uint8_t)len }, crc[4];
	uLong c = crc32(crc32(0L, head, 2), payload, (uInt)len);

	for (int i = 0; i < 4; i++)
		crc[i] = (uint8_t)(c >> (8 * i));
	put(b, head, 2);
	put(b, payload, len);
	put(b, crc, 4);
}

/* The offset of the last section of a log and its length (the frame included). */
static void last_section(const struct bytes *b, size_t *off, size_t *len)
{
	size_t pos = 8;

	*off = *len = 0;
	while (pos < b->n) {
		size_t start = pos, plen = 0;
		int shift = 0;
		pos++;
		while (b->p[pos] & 0x80) {
			plen |= (size_t)(b->p[pos++] & 0x7f) << shift;
			shift += 7;
		}
		plen |= (size_t)b->p[pos++] << shift;
		pos += plen + 4;
		*off = start;
		*len = pos - start;
	}
}

static void write_out(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0)
		die("%s: cannot write", path);
}

/* The recorder's log (memory), as flushed, to path; its size. */
static size_t save(rpl_recorder *rec, const char *path, struct bytes *copy)
{
	const uint8_t *p;
	size_t n;

	check(rpl_recorder_flush(rec), "flush", rec);
	check(rpl_recorder_log(&p, &n, rec), "log", rec);
	if (copy)
		put(copy, p, n);
	else
		write_out(path, p, n);
	return n;
}

/* ---- matches ---- */

struct match {
	rpl_rules *rules;
	rpl_match_info info;
	rpl_layout layout;
	uint8_t seed[RPL_DEAL_SEED_SIZE], commitment[RPL_DEAL_COMMIT_SIZE];
};

static void match_init(struct match *m, int nplayers, const char *set_name, const char *set_value)
{
	static const char *const names[4] = { "north", "east", "south", "west" };
	rpl_rng rng;

	memset(m, 0, sizeof(*m));
	check(rpl_rules_new(&m->rules, "stbl"), "rules", NULL);
	if (set_name && rpl_rules_set(m->rules, set_name, set_value) != 0)
		die("rules: %s", rpl_rules_errmsg(m->rules));
	m->info.rules = m->rules;
	m->info.nplayers = nplayers;
	for (int s = 0; s < nplayers; s++)
		m->info.players[s] = names[s];
	m->info.first_dealer = 0;
	m->info.start_time = 1767225600; /* 2026-01-01 */
	rpl_rng_seed(&rng, 22);
	rpl_layout_shuffle(&m->layout, nplayers, &rng);
	for (int i = 0; i < RPL_DEAL_SEED_SIZE; i++)
		m->seed[i] = (uint8_t)(i * 7 + 22);
}

/*
 * The take/discard loop of issue 22 under pile_rule=free: seat 0 draws and
 * discards the card drawn, then each seat in turn takes the pile (that one
 * card) and discards it again. Legal, and it never ends. Until the recorder
 * refuses (RPL_ELIMIT) or max decisions; flush: after each decision.
 */
static size_t take_discard(rpl_recorder *rec, const rpl_layout *l, size_t max, int flush)
{
	rpl_action draw = { .kind = RPL_ACT_DRAW }, take = { .kind = RPL_ACT_TAKE };
	rpl_action discard = { .kind = RPL_ACT_DISCARD, .ncards = 1 };
	size_t n = 0;
	int err;

	discard.cards[0] = l->stock[0]; /* the top of the stock, drawn first */
	check(rpl_recorder_deal(rec, l), "deal", rec);
	for (;;) {
		const rpl_action *a = n == 0 ? &draw : n % 2 ? &discard : &take;
		if (n == max || (err = rpl_recorder_action(rec, a)) == RPL_ELIMIT)
			break;
		check(err, "decision", rec);
		n++;
		if (flush && (err = rpl_recorder_flush(rec)) != 0) {
			check(err, "flush", rec);
		}
	}
	return n;
}

/*
 * One deal played out dully by a checked recorder: each seat draws and
 * discards the first card of its hand, and picks up a morto when the
 * engine asks for one, until the stock runs out. Its decisions.
 */
static size_t dull_deal(rpl_recorder *rec, const rpl_layout *l)
{
	const rpl_game *g = rpl_recorder_game(rec);
	size_t n = 0;

	check(rpl_recorder_deal(rec, l), "deal", rec);
	while (rpl_game_phase(g) < RPL_PHASE_DEAL_OVER) {
		rpl_action a = { .kind = RPL_ACT_DRAW };
		rpl_card hand[RPL_DECK_SIZE];
		int err;
		switch (rpl_game_phase(g)) {
		case RPL_PHASE_DRAW: break;
		case RPL_PHASE_PLAY:
			if (rpl_game_hand(g, rpl_game_seat(g), hand, RPL_DECK_SIZE) == 0)
				die("deal %d: an empty hand", rpl_game_deal_number(g));
			a.kind = RPL_ACT_DISCARD;
			a.ncards = 1;
			a.cards[0] = hand[0];
			break;
		case RPL_PHASE_MORTO:
			a.kind = RPL_ACT_MORTO;
			if (rpl_recorder_action(rec, &a) == 0) { /* morto 0, else morto 1 */
				n++;
				continue;
			}
			a.morto = 1;
			break;
		default: die("deal %d: phase %d", rpl_game_deal_number(g), rpl_game_phase(g));
		}
		err = rpl_recorder_action(rec, &a);
		check(err, "decision", rec);
		n++;
	}
	return n;
}

/* ---- the kinds ---- */

static void kind_claims(const char *out, const char *past)
{
	static const uint8_t one[3] = { 0x01, 0x02, 0x04 }; /* deal 1, scores 1 and 2 (a version-3 C) */
	struct match m;
	rpl_recorder *rec = NULL;
	struct bytes b = { 0 };
	rpl_layout l;
	uint32_t x = 22;
	size_t n;

	match_init(&m, 2, NULL, NULL);
	check(rpl_deal_commit_match(m.commitment, m.seed, &m.info), "commit", NULL);
	m.info.commitment = m.commitment;
	check(rpl_recorder_open_memory(&rec, &m.info, RPL_RECORD_UNCHECKED, NULL), "open", rec);
	check(rpl_recorder_seed(rec, m.seed), "seed", rec);
	check(rpl_deal_derive_match(&l, m.seed, &m.info, 1), "derive", NULL);
	check(rpl_recorder_deal(rec, &l), "deal", rec);
	for (unsigned i = 0; i < RPL_MAX_CLAIMS; i++) {
		int32_t score[2] = { (int32_t)i, -(int32_t)i };
		x = x * 1103515245u + 12345u;
		check(rpl_recorder_claim(rec, (int)((x >> 8) % (RPL_MAX_DEALS + 1)), score), "claim", rec);
	}
	n = save(rec, out, &b);
	write_out(out, b.p, b.n);
	printf("claims: %u claims over deals 0 to %d, a committed match of one deal, growing form, %zu bytes\n",
	       RPL_MAX_CLAIMS, RPL_MAX_DEALS, n);
	if (past) {
		put_section(&b, 'C', one, sizeof(one));
		write_out(past, b.p, b.n);
		printf("claims-past: the same and a claim more, %zu bytes\n", b.n);
	}
	free(b.p);
	rpl_recorder_free(rec);
	rpl_rules_free(m.rules);
}

static void kind_decisions(const char *out, const char *past_out, int past)
{
	struct match m;
	rpl_recorder *rec = NULL;
	struct bytes b = { 0 };
	size_t n, off, len;

	match_init(&m, 2, "pile_rule", "free");
	check(rpl_recorder_open_memory(&rec, &m.info, RPL_RECORD_UNCHECKED, NULL), "open", rec);
	n = take_discard(rec, &m.layout, (size_t)-1, 0);
	save(rec, out, &b);
	if (!past) {
		write_out(out, b.p, b.n);
		printf("decisions: %zu legal decisions in one deal (take and discard, pile_rule=free), a D and three A "
		       "sections, growing form, %zu bytes\n",
		       n, b.n);
	}
	if (past_out) {
		out = past_out;
		past = 1;
	}
	if (past) {
		uint8_t *copy;
		last_section(&b, &off, &len);
		if (!(copy = malloc(len))) /* b moves as it grows: the section is copied out first */
			die("out of memory");
		memcpy(copy, b.p + off, len);
		for (int i = 0; i < 36; i++)
			put(&b, copy, len);
		free(copy);
		write_out(out, b.p, b.n);
		printf("decisions-past: %zu decisions, then 36 copies of the last section of %zu decisions (%zu declared), "
		       "%zu bytes\n",
		       n, (size_t)RPL_MAX_SECTION, n + 36 * (size_t)RPL_MAX_SECTION, b.n);
	}
	free(b.p);
	rpl_recorder_free(rec);
	rpl_rules_free(m.rules);
}

static void kind_header(const char *out)
{
	static char names[4][RPL_MAX_NAME + 1], keys[RPL_MAX_META][RPL_MAX_META_TEXT + 1],
			values[RPL_MAX_META][RPL_MAX_META_TEXT + 1];
	const char *kp[RPL_MAX_META], *vp[RPL_MAX_META];
	struct match m;
	rpl_recorder *rec = NULL;
	rpl_rng rng;
	size_t n, d;

	match_init(&m, 4, NULL, NULL);
	rpl_rng_seed(&rng, 2022);
	/* printable ASCII at random: what deflates least (about 6.6 bits a byte) */
	for (int s = 0; s < 4; s++) {
		for (int i = 0; i < RPL_MAX_NAME; i++)
			names[s][i] = (char)(' ' + 1 + rpl_rng_below(&rng, 94));
		m.info.players[s] = names[s];
	}
	for (int k = 0; k < RPL_MAX_META; k++) {
		for (int i = 0; i < RPL_MAX_META_TEXT; i++) {
			keys[k][i] = (char)(' ' + 1 + rpl_rng_below(&rng, 94));
			values[k][i] = (char)(' ' + 1 + rpl_rng_below(&rng, 94));
		}
		kp[k] = keys[k];
		vp[k] = values[k];
	}
	m.info.nmeta = RPL_MAX_META;
	m.info.meta_keys = kp;
	m.info.meta_values = vp;
	check(rpl_recorder_open_memory(&rec, &m.info, 0, NULL), "open", rec);
	d = dull_deal(rec, &m.layout);
	n = save(rec, out, NULL);
	printf("header: 4 names of %d bytes, %d metadata entries of %d-byte keys and values (random text, deflated), "
	       "one deal of %zu decisions, %zu bytes\n",
	       RPL_MAX_NAME, RPL_MAX_META, RPL_MAX_META_TEXT, d, n);
	rpl_recorder_free(rec);
	rpl_rules_free(m.rules);
}

static void kind_deals(const char *out)
{
	struct match m;
	rpl_recorder *rec = NULL;
	rpl_rng rng;
	size_t n = 0, bytes;
	int deals = 0;

	match_init(&m, 4, "target", "1000000"); /* a dull deal scores below 0: the match goes on to the deal limit */
	check(rpl_recorder_open_memory(&rec, &m.info, 0, NULL), "open", rec);
	rpl_rng_seed(&rng, 10000);
	for (; deals < RPL_MAX_DEALS && rpl_game_phase(rpl_recorder_game(rec)) != RPL_PHASE_MATCH_OVER; deals++) {
		rpl_layout_shuffle(&m.layout, 4, &rng);
		n += dull_deal(rec, &m.layout);
	}
	bytes = save(rec, out, NULL);
	printf("deals: %d legal deals drawn and discarded to the end, %zu decisions, growing form, %zu bytes\n", deals, n,
	       bytes);
	rpl_recorder_free(rec);
	rpl_rules_free(m.rules);
}

static void kind_sections(const char *out)
{
	struct match m;
	rpl_recorder *rec = NULL;
	size_t n, bytes;

	match_init(&m, 2, "pile_rule", "free");
	check(rpl_recorder_open_memory(&rec, &m.info, RPL_RECORD_UNCHECKED, NULL), "open", rec);
	n = take_discard(rec, &m.layout, (size_t)-1, 1);
	bytes = save(rec, out, NULL);
	printf("sections: %zu legal decisions, one section each (a flush after every decision), %zu bytes\n", n, bytes);
	rpl_recorder_free(rec);
	rpl_rules_free(m.rules);
}

static void kind_signatures(const char *out)
{
	struct match m;
	rpl_recorder *rec = NULL;
	rpl_seckey *key = NULL;
	size_t n, bytes;

	match_init(&m, 2, "pile_rule", "free");
	check(rpl_seckey_generate(&key), "key", NULL);
	check(rpl_recorder_open_memory(&rec, &m.info, RPL_RECORD_UNCHECKED, key), "open", rec);
	n = take_discard(rec, &m.layout, (size_t)-1, 1);
	bytes = save(rec, out, NULL);
	printf("signatures: %zu legal decisions, each flush signed (%zu signatures), %zu bytes\n", n, n + 1, bytes);
	rpl_recorder_free(rec);
	rpl_seckey_free(key);
	rpl_rules_free(m.rules);
}

static void kind_empty_sections(const char *out)
{
	/* count 0: no decision, an empty stream (format version 5's A holds no deal number, 19.4) */
	static const uint8_t empty[1] = { 0x00 };
	struct match m;
	rpl_recorder *rec = NULL;
	struct bytes b = { 0 };
	size_t k = 0;

	match_init(&m, 2, "pile_rule", "free");
	check(rpl_recorder_open_memory(&rec, &m.info, RPL_RECORD_UNCHECKED, NULL), "open", rec);
	take_discard(rec, &m.layout, 20, 0);
	save(rec, out, &b);
	while (b.n + 8 <= FILE_LIMIT) {
		put_section(&b, 'A', empty, sizeof(empty));
		k++;
	}
	write_out(out, b.p, b.n);
	printf("empty-sections: 20 decisions, then %zu empty continuation sections, %zu bytes\n", k, b.n);
	free(b.p);
	rpl_recorder_free(rec);
	rpl_rules_free(m.rules);
}

static const char *const kinds[] = { "claims", "decisions", "decisions-past", "header",
	                                 "deals",  "sections",  "signatures",     "empty-sections" };

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "list") == 0) {
		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			puts(kinds[i]);
		return 0;
	}
	if (argc != 3 && !(argc == 4 && (strcmp(argv[1], "claims") == 0 || strcmp(argv[1], "decisions") == 0)))
		die("usage: brp-hostile KIND OUT [PAST] | brp-hostile list");
	if (strcmp(argv[1], "claims") == 0)
		kind_claims(argv[2], argc == 4 ? argv[3] : NULL);
	else if (strcmp(argv[1], "decisions") == 0)
		kind_decisions(argv[2], argc == 4 ? argv[3] : NULL, 0);
	else if (strcmp(argv[1], "decisions-past") == 0)
		kind_decisions(argv[2], NULL, 1);
	else if (strcmp(argv[1], "header") == 0)
		kind_header(argv[2]);
	else if (strcmp(argv[1], "deals") == 0)
		kind_deals(argv[2]);
	else if (strcmp(argv[1], "sections") == 0)
		kind_sections(argv[2]);
	else if (strcmp(argv[1], "signatures") == 0)
		kind_signatures(argv[2]);
	else if (strcmp(argv[1], "empty-sections") == 0)
		kind_empty_sections(argv[2]);
	else
		die("unknown kind '%s' (brp-hostile list)", argv[1]);
	return 0;
}
