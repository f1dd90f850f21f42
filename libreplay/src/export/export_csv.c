/*
 * Export, step 2b: the CSV sink. RFC 4180 through libcsv's quoting, CRLF
 * line ends, a header row, UTF-8. Numbers are integers written by hand
 * (nothing depends on the locale); text is always quoted, and text that a
 * spreadsheet would read as a formula gets a leading ' (docs/schema.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csv.h>

#include "export/export_table.h"
#include "base/msg.h"
#include "log/tmpfile.h"

struct rpl_export_csv {
	char *dir;
	unsigned flags;
	FILE *f[XT_COUNT];
	struct rpl__tmpfile tmp[XT_COUNT]; /* each table's new file (tmpfile.h), until put in place */
	int nfield;                        /* fields written in the current row */
	int finished;
	struct xseen seen;       /* copies added */
	struct xplayers players; /* the players table, written at finish */
	char errmsg[RPL_ERRMSG_SIZE];
};

/*
 * Record what failed: what names a file by its table (the caller knows the
 * directory), e is the errno. Running out of memory says only that.
 */
static int csv_fail(rpl_export_csv *w, int err, const char *what, int e)
{
	char detail[128];

	if (err == RPL_ENOMEM) {
		rpl__msgf(w->errmsg, "out of memory");
		return err;
	}
	if (strerror_r(e, detail, sizeof(detail)) != 0)
		snprintf(detail, sizeof(detail), "error %d", e);
	rpl__msgf(w->errmsg, "%s: %s", what, detail);
	return err;
}

/* ---- writing fields ---- */

static void sep(rpl_export_csv *w, FILE *f)
{
	if (w->nfield++)
		fputc(',', f);
}

/*
 * Text, always quoted. A value a spreadsheet would read as a formula (= + - @,
 * or a tab or CR that some strip before looking) gets a leading '; so does a
 * value that already starts with ', so that stripping one ' always gives the
 * original back.
 */
static void field_text(rpl_export_csv *w, FILE *f, const char *s)
{
	sep(w, f);
	if (!s)
		return; /* NULL: an empty, unquoted field */
	if (s[0] && strchr("=+-@\t\r'", s[0])) {
		size_t n = strlen(s);
		char *p = malloc(n + 2);
		if (p) {
			p[0] = '\'';
			memcpy(p + 1, s, n + 1);
			csv_fwrite(f, p, n + 1);
			free(p);
			return;
		}
		/* out of memory: a space keeps the value from being a formula, and the stream's error state is unchanged */
		csv_fwrite(f, " ", 1);
	}
	csv_fwrite(f, s, strlen(s));
}

static int write_row(void *ctx, int table, const struct xcell *cells, int ncells)
{
	rpl_export_csv *w = ctx;
	FILE *f = w->f[table];
	char when[RPL__DATE_SIZE];

	for (int i = 0; i < ncells; i++) {
		const struct xcell *c = &cells[i];
		switch (c->type) {
		case XC_INT:
			/* plain decimal: no locale digit grouping exists for %lld */
			sep(w, f);
			fprintf(f, "%lld", c->i);
			break;
		case XC_TEXT: field_text(w, f, c->s); break;
		case XC_TIME:
			/* unquoted "YYYY-MM-DD HH:MM:SS", which spreadsheets read as a date and time */
			rpl__export_datetime(c->i, when);
			sep(w, f);
			fputs(when, f);
			break;
		default: sep(w, f); break;
		}
	}
	fputs("\r\n", f);
	w->nfield = 0;
	return 0;
}

/* ---- the writer ---- */

static int open_file(rpl_export_csv *w, int t)
{
	const struct xtable *tb = &rpl__export_tables[t];
	size_t n = strlen(w->dir) + strlen(tb->name) + 6;
	char *final = malloc(n);
	int fd, e;

	if (!final)
		return RPL_ENOMEM;
	snprintf(final, n, "%s/%s.csv", w->dir, tb->name);
	e = rpl__tmpfile_open(&w->tmp[t], final, 0644, 0);
	free(final);
	if (e != 0) {
		if (w->tmp[t].errnum == ENOMEM)
			return csv_fail(w, RPL_ENOMEM, "out of memory", ENOMEM);
		rpl__msgf(w->errmsg, "%s: %s", tb->name, w->tmp[t].why);
		return RPL_EIO;
	}
	/* the stream has a descriptor of its own: the file's stays open until it is put in place */
	fd = dup(w->tmp[t].fd);
	if (fd < 0 || !(w->f[t] = fdopen(fd, "wb"))) {
		e = errno;
		if (fd >= 0)
			close(fd);
		return csv_fail(w, RPL_EIO, "cannot write a file in the directory", e);
	}
	if (w->flags & RPL_EXPORT_CSV_BOM)
		fputs("\xEF\xBB\xBF", w->f[t]);
	for (int i = 0; i < tb->ncols; i++) {
		fputs(i ? "," : "", w->f[t]);
		fputs(tb->cols[i], w->f[t]);
	}
	fputs("\r\n", w->f[t]);
	return RPL_OK;
}

