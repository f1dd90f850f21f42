/* A verdict in one line: what brp verify prints after the path, and brp view shows. */
#include <stdio.h>

#include "libreplay/log.h"

size_t rpl_verdict_format(const rpl_verdict *v, char *buf, size_t size)
{
	char act[160];
	int n;

	if (!v)
		return 0;
	switch (v->kind) {
	case RPL_VERDICT_ILLEGAL:
		if (v->turn > 0) {
			rpl_action_format(&v->action, act, sizeof(act));
			n = snprintf(buf, size, "%s: deal %d, turn %d, seat %d: %s: %s: %s", rpl_verdict_name(v->kind), v->deal,
			             v->turn, v->seat, act, rpl_rule_name(v->rule), v->message);
		} else {
			n = snprintf(buf, size, "%s: deal %d: %s: %s", rpl_verdict_name(v->kind), v->deal,
			             rpl_rule_name(v->rule), v->message);
		}
		break;
	case RPL_VERDICT_MALFORMED:
		n = snprintf(buf, size, "%s: %s", rpl_verdict_name(v->kind), v->message);
		break;
	default:
		n = snprintf(buf, size, "%s: %s%s", rpl_verdict_name(v->kind), v->message,
		             v->recovered ? " (recovered log)" : "");
		break;
	}
	return n < 0 ? 0 : (size_t)n;
}
