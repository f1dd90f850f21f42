/*
 * Compiled once for each public header, given as RPL_TEST_HEADER: a header
 * must compile alone, first in a file, with every warning an error
 * (docs/conventions.md, section 7). Including it twice checks its guard.
 */
#include RPL_TEST_HEADER
#include RPL_TEST_HEADER

int main(void)
{
	return 0;
}
