/*
 * Export, step 2c: the XLSX sink, through libxlsxwriter. One sheet a table
 * (export_table.c), written row by row in libxlsxwriter's constant-memory
 * mode, so that memory does not grow with the corpus. Cell types are the
 * point of this format: integers are numbers, times are dates, and text is
 * written as a string cell, which no spreadsheet evaluates as a formula (so
 * unlike the CSV files no leading ' is needed or added).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "export/export_table.h"
#include "base/msg.h"
#include "log/tmpfile.h"

#include <xlsxwriter.h>

/* The widest a column gets, in characters: long texts (verdict details, meld cards) wrap the view otherwise. */
#define MAX_WIDTH 60
/* Excel's day 0 is 1899-12-30 for dates from 1900-03-01 on; 25569 is 1970-01-01. */
#define EXCEL_EPOCH_DAYS 25569.0
/* Excel's dates run from 1900-01-01 to 9999-12-31 (seconds since 1970). */
#define EXCEL_FIRST (-2208988800LL)
#define EXCEL_LAST 253402300799LL

struct sheet {
	lxw_worksheet *ws;
	uint32_t rows;               /* rows written, the header included */
	uint16_t width[XT_MAX_COLS]; /* the widest value of each column, in characters */
};

struct rpl_export_xlsx {
	struct rpl__tmpfile out; /* the workbook's new file (tmpfile.h), libxlsxwriter writes it by name */
	char *tmpdir;            /* where libxlsxwriter keeps the sheets until the workbook is closed */
	lxw_workbook *wb;
	lxw_format *bold, *when;
	struct sheet sheet[XT_COUNT];
	int finished, failed;
	struct xseen seen;
	struct xplayers players;
	char errmsg[RPL_ERRMSG_SIZE];
};

