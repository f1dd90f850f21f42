/*
 * Positions: a match log replayed as data, the table after every decision.
 *
 * rpl_positions_file() verifies a log (exactly as rpl_verify_file does: the
 * verdict it fills is the same) and, along the way, hands the caller one
 * rpl_position for every moment of the match: each deal as dealt, then the
 * table after each legal decision, and, if the log breaks a rule, the table
 * as it stood when the refused decision was tried. Everything in a position
 * is computed by the rules engine (hands, melds and where each card sits,
 * canastra categories, the pile, the stock, the mortos, the scores with
 * their breakdown, whose turn and the phase, the cards that moved); a
 * viewer only draws it. brp show --json and brp view are built on it, and
 * rpl_position_json() writes a position as the JSON brp show --json prints.
 *
 * A position is plain data (about 8 KB), filled by the library and lent to
 * the callback for the length of the call: copy what you keep.
 */
#ifndef LIBREPLAY_POSITION_H
#define LIBREPLAY_POSITION_H

#include "libreplay/common.h"
#include "libreplay/card.h"
#include "libreplay/rules.h"
#include "libreplay/meld.h"
#include "libreplay/game.h"
#include "libreplay/log.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a position follows. */
enum rpl_position_kind {
	RPL_POS_DEALT = 1,    /* a deal was dealt: the table before its first decision */
	RPL_POS_DECISION = 2, /* a legal decision was applied: the table after it */
	RPL_POS_REFUSED = 3   /* the engine refused this decision: the table as it stood (always the last position) */
};

/* Where a card is, for the cards a decision moved. */
enum rpl_zone {
	RPL_ZONE_STOCK = 1,
	RPL_ZONE_HAND = 2, /* of the position's seat */
	RPL_ZONE_PILE = 3,
	RPL_ZONE_MELD = 4, /* meld 'meld' of side 'side' */
	RPL_ZONE_MORTO = 5 /* morto 'morto' */
};

/* "stock", "hand", "pile", "meld", "morto"; "?" for anything else. */
RPL_API const char *rpl_zone_name(int zone);

/*
 * One card a decision moved. index says where it landed in the position:
 * the index in the seat's hand (hand[seat], sorted by card id), in the pile
 * (bottom first), or the slot of the meld (card[index] of that meld).
 */
typedef struct rpl_position_move {
	rpl_card card;
	uint8_t from, to; /* enum rpl_zone */
	int8_t side;      /* MELD: the side whose meld received the card; else -1 */
	int8_t meld;      /* MELD: that meld's index; else -1 */
	int8_t morto;     /* from MORTO: which morto; else -1 */
	uint8_t index;
} rpl_position_move;

/* The table at one moment of a match: plain data, filled by the engine (see rpl_positions_file). */
typedef struct rpl_position {
	int kind;  /* enum rpl_position_kind */
	int index; /* 0, 1, 2, ... in the order of the log */
	/* the moment: deal (1-based); for a decision, its turn (1-based), its
	   number within the turn (1-based) and within the deal, and the seat that
	   took it; 0, 0, 0 and -1 for DEALT */
	int deal, turn, decision, deal_decision, seat;
	rpl_action action; /* DECISION, REFUSED: the decision */
	int rule;          /* REFUSED: enum rpl_rule broken */
	char message[320]; /* REFUSED: the engine's one-line message */
	/* the running verdict: RPL_VERDICT_OK while every decision was legal and
	   every claim of the deals ended so far matches; RPL_VERDICT_MISMATCH from
	   the end of a deal whose claimed score differs; RPL_VERDICT_ILLEGAL on
	   the refused decision; before all of them, RPL_VERDICT_TAMPERED or
	   RPL_VERDICT_UNTRUSTED for a position read from bytes that no valid (or,
	   with trusted keys, no trusted) signature vouches for, when the log's
	   verdict is tampered or untrusted (the bytes after the last valid
	   signature before a broken one; after the last trusted one) */
	int verdict;

	/* the table */
	int nplayers;
	int dealer, phase, to_move; /* the deal's dealer, enum rpl_phase, the seat to move */
	int turns;                  /* turns begun in the deal (rpl_game_turn_number) */
	int hand_count[RPL_MAX_SEATS];
	rpl_card hand[RPL_MAX_SEATS][RPL_DECK_SIZE]; /* sorted by card id */
	int meld_count[2];
	rpl_meld_info meld[2][RPL_MAX_MELDS]; /* by side, in the order laid */
	int pile_count;
	rpl_card pile[RPL_DECK_SIZE]; /* bottom first: the top is pile[pile_count - 1] */
	/* how many of the pile's top cards a player at the table sees: all of them,
	   or only the top one when the profile's pile rule is top_laid (STBL's
	   closed pile; docs/rules.md 6.3) */
	int pile_visible;
	int stock_count;
	int morto[2];       /* as rpl_game_morto_state: -1 untouched, 0/1 taken by that side, 2 turned into stock */
	rpl_score score[2]; /* each side's score of this deal so far (final once the deal is over) */
	int32_t total[2];   /* the match totals, the deals ended included */
	int vulnerable[2];
	int winner; /* the winning side once the match is over, else -1 */
	/* claims of the log: for this deal, once it is over (claimed 1), and for
	   the match, once it is over (match_claimed 1) */
	int claimed;
	int32_t claim[2];
	int match_claimed;
	int32_t match_claim[2];
	/* the cards the decision moved, where from and where to (a draw: the card
	   drawn; a take: the pile; a meld or an addition: its cards; a discard:
	   the card; a morto: its cards; a reject: the card rejected and the card
	   drawn) */
	int nmoves;
	rpl_position_move move[RPL_DECK_SIZE];
} rpl_position;

