/*
 * Export, step 2c: the XLSX sink, through libxlsxwriter. One sheet a table
 * (export_table.c), written row by row in libxlsxwriter's constant-memory
 * mode, so that memory does not grow with the corpus. Cell types are the
 * point of this format: integers are numbers, times are dates, and text is
 * written as a string cell, which no spreadsheet evaluates as a formula (so
 * unlike the CSV files no leading ' is needed or added).
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

/* A bin of a distribution: the values v with lo <= v < hi; OPEN_LO and OPEN_HI leave that end open. */
struct bin {
	long long lo, hi;
};
#define OPEN_LO LLONG_MIN
#define OPEN_HI LLONG_MAX
#define NBINS_MAX 12

/* Points a side scores in a deal, deal length in turns, pile takes and frozen piles in a deal. */
static const struct bin score_bins[] = { { OPEN_LO, 0 }, { 0, 250 },       { 250, 500 },   { 500, 750 },
	                                     { 750, 1000 },  { 1000, 1250 },   { 1250, 1500 }, { 1500, 1750 },
	                                     { 1750, 2000 }, { 2000, OPEN_HI } };
static const struct bin turn_bins[] = { { OPEN_LO, 20 }, { 20, 30 }, { 30, 40 }, { 40, 50 },
	                                    { 50, 60 },      { 60, 70 }, { 70, 80 }, { 80, OPEN_HI } };
static const struct bin pile_bins[] = { { 0, 1 },  { 1, 2 },   { 2, 3 },   { 3, 6 },
	                                    { 6, 11 }, { 11, 16 }, { 16, 21 }, { 21, OPEN_HI } };
#define NBINS(b) ((int)(sizeof(b) / sizeof(b[0])))
_Static_assert(NBINS(score_bins) <= NBINS_MAX && NBINS(turn_bins) <= NBINS_MAX && NBINS(pile_bins) <= NBINS_MAX,
               "a distribution's bins fit its counts");

/* The canastra categories of deal_scores, in its column order. */
#define NCAT 5
static const char *const cat_names[NCAT] = { "dirty", "clean", "clean13", "clean14", "dirty14" };

/*
 * What the Summary sheet's formulas compute, counted here from the cells as
 * they are written, so that the workbook carries the values as well as the
 * formulas: a program that shows a workbook without calculating it
 * (LibreOffice trusts the values of a file Excel wrote, and libxlsxwriter's
 * say so) shows the right bars. The column indexes are found by name.
 */
struct summary {
	int m_players, m_winner, d_out_side, d_turns, d_taken, d_frozen, s_side, s_total, s_cat[NCAT], t_seat, t_out;
	long long seat_out[4], seat_wins[4], side_wins[2], side_out[2];
	long long scores[2][NBINS_MAX], turns[NBINS_MAX], taken[NBINS_MAX], frozen[NBINS_MAX];
	long long cat_sum[2][NCAT], cat_rows[2];
};

