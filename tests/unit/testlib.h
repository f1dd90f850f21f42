/*
 * Domain helpers for the libreplay unit tests.
 *
 * Every assertion is a macro that passes __FILE__/__LINE__ down, so a failure
 * points at the test line, not at this helper. Cards are written as text
 * ("5c 6c 7c", "JK", "10h"), parsed with rpl_card_parse.
 *
 * Layouts: tl_deal() takes only the cards a test cares about (hands, mortos,
 * the top of the stock) and fills the rest of the 108-card deck in a fixed
 * order chosen so that filler cards never form a run with each other: within
 * any 11 consecutive filler cards, cards of one suit are 3 ranks apart, and
 * the 2s and jokers come last (the bottom of the stock).
 */
#ifndef TESTLIB_H
#define TESTLIB_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "libreplay/libreplay.h"

/* ---- cards ---------------------------------------------------------- */

#define TL_MAXCARDS 128

/* Parse "5c 6c 7c" into out (at most cap); returns the count. */
size_t tl_cards_at(const char *text, rpl_card *out, size_t cap, const char *file, int line);
#define tl_cards(text, out) tl_cards_at((text), (out), sizeof(out) / sizeof((out)[0]), __FILE__, __LINE__)
rpl_card tl_card_at(const char *text, const char *file, int line);
#define tl_card(text) tl_card_at((text), __FILE__, __LINE__)
/* "5c 6c 7c" from n cards into buf (static rotating storage when buf NULL). */
const char *tl_cards_str(const rpl_card *c, size_t n);

/* ---- rules ---------------------------------------------------------- */

/* A rule set: profile plus "name=value name=value" overrides (NULL: none). */
rpl_rules *tl_rules_at(const char *profile, const char *overrides, const char *file, int line);
#define tl_rules(profile, overrides) tl_rules_at((profile), (overrides), __FILE__, __LINE__)

/* ---- layouts and games ---------------------------------------------- */

typedef struct tl_spec {
	const char *hand[RPL_MAX_SEATS];
	const char *morto[2];
	const char *stock; /* the top of the stock, drawn first */
} tl_spec;

void tl_layout_at(rpl_layout *out, int nplayers, const tl_spec *spec, const char *file, int line);
#define tl_layout(out, nplayers, ...) tl_layout_at((out), (nplayers), &(tl_spec){ __VA_ARGS__ }, __FILE__, __LINE__)

/*
 * A new game: profile + overrides, n players, first dealer. Tests mostly use
 * first_dealer = n - 1 so that seat 0 moves first in deal 1.
 */
rpl_game *tl_game_at(const char *profile, const char *overrides, int nplayers, int first_dealer, const char *file,
                     int line);
#define tl_game(profile, overrides, n, dealer) tl_game_at((profile), (overrides), (n), (dealer), __FILE__, __LINE__)

/* Start the next deal of g from a spec. */
void tl_deal_at(rpl_game *g, const tl_spec *spec, const char *file, int line);
#define tl_deal(g, ...) tl_deal_at((g), &(tl_spec){ __VA_ARGS__ }, __FILE__, __LINE__)

/* ---- actions -------------------------------------------------------- */

rpl_action tl_act(int kind);
rpl_action tl_act_cards_at(int kind, int side, int meld, int end, const char *cards, const char *file, int line);
#define A_DRAW tl_act(RPL_ACT_DRAW)
#define A_TAKE tl_act(RPL_ACT_TAKE)
#define A_REJECT tl_act(RPL_ACT_REJECT)
#define A_MELD(cards) tl_act_cards_at(RPL_ACT_MELD, 0, 0, RPL_END_DEFAULT, (cards), __FILE__, __LINE__)
#define A_MELD_END(cards, end) tl_act_cards_at(RPL_ACT_MELD, 0, 0, (end), (cards), __FILE__, __LINE__)
#define A_ADD(side, meld, cards)                                                                                       \
	tl_act_cards_at(RPL_ACT_ADD, (side), (meld), RPL_END_DEFAULT, (cards), __FILE__, __LINE__)
#define A_ADD_END(side, meld, cards, end)                                                                              \
	tl_act_cards_at(RPL_ACT_ADD, (side), (meld), (end), (cards), __FILE__, __LINE__)
#define A_DISCARD(card) tl_act_cards_at(RPL_ACT_DISCARD, 0, 0, 0, (card), __FILE__, __LINE__)
rpl_action tl_act_morto(int i);
#define A_MORTO(i) tl_act_morto(i)

/* ---- game assertions ------------------------------------------------ */

/* The decision applies (returns 0). */
void tl_applied_at(rpl_game *g, rpl_action a, const char *file, int line);
#define assert_applied(g, a) tl_applied_at((g), (a), __FILE__, __LINE__)

