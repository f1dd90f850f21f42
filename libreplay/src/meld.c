/*
 * Melds: arranging cards into a same-suit run, adding cards to a run, and
 * what a run is worth. RULES.md sections 2 and 3.
 */
#include <stdio.h>
#include <string.h>

#include "meld_impl.h"

#define BIT(p) (1u << (p))

rpl_card rpl_meld_natural(int suit, int pos)
{
	return natural_card(suit, pos);
}

int rpl__card_value(const struct rpl_rules *r, rpl_card c)
{
	int rank;

	if (c == RPL_JOKER)
		return RV(r, VALUE_JOKER);
	rank = RPL_CARD_RANK(c);
	if (rank == 1)
		return RV(r, VALUE_ACE);
	if (rank == 2)
		return RV(r, VALUE_TWO);
	return rank >= 8 ? RV(r, VALUE_HIGH) : RV(r, VALUE_LOW);
}

static int popcount(unsigned x)
{
	int n = 0;
	for (; x; x &= x - 1)
		n++;
	return n;
}

static int lowest(unsigned x)
{
	int p = 0;
	while (!(x & 1u)) {
		x >>= 1;
		p++;
	}
	return p;
}

static int highest(unsigned x)
{
	int p = -1;
	while (x) {
		x >>= 1;
		p++;
	}
	return p;
}

static const char *const suit_word[4] = { "clubs", "diamonds", "hearts", "spades" };

int rpl__meld_len(const struct meld *m)
{
	return m->hi - m->lo + 1;
}

void rpl__meld_cards(const struct meld *m, cardset cnt)
{
	int w = 0;
	for (int p = m->lo; p <= m->hi; p++) {
		if (w < m->nw && m->wpos[w] == p)
			cnt[m->wcard[w++]]++;
		else
			cnt[natural_card(m->suit, p)]++;
	}
}

int rpl__meld_points(const struct rpl_rules *r, const struct meld *m)
{
	int sum = 0, w = 0;
	for (int p = m->lo; p <= m->hi; p++) {
		if (w < m->nw && m->wpos[w] == p)
			sum += rpl__card_value(r, m->wcard[w++]);
		else
			sum += rpl__card_value(r, natural_card(m->suit, p));
	}
	return sum;
}

int rpl__meld_category(const struct meld *m)
{
	int len = rpl__meld_len(m);

	if (len < 7)
		return RPL_CANASTRA_NONE;
	if (len == 14)
		return m->nw ? RPL_CANASTRA_DIRTY14 : RPL_CANASTRA_CLEAN14;
	if (m->nw)
		return RPL_CANASTRA_DIRTY;
	return len == 13 ? RPL_CANASTRA_CLEAN13 : RPL_CANASTRA_CLEAN;
}

int rpl__meld_bonus(const struct rpl_rules *r, int category)
{
	switch (category) {
	case RPL_CANASTRA_DIRTY: return RV(r, BONUS_DIRTY);
	case RPL_CANASTRA_CLEAN: return RV(r, BONUS_CLEAN);
	case RPL_CANASTRA_CLEAN13: return RV(r, BONUS_CLEAN13);
	case RPL_CANASTRA_CLEAN14: return RV(r, BONUS_CLEAN14);
	case RPL_CANASTRA_DIRTY14: return RV(r, BONUS_DIRTY14);
	default: return 0;
	}
}

const char *rpl_canastra_name(int category)
{
	switch (category) {
	case RPL_CANASTRA_DIRTY: return "dirty";
	case RPL_CANASTRA_CLEAN: return "clean";
	case RPL_CANASTRA_CLEAN13: return "clean13";
	case RPL_CANASTRA_CLEAN14: return "clean14";
	case RPL_CANASTRA_DIRTY14: return "dirty14";
	default: return "none";
	}
}