int rpl_export_csv_open(rpl_export_csv **out, const char *dir, unsigned flags)
{
	rpl_export_csv *w;
	int err;

	if (!out)
		return RPL_EINVAL;
	*out = NULL;
	if (!dir || (flags & ~RPL_EXPORT_CSV_BOM))
		return RPL_EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return RPL_ENOMEM;
	*out = w;
	for (int t = 0; t < XT_COUNT; t++)
		w->tmp[t].fd = -1;
	w->flags = flags;
	w->dir = strdup(dir);
	if (!w->dir)
		return RPL_ENOMEM;
	for (int t = 0; t < XT_COUNT; t++)
		if ((err = open_file(w, t)) != 0)
			return err;
	return RPL_OK;
}

int rpl_export_csv_add(rpl_export_csv *w, const rpl_export_match *m, int *added)
{
	int isnew;

	if (added)
		*added = 0;
	if (!w || !m)
		return RPL_EINVAL;
	if (w->finished || !w->f[XT_MATCHES]) {
		rpl__msgf(w->errmsg, "the CSV files are not open");
		return RPL_ESTATE;
	}
	/* one copy once (docs/schema.md, "Copies"): another copy of a match is a row of its own */
	isnew = rpl__export_seen_copy(&w->seen, m);
	if (isnew < 0)
		return csv_fail(w, RPL_ENOMEM, "out of memory", ENOMEM);
	if (!isnew)
		return RPL_OK;
	rpl__export_rows(m, write_row, w);
	if (rpl__export_players_add(&w->players, m) != 0)
		return csv_fail(w, RPL_ENOMEM, "out of memory", ENOMEM);
	for (int t = 0; t < XT_COUNT; t++)
		if (ferror(w->f[t]))
			return csv_fail(w, RPL_EIO, rpl__export_tables[t].name, errno);
	if (added)
		*added = 1;
	return RPL_OK;
}

/* Flush, fsync and close file t; RPL_EIO. */
static int close_file(rpl_export_csv *w, int t)
{
	FILE *f = w->f[t];
	int bad;

	w->f[t] = NULL;
	bad = fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0;
	if (fclose(f) != 0)
		bad = 1;
	return bad ? csv_fail(w, RPL_EIO, rpl__export_tables[t].name, errno) : RPL_OK;
}

int rpl_export_csv_finish(rpl_export_csv *w)
{
	int err = RPL_OK, dfd;

	if (!w)
		return RPL_EINVAL;
	if (w->finished || !w->f[XT_PLAYERS]) {
		rpl__msgf(w->errmsg, "the CSV files are not open");
		return RPL_ESTATE;
	}
	if (rpl__export_players_rows(&w->players, write_row, w) != 0)
		return csv_fail(w, RPL_ENOMEM, "out of memory", ENOMEM);
	for (int t = 0; t < XT_COUNT; t++)
		if ((err = close_file(w, t)) != 0)
			return err;
	/* every file is whole before the first takes its name */
	for (int t = 0; t < XT_COUNT; t++)
		if (rpl__tmpfile_commit(&w->tmp[t], RPL__TMP_REPLACE) != 0) {
			rpl__msgf(w->errmsg, "%s: %s", rpl__export_tables[t].name, w->tmp[t].why);
			return RPL_EIO;
		}
	dfd = open(w->dir, O_RDONLY);
	if (dfd >= 0) {
		fsync(dfd); /* the renames survive a power loss; best effort */
		close(dfd);
	}
	w->finished = 1;
	return RPL_OK;
}

void rpl_export_csv_free(rpl_export_csv *w)
{
	if (!w)
		return;
	for (int t = 0; t < XT_COUNT; t++) {
		if (w->f[t])
			fclose(w->f[t]);
		rpl__tmpfile_discard(&w->tmp[t]);
	}
	rpl__export_players_free(&w->players);
	rpl__export_seen_free(&w->seen);
	free(w->dir);
	free(w);
}

const char *rpl_export_csv_errmsg(const rpl_export_csv *w)
{
	return w ? w->errmsg : "";
}
