/* Private: the layout of a rule set. */
#ifndef RPL_RULES_IMPL_H
#define RPL_RULES_IMPL_H

#include "libreplay/rules.h"

struct rpl_rules {
	int32_t v[RPL_P_COUNT + 1]; /* indexed by enum rpl_param */
	uint8_t profile;            /* index into the profile table */
	char profile_name[8];       /* upper case, for messages: "STBL" */
	char errmsg[RPL_ERRMSG_SIZE];
};

/* Parameter value by its suffix: RV(r, TARGET). */
#define RV(r, name) ((r)->v[RPL_P_##name])

/* Initialise *r in place with a profile's values; 0 or RPL_ENOTFOUND. */
int rpl__rules_init(struct rpl_rules *r, const char *profile);

#endif
