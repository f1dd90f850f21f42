/* brp integrity --html: the screen's report as one page (integrity_html.c). */
#ifndef BRP_INTEGRITY_HTML_H
#define BRP_INTEGRITY_HTML_H

#include "libreplay/integrity.h"

/*
 * Write the page of in's n lines (after rpl_integrity_finish) to out: per
 * statistic, a plot of every subject's z against the null distribution
 * and a table of the lines, each flag with links to its decisions in the
 * logs' brp view pages (paths: the logs by match number). player and pairs
 * choose the lines as the text does. 0, or -1 (said).
 */
int brp_integrity_html(const char *cmd, const char *out, const rpl_integrity *in, long n, const char *const *paths,
                       const char *player, int pairs);

#endif
