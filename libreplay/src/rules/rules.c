/* Rule profiles as data: the parameter table and the three profiles. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rules_impl.h"
#include "base/msg.h"

static const char *const end_names[] = { "default", "low", "high" };
static const char *const mobility_names[] = { "fixed", "floating" };
static const char *const pile_names[] = { "use_any", "top_laid", "free" };
static const char *const canastra_names[] = { "none", "any", "clean" };
static const char *const last_names[] = { "any", "discard" };
static const char *const penalty_sides_names[] = { "each", "not_out" };
static const char *const wrap_names[] = { "false", "true", "narrow" };
static const char *const no_return_names[] = { "false", "true", "face" };

#define B RPL_PARAM_BOOL, 0, 1, NULL
#define I(lo, hi) RPL_PARAM_INT, lo, hi, NULL
#define E(lo, hi, n) RPL_PARAM_ENUM, lo, hi, n

static const rpl_param_info params[RPL_P_COUNT] = {
	{ RPL_P_ALLOW_2_PLAYERS, "allow_2_players", B, "a match may be played by 2 players",
	  "STBL seed \"Jogadores: 2 ou 4\"; KZV, ABERTO: decision (docs/rules.md 1.3)" },
	{ RPL_P_ALLOW_4_PLAYERS, "allow_4_players", B, "a match may be played by 4 players in two sides",
	  "STBL seed \"Jogadores: 2 ou 4\"; ABERTO seed \"Quatro em pares opostos\"; KZV: decision (docs/rules.md 1.3)" },
	{ RPL_P_TARGET, "target", I(0, 1000000), "match total that ends the match (0: a single deal)",
	  "ABERTO seed \"Procure mais pontos, ate 3000\"; STBL seed \"Se um jogador que ja pegou um morto tornar a "
	  "bater, terminara a partida\" (one deal); KZV: decision (docs/rules.md 10.1)" },
	{ RPL_P_VALUE_JOKER, "value_joker", I(0, 1000), "points of a joker",
	  "STBL seed \"Curinga (Joker) 50 pontos\"; ABERTO seed \"joker 20\"; KZV: decision (docs/rules.md 4.1)" },
	{ RPL_P_VALUE_TWO, "value_two", I(0, 1000), "points of a 2, natural or wild, on the table or left in hand",
	  "STBL seed \"2 usado como curinga 10 pontos\" and, for a natural 2 or one left in hand, decision; ABERTO "
	  "seed \"2 vale 10\"; KZV: decision (docs/rules.md 4.1)" },
	{ RPL_P_VALUE_ACE, "value_ace", I(0, 1000), "points of an ace",
	  "STBL seed \"As 15 pontos\"; ABERTO seed \"A vale 15\"; KZV: decision (docs/rules.md 4.1)" },
	{ RPL_P_VALUE_HIGH, "value_high", I(0, 1000), "points of K Q J 10 9 8",
	  "STBL seed \"Do Rei ao 8 10 pontos\"; ABERTO seed \"K Q J 10 9 8 valem 10\"; KZV: decision "
	  "(docs/rules.md 4.1)" },
	{ RPL_P_VALUE_LOW, "value_low", I(0, 1000), "points of 7 6 5 4 3",
	  "STBL seed \"Do 7 ao 3 5 pontos\"; ABERTO seed \"7 6 5 4 3 valem 5\"; KZV: decision (docs/rules.md 4.1)" },
	{ RPL_P_BONUS_DIRTY, "bonus_dirty", I(0, 100000), "bonus of a dirty canastra (7+ cards, one wild)",
	  "STBL seed \"Canastra Suja 100 pontos\"; ABERTO seed \"suja 100\"; KZV seed \"+300 se tiver um "
	  "coringa\" as the triple (docs/rules.md 4.3)" },
	{ RPL_P_BONUS_CLEAN, "bonus_clean", I(0, 100000), "bonus of a clean canastra (7+ cards, no wild)",
	  "STBL seed \"Canastra Limpa 200 pontos\"; ABERTO seed \"limpa 200\"; KZV: decision, the seed says only "
	  "\"Limpa vale mais que suja\" (docs/rules.md 4.3)" },
	{ RPL_P_BONUS_CLEAN13, "bonus_clean13", I(0, 100000), "bonus of a clean canastra of 13 cards",
	  "STBL seed \"Canastra de Quinhentos 500\"; ABERTO seed \"limpa de 13 cartas 500\"; KZV: no such "
	  "category (docs/rules.md 4.3)" },
	{ RPL_P_BONUS_CLEAN14, "bonus_clean14", I(0, 100000), "bonus of a clean canastra A..A (14 cards)",
	  "STBL seed \"Canastra Real 1000\"; ABERTO seed \"limpa de 14 cartas 1000\"; KZV seed \"vale o triplo\" of the "
	  "clean 200 decision (docs/rules.md 4.3)" },
	{ RPL_P_BONUS_DIRTY14, "bonus_dirty14", I(0, 100000), "bonus of a dirty canastra A..A (14 cards)",
	  "KZV seed \"+300 se tiver um coringa\"; STBL, ABERTO: only the highest category (docs/rules.md 4.4, 4.5)" },
	{ RPL_P_BONUS_GOING_OUT, "bonus_going_out", I(0, 100000), "bonus of the side that goes out",
	  "STBL seed \"Batida 100 pontos\"; ABERTO seed \"Batida final soma 100 so a quem fecha\"; KZV: decision "
	  "(docs/rules.md 9.2)" },
	{ RPL_P_PENALTY_NO_MORTO, "penalty_no_morto", I(0, 100000), "penalty of a side that took no morto",
	  "KZV seed \"perde 100 pontos se nao pegou o morto\"; STBL seed \"diminui-se 100 pontos como "
	  "penalidade\"; ABERTO seed \"custa -100\"" },
	{ RPL_P_MAX_WILDS, "max_wilds", I(1, 2), "wilds allowed in one meld",
	  "KZV seed \"no maximo um coringa\"; ABERTO seed \"No maximo 1 substituto\"; STBL: decision "
	  "(docs/rules.md 2.7)" },
	{ RPL_P_WRAP_AS_DIRTY, "wrap_as_dirty", E(0, 2, wrap_names),
	  "true: K-A-2 of one suit is the dirty Q-K-A; narrow: K-A-2 alone is no meld, a longer run may hold the "
	  "suit's 2 as a wild; false: nor may a longer run below a high ace",
	  "KZV seed \"K-A-2 nao existe\" and \"O 2 e coringa em qualquer sequencia onde ele nao ocupa a posicao "
	  "natural dele\": narrow, decision; STBL, ABERTO: decision (docs/rules.md 2.5)" },
	{ RPL_P_WILD_END_DEFAULT, "wild_end_default", E(1, 2, end_names),
	  "where a wild that fits either end goes when the decision does not say",
	  "KZV seed \"o coringa vale 7 ou 10, o que for melhor\"; decision (docs/rules.md 3.2)" },
	{ RPL_P_WILD_MOBILITY, "wild_mobility", E(0, 1, mobility_names),
	  "floating: the engine re-places a meld's wild after each change; fixed: it stays where laid",
	  "KZV seed \"o que for melhor\"; ABERTO seed \"mova substituto\"; STBL seed Obs. and reading "
	  "(docs/rules.md 3.5)" },
	{ RPL_P_PILE_RULE, "pile_rule", E(0, 2, pile_names),
	  "use_any: a pile card must be laid that turn; top_laid: the top card must be; free: no obligation",
	  "KZV seed \"pelo menos uma carta do lixo tem que ir pra mesa\"; STBL seed \"Comprar o lixo\" and decision "
	  "(docs/rules.md 6.3); ABERTO seed \"Comprar nao exige usar topo\"" },
	{ RPL_P_PILE_FREEZES, "pile_freezes", B, "a wild on top of the pile freezes it: nobody may take it",
	  "KZV seed \"o lixo congela\"; ABERTO seed \"sem congelamento\"; STBL: reading (docs/rules.md 6.3)" },
	{ RPL_P_ONE_CARD_PILE_NO_RETURN, "one_card_pile_no_return", E(0, 2, no_return_names),
	  "face: who took a one-card pile may not discard a card of that face in the same turn, even a copy held "
	  "before the take; true: a copy held before may be discarded; false: no such rule",
	  "ABERTO seed \"Se tirar descarte unico, nao devolva essa carta na mesma vez\"; face, a copy held "
	  "before too: decision of 2026-12-01, a log names faces, not copies, and either copy puts the same card back "
	  "on the pile (docs/rules.md 6.5)" },
	{ RPL_P_FIRST_TURN_REJECT, "first_turn_reject", B,
	  "the first player may reject the first card drawn onto the pile and draw the next",
	  "ABERTO seed \"Excecao inicial\" (docs/rules.md 5.3)" },
	{ RPL_P_VULNERABLE_AT, "vulnerable_at", I(0, 1000000), "match total from which a side is vulnerable (0: never)",
	  "ABERTO seed \"Par com acumulado de 1500 ou mais esta vulneravel\"" },
	{ RPL_P_VULNERABLE_MIN_OPEN, "vulnerable_min_open", I(0, 100000),
	  "card points a vulnerable side's first melds must reach in one turn",
	  "ABERTO seed \"devem somar pelo menos 75 em cartas ao mesmo tempo\"" },
	{ RPL_P_OUT_NEEDS_MORTO, "out_needs_morto", B, "a side must have taken its morto to go out",
	  "STBL seed \"Batida - ... ja tenha pegado o morto\"; ABERTO seed \"Batida final apos morto\"; KZV: "
	  "reading (docs/rules.md 8.1)" },
	{ RPL_P_OUT_IF_MORTOS_STOCK, "out_if_mortos_stock", B,
	  "going out is allowed without a morto once both mortos became stock and none was taken",
	  "STBL seed \"nenhum jogador tenha pegado o morto... os dois mortos virarem monte\"; a morto becomes the "
	  "stock when the last stock card is drawn: decision (docs/rules.md 7.4)" },
	{ RPL_P_OUT_CANASTRA, "out_canastra", E(0, 2, canastra_names),
	  "canastra a side needs for the final going out (emptying the hand to take the morto needs none)",
	  "STBL seed \"So pode bater com canastra limpa\", the final going out: decision; ABERTO seed \"Batida final "
	  "apos morto exige canastra limpa\"; KZV: decision (docs/rules.md 8.3)" },
	{ RPL_P_OUT_LAST_CARD, "out_last_card", E(0, 1, last_names),
	  "discard: the final card must be discarded, not melded; any: either",
	  "ABERTO seed \"ultima carta descartada, nao baixada\"; STBL seed \"Batida Direta\"; KZV: decision "
	  "(docs/rules.md 8.4)" },
	{ RPL_P_PENALTY_IF_NONE_TAKEN, "penalty_if_none_taken", B,
	  "the no-morto penalty applies even when no side took a morto",
	  "ABERTO seed \"se nenhum par pegou, nenhum recebe pena\"; STBL seed \"Se outra dupla ou o outro jogador "
	  "nao pegar o morto\"; KZV: decision (docs/rules.md 9.3)" },
	{ RPL_P_UNPLAYED_MORTO_COST, "unplayed_morto_cost", I(0, 100000),
	  "flat cost of a morto picked up indirectly and never played before the opponents went out (0: off)",
	  "ABERTO seed \"Morto pego apos descarte mas nunca usado... custa -100\"" },
	{ RPL_P_PENALTY_NO_MORTO_SIDES, "penalty_no_morto_sides", E(0, 1, penalty_sides_names),
	  "who pays the no-morto penalty: each side without a morto, or each but the side that went out",
	  "STBL seed \"Caso o outro jogador ou dupla nao tenha pegado o morto\" (not_out); a deal without a going "
	  "out: decision (docs/rules.md 9.3); KZV seed \"perde 100 pontos se nao pegou o morto\" (each)" },
};

#undef B
#undef I
#undef E

struct profile {
	const char *name;
	const char *upper;
	int32_t v[RPL_P_COUNT + 1];
};

/* Values in enum rpl_param order (index 0 unused). */
/* clang-format off */ /* a table laid out by hand */
static const struct profile profiles[] = {
	{ "kzv", "KZV",
	  { 0, 1, 1, 3000, 20, 10, 15, 10, 5, 100, 200, 200, 600, 300, 100, 100, 1, RPL_WRAP_NARROW, RPL_END_HIGH,
	    RPL_WILD_FLOATING, RPL_PILE_USE_ANY, 1, 0, 0, 0, 0, 1, 0, RPL_OUT_CANASTRA_ANY, RPL_OUT_LAST_ANY, 1,
	    0, RPL_PENALTY_EACH } },
	{ "stbl", "STBL",
	  { 0, 1, 1, 0, 50, 10, 15, 10, 5, 100, 200, 500, 1000, 100, 100, 100, 1, RPL_WRAP_DIRTY, RPL_END_HIGH,
	    RPL_WILD_FIXED, RPL_PILE_TOP_LAID, 0, 0, 0, 0, 0, 1, 1, RPL_OUT_CANASTRA_CLEAN, RPL_OUT_LAST_ANY, 1,
	    0, RPL_PENALTY_NOT_OUT } },
	{ "aberto", "ABERTO",
	  { 0, 1, 1, 3000, 20, 10, 15, 10, 5, 100, 200, 500, 1000, 100, 100, 100, 1, RPL_WRAP_DIRTY, RPL_END_HIGH,
	    RPL_WILD_FIXED, RPL_PILE_FREE, 0, RPL_NO_RETURN_FACE, 1, 1500, 75, 1, 0, RPL_OUT_CANASTRA_CLEAN,
	    RPL_OUT_LAST_DISCARD, 0, 100, RPL_PENALTY_EACH } },
};
/* clang-format on */
#define NPROFILES (sizeof(profiles) / sizeof(profiles[0]))

