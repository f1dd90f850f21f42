/*
 * Logs where a platform keeps them (log.h): recorders to memory and through
 * callbacks, readers from a stream.
 *
 *   same bytes    one match recorded at once into a file, through callbacks
 *                 and into memory, unsigned and signed: after every flush the
 *                 file, the concatenation of the writes and the memory hold
 *                 the same bytes; after close the file, what replace was
 *                 given, rpl_recorder_log of each, and the memory are the
 *                 same compact form, which verifies ok
 *   no replace    a sink without replace keeps the growing form at close, and
 *                 the caller gets the compact form from rpl_recorder_log
 *   failing       a write that fails (having stored half of its bytes, or
 *                 none), a flush that fails, a replace that fails: RPL_EIO and
 *                 the callback's name; nothing more is recorded (RPL_ESTATE),
 *                 the sink is never handed the same bytes twice, and close
 *                 still hands the compact form of what was recorded; a
 *                 failure on the header fails the open
 *   killed        a signed recording stopped before close: what the sink and
 *                 the memory hold is a log that reads to its end, unclosed,
 *                 its signature covering every byte; cut inside its last
 *                 flush, it is malformed at that flush and rpl_recover
 *                 salvages the flushes before (rpl_recover_reader from its
 *                 bytes the same)
 *   streams       rpl_reader_open_fd on a pipe gives what the memory reader
 *                 gives; a stream longer than the limit is refused with
 *                 RPL_ELIMIT; rpl_positions_reader gives the positions and
 *                 the verdict of rpl_positions_file
 */
#include "testlib.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- a sink: a growing buffer, as a database row or an object would be -------- */

struct store {
	unsigned char *p;
	size_t n, cap;
	int writes, flushes, replaces, syncs;
	int fail_write;    /* the write with this number (from 1) fails; 0 never */
	int half;          /* ... after storing half of its bytes */
	int fail_flush;    /* the flush with this number fails */
	int fail_replace;  /* replace fails this many times */
	size_t last_write; /* bytes of the last write handed */
};

static void store_put(struct store *s, const void *p, size_t n)
{
	if (s->n + n > s->cap) {
		s->cap = (s->n + n) * 2;
		s->p = realloc(s->p, s->cap);
		assert_non_null(s->p);
	}
	memcpy(s->p + s->n, p, n);
	s->n += n;
}

static int store_write(void *ctx, const void *data, size_t len)
{
	struct store *s = ctx;

	assert_true(len > 0);
	s->writes++;
	s->last_write = len;
	if (s->writes == s->fail_write) {
		if (s->half)
			store_put(s, data, len / 2);
		return -1;
	}
	store_put(s, data, len);
	return 0;
}

static int store_flush(void *ctx, int sync)
{
	struct store *s = ctx;

	s->flushes++;
	s->syncs += sync;
	return s->flushes == s->fail_flush ? 1 : 0;
}

static int store_replace(void *ctx, const void *data, size_t len)
{
	struct store *s = ctx;

	s->replaces++;
	if (s->fail_replace > 0) {
		s->fail_replace--;
		return -3;
	}
	s->n = 0;
	store_put(s, data, len);
	return 0;
}

static rpl_recorder_sink sink_of(struct store *s, int with_replace)
{
	rpl_recorder_sink k = { s, store_write, store_flush, with_replace ? store_replace : NULL };
	return k;
}

/* ---- a match ---------------------------------------------------------------- */

static const char *const names[] = { "Ana", "Bia", "Caio", "Duda" };
static const char *const meta_keys[] = { "platform" };
static const char *const meta_values[] = { "test_io" };

static void fill_info(rpl_match_info *info, const rpl_rules *rules)
{
	memset(info, 0, sizeof(*info));
	info->rules = rules;
	info->nplayers = 4;
	for (int s = 0; s < 4; s++)
		info->players[s] = names[s];
	info->first_dealer = 3;
	info->start_time = 1767225600;
	info->nmeta = 1;
	info->meta_keys = meta_keys;
	info->meta_values = meta_values;
}

/* Up to three recorders fed the same match; NULL ones are skipped. */
struct trio {
	rpl_recorder *rec[3];
	rpl_bot *bot;
	rpl_rng rng;
	int made;
};

