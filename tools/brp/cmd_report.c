/* brp report: a corpus of logs as one page, its verdicts, its figures and their charts. */
#define _XOPEN_SOURCE 700 /* realpath, for the links to the pages beside the disputed logs */
#include "brp.h"
#include "svg.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const name = "report";

static void usage(FILE *f)
{
	fputs("Usage: brp report [OPTION]... FILE|DIR|-...\n"
	      "Replay each log, as brp stats does, and write one HTML page of what the corpus\n"
	      "holds: how many logs of each verdict, the disputed ones linked to their brp view\n"
	      "page when one lies beside the log (FILE.html for FILE.brp; the first 100 are\n"
	      "listed), brp stats' figures for the whole corpus and for each profile and table\n"
	      "size, and for each of these the charts of brp export --xlsx's Summary sheet,\n"
	      "drawn as SVG: wins by seat and by side, deal scores, deal length in turns,\n"
	      "canastras of each category per deal, pile takes and frozen piles. The page is\n"
	      "one file that needs no network and no JavaScript. Paths are given as to brp\n"
	      "stats.\n"
	      "\n"
	      "  -o, --output FILE  write the page to FILE\n"
	      "      --json       one JSON object with the same figures, on standard output\n"
	      "  -j, --jobs N     threads (default 1; the result is the same)\n"
	      "      --from-list FILE  also count the paths listed in FILE, one a line\n"
	      "      --log FILE   also count the log FILE (repeatable); - reads it from\n"
	      "                   standard input\n"
	      "  -q, --quiet      no progress line on a terminal\n"
	      "  -h, --help       print this help and exit\n"
	      "\n"
	      "At least one of -o and --json is needed.\n"
	      "\n"
	      "Exit status, as brp stats': 0 every log ok; 1 some illegal, mismatch,\n"
	      "incomplete, tampered or untrusted; 2 a usage error, or arguments that name no\n"
	      "log; 3 some malformed or unreadable, a page that cannot be written, or out of\n"
	      "memory.\n",
	      f);
}

/*
 * The bins of the distributions: the workbook's Summary sheet's
 * (export_xlsx.c: score_bins, turn_bins, pile_bins), so that the report and
 * the workbook of one corpus draw the same bars; lo <= v < hi, OPEN_LO and
 * OPEN_HI leave that end open. xlsx-summary checks that the two agree.
 */
struct bin {
	int lo, hi;
};
#define OPEN_LO INT_MIN
#define OPEN_HI INT_MAX
static const struct bin score_bins[] = { { OPEN_LO, 0 }, { 0, 250 },       { 250, 500 },   { 500, 750 },
	                                     { 750, 1000 },  { 1000, 1250 },   { 1250, 1500 }, { 1500, 1750 },
	                                     { 1750, 2000 }, { 2000, OPEN_HI } };
static const struct bin turn_bins[] = { { OPEN_LO, 20 }, { 20, 30 }, { 30, 40 }, { 40, 50 },
	                                    { 50, 60 },      { 60, 70 }, { 70, 80 }, { 80, OPEN_HI } };
static const struct bin pile_bins[] = { { 0, 1 },  { 1, 2 },   { 2, 3 },   { 3, 6 },
	                                    { 6, 11 }, { 11, 16 }, { 16, 21 }, { 21, OPEN_HI } };
#define NBINS(b) ((int)(sizeof(b) / sizeof(b[0])))
enum {
	SCORE_BINS = NBINS(score_bins),
	TURN_BINS = NBINS(turn_bins),
	PILE_BINS = NBINS(pile_bins),
	NCAT = RPL_CANASTRA_NCAT - 1, /* dirty, clean, clean13, clean14, dirty14: deal_scores' column order */
	DISPUTED_MAX = 100,           /* disputed logs listed by name; the rest are counted */
	TABLE_SIZES = 2               /* 2 or 4 players */
};

/* What a profile and table size's logs hold, as the Summary sheet counts it (all longs: added as an array). */
struct figures {
	struct brp_counts c;
	long seat_out[RPL_MAX_SEATS];  /* deals each seat went out */
	long seat_wins[RPL_MAX_SEATS]; /* matches won by each seat's side, of the matches with that seat */
	long side_wins[2], side_out[2];
	long no_winner; /* a match over without a winning side */
	long scores[2][SCORE_BINS];
	long turns[TURN_BINS];
	long taken[PILE_BINS], frozen[PILE_BINS];
	long cats[2][NCAT]; /* canastras of each category each side made, over c.deals deals */
};

