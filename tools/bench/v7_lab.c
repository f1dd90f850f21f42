/*
 * brp-score-lab: what a version 7's claims and deal ends would cost, from
 * the format's card bookkeeping alone (not installed; issue 27,
 * docs/format.md 20.8).
 *
 *   brp-score-lab DIR...
 *
 * A version 7 would code each deal claim against a score the format
 * computes itself, from the bookkeeping of section 8 and the header's
 * parameters, with no call to the rules engine (so that a rule fix never
 * changes how a claim reads). This is that computation, measured: for each
 * deal claim of every log of each DIR, the score of each side at the end of
 * its deal from the cards alone (the melds' card values, a canastra's
 * category from its cards, the side whose seat ended with an empty hand,
 * the cards left in the hands, the mortos taken), compared with the claim.
 * It prints, a DIR a line, the deal claims, those both of whose scores it
 * predicts, the misses, and what the claims would cost coded as "the
 * prediction" (an adaptive bit, as the codec's) or else the two
 * differences (as zigzag varints), against the bytes of their scores
 * stored as version 6 stores them. BRP_SCORE_LAB_MISSES set lists each
 * miss.
 *
 * And a second line: what each deal's end would cost coded in the stream
 * (in place of a count of its decisions), a bit after every decision in
 * one of four contexts from the bookkeeping (end_ctx).
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "log/codec_impl.h"
#include "log/format.h"
#include "libreplay/libreplay.h"

/* The rule parameters a score needs, read through the public API. */
struct params {
	int joker, two, ace, high, low;
	int dirty, clean, clean13, clean14, dirty14;
	int out, no_morto, if_none, unplayed, sides;
};

static int param(const rpl_rules *r, int id)
{
	int v = 0;
	rpl_rules_get_id(r, id, &v);
	return v;
}

static void params_of(const rpl_rules *r, struct params *p)
{
	p->joker = param(r, RPL_P_VALUE_JOKER);
	p->two = param(r, RPL_P_VALUE_TWO);
	p->ace = param(r, RPL_P_VALUE_ACE);
	p->high = param(r, RPL_P_VALUE_HIGH);
	p->low = param(r, RPL_P_VALUE_LOW);
	p->dirty = param(r, RPL_P_BONUS_DIRTY);
	p->clean = param(r, RPL_P_BONUS_CLEAN);
	p->clean13 = param(r, RPL_P_BONUS_CLEAN13);
	p->clean14 = param(r, RPL_P_BONUS_CLEAN14);
	p->dirty14 = param(r, RPL_P_BONUS_DIRTY14);
	p->out = param(r, RPL_P_BONUS_GOING_OUT);
	p->no_morto = param(r, RPL_P_PENALTY_NO_MORTO);
	p->if_none = param(r, RPL_P_PENALTY_IF_NONE_TAKEN);
	p->unplayed = param(r, RPL_P_UNPLAYED_MORTO_COST);
	p->sides = param(r, RPL_P_PENALTY_NO_MORTO_SIDES);
}

static int value(const struct params *p, rpl_card c)
{
	int rank;
	if (c == RPL_JOKER)
		return p->joker;
	rank = RPL_CARD_RANK(c);
	if (rank == 1)
		return p->ace;
	if (rank == 2)
		return p->two;
	return rank >= 8 ? p->high : p->low;
}

/*
 * 1 when a meld's cards can lie as a run of one suit with no card standing
 * for another (no joker, no 2 of another suit, each rank once, an ace low or
 * high or, twice, both): a canastra of such cards is clean.
 */
static int natural_run(const uint8_t *cnt)
{
	int suit = -1, r[15] = { 0 }, lo = 15, hi = 0;

	if (cnt[RPL_JOKER])
		return 0;
	for (int c = 0; c < RPL_JOKER; c++) {
		if (!cnt[c])
			continue;
		if (suit >= 0 && RPL_CARD_SUIT(c) != suit)
			return 0;
		suit = RPL_CARD_SUIT(c);
		r[RPL_CARD_RANK(c)] += cnt[c];
	}
	if (r[1] == 2) {
		for (int k = 2; k <= 13; k++)
			if (r[k] != 1)
				return 0;
		return 1;
	}
	for (int k = 2; k <= 13; k++) {
		if (r[k] > 1)
			return 0;
		if (r[k]) {
			lo = k < lo ? k : lo;
			hi = k > hi ? k : hi;
		}
	}
	for (int k = lo; k <= hi; k++)
		if (!r[k])
			return 0;
	/* an ace extends the run at 1 (below a 2) or at 14 (above a king) */
	return !r[1] || lo == 2 || hi == 13 || lo > hi;
}

