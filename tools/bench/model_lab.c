/*
 * brp-model-lab: where the bits of the decisions go, and what other models
 * of them would cost (not installed; issue 27, docs/format.md section 9).
 *
 *   brp-model-lab DIR [VARIANTS]
 *
 * It reads every log of DIR and codes its decisions again with a copy of
 * the decision model of codec_decide.c, counting the cost of every coded
 * symbol (-log2 of its probability) by what it codes, and the bytes of the
 * streams. VARIANTS (a number, bits of it) switches on experimental changes
 * of the model (each V(k) below says what bit k does); 0 is the model of
 * versions 2 to 5, whose bytes equal `brp-bench size`'s decision bytes of a
 * version-5 corpus, and 0x34040 is version 6's (bits 6, 14, 16 and 17;
 * the same bytes as `BRP_BENCH_MODEL=6 brp-bench size`). A third argument
 * prints the table by
 * what the symbols code (docs/format.md 20.7).
 *
 * BRP_LAB_TRAIN=DIR,DIR... first codes those corpora and starts every match
 * from the states they give (a prior: each state's frequency of 0 there,
 * clamped to BRP_LAB_PRIOR_MIN..2048-BRP_LAB_PRIOR_MIN out of 2048, default
 * 64, with a count of BRP_LAB_PRIOR_N bits seen, default 0); BRP_LAB_GROUP
 * set gives every kind context of a class the same prior. Variant bit 20
 * carries the model from one match to the next (what learning costs).
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "log/codec_impl.h"
#include "log/codec_context.h"
#include "base/bits.h"
#include "libreplay/libreplay.h"

static unsigned variant;
#define V(k) ((variant >> (k)) & 1u)

/* ---- cost accounting ---- */

enum cls {
	C_KIND_MORTO,  /* kind, ctx 0: a hand just emptied */
	C_KIND_EMPTY,  /* kind, turn closed, empty pile */
	C_KIND_PILE,   /* kind, turn closed, a pile */
	C_KIND_NODREW, /* kind, turn open, not drawn (after a reject) */
	C_KIND_DRAW,   /* kind, drew: after a draw (or a discard-less ...), not the first turn */
	C_KIND_FIRST,  /* kind, drew: first turn */
	C_KIND_TAKE,   /* kind, drew: after a take */
	C_KIND_MELD,   /* kind, drew: after a meld or an add */
	C_KIND_AMORTO, /* kind, drew: after a morto */
	C_DISC_BITS,
	C_DISC_TAIL,
	C_COUNT_MELD,
	C_COUNT_ADD,
	C_FIRST_BIT,
	C_FIRST_CHOICE,
	C_STEP1,
	C_STEP0,
	C_STEPWILD,
	C_STEP_CHOICE,
	C_OWN,
	C_MELDIDX,
	C_MELDIDX_CHOICE,
	C_END,
	C_MORTO,
	C_N
};
static const char *const cls_name[C_N] = {
	"kind: hand emptied (ctx 0)",
	"kind: turn closed, pile empty",
	"kind: turn closed, pile",
	"kind: open, not drawn",
	"kind: drew, after a draw",
	"kind: drew, first turn",
	"kind: drew, after a take",
	"kind: drew, after meld/add",
	"kind: drew, after a morto",
	"discard: loop bits",
	"discard: uniform tail",
	"meld: count",
	"add: count",
	"first card: bits",
	"first card: uniform",
	"next card: step1",
	"next card: step0",
	"next card: stepwild",
	"next card: uniform",
	"add: own",
	"add: meld index: bit",
	"add: meld index: uniform",
	"end",
	"morto",
};

static double cost[C_N];   /* bits */
static uint64_t nsym[C_N]; /* symbols coded (bits or choices) */
static uint64_t nkind[C_N];
static int cur;
static double log2p[PONE];

struct coder {
	struct rc_enc *e;
};

static uint16_t *state0; /* the model being coded: a state's index is its offset */
static uint64_t *cnt[2]; /* training: the bits each state coded */
static int training;
static uint16_t *kbase; /* the kind states being coded, and their class */
static int kgroup, grouped;
static uint64_t gcnt[2][32][6];
static uint16_t gprior[32][6];
static uint8_t kseen[16384];

