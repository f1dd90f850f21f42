/*
 * Positions: the table after every decision of a log, as data.
 *
 * Built above verification: rpl_verify_file_observe replays the log and
 * judges it; its observer sees the game before and after each decision, and
 * this module copies the table out of the engine's queries into an
 * rpl_position. The claims of the log (which the observer does not see) come
 * from a first, light pass of the reader, and so does where its signatures
 * stop vouching for its bytes (trust_start), so that the running verdict of
 * a position read from bytes no signature vouches for says so.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libreplay/position.h"
#include "log/format.h"
#include "verify/verdict.h"

const char *rpl_zone_name(int zone)
{
	switch (zone) {
	case RPL_ZONE_STOCK: return "stock";
	case RPL_ZONE_HAND: return "hand";
	case RPL_ZONE_PILE: return "pile";
	case RPL_ZONE_MELD: return "meld";
	case RPL_ZONE_MORTO: return "morto";
	default: return "?";
	}
}

struct claim {
	int set; /* the deal has a claim */
	int32_t score[2];
};

struct walk {
	rpl_position_fn fn;
	void *ctx;
	rpl_position *pos;
	rpl_game *before;     /* the game before the decision being applied */
	rpl_event ev;         /* that decision */
	struct claim *claims; /* by deal (0: the match), RPL_MAX_DEALS + 1 of them: each deal's first claim */
	int index, turn, decision, deal_decision;
	int verdict;
	int trust_verdict;   /* TAMPERED or UNTRUSTED: what a position from trust_from on is; else OK */
	uint64_t trust_from; /* the offset where the bytes no (trusted) signature vouches for begin */
};

/*
 * Where the log's bytes stop being vouched for, as verification judges its
 * signatures (rpl__signatures_judge, verdict.c): after the last valid signature
 * before a broken one (the change lies there: tampered), after the last
 * trusted signature when trusted keys are given and none covers the log,
 * after the last signature of a log whose header says it is signed and
 * whose end none covers (untrusted). 0, or rpl_signatures_check's error.
 */
static int trust_start(const rpl_reader *rd, const rpl_keyring *trusted, struct walk *w)
{
	rpl_signature_report sr, valid;
	size_t n;
	const uint8_t *data = rpl__reader_data(rd, &n);
	int err = data ? rpl_signatures_check(data, n, trusted, &sr) : RPL_OK;

	if (err || !data)
		return err;
	/* verification's own rule decides the verdict (rpl__signatures_judge); here, where it starts */
	w->trust_verdict = rpl__signatures_judge(&sr, rpl_keyring_count(trusted), rpl_reader_flags(rd));
	if (w->trust_verdict == RPL_VERDICT_TAMPERED) {
		/* the bytes before the broken signature, checked alone: what the valid ones before it cover */
		if ((err = rpl_signatures_check(data, (size_t)sr.offset, trusted, &valid)) != 0)
			return err;
		w->trust_from = valid.covered;
	} else if (w->trust_verdict == RPL_VERDICT_UNTRUSTED) {
		w->trust_from = rpl_keyring_count(trusted) > 0 ? sr.trusted_covered : sr.covered;
	}
	return 0;
}

/*
 * The claims of the log and where its trusted bytes end (trust_start), read
 * ahead from the file at path or (path NULL) from the bytes log read; a log
 * that cannot be read has none.
 */
static int read_claims(const char *path, const rpl_reader *log, const rpl_keyring *trusted, struct walk *w)
{
	rpl_reader *rd = NULL;
	rpl_event ev;
	size_t n;
	int err = RPL_OK, e;

	if (path) {
		e = rpl_reader_open(&rd, path);
	} else {
		const uint8_t *data = rpl__reader_data(log, &n);
		e = data ? rpl__reader_open_view(&rd, data, n) : RPL_ECORRUPT; /* the bytes log holds: no copy */
	}
	if (e != 0) {
		rpl_reader_free(rd);
		return RPL_OK;
	}
	if ((err = trust_start(rd, trusted, w)) != 0) {
		rpl_reader_free(rd);
		return err;
	}
	/* indexed by deal (the reader checks the number): every claim and every position costs O(1) */
	while (rpl_reader_next(rd, &ev) == 1) {
		struct claim *c;
		if (ev.kind != RPL_EV_CLAIM || ev.deal < 0 || ev.deal > RPL_MAX_DEALS)
			continue;
		if (!w->claims && !(w->claims = calloc(RPL_MAX_DEALS + 1, sizeof(*w->claims)))) {
			err = RPL_ENOMEM;
			break;
		}
		c = &w->claims[ev.deal];
		if (c->set)
			continue;
		c->set = 1;
		c->score[0] = ev.score[0];
		c->score[1] = ev.score[1];
	}
	rpl_reader_free(rd);
	return err;
}