struct deal {
	uint8_t meld[2][RPL_MAX_MELDS][RPL_NFACES];
	uint8_t nmelds[2];
	int8_t morto_side[2]; /* -1 not taken, else the side that took it */
	uint8_t unplayed[RPL_MAX_SEATS];
	int last_seat, last_kind;
};

/* What each part of a side's score came to (the parts of rpl_score). */
struct parts {
	int melded, bonus, out, hand, morto;
};

static void predict(const struct params *p, const struct track *t, const struct deal *d, struct parts sc[2])
{
	int out_seat = -1, any_taken = d->morto_side[0] >= 0 || d->morto_side[1] >= 0;

	/* the deal ended by going out when a hand is empty: the last to act's, if it is */
	for (int s = 0; s < t->n; s++)
		if (t->hand_n[s] == 0 && (out_seat < 0 || s == d->last_seat))
			out_seat = s;
	memset(sc, 0, 2 * sizeof(*sc));
	for (int side = 0; side < 2; side++) {
		struct parts *x = &sc[side];
		for (int i = 0; i < d->nmelds[side]; i++) {
			const uint8_t *m = d->meld[side][i];
			int len = 0, clean = natural_run(m);
			for (int c = 0; c < RPL_NFACES; c++) {
				len += m[c];
				x->melded += m[c] * value(p, (rpl_card)c);
			}
			if (len == 14)
				x->bonus += clean ? p->clean14 : p->dirty14;
			else if (len >= 7)
				x->bonus += !clean ? p->dirty : len == 13 ? p->clean13 : p->clean;
		}
		if (out_seat >= 0 && (out_seat & 1) == side)
			x->out = p->out;
		for (int s = side; s < t->n; s += 2) {
			if (d->unplayed[s] && p->unplayed > 0 && out_seat >= 0 && (out_seat & 1) != side) {
				x->hand -= p->unplayed;
				continue;
			}
			for (int c = 0; c < RPL_NFACES; c++)
				x->hand -= t->hand[s][c] * value(p, (rpl_card)c);
		}
		if (d->morto_side[0] != side && d->morto_side[1] != side && (p->if_none || any_taken) &&
		    !(p->sides == RPL_PENALTY_NOT_OUT && out_seat >= 0 && (out_seat & 1) == side))
			x->morto = -p->no_morto;
	}
}

/* The deal's own notes of a decision, before the bookkeeping applies it. */
static void note(struct deal *d, const struct track *t, const rpl_action *a)
{
	int seat = rpl__track_actor(t, a->kind);

	if (a->kind != RPL_ACT_MORTO && !t->open)
		d->unplayed[seat] = 0; /* the seat's turn starts */
	switch (a->kind) {
	case RPL_ACT_MELD:
		if (d->nmelds[seat & 1] < RPL_MAX_MELDS) {
			uint8_t *m = d->meld[seat & 1][d->nmelds[seat & 1]++];
			memset(m, 0, RPL_NFACES);
			for (int i = 0; i < a->ncards; i++)
				m[a->cards[i]]++;
		}
		break;
	case RPL_ACT_ADD:
		if (a->side < 2 && a->meld < d->nmelds[a->side])
			for (int i = 0; i < a->ncards; i++)
				d->meld[a->side][a->meld][a->cards[i]]++;
		break;
	case RPL_ACT_MORTO:
		if (a->morto < 2)
			d->morto_side[a->morto] = (int8_t)(seat & 1);
		/* picked up after a discard: the seat plays it only from its next turn */
		if (t->last_kind == RPL_ACT_DISCARD)
			d->unplayed[seat] = 1;
		break;
	default: break;
	}
	d->last_seat = seat;
	d->last_kind = a->kind;
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	uint8_t *p = NULL;
	if (!f)
		return NULL;
	if (fstat(fileno(f), &st) == 0 && (p = malloc((size_t)st.st_size + 1)) != NULL) {
		*n = (size_t)st.st_size;
		if (fread(p, 1, *n, f) != *n) {
			free(p);
			p = NULL;
		}
	}
	fclose(f);
	return p;
}

/* Bytes of a zigzag varint. */
static int varint_len(int64_t v)
{
	uint64_t z = v < 0 ? ((uint64_t)(-(v + 1)) << 1) | 1 : (uint64_t)v << 1;
	int n = 1;
	while (z >= 128) {
		z >>= 7;
		n++;
	}
	return n;
}

/* An adaptive bit as the codec's (format.md 6.2): its cost in bits, and the probability learnt. */
struct abit {
	uint32_t p0, n; /* P(0) in 11 bits; bits seen */
};

