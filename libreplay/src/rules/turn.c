/*
 * Can the turn still end? Three rules are checked only when a turn ends (the
 * pile's use in KZV and STBL, a vulnerable side's opening minimum, ABERTO's
 * one-card pile), so a decision the engine accepts may leave a turn that no
 * sequence of decisions can end: every discard is refused and no lay leads
 * to one that is not (docs/rules.md 11.10). This file answers the question
 * by a search of the rest of the turn, in which the engine judges every
 * step (rpl__apply; no rule is copied here), and keeps rpl_game_legal to
 * the decisions after which the answer is yes.
 *
 * The search is a depth-first walk over the seat's lays (and morto pick-ups
 * and ABERTO rejects), trying at each position whether a discard is
 * accepted. Positions shown to be dead are remembered by a 64-bit digest of
 * what the rest of the turn depends on, so that a lay order met twice is
 * searched once. Nearly every position is settled without a search: when
 * no end-of-turn rule is pending, any card but a one-card pile's may be
 * discarded (quick_end).
 */
#include <stdlib.h>
#include <string.h>

#include "rules/game_impl.h"
#include "base/grow.h"

/*
 * How many positions one question may visit, and how many decisions it may
 * list in all (a position of a hand of many cards lists thousands), before it
 * gives up and answers yes: a hostile log's turn costs a bounded time.
 */
#define SEARCH_LIMIT 20000
#define WORK_LIMIT 200000
/* How deep the lays of one turn may go: each lays a card at least, from a hand of at most 108. */
#define SEARCH_DEPTH 112
/* Remembered positions (open addressing; a power of two), at first and at most. */
#define MEMO_FIRST 1024
#define MEMO_MOST 65536

enum { UNKNOWN = 0, ENDS = 1, DEAD = 2 };

struct turn_search {
	int32_t turn_no; /* the turn asked about */
	uint8_t seat;
	long visited, work, work_limit; /* work_limit: WORK_LIMIT, or less when the caller's budget is smaller */
	int gave_up;
	struct rpl_game *states[SEARCH_DEPTH]; /* one a depth, made as the search goes deeper (they never move) */
	rpl_action *moves;                     /* a stack of the lays still to try at each depth */
	size_t nmoves, capmoves;
	rpl_action *sorted; /* order_lays' room: a position's lays, ordered */
	size_t capsorted;
	uint64_t *memo; /* digest | answer in the low 2 bits; 0 empty */
	size_t nmemo, memo_slots;
	/*
	 * The lays of the last search that found an end, in order (path_len -1:
	 * it ended on a remembered position, so the path is not known).
	 */
	rpl_action path[SEARCH_DEPTH];
	int path_len;
};

/* Has the turn asked about ended (or the deal with it)? */
static int turn_over(const struct turn_search *ts, const struct rpl_game *g)
{
	return g->phase >= RPL_PHASE_DEAL_OVER || g->turn_no != ts->turn_no || g->seat != ts->seat;
}

/*
 * The rules checked when a turn ends are all met and a card may be
 * discarded without emptying the hand: a discard is then accepted
 * (rpl__game_discard), and the turn can end now.
 */
static int quick_end(const struct rpl_game *g)
{
	int side = SIDE(g->seat), n = g->hand_n[g->seat];

	if (g->phase != RPL_PHASE_PLAY || n < 2)
		return 0;
	if (g->duty != DUTY_NONE && !g->duty_done)
		return 0;
	if (g->vulnerable[side] && !g->opened_before && g->nmelds[side] > 0 &&
	    g->laid_value < RV(&g->rules, VULNERABLE_MIN_OPEN))
		return 0;
	return g->return_face == NO_FACE || n > g->hand[g->seat][g->return_face];
}

/*
 * Is the position dead for a reason the engine's own checks show at once,
 * without a search? A pile duty whose cards can no longer be laid by the
 * meld rules (rpl__can_lay, the check behind pile.unusable: no lay holding
 * such a card is accepted in any later position of the turn either, since
 * later hands are smaller), or an opening minimum the hand's cards cannot
 * reach (when no morto can come to the hand this turn).
 */
