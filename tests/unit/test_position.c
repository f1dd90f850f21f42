/*
 * Positions (position.h) on the shipped samples:
 *
 *   verdict      rpl_positions_file gives the verdict rpl_verify_file gives,
 *                for every sample, and rpl_verdict_format the line brp
 *                verify prints;
 *   sequence     one DEALT position a deal, one DECISION a legal decision,
 *                in order, numbered by turn and decision; a REFUSED one last
 *                for an illegal log;
 *   table        every position holds the 108 cards exactly once each
 *                (hands, melds, pile, stock, mortos on the table), matches a
 *                replay of the log through the engine, and its moves say
 *                where the decision's cards landed;
 *   pile         STBL shows the top card only, the other profiles all;
 *   claims       the running verdict turns to mismatch at the end of the deal
 *                whose claim differs, with the claim in the position;
 *   damage       every cut and 300 bit flips of a sample: the verdict is still
 *                verification's, every position still holds the 108 cards;
 *   json         rpl_position_json on every position of every sample: the
 *                length it returns is the text's, a short buffer holds a
 *                NUL-terminated prefix of it, the caller's notes close the
 *                object escaped as JSON (brp show --json's golden cases and
 *                tests/python check the fields themselves).
 */
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *sample(const char *name)
{
	static char buf[4][512];
	static int k;
	char *p = buf[k++ % 4];
	snprintf(p, 512, "%s/samples/%s", SRCROOT, name);
	return p;
}

struct seen {
	rpl_position *pos; /* every position, copied */
	size_t n, cap;
	int stop_at; /* return 7 from this index on; -1 never */
};

static int keep(void *ctx, const rpl_position *p)
{
	struct seen *s = ctx;
	if (s->stop_at >= 0 && p->index >= s->stop_at)
		return 7;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->pos = realloc(s->pos, s->cap * sizeof(*s->pos));
		assert_non_null(s->pos);
	}
	s->pos[s->n++] = *p;
	return 0;
}

static void walk(const char *path, struct seen *s, rpl_verdict *v)
{
	memset(s, 0, sizeof(*s));
	s->stop_at = -1;
	assert_int_equal(rpl_positions_file(path, NULL, keep, s, v), 0);
}

static const char *const samples[] = {
	"kzv-4p.brp",
	"stbl-2p.brp",
	"stbl-4p.brp",
	"aberto-4p.brp",
	"disputed/meld-two-wilds.brp",
	"disputed/vulnerable-open.brp",
	"disputed/pile-frozen.brp",
	"disputed/pile-top-not-laid.brp",
	"disputed/out-no-clean-canastra.brp",
	"disputed/claim-deal.brp",
	"disputed/claim-match.brp",
	"disputed/unfinished.brp",
	"disputed/recovered.brp",
	"disputed/truncated.brp",
	"disputed/damaged-byte.brp",
	"disputed/not-a-log.brp",
};

static void test_verdict_as_verify(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		rpl_verdict a, b;
		struct seen s;
		char la[1024], lb[1024];
		walk(sample(samples[i]), &s, &a);
		assert_int_equal(rpl_verify_file(sample(samples[i]), NULL, &b), 0);
		assert_int_equal(a.kind, b.kind);
		assert_string_equal(a.message, b.message);
		assert_int_equal(a.deal, b.deal);
		assert_int_equal(a.turn, b.turn);
		assert_int_equal(a.actions, b.actions);
		rpl_verdict_format(&a, la, sizeof(la));
		rpl_verdict_format(&b, lb, sizeof(lb));
		assert_string_equal(la, lb);
		free(s.pos);
	}
}

