/* SHA-256 (FIPS 180-4, libsodium's), private to the library: the identity of an exported log. */
#ifndef RPL_SHA256_H
#define RPL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include <sodium.h>

typedef struct rpl_sha256 {
	crypto_hash_sha256_state st;
} rpl_sha256;

void rpl__sha256_init(rpl_sha256 *s);
void rpl__sha256_update(rpl_sha256 *s, const void *data, size_t len);
void rpl__sha256_final(rpl_sha256 *s, uint8_t digest[32]);
/* The digest of len bytes as 64 lower-case hex digits and a NUL. */
void rpl__sha256_hex(const void *data, size_t len, char hex[65]);

#endif