static const struct claim *find_claim(const struct walk *w, int deal)
{
	if (!w->claims || deal < 0 || deal > RPL_MAX_DEALS || !w->claims[deal].set)
		return NULL;
	return &w->claims[deal];
}

/* The table of g into p (the moment's fields are the caller's). */
static void fill_table(rpl_position *p, const rpl_game *g, const struct walk *w)
{
	int pile_rule = RPL_PILE_USE_ANY;
	const struct claim *c;

	p->nplayers = rpl_game_players(g);
	p->dealer = rpl_game_dealer(g);
	p->phase = rpl_game_phase(g);
	p->to_move = rpl_game_seat(g);
	p->turns = rpl_game_turn_number(g);
	for (int s = 0; s < RPL_MAX_SEATS; s++)
		p->hand_count[s] = s < p->nplayers ? rpl_game_hand(g, s, p->hand[s], RPL_DECK_SIZE) : 0;
	for (int side = 0; side < 2; side++) {
		p->meld_count[side] = rpl_game_meld_count(g, side);
		for (int i = 0; i < p->meld_count[side]; i++)
			rpl_game_meld(g, side, i, &p->meld[side][i]);
		rpl_game_deal_score(g, side, &p->score[side]);
		p->total[side] = rpl_game_total(g, side);
		p->vulnerable[side] = rpl_game_vulnerable(g, side);
		p->morto[side] = rpl_game_morto_state(g, side);
	}
	p->pile_count = rpl_game_pile(g, p->pile, RPL_DECK_SIZE);
	rpl_rules_get_id(rpl_game_rules(g), RPL_P_PILE_RULE, &pile_rule);
	p->pile_visible = pile_rule == RPL_PILE_TOP_LAID && p->pile_count > 1 ? 1 : p->pile_count;
	p->stock_count = rpl_game_stock_count(g);
	p->winner = rpl_game_winner(g);
	p->claimed = p->match_claimed = 0;
	if (p->phase >= RPL_PHASE_DEAL_OVER && (c = find_claim(w, rpl_game_deal_number(g))) != NULL) {
		p->claimed = 1;
		p->claim[0] = c->score[0];
		p->claim[1] = c->score[1];
	}
	if (p->phase == RPL_PHASE_MATCH_OVER && (c = find_claim(w, 0)) != NULL) {
		p->match_claimed = 1;
		p->match_claim[0] = c->score[0];
		p->match_claim[1] = c->score[1];
	}
}

static void add_move(rpl_position *p, rpl_card card, int from, int to, int index)
{
	rpl_position_move *m;
	if (p->nmoves >= RPL_DECK_SIZE)
		return;
	m = &p->move[p->nmoves++];
	m->card = card;
	m->from = (uint8_t)from;
	m->to = (uint8_t)to;
	m->side = m->meld = m->morto = -1;
	m->index = (uint8_t)index;
}

/*
 * The seat's hand before (b, nb) and after (a, na), both sorted: the cards
 * gained become moves from 'from' to the hand; the cards lost are written to
 * lost (returns their number).
 */
static int hand_diff(rpl_position *p, const rpl_card *b, int nb, const rpl_card *a, int na, int from, int morto,
                     rpl_card *lost)
{
	int i = 0, j = 0, nlost = 0;
	while (i < nb || j < na) {
		if (i < nb && j < na && b[i] == a[j]) {
			i++;
			j++;
		} else if (j < na && (i >= nb || a[j] < b[i])) {
			add_move(p, a[j], from, RPL_ZONE_HAND, j);
			if (from == RPL_ZONE_MORTO)
				p->move[p->nmoves - 1].morto = (int8_t)morto;
			j++;
		} else {
			lost[nlost++] = b[i++];
		}
	}
	return nlost;
}

