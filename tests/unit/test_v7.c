/*
 * Format version 7 (docs/format.md 21; in progress, issue 27: the library
 * reads it, and writes it only when asked through rpl__recorder_open_fd).
 *
 *   samples     each shipped log dealt freely, recorded again in versions 6
 *               and 7 (a flush after each turn): the version-7 growing form
 *               and its compact form give the same events and the same
 *               match identity; against version 6, the same decisions and
 *               claims, each layout the same but for the order no play
 *               revealed (ascending), and the same verdict
 *   long deal   a deal of more decisions than the reader's read-ahead holds
 *               (it is read twice): the events, the order drawn, one identity
 *   refusals    a match section in a version-6 log, beside deal sections,
 *               twice, followed by a deal section, cut short, with claims in
 *               the end section; a version-7 header with a commitment
 */
#include "testlib.h"
#include "log/format.h"
#include "log/recorder_impl.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct evs {
	rpl_event *ev;
	int (*rec)[3]; /* a deal event's rpl_reader_deal_recorded */
	size_t n;
	int got; /* what the last rpl_reader_next returned */
	char id[RPL_MATCH_ID_SIZE];
};

static void read_events(const uint8_t *data, size_t len, struct evs *out)
{
	rpl_reader *rd = NULL;
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	assert_int_equal(rpl_reader_open_memory(&rd, data, len), 0);
	assert_int_equal(rpl_reader_deal_recorded(rd, (int[3]){ 0 }), RPL_ESTATE); /* no deal yet */
	for (;;) {
		if (out->n == cap) {
			cap = cap ? 2 * cap : 256;
			out->ev = realloc(out->ev, cap * sizeof(rpl_event));
			out->rec = realloc(out->rec, cap * sizeof(*out->rec));
			assert_non_null(out->ev);
			assert_non_null(out->rec);
		}
		if ((out->got = rpl_reader_next(rd, &out->ev[out->n])) != 1)
			break;
		if (out->ev[out->n].kind == RPL_EV_DEAL)
			assert_int_equal(rpl_reader_deal_recorded(rd, out->rec[out->n]), 0);
		out->n++;
	}
	if (out->got == 0)
		assert_int_equal(rpl_reader_match_id(rd, out->id), 0);
	rpl_reader_free(rd);
}

static uint8_t *fd_bytes(int fd, size_t *len)
{
	off_t end = lseek(fd, 0, SEEK_END);
	uint8_t *p = malloc(end > 0 ? (size_t)end : 1);

	assert_non_null(p);
	assert_int_equal(pread(fd, p, (size_t)end, 0), end);
	*len = (size_t)end;
	return p;
}

/* The log at src recorded again in version (unchecked, a flush after each turn): its growing and compact forms. */
static void rerecord(const char *src, int version, uint8_t **growing, size_t *glen, uint8_t **compact, size_t *clen)
{
	const char *path = tl_tmp_path("v7-rerecord.brp");
	rpl_reader *rd = NULL;
	rpl_recorder *rec = NULL;
	rpl_event ev;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(rpl_reader_open(&rd, src), 0);
	assert_int_equal(rpl__recorder_open_fd(&rec, fd, rpl_reader_info(rd), RPL_RECORD_UNCHECKED, NULL, version), 0);
	while (rpl_reader_next(rd, &ev) == 1) {
		if (ev.kind == RPL_EV_DEAL)
			assert_int_equal(rpl_recorder_deal(rec, &ev.layout), 0);
		else if (ev.kind == RPL_EV_ACTION)
			assert_int_equal(rpl_recorder_action(rec, &ev.action), 0);
		else if (ev.kind == RPL_EV_CLAIM)
			assert_int_equal(rpl_recorder_claim(rec, ev.deal, ev.score), 0);
		if (ev.kind == RPL_EV_ACTION && ev.action.kind == RPL_ACT_DISCARD)
			assert_int_equal(rpl_recorder_flush(rec), 0);
	}
	assert_int_equal(rpl_recorder_flush(rec), 0);
	*growing = fd_bytes(fd, glen);
	assert_int_equal(rpl_recorder_close(rec), 0);
	*compact = fd_bytes(fd, clen);
	rpl_recorder_free(rec);
	rpl_reader_free(rd);
	close(fd);
	unlink(path);
}

