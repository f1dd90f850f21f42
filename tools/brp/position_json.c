/* A position as one JSON object: brp show --json (docs/view.md describes every field). */
#include "brp.h"

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

static void json_cards(FILE *f, const rpl_card *c, int n)
{
	fputc('[', f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s\"%s\"", i ? "," : "", rpl_card_name(c[i]));
	fputc(']', f);
}

void brp_json_score(FILE *f, const rpl_score *s)
{
	fprintf(f,
	        "{\"melded\":%d,\"bonus\":%d,\"canastras\":{\"dirty\":%d,\"clean\":%d,\"clean13\":%d,\"clean14\":%d,"
	        "\"dirty14\":%d},\"going_out\":%d,\"hand\":%d,\"morto\":%d,\"total\":%d}",
	        (int)s->melded, (int)s->bonus, (int)s->canastras[RPL_CANASTRA_DIRTY], (int)s->canastras[RPL_CANASTRA_CLEAN],
	        (int)s->canastras[RPL_CANASTRA_CLEAN13], (int)s->canastras[RPL_CANASTRA_CLEAN14],
	        (int)s->canastras[RPL_CANASTRA_DIRTY14], (int)s->going_out, (int)s->hand, (int)s->morto, (int)s->total);
}

static void json_meld(FILE *f, const rpl_meld_info *m)
{
	fprintf(f, "{\"suit\":\"%c\",\"lo\":%d,\"hi\":%d,\"clean\":%s,\"length\":%d,\"wilds\":%d,\"points\":%d,\"bonus\":%d,"
	        "\"category\":\"%s\",\"arrangement\":[",
	        "cdhs"[m->suit & 3], m->lo, m->hi, m->clean ? "true" : "false", m->length, m->wilds, m->points, m->bonus,
	        rpl_canastra_name(m->category));
	for (int j = 0; j < m->length; j++) {
		fprintf(f, "%s{\"pos\":%d,\"card\":\"%s\",\"wild\":%s", j ? "," : "", m->lo + j, rpl_card_name(m->card[j]),
		        m->wild[j] ? "true" : "false");
		if (m->wild[j])
			fprintf(f, ",\"as\":\"%s\"", rpl_card_name(rpl_meld_natural(m->suit, m->lo + j)));
		fputc('}', f);
	}
	fputs("]}", f);
}

void brp_json_position(FILE *f, const rpl_position *p, const rpl_match_info *info, char (*notes)[BRP_NOTE_SIZE], int nnotes)
{
	char act[160];

	fprintf(f, "{\"kind\":\"%s\",\"deal\":%d,\"turn\":%d,\"decision\":%d,\"deal_decision\":%d,\"seat\":%d",
	        kind_word(p->kind), p->deal, p->turn, p->decision, p->deal_decision, p->seat);
	fputs(",\"action\":", f);
	if (p->kind == RPL_POS_DECISION || p->kind == RPL_POS_REFUSED) {
		rpl_action_format(&p->action, act, sizeof(act));
		brp_json_string(f, act);
	} else {
		fputs("null", f);
	}
	if (p->kind == RPL_POS_REFUSED) {
		fputs(",\"rule\":", f);
		brp_json_string(f, rpl_rule_name(p->rule));
		fputs(",\"message\":", f);
		brp_json_string(f, p->message);
	}
	fprintf(f, ",\"verdict\":\"%s\"", rpl_verdict_name(p->verdict));
	fprintf(f, ",\"profile\":\"%s\",\"players\":[", rpl_rules_profile(info->rules));
	for (int s = 0; s < p->nplayers; s++) {
		if (s)
			fputc(',', f);
		brp_json_string(f, info->players[s] ? info->players[s] : "");
	}
	fprintf(f, "],\"dealer\":%d,\"phase\":\"%s\",\"to_move\":%d,\"turns\":%d,\"hands\":[", p->dealer,
	        phase_word(p->phase), p->to_move, p->turns);
	for (int s = 0; s < p->nplayers; s++) {
		if (s)
			fputc(',', f);
		json_cards(f, p->hand[s], p->hand_count[s]);
	}
	fputs("],\"melds\":[", f);
	for (int side = 0; side < 2; side++) {
		fputs(side ? ",[" : "[", f);
		for (int i = 0; i < p->meld_count[side]; i++) {
			if (i)
				fputc(',', f);
			json_meld(f, &p->meld[side][i]);
		}
		fputc(']', f);
	}
	fputs("],\"pile\":", f);
	json_cards(f, p->pile, p->pile_count);
	fprintf(f, ",\"pile_visible\":%d,\"stock\":%d,\"mortos\":[", p->pile_visible, p->stock_count);
	for (int m = 0; m < 2; m++) {
		int st = p->morto[m];
		if (m)
			fputc(',', f);
		if (st == 0 || st == 1)
			fprintf(f, "{\"state\":\"taken\",\"side\":%d}", st);
		else
			fprintf(f, "{\"state\":\"%s\"}", st == 2 ? "stock" : "untouched");
	}
	fputs("],\"score\":[", f);
	brp_json_score(f, &p->score[0]);
	fputc(',', f);
	brp_json_score(f, &p->score[1]);
	fprintf(f, "],\"total\":[%d,%d],\"vulnerable\":[%s,%s],\"winner\":%d", (int)p->total[0], (int)p->total[1],
	        p->vulnerable[0] ? "true" : "false", p->vulnerable[1] ? "true" : "false", p->winner);
	if (p->claimed)
		fprintf(f, ",\"claim\":[%d,%d]", (int)p->claim[0], (int)p->claim[1]);
	else
		fputs(",\"claim\":null", f);
	if (p->match_claimed)
		fprintf(f, ",\"match_claim\":[%d,%d]", (int)p->match_claim[0], (int)p->match_claim[1]);
	else
		fputs(",\"match_claim\":null", f);
	fputs(",\"moved\":[", f);
	for (int i = 0; i < p->nmoves; i++) {
		const rpl_position_move *m = &p->move[i];
		fprintf(f, "%s{\"card\":\"%s\",\"from\":\"%s\",\"to\":\"%s\"", i ? "," : "", rpl_card_name(m->card),
		        rpl_zone_name(m->from), rpl_zone_name(m->to));
		if (m->from == RPL_ZONE_MORTO)
			fprintf(f, ",\"morto\":%d", m->morto);
		if (m->to == RPL_ZONE_MELD)
			fprintf(f, ",\"side\":%d,\"meld\":%d", m->side, m->meld);
		fprintf(f, ",\"index\":%d}", m->index);
	}
	fputs("],\"notes\":[", f);
	for (int i = 0; i < nnotes; i++) {
		if (i)
			fputc(',', f);
		brp_json_string(f, notes[i]);
	}
	fputs("]}\n", f);
}