static double abit_code(struct abit *b, int bit)
{
	if (b->n == UINT32_MAX) /* a fixed bit: P(1) = 1/4096 */
		return -log2(bit ? 1.0 / 4096 : 4095.0 / 4096);
	static const uint8_t rate_of[7] = { 1, 2, 2, 3, 3, 3, 4 };
	uint32_t r = rate_of[b->n < 6 ? b->n : 6];
	double cost = -log2((bit ? 2048.0 - b->p0 : (double)b->p0) / 2048.0);
	b->p0 = bit ? b->p0 - (b->p0 >> r) : b->p0 + ((2048 - b->p0) >> r);
	b->n++;
	return cost;
}

/*
 * Where a deal can end, from the bookkeeping: 0 the seat that acted has an
 * empty hand and no morto is left for its side (it took one, or none is
 * left), 3 an empty hand with a morto left for the side, 1 a turn ended
 * and nothing is left to draw (the stock done, every morto taken or drawn
 * from), 2 none of
 * these (coded with a fixed probability of 1/4096: a deal ends there only
 * in a log cut short or recorded unchecked).
 */
static int end_ctx(const struct track *t, const struct deal *d, int seat)
{
	if (t->hand_n[seat] == 0) {
		int left = (t->morto_used[0] == 0) + (t->morto_used[1] == 0);
		int has = d->morto_side[0] == (seat & 1) || d->morto_side[1] == (seat & 1);
		return has || !left ? 0 : 3;
	}
	if (!t->open && t->src_pos >= t->src_len && t->morto_used[0] && t->morto_used[1])
		return 1;
	return 2;
}

static void run(const char *dir)
{
	DIR *dd = opendir(dir);
	struct dirent *de;
	uint64_t matches = 0, claims = 0, hits = 0, miss[4] = { 0 }, whole = 0;
	double bits = 0;
	uint32_t p0 = 1024, n0 = 0; /* the "prediction" bit: P(hit) in 11 bits, adapted as the codec's; bits seen */
	double end_bits = 0;
	uint64_t ends[4] = { 0 }, at[4] = { 0 };

	if (!dd) {
		perror(dir);
		exit(2);
	}
	while ((de = readdir(dd)) != NULL) {
		char path[4096];
		size_t len = strlen(de->d_name), n = 0;
		uint8_t *data;
		rpl_reader *rd = NULL;
		rpl_event ev;
		struct track t;
		static struct deal d;
		struct params p;
		const rpl_match_info *info;
		int dealer = 0, open = 0, deal = 0, pending = -1;
		struct abit endb[4] = { { 1024, 0 }, { 1024, 0 }, { 0, UINT32_MAX }, { 1024, 0 } };

		if (len < 5 || strcmp(de->d_name + len - 4, ".brp") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!(data = slurp(path, &n)))
			continue;
		if (rpl_reader_open_memory(&rd, data, n) != 0) {
			rpl_reader_free(rd);
			free(data);
			continue;
		}
		info = rpl_reader_info(rd);
		params_of(info->rules, &p);
		while (rpl_reader_next(rd, &ev) == 1) {
			if (ev.kind == RPL_EV_DEAL) {
				if (pending >= 0) {
					end_bits += abit_code(&endb[pending], 1);
					ends[pending]++;
				}
				pending = -1;
				dealer = ev.deal == 1 ? info->first_dealer : (dealer + 1) % info->nplayers;
				rpl__track_deal(&t, info->nplayers, dealer, &ev.layout);
				memset(&d, 0, sizeof(d));
				d.morto_side[0] = d.morto_side[1] = -1;
				d.last_seat = -1;
				open = 1;
				deal = ev.deal;
			} else if (ev.kind == RPL_EV_ACTION && open) {
				int seat = rpl__track_actor(&t, ev.action.kind);
				if (pending >= 0)
					end_bits += abit_code(&endb[pending], 0);
				note(&d, &t, &ev.action);
				rpl__track_apply(&t, &ev.action, NULL, 0);
				pending = end_ctx(&t, &d, seat);
				at[pending]++;
			} else if (ev.kind == RPL_EV_CLAIM && open && ev.deal == deal && deal > 0) {
				struct parts sc[2];
				int hit;
				predict(&p, &t, &d, sc);
				claims++;
				whole += (uint64_t)(varint_len(ev.score[0]) + varint_len(ev.score[1]));
				hit = 1;
				for (int s = 0; s < 2; s++) {
					int tot = sc[s].melded + sc[s].bonus + sc[s].out + sc[s].hand + sc[s].morto;
					if (tot != ev.score[s]) {
						int diff = ev.score[s] - tot;
						hit = 0;
						if (getenv("BRP_SCORE_LAB_MISSES"))
							printf("%s deal %d side %d: claimed %d, predicted %d (melded %d bonus %d out %d hand "
							       "%d morto %d)\n",
							       path, deal, s, ev.score[s], tot, sc[s].melded, sc[s].bonus, sc[s].out, sc[s].hand,
							       sc[s].morto);
						bits += 8.0 * varint_len(diff);
						/* a canastra's category and going out are multiples of 100 in every profile */
						miss[diff % 100 == 0 ? 1 : 3]++;
					}
				}
				/* the bit, adaptive: its cost at the estimate before it (counts, as the codec's do) */
				bits += -log2((hit ? (double)p0 : 2048.0 - p0) / 2048.0);
				{
					static const uint8_t rate_of[7] = { 1, 2, 2, 3, 3, 3, 4 }; /* the codec's (format.md 6.2) */
					uint32_t r = rate_of[n0 < 6 ? n0 : 6];
					p0 = hit ? p0 + ((2048 - p0) >> r) : p0 - (p0 >> r);
					n0++;
				}
				hits += (uint64_t)hit;
			}
		}
		if (pending >= 0) {
			end_bits += abit_code(&endb[pending], 1);
			ends[pending]++;
		}
		matches++;
		p0 = 1024;
		n0 = 0;
		rpl_reader_free(rd);
		free(data);
	}
	closedir(dd);
	if (!matches || !claims) {
		printf("%s: no deal claims\n", dir);
		return;
	}
	printf("%s: matches %llu deal_claims %llu predicted %llu (%.2f %%); scores missed by a multiple of 100 %llu, "
	       "by another amount %llu; bytes a match: scores stored %.2f, coded against the prediction %.2f\n",
	       dir, (unsigned long long)matches, (unsigned long long)claims, (unsigned long long)hits,
	       100.0 * (double)hits / (double)claims, (unsigned long long)miss[1], (unsigned long long)miss[3],
	       (double)whole / (double)matches, bits / 8 / (double)matches);
	printf("%s: each deal's end, a bit after every decision: deals ended with an empty hand %llu (of %llu such "
	       "decisions; with a morto left for the side %llu of %llu), with nothing to draw %llu (of %llu), otherwise "
	       "%llu (of %llu); bytes a match %.2f\n",
	       dir, (unsigned long long)ends[0], (unsigned long long)at[0], (unsigned long long)ends[3],
	       (unsigned long long)at[3], (unsigned long long)ends[1], (unsigned long long)at[1],
	       (unsigned long long)ends[2], (unsigned long long)at[2], end_bits / 8 / (double)matches);
}