/* Two events alike but for where they were read. */
static void same_event(const rpl_event *a, const rpl_event *b, size_t i)
{
	if (a->kind != b->kind || a->deal != b->deal || a->turn != b->turn || a->seat != b->seat ||
	    memcmp(&a->action, &b->action, sizeof(a->action)) != 0 || memcmp(a->score, b->score, sizeof(a->score)) != 0 ||
	    (a->kind == RPL_EV_DEAL && memcmp(&a->layout, &b->layout, sizeof(a->layout)) != 0))
		fail_msg("event %zu differs (kinds %d and %d)", i, a->kind, b->kind);
}

static int by_card(const void *a, const void *b)
{
	return *(const rpl_card *)a - *(const rpl_card *)b;
}

/*
 * The layout of the deal whose event is ev[i], as version 7 gives it: the
 * cards as dealt where play drew them (the stock, and a morto once it
 * became the stock), the rest of each pile ascending; and how far each pile
 * was drawn (rpl_reader_deal_recorded's). Found by playing the deal's
 * decisions on the codec's bookkeeping.
 */
static void canonical(const struct evs *x, size_t i, int n, int dealer, rpl_layout *out, int drawn[3])
{
	struct track t;
	int src_of = -1, stock = RPL_STOCK_SIZE(n);

	*out = x->ev[i].layout;
	rpl__track_deal(&t, n, dealer, out);
	for (size_t j = i + 1; j < x->n && x->ev[j].kind != RPL_EV_DEAL; j++) {
		const rpl_action *a = &x->ev[j].action;
		int pos, len, became;
		if (x->ev[j].kind != RPL_EV_ACTION)
			continue;
		if ((a->kind == RPL_ACT_DRAW || a->kind == RPL_ACT_REJECT) && rpl__track_draw_place(&t, &pos, &len, &became) &&
		    became >= 0)
			src_of = became;
		assert_int_equal(rpl__track_apply(&t, a, NULL, 0), 0);
	}
	if (src_of < 0) {
		qsort(out->stock + t.src_pos, (size_t)(stock - t.src_pos), 1, by_card);
	}
	for (int m = 0; m < 2; m++) {
		int from = m == src_of ? t.src_pos : 0;
		qsort(out->morto[m] + from, (size_t)(RPL_MORTO_SIZE - from), 1, by_card);
	}
	/* a hand is a set: the reader gives it ascending */
	for (int s = 0; s < n; s++)
		qsort(out->hand[s], RPL_HAND_SIZE, 1, by_card);
	rpl__track_drawn(&t, drawn);
}

