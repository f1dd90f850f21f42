/*
 * Private: bit operations on 64-bit face masks (bit c: face c), with the
 * compiler's instructions where it has them; and splitmix64's finalizer.
 */
#ifndef RPL_BITS_H
#define RPL_BITS_H

#include <stdint.h>

/*
 * splitmix64's finalizer: 64 bits spread over 64 bits, the same on every
 * machine (a random stream's seed made from a seed and where it is used:
 * the review's and the integrity screen's decisions).
 */
static inline uint64_t rpl__mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

static inline int popcount64(uint64_t x)
{
#if defined(__POPCNT__) && (defined(__GNUC__) || defined(__clang__))
	return __builtin_popcountll(x);
#else
	/* without the instruction the builtin is a library call: count in parallel */
	x = x - ((x >> 1) & 0x5555555555555555ull);
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
	return (int)((x * 0x0101010101010101ull) >> 56);
#endif
}

/* The index of the lowest set bit; x must not be 0. */
static inline int ctz64(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
	return __builtin_ctzll(x);
#else
	int n = 0;
	while (!(x & 1)) {
		x >>= 1;
		n++;
	}
	return n;
#endif
}

/* The index of the highest set bit; x must not be 0. */
static inline int high64(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
	return 63 - __builtin_clzll(x);
#else
	int n = 63;
	while (!(x >> 63)) {
		x <<= 1;
		n--;
	}
	return n;
#endif
}

/* The index of the v-th set bit (from 0) of x; x must have more than v. */
static inline int select64(uint64_t x, int v)
{
	for (; v > 0; v--)
		x &= x - 1;
	return ctz64(x);
}

#endif
