/*
 * A position as one JSON object: what brp show --json prints and the Python
 * bindings' Match.position returns (docs/view.md describes every field).
 * One writer for both, so that they cannot drift apart.
 */
#include <stdarg.h>
#include <stdio.h>

#include "libreplay/position.h"

#include "base/utf8.h"

/* The text so far: written into buf up to size, counted whole (snprintf's way). */
struct out {
	char *buf;
	size_t size, len;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->len < o->size ? o->buf + o->len : NULL, o->len < o->size ? o->size - o->len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

static void putc_(struct out *o, char c)
{
	if (o->len + 1 < o->size) {
		o->buf[o->len] = c;
		o->buf[o->len + 1] = '\0';
	}
	o->len++;
}

/*
 * s as a JSON string literal: quotes, backslashes and control bytes escaped;
 * well-formed UTF-8 as it is, and each byte that is not U+FFFD (as the export
 * writes it), so that the text is JSON whatever a log's names hold.
 */
static void put_string(struct out *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n;

	putc_(o, '"');
	for (; *p; p++) {
		switch (*p) {
		case '"': put(o, "\\\""); break;
		case '\\': put(o, "\\\\"); break;
		case '\b': put(o, "\\b"); break;
		case '\f': put(o, "\\f"); break;
		case '\n': put(o, "\\n"); break;
		case '\r': put(o, "\\r"); break;
		case '\t': put(o, "\\t"); break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				put(o, "\\u%04x", (unsigned)*p);
			} else if (*p < 0x80) {
				putc_(o, (char)*p);
			} else if ((n = rpl__utf8_len(p)) != 0) {
				for (size_t i = 0; i < n; i++)
					putc_(o, (char)p[i]);
				p += n - 1;
			} else {
				put(o, "\\ufffd");
			}
		}
	}
	putc_(o, '"');
}

static const char *phase_word(int phase)
{
	switch (phase) {
	case RPL_PHASE_DRAW: return "draw";
	case RPL_PHASE_PLAY: return "play";
	case RPL_PHASE_MORTO: return "morto";
	case RPL_PHASE_DEAL_OVER: return "deal_over";
	case RPL_PHASE_MATCH_OVER: return "match_over";
	default: return "no_deal";
	}
}

static const char *kind_word(int kind)
{
	switch (kind) {
	case RPL_POS_DEALT: return "dealt";
	case RPL_POS_DECISION: return "decision";
	case RPL_POS_REFUSED: return "refused";
	default: return "table";
	}
}

static void put_cards(struct out *o, const rpl_card *c, int n)
{
	putc_(o, '[');
	for (int i = 0; i < n && i < RPL_DECK_SIZE; i++)
		put(o, "%s\"%s\"", i ? "," : "", rpl_card_name(c[i]));
	putc_(o, ']');
}

/* A score breakdown as brp verify --json writes one. */
static void put_score(struct out *o, const rpl_score *s)
{
	put(o,
	    "{\"melded\":%d,\"bonus\":%d,\"canastras\":{\"dirty\":%d,\"clean\":%d,\"clean13\":%d,\"clean14\":%d,"
	    "\"dirty14\":%d},\"going_out\":%d,\"hand\":%d,\"morto\":%d,\"total\":%d}",
	    (int)s->melded, (int)s->bonus, (int)s->canastras[RPL_CANASTRA_DIRTY], (int)s->canastras[RPL_CANASTRA_CLEAN],
	    (int)s->canastras[RPL_CANASTRA_CLEAN13], (int)s->canastras[RPL_CANASTRA_CLEAN14],
	    (int)s->canastras[RPL_CANASTRA_DIRTY14], (int)s->going_out, (int)s->hand, (int)s->morto, (int)s->total);
}

/* A meld as brp meld --json writes its arrangement. */
static void put_meld(struct out *o, const rpl_meld_info *m)
{
	put(o,
	    "{\"suit\":\"%c\",\"lo\":%d,\"hi\":%d,\"clean\":%s,\"length\":%d,\"wilds\":%d,\"points\":%d,\"bonus\":%d,"
	    "\"category\":\"%s\",\"arrangement\":[",
	    "cdhs"[m->suit & 3], m -> lo, m -> hi, m -> clean ? "true" : "false", m->length, m->wilds, m->points, m->bonus,
	    rpl_canastra_name(m->category));
	for (int j = 0; j < m->length && j < 14; j++) {
		put(o, "%s{\"pos\":%d,\"card\":\"%s\",\"wild\":%s", j ? "," : "", m->lo + j, rpl_card_name(m->card[j]),
		    m->wild[j] ? "true" : "false");
		if (m->wild[j])
			put(o, ",\"as\":\"%s\"", rpl_card_name(rpl_meld_natural(m->suit, m->lo + j)));
		putc_(o, '}');
	}
	put(o, "]}");
}

