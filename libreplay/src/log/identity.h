/*
 * Private: the match identity (docs/format.md section 17), BLAKE2b-256 over
 * the identity record: the header's fields and every decoded deal,
 * decision and claim, in the log's order (a committed match's claims
 * last, in deal order). Nothing of how they were stored
 * (sections, encodings, the end section, optional sections) goes in.
 */
#ifndef RPL_IDENTITY_H
#define RPL_IDENTITY_H

#include "libreplay/log.h"

struct rpl__ident;

/* A new identity, its record begun with the header. RPL_ENOMEM. */
int rpl__ident_new(struct rpl__ident **out, const rpl_match_info *info);
void rpl__ident_deal(struct rpl__ident *id, int deal, int nplayers, const rpl_layout *l);
void rpl__ident_action(struct rpl__ident *id, const rpl_action *a);
void rpl__ident_claim(struct rpl__ident *id, int deal, const int32_t score[2]);
/*
 * The identity as 64 lower-case hex digits and a NUL; the record cannot be
 * extended after. RPL_ENOMEM (hex is then ""): a committed match's claim
 * could not be kept for the end of the record.
 */
int rpl__ident_final(struct rpl__ident *id, char hex[RPL_MATCH_ID_SIZE]);
void rpl__ident_free(struct rpl__ident *id);

#endif