static void each_ok(struct trio *t, int (*fn)(rpl_recorder *, const void *), const void *arg)
{
	for (int i = 0; i < 3; i++)
		if (t->rec[i])
			assert_int_equal(fn(t->rec[i], arg), 0);
}

static int do_deal(rpl_recorder *r, const void *a)
{
	return rpl_recorder_deal(r, a);
}
static int do_action(rpl_recorder *r, const void *a)
{
	return rpl_recorder_action(r, a);
}
static int do_claim(rpl_recorder *r, const void *a)
{
	return rpl_recorder_claim(r, 0, a);
}

/*
 * Play up to max decisions (the bots choose from the first recorder's game),
 * calling at() after each; 1 when the match is over.
 */
static int play(struct trio *t, int max, void (*at)(struct trio *, void *), void *ud)
{
	const rpl_game *g = rpl_recorder_game(t->rec[0]);

	while (rpl_game_phase(g) != RPL_PHASE_MATCH_OVER && t->made < max) {
		rpl_layout lay;
		if (rpl_game_phase(g) == RPL_PHASE_NO_DEAL || rpl_game_phase(g) == RPL_PHASE_DEAL_OVER) {
			rpl_layout_shuffle(&lay, 4, &t->rng);
			each_ok(t, do_deal, &lay);
			continue;
		}
		{
			rpl_action a;
			assert_int_equal(rpl_bot_choose(t->bot, g, &a), 0);
			each_ok(t, do_action, &a);
			t->made++;
			if (at)
				at(t, ud);
		}
	}
	if (rpl_game_phase(g) == RPL_PHASE_MATCH_OVER) {
		int32_t total[2] = { rpl_game_total(g, 0), rpl_game_total(g, 1) };
		each_ok(t, do_claim, total);
		return 1;
	}
	return 0;
}

static void trio_start(struct trio *t, uint64_t seed)
{
	memset(t, 0, sizeof(*t));
	rpl_rng_seed(&t->rng, seed);
	assert_int_equal(rpl_bot_new(&t->bot, RPL_BOT_GREEDY, seed), 0);
}

static void trio_free(struct trio *t)
{
	for (int i = 0; i < 3; i++)
		rpl_recorder_free(t->rec[i]);
	rpl_bot_free(t->bot);
}

static void same_bytes_at(const void *a, size_t an, const void *b, size_t bn, const char *what, const char *file,
                          int line)
{
	if (an != bn || (an && memcmp(a, b, an) != 0))
		tl_fail_at(file, line, "%s: %zu bytes against %zu, or different bytes", what, an, bn);
}
#define same_bytes(a, an, b, bn, what) same_bytes_at((a), (an), (b), (bn), (what), __FILE__, __LINE__)

/* The verdict on n bytes at p, through the memory reader. */
static void verdict_of(const void *p, size_t n, rpl_verdict *v)
{
	rpl_reader *rd = NULL;

	rpl_reader_open_memory(&rd, p, n);
	assert_int_equal(rpl_verify_reader(rd, NULL, v), 0);
	rpl_reader_free(rd);
}

/* ---- same bytes ------------------------------------------------------------- */

struct cmp {
	const char *path;
	struct store *store;
	int every;
	int flushes;
};

/* Flush the three every few decisions and compare what each holds. */
static void flush_and_compare(struct trio *t, void *ud)
{
	struct cmp *c = ud;
	unsigned char *fbytes;
	const uint8_t *m;
	size_t fn, mn;

	if (t->made % c->every)
		return;
	for (int i = 0; i < 3; i++)
		assert_int_equal(rpl_recorder_flush(t->rec[i]), 0);
	c->flushes++;
	fbytes = tl_read_file(c->path, &fn);
	assert_int_equal(rpl_recorder_log(&m, &mn, t->rec[2]), 0);
	same_bytes(fbytes, fn, c->store->p, c->store->n, "file and callbacks, growing");
	same_bytes(fbytes, fn, m, mn, "file and memory, growing");
	free(fbytes);
}

