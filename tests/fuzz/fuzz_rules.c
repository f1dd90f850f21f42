/*
 * The profile and override parser: the first line names a profile, each
 * later line is NAME=VALUE for rpl_rules_set (a line without '=' is a name
 * with an empty value). A failed set changes nothing; a value read back
 * with rpl_rules_get sets the same value again. Then the rule set, however
 * odd, must carry a deal played by random bots: every decision the move
 * generator offers is accepted by the engine, and it offers none twice (a
 * log's header carries such parameters, so they are untrusted input too).
 */
#include "fuzz.h"

#include <string.h>

#include <libreplay/libreplay.h>

static void values(const rpl_rules *r, int *v)
{
	v[0] = 0;
	for (int id = 1; id <= RPL_P_COUNT; id++)
		FUZZ_CHECK(rpl_rules_get_id(r, id, &v[id]) == 0);
}

/* Two listed decisions that are one: every field but the cards past ncards. */
static int by_decision(const void *x, const void *y)
{
	const rpl_action *a = x, *b = y;
	int d = a->kind - b->kind;
	if (!d)
		d = a->side - b->side;
	if (!d)
		d = a->meld - b->meld;
	if (!d)
		d = a->end - b->end;
	if (!d)
		d = a->morto - b->morto;
	if (!d)
		d = a->ncards - b->ncards;
	return d ? d : memcmp(a->cards, b->cards, a->ncards);
}

/*
 * rpl_game_legal lists each decision once, however many there are (one call
 * into room for 65,536; a longer list, which no rule set has made, is not
 * checked).
 */
#define LISTED_MOST 65536
static void listed_once(const rpl_game *g)
{
	static rpl_action list[LISTED_MOST];
	size_t n = rpl_game_legal(g, list, LISTED_MOST);

	if (n < 2 || n > LISTED_MOST)
		return;
	qsort(list, n, sizeof(*list), by_decision);
	for (size_t i = 1; i < n; i++)
		FUZZ_CHECK(by_decision(&list[i - 1], &list[i]) != 0);
}

static void play(const rpl_rules *r, uint64_t seed)
{
	rpl_game *g = NULL;
	rpl_bot *bot = NULL;
	rpl_layout layout;
	rpl_rng rng;
	int nplayers;

	for (nplayers = 2; nplayers <= 4; nplayers += 2) {
		if (rpl_game_new(&g, r, nplayers, 0) == 0)
			break;
		g = NULL;
	}
	if (!g)
		return; /* no table size allowed is refused by rpl_rules_set, but be safe */
	FUZZ_CHECK(rpl_bot_new(&bot, RPL_BOT_RANDOM, seed) == 0);
	rpl_rng_seed(&rng, seed);
	rpl_layout_shuffle(&layout, nplayers, &rng);
	FUZZ_CHECK(rpl_game_deal(g, &layout) == 0);
	for (int k = 0; k < 100 && rpl_game_phase(g) < RPL_PHASE_DEAL_OVER; k++) {
		rpl_action a;
		int e;
		listed_once(g);
		e = rpl_bot_choose(bot, g, &a);
		if (e != 0)
			break;
		e = rpl_game_apply(g, &a);
		if (e != 0) {
			char t[128];
			rpl_action_format(&a, t, sizeof t);
			fprintf(stderr, "the engine refuses a decision its move generator offered: %s: %s\n", t,
			        rpl_game_errmsg(g));
		}
		FUZZ_CHECK(e == 0);
	}
	rpl_bot_free(bot);
	rpl_game_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, *line, *save = NULL;
	rpl_rules *r = NULL;
	uint64_t seed = 1469598103934665603ull;

	if (size > 4096)
		return 0;
	text = malloc(size + 1);
	FUZZ_CHECK(text);
	memcpy(text, data, size);
	text[size] = '\0';
	for (size_t i = 0; i < size; i++)
		seed = (seed ^ data[i]) * 1099511628211ull;

	line = strtok_r(text, "\n", &save);
	if (rpl_rules_new(&r, line ? line : "") != 0) {
		FUZZ_CHECK(r == NULL);
		free(text);
		return 0;
	}
	while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
		char *eq = strchr(line, '=');
		const char *value = "";
		int before[RPL_P_COUNT + 1], after[RPL_P_COUNT + 1], e;

		if (eq) {
			*eq = '\0';
			value = eq + 1;
		}
		values(r, before);
		e = rpl_rules_set(r, line, value);
		values(r, after);
		if (e != 0) {
			FUZZ_CHECK(e == RPL_ENOTFOUND || e == RPL_EINVAL);
			FUZZ_CHECK(memcmp(before, after, sizeof before) == 0);
			FUZZ_CHECK(rpl_rules_errmsg(r)[0] != '\0');
		} else {
			const rpl_param_info *p = rpl_rules_param_by_name(line);
			char buf[64];
			int again[RPL_P_COUNT + 1];
			FUZZ_CHECK(p != NULL);
			FUZZ_CHECK(rpl_rules_get(r, line, buf, sizeof buf) == 0);
			FUZZ_CHECK(rpl_rules_set(r, line, buf) == 0);
			values(r, again);
			FUZZ_CHECK(memcmp(after, again, sizeof after) == 0);
			FUZZ_CHECK(rpl_rules_is_override(r, p->id) == 0 || rpl_rules_is_override(r, p->id) == 1);
		}
	}
	play(r, seed);
	rpl_rules_free(r);
	free(text);
	return 0;
}