/* ---- stream: a whole match coded as a version 7 would code it, and decoded back ---- */

/* The events of a log, as read. */
struct item {
	int kind; /* RPL_EV_DEAL, _ACTION, _CLAIM */
	int deal;
	rpl_action a;
	int32_t score[2];
	rpl_layout lay;
};

/* The states of the stream's own symbols (the decisions' are struct model's). */
struct smodel {
	struct model m;
	uint16_t end[4];      /* the deal is over: by end_ctx (2 is fixed) */
	uint16_t claim_after; /* a claim follows, once the deal is over */
	uint16_t this_deal, is_match;
	uint16_t equal[3]; /* the claim is the prediction: a deal's own, the match's sum, another */
	uint16_t more_deals;
};

static void smodel_init(struct smodel *sm)
{
	rpl__model_init(&sm->m, 6);
	for (size_t i = 0; i < sizeof(*sm) / sizeof(uint16_t); i++)
		if ((uint16_t *)sm + i >= (uint16_t *)&sm->end)
			((uint16_t *)sm)[i] = PINIT;
}

/* One coder over an encoder or a decoder (the other NULL), as code_hand's. */
struct cx {
	struct rc_enc *e;
	struct rc_dec *d;
};

static int xbit(struct cx *c, uint16_t *p, int bit)
{
	if (c->e) {
		enc_bit(c->e, p, bit);
		return bit;
	}
	return dec_bit(c->d, p);
}

/* A bit of fixed probability: P(1) = 1/4096 when rare, else 1/2. */
static int xfixed(struct cx *c, int rare, int bit)
{
	uint32_t p12 = rare ? 4095 : 2048;
	if (c->e) {
		enc_fixed(c->e, p12, bit);
		return bit;
	}
	return dec_fixed(c->d, p12);
}