static void same_bytes_run(const rpl_seckey *key)
{
	const char *path = tl_tmp_path("same.brp");
	rpl_rules *rules = tl_rules("stbl", NULL);
	rpl_match_info info;
	struct store st = { 0 };
	rpl_recorder_sink sink = sink_of(&st, 1);
	struct cmp c = { path, &st, 7, 0 };
	struct trio t;
	unsigned char *fbytes;
	const uint8_t *m, *lent;
	size_t fn, mn, ln;
	rpl_verdict v;

	fill_info(&info, rules);
	trio_start(&t, 42);
	assert_int_equal(rpl_recorder_open_signed(&t.rec[0], path, &info, RPL_RECORD_SYNC, key), 0);
	assert_int_equal(rpl_recorder_open_sink(&t.rec[1], &sink, &info, RPL_RECORD_SYNC, key), 0);
	assert_int_equal(rpl_recorder_open_memory(&t.rec[2], &info, RPL_RECORD_SYNC, key), 0);
	/* the header is written and flushed at open */
	assert_int_equal(st.writes, 1);
	assert_int_equal(st.flushes, 1);
	assert_int_equal(st.syncs, 1);
	/* a file or sink recorder lends nothing before close */
	assert_int_equal(rpl_recorder_log(&lent, &ln, t.rec[0]), RPL_ESTATE);
	assert_int_equal(rpl_recorder_log(&lent, &ln, t.rec[1]), RPL_ESTATE);
	assert_int_equal(play(&t, 100000, flush_and_compare, &c), 1);
	assert_true(c.flushes > 10);
	/* a flush with nothing new calls nothing */
	{
		int w = st.writes;
		for (int i = 0; i < 3; i++)
			assert_int_equal(rpl_recorder_flush(t.rec[i]), 0);
		if (t.made % c.every == 0)
			assert_int_equal(st.writes, w);
		w = st.writes;
		assert_int_equal(rpl_recorder_flush(t.rec[1]), 0);
		assert_int_equal(st.writes, w);
	}
	for (int i = 0; i < 3; i++)
		assert_int_equal(rpl_recorder_close(t.rec[i]), 0);
	assert_int_equal(st.replaces, 1);
	fbytes = tl_read_file(path, &fn);
	same_bytes(fbytes, fn, st.p, st.n, "file and callbacks, compact");
	assert_int_equal(rpl_recorder_log(&m, &mn, t.rec[2]), 0);
	same_bytes(fbytes, fn, m, mn, "file and memory, compact");
	assert_int_equal(rpl_recorder_log(&lent, &ln, t.rec[0]), 0);
	same_bytes(fbytes, fn, lent, ln, "file and its recorder's log");
	assert_int_equal(rpl_recorder_log(&lent, &ln, t.rec[1]), 0);
	same_bytes(fbytes, fn, lent, ln, "file and the sink recorder's log");
	verdict_of(m, mn, &v);
	assert_int_equal(v.kind, RPL_VERDICT_OK);
	assert_int_equal(v.closed, 1);
	assert_int_equal(v.signature.status, key ? RPL_SIG_OK : RPL_SIG_UNSIGNED);
	assert_int_equal(v.actions, t.made);
	free(fbytes);
	free(st.p);
	trio_free(&t);
	unlink(path);
	rpl_rules_free(rules);
}

static void test_same_bytes(void **state)
{
	rpl_seckey *key = NULL;

	(void)state;
	same_bytes_run(NULL);
	assert_int_equal(rpl_seckey_generate(&key), 0);
	same_bytes_run(key);
	rpl_seckey_free(key);
}

/* ---- no replace ------------------------------------------------------------- */