static void test_verdict_format(void **state)
{
	rpl_verdict v;
	char line[1024];
	size_t n;
	(void)state;

	assert_int_equal(rpl_verify_file(sample("disputed/pile-frozen.brp"), NULL, &v), 0);
	n = rpl_verdict_format(&v, line, sizeof(line));
	assert_string_equal(line, "illegal: deal 1, turn 11, seat 3: take: pile.frozen: KZV: the pile is frozen: its top "
	                          "card JK is a wild");
	assert_int_equal(n, strlen(line));
	assert_int_equal(rpl_verdict_format(&v, line, 8), n); /* truncated, the length still said */
	assert_string_equal(line, "illegal");
	assert_int_equal(rpl_verify_file(sample("disputed/damaged-byte.brp"), NULL, &v), 0);
	rpl_verdict_format(&v, line, sizeof(line));
	{
		char want[128]; /* the offset as samples/MANIFEST gives it */
		snprintf(want, sizeof(want), "malformed: byte %llu: section 'D' is damaged (checksum mismatch)",
		         (unsigned long long)v.offset);
		assert_true(v.offset > 0);
		assert_string_equal(line, want);
	}
	assert_int_equal(rpl_verify_file(sample("disputed/recovered.brp"), NULL, &v), 0);
	rpl_verdict_format(&v, line, sizeof(line));
	assert_non_null(strstr(line, " (recovered log)"));
	assert_int_equal(strncmp(line, "incomplete: ", 12), 0);
}

/* Count each face on the table of p; every face must be there as often as the deck has it. */
static void check_cards(const rpl_position *p)
{
	int count[RPL_NFACES] = { 0 };
	for (int s = 0; s < p->nplayers; s++)
		for (int i = 0; i < p->hand_count[s]; i++)
			count[p->hand[s][i]]++;
	for (int side = 0; side < 2; side++)
		for (int m = 0; m < p->meld_count[side]; m++) {
			const rpl_meld_info *mi = &p->meld[side][m];
			assert_int_equal(mi->length, mi->hi - mi->lo + 1);
			for (int j = 0; j < mi->length; j++)
				count[mi->card[j]]++;
		}
	for (int i = 0; i < p->pile_count; i++)
		count[p->pile[i]]++;
	int total = p->stock_count;
	for (int m = 0; m < 2; m++)
		if (p->morto[m] == -1)
			total += RPL_MORTO_SIZE;
	for (int c = 0; c < RPL_NFACES; c++)
		total += count[c];
	assert_int_equal(total, RPL_DECK_SIZE);
	for (int c = 0; c < RPL_NFACES; c++)
		assert_true(count[c] <= rpl_card_copies(c));
}

/* The table of p against the engine's game g, replayed independently. */
static void check_same(const rpl_position *p, const rpl_game *g)
{
	rpl_position q;
	rpl_position_of_game(g, &q);
	assert_int_equal(p->deal, q.deal);
	assert_int_equal(p->phase, q.phase);
	assert_int_equal(p->to_move, q.to_move);
	assert_int_equal(p->turns, q.turns);
	assert_int_equal(p->stock_count, q.stock_count);
	assert_int_equal(p->pile_count, q.pile_count);
	assert_memory_equal(p->pile, q.pile, (size_t)p->pile_count);
	for (int s = 0; s < p->nplayers; s++) {
		assert_int_equal(p->hand_count[s], q.hand_count[s]);
		assert_memory_equal(p->hand[s], q.hand[s], (size_t)p->hand_count[s]);
	}
	for (int side = 0; side < 2; side++) {
		assert_int_equal(p->meld_count[side], q.meld_count[side]);
		assert_memory_equal(p->meld[side], q.meld[side], (size_t)p->meld_count[side] * sizeof(rpl_meld_info));
		assert_int_equal(p->score[side].total, q.score[side].total);
		assert_int_equal(p->total[side], q.total[side]);
		assert_int_equal(p->morto[side], q.morto[side]);
	}
}

