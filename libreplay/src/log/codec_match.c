/*
 * Version 7's match stream (docs/format.md 21; in progress, issue 27): what
 * a compact log of a match dealt freely codes in one stream besides the
 * layouts and the decisions. Where each deal ends, from contexts of the
 * bookkeeping; the claims, a deal's against the score the stream computes
 * from the bookkeeping and the header's parameters alone (never the rules
 * engine's, so that a rule fix does not change how a claim reads); whether
 * another deal follows.
 */
#include <stdlib.h>
#include <string.h>

#include "base/bits.h"
#include "log/codec_impl.h"
#include "libreplay/log.h"
#include "rules/rules_impl.h"

/*
 * Each face's value by the header's parameters: the engine's rule
 * (meld_impl.h) written again, since what the format computes must never
 * change with the engine (format.md 21.4). A rank's value, the same in
 * every suit.
 */
void rpl__mnotes_values(struct mnotes *n, const struct rpl_rules *r)
{
	int32_t rank[13]; /* A, 2, 3 .. K */

	rank[0] = RV(r, VALUE_ACE);
	rank[1] = RV(r, VALUE_TWO);
	for (int k = 2; k < 13; k++)
		rank[k] = k + 1 >= 8 ? RV(r, VALUE_HIGH) : RV(r, VALUE_LOW);
	for (int suit = 0; suit < 4; suit++)
		memcpy(n->val + 13 * suit, rank, sizeof(rank));
	n->val[RPL_JOKER] = RV(r, VALUE_JOKER);
}

void rpl__mnotes_deal(struct mnotes *n)
{
	n->morto_side[0] = n->morto_side[1] = -1;
	for (int s = 0; s < RPL_MAX_SEATS; s++)
		n->pick_turn[s] = -1;
}

/*
 * 1 when a meld's cards can lie as a run of one suit with no card standing
 * for another: no joker, no 2 of another suit, each rank once, an ace low,
 * high or, twice, both. faces, twice: bit c for each face laid, laid twice.
 */
static int natural_run(uint64_t faces, uint64_t twice)
{
	uint32_t x, y;
	int suit;

	if (!faces)
		return 1;
	if (faces >> RPL_JOKER & 1)
		return 0;
	suit = ctz64(faces) / 13;
	if (faces >> (13 * suit) >> 13)
		return 0;                         /* another suit */
	x = (uint32_t)(faces >> (13 * suit)); /* bit 0 the ace, bit k - 1 rank k */
	y = x >> 1;                           /* ranks 2 .. 13 */
	if (twice >> (13 * suit) >> 1)
		return 0; /* a rank but the ace twice */
	if (twice)
		return y == 0xFFF; /* the ace twice: every rank between */
	if (y && ((y >> ctz64(y)) & ((y >> ctz64(y)) + 1)))
		return 0; /* a gap */
	/* an ace extends the run at 1 (below a 2) or at 14 (above a king) */
	return !(x & 1) || !y || (y & 1) || (y >> 11 & 1);
}

void rpl__mnotes_score(const struct mnotes *n, const struct track *t, const struct rpl_rules *r, int64_t score[2])
{
	int out = -1, any = n->morto_side[0] >= 0 || n->morto_side[1] >= 0;

	/* the deal ended by going out when a hand is empty: the last to act's, if it is */
	for (int s = 0; s < t->n; s++)
		if (t->hand_n[s] == 0 && (out < 0 || s == t->last))
			out = s;
	for (int side = 0; side < 2; side++) {
		int64_t x = 0;
		for (int i = 0; i < t->nmelds[side]; i++) {
			const struct mmeld *m = &n->meld[side][i];
			int len = m->len, nat = len >= 7 && natural_run(m->face, m->twice);
			x += m->val;
			if (len >= 14)
				x += nat ? RV(r, BONUS_CLEAN14) : RV(r, BONUS_DIRTY14);
			else if (len >= 7)
				x += !nat ? RV(r, BONUS_DIRTY) : len == 13 ? RV(r, BONUS_CLEAN13) : RV(r, BONUS_CLEAN);
		}
		if (out >= 0 && (out & 1) == side)
			x += RV(r, BONUS_GOING_OUT);
		for (int s = side; s < t->n; s += 2) {
			int unplayed = n->pick_turn[s] >= 0 && t->turn - n->pick_turn[s] < t->n;
			if (unplayed && RV(r, UNPLAYED_MORTO_COST) > 0 && out >= 0 && (out & 1) != side) {
				x -= RV(r, UNPLAYED_MORTO_COST);
				continue;
			}
			/* the faces the hand holds: the bookkeeping's mask */
			for (uint64_t f = t->fmask[s]; f; f &= f - 1)
				x -= (int64_t)t->hand[s][ctz64(f)] * n->val[ctz64(f)];
		}
		if (n->morto_side[0] != side && n->morto_side[1] != side && (RV(r, PENALTY_IF_NONE_TAKEN) || any) &&
		    !(RV(r, PENALTY_NO_MORTO_SIDES) == RPL_PENALTY_NOT_OUT && out >= 0 && (out & 1) == side))
			x -= RV(r, PENALTY_NO_MORTO);
		score[side] = x;
	}
}

