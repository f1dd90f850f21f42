/*
 * Private: libsodium's initialisation. sodium_init() is thread-safe and
 * idempotent (it returns 1 once done), so every entry point that uses a
 * libsodium primitive calls this first; the library keeps no state of its own.
 * A failure (no randomness source) leaves sodium unusable: rpl__sodium_init
 * returns -1 and the caller fails with RPL_EIO.
 */
#ifndef RPL_SODIUM_INIT_H
#define RPL_SODIUM_INIT_H

#include <sodium.h>

static inline int rpl__sodium_init(void)
{
	return sodium_init() < 0 ? -1 : 0;
}

#endif