static void check_sample(const char *name)
{
	char src[4096];
	uint8_t *g6, *c6, *g7, *c7;
	size_t g6n, c6n, g7n, c7n;
	struct evs e6, e7, e7g;
	rpl_reader *rd = NULL;
	rpl_verdict v6, v7;
	int n, dealer = 0;

	snprintf(src, sizeof(src), "%s/samples/%s", SRCROOT, name);
	rerecord(src, 6, &g6, &g6n, &c6, &c6n);
	rerecord(src, 7, &g7, &g7n, &c7, &c7n);
	read_events(c6, c6n, &e6);
	read_events(c7, c7n, &e7);
	read_events(g7, g7n, &e7g);
	assert_int_equal(e6.got, 0);
	assert_int_equal(e7.got, 0);
	assert_int_equal(e7g.got, 0);
	/* both forms of version 7: one match, event by event (the compact one's end last) */
	assert_int_equal(e7.n, e7g.n + 1);
	assert_int_equal(e7.ev[e7.n - 1].kind, RPL_EV_END);
	for (size_t i = 0; i < e7g.n; i++)
		same_event(&e7.ev[i], &e7g.ev[i], i);
	assert_string_equal(e7.id, e7g.id);
	/* against version 6: the same play, the order no play revealed in its canonical place */
	assert_int_equal(e6.n, e7.n);
	assert_int_equal(rpl_reader_open_memory(&rd, c7, c7n), 0);
	assert_int_equal(rpl_reader_format_version(rd), 7);
	n = rpl_reader_info(rd)->nplayers;
	for (size_t i = 0; i < e6.n; i++) {
		if (e6.ev[i].kind == RPL_EV_DEAL) {
			rpl_layout want;
			int drawn[3];
			dealer = e6.ev[i].deal == 1 ? rpl_reader_info(rd)->first_dealer : (dealer + 1) % n;
			canonical(&e6, i, n, dealer, &want, drawn);
			e6.ev[i].layout = want;
			/* recorded in order: version 6 every pile whole, version 7 (both forms) what play drew */
			assert_int_equal(e6.rec[i][0], RPL_STOCK_SIZE(n));
			assert_int_equal(e6.rec[i][1], RPL_MORTO_SIZE);
			assert_int_equal(e6.rec[i][2], RPL_MORTO_SIZE);
			assert_memory_equal(e7.rec[i], drawn, sizeof(drawn));
			assert_memory_equal(e7g.rec[i], drawn, sizeof(drawn));
		}
		same_event(&e6.ev[i], &e7.ev[i], i);
	}
	assert_int_equal(rpl_verify_reader(rd, NULL, &v7), 0);
	rpl_reader_free(rd);
	assert_int_equal(rpl_reader_open_memory(&rd, c6, c6n), 0);
	assert_int_equal(rpl_verify_reader(rd, NULL, &v6), 0);
	rpl_reader_free(rd);
	assert_int_equal(v6.kind, v7.kind);
	assert_int_equal(v6.actions, v7.actions);
	assert_int_equal(v6.total[0], v7.total[0]);
	assert_int_equal(v6.total[1], v7.total[1]);
	assert_string_equal(v6.message, v7.message);
	assert_true(c7n < c6n);
	free(e6.ev);
	free(e7.ev);
	free(e7g.ev);
	free(e6.rec);
	free(e7.rec);
	free(e7g.rec);
	free(g6);
	free(c6);
	free(g7);
	free(c7);
}

static void test_samples(void **state)
{
	static const char *const names[] = { "kzv-4p.brp",
		                                 "aberto-4p.brp",
		                                 "stbl-2p.brp",
		                                 "stbl-4p.brp",
		                                 "kzv-2p-v6.brp",
		                                 "disputed/claim-deal.brp",
		                                 "disputed/meld-two-wilds.brp" };
	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		check_sample(names[i]);
}

static void fill_info(rpl_match_info *info, rpl_rules *rules, int n)
{
	memset(info, 0, sizeof(*info));
	info->rules = rules;
	info->nplayers = n;
}

