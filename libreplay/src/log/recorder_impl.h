/* Private: what recorder.c gives the other writers of logs (the import, the salvage). */
#ifndef RPL_RECORDER_IMPL_H
#define RPL_RECORDER_IMPL_H

#include "libreplay/log.h"

/*
 * rpl_recorder_open_signed into fd, a new empty file the caller made and
 * keeps (a temporary file, tmpfile.h: the import's and the salvage's log):
 * the recorder writes the growing form into it and at close replaces its
 * content with the compact form; it never closes fd. Returns as
 * rpl_recorder_open_signed.
 */
int rpl__recorder_open_fd(rpl_recorder **out, int fd, const rpl_match_info *info, unsigned flags,
                          const rpl_seckey *key);

#endif