static void figures_add(struct figures *to, const struct figures *f)
{
	long *a = (long *)to;
	const long *b = (const long *)f;
	for (size_t i = 0; i < sizeof(*to) / sizeof(long); i++)
		a[i] += b[i];
}

static void bins_count(const struct bin *bins, int n, long *counts, int v)
{
	for (int i = 0; i < n; i++)
		counts[i] += (bins[i].lo == OPEN_LO || v >= bins[i].lo) && (bins[i].hi == OPEN_HI || v < bins[i].hi);
}

/* One log's figures, its group (-1: none known) and why it could not be read. */
struct rresult {
	struct figures fig;
	int err, kind, group;
	char message[sizeof(((rpl_verdict *)0)->message)];
};

/* What a log's pass sees beside the counting: its group, its first dealer, each deal's end. */
struct watch {
	struct figures *fig;
	int group, players;
};

static int profile_index(const char *profile)
{
	const char *const *p = rpl_rules_profiles();
	for (int i = 0; p[i]; i++)
		if (strcmp(p[i], profile) == 0)
			return i;
	return -1;
}

static int nprofiles(void)
{
	int n = 0;
	while (rpl_rules_profiles()[n])
		n++;
	return n;
}

static int watch_after(void *ctx, const rpl_event *ev, const rpl_game *g)
{
	struct watch *w = ctx;

	if (w->group < 0 && ev->kind == RPL_EV_DEAL) {
		int p = profile_index(rpl_rules_profile(rpl_game_rules(g)));
		w->players = rpl_game_players(g);
		if (p >= 0)
			w->group = p * TABLE_SIZES + (w->players == 4);
	}
	if (ev->kind == RPL_EV_ACTION && rpl_game_phase(g) >= RPL_PHASE_DEAL_OVER) {
		rpl_deal_stats st;
		rpl_game_deal_stats(g, &st);
		bins_count(turn_bins, TURN_BINS, w->fig->turns, st.turns);
		bins_count(pile_bins, PILE_BINS, w->fig->taken, st.pile_taken);
		bins_count(pile_bins, PILE_BINS, w->fig->frozen, st.pile_frozen);
		if (st.out_seat >= 0 && st.out_seat < RPL_MAX_SEATS) {
			w->fig->seat_out[st.out_seat]++;
			w->fig->side_out[st.out_seat % 2]++;
		}
		for (int s = 0; s < 2; s++) {
			rpl_score sc;
			rpl_game_deal_score(g, s, &sc);
			bins_count(score_bins, SCORE_BINS, w->fig->scores[s], sc.total);
			for (int k = 0; k < NCAT; k++)
				w->fig->cats[s][k] += sc.canastras[k + 1];
		}
	}
	return 0;
}

/* Count one log (a pool job): verified and counted in one pass, as brp stats counts it. */
static void count_file(const char *path, void *result, void *ud)
{
	struct rresult *r = result;
	struct figures mine;
	struct watch w = { &mine, -1, 0 };
	rpl_verify_observer obs = { &w, NULL, watch_after };
	rpl_verdict v;

	(void)ud;
	memset(r, 0, sizeof(*r));
	memset(&mine, 0, sizeof(mine));
	r->err = brp_counts_log(path, &r->fig.c, &v, r->message, sizeof(r->message), &obs);
	r->group = w.group;
	r->kind = r->err ? -1 : v.kind;
	if (r->err || v.kind != RPL_VERDICT_OK)
		return; /* its verdict alone is counted, as brp stats counts it */
	mine.c = r->fig.c;
	if (v.winner >= 0 && w.players > 0) {
		for (int k = v.winner & 1; k < w.players; k += 2)
			mine.seat_wins[k]++;
		mine.side_wins[v.winner & 1]++;
	} else {
		mine.no_winner++;
	}
	r->fig = mine;
}

/* A disputed log as the page lists it. */
struct disputed {
	char *path;
	char *href; /* its brp view page, relative to the report's folder; NULL: none beside it */
	int kind;   /* -1: unreadable */
};

