/* Private: what recorder.c gives the other writers of logs (the import, the salvage). */
#ifndef RPL_RECORDER_IMPL_H
#define RPL_RECORDER_IMPL_H

#include "libreplay/log.h"

/*
 * rpl_recorder_open_signed into fd, a new empty file the caller made and
 * keeps (a temporary file, tmpfile.h: the import's and the salvage's log):
 * the recorder writes the growing form into it and at close replaces its
 * content with the compact form; it never closes fd. version: 0 for the
 * newest format version, or an older one that can hold the match (2: dealt
 * freely and unsigned; 3: protocol 1; 4: not protocol 1; 5 and 6; 7: dealt
 * freely), which the import of a text with [FormatVersion] writes again
 * (docs/notation.md); another is RPL_EINVAL. Returns as
 * rpl_recorder_open_signed.
 */
int rpl__recorder_open_fd(rpl_recorder **out, int fd, const rpl_match_info *info, unsigned flags, const rpl_seckey *key,
                          int version);
/* rpl_recorder_open_memory in a version as rpl__recorder_open_fd's (the salvage's: its input's, where 7 would lose it). */
int rpl__recorder_open_memory(rpl_recorder **out, const rpl_match_info *info, unsigned flags, const rpl_seckey *key,
                              int version);

#endif
