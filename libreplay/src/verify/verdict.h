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

#endif