static int c_bit(struct coder *c, uint16_t *p, int bit)
{
	uint32_t q = *p & (PONE - 1);
	if (training) {
		cnt[bit][p - state0]++;
		if (kbase && p >= kbase && p < kbase + 6)
			gcnt[bit][kgroup][p - kbase]++;
	}
	cost[cur] += bit ? log2p[PONE - q] : log2p[q];
	nsym[cur]++;
	enc_bit(c->e, p, bit);
	return bit;
}

static int c_tree(struct coder *c, uint16_t *probs, int bits, int v)
{
	int node = 1;
	for (int i = bits - 1; i >= 0; i--)
		node = node * 2 + c_bit(c, &probs[node], (v >> i) & 1);
	return node - (1 << bits);
}

static int c_uniform(struct coder *c, int n, int v)
{
	if (n <= 1)
		return 0;
	cost[cur] += log2((double)n);
	nsym[cur]++;
	enc_freq(c->e, (uint32_t)v, 1, (uint32_t)n);
	return v;
}

static int c_member(struct coder *c, uint64_t s, int x)
{
	int v = popcount64(s & ((1ull << x) - 1));
	c_uniform(c, popcount64(s), v);
	return x;
}

static int c_split(struct coder *c, uint16_t *p, uint64_t s, uint64_t g, int x)
{
	uint64_t in = s & g, out = s & ~g;
	int b = in != 0;
	if (in && out)
		b = c_bit(c, p, (int)((g >> x) & 1));
	cur++; /* the class after the bit's: its uniform choice */
	return c_member(c, b ? in : out, x);
}

/* ---- the model: codec_decide.c's, with the experiments' states beside ---- */

#define XKIND 16384
struct lmodel {
	uint16_t kind[XKIND][6];
	uint16_t discard[64][3];
	uint16_t count[8][16];
	uint16_t first_wild[4];
	uint16_t first_near[4];
	uint16_t step1[8], step0[8], stepwild[8];
	uint16_t end[4][4];
	uint16_t own[4];
	uint16_t same_suit[4];
	uint16_t morto[4];
};

static uint16_t *prior; /* the states a match starts from, when trained */

static void lmodel_init(struct lmodel *m)
{
	uint16_t *p = (uint16_t *)m;
	for (size_t i = 0; i < sizeof(*m) / sizeof(uint16_t); i++)
		p[i] = prior ? prior[i] : PINIT;
	memset(kseen, 0, sizeof(kseen));
}

/* Some suit holds three cards within three ranks (a run the hand can lay now, without a wild). */
static int run3(const struct track *t, int seat)
{
	const uint16_t *sm = t->ranks[seat];
	uint64_t a = (uint64_t)sm[0] | (uint64_t)sm[1] << 16 | (uint64_t)sm[2] << 32 | (uint64_t)sm[3] << 48;
	return ((a & a >> 1 & a >> 2) & 0x0FFE0FFE0FFE0FFEull) != 0;
}

/* 0: the top does not fit; 1: only with a wild of the hand; 2: with two naturals, beyond a meld, or a wild top with melds */
static int top_fits3(const struct track *t, int seat)
{
	rpl_card top = t->pile[t->pile_n - 1];
	uint32_t own, m, at, one, two;
	int s, r, wilds = (t->fmask[seat] & WILD_FACES) != 0;

	if ((WILD_FACES >> top) & 1)
		return t->nmelds[seat & 1] > 0 ? 2 : 0;
	if ((t->extf[seat & 1] >> top) & 1)
		return 2;
	s = RPL_CARD_SUIT(top);
	r = RPL_CARD_RANK(top);
	own = 1u << r | (r == 1 ? 1u << 14 : 0);
	m = t->ranks[seat][s] & ~own;
	at = own | own >> 1 | own >> 2 | own >> 3;
	one = m | m >> 1 | m >> 2 | m >> 3;
	two = (m & m >> 1) | (m & m >> 2) | (m & m >> 3) | (m >> 1 & m >> 2) | (m >> 1 & m >> 3) | (m >> 2 & m >> 3);
	if (two & at & 0x0FFEu)
		return 2;
	return wilds && (one & at & 0x0FFEu) ? 1 : 0;
}

