/*
 * Private: the game state, a fixed-size block copied with memcpy, and the
 * engine's room, cut along its jobs (docs/conventions.md, section 6); a file
 * calls only those listed before it:
 *
 *   game_end.c    the end of a turn and of a deal: the turn passed on, the draw, the end-of-turn duties, going out, scores
 *   game_lay.c    melds, additions and discards
 *   game_pile.c   the pile: the take and the check that its card can be laid
 *   game.c        the match: deals, each decision dispatched, the queries
 *   legal.c       the move generator: every decision the engine accepts now
 *   turn.c        can the turn still end (the search of a turn's rest), and the legal decisions that keep it so
 */
#ifndef RPL_GAME_IMPL_H
#define RPL_GAME_IMPL_H

#include "libreplay/game.h"
#include "rules/meld_impl.h"

#define NO_FACE 0xFF

enum pile_duty { DUTY_NONE = 0, DUTY_ANY = 1, DUTY_TOP = 2 };
enum morto_after { AFTER_DIRECT = 1, AFTER_INDIRECT = 2 };

struct rpl_game {
	struct rpl_rules rules;
	uint8_t n; /* players */
	uint8_t first_dealer;
	uint8_t dealer;
	uint8_t seat;  /* seat to move */
	uint8_t phase; /* enum rpl_phase */
	uint16_t deal_no;

	cardset hand[RPL_MAX_SEATS];
	uint8_t hand_n[RPL_MAX_SEATS];
	/*
	 * Cards known to all to be in each hand: taken from the pile and not
	 * laid or discarded since. A lower bound of hand, kept per face: a card
	 * of face c that leaves the hand lowers known[c] (whichever copy it was,
	 * one fewer is sure to remain). rpl_game_known; the information sets.
	 */
	cardset known[RPL_MAX_SEATS];

	rpl_card src[RPL_DECK_SIZE]; /* the draw source: stock, then mortos turned stock */
	uint8_t src_pos, src_len;
	rpl_card morto[2][RPL_MORTO_SIZE];
	int8_t morto_state[2]; /* -1 untouched, 0/1 taken by side, 2 stock */

	rpl_card pile[RPL_DECK_SIZE];
	uint8_t pile_n;

	struct meld melds[2][RPL_MAX_MELDS];
	uint8_t nmelds[2];

	/* the current turn */
	uint8_t can_reject; /* ABERTO first turn: reject allowed now */
	uint8_t last_drawn;
	uint8_t duty; /* enum pile_duty */
	uint8_t duty_done;
	uint8_t duty_top;                /* DUTY_TOP: the face that must be laid */
	uint8_t return_face;             /* ABERTO: face of a one-card pile taken, or NO_FACE */
	cardset taken;                   /* DUTY_ANY: faces taken from the pile this turn */
	uint8_t morto_after;             /* enum morto_after while phase is MORTO */
	uint8_t final_turn;              /* no stock and no morto left: the deal ends with this turn */
	uint8_t opened_before;           /* the side had melds when the turn began */
	int32_t laid_value;              /* card points laid this turn */
	uint8_t unplayed[RPL_MAX_SEATS]; /* picked a morto indirectly, no turn since */
	uint8_t vulnerable[2];
	int32_t turn_no;

	/* results */
	uint8_t deal_end; /* enum rpl_deal_end */
	int8_t out_seat;
	int8_t winner;
	int32_t total[2];
	rpl_score score[2];
	rpl_deal_stats stats;

	int rule;
	char msg[RPL_ERRMSG_SIZE];
};

#define SIDE(seat) ((seat)&1)

/* The side that took a morto: 1 if side s has one. */
static inline int rpl__game_has_morto(const struct rpl_game *g, int s)
{
	return g->morto_state[0] == s || g->morto_state[1] == s;
}

/* The next morto a side may take, or -1. */
static inline int rpl__game_next_morto(const struct rpl_game *g)
{
	for (int i = 0; i < 2; i++)
		if (g->morto_state[i] == -1)
			return i;
	return -1;
}

/* A card of face c left the hand of the seat to move: one fewer of that face is known to be there. */
static inline void rpl__game_known_drop(struct rpl_game *g, rpl_card c)
{
	if (g->known[g->seat][c])
		g->known[g->seat][c]--;
}

/* ---- game_end.c ---- */