static void test_no_replace(void **state)
{
	rpl_rules *rules = tl_rules("kzv", NULL);
	rpl_match_info info;
	struct store st = { 0 };
	rpl_recorder_sink sink = sink_of(&st, 0);
	struct trio t;
	const uint8_t *compact, *m;
	size_t cn, mn;
	rpl_verdict v;
	unsigned char *growing;
	size_t gn;

	(void)state;
	fill_info(&info, rules);
	trio_start(&t, 7);
	assert_int_equal(rpl_recorder_open_sink(&t.rec[0], &sink, &info, 0, NULL), 0);
	assert_int_equal(rpl_recorder_open_memory(&t.rec[1], &info, 0, NULL), 0);
	assert_int_equal(play(&t, 100000, NULL, NULL), 1);
	assert_int_equal(rpl_recorder_flush(t.rec[0]), 0);
	assert_int_equal(rpl_recorder_flush(t.rec[1]), 0);
	assert_int_equal(st.syncs, 0);
	growing = malloc(st.n);
	assert_non_null(growing);
	memcpy(growing, st.p, st.n);
	gn = st.n;
	assert_int_equal(rpl_recorder_close(t.rec[0]), 0);
	assert_int_equal(rpl_recorder_close(t.rec[1]), 0);
	/* the sink keeps the growing form; the compact form is the caller's to take */
	same_bytes(st.p, st.n, growing, gn, "the sink after close");
	assert_int_equal(rpl_recorder_log(&compact, &cn, t.rec[0]), 0);
	assert_int_equal(rpl_recorder_log(&m, &mn, t.rec[1]), 0);
	same_bytes(compact, cn, m, mn, "compact forms");
	assert_false(cn == gn && memcmp(compact, growing, gn) == 0);
	verdict_of(st.p, st.n, &v);
	assert_int_equal(v.kind, RPL_VERDICT_OK);
	assert_int_equal(v.closed, 0);
	verdict_of(compact, cn, &v);
	assert_int_equal(v.kind, RPL_VERDICT_OK);
	assert_int_equal(v.closed, 1);
	/* closed: nothing more */
	assert_int_equal(rpl_recorder_close(t.rec[0]), RPL_ESTATE);
	assert_int_equal(rpl_recorder_flush(t.rec[1]), RPL_ESTATE);
	free(growing);
	free(st.p);
	trio_free(&t);
	rpl_rules_free(rules);
}

/* ---- failing callbacks ------------------------------------------------------ */

static void failing_write_run(int half)
{
	const char *path = tl_tmp_path("salvage.brp"), *out = tl_tmp_path("salvaged.brp");
	rpl_rules *rules = tl_rules("stbl", NULL);
	rpl_match_info info;
	struct store st = { 0 };
	rpl_recorder_sink sink = sink_of(&st, 1);
	struct trio t;
	rpl_action a;
	rpl_verdict v;
	rpl_recover_report rep;
	size_t before, held;
	int writes;

	fill_info(&info, rules);
	trio_start(&t, 11);
	st.fail_write = 4;
	st.half = half;
	assert_int_equal(rpl_recorder_open_sink(&t.rec[0], &sink, &info, 0, NULL), 0);
	assert_int_equal(rpl_recorder_open_memory(&t.rec[1], &info, 0, NULL), 0);
	for (int flush = 1; flush <= 2; flush++) {
		play(&t, 20 * flush, NULL, NULL);
		assert_int_equal(rpl_recorder_flush(t.rec[0]), 0);
		assert_int_equal(rpl_recorder_flush(t.rec[1]), 0);
	}
	play(&t, 60, NULL, NULL);
	before = st.n;
	assert_int_equal(rpl_recorder_flush(t.rec[0]), RPL_EIO);
	assert_string_equal(rpl_recorder_errmsg(t.rec[0]), "the sink's write failed");
	held = st.n;
	assert_int_equal(held, before + (half ? st.last_write / 2 : 0));
	/* the recording is over: nothing more is recorded, nothing handed again */
	assert_int_equal(rpl_bot_choose(t.bot, rpl_recorder_game(t.rec[0]), &a), 0);
	assert_int_equal(rpl_recorder_action(t.rec[0], &a), RPL_ESTATE);
	assert_int_equal(rpl_recorder_deal(t.rec[0], &(rpl_layout){ 0 }), RPL_ESTATE);
	assert_int_equal(rpl_recorder_claim(t.rec[0], 1, (int32_t[2]){ 0, 0 }), RPL_ESTATE);
	writes = st.writes;
	assert_int_equal(rpl_recorder_flush(t.rec[0]), RPL_ESTATE);
	assert_int_equal(st.writes, writes);
	assert_int_equal(st.n, held);
	/* what the sink holds: the flushes before, and (half) a cut section */
	verdict_of(st.p, st.n, &v);
	if (half) {
		/* the first half of a flush: its whole sections, then a cut one */
		assert_int_equal(v.kind, RPL_VERDICT_MALFORMED);
		assert_true(v.offset >= before && v.offset < held);
		tl_write_file(path, st.p, st.n);
		assert_int_equal(rpl_recover(path, out, 0, &rep), 0);
		assert_int_equal(rep.read_bytes, v.offset);
		assert_int_equal(rep.damaged, 1);
		unlink(path);
		unlink(out);
	} else {
		assert_int_equal(v.kind, RPL_VERDICT_INCOMPLETE);
		assert_int_equal(v.closed, 0);
	}
	/* close still hands the whole match recorded, compact, to replace */
	writes = st.writes;
	assert_int_equal(rpl_recorder_close(t.rec[0]), 0);
	assert_int_equal(st.writes, writes);
	assert_int_equal(st.replaces, 1);
	assert_int_equal(rpl_recorder_close(t.rec[1]), 0);
	{
		const uint8_t *m;
		size_t mn;
		assert_int_equal(rpl_recorder_log(&m, &mn, t.rec[1]), 0);
		same_bytes(st.p, st.n, m, mn, "the compact form after a failed write");
	}
	verdict_of(st.p, st.n, &v);
	assert_int_equal(v.kind, RPL_VERDICT_INCOMPLETE);
	assert_int_equal(v.closed, 1);
	assert_int_equal(v.actions, t.made);
	free(st.p);
	trio_free(&t);
	rpl_rules_free(rules);
}

