/*
 * The match log (log.h): the recorder and the reader, through the public API.
 *
 *   round trip     a match played by bots, recorded with its names, metadata,
 *                  rules and claims, reads back event by event: each layout,
 *                  each decision with its seat and turn, each claim, the end
 *   growing form   after every flush, before close, the file reads back with
 *                  everything recorded so far and no end; freeing the recorder
 *                  unclosed leaves it so; closing rewrites it compact
 *   recording      the checked recorder refuses an illegal decision and keeps
 *                  nothing of it; the unchecked one keeps it but refuses a card
 *                  not held
 *   refusals       crafted bytes (sections framed by hand, with zlib's crc32):
 *                  bad magic, no header, a newer version, an unknown required
 *                  section (RPL_EUNSUPPORTED) and an unknown optional one
 *                  (skipped), a second header, a gap in deal numbers, bytes after
 *                  the end, absurd and malformed section lengths, a checksum
 *                  mismatch: each refused with the byte offset of the section
 *   verdicts       ok, illegal (rule, deal, turn, seat, decision), mismatch
 *                  (deal, side, claimed, computed, breakdown), incomplete,
 *                  malformed, and a file that cannot be read
 *   limits         decisions and claims of a match: the recorder takes
 *                  RPL_MAX_DECISIONS and RPL_MAX_CLAIMS, the reader reads
 *                  a log at them and refuses the section that passes them
 */
#include "testlib.h"
#include "log/recorder_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

/* ---- files ------------------------------------------------------------ */

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