struct rtotal {
	struct figures all;
	struct figures *groups; /* nprofiles() * TABLE_SIZES */
	struct brp_progress prog;
	size_t n;
	struct disputed disputed[DISPUTED_MAX];
	int ndisputed;
	long unlisted;
	const char *outdir; /* the report's folder (real path), or NULL: no page */
	int oom;
};

/* A path as a URL's path: every byte but the unreserved ones and '/' percent-encoded. */
static char *url_path(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	char *u = malloc(strlen(s) * 3 + 1), *p = u;

	if (!u)
		return NULL;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("-._~/", c)) {
			*p++ = (char)c;
		} else {
			*p++ = '%';
			*p++ = hex[c >> 4];
			*p++ = hex[c & 15];
		}
	}
	*p = '\0';
	return u;
}

/*
 * The link to the brp view page beside the log (FILE.brp: FILE.html; NAME:
 * NAME.html), relative to the folder dir (a real path); NULL when there is
 * none, or it cannot be said.
 */
static char *page_href(const char *path, const char *dir)
{
	size_t n = strlen(path), common = 0, i;
	char *page = malloc(n + 6), real[PATH_MAX], *rel = NULL, *href = NULL;
	struct stat st;
	int ups = 0;

	if (!page)
		return NULL;
	memcpy(page, path, n + 1);
	if (n > 4 && strcmp(page + n - 4, ".brp") == 0)
		page[n - 4] = '\0';
	strcat(page, ".html");
	if (stat(page, &st) != 0 || !S_ISREG(st.st_mode) || !realpath(page, real))
		goto cleanup;
	/* the folders the two paths share, whole */
	for (i = 0; dir[i] && dir[i] == real[i]; i++)
		if (dir[i] == '/')
			common = i;
	if (!dir[i] && (real[i] == '/' || strcmp(dir, "/") == 0))
		common = strcmp(dir, "/") == 0 ? 0 : i;
	for (i = common; dir[i]; i++)
		if (dir[i] == '/' && dir[i + 1])
			ups++;
	if (!(rel = malloc((size_t)ups * 3 + strlen(real) + 1)))
		goto cleanup;
	rel[0] = '\0';
	for (int k = 0; k < ups; k++)
		strcat(rel, "../");
	strcat(rel, real + common + 1);
	href = url_path(rel);
cleanup:
	free(page);
	free(rel);
	return href;
}

/* Add one log's figures to the total (ud), in the logs' order: so are the errors and the disputed list. */
static int add_one(const char *path, const void *result, void *ud)
{
	const struct rresult *r = result;
	struct rtotal *t = ud;

	if (r->err || r->message[0]) {
		brp_progress_clear(&t->prog);
		brp_error(name, "%s: %s", path, r->message);
	}
	figures_add(&t->all, &r->fig);
	if (r->group >= 0)
		figures_add(&t->groups[r->group], &r->fig);
	if (r->kind != RPL_VERDICT_OK) {
		if (t->ndisputed < DISPUTED_MAX) {
			struct disputed *d = &t->disputed[t->ndisputed];
			d->kind = r->kind;
			d->href = t->outdir ? page_href(path, t->outdir) : NULL;
			if (!(d->path = strdup(path))) {
				free(d->href);
				t->oom = 1;
				return 1;
			}
			t->ndisputed++;
		} else {
			t->unlisted++;
		}
	}
	brp_progress_step(&t->prog, ++t->n);
	return 0;
}

static const char *kind_name(int kind)
{
	return kind < 0 ? "unreadable" : rpl_verdict_name(kind);
}

/* ---- the JSON object ---- */

