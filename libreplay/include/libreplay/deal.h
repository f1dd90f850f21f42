/*
 * A committed deal: every layout of a match derived from a secret seed, so
 * that a platform can publish a commitment to the seed before play and
 * reveal the seed after it, and anyone can check that every deal was the
 * one fixed in advance. The derivation is specified normatively in
 * docs/format.md, section 15; these functions are its reference.
 *
 * Everything here is a pure function of its arguments (BLAKE2b, through
 * libsodium), except rpl_deal_seed_random. Seeds are the caller's: the
 * library keeps no copy.
 */
#ifndef LIBREPLAY_DEAL_H
#define LIBREPLAY_DEAL_H

#include "libreplay/common.h"
#include "libreplay/game.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RPL_DEAL_SEED_SIZE 32       /* bytes of the platform's seed and of a player's seed */
#define RPL_DEAL_COMMIT_SIZE 32     /* bytes of a commitment */
#define RPL_DEAL_MAX_PLAYER_SEEDS 4 /* player seeds a match may add */

/*
 * The commitment to seed: BLAKE2b-256 of "brp-commit-v1" and the seed.
 * Returns 0, or RPL_EINVAL (a NULL argument).
 */
RPL_API int rpl_deal_commit(uint8_t out[RPL_DEAL_COMMIT_SIZE], const uint8_t seed[RPL_DEAL_SEED_SIZE]);

/*
 * The layout of deal number deal (1-based, at most RPL_MAX_DEALS) of a
 * match of nplayers (2 or 4) whose platform seed is seed and whose players
 * added nplayer_seeds seeds (0..RPL_DEAL_MAX_PLAYER_SEEDS, in the header's
 * order; player_seeds may be NULL when there are none). Hands come out in
 * ascending card order, as a reader gives them. Returns 0, RPL_EINVAL.
 */
RPL_API int rpl_deal_derive(rpl_layout *out, const uint8_t seed[RPL_DEAL_SEED_SIZE],
                            const uint8_t (*player_seeds)[RPL_DEAL_SEED_SIZE], int nplayer_seeds, int nplayers,
                            int deal);

/*
 * 1 when two layouts of nplayers are the same deal: the same cards in each
 * hand (in any order), the same mortos and stock in the same order; else 0.
 */
RPL_API int rpl_layout_same(const rpl_layout *a, const rpl_layout *b, int nplayers);

/* A fresh secret seed from the system's random source. 0, or RPL_EIO. */
RPL_API int rpl_deal_seed_random(uint8_t seed[RPL_DEAL_SEED_SIZE]);

#ifdef __cplusplus
}
#endif

#endif