/* The action's cards that landed in meld (side, index): the slots that differ from the meld before. */
static void meld_moves(rpl_position *p, const rpl_game *before, const rpl_action *a, int side, int index)
{
	rpl_meld_info was, now;
	int left[RPL_NFACES] = { 0 };
	int had = index < rpl_game_meld_count(before, side);

	if (rpl_game_meld(before, side, index, &was) != 0 || !had)
		memset(&was, 0, sizeof(was));
	now = p->meld[side][index];
	for (int k = 0; k < a->ncards && k < 14; k++)
		if (a->cards[k] < RPL_NFACES)
			left[a->cards[k]]++;
	for (int j = 0; j < now.length; j++) {
		int pos = now.lo + j;
		rpl_card c = now.card[j];
		if (had && pos >= was.lo && pos <= was.hi && was.card[pos - was.lo] == c &&
		    was.wild[pos - was.lo] == now.wild[j])
			continue;
		if (left[c] == 0)
			continue; /* a floating wild that moved along the run */
		left[c]--;
		add_move(p, c, RPL_ZONE_HAND, RPL_ZONE_MELD, j);
		p->move[p->nmoves - 1].side = (int8_t)side;
		p->move[p->nmoves - 1].meld = (int8_t)index;
	}
}

/* The cards the decision moved, from the game before it (b) to the position after it (p). */
static void find_moves(rpl_position *p, const rpl_game *b, const rpl_action *a, int seat)
{
	rpl_card hb[RPL_DECK_SIZE], lost[RPL_DECK_SIZE];
	int nb = rpl_game_hand(b, seat, hb, RPL_DECK_SIZE), nlost = 0, side = seat % 2;
	const rpl_card *ha = p->hand[seat];
	int na = p->hand_count[seat];

	p->nmoves = 0;
	switch (a->kind) {
	case RPL_ACT_DRAW: hand_diff(p, hb, nb, ha, na, RPL_ZONE_STOCK, -1, lost); break;
	case RPL_ACT_TAKE: hand_diff(p, hb, nb, ha, na, RPL_ZONE_PILE, -1, lost); break;
	case RPL_ACT_MORTO: hand_diff(p, hb, nb, ha, na, RPL_ZONE_MORTO, a->morto, lost); break;
	case RPL_ACT_REJECT:
		nlost = hand_diff(p, hb, nb, ha, na, RPL_ZONE_STOCK, -1, lost);
		for (int k = 0; k < nlost; k++)
			add_move(p, lost[k], RPL_ZONE_HAND, RPL_ZONE_PILE, p->pile_count - nlost + k);
		break;
	case RPL_ACT_DISCARD:
		if (p->pile_count > 0)
			add_move(p, p->pile[p->pile_count - 1], RPL_ZONE_HAND, RPL_ZONE_PILE, p->pile_count - 1);
		break;
	case RPL_ACT_MELD:
		if (p->meld_count[side] > 0)
			meld_moves(p, b, a, side, p->meld_count[side] - 1);
		break;
	case RPL_ACT_ADD:
		if (a->side < 2 && a->meld < p->meld_count[a->side])
			meld_moves(p, b, a, a->side, a->meld);
		break;
	default: break;
	}
}

/* ev's position, with the running verdict: a position from bytes no signature vouches for says so first */
static int emit(struct walk *w, const rpl_event *ev)
{
	w->pos->index = w->index++;
	w->pos->verdict = w->trust_verdict && ev->offset >= w->trust_from ? w->trust_verdict : w->verdict;
	return w->fn ? w->fn(w->ctx, w->pos) : 0;
}

/* The running verdict after a decision that ended a deal or the match: does its claim hold? */
static void check_claims(struct walk *w, const rpl_position *p)
{
	if (w->verdict != RPL_VERDICT_OK)
		return;
	if (p->claimed && (p->claim[0] != p->score[0].total || p->claim[1] != p->score[1].total))
		w->verdict = RPL_VERDICT_MISMATCH;
	if (p->match_claimed && (p->match_claim[0] != p->total[0] || p->match_claim[1] != p->total[1]))
		w->verdict = RPL_VERDICT_MISMATCH;
}

static int on_before(void *ctx, const rpl_event *ev, const rpl_game *g)
{
	struct walk *w = ctx;
	if (!w->before) {
		w->before = rpl_game_clone(g);
		if (!w->before)
			return RPL_ENOMEM;
	} else {
		rpl_game_copy(w->before, g);
	}
	w->ev = *ev;
	return 0;
}