/* The card just drawn by the seat, as version 6 codes it (codec_context.h), or 0 when there is none in its hand */
static int drawn_fit(const struct track *t, int seat)
{
	int d = t->last_drawn;

	if (t->last != seat || d < 0 || !((t->fmask[seat] >> d) & 1))
		return 0;
	return drawn_fits(t, seat);
}

static int bucket(int v, int a, int b)
{
	return v <= a ? 0 : v <= b ? 1 : 2;
}

static int kind_ctx(const struct track *t, int *cls)
{
	int seat = t->seat, side = seat & 1, sub;
	uint64_t f = t->fmask[seat];

	if (t->last >= 0 && t->hand_n[t->last] == 0) {
		*cls = C_KIND_MORTO;
		return 0;
	}
	if (!t->open) {
		int ctx;
		*cls = t->pile_n ? C_KIND_PILE : C_KIND_EMPTY;
		ctx = t->pile_n ? 2 + top_fits(t, seat) : 1;
		if ((V(0) || V(1) || V(7)) && t->pile_n) {
			int x = V(7) ? top_fits3(t, seat) : top_fits(t, seat);
			if (V(0)) /* bit 0: pile size bucket */
				x = x * 3 + bucket(t->pile_n, 1, 4);
			if (V(1)) /* bit 1: the side has melds */
				x = x * 2 + (t->nmelds[side] > 0);
			ctx = 64 + x;
		}
		return ctx;
	}
	if (!t->drew) {
		*cls = C_KIND_NODREW;
		return 8;
	}
	sub = near_run(t, seat) + 2 * ((f & t->extf[side]) != 0);
	switch (t->last_kind) {
	case RPL_ACT_TAKE:
		sub += 8;
		*cls = C_KIND_TAKE;
		break;
	case RPL_ACT_MELD:
	case RPL_ACT_ADD:
		sub += 16;
		*cls = C_KIND_MELD;
		break;
	case RPL_ACT_MORTO:
		sub += 24;
		*cls = C_KIND_AMORTO;
		break;
	default:
		*cls = C_KIND_DRAW;
		if (t->turn == 1) {
			sub += 32;
			*cls = C_KIND_FIRST;
		}
		break;
	}
	if (V(2) || V(3) || V(4) || V(5) || V(6)) {
		int x = 16 + sub;
		if (V(6)) /* bit 6: the card just drawn fits */
			x = x * 3 + drawn_fit(t, seat);
		if (V(2)) /* bit 2: the side has melds */
			x = x * 2 + (t->nmelds[side] > 0);
		if (V(3)) /* bit 3: a run of three of one suit in the hand */
			x = x * 2 + run3(t, seat);
		if (V(4)) /* bit 4: the hand holds a wild */
			x = x * 2 + ((f & WILD_FACES) != 0);
		if (V(5)) /* bit 5: hand size bucket */
			x = x * 3 + bucket(t->hand_n[seat], 2, 6);
		return 256 + x;
	}
	return 16 + sub;
}

static int kind_class_of_ctx(int ctx)
{
	return ctx == 0 ? 0 : (ctx < 16 || (ctx >= 64 && ctx < 256)) ? 1 : 2;
}

static uint64_t disc_pos_hist[16];
static uint64_t nfirst[2][2];