static const char *const profile_names[NPROFILES + 1] = { "kzv", "stbl", "aberto", NULL };

size_t rpl_rules_param_count(void)
{
	return RPL_P_COUNT;
}

const rpl_param_info *rpl_rules_param_info(size_t index)
{
	return index < RPL_P_COUNT ? &params[index] : NULL;
}

const rpl_param_info *rpl_rules_param_by_id(int id)
{
	return (id >= 1 && id <= RPL_P_COUNT) ? &params[id - 1] : NULL;
}

const rpl_param_info *rpl_rules_param_by_name(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < RPL_P_COUNT; i++)
		if (strcmp(params[i].name, name) == 0)
			return &params[i];
	return NULL;
}

const char *const *rpl_rules_profiles(void)
{
	return profile_names;
}

static int ieq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		int x = (*a >= 'A' && *a <= 'Z') ? *a + 32 : *a;
		int y = (*b >= 'A' && *b <= 'Z') ? *b + 32 : *b;
		if (x != y)
			return 0;
	}
	return *a == *b;
}

int rpl__rules_init(struct rpl_rules *r, const char *profile)
{
	for (size_t i = 0; i < NPROFILES; i++) {
		if (profile && ieq(profile, profiles[i].name)) {
			memset(r, 0, sizeof(*r));
			memcpy(r->v, profiles[i].v, sizeof(r->v));
			r->profile = (uint8_t)i;
			strcpy(r->profile_name, profiles[i].upper);
			return RPL_OK;
		}
	}
	return RPL_ENOTFOUND;
}