/*
 * The table of a game into out, as a position of kind 0 with no moment (deal
 * and the table filled from g; no decision, no moves, no claims): what a
 * caller shows of a game it plays itself.
 */
RPL_API void rpl_position_of_game(const rpl_game *g, rpl_position *out);

/*
 * Called for each position in order; a non-zero return stops the replay,
 * and rpl_positions_file returns that value (*out is then not a verdict).
 */
typedef int (*rpl_position_fn)(void *ctx, const rpl_position *pos);

/*
 * Replay the log at path, calling fn (may be NULL) for every position, and
 * fill *out with the log's verdict, the same as rpl_verify_file gives (rules:
 * NULL for the log's own rules, or rules to impose). A malformed log yields
 * the positions that decoded before the damage; an incomplete one, its
 * positions to its end. Returns 0 with *out filled whatever the verdict;
 * RPL_EIO when the file cannot be read, RPL_EINVAL, RPL_ENOMEM, or fn's
 * non-zero value.
 */
RPL_API int rpl_positions_file(const char *path, const rpl_rules *rules, rpl_position_fn fn, void *ctx,
                               rpl_verdict *out);
/*
 * As rpl_positions_file, on a log the caller opened (rpl_reader_open_memory,
 * rpl_reader_open_fd: a log read from a pipe), before any rpl_reader_next:
 * the positions and the verdict are those rpl_positions_file gives for the
 * same bytes (a reader whose open failed gives the verdict malformed, as
 * rpl_verify_reader does). rd is read to its end and stays the caller's to
 * free. Returns 0, RPL_EINVAL, RPL_ENOMEM, or fn's non-zero value.
 */
RPL_API int rpl_positions_reader(rpl_reader *rd, const rpl_rules *rules, rpl_position_fn fn, void *ctx,
                                 rpl_verdict *out);
/*
 * rpl_positions_file and rpl_positions_reader judging the log's signatures
 * against trusted keys (NULL or empty: none), as rpl_verify_file_trusted
 * does: the verdict is that one's, and the positions read from bytes no
 * trusted signature vouches for carry the running verdict UNTRUSTED. The
 * same returns.
 */
RPL_API int rpl_positions_file_trusted(const char *path, const rpl_rules *rules, const rpl_keyring *trusted,
                                       rpl_position_fn fn, void *ctx, rpl_verdict *out);
/* rpl_positions_reader with trusted keys, as rpl_positions_file_trusted. */
RPL_API int rpl_positions_reader_trusted(rpl_reader *rd, const rpl_rules *rules, const rpl_keyring *trusted,
                                         rpl_position_fn fn, void *ctx, rpl_verdict *out);

/*
 * Position p as one JSON object, the one brp show --json prints (docs/view.md
 * names and explains every field) and the Python bindings' Match.position
 * parses: into buf, NUL-terminated and truncated to size, on one line with no
 * newline. info is the header of the match p comes from (rpl_reader_info of
 * its log): the profile and the players' names are taken from it. notes are
 * nnotes lines of the caller's for the object's "notes" array (NULL when
 * nnotes is 0; brp show puts there why the log stops before the position
 * asked for); the writer adds none of its own. Strings are escaped as JSON
 * needs (quotes, backslashes, control bytes), other bytes are copied, so the
 * text is UTF-8 when the names and notes are.
 *
 * Returns the length the whole text needs, without the NUL, like snprintf:
 * call it with buf NULL and size 0 to learn the size, then with a buffer of
 * that length plus one. Returns 0 and writes "" (when size allows) for a NULL
 * p or info. It cannot fail otherwise and allocates nothing; the text is the
 * caller's buffer. It only reads its arguments: any thread may call it at
 * once with others on data no thread changes meanwhile.
 */
RPL_API size_t rpl_position_json(const rpl_position *p, const rpl_match_info *info, const char *const *notes,
                                 size_t nnotes, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
