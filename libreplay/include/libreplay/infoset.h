/*
 * What a seat knows: its information set at a decision, and deals of the
 * cards it cannot see drawn at random consistently with it.
 *
 * A seat sees its own hand, every meld, the pile, the size of every hand,
 * the stock and the mortos (how many cards, not which), and the cards it
 * saw another seat take with the pile and not lay or discard since
 * (rpl_game_known). Every other card is unseen: the other hands but for
 * their known cards, the stock and the mortos nobody has taken. A player
 * (a search bot) that must not look at those cards plays on samples: games
 * in which they are dealt anew at random (determinizations).
 *
 * Both calls only read the game and are pure functions of it and, for the
 * sampler, of the random stream: the same state and the same stream give
 * the same sample on every machine.
 */
#ifndef LIBREPLAY_INFOSET_H
#define LIBREPLAY_INFOSET_H

#include "libreplay/common.h"
#include "libreplay/card.h"
#include "libreplay/game.h"
#include "libreplay/meld.h"
#include "libreplay/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A seat's information set: plain data, the caller's. Cards are counted by
 * face (index: the card id), so that a set and its copies compare with
 * memcmp. The unseen cards fill exactly the hidden cards of the other
 * hands, the stock and the untouched mortos: unseen_n is the sum of
 * hidden[], stock_n and 11 for each morto whose state is -1.
 */
typedef struct rpl_infoset {
	int seat;                                 /* whose view: 0..players-1 */
	int players;                              /* 2 or 4 */
	int to_move;                              /* the seat to move (rpl_game_seat) */
	int phase;                                /* enum rpl_phase */
	int deal;                                 /* the deal's number, 1-based */
	uint8_t hand[RPL_NFACES];                 /* the seat's own hand: copies of each face */
	int hand_n[RPL_MAX_SEATS];                /* the size of every hand (0 past players) */
	uint8_t known[RPL_MAX_SEATS][RPL_NFACES]; /* each seat's known cards (rpl_game_known), its own too */
	int hidden[RPL_MAX_SEATS];                /* cards of each hand the seat cannot see (0 for its own) */
	int nmelds[2];                            /* melds of each side */
	rpl_meld_info melds[2][RPL_MAX_MELDS];    /* each side's melds, in the order laid */
	rpl_card pile[RPL_DECK_SIZE];             /* the discard pile, bottom first */
	int pile_n;                               /* its size */
	int stock_n;                              /* cards left to draw (rpl_game_stock_count) */
	int morto_state[2];                       /* as rpl_game_morto_state: -1 untouched, 0/1 taken by side, 2 stock */
	uint8_t unseen[RPL_NFACES];               /* the cards the seat cannot place: copies of each face */
	int unseen_n;                             /* their number */
} rpl_infoset;

/*
 * The information set of seat in g into *out. Returns 0; RPL_EINVAL for a
 * NULL g or out or a seat out of range (*out then untouched); RPL_ESTATE
 * before the first deal. Only reads g.
 */
RPL_API int rpl_infoset_get(const rpl_game *g, int seat, rpl_infoset *out);

/*
 * A determinization of g for seat into out: a full game that seat cannot
 * tell from g (its information set in out equals its set in g), the cards
 * it cannot see dealt anew from rng's stream, uniformly over every deal
 * consistent with what it knows: the unseen cards are shuffled and dealt
 * to the hidden cards of the other hands (seats in order), then to the
 * stock (in drawing order), then to the untouched mortos (morto 0 first),
 * so that each arrangement of them is equally likely. Everything else is
 * copied from g, the state of the turn in progress included; a draw of
 * the seat to move that seat cannot see (the card an ABERTO first turn
 * may reject) becomes one of its hidden cards in out. The past of the deal
 * that no rule reads again (the cards drawn from the stock, the mortos
 * taken or turned into stock) is not kept in out: those cards are not
 * cards ("??").
 *
 * out must be a game made by rpl_game_new or rpl_game_clone (its state is
 * overwritten as by rpl_game_copy); it may be g itself. The result depends
 * only on seat's information set in g, the rest of the public state and
 * rng's stream, never on the cards seat cannot see. Returns 0, rng
 * advanced; RPL_EINVAL for a NULL argument or a seat out of range;
 * RPL_ESTATE before the first deal (out and rng then unchanged).
 */
RPL_API int rpl_infoset_sample(const rpl_game *g, int seat, rpl_rng *rng, rpl_game *out);

#ifdef __cplusplus
}
#endif

#endif
