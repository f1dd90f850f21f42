/*
 * The text notation (notation.h, docs/notation.md): the parser line by line
 * (what each line holds, and the exact error with its line and column), the
 * checks against the recorder (seat to move, turn numbers, deal numbers),
 * and the round trips: a log -> text -> log is byte-identical and a
 * canonical text -> log -> text is identical, over matches played at random
 * (fixed seeds) through the rules engine.
 */
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- helpers ---------------------------------------------------------- */

/* A scratch file name under $TMPDIR, unique to this process. */
static const char *tmp_path(const char *tag)
{
	static char buf[4][256];
	static int k;
	const char *dir = getenv("TMPDIR");
	char *p = buf[k++ % 4];

	snprintf(p, 256, "%s/test_notation.%ld.%s", dir && *dir ? dir : "/tmp", (long)getpid(), tag);
	return p;
}

static unsigned char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return buf;
}

struct text {
	char *s;
	size_t n, cap;
};

static int text_put(void *ud, const char *s, size_t n)
{
	struct text *t = ud;

	if (t->n + n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 4096;
		while (cap < t->n + n + 1)
			cap *= 2;
		t->s = realloc(t->s, cap);
		assert_non_null(t->s);
		t->cap = cap;
	}
	memcpy(t->s + t->n, s, n);
	t->n += n;
	t->s[t->n] = '\0';
	return 0;
}

/* The canonical text of the log at path. */
static char *dump(const char *path)
{
	rpl_reader *rd = NULL;
	struct text t = { 0 };
	char err[300];
	int rc = rpl_reader_open(&rd, path);

	if (rc < 0)
		tl_fail("rpl_reader_open(%s) = %d: %s", path, rc, rd ? rpl_reader_errmsg(rd) : "");
	rc = rpl_notation_write(rd, text_put, &t, err, sizeof err);
	if (rc < 0)
		tl_fail("rpl_notation_write = %d: %s", rc, err);
	rpl_reader_free(rd);
	return t.s;
}

static void import_ok_at(const char *text, const char *path, const char *file, int line)
{
	char err[400];
	int rc = rpl_notation_import(text, strlen(text), path, err, sizeof err);

	if (rc != 0)
		tl_fail_at(file, line, "rpl_notation_import = %d: %s", rc, err);
}
#define import_ok(text, path) import_ok_at((text), (path), __FILE__, __LINE__)

/* ---- random legal matches ---------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
	/* splitmix64: fixed seeds give the same match on every platform */
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void shuffled_layout(rpl_layout *lay, int nplayers, uint64_t *seed)
{
	rpl_card deck[RPL_DECK_SIZE];
	size_t n = 0, k = 0;

	for (rpl_card c = 0; c < RPL_NFACES; c++)
		for (int i = 0; i < rpl_card_copies(c); i++)
			deck[n++] = c;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(rng_next(seed) % (i + 1));
		rpl_card t = deck[i];
		deck[i] = deck[j];
		deck[j] = t;
	}
	memset(lay, 0, sizeof *lay);
	for (int s = 0; s < nplayers; s++)
		for (int i = 0; i < RPL_HAND_SIZE; i++)
			lay->hand[s][i] = deck[k++];
	for (int m = 0; m < 2; m++)
		for (int i = 0; i < RPL_MORTO_SIZE; i++)
			lay->morto[m][i] = deck[k++];
	for (int i = 0; i < RPL_STOCK_SIZE(nplayers); i++)
		lay->stock[i] = deck[k++];
}

/*
 * Record a match played at random through the engine (checked mode) into
 * path: up to max_deals deals, up to max_actions decisions in all; claims of
 * each finished deal's score; closed with "end" when close is set. Returns
 * the number of decisions recorded.
 */
