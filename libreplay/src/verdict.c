/* A verdict in one line: what brp verify prints after the path, and brp view shows. */
#include <stdarg.h>
#include <stdio.h>

#include "libreplay/deal.h"
#include "libreplay/log.h"
#include "libreplay/sign.h"

/* Append to buf at *len (snprintf's way: *len counts what would have been written). */
static void add(char *buf, size_t size, size_t *len, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void add(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*len < size ? buf + *len : NULL, *len < size ? size - *len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += (size_t)n;
}

/*
 * "; deal commitment STATUS", and, for deals the seed derives (revealed, or
 * to be), why they are only as fair as the platform when they are: a seat
 * that added no seed (the platform could choose its seed after hearing the
 * others), or protocol 1, whose commitment binds the seed alone (docs/security.md).
 */
static void dealing_clause(const rpl_verdict *v, char *buf, size_t size, size_t *len)
{
	int short_seeds = v->player_seeds < v->players, v1 = v->commit_version == RPL_COMMIT_V1;

	add(buf, size, len, "; deal commitment %s", rpl_deal_commitment_name(v->deal_commitment));
	if (v->deal_commitment != RPL_DEAL_REVEALED && v->deal_commitment != RPL_DEAL_UNREVEALED)
		return;
	if (short_seeds)
		add(buf, size, len, ", %d of %d players added a seed", v->player_seeds, v->players);
	if (v1)
		add(buf, size, len, ", protocol 1 commits to the seed alone");
	if (short_seeds || v1)
		add(buf, size, len, ": the deals are only as fair as the platform");
}

size_t rpl_verdict_format(const rpl_verdict *v, char *buf, size_t size)
{
	const rpl_signature_report *sr;
	char act[160], id[RPL_KEY_ID_TEXT];
	size_t len = 0;

	if (!v)
		return 0;
	if (size)
		buf[0] = '\0';
	/* a log without its end section may lack what came after its last section: said on every line */
	add(buf, size, &len, "%s%s: ", rpl_verdict_name(v->kind),
	    v->kind != RPL_VERDICT_MALFORMED && !v->closed ? ", unclosed" : "");
	switch (v->kind) {
	case RPL_VERDICT_ILLEGAL:
		if (v->turn > 0) {
			rpl_action_format(&v->action, act, sizeof(act));
			add(buf, size, &len, "deal %d, turn %d, seat %d: %s: %s: %s", v->deal, v->turn, v->seat, act,
			    rpl_rule_name(v->rule), v->message);
		} else {
			add(buf, size, &len, "deal %d: %s: %s", v->deal, rpl_rule_name(v->rule), v->message);
		}
		break;
	case RPL_VERDICT_MALFORMED:
	case RPL_VERDICT_TAMPERED: add(buf, size, &len, "%s", v->message); break;
	default:
		add(buf, size, &len, "%s%s", v->message, v->recovered ? " (recovered log)" : "");
		if (v->deal_commitment != RPL_DEAL_NONE)
			dealing_clause(v, buf, size, &len);
		break;
	}
	/* who signed, when someone did (a tampered or untrusted verdict's message says it already) */
	sr = &v->signature;
	if (v->kind != RPL_VERDICT_TAMPERED && v->kind != RPL_VERDICT_UNTRUSTED && sr->status != RPL_SIG_UNSIGNED) {
		rpl_key_id_format(sr->key.id, id);
		if (sr->status == RPL_SIG_OK)
			add(buf, size, &len, "; signed by key %s%s", id, sr->key_trusted ? " (trusted)" : "");
		else if (sr->status == RPL_SIG_PARTIAL)
			add(buf, size, &len, "; signed by key %s%s up to byte %llu of %llu (partial)", id,
			    sr->key_trusted ? " (trusted)" : "", (unsigned long long)sr->covered, (unsigned long long)sr->size);
	}
	return len;
}