/* A number >= 0 (Elias gamma of v + 1, halves), at most 2^31. */
static uint32_t xnum(struct cx *c, uint32_t v)
{
	uint64_t x = (uint64_t)v + 1;
	int nb = 0, i;

	if (c->e)
		while ((x >> (nb + 1)) != 0)
			nb++;
	for (i = 0; i < 32; i++)
		if (xfixed(c, 0, c->e ? i < nb : 0) == 0)
			break;
	nb = i;
	if (!c->e)
		x = 1;
	for (i = nb - 1; i >= 0; i--) {
		int b = xfixed(c, 0, c->e ? (int)((x >> i) & 1) : 0);
		if (!c->e)
			x = x << 1 | (uint64_t)b;
	}
	return (uint32_t)(x - 1);
}

static int32_t xzig(struct cx *c, int64_t v)
{
	uint32_t z = v < 0 ? (uint32_t)(((uint64_t)(-(v + 1)) << 1) | 1) : (uint32_t)((uint64_t)v << 1);
	z = xnum(c, z);
	return (z & 1) ? -(int32_t)(z >> 1) - 1 : (int32_t)(z >> 1);
}

/* The state a match's stream is coded from. */
struct sstate {
	struct track t;
	struct deal d;
	struct params p;
	int n, dealer, deal, over;
	int64_t sum[2];
	int8_t src_of;  /* what the track's draw pile is: -1 the stock, 0 or 1 a morto */
	rpl_layout lay; /* the layout, filled as play reveals it (the decoder's) */
};

/* A claim: its deal, and its scores against the prediction the stream makes for it. */
static void x_claim(struct cx *c, struct smodel *sm, struct sstate *st, int *deal, int32_t score[2])
{
	int64_t base[2] = { 0, 0 };
	int k = 2;

	if (xbit(c, &sm->this_deal, *deal == st->deal)) {
		*deal = st->deal;
	} else if (xbit(c, &sm->is_match, *deal == 0)) {
		*deal = 0;
	} else {
		*deal = (int)xnum(c, (uint32_t)*deal);
	}
	if (*deal == st->deal && st->over) {
		struct parts sc[2];
		predict(&st->p, &st->t, &st->d, sc);
		for (int s = 0; s < 2; s++)
			base[s] = sc[s].melded + sc[s].bonus + sc[s].out + sc[s].hand + sc[s].morto;
		k = 0;
	} else if (*deal == 0) {
		base[0] = st->sum[0];
		base[1] = st->sum[1];
		k = 1;
	}
	if (xbit(c, &sm->equal[k], c->e ? score[0] == base[0] && score[1] == base[1] : 0)) {
		score[0] = (int32_t)base[0];
		score[1] = (int32_t)base[1];
	} else {
		for (int s = 0; s < 2; s++)
			score[s] = (int32_t)(base[s] + xzig(c, c->e ? (int64_t)score[s] - base[s] : 0));
	}
	if (*deal > 0) {
		st->sum[0] += score[0];
		st->sum[1] += score[1];
	}
}

static void s_deal(struct sstate *st, const rpl_layout *lay)
{
	st->deal++;
	st->dealer = st->deal == 1 ? st->dealer : (st->dealer + 1) % st->n;
	rpl__track_deal(&st->t, st->n, st->dealer, lay);
	memset(&st->d, 0, sizeof(st->d));
	st->d.morto_side[0] = st->d.morto_side[1] = -1;
	st->d.last_seat = -1;
	st->over = 0;
	st->src_of = -1;
	st->lay = *lay;
}

/*
 * A drawn card's place, as the bookkeeping's draw takes it: the pile being
 * drawn from, or (when it is done) the morto that becomes the stock, whose
 * first card is then coded where the bookkeeping will copy it from. The
 * pile done is kept in the layout first (the decoder's record of it).
 */
static rpl_card *draw_place(struct sstate *st, int *pos, int *len)
{
	struct track *t = &st->t;
	if (t->src_pos < t->src_len) {
		*pos = t->src_pos;
		*len = t->src_len;
		return t->src;
	}
	int m = t->morto_used[0] == 0 ? 0 : (t->morto_used[1] == 0 ? 1 : -1);
	if (m < 0)
		return NULL;
	if (st->src_of < 0)
		memcpy(st->lay.stock, t->src, (size_t)t->src_len);
	else
		memcpy(st->lay.morto[st->src_of], t->src, RPL_MORTO_SIZE);
	st->src_of = (int8_t)m;
	*pos = 0;
	*len = RPL_MORTO_SIZE;
	return t->morto[m];
}

static int by_card(const void *a, const void *b)
{
	return *(const rpl_card *)a - *(const rpl_card *)b;
}

