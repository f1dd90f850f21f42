/*
 * Rule profiles: every parameter of a rule set, as data.
 *
 * A profile (KZV, STBL, ABERTO) is a set of values for the parameters listed
 * by rpl_rules_param_count()/rpl_rules_param_info(). Each parameter has a
 * stable numeric id (used by match logs: it never changes meaning), a name,
 * a kind and a one-line meaning. Every [decision] of the rules reading is a
 * parameter, so a table may override it: rpl_rules_set(r, "target", "1500").
 *
 * Rule codes (enum rpl_rule) name the rule a refused decision breaks; their
 * values and names are stable forever (docs/rules.md lists them).
 */
#ifndef LIBREPLAY_RULES_H
#define LIBREPLAY_RULES_H

#include "libreplay/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A rule set: a value for every parameter. An opaque handle owned by its
 * maker (rpl_rules_new, rpl_rules_clone) and freed with rpl_rules_free.
 * The functions that take it const only read it (any number of threads at
 * once); rpl_rules_set and rpl_rules_set_id change it (one thread).
 */
typedef struct rpl_rules rpl_rules;

/* Parameter ids. Stable: a log stores (id, value) pairs. */
enum rpl_param {
	RPL_P_ALLOW_2_PLAYERS = 1,
	RPL_P_ALLOW_4_PLAYERS = 2,
	RPL_P_TARGET = 3,
	RPL_P_VALUE_JOKER = 4,
	RPL_P_VALUE_TWO = 5,
	RPL_P_VALUE_ACE = 6,
	RPL_P_VALUE_HIGH = 7, /* K Q J 10 9 8 */
	RPL_P_VALUE_LOW = 8,  /* 7 6 5 4 3 */
	RPL_P_BONUS_DIRTY = 9,
	RPL_P_BONUS_CLEAN = 10,
	RPL_P_BONUS_CLEAN13 = 11,
	RPL_P_BONUS_CLEAN14 = 12,
	RPL_P_BONUS_DIRTY14 = 13,
	RPL_P_BONUS_GOING_OUT = 14,
	RPL_P_PENALTY_NO_MORTO = 15,
	RPL_P_MAX_WILDS = 16,
	RPL_P_WRAP_AS_DIRTY = 17,
	RPL_P_WILD_END_DEFAULT = 18,
	RPL_P_WILD_MOBILITY = 19,
	RPL_P_PILE_RULE = 20,
	RPL_P_PILE_FREEZES = 21,
	RPL_P_ONE_CARD_PILE_NO_RETURN = 22,
	RPL_P_FIRST_TURN_REJECT = 23,
	RPL_P_VULNERABLE_AT = 24,
	RPL_P_VULNERABLE_MIN_OPEN = 25,
	RPL_P_OUT_NEEDS_MORTO = 26,
	RPL_P_OUT_IF_MORTOS_STOCK = 27,
	RPL_P_OUT_CANASTRA = 28,
	RPL_P_OUT_LAST_CARD = 29,
	RPL_P_PENALTY_IF_NONE_TAKEN = 30,
	RPL_P_UNPLAYED_MORTO_COST = 31,
	RPL_P_PENALTY_NO_MORTO_SIDES = 32 /* a header of 31 pairs reads as RPL_PENALTY_EACH */
};
#define RPL_P_COUNT 32 /* ids run 1..RPL_P_COUNT */
/* The parameters a header of format version 2 carried before id 32 existed. */
#define RPL_P_COUNT_V2_OLD 31

/*
 * Values of the enumerated parameters. wild_end_default, and the end of a
 * meld decision (rpl_action.end): where a wild that could sit at either end
 * goes (RPL_END_DEFAULT: the rules' default).
 */
enum rpl_wild_end { RPL_END_DEFAULT = 0, RPL_END_LOW = 1, RPL_END_HIGH = 2 };
/* wild_mobility: a wild stays where it was laid, or the meld is arranged anew at each addition. */
enum rpl_wild_mobility { RPL_WILD_FIXED = 0, RPL_WILD_FLOATING = 1 };
/* pile_rule: what taking the pile obliges to lay this turn. */
enum rpl_pile_rule {
	RPL_PILE_USE_ANY = 0,  /* KZV: some pile card must be laid this turn */
	RPL_PILE_TOP_LAID = 1, /* STBL: the top card must be laid this turn */
	RPL_PILE_FREE = 2      /* ABERTO: no obligation */
};
/*
 * wrap_as_dirty: what K-A-2 of one suit is. RPL_WRAP_NONE refuses every run
 * whose own-suit 2 is the wild at the low end under a high ace (2h-Qh-Kh-Ah
 * too): the reading of 2026-12-01, kept so that the logs written under it
 * keep their verdicts; RPL_WRAP_NARROW refuses the three cards K, A, 2 alone.
 */
