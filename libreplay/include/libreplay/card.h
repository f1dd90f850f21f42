/*
 * Cards. A Buraco deck is two 52-card decks and 4 jokers (108 cards); the two
 * copies of a face are interchangeable, so a card is its face: an rpl_card.
 *
 *   id = suit * 13 + (rank - 1)   for rank 1 (A) .. 13 (K), suit 0..3 = c d h s
 *   id = RPL_JOKER (52)           for the joker
 *
 * Ids sort the way a hand is shown: clubs A..K, diamonds, hearts, spades,
 * then jokers. Text form: rank A 2 3 4 5 6 7 8 9 10 J Q K (also T for 10),
 * suit c d h s (also the symbols), case-insensitive; the joker is "JK".
 */
#ifndef LIBREPLAY_CARD_H
#define LIBREPLAY_CARD_H

#include "libreplay/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A card: its face id, 0..52 (see above); plain data, compared with ==. */
typedef uint8_t rpl_card;

/* The joker's id; also the highest id. */
#define RPL_JOKER 52
#define RPL_NFACES 53     /* distinct faces */
#define RPL_DECK_SIZE 108 /* cards in a deal */
/* The id of the card of suit (enum rpl_suit) and rank (1 = A .. 13 = K). */
#define RPL_CARD_MAKE(suit, rank) ((rpl_card)((suit)*13 + (rank)-1))
#define RPL_CARD_SUIT(c) ((c) / 13)                               /* undefined for RPL_JOKER */
#define RPL_CARD_RANK(c) ((c) % 13 + 1)                           /* 1 = A .. 13 = K; not for RPL_JOKER */
#define RPL_IS_TWO(c) ((c) != RPL_JOKER && RPL_CARD_RANK(c) == 2) /* a 2 of any suit */
/* A card that can stand for another in a meld: a joker or a 2. */
#define RPL_IS_WILDCAPABLE(c) ((c) == RPL_JOKER || RPL_IS_TWO(c))

/* The suits, in id order. */
enum rpl_suit { RPL_CLUBS = 0, RPL_DIAMONDS = 1, RPL_HEARTS = 2, RPL_SPADES = 3 };

/* Flags for rpl_card_format(). */
#define RPL_CARD_SYMBOLS 1u /* write suits as the UTF-8 symbols ♣ ♦ ♥ ♠ */

/* The number of copies of face c in the 108-card deck: 2, 4 for the joker, 0 for a non-card. */
RPL_API int rpl_card_copies(rpl_card c);

/*
 * Parse one card token of len bytes (len need not cover a NUL). Surrounding
 * white space is not accepted. Returns 0 and sets *out, or RPL_EINVAL for
 * anything that is not a card.
 */
RPL_API int rpl_card_parse(const char *text, size_t len, rpl_card *out);

/*
 * Write the canonical text of c ("10c", "Qh", "JK", or "Q♥" with
 * RPL_CARD_SYMBOLS) into buf, NUL-terminated and truncated to size. Returns
 * the length the full text needs (at most 6), like snprintf; a c that is not
 * a card writes "??".
 */
RPL_API size_t rpl_card_format(rpl_card c, char *buf, size_t size, unsigned flags);

/* The canonical ASCII text of c ("10c", "JK"; "??" for a non-card). Static storage. */
RPL_API const char *rpl_card_name(rpl_card c);

#ifdef __cplusplus
}
#endif

#endif
