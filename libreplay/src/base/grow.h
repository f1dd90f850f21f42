/* Private: growing an array by doubling. */
#ifndef RPL_GROW_H
#define RPL_GROW_H

#include <stdlib.h>

/*
 * Room for need elements of elem bytes in array p of capacity *cap (the
 * first capacity is first, then it doubles). Returns the array, perhaps
 * moved, with *cap updated; NULL when out of memory (p and *cap unchanged).
 */
static inline void *rpl__grow(void *p, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t n = *cap ? *cap : first;
	void *q;

	if (need <= *cap)
		return p;
	while (n < need)
		n *= 2;
	q = realloc(p, n * elem);
	if (q)
		*cap = n;
	return q;
}

#endif