static void test_failing_callbacks(void **state)
{
	rpl_rules *rules = tl_rules("stbl", NULL);
	rpl_match_info info;
	struct trio t;

	(void)state;
	failing_write_run(0);
	failing_write_run(1);
	fill_info(&info, rules);

	/* a flush that fails */
	{
		struct store st = { 0 };
		rpl_recorder_sink sink = sink_of(&st, 1);
		trio_start(&t, 5);
		st.fail_flush = 2;
		assert_int_equal(rpl_recorder_open_sink(&t.rec[0], &sink, &info, 0, NULL), 0);
		play(&t, 10, NULL, NULL);
		assert_int_equal(rpl_recorder_flush(t.rec[0]), RPL_EIO);
		assert_string_equal(rpl_recorder_errmsg(t.rec[0]), "the sink's flush failed");
		assert_int_equal(rpl_recorder_flush(t.rec[0]), RPL_ESTATE);
		free(st.p);
		trio_free(&t);
	}
	/* a replace that fails: the growing form stays, close may be tried again */
	{
		struct store st = { 0 };
		rpl_recorder_sink sink = sink_of(&st, 1);
		unsigned char *growing;
		size_t gn;
		rpl_verdict v;
		trio_start(&t, 6);
		st.fail_replace = 1;
		assert_int_equal(rpl_recorder_open_sink(&t.rec[0], &sink, &info, 0, NULL), 0);
		play(&t, 30, NULL, NULL);
		assert_int_equal(rpl_recorder_flush(t.rec[0]), 0);
		gn = st.n;
		growing = malloc(gn);
		assert_non_null(growing);
		memcpy(growing, st.p, gn);
		assert_int_equal(rpl_recorder_close(t.rec[0]), RPL_EIO);
		assert_string_equal(rpl_recorder_errmsg(t.rec[0]), "the sink's replace failed");
		same_bytes(st.p, st.n, growing, gn, "the sink after a failed replace");
		assert_int_equal(rpl_recorder_log(&(const uint8_t *){ NULL }, &(size_t){ 0 }, t.rec[0]), RPL_ESTATE);
		assert_int_equal(rpl_recorder_close(t.rec[0]), 0);
		assert_int_equal(st.replaces, 2);
		verdict_of(st.p, st.n, &v);
		assert_int_equal(v.closed, 1);
		assert_false(st.n == gn && memcmp(st.p, growing, gn) == 0);
		free(growing);
		free(st.p);
		trio_free(&t);
	}
	/* the header cannot be written: the open fails, and says why */
	for (int half = 0; half <= 1; half++) {
		struct store st = { 0 };
		rpl_recorder_sink sink = sink_of(&st, 1);
		rpl_recorder *rec = NULL;
		st.fail_write = 1;
		st.half = half;
		assert_int_equal(rpl_recorder_open_sink(&rec, &sink, &info, 0, NULL), RPL_EIO);
		assert_non_null(rec);
		assert_string_equal(rpl_recorder_errmsg(rec), "the sink's write failed");
		rpl_recorder_free(rec);
		free(st.p);
	}
	/* NULL arguments */
	{
		struct store st = { 0 };
		rpl_recorder_sink sink = sink_of(&st, 1);
		rpl_recorder *rec = NULL;
		sink.write = NULL;
		assert_int_equal(rpl_recorder_open_sink(&rec, &sink, &info, 0, NULL), RPL_EINVAL);
		assert_null(rec);
		assert_int_equal(rpl_recorder_open_sink(&rec, NULL, &info, 0, NULL), RPL_EINVAL);
		assert_int_equal(rpl_recorder_open_memory(&rec, NULL, 0, NULL), RPL_EINVAL);
		assert_int_equal(rpl_recorder_open_memory(NULL, &info, 0, NULL), RPL_EINVAL);
		assert_int_equal(rpl_recorder_log(NULL, NULL, NULL), RPL_EINVAL);
		assert_int_equal(st.writes, 0);
	}
	rpl_rules_free(rules);
}

