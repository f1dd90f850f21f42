/* SHA-256 through libsodium: the identity of an exported log (export.c). */
#include <sodium.h>

#include "base/sha256.h"
#include "base/sodium_init.h"

void rpl__sha256_init(rpl_sha256 *s)
{
	rpl__sodium_init();
	crypto_hash_sha256_init(&s->st);
}

void rpl__sha256_update(rpl_sha256 *s, const void *data, size_t len)
{
	crypto_hash_sha256_update(&s->st, data, len);
}

void rpl__sha256_final(rpl_sha256 *s, uint8_t digest[32])
{
	crypto_hash_sha256_final(&s->st, digest);
}

void rpl__sha256_hex(const void *data, size_t len, char hex[65])
{
	uint8_t d[32];

	rpl__sodium_init();
	crypto_hash_sha256(d, data, len);
	sodium_bin2hex(hex, 65, d, sizeof(d));
}