void rpl__mmodel_init(struct mmodel *mm)
{
	uint16_t *p = (uint16_t *)mm;
	for (size_t i = 0; i < sizeof(*mm) / sizeof(uint16_t); i++)
		p[i] = PINIT;
}

/* ---- the symbols: an encoder or a decoder (the other NULL), as code_hand's ---- */

static int xbit(struct mcx *c, uint16_t *p, int bit)
{
	if (c->e) {
		enc_bit(c->e, p, bit);
		return bit;
	}
	return dec_bit(c->d, p);
}

/* A rare bit: 1 with a fixed probability of 1/4096. */
static int xrare(struct mcx *c, int bit)
{
	if (c->e) {
		enc_fixed(c->e, 4095, bit);
		return bit;
	}
	return dec_fixed(c->d, 4095);
}

static int xhalf(struct mcx *c, int bit)
{
	if (c->e) {
		enc_fixed(c->e, 2048, bit);
		return bit;
	}
	return dec_fixed(c->d, 2048);
}

/* A number 0 .. 2^63 - 1: Elias gamma of v + 1, in bits of a half each; to the decoder, 64 digits or more are bad. */
static uint64_t xnum(struct mcx *c, uint64_t v)
{
	uint64_t x = v + 1;
	int nb = 0, i;

	if (c->e)
		while ((x >> (nb + 1)) != 0)
			nb++;
	for (i = 0; i < 64; i++)
		if (!xhalf(c, c->e ? i < nb : 0))
			break;
	if (i == 64) {
		c->d->bad = 1;
		return 0;
	}
	nb = i;
	if (!c->e)
		x = 1;
	for (i = nb - 1; i >= 0; i--) {
		int b = xhalf(c, c->e ? (int)((x >> i) & 1) : 0);
		if (!c->e)
			x = x << 1 | (uint64_t)b;
	}
	return x - 1;
}

/* A signed difference, zigzag (the callers' stay within 2^62 either way). */
static int64_t xdiff(struct mcx *c, int64_t v)
{
	uint64_t z = v < 0 ? ((uint64_t)(-(v + 1)) << 1) | 1 : (uint64_t)v << 1;
	z = xnum(c, z);
	return (z & 1) ? -(int64_t)(z >> 1) - 1 : (int64_t)(z >> 1);
}

int rpl__mx_bit(struct mcx *c, uint16_t *p, int bit)
{
	return xbit(c, p, bit);
}

/* A count 0 .. n - 1, each as likely. */
static int xcount(struct mcx *c, int v, int n)
{
	if (c->e) {
		enc_freq(c->e, (uint32_t)v, 1, (uint32_t)n);
		return v;
	} else {
		uint32_t r, x = dec_freq_at(c->d, (uint32_t)n, &r);
		dec_freq_take(c->d, r, x, 1);
		return (int)x;
	}
}

/* The first k cards of a pile of len in their order; the decoder puts the rest ascending. */
static int xpile(struct mcx *c, rpl_card *pile, int k, int len)
{
	return rpl__code_pile(c->e, c->d, pile, k, len);
}