int rpl_rules_new(rpl_rules **out, const char *profile)
{
	struct rpl_rules tmp;
	int err;

	if (!out)
		return RPL_EINVAL;
	*out = NULL;
	err = rpl__rules_init(&tmp, profile);
	if (err < 0)
		return err;
	*out = malloc(sizeof(**out));
	if (!*out)
		return RPL_ENOMEM;
	**out = tmp;
	return RPL_OK;
}

void rpl_rules_free(rpl_rules *r)
{
	free(r);
}

rpl_rules *rpl_rules_clone(const rpl_rules *r)
{
	rpl_rules *c;

	if (!r)
		return NULL;
	c = malloc(sizeof(*c));
	if (c)
		*c = *r;
	return c;
}

const char *rpl_rules_profile(const rpl_rules *r)
{
	return r ? profiles[r->profile].name : "";
}

const char *rpl_rules_errmsg(const rpl_rules *r)
{
	return r ? r->errmsg : "";
}

int rpl_rules_set_id(rpl_rules *r, int id, int value)
{
	const rpl_param_info *p = rpl_rules_param_by_id(id);

	if (!r)
		return RPL_EINVAL;
	if (!p) {
		rpl__msgf(r->errmsg, "no rule parameter has id %d", id);
		return RPL_ENOTFOUND;
	}
	if (value < p->min || value > p->max) {
		rpl__msgf(r->errmsg, "%s: %d is out of range %d..%d", p->name, value, p->min, p->max);
		return RPL_EINVAL;
	}
	if (id == RPL_P_ALLOW_2_PLAYERS && !value && !r->v[RPL_P_ALLOW_4_PLAYERS]) {
		rpl__msgf(r->errmsg, "allow_2_players: some table size must be allowed");
		return RPL_EINVAL;
	}
	if (id == RPL_P_ALLOW_4_PLAYERS && !value && !r->v[RPL_P_ALLOW_2_PLAYERS]) {
		rpl__msgf(r->errmsg, "allow_4_players: some table size must be allowed");
		return RPL_EINVAL;
	}
	r->v[id] = value;
	r->errmsg[0] = '\0';
	return RPL_OK;
}

