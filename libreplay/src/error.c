/* Error codes and version. */
#include "libreplay/common.h"

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

#define RPL_STR2(x) #x
#define RPL_STR(x) RPL_STR2(x)

const char *rpl_version(void)
{
	return RPL_STR(RPL_VERSION_MAJOR) "." RPL_STR(RPL_VERSION_MINOR) "." RPL_STR(RPL_VERSION_PATCH);
}
