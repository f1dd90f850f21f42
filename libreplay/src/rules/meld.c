/*
 * Melds: arranging cards into a same-suit run, adding cards to a run, and
 * what a run is worth. docs/rules.md sections 2 to 4.
 *
 * The checks run for every lay and many times over for every pile take, so
 * they read the cards through bit masks (struct cards) and keep a refusal's
 * message unwritten until someone asks for it.
 */
#include <stdio.h>
#include <string.h>

#include "rules/meld_impl.h"

#define BIT(p) (1u << (p))

/* Masks over card ids: a suit's 13 faces, its ranks 3..K, the 2s, the faces that are not 2s. */
#define SUIT_BITS(s) (0x1FFFull << (13 * (s)))
#define MID_BITS(s) (0x1FFCull << (13 * (s)))
#define TWO_BITS ((1ull << 1) | (1ull << 14) | (1ull << 27) | (1ull << 40))
#define NONTWO_BITS (((1ull << 52) - 1) & ~TWO_BITS)

rpl_card rpl_meld_natural(int suit, int pos)
{
	return natural_card(suit, pos);
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
	unsigned nat = (2u << m->hi) - (1u << m->lo);
	int sum = 0;

	for (int w = 0; w < m->nw; w++) {
		nat &= ~BIT(m->wpos[w]);
		sum += rpl__card_value(r, m->wcard[w]);
	}
	/* the naturals by value: aces at 1 and 14, the 2 at 2, 3..7 low, 8..K high */
	sum += popcount64(nat & (BIT(1) | BIT(14))) * RV(r, VALUE_ACE);
	sum += popcount64(nat & BIT(2)) * RV(r, VALUE_TWO);
	sum += popcount64(nat & 0xF8u) * RV(r, VALUE_LOW);
	sum += popcount64(nat & 0x3F00u) * RV(r, VALUE_HIGH);
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

/* Eight counts as a word, byte i of cnt as byte i of the word, whatever the byte order. */
static uint64_t load8(const uint8_t *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 |
	       (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

/* Bit i set when byte i of w is not 0. */
static uint64_t nonzero_bytes(uint64_t w)
{
	const uint64_t low7 = 0x7F7F7F7F7F7F7F7Full;
	uint64_t t = ((((w & low7) + low7) | w) & ~low7) >> 7;

	return (t * 0x0102040810204080ull) >> 56;
}

void rpl__cards_view(struct cards *cs, const cardset cnt)
{
	const uint64_t not_one = 0xFEFEFEFEFEFEFEFEull;
	uint64_t any = 0, multi = 0;
	int c;

	for (c = 0; c + 8 <= RPL_NFACES; c += 8) {
		uint64_t w = load8(cnt + c);
		any |= nonzero_bytes(w) << c;
		multi |= nonzero_bytes(w & not_one) << c;
	}
	for (; c < RPL_NFACES; c++) {
		any |= (uint64_t)(cnt[c] > 0) << c;
		multi |= (uint64_t)(cnt[c] > 1) << c;
	}
	cs->cnt = cnt;
	cs->any = any;
	cs->multi = multi;
}

unsigned rpl__cards_ranks(const cardset cnt, int s)
{
	/* two overlapping words cover the suit's 13 counts */
	const uint8_t *p = cnt + 13 * s;

	return (unsigned)(nonzero_bytes(load8(p)) | nonzero_bytes(load8(p + 5)) << 5);
}

int rpl__cards_points(const struct rpl_rules *r, const cardset cnt)
{
	struct cards cs;
	int sum = 0;

	rpl__cards_view(&cs, cnt);
	for (uint64_t b = cs.any; b; b &= b - 1) {
		rpl_card c = (rpl_card)ctz64(b);
		sum += cnt[c] * rpl__card_value(r, c);
	}
	return sum;
}

/* The messages a refusal may carry; each names its arguments. */
enum fail_msg {
	FM_NONE,
	FM_SHORT, /* n */
	FM_LONG,  /* n */
	FM_NO_NATURAL,
	FM_TRINCA,
	FM_NOT_OF_SUIT,   /* card, suit */
	FM_TWO_SUITS,     /* card, card */
	FM_TWO_FOR_POS,   /* card */
	FM_MORE_THAN_TWO, /* card */
	FM_TOO_MANY,      /* wilds, max */
	FM_TIE,
	FM_GAP, /* card, card, gaps, wilds */
	FM_NO_ROOM,
	FM_END,         /* card, high */
	FM_STUCK,       /* card */
	FM_NO_ROOM_FOR, /* card */
	FM_WRAP,
	FM_HAS_PLACE, /* card */
	FM_POS_TAKEN,
	FM_GAP_ADDED, /* gaps, wilds */
	FM_NO_CARDS
};

static void fail_init(struct meld_fail *f)
{
	memset(f, 0, sizeof(*f));
	f->code = RPL_RULE_MELD_GAP;
}

/* Keep a refusal unless one that got as far or further is kept already; returns the kept code. */
static int fail_at(struct meld_fail *f, int stage, int code, int msg, int a0, int a1, int a2, int a3)
{
	if (stage > f->stage) {
		f->stage = stage;
		f->code = code;
		f->msg = msg;
		f->arg[0] = a0;
		f->arg[1] = a1;
		f->arg[2] = a2;
		f->arg[3] = a3;
	}
	return f->code;
}

static const char *plural(int n)
{
	return n == 1 ? "" : "s";
}

void rpl__meld_why(const struct meld_fail *f, char *why, size_t whylen)
{
	const int *a = f->arg;
	const char *c0 = rpl_card_name((rpl_card)a[0]), *c1 = rpl_card_name((rpl_card)a[1]);

	if (!why || !whylen)
		return;
	switch (f->stage ? f->msg : FM_NONE) {
	case FM_SHORT: snprintf(why, whylen, "a meld needs at least 3 cards, not %d", a[0]); break;
	case FM_LONG: snprintf(why, whylen, "a meld holds at most 14 cards (A..A), not %d", a[0]); break;
	case FM_NO_NATURAL: snprintf(why, whylen, "a meld needs natural cards: 2s and jokers alone are no run"); break;
	case FM_TRINCA: snprintf(why, whylen, "a set of one rank (trinca) is never a meld: only same-suit runs"); break;
	case FM_NOT_OF_SUIT:
		snprintf(why, whylen, "%s is not of %s, the meld's suit: a meld is a run of one suit", c0, suit_word[a[1]]);
		break;
	case FM_TWO_SUITS:
		snprintf(why, whylen, "%s and %s are of different suits: a meld is a run of one suit", c0, c1);
		break;
	case FM_TWO_FOR_POS: snprintf(why, whylen, "two %s for one position", c0); break;
	case FM_MORE_THAN_TWO: snprintf(why, whylen, "more than two %s", c0); break;
	case FM_TOO_MANY: snprintf(why, whylen, "%d wilds in one meld: at most %d allowed", a[0], a[1]); break;
	case FM_TIE: snprintf(why, whylen, "the wilds may not tie or outnumber the natural cards"); break;
	case FM_GAP:
		snprintf(why, whylen, "not a run: %s to %s leaves %d gap%s for %d wild%s", c0, c1, a[2], plural(a[2]), a[3],
		         plural(a[3]));
		break;
	case FM_NO_ROOM: snprintf(why, whylen, "no room for the wild: a run ends at the aces"); break;
	case FM_END:
		snprintf(why, whylen, "the wild %s cannot sit at the %s end of the run", c0, a[1] ? "high" : "low");
		break;
	case FM_STUCK: snprintf(why, whylen, "the wild %s has no legal place once its natural card is added", c0); break;
	case FM_NO_ROOM_FOR: snprintf(why, whylen, "no room left for the wild %s: a run ends at the aces", c0); break;
	case FM_WRAP:
		snprintf(why, whylen,
		         "K-A-2 of one suit is no meld: the ace is one end or the other, never both (wrap_as_dirty is %s)",
		         a[0] == RPL_WRAP_NARROW ? "narrow" : "false");
		break;
	case FM_HAS_PLACE: snprintf(why, whylen, "%s already has its place in the meld", c0); break;
	case FM_POS_TAKEN: snprintf(why, whylen, "that position of the meld already holds its natural card"); break;
	case FM_GAP_ADDED:
		snprintf(why, whylen, "not a run: the cards added leave %d gap%s for %d wild%s", a[0], plural(a[0]), a[1],
		         plural(a[1]));
		break;
	case FM_NO_CARDS: snprintf(why, whylen, "no cards to add"); break;
	default: why[0] = '\0'; break;
	}
}

static int resolve_end(const struct rpl_rules *r, int end)
{
	return end == RPL_END_LOW || end == RPL_END_HIGH ? end : RV(r, WILD_END_DEFAULT);
}

/*
 * The cards of cs against suit s: the natural positions 3..13 present
 * (mask), aces, own 2s and the other wilds.
 */
struct split {
	unsigned mask; /* positions 3..13 of naturals present */
	int aces, twos;
	rpl_card otherw[8]; /* jokers and off-suit 2s, ascending */
	int nother;
};

static inline void split_cards(const struct cards *cs, int s, struct split *sp)
{
	const uint8_t *cnt = cs->cnt;

	sp->mask = (unsigned)((cs->any & MID_BITS(s)) >> (13 * s)) << 1;
	sp->aces = cnt[RPL_CARD_MAKE(s, 1)];
	sp->twos = cnt[RPL_CARD_MAKE(s, 2)];
	sp->nother = 0;
	if (!(cs->any & ((TWO_BITS & ~SUIT_BITS(s)) | 1ull << RPL_JOKER)))
		return;
	/* the other suits' 2s held, in face order */
	for (uint64_t twos = cs->any & TWO_BITS & ~SUIT_BITS(s); twos; twos &= twos - 1) {
		rpl_card c = (rpl_card)ctz64(twos);
		for (int k = 0; k < cnt[c] && sp->nother < 8; k++)
			sp->otherw[sp->nother++] = c;
	}
	for (int k = 0; k < cnt[RPL_JOKER] && sp->nother < 8; k++)
		sp->otherw[sp->nother++] = RPL_JOKER;
}

/*
 * Every card that is not a 2 or a joker must be of suit s. The refusal names
 * the lowest card of another suit, with the lowest card of s below it if any.
 */
static int check_suit(const struct cards *cs, int s, struct meld_fail *f)
{
	uint64_t nat = cs->any & NONTWO_BITS, off = nat & ~SUIT_BITS(s), before;
	int c;

	if (!off)
		return 0;
	c = ctz64(off);
	before = nat & SUIT_BITS(s) & ((1ull << c) - 1);
	if (!before)
		fail_at(f, 1, RPL_RULE_MELD_SUIT, FM_NOT_OF_SUIT, c, s, 0, 0);
	else
		fail_at(f, 1, RPL_RULE_MELD_SUIT, FM_TWO_SUITS, ctz64(before), c, 0, 0);
	return -1;
}

/*
 * Wilds placed in a run being built. Gaps are filled before the wilds are
 * counted against the rules, so there is room for one in every position a
 * run has (14), not only for the MAX_WILDS a meld may keep.
 */
struct placed {
	int lo, hi, nw;
	uint8_t pos[14];
	uint8_t card[14];
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
static int place_ends(const struct rpl_rules *r, struct placed *pl, const rpl_card *ends, int n, int end, int displaced,
                      struct meld_fail *f, int stage)
{
	int pref;

	/* nothing to place: end is not read */
	if (n == 0)
		return 0;
	/* from here on the outcome may depend on end */
	f->ends = 1;
	pref = resolve_end(r, end);
	for (int i = 0; i < n; i++) {
		int room_hi = pl->hi<14, room_lo = pl->lo> 1;
		int side;

		if (end != RPL_END_DEFAULT && !(pref == RPL_END_HIGH ? room_hi : room_lo)) {
			fail_at(f, stage, RPL_RULE_MELD_END, FM_END, ends[i], pref == RPL_END_HIGH, 0, 0);
			return -1;
		}
		if (pref == RPL_END_HIGH)
			side = room_hi ? RPL_END_HIGH : (room_lo ? RPL_END_LOW : 0);
		else
			side = room_lo ? RPL_END_LOW : (room_hi ? RPL_END_HIGH : 0);
		if (!side) {
			if (displaced)
				fail_at(f, stage, RPL_RULE_MELD_WILD_STUCK, FM_STUCK, ends[i], 0, 0, 0);
			else
				fail_at(f, stage, RPL_RULE_MELD_LONG, FM_NO_ROOM_FOR, ends[i], 0, 0, 0);
			return -1;
		}
		if (side == RPL_END_HIGH)
			placed_add(pl, ++pl->hi, ends[i]);
		else
			placed_add(pl, --pl->lo, ends[i]);
	}
	return 0;
}

/*
 * The wrap decision (docs/rules.md 2.5): unless wrap_as_dirty is true, an
 * own-suit 2 may not be the wild at the low end under a high ace; narrow
 * (KZV) refuses only the three cards K-A-2 (the 2 as the queen), false every
 * such run, 2-Q-K-A and 2-8-...-A too.
 */
static int wrap_bad(const struct rpl_rules *r, const struct placed *pl, int suit, unsigned naturals)
{
	if (RV(r, WRAP_AS_DIRTY) == RPL_WRAP_DIRTY || pl->hi != 14 || !(naturals & BIT(14)))
		return 0;
	if (RV(r, WRAP_AS_DIRTY) == RPL_WRAP_NARROW && pl->lo != 12)
		return 0;
	for (int i = 0; i < pl->nw; i++)
		if (pl->pos[i] == pl->lo && pl->card[i] == RPL_CARD_MAKE(suit, 2))
			return 1;
	return 0;
}

/* All the cards that are not 2s share one rank, in more than one suit: a set, never a run. */
static int is_trinca(uint64_t nat)
{
	unsigned ranks = 0, suits = 0;

	for (int t = 0; t < 4; t++) {
		unsigned m = (unsigned)(nat >> (13 * t)) & 0x1FFFu;
		if (m) {
			ranks |= m;
			suits++;
		}
	}
	return popcount64(ranks) == 1 && suits > 1;
}

/*
 * The commonest meld at once: naturals 3 to K of suit s, each once, without
 * a gap. rpl__meld_arrange_cards would pass them through every check and
 * lay them as they lie, with no wild (no ace or 2 to place, nothing to
 * fill). 1 with *out filled, else 0.
 */
static int clean_run(const struct cards *cs, int s, struct meld *out)
{
	unsigned pos;

	if (cs->multi || (cs->any & ~MID_BITS(s)))
		return 0;
	pos = (unsigned)(cs->any >> (13 * s)) << 1;
	if ((pos + (pos & (0u - pos))) & pos)
		return 0; /* a gap */
	memset(out, 0, sizeof(*out));
	out->suit = (uint8_t)s;
	out->lo = (uint8_t)ctz64(pos);
	out->hi = (uint8_t)high64(pos);
	return 1;
}

/*
 * The next commonest at once: naturals 3 to K of suit s, each once, with
 * wilds that are not its own 2s (other suits' 2s, jokers). There is no ace
 * and no 2 of s to try two ways, so rpl__meld_arrange_cards has one
 * arrangement to try: this is it, its gaps filled and its ends placed as
 * there, without the checks the other cases need. 1 with *out (and *f as
 * that arrangement leaves it); 0, *f untouched, when it is not such a meld or
 * the arrangement fails: the general path decides, and says why.
 */
static int plain_run(const struct rpl_rules *r, const struct cards *cs, int s, int end, struct meld *out,
                     struct meld_fail *f)
{
	const uint64_t others = (TWO_BITS & ~SUIT_BITS(s)) | 1ull << RPL_JOKER;
	rpl_card wild[8];
	struct placed pl;
	struct meld_fail ff;
	unsigned nat;
	int w = 0, k, gi = 0, extra;

	if ((cs->any & ~(MID_BITS(s) | others)) || (cs->multi & MID_BITS(s)))
		return 0;
	/* the wilds in face order, the jokers last, as split_cards lists them (and no more than it keeps) */
	for (uint64_t b = cs->any & others; b; b &= b - 1) {
		rpl_card c = (rpl_card)ctz64(b);
		for (int i = 0; i < cs->cnt[c]; i++) {
			if (w == 8)
				return 0;
			wild[w++] = c;
		}
	}
	nat = (unsigned)((cs->any & MID_BITS(s)) >> (13 * s)) << 1;
	k = popcount64(nat);
	if (w > RV(r, MAX_WILDS) || k <= w)
		return 0;
	pl.lo = ctz64(nat);
	pl.hi = high64(nat);
	pl.nw = 0;
	extra = w - ((pl.hi - pl.lo + 1) - k);
	if (extra < 0 || extra > (pl.lo - 1) + (14 - pl.hi))
		return 0;
	for (unsigned gap = ~nat & ((2u << pl.hi) - (1u << pl.lo)); gap; gap &= gap - 1)
		placed_add(&pl, ctz64(gap), wild[gi++]);
	ff = *f;
	if (place_ends(r, &pl, wild + gi, extra, end, 0, &ff, 4) < 0)
		return 0;
	/* no natural ace: wrap_bad has nothing to refuse */
	*f = ff;
	placed_to_meld(&pl, s, out);
	return 1;
}

int rpl__meld_arrange_cards(const struct rpl_rules *r, const struct cards *cs, int n, int end, struct meld *out,
                            struct meld_fail *f)
{
	uint64_t nat_cards = cs->any & NONTWO_BITS, dup;
	struct split sp;
	int suit, maxw = RV(r, MAX_WILDS);

	fail_init(f);
	if (n < 3)
		return fail_at(f, 9, RPL_RULE_MELD_SHORT, FM_SHORT, n, 0, 0, 0);
	if (n > 14)
		return fail_at(f, 9, RPL_RULE_MELD_LONG, FM_LONG, n, 0, 0, 0);
	if (!nat_cards)
		return fail_at(f, 9, RPL_RULE_MELD_WILDS, FM_NO_NATURAL, 0, 0, 0, 0);
	/* the suit of the lowest card that is not a 2 */
	suit = ctz64(nat_cards) / 13;
	if (clean_run(cs, suit, out) || plain_run(r, cs, suit, end, out, f))
		return 0;
	/* a set of one rank gets its own message: the seeds single it out (a set has two suits or more) */
	if ((nat_cards & ~SUIT_BITS(suit)) && is_trinca(nat_cards))
		return fail_at(f, 9, RPL_RULE_MELD_SUIT, FM_TRINCA, 0, 0, 0, 0);
	if (check_suit(cs, suit, f) < 0)
		return f->code;
	dup = cs->multi & MID_BITS(suit);
	if (dup)
		return fail_at(f, 9, RPL_RULE_MELD_DUPLICATE, FM_TWO_FOR_POS, ctz64(dup), 0, 0, 0);
	split_cards(cs, suit, &sp);
	if (sp.aces > 2)
		return fail_at(f, 9, RPL_RULE_MELD_DUPLICATE, FM_MORE_THAN_TWO, RPL_CARD_MAKE(suit, 1), 0, 0, 0);

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
			k = popcount64(nat);
			if (w > maxw) {
				fail_at(f, 1, RPL_RULE_MELD_WILDS, FM_TOO_MANY, w, maxw, 0, 0);
				continue;
			}
			if (k <= w) {
				fail_at(f, 1, RPL_RULE_MELD_WILDS, FM_TIE, 0, 0, 0, 0);
				continue;
			}
			lo = ctz64(nat);
			hi = high64(nat);
			gaps = (hi - lo + 1) - k;
			if (gaps > w) {
				fail_at(f, 2, RPL_RULE_MELD_GAP, FM_GAP, natural_card(suit, lo), natural_card(suit, hi), gaps, w);
				continue;
			}
			extra = w - gaps;
			if (extra > (lo - 1) + (14 - hi)) {
				fail_at(f, 3, RPL_RULE_MELD_LONG, FM_NO_ROOM, 0, 0, 0, 0);
				continue;
			}
			pl.lo = lo;
			pl.hi = hi;
			pl.nw = 0;
			gi = 0;
			/* the wilds fill the gaps in ascending order */
			for (unsigned gap = ~nat & ((2u << hi) - (1u << lo)); gap; gap &= gap - 1)
				placed_add(&pl, ctz64(gap), wild[gi++]);
			if (place_ends(r, &pl, wild + gi, extra, end, 0, f, 4) < 0)
				continue;
			if (wrap_bad(r, &pl, suit, nat)) {
				fail_at(f, 5, RPL_RULE_MELD_WRAP, FM_WRAP, RV(r, WRAP_AS_DIRTY), 0, 0, 0);
				continue;
			}
			placed_to_meld(&pl, suit, out);
			return 0;
		}
	}
	return f->code;
}

/*
 * What an addition to a fixed meld must pass before any arrangement is tried:
 * its length, its suit, no card twice; its cards split by kind into *sp and
 * the meld's naturals into *old_nat. 0, or the refusal's code.
 */
static int add_fixed_precheck(const struct meld *m, const struct cards *cs, int n, struct meld_fail *f,
                              unsigned *old_nat, struct split *sp)
{
	int suit = m->suit, ndisp_max = 0;
	unsigned held, doubled;

	/* a wild whose natural card arrives needs a place of its own: when only such wilds make the meld longer
	   than 14, the placement below names the refusal meld.wild_stuck (docs/rules.md 3.5) */
	for (int i = 0; i < m->nw; i++)
		if (cs->cnt[natural_card(suit, m->wpos[i])] > 0)
			ndisp_max++;
	if (rpl__meld_len(m) + n - ndisp_max > 14)
		return fail_at(f, 9, RPL_RULE_MELD_LONG, FM_LONG, rpl__meld_len(m) + n, 0, 0, 0);
	if (check_suit(cs, suit, f) < 0)
		return f->code;
	*old_nat = (2u << m->hi) - (1u << m->lo);
	for (int i = 0; i < m->nw; i++)
		*old_nat &= ~BIT(m->wpos[i]);
	/* ranks 3..K (bit rank - 1): held twice, or held and already natural in the meld */
	held = (unsigned)((cs->any & MID_BITS(suit)) >> (13 * suit));
	doubled = (unsigned)((cs->multi & MID_BITS(suit)) >> (13 * suit));
	doubled |= held & (*old_nat >> 1);
	if (doubled)
		return fail_at(f, 9, RPL_RULE_MELD_DUPLICATE, FM_HAS_PLACE, 13 * suit + ctz64(doubled), 0, 0, 0);
	split_cards(cs, suit, sp);
	if (sp->aces > 2)
		return fail_at(f, 9, RPL_RULE_MELD_DUPLICATE, FM_MORE_THAN_TWO, RPL_CARD_MAKE(suit, 1), 0, 0, 0);
	return 0;
}

/*
 * One arrangement of an addition to fixed meld m: the suit's own 2 natural
 * (tn) or not, the new aces at position 1 (ace_lo) and 14 (ace_hi). The
 * meld's wilds stay where they are, but those whose natural arrives, which
 * move to an end (or, an own-suit 2, home); the new wilds fill the gaps, then
 * the ends. 0 with *out, or -1 with the refusal noted in f.
 */
static int add_fixed_arrange(const struct rpl_rules *r, const struct meld *m, const struct split *sp, unsigned old_nat,
                             int tn, int ace_lo, int ace_hi, int end, struct meld *out, struct meld_fail *f)
{
	int suit = m->suit, maxw = RV(r, MAX_WILDS);
	unsigned newnat = sp->mask, nat, occ, gapmask;
	/* nneww <= n <= 13, whatever the number of 2s; ends <= MAX_WILDS */
	rpl_card neww[14], ends[MAX_WILDS + 8], disp[MAX_WILDS];
	int nneww = 0, nends = 0, ndisp = 0, gi = 0, lo, hi, gaps, wild_total;
	struct placed pl;

	if (tn)
		newnat |= BIT(2);
	if (ace_lo)
		newnat |= BIT(1);
	if (ace_hi)
		newnat |= BIT(14);
	if (newnat & old_nat) {
		fail_at(f, 1, RPL_RULE_MELD_DUPLICATE, FM_POS_TAKEN, 0, 0, 0, 0);
		return -1;
	}
	for (int i = 0; i < sp->twos - tn; i++)
		neww[nneww++] = RPL_CARD_MAKE(suit, 2);
	for (int i = 0; i < sp->nother; i++)
		neww[nneww++] = sp->otherw[i];
	nat = old_nat | newnat;
	pl.nw = 0;
	occ = nat;
	/* wilds whose natural card arrives are displaced; the others stay */
	for (int i = 0; i < m->nw; i++) {
		if (newnat & BIT(m->wpos[i])) {
			disp[ndisp++] = m->wcard[i];
		} else {
			placed_add(&pl, m->wpos[i], m->wcard[i]);
			occ |= BIT(m->wpos[i]);
		}
	}
	lo = ctz64(occ);
	hi = high64(occ);
	/* the positions lo..hi that nothing occupies */
	gapmask = ~occ & ((2u << hi) - (1u << lo));
	gaps = popcount64(gapmask);
	if (gaps > nneww) {
		fail_at(f, 2, RPL_RULE_MELD_GAP, FM_GAP_ADDED, gaps, nneww, 0, 0);
		return -1;
	}
	for (; gapmask; gapmask &= gapmask - 1)
		placed_add(&pl, ctz64(gapmask), neww[gi++]);
	occ |= (2u << hi) - (1u << lo);
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
		fail_at(f, 3, RPL_RULE_MELD_WILDS, FM_TOO_MANY, wild_total, maxw, 0, 0);
		return -1;
	}
	if (popcount64(nat) <= wild_total) {
		fail_at(f, 3, RPL_RULE_MELD_WILDS, FM_TIE, 0, 0, 0, 0);
		return -1;
	}
	if (place_ends(r, &pl, ends, nends, end, 1, f, 4) < 0)
		return -1;
	if (place_ends(r, &pl, neww + gi, nneww - gi, end, 0, f, 4) < 0)
		return -1;
	if (wrap_bad(r, &pl, suit, nat)) {
		fail_at(f, 5, RPL_RULE_MELD_WRAP, FM_WRAP, RV(r, WRAP_AS_DIRTY), 0, 0, 0);
		return -1;
	}
	placed_to_meld(&pl, suit, out);
	return 0;
}

/* Fixed wilds (STBL, ABERTO): the cards already laid keep their positions. */
/*
 * The commonest addition with fixed wilds at once: naturals 3 to K of the
 * meld's suit, each once, none where a wild of the meld stands, extending
 * it without a gap. The meld's wilds keep their places and none comes
 * with the cards, so add_fixed would try one arrangement: this is it, with
 * its checks (the wilds against the rules and the naturals, the wrap rule).
 * 1 with *out; 0 when it is not such an addition or it is refused: the
 * general path decides, and says why.
 */
static int add_plain_fixed(const struct rpl_rules *r, const struct meld *m, const struct cards *cs, int n,
                           struct meld *out)
{
	int suit = m->suit, lo, hi;
	unsigned old_nat, newnat, nat, occ;
	struct placed pl;

	if (suit > 3 || cs->multi || (cs->any & ~MID_BITS(suit)) || rpl__meld_len(m) + n > 14)
		return 0;
	newnat = (unsigned)((cs->any & MID_BITS(suit)) >> (13 * suit)) << 1;
	old_nat = (2u << m->hi) - (1u << m->lo);
	pl.nw = 0;
	occ = 0;
	for (int i = 0; i < m->nw; i++) {
		old_nat &= ~BIT(m->wpos[i]);
		placed_add(&pl, m->wpos[i], m->wcard[i]);
		occ |= BIT(m->wpos[i]);
	}
	if ((newnat & (old_nat | occ)) || m->nw > RV(r, MAX_WILDS))
		return 0;
	nat = old_nat | newnat;
	occ |= nat;
	lo = ctz64(occ);
	hi = high64(occ);
	if ((~occ & ((2u << hi) - (1u << lo))) || popcount64(nat) <= m->nw)
		return 0;
	pl.lo = lo;
	pl.hi = hi;
	if (wrap_bad(r, &pl, suit, nat))
		return 0;
	placed_to_meld(&pl, suit, out);
	return 1;
}

static int add_fixed(const struct rpl_rules *r, const struct meld *m, const struct cards *cs, int n, int end,
                     struct meld *out, struct meld_fail *f)
{
	unsigned old_nat = 0;
	struct split sp;
	int err;

	if (add_plain_fixed(r, m, cs, n, out))
		return 0;
	err = add_fixed_precheck(m, cs, n, f, &old_nat, &sp);
	if (err)
		return err;
	/* the own-suit 2 natural first; each new ace at position 1 or 14 (one ace: low first; two: both) */
	for (int tn = sp.twos > 0 ? 1 : 0; tn >= 0; tn--) {
		if (sp.aces == 0) {
			if (add_fixed_arrange(r, m, &sp, old_nat, tn, 0, 0, end, out, f) == 0)
				return 0;
		} else if (sp.aces == 1) {
			if (add_fixed_arrange(r, m, &sp, old_nat, tn, 1, 0, end, out, f) == 0 ||
			    add_fixed_arrange(r, m, &sp, old_nat, tn, 0, 1, end, out, f) == 0)
				return 0;
		} else if (add_fixed_arrange(r, m, &sp, old_nat, tn, 1, 1, end, out, f) == 0) {
			return 0;
		}
	}
	return f->code;
}

/* Count card c into all, keeping the masks of ca. */
static void cards_put(struct cards *ca, uint8_t *all, rpl_card c)
{
	uint64_t bit = 1ull << c;

	ca->multi |= ca->any & bit;
	ca->any |= bit;
	all[c]++;
}

/* The cards of cs and those of meld m together, counted into all and seen through *ca. */
static void cards_with_meld(struct cards *ca, cardset all, const struct cards *cs, const struct meld *m)
{
	unsigned nat = (2u << m->hi) - (1u << m->lo);

	memcpy(all, cs->cnt, sizeof(cardset));
	ca->cnt = all;
	ca->any = cs->any;
	ca->multi = cs->multi;
	for (int i = 0; i < m->nw; i++) {
		nat &= ~BIT(m->wpos[i]);
		cards_put(ca, all, m->wcard[i]);
	}
	for (; nat; nat &= nat - 1)
		cards_put(ca, all, natural_card(m->suit, ctz64(nat)));
}

int rpl__meld_add_cards(const struct rpl_rules *r, const struct meld *m, const struct cards *cs, int n, int end,
                        struct meld *out, struct meld_fail *f)
{
	fail_init(f);
	if (n < 1)
		return fail_at(f, 9, RPL_RULE_BAD_ACTION, FM_NO_CARDS, 0, 0, 0, 0);
	if (RV(r, WILD_MOBILITY) == RPL_WILD_FLOATING) {
		/* the wild floats: the meld is legal iff its cards have a legal arrangement */
		cardset all;
		struct cards ca;
		/*
		 * a clean run of 3 to K and naturals of its suit in 3 to K, each once and
		 * beside it: the arrangement's quick case (rpl__meld_arrange_cards) without
		 * counting the meld's cards out first
		 */
		if (m->nw == 0 && m->lo >= 3 && m->hi <= 13 && m->suit < 4 && rpl__meld_len(m) + n <= 14 && !cs->multi &&
		    !(cs->any & ~MID_BITS(m->suit))) {
			unsigned run = (2u << m->hi) - (1u << m->lo), add = (unsigned)(cs->any >> (13 * m->suit)) << 1;
			unsigned pos = run | add;
			if (!(run & add) && ((pos + (pos & (0u - pos))) & pos) == 0) {
				memset(out, 0, sizeof(*out));
				out->suit = m->suit;
				out->lo = (uint8_t)ctz64(pos);
				out->hi = (uint8_t)high64(pos);
				return 0;
			}
		}
		cards_with_meld(&ca, all, cs, m);
		return rpl__meld_arrange_cards(r, &ca, rpl__meld_len(m) + n, end, out, f);
	}
	return add_fixed(r, m, cs, n, end, out, f);
}

/*
 * An ace added alone to a floating meld (naturals nat, of them mid in 3..K,
 * wilds wild-capable cards): below the lowest of mid it leaves the
 * positions down to 2 to fill (the 2 itself may be natural, but then it is
 * one wild less), above the highest those up to K; with the meld's own ace
 * it leaves both. Refused when every way leaves more than the wilds can fill.
 */
static int ace_refused(unsigned nat, unsigned mid, int wilds)
{
	int aces = 1 + ((nat & BIT(1)) ? 1 : 0) + ((nat & BIT(14)) ? 1 : 0), holes, below, above;

	if (aces > 2)
		return 1;
	if (!mid)
		return 0;
	holes = popcount64(~mid & ((2u << high64(mid)) - (1u << ctz64(mid))));
	below = ctz64(mid) - 2 + holes;
	above = 13 - high64(mid) + holes;
	if (aces == 2)
		return below + above - holes > wilds;
	return below > wilds && above > wilds;
}

int rpl__meld_add_refused(const struct rpl_rules *r, const struct meld *m, rpl_card x)
{
	int rank = RPL_CARD_RANK(x), wilds;
	unsigned nat = (2u << m->hi) - (1u << m->lo), holes, mid;

	for (int i = 0; i < m->nw; i++)
		nat &= ~BIT(m->wpos[i]);
	/* a rank 3..K the run holds already: "two for one position" or "already has its place" */
	if (rank >= 3 && (nat & BIT(rank)))
		return 1;
	if (RV(r, WILD_MOBILITY) == RPL_WILD_FIXED) {
		/* no wild comes with x, so x must touch the run: at 1 or 14 for an ace */
		return !(rank >= m->lo - 1 && rank <= m->hi + 1) && !(rank == 1 && m->hi >= 13);
	}
	/*
	 * Floating: the naturals 3..K never move, and every arrangement leaves
	 * at least the holes between them to wilds. x brings none, so the wilds
	 * are the meld's, its natural 2 included (it may turn wild).
	 */
	wilds = m->nw + ((nat & BIT(2)) ? 1 : 0);
	mid = nat & 0x3FF8u;
	if (rank == 1)
		return ace_refused(nat, mid, wilds);
	if (wilds > RV(r, MAX_WILDS))
		wilds = RV(r, MAX_WILDS);
	mid |= BIT(rank);
	holes = ~mid & ((2u << high64(mid)) - (1u << ctz64(mid)));
	return popcount64(holes) > wilds;
}

int rpl__meld_add_sure(const struct rpl_rules *r, const struct meld *m, rpl_card x)
{
	int rank = RPL_CARD_RANK(x), lo_wild_two = 0;

	if (RV(r, WILD_MOBILITY) == RPL_WILD_FLOATING) {
		unsigned nat = (2u << m->hi) - (1u << m->lo);
		for (int i = 0; i < m->nw; i++)
			nat &= ~BIT(m->wpos[i]);
		/* naturals 3..K only (no ace or 2 with a choice of place), and room for one more card */
		if ((nat & ~0x3FF8u) || rpl__meld_len(m) >= 14 || m->nw > RV(r, MAX_WILDS))
			return 0;
		/* an ace joins a plain run above its K only (below its 3 it leaves a gap) */
		if (rank == 1)
			return m->nw == 0 && m->hi == 13;
		/*
		 * the meld's wilds fill the holes between the naturals and x, and
		 * any left over go to an end, where a run of 3..K leaves room; the
		 * naturals outnumber the wilds, as they did
		 */
		if (rank < 3 || (nat & BIT(rank)))
			return 0;
		nat |= BIT(rank);
		return popcount64(nat) > m->nw && popcount64(~nat & ((2u << high64(nat)) - (1u << ctz64(nat)))) <= m->nw;
	}
	/*
	 * fixed: x takes its place just beyond an end, the wilds keep theirs, no
	 * end wild is placed; only the number of wilds against the naturals'
	 * could object, and, for an ace above the K, the wrap rule when an own
	 * 2 is the wild at the low end (only when false: the run has 4 cards or more, which narrow allows)
	 */
	if (m->nw > RV(r, MAX_WILDS) || rpl__meld_len(m) - m->nw + 1 <= m->nw)
		return 0;
	if (rank >= 3)
		return rank == m->lo - 1 || rank == m->hi + 1;
	if (rank != 1)
		return 0;
	for (int i = 0; i < m->nw; i++)
		if (m->wpos[i] == m->lo && m->wcard[i] == RPL_CARD_MAKE(m->suit, 2))
			lo_wild_two = 1;
	return m->lo == 2 || (m->hi == 13 && (RV(r, WRAP_AS_DIRTY) != RPL_WRAP_NONE || !lo_wild_two));
}

int rpl__meld_arrange(const struct rpl_rules *r, const cardset cnt, int n, int end, struct meld *out, char *why,
                      size_t whylen)
{
	struct cards cs;
	struct meld_fail f;
	int code;

	rpl__cards_view(&cs, cnt);
	code = rpl__meld_arrange_cards(r, &cs, n, end, out, &f);
	/* as before: the reason is the last refusal kept, even when another arrangement then worked */
	rpl__meld_why(&f, why, whylen);
	return code;
}

int rpl__meld_add(const struct rpl_rules *r, const struct meld *m, const cardset cnt, int n, int end, struct meld *out,
                  char *why, size_t whylen)
{
	struct cards cs;
	struct meld_fail f;
	int code;

	rpl__cards_view(&cs, cnt);
	code = rpl__meld_add_cards(r, m, &cs, n, end, out, &f);
	rpl__meld_why(&f, why, whylen);
	return code;
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
