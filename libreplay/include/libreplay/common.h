/*
 * libreplay common definitions: version, error codes, symbol visibility.
 * Included by every public header; self-contained.
 */
#ifndef LIBREPLAY_COMMON_H
#define LIBREPLAY_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "libreplay/version.h"

/*
 * RPL_API marks the functions the shared library exports; everything else
 * is built hidden (-fvisibility=hidden).
 */
#if defined(_WIN32)
#define RPL_API
#elif defined(__GNUC__)
#define RPL_API __attribute__((visibility("default")))
#else
#define RPL_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Stable error codes: every function that can fail returns 0 or one of
 * these, and a value never changes meaning (docs/conventions.md, section 3).
 */
enum rpl_error {
	RPL_OK = 0,
	RPL_EINVAL = -1,       /* an argument is out of range or malformed */
	RPL_ENOMEM = -2,       /* an allocation failed */
	RPL_EIO = -3,          /* reading or writing a file failed */
	RPL_ECORRUPT = -4,     /* input data is damaged or not of this format */
	RPL_EILLEGAL = -5,     /* a decision breaks a rule (enum rpl_rule says which) */
	RPL_ENOTFOUND = -6,    /* no such profile, parameter, seat or meld */
	RPL_EUNSUPPORTED = -7, /* a newer format or a feature this build lacks */
	RPL_ESTATE = -8,       /* the call is not valid in the object's state */
	RPL_EPARSE = -9,       /* a text could not be parsed */
	RPL_ELIMIT = -10       /* a size or count exceeds a documented limit */
};

/*
 * The size, NUL included, of every buffer that holds a one-line detail
 * message: a handle's, a result's message member (rpl_verdict,
 * rpl_recover_report, rpl_meld_check_result), the err argument of
 * rpl_notation_import and rpl_notation_write. Longer messages are cut.
 */
#define RPL_ERRMSG_SIZE 256

/*
 * A short English description of an error code ("out of memory"; "unknown
 * error" for a value that is not one). Never NULL; static storage, safe
 * from any thread.
 */
RPL_API const char *rpl_strerror(int err);

/*
 * The version of the library linked, as "MAJOR.MINOR.PATCH" (RPL_VERSION is
 * the version of the headers compiled against). Static storage.
 */
RPL_API const char *rpl_version(void);

#ifdef __cplusplus
}
#endif

#endif