/* A deal of take-and-discard turns, longer than the reader's read-ahead (format.md 21.4). */
static void test_long_deal(void **state)
{
	const char *path = tl_tmp_path("v7-long.brp");
	const int turns = 5000;
	rpl_rules *rules = tl_rules("stbl", "pile_rule=free");
	rpl_match_info info;
	rpl_recorder *rec = NULL;
	rpl_layout lay;
	rpl_action draw = A_DRAW, take = A_TAKE, discard = A_DISCARD("7h");
	struct evs g, c;
	uint8_t *gp, *cp;
	size_t gn, cn;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	(void)state;
	assert_true(fd >= 0);
	fill_info(&info, rules, 2);
	tl_layout(&lay, 2, .stock = "7h");
	assert_int_equal(rpl__recorder_open_fd(&rec, fd, &info, RPL_RECORD_UNCHECKED, NULL, 7), 0);
	assert_int_equal(rpl_recorder_deal(rec, &lay), 0);
	assert_int_equal(rpl_recorder_action(rec, &draw), 0);
	assert_int_equal(rpl_recorder_action(rec, &discard), 0);
	for (int t = 1; t < turns; t++)
		if (rpl_recorder_action(rec, &take) != 0 || rpl_recorder_action(rec, &discard) != 0)
			fail_msg("turn %d: %s", t + 1, rpl_recorder_errmsg(rec));
	assert_int_equal(rpl_recorder_action(rec, &draw), 0);
	assert_int_equal(rpl_recorder_flush(rec), 0);
	gp = fd_bytes(fd, &gn);
	assert_int_equal(rpl_recorder_close(rec), 0);
	cp = fd_bytes(fd, &cn);
	rpl_recorder_free(rec);
	close(fd);
	read_events(gp, gn, &g);
	read_events(cp, cn, &c);
	assert_int_equal(g.got, 0);
	assert_int_equal(c.got, 0);
	assert_int_equal(g.n, 1 + 2 * turns + 1);
	assert_int_equal(c.n, g.n + 1);
	for (size_t i = 0; i < g.n; i++)
		same_event(&g.ev[i], &c.ev[i], i);
	assert_string_equal(g.id, c.id);
	/* the stock's two cards drawn, in their place: the first is 7h */
	assert_int_equal(c.ev[0].layout.stock[0], tl_card("7h"));
	assert_int_equal(c.ev[0].layout.stock[1], lay.stock[1]);
	/* and both forms say so (the growing form's deal read a second time): two stock cards, no morto */
	for (int k = 0; k < 3; k++) {
		assert_int_equal(g.rec[0][k], k == 0 ? 2 : 0);
		assert_int_equal(c.rec[0][k], k == 0 ? 2 : 0);
	}
	free(g.ev);
	free(g.rec);
	free(c.ev);
	free(c.rec);
	free(gp);
	free(cp);
	rpl_rules_free(rules);
	unlink(path);
}

/* ---- refusals ---- */

/* The log is refused, opened or read, with err and a message that holds what. */
static void assert_log_refused(const struct buf *log, int err, const char *what)
{
	rpl_reader *rd = NULL;
	int got = rpl_reader_open_memory(&rd, log->p, log->n);
	char msg[RPL_ERRMSG_SIZE];

	if (got == 0) {
		rpl_event ev;
		while ((got = rpl_reader_next(rd, &ev)) == 1)
			;
	}
	snprintf(msg, sizeof(msg), "%s", rpl_reader_errmsg(rd));
	rpl_reader_free(rd);
	if (got != err || !strstr(msg, what))
		fail_msg("got %d \"%s\", wanted %d and \"%s\"", got, msg, err, what);
}

/* A section of a log: its type and payload, found with the format's reader of sections. */
struct sec {
	uint8_t type;
	const uint8_t *p;
	size_t n;
};

static size_t sections_of(const uint8_t *data, size_t len, struct sec *out, size_t cap)
{
	size_t pos = BRP_MAGIC_LEN, sealed = 0, k = 0;
	struct section s;
	char why[RPL_ERRMSG_SIZE];

	while (k < cap && rpl__section_get(data, len, &pos, &s, &sealed, why, sizeof(why)) == 1) {
		out[k].type = s.type;
		out[k].p = s.payload;
		out[k++].n = s.len;
	}
	return k;
}

