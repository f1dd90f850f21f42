/* Error codes, the message writer and the version. */
#include <stdio.h>

#include "libreplay/common.h"
#include "base/msg.h"

const char *rpl_strerror(int err)
{
	switch (err) {
	case RPL_OK: return "success";
	case RPL_EINVAL: return "invalid argument";
	case RPL_ENOMEM: return "out of memory";
	case RPL_EIO: return "input/output error";
	case RPL_ECORRUPT: return "damaged or unrecognised data";
	case RPL_EILLEGAL: return "illegal decision";
	case RPL_ENOTFOUND: return "not found";
	case RPL_EUNSUPPORTED: return "not supported";
	case RPL_ESTATE: return "not valid in this state";
	case RPL_EPARSE: return "syntax error";
	case RPL_ELIMIT: return "limit exceeded";
	default: return "unknown error";
	}
}

size_t rpl__vmsgf_at(char *buf, size_t k, const char *fmt, va_list ap)
{
	int n;

	if (k >= RPL_ERRMSG_SIZE - 1)
		return RPL_ERRMSG_SIZE - 1;
	n = vsnprintf(buf + k, RPL_ERRMSG_SIZE - k, fmt, ap);
	if (n < 0) {
		buf[k] = '\0';
		return k;
	}
	return k + (size_t)n < RPL_ERRMSG_SIZE ? k + (size_t)n : RPL_ERRMSG_SIZE - 1;
}

size_t rpl__vmsgf(char *buf, const char *fmt, va_list ap)
{
	return rpl__vmsgf_at(buf, 0, fmt, ap);
}

size_t rpl__msgf(char *buf, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = rpl__vmsgf(buf, fmt, ap);
	va_end(ap);
	return n;
}

const char *rpl_version(void)
{
	return RPL_VERSION;
}