static void check_moves(const rpl_position *p)
{
	const rpl_action *a = &p->action;
	int to_hand = 0, to_meld = 0, to_pile = 0;
	for (int i = 0; i < p->nmoves; i++) {
		const rpl_position_move *m = &p->move[i];
		switch (m->to) {
		case RPL_ZONE_HAND:
			to_hand++;
			assert_true(m->index < p->hand_count[p->seat]);
			assert_int_equal(p->hand[p->seat][m->index], m->card);
			break;
		case RPL_ZONE_MELD:
			to_meld++;
			assert_int_equal(m->from, RPL_ZONE_HAND);
			assert_int_equal(p->meld[m->side][m->meld].card[m->index], m->card);
			break;
		case RPL_ZONE_PILE:
			to_pile++;
			assert_int_equal(p->pile[m->index], m->card);
			break;
		default: fail_msg("a move to zone %d", m->to);
		}
	}
	switch (a->kind) {
	case RPL_ACT_DRAW:
		assert_int_equal(to_hand, 1);
		assert_int_equal(p->move[0].from, RPL_ZONE_STOCK);
		break;
	case RPL_ACT_TAKE:
		assert_true(to_hand >= 1);
		assert_int_equal(p->move[0].from, RPL_ZONE_PILE);
		break;
	case RPL_ACT_MORTO:
		assert_int_equal(to_hand, RPL_MORTO_SIZE);
		assert_int_equal(p->move[0].morto, a->morto);
		break;
	case RPL_ACT_REJECT:
		assert_int_equal(to_hand, 1);
		assert_int_equal(to_pile, 1);
		break;
	case RPL_ACT_DISCARD:
		assert_int_equal(to_pile, 1);
		assert_int_equal(p->move[0].card, a->cards[0]);
		assert_int_equal(p->move[0].index, p->pile_count - 1);
		break;
	case RPL_ACT_MELD:
	case RPL_ACT_ADD: assert_int_equal(to_meld, a->ncards); break;
	default: fail();
	}
}

/* Every sample: the sequence, the cards, the moves, and a replay of its own through the engine. */
static void test_sequence_and_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		rpl_verdict v;
		struct seen s;
		rpl_reader *rd = NULL;
		rpl_game *g = NULL;
		rpl_event ev;
		size_t k = 0;
		int decisions = 0, deals = 0, turn = 0, dec = 0;

		walk(sample(samples[i]), &s, &v);
		if (rpl_reader_open(&rd, sample(samples[i])) != 0) {
			assert_int_equal(s.n, 0); /* not even a header: nothing to show */
			rpl_reader_free(rd);
			free(s.pos);
			continue;
		}
		const rpl_match_info *info = rpl_reader_info(rd);
		assert_int_equal(rpl_game_new(&g, info->rules, info->nplayers, info->first_dealer), 0);
		while (rpl_reader_next(rd, &ev) == 1 && k < s.n) {
			const rpl_position *p = &s.pos[k];
			if (ev.kind == RPL_EV_DEAL) {
				assert_int_equal(rpl_game_deal(g, &ev.layout), 0);
				assert_int_equal(p->kind, RPL_POS_DEALT);
				assert_int_equal(p->seat, -1);
				assert_int_equal(p->nmoves, 0);
				deals++;
				turn = dec = 0;
			} else if (ev.kind == RPL_EV_ACTION) {
				if (ev.turn != turn)
					dec = 0;
				turn = ev.turn;
				dec++;
				assert_int_equal(p->turn, ev.turn);
				assert_int_equal(p->seat, ev.seat);
				assert_int_equal(p->decision, dec);
				assert_memory_equal(&p->action, &ev.action, sizeof(ev.action));
				if (rpl_game_apply(g, &ev.action) != 0) {
					assert_int_equal(p->kind, RPL_POS_REFUSED);
					assert_int_equal(p->rule, rpl_game_rule(g));
					assert_string_equal(p->message, rpl_game_errmsg(g));
					assert_int_equal(p->verdict, RPL_VERDICT_ILLEGAL);
					assert_int_equal(k + 1, s.n); /* the last */
					check_same(p, g);
					k++;
					break;
				}
				assert_int_equal(p->kind, RPL_POS_DECISION);
				check_moves(p);
				decisions++;
			} else {
				continue;
			}
			assert_int_equal(p->index, (int)k);
			assert_int_equal(p->deal, ev.deal);
			check_cards(p);
			check_same(p, g);
			k++;
		}
		assert_int_equal(k, s.n);
		assert_int_equal(decisions, v.actions);
		if (v.kind != RPL_VERDICT_MALFORMED)
			assert_int_equal(deals, v.deals);
		rpl_game_free(g);
		rpl_reader_free(rd);
		free(s.pos);
	}
}

