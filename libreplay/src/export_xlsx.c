/*
 * Export, step 2c: the XLSX sink, through libxlsxwriter. One sheet a table
 * (export_table.c), written row by row in libxlsxwriter's constant-memory
 * mode, so that memory does not grow with the corpus. Cell types are the
 * point of this format: integers are numbers, times are dates, and text is
 * written as a string cell, which no spreadsheet evaluates as a formula (so
 * unlike the CSV files no leading ' is needed or added).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export_table.h"
#include "msg.h"

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
	char *path, *tmp;
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

int rpl_export_xlsx_open(rpl_export_xlsx **out, const char *path)
{
	lxw_workbook_options opt = { .constant_memory = LXW_TRUE, .tmpdir = NULL, .use_zip64 = LXW_TRUE };
	rpl_export_xlsx *w;
	struct stat st;
	size_t n;

	if (!out)
		return RPL_EINVAL;
	*out = NULL;
	if (!path)
		return RPL_EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return RPL_ENOMEM;
	*out = w;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return xfail(w, RPL_EIO, "it exists and is not a regular file", NULL);
	n = strlen(path) + 8;
	w->path = strdup(path);
	w->tmp = malloc(n);
	if (!w->path || !w->tmp)
		return RPL_ENOMEM;
	snprintf(w->tmp, n, "%s.part~", path);
	w->wb = workbook_new_opt(w->tmp, &opt);
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
	e = workbook_close(w->wb);
	w->wb = NULL;
	if (e != LXW_NO_ERROR)
		return xfail(w, RPL_EIO, "cannot write the workbook", lxw_strerror(e));
	if (rename(w->tmp, w->path) != 0)
		return xfail(w, RPL_EIO, "cannot rename the workbook into place", strerror(errno));
	w->finished = 1;
	return RPL_OK;
}

void rpl_export_xlsx_free(rpl_export_xlsx *w)
{
	if (!w)
		return;
	if (w->wb)
		lxw_workbook_free(w->wb); /* never written: nothing of it reaches the disk */
	if (!w->finished && w->tmp)
		unlink(w->tmp);
	rpl__export_players_free(&w->players);
	rpl__export_seen_free(&w->seen);
	free(w->path);
	free(w->tmp);
	free(w);
}

const char *rpl_export_xlsx_errmsg(const rpl_export_xlsx *w)
{
	return w ? w->errmsg : "";
}