static void write_all(const char *path, const unsigned char *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	if (n)
		assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* ---- bytes: sections framed by hand -------------------------------------- */

struct bytes {
	unsigned char *p;
	size_t n;
};

static void put(struct bytes *b, const void *p, size_t n)
{
	b->p = realloc(b->p, b->n + n + 1);
	assert_non_null(b->p);
	if (n)
		memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void put_byte(struct bytes *b, unsigned v)
{
	unsigned char c = (unsigned char)v;
	put(b, &c, 1);
}

static void put_varint(struct bytes *b, uint64_t v)
{
	while (v >= 0x80) {
		put_byte(b, (unsigned)(v & 0x7F) | 0x80);
		v >>= 7;
	}
	put_byte(b, (unsigned)v);
}

/* A section as docs/format.md frames it: type, length varint, payload, CRC-32 (LE) of all three. */
static void put_section(struct bytes *b, char type, const void *payload, size_t len)
{
	struct bytes head = { NULL, 0 };
	uLong crc;
	unsigned char le[4];

	put_byte(&head, (unsigned char)type);
	put_varint(&head, len);
	crc = crc32(0L, Z_NULL, 0);
	crc = crc32(crc, head.p, (uInt)head.n);
	if (len)
		crc = crc32(crc, payload, (uInt)len);
	for (int i = 0; i < 4; i++)
		le[i] = (unsigned char)(crc >> (8 * i));
	put(b, head.p, head.n);
	put(b, payload, len);
	put(b, le, 4);
	free(head.p);
}

/* Where the sections of a log are. */
struct sec {
	char type;
	size_t off;     /* the type byte */
	size_t payload; /* the payload */
	size_t len;     /* of the payload */
	size_t end;     /* just past the checksum */
};

static size_t sections(const unsigned char *d, size_t n, struct sec *s, size_t cap)
{
	size_t p = 8, k = 0;
	int sealed_past = 0;

	assert_memory_equal(d,
	                    "\x89"
	                    "BRP\r\n\x1a\n",
	                    8);
	while (p < n) {
		uint64_t len = 0;
		int shift = 0;
		assert_true(k < cap);
		s[k].type = (char)d[p];
		s[k].off = p++;
		for (;;) {
			assert_true(p < n);
			len |= (uint64_t)(d[p] & 0x7F) << shift;
			shift += 7;
			if (!(d[p++] & 0x80))
				break;
		}
		s[k].payload = p;
		s[k].len = (size_t)len;
		/* a sealed log (its header Z, format.md 19.5): no checksum but the one after E */
		p += (size_t)len + (d[8] != 'Z' || s[k].type == 'E' || sealed_past ? 4 : 0);
		if (s[k].type == 'E')
			sealed_past = 1;
		s[k].end = p;
		assert_true(p <= n);
		k++;
	}
	return k;
}

/* The bytes [from, to) of d appended to b. */
static void put_range(struct bytes *b, const unsigned char *d, size_t from, size_t to)
{
	put(b, d + from, to - from);
}

/* The magic and the header h of d, framed as H with its CRC (a sealed log's Z unsealed). */
static void put_head(struct bytes *b, const unsigned char *d, const struct sec *h)
{
	put(b, d, 8);
	put_section(b, 'H', d + h->payload, h->len);
}

/* ---- recording matches --------------------------------------------------- */

#define MAX_EVENTS 4096

/* What a test recorded, to compare with what the reader gives back. */
struct expect {
	rpl_event ev[MAX_EVENTS];
	size_t n;
};

static void expect_push(struct expect *x, const rpl_event *ev)
{
	assert_true(x->n < MAX_EVENTS);
	x->ev[x->n++] = *ev;
}

static const char *act_str(const rpl_action *a)
{
	static char buf[4][160];
	static int k;
	char *p = buf[k++ % 4];

	rpl_action_format(a, p, 160);
	return p;
}

static void same_action_at(const rpl_action *want, const rpl_action *got, const char *file, int line)
{
	int same = want->kind == got->kind && want->ncards == got->ncards &&
	           memcmp(want->cards, got->cards, want->ncards) == 0 && strcmp(act_str(want), act_str(got)) == 0;
	if (same && want->kind == RPL_ACT_ADD)
		same = want->side == got->side && want->meld == got->meld;
	if (same && want->kind == RPL_ACT_MORTO)
		same = want->morto == got->morto;
	if (!same)
		tl_fail_at(file, line, "decision read back as '%s', recorded as '%s'", act_str(got), act_str(want));
}

static int by_card(const void *a, const void *b)
{
	return (int)*(const rpl_card *)a - (int)*(const rpl_card *)b;
}

/* The same cards, in any order. */
static int same_set(const rpl_card *a, const rpl_card *b, int n)
{
	rpl_card x[RPL_DECK_SIZE], y[RPL_DECK_SIZE];
	memcpy(x, a, (size_t)n);
	memcpy(y, b, (size_t)n);
	qsort(x, (size_t)n, sizeof(rpl_card), by_card);
	qsort(y, (size_t)n, sizeof(rpl_card), by_card);
	return memcmp(x, y, (size_t)n) == 0;
}

/*
 * Layouts are the same: each hand as a set (a hand is dealt in no order),
 * mortos and stock in order; in version 7, which keeps of a pile only the
 * order play revealed (test_v7.c checks that order), each pile as a set.
 */
static void same_layout_at(const rpl_layout *want, const rpl_layout *got, int nplayers, int version, const char *file,
                           int line)
{
	if (version == 7) {
		for (int m = 0; m < 2; m++)
			if (!same_set(want->morto[m], got->morto[m], RPL_MORTO_SIZE))
				tl_fail_at(file, line, "morto %d holds other cards", m);
		if (!same_set(want->stock, got->stock, RPL_STOCK_SIZE(nplayers)))
			tl_fail_at(file, line, "the stock holds other cards");
	}
	for (int s = 0; s < nplayers; s++) {
		rpl_card a[RPL_HAND_SIZE], b[RPL_HAND_SIZE];
		memcpy(a, want->hand[s], sizeof(a));
		memcpy(b, got->hand[s], sizeof(b));
		qsort(a, RPL_HAND_SIZE, sizeof(rpl_card), by_card);
		qsort(b, RPL_HAND_SIZE, sizeof(rpl_card), by_card);
		if (memcmp(a, b, sizeof(a)) != 0)
			tl_fail_at(file, line, "hand %d read back as %s, dealt %s", s, tl_cards_str(b, RPL_HAND_SIZE),
			           tl_cards_str(a, RPL_HAND_SIZE));
	}
	if (version != 7 && memcmp(want->morto, got->morto, sizeof(want->morto)) != 0)
		tl_fail_at(file, line, "the mortos differ");
	if (version != 7 && memcmp(want->stock, got->stock, (size_t)RPL_STOCK_SIZE(nplayers) * sizeof(rpl_card)) != 0)
		tl_fail_at(file, line, "the stock differs");
}

/* Compare what rd gives with x, event by event; with_end: an END event last. */
static void read_back_at(rpl_reader *rd, const struct expect *x, int with_end, const char *file, int line)
{
	rpl_event ev;
	uint64_t last_offset = 0;
	size_t i = 0;
	int got;

	while ((got = rpl_reader_next(rd, &ev)) == 1) {
		if (ev.kind == RPL_EV_END) {
			if (!with_end)
				tl_fail_at(file, line, "an end event in a log never closed");
			if (i != x->n)
				tl_fail_at(file, line, "the end after %zu events of %zu", i, x->n);
			if (ev.recovered != 0)
				tl_fail_at(file, line, "the end says recovered");
			with_end = 2;
			continue;
		}
		if (i >= x->n)
			tl_fail_at(file, line, "event %zu (kind %d) beyond the %zu recorded", i, ev.kind, x->n);
		if (ev.offset < last_offset || ev.offset < 8)
			tl_fail_at(file, line, "event %zu at byte %llu, after one at %llu", i, (unsigned long long)ev.offset,
			           (unsigned long long)last_offset);
		last_offset = ev.offset;
		const rpl_event *w = &x->ev[i];
		if (ev.kind != w->kind)
			tl_fail_at(file, line, "event %zu is of kind %d, recorded %d", i, ev.kind, w->kind);
		switch (ev.kind) {
		case RPL_EV_DEAL:
			if (ev.deal != w->deal)
				tl_fail_at(file, line, "event %zu: deal %d, recorded %d", i, ev.deal, w->deal);
			same_layout_at(&w->layout, &ev.layout, rpl_reader_info(rd)->nplayers, rpl_reader_format_version(rd), file,
			               line);
			break;
		case RPL_EV_ACTION:
			if (ev.deal != w->deal || ev.turn != w->turn || ev.seat != w->seat)
				tl_fail_at(file, line, "event %zu: deal %d turn %d seat %d, recorded deal %d turn %d seat %d", i,
				           ev.deal, ev.turn, ev.seat, w->deal, w->turn, w->seat);
			same_action_at(&w->action, &ev.action, file, line);
			break;
		case RPL_EV_CLAIM:
			if (ev.deal != w->deal || ev.score[0] != w->score[0] || ev.score[1] != w->score[1])
				tl_fail_at(file, line, "event %zu: claim %d: %d %d, recorded %d: %d %d", i, ev.deal, (int)ev.score[0],
				           (int)ev.score[1], w->deal, (int)w->score[0], (int)w->score[1]);
			break;
		default: tl_fail_at(file, line, "event %zu of unknown kind %d", i, ev.kind);
		}
		i++;
	}
	if (got != 0)
		tl_fail_at(file, line, "rpl_reader_next = %d: %s", got, rpl_reader_errmsg(rd));
	if (i != x->n)
		tl_fail_at(file, line, "%zu events read, %zu recorded", i, x->n);
	if (with_end == 1)
		tl_fail_at(file, line, "no end event");
	/* the end stays the end */
	if (rpl_reader_next(rd, &ev) != 0)
		tl_fail_at(file, line, "a second read past the end gives more");
}
#define read_back(rd, x, with_end) read_back_at((rd), (x), (with_end), __FILE__, __LINE__)

/* The match header the tests record. */
static const char *const meta_keys[] = { "platform", "table", "empty" };
static const char *const meta_values[] = { "example", "mesa 7 \"a\" \\ ok", "" };
static const char *const seat_names[] = { "Ana", "", "Jos\xc3\xa9", "Dora" };

static void fill_info(rpl_match_info *info, const rpl_rules *rules, int nplayers)
{
	memset(info, 0, sizeof(*info));
	info->rules = rules;
	info->nplayers = nplayers;
	for (int s = 0; s < nplayers; s++)
		info->players[s] = seat_names[s];
	info->first_dealer = nplayers == 4 ? 2 : 1;
	info->start_time = 1767225600;
	info->nmeta = 3;
	info->meta_keys = meta_keys;
	info->meta_values = meta_values;
}

/*
 * Bots play (checked mode) until the match is over or max decisions were
 * made, noting every event in x; flush_each: flush after each decision, and
 * check after each flush that the file reads back whole (the growing form).
 */
static void play(rpl_recorder *rec, const char *path, struct expect *x, uint64_t seed, int max, int flush_each)
{
	const rpl_game *g = rpl_recorder_game(rec);
	int n = rpl_game_players(g), made = 0;
	rpl_bot *bot = NULL;
	rpl_rng rng;

	rpl_rng_seed(&rng, seed);
	assert_int_equal(rpl_bot_new(&bot, RPL_BOT_GREEDY, seed), 0);
	while (rpl_game_phase(g) != RPL_PHASE_MATCH_OVER && made < max) {
		rpl_event ev;
		rpl_score sc[2];
		memset(&ev, 0, sizeof(ev));
		ev.kind = RPL_EV_DEAL;
		rpl_layout_shuffle(&ev.layout, n, &rng);
		assert_int_equal(rpl_recorder_deal(rec, &ev.layout), 0);
		ev.deal = rpl_game_deal_number(g);
		expect_push(x, &ev);
		while (rpl_game_phase(g) < RPL_PHASE_DEAL_OVER && made < max) {
			memset(&ev, 0, sizeof(ev));
			ev.kind = RPL_EV_ACTION;
			ev.deal = rpl_game_deal_number(g);
			ev.seat = rpl_game_seat(g);
			assert_int_equal(rpl_bot_choose(bot, g, &ev.action), 0);
			ev.turn = rpl_recorder_turn(rec, ev.action.kind);
			assert_int_equal(rpl_recorder_action(rec, &ev.action), 0);
			expect_push(x, &ev);
			made++;
			if (flush_each) {
				rpl_reader *rd = NULL;
				assert_int_equal(rpl_recorder_flush(rec), 0);
				assert_int_equal(rpl_reader_open(&rd, path), 0);
				read_back(rd, x, 0);
				rpl_reader_free(rd);
			}
		}
		if (rpl_game_phase(g) < RPL_PHASE_DEAL_OVER)
			break;
		memset(&ev, 0, sizeof(ev));
		ev.kind = RPL_EV_CLAIM;
		ev.deal = rpl_game_deal_number(g);
		rpl_game_deal_score(g, 0, &sc[0]);
		rpl_game_deal_score(g, 1, &sc[1]);
		ev.score[0] = sc[0].total;
		ev.score[1] = sc[1].total;
		assert_int_equal(rpl_recorder_claim(rec, ev.deal, ev.score), 0);
		expect_push(x, &ev);
	}
	rpl_bot_free(bot);
}

/*
 * The format version record_match and open_rec write: 0 for the newest (6),
 * or 2 or 5, as a text with [FormatVersion "2"] or "5" is imported
 * (rpl__recorder_open_fd): for the tests whose crafted bytes are a version-2
 * log's, and to round-trip version 5's model of the decisions.
 */
static int log_version;
static int lent_fd = -1;

static int open_rec_flags(rpl_recorder **rec, const char *path, const rpl_match_info *info, unsigned flags)
{
	if (!log_version)
		return rpl_recorder_open(rec, path, info, flags);
	lent_fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(lent_fd >= 0);
	return rpl__recorder_open_fd(rec, lent_fd, info, flags, NULL, log_version);
}

static int open_rec(rpl_recorder **rec, const char *path, const rpl_match_info *info)
{
	return open_rec_flags(rec, path, info, 0);
}

static void free_rec(rpl_recorder *rec)
{
	rpl_recorder_free(rec);
	if (lent_fd >= 0)
		close(lent_fd);
	lent_fd = -1;
}

/* Record a match of bots into path, with the match claim when it is over, and close it; x gets its events. */
static void record_match(const char *path, const char *profile, const char *overrides, int nplayers, uint64_t seed,
                         int max, struct expect *x)
{
	rpl_rules *rules = tl_rules(profile, overrides);
	rpl_match_info info;
	rpl_recorder *rec = NULL;

	x->n = 0;
	fill_info(&info, rules, nplayers);
	assert_int_equal(open_rec(&rec, path, &info), 0);
	play(rec, path, x, seed, max, 0);
	if (rpl_game_phase(rpl_recorder_game(rec)) == RPL_PHASE_MATCH_OVER) {
		rpl_event ev;
		memset(&ev, 0, sizeof(ev));
		ev.kind = RPL_EV_CLAIM;
		ev.score[0] = rpl_game_total(rpl_recorder_game(rec), 0);
		ev.score[1] = rpl_game_total(rpl_recorder_game(rec), 1);
		assert_int_equal(rpl_recorder_claim(rec, 0, ev.score), 0);
		expect_push(x, &ev);
	}
	assert_int_equal(rpl_recorder_close(rec), 0);
	free_rec(rec);
	rpl_rules_free(rules);
}

static void check_info(const rpl_reader *rd, const char *profile, int nplayers)
{
	const rpl_match_info *in = rpl_reader_info(rd);

	assert_non_null(in);
	assert_int_equal(rpl_reader_format_version(rd), log_version ? log_version : 7);
	assert_string_equal(rpl_rules_profile(in->rules), profile);
	assert_int_equal(in->nplayers, nplayers);
	for (int s = 0; s < nplayers; s++) {
		const char *name = in->players[s] ? in->players[s] : "";
		assert_string_equal(name, seat_names[s]);
	}
	assert_int_equal(in->first_dealer, nplayers == 4 ? 2 : 1);
	assert_int_equal(in->start_time, 1767225600);
	assert_int_equal(in->nmeta, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_string_equal(in->meta_keys[i], meta_keys[i]);
		assert_string_equal(in->meta_values[i], meta_values[i]);
	}
}

/* ---- round trip ---------------------------------------------------------- */

static void test_round_trip(void **state)
{
	static struct expect x;
	const char *path = tl_tmp_path("round.brp");
	static const struct {
		const char *profile, *overrides;
		int nplayers;
	} cases[] = {
		{ "kzv", "target=1000 value_joker=30", 4 },
		{ "stbl", "target=0", 2 },
		{ "aberto", "target=0", 4 },
	};

	(void)state;
	/* the newest version (7: dealt freely), then versions 2, 5 and 6 written again (a text's
	   [FormatVersion "2"], "5", "6"): versions 6 and 7 code the decisions with their model, 2 to 5 with
	   theirs (docs/format.md 20) */
	for (size_t k = 0; k < 4 * sizeof(cases) / sizeof(cases[0]); k++) {
		size_t c = k % (sizeof(cases) / sizeof(cases[0]));
		rpl_reader *rd = NULL;
		const rpl_match_info *in;
		unsigned char *data;
		size_t len;
		int v = 0;

		log_version = (int[]){ 0, 2, 5, 6 }[k / (sizeof(cases) / sizeof(cases[0]))];

		record_match(path, cases[c].profile, cases[c].overrides, cases[c].nplayers, 100 + c, 1 << 30, &x);
		assert_int_equal(rpl_reader_open(&rd, path), 0);
		check_info(rd, cases[c].profile, cases[c].nplayers);
		in = rpl_reader_info(rd);
		/* every parameter as recorded, overrides included */
		{
			rpl_rules *want = tl_rules(cases[c].profile, cases[c].overrides);
			for (size_t i = 0; i < rpl_rules_param_count(); i++) {
				int id = rpl_rules_param_info(i)->id, a = 0, b = 0;
				assert_int_equal(rpl_rules_get_id(in->rules, id, &a), 0);
				assert_int_equal(rpl_rules_get_id(want, id, &b), 0);
				assert_int_equal(a, b);
			}
			rpl_rules_free(want);
		}
		if (c == 0) {
			assert_int_equal(rpl_rules_get_id(in->rules, rpl_rules_param_by_name("value_joker")->id, &v), 0);
			assert_int_equal(v, 30);
		}
		read_back(rd, &x, 1);
		data = read_all(path, &len);
		assert_int_equal(rpl_reader_bytes(rd), len);
		rpl_reader_free(rd);

		/* the same bytes from memory */
		assert_int_equal(rpl_reader_open_memory(&rd, data, len), 0);
		check_info(rd, cases[c].profile, cases[c].nplayers);
		read_back(rd, &x, 1);
		rpl_reader_free(rd);
		free(data);
	}
	log_version = 0;
	unlink(path);
}

/* Claims of any value, a match claim (deal 0), and a claim before any deal. */
static void test_claims(void **state)
{
	static struct expect x;
	const char *path = tl_tmp_path("claims.brp");
	rpl_rules *rules = tl_rules("stbl", NULL);
	rpl_match_info info;
	rpl_recorder *rec = NULL;
	rpl_reader *rd = NULL;
	static const int32_t scores[][2] = { { 0, 0 }, { -35, 1234 }, { INT32_MIN, INT32_MAX }, { 63, -64 } };

	(void)state;
	x.n = 0;
	fill_info(&info, rules, 2);
	assert_int_equal(rpl_recorder_open(&rec, path, &info, RPL_RECORD_UNCHECKED), 0);
	for (size_t i = 0; i < sizeof(scores) / sizeof(scores[0]); i++) {
		rpl_event ev;
		memset(&ev, 0, sizeof(ev));
		ev.kind = RPL_EV_CLAIM;
		ev.deal = (int)i * 3; /* 0: the match */
		ev.score[0] = scores[i][0];
		ev.score[1] = scores[i][1];
		assert_int_equal(rpl_recorder_claim(rec, ev.deal, ev.score), 0);
		expect_push(&x, &ev);
	}
	assert_int_equal(rpl_recorder_claim(rec, -1, scores[0]), RPL_EINVAL);
	assert_int_equal(rpl_recorder_claim(rec, RPL_MAX_DEALS + 1, scores[0]), RPL_EINVAL);
	assert_int_equal(rpl_recorder_close(rec), 0);
	/* closed: nothing more */
	assert_int_equal(rpl_recorder_claim(rec, 1, scores[0]), RPL_ESTATE);
	assert_int_equal(rpl_recorder_close(rec), RPL_ESTATE);
	rpl_recorder_free(rec);
	assert_int_equal(rpl_reader_open(&rd, path), 0);
	read_back(rd, &x, 1);
	rpl_reader_free(rd);
	rpl_rules_free(rules);
	unlink(path);
}

/* ---- the growing form ----------------------------------------------------- */

static void test_growing_form(void **state)
{
	static struct expect x;
	const char *path = tl_tmp_path("growing.brp");
	rpl_rules *rules = tl_rules("stbl", "target=0");
	rpl_match_info info;
	rpl_recorder *rec = NULL;
	rpl_reader *rd = NULL;
	unsigned char *growing, *compact;
	size_t glen, clen;

	(void)state;
	x.n = 0;
	fill_info(&info, rules, 4);
	assert_int_equal(rpl_recorder_open(&rec, path, &info, 0), 0);
	/* the header alone is readable at once */
	assert_int_equal(rpl_reader_open(&rd, path), 0);
	check_info(rd, "stbl", 4);
	read_back(rd, &x, 0);
	rpl_reader_free(rd);
	/* 60 decisions, each flushed and read back (in play) */
	play(rec, path, &x, 7, 60, 1);
	/* what is not flushed is not in the file */
	{
		rpl_action a;
		rpl_event ev;
		rpl_bot *bot = NULL;
		const rpl_game *g = rpl_recorder_game(rec);
		assert_int_equal(rpl_bot_new(&bot, RPL_BOT_GREEDY, 1), 0);
		memset(&ev, 0, sizeof(ev));
		ev.kind = RPL_EV_ACTION;
		ev.deal = 1;
		ev.seat = rpl_game_seat(g);
		assert_int_equal(rpl_bot_choose(bot, g, &a), 0);
		ev.turn = rpl_recorder_turn(rec, a.kind);
		ev.action = a;
		assert_int_equal(rpl_recorder_action(rec, &a), 0);
		assert_int_equal(rpl_reader_open(&rd, path), 0);
		read_back(rd, &x, 0);
		rpl_reader_free(rd);
		expect_push(&x, &ev);
		assert_int_equal(rpl_recorder_flush(rec), 0);
		rpl_bot_free(bot);
	}
	/* freed without close, as after a crash: the file keeps what was flushed */
	rpl_recorder_free(rec);
	growing = read_all(path, &glen);
	assert_int_equal(rpl_reader_open(&rd, path), 0);
	read_back(rd, &x, 0);
	rpl_reader_free(rd);
	{
		rpl_verdict v;
		assert_int_equal(rpl_verify_file(path, NULL, &v), 0);
		assert_int_equal(v.kind, RPL_VERDICT_INCOMPLETE);
		assert_int_equal(v.actions, 61);
	}

	/* the same match closed: the same events, an end, the compact form */
	rec = NULL;
	x.n = 0;
	assert_int_equal(rpl_recorder_open(&rec, path, &info, 0), 0);
	play(rec, path, &x, 7, 61, 0);
	assert_int_equal(rpl_recorder_close(rec), 0);
	rpl_recorder_free(rec);
	compact = read_all(path, &clen);
	assert_true(clen < glen);
	assert_int_equal(rpl_reader_open(&rd, path), 0);
	read_back(rd, &x, 1);
	rpl_reader_free(rd);
	free(growing);
	free(compact);
	rpl_rules_free(rules);
	unlink(path);
}

/* ---- what the recorder takes --------------------------------------------- */

static void test_checked_and_unchecked(void **state)
{
	const char *path = tl_tmp_path("modes.brp");
	rpl_rules *rules = tl_rules("stbl", NULL);
	rpl_match_info info;
	rpl_layout lay;
	rpl_verdict v;

	(void)state;
	fill_info(&info, rules, 2);
	/* seat 1 deals the first deal, so seat 0 moves first */
	tl_layout(&lay, 2, .hand = { "8c 8d 8h 3s 4s 5s 9c 10c Jc Qh Kh", NULL }, .stock = "6s");
	for (int mode = 0; mode < 2; mode++) {
		rpl_recorder *rec = NULL;
		rpl_action set = A_MELD("8c 8d 8h"), run = A_MELD("3s 4s 5s 6s"), ghost = A_MELD("Ac 2c 3c"), draw = A_DRAW;
		int err;

		assert_int_equal(rpl_recorder_open(&rec, path, &info, mode ? RPL_RECORD_UNCHECKED : 0), 0);
		assert_int_equal(rpl_recorder_action(rec, &run), RPL_ESTATE); /* no deal yet */
		assert_int_equal(rpl_recorder_seat(rec), -1);
		assert_int_equal(rpl_recorder_deal(rec, &lay), 0);
		assert_int_equal(rpl_recorder_seat(rec), 0);
		assert_int_equal(rpl_recorder_turn(rec, RPL_ACT_DRAW), 1);
		assert_int_equal(rpl_recorder_action(rec, &draw), 0);
		if (mode == 0) {
			/* a card not held, before any other refusal: the message is not empty */
			assert_int_equal(rpl_recorder_action(rec, &ghost), RPL_EILLEGAL);
			assert_int_equal(rpl_recorder_rule(rec), RPL_RULE_NOT_IN_HAND);
			assert_string_equal(rpl_recorder_errmsg(rec), "STBL: Ac is not in seat 0's hand");
		}
		err = rpl_recorder_action(rec, &set);
		if (mode == 0) {
			/* checked: refused with the rule, nothing recorded */
			assert_int_equal(err, RPL_EILLEGAL);
			assert_int_equal(rpl_recorder_rule(rec), RPL_RULE_MELD_SUIT);
			assert_true(rpl_recorder_errmsg(rec)[0] != '\0');
			/*
			 * A card not held is an illegal decision too, with its own message
			 * (issue 13, item 8: the message was the older refusal's, or empty
			 * in a fresh game).
			 */
			assert_int_equal(rpl_recorder_action(rec, &ghost), RPL_EILLEGAL);
			assert_int_equal(rpl_recorder_rule(rec), RPL_RULE_NOT_IN_HAND);
			assert_string_equal(rpl_recorder_errmsg(rec), "STBL: Ac is not in seat 0's hand");
			assert_int_equal(rpl_recorder_action(rec, &run), 0);
		} else {
			/* unchecked: recorded as played; a card not held cannot be expressed */
			assert_int_equal(err, 0);
			assert_null(rpl_recorder_game(rec));
			assert_int_equal(rpl_recorder_action(rec, &ghost), RPL_EINVAL);
			assert_true(rpl_recorder_errmsg(rec)[0] != '\0');
		}
		assert_int_equal(rpl_recorder_close(rec), 0);
		rpl_recorder_free(rec);
		assert_int_equal(rpl_verify_file(path, NULL, &v), 0);
		if (mode == 0) {
			assert_int_equal(v.kind, RPL_VERDICT_INCOMPLETE);
			assert_int_equal(v.actions, 2);
		} else {
			/* the verdict names the decision, its rule, where it was */
			assert_int_equal(v.kind, RPL_VERDICT_ILLEGAL);
			assert_int_equal(v.rule, RPL_RULE_MELD_SUIT);
			assert_int_equal(v.deal, 1);
			assert_int_equal(v.turn, 1);
			assert_int_equal(v.seat, 0);
			assert_string_equal(act_str(&v.action), "meld 8c 8d 8h");
			assert_int_equal(v.actions, 1);
			assert_true(v.message[0] != '\0');
		}
	}
	/* a layout that is not the deck */
	{
		rpl_recorder *rec = NULL;
		rpl_layout bad = lay;
		bad.stock[0] = bad.stock[1];
		assert_int_equal(rpl_recorder_open(&rec, path, &info, RPL_RECORD_UNCHECKED), 0);
		assert_int_equal(rpl_recorder_deal(rec, &bad), RPL_EINVAL);
		assert_int_equal(rpl_recorder_rule(rec), RPL_RULE_LAYOUT);
		rpl_recorder_free(rec);
		assert_int_equal(rpl_recorder_open(&rec, path, &info, 0), 0);
		assert_int_equal(rpl_recorder_deal(rec, &bad), RPL_EILLEGAL);
		assert_int_equal(rpl_recorder_rule(rec), RPL_RULE_LAYOUT);
		rpl_recorder_free(rec);
	}
	/* a header out of range */
	{
		rpl_recorder *rec = NULL;
		rpl_match_info bad = info;
		bad.nplayers = 3;
		assert_int_equal(rpl_recorder_open(&rec, path, &bad, 0), RPL_EINVAL);
		rpl_recorder_free(rec);
		bad = info;
		bad.first_dealer = 2;
		rec = NULL;
		assert_int_equal(rpl_recorder_open(&rec, path, &bad, 0), RPL_EINVAL);
		rpl_recorder_free(rec);
	}
	rpl_rules_free(rules);
	unlink(path);
}

/* ---- refusals of crafted bytes -------------------------------------------- */

/* A closed 2-player STBL log of one deal and its sections: H, D, C, C, E. */
static unsigned char *base_log(size_t *len, struct sec *s, size_t *ns)
{
	static struct expect x;
	const char *path = tl_tmp_path("base.brp");
	unsigned char *d;

	log_version = 2; /* the crafted bytes below are a version-2 log's */
	record_match(path, "stbl", "target=0", 2, 5, 1 << 30, &x);
	log_version = 0;
	d = read_all(path, len);
	unlink(path);
	*ns = sections(d, *len, s, 16);
	assert_int_equal(*ns, 5);
	assert_int_equal(s[0].type, 'H');
	assert_int_equal(s[1].type, 'D');
	assert_int_equal(s[2].type, 'C');
	assert_int_equal(s[3].type, 'C');
	assert_int_equal(s[4].type, 'E');
	assert_int_equal(s[4].end, *len);
	return d;
}

/*
 * Read the n bytes through: the open result, then events until the end or an
 * error; returns the first error (0 when none) with its offset and detail,
 * and the number of events read.
 */
static int read_bytes(const unsigned char *d, size_t n, uint64_t *offset, char *msg, size_t msglen, int *events)
{
	rpl_reader *rd = NULL;
	rpl_event ev;
	int err, got = 0;

	*events = 0;
	err = rpl_reader_open_memory(&rd, d, n);
	if (err == 0) {
		while ((got = rpl_reader_next(rd, &ev)) == 1)
			(*events)++;
		err = got;
		if (err) /* the error repeats */
			assert_int_equal(rpl_reader_next(rd, &ev), err);
	}
	assert_non_null(rd);
	*offset = rpl_reader_offset(rd);
	snprintf(msg, msglen, "%s", rpl_reader_errmsg(rd));
	rpl_reader_free(rd);
	return err;
}

/* The bytes are refused with err at offset, the detail holding word (and the offset). */
static void refused_at(const struct bytes *b, int err, uint64_t offset, const char *word, const char *file, int line)
{
	char msg[256], at[32];
	uint64_t off;
	int events, got = read_bytes(b->p, b->n, &off, msg, sizeof(msg), &events);
	rpl_verdict v;
	rpl_reader *rd = NULL;

	if (got != err || off != offset || !strstr(msg, word))
		tl_fail_at(file, line, "read: %d at byte %llu (%s); expected %d at byte %llu with '%s'", got,
		           (unsigned long long)off, msg, err, (unsigned long long)offset, word);
	snprintf(at, sizeof(at), "byte %llu", (unsigned long long)offset);
	if (!strstr(msg, at))
		tl_fail_at(file, line, "the detail '%s' does not say '%s'", msg, at);
	/* and the verdict is malformed, at the same offset */
	if (rpl_reader_open_memory(&rd, b->p, b->n) == 0) {
		assert_int_equal(rpl_verify_reader(rd, NULL, &v), 0);
		if (v.kind != RPL_VERDICT_MALFORMED || v.offset != offset)
			tl_fail_at(file, line, "verdict %s at byte %llu", rpl_verdict_name(v.kind), (unsigned long long)v.offset);
	}
	rpl_reader_free(rd);
}
#define assert_refused_bytes(b, err, offset, word) refused_at((b), (err), (offset), (word), __FILE__, __LINE__)

/* ---- version 5: the profile's code, and claims coded against the deals' ---- */

static void put_zigzag(struct bytes *b, int64_t v)
{
	put_varint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

/*
 * A match claim equal to the deal claims before it added up is the byte 01
 * (docs/format.md 19.3); any other claim is stored whole, tagged deal << 1;
 * the claims after the last decision go into E, after its flags (19.4).
 * What each claim reads back as, and the three
 * codings a reader refuses: a deal claim tagged as added up, a match total
 * stored whole that the one byte would say, the one byte where the sum is no
 * claim's (past the 32-bit range). And the header: the profile as a byte.
 */
static void test_claims_v5(void **state)
{
	static struct expect x;
	const char *path = tl_tmp_path("claims5.brp");
	rpl_rules *rules = tl_rules("aberto", "target=0");
	rpl_match_info info;
	rpl_recorder *rec = NULL;
	rpl_reader *rd = NULL;
	static const struct {
		int deal;
		int32_t score[2];
	} claims[] = {
		{ 1, { 100, 50 } },      { 2, { 30, 70 } }, { 0, { 130, 120 } }, /* the sum: one byte */
		{ 0, { 131, 120 } },                                             /* not the sum: whole */
		{ 1, { INT32_MAX, 0 } }, { 0, { 0, 0 } },                        /* the sum is past 32 bits */
	};
	struct bytes want = { NULL, 0 }, b = { NULL, 0 };
	struct sec s[16];
	size_t len, ns;
	unsigned char *d;

	(void)state;
	x.n = 0;
	fill_info(&info, rules, 2);
	log_version = 6; /* version 5's claims (version 7 codes them in its stream, test_v7.c) */
	assert_int_equal(open_rec_flags(&rec, path, &info, RPL_RECORD_UNCHECKED), 0);
	for (size_t i = 0; i < sizeof(claims) / sizeof(claims[0]); i++) {
		rpl_event ev;
		memset(&ev, 0, sizeof(ev));
		ev.kind = RPL_EV_CLAIM;
		ev.deal = claims[i].deal;
		ev.score[0] = claims[i].score[0];
		ev.score[1] = claims[i].score[1];
		assert_int_equal(rpl_recorder_claim(rec, ev.deal, ev.score), 0);
		expect_push(&x, &ev);
		if (i == 2) {
			put_varint(&want, 1);
			continue;
		}
		put_varint(&want, (uint64_t)claims[i].deal << 1);
		put_zigzag(&want, claims[i].score[0]);
		put_zigzag(&want, claims[i].score[1]);
	}
	assert_int_equal(rpl_recorder_close(rec), 0);
	free_rec(rec);
	log_version = 0;
	assert_int_equal(rpl_reader_open(&rd, path), 0);
	assert_int_equal(rpl_reader_format_version(rd), 6); /* version 5's claims and header, version 6's decisions */
	read_back(rd, &x, 1);
	rpl_reader_free(rd);

	d = read_all(path, &len);
	ns = sections(d, len, s, 16);
	assert_int_equal(ns, 2); /* H (sealed: Z), and E: the claims after the last decision, all of them */
	assert_int_equal(s[0].type, 'Z');
	/* raw, version 6 (5's header), the profile aberto as its code 2, revision 1, two pairs: target 0, then id 22 */
	assert_memory_equal(d + s[0].payload, "\x00\x06\x02\x01\x02\x03\x00\x16", 8);
	assert_int_equal(s[1].type, 'E');
	assert_int_equal(s[1].len, want.n);
	assert_memory_equal(d + s[1].payload, want.p, want.n);
	assert_int_equal(s[1].end, len); /* the log's checksum, and nothing after it */

	/* refused: a C (or E) whose claims are not in their one coding, at that section */
	{
		static const unsigned char deal_added[] = { 0x03 },           /* deal 1 "added up" */
				whole_sum[] = { 0x02, 0x0a, 0x14, 0x00, 0x0a, 0x14 }, /* deal 1 (5, 10), the match (5, 10) whole */
				past[] = { 0x02, 0xfe, 0xff, 0xff, 0xff, 0x0f, 0x00, 0x04, 0x02, 0x00, 0x01 };
		const struct {
			const unsigned char *p;
			size_t n;
		} bad[] = { { deal_added, sizeof(deal_added) }, { whole_sum, sizeof(whole_sum) }, { past, sizeof(past) } };
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			/* the header unsealed (H, with its CRC: 4 bytes more), every section with its CRC */
			b.n = 0;
			put_head(&b, d, &s[0]);
			put_section(&b, 'C', bad[i].p, bad[i].n);
			put_section(&b, 'E', "", 0);
			assert_refused_bytes(&b, RPL_ECORRUPT, s[1].off + 4, "claim");
			b.n = 0;
			put_head(&b, d, &s[0]);
			put_section(&b, 'E', bad[i].p, bad[i].n);
			assert_refused_bytes(&b, RPL_ECORRUPT, s[1].off + 4, "claim");
		}
		/* and the same bytes whole are right: deal 1 (5, 10), the match (6, 10), then the end */
		{
			static const unsigned char ok[] = { 0x02, 0x0a, 0x14, 0x00, 0x0c, 0x14 };
			int events;
			uint64_t off;
			char msg[256];
			b.n = 0;
			put_head(&b, d, &s[0]);
			put_section(&b, 'C', ok, sizeof(ok));
			put_section(&b, 'E', "", 0);
			assert_int_equal(read_bytes(b.p, b.n, &off, msg, sizeof(msg), &events), 0);
			assert_int_equal(events, 3); /* two claims and the end */
		}
	}
	/* version 2 has no claim in its end section */
	{
		struct sec s2[16];
		unsigned char *d2;
		size_t len2;
		log_version = 2;
		record_match(path, "stbl", "target=0", 2, 5, 1 << 30, &x);
		log_version = 0;
		d2 = read_all(path, &len2);
		ns = sections(d2, len2, s2, 16);
		assert_int_equal(s2[ns - 1].type, 'E');
		b.n = 0;
		put_range(&b, d2, 0, s2[ns - 1].off);
		put_section(&b, 'E', "\x00\x02\x00\x00", 4);
		assert_refused_bytes(&b, RPL_ECORRUPT, s2[ns - 1].off, "end section");
		free(d2);
	}
	/* refused: a profile code this reader does not know (unsupported) */
	{
		unsigned char *h = malloc(s[0].len);
		assert_non_null(h);
		memcpy(h, d + s[0].payload, s[0].len);
		h[2] = 3;
		b.n = 0;
		put(&b, d, 8);
		put_section(&b, 'H', h, s[0].len);
		put_section(&b, 'E', d + s[1].payload, s[1].len);
		assert_refused_bytes(&b, RPL_EUNSUPPORTED, 8, "profile");
		free(h);
	}
	free(b.p);
	free(want.p);
	free(d);
	rpl_rules_free(rules);
	unlink(path);
}

/*
 * Version 5's compact form is sealed (format.md 19.5): no checksum in its
 * sections up to E, one CRC-32 of every byte before it after E. Any byte
 * changed, or the log cut anywhere, is refused at the open, at byte 8; the
 * same sections unsealed (H, a CRC each) read as the same match; a version-4
 * header cannot be sealed; no D or A holds a deal number; the recovered flag
 * is the header's.
 */
static void test_sealed(void **state)
{
	static struct expect x;
	const char *path = tl_tmp_path("sealed.brp");
	struct sec s[16];
	struct bytes b = { NULL, 0 };
	size_t len, ns;
	unsigned char *d;
	uint64_t off;
	char msg[256];
	int events, whole;

	(void)state;
	log_version = 6; /* its sections (version 7's: test_v7.c) */
	record_match(path, "stbl", "target=0", 2, 5, 1 << 30, &x);
	log_version = 0;
	d = read_all(path, &len);
	ns = sections(d, len, s, 16);
	assert_int_equal(s[0].type, 'Z');
	assert_int_equal(s[ns - 1].type, 'E');
	assert_int_equal(s[ns - 1].end, len);
	assert_int_equal(s[1].type, 'D');
	assert_int_equal(read_bytes(d, len, &off, msg, sizeof(msg), &whole), 0);
	/* the count first: a D of version 5 holds no deal number */
	{
		size_t p = s[1].payload;
		uint64_t count = 0;
		int shift = 0;
		do {
			count |= (uint64_t)(d[p] & 0x7F) << shift;
			shift += 7;
		} while (d[p++] & 0x80);
		assert_true(count > 0 && (int)count + 3 < whole); /* header, deal, the decisions, claims, end */
	}
	/* every byte after the magic flipped, one at a time: refused at the open, at byte 8 */
	for (size_t i = 8; i < len; i++) {
		rpl_reader *rd = NULL;
		d[i] ^= 0x04;
		assert_int_equal(rpl_reader_open_memory(&rd, d, len), RPL_ECORRUPT);
		assert_true(rpl_reader_offset(rd) == 8 || i < 10); /* the type and length of Z itself: byte 8 too */
		rpl_reader_free(rd);
		d[i] ^= 0x04;
	}
	/* cut anywhere: refused */
	for (size_t n = 9; n < len; n++) {
		rpl_reader *rd = NULL;
		assert_int_equal(rpl_reader_open_memory(&rd, d, n), RPL_ECORRUPT);
		rpl_reader_free(rd);
	}
	b.n = 0;
	put(&b, d, len - 1);
	assert_refused_bytes(&b, RPL_ECORRUPT, 8, "cut short");
	/* the same sections unsealed: the same events */
	b.n = 0;
	put_head(&b, d, &s[0]);
	for (size_t i = 1; i < ns; i++)
		put_section(&b, s[i].type, d + s[i].payload, s[i].len);
	assert_int_equal(read_bytes(b.p, b.n, &off, msg, sizeof(msg), &events), 0);
	assert_int_equal(events, whole);
	/* the header's flags, its last byte: recovered (2) is version 5's; 4 is unknown */
	{
		unsigned char *h = malloc(s[0].len);
		rpl_reader *rd = NULL;
		rpl_event ev;
		int got, recovered = -1;
		assert_non_null(h);
		memcpy(h, d + s[0].payload, s[0].len);
		assert_int_equal(h[s[0].len - 1], 0);
		h[s[0].len - 1] = 2;
		b.n = 0;
		put(&b, d, 8);
		put_section(&b, 'H', h, s[0].len);
		for (size_t i = 1; i < ns; i++)
			put_section(&b, s[i].type, d + s[i].payload, s[i].len);
		assert_int_equal(rpl_reader_open_memory(&rd, b.p, b.n), 0);
		assert_int_equal(rpl_reader_flags(rd), 0); /* only RPL_LOG_SIGNED is public */
		while ((got = rpl_reader_next(rd, &ev)) == 1)
			if (ev.kind == RPL_EV_END)
				recovered = ev.recovered;
		assert_int_equal(got, 0);
		assert_int_equal(recovered, 1);
		rpl_reader_free(rd);
		h[s[0].len - 1] = 4;
		b.n = 0;
		put(&b, d, 8);
		put_section(&b, 'H', h, s[0].len);
		assert_refused_bytes(&b, RPL_EUNSUPPORTED, 8, "flags");
		free(h);
	}
	free(d);
	/* a version-4 log's header sealed: refused */
	log_version = 4;
	record_match(path, "stbl", "target=0", 2, 5, 1 << 30, &x);
	log_version = 0;
	d = read_all(path, &len);
	ns = sections(d, len, s, 16);
	assert_int_equal(s[0].type, 'H');
	b.n = 0;
	put(&b, d, 8);
	put_byte(&b, 'Z');
	put_varint(&b, s[0].len);
	put(&b, d + s[0].payload, s[0].len);
	for (size_t i = 1; i < ns; i++) {
		put_byte(&b, (unsigned char)s[i].type);
		put_varint(&b, s[i].len);
		put(&b, d + s[i].payload, s[i].len);
	}
	{
		uLong crc = crc32(crc32(0L, Z_NULL, 0), b.p, (uInt)b.n);
		unsigned char le[4] = { (unsigned char)crc, (unsigned char)(crc >> 8), (unsigned char)(crc >> 16),
			                    (unsigned char)(crc >> 24) };
		put(&b, le, 4);
	}
	assert_refused_bytes(&b, RPL_ECORRUPT, 8, "sealed header of version 4");
	free(d);
	free(b.p);
	unlink(path);
}

static void test_reader_refusals(void **state)
{
	struct sec s[16];
	size_t len, ns;
	unsigned char *d = base_log(&len, s, &ns);
	uint64_t off;
	char msg[256];
	int events, whole;

	(void)state;
	assert_int_equal(read_bytes(d, len, &off, msg, sizeof(msg), &whole), 0);
	assert_true(whole > 10);

	/* the magic */
	{
		struct bytes b = { NULL, 0 };
		put(&b, d, len);
		b.p[3] = 'X';
		assert_refused_bytes(&b, RPL_ECORRUPT, 0, "magic");
		b.n = 0; /* said empty, not a wrong magic */
		assert_refused_bytes(&b, RPL_ECORRUPT, 0, "empty");
		b.n = 5;
		memcpy(b.p, d, 5);
		assert_refused_bytes(&b, RPL_ECORRUPT, 0, "magic");
		free(b.p);
	}
	/* the magic alone: no header */
	{
		struct bytes b = { NULL, 0 };
		put(&b, d, 8);
		assert_refused_bytes(&b, RPL_ECORRUPT, 8, "header");
		free(b.p);
	}
	/* a first section that is not the header */
	{
		struct bytes b = { NULL, 0 };
		put(&b, d, 8);
		put_range(&b, d, s[2].off, len);
		assert_refused_bytes(&b, RPL_ECORRUPT, 8, "header");
		free(b.p);
	}
	/* the header cut short */
	{
		struct bytes b = { NULL, 0 };
		put(&b, d, s[0].end - 1);
		assert_refused_bytes(&b, RPL_ECORRUPT, 8, "cut short");
		free(b.p);
	}
	/* a header of a newer version, or in an unknown encoding: unsupported */
	{
		struct bytes b = { NULL, 0 };
		unsigned char v8[] = { 0x00, 0x08, 0x00 }, enc[] = { 0x07, 0x01 };
		put(&b, d, 8);
		put_section(&b, 'H', v8, sizeof(v8));
		assert_refused_bytes(&b, RPL_EUNSUPPORTED, 8, "version");
		b.n = 8;
		put_section(&b, 'H', enc, sizeof(enc));
		assert_refused_bytes(&b, RPL_EUNSUPPORTED, 8, "encoding");
		free(b.p);
	}
	/* an unknown required section: unsupported, where it is */
	{
		struct bytes b = { NULL, 0 };
		put_range(&b, d, 0, s[1].off);
		put_section(&b, 'Z', "future", 6);
		put_range(&b, d, s[1].off, len);
		assert_refused_bytes(&b, RPL_EUNSUPPORTED, s[1].off, "'Z'");
		free(b.p);
	}
	/* unknown optional sections are skipped, wherever they are before the end */
	{
		struct bytes b = { NULL, 0 };
		put_range(&b, d, 0, s[1].off);
		put_section(&b, 'z', "an extension", 12);
		put_range(&b, d, s[1].off, s[4].off);
		put_section(&b, 'q', "", 0);
		put_range(&b, d, s[4].off, len);
		assert_int_equal(read_bytes(b.p, b.n, &off, msg, sizeof(msg), &events), 0);
		assert_int_equal(events, whole);
		free(b.p);
	}
	/* a second header */
	{
		struct bytes b = { NULL, 0 };
		size_t at;
		put_range(&b, d, 0, s[2].off);
		at = b.n;
		put_range(&b, d, s[0].off, s[0].end);
		put_range(&b, d, s[2].off, len);
		assert_refused_bytes(&b, RPL_ECORRUPT, at, "second header");
		free(b.p);
	}
	/* deals numbered with a gap: deal 2 first */
	{
		struct bytes b = { NULL, 0 }, pay = { NULL, 0 };
		assert_int_equal(d[s[1].payload], 1); /* the deal number, a varint */
		put(&pay, d + s[1].payload, s[1].len);
		pay.p[0] = 2;
		put_range(&b, d, 0, s[1].off);
		put_section(&b, 'D', pay.p, pay.n);
		put_range(&b, d, s[1].end, len);
		assert_refused_bytes(&b, RPL_ECORRUPT, s[1].off, "numbered 2");
		/* the same deal twice */
		b.n = 0;
		put_range(&b, d, 0, s[2].off);
		put_range(&b, d, s[1].off, len);
		assert_refused_bytes(&b, RPL_ECORRUPT, s[2].off, "numbered 1");
		free(b.p);
		free(pay.p);
	}
	/*
	 * a deal's stream not as an encoder ends it: a zero byte appended (an
	 * encoder never stores one last), a byte other than 0 appended (the
	 * decisions read the same, but the value is not the encoder's). (A byte
	 * dropped may decode to other decisions: only the CRC catches that.)
	 */
	{
		static const unsigned char extra[] = { 0x00, 0x01, 0x80, 0xFF };
		for (size_t k = 0; k < sizeof(extra) / sizeof(extra[0]); k++) {
			struct bytes b = { NULL, 0 }, pay = { NULL, 0 };
			put(&pay, d + s[1].payload, s[1].len);
			put_byte(&pay, extra[k]);
			put_range(&b, d, 0, s[1].off);
			put_section(&b, 'D', pay.p, pay.n);
			put_range(&b, d, s[1].end, len);
			assert_refused_bytes(&b, RPL_ECORRUPT, s[1].off, "does not decode to its length");
			free(b.p);
			free(pay.p);
		}
	}
	/* bytes after the end section: a stray byte, a claim, an optional section */
	{
		struct bytes b = { NULL, 0 };
		put(&b, d, len);
		put_byte(&b, 0);
		assert_refused_bytes(&b, RPL_ECORRUPT, len, "not a section");
		b.n = len;
		put_range(&b, d, s[2].off, s[2].end);
		assert_refused_bytes(&b, RPL_ECORRUPT, len, "after the end");
		b.n = len;
		put_section(&b, 'z', "x", 1);
		assert_refused_bytes(&b, RPL_ECORRUPT, len, "after the end");
		free(b.p);
	}
	/* absurd section lengths are refused from the length alone */
	{
		struct bytes b = { NULL, 0 };
		size_t at;
		put_range(&b, d, 0, s[1].off);
		at = b.n;
		put_byte(&b, 'D');
		put_varint(&b, (1u << 28) - 1); /* 256 MB, and the file ends here */
		assert_refused_bytes(&b, RPL_ECORRUPT, at, "claims 268435455 bytes");
		b.n = at;
		put_byte(&b, 'D');
		put_varint(&b, RPL_MAX_SECTION + 1);
		put_range(&b, d, s[1].payload, len);
		assert_refused_bytes(&b, RPL_ECORRUPT, at, "claims");
		/* at the limit, the length is taken at its word: the file is too short */
		b.n = at;
		put_byte(&b, 'D');
		put_varint(&b, RPL_MAX_SECTION);
		put_range(&b, d, s[1].payload, len);
		assert_refused_bytes(&b, RPL_ECORRUPT, at, "cut short");
		/* a length varint that never ends */
		b.n = at;
		put_byte(&b, 'D');
		for (int i = 0; i < 6; i++)
			put_byte(&b, 0x80);
		put_byte(&b, 0x01);
		put_range(&b, d, s[1].payload, len);
		assert_refused_bytes(&b, RPL_ECORRUPT, at, "length");
		/* the file ends inside the length */
		b.n = at;
		put_byte(&b, 'D');
		put_byte(&b, 0x80);
		assert_refused_bytes(&b, RPL_ECORRUPT, at, "cut short");
		free(b.p);
	}
	/* a checksum mismatch, at the section's offset, wherever the damage is in it */
	{
		struct bytes b = { NULL, 0 };
		size_t where[] = { s[1].off, s[1].off + 1, s[1].payload + s[1].len / 2, s[1].end - 1 };
		for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
			b.n = 0;
			put(&b, d, len);
			b.p[where[i]] ^= 0x10;
			if (where[i] == s[1].off) /* the type byte: still a letter, another section */
				assert_int_equal(b.p[where[i]], 'T');
			assert_refused_bytes(&b, RPL_ECORRUPT, s[1].off, "");
		}
		b.n = 0;
		put(&b, d, len);
		b.p[s[1].payload + 3] ^= 0x01;
		assert_refused_bytes(&b, RPL_ECORRUPT, s[1].off, "checksum");
		free(b.p);
	}
	/* a claim section with bytes left over */
	{
		struct bytes b = { NULL, 0 };
		unsigned char claim[] = { 0x01, 0x02, 0x04, 0x00 };
		put_range(&b, d, 0, s[2].off);
		put_section(&b, 'C', claim, sizeof(claim));
		put_range(&b, d, s[3].off, len);
		assert_refused_bytes(&b, RPL_ECORRUPT, s[2].off, "claim");
		free(b.p);
	}
	/* files: missing, a directory */
	{
		rpl_reader *rd = NULL;
		assert_int_equal(rpl_reader_open(&rd, tl_tmp_path("no-such.brp")), RPL_EIO);
		assert_non_null(rd);
		assert_true(rpl_reader_errmsg(rd)[0] != '\0');
		rpl_reader_free(rd);
		rd = NULL;
		assert_int_equal(rpl_reader_open(&rd, "."), RPL_EIO);
		rpl_reader_free(rd);
		rpl_reader_free(NULL);
	}
	free(d);
}

/* ---- verdicts ------------------------------------------------------------- */

static void test_verdicts(void **state)
{
	static struct expect x;
	const char *path = tl_tmp_path("verdict.brp");
	rpl_rules *rules = tl_rules("stbl", "target=0");
	rpl_match_info info;
	rpl_verdict v;
	struct {
		int32_t deal[2];
		int32_t match[2];
	} right;

	(void)state;
	fill_info(&info, rules, 2);

	/* ok: a whole match with its claims right */
	record_match(path, "stbl", "target=0", 2, 21, 1 << 30, &x);
	assert_int_equal(x.ev[x.n - 2].kind, RPL_EV_CLAIM);
	assert_int_equal(x.ev[x.n - 2].deal, 1);
	right.deal[0] = x.ev[x.n - 2].score[0];
	right.deal[1] = x.ev[x.n - 2].score[1];
	assert_int_equal(rpl_verify_file(path, NULL, &v), 0);
	assert_int_equal(v.kind, RPL_VERDICT_OK);
	assert_string_equal(rpl_verdict_name(v.kind), "ok");
	assert_int_equal(v.deals, 1);
	assert_int_equal(v.actions, (int)x.n - 3);
	assert_int_equal(v.total[0], right.deal[0]);
	assert_int_equal(v.total[1], right.deal[1]);
	assert_int_equal(v.winner, right.deal[0] > right.deal[1] ? 0 : 1);
	right.match[0] = v.total[0];
	right.match[1] = v.total[1];

	/* mismatch: a deal claim off by 10 for side 1, with the breakdown */
	for (int which = 0; which < 3; which++) {
		rpl_recorder *rec = NULL;
		int32_t deal_claim[2] = { right.deal[0], right.deal[1] }, match_claim[2] = { right.match[0], right.match[1] };
		assert_int_equal(rpl_recorder_open(&rec, path, &info, RPL_RECORD_UNCHECKED), 0);
		for (size_t i = 0; i < x.n; i++) {
			if (x.ev[i].kind == RPL_EV_DEAL)
				assert_int_equal(rpl_recorder_deal(rec, &x.ev[i].layout), 0);
			else if (x.ev[i].kind == RPL_EV_ACTION)
				assert_int_equal(rpl_recorder_action(rec, &x.ev[i].action), 0);
		}
		if (which == 0)
			deal_claim[1] += 10;
		else if (which == 1)
			match_claim[0] -= 5;
		assert_int_equal(rpl_recorder_claim(rec, 1, deal_claim), 0);
		assert_int_equal(rpl_recorder_claim(rec, 0, match_claim), 0);
		if (which == 2) /* a claim for a deal that was never played */
			assert_int_equal(rpl_recorder_claim(rec, 2, deal_claim), 0);
		assert_int_equal(rpl_recorder_close(rec), 0);
		rpl_recorder_free(rec);
		assert_int_equal(rpl_verify_file(path, NULL, &v), 0);
		assert_int_equal(v.kind, RPL_VERDICT_MISMATCH);
		assert_string_equal(rpl_verdict_name(v.kind), "mismatch");
		assert_true(v.message[0] != '\0');
		if (which == 0) {
			const rpl_score *b = &v.breakdown;
			assert_int_equal(v.claim_deal, 1);
			assert_int_equal(v.side, 1);
			assert_int_equal(v.claimed, right.deal[1] + 10);
			assert_int_equal(v.computed, right.deal[1]);
			assert_int_equal(b->total, right.deal[1]);
			assert_int_equal(b->melded + b->bonus + b->going_out + b->hand + b->morto, b->total);
			assert_true(b->hand <= 0 && b->morto <= 0 && b->melded >= 0);
		} else if (which == 1) {
			assert_int_equal(v.claim_deal, 0);
			assert_int_equal(v.side, 0);
			assert_int_equal(v.claimed, right.match[0] - 5);
			assert_int_equal(v.computed, right.match[0]);
		} else {
			assert_int_equal(v.claim_deal, 2);
		}
	}

	/* incomplete: the same match stopped in the middle of the deal */
	{
		rpl_recorder *rec = NULL;
		size_t stop = x.n / 2, last = 0;
		assert_int_equal(rpl_recorder_open(&rec, path, &info, RPL_RECORD_UNCHECKED), 0);
		for (size_t i = 0; i < stop; i++) {
			if (x.ev[i].kind == RPL_EV_DEAL)
				assert_int_equal(rpl_recorder_deal(rec, &x.ev[i].layout), 0);
			else if (x.ev[i].kind == RPL_EV_ACTION) {
				assert_int_equal(rpl_recorder_action(rec, &x.ev[i].action), 0);
				last = i;
			}
		}
		assert_int_equal(rpl_recorder_close(rec), 0);
		rpl_recorder_free(rec);
		assert_int_equal(rpl_verify_file(path, NULL, &v), 0);
		assert_int_equal(v.kind, RPL_VERDICT_INCOMPLETE);
		assert_string_equal(rpl_verdict_name(v.kind), "incomplete");
		assert_int_equal(v.deal, 1);
		assert_int_equal(v.turn, x.ev[last].turn);
		assert_int_equal(v.actions, (int)stop - 1);
		assert_int_equal(v.winner, -1);
	}
	/* incomplete: nothing but the header */
	{
		rpl_recorder *rec = NULL;
		assert_int_equal(rpl_recorder_open(&rec, path, &info, 0), 0);
		assert_int_equal(rpl_recorder_close(rec), 0);
		rpl_recorder_free(rec);
		assert_int_equal(rpl_verify_file(path, NULL, &v), 0);
		assert_int_equal(v.kind, RPL_VERDICT_INCOMPLETE);
		assert_int_equal(v.deals, 0);
	}
	/* judged by other rules: imposed rules win over the log's */
	{
		rpl_rules *two_off = tl_rules("stbl", "target=0 allow_2_players=false");
		record_match(path, "stbl", "target=0", 2, 21, 1 << 30, &x);
		assert_int_equal(rpl_verify_file(path, two_off, &v), 0);
		assert_int_equal(v.kind, RPL_VERDICT_ILLEGAL);
		rpl_rules_free(two_off);
	}
	/* malformed: a verdict, not an error; an unreadable file: an error */
	{
		unsigned char junk[] = "not a log";
		write_all(path, junk, sizeof(junk));
		assert_int_equal(rpl_verify_file(path, NULL, &v), 0);
		assert_int_equal(v.kind, RPL_VERDICT_MALFORMED);
		assert_string_equal(rpl_verdict_name(v.kind), "malformed");
		assert_int_equal(v.offset, 0);
		assert_true(v.message[0] != '\0');
		unlink(path);
		assert_int_equal(rpl_verify_file(path, NULL, &v), RPL_EIO);
		assert_true(v.message[0] != '\0');
		assert_int_equal(rpl_verify_file(NULL, NULL, &v), RPL_EINVAL);
	}
	assert_string_equal(rpl_verdict_name(RPL_VERDICT_ILLEGAL), "illegal");
	rpl_rules_free(rules);
}

/* What an observer saw. */
struct seen {
	int deals, before, after, stop_at;
	int order_ok;          /* every after of a decision came right after its before */
	int pending;           /* a before without its after yet */
	int phase_before_out;  /* a before saw the deal already over */
	int32_t total[2];      /* match totals the last after saw */
	const rpl_event *want; /* the deals and decisions as rpl_reader_next gives them, when not NULL */
	size_t nwant, next;    /* how many; the one the observer is at */
};

/* The event the observer is shown is the one rpl_reader_next gives, every field of it. */
static void seen_is_read(const struct seen *s, const rpl_event *ev)
{
	const rpl_event *w;

	if (!s->want)
		return;
	assert_true(s->next < s->nwant);
	w = &s->want[s->next];
	assert_int_equal(ev->kind, w->kind);
	assert_int_equal(ev->deal, w->deal);
	assert_int_equal(ev->turn, w->turn);
	assert_int_equal(ev->seat, w->seat);
	assert_memory_equal(&ev->action, &w->action, sizeof(ev->action));
	assert_memory_equal(&ev->layout, &w->layout, sizeof(ev->layout));
	assert_memory_equal(ev->score, w->score, sizeof(ev->score));
	assert_int_equal(ev->recovered, w->recovered);
	assert_memory_equal(ev->seed, w->seed, sizeof(ev->seed));
	assert_int_equal(ev->offset, w->offset);
}

static int seen_before(void *ctx, const rpl_event *ev, const rpl_game *g)
{
	struct seen *s = ctx;

	assert_int_equal(ev->kind, RPL_EV_ACTION);
	seen_is_read(s, ev);
	if (s->pending)
		s->order_ok = 0;
	if (rpl_game_phase(g) >= RPL_PHASE_DEAL_OVER)
		s->phase_before_out = 1;
	s->pending = 1;
	if (++s->before == s->stop_at)
		return 42;
	return 0;
}

static int seen_after(void *ctx, const rpl_event *ev, const rpl_game *g)
{
	struct seen *s = ctx;

	seen_is_read(s, ev);
	s->next++;
	if (ev->kind == RPL_EV_DEAL) {
		s->deals++;
		assert_int_equal(rpl_game_deal_number(g), ev->deal);
		return 0;
	}
	assert_int_equal(ev->kind, RPL_EV_ACTION);
	if (!s->pending)
		s->order_ok = 0;
	s->pending = 0;
	s->after++;
	s->total[0] = rpl_game_total(g, 0);
	s->total[1] = rpl_game_total(g, 1);
	return 0;
}

/*
 * The observer sees every deal and decision, in order, each event as
 * rpl_reader_next gives it (every field), with the game before and after;
 * it can stop.
 */
static void test_observer(void **state)
{
	static struct expect x;
	const char *path = tl_tmp_path("observed.brp");
	rpl_verify_observer obs = { NULL, seen_before, seen_after };
	struct seen s;
	rpl_verdict v, plain;
	rpl_reader *rd = NULL;
	rpl_event *want;
	size_t nwant = 0;

	(void)state;
	record_match(path, "kzv", NULL, 4, 5, 1 << 30, &x);
	assert_int_equal(rpl_verify_file(path, NULL, &plain), 0);
	assert_int_equal(plain.kind, RPL_VERDICT_OK);

	/* the deals and decisions as rpl_reader_next gives them: the observer must see the same */
	assert_int_equal(rpl_reader_open(&rd, path), 0);
	want = calloc(plain.actions + plain.deals, sizeof(*want));
	assert_non_null(want);
	for (rpl_event ev; rpl_reader_next(rd, &ev) == 1;)
		if (ev.kind == RPL_EV_DEAL || ev.kind == RPL_EV_ACTION) {
			assert_true(nwant < (size_t)(plain.actions + plain.deals));
			want[nwant++] = ev;
		}
	rpl_reader_free(rd);
	rd = NULL;

	memset(&s, 0, sizeof(s));
	s.order_ok = 1;
	s.want = want;
	s.nwant = nwant;
	obs.ctx = &s;
	assert_int_equal(rpl_verify_file_observe(path, NULL, &v, &obs), 0);
	assert_int_equal(s.next, nwant); /* every deal and decision, each as the reader gives it */
	free(want);
	assert_memory_equal(&v, &plain, sizeof(v)); /* observing changes nothing */
	assert_int_equal(s.deals, v.deals);
	assert_int_equal(s.before, v.actions);
	assert_int_equal(s.after, v.actions);
	assert_true(s.order_ok);
	assert_false(s.phase_before_out);
	assert_int_equal(s.total[0], v.total[0]);
	assert_int_equal(s.total[1], v.total[1]);

	/* a non-zero return stops it, and is returned */
	memset(&s, 0, sizeof(s));
	s.order_ok = 1;
	s.stop_at = 10;
	assert_int_equal(rpl_reader_open(&rd, path), 0);
	assert_int_equal(plain.bytes, rpl_reader_bytes(rd)); /* the verdict says the log's size */
	assert_true(plain.bytes > 0);
	assert_int_equal(rpl_verify_reader_observe(rd, NULL, &v, &obs), 42);
	assert_int_equal(s.before, 10);
	assert_int_equal(s.after, 9);
	rpl_reader_free(rd);

	/* only one function, and none */
	memset(&s, 0, sizeof(s));
	obs.before = NULL;
	assert_int_equal(rpl_verify_file_observe(path, NULL, &v, &obs), 0);
	assert_int_equal(s.after, plain.actions);
	assert_int_equal(rpl_verify_file_observe(path, NULL, &v, NULL), 0);
	assert_int_equal(v.kind, RPL_VERDICT_OK);
	unlink(path);
}

/* Apply a through the recorder; the card drawn is the one the hand gained. */
static rpl_card rec_draw(rpl_recorder *rec)
{
	const rpl_game *g = rpl_recorder_game(rec);
	int seat = rpl_game_seat(g), before[RPL_NFACES] = { 0 };
	rpl_card h[64];
	int n = rpl_game_hand(g, seat, h, 64);
	rpl_action a = tl_act(RPL_ACT_DRAW);

	for (int i = 0; i < n; i++)
		before[h[i]]++;
	assert_int_equal(rpl_recorder_action(rec, &a), 0);
	n = rpl_game_hand(g, seat, h, 64);
	for (int i = 0; i < n; i++)
		if (before[h[i]]-- == 0)
			return h[i];
	fail();
	return RPL_JOKER;
}

/*
 * A header of 31 pairs (written before parameter 32, penalty_no_morto_sides,
 * existed) reads as "each side without a morto pays", whatever the profile
 * (docs/format.md section 4), so an old STBL log keeps its old score. The
 * deal: no side takes a morto, both become stock, and seat 0 goes out
 * (STBL «só é possível bater quando os dois mortos virarem monte»). Under
 * today's STBL (rules.md 9.3, «Caso o outro jogador ou dupla não tenha pegado
 * o morto») side 0 is not charged; the same log with its header cut to 31
 * pairs charges it the 100, as the old STBL did.
 */
static void test_header_31_pairs(void **state)
{
	const char *path = tl_tmp_path("legacy.brp"), *old_path = tl_tmp_path("legacy31.brp");
	rpl_rules *rules = tl_rules("stbl", NULL);
	rpl_match_info info;
	rpl_recorder *rec = NULL;
	rpl_layout L;
	rpl_verdict now, old;
	struct sec s[16];
	size_t len, ns, p;
	unsigned char *d;
	struct bytes body = { NULL, 0 }, file = { NULL, 0 };
	rpl_reader *rd = NULL;
	int v = -1;

	(void)state;
	fill_info(&info, rules, 2);
	log_version = 2; /* a header of version 2, cut to 31 pairs below */
	assert_int_equal(open_rec(&rec, path, &info), 0);
	log_version = 0;
	tl_layout(&L, 2, .hand = { "3c 4c 5c 6c 7c 8c 9c 5h 6h 7h 8h", "3c 6c 9c Qc Ad 4d 7d 10d 8h Kh 5s" });
	assert_int_equal(rpl_recorder_deal(rec, &L), 0);
	for (int draws = 1; draws <= 75; draws++) {
		rpl_action a = tl_act(RPL_ACT_DISCARD);
		rpl_card c = rec_draw(rec);

		if (draws == 75) {
			/* morto 1 turned into stock: seat 0 goes out without a morto */
			rpl_action m1 = A_MELD("3c 4c 5c 6c 7c 8c 9c"), m2 = A_MELD("5h 6h 7h 8h");

			assert_int_equal(rpl_game_morto_state(rpl_recorder_game(rec), 1), 2);
			assert_int_equal(rpl_recorder_action(rec, &m1), 0);
			assert_int_equal(rpl_recorder_action(rec, &m2), 0);
		}
		a.ncards = 1;
		a.cards[0] = c;
		assert_int_equal(rpl_recorder_action(rec, &a), 0);
	}
	assert_int_equal(rpl_game_phase(rpl_recorder_game(rec)), RPL_PHASE_MATCH_OVER); /* STBL: one deal */
	assert_int_equal(rpl_recorder_close(rec), 0);
	free_rec(rec);
	rpl_rules_free(rules);

	assert_int_equal(rpl_verify_file(path, NULL, &now), 0);
	assert_int_equal(now.kind, RPL_VERDICT_OK);
	/* 45 + 25 melded, 200 clean canastra, 100 going out, no hand, no penalty */
	assert_int_equal(now.total[0], 45 + 25 + 200 + 100);

	/* the header again with 31 pairs: nparams 31, pair 32 left out */
	d = read_all(path, &len);
	ns = sections(d, len, s, 16);
	assert_true(ns >= 2);
	assert_int_equal(s[0].type, 'H');
	assert_int_equal(d[s[0].payload], 0x00); /* raw */
	p = s[0].payload;
	put(&body, d + p, 7); /* encoding, version, profile "stbl" */
	assert_memory_equal(d + p + 1, "\x02\x04stbl", 6);
	p += 7;
	assert_int_equal(d[p], 32);
	put_byte(&body, 31);
	p++;
	for (int id = 1; id <= 31; id++) {
		size_t q = p;

		assert_int_equal(d[q++], id);
		while (d[q] & 0x80)
			q++;
		q++;
		put(&body, d + p, q - p);
		p = q;
	}
	assert_int_equal(d[p], 32);
	assert_int_equal(d[p + 1], 2 * RPL_PENALTY_NOT_OUT); /* zigzag */
	p += 2;
	put(&body, d + p, s[0].payload + s[0].len - p);
	put(&file, d, 8);
	put_section(&file, 'H', body.p, body.n);
	put(&file, d + s[0].end, len - s[0].end);
	write_all(old_path, file.p, file.n);

	assert_int_equal(rpl_reader_open(&rd, old_path), 0);
	assert_int_equal(rpl_rules_get_id(rpl_reader_info(rd)->rules, RPL_P_PENALTY_NO_MORTO_SIDES, &v), 0);
	assert_int_equal(v, RPL_PENALTY_EACH);
	assert_int_equal(rpl_rules_is_override(rpl_reader_info(rd)->rules, RPL_P_PENALTY_NO_MORTO_SIDES), 1);
	rpl_reader_free(rd);
	assert_int_equal(rpl_verify_file(old_path, NULL, &old), 0);
	assert_int_equal(old.kind, RPL_VERDICT_OK);
	assert_int_equal(old.total[0], now.total[0] - 100);
	assert_int_equal(old.total[1], now.total[1]);
	assert_int_equal(old.winner, now.winner);

	/* 30 pairs are corrupt, 33 unsupported (docs/format.md section 10, item 14) */
	for (int k = 0; k < 2; k++) {
		struct bytes b2 = { NULL, 0 }, f2 = { NULL, 0 };
		size_t q = s[0].payload + 8;
		uint64_t off;
		char msg[256];
		int events, want_n = k == 0 ? 30 : 33;

		put(&b2, d + s[0].payload, 7);
		put_byte(&b2, (unsigned)want_n);
		for (int id = 1; id <= 32; id++) {
			size_t e = q + 1;

			while (d[e] & 0x80)
				e++;
			e++;
			if (id <= want_n)
				put(&b2, d + q, e - q);
			q = e;
		}
		if (want_n == 33) {
			put_byte(&b2, 33);
			put_byte(&b2, 0);
		}
		put(&b2, d + q, s[0].payload + s[0].len - q);
		put(&f2, d, 8);
		put_section(&f2, 'H', b2.p, b2.n);
		put(&f2, d + s[0].end, len - s[0].end);
		assert_int_equal(read_bytes(f2.p, f2.n, &off, msg, sizeof(msg), &events),
		                 k == 0 ? RPL_ECORRUPT : RPL_EUNSUPPORTED);
		assert_int_equal(off, 8);
		free(b2.p);
		free(f2.p);
	}

	unlink(path);
	unlink(old_path);
	free(d);
	free(body.p);
	free(file.p);
}

/* ---- a deal longer than a section ---------------------------------------- */

/* The sections of a log by type (frames only: the reader checks the rest). */
static int count_sections(const char *path, char type)
{
	size_t n, pos = 8;
	unsigned char *b = read_all(path, &n);
	int k = 0, past = 0;

	while (pos < n) {
		uint64_t len = 0;
		int shift = 0;
		char t = (char)b[pos++];
		while (b[pos] & 0x80) {
			len |= (uint64_t)(b[pos++] & 0x7F) << shift;
			shift += 7;
		}
		len |= (uint64_t)b[pos++] << shift;
		/* a sealed log (format.md 19.5): one checksum, after E */
		pos += len + (b[8] != 'Z' || t == 'E' || past ? 4 : 0);
		past |= t == 'E';
		k += t == type;
	}
	free(b);
	return k;
}

/*
 * The verdict of a log that must hold every decision of one unfinished
 * deal: version 6's in one D and A sections after it; version 7's closed
 * in one M (its stream under a section's limit), else as version 6.
 */
static void assert_long_deal(const char *path, int decisions, int ended, int version)
{
	rpl_verdict v;

	assert_int_equal(rpl_verify_file(path, NULL, &v), 0);
	if (v.kind != RPL_VERDICT_INCOMPLETE)
		fail_msg("%s: %s: %s", path, rpl_verdict_name(v.kind), v.message);
	assert_int_equal(v.deals, 1);
	assert_int_equal(v.actions, decisions);
	if (version == 7 && ended) {
		assert_int_equal(count_sections(path, 'M'), 1);
		assert_int_equal(count_sections(path, 'D'), 0);
	} else {
		assert_int_equal(count_sections(path, 'D'), 1);
		assert_true(count_sections(path, 'A') >= 1);
	}
	assert_int_equal(count_sections(path, 'E'), ended);
}

/*
 * Issue 13, item 1: a deal of more than RPL_MAX_SECTION decisions (a
 * take/discard loop under pile_rule=free, which never ends) was written as
 * one D section that the reader refuses: by the growing form without a
 * flush (brp import), by the compact form (brp record's close, brp recover).
 * Every writer now goes on in A sections; each log reads back whole.
 */
static void test_long_deal(void **state)
{
	const char *path = tl_tmp_path("long.brp"), *salvaged = tl_tmp_path("long-recovered.brp");
	const int turns = (int)(RPL_MAX_SECTION / 2) + 300, decisions = 2 * turns;
	rpl_rules *rules = tl_rules("stbl", "pile_rule=free");
	rpl_match_info info;
	rpl_recorder *rec = NULL;
	rpl_recover_report rep;
	rpl_layout lay;
	rpl_action draw = A_DRAW, take = A_TAKE, discard = A_DISCARD("7h");

	(void)state;
	fill_info(&info, rules, 2);
	tl_layout(&lay, 2, .stock = "7h");
	/* version 6, then the newest, 7 */
	for (int version = 6; version <= 7; version++) {
		log_version = version == 7 ? 0 : version;
		assert_int_equal(open_rec(&rec, path, &info), 0);
		log_version = 0;
		assert_int_equal(rpl_recorder_deal(rec, &lay), 0);
		assert_int_equal(rpl_recorder_action(rec, &draw), 0);
		assert_int_equal(rpl_recorder_action(rec, &discard), 0);
		for (int t = 1; t < turns; t++) {
			if (rpl_recorder_action(rec, &take) != 0 || rpl_recorder_action(rec, &discard) != 0)
				fail_msg("turn %d: %s", t + 1, rpl_recorder_errmsg(rec));
		}
		/* the growing form, flushed once (as brp import writes a text without 'end') */
		assert_int_equal(rpl_recorder_flush(rec), 0);
		assert_long_deal(path, decisions, 0, version);
		/* salvaged: rewritten compact, in the input's version, every turn kept */
		assert_int_equal(rpl_recover(path, salvaged, 0, &rep), 0);
		assert_int_equal(rep.actions, decisions);
		assert_int_equal(rep.dropped_actions, 0);
		assert_long_deal(salvaged, decisions, 1, version);
		/* closed: the compact form */
		assert_int_equal(rpl_recorder_close(rec), 0);
		free_rec(rec);
		assert_long_deal(path, decisions, 1, version);
	}
	rpl_rules_free(rules);
	unlink(path);
	unlink(salvaged);
}

/*
 * The recorder keeps every decision of a match to write its compact form:
 * it takes RPL_MAX_DECISIONS of them and refuses the next (RPL_ELIMIT,
 * nothing recorded), so its memory is bounded by that limit (issue 13,
 * items 1 and 6). Unchecked, as brp import records. The reader holds the
 * same limit (issue 22): the log at it reads whole, one section more is
 * refused, RPL_ELIMIT, with the limit in its message.
 */
static void test_decision_limit(void **state)
{
	const char *path = tl_tmp_path("limit.brp");
	rpl_rules *rules = tl_rules("stbl", "pile_rule=free");
	rpl_match_info info;
	rpl_recorder *rec = NULL;
	rpl_layout lay;
	rpl_action draw = A_DRAW, take = A_TAKE, discard = A_DISCARD("7h");
	rpl_verdict v;
	rpl_reader *rd = NULL;
	rpl_event ev;
	struct sec sec[16];
	struct bytes grown;
	unsigned char *data;
	size_t len, nsec;
	char want[RPL_ERRMSG_SIZE];
	unsigned n = 2;
	int err;

	(void)state;
	fill_info(&info, rules, 2);
	tl_layout(&lay, 2, .stock = "7h");
	assert_int_equal(rpl_recorder_open(&rec, path, &info, RPL_RECORD_UNCHECKED), 0);
	assert_int_equal(rpl_recorder_deal(rec, &lay), 0);
	assert_int_equal(rpl_recorder_action(rec, &draw), 0);
	assert_int_equal(rpl_recorder_action(rec, &discard), 0);
	while ((err = rpl_recorder_action(rec, n % 2 ? &discard : &take)) == 0)
		n++;
	assert_int_equal(err, RPL_ELIMIT);
	assert_int_equal(n, RPL_MAX_DECISIONS);
	assert_string_equal(rpl_recorder_errmsg(rec), "a match log holds at most 4194304 decisions");
	/* (closing writes the compact form, split into sections as test_long_deal checks) */
	assert_int_equal(rpl_recorder_flush(rec), 0);
	rpl_recorder_free(rec);
	/*
	 * Its last A section again, as a crafted log past the limit would hold
	 * it (issue 22: with the model settled, repeated sections decode, and a
	 * 6.8 MB log held 43 million decisions): the reader reads every decision
	 * up to the limit, and refuses the copy whole, before decoding it.
	 */
	data = tl_read_file(path, &len);
	nsec = sections(data, len, sec, sizeof(sec) / sizeof(sec[0]));
	assert_int_equal(sec[nsec - 1].type, 'A');
	grown.p = NULL;
	grown.n = 0;
	put(&grown, data, len);
	put(&grown, data + sec[nsec - 1].off, sec[nsec - 1].end - sec[nsec - 1].off);
	assert_int_equal(rpl_reader_open_memory(&rd, grown.p, grown.n), 0);
	n = 0;
	while ((err = rpl_reader_next(rd, &ev)) == 1)
		n += ev.kind == RPL_EV_ACTION;
	assert_int_equal(err, RPL_ELIMIT);
	assert_int_equal(n, RPL_MAX_DECISIONS);
	assert_int_equal(rpl_reader_offset(rd), len);
	snprintf(want, sizeof(want), "byte %zu: section 'A' takes the match past 4194304 decisions, the most a log holds",
	         len);
	assert_string_equal(rpl_reader_errmsg(rd), want);
	rpl_reader_free(rd);
	rd = NULL;
	/* a verdict: malformed there */
	assert_int_equal(rpl_reader_open_memory(&rd, grown.p, grown.n), 0);
	assert_int_equal(rpl_verify_reader(rd, NULL, &v), 0);
	assert_int_equal(v.kind, RPL_VERDICT_MALFORMED);
	assert_int_equal(v.offset, len);
	assert_string_equal(v.message, want);
	rpl_reader_free(rd);
	free(grown.p);
	free(data);
	rpl_rules_free(rules);
	unlink(path);
}

/*
 * Claims are bounded as decisions are (issue 22): the recorder takes
 * RPL_MAX_CLAIMS and refuses the next (RPL_ELIMIT, nothing recorded); a log
 * with one claim more (a C appended by hand) is refused by the reader at
 * that section, RPL_ELIMIT, with the limit in its message.
 */
static void test_claim_limit(void **state)
{
	const char *path = tl_tmp_path("claims.brp");
	rpl_rules *rules = tl_rules("stbl", NULL);
	rpl_match_info info;
	rpl_recorder *rec = NULL;
	rpl_reader *rd = NULL;
	rpl_layout lay;
	rpl_event ev;
	rpl_verdict v;
	struct bytes grown = { NULL, 0 };
	const unsigned char one[] = { 0x01, 0x02, 0x04 }; /* deal 1, scores 1 and 2 */
	unsigned char *data;
	size_t len;
	unsigned n = 0;
	char want[RPL_ERRMSG_SIZE];
	int err;

	(void)state;
	fill_info(&info, rules, 2);
	tl_layout(&lay, 2, .stock = "7h");
	assert_int_equal(rpl_recorder_open(&rec, path, &info, RPL_RECORD_UNCHECKED), 0);
	assert_int_equal(rpl_recorder_deal(rec, &lay), 0);
	while ((err = rpl_recorder_claim(rec, (int)(n % (RPL_MAX_DEALS + 1)), (int32_t[2]){ 1, 2 })) == 0)
		n++;
	assert_int_equal(err, RPL_ELIMIT);
	assert_int_equal(n, RPL_MAX_CLAIMS);
	assert_string_equal(rpl_recorder_errmsg(rec), "a match log holds at most 65536 claims");
	assert_int_equal(rpl_recorder_flush(rec), 0);
	rpl_recorder_free(rec);
	assert_int_equal(rpl_verify_file(path, NULL, &v), 0);
	assert_int_equal(v.kind, RPL_VERDICT_MISMATCH); /* deal 1 never ended */
	assert_int_equal(strlen(v.match_id), 64);
	data = tl_read_file(path, &len);
	put(&grown, data, len);
	put_section(&grown, 'C', one, sizeof(one));
	assert_int_equal(rpl_reader_open_memory(&rd, grown.p, grown.n), 0);
	n = 0;
	while ((err = rpl_reader_next(rd, &ev)) == 1)
		n += ev.kind == RPL_EV_CLAIM;
	assert_int_equal(err, RPL_ELIMIT);
	assert_int_equal(n, RPL_MAX_CLAIMS);
	assert_int_equal(rpl_reader_offset(rd), len);
	snprintf(want, sizeof(want), "byte %zu: section 'C' takes the match past 65536 claims, the most a log holds", len);
	assert_string_equal(rpl_reader_errmsg(rd), want);
	rpl_reader_free(rd);
	rd = NULL;
	assert_int_equal(rpl_reader_open_memory(&rd, grown.p, grown.n), 0);
	assert_int_equal(rpl_verify_reader(rd, NULL, &v), 0);
	assert_int_equal(v.kind, RPL_VERDICT_MALFORMED);
	assert_string_equal(v.message, want);
	rpl_reader_free(rd);
	free(grown.p);
	free(data);
	rpl_rules_free(rules);
	unlink(path);
}

/*
 * Issue 13, item 3: a recorder opened on a full disk left an empty (or cut)
 * log behind. The file size limit stands for the full disk (EFBIG, with
 * SIGXFSZ ignored): nothing the failed open created is left.
 */
static void test_full_disk(void **state)
{
	const char *path = tl_tmp_path("full.brp");
	rpl_rules *rules = tl_rules("stbl", NULL);
	rpl_match_info info;
	struct rlimit old, lim;
	void (*was)(int);
	const rlim_t sizes[] = { 0, 20 };

	(void)state;
	fill_info(&info, rules, 4);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	was = signal(SIGXFSZ, SIG_IGN);
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		rpl_recorder *rec = NULL;
		int err;
		unlink(path);
		lim = old;
		lim.rlim_cur = sizes[i];
		assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
		err = rpl_recorder_open(&rec, path, &info, 0);
		assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
		assert_int_equal(err, RPL_EIO);
		assert_non_null(strstr(rpl_recorder_errmsg(rec), strerror(EFBIG)));
		rpl_recorder_free(rec);
		if (access(path, F_OK) == 0)
			fail_msg("a recorder that could not write its header left %s (limit %d bytes)", path, (int)sizes[i]);
	}
	signal(SIGXFSZ, was);
	rpl_rules_free(rules);
}

