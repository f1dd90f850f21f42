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
 * The protocols of a committed deal (rpl_match_info.commit_version):
 *   RPL_COMMIT_V2  the commitment binds the seed and the match's terms (the
 *                  rules, the players by seat, the first dealer, the number
 *                  of players' seeds), and the deals the players' seeds in
 *                  canonical (ascending) order: format version 4, section 18.
 *                  0 means this one, the current protocol.
 *   RPL_COMMIT_V1  the commitment binds the seed alone, and the deals the
 *                  players' seeds in the header's order: format version 3
 *                  (section 15), read and written only to keep such logs.
 */
#define RPL_COMMIT_V1 1 /* format version 3's protocol: the seed alone is committed to */
#define RPL_COMMIT_V2 2 /* format version 4's protocol: the seed and the match's terms */

struct rpl_match_info;

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
 * The commitment of a match under its protocol (info->commit_version): for
 * RPL_COMMIT_V2 (or 0), BLAKE2b-256 of "brp-commit-v2", the seed and the
 * match's terms, as docs/format.md section 18.2 lays them out (the
 * profile, every rule parameter, the players' names by seat, the first
 * dealer, info->nplayer_seeds); for RPL_COMMIT_V1, rpl_deal_commit(seed).
 * info->commitment is not read. Returns 0, or RPL_EINVAL (a NULL argument,
 * a header out of range, more player seeds than players under V2).
 */
RPL_API int rpl_deal_commit_match(uint8_t out[RPL_DEAL_COMMIT_SIZE], const uint8_t seed[RPL_DEAL_SEED_SIZE],
                                  const struct rpl_match_info *info);

/*
 * The layout of deal number deal of the match info describes, under its
 * protocol: for RPL_COMMIT_V2 (or 0), the per-deal key binds the seed, the
 * commitment rpl_deal_commit_match gives, and the players' seeds sorted in
 * ascending byte order (docs/format.md section 18.3), so that their order
 * is no choice; for RPL_COMMIT_V1, rpl_deal_derive with the seeds in the
 * header's order. Returns 0, RPL_EINVAL.
 */
RPL_API int rpl_deal_derive_match(rpl_layout *out, const uint8_t seed[RPL_DEAL_SEED_SIZE],
                                  const struct rpl_match_info *info, int deal);

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