/* At a deal's end, the decoder's layout: the pile being drawn from kept, each pile's unrevealed cards ascending. */
static void s_fill(struct sstate *st)
{
	struct track *t = &st->t;
	int stock = RPL_STOCK_SIZE(st->n);
	rpl_card *cur = st->src_of < 0 ? st->lay.stock : st->lay.morto[st->src_of];
	memcpy(cur, t->src, (size_t)t->src_len);
	qsort(cur + t->src_pos, (size_t)(t->src_len - t->src_pos), 1, by_card);
	if (st->src_of >= 0)
		(void)stock; /* the stock was drawn whole */
}

/* Encode the items of one log; returns the stream's bytes in out. */
static void enc_match(const struct item *it, size_t n, const rpl_match_info *info, struct buf *out)
{
	static struct smodel sm;
	static struct sstate st;
	struct rc_enc e;
	struct cx c = { &e, NULL };
	size_t i = 0;

	smodel_init(&sm);
	memset(&st, 0, sizeof(st));
	params_of(info->rules, &st.p);
	st.n = info->nplayers;
	st.dealer = info->first_dealer;
	rpl__rc_enc_init(&e, out);
	while (i < n && it[i].kind == RPL_EV_DEAL) {
		if (st.deal > 0)
			xbit(&c, &sm.more_deals, 1);
		rpl__enc_layout_sets(&e, st.n, &it[i].lay);
		s_deal(&st, &it[i].lay);
		i++;
		for (;;) {
			size_t j = i;
			int more = 0;
			while (j < n && it[j].kind == RPL_EV_CLAIM)
				j++;
			more = j < n && it[j].kind == RPL_EV_ACTION;
			if (!st.over) {
				int ctx = st.d.last_seat < 0 ? 2 : end_ctx(&st.t, &st.d, st.d.last_seat);
				if (ctx == 2)
					xfixed(&c, 1, !more);
				else
					xbit(&c, &sm.end[ctx], !more);
				if (!more) {
					st.over = 1;
					continue;
				}
				for (; i < j; i++) {
					xfixed(&c, 1, 1);
					x_claim(&c, &sm, &st, (int *)&it[i].deal, (int32_t *)it[i].score);
				}
				xfixed(&c, 1, 0);
				{
					const rpl_action *a = &it[i].a;
					rpl__enc_action(&e, &sm.m, &st.t, a);
					if (a->kind == RPL_ACT_DRAW || a->kind == RPL_ACT_REJECT) {
						int pos, len;
						rpl_card *pl = draw_place(&st, &pos, &len);
						if (pl)
							rpl__enc_pick(&e, pl, pos, len);
					}
					note(&st.d, &st.t, a);
					rpl__track_apply(&st.t, a, NULL, 0);
				}
				i++;
			} else {
				for (; i < j; i++) {
					xbit(&c, &sm.claim_after, 1);
					x_claim(&c, &sm, &st, (int *)&it[i].deal, (int32_t *)it[i].score);
				}
				xbit(&c, &sm.claim_after, 0);
				break;
			}
		}
	}
	if (st.deal > 0)
		xbit(&c, &sm.more_deals, 0);
	rpl__rc_enc_finish(&e);
}

/* Decode a match's stream into items; returns their number, or -1. */
static long dec_match(const uint8_t *p, size_t len, const rpl_match_info *info, struct item *it, size_t cap)
{
	static struct smodel sm;
	static struct sstate st;
	struct rc_dec d;
	struct cx c = { NULL, &d };
	size_t k = 0, deal_item = 0;

	smodel_init(&sm);
	memset(&st, 0, sizeof(st));
	params_of(info->rules, &st.p);
	st.n = info->nplayers;
	st.dealer = info->first_dealer;
	rpl__rc_dec_init(&d, p, len);
	for (;;) {
		rpl_layout lay;
		if (st.deal > 0) {
			s_fill(&st);
			it[deal_item].lay = st.lay;
			if (!xbit(&c, &sm.more_deals, 0))
				break;
		}
		if (k >= cap || rpl__dec_layout_sets(&d, st.n, &lay) < 0)
			return -1;
		s_deal(&st, &lay);
		deal_item = k;
		it[k].kind = RPL_EV_DEAL;
		it[k++].deal = st.deal;
		for (;;) {
			if (k + 2 >= cap || d.bad)
				return -1;
			if (!st.over) {
				int ctx = st.d.last_seat < 0 ? 2 : end_ctx(&st.t, &st.d, st.d.last_seat);
				int over = ctx == 2 ? xfixed(&c, 1, 0) : xbit(&c, &sm.end[ctx], 0);
				if (over) {
					st.over = 1;
					continue;
				}
				while (xfixed(&c, 1, 0)) {
					it[k].kind = RPL_EV_CLAIM;
					x_claim(&c, &sm, &st, &it[k].deal, it[k].score);
					if (++k + 2 >= cap)
						return -1;
				}
				{
					rpl_action *a = &it[k].a;
					if (rpl__dec_action(&d, &sm.m, &st.t, a) < 0)
						return -1;
					if (a->kind == RPL_ACT_DRAW || a->kind == RPL_ACT_REJECT) {
						int pos, len2;
						rpl_card *pl = draw_place(&st, &pos, &len2);
						if (pl && rpl__dec_pick(&d, pl, pos, len2) < 0)
							return -1;
					}
					note(&st.d, &st.t, a);
					if (rpl__track_apply_decoded(&st.t, a, NULL, 0) < 0)
						return -1;
					it[k].kind = RPL_EV_ACTION;
					it[k++].deal = st.deal;
				}
			} else {
				while (xbit(&c, &sm.claim_after, 0)) {
					it[k].kind = RPL_EV_CLAIM;
					x_claim(&c, &sm, &st, &it[k].deal, it[k].score);
					if (++k + 2 >= cap)
						return -1;
				}
				break;
			}
		}
	}
	return rpl__rc_dec_done(&d) && !d.bad ? (long)k : -1;
}