static void test_pile_visible(void **state)
{
	const char *logs[] = { "stbl-2p.brp", "kzv-4p.brp", "aberto-4p.brp" };
	(void)state;
	for (int i = 0; i < 3; i++) {
		rpl_verdict v;
		struct seen s;
		int big = 0;
		walk(sample(logs[i]), &s, &v);
		for (size_t k = 0; k < s.n; k++) {
			const rpl_position *p = &s.pos[k];
			if (p->pile_count > 1)
				big++;
			assert_int_equal(p->pile_visible, i == 0 && p->pile_count > 1 ? 1 : p->pile_count);
		}
		assert_true(big > 10);
		free(s.pos);
	}
}

static void test_claims(void **state)
{
	rpl_verdict v;
	struct seen s;
	int ends = 0;
	(void)state;

	walk(sample("disputed/claim-deal.brp"), &s, &v);
	assert_int_equal(v.kind, RPL_VERDICT_MISMATCH);
	for (size_t k = 0; k < s.n; k++) {
		const rpl_position *p = &s.pos[k];
		if (p->phase >= RPL_PHASE_DEAL_OVER) {
			ends++;
			assert_int_equal(p->claimed, 1);
			if (p->deal == 2) {
				assert_int_equal(p->claim[1], 615);
				assert_int_equal(p->score[1].total, 515);
				assert_int_equal(p->verdict, RPL_VERDICT_MISMATCH);
			} else {
				assert_int_equal(p->claim[0], p->score[0].total);
				assert_int_equal(p->verdict, RPL_VERDICT_OK);
			}
		} else {
			assert_int_equal(p->claimed, 0);
			assert_int_equal(p->verdict, RPL_VERDICT_OK);
		}
	}
	assert_int_equal(ends, 2);
	free(s.pos);
	walk(sample("disputed/claim-match.brp"), &s, &v);
	assert_int_equal(v.kind, RPL_VERDICT_MISMATCH);
	assert_int_equal(s.pos[s.n - 1].match_claimed, 1);
	assert_int_equal(s.pos[s.n - 1].match_claim[1], 285);
	assert_int_equal(s.pos[s.n - 1].total[1], 275);
	assert_int_equal(s.pos[s.n - 1].verdict, RPL_VERDICT_MISMATCH);
	free(s.pos);
}

static void test_damaged_and_stop(void **state)
{
	rpl_verdict v;
	struct seen s;
	(void)state;

	walk(sample("disputed/truncated.brp"), &s, &v);
	assert_int_equal(v.kind, RPL_VERDICT_MALFORMED);
	{
		rpl_verdict w;
		assert_int_equal(rpl_verify_file(sample("disputed/truncated.brp"), NULL, &w), 0);
		assert_true(v.offset > 0);
		assert_int_equal(v.offset, w.offset);
	}
	assert_true(s.n > 100); /* what decoded before the damage */
	free(s.pos);
	walk(sample("disputed/not-a-log.brp"), &s, &v);
	assert_int_equal(v.kind, RPL_VERDICT_MALFORMED);
	assert_int_equal(s.n, 0);
	free(s.pos);
	memset(&s, 0, sizeof(s));
	s.stop_at = 5;
	assert_int_equal(rpl_positions_file(sample("kzv-4p.brp"), NULL, keep, &s, &v), 7);
	assert_int_equal(s.n, 5);
	free(s.pos);
	assert_int_equal(rpl_positions_file("/nonexistent/x.brp", NULL, NULL, NULL, &v), RPL_EIO);
	assert_int_equal(rpl_positions_file(NULL, NULL, NULL, NULL, &v), RPL_EINVAL);
}

/* Positions of a damaged log: every cut and some bit flips of a sample, each written to a scratch file. */
static int count_and_check(void *ctx, const rpl_position *p)
{
	(*(int *)ctx)++;
	check_cards(p);
	return 0;
}