int rpl_rules_get_id(const rpl_rules *r, int id, int *value)
{
	if (!r || !value)
		return RPL_EINVAL;
	if (id < 1 || id > RPL_P_COUNT)
		return RPL_ENOTFOUND;
	*value = r->v[id];
	return RPL_OK;
}

int rpl_rules_set(rpl_rules *r, const char *name, const char *value)
{
	const rpl_param_info *p;
	long n;
	char *end;

	if (!r || !name || !value)
		return RPL_EINVAL;
	p = rpl_rules_param_by_name(name);
	if (!p) {
		rpl__msgf(r->errmsg, "no rule parameter is named '%.60s'", name);
		return RPL_ENOTFOUND;
	}
	if (p->kind == RPL_PARAM_BOOL) {
		if (ieq(value, "true") || ieq(value, "yes") || strcmp(value, "1") == 0)
			return rpl_rules_set_id(r, p->id, 1);
		if (ieq(value, "false") || ieq(value, "no") || strcmp(value, "0") == 0)
			return rpl_rules_set_id(r, p->id, 0);
		rpl__msgf(r->errmsg, "%s: '%.40s' is not true or false", p->name, value);
		return RPL_EINVAL;
	}
	if (p->kind == RPL_PARAM_ENUM) {
		for (int i = p->min; i <= p->max; i++)
			if (ieq(value, p->names[i]))
				return rpl_rules_set_id(r, p->id, i);
		rpl__msgf(r->errmsg, "%s: '%.40s' is not one of", p->name, value);
		for (int i = p->min; i <= p->max; i++) {
			size_t len = strlen(r->errmsg);
			snprintf(r->errmsg + len, sizeof(r->errmsg) - len, " %s", p->names[i]);
		}
		return RPL_EINVAL;
	}
	n = strtol(value, &end, 10);
	if (end == value || *end != '\0' || n < p->min || n > p->max) {
		rpl__msgf(r->errmsg, "%s: '%.40s' is not a number in %d..%d", p->name, value, p->min, p->max);
		return RPL_EINVAL;
	}
	return rpl_rules_set_id(r, p->id, (int)n);
}

