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

/*
 * A match in progress: an opaque handle made by rpl_game_new or
 * rpl_game_clone, owned by the caller, freed with rpl_game_free. The
 * functions that take it const only read it: any number of threads may
 * call them on one game at once while none changes it (rpl_game_check and
 * rpl_game_legal work on copies of their own). rpl_game_deal and
 * rpl_game_apply change it: one thread at a time.
 */
typedef struct rpl_game rpl_game;

#define RPL_HAND_SIZE 11  /* cards dealt to each hand */
#define RPL_MORTO_SIZE 11 /* cards in each of the two mortos */
#define RPL_MAX_SEATS 4   /* seats at the largest table */
#define RPL_MAX_MELDS 36  /* per side: 108 cards / 3 */

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
#define RPL_STOCK_SIZE(n) (RPL_DECK_SIZE - (n)*RPL_HAND_SIZE - 2 * RPL_MORTO_SIZE)

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
	int32_t melded;                       /* + values of the cards in the side's melds */
	int32_t bonus;                        /* + canastra bonuses */
	int32_t canastras[RPL_CANASTRA_NCAT]; /* number of canastras per category */
	int32_t going_out;                    /* + bonus for going out (the side that went out) */
	int32_t hand;                         /* - values left in the side's hands (<= 0) */
	int32_t morto;                        /* - penalty for not taking a morto (<= 0) */
	int32_t total;                        /* the sum of the above */
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
 * A new match for nplayers (2 or 4, as the rules allow) under a copy of
 * rules r (r may be freed after the call); first_dealer (0..nplayers-1)
 * deals the first deal. Returns 0 with *out owned by the caller
 * (rpl_game_free); RPL_EINVAL for a NULL argument, a table size the rules
 * do not allow or a first dealer out of range; RPL_ENOMEM. On failure *out
 * is NULL.
 */
RPL_API int rpl_game_new(rpl_game **out, const rpl_rules *r, int nplayers, int first_dealer);
/* Free a game; NULL is accepted. */
RPL_API void rpl_game_free(rpl_game *g);
/* Copy the whole state of src into dst (both made by rpl_game_new); nothing when either is NULL. */
RPL_API void rpl_game_copy(rpl_game *dst, const rpl_game *src);
/* A new game with the state of src, owned by the caller; NULL when src is NULL or memory is short. */
RPL_API rpl_game *rpl_game_clone(const rpl_game *src);

/* The rules the game plays by: lent by the game, valid while it lives; NULL for NULL. */
RPL_API const rpl_rules *rpl_game_rules(const rpl_game *g);

/*
 * Start the next deal from layout (copied). The dealer is the first dealer
 * for the first deal, then the next seat clockwise each deal. Returns 0;
 * RPL_EILLEGAL, the game unchanged but for its refusal (rpl_game_rule,
 * rpl_game_errmsg), with RPL_RULE_LAYOUT when the layout is not the
 * 108-card deck, RPL_RULE_DEAL_NOT_OVER or RPL_RULE_MATCH_OVER when no
 * deal may start; RPL_EINVAL for a NULL argument.
 */
RPL_API int rpl_game_deal(rpl_game *g, const rpl_layout *layout);

/*
 * Apply one decision of the seat to move. 0 when applied (the last refusal
 * is cleared); RPL_EILLEGAL when refused: the position is unchanged and
 * rpl_game_rule, rpl_game_errmsg say why; RPL_EINVAL for a NULL argument.
 * Never allocates.
 */
RPL_API int rpl_game_apply(rpl_game *g, const rpl_action *a);
/*
 * What rpl_game_apply would return, on a copy: g is never changed (so no
 * message is kept: apply the decision to a copy to read it). *rule (rule
 * may be NULL) gets the rule broken, RPL_RULE_NONE when accepted.
 */
RPL_API int rpl_game_check(const rpl_game *g, const rpl_action *a, int *rule);

/* The rule code (enum rpl_rule) of the last refusal; RPL_RULE_NONE after a success or for NULL. */
RPL_API int rpl_game_rule(const rpl_game *g);
/*
 * The last refusal in one line, the profile first ("STBL: ..."); "" after
 * a success or for NULL. Lent by the game until its next deal or decision.
 */
RPL_API const char *rpl_game_errmsg(const rpl_game *g);

/*
 * The legal decisions of the seat to move, now: up to cap of them are
 * written to out (out may be NULL when cap is 0); returns how many there are
 * in all. Each decision is listed once, unless the engine accepts more than
 * half a million or cannot have the memory to remember them; moves that
 * differ only in where a floating wild ends up are one. Every listed
 * decision is one rpl_game_apply accepts and after which the turn can still
 * end legally (rpl_game_turn_can_end): a seat that plays
 * only listed decisions is never stranded. A decision the engine accepts
 * but that leaves a turn no sequence of decisions can end (docs/rules.md
 * 11.10) is not listed. Only reads g (0 for NULL); the moves are the
 * caller's. It allocates the room of its search, and lists a decision the
 * engine accepts without asking when that room cannot be had.
 */