static int code_discard(struct coder *c, struct lmodel *m, const struct track *t, int seat, rpl_action *a)
{
	uint64_t f = t->fmask[seat];
	uint32_t key[RPL_NFACES] = { 0 }, kx;
	int n = popcount64(f), nkeys = 0, pos = 0, ctx, dr = -1, best = 0, nb;

	cur = C_DISC_BITS;
	for (uint64_t g = f; g; g &= g - 1) {
		rpl_card x = (rpl_card)ctz64(g);
		key[nkeys++] = (uint32_t)(keep_score(t, seat, x) + 16) << 6 | x;
	}
	for (int i = 1; i < nkeys; i++)
		if (key[i] < key[best])
			best = i;
	best = (int)(key[best] & 63);
	if (t->last == seat && t->last_drawn >= 0 && ((f >> t->last_drawn) & 1))
		dr = t->last_drawn;
	ctx = dr < 0 ? 0 : (best == dr ? 1 : 2);
	kx = (uint32_t)(keep_score(t, seat, a->cards[0]) + 16) << 6 | a->cards[0];
	for (int i = 0; i < nkeys; i++)
		pos += key[i] < kx;
	disc_pos_hist[pos < 15 ? pos : 15]++;
	nb = 3;
	if (V(8)) /* bit 8: the drawn card is the second of the order */
		if (dr >= 0 && best != dr) {
			int p2 = 0;
			uint32_t kd = (uint32_t)(keep_score(t, seat, (rpl_card)dr) + 16) << 6 | (uint32_t)dr;
			for (int i = 0; i < nkeys; i++)
				p2 += key[i] < kd;
			ctx = p2 == 1 ? 2 : p2 == 2 ? 3 : 4;
		}
	if (V(9)) /* bit 9: hand size buckets */
		ctx = ctx * 3 + bucket(n, 3, 8);
	if (V(10)) /* bit 10: the side has melds */
		ctx = ctx * 2 + (t->nmelds[seat & 1] > 0);
	{
		int p = 0;
		while (p < nb && n - p >= 2 && c_bit(c, &m->discard[ctx][p], pos > p))
			p++;
		cur = C_DISC_TAIL;
		if (p == nb || n - p < 2)
			p += c_uniform(c, n - p, pos - p);
	}
	return 0;
}

static int code_cards(struct coder *c, struct lmodel *m, const struct track *t, int seat, int add, rpl_action *a)
{
	uint64_t f = t->fmask[seat];
	rpl_card cs[14];
	int n = a->ncards, prev = -1, same = 0, cc = add;

	memcpy(cs, a->cards, (size_t)n);
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && cs[j - 1] > cs[j]; j--) {
			rpl_card x = cs[j];
			cs[j] = cs[j - 1];
			cs[j - 1] = x;
		}
	cur = add ? C_COUNT_ADD : C_COUNT_MELD;
	if (V(12)) /* bit 12: count context by the hand holding a wild */
		cc = cc * 2 + ((f & WILD_FACES) != 0);
	if (V(13)) /* bit 13: count context by the side having melds (meld) */
		cc = cc * 2 + (t->nmelds[seat & 1] > 0);
	c_tree(c, m->count[cc], 4, n - 1);
	for (int i = 0; i < n; i++) {
		int x = cs[i];
		if (prev < 0) {
			uint64_t wild = f & WILD_FACES, nat = f & ~WILD_FACES;
			int w = wild != 0;
			cur = C_FIRST_BIT;
			if (wild && nat)
				w = c_bit(c, &m->first_wild[add], (int)((WILD_FACES >> x) & 1));
			nfirst[w][add]++;
			if (w) {
				cur = C_FIRST_CHOICE;
				c_member(c, wild, x);
			} else if (V(17) && !add) {
				/* bit 17: the naturals that start a run of the hand (the next two ranks, or one and a wild; not the rank below) */
				uint64_t start = 0, con = connected(t, seat);
				int hw = wild != 0;
				for (uint64_t g = con; g; g &= g - 1) {
					int y = ctz64(g), r = RPL_CARD_RANK(y);
					uint32_t mm = t->ranks[seat][RPL_CARD_SUIT(y)];
					int up1 = r == 13 ? (mm >> 14 & 1) : (mm >> (r + 1) & 1);
					int up2 = mm >> (r + 2) & 1; /* K: bit 15, never set (no run wraps past the ace) */
					int down = r == 1 ? 0 : (mm >> (r - 1) & 1);
					if (up1 + up2 + hw >= 2 && !down)
						start |= 1ull << y;
				}
				if (start && (nat & ~start)) {
					if (c_bit(c, &m->first_near[2], (int)((start >> x) & 1))) {
						cur = C_FIRST_CHOICE;
						c_member(c, start, x);
					} else {
						c_split(c, &m->first_near[0], nat & ~start, con, x);
					}
				} else if (start) {
					cur = C_FIRST_CHOICE;
					c_member(c, start, x);
				} else {
					c_split(c, &m->first_near[0], nat, con, x);
				}
			} else {
				c_split(c, &m->first_near[add], nat, add ? t->extf[seat & 1] : connected(t, seat), x);
			}
		} else {
			uint64_t up = f & ~((2ull << prev) - 1);
			int next = up ? ctz64(up) : -1, again = t->hand[seat][prev] > same;
			uint64_t further = up & (up - 1);
			int sc = add;
			if (V(14)) /* bit 14: step contexts by whether next is prev's rank + 1 of its suit */
				sc = sc * 2 + (next == prev + 1 && prev != RPL_JOKER && next / 13 == prev / 13);
			cur = C_STEP1;
			if (next >= 0 && c_bit(c, &m->step1[sc], x != next) == 0) {
				;
			} else if (again && (cur = C_STEP0, !further || c_bit(c, &m->step0[add], x != prev) == 0)) {
				;
			} else {
				uint64_t wild = further & WILD_FACES, nat = further & ~WILD_FACES;
				int w = wild != 0;
				cur = C_STEPWILD;
				if (wild && nat)
					w = c_bit(c, &m->stepwild[add], (int)((WILD_FACES >> x) & 1));
				cur = C_STEP_CHOICE;
				c_member(c, w ? wild : nat, x);
			}
		}
		same = x == prev ? same + 1 : 1;
		prev = x;
	}
	return 0;
}