int rpl_rules_get(const rpl_rules *r, const char *name, char *buf, size_t size)
{
	const rpl_param_info *p;
	int v;

	if (!r || !name || !buf)
		return RPL_EINVAL;
	p = rpl_rules_param_by_name(name);
	if (!p)
		return RPL_ENOTFOUND;
	v = r->v[p->id];
	if (p->kind == RPL_PARAM_BOOL)
		snprintf(buf, size, "%s", v ? "true" : "false");
	else if (p->kind == RPL_PARAM_ENUM)
		snprintf(buf, size, "%s", p->names[v]);
	else
		snprintf(buf, size, "%d", v);
	return RPL_OK;
}

int rpl_rules_is_override(const rpl_rules *r, int id)
{
	if (!r || id < 1 || id > RPL_P_COUNT)
		return 0;
	return r->v[id] != profiles[r->profile].v[id];
}

const char *rpl_rule_name(int rule)
{
	switch (rule) {
	case RPL_RULE_NONE: return "none";
	case RPL_RULE_NO_DEAL: return "turn.no_deal";
	case RPL_RULE_MATCH_OVER: return "turn.match_over";
	case RPL_RULE_MUST_DRAW: return "turn.must_draw";
	case RPL_RULE_ALREADY_DREW: return "turn.already_drew";
	case RPL_RULE_MORTO_DUE: return "morto.due";
	case RPL_RULE_MORTO_NOT_DUE: return "morto.not_due";
	case RPL_RULE_MORTO_WRONG: return "morto.wrong";
	case RPL_RULE_NOT_IN_HAND: return "card.not_in_hand";
	case RPL_RULE_BAD_ACTION: return "action.malformed";
	case RPL_RULE_DEAL_NOT_OVER: return "deal.not_over";
	case RPL_RULE_LAYOUT: return "deal.layout";
	case RPL_RULE_TURN_DEAD_END: return "turn.dead_end";
	case RPL_RULE_STOCK_EMPTY: return "stock.empty";
	case RPL_RULE_PILE_EMPTY: return "pile.empty";
	case RPL_RULE_PILE_FROZEN: return "pile.frozen";
	case RPL_RULE_PILE_UNUSABLE: return "pile.unusable";
	case RPL_RULE_PILE_TOP_NOT_LAID: return "pile.top_not_laid";
	case RPL_RULE_PILE_NOT_USED: return "pile.not_used";
	case RPL_RULE_PILE_RETURN: return "pile.return";
	case RPL_RULE_REJECT: return "draw.reject";
	case RPL_RULE_MELD_SHORT: return "meld.short";
	case RPL_RULE_MELD_LONG: return "meld.long";
	case RPL_RULE_MELD_SUIT: return "meld.suit";
	case RPL_RULE_MELD_DUPLICATE: return "meld.duplicate";
	case RPL_RULE_MELD_WILDS: return "meld.wilds";
	case RPL_RULE_MELD_GAP: return "meld.gap";
	case RPL_RULE_MELD_WRAP: return "meld.wrap";
	case RPL_RULE_MELD_END: return "meld.end";
	case RPL_RULE_MELD_NO_SUCH: return "meld.no_such";
	case RPL_RULE_MELD_OPPONENT: return "meld.opponent";
	case RPL_RULE_MELD_WILD_STUCK: return "meld.wild_stuck";
	case RPL_RULE_OPEN_MINIMUM: return "open.minimum";
	case RPL_RULE_OUT_NO_MORTO: return "out.no_morto";
	case RPL_RULE_OUT_NO_CANASTRA: return "out.no_canastra";
	case RPL_RULE_OUT_NO_CLEAN: return "out.no_clean_canastra";
	case RPL_RULE_OUT_MELDED: return "out.melded_last";
	default: return "unknown";
	}
}