/* 1 when a decoded layout holds what play revealed of the original: the sets, and each drawn card in its place. */
static int same_layout(const rpl_layout *a, const rpl_layout *b, int n)
{
	rpl_card x[RPL_DECK_SIZE], y[RPL_DECK_SIZE];
	for (int s = 0; s < n + 2; s++) {
		memcpy(x, s < n ? a->hand[s] : a->morto[s - n], RPL_HAND_SIZE);
		memcpy(y, s < n ? b->hand[s] : b->morto[s - n], RPL_HAND_SIZE);
		qsort(x, RPL_HAND_SIZE, 1, by_card);
		qsort(y, RPL_HAND_SIZE, 1, by_card);
		if (memcmp(x, y, RPL_HAND_SIZE) != 0)
			return 0;
	}
	memcpy(x, a->stock, (size_t)RPL_STOCK_SIZE(n));
	memcpy(y, b->stock, (size_t)RPL_STOCK_SIZE(n));
	qsort(x, (size_t)RPL_STOCK_SIZE(n), 1, by_card);
	qsort(y, (size_t)RPL_STOCK_SIZE(n), 1, by_card);
	return memcmp(x, y, (size_t)RPL_STOCK_SIZE(n)) == 0;
}

/* Replay items through the rules: the decisions refused, and each side's match total (the verdict's parts). */
static int replay(const struct item *it, size_t n, const rpl_match_info *info, int32_t total[2])
{
	rpl_game *g = NULL;
	int refused = 0;

	total[0] = total[1] = 0;
	if (rpl_game_new(&g, info->rules, info->nplayers, info->first_dealer) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (it[i].kind == RPL_EV_DEAL && rpl_game_deal(g, &it[i].lay) != 0)
			refused++;
		else if (it[i].kind == RPL_EV_ACTION && rpl_game_apply(g, &it[i].a) != 0)
			refused++;
	}
	total[0] = rpl_game_total(g, 0);
	total[1] = rpl_game_total(g, 1);
	rpl_game_free(g);
	return refused;
}

/* 1 when two decisions are the same, a meld's cards as a set. */
static int same_action(const rpl_action *x, const rpl_action *y)
{
	rpl_card a[16], b[16];
	if (x->kind != y->kind || x->ncards != y->ncards || x->ncards > 16)
		return 0;
	if ((x->kind == RPL_ACT_MELD || x->kind == RPL_ACT_ADD) && x->end != y->end)
		return 0;
	if (x->kind == RPL_ACT_ADD && (x->side != y->side || x->meld != y->meld))
		return 0;
	if (x->kind == RPL_ACT_MORTO && x->morto != y->morto)
		return 0;
	memcpy(a, x->cards, x->ncards);
	memcpy(b, y->cards, y->ncards);
	qsort(a, x->ncards, 1, by_card);
	qsort(b, y->ncards, 1, by_card);
	return memcmp(a, b, x->ncards) == 0;
}

