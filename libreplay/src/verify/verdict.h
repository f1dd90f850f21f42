/* Private: the words of a verdict, shared by verification (its message) and rpl_verdict_format (its line). */
#ifndef RPL_VERDICT_H
#define RPL_VERDICT_H

#include <stddef.h>

#include "libreplay/log.h"

/*
 * What an untrusted verdict says after "untrusted: ": what the trusted keys
 * cover, who signed the rest, and what the replay found (the seat of an
 * illegal decision only when it lies in trusted bytes). fp: each key by its
 * fingerprint too (the line; the message leaves them to the signature
 * report, to keep within its size). Into buf as snprintf does; returns the
 * length the whole text needs.
 */
size_t rpl__verdict_untrusted_text(const rpl_verdict *v, int fp, char *buf, size_t size);

/*
 * What the replay of a tampered or untrusted log found, as a row may give it
 * beside the verdict (the export's replay_detail): the replay's own message,
 * except for an illegal decision in bytes no trusted key signs, whose
 * message names its seat and cards ("seat 1 already drew this turn"): then
 * only where and which rule, as the line says it ("deal 2, turn 2
 * (turn.already_drew)"). Into buf as snprintf does; returns the length the
 * whole text needs.
 */
size_t rpl__verdict_replay_text(const rpl_verdict *v, char *buf, size_t size);

/*
 * What a log's signatures make of its verdict, whatever the replay found
 * (docs/security.md, "Signed logs"): RPL_VERDICT_TAMPERED when a signature
 * does not verify; RPL_VERDICT_UNTRUSTED when trusted keys were given (keys
 * > 0) and none covers the whole log, or, without keys, when the header
 * declares the log signed (header_flags) and no signature covers its end;
 * else RPL_VERDICT_OK (the replay's finding stands). The one rule of
 * verification (judge_signatures) and of the positions (their running
 * verdict).
 */
int rpl__signatures_judge(const rpl_signature_report *sr, size_t keys, unsigned header_flags);

#endif
