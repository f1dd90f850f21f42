/*
 * Card tokens and the meld checker. The first byte picks the profile and
 * where an end wild goes; the rest is split at white space into tokens,
 * each parsed with rpl_card_parse. Every card read must print back to a
 * token that parses to the same card; the cards read (up to 40) are checked
 * as one meld, and a valid answer must describe exactly the cards given.
 */
#include "fuzz.h"

#include <string.h>

#include <libreplay/libreplay.h>

#define MAX_CARDS 40

static rpl_rules *profiles[3];

static int is_space(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void check_meld(const rpl_rules *r, const rpl_card *cards, size_t n, int end)
{
	rpl_meld_check_result res;
	int count[RPL_NFACES] = { 0 }, wilds = 0;

	memset(&res, 0xAA, sizeof res);
	FUZZ_CHECK(rpl_meld_check(r, cards, n, end, &res) == 0);
	if (!res.valid) {
		FUZZ_CHECK(res.rule != RPL_RULE_NONE && strcmp(rpl_rule_name(res.rule), "unknown") != 0);
		FUZZ_CHECK(memchr(res.reason, '\0', sizeof res.reason) && res.reason[0]);
		return;
	}
	FUZZ_CHECK(n >= 3 && n <= 14);
	FUZZ_CHECK(res.meld.lo >= 1 && res.meld.hi <= 14 && res.meld.length == res.meld.hi - res.meld.lo + 1);
	FUZZ_CHECK((size_t)res.meld.length == n);
	FUZZ_CHECK(res.meld.suit >= 0 && res.meld.suit < 4);
	FUZZ_CHECK(res.meld.category >= 0 && res.meld.category < RPL_CANASTRA_NCAT);
	for (size_t i = 0; i < n; i++)
		count[cards[i]]++;
	for (int i = 0; i < res.meld.length; i++) {
		rpl_card c = res.meld.card[i];
		FUZZ_CHECK(c < RPL_NFACES && count[c] > 0);
		count[c]--;
		wilds += res.meld.wild[i] != 0;
		if (!res.meld.wild[i])
			FUZZ_CHECK(c == rpl_meld_natural(res.meld.suit, res.meld.lo + i));
	}
	FUZZ_CHECK(wilds == res.meld.wilds && res.meld.clean == (wilds == 0));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rpl_card cards[MAX_CARDS];
	size_t n = 0, i = 1;
	int end;
	const rpl_rules *r;

	if (!profiles[0]) {
		FUZZ_CHECK(rpl_rules_new(&profiles[0], "kzv") == 0);
		FUZZ_CHECK(rpl_rules_new(&profiles[1], "stbl") == 0);
		FUZZ_CHECK(rpl_rules_new(&profiles[2], "aberto") == 0);
	}
	if (size < 1)
		return 0;
	r = profiles[data[0] % 3];
	end = (data[0] / 3) % 3; /* RPL_END_DEFAULT, LOW, HIGH */

	/* the whole input as one token, then each token */
	{
		rpl_card c;
		if (rpl_card_parse((const char *)data + 1, size - 1, &c) == 0)
			FUZZ_CHECK(c < RPL_NFACES);
	}
	while (i < size) {
		size_t start, len;
		rpl_card c;
		while (i < size && is_space(data[i]))
			i++;
		start = i;
		while (i < size && !is_space(data[i]))
			i++;
		len = i - start;
		if (len == 0)
			break;
		if (rpl_card_parse((const char *)data + start, len, &c) == 0) {
			char buf[8], sym[8];
			rpl_card back;
			FUZZ_CHECK(c < RPL_NFACES);
			FUZZ_CHECK(rpl_card_format(c, buf, sizeof buf, 0) < sizeof buf);
			FUZZ_CHECK(strcmp(buf, rpl_card_name(c)) == 0);
			FUZZ_CHECK(rpl_card_parse(buf, strlen(buf), &back) == 0 && back == c);
			FUZZ_CHECK(rpl_card_format(c, sym, sizeof sym, RPL_CARD_SYMBOLS) < sizeof sym);
			FUZZ_CHECK(rpl_card_parse(sym, strlen(sym), &back) == 0 && back == c);
			if (n < MAX_CARDS)
				cards[n++] = c;
		}
	}
	check_meld(r, cards, n, end);
	/* every prefix, too: the checker must refuse short ones, whatever they hold */
	for (size_t k = 0; k < n && k < 16; k++)
		check_meld(r, cards, k, end);
	return 0;
}