static void test_damaged_every_cut(void **state)
{
	char path[256];
	unsigned char buf[1 << 16];
	size_t len;
	FILE *f = fopen(sample("disputed/pile-frozen.brp"), "rb");
	const char *dir = getenv("TMPDIR");
	uint64_t x = 88172645463325252u;
	(void)state;

	assert_non_null(f);
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_true(len > 100 && len < sizeof(buf));
	snprintf(path, sizeof(path), "%s/test_position.%ld.brp", dir && *dir ? dir : "/tmp", (long)getpid());
	for (size_t cut = 0; cut <= len + 300; cut++) {
		rpl_verdict a, b;
		int n = 0, err;
		size_t keep = cut <= len ? cut : len;
		unsigned char saved = 0;
		size_t at = 0;
		if (cut > len) { /* then 300 single-bit flips at random places */
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			at = (size_t)(x % len);
			saved = buf[at];
			buf[at] ^= (unsigned char)(1u << (x >> 32) % 8);
		}
		f = fopen(path, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(buf, 1, keep, f), keep);
		assert_int_equal(fclose(f), 0);
		err = rpl_positions_file(path, NULL, count_and_check, &n, &a);
		assert_int_equal(err, 0);
		assert_int_equal(rpl_verify_file(path, NULL, &b), 0);
		assert_int_equal(a.kind, b.kind);
		assert_string_equal(a.message, b.message);
		if (cut > len)
			buf[at] = saved;
	}
	remove(path);
}

static void test_json(void **state)
{
	static const char *const notes[] = { "a \"quoted\" back\\slash", "line\nbreak\t\x01 \xc3\xa9" };
	static const char tail[] = "\"notes\":[\"a \\\"quoted\\\" back\\\\slash\",\"line\\nbreak\\t\\u0001 \xc3\xa9\"]}";
	char small[64];
	size_t total = 0;
	(void)state;
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		rpl_reader *rd = NULL;
		rpl_verdict v;
		struct seen s;
		const rpl_match_info *info;
		if (rpl_reader_open(&rd, sample(samples[i])) != 0) { /* not a log: no header, no position */
			rpl_reader_free(rd);
			continue;
		}
		info = rpl_reader_info(rd);
		walk(sample(samples[i]), &s, &v);
		for (size_t k = 0; k < s.n; k++) {
			const rpl_position *p = &s.pos[k];
			size_t n = rpl_position_json(p, info, NULL, 0, NULL, 0), m;
			char *full = malloc(n + 1), *part = malloc(n + 1);
			assert_non_null(full);
			assert_non_null(part);
			assert_int_equal(rpl_position_json(p, info, NULL, 0, full, n + 1), n);
			assert_int_equal(strlen(full), n);
			assert_memory_equal(full, "{\"kind\":\"", 9);
			assert_string_equal(full + n - 11, "\"notes\":[]}");
			assert_null(strchr(full, '\n'));
			/* cut short: a prefix, NUL-terminated, the whole length still returned */
			for (size_t cut = 1; cut <= n; cut += n / 7 + 1) {
				memset(part, 'x', n + 1);
				assert_int_equal(rpl_position_json(p, info, NULL, 0, part, cut), n);
				assert_int_equal(strlen(part), cut - 1);
				assert_memory_equal(part, full, cut - 1);
			}
			/* size 0 writes nothing */
			small[0] = 'x';
			assert_int_equal(rpl_position_json(p, info, NULL, 0, small, 0), n);
			assert_int_equal(small[0], 'x');
			/* the caller's notes, escaped, close the object */
			m = rpl_position_json(p, info, notes, 2, NULL, 0);
			full = realloc(full, m + 1);
			assert_non_null(full);
			assert_int_equal(rpl_position_json(p, info, notes, 2, full, m + 1), m);
			assert_true(m > strlen(tail));
			assert_string_equal(full + m - strlen(tail), tail);
			free(full);
			free(part);
		}
		total += s.n;
		free(s.pos);
		rpl_reader_free(rd);
	}
	assert_true(total > 1000);
	/* nothing to write */
	memset(small, 'x', sizeof(small));
	assert_int_equal(rpl_position_json(NULL, NULL, NULL, 0, small, sizeof(small)), 0);
	assert_string_equal(small, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdict_as_verify),
		cmocka_unit_test(test_verdict_format),
		cmocka_unit_test(test_sequence_and_table),
		cmocka_unit_test(test_pile_visible),
		cmocka_unit_test(test_claims),
		cmocka_unit_test(test_damaged_and_stop),
		cmocka_unit_test(test_damaged_every_cut),
		cmocka_unit_test(test_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