struct rpl_export_xlsx {
	struct rpl__tmpfile out; /* the workbook's new file (tmpfile.h), libxlsxwriter writes it by name */
	char *tmpdir;            /* where libxlsxwriter keeps the sheets until the workbook is closed */
	lxw_workbook *wb;
	lxw_format *bold, *when, *title, *fraction, *head;
	lxw_worksheet *summary; /* the first sheet: small tables of formulas over the others, and charts */
	struct summary sum;
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

/* The index of the column name in table (export_table.c); the Summary's formulas and counts depend on it. */
static int col_of(int table, const char *name)
{
	const struct xtable *tb = &rpl__export_tables[table];
	for (int i = 0; i < tb->ncols; i++)
		if (strcmp(tb->cols[i], name) == 0)
			return i;
	assert(!"a column the Summary reads is missing from export_table.c");
	return 0;
}

static void summary_init(struct summary *u)
{
	memset(u, 0, sizeof(*u));
	u->m_players = col_of(XT_MATCHES, "players");
	u->m_winner = col_of(XT_MATCHES, "winner");
	u->d_out_side = col_of(XT_DEALS, "out_side");
	u->d_turns = col_of(XT_DEALS, "turns");
	u->d_taken = col_of(XT_DEALS, "pile_taken");
	u->d_frozen = col_of(XT_DEALS, "pile_frozen");
	u->s_side = col_of(XT_SCORES, "side");
	u->s_total = col_of(XT_SCORES, "total");
	for (int k = 0; k < NCAT; k++) {
		char name[32];
		snprintf(name, sizeof(name), "canastras_%s", cat_names[k]);
		u->s_cat[k] = col_of(XT_SCORES, name);
	}
	u->t_seat = col_of(XT_SEATS, "seat");
	u->t_out = col_of(XT_SEATS, "went_out");
}

static int in_bin(const struct bin *b, long long v)
{
	return (b->lo == OPEN_LO || v >= b->lo) && (b->hi == OPEN_HI || v < b->hi);
}

static void bins_count(const struct bin *bins, int n, long long *counts, long long v)
{
	for (int i = 0; i < n; i++)
		counts[i] += in_bin(&bins[i], v);
}

/* The integer in cell col of the row, or 0 with *has 0 when the cell is not a number (as COUNTIFS skips it). */
static long long cell_int(const struct xcell *cells, int ncells, int col, int *has)
{
	*has = col >= 0 && col < ncells && cells[col].type == XC_INT;
	return *has ? cells[col].i : 0;
}

/* Count a row into what the Summary's formulas compute over its sheet. */
static void summary_count(struct summary *u, int table, const struct xcell *c, int n)
{
	int h1, h2;
	long long a, b;

	switch (table) {
	case XT_MATCHES:
		a = cell_int(c, n, u->m_winner, &h1);
		b = cell_int(c, n, u->m_players, &h2);
		if (h1 && (a == 0 || a == 1)) {
			u->side_wins[a]++;
			for (int s = 0; s < 4; s++)
				u->seat_wins[s] += h2 && s % 2 == a && b > s;
		}
		break;
	case XT_DEALS:
		a = cell_int(c, n, u->d_out_side, &h1);
		if (h1 && (a == 0 || a == 1))
			u->side_out[a]++;
		if ((a = cell_int(c, n, u->d_turns, &h1)), h1)
			bins_count(turn_bins, NBINS(turn_bins), u->turns, a);
		if ((a = cell_int(c, n, u->d_taken, &h1)), h1)
			bins_count(pile_bins, NBINS(pile_bins), u->taken, a);
		if ((a = cell_int(c, n, u->d_frozen, &h1)), h1)
			bins_count(pile_bins, NBINS(pile_bins), u->frozen, a);
		break;
	case XT_SCORES:
		a = cell_int(c, n, u->s_side, &h1);
		if (!h1 || (a != 0 && a != 1))
			break;
		u->cat_rows[a]++;
		for (int k = 0; k < NCAT; k++)
			u->cat_sum[a][k] += cell_int(c, n, u->s_cat[k], &h2);
		if ((b = cell_int(c, n, u->s_total, &h2)), h2)
			bins_count(score_bins, NBINS(score_bins), u->scores[a], b);
		break;
	case XT_SEATS:
		a = cell_int(c, n, u->t_seat, &h1);
		b = cell_int(c, n, u->t_out, &h2);
		if (h1 && h2 && a >= 0 && a < 4)
			u->seat_out[a] += b;
		break;
	default: break;
	}
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
	summary_count(&w->sum, table, cells, ncells);
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
	w->title = workbook_add_format(w->wb);
	w->fraction = workbook_add_format(w->wb);
	w->head = workbook_add_format(w->wb);
	if (!w->bold || !w->when || !w->title || !w->fraction || !w->head)
		return xfail(w, RPL_ENOMEM, "cannot start a workbook", NULL);
	format_set_bold(w->bold);
	format_set_num_format(w->when, "yyyy-mm-dd hh:mm:ss");
	format_set_bold(w->title);
	format_set_font_size(w->title, 14);
	format_set_num_format(w->fraction, "0.00");
	format_set_bold(w->head);
	format_set_text_wrap(w->head);
	/* the Summary first, so that the workbook opens on its charts; written when the rows are all in */
	summary_init(&w->sum);
	if (!(w->summary = workbook_add_worksheet(w->wb, "Summary")))
		return xfail(w, RPL_ENOMEM, "cannot add a sheet", NULL);
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
	/* a sheet's XML around its rows, and the workbook's other parts (styles, theme, properties, the
	 * Summary's formulas and charts): some tens of KiB */
	need_tmp = largest + (64u << 10);
	need_out = total + total / 64 + (192u << 10);
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

/* ---- the Summary sheet ---- */

/*
 * The charts' colours: the Okabe–Ito palette (Okabe and Ito, "Color
 * Universal Design", 2008), made so that readers with any of the three
 * dichromacies tell its colours apart; side 0 is blue and side 1 vermillion
 * wherever brp draws them. tests/style/palette.py reads this table and the
 * charts' pairs of colours below, and checks them under simulated
 * protanopia, deuteranopia and tritanopia, and in greyscale (print).
 */
enum { PAL_SIDE0, PAL_SIDE1, PAL_ORANGE, PAL_SKY, PAL_GREEN, PAL_BLACK, PAL_COUNT };
static const lxw_color_t palette[PAL_COUNT] = {
	[PAL_SIDE0] = 0x0072B2,  /* blue */
	[PAL_SIDE1] = 0xD55E00,  /* vermillion */
	[PAL_ORANGE] = 0xE69F00, /* orange */
	[PAL_SKY] = 0x56B4E9,    /* sky blue */
	[PAL_GREEN] = 0x009E73,  /* bluish green */
	[PAL_BLACK] = 0x000000,  /* the bars' outlines */
};

/* The Summary is a column of blocks, each a small table (columns A to E) and its chart beside it (G on). */
#define FIRST_BLOCK 3 /* the row of the first block: a title and a note above it */
#define BLOCK_ROWS 21 /* rows from one block to the next: a chart of 360 pixels covers 18 */
#define CHART_COL 6

/* A chart: its title, its axes' names, and its series' colours (the second unused by a chart of one series). */
struct chart_spec {
	const char *title, *x_name, *y_name;
	int colour[2];
};
enum { CH_SEATS, CH_SIDES, CH_SCORES, CH_TURNS, CH_CANASTRAS, CH_PILE, CH_COUNT };
static const struct chart_spec chart_specs[CH_COUNT] = {
	[CH_SEATS] = { "Wins by seat", "Seat", "Deals or matches", { PAL_GREEN, PAL_ORANGE } },
	[CH_SIDES] = { "Wins by side", NULL, "Deals or matches", { PAL_SIDE0, PAL_SIDE1 } },
	[CH_SCORES] = { "Deal scores", "Points a side scored in a deal", "Deals", { PAL_SIDE0, PAL_SIDE1 } },
	[CH_TURNS] = { "Deal length", "Turns in a deal", "Deals", { PAL_SKY, PAL_SKY } },
	[CH_CANASTRAS] = { "Canastras per deal",
	                   "Category",
	                   "Canastras a side made, on average",
	                   { PAL_SIDE0, PAL_SIDE1 } },
	[CH_PILE] = { "Pile takes and frozen piles", "Times in a deal", "Deals", { PAL_ORANGE, PAL_GREEN } },
};

/* The Summary being written: its sheet and the first error, after which nothing more is written. */
struct sw {
	rpl_export_xlsx *w;
	lxw_worksheet *ws;
	lxw_error e;
};

static void sw_text(struct sw *s, lxw_row_t r, lxw_col_t c, const char *t, lxw_format *f)
{
	if (s->e == LXW_NO_ERROR)
		s->e = worksheet_write_string(s->ws, r, c, t, f);
}

static void sw_number(struct sw *s, lxw_row_t r, lxw_col_t c, double v)
{
	if (s->e == LXW_NO_ERROR)
		s->e = worksheet_write_number(s->ws, r, c, v, NULL);
}

/* A formula and the value it has over the rows written (struct summary). */
static void sw_formula(struct sw *s, lxw_row_t r, lxw_col_t c, const char *formula, double value, lxw_format *f)
{
	if (s->e == LXW_NO_ERROR)
		s->e = worksheet_write_formula_num(s->ws, r, c, formula, f, value);
}

/* "deal_scores!$O:$O": the whole column name of table, so that rows added below the data count too. */
static void whole_col(char *buf, size_t size, int table, const char *name)
{
	char letters[8];

	lxw_col_to_name(letters, (lxw_col_t)col_of(table, name), 1);
	snprintf(buf, size, "%s!%s:%s", rpl__export_tables[table].name, letters, letters);
}

/* The header of block b: its title and the names of its columns. Returns the header row. */
static lxw_row_t block_head(struct sw *s, int b, const char *const *names, int n)
{
	lxw_row_t r = (lxw_row_t)(FIRST_BLOCK + b * BLOCK_ROWS);

	sw_text(s, r, 0, chart_specs[b].title, s->w->bold);
	for (int i = 0; i < n; i++)
		if (names[i][0])
			sw_text(s, r + 1, (lxw_col_t)i, names[i], s->w->head);
	return r + 1;
}

/*
 * The chart of block b over its table: categories in column A, nseries
 * series from column first on. Inserted beside the table's header before the
 * table's rows are written: in constant-memory mode nothing can be placed
 * on a row above the one being written.
 */
static void block_chart(struct sw *s, int b, lxw_row_t head, int nrows, lxw_col_t first, int nseries)
{
	const struct chart_spec *cs = &chart_specs[b];
	lxw_chart_options chart_size = { .x_scale = 1.25, .y_scale = 1.25 }; /* 600 by 360 pixels: one printed page */
	lxw_chart *ch;
	char cats[64], vals[64], name[64], col[8];
	int r0 = (int)head + 2, r1 = (int)head + 1 + nrows; /* the table's rows, as a spreadsheet numbers them */

	if (s->e != LXW_NO_ERROR)
		return;
	if (!(ch = workbook_add_chart(s->w->wb, LXW_CHART_COLUMN))) {
		s->e = LXW_ERROR_MEMORY_MALLOC_FAILED;
		return;
	}
	chart_title_set_name(ch, cs->title);
	if (cs->x_name)
		chart_axis_set_name(ch->x_axis, cs->x_name);
	chart_axis_set_name(ch->y_axis, cs->y_name);
	chart_legend_set_position(ch, nseries > 1 ? LXW_CHART_LEGEND_BOTTOM : LXW_CHART_LEGEND_NONE);
	snprintf(cats, sizeof(cats), "=Summary!$A$%d:$A$%d", r0, r1);
	for (int k = 0; k < nseries; k++) {
		lxw_chart_fill fill = { .color = palette[cs->colour[k]] };
		lxw_chart_line line = { .color = palette[PAL_BLACK], .width = 0.75 };
		lxw_chart_series *se;
		lxw_col_to_name(col, (lxw_col_t)(first + k), 1);
		snprintf(vals, sizeof(vals), "=Summary!%s$%d:%s$%d", col, r0, col, r1);
		snprintf(name, sizeof(name), "=Summary!%s$%d", col, r0 - 1);
		if (!(se = chart_add_series(ch, cats, vals))) {
			s->e = LXW_ERROR_MEMORY_MALLOC_FAILED;
			return;
		}
		chart_series_set_name(se, name);
		chart_series_set_fill(se, &fill);
		chart_series_set_line(se, &line);
		if (cs->colour[k] == PAL_SIDE1) {
			/*
			 * Side 1's bars are striped white on vermillion: in a greyscale
			 * print blue and vermillion are only 8 L* apart, the stripes
			 * tell them apart at a glance.
			 */
			lxw_chart_pattern stripes = { .fg_color = 0xFFFFFF,
				                          .bg_color = palette[PAL_SIDE1],
				                          .type = LXW_CHART_PATTERN_WIDE_UPWARD_DIAGONAL };
			chart_series_set_pattern(se, &stripes);
		}
	}
	s->e = worksheet_insert_chart_opt(s->ws, head, CHART_COL, ch, &chart_size);
}

/* A bin's name: "0 to 249", "under 0", "2000 or more", "3". */
static void bin_label(const struct bin *b, char *buf, size_t size)
{
	if (b->lo == OPEN_LO)
		snprintf(buf, size, "under %lld", b->hi);
	else if (b->hi == OPEN_HI)
		snprintf(buf, size, "%lld or more", b->lo);
	else if (b->hi - b->lo == 1)
		snprintf(buf, size, "%lld", b->lo);
	else
		snprintf(buf, size, "%lld to %lld", b->lo, b->hi - 1);
}

/*
 * A distribution's table: a row a bin with its name (A), its bounds (B, C:
 * the analyst may change them) and, for each series k, the count of the
 * rows of table whose column value lies in the bin, where column cond, when
 * not NULL, is k (a side).
 */
static void block_bins(struct sw *s, int b, int table, const char *const *value, const char *cond,
                       const char *const *names, int nseries, const struct bin *bins, int nbins,
                       long long (*counts)[NBINS_MAX])
{
	static const char *const head3[] = { "", "From", "To" };
	const char *hn[5] = { names[0], head3[1], head3[2], names[1], nseries > 1 ? names[2] : "" };
	lxw_row_t head = block_head(s, b, hn, 3 + nseries);
	char vcol[64], ccol[64], f[512], label[48];

	block_chart(s, b, head, nbins, 3, nseries);

	if (cond)
		whole_col(ccol, sizeof(ccol), table, cond);
	for (int i = 0; i < nbins; i++) {
		lxw_row_t r = head + 1 + (lxw_row_t)i;
		bin_label(&bins[i], label, sizeof(label));
		sw_text(s, r, 0, label, NULL);
		if (bins[i].lo != OPEN_LO)
			sw_number(s, r, 1, (double)bins[i].lo);
		if (bins[i].hi != OPEN_HI)
			sw_number(s, r, 2, (double)bins[i].hi);
		for (int k = 0; k < nseries; k++) {
			size_t n = 0;
			whole_col(vcol, sizeof(vcol), table, value[k]);
			n += (size_t)snprintf(f + n, sizeof(f) - n, "=COUNTIFS(");
			if (cond)
				n += (size_t)snprintf(f + n, sizeof(f) - n, "%s,%d,", ccol, k);
			if (bins[i].lo != OPEN_LO)
				n += (size_t)snprintf(f + n, sizeof(f) - n, "%s,\">=\"&$B$%u,", vcol, (unsigned)r + 1);
			if (bins[i].hi != OPEN_HI)
				n += (size_t)snprintf(f + n, sizeof(f) - n, "%s,\"<\"&$C$%u,", vcol, (unsigned)r + 1);
			f[n - 1] = ')';
			sw_formula(s, r, (lxw_col_t)(3 + k), f, (double)counts[k][i], NULL);
		}
	}
}

static lxw_error summary_sheet(rpl_export_xlsx *w)
{
	static const char *const seat_head[] = { "Seat", "Deals gone out", "Matches won by its side" };
	static const char *const side_head[] = { "", "Side 0", "Side 1" };
	static const char *const score_head[] = { "Points", "Side 0", "Side 1" };
	static const char *const turn_head[] = { "Turns", "Deals" };
	static const char *const cat_head[] = { "Category", "Side 0", "Side 1" };
	static const char *const pile_head[] = { "Times", "Pile takes", "Frozen piles" };
	static const char *const total[] = { "total", "total" };
	static const char *const turns[] = { "turns" };
	static const char *const pile[] = { "pile_taken", "pile_frozen" };
	struct summary *u = &w->sum;
	struct sw s = { w, w->summary, LXW_NO_ERROR };
	char f[512], c1[64], c2[64], c3[64], label[32];
	long long piles[2][NBINS_MAX];
	lxw_row_t head, breaks[CH_COUNT];
	lxw_col_t vbreak[] = { CHART_COL, 0 };

	sw_text(&s, 0, 0, "Summary", w->title);
	sw_text(&s, 1, 0,
	        "Each table counts whole columns of the other sheets with formulas: rows added there count here and in "
	        "the charts.",
	        NULL);

	/* wins by seat: the deals a seat went out, the matches its side won */
	head = block_head(&s, CH_SEATS, seat_head, 3);
	block_chart(&s, CH_SEATS, head, 4, 1, 2);
	whole_col(c1, sizeof(c1), XT_SEATS, "went_out");
	whole_col(c2, sizeof(c2), XT_SEATS, "seat");
	whole_col(c3, sizeof(c3), XT_MATCHES, "winner");
	for (int seat = 0; seat < 4; seat++) {
		char players[64];
		lxw_row_t r = head + 1 + (lxw_row_t)seat;
		snprintf(label, sizeof(label), "Seat %d", seat);
		sw_text(&s, r, 0, label, NULL);
		snprintf(f, sizeof(f), "=SUMIFS(%s,%s,%d)", c1, c2, seat);
		sw_formula(&s, r, 1, f, (double)u->seat_out[seat], NULL);
		whole_col(players, sizeof(players), XT_MATCHES, "players");
		snprintf(f, sizeof(f), "=COUNTIFS(%s,%d,%s,\">%d\")", c3, seat % 2, players, seat);
		sw_formula(&s, r, 2, f, (double)u->seat_wins[seat], NULL);
	}

	/* wins by side: the matches won, the deals gone out */
	head = block_head(&s, CH_SIDES, side_head, 3);
	block_chart(&s, CH_SIDES, head, 2, 1, 2);
	whole_col(c1, sizeof(c1), XT_MATCHES, "winner");
	whole_col(c2, sizeof(c2), XT_DEALS, "out_side");
	sw_text(&s, head + 1, 0, "Matches won", NULL);
	for (int side = 0; side < 2; side++) {
		snprintf(f, sizeof(f), "=COUNTIFS(%s,%d)", c1, side);
		sw_formula(&s, head + 1, (lxw_col_t)(1 + side), f, (double)u->side_wins[side], NULL);
	}
	sw_text(&s, head + 2, 0, "Deals gone out", NULL);
	for (int side = 0; side < 2; side++) { /* row by row: constant-memory mode writes no row above the last */
		snprintf(f, sizeof(f), "=COUNTIFS(%s,%d)", c2, side);
		sw_formula(&s, head + 2, (lxw_col_t)(1 + side), f, (double)u->side_out[side], NULL);
	}

	block_bins(&s, CH_SCORES, XT_SCORES, total, "side", score_head, 2, score_bins, NBINS(score_bins), u->scores);
	block_bins(&s, CH_TURNS, XT_DEALS, turns, NULL, turn_head, 1, turn_bins, NBINS(turn_bins), &u->turns);

	/* canastras of each category a side made in a deal, on average over the deal_scores rows of that side */
	head = block_head(&s, CH_CANASTRAS, cat_head, 3);
	block_chart(&s, CH_CANASTRAS, head, NCAT, 1, 2);
	whole_col(c2, sizeof(c2), XT_SCORES, "side");
	for (int k = 0; k < NCAT; k++) {
		char name[32];
		lxw_row_t r = head + 1 + (lxw_row_t)k;
		sw_text(&s, r, 0, cat_names[k], NULL);
		snprintf(name, sizeof(name), "canastras_%s", cat_names[k]);
		whole_col(c1, sizeof(c1), XT_SCORES, name);
		for (int side = 0; side < 2; side++) {
			double v = u->cat_rows[side] ? (double)u->cat_sum[side][k] / (double)u->cat_rows[side] : 0.0;
			snprintf(f, sizeof(f), "=IFERROR(AVERAGEIFS(%s,%s,%d),0)", c1, c2, side);
			sw_formula(&s, r, (lxw_col_t)(1 + side), f, v, w->fraction);
		}
	}

	memcpy(piles[0], u->taken, sizeof(piles[0]));
	memcpy(piles[1], u->frozen, sizeof(piles[1]));
	block_bins(&s, CH_PILE, XT_DEALS, pile, NULL, pile_head, 2, pile_bins, NBINS(pile_bins), piles);

	/* printed (or made a PDF), each table and each chart is a page, in the order of the blocks */
	for (int b = 1; b < CH_COUNT; b++)
		breaks[b - 1] = (lxw_row_t)(FIRST_BLOCK + b * BLOCK_ROWS);
	breaks[CH_COUNT - 1] = 0;
	worksheet_set_landscape(s.ws);
	worksheet_print_across(s.ws);
	if (s.e == LXW_NO_ERROR)
		s.e = worksheet_set_h_pagebreaks(s.ws, breaks);
	if (s.e == LXW_NO_ERROR)
		s.e = worksheet_set_v_pagebreaks(s.ws, vbreak);
	worksheet_set_column(s.ws, 0, 0, 28, NULL);
	worksheet_set_column(s.ws, 1, 4, 14, NULL);
	worksheet_set_column(s.ws, 5, 5, 4, NULL); /* A to F fit a printed page's width */
	return s.e;
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
	if ((e = summary_sheet(w)) != LXW_NO_ERROR)
		return xfail(w, e == LXW_ERROR_MEMORY_MALLOC_FAILED ? RPL_ENOMEM : RPL_EIO, "cannot write the Summary sheet",
		             lxw_strerror(e));
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
