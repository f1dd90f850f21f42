/* The words of a verdict: the names of its kinds, and its line (what brp verify prints after the path, brp view shows). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "libreplay/deal.h"
#include "verify/verdict.h"

const char *rpl_verdict_name(int kind)
{
	switch (kind) {
	case RPL_VERDICT_OK: return "ok";
	case RPL_VERDICT_ILLEGAL: return "illegal";
	case RPL_VERDICT_MISMATCH: return "mismatch";
	case RPL_VERDICT_INCOMPLETE: return "incomplete";
	case RPL_VERDICT_MALFORMED: return "malformed";
	case RPL_VERDICT_TAMPERED: return "tampered";
	case RPL_VERDICT_UNTRUSTED: return "untrusted";
	default: return "unknown";
	}
}

const char *rpl_deal_commitment_name(int status)
{
	switch (status) {
	case RPL_DEAL_NONE: return "none";
	case RPL_DEAL_UNREVEALED: return "unrevealed";
	case RPL_DEAL_REVEALED: return "revealed";
	case RPL_DEAL_MISMATCH: return "mismatch";
	default: return "unknown";
	}
}

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

/* A key by its id and by its public key: "key 9B2A... (fingerprint 0a1b...)"; by its id alone without fp. */
static void add_key(char *buf, size_t size, size_t *len, const rpl_pubkey *pk, int fp)
{
	char id[RPL_KEY_ID_TEXT], f[RPL_KEY_FINGERPRINT_TEXT];

	rpl_key_id_format(pk->id, id);
	add(buf, size, len, "key %s", id);
	if (fp) {
		rpl_pubkey_fingerprint(pk, f);
		add(buf, size, len, " (fingerprint %s)", f);
	}
}