static const uint8_t korder[3][7] = {
	{ RPL_ACT_MORTO, RPL_ACT_DRAW, RPL_ACT_DISCARD, RPL_ACT_TAKE, RPL_ACT_REJECT, RPL_ACT_MELD, RPL_ACT_ADD },
	{ RPL_ACT_DRAW, RPL_ACT_TAKE, RPL_ACT_DISCARD, RPL_ACT_REJECT, RPL_ACT_MELD, RPL_ACT_ADD, RPL_ACT_MORTO },
	{ RPL_ACT_DISCARD, RPL_ACT_ADD, RPL_ACT_MELD, RPL_ACT_DRAW, RPL_ACT_TAKE, RPL_ACT_REJECT, RPL_ACT_MORTO },
};

static void code_kind(struct coder *c, struct lmodel *m, const struct track *t, int kind)
{
	int cls, ctx = kind_ctx(t, &cls), i = 0;
	const uint8_t *o = korder[kind_class_of_ctx(ctx)];
	uint16_t *p = m->kind[ctx];

	cur = cls;
	nkind[cls]++;
	if (grouped && !training && prior && !kseen[ctx]) {
		/* grouped priors: a kind context starts from its class's states */
		kseen[ctx] = 1;
		memcpy(p, gprior[cls], sizeof(gprior[cls]));
	}
	kbase = p;
	kgroup = cls;
	while (i < 7 && o[i] != kind)
		i++;
	for (int k = 0; k < 3; k++)
		if (c_bit(c, &p[k], i > k) == 0) {
			kbase = NULL;
			return;
		}
	c_tree(c, p + 2, 2, i - 3);
	kbase = NULL;
}