static int plainly_dead(const struct rpl_game *g)
{
	int side = SIDE(g->seat);
	const uint8_t *h = g->hand[g->seat];

	if (g->phase != RPL_PHASE_PLAY)
		return 0;
	if (g->duty == DUTY_TOP && !g->duty_done && !rpl__can_lay(g, side, h, g->duty_top, NULL))
		return 1;
	if (g->duty == DUTY_ANY && !g->duty_done) {
		int any = 0;
		for (rpl_card c = 0; c < RPL_NFACES && !any; c++)
			any = g->taken[c] && h[c] && rpl__can_lay(g, side, h, c, NULL);
		if (!any)
			return 1;
	}
	if (g->vulnerable[side] && !g->opened_before && g->nmelds[side] > 0 && !rpl__game_has_morto(g, side) &&
	    rpl__game_next_morto(g) < 0 &&
	    g->laid_value + rpl__cards_points(&g->rules, h) < RV(&g->rules, VULNERABLE_MIN_OPEN))
		return 1;
	return 0;
}

/* Is some discard accepted now? (scratch: room for a copy) */
static int some_discard(const struct rpl_game *g, struct rpl_game *scratch)
{
	rpl_action d;

	if (g->phase != RPL_PHASE_PLAY)
		return 0;
	memset(&d, 0, sizeof(d));
	d.kind = RPL_ACT_DISCARD;
	d.ncards = 1;
	for (rpl_card c = 0; c < RPL_NFACES; c++) {
		if (!g->hand[g->seat][c])
			continue;
		d.cards[0] = c;
		memcpy(scratch, g, sizeof(*scratch));
		if (rpl__apply(scratch, &d) == 0)
			return 1;
	}
	return 0;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/*
 * A digest of what the rest of the turn depends on: the hand, the side's
 * melds as a set (the order they were laid in changes nothing), the duties
 * and what was laid, the draw source's place (an ABERTO reject draws).
 */
static uint64_t digest(const struct rpl_game *g)
{
	int side = SIDE(g->seat);
	uint64_t h = 0x9E3779B97F4A7C15ull, melds = 0;
	const uint8_t *hand = g->hand[g->seat];

	for (int i = 0; i < RPL_NFACES; i += 8) {
		uint64_t w = 0;
		for (int k = 0; k < 8 && i + k < RPL_NFACES; k++)
			w |= (uint64_t)hand[i + k] << (8 * k);
		h = mix(h ^ w) + (uint64_t)i;
	}
	for (int i = 0; i < g->nmelds[side]; i++) {
		uint64_t w = 0;
		memcpy(&w, &g->melds[side][i], sizeof(struct meld) < 8 ? sizeof(struct meld) : 8);
		melds += mix(w + 0x632BE59BD9B4E019ull);
	}
	h = mix(h ^ melds);
	h = mix(h ^ ((uint64_t)g->phase | (uint64_t)g->duty_done << 8 | (uint64_t)g->can_reject << 16 |
	             (uint64_t)g->src_pos << 24 | (uint64_t)(uint8_t)g->morto_state[0] << 32 |
	             (uint64_t)(uint8_t)g->morto_state[1] << 40 | (uint64_t)g->nmelds[side] << 48));
	return mix(h ^ (uint64_t)(uint32_t)g->laid_value);
}

static int memo_get(const struct turn_search *ts, uint64_t key)
{
	size_t mask = ts->memo_slots - 1, slot = (size_t)(key >> 2) & mask;

	while (ts->memo[slot]) {
		if ((ts->memo[slot] | 3) == (key | 3))
			return (int)(ts->memo[slot] & 3);
		slot = (slot + 1) & mask;
	}
	return UNKNOWN;
}

static void memo_insert(uint64_t *memo, size_t slots, uint64_t entry)
{
	size_t slot = (size_t)(entry >> 2) & (slots - 1);

	while (memo[slot]) {
		if ((memo[slot] | 3) == (entry | 3))
			return;
		slot = (slot + 1) & (slots - 1);
	}
	memo[slot] = entry;
}

static void memo_put(struct turn_search *ts, uint64_t key, int answer)
{
	if (ts->nmemo >= ts->memo_slots / 2) {
		/* twice the room, up to MEMO_MOST; then positions are searched again rather than kept */
		size_t slots = ts->memo_slots * 2;
		uint64_t *bigger = slots <= MEMO_MOST ? calloc(slots, sizeof(*bigger)) : NULL;
		if (!bigger)
			return;
		for (size_t i = 0; i < ts->memo_slots; i++)
			if (ts->memo[i])
				memo_insert(bigger, slots, ts->memo[i]);
		free(ts->memo);
		ts->memo = bigger;
		ts->memo_slots = slots;
	}
	memo_insert(ts->memo, ts->memo_slots, (key & ~(uint64_t)3) | (uint64_t)answer);
	ts->nmemo++;
}

/* The generator's hook inside the search: every decision but a discard (tried apart). */
static int keep_lays(void *ctx, const struct rpl_game *after, const rpl_action *a)
{
	(void)ctx;
	(void)after;
	return a->kind != RPL_ACT_DISCARD;
}

/* Does a lay lay a card the turn's pile duty asks for? Those are tried first. */
static int meets_duty_first(const struct rpl_game *g, const rpl_action *a)
{
	if (g->duty == DUTY_NONE || g->duty_done)
		return 0;
	for (int i = 0; i < a->ncards; i++)
		if (g->duty == DUTY_TOP ? a->cards[i] == g->duty_top : g->taken[a->cards[i]] > 0)
			return 1;
	return 0;
}

/*
 * Order a node's lays: those meeting the duty first, then the most cards
 * first, lays of one rank in the order generated. A rank is small (the duty,
 * then 0 to 14 cards), so a counting sort: a hand of many cards lists
 * thousands of lays, which an insertion sort took in their square. Returns
 * 0, or -1 out of memory (the lays as they were).
 */
#define LAY_RANKS 32 /* 16 for each answer of the duty; a lay has at most 14 cards */
static inline int lay_rank(const struct rpl_game *g, const rpl_action *a)
{
	int cards = a->ncards < 16 ? a->ncards : 15;                  /* 14 at most: an action holds no more */
	return LAY_RANKS - 1 - (meets_duty_first(g, a) * 16 + cards); /* the first to try has the lowest */
}

static int order_lays(struct turn_search *ts, const struct rpl_game *g, rpl_action *mv, size_t n)
{
	size_t start[LAY_RANKS + 1] = { 0 };
	rpl_action *out;

	if (n < 2)
		return 0;
	out = rpl__grow(ts->sorted, &ts->capsorted, n, sizeof(*out), 512);
	if (!out)
		return -1;
	ts->sorted = out;
	for (size_t i = 0; i < n; i++)
		start[lay_rank(g, &mv[i]) + 1]++;
	for (int r = 1; r <= LAY_RANKS; r++)
		start[r] += start[r - 1]; /* start[r]: the lays of a rank below r, where rank r begins */
	for (size_t i = 0; i < n; i++)
		out[start[lay_rank(g, &mv[i])]++] = mv[i];
	memcpy(mv, out, n * sizeof(*mv));
	return 0;
}

/*
 * Can the turn of ts end from g (at depth d)? ENDS, DEAD, or UNKNOWN when the
 * search gave up (too many positions, too deep, or out of memory).
 */
static int search(struct turn_search *ts, const struct rpl_game *g, int d)
{
	struct rpl_game *next;
	uint64_t key;
	size_t base, n;
	int answer = DEAD, known;

	if (turn_over(ts, g) || quick_end(g)) {
		ts->path_len = d;
		return ENDS;
	}
	if (d + 1 >= SEARCH_DEPTH || ++ts->visited > SEARCH_LIMIT) {
		ts->gave_up = 1;
		return UNKNOWN;
	}
	key = digest(g);
	if ((known = memo_get(ts, key)) != UNKNOWN) {
		ts->path_len = -1;
		return known;
	}
	if (plainly_dead(g)) {
		memo_put(ts, key, DEAD);
		return DEAD;
	}
	if (!ts->states[d + 1] && !(ts->states[d + 1] = malloc(sizeof(struct rpl_game)))) {
		ts->gave_up = 1;
		return UNKNOWN;
	}
	next = ts->states[d + 1];
	if (some_discard(g, next)) {
		memo_put(ts, key, ENDS);
		ts->path_len = d;
		return ENDS;
	}
	/* the lays (and pick-ups, rejects) of this position, on the stack of moves */
	base = ts->nmoves;
	for (size_t room = 512;; room = n) {
		rpl_action *p = rpl__grow(ts->moves, &ts->capmoves, base + room, sizeof(*p), 1024);
		if (!p) {
			ts->gave_up = 1;
			return UNKNOWN;
		}
		ts->moves = p;
		n = rpl__legal_gen(g, ts->moves + base, room, keep_lays, NULL);
		if (n <= room)
			break;
	}
	ts->nmoves = base + n;
	ts->work += (long)n + 1;
	if (ts->work > (ts->work_limit ? ts->work_limit : WORK_LIMIT)) {
		ts->nmoves = base;
		ts->gave_up = 1;
		return UNKNOWN;
	}
	if (order_lays(ts, g, ts->moves + base, n) != 0) {
		ts->nmoves = base;
		ts->gave_up = 1;
		return UNKNOWN;
	}
	for (size_t i = 0; i < n && answer != ENDS; i++) {
		int r;
		memcpy(next, g, sizeof(*next));
		if (rpl__apply(next, &ts->moves[base + i]) != 0)
			continue; /* not possible: the generator asked the engine */
		r = search(ts, next, d + 1);
		if (r == ENDS) {
			answer = ENDS;
			ts->path[d] = ts->moves[base + i];
		} else if (r == UNKNOWN)
			answer = UNKNOWN;
	}
	ts->nmoves = base;
	if (answer != UNKNOWN)
		memo_put(ts, key, answer);
	return answer;
}

static void search_free(struct turn_search *ts)
{
	for (int d = 0; d < SEARCH_DEPTH; d++)
		free(ts->states[d]);
	free(ts->moves);
	free(ts->sorted);
	free(ts->memo);
	memset(ts, 0, sizeof(*ts));
}

/* Room for a search: RPL_OK or RPL_ENOMEM (nothing kept). The positions' room grows as the search goes deeper. */
static int search_init(struct turn_search *ts)
{
	memset(ts, 0, sizeof(*ts));
	ts->memo_slots = MEMO_FIRST;
	ts->memo = calloc(MEMO_FIRST, sizeof(*ts->memo));
	if (!ts->memo) {
		search_free(ts);
		return RPL_ENOMEM;
	}
	return RPL_OK;
}

/*
 * The question for the seat to move of g, in the turn ts was set to (its
 * room made by search_init): ENDS, DEAD or UNKNOWN. A search gives up only
 * on a hostile position (a turn of more than SEARCH_LIMIT positions).
 */
static int ask(struct turn_search *ts, const struct rpl_game *g)
{
	if (turn_over(ts, g) || quick_end(g))
		return ENDS;
	ts->visited = 0;
	ts->work = 0;
	return search(ts, g, 0);
}

int rpl__turn_can_end_within(const struct rpl_game *g, int *gave_up, long *budget)
{
	struct turn_search ts;
	int r;

	if (gave_up)
		*gave_up = 0;
	if (g->phase != RPL_PHASE_DRAW && g->phase != RPL_PHASE_PLAY && g->phase != RPL_PHASE_MORTO)
		return RPL_ESTATE;
	if (quick_end(g))
		return 1;
	if (budget && *budget <= 0) {
		if (gave_up)
			*gave_up = 1;
		return 1;
	}
	if (search_init(&ts) != RPL_OK)
		return RPL_ENOMEM;
	ts.turn_no = g->turn_no;
	ts.seat = g->seat;
	if (budget && *budget < WORK_LIMIT)
		ts.work_limit = *budget;
	r = ask(&ts, g);
	if (budget)
		*budget -= ts.work;
	if (gave_up)
		*gave_up = ts.gave_up;
	search_free(&ts);
	return r != DEAD;
}

int rpl__turn_can_end(const struct rpl_game *g, int *gave_up)
{
	return rpl__turn_can_end_within(g, gave_up, NULL);
}

int rpl_game_turn_can_end(const rpl_game *g)
{
	if (!g)
		return RPL_EINVAL;
	return rpl__turn_can_end(g, NULL);
}

/*
 * rpl_game_legal's hook: a decision that ends the turn, or after which the
 * turn can still end. Most decisions leave the way the turn could end before
 * them open: the lays of an end found once from the position itself (the
 * witness) are tried first after each decision, every step judged by the
 * engine, and only a decision that spoils them is searched. Without this a
 * hand of many cards (a big pile taken under a duty) asks one search a
 * decision, each listing the same thousands of lays.
 */
#define WITNESSES 8 /* the ends kept: the position's own, then those the searches after decisions found */

struct witness {
	int n;
	rpl_action steps[SEARCH_DEPTH];
};

struct keep_ctx {
	struct turn_search ts;
	const struct rpl_game *g;
	int looked;          /* the position's own witness was looked for */
	int nwit, next;      /* witnesses kept; the slot the next one takes */
	struct witness *wit; /* WITNESSES of them */
	struct rpl_game *scratch, *scratch2;
};

/* Keep the path of the search that just found an end as a witness. */
static void keep_witness(struct keep_ctx *k)
{
	struct witness *w;

	if (k->ts.path_len < 0)
		return;
	w = &k->wit[k->next];
	w->n = k->ts.path_len;
	memcpy(w->steps, k->ts.path, sizeof(rpl_action) * (size_t)w->n);
	k->next = (k->next + 1) % WITNESSES;
	if (k->nwit < WITNESSES)
		k->nwit++;
}

/* Does witness w, played after the decision (its steps the engine refuses left out), end the turn? */
static int witness_ends(struct keep_ctx *k, const struct witness *w, const struct rpl_game *after)
{
	memcpy(k->scratch, after, sizeof(*k->scratch));
	for (int i = 0; i < w->n; i++) {
		memcpy(k->scratch2, k->scratch, sizeof(*k->scratch2));
		if (rpl__apply(k->scratch2, &w->steps[i]) == 0)
			memcpy(k->scratch, k->scratch2, sizeof(*k->scratch));
	}
	return turn_over(&k->ts, k->scratch) || quick_end(k->scratch) || some_discard(k->scratch, k->scratch2);
}

static int keep_endable(void *ctx, const struct rpl_game *after, const rpl_action *a)
{
	struct keep_ctx *k = ctx;
	int r;

	(void)a;
	if (turn_over(&k->ts, after) || quick_end(after))
		return 1;
	if (!k->ts.memo) {
		if (search_init(&k->ts) != RPL_OK)
			return 1; /* no room to ask: listed, as the engine accepts it */
		k->ts.turn_no = k->g->turn_no;
		k->ts.seat = k->g->seat;
		k->scratch = malloc(sizeof(*k->scratch));
		k->scratch2 = malloc(sizeof(*k->scratch2));
		k->wit = malloc(sizeof(*k->wit) * WITNESSES);
		if (!k->scratch || !k->scratch2 || !k->wit)
			k->looked = -1; /* no witnesses: every decision is searched */
	}
	if (k->looked == 0) {
		k->looked = 1;
		if (ask(&k->ts, k->g) == ENDS)
			keep_witness(k);
	}
	for (int i = 0; k->looked == 1 && i < k->nwit; i++)
		if (witness_ends(k, &k->wit[(k->next + WITNESSES - 1 - i) % WITNESSES], after))
			return 1;
	r = ask(&k->ts, after);
	if (r == ENDS && k->looked == 1)
		keep_witness(k);
	return r != DEAD;
}

size_t rpl_game_legal(const rpl_game *g, rpl_action *out, size_t cap)
{
	struct keep_ctx k;
	size_t n;

	if (!g)
		return 0;
	memset(&k, 0, sizeof(k));
	k.g = g;
	k.ts.turn_no = g->turn_no;
	k.ts.seat = g->seat;
	n = rpl__legal_gen(g, out, cap, keep_endable, &k);
	search_free(&k.ts);
	free(k.scratch);
	free(k.scratch2);
	free(k.wit);
	return n;
}