size_t rpl_position_json(const rpl_position *p, const rpl_match_info *info, const char *const *notes, size_t nnotes,
                         char *buf, size_t size)
{
	struct out o = { buf, buf ? size : 0, 0 };
	char act[160];
	int nplayers;

	if (o.size)
		buf[0] = '\0';
	if (!p || !info)
		return 0;
	nplayers = p->nplayers < 0 ? 0 : p->nplayers > RPL_MAX_SEATS ? RPL_MAX_SEATS : p->nplayers;
	put(&o, "{\"kind\":\"%s\",\"deal\":%d,\"turn\":%d,\"decision\":%d,\"deal_decision\":%d,\"seat\":%d",
	    kind_word(p->kind), p->deal, p->turn, p->decision, p->deal_decision, p->seat);
	put(&o, ",\"action\":");
	if (p->kind == RPL_POS_DECISION || p->kind == RPL_POS_REFUSED) {
		rpl_action_format(&p->action, act, sizeof(act));
		put_string(&o, act);
	} else {
		put(&o, "null");
	}
	if (p->kind == RPL_POS_REFUSED) {
		put(&o, ",\"rule\":");
		put_string(&o, rpl_rule_name(p->rule));
		put(&o, ",\"message\":");
		put_string(&o, p->message);
	}
	put(&o, ",\"verdict\":\"%s\"", rpl_verdict_name(p->verdict));
	put(&o, ",\"profile\":\"%s\",\"players\":[", rpl_rules_profile(info->rules));
	for (int s = 0; s < nplayers; s++) {
		if (s)
			putc_(&o, ',');
		put_string(&o, info->players[s]);
	}
	put(&o, "],\"dealer\":%d,\"phase\":\"%s\",\"to_move\":%d,\"turns\":%d,\"hands\":[", p->dealer, phase_word(p->phase),
	    p->to_move, p->turns);
	for (int s = 0; s < nplayers; s++) {
		if (s)
			putc_(&o, ',');
		put_cards(&o, p->hand[s], p->hand_count[s]);
	}
	put(&o, "],\"melds\":[");
	for (int side = 0; side < 2; side++) {
		put(&o, side ? ",[" : "[");
		for (int i = 0; i < p->meld_count[side] && i < RPL_MAX_MELDS; i++) {
			if (i)
				putc_(&o, ',');
			put_meld(&o, &p->meld[side][i]);
		}
		putc_(&o, ']');
	}
	put(&o, "],\"pile\":");
	put_cards(&o, p->pile, p->pile_count);
	put(&o, ",\"pile_visible\":%d,\"stock\":%d,\"mortos\":[", p->pile_visible, p->stock_count);
	for (int m = 0; m < 2; m++) {
		int st = p->morto[m];
		if (m)
			putc_(&o, ',');
		if (st == 0 || st == 1)
			put(&o, "{\"state\":\"taken\",\"side\":%d}", st);
		else
			put(&o, "{\"state\":\"%s\"}", st == 2 ? "stock" : "untouched");
	}
	put(&o, "],\"score\":[");
	put_score(&o, &p->score[0]);
	putc_(&o, ',');
	put_score(&o, &p->score[1]);
	put(&o, "],\"total\":[%d,%d],\"vulnerable\":[%s,%s],\"winner\":%d", (int)p->total[0], (int)p->total[1],
	    p->vulnerable[0] ? "true" : "false", p->vulnerable[1] ? "true" : "false", p->winner);
	if (p->claimed)
		put(&o, ",\"claim\":[%d,%d]", (int)p->claim[0], (int)p->claim[1]);
	else
		put(&o, ",\"claim\":null");
	if (p->match_claimed)
		put(&o, ",\"match_claim\":[%d,%d]", (int)p->match_claim[0], (int)p->match_claim[1]);
	else
		put(&o, ",\"match_claim\":null");
	put(&o, ",\"moved\":[");
	for (int i = 0; i < p->nmoves && i < RPL_DECK_SIZE; i++) {
		const rpl_position_move *m = &p->move[i];
		put(&o, "%s{\"card\":\"%s\",\"from\":\"%s\",\"to\":\"%s\"", i ? "," : "", rpl_card_name(m->card),
		    rpl_zone_name(m->from), rpl_zone_name(m->to));
		if (m->from == RPL_ZONE_MORTO)
			put(&o, ",\"morto\":%d", m->morto);
		if (m->to == RPL_ZONE_MELD)
			put(&o, ",\"side\":%d,\"meld\":%d", m->side, m->meld);
		put(&o, ",\"index\":%d}", m->index);
	}
	put(&o, "],\"notes\":[");
	for (size_t i = 0; notes && i < nnotes; i++) {
		if (i)
			putc_(&o, ',');
		put_string(&o, notes[i]);
	}
	put(&o, "]}");
	return o.len;
}