static int on_after(void *ctx, const rpl_event *ev, const rpl_game *g)
{
	struct walk *w = ctx;
	rpl_position *p = w->pos;

	memset(p, 0, offsetof(rpl_position, move));
	p->nmoves = 0;
	p->deal = rpl_game_deal_number(g);
	if (ev->kind == RPL_EV_DEAL) {
		p->kind = RPL_POS_DEALT;
		p->seat = -1;
		w->turn = w->decision = w->deal_decision = 0;
		fill_table(p, g, w);
		return emit(w, ev);
	}
	if (ev->turn != w->turn) {
		w->turn = ev->turn;
		w->decision = 0;
	}
	w->decision++;
	w->deal_decision++;
	p->kind = RPL_POS_DECISION;
	p->turn = ev->turn;
	p->decision = w->decision;
	p->deal_decision = w->deal_decision;
	p->seat = ev->seat;
	p->action = ev->action;
	fill_table(p, g, w);
	if (w->before)
		find_moves(p, w->before, &ev->action, ev->seat);
	check_claims(w, p);
	return emit(w, ev);
}

void rpl_position_of_game(const rpl_game *g, rpl_position *out)
{
	struct walk w;

	if (!g || !out)
		return;
	memset(&w, 0, sizeof(w));
	memset(out, 0, offsetof(rpl_position, move));
	out->nmoves = 0;
	out->seat = -1;
	out->deal = rpl_game_deal_number(g);
	fill_table(out, g, &w);
}

/* The positions of the log at path, or (path NULL) of the log rd reads. */
static int positions(const char *path, rpl_reader *rd, const rpl_rules *rules, const rpl_keyring *trusted,
                     rpl_position_fn fn, void *ctx, rpl_verdict *out)
{
	struct walk w;
	rpl_verify_observer obs;
	int err;

	memset(&w, 0, sizeof(w));
	w.fn = fn;
	w.ctx = ctx;
	w.verdict = RPL_VERDICT_OK;
	w.pos = malloc(sizeof(*w.pos));
	if (!w.pos)
		return RPL_ENOMEM;
	err = read_claims(path, rd, trusted, &w);
	if (err)
		goto cleanup;
	obs.ctx = &w;
	obs.before = on_before;
	obs.after = on_after;
	err = path ? rpl_verify_file_trusted(path, rules, trusted, out, &obs)
	           : rpl_verify_reader_trusted(rd, rules, trusted, out, &obs);
	/* replay: what the replay found, also under a tampered or untrusted verdict */
	if (err == 0 && out->replay == RPL_VERDICT_ILLEGAL && out->turn > 0 && w.before) {
		/* the refused decision: the table as it stood, the rule it breaks */
		rpl_position *p = w.pos;
		memset(p, 0, offsetof(rpl_position, move));
		p->nmoves = 0;
		p->kind = RPL_POS_REFUSED;
		p->deal = rpl_game_deal_number(w.before);
		if (w.ev.turn != w.turn)
			w.decision = 0;
		p->turn = w.ev.turn;
		p->decision = w.decision + 1;
		p->deal_decision = w.deal_decision + 1;
		p->seat = w.ev.seat;
		p->action = w.ev.action;
		p->rule = out->rule;
		snprintf(p->message, sizeof(p->message), "%s", out->message);
		fill_table(p, w.before, &w);
		w.verdict = RPL_VERDICT_ILLEGAL;
		err = emit(&w, &w.ev);
	}
cleanup:
	rpl_game_free(w.before);
	free(w.claims);
	free(w.pos);
	return err;
}

int rpl_positions_file(const char *path, const rpl_rules *rules, rpl_position_fn fn, void *ctx, rpl_verdict *out)
{
	if (!path || !out)
		return RPL_EINVAL;
	return positions(path, NULL, rules, NULL, fn, ctx, out);
}

int rpl_positions_file_trusted(const char *path, const rpl_rules *rules, const rpl_keyring *trusted, rpl_position_fn fn,
                               void *ctx, rpl_verdict *out)
{
	if (!path || !out)
		return RPL_EINVAL;
	return positions(path, NULL, rules, trusted, fn, ctx, out);
}

int rpl_positions_reader(rpl_reader *rd, const rpl_rules *rules, rpl_position_fn fn, void *ctx, rpl_verdict *out)
{
	if (!rd || !out)
		return RPL_EINVAL;
	return positions(NULL, rd, rules, NULL, fn, ctx, out);
}

int rpl_positions_reader_trusted(rpl_reader *rd, const rpl_rules *rules, const rpl_keyring *trusted, rpl_position_fn fn,
                                 void *ctx, rpl_verdict *out)
{
	if (!rd || !out)
		return RPL_EINVAL;
	return positions(NULL, rd, rules, trusted, fn, ctx, out);
}
