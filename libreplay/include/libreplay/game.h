/*
 * The game: a match of Buraco as a state machine.
 *
 * A match is made with rpl_game_new(); each deal starts from an explicit
 * card layout (rpl_game_deal) and then takes one decision at a time
 * (rpl_game_apply). A decision that breaks a rule is refused and leaves the
 * state unchanged: the call returns RPL_EILLEGAL, rpl_game_rule() names the
 * rule (enum rpl_rule) and rpl_game_errmsg() says it in one line, e.g.
 * "STBL: the pile's top card 7h must be laid down this turn".
 *
 * Seats 0..n-1 sit clockwise; with 4 players seats 0+2 and 1+3 are partners.
 * The side of a seat is seat % 2 in both table sizes.
 *
 * The state is a fixed-size block: rpl_game_copy() is one memcpy and
 * rpl_game_apply() never allocates.
 */
#ifndef LIBREPLAY_GAME_H
#define LIBREPLAY_GAME_H

#include "libreplay/common.h"
#include "libreplay/card.h"
#include "libreplay/rules.h"
#include "libreplay/meld.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rpl_game rpl_game;

#define RPL_HAND_SIZE 11
#define RPL_MORTO_SIZE 11
#define RPL_MAX_SEATS 4
#define RPL_MAX_MELDS 36 /* per side: 108 cards / 3 */

/*
 * The card layout of a deal, as dealt: each seat's hand (11 cards, in any
 * order), the two mortos (11 cards each, in order: if a morto becomes the
 * stock, its card 0 is drawn first) and the stock (card 0 is the top, drawn
 * first): 42 cards with 4 players, 64 with 2.
 */
typedef struct rpl_layout {
	rpl_card hand[RPL_MAX_SEATS][RPL_HAND_SIZE];
	rpl_card morto[2][RPL_MORTO_SIZE];
	rpl_card stock[RPL_DECK_SIZE - 2 * RPL_HAND_SIZE - 2 * RPL_MORTO_SIZE];
} rpl_layout;

/* Number of stock cards in a layout for n players. */
#define RPL_STOCK_SIZE(n) (RPL_DECK_SIZE - (n) * RPL_HAND_SIZE - 2 * RPL_MORTO_SIZE)

/* The kinds of decision. */
enum rpl_action_kind {
	RPL_ACT_DRAW = 1,    /* draw the top card of the stock */
	RPL_ACT_TAKE = 2,    /* take the whole discard pile */
	RPL_ACT_REJECT = 3,  /* ABERTO first turn: reject the drawn card onto the pile, draw the next */
	RPL_ACT_MELD = 4,    /* lay a new meld from the hand */
	RPL_ACT_ADD = 5,     /* add cards from the hand to a meld on the table */
	RPL_ACT_DISCARD = 6, /* discard one card; ends the turn */
	RPL_ACT_MORTO = 7    /* pick up a morto (when the hand became empty) */
};

/* One decision. Plain data; zero it, then set the fields the kind uses. */
typedef struct rpl_action {
	uint8_t kind;   /* enum rpl_action_kind */
	uint8_t side;   /* ADD: the side whose meld receives the cards */
	uint8_t meld;   /* ADD: that meld's index within its side, in the order laid */
	uint8_t end;    /* MELD, ADD: where an end wild goes, enum rpl_wild_end */
	uint8_t morto;  /* MORTO: which morto, 0 or 1 */
	uint8_t ncards; /* MELD, ADD: number of cards (1..14); DISCARD: 1 */
	rpl_card cards[14];
} rpl_action;

/* What the game waits for. */
enum rpl_phase {
	RPL_PHASE_NO_DEAL = 0,   /* before the first deal */
	RPL_PHASE_DRAW = 1,      /* the seat to move must draw or take the pile */
	RPL_PHASE_PLAY = 2,      /* meld, add, discard (or reject, ABERTO first turn) */
	RPL_PHASE_MORTO = 3,     /* the seat to move must pick up a morto */
	RPL_PHASE_DEAL_OVER = 4, /* the deal ended; the next one may start */
	RPL_PHASE_MATCH_OVER = 5 /* the match ended */
};

/* How a deal ended. */
enum rpl_deal_end { RPL_DEAL_ONGOING = 0, RPL_DEAL_OUT = 1, RPL_DEAL_STOCK = 2 };

/* A side's score for one deal, with its breakdown. */
typedef struct rpl_score {
	int32_t melded;         /* + values of the cards in the side's melds */
	int32_t bonus;          /* + canastra bonuses */
	int32_t canastras[RPL_CANASTRA_NCAT]; /* number of canastras per category */
	int32_t going_out;      /* + bonus for going out (the side that went out) */
	int32_t hand;           /* - values left in the side's hands (<= 0) */
	int32_t morto;          /* - penalty for not taking a morto (<= 0) */
	int32_t total;          /* the sum of the above */
} rpl_score;

