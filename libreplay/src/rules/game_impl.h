/* Private: the game state. A fixed-size block, copied with memcpy. */
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

#endif