/* Refuse a decision: rule, and the message after the profile's name ("STBL: ..."). RPL_EILLEGAL. */
int rpl__game_refuse(struct rpl_game *g, int rule, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A new turn for the seat to move: the turn's state cleared, the phase DRAW. */
void rpl__game_start_turn(struct rpl_game *g);
/* The turn passes clockwise, or the deal ends if no stock and no morto are left. */
void rpl__game_pass_turn(struct rpl_game *g);
/* Draw the next card of the draw source; when it runs out, a morto becomes the stock. */
rpl_card rpl__game_draw(struct rpl_game *g);
/* The score of side s as the table stands (final once the deal is over). */
void rpl__game_score(const struct rpl_game *g, int s, rpl_score *sc);
/* The deal ends (enum rpl_deal_end how; out_seat or -1): the scores, the totals, the match perhaps. */
void rpl__game_end_deal(struct rpl_game *g, int how, int out_seat);
/*
 * The duties checked when the turn ends (the pile's use, a vulnerable
 * side's opening minimum), with the state after the decision that ends it:
 * 0 or a refusal.
 */
int rpl__game_turn_end_check(struct rpl_game *g, int duty_done, int32_t laid_value, int melds_after);
/* May the side go out with melds ms[0..nm) (by_meld: the last card is melded)? 0 or a refusal. */
int rpl__game_out_check(struct rpl_game *g, const struct meld *ms, int nm, int by_meld);
/* A lay of laid that makes meld m (index idx) and leaves one card: can that card end the turn? 0 or a refusal. */
int rpl__game_keep_check(struct rpl_game *g, const cardset laid, const struct meld m, int idx);

/* ---- game_lay.c ---- */

/*
 * Whether a lay of n cards from a hand of hand_n keeps two cards or more.
 * Only a lay that does not is checked for the end of the hand (a morto,
 * going out, a card kept to discard): with two left, the decision's shape
 * and the meld rules are all rpl__game_lay checks, which the pile-take check counts
 * on (post_accepts). A new refusal of rpl__game_lay goes inside its end-of-hand
 * block, or post_accepts must learn it.
 */
static inline int rpl__game_lay_keeps_two(int hand_n, int n)
{
	return n + 1 < hand_n;
}

/* A meld or an addition (a->kind MELD or ADD) in phase PLAY: 0 when laid, or a refusal. */
int rpl__game_lay(struct rpl_game *g, const rpl_action *a);
/* A discard in phase PLAY: 0 when made (the turn passed, or a morto due, or the deal over), or a refusal. */
int rpl__game_discard(struct rpl_game *g, const rpl_action *a);

/* ---- game_pile.c ---- */

/* Take the pile in phase DRAW: 0 when taken, or a refusal (empty, frozen, unusable). */
int rpl__game_take(struct rpl_game *g);

/* ---- game.c and game_pile.c, for the layers above ---- */

/*
 * The engine's internals that the layers above it use (the generator, the
 * bots); nothing here calls them back (docs/conventions.md, section 6).
 *
 * rpl__apply: rpl_game_apply without the NULL checks.
 */
int rpl__apply(struct rpl_game *g, const rpl_action *a);
/*
 * Whether seat's side may lay card x this turn with the cards of h: by the
 * meld rules alone (post NULL), or accepted by the engine in the state post
 * (the turn after taking the pile). The engine's own pile-take check.
 */
int rpl__can_lay(const struct rpl_game *g, int side, const cardset h, rpl_card x, const struct rpl_game *post);

/* ---- legal.c ---- */

/*
 * The keep hook of the move generator: after is the state a's decision
 * leads to (accepted by the engine); 1 keeps a, 0 leaves it out.
 */
typedef int (*rpl__legal_keep)(void *ctx, const struct rpl_game *after, const rpl_action *a);
/*
 * Every decision the engine accepts now from g (keep NULL), or those of
 * them keep keeps; up to cap into out (out may be NULL when cap is 0);
 * returns how many in all. rpl_game_legal is this with turn.c's hook.
 */
size_t rpl__legal_gen(const struct rpl_game *g, rpl_action *out, size_t cap, rpl__legal_keep keep, void *keep_ctx);

/* ---- turn.c ---- */

/*
 * rpl_game_turn_can_end without the NULL check: 1, 0, RPL_ESTATE or
 * RPL_ENOMEM. *gave_up (gave_up may be NULL) is 1 when the search passed
 * its limit of positions and the answer 1 is not proven.
 */
int rpl__turn_can_end(const struct rpl_game *g, int *gave_up);
/*
 * rpl__turn_can_end within a budget of decisions listed, shared by several
 * questions: *budget is lowered by what this one listed; at 0 or below the
 * answer is 1 with *gave_up set, without a search.
 */
int rpl__turn_can_end_within(const struct rpl_game *g, int *gave_up, long *budget);

#endif
