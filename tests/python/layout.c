/* The layout of the public structs the Python bindings declare (bindings/python/libreplay/_ffi.py):
 * "TYPE size N" and "TYPE.FIELD offset N" lines, compared by test_layout.py with cffi's. */
#include <stddef.h>
#include <stdio.h>

#include "libreplay/libreplay.h"

int main(void)
{
	printf("rpl_param_info size %zu\n", sizeof(rpl_param_info));
	printf("rpl_param_info.id offset %zu\n", offsetof(rpl_param_info, id));
	printf("rpl_param_info.name offset %zu\n", offsetof(rpl_param_info, name));
	printf("rpl_param_info.kind offset %zu\n", offsetof(rpl_param_info, kind));
	printf("rpl_param_info.min offset %zu\n", offsetof(rpl_param_info, min));
	printf("rpl_param_info.max offset %zu\n", offsetof(rpl_param_info, max));
	printf("rpl_param_info.names offset %zu\n", offsetof(rpl_param_info, names));
	printf("rpl_param_info.meaning offset %zu\n", offsetof(rpl_param_info, meaning));
	printf("rpl_param_info.source offset %zu\n", offsetof(rpl_param_info, source));
	printf("rpl_meld_info size %zu\n", sizeof(rpl_meld_info));
	printf("rpl_meld_info.suit offset %zu\n", offsetof(rpl_meld_info, suit));
	printf("rpl_meld_info.lo offset %zu\n", offsetof(rpl_meld_info, lo));
	printf("rpl_meld_info.points offset %zu\n", offsetof(rpl_meld_info, points));
	printf("rpl_meld_info.category offset %zu\n", offsetof(rpl_meld_info, category));
	printf("rpl_meld_info.bonus offset %zu\n", offsetof(rpl_meld_info, bonus));
	printf("rpl_meld_info.card offset %zu\n", offsetof(rpl_meld_info, card));
	printf("rpl_meld_info.wild offset %zu\n", offsetof(rpl_meld_info, wild));
	printf("rpl_meld_check_result size %zu\n", sizeof(rpl_meld_check_result));
	printf("rpl_meld_check_result.valid offset %zu\n", offsetof(rpl_meld_check_result, valid));
	printf("rpl_meld_check_result.rule offset %zu\n", offsetof(rpl_meld_check_result, rule));
	printf("rpl_meld_check_result.reason offset %zu\n", offsetof(rpl_meld_check_result, reason));
	printf("rpl_meld_check_result.meld offset %zu\n", offsetof(rpl_meld_check_result, meld));
	printf("rpl_layout size %zu\n", sizeof(rpl_layout));
	printf("rpl_layout.hand offset %zu\n", offsetof(rpl_layout, hand));
	printf("rpl_layout.morto offset %zu\n", offsetof(rpl_layout, morto));
	printf("rpl_layout.stock offset %zu\n", offsetof(rpl_layout, stock));
	printf("rpl_action size %zu\n", sizeof(rpl_action));
	printf("rpl_action.kind offset %zu\n", offsetof(rpl_action, kind));
	printf("rpl_action.side offset %zu\n", offsetof(rpl_action, side));
	printf("rpl_action.meld offset %zu\n", offsetof(rpl_action, meld));
	printf("rpl_action.end offset %zu\n", offsetof(rpl_action, end));
	printf("rpl_action.morto offset %zu\n", offsetof(rpl_action, morto));
	printf("rpl_action.ncards offset %zu\n", offsetof(rpl_action, ncards));
	printf("rpl_action.cards offset %zu\n", offsetof(rpl_action, cards));
	printf("rpl_score size %zu\n", sizeof(rpl_score));
	printf("rpl_score.melded offset %zu\n", offsetof(rpl_score, melded));
	printf("rpl_score.bonus offset %zu\n", offsetof(rpl_score, bonus));
	printf("rpl_score.canastras offset %zu\n", offsetof(rpl_score, canastras));
	printf("rpl_score.going_out offset %zu\n", offsetof(rpl_score, going_out));
	printf("rpl_score.hand offset %zu\n", offsetof(rpl_score, hand));
	printf("rpl_score.morto offset %zu\n", offsetof(rpl_score, morto));
	printf("rpl_score.total offset %zu\n", offsetof(rpl_score, total));
	printf("rpl_deal_stats size %zu\n", sizeof(rpl_deal_stats));
	printf("rpl_deal_stats.turns offset %zu\n", offsetof(rpl_deal_stats, turns));
	printf("rpl_deal_stats.actions offset %zu\n", offsetof(rpl_deal_stats, actions));
	printf("rpl_deal_stats.vulnerable_open offset %zu\n", offsetof(rpl_deal_stats, vulnerable_open));
	printf("rpl_deal_stats.end offset %zu\n", offsetof(rpl_deal_stats, end));
	printf("rpl_deal_stats.out_seat offset %zu\n", offsetof(rpl_deal_stats, out_seat));
	printf("rpl_match_info size %zu\n", sizeof(rpl_match_info));
	printf("rpl_match_info.rules offset %zu\n", offsetof(rpl_match_info, rules));
	printf("rpl_match_info.nplayers offset %zu\n", offsetof(rpl_match_info, nplayers));
	printf("rpl_match_info.players offset %zu\n", offsetof(rpl_match_info, players));
	printf("rpl_match_info.first_dealer offset %zu\n", offsetof(rpl_match_info, first_dealer));
	printf("rpl_match_info.start_time offset %zu\n", offsetof(rpl_match_info, start_time));
	printf("rpl_match_info.nmeta offset %zu\n", offsetof(rpl_match_info, nmeta));
	printf("rpl_match_info.meta_keys offset %zu\n", offsetof(rpl_match_info, meta_keys));
	printf("rpl_match_info.meta_values offset %zu\n", offsetof(rpl_match_info, meta_values));
	printf("rpl_event size %zu\n", sizeof(rpl_event));
	printf("rpl_event.kind offset %zu\n", offsetof(rpl_event, kind));
	printf("rpl_event.deal offset %zu\n", offsetof(rpl_event, deal));
	printf("rpl_event.turn offset %zu\n", offsetof(rpl_event, turn));
	printf("rpl_event.seat offset %zu\n", offsetof(rpl_event, seat));
	printf("rpl_event.action offset %zu\n", offsetof(rpl_event, action));
	printf("rpl_event.layout offset %zu\n", offsetof(rpl_event, layout));
	printf("rpl_event.score offset %zu\n", offsetof(rpl_event, score));
	printf("rpl_event.recovered offset %zu\n", offsetof(rpl_event, recovered));
	printf("rpl_event.offset offset %zu\n", offsetof(rpl_event, offset));
	printf("rpl_verdict size %zu\n", sizeof(rpl_verdict));
	printf("rpl_verdict.kind offset %zu\n", offsetof(rpl_verdict, kind));
	printf("rpl_verdict.message offset %zu\n", offsetof(rpl_verdict, message));
	printf("rpl_verdict.deal offset %zu\n", offsetof(rpl_verdict, deal));
	printf("rpl_verdict.turn offset %zu\n", offsetof(rpl_verdict, turn));
	printf("rpl_verdict.seat offset %zu\n", offsetof(rpl_verdict, seat));
	printf("rpl_verdict.action offset %zu\n", offsetof(rpl_verdict, action));
	printf("rpl_verdict.rule offset %zu\n", offsetof(rpl_verdict, rule));
	printf("rpl_verdict.side offset %zu\n", offsetof(rpl_verdict, side));
	printf("rpl_verdict.claim_deal offset %zu\n", offsetof(rpl_verdict, claim_deal));
	printf("rpl_verdict.claimed offset %zu\n", offsetof(rpl_verdict, claimed));
	printf("rpl_verdict.computed offset %zu\n", offsetof(rpl_verdict, computed));
	printf("rpl_verdict.breakdown offset %zu\n", offsetof(rpl_verdict, breakdown));
	printf("rpl_verdict.offset offset %zu\n", offsetof(rpl_verdict, offset));
	printf("rpl_verdict.deals offset %zu\n", offsetof(rpl_verdict, deals));
	printf("rpl_verdict.actions offset %zu\n", offsetof(rpl_verdict, actions));
	printf("rpl_verdict.total offset %zu\n", offsetof(rpl_verdict, total));
	printf("rpl_verdict.winner offset %zu\n", offsetof(rpl_verdict, winner));
	printf("rpl_verdict.recovered offset %zu\n", offsetof(rpl_verdict, recovered));
	printf("rpl_verdict.bytes offset %zu\n", offsetof(rpl_verdict, bytes));
	printf("rpl_verify_observer size %zu\n", sizeof(rpl_verify_observer));
	printf("rpl_verify_observer.ctx offset %zu\n", offsetof(rpl_verify_observer, ctx));
	printf("rpl_verify_observer.before offset %zu\n", offsetof(rpl_verify_observer, before));
	printf("rpl_verify_observer.after offset %zu\n", offsetof(rpl_verify_observer, after));
	printf("rpl_rng size %zu\n", sizeof(rpl_rng));
	printf("rpl_rng.s offset %zu\n", offsetof(rpl_rng, s));
	return 0;
}