static void code_action(struct coder *c, struct lmodel *m, const struct track *t, rpl_action *a)
{
	int seat;

	code_kind(c, m, t, a->kind);
	seat = rpl__track_actor(t, a->kind);
	switch (a->kind) {
	case RPL_ACT_DISCARD: code_discard(c, m, t, seat, a); return;
	case RPL_ACT_MELD: code_cards(c, m, t, seat, 0, a); break;
	case RPL_ACT_ADD: {
		int own, side, n, suit = -1;
		uint64_t melds, same = 0;
		code_cards(c, m, t, seat, 1, a);
		cur = C_OWN;
		own = c_bit(c, &m->own[0], a->side == (seat & 1));
		side = own ? (seat & 1) : !(seat & 1);
		n = t->nmelds[side];
		for (int i = 0; i < a->ncards && suit < 0; i++)
			if (!RPL_IS_WILDCAPABLE(a->cards[i]))
				suit = RPL_CARD_SUIT(a->cards[i]);
		melds = n == 64 ? ~0ull : (1ull << n) - 1;
		for (int i = 0; i < n; i++)
			if (suit < 0 || t->msuit[side][i] == suit)
				same |= 1ull << i;
		cur = C_MELDIDX;
		if (V(16) && suit >= 0) {
			/* bit 16: first, is it a meld the first natural card is one rank beyond? */
			int x = -1;
			uint64_t beyond = 0;
			for (int i = 0; i < a->ncards; i++)
				if (!RPL_IS_WILDCAPABLE(a->cards[i]) && (x < 0 || a->cards[i] < x))
					x = a->cards[i];
			for (int i = 0; i < n; i++)
				if ((t->mext[side][i] >> x) & 1)
					beyond |= 1ull << i;
			if (beyond && (melds & ~beyond)) {
				if (c_bit(c, &m->same_suit[1], (int)((beyond >> a->meld) & 1))) {
					cur = C_MELDIDX_CHOICE;
					c_member(c, beyond, a->meld);
					break;
				}
				melds &= ~beyond;
				same &= ~beyond;
			} else if (beyond) {
				cur = C_MELDIDX_CHOICE;
				c_member(c, beyond, a->meld);
				break;
			}
		}
		c_split(c, &m->same_suit[0], melds, same, a->meld);
		break;
	}
	case RPL_ACT_MORTO:
		cur = C_MORTO;
		c_bit(c, &m->morto[0], a->morto);
		return;
	default: return;
	}
	cur = C_END;
	c_tree(c, m->end[a->kind == RPL_ACT_ADD], 2, a->end);
}

/* ---- the corpus ---- */

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	uint8_t *p;
	if (!f || fstat(fileno(f), &st) < 0) {
		if (f)
			fclose(f);
		return NULL;
	}
	*n = (size_t)st.st_size;
	p = malloc(*n + 1);
	if (fread(p, 1, *n, f) != *n) {
		free(p);
		p = NULL;
	}
	fclose(f);
	return p;
}

static uint64_t bytes, decisions, matches;

static void run_dir(const char *dir)
{
	DIR *d;
	struct dirent *de;

	if (!(d = opendir(dir))) {
		perror(dir);
		exit(2);
	}
	while ((de = readdir(d)) != NULL) {
		char path[4096];
		size_t len = strlen(de->d_name), n;
		uint8_t *data;
		rpl_reader *rd = NULL;
		rpl_event ev;
		struct track t;
		static struct lmodel m;
		struct buf ab = { 0 };
		struct rc_enc ae;
		struct coder c = { &ae };
		int open = 0, dealer = 0;
		const rpl_match_info *info;

		state0 = (uint16_t *)&m;
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
		while (rpl_reader_next(rd, &ev) == 1) {
			if (ev.kind == RPL_EV_DEAL) {
				if (open) {
					rpl__rc_enc_finish(&ae);
					bytes += ab.n;
				}
				dealer = ev.deal == 1 ? info->first_dealer : (dealer + 1) % info->nplayers;
				rpl__track_deal(&t, info->nplayers, dealer, &ev.layout);
				if (ev.deal == 1 && !(V(20) && matches > 0))
					lmodel_init(&m); /* bit 20: the model carried from match to match (what learning costs) */
				ab.n = 0;
				rpl__rc_enc_init(&ae, &ab);
				open = 1;
			} else if (ev.kind == RPL_EV_ACTION) {
				code_action(&c, &m, &t, &ev.action);
				rpl__track_apply(&t, &ev.action, NULL, 0);
				decisions++;
			}
		}
		if (open) {
			rpl__rc_enc_finish(&ae);
			bytes += ab.n;
		}
		matches++;
		rpl__buf_free(&ab);
		rpl_reader_free(rd);
		free(data);
	}
	closedir(d);
}

