/*
 * Private: how every detail message is written (docs/conventions.md,
 * section 4). A message buffer is a char array of RPL_ERRMSG_SIZE bytes; a
 * longer message is cut at that size, never written past it.
 */
#ifndef RPL_MSG_H
#define RPL_MSG_H

#include <stdarg.h>

#include "libreplay/common.h"

#include <stddef.h>

/* Format one line into buf (RPL_ERRMSG_SIZE bytes); returns the length written. */
size_t rpl__msgf(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
size_t rpl__vmsgf(char *buf, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* The same after the first k bytes of buf (a prefix of the caller's context, written by rpl__msgf). */
size_t rpl__vmsgf_at(char *buf, size_t k, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));

#endif
