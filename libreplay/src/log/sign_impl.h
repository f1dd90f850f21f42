/* Private: the signature section of a log (docs/format.md section 5.5). */
#ifndef RPL_SIGN_IMPL_H
#define RPL_SIGN_IMPL_H

#include "libreplay/sign.h"
#include "log/codec.h"

#define BRP_SIG_TYPE 's'
#define BRP_SIG_ALG "ED"    /* minisign's prehashed Ed25519 */
#define BRP_SIG_PAYLOAD 106 /* alg 2, key id 8, signature 64, public key 32 */

/* Append to out a signature section over the bytes h has hashed. h is not updated. */
void rpl__sig_section_put(struct buf *out, const rpl_prehash *h, const rpl_seckey *k);

#endif