static void json_longs(FILE *f, const long *v, int n)
{
	fputc('[', f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%ld", i ? "," : "", v[i]);
	fputc(']', f);
}

static void json_bins(FILE *f, const struct bin *bins, int n)
{
	fputc('[', f);
	for (int i = 0; i < n; i++) {
		fprintf(f, "%s[", i ? "," : "");
		fprintf(f, bins[i].lo == OPEN_LO ? "null," : "%d,", bins[i].lo);
		fprintf(f, bins[i].hi == OPEN_HI ? "null]" : "%d]", bins[i].hi);
	}
	fputc(']', f);
}

/* A group's figures, or the corpus's (players 0: four seats, as the workbook counts them). */
static void json_figures(FILE *f, const struct figures *g, int players)
{
	int seats = players ? players : RPL_MAX_SEATS;

	fputs("\"stats\":", f);
	brp_counts_print_json(f, &g->c);
	fputs(",\"wins_by_seat\":{\"deals_gone_out\":", f);
	json_longs(f, g->seat_out, seats);
	fputs(",\"matches_won\":", f);
	json_longs(f, g->seat_wins, seats);
	fputs("},\"wins_by_side\":{\"matches_won\":", f);
	json_longs(f, g->side_wins, 2);
	fputs(",\"deals_gone_out\":", f);
	json_longs(f, g->side_out, 2);
	fprintf(f, "},\"no_winner\":%ld,\"deal_scores\":{\"bins\":", g->no_winner);
	json_bins(f, score_bins, SCORE_BINS);
	for (int s = 0; s < 2; s++) {
		fprintf(f, ",\"side%d\":", s);
		json_longs(f, g->scores[s], SCORE_BINS);
	}
	fputs("},\"deal_turns\":{\"bins\":", f);
	json_bins(f, turn_bins, TURN_BINS);
	fputs(",\"deals\":", f);
	json_longs(f, g->turns, TURN_BINS);
	fputs("},\"canastras\":{\"deals\":", f);
	fprintf(f, "%ld", g->c.deals);
	for (int s = 0; s < 2; s++) {
		fprintf(f, ",\"side%d\":", s);
		json_longs(f, g->cats[s], NCAT);
	}
	fputs("},\"piles\":{\"bins\":", f);
	json_bins(f, pile_bins, PILE_BINS);
	fputs(",\"taken\":", f);
	json_longs(f, g->taken, PILE_BINS);
	fputs(",\"frozen\":", f);
	json_longs(f, g->frozen, PILE_BINS);
	fputc('}', f);
}

static void print_json(FILE *f, const struct rtotal *t, int ngroups)
{
	int first = 1;

	fprintf(f, "{\"logs\":%zu,\"unreadable\":%ld,", t->n, t->all.c.unreadable);
	json_figures(f, &t->all, 0);
	fputs(",\"disputed\":[", f);
	for (int i = 0; i < t->ndisputed; i++) {
		fprintf(f, "%s{\"file\":", i ? "," : "");
		brp_json_string(f, t->disputed[i].path);
		fprintf(f, ",\"verdict\":\"%s\"}", kind_name(t->disputed[i].kind));
	}
	fprintf(f, "],\"disputed_unlisted\":%ld,\"groups\":[", t->unlisted);
	for (int g = 0; g < ngroups; g++) {
		const struct figures *x = &t->groups[g];
		int players = g % TABLE_SIZES ? 4 : 2;
		long logs = 0;
		for (int k = 0; k <= RPL_VERDICT_UNTRUSTED; k++)
			logs += x->c.verdicts[k];
		if (!logs)
			continue;
		fprintf(f, "%s{\"profile\":\"%s\",\"players\":%d,", first ? "" : ",", rpl_rules_profiles()[g / TABLE_SIZES],
		        players);
		json_figures(f, x, players);
		fputc('}', f);
		first = 0;
	}
	fputs("]}\n", f);
}

/* ---- the page ---- */

static const char page_css[] =
		"body{font-family:sans-serif;margin:1em auto;max-width:60em;padding:0 1em;color:#000;background:#fff}\n"
		"h1,h2,h3{font-weight:600}section{border-top:1px solid #888;margin-top:2em}\n"
		"table{border-collapse:collapse}th,td{border:1px solid #888;padding:.2em .6em;text-align:left}\n"
		"td{text-align:right;font-variant-numeric:tabular-nums}pre{background:#f4f4f4;padding:.5em}\n"
		"figure{margin:1.5em 0;break-inside:avoid}figcaption{font-weight:600;margin-bottom:.3em}\n"
		"svg.chart{max-width:100%;height:auto}details.data{margin-top:.3em}\n"
		".charts{display:flex;flex-wrap:wrap;gap:0 2em}\n"
		"@media print{body{max-width:none}a{color:#000}}\n";

static void html_stats(FILE *f, const struct brp_counts *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return;
	brp_counts_print_text(m, c);
	fclose(m);
	fputs("<pre class=\"stats\">", f);
	if (buf)
		brp_html_text(f, buf);
	fputs("</pre>\n", f);
	free(buf);
}

static void html_verdicts(FILE *f, const struct rtotal *t)
{
	fputs("<section id=\"verdicts\">\n<h2>Verdicts</h2>\n<table>\n<thead><tr><th scope=\"col\">verdict</th>"
	      "<th scope=\"col\">logs</th></tr></thead>\n<tbody>\n",
	      f);
	for (int k = 0; k <= RPL_VERDICT_UNTRUSTED; k++)
		fprintf(f, "<tr><th scope=\"row\">%s</th><td>%ld</td></tr>\n", rpl_verdict_name(k), t->all.c.verdicts[k]);
	fprintf(f, "<tr><th scope=\"row\">unreadable</th><td>%ld</td></tr>\n</tbody>\n</table>\n", t->all.c.unreadable);
	if (t->ndisputed) {
		fputs("<h3>Disputed logs</h3>\n<p>Linked to their <code>brp view</code> page where one lies beside the "
		      "log.</p>\n<ul class=\"disputed\">\n",
		      f);
		for (int i = 0; i < t->ndisputed; i++) {
			const struct disputed *d = &t->disputed[i];
			fputs("<li>", f);
			if (d->href) {
				fputs("<a href=\"", f);
				brp_html_text(f, d->href);
				fputs("\">", f);
			}
			fputs("<code>", f);
			brp_html_text(f, d->path);
			fputs("</code>", f);
			if (d->href)
				fputs("</a>", f);
			fprintf(f, ": %s</li>\n", kind_name(d->kind));
		}
		fputs("</ul>\n", f);
		if (t->unlisted)
			fprintf(f, "<p>And %ld more disputed logs, not listed.</p>\n", t->unlisted);
	}
	fputs("</section>\n", f);
}

/*
 * The charts: the workbook's Summary sheet's, chart for chart (export_xlsx.c;
 * docs/schema.md, "The Summary sheet", says what each counts): the same
 * titles, categories, series, bins and colours.
 */
static const int sides_colours[] = { BRP_BLUE, BRP_VERMILLION };
static const char *const sides_names[] = { "Side 0", "Side 1" };

/* A bin's name, as the workbook's table gives it. */
static void bin_label(const struct bin *b, char *buf, size_t size)
{
	if (b->lo == OPEN_LO)
		snprintf(buf, size, "under %d", b->hi);
	else if (b->hi == OPEN_HI)
		snprintf(buf, size, "%d or more", b->lo);
	else if (b->hi - b->lo == 1)
		snprintf(buf, size, "%d", b->lo);
	else
		snprintf(buf, size, "%d to %d", b->lo, b->hi - 1);
}

/* The chart of a distribution: a category a bin, nseries counts a bin (counts[k][i]). */
static void chart_bins(FILE *f, struct brp_chart *c, const struct bin *bins, int n, const long *const *counts)
{
	char lab[12][32];
	const char *labels[12];
	double v[12 * BRP_SERIES_MAX];

	for (int i = 0; i < n && i < 12; i++) {
		bin_label(&bins[i], lab[i], sizeof(lab[i]));
		labels[i] = lab[i];
		for (int k = 0; k < c->nseries; k++)
			v[i * c->nseries + k] = (double)counts[k][i];
	}
	c->n = n < 12 ? n : 12;
	c->labels = labels;
	c->values = v;
	brp_svg_chart(f, c);
}

/* The wins: by seat and by side (ids id-c1 and id-c2). */
static void charts_wins(FILE *f, const struct figures *g, const char *id, int players)
{
	static const char *const seats[] = { "Seat 0", "Seat 1", "Seat 2", "Seat 3" };
	static const char *const seat_series[] = { "Deals gone out", "Matches won by its side" };
	static const int seat_colours[] = { BRP_GREEN, BRP_ORANGE };
	static const char *const side_cats[] = { "Matches won", "Deals gone out" };
	char cid[2][64];
	double v[RPL_MAX_SEATS * 2];
	struct brp_chart c;

	snprintf(cid[0], sizeof(cid[0]), "%s-c1", id);
	snprintf(cid[1], sizeof(cid[1]), "%s-c2", id);
	for (int k = 0; k < players; k++) {
		v[2 * k] = (double)g->seat_out[k];
		v[2 * k + 1] = (double)g->seat_wins[k];
	}
	c = (struct brp_chart){ cid[0],
		                    "Wins by seat",
		                    "For each seat, the deals it went out (ended the deal by melding its hand), and the "
		                    "matches its side won; seats 0 and 2 make side 0, seats 1 and 3 side 1.",
		                    "Seat",
		                    "Deals or matches",
		                    players,
		                    seats,
		                    2,
		                    seat_series,
		                    v,
		                    seat_colours,
		                    0 };
	brp_svg_chart(f, &c);
	for (int s = 0; s < 2; s++) {
		v[s] = (double)g->side_wins[s];
		v[2 + s] = (double)g->side_out[s];
	}
	c = (struct brp_chart){ cid[1],
		                    "Wins by side",
		                    "The matches each side won, and the deals each side went out (side 0 in blue, side 1 "
		                    "in vermillion).",
		                    "Matches or deals",
		                    "Deals or matches",
		                    2,
		                    side_cats,
		                    2,
		                    sides_names,
		                    v,
		                    sides_colours,
		                    0 };
	brp_svg_chart(f, &c);
}

/* The canastras of each category a side made in a deal, on average (id id-c5). */
static void chart_canastras(FILE *f, const struct figures *g, const char *id)
{
	const char *cats[NCAT];
	char cid[64];
	double v[NCAT * 2];
	struct brp_chart c;

	snprintf(cid, sizeof(cid), "%s-c5", id);
	for (int k = 0; k < NCAT; k++) {
		cats[k] = rpl_canastra_name(k + 1);
		for (int s = 0; s < 2; s++)
			v[2 * k + s] = g->c.deals ? (double)g->cats[s][k] / (double)g->c.deals : 0.0;
	}
	c = (struct brp_chart){ cid,
		                    "Canastras per deal",
		                    "How many canastras of each category a side made in a deal, on average over its deals.",
		                    "Category",
		                    "Canastras a side made, on average",
		                    NCAT,
		                    cats,
		                    2,
		                    sides_names,
		                    v,
		                    sides_colours,
		                    3 };
	brp_svg_chart(f, &c);
}

/* The charts of a group (id: its id in the page; players: its table size). */
static void html_charts(FILE *f, const struct figures *g, const char *id, int players)
{
	static const char *const deals_name[] = { "Deals" };
	static const int sky[] = { BRP_SKY_BLUE };
	static const char *const pile_names[] = { "Pile takes", "Frozen piles" };
	static const int pile_colours[] = { BRP_ORANGE, BRP_GREEN };
	const long *scores[2] = { g->scores[0], g->scores[1] }, *turns[1] = { g->turns },
			   *piles[2] = { g->taken, g->frozen };
	char cid[3][64];
	struct brp_chart c;

	snprintf(cid[0], sizeof(cid[0]), "%s-c3", id);
	snprintf(cid[1], sizeof(cid[1]), "%s-c4", id);
	snprintf(cid[2], sizeof(cid[2]), "%s-c6", id);
	fputs("<div class=\"charts\">\n", f);
	charts_wins(f, g, id, players);
	c = (struct brp_chart){ cid[0],
		                    "Deal scores",
		                    "How many deals gave a side a score (its points for the deal) in each bin of 250 "
		                    "points, the two sides side by side.",
		                    "Points a side scored in a deal",
		                    "Deals",
		                    0,
		                    NULL,
		                    2,
		                    sides_names,
		                    NULL,
		                    sides_colours,
		                    0 };
	chart_bins(f, &c, score_bins, SCORE_BINS, scores);
	c = (struct brp_chart){ cid[1],
		                    "Deal length",
		                    "How many deals took each number of turns, in bins of 10.",
		                    "Turns in a deal",
		                    "Deals",
		                    0,
		                    NULL,
		                    1,
		                    deals_name,
		                    NULL,
		                    sky,
		                    0 };
	chart_bins(f, &c, turn_bins, TURN_BINS, turns);
	chart_canastras(f, g, id);
	c = (struct brp_chart){ cid[2],
		                    "Pile takes and frozen piles",
		                    "How many deals had the pile taken 0, 1, 2, 3 to 5, ... times, and how many had it "
		                    "frozen that many times.",
		                    "Times in a deal",
		                    "Deals",
		                    0,
		                    NULL,
		                    2,
		                    pile_names,
		                    NULL,
		                    pile_colours,
		                    0 };
	chart_bins(f, &c, pile_bins, PILE_BINS, piles);
	fputs("</div>\n", f);
}

static void write_page(FILE *f, const struct rtotal *t, int ngroups)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>Corpus report - brp report</title>\n<style>\n",
	      f);
	fputs(page_css, f);
	fputs("</style>\n</head>\n<body>\n<header>\n<h1>Corpus report</h1>\n", f);
	fprintf(f,
	        "<p>%zu logs: %ld matches that verify ok, %ld deals. Only the logs that verify ok are counted in the "
	        "figures and the charts; the others are counted by verdict.</p>\n",
	        t->n, t->all.c.matches, t->all.c.deals);
	fputs("<nav><ul>\n<li><a href=\"#verdicts\">Verdicts</a></li>\n<li><a href=\"#all\">Every match</a></li>\n", f);
	for (int g = 0; g < ngroups; g++)
		if (t->groups[g].c.matches)
			fprintf(f, "<li><a href=\"#g-%s-%d\">%s, %d players</a></li>\n", rpl_rules_profiles()[g / TABLE_SIZES],
			        g % TABLE_SIZES ? 4 : 2, rpl_rules_profiles()[g / TABLE_SIZES], g % TABLE_SIZES ? 4 : 2);
	fputs("</ul></nav>\n</header>\n", f);
	html_verdicts(f, t);
	fputs("<section id=\"all\">\n<h2>Every match</h2>\n<p>The figures of <code>brp stats</code> on the same "
	      "logs.</p>\n",
	      f);
	html_stats(f, &t->all.c);
	fputs("</section>\n", f);
	for (int g = 0; g < ngroups; g++) {
		const struct figures *x = &t->groups[g];
		const char *profile = rpl_rules_profiles()[g / TABLE_SIZES];
		int players = g % TABLE_SIZES ? 4 : 2;
		char id[48];
		if (!x->c.matches)
			continue;
		snprintf(id, sizeof(id), "g-%s-%d", profile, players);
		fprintf(f, "<section id=\"%s\">\n<h2>%s, %d players</h2>\n", id, profile, players);
		html_stats(f, &x->c);
		html_charts(f, x, id, players);
		fputs("</section>\n", f);
	}
	fputs("</body>\n</html>\n", f);
}