int rpl__mx_drawn(struct mcx *c, struct mmodel *mm, rpl_layout *lay, int nplayers, int drawn[3])
{
	int stock = RPL_STOCK_SIZE(nplayers);

	drawn[0] = xcount(c, drawn[0], stock + 1);
	if (xpile(c, lay->stock, drawn[0], stock) < 0)
		return -1;
	for (int m = 0; m < 2; m++) {
		/* a morto becomes the stock only once the stock is done */
		if (drawn[0] < stock || !xbit(c, &mm->became[m], drawn[1 + m] > 0)) {
			drawn[1 + m] = 0;
			continue;
		}
		drawn[1 + m] = 1 + xcount(c, drawn[1 + m] - 1, RPL_MORTO_SIZE);
		if (xpile(c, lay->morto[m], drawn[1 + m], RPL_MORTO_SIZE) < 0)
			return -1;
	}
	return 0;
}

int rpl__mx_over(struct mcx *c, struct mmodel *mm, int ctx, int over)
{
	return ctx == MEND_FIXED ? xrare(c, over) : xbit(c, &mm->end[ctx], over);
}

int rpl__mx_claim_next(struct mcx *c, struct mmodel *mm, int over, int claim)
{
	return over ? xbit(c, &mm->claim_after, claim) : xrare(c, claim);
}

int rpl__mx_more_deals(struct mcx *c, struct mmodel *mm, int more)
{
	return xbit(c, &mm->more_deals, more);
}

int rpl__mx_claim(struct mcx *c, struct mmodel *mm, int cur, const int64_t pred[2], const int64_t sum[2], int *deal,
                  int32_t score[2])
{
	int64_t base[2] = { 0, 0 }, v[2];
	int k = 2;

	if (xbit(c, &mm->this_deal, c->e ? *deal == cur : 0))
		*deal = cur;
	else if (xbit(c, &mm->is_match, c->e ? *deal == 0 : 0))
		*deal = 0;
	else {
		uint64_t x = xnum(c, c->e ? (uint64_t)*deal : 0);
		if (x > RPL_MAX_DEALS || x == 0 || x == (uint64_t)cur)
			return -1; /* each number has one encoding: 0 and the current deal's are the bits */
		*deal = (int)x;
	}
	if (pred && *deal == cur) {
		base[0] = pred[0];
		base[1] = pred[1];
		k = 0;
	} else if (*deal == 0) {
		base[0] = sum[0];
		base[1] = sum[1];
		k = 1;
	}
	if (xbit(c, &mm->equal[k], c->e ? score[0] == base[0] && score[1] == base[1] : 0)) {
		v[0] = base[0];
		v[1] = base[1];
	} else {
		for (int s = 0; s < 2; s++)
			v[s] = base[s] + xdiff(c, c->e ? (int64_t)score[s] - base[s] : 0);
		/* a claim equal to its base has one encoding: the bit */
		if (c->d && v[0] == base[0] && v[1] == base[1])
			return -1;
	}
	for (int s = 0; s < 2; s++) {
		if (v[s] < INT32_MIN || v[s] > INT32_MAX)
			return -1;
		score[s] = (int32_t)v[s];
	}
	return 0;
}

void rpl__enc_pick_draw(struct rc_enc *e, struct track *t, const rpl_action *a)
{
	int pos, len, became;
	const rpl_card *at;

	if (a->kind != RPL_ACT_DRAW && a->kind != RPL_ACT_REJECT)
		return;
	if ((at = rpl__track_draw_place(t, &pos, &len, &became)) != NULL)
		rpl__enc_pick(e, at, pos, len);
}

/* Version 7: a claim of the match's stream; the deal claims added up, as the reader adds them. */
static void m_claim_put(struct mcx *c, struct mmodel *mm, int cur, const int64_t *pred, int64_t sum[2],
                        const struct mitem *it)
{
	int deal = it->deal;
	int32_t score[2] = { it->score[0], it->score[1] };

	rpl__mx_claim(c, mm, cur, pred, sum, &deal, score);
	if (it->deal > 0) {
		sum[0] += it->score[0];
		sum[1] += it->score[1];
	}
}

/* The bookkeeping t applies a decision, and n notes it. */
static int mnotes_apply(struct mnotes *n, struct track *t, const rpl_action *a)
{
	int seat = rpl__track_actor(t, a->kind);

	if (rpl__track_apply(t, a, NULL, 0) < 0)
		return -1;
	rpl__mnotes_applied(n, t, a, seat);
	return 0;
}

/*
 * What a deal's stream says before its decisions, from a replay of them
 * (items from i, up to the next deal): how far each pile was drawn;
 * regular, the deal ends at its first decision whose context is out or dry
 * (21.3); inner, claims come between its decisions. -1: a decision the
 * bookkeeping refuses.
 */
