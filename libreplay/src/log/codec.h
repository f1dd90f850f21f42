/*
 * Private: the .brp payload codec. A binary range coder (LZMA style: 11-bit
 * adaptive probabilities) and the models that code a deal's layout and its
 * decisions relative to the card bookkeeping, which is all the decoder
 * knows: who holds which cards. Nothing here consults the rules engine, so
 * a change to a rule never changes how a log decodes (docs/format.md).
 * Its files, one section of the spec each, are codec_*.c (codec_impl.h
 * lists them); the rest of the library sees only this header.
 */
#ifndef RPL_CODEC_H
#define RPL_CODEC_H

#include "libreplay/game.h"
#include "libreplay/log.h"
#include "rules/meld_impl.h"

/* A growable byte buffer. */
struct buf {
	uint8_t *p;
	size_t n, cap;
	int oom;
};
void rpl__buf_put(struct buf *b, const void *data, size_t n);
void rpl__buf_byte(struct buf *b, uint8_t v);
void rpl__buf_varint(struct buf *b, uint64_t v);
void rpl__buf_free(struct buf *b);

struct rc_enc {
	struct buf *out;
	size_t start; /* where this stream begins in out */
	uint64_t low;
	uint32_t range;
	uint8_t cache;
	uint64_t pending;
	int skip;
};

struct rc_dec {
	const uint8_t *p;
	size_t n, pos;
	uint32_t range, code;
	uint32_t low; /* the encoder's low, modulo 2^32: to check how the stream ends */
	int bad;      /* a value no encoder writes was read */
};

void rpl__rc_enc_init(struct rc_enc *e, struct buf *out);
void rpl__rc_enc_finish(struct rc_enc *e);
void rpl__rc_dec_init(struct rc_dec *d, const uint8_t *p, size_t n);
/* After the last item: was every byte read, and is the stream as an encoder ends it? */
int rpl__rc_dec_done(const struct rc_dec *d);

/* The card bookkeeping of a deal: the only state decoding may depend on. */
struct track {
	uint8_t n;          /* players */
	uint8_t seat;       /* seat of the open turn, or of the next one */
	int8_t last;        /* seat of the last decision, -1 at deal start */
	uint8_t open;       /* a turn is open (no discard yet) */
	uint8_t drew;       /* the open turn drew or took the pile */
	uint8_t last_kind;  /* kind of the last decision, 0 at deal start */
	int16_t last_drawn; /* face drawn by the last draw or reject, -1 */
	int32_t turn;       /* turns opened */
	cardset hand[RPL_MAX_SEATS];
	uint64_t fmask[RPL_MAX_SEATS]; /* bit c when the hand holds face c */
	uint8_t hand_n[RPL_MAX_SEATS];
	/* per suit: bit r when the hand holds rank r (an ace: 1 and 14); [4], the joker's "suit", stays 0 */
	uint16_t ranks[RPL_MAX_SEATS][5];
	rpl_card src[RPL_DECK_SIZE];
	uint8_t src_pos, src_len;
	rpl_card morto[2][RPL_MORTO_SIZE];
	uint8_t morto_used[2]; /* 0 untouched, 1 picked up, 2 became stock */
	rpl_card pile[RPL_DECK_SIZE];
	uint8_t pile_n;
	uint8_t nmelds[2];
	uint8_t msuit[2][RPL_MAX_MELDS];   /* suit of a meld's first card that is not a 2 or a joker; 4: none */
	uint16_t mranks[2][RPL_MAX_MELDS]; /* ranks of those cards, bit r (an ace sets bits 1 and 14) */
	uint64_t mext[2][RPL_MAX_MELDS];   /* faces one rank beyond each meld (0 while it has no suit) */
	uint64_t extf[2];                  /* faces one rank beyond a side's melds: its mext ORed */
};

/* Start a deal: dealer's left moves first. */
void rpl__track_deal(struct track *t, int nplayers, int dealer, const rpl_layout *lay);
/* The seat a decision of this kind belongs to. */
int rpl__track_actor(const struct track *t, int kind);
/*
 * Apply a decision's card movements. Returns 0, or -1 with why filled when
 * the cards are not where the decision says (that is not a rule: the log
 * cannot even express it).
 */
int rpl__track_apply(struct track *t, const rpl_action *a, char *why, size_t whylen);
/*
 * The same for a decision rpl__dec_action read from this state: its cards
 * are the hand's (code_cards reads only faces the hand holds, each no more
 * often than it holds them, 1 to 14 of them), so they are not checked again.
 */
int rpl__track_apply_decoded(struct track *t, const rpl_action *a, char *why, size_t whylen);

/*
 * Adaptive contexts of a match's decision stream (docs/format.md, section
 * 9). Version 6 refines some of version 2's (format.md 20): its states are
 * beside the older ones, and rich says which model codes the match.
 */