static int same_key(const rpl_pubkey *a, const rpl_pubkey *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

/* What a key that is not trusted is: an impostor's is said to be one. */
static void add_untrusted_key(char *buf, size_t size, size_t *len, const rpl_signature_report *sr, const rpl_pubkey *pk,
                              int fp)
{
	add_key(buf, size, len, pk, fp);
	if (sr->id_clash && same_key(&sr->clash_key, pk))
		add(buf, size, len, ", which carries the id of a trusted key but is another key");
	else
		add(buf, size, len, ", which is not a trusted key");
}

/* An illegal decision: with its seat and cards (trusted bytes, or no keys), or only where and which rule. */
static void add_illegal(char *buf, size_t size, size_t *len, const rpl_verdict *v, int blame, const char *message)
{
	char act[160];

	if (!blame) {
		if (v->turn > 0)
			add(buf, size, len, "deal %d, turn %d (%s)", v->deal, v->turn, rpl_rule_name(v->rule));
		else
			add(buf, size, len, "deal %d (%s)", v->deal, rpl_rule_name(v->rule));
	} else if (v->turn > 0) {
		rpl_action_format(&v->action, act, sizeof(act));
		add(buf, size, len, "deal %d, turn %d, seat %d: %s: %s: %s", v->deal, v->turn, v->seat, act,
		    rpl_rule_name(v->rule), message);
	} else {
		add(buf, size, len, "deal %d: %s: %s", v->deal, rpl_rule_name(v->rule), message);
	}
}

/*
 * "; deal commitment STATUS", and, for deals the seed derives (revealed, or
 * to be), why they are only as fair as the platform when they are: a seat
 * that added no seed (the platform could choose its seed after hearing the
 * others), or protocol 1, whose commitment binds the seed alone
 * (docs/security.md). why 0: the status alone (a message, which is short).
 */
static void dealing_clause(const rpl_verdict *v, int why, char *buf, size_t size, size_t *len)
{
	int short_seeds = v->player_seeds < v->players, v1 = v->commit_version == RPL_COMMIT_V1;

	add(buf, size, len, "; deal commitment %s", rpl_deal_commitment_name(v->deal_commitment));
	if (!why || (v->deal_commitment != RPL_DEAL_REVEALED && v->deal_commitment != RPL_DEAL_UNREVEALED))
		return;
	if (short_seeds)
		add(buf, size, len, ", %d of %d players added a seed", v->player_seeds, v->players);
	if (v1)
		add(buf, size, len, ", protocol 1 commits to the seed alone");
	if (short_seeds || v1)
		add(buf, size, len, ": the deals are only as fair as the platform");
}

size_t rpl__verdict_untrusted_text(const rpl_verdict *v, int fp, char *buf, size_t size)
{
	const rpl_signature_report *sr = &v->signature;
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	/* who covers what */
	if (v->keys == 0) {
		/* no keys: the header declares the log signed, and no signature covers its end */
		if (sr->status == RPL_SIG_UNSIGNED) {
			add(buf, size, &len,
			    "the header declares the log signed, but no signature is in it: none covers bytes 0 to %llu",
			    (unsigned long long)sr->size);
		} else {
			add(buf, size, &len,
			    "the header declares the log signed, but no signature covers bytes %llu to %llu: the last, by ",
			    (unsigned long long)sr->covered, (unsigned long long)sr->size);
			add_key(buf, size, &len, &sr->key, fp);
			add(buf, size, &len, ", signs bytes 0 to %llu", (unsigned long long)sr->covered);
		}
	} else if (sr->status == RPL_SIG_UNSIGNED) {
		add(buf, size, &len, "%s, and trusted keys were given",
		    v->header_flags & RPL_LOG_SIGNED ? "the header declares the log signed, but no signature is in it"
		                                     : "unsigned");
	} else if (sr->trusted_covered == 0) {
		add(buf, size, &len, "signed by ");
		add_untrusted_key(buf, size, &len, sr, &sr->key, fp);
		if (sr->covered < sr->size)
			add(buf, size, &len, ", up to byte %llu of %llu; no key signs the rest", (unsigned long long)sr->covered,
			    (unsigned long long)sr->size);
	} else {
		add(buf, size, &len, "the trusted ");
		add_key(buf, size, &len, &sr->trusted_key, fp);
		add(buf, size, &len, " signs bytes 0 to %llu of %llu", (unsigned long long)sr->trusted_covered,
		    (unsigned long long)sr->size);
		if (sr->covered > sr->trusted_covered) {
			add(buf, size, &len, "; %s is signed by ", sr->covered < sr->size ? "what follows" : "the rest");
			add_untrusted_key(buf, size, &len, sr, &sr->key, fp);
			if (sr->covered < sr->size)
				add(buf, size, &len, ", up to byte %llu; no key signs the rest", (unsigned long long)sr->covered);
		} else {
			add(buf, size, &len, "; no key signs the rest");
		}
	}
	if (sr->id_clash && !same_key(&sr->clash_key, &sr->key)) {
		add(buf, size, &len, "; ");
		add_key(buf, size, &len, &sr->clash_key, fp);
		add(buf, size, &len, ", which signs part of it, carries the id of a trusted key but is another key");
	}
	/* what the replay found, and where */
	if (v->replay_trusted)
		add(buf, size, &len, "; in the trusted bytes the replay finds %s", rpl_verdict_name(v->replay));
	else if (sr->trusted_covered > 0)
		add(buf, size, &len, "; in the rest the replay finds %s", rpl_verdict_name(v->replay));
	else
		add(buf, size, &len, "; the replay finds %s", rpl_verdict_name(v->replay));
	add(buf, size, &len, ": ");
	if (v->replay == RPL_VERDICT_ILLEGAL)
		add_illegal(buf, size, &len, v, v->replay_trusted, v->replay_message);
	else
		add(buf, size, &len, "%s", v->replay_message);
	if (v->recovered)
		add(buf, size, &len, " (recovered log)");
	if (v->deal_commitment != RPL_DEAL_NONE)
		dealing_clause(v, fp, buf, size, &len);
	return len;
}

size_t rpl__verdict_replay_text(const rpl_verdict *v, char *buf, size_t size)
{
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	if (v->replay == RPL_VERDICT_ILLEGAL && !v->replay_trusted)
		add_illegal(buf, size, &len, v, 0, NULL);
	else
		add(buf, size, &len, "%s", v->replay_message);
	return len;
}

size_t rpl_verdict_format(const rpl_verdict *v, char *buf, size_t size)
{
	const rpl_signature_report *sr;
	size_t len = 0;
	int shown;

	if (!v)
		return 0;
	if (size)
		buf[0] = '\0';
	/* a log without its end section may lack what came after its last section: said on every line */
	shown = v->kind == RPL_VERDICT_UNTRUSTED ? v->replay : v->kind;
	add(buf, size, &len, "%s%s: ", rpl_verdict_name(v->kind),
	    shown != RPL_VERDICT_MALFORMED && !v->closed ? ", unclosed" : "");
	switch (v->kind) {
	case RPL_VERDICT_ILLEGAL: add_illegal(buf, size, &len, v, 1, v->message); break;
	case RPL_VERDICT_UNTRUSTED: {
		size_t n = rpl__verdict_untrusted_text(v, 1, len < size ? buf + len : NULL, len < size ? size - len : 0);
		len += n;
		return len; /* it names every signer */
	}
	case RPL_VERDICT_MALFORMED:
	case RPL_VERDICT_TAMPERED: add(buf, size, &len, "%s", v->message); break;
	default:
		add(buf, size, &len, "%s%s", v->message, v->recovered ? " (recovered log)" : "");
		if (v->deal_commitment != RPL_DEAL_NONE)
			dealing_clause(v, 1, buf, size, &len);
		break;
	}
	/* who signed, when someone did (a tampered verdict's message says it already) */
	sr = &v->signature;
	if (v->kind != RPL_VERDICT_TAMPERED && sr->status != RPL_SIG_UNSIGNED) {
		if (sr->trusted && !sr->key_trusted) {
			/* a countersignature by another key after the trusted one */
			add(buf, size, &len, "; signed by the trusted ");
			add_key(buf, size, &len, &sr->trusted_key, 1);
			add(buf, size, &len, ", countersigned by ");
			add_key(buf, size, &len, &sr->key, 1);
		} else {
			add(buf, size, &len, "; signed by %s", sr->trusted ? "the trusted " : "");
			add_key(buf, size, &len, &sr->key, 1);
		}
		if (sr->status == RPL_SIG_PARTIAL)
			add(buf, size, &len, " up to byte %llu of %llu (partial)", (unsigned long long)sr->covered,
			    (unsigned long long)sr->size);
	}
	return len;
}

int rpl__signatures_judge(const rpl_signature_report *sr, size_t keys, unsigned header_flags)
{
	if (sr->status == RPL_SIG_INVALID)
		return RPL_VERDICT_TAMPERED;
	if (keys > 0)
		return sr->trusted ? RPL_VERDICT_OK : RPL_VERDICT_UNTRUSTED;
	/* without keys, a log that says it is signed must be: a cut of its signatures is not ok */
	if ((header_flags & RPL_LOG_SIGNED) && (sr->status == RPL_SIG_UNSIGNED || sr->status == RPL_SIG_PARTIAL))
		return RPL_VERDICT_UNTRUSTED;
	return RPL_VERDICT_OK;
}