/* ---- killed ------------------------------------------------------------------- */

static void test_killed(void **state)
{
	const char *path = tl_tmp_path("killed.brp"), *out = tl_tmp_path("killed-out.brp");
	rpl_rules *rules = tl_rules("stbl", NULL);
	rpl_match_info info;
	struct store st = { 0 };
	rpl_recorder_sink sink = sink_of(&st, 1);
	rpl_seckey *key = NULL;
	struct trio t;
	unsigned char *mem;
	size_t mn, last;
	const uint8_t *m;
	rpl_verdict v;
	rpl_recover_report rep;

	(void)state;
	assert_int_equal(rpl_seckey_generate(&key), 0);
	fill_info(&info, rules);
	trio_start(&t, 99);
	assert_int_equal(rpl_recorder_open_sink(&t.rec[0], &sink, &info, 0, key), 0);
	assert_int_equal(rpl_recorder_open_memory(&t.rec[1], &info, 0, key), 0);
	for (int k = 1; k <= 5; k++) {
		play(&t, 15 * k, NULL, NULL);
		last = st.n;
		assert_int_equal(rpl_recorder_flush(t.rec[0]), 0);
		assert_int_equal(rpl_recorder_flush(t.rec[1]), 0);
	}
	/* decisions recorded after the last flush are lost, as in a file */
	play(&t, 90, NULL, NULL);
	assert_int_equal(rpl_recorder_log(&m, &mn, t.rec[1]), 0);
	mem = malloc(mn);
	assert_non_null(mem);
	memcpy(mem, m, mn);
	trio_free(&t); /* the process stops: no close */
	same_bytes(st.p, st.n, mem, mn, "sink and memory, killed");
	assert_int_equal(st.replaces, 0);
	verdict_of(mem, mn, &v);
	assert_int_equal(v.kind, RPL_VERDICT_INCOMPLETE);
	assert_int_equal(v.closed, 0);
	assert_int_equal(v.actions, 75);
	assert_int_equal(v.signature.status, RPL_SIG_OK);
	assert_int_equal(v.signature.covered, mn);
	/*
	 * cut inside the last flush: malformed there, its signature partial (so
	 * untrusted: the header says the log is signed), the rest salvaged
	 */
	verdict_of(mem, mn - 5, &v);
	assert_int_equal(v.kind, RPL_VERDICT_UNTRUSTED);
	assert_int_equal(v.replay, RPL_VERDICT_MALFORMED);
	assert_true(v.offset >= last && v.offset < mn);
	assert_int_equal(v.signature.status, RPL_SIG_PARTIAL);
	assert_int_equal(v.signature.covered, last);
	tl_write_file(path, mem, mn - 5);
	assert_int_equal(rpl_recover(path, out, 0, &rep), 0);
	assert_int_equal(rep.damaged, 1);
	assert_int_equal(rep.read_bytes, v.offset);
	/* the same salvage from the bytes, through a reader (brp recover -) */
	{
		const char *out2 = tl_tmp_path("killed-out2.brp");
		rpl_recover_report rep2;
		rpl_reader *rd = NULL;
		unsigned char *a, *b;
		size_t an, bn;
		assert_int_equal(rpl_reader_open_memory(&rd, mem, mn - 5), 0);
		assert_int_equal(rpl_recover_reader(rd, out2, 0, &rep2), 0);
		rpl_reader_free(rd);
		assert_string_equal(rep2.message, rep.message);
		a = tl_read_file(out, &an);
		b = tl_read_file(out2, &bn);
		same_bytes(a, an, b, bn, "rpl_recover and rpl_recover_reader");
		free(a);
		free(b);
		unlink(out2);
		/* a reader that could not open: nothing to salvage */
		assert_int_equal(rpl_reader_open_memory(&rd, mem, 4), RPL_ECORRUPT);
		assert_int_equal(rpl_recover_reader(rd, out2, 0, &rep2), RPL_ECORRUPT);
		assert_non_null(strstr(rep2.message, "nothing to salvage"));
		rpl_reader_free(rd);
		assert_int_equal(access(out2, F_OK), -1);
	}
	unlink(path);
	unlink(out);
	free(mem);
	free(st.p);
	rpl_seckey_free(key);
	rpl_rules_free(rules);
}