enum rpl_wrap {
	RPL_WRAP_NONE = 0,  /* "false": K-A-2 is no meld, nor a longer run with the own 2 below a high ace */
	RPL_WRAP_DIRTY = 1, /* "true": K-A-2 of one suit is the dirty Q-K-A */
	RPL_WRAP_NARROW = 2 /* "narrow": only the three cards K, A, 2 of one suit alone are no meld (KZV) */
};
/*
 * one_card_pile_no_return: which discards a player who took a pile of exactly
 * one card may not make in that turn. RPL_NO_RETURN_CARD lets a copy held
 * before the take be discarded: the reading of 2026-12-01, kept so that the
 * logs written under it keep their verdicts; RPL_NO_RETURN_FACE refuses every
 * card of that face, as a log names faces, not copies.
 */
enum rpl_no_return {
	RPL_NO_RETURN_NONE = 0, /* "false": any card may be discarded */
	RPL_NO_RETURN_CARD = 1, /* "true": not the card taken, unless a copy of its face was held before the take */
	RPL_NO_RETURN_FACE = 2  /* "face": no card of that face, even a copy held before (ABERTO) */
};
/* out_canastra: the canastra a side needs on its table for the final going out (not to take its morto). */
enum rpl_out_canastra { RPL_OUT_CANASTRA_NONE = 0, RPL_OUT_CANASTRA_ANY = 1, RPL_OUT_CANASTRA_CLEAN = 2 };
/* out_last_card: whether the last card may be melded, or must be discarded, to go out. */
enum rpl_out_last { RPL_OUT_LAST_ANY = 0, RPL_OUT_LAST_DISCARD = 1 };
/* penalty_no_morto_sides: which sides without a morto pay penalty_no_morto when a deal ends. */
enum rpl_penalty_sides {
	RPL_PENALTY_EACH = 0,   /* each side without a morto pays penalty_no_morto */
	RPL_PENALTY_NOT_OUT = 1 /* each side without a morto but the side that went out */
};

/* The kind of a parameter's value: a boolean (0, 1), a number, or one of named values. */
enum rpl_param_kind { RPL_PARAM_BOOL = 0, RPL_PARAM_INT = 1, RPL_PARAM_ENUM = 2 };

/* What a parameter is. Static storage: never freed, never changed. */
typedef struct rpl_param_info {
	int id;                   /* enum rpl_param */
	const char *name;         /* "pile_rule" */
	int kind;                 /* enum rpl_param_kind */
	int min, max;             /* accepted range of the value */
	const char *const *names; /* RPL_PARAM_ENUM: names of values min..max */
	const char *meaning;      /* one line of English */
	const char *source;       /* where the rule comes from (seed or decision) */
} rpl_param_info;

/* The number of parameters, RPL_P_COUNT. */
RPL_API size_t rpl_rules_param_count(void);
/* The info of parameter index 0..count-1 (in id order), or NULL past the end. Static storage. */
RPL_API const rpl_param_info *rpl_rules_param_info(size_t index);
/* The info of the parameter named name (exact, case-sensitive), or NULL (name NULL or unknown). */
RPL_API const rpl_param_info *rpl_rules_param_by_name(const char *name);
/* The info of the parameter of id (enum rpl_param), or NULL when there is none. */
RPL_API const rpl_param_info *rpl_rules_param_by_id(int id);

/* Profile names accepted by rpl_rules_new(), NULL-terminated. */
RPL_API const char *const *rpl_rules_profiles(void);

/*
 * A new rule set holding the named profile's values ("kzv", "stbl" or
 * "aberto", case-insensitive). Returns 0 with *out owned by the caller
 * (rpl_rules_free); RPL_ENOTFOUND for an unknown or NULL profile,
 * RPL_ENOMEM, RPL_EINVAL for a NULL out. On failure *out is NULL.
 */
RPL_API int rpl_rules_new(rpl_rules **out, const char *profile);
/* Free a rule set; NULL is accepted. */
RPL_API void rpl_rules_free(rpl_rules *r);
/* A copy of r (overrides included) owned by the caller, or NULL when r is NULL or memory is short. */
RPL_API rpl_rules *rpl_rules_clone(const rpl_rules *r);

/* The profile the set was made from ("stbl"), whatever was overridden; "" for NULL. Static storage. */
RPL_API const char *rpl_rules_profile(const rpl_rules *r);

/*
 * Set a parameter from text: a number, "true"/"false"/"yes"/"no"/"1"/"0"
 * for booleans, or an enumerated value's name (case-insensitive). Returns 0;
 * RPL_ENOTFOUND for an unknown name, RPL_EINVAL for a value that is not
 * one of the parameter's, or that would allow no table size, or a NULL
 * argument. On failure r is unchanged and rpl_rules_errmsg says why.
 */
RPL_API int rpl_rules_set(rpl_rules *r, const char *name, const char *value);
/* Set parameter id (enum rpl_param) to value: as rpl_rules_set, with the value as a number. */
RPL_API int rpl_rules_set_id(rpl_rules *r, int id, int value);
/* Read parameter id into *value. 0; RPL_ENOTFOUND for an unknown id, RPL_EINVAL for NULL. */
RPL_API int rpl_rules_get_id(const rpl_rules *r, int id, int *value);
/*
 * The value's text ("true", "fixed", "3000") into buf, NUL-terminated and
 * truncated to size. Returns 0; RPL_ENOTFOUND for an unknown name,
 * RPL_EINVAL for a NULL argument.
 */