/*
 * BRP_LAB_TRAIN=DIR,DIR...: the states a match starts from are those the
 * training logs give (their frequency of 0, count n = BRP_LAB_PRIOR_N).
 */
static void train(const char *dirs)
{
	size_t ns = sizeof(struct lmodel) / sizeof(uint16_t);
	char *copy = strdup(dirs), *tok, *save = NULL;
	int n0 = getenv("BRP_LAB_PRIOR_N") ? atoi(getenv("BRP_LAB_PRIOR_N")) : 0;
	int lo = getenv("BRP_LAB_PRIOR_MIN") ? atoi(getenv("BRP_LAB_PRIOR_MIN")) : 64;

	cnt[0] = calloc(ns, sizeof(uint64_t));
	cnt[1] = calloc(ns, sizeof(uint64_t));
	training = 1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		run_dir(tok);
	training = 0;
	prior = malloc(ns * sizeof(uint16_t));
	for (size_t i = 0; i < ns; i++) {
		double z = (double)cnt[0][i], o = (double)cnt[1][i];
		long p = lround(PONE * (z + 0.4) / (z + o + 0.8));
		if (p < lo)
			p = lo;
		if (p > PONE - lo)
			p = PONE - lo;
		prior[i] = (uint16_t)(n0 << PBITS | p);
	}
	for (int g = 0; g < 32; g++)
		for (int j = 0; j < 6; j++) {
			double z = (double)gcnt[0][g][j], o = (double)gcnt[1][g][j];
			long p = lround(PONE * (z + 0.4) / (z + o + 0.8));
			p = p < lo ? lo : p > PONE - lo ? PONE - lo : p;
			gprior[g][j] = (uint16_t)(n0 << PBITS | p);
		}
	grouped = getenv("BRP_LAB_GROUP") != NULL;
	free(copy);
	memset(cost, 0, sizeof(cost));
	memset(nsym, 0, sizeof(nsym));
	memset(nkind, 0, sizeof(nkind));
	memset(disc_pos_hist, 0, sizeof(disc_pos_hist));
	memset(nfirst, 0, sizeof(nfirst));
	bytes = decisions = matches = 0;
}

int main(int argc, char **argv)
{
	double total = 0;
	int verbose = argc > 3;

	if (argc < 2) {
		fprintf(stderr, "usage: brp-model-lab DIR [VARIANTS] [v]\n");
		return 2;
	}
	variant = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 0;
	for (uint32_t i = 1; i < PONE; i++)
		log2p[i] = -log2((double)i / PONE);
	if (getenv("BRP_LAB_TRAIN"))
		train(getenv("BRP_LAB_TRAIN"));
	run_dir(argv[1]);
	for (int i = 0; i < C_N; i++)
		total += cost[i];
	if (verbose) {
		printf("%-30s %10s %10s %9s %8s\n", "class", "decisions", "symbols", "B/match", "share");
		for (int i = 0; i < C_N; i++)
			printf("%-30s %10llu %10llu %9.2f %7.1f%%\n", cls_name[i], (unsigned long long)nkind[i],
			       (unsigned long long)nsym[i], cost[i] / 8 / (double)matches, 100 * cost[i] / total);
		printf("first card: meld natural %llu wild %llu; add natural %llu wild %llu\n",
		       (unsigned long long)nfirst[0][0], (unsigned long long)nfirst[1][0], (unsigned long long)nfirst[0][1],
		       (unsigned long long)nfirst[1][1]);
		printf("discard positions:");
		for (int i = 0; i < 16; i++)
			printf(" %llu", (unsigned long long)disc_pos_hist[i]);
		printf("\n");
	}
	printf("variant %#x matches %llu decisions %llu bytes %llu B/match %.2f ideal_B/match %.2f bits/decision %.4f\n",
	       variant, (unsigned long long)matches, (unsigned long long)decisions, (unsigned long long)bytes,
	       (double)bytes / (double)matches, total / 8 / (double)matches, 8.0 * (double)bytes / (double)decisions);
	return 0;
}