/* ---- streams ------------------------------------------------------------------ */

static int count_position(void *ctx, const rpl_position *p)
{
	int *n = ctx;
	(*n)++;
	return p->index == *n - 1 ? 0 : 1;
}

static void test_streams(void **state)
{
	const char *sample = SRCROOT "/samples/stbl-4p.brp";
	const char *big = tl_tmp_path("big.brp");
	unsigned char *bytes;
	size_t n;
	int fds[2], fd, got_a, got_b, pa = 0, pb = 0;
	rpl_reader *a = NULL, *b = NULL;
	rpl_event ea, eb;
	rpl_verdict va, vb;

	(void)state;
	bytes = tl_read_file(sample, &n);
	assert_true(n < 4096); /* fits a pipe's buffer: written at once, then read */
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], bytes, n), (ssize_t)n);
	close(fds[1]);
	assert_int_equal(rpl_reader_open_fd(&a, fds[0]), 0);
	close(fds[0]);
	assert_int_equal(rpl_reader_open_memory(&b, bytes, n), 0);
	assert_int_equal(rpl_reader_bytes(a), n);
	do {
		memset(&ea, 0, sizeof(ea));
		memset(&eb, 0, sizeof(eb));
		got_a = rpl_reader_next(a, &ea);
		got_b = rpl_reader_next(b, &eb);
		assert_int_equal(got_a, got_b);
		assert_memory_equal(&ea, &eb, sizeof(ea));
	} while (got_a == 1);
	assert_int_equal(got_a, 0);
	rpl_reader_free(a);
	rpl_reader_free(b);
	a = b = NULL;

	/* positions from a reader: those of the file */
	assert_int_equal(rpl_reader_open_memory(&a, bytes, n), 0);
	assert_int_equal(rpl_positions_reader(a, NULL, count_position, &pa, &va), 0);
	assert_int_equal(rpl_positions_file(sample, NULL, count_position, &pb, &vb), 0);
	assert_true(pa > 100);
	assert_int_equal(pa, pb);
	assert_int_equal(va.kind, vb.kind);
	assert_string_equal(va.message, vb.message);
	assert_string_equal(va.match_id, vb.match_id);
	rpl_reader_free(a);
	a = NULL;
	/* ... and of a damaged log */
	assert_int_equal(rpl_reader_open_memory(&a, bytes, n - 3), 0);
	pa = pb = 0;
	assert_int_equal(rpl_positions_reader(a, NULL, count_position, &pa, &va), 0);
	assert_int_equal(va.kind, RPL_VERDICT_MALFORMED);
	rpl_reader_free(a);
	a = NULL;

	/* longer than a reader accepts: refused, without reading on */
	fd = open(big, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)(64u << 20) + 100), 0);
	assert_int_equal(rpl_reader_open_fd(&a, fd), RPL_ELIMIT);
	assert_non_null(a);
	assert_non_null(strstr(rpl_reader_errmsg(a), "bytes a reader accepts"));
	assert_int_equal(rpl_reader_bytes(a), 0);
	assert_int_equal(lseek(fd, 0, SEEK_CUR), (off_t)(64u << 20) + 1);
	rpl_reader_free(a);
	a = NULL;
	assert_int_equal(rpl_reader_open_fd(&a, -1), RPL_EINVAL);
	assert_null(a);
	close(fd);
	unlink(big);
	free(bytes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_bytes), cmocka_unit_test(test_no_replace), cmocka_unit_test(test_failing_callbacks),
		cmocka_unit_test(test_killed),     cmocka_unit_test(test_streams),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