RPL_API size_t rpl_game_legal(const rpl_game *g, rpl_action *out, size_t cap);

/*
 * Whether the seat to move can still end its turn legally: 1 when some
 * sequence of its own decisions from here ends the turn (a discard the
 * engine accepts, going out, a morto picked up after the last discard), 0
 * when none does: a dead end, where every discard is refused and no lay
 * leads to a position where one is not (docs/rules.md 11.10). Three rules
 * make dead ends: a pile duty (KZV, STBL), a vulnerable side's opening
 * minimum and ABERTO's one-card pile, all checked when the turn ends. The
 * answer is the engine's, by an exhaustive search of the rest of the turn
 * over the seat's lays (the seat's own cards and the morto as they are in
 * g); a search that passes 20,000 positions or 200,000 decisions listed
 * (only a hostile position does)
 * answers 1. RPL_ESTATE when no turn is in progress (no deal, the deal or
 * match over), RPL_EINVAL for NULL, RPL_ENOMEM. Only reads g.
 */
RPL_API int rpl_game_turn_can_end(const rpl_game *g);

/*
 * Queries. They only read g, and what each returns for a NULL g or a seat,
 * side or index out of range is said on its line.
 */
RPL_API int rpl_game_players(const rpl_game *g);     /* 2 or 4; 0 for NULL */
RPL_API int rpl_game_phase(const rpl_game *g);       /* enum rpl_phase; RPL_PHASE_NO_DEAL for NULL */
RPL_API int rpl_game_seat(const rpl_game *g);        /* seat to move; -1 for NULL */
RPL_API int rpl_game_dealer(const rpl_game *g);      /* dealer of this deal; -1 for NULL */
RPL_API int rpl_game_deal_number(const rpl_game *g); /* 1-based; 0 before the first and for NULL */
RPL_API int rpl_game_turn_number(const rpl_game *g); /* turns begun in this deal; 0 for NULL */
/*
 * The hand of seat, sorted by card id, into out (cap cards at most; out may
 * be NULL); returns its size, or -1 for NULL g or a seat out of range.
 */
RPL_API int rpl_game_hand(const rpl_game *g, int seat, rpl_card *out, size_t cap);
/* Copies of face c in seat's hand; 0 for NULL g, a seat out of range or a non-card. */
RPL_API int rpl_game_hand_count(const rpl_game *g, int seat, rpl_card c);
/*
 * The cards of seat's hand that every player knows are there, sorted by
 * card id, into out (cap cards at most; out may be NULL); returns how many,
 * or -1 for NULL g or a seat out of range. They are the cards the seat took
 * with the pile and has not laid or discarded since: a card of a face that
 * leaves the hand counts as one of them while the seat has any (whichever
 * copy it was, one fewer is sure to remain). A subset of rpl_game_hand.
 */
RPL_API int rpl_game_known(const rpl_game *g, int seat, rpl_card *out, size_t cap);
/* The discard pile, bottom first, into out (cap cards at most; out may be NULL); returns its size, -1 for NULL. */
RPL_API int rpl_game_pile(const rpl_game *g, rpl_card *out, size_t cap);
/* Cards left to draw (the stock, and a morto turned into stock); 0 for NULL. */
RPL_API int rpl_game_stock_count(const rpl_game *g);
/* Morto i (0, 1): -1 untouched, 0/1 taken by that side, 2 turned into stock; -1 for NULL or i out of range. */
RPL_API int rpl_game_morto_state(const rpl_game *g, int i);
/* The number of melds side (0, 1) has on the table; 0 for NULL or a side out of range. */
RPL_API int rpl_game_meld_count(const rpl_game *g, int side);
/*
 * Meld index (in the order laid) of side into *out. Returns 0; RPL_EINVAL
 * for NULL g or out or a side out of range, RPL_ENOTFOUND for an index
 * the side has no meld for.
 */
RPL_API int rpl_game_meld(const rpl_game *g, int side, int index, rpl_meld_info *out);
/* 1 when side is vulnerable in this deal (ABERTO), else 0 (also for NULL or a side out of range). */
RPL_API int rpl_game_vulnerable(const rpl_game *g, int side);

/*
 * The deal's score for side so far into *out (final once the deal is
 * over). Returns 0; RPL_EINVAL for NULL g or out or a side out of range.
 */
RPL_API int rpl_game_deal_score(const rpl_game *g, int side, rpl_score *out);
/* The match total of side, the deals ended so far; 0 for NULL or a side out of range. */
RPL_API int32_t rpl_game_total(const rpl_game *g, int side);
/* The winning side once the match is over, else -1 (also for NULL). */
RPL_API int rpl_game_winner(const rpl_game *g);
/* What happened in the current (or last) deal into *out; nothing when either is NULL. */
RPL_API void rpl_game_deal_stats(const rpl_game *g, rpl_deal_stats *out);

/*
 * The canonical short text of an action ("draw", "meld 5h 6h 7h", ...) into
 * buf, NUL-terminated and truncated to size; returns the length the whole
 * text needs (less than 128), like snprintf. A NULL a writes "".
 */
RPL_API size_t rpl_action_format(const rpl_action *a, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