static int deal_plan(const struct mitem *items, size_t i, size_t nitems, struct track t, struct mnotes *mn,
                     int drawn[3], int *regular, int *inner)
{
	int first_end = -1, k = 0, last = -1;

	*inner = 0;
	rpl__mnotes_deal(mn);
	for (; i < nitems && items[i].type != 'D'; i++) {
		int ctx;
		if (items[i].type == 'C') {
			*inner |= 2; /* inner once a decision follows */
			continue;
		}
		if (*inner & 2)
			*inner = 1;
		if (mnotes_apply(mn, &t, &items[i].a) < 0)
			return -1;
		ctx = rpl__mnotes_end_ctx(mn, &t);
		if (first_end < 0 && (ctx == MEND_OUT || ctx == MEND_DRY))
			first_end = k;
		last = k++;
	}
	*inner &= 1;
	*regular = last >= 0 && first_end == last;
	rpl__track_drawn(&t, drawn);
	return 0;
}

int rpl__enc_match(struct buf *pay, const struct mitem *items, size_t nitems, const rpl_layout *layouts,
                   const rpl_match_info *info)
{
	struct track t;
	struct model m;
	struct mmodel mm;
	struct mnotes *mn = malloc(2 * sizeof(*mn));
	struct rc_enc enc;
	struct mcx c = { &enc, NULL };
	int64_t sum[2] = { 0, 0 }, pred[2] = { 0, 0 };
	int deal = 0, dealer = 0, n = info->nplayers, err = RPL_EINVAL;
	size_t i = 0, li = 0;

	if (!mn)
		return RPL_ENOMEM;
	rpl__mmodel_init(&mm);
	rpl__mnotes_values(&mn[0], info->rules);
	rpl__mnotes_values(&mn[1], info->rules);
	rpl__rc_enc_init(&enc, pay);
	for (;;) {
		int drawn[3], regular, inner;
		rpl_layout lay;
		/* between deals (or before the first): the claims, then whether a deal follows */
		for (; i < nitems && items[i].type == 'C'; i++) {
			rpl__mx_claim_next(&c, &mm, 1, 1);
			m_claim_put(&c, &mm, deal, deal > 0 ? pred : NULL, sum, &items[i]);
		}
		rpl__mx_claim_next(&c, &mm, 1, 0);
		if (!rpl__mx_more_deals(&c, &mm, i < nitems))
			break;
		/* items[i] is a deal: its layout, what play drew, how it ends, then its decisions */
		deal++;
		dealer = deal == 1 ? info->first_dealer : (dealer + 1) % n;
		lay = layouts[li++];
		rpl__track_deal(&t, n, dealer, &lay);
		rpl__mnotes_deal(&mn[0]);
		if (deal == 1)
			rpl__model_init(&m, 7);
		if (deal_plan(items, i + 1, nitems, t, &mn[1], drawn, &regular, &inner) < 0)
			goto cleanup;
		rpl__enc_layout_sets(&enc, n, &lay);
		rpl__mx_drawn(&c, &mm, &lay, n, drawn);
		rpl__mx_bit(&c, &mm.regular, regular);
		rpl__mx_bit(&c, &mm.inner, inner);
		for (i++;;) {
			size_t j = i;
			int ctx = rpl__mnotes_end_ctx(&mn[0], &t), more;
			while (j < nitems && items[j].type == 'C')
				j++;
			more = j < nitems && items[j].type == 'a';
			if (regular ? ctx == MEND_OUT || ctx == MEND_DRY : rpl__mx_over(&c, &mm, ctx, !more))
				break;
			for (; inner && i < j; i++) {
				rpl__mx_claim_next(&c, &mm, 0, 1);
				m_claim_put(&c, &mm, deal, NULL, sum, &items[i]);
			}
			if (inner)
				rpl__mx_claim_next(&c, &mm, 0, 0);
			if (rpl__enc_action(&enc, &m, &t, &items[i].a) < 0)
				goto cleanup;
			if (mnotes_apply(&mn[0], &t, &items[i].a) < 0)
				goto cleanup;
			i++;
		}
		rpl__mnotes_score(&mn[0], &t, info->rules, pred);
	}
	rpl__rc_enc_finish(&enc);
	err = pay->oom ? RPL_ENOMEM : 0;
cleanup:
	free(mn);
	return err;
}