#define KIND_CTX 56
struct model {
	uint16_t kind[KIND_CTX + 16][6]; /* "this kind?" bits, then a two-bit tree; v6: 56..71 (format.md 9.3, 20.2) */
	uint16_t discard[3][3];          /* discard: the position in the keep order is past 0, 1, 2? */
	uint16_t count[2][16];           /* meld, add: number of cards */
	uint16_t first_wild[2];          /* meld, add: the first card is a 2 or a joker? */
	uint16_t first_near[3];          /* meld: first card has a neighbour; add: it extends a meld; v6: it starts a run */
	uint16_t step1[4], step0[2], stepwild[2]; /* step1 [2..3], v6: the next face up is the next rank */
	uint16_t end[2][4];
	uint16_t own[1];
	uint16_t same_suit[2]; /* add: the meld is of the cards' suit? v6 [1]: one the first natural card extends? */
	uint16_t morto[1];
	uint16_t rich; /* not a state: 1 for version 6's model, 0 for the model of versions 2 to 5 */
};
/* The model at the start of a match of format version `version`. */
void rpl__model_init(struct model *m, int version);

void rpl__enc_layout(struct rc_enc *e, int nplayers, const rpl_layout *lay);
int rpl__dec_layout(struct rc_dec *d, int nplayers, rpl_layout *lay);

/*
 * Version 7's layout (docs/format.md 21.2): the hands and the mortos as sets; the decoder gives each set
 * ascending and the stock as the rest, ascending. A card drawn from a pile
 * whose order is not known yet, c[pos..len), is coded by rpl__enc_pick
 * (c[pos], against the copies of each face in c[pos..len)); rpl__dec_pick
 * reads it, swaps it into c[pos] and returns it, or -1.
 */
int rpl__code_layout_sets(struct rc_enc *e, struct rc_dec *d, int nplayers, rpl_layout *lay);
void rpl__enc_layout_sets(struct rc_enc *e, int nplayers, const rpl_layout *lay);
int rpl__dec_layout_sets(struct rc_dec *d, int nplayers, rpl_layout *lay);
void rpl__enc_pick(struct rc_enc *e, const rpl_card *c, int pos, int len);
/*
 * The first k of the len cards at c in their order, each against what is
 * left of them (as 7.2 codes the stock): an encoder (d NULL) reads them; a
 * decoder (e NULL), given the len cards in any order, writes them, then the
 * rest ascending. -1: a value no encoder writes.
 */
int rpl__code_pile(struct rc_enc *e, struct rc_dec *d, rpl_card *c, int k, int len);
int rpl__dec_pick(struct rc_dec *d, rpl_card *c, int pos, int len);

/* Code one decision; the tracker must not have applied it yet. */
int rpl__enc_action(struct rc_enc *e, struct model *m, const struct track *t, const rpl_action *a);
int rpl__dec_action(struct rc_dec *d, struct model *m, const struct track *t, rpl_action *a);

/*
 * Version 7's match stream (docs/format.md 21.3, 21.4). Its bookkeeping
 * beside struct track: what a score computed from the cards needs
 * (codec_match.c), noted once each decision is applied.
 */
struct mmeld {
	uint64_t face, twice; /* bit c: face c laid, laid twice */
	int32_t val;          /* the cards' values added up */
	int32_t len;          /* their number */
};
struct mnotes {
	struct mmeld meld[2][RPL_MAX_MELDS]; /* each side's melds, as the bookkeeping numbers them */
	int32_t val[RPL_NFACES];             /* each face's value (rpl__mnotes_values) */
	int8_t morto_side[2];                /* the side that took each morto, -1 */
	/* the turns opened when each seat picked up a morto right after its own discard, -1: it has not begun
	   a turn since while fewer than n turns were opened after (turns go round the table) */
	int32_t pick_turn[RPL_MAX_SEATS];
};
/* The cards' values, from the header's parameters: once a match, before its first deal. */
struct rpl_rules;
void rpl__mnotes_values(struct mnotes *n, const struct rpl_rules *r);
void rpl__mnotes_deal(struct mnotes *n);
/* Note a decision once the bookkeeping t applied it; seat its actor. */
static inline void rpl__mnotes_applied(struct mnotes *n, const struct track *t, const rpl_action *a, int seat)
{
	struct mmeld *m;

	switch (a->kind) {
	case RPL_ACT_MELD:
		m = &n->meld[seat & 1][t->nmelds[seat & 1] - 1];
		m->face = m->twice = 0;
		m->val = m->len = 0;
		break;
	case RPL_ACT_ADD: m = &n->meld[a->side][a->meld]; break;
	case RPL_ACT_MORTO:
		n->morto_side[a->morto] = (int8_t)(seat & 1);
		/*
		 * picked up right after the seat's discard (the turn closed, one
		 * opened before; a second morto after it is the same seat's, the
		 * same turn): it plays it only from its next turn
		 */
		if (!t->open && t->turn > 0)
			n->pick_turn[seat] = t->turn;
		return;
	default: return;
	}
	for (int i = 0; i < a->ncards; i++) {
		uint64_t bit = 1ull << a->cards[i];
		m->twice |= m->face & bit;
		m->face |= bit;
		m->val += n->val[a->cards[i]];
	}
	m->len += a->ncards;
}
/* Each side's score at the deal's end, from the cards and the parameters alone. */
void rpl__mnotes_score(const struct mnotes *n, const struct track *t, const struct rpl_rules *r, int64_t score[2]);
/* Where the deal may end after the last decision: MEND_FIXED (a fixed 1/4096) or an adaptive context. */
enum { MEND_OUT = 0, MEND_DRY = 1, MEND_MORTO = 2, MEND_FIXED = 3 };
static inline int rpl__mnotes_end_ctx(const struct mnotes *n, const struct track *t)
{
	int seat = t->last;

	if (seat < 0)
		return MEND_FIXED;
	if (t->hand_n[seat] == 0) {
		int left = (t->morto_used[0] == 0) + (t->morto_used[1] == 0);
		int has = n->morto_side[0] == (seat & 1) || n->morto_side[1] == (seat & 1);
		return has || !left ? MEND_OUT : MEND_MORTO;
	}
	if (!t->open && t->src_pos >= t->src_len && t->morto_used[0] && t->morto_used[1])
		return MEND_DRY;
	return MEND_FIXED;
}