/*
 * The decision is refused: RPL_EILLEGAL, rpl_game_rule() == rule, the state
 * (hands, pile, melds, stock, mortos, phase, seat, stats, totals) unchanged,
 * and rpl_game_check() agrees.
 */
void tl_refused_at(rpl_game *g, rpl_action a, int rule, const char *file, int line);
#define assert_refused(g, a, rule) tl_refused_at((g), (a), (rule), __FILE__, __LINE__)
/* Refused with any rule in the list (for genuinely ambiguous codes); end with -1. */
void tl_refused_any_at(rpl_game *g, rpl_action a, const char *file, int line, ...);
#define assert_refused_any(g, a, ...) tl_refused_any_at((g), (a), __FILE__, __LINE__, __VA_ARGS__, -1)

/* seat's hand is exactly this multiset of cards. */
void tl_hand_is_at(const rpl_game *g, int seat, const char *cards, const char *file, int line);
#define assert_hand(g, seat, cards) tl_hand_is_at((g), (seat), (cards), __FILE__, __LINE__)
/* The pile, bottom first. */
void tl_pile_is_at(const rpl_game *g, const char *cards, const char *file, int line);
#define assert_pile(g, cards) tl_pile_is_at((g), (cards), __FILE__, __LINE__)
/*
 * Meld index of side, by position lo..hi; a wild is marked with '*', e.g.
 * "2h* 4h 5h" (2h standing for 3h). Also checks wilds/clean/length agree.
 */
void tl_meld_is_at(const rpl_game *g, int side, int index, const char *cards, const char *file, int line);
#define assert_meld(g, side, index, cards) tl_meld_is_at((g), (side), (index), (cards), __FILE__, __LINE__)
/* Same, for an rpl_meld_info. */
void tl_info_is_at(const rpl_meld_info *m, const char *cards, const char *file, int line);
#define assert_info(m, cards) tl_info_is_at((m), (cards), __FILE__, __LINE__)

void tl_phase_seat_at(const rpl_game *g, int phase, int seat, const char *file, int line);
#define assert_phase(g, phase, seat) tl_phase_seat_at((g), (phase), (seat), __FILE__, __LINE__)

/* A text picture of all observable state (static rotating storage). */
const char *tl_snapshot(const rpl_game *g);

/* Play draw + discard of the card just drawn; returns the drawn card. */
rpl_card tl_draw_discard_at(rpl_game *g, const char *file, int line);
#define tl_draw_discard(g) tl_draw_discard_at((g), __FILE__, __LINE__)

/* Score of side in the current deal. */
rpl_score tl_score_at(const rpl_game *g, int side, const char *file, int line);
#define tl_score(g, side) tl_score_at((g), (side), __FILE__, __LINE__)

/* ---- meld check helpers --------------------------------------------- */

rpl_meld_check_result tl_check_at(const rpl_rules *r, const char *cards, int end, const char *file, int line);
/* The cards form a meld arranged as expect (see assert_meld). */
#define assert_meld_ok(r, cards, end, expect) tl_check_ok_at((r), (cards), (end), (expect), __FILE__, __LINE__)
void tl_check_ok_at(const rpl_rules *r, const char *cards, int end, const char *expect, const char *file, int line);
/* The cards do not form a meld; rule code expected (-1: any). */
#define assert_meld_bad(r, cards, end, rule) tl_check_bad_at((r), (cards), (end), (rule), __FILE__, __LINE__)
void tl_check_bad_at(const rpl_rules *r, const char *cards, int end, int rule, const char *file, int line);

/* Printed before a failure message when set (e.g. the seed sentence of a table row). */
extern const char *tl_context;
/*
 * Soft mode for table-driven tests: while tl_soft is set, a failure is printed
 * and counted in tl_soft_failures instead of ending the test, so that one run
 * reports every failing row. The table test fails at its end if any row did.
 */
extern int tl_soft;
extern int tl_soft_failures;

/*
 * Files of the tests. tl_tmp_path: a path for tag in $TMPDIR (else /dev/shm
 * when writable, else /tmp), named after the test file and the process, so
 * that tests running at once never share one; four buffers in turn, so the
 * last four results stay valid. tl_read_file: the whole file, malloc'd (one
 * byte more than *len); tl_write_file: p[0..n) as the whole file. Both fail
 * the test when the file cannot be read or written.
 */
const char *tl_tmp_path_at(const char *file, const char *tag);
#define tl_tmp_path(tag) tl_tmp_path_at(__FILE__, tag)
unsigned char *tl_read_file(const char *path, size_t *len);
void tl_write_file(const char *path, const void *p, size_t n);

/* Fail with a formatted message at file:line. */
void tl_fail_at(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
		__attribute__((format(printf, 3, 4)))
#endif
		;
#define tl_fail(...) tl_fail_at(__FILE__, __LINE__, __VA_ARGS__)

#endif