/* Fail with the message what, and detail after a colon when not NULL. */
static int xfail(rpl_export_xlsx *w, int err, const char *what, const char *detail)
{
	rpl__msgf(w->errmsg, "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
	w->failed = 1;
	return err;
}

/* Characters (code points) of UTF-8 text, for a column's width. */
static size_t text_width(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

static void widen(struct sheet *sh, int col, size_t n)
{
	if (n > MAX_WIDTH)
		n = MAX_WIDTH;
	if (n > sh->width[col])
		sh->width[col] = (uint16_t)n;
}

static int write_row(void *ctx, int table, const struct xcell *cells, int ncells)
{
	rpl_export_xlsx *w = ctx;
	struct sheet *sh = &w->sheet[table];
	lxw_row_t row = sh->rows;
	lxw_error e = LXW_NO_ERROR;
	char buf[RPL__DATE_SIZE + 8];

	if (row >= LXW_ROW_MAX)
		return xfail(w, RPL_ELIMIT, "too many rows for one sheet (1,048,576 at most)", rpl__export_tables[table].name);
	for (int i = 0; i < ncells && e == LXW_NO_ERROR; i++) {
		const struct xcell *c = &cells[i];
		lxw_col_t col = (lxw_col_t)i;
		switch (c->type) {
		case XC_INT:
			e = worksheet_write_number(sh->ws, row, col, (double)c->i, NULL);
			widen(sh, i, (size_t)snprintf(buf, sizeof(buf), "%lld", c->i));
			break;
		case XC_TEXT:
			e = worksheet_write_string(sh->ws, row, col, c->s, NULL);
			widen(sh, i, text_width(c->s));
			break;
		case XC_TIME:
			if (c->i >= EXCEL_FIRST && c->i <= EXCEL_LAST) {
				e = worksheet_write_number(sh->ws, row, col, EXCEL_EPOCH_DAYS + (double)c->i / 86400.0, w->when);
			} else {
				/* a spreadsheet has no date for it: the same form, as text */
				rpl__export_datetime(c->i, buf);
				e = worksheet_write_string(sh->ws, row, col, buf, NULL);
			}
			widen(sh, i, 19);
			break;
		default: break; /* an empty cell */
		}
	}
	if (e != LXW_NO_ERROR)
		return xfail(w, RPL_EIO, "cannot write the workbook", lxw_strerror(e));
	sh->rows++;
	return 0;
}

/*
 * libxlsxwriter prints its own "[ERROR]" lines to stderr when it cannot make
 * a file (there is no option to keep it quiet, in this version or later
 * ones: LXW_PRINTF is fprintf at its build), and a library never prints. So
 * every failure it would print is looked for here first, before it is
 * asked: the output is a new file this library made (its path checked as
 * any output's), the directory of its temporary data is one that can be
 * written, and before the workbook is closed the room it needs is there
 * (rpl_export_xlsx_finish). What is left for it to meet is memory running
 * out, or the disk filling while it writes.
 */

/* The system's directory of temporary files (P_tmpdir, which C11 does not declare). */
#define SYSTEM_TMP "/tmp"

/* The directory libxlsxwriter keeps its temporary files in: $TMPDIR or /tmp, whichever can be written. */
static const char *data_dir(void)
{
	const char *d = getenv("TMPDIR");
	struct stat st;

	if (d && *d && stat(d, &st) == 0 && S_ISDIR(st.st_mode) && access(d, W_OK | X_OK) == 0)
		return d;
	d = SYSTEM_TMP;
	if (stat(d, &st) == 0 && S_ISDIR(st.st_mode) && access(d, W_OK | X_OK) == 0)
		return d;
	return NULL;
}

int rpl_export_xlsx_open(rpl_export_xlsx **out, const char *path)
{
	lxw_workbook_options opt = { .constant_memory = LXW_TRUE, .tmpdir = NULL, .use_zip64 = LXW_TRUE };
	rpl_export_xlsx *w;
	const char *dir;
	char name[64 + 4096];

	if (!out)
		return RPL_EINVAL;
	*out = NULL;
	if (!path)
		return RPL_EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return RPL_ENOMEM;
	*out = w;
	w->out.fd = -1;
	if (rpl__tmpfile_open(&w->out, path, 0644, 0) != 0)
		return w->out.errnum == ENOMEM ? xfail(w, RPL_ENOMEM, "out of memory", NULL)
		                               : xfail(w, RPL_EIO, w->out.why, NULL);
	if (!(dir = data_dir()))
		return xfail(w, RPL_EIO, "no directory for the workbook's temporary data ($TMPDIR, " SYSTEM_TMP ")",
		             "none can be written");
	if (!(w->tmpdir = strdup(dir)))
		return xfail(w, RPL_ENOMEM, "out of memory", NULL);
	opt.tmpdir = w->tmpdir;
	rpl__tmpfile_name(&w->out, name, sizeof(name));
	{
		/* libxlsxwriter opens the file again by that name: a umask that leaves its owner no write is said here */
		int fd = open(name, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return xfail(w, RPL_EIO, "cannot write the workbook", strerror(errno));
		close(fd);
	}
	w->wb = workbook_new_opt(name, &opt);
	if (!w->wb)
		return xfail(w, RPL_ENOMEM, "cannot start a workbook", NULL);
	w->bold = workbook_add_format(w->wb);
	w->when = workbook_add_format(w->wb);
	if (!w->bold || !w->when)
		return xfail(w, RPL_ENOMEM, "cannot start a workbook", NULL);
	format_set_bold(w->bold);
	format_set_num_format(w->when, "yyyy-mm-dd hh:mm:ss");
	for (int t = 0; t < XT_COUNT; t++) {
		const struct xtable *tb = &rpl__export_tables[t];
		struct sheet *sh = &w->sheet[t];
		if (!(sh->ws = workbook_add_worksheet(w->wb, tb->name)))
			return xfail(w, RPL_ENOMEM, "cannot add a sheet", NULL);
		for (int i = 0; i < tb->ncols; i++) {
			if (worksheet_write_string(sh->ws, 0, (lxw_col_t)i, tb->cols[i], w->bold) != LXW_NO_ERROR)
				return xfail(w, RPL_ENOMEM, "cannot write a sheet's header", NULL);
			widen(sh, i, strlen(tb->cols[i]) + 3); /* room for the filter button */
		}
		worksheet_freeze_panes(sh->ws, 1, 0);
		sh->rows = 1;
	}
	return RPL_OK;
}

int rpl_export_xlsx_add(rpl_export_xlsx *w, const rpl_export_match *m, int *added)
{
	int isnew, err;

	if (added)
		*added = 0;
	if (!w || !m)
		return RPL_EINVAL;
	if (w->finished || w->failed || !w->wb) {
		rpl__msgf(w->errmsg, "the workbook is not open");
		return RPL_ESTATE;
	}
	/* one copy once (docs/schema.md, "Copies"): another copy of a match is a row of its own */
	isnew = rpl__export_seen_copy(&w->seen, m);
	if (isnew < 0)
		return xfail(w, RPL_ENOMEM, "out of memory", NULL);
	if (!isnew)
		return RPL_OK;
	if ((err = rpl__export_rows(m, write_row, w)) != 0)
		return err;
	if (rpl__export_players_add(&w->players, m) != 0)
		return xfail(w, RPL_ENOMEM, "out of memory", NULL);
	if (added)
		*added = 1;
	return RPL_OK;
}

/* Bytes this process may still write on the file system v describes (root may use the reserved blocks). */
static uint64_t room(const struct statvfs *v)
{
	return (uint64_t)(geteuid() == 0 ? v->f_bfree : v->f_bavail) * (uint64_t)v->f_frsize;
}

/*
 * Before libxlsxwriter closes the workbook: the sheets' rows, which it kept
 * in temporary files, were all written (a write that failed there would be
 * lost without a word), and there is room for what closing writes: each
 * sheet's XML once more beside its data, one at a time, and the workbook,
 * which is at most their sum and a little more (deflate never grows data by
 * more than a few bytes a block). RPL_EIO with the system's reason, ENOSPC
 * or EFBIG (the file size limit), when not.
 */
static int room_check(rpl_export_xlsx *w)
{
	uint64_t total = 0, largest = 0, need_out, need_tmp;
	struct statvfs vo, vt;
	struct stat so, stt;
	struct rlimit lim;

	for (int t = 0; t < XT_COUNT; t++) {
		FILE *f = w->sheet[t].ws->optimize_tmpfile;
		off_t n;
		if (!f)
			continue;
		if (fflush(f) != 0 || ferror(f))
			return xfail(w, RPL_EIO, "cannot write the workbook's temporary data", strerror(errno ? errno : EIO));
		if ((n = ftello(f)) < 0)
			return xfail(w, RPL_EIO, "cannot write the workbook's temporary data", strerror(errno));
		total += (uint64_t)n;
		if ((uint64_t)n > largest)
			largest = (uint64_t)n;
	}
	/* a sheet's XML around its rows, and the workbook's other parts (styles, theme, properties): some KiB */
	need_tmp = largest + (16u << 10);
	need_out = total + total / 64 + (64u << 10);
	if (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
	    ((uint64_t)lim.rlim_cur < need_out || (uint64_t)lim.rlim_cur < need_tmp))
		return xfail(w, RPL_EIO, "cannot write the workbook", strerror(EFBIG));
	if (fstatvfs(w->out.fd, &vo) != 0 || statvfs(w->tmpdir, &vt) != 0 || fstat(w->out.fd, &so) != 0 ||
	    stat(w->tmpdir, &stt) != 0)
		return 0; /* nothing to go by: libxlsxwriter will say */
	if (so.st_dev == stt.st_dev ? room(&vo) < need_out + need_tmp : room(&vo) < need_out || room(&vt) < need_tmp)
		return xfail(w, RPL_EIO, "cannot write the workbook", strerror(ENOSPC));
	return 0;
}

int rpl_export_xlsx_finish(rpl_export_xlsx *w)
{
	lxw_error e;
	int err;

	if (!w)
		return RPL_EINVAL;
	if (w->finished || w->failed || !w->wb) {
		rpl__msgf(w->errmsg, "the workbook is not open");
		return RPL_ESTATE;
	}
	if ((err = rpl__export_players_rows(&w->players, write_row, w)) != 0)
		return err == RPL_ENOMEM ? xfail(w, RPL_ENOMEM, "out of memory", NULL) : err;
	for (int t = 0; t < XT_COUNT; t++) {
		struct sheet *sh = &w->sheet[t];
		int ncols = rpl__export_tables[t].ncols;
		for (int i = 0; i < ncols; i++)
			worksheet_set_column(sh->ws, (lxw_col_t)i, (lxw_col_t)i, sh->width[i] + 1.0, NULL);
		worksheet_autofilter(sh->ws, 0, 0, sh->rows - 1, (lxw_col_t)(ncols - 1));
	}
	if ((err = room_check(w)) != 0)
		return err;
	e = workbook_close(w->wb);
	w->wb = NULL;
	if (e != LXW_NO_ERROR)
		return xfail(w, RPL_EIO, "cannot write the workbook", lxw_strerror(e));
	if (rpl__tmpfile_commit(&w->out, RPL__TMP_REPLACE) != 0)
		return xfail(w, RPL_EIO, "cannot put the workbook in place", w->out.why);
	w->finished = 1;
	return RPL_OK;
}

void rpl_export_xlsx_free(rpl_export_xlsx *w)
{
	if (!w)
		return;
	if (w->wb)
		lxw_workbook_free(w->wb); /* never written: nothing of it reaches the disk */
	rpl__tmpfile_discard(&w->out);
	rpl__export_players_free(&w->players);
	rpl__export_seen_free(&w->seen);
	free(w->tmpdir);
	free(w);
}

const char *rpl_export_xlsx_errmsg(const rpl_export_xlsx *w)
{
	return w ? w->errmsg : "";
}