struct mmodel {
	uint16_t regular;     /* a deal ends where the bookkeeping says it can (format.md 21.3) */
	uint16_t inner;       /* claims come between a deal's decisions */
	uint16_t became[2];   /* morto 0, 1 became the stock */
	uint16_t end[3];      /* the deal is over, by rpl__mnotes_end_ctx */
	uint16_t claim_after; /* a claim follows, between deals */
	uint16_t this_deal, is_match;
	uint16_t equal[3]; /* the claim is its base: the deal's score, the match's sum, 0 */
	uint16_t more_deals;
};
void rpl__mmodel_init(struct mmodel *mm);

/* A coder: an encoder or a decoder, the other NULL. Each symbol returns the bit coded or read. */
struct mcx {
	struct rc_enc *e;
	struct rc_dec *d;
};
int rpl__mx_over(struct mcx *c, struct mmodel *mm, int ctx, int over);
/* over: between deals (adaptive), else in a deal (a fixed 1/4096). */
int rpl__mx_claim_next(struct mcx *c, struct mmodel *mm, int over, int claim);
int rpl__mx_more_deals(struct mcx *c, struct mmodel *mm, int more);
/*
 * A claim: cur the deal being played (0 before the first), pred its
 * computed scores once it is over (else NULL), sum the deal claims so far.
 * The decoder's -1: a value out of range or not in its one encoding.
 */
int rpl__mx_claim(struct mcx *c, struct mmodel *mm, int cur, const int64_t pred[2], const int64_t sum[2], int *deal,
                  int32_t score[2]);

/* Version 7: a draw's or a reject's card (else nothing), coded where the bookkeeping t will take it. */
void rpl__enc_pick_draw(struct rc_enc *e, struct track *t, const rpl_action *a);

/* What a recorder keeps of a match, to write its compact form: a deal ('D'), a decision ('a'), a claim ('C'). */
struct mitem {
	uint8_t type;
	uint16_t deal;
	rpl_action a;
	int32_t score[2];
};
/*
 * Version 7's compact form of a match dealt freely: its deals (the i-th
 * 'D' dealt layouts[i]), decisions and claims in one stream, into pay
 * (format.md 21.3). 0, or RPL_EINVAL when a decision cannot be coded,
 * RPL_ENOMEM.
 */
int rpl__enc_match(struct buf *pay, const struct mitem *items, size_t nitems, const rpl_layout *layouts,
                   const rpl_match_info *info);

/*
 * How far a deal's play drew each pile, from the bookkeeping at its end:
 * drawn[0] the stock's cards, drawn[1 + m] morto m's (0 unless it became
 * the stock).
 */
void rpl__track_drawn(const struct track *t, int drawn[3]);
/*
 * Version 7's M: the cards a deal drew, in their order, before its
 * decisions (format.md 21.2): the encoder's lay is the deal as dealt and
 * drawn its counts; the decoder's lay is rpl__dec_layout_sets's, which it
 * completes, and drawn what it read. -1: a value out of range.
 */
int rpl__mx_drawn(struct mcx *c, struct mmodel *mm, rpl_layout *lay, int nplayers, int drawn[3]);
int rpl__mx_bit(struct mcx *c, uint16_t *p, int bit);

/*
 * Where the bookkeeping's next draw takes its card from: the pile being
 * drawn from, at *pos of *len; or, when it is done, the morto that will
 * become the stock (*became its index, else -1), at 0 of 11. NULL when
 * nothing is left.
 */
rpl_card *rpl__track_draw_place(struct track *t, int *pos, int *len, int *became);

#endif