/*
 * Issue 13, item 9: a start time outside the years 0000 to 9999 verified,
 * but the notation refused to write it and the export wrote dates such as
 * 292277026596-12-04. The format now refuses it: the recorder does not
 * write it, the reader refuses it as corrupt; the years' bounds themselves
 * are kept.
 */
static void test_start_time_range(void **state)
{
	const char *path = tl_tmp_path("start.brp");
	rpl_rules *rules = tl_rules("stbl", NULL);
	const int64_t good[] = { RPL_MIN_START_TIME, RPL_MAX_START_TIME },
				  bad[] = { RPL_MIN_START_TIME - 1, RPL_MAX_START_TIME + 1, INT64_MAX, INT64_MIN };
	rpl_match_info info;

	(void)state;
	fill_info(&info, rules, 2);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		rpl_recorder *rec = NULL;
		info.start_time = bad[i];
		unlink(path);
		assert_int_equal(rpl_recorder_open(&rec, path, &info, 0), RPL_EINVAL);
		assert_non_null(strstr(rpl_recorder_errmsg(rec), "outside the years 0000 to 9999"));
		rpl_recorder_free(rec);
		assert_int_equal(access(path, F_OK), -1);
	}
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		rpl_recorder *rec = NULL;
		rpl_reader *rd = NULL;
		unsigned char *d, at[10], over[10];
		size_t n, k = 0, m = 0, pos;
		/* version 5 (format.md 19.1): zigzag of the seconds from 2026-01-01, plus 1 */
		int64_t rel = good[i] - 1767225600LL;
		uint64_t z = (((uint64_t)rel << 1) ^ (uint64_t)(rel >> 63)) + 1, zo;
		struct bytes b = { NULL, 0 };

		info.start_time = good[i];
		assert_int_equal(rpl_recorder_open(&rec, path, &info, 0), 0);
		assert_int_equal(rpl_recorder_close(rec), 0);
		rpl_recorder_free(rec);
		assert_int_equal(rpl_reader_open(&rd, path), 0);
		assert_true(rpl_reader_info(rd)->start_time == good[i]);
		rpl_reader_free(rd);
		/* one second beyond, in a header framed again: refused, at the header */
		zo = z + 2; /* zigzag: one second further from 0, either sign */
		for (uint64_t v = z;; v >>= 7) {
			at[k++] = (unsigned char)((v & 0x7F) | (v >= 0x80 ? 0x80 : 0));
			if (v < 0x80)
				break;
		}
		for (uint64_t v = zo;; v >>= 7) {
			over[m++] = (unsigned char)((v & 0x7F) | (v >= 0x80 ? 0x80 : 0));
			if (v < 0x80)
				break;
		}
		assert_int_equal(k, m);
		d = read_all(path, &n);
		/* the header: 'Z' (sealed), a one- or two-byte length, the raw payload */
		pos = d[9] & 0x80 ? 11 : 10;
		{
			size_t plen = d[9] & 0x80 ? (size_t)(d[9] & 0x7F) | (size_t)d[10] << 7 : d[9];
			unsigned char *hit = NULL;
			for (size_t j = pos; j + k <= pos + plen; j++)
				if (memcmp(d + j, at, k) == 0)
					hit = d + j;
			assert_non_null(hit);
			memcpy(hit, over, k);
			put(&b, d, 8);
			put_section(&b, 'H', d + pos, plen);
			assert_refused_bytes(&b, RPL_ECORRUPT, 8, "outside the years 0000 to 9999");
		}
		free(b.p);
		free(d);
	}
	/* version 5: the time 1 reads back; 0 has one encoding, 0, and its other (zigzag(-epoch) + 1) is refused */
	{
		const uint64_t one = 2 * 1767225600ULL - 2, zero = 2 * 1767225600ULL; /* zigzag(1 - E) + 1, zigzag(-E) + 1 */
		unsigned char at[10], other[10], *d, *hit = NULL;
		size_t k = 0, m = 0, n, pos, plen;
		rpl_recorder *rec = NULL;
		rpl_reader *rd = NULL;
		struct bytes b = { NULL, 0 };
		for (uint64_t v = one;; v >>= 7) {
			at[k++] = (unsigned char)((v & 0x7F) | (v >= 0x80 ? 0x80 : 0));
			if (v < 0x80)
				break;
		}
		for (uint64_t v = zero;; v >>= 7) {
			other[m++] = (unsigned char)((v & 0x7F) | (v >= 0x80 ? 0x80 : 0));
			if (v < 0x80)
				break;
		}
		assert_int_equal(k, m);
		info.start_time = 1;
		assert_int_equal(rpl_recorder_open(&rec, path, &info, 0), 0);
		assert_int_equal(rpl_recorder_close(rec), 0);
		rpl_recorder_free(rec);
		assert_int_equal(rpl_reader_open(&rd, path), 0);
		assert_true(rpl_reader_info(rd)->start_time == 1);
		rpl_reader_free(rd);
		d = read_all(path, &n);
		pos = d[9] & 0x80 ? 11 : 10;
		plen = d[9] & 0x80 ? (size_t)(d[9] & 0x7F) | (size_t)d[10] << 7 : d[9];
		for (size_t j = pos; j + k <= pos + plen; j++)
			if (memcmp(d + j, at, k) == 0)
				hit = d + j;
		assert_non_null(hit);
		memcpy(hit, other, k);
		put(&b, d, 8);
		put_section(&b, 'H', d + pos, plen);
		assert_refused_bytes(&b, RPL_ECORRUPT, 8, "0 coded otherwise");
		free(b.p);
		free(d);
	}
	rpl_rules_free(rules);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),       cmocka_unit_test(test_claims),
		cmocka_unit_test(test_claims_v5),        cmocka_unit_test(test_sealed),
		cmocka_unit_test(test_growing_form),     cmocka_unit_test(test_checked_and_unchecked),
		cmocka_unit_test(test_reader_refusals),  cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_observer),         cmocka_unit_test(test_header_31_pairs),
		cmocka_unit_test(test_long_deal),        cmocka_unit_test(test_decision_limit),
		cmocka_unit_test(test_claim_limit),      cmocka_unit_test(test_full_disk),
		cmocka_unit_test(test_start_time_range),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