/*
 * The page's output, opened before any work so that a page that cannot be
 * written stops the command first, and its folder's real path into
 * t->outdir (NULL when it cannot be had: no link is made then); *outdir is
 * the caller's to free. 0, or -1 (said).
 */
static int open_page(const char *out, struct brp_output *o, char **outdir, struct rtotal *t)
{
	char why[256], *slash;

	if (brp_output_open(o, out, why, sizeof(why)) != 0) {
		brp_error(name, "%s: %s", out, why);
		return -1;
	}
	if (!(*outdir = malloc(strlen(out) + 3))) {
		brp_error(name, "out of memory");
		return -1;
	}
	strcpy(*outdir, out);
	if ((slash = strrchr(*outdir, '/')) != NULL)
		slash[slash == *outdir] = '\0'; /* "/r.html": the root, "/" */
	else
		strcpy(*outdir, ".");
	t->outdir = realpath(*outdir, NULL);
	return 0;
}

/* The JSON (json) and the page (out, into o): 0, or -1 (said). */
static int write_outputs(int json, const char *out, struct brp_output *o, const struct rtotal *t, int ngroups)
{
	char why[256];

	if (json)
		print_json(stdout, t, ngroups);
	if (out) {
		write_page(o->f, t, ngroups);
		if (brp_output_commit(o, why, sizeof(why)) != 0) {
			brp_error(name, "%s: %s", out, why);
			return -1;
		}
	}
	if (json && (fflush(stdout) != 0 || ferror(stdout))) {
		brp_error(name, "cannot write the output: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Count every log of the arguments (args[0..nargs), the list of b,
 * standard input) into t, in one pass a log, on b->jobs threads. 0, or the
 * exit code (said): BRP_EXIT_USAGE for standard input asked twice or no
 * log found, BRP_EXIT_FAIL for a failure or when no log could be read (*src
 * is the caller's to free).
 */
static int read_corpus(struct brp_source **src, int nargs, char **args, const struct brp_batch *b, int stdin_first,
                       struct rtotal *t)
{
	int rc = brp_corpus_read(name, src, nargs, args, b, stdin_first, &t->prog, sizeof(struct rresult), count_file,
	                         add_one, t);

	if (t->oom) {
		brp_error(name, "out of memory");
		return BRP_EXIT_FAIL;
	}
	if (rc)
		return rc;
	if ((size_t)t->all.c.unreadable == brp_source_count(*src))
		return BRP_EXIT_FAIL; /* as brp stats: figures of zeros would say nothing of logs that could not be read */
	return 0;
}

/* Accepts NULL. */
static void rtotal_free(struct rtotal *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->ndisputed; i++) {
		free(t->disputed[i].path);
		free(t->disputed[i].href);
	}
	free((char *)t->outdir);
	free(t->groups);
	free(t);
}

int cmd_report(int argc, char **argv)
{
	static const struct brp_opt opts[] = {
		{ "output", 1, 'o', 0, 0 },
		BRP_OPT_JSON_ROW,
		BRP_OPT_JOBS,
		BRP_OPT_FROM_LIST,
		BRP_OPT_QUIET,
		BRP_OPT_LOGS,
		BRP_OPT_HELP,
		BRP_OPT_END,
	};
	struct brp_getopt g;
	struct brp_batch b = BRP_BATCH_INIT;
	struct brp_output o = { NULL, -1, NULL, NULL, 0 };
	int json = 0, c, status = BRP_EXIT_USAGE, rc, first, logs = 0, stdin_first = 0, nargs, ngroups = 0;
	const char **logs_v = NULL, *out = NULL;
	char **args = NULL, *outdir = NULL;
	struct brp_source *src = NULL;
	struct rtotal *total = NULL;

	logs_v = calloc((size_t)argc + 1, sizeof(char *));
	total = calloc(1, sizeof(*total));
	if (!logs_v || !total || !(total->groups = calloc((size_t)nprofiles() * TABLE_SIZES, sizeof(*total->groups)))) {
		brp_error(name, "out of memory");
		status = BRP_EXIT_FAIL;
		goto cleanup;
	}
	brp_getopt_init(&g, name, opts, argc, argv);
	while ((c = brp_getopt_next(&g)) != -1) {
		if (c == BRP_OPT_BAD)
			goto cleanup;
		if ((rc = brp_batch_option(&g, c, &b)) != 0) {
			if (rc != 1) {
				status = rc;
				goto cleanup;
			}
			continue;
		}
		switch (c) {
		case BRP_OPT_JSON: json = 1; break;
		case 'o':
			if (brp_opt_path(&g, &out) != 0)
				goto cleanup;
			break;
		case BRP_OPT_LOGFILE:
			if (strcmp(g.arg, "-") == 0)
				stdin_first++;
			else if (brp_opt_path(&g, &logs_v[logs]) != 0)
				goto cleanup;
			else
				logs++;
			break;
		case 'h':
			usage(stdout);
			status = BRP_EXIT_OK;
			goto cleanup;
		}
	}
	first = brp_getopt_index(&g);
	if (first >= argc && !b.list && !logs && !stdin_first) {
		brp_error(name, "no log to count (try 'brp report --help')");
		goto cleanup;
	}
	if (!out && !json) {
		brp_error(name, "nothing to write: give -o FILE for the page, --json for the figures, or both");
		goto cleanup;
	}
	status = BRP_EXIT_FAIL;
	ngroups = nprofiles() * TABLE_SIZES;
	if (out && open_page(out, &o, &outdir, total) != 0)
		goto cleanup;
	/* the --log paths are arguments that come first */
	if (!(args = brp_corpus_args(name, logs_v, logs, argc, argv, first, &nargs)))
		goto cleanup;
	if ((rc = read_corpus(&src, nargs, args, &b, stdin_first, total)) != 0) {
		status = rc;
		goto cleanup;
	}
	if (write_outputs(json, out, &o, total, ngroups) != 0)
		goto cleanup;
	status = brp_counts_status(&total->all.c, brp_source_unreadable(src));
cleanup:
	if (out)
		brp_output_discard(&o); /* a page that failed is not left */
	brp_source_free(src);
	rtotal_free(total);
	free(outdir);
	free(logs_v);
	free(args);
	return status;
}