static void stream(const char *dir)
{
	DIR *dd = opendir(dir);
	struct dirent *de;
	uint64_t matches = 0, decisions = 0, v6 = 0, v7 = 0, bad = 0, judged = 0, drawn_ok = 0, drawn = 0;
	size_t cap = 1 << 16;
	struct item *it = malloc(cap * sizeof(*it)), *back = malloc(cap * sizeof(*back));

	if (!dd || !it || !back) {
		perror(dir);
		exit(2);
	}
	while ((de = readdir(dd)) != NULL) {
		char path[4096];
		size_t len = strlen(de->d_name), n = 0, ni = 0, hdr_end = BRP_MAGIC_LEN, sealed = 0;
		uint8_t *data;
		rpl_reader *rd = NULL;
		rpl_event ev;
		const rpl_match_info *info;
		struct buf out = { 0 };
		struct section sec;
		char why[RPL_ERRMSG_SIZE];
		long got;
		uint64_t dec = 0;

		if (len < 5 || strcmp(de->d_name + len - 4, ".brp") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!(data = slurp(path, &n)))
			continue;
		if (rpl_reader_open_memory(&rd, data, n) != 0) {
			rpl_reader_free(rd);
			free(data);
			continue;
		}
		info = rpl_reader_info(rd);
		while (ni < cap && rpl_reader_next(rd, &ev) == 1) {
			if (ev.kind != RPL_EV_DEAL && ev.kind != RPL_EV_ACTION && ev.kind != RPL_EV_CLAIM)
				continue;
			it[ni].kind = ev.kind;
			it[ni].deal = ev.deal;
			it[ni].a = ev.action;
			memcpy(it[ni].score, ev.score, sizeof(ev.score));
			if (ev.kind == RPL_EV_DEAL)
				it[ni].lay = ev.layout;
			dec += ev.kind == RPL_EV_ACTION;
			ni++;
		}
		enc_match(it, ni, info, &out);
		got = dec_match(out.p, out.n, info, back, cap);
		if (got != (long)ni) {
			bad++;
		} else {
			for (size_t i = 0; i < ni; i++) {
				if (back[i].kind != it[i].kind || back[i].deal != it[i].deal) {
					bad++;
					break;
				}
				if (it[i].kind == RPL_EV_ACTION && !same_action(&back[i].a, &it[i].a)) {
					bad++;
					break;
				}
				if (it[i].kind == RPL_EV_CLAIM && memcmp(back[i].score, it[i].score, sizeof(it[i].score)) != 0) {
					bad++;
					break;
				}
				if (it[i].kind == RPL_EV_DEAL) {
					if (!same_layout(&back[i].lay, &it[i].lay, info->nplayers)) {
						bad++;
						break;
					}
					for (int q = 0; q < RPL_STOCK_SIZE(info->nplayers); q++) {
						drawn++;
						drawn_ok += back[i].lay.stock[q] == it[i].lay.stock[q];
					}
				}
			}
			/* the decoded match, its unrevealed cards in their canonical order, is judged as the original */
			{
				int32_t t0[2], t1[2];
				int r0 = replay(it, ni, info, t0), r1 = replay(back, ni, info, t1);
				if (r0 != r1 || t0[0] != t1[0] || t0[1] != t1[1])
					judged++;
			}
		}
		/* the header's bytes as they are: magic and the first section */
		if (rpl__section_get(data, n, &hdr_end, &sec, &sealed, why, sizeof(why)) == 1) {
			/* a version 7 file: magic, header, one section of the stream (type, length), E, the seal */
			v7 += hdr_end + 1 + (size_t)varint_len((int64_t)out.n) + out.n + 2 + 4;
		}
		v6 += n;
		decisions += dec;
		matches++;
		rpl__buf_free(&out);
		rpl_reader_free(rd);
		free(data);
	}
	closedir(dd);
	if (!matches)
		return;
	printf("%s: matches %llu decisions %llu round trips failed %llu, judged otherwise %llu; stock cards in the "
	       "place dealt %.1f %%; bytes a match: version 6 %.1f, version 7 %.1f; bits a decision: %.3f -> %.3f\n",
	       dir, (unsigned long long)matches, (unsigned long long)decisions, (unsigned long long)bad,
	       (unsigned long long)judged, 100.0 * (double)drawn_ok / (double)(drawn ? drawn : 1),
	       (double)v6 / (double)matches, (double)v7 / (double)matches, 8.0 * (double)v6 / (double)decisions,
	       8.0 * (double)v7 / (double)decisions);
	free(it);
	free(back);
}

int main(int argc, char **argv)
{
	int str = argc > 2 && strcmp(argv[1], "stream") == 0;
	if (argc < 3 || (!str && strcmp(argv[1], "claims") != 0)) {
		fprintf(stderr, "usage: brp-v7-lab claims|stream DIR...\n");
		return 2;
	}
	for (int i = 2; i < argc; i++)
		if (str)
			stream(argv[i]);
		else
			run(argv[i]);
	return 0;
}