void rpl__meld_info(const struct rpl_rules *r, const struct meld *m, rpl_meld_info *out)
{
	int w = 0;

	memset(out, 0, sizeof(*out));
	out->suit = m->suit;
	out->lo = m->lo;
	out->hi = m->hi;
	out->length = rpl__meld_len(m);
	out->wilds = m->nw;
	out->clean = m->nw == 0;
	out->points = rpl__meld_points(r, m);
	out->category = rpl__meld_category(m);
	out->bonus = rpl__meld_bonus(r, out->category);
	for (int p = m->lo; p <= m->hi; p++) {
		int i = p - m->lo;
		if (w < m->nw && m->wpos[w] == p) {
			out->card[i] = m->wcard[w++];
			out->wild[i] = 1;
		} else {
			out->card[i] = natural_card(m->suit, p);
		}
	}
}

/* A failure kept while trying arrangements: the one that got furthest wins. */
struct fail {
	int stage, code;
	char *why;
	size_t whylen;
};

static void fail_at(struct fail *f, int stage, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#include <stdarg.h>
static void fail_at(struct fail *f, int stage, int code, const char *fmt, ...)
{
	va_list ap;

	if (stage <= f->stage)
		return;
	f->stage = stage;
	f->code = code;
	if (f->why && f->whylen) {
		va_start(ap, fmt);
		vsnprintf(f->why, f->whylen, fmt, ap);
		va_end(ap);
	}
}

static int resolve_end(const struct rpl_rules *r, int end)
{
	return end == RPL_END_LOW || end == RPL_END_HIGH ? end : RV(r, WILD_END_DEFAULT);
}

/*
 * Classify the cards of cnt against suit s: the natural positions 3..13
 * present (mask), aces, own 2s and other wilds. Returns 0 or a rule code
 * (through f) for a card of another suit or a doubled position.
 */
struct split {
	unsigned mask; /* positions 3..13 of naturals present */
	int aces, twos, others;
	rpl_card otherw[8]; /* jokers and off-suit 2s, ascending */
	int nother;
};

static void split_cards(const cardset cnt, int s, struct split *sp)
{
	memset(sp, 0, sizeof(*sp));
	for (int rank = 3; rank <= 13; rank++)
		if (cnt[RPL_CARD_MAKE(s, rank)])
			sp->mask |= BIT(rank);
	sp->aces = cnt[RPL_CARD_MAKE(s, 1)];
	sp->twos = cnt[RPL_CARD_MAKE(s, 2)];
	for (int t = 0; t < 4; t++) {
		rpl_card c = RPL_CARD_MAKE(t, 2);
		if (t == s)
			continue;
		for (int k = 0; k < cnt[c] && sp->nother < 8; k++)
			sp->otherw[sp->nother++] = c;
	}
	for (int k = 0; k < cnt[RPL_JOKER] && sp->nother < 8; k++)
		sp->otherw[sp->nother++] = RPL_JOKER;
	sp->others = sp->nother;
}

/* Check that every card that is not a 2 or a joker is of suit s (the suit of the first such card). */
static int check_suit(const cardset cnt, int s, struct fail *f)
{
	rpl_card first = RPL_NFACES;

	for (rpl_card c = 0; c < 52; c++) {
		if (!cnt[c] || RPL_CARD_RANK(c) == 2)
			continue;
		if (RPL_CARD_SUIT(c) == s) {
			if (first == RPL_NFACES)
				first = c;
			continue;
		}
		if (first == RPL_NFACES)
			fail_at(f, 1, RPL_RULE_MELD_SUIT, "%s is not of %s, the meld's suit: a meld is a run of one suit",
			        rpl_card_name(c), suit_word[s]);
		else
			fail_at(f, 1, RPL_RULE_MELD_SUIT, "%s and %s are of different suits: a meld is a run of one suit",
			        rpl_card_name(first), rpl_card_name(c));
		return -1;
	}
	return 0;
}

/* Place the wilds at the ends; returns 0 or -1 when there is no room. */
struct placed {
	int lo, hi, nw;
	uint8_t pos[MAX_WILDS + 2];
	uint8_t card[MAX_WILDS + 2];
};

static void placed_add(struct placed *pl, int pos, rpl_card c)
{
	pl->pos[pl->nw] = (uint8_t)pos;
	pl->card[pl->nw] = c;
	pl->nw++;
}

static void placed_to_meld(const struct placed *pl, int suit, struct meld *out)
{
	memset(out, 0, sizeof(*out));
	out->suit = (uint8_t)suit;
	out->lo = (uint8_t)pl->lo;
	out->hi = (uint8_t)pl->hi;
	out->nw = (uint8_t)pl->nw;
	/* insertion sort by position: at most MAX_WILDS entries */
	for (int i = 0; i < pl->nw; i++) {
		int j = i;
		out->wpos[j] = pl->pos[i];
		out->wcard[j] = pl->card[i];
		while (j > 0 && out->wpos[j - 1] > out->wpos[j]) {
			uint8_t tp = out->wpos[j], tc = out->wcard[j];
			out->wpos[j] = out->wpos[j - 1];
			out->wcard[j] = out->wcard[j - 1];
			out->wpos[j - 1] = tp;
			out->wcard[j - 1] = tc;
			j--;
		}
	}
}

/*
 * Put each of the n wilds in ends[] at an end of pl's run, preferring pref;
 * an explicit end that has no room is refused (meld.end).
 */
static int place_ends(const struct rpl_rules *r, struct placed *pl, const rpl_card *ends, int n, int end,
                      int displaced, struct fail *f, int stage)
{
	int pref = resolve_end(r, end);

	for (int i = 0; i < n; i++) {
		int room_hi = pl->hi < 14, room_lo = pl->lo > 1;
		int side;

		if (end != RPL_END_DEFAULT && !(pref == RPL_END_HIGH ? room_hi : room_lo)) {
			fail_at(f, stage, RPL_RULE_MELD_END, "the wild %s cannot sit at the %s end of the run",
			        rpl_card_name(ends[i]), pref == RPL_END_HIGH ? "high" : "low");
			return -1;
		}
		if (pref == RPL_END_HIGH)
			side = room_hi ? RPL_END_HIGH : (room_lo ? RPL_END_LOW : 0);
		else
			side = room_lo ? RPL_END_LOW : (room_hi ? RPL_END_HIGH : 0);
		if (!side) {
			if (displaced)
				fail_at(f, stage, RPL_RULE_MELD_WILD_STUCK,
				        "the wild %s has no legal place once its natural card is added",
				        rpl_card_name(ends[i]));
			else
				fail_at(f, stage, RPL_RULE_MELD_LONG, "no room left for the wild %s: a run ends at the aces",
				        rpl_card_name(ends[i]));
			return -1;
		}
		if (side == RPL_END_HIGH)
			placed_add(pl, ++pl->hi, ends[i]);
		else
			placed_add(pl, --pl->lo, ends[i]);
	}
	return 0;
}

/* The wrap decision: with wrap_as_dirty off, an own-suit 2 may not be a wild at the low end under a high ace. */
static int wrap_bad(const struct rpl_rules *r, const struct placed *pl, int suit, unsigned naturals)
{
	if (RV(r, WRAP_AS_DIRTY) || pl->hi != 14 || !(naturals & BIT(14)))
		return 0;
	for (int i = 0; i < pl->nw; i++)
		if (pl->pos[i] == pl->lo && pl->card[i] == RPL_CARD_MAKE(suit, 2))
			return 1;
	return 0;
}

int rpl__meld_arrange(const struct rpl_rules *r, const cardset cnt, int n, int end, struct meld *out,
                      char *why, size_t whylen)
{
	struct fail f = { 0, RPL_RULE_MELD_GAP, why, whylen };
	struct split sp;
	int suit = -1, maxw = RV(r, MAX_WILDS);

	if (why && whylen)
		why[0] = '\0';
	if (n < 3) {
		fail_at(&f, 9, RPL_RULE_MELD_SHORT, "a meld needs at least 3 cards, not %d", n);
		return f.code;
	}
	if (n > 14) {
		fail_at(&f, 9, RPL_RULE_MELD_LONG, "a meld holds at most 14 cards (A..A), not %d", n);
		return f.code;
	}
	for (rpl_card c = 0; c < 52 && suit < 0; c++)
		if (cnt[c] && RPL_CARD_RANK(c) != 2)
			suit = RPL_CARD_SUIT(c);
	if (suit < 0) {
		fail_at(&f, 9, RPL_RULE_MELD_WILDS, "a meld needs natural cards: 2s and jokers alone are no run");
		return f.code;
	}
	{
		/* a set of one rank gets its own message: the seeds single it out */
		int rank = -1, set = 1, suits = 0;
		for (rpl_card c = 0; c < 52; c++) {
			if (!cnt[c] || RPL_CARD_RANK(c) == 2)
				continue;
			if (rank < 0)
				rank = RPL_CARD_RANK(c);
			else if (RPL_CARD_RANK(c) != rank)
				set = 0;
			suits |= 1 << RPL_CARD_SUIT(c);
		}
		if (set && popcount((unsigned)suits) > 1) {
			fail_at(&f, 9, RPL_RULE_MELD_SUIT, "a set of one rank (trinca) is never a meld: only same-suit runs");
			return f.code;
		}
	}
	if (check_suit(cnt, suit, &f) < 0)
		return f.code;
	for (int rank = 3; rank <= 13; rank++) {
		rpl_card c = RPL_CARD_MAKE(suit, rank);
		if (cnt[c] > 1) {
			fail_at(&f, 9, RPL_RULE_MELD_DUPLICATE, "two %s for one position", rpl_card_name(c));
			return f.code;
		}
	}
	split_cards(cnt, suit, &sp);
	if (sp.aces > 2) {
		fail_at(&f, 9, RPL_RULE_MELD_DUPLICATE, "more than two %s", rpl_card_name(RPL_CARD_MAKE(suit, 1)));
		return f.code;
	}

	for (int tn = sp.twos > 0 ? 1 : 0; tn >= 0; tn--) {
		static const int ace_opts[3][2][2] = { { { 0, 0 } }, { { 1, 0 }, { 0, 1 } }, { { 1, 1 } } };
		int nopts = sp.aces == 1 ? 2 : 1;

		for (int o = 0; o < nopts; o++) {
			unsigned nat = sp.mask;
			/* w <= n <= 14: a card list (rpl_meld_check) may hold more 2s than a deck has */
			rpl_card wild[14];
			int w = 0, k, lo, hi, gaps, extra, gi;
			struct placed pl;

			if (tn)
				nat |= BIT(2);
			if (ace_opts[sp.aces][o][0])
				nat |= BIT(1);
			if (ace_opts[sp.aces][o][1])
				nat |= BIT(14);
			for (int i = 0; i < sp.twos - tn; i++)
				wild[w++] = RPL_CARD_MAKE(suit, 2);
			for (int i = 0; i < sp.nother; i++)
				wild[w++] = sp.otherw[i];
			/* keep the wild list ascending so placement is deterministic */
			for (int i = 1; i < w; i++)
				for (int j = i; j > 0 && wild[j - 1] > wild[j]; j--) {
					rpl_card t = wild[j];
					wild[j] = wild[j - 1];
					wild[j - 1] = t;
				}
			k = popcount(nat);
			if (w > maxw) {
				fail_at(&f, 1, RPL_RULE_MELD_WILDS, "%d wilds in one meld: at most %d allowed", w, maxw);
				continue;
			}
			if (k <= w) {
				fail_at(&f, 1, RPL_RULE_MELD_WILDS, "the wilds may not tie or outnumber the natural cards");
				continue;
			}
			lo = lowest(nat);
			hi = highest(nat);
			gaps = (hi - lo + 1) - k;
			if (gaps > w) {
				fail_at(&f, 2, RPL_RULE_MELD_GAP, "not a run: %s to %s leaves %d gap%s for %d wild%s",
				        rpl_card_name(natural_card(suit, lo)), rpl_card_name(natural_card(suit, hi)),
				        gaps, gaps == 1 ? "" : "s", w, w == 1 ? "" : "s");
				continue;
			}
			extra = w - gaps;
			if (extra > (lo - 1) + (14 - hi)) {
				fail_at(&f, 3, RPL_RULE_MELD_LONG, "no room for the wild: a run ends at the aces");
				continue;
			}
			memset(&pl, 0, sizeof(pl));
			pl.lo = lo;
			pl.hi = hi;
			gi = 0;
			for (int p = lo; p <= hi; p++)
				if (!(nat & BIT(p)))
					placed_add(&pl, p, wild[gi++]);
			if (place_ends(r, &pl, wild + gi, extra, end, 0, &f, 4) < 0)
				continue;
			if (wrap_bad(r, &pl, suit, nat)) {
				fail_at(&f, 5, RPL_RULE_MELD_WRAP, "K-A-2 does not wrap around the ace (wrap_as_dirty is off)");
				continue;
			}
			placed_to_meld(&pl, suit, out);
			return 0;
		}
	}
	return f.code;
}

/* Fixed wilds (STBL, ABERTO): the cards already laid keep their positions. */
static int add_fixed(const struct rpl_rules *r, const struct meld *m, const cardset cnt, int n, int end,
                     struct meld *out, struct fail *f)
{
	int suit = m->suit, maxw = RV(r, MAX_WILDS);
	unsigned old_nat = 0;
	struct split sp;

	if (rpl__meld_len(m) + n > 14) {
		fail_at(f, 9, RPL_RULE_MELD_LONG, "a meld holds at most 14 cards (A..A), not %d", rpl__meld_len(m) + n);
		return f->code;
	}
	if (check_suit(cnt, suit, f) < 0)
		return f->code;
	for (int p = m->lo; p <= m->hi; p++)
		old_nat |= BIT(p);
	for (int i = 0; i < m->nw; i++)
		old_nat &= ~BIT(m->wpos[i]);
	for (int rank = 3; rank <= 13; rank++) {
		rpl_card c = RPL_CARD_MAKE(suit, rank);
		if (cnt[c] > 1 || (cnt[c] && (old_nat & BIT(rank)))) {
			fail_at(f, 9, RPL_RULE_MELD_DUPLICATE, "%s already has its place in the meld", rpl_card_name(c));
			return f->code;
		}
	}
	split_cards(cnt, suit, &sp);
	if (sp.aces > 2) {
		fail_at(f, 9, RPL_RULE_MELD_DUPLICATE, "more than two %s", rpl_card_name(RPL_CARD_MAKE(suit, 1)));
		return f->code;
	}

	for (int tn = sp.twos > 0 ? 1 : 0; tn >= 0; tn--) {
		/* each new ace takes position 1 or 14 */
		int aopt[3][2];
		int nopts = 0;
		if (sp.aces == 0) {
			aopt[nopts][0] = 0;
			aopt[nopts++][1] = 0;
		} else if (sp.aces == 1) {
			aopt[nopts][0] = 1;
			aopt[nopts++][1] = 0;
			aopt[nopts][0] = 0;
			aopt[nopts++][1] = 1;
		} else {
			aopt[nopts][0] = 1;
			aopt[nopts++][1] = 1;
		}
		for (int o = 0; o < nopts; o++) {
			unsigned newnat = 0, nat, occ;
			/* nneww <= n <= 13, whatever the number of 2s; ends <= MAX_WILDS */
			rpl_card neww[14], ends[MAX_WILDS + 8];
			int nneww = 0, nends = 0, ndisp = 0, gi = 0, lo, hi, gaps = 0, wild_total;
			struct placed pl;

			newnat = sp.mask;
			if (tn)
				newnat |= BIT(2);
			if (aopt[o][0])
				newnat |= BIT(1);
			if (aopt[o][1])
				newnat |= BIT(14);
			if (newnat & old_nat) {
				fail_at(f, 1, RPL_RULE_MELD_DUPLICATE, "that position of the meld already holds its natural card");
				continue;
			}
			for (int i = 0; i < sp.twos - tn; i++)
				neww[nneww++] = RPL_CARD_MAKE(suit, 2);
			for (int i = 0; i < sp.nother; i++)
				neww[nneww++] = sp.otherw[i];
			nat = old_nat | newnat;
			memset(&pl, 0, sizeof(pl));
			occ = nat;
			/* wilds whose natural card arrives are displaced; the others stay */
			rpl_card disp[MAX_WILDS];
			for (int i = 0; i < m->nw; i++) {
				if (newnat & BIT(m->wpos[i])) {
					disp[ndisp++] = m->wcard[i];
				} else {
					placed_add(&pl, m->wpos[i], m->wcard[i]);
					occ |= BIT(m->wpos[i]);
				}
			}
			lo = lowest(occ);
			hi = highest(occ);
			for (int p = lo; p <= hi; p++)
				if (!(occ & BIT(p)))
					gaps++;
			if (gaps > nneww) {
				fail_at(f, 2, RPL_RULE_MELD_GAP, "not a run: the cards added leave %d gap%s for %d wild%s", gaps,
				        gaps == 1 ? "" : "s", nneww, nneww == 1 ? "" : "s");
				continue;
			}
			for (int p = lo; p <= hi; p++)
				if (!(occ & BIT(p))) {
					placed_add(&pl, p, neww[gi++]);
					occ |= BIT(p);
				}
			pl.lo = lo;
			pl.hi = hi;
			/* a displaced own-suit 2 goes home to position 2 when the run reaches 3 */
			for (int i = 0; i < ndisp; i++) {
				if (disp[i] == RPL_CARD_MAKE(suit, 2) && !(occ & BIT(2)) && (occ & BIT(3))) {
					nat |= BIT(2);
					occ |= BIT(2);
					if (pl.lo > 2)
						pl.lo = 2;
				} else {
					ends[nends++] = disp[i];
				}
			}
			wild_total = pl.nw + nends + (nneww - gi);
			if (wild_total > maxw) {
				fail_at(f, 3, RPL_RULE_MELD_WILDS, "%d wilds in one meld: at most %d allowed", wild_total, maxw);
				continue;
			}
			if (popcount(nat) <= wild_total) {
				fail_at(f, 3, RPL_RULE_MELD_WILDS, "the wilds may not tie or outnumber the natural cards");
				continue;
			}
			if (place_ends(r, &pl, ends, nends, end, 1, f, 4) < 0)
				continue;
			if (place_ends(r, &pl, neww + gi, nneww - gi, end, 0, f, 4) < 0)
				continue;
			if (wrap_bad(r, &pl, suit, nat)) {
				fail_at(f, 5, RPL_RULE_MELD_WRAP, "K-A-2 does not wrap around the ace (wrap_as_dirty is off)");
				continue;
			}
			placed_to_meld(&pl, suit, out);
			return 0;
		}
	}
	return f->code;
}

int rpl__meld_add(const struct rpl_rules *r, const struct meld *m, const cardset cnt, int n, int end,
                  struct meld *out, char *why, size_t whylen)
{
	struct fail f = { 0, RPL_RULE_MELD_GAP, why, whylen };

	if (why && whylen)
		why[0] = '\0';
	if (n < 1) {
		fail_at(&f, 9, RPL_RULE_BAD_ACTION, "no cards to add");
		return f.code;
	}
	if (RV(r, WILD_MOBILITY) == RPL_WILD_FLOATING) {
		/* the wild floats: the meld is legal iff its cards have a legal arrangement */
		cardset all;
		memcpy(all, cnt, sizeof(all));
		rpl__meld_cards(m, all);
		return rpl__meld_arrange(r, all, rpl__meld_len(m) + n, end, out, why, whylen);
	}
	return add_fixed(r, m, cnt, n, end, out, &f);
}

int rpl_meld_check(const rpl_rules *r, const rpl_card *cards, size_t n, int end, rpl_meld_check_result *out)
{
	cardset cnt;
	struct meld m;
	int code;

	if (!r || !out || (!cards && n))
		return RPL_EINVAL;
	if (end < RPL_END_DEFAULT || end > RPL_END_HIGH)
		return RPL_EINVAL;
	memset(out, 0, sizeof(*out));
	memset(cnt, 0, sizeof(cnt));
	for (size_t i = 0; i < n; i++) {
		if (cards[i] >= RPL_NFACES)
			return RPL_EINVAL;
		if (cnt[cards[i]] < 255)
			cnt[cards[i]]++;
	}
	code = rpl__meld_arrange(r, cnt, n > 99 ? 99 : (int)n, end, &m, out->reason, sizeof(out->reason));
	if (code) {
		out->valid = 0;
		out->rule = code;
		return RPL_OK;
	}
	out->valid = 1;
	rpl__meld_info(r, &m, &out->meld);
	return RPL_OK;
}