/* What happened in the current (or last) deal; for statistics. */
typedef struct rpl_deal_stats {
	int32_t turns;           /* turns begun */
	int32_t actions;         /* decisions applied, morto pick-ups included */
	int32_t pile_taken;      /* pile takes */
	int32_t pile_frozen;     /* discards that froze the pile (a wild on top) */
	int32_t rejects;         /* ABERTO first-turn rejects */
	int32_t morto_direct;    /* mortos picked up by melding the hand empty */
	int32_t morto_indirect;  /* mortos picked up by discarding the hand empty */
	int32_t morto_to_stock;  /* mortos turned into stock */
	int32_t vulnerable_open; /* openings by a vulnerable side */
	int32_t end;             /* enum rpl_deal_end */
	int32_t out_seat;        /* seat that went out, or -1 */
} rpl_deal_stats;

/*
 * A new match for n players (2 or 4, as the rules allow) under a copy of
 * rules r; first_dealer (0..n-1) deals the first deal. *out is owned by the
 * caller (rpl_game_free). RPL_EINVAL, RPL_ENOMEM.
 */
RPL_API int rpl_game_new(rpl_game **out, const rpl_rules *r, int nplayers, int first_dealer);
RPL_API void rpl_game_free(rpl_game *g);
/* Copy the whole state of src into dst (both made by rpl_game_new). */
RPL_API void rpl_game_copy(rpl_game *dst, const rpl_game *src);
/* A new game with the state of src, or NULL when out of memory. */
RPL_API rpl_game *rpl_game_clone(const rpl_game *src);

/* The rules the game plays by (owned by the game). */
RPL_API const rpl_rules *rpl_game_rules(const rpl_game *g);

/*
 * Start the next deal from layout. The dealer is the first dealer for the
 * first deal, then the next seat clockwise each deal. RPL_EILLEGAL with
 * RPL_RULE_LAYOUT when the layout is not the 108-card deck,
 * RPL_RULE_DEAL_NOT_OVER or RPL_RULE_MATCH_OVER when no deal may start.
 */
RPL_API int rpl_game_deal(rpl_game *g, const rpl_layout *layout);

/*
 * Apply one decision of the seat to move. 0 when applied; RPL_EILLEGAL when
 * refused (state unchanged; see rpl_game_rule, rpl_game_errmsg); RPL_EINVAL
 * for a NULL argument.
 */
RPL_API int rpl_game_apply(rpl_game *g, const rpl_action *a);
/* Like rpl_game_apply but only checks: the state is never changed. */
RPL_API int rpl_game_check(const rpl_game *g, const rpl_action *a, int *rule);

/* The rule code of the last refusal, and its one-line message. */
RPL_API int rpl_game_rule(const rpl_game *g);
RPL_API const char *rpl_game_errmsg(const rpl_game *g);

/*
 * The legal decisions of the seat to move, now: up to cap of them are
 * written to out (out may be NULL when cap is 0); returns how many there are
 * in all. Moves that differ only in where a floating wild ends up are listed
 * once. Note that three rules are checked when the turn ends (a vulnerable
 * side's opening minimum, KZV/STBL pile use, ABERTO's one-card pile), so a
 * listed move can leave a turn that cannot end legally: see docs/rules.md.
 */
RPL_API size_t rpl_game_legal(const rpl_game *g, rpl_action *out, size_t cap);

/* Queries. Seats and sides out of range give 0 or -1. */
RPL_API int rpl_game_players(const rpl_game *g);
RPL_API int rpl_game_phase(const rpl_game *g);         /* enum rpl_phase */
RPL_API int rpl_game_seat(const rpl_game *g);          /* seat to move */
RPL_API int rpl_game_dealer(const rpl_game *g);        /* dealer of this deal */
RPL_API int rpl_game_deal_number(const rpl_game *g);   /* 1-based; 0 before the first */
RPL_API int rpl_game_turn_number(const rpl_game *g);   /* turns begun in this deal */
/* The hand of seat, sorted by card id, into out (cap cards at most); returns its size. */
RPL_API int rpl_game_hand(const rpl_game *g, int seat, rpl_card *out, size_t cap);
/* Copies of face c in seat's hand. */
RPL_API int rpl_game_hand_count(const rpl_game *g, int seat, rpl_card c);
/* The discard pile, bottom first, into out; returns its size. */
RPL_API int rpl_game_pile(const rpl_game *g, rpl_card *out, size_t cap);
RPL_API int rpl_game_stock_count(const rpl_game *g);
/* Morto i (0, 1): -1 untouched, 0/1 taken by that side, 2 turned into stock. */
RPL_API int rpl_game_morto_state(const rpl_game *g, int i);
RPL_API int rpl_game_meld_count(const rpl_game *g, int side);
RPL_API int rpl_game_meld(const rpl_game *g, int side, int index, rpl_meld_info *out);
/* 1 when side is vulnerable in this deal (ABERTO), else 0. */
RPL_API int rpl_game_vulnerable(const rpl_game *g, int side);

/* The deal's score for side so far (final once the deal is over). */
RPL_API int rpl_game_deal_score(const rpl_game *g, int side, rpl_score *out);
/* The match total of side, the deals included so far. */
RPL_API int32_t rpl_game_total(const rpl_game *g, int side);
/* The winning side once the match is over, else -1. */
RPL_API int rpl_game_winner(const rpl_game *g);
/* What happened in the current (or last) deal. */
RPL_API void rpl_game_deal_stats(const rpl_game *g, rpl_deal_stats *out);

/* The canonical short text of an action ("draw", "meld 5h 6h 7h", ...). */
RPL_API size_t rpl_action_format(const rpl_action *a, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