static int play_random(const char *path, const char *profile, int nplayers, uint64_t seed, int max_deals,
                       int max_actions, int close)
{
	rpl_rules *r = tl_rules(profile, NULL);
	rpl_match_info info;
	rpl_recorder *rec = NULL;
	rpl_action legal[512];
	rpl_layout lay;
	int rc, actions = 0, deals = 0;
	static const char *const keys[] = { "platform", "table" };
	static const char *const values[] = { "unit \"test\"", "Mesa 7 \xc3\xa9" };

	memset(&info, 0, sizeof info);
	info.rules = r;
	info.nplayers = nplayers;
	info.players[0] = "Ana";
	info.players[1] = nplayers == 4 ? "" : "Bruno";
	if (nplayers == 4)
		info.players[3] = "Caio \\ Dora";
	info.first_dealer = nplayers - 1;
	info.start_time = 1795917503; /* 2026-11-30T01:58:23Z */
	info.nmeta = 2;
	info.meta_keys = keys;
	info.meta_values = values;
	rc = rpl_recorder_open(&rec, path, &info, 0);
	if (rc < 0)
		tl_fail("rpl_recorder_open = %d: %s", rc, rec ? rpl_recorder_errmsg(rec) : "");
	while (deals < max_deals && actions < max_actions) {
		const rpl_game *g = rpl_recorder_game(rec);
		int phase = rpl_game_phase(g);

		if (phase == RPL_PHASE_MATCH_OVER)
			break;
		if (phase == RPL_PHASE_NO_DEAL || phase == RPL_PHASE_DEAL_OVER) {
			if (phase == RPL_PHASE_DEAL_OVER) {
				int32_t score[2];
				rpl_score sc;
				for (int s = 0; s < 2; s++) {
					rpl_game_deal_score(g, s, &sc);
					score[s] = sc.total;
				}
				assert_int_equal(rpl_recorder_claim(rec, rpl_game_deal_number(g), score), 0);
			}
			shuffled_layout(&lay, nplayers, &seed);
			rc = rpl_recorder_deal(rec, &lay);
			if (rc < 0)
				tl_fail("rpl_recorder_deal = %d: %s", rc, rpl_recorder_errmsg(rec));
			deals++;
			continue;
		}
		{
			size_t n = rpl_game_legal(g, legal, sizeof legal / sizeof legal[0]), tried = 0;
			int done = 0, want_discard = (rng_next(&seed) % 3) == 0;

			if (n > sizeof legal / sizeof legal[0])
				n = sizeof legal / sizeof legal[0];
			/* shuffle the candidates; prefer a discard now and then so turns end */
			for (size_t i = n; i > 1; i--) {
				size_t j = (size_t)(rng_next(&seed) % i);
				rpl_action t = legal[i - 1];
				legal[i - 1] = legal[j];
				legal[j] = t;
			}
			for (int pass = 0; pass < 2 && !done; pass++)
				for (size_t i = 0; i < n && !done; i++) {
					if (pass == 0 && want_discard != (legal[i].kind == RPL_ACT_DISCARD))
						continue;
					tried++;
					if (rpl_recorder_action(rec, &legal[i]) == 0)
						done = 1;
				}
			if (!done)
				break; /* stuck: the log simply ends here */
			actions++;
		}
	}
	if (close) {
		int32_t total[2] = { rpl_game_total(rpl_recorder_game(rec), 0), rpl_game_total(rpl_recorder_game(rec), 1) };
		assert_int_equal(rpl_recorder_claim(rec, 0, total), 0);
		rc = rpl_recorder_close(rec);
		if (rc < 0)
			tl_fail("rpl_recorder_close = %d: %s", rc, rpl_recorder_errmsg(rec));
	} else {
		assert_int_equal(rpl_recorder_flush(rec), 0);
	}
	rpl_recorder_free(rec);
	rpl_rules_free(r);
	return actions;
}

/* log -> text -> log is byte-identical; text -> log -> text is identical. */
static void round_trip(const char *profile, int nplayers, uint64_t seed, int max_deals, int max_actions, int close)
{
	const char *a = tmp_path("a.brp"), *b = tmp_path("b.brp");
	unsigned char *ba, *bb;
	size_t na = 0, nb = 0;
	char *t1, *t2;

	play_random(a, profile, nplayers, seed, max_deals, max_actions, close);
	t1 = dump(a);
	import_ok(t1, b);
	ba = read_all(a, &na);
	bb = read_all(b, &nb);
	assert_non_null(ba);
	assert_non_null(bb);
	if (na != nb || memcmp(ba, bb, na) != 0)
		tl_fail("%s, %d players, seed %llu: the imported log differs (%zu vs %zu bytes)", profile, nplayers,
		        (unsigned long long)seed, na, nb);
	t2 = dump(b);
	assert_string_equal(t1, t2);
	free(ba);
	free(bb);
	free(t1);
	free(t2);
	remove(a);
	remove(b);
}

static void test_round_trip_random(void **state)
{
	(void)state;
	round_trip("stbl", 4, 1, 3, 4000, 1);
	round_trip("kzv", 4, 2, 3, 4000, 1);
	round_trip("aberto", 4, 3, 3, 4000, 1);
	round_trip("stbl", 2, 4, 2, 4000, 1);
	round_trip("aberto", 2, 5, 2, 4000, 1);
	/* a recording never closed: no "end", and the log stays in its growing form */
	round_trip("stbl", 4, 6, 1, 37, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