RPL_API int rpl_rules_get(const rpl_rules *r, const char *name, char *buf, size_t size);
/* 1 when parameter id differs from the profile's own value, else 0 (also for NULL or an unknown id). */
RPL_API int rpl_rules_is_override(const rpl_rules *r, int id);

/*
 * The detail of the last failure of rpl_rules_set or rpl_rules_set_id on r;
 * "" when none (a successful set clears it). Lives as long as r, until the
 * next set.
 */
RPL_API const char *rpl_rules_errmsg(const rpl_rules *r);

/*
 * Rule codes. A refusal names one; values and names never change meaning.
 */
enum rpl_rule {
	RPL_RULE_NONE = 0,
	/* the order of a turn */
	RPL_RULE_NO_DEAL = 1,        /* turn.no_deal: no deal in progress */
	RPL_RULE_MATCH_OVER = 2,     /* turn.match_over */
	RPL_RULE_MUST_DRAW = 3,      /* turn.must_draw: draw before anything else */
	RPL_RULE_ALREADY_DREW = 4,   /* turn.already_drew */
	RPL_RULE_MORTO_DUE = 5,      /* morto.due: the morto must be picked up now */
	RPL_RULE_MORTO_NOT_DUE = 6,  /* morto.not_due */
	RPL_RULE_MORTO_WRONG = 7,    /* morto.wrong: not the next available morto */
	RPL_RULE_NOT_IN_HAND = 8,    /* card.not_in_hand */
	RPL_RULE_BAD_ACTION = 9,     /* action.malformed */
	RPL_RULE_DEAL_NOT_OVER = 10, /* deal.not_over: a new deal before the end */
	RPL_RULE_LAYOUT = 11,        /* deal.layout: not a valid deal of 108 cards */
	RPL_RULE_TURN_DEAD_END = 12, /* turn.dead_end: verification only: a decision that left a turn no decision can end */
	/* drawing and the pile */
	RPL_RULE_STOCK_EMPTY = 20,       /* stock.empty */
	RPL_RULE_PILE_EMPTY = 21,        /* pile.empty */
	RPL_RULE_PILE_FROZEN = 22,       /* pile.frozen: top card is a wild (KZV) */
	RPL_RULE_PILE_UNUSABLE = 23,     /* pile.unusable: no pile card / the top card cannot be laid */
	RPL_RULE_PILE_TOP_NOT_LAID = 24, /* pile.top_not_laid (STBL) */
	RPL_RULE_PILE_NOT_USED = 25,     /* pile.not_used: no pile card laid this turn (KZV) */
	RPL_RULE_PILE_RETURN = 26,       /* pile.return: the one-card pile discarded back (ABERTO) */
	RPL_RULE_REJECT = 27,            /* draw.reject: reject-and-redraw not allowed now */
	/* melds */
	RPL_RULE_MELD_SHORT = 40,      /* meld.short: fewer than 3 cards */
	RPL_RULE_MELD_LONG = 41,       /* meld.long: more than 14 cards */
	RPL_RULE_MELD_SUIT = 42,       /* meld.suit: not one suit (sets are never melds) */
	RPL_RULE_MELD_DUPLICATE = 43,  /* meld.duplicate: two cards for one position */
	RPL_RULE_MELD_WILDS = 44,      /* meld.wilds: too many wilds */
	RPL_RULE_MELD_GAP = 45,        /* meld.gap: not a run of consecutive positions */
	RPL_RULE_MELD_WRAP = 46,       /* meld.wrap: K-A-2 read as a wrap */
	RPL_RULE_MELD_END = 47,        /* meld.end: the wild cannot sit at the end asked */
	RPL_RULE_MELD_NO_SUCH = 48,    /* meld.no_such: no such meld on the table */
	RPL_RULE_MELD_OPPONENT = 49,   /* meld.opponent: adding to the opponents' meld */
	RPL_RULE_MELD_WILD_STUCK = 50, /* meld.wild_stuck: no legal place for the displaced wild */
	/* opening while vulnerable */
	RPL_RULE_OPEN_MINIMUM = 60, /* open.minimum (ABERTO) */
	/* going out */
	RPL_RULE_OUT_NO_MORTO = 70,    /* out.no_morto */
	RPL_RULE_OUT_NO_CANASTRA = 71, /* out.no_canastra */
	RPL_RULE_OUT_NO_CLEAN = 72,    /* out.no_clean_canastra */
	RPL_RULE_OUT_MELDED = 73       /* out.melded_last: the last card must be discarded */
};

/* The stable name of a rule code ("pile.frozen"); "unknown" if none. Static storage. */
RPL_API const char *rpl_rule_name(int rule);

#ifdef __cplusplus
}
#endif

#endif