static void test_refusals(void **state)
{
	char src[4096];
	uint8_t *g7, *c7, *g6, *c6;
	size_t g7n, c7n, g6n, c6n, nc, ng, n6;
	struct sec c[8], gs[64], s6[64];
	struct buf log = { 0 }, hdr7 = { 0 }, hdr6 = { 0 };
	const uint8_t *m = NULL;
	size_t mn = 0;

	(void)state;
	snprintf(src, sizeof(src), "%s/samples/stbl-2p.brp", SRCROOT);
	rerecord(src, 7, &g7, &g7n, &c7, &c7n);
	rerecord(src, 6, &g6, &g6n, &c6, &c6n);
	nc = sections_of(c7, c7n, c, 8);
	ng = sections_of(g7, g7n, gs, 64);
	n6 = sections_of(g6, g6n, s6, 64);
	for (size_t i = 0; i < nc; i++)
		if (c[i].type == BRP_MATCH_TYPE) {
			m = c[i].p;
			mn = c[i].n;
		}
	assert_non_null(m);
	assert_true(ng > 2 && n6 > 2 && gs[0].type == 'H' && s6[0].type == 'H');
	rpl__section_put(&hdr7, 'H', gs[0].p, gs[0].n);
	rpl__section_put(&hdr6, 'H', s6[0].p, s6[0].n);
#define START(h)                                                                                                       \
	do {                                                                                                               \
		log.n = 0;                                                                                                     \
		rpl__buf_put(&log, BRP_MAGIC, BRP_MAGIC_LEN);                                                                  \
		rpl__buf_put(&log, (h).p, (h).n);                                                                              \
	} while (0)
	/* the stream alone, each section with its checksum: read whole */
	START(hdr7);
	rpl__section_put(&log, BRP_MATCH_TYPE, m, mn);
	rpl__section_put(&log, 'E', NULL, 0);
	{
		struct evs e;
		read_events(log.p, log.n, &e);
		assert_int_equal(e.got, 0);
		free(e.ev);
		free(e.rec);
	}
	/* in a version-6 log: a section this version does not know */
	START(hdr6);
	rpl__section_put(&log, BRP_MATCH_TYPE, m, mn);
	assert_log_refused(&log, RPL_EUNSUPPORTED, "required section 'M' is unknown");
	/* beside deal sections, twice, before one */
	START(hdr7);
	rpl__section_put(&log, gs[1].type, gs[1].p, gs[1].n);
	rpl__section_put(&log, BRP_MATCH_TYPE, m, mn);
	assert_log_refused(&log, RPL_ECORRUPT, "a match section in a log of deal sections");
	START(hdr7);
	rpl__section_put(&log, BRP_MATCH_TYPE, m, mn);
	rpl__section_put(&log, BRP_MATCH_TYPE, m, mn);
	assert_log_refused(&log, RPL_ECORRUPT, "a second match section");
	START(hdr7);
	rpl__section_put(&log, BRP_MATCH_TYPE, m, mn);
	rpl__section_put(&log, 'D', gs[1].p, gs[1].n);
	assert_log_refused(&log, RPL_ECORRUPT, "section 'D' after the match section");
	/* cut short, or with a byte more: the stream does not end where its payload does */
	START(hdr7);
	rpl__section_put(&log, BRP_MATCH_TYPE, m, mn / 2);
	assert_log_refused(&log, RPL_ECORRUPT, "byte");
	{
		uint8_t *more = malloc(mn + 1);
		memcpy(more, m, mn);
		more[mn] = 0x55;
		START(hdr7);
		rpl__section_put(&log, BRP_MATCH_TYPE, more, mn + 1);
		assert_log_refused(&log, RPL_ECORRUPT, "does not decode to its length");
		free(more);
	}
	/* claims in the end section: version 7 codes them in the stream */
	START(hdr7);
	rpl__section_put(&log, BRP_MATCH_TYPE, m, mn);
	rpl__section_put(&log, 'E', (const uint8_t *)"\x01", 1);
	assert_log_refused(&log, RPL_ECORRUPT, "an end section that holds claims");
	/* a version-7 header with a commitment */
	{
		rpl_rules *rules = tl_rules("stbl", NULL);
		rpl_match_info info;
		uint8_t commit[RPL_DEAL_COMMIT_SIZE] = { 1 };
		char why[RPL_ERRMSG_SIZE];
		struct buf h = { 0 };
		fill_info(&info, rules, 2);
		info.commitment = commit;
		info.commit_version = RPL_COMMIT_V2;
		assert_int_equal(rpl__header_put(&h, &info, NULL, 0, 7, why, sizeof(why)), 0);
		START(h);
		assert_log_refused(&log, RPL_ECORRUPT, "version 7 holds matches dealt freely");
		rpl__buf_free(&h);
		rpl_rules_free(rules);
	}
#undef START
	rpl__buf_free(&log);
	rpl__buf_free(&hdr7);
	rpl__buf_free(&hdr6);
	free(g7);
	free(c7);
	free(g6);
	free(c6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_samples),
		cmocka_unit_test(test_long_deal),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
