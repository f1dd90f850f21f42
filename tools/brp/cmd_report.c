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
	      "size, and for each of these charts drawn as SVG: wins by place in the order of\n"
	      "play and by side, each side's deal scores, deal length in turns, canastras of\n"
	      "each category a deal, pile takes and frozen piles a deal. The page is one file\n"
	      "that needs no network and no JavaScript. Paths are given as to brp stats.\n"
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

/* The bins of the histograms: fixed, so that the page's size does not grow with the corpus. */
enum {
	SCORE_FROM = -2000, /* the first bin holds every score below SCORE_FROM + SCORE_WIDTH */
	SCORE_WIDTH = 100,
	SCORE_BINS = 80, /* the last holds every score from 5900 up */
	TURN_WIDTH = 5,
	TURN_BINS = 41,     /* 0-4 turns ... 195-199, and 200 or more */
	DISPUTED_MAX = 100, /* disputed logs listed by name; the rest are counted */
	TABLE_SIZES = 2     /* 2 or 4 players */
};

/* What a profile and table size's logs hold (all longs: added as an array). */
struct figures {
	struct brp_counts c;
	long wins_place[RPL_MAX_SEATS]; /* matches won by the side of the seat that moved 1st, 2nd... */
	long wins_side[2];
	long no_winner; /* a match over without a winning side */
	long scores[SCORE_BINS];
	long turns[TURN_BINS];
};

static void figures_add(struct figures *to, const struct figures *f)
{
	long *a = (long *)to;
	const long *b = (const long *)f;
	for (size_t i = 0; i < sizeof(*to) / sizeof(long); i++)
		a[i] += b[i];
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
	int group, first_dealer, players;
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

static int clamp(int i, int n)
{
	return i < 0 ? 0 : i >= n ? n - 1 : i;
}

static int watch_after(void *ctx, const rpl_event *ev, const rpl_game *g)
{
	struct watch *w = ctx;

	if (w->group < 0 && ev->kind == RPL_EV_DEAL) {
		int p = profile_index(rpl_rules_profile(rpl_game_rules(g)));
		w->players = rpl_game_players(g);
		w->first_dealer = rpl_game_dealer(g);
		if (p >= 0)
			w->group = p * TABLE_SIZES + (w->players == 4);
	}
	if (ev->kind == RPL_EV_ACTION && rpl_game_phase(g) >= RPL_PHASE_DEAL_OVER) {
		rpl_deal_stats st;
		rpl_game_deal_stats(g, &st);
		w->fig->turns[clamp(st.turns / TURN_WIDTH, TURN_BINS)]++;
		for (int s = 0; s < 2; s++) {
			rpl_score sc;
			int32_t t;
			rpl_game_deal_score(g, s, &sc);
			t = sc.total - SCORE_FROM;
			w->fig->scores[clamp(t < 0 ? -1 : (int)(t / SCORE_WIDTH), SCORE_BINS)]++;
		}
	}
	return 0;
}

/* Count one log (a pool job): verified and counted in one pass, as brp stats counts it. */
static void count_file(const char *path, void *result, void *ud)
{
	struct rresult *r = result;
	struct figures mine;
	struct watch w = { &mine, -1, 0, 0 };
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
		for (int k = 0; k < w.players; k++)
			if ((w.first_dealer + 1 + k) % w.players % 2 == v.winner)
				mine.wins_place[k]++;
		mine.wins_side[v.winner & 1]++;
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

static void json_figures(FILE *f, const struct figures *g, int players)
{
	fputs("\"stats\":", f);
	brp_counts_print_json(f, &g->c);
	if (players) {
		fputs(",\"wins_by_place\":", f);
		json_longs(f, g->wins_place, players);
	}
	fputs(",\"wins_by_side\":", f);
	json_longs(f, g->wins_side, 2);
	fprintf(f, ",\"no_winner\":%ld", g->no_winner);
	fprintf(f, ",\"deal_scores\":{\"from\":%d,\"width\":%d,\"counts\":", SCORE_FROM, SCORE_WIDTH);
	json_longs(f, g->scores, SCORE_BINS);
	fprintf(f, "},\"deal_turns\":{\"from\":0,\"width\":%d,\"counts\":", TURN_WIDTH);
	json_longs(f, g->turns, TURN_BINS);
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

/* The wins: by place in the order of play, and by side (ids id-c1 and id-c2). */
static void charts_wins(FILE *f, const struct figures *g, const char *id, int players)
{
	static const char *const places[] = { "1st", "2nd", "3rd", "4th" };
	static const char *const place_rows[] = { "1st to play", "2nd to play", "3rd to play", "4th to play" };
	static const char *const sides[] = { "side 0", "side 1" };
	static const char *const side_rows[] = { "side 0 (seats 0 and 2)", "side 1 (seats 1 and 3)" };
	static const char *const side_rows2[] = { "side 0 (seat 0)", "side 1 (seat 1)" };
	static const int place_colours[] = { BRP_BLUE, BRP_VERMILLION, BRP_BLUE, BRP_VERMILLION };
	static const int side_colours[] = { BRP_BLUE, BRP_VERMILLION };
	char cid[2][64];
	double v[RPL_MAX_SEATS];
	struct brp_chart c;

	snprintf(cid[0], sizeof(cid[0]), "%s-c1", id);
	snprintf(cid[1], sizeof(cid[1]), "%s-c2", id);
	for (int k = 0; k < players; k++)
		v[k] = (double)g->wins_place[k];
	c = (struct brp_chart){ cid[0],
		                    "Wins by place in the order of play",
		                    "Matches won by the side of the seat that played first, second and so on in the "
		                    "match; the 1st and 3rd share a side, and so its wins (blue: the side that played "
		                    "first, vermillion: the other).",
		                    "place in the order of play",
		                    "matches won",
		                    players,
		                    places,
		                    place_rows,
		                    v,
		                    place_colours,
		                    0,
		                    0 };
	brp_svg_chart(f, &c);
	for (int s = 0; s < 2; s++)
		v[s] = (double)g->wins_side[s];
	c = (struct brp_chart){ cid[1],
		                    "Wins by side",
		                    "Matches won by each side: side 0 holds seats 0 and 2 (seat 0 alone at two), side 1 "
		                    "seats 1 and 3.",
		                    "side",
		                    "matches won",
		                    2,
		                    sides,
		                    players == 2 ? side_rows2 : side_rows,
		                    v,
		                    side_colours,
		                    0,
		                    0 };
	brp_svg_chart(f, &c);
}

/*
 * A histogram of fixed bins (n of them, width wide from from; the first
 * open below when open_low, the last open above), drawn from the first bin
 * that holds a count to the last: chart c with its texts set.
 */
static void chart_bins(FILE *f, struct brp_chart *c, const long *bins, int n, int from, int width, int open_low)
{
	enum { MAXBINS = SCORE_BINS > TURN_BINS ? SCORE_BINS : TURN_BINS };
	char lab[MAXBINS][16], row[MAXBINS][40];
	const char *labels[MAXBINS], *rows[MAXBINS];
	double v[MAXBINS];
	int lo, hi;

	for (lo = 0; lo < n - 1 && !bins[lo]; lo++)
		;
	for (hi = n - 1; hi > lo && !bins[hi]; hi--)
		;
	for (int i = lo; i <= hi; i++) {
		int start = from + i * width, k = i - lo;
		snprintf(lab[k], sizeof(lab[k]), "%d", start);
		if (i == 0 && open_low)
			snprintf(row[k], sizeof(row[k]), "below %d", start + width);
		else if (i == n - 1)
			snprintf(row[k], sizeof(row[k]), "%d or more", start);
		else
			snprintf(row[k], sizeof(row[k]), "%d to %d", start, start + width - 1);
		labels[k] = lab[k];
		rows[k] = row[k];
		v[k] = (double)bins[i];
	}
	c->n = hi - lo + 1;
	c->labels = labels;
	c->rows = rows;
	c->values = v;
	c->histogram = 1;
	brp_svg_chart(f, c);
}

static double per(long a, long b)
{
	return b ? (double)a / (double)b : 0.0;
}

/* The averages a deal: canastras of each category, pile takes and frozen piles (ids id-c5 and id-c6). */
static void charts_means(FILE *f, const struct figures *g, const char *id)
{
	static const char *const piles[] = { "pile taken", "pile frozen" };
	static const int pile_colours[] = { BRP_ORANGE, BRP_SKY_BLUE };
	const char *cats[RPL_CANASTRA_NCAT];
	char cid[2][64];
	double v[RPL_CANASTRA_NCAT];
	struct brp_chart c;

	snprintf(cid[0], sizeof(cid[0]), "%s-c5", id);
	snprintf(cid[1], sizeof(cid[1]), "%s-c6", id);
	for (int k = 1; k < RPL_CANASTRA_NCAT; k++) {
		cats[k - 1] = rpl_canastra_name(k);
		v[k - 1] = per(g->c.canastras[k], g->c.deals);
	}
	c = (struct brp_chart){ cid[0],
		                    "Canastras a deal",
		                    "How many canastras of each category a deal brings, both sides together, on average.",
		                    "canastra category",
		                    "canastras a deal",
		                    RPL_CANASTRA_NCAT - 1,
		                    cats,
		                    NULL,
		                    v,
		                    NULL,
		                    0,
		                    3 };
	brp_svg_chart(f, &c);
	v[0] = per(g->c.pile_taken, g->c.deals);
	v[1] = per(g->c.pile_frozen, g->c.deals);
	c = (struct brp_chart){ cid[1],
		                    "Pile takes and frozen piles",
		                    "How often a deal sees the pile taken, and the pile frozen by a wild discarded, on "
		                    "average.",
		                    "event",
		                    "times a deal",
		                    2,
		                    piles,
		                    NULL,
		                    v,
		                    pile_colours,
		                    0,
		                    3 };
	brp_svg_chart(f, &c);
}

/* The charts of a group (id: its id in the page; players: its table size). */
static void html_charts(FILE *f, const struct figures *g, const char *id, int players)
{
	char cid[2][64];
	struct brp_chart c;

	snprintf(cid[0], sizeof(cid[0]), "%s-c3", id);
	snprintf(cid[1], sizeof(cid[1]), "%s-c4", id);
	fputs("<div class=\"charts\">\n", f);
	charts_wins(f, g, id, players);
	c = (struct brp_chart){ cid[0],
		                    "Deal scores",
		                    "How each side's score of a deal spreads, in bins of 100 points: each deal counts "
		                    "twice, once a side.",
		                    "deal score (bins of 100 points)",
		                    "side-deals",
		                    0,
		                    NULL,
		                    NULL,
		                    NULL,
		                    NULL,
		                    1,
		                    0 };
	chart_bins(f, &c, g->scores, SCORE_BINS, SCORE_FROM, SCORE_WIDTH, 1);
	c = (struct brp_chart){ cid[1],
		                    "Deal length",
		                    "How many turns a deal ran, in bins of 5 turns.",
		                    "turns in the deal (bins of 5)",
		                    "deals",
		                    0,
		                    NULL,
		                    NULL,
		                    NULL,
		                    NULL,
		                    1,
		                    0 };
	chart_bins(f, &c, g->turns, TURN_BINS, 0, TURN_WIDTH, 0);
	charts_means(f, g, id);
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
	int rc;

	if (brp_source_new(src, name, nargs, args, b->list) < 0)
		return BRP_EXIT_FAIL;
	if (brp_source_stdin_log(*src, stdin_first) < 0)
		return BRP_EXIT_USAGE; /* standard input twice: the command line is wrong */
	brp_progress_start(&t->prog, name, "logs", b->quiet, 0);
	if (t->prog.on && !stdin_first) /* a total to count towards, on a terminal only */
		t->prog.total = brp_source_total(nargs, args, b->list);
	rc = brp_pool_run(name, *src, b->jobs, sizeof(struct rresult), count_file, add_one, NULL, t);
	brp_progress_end(&t->prog);
	if (t->oom) {
		brp_error(name, "out of memory");
		return BRP_EXIT_FAIL;
	}
	if (rc < 0)
		return BRP_EXIT_FAIL;
	if (brp_source_count(*src) == 0 && brp_source_unreadable(*src))
		return BRP_EXIT_FAIL; /* a directory that could not be walked, said */
	if (brp_source_count(*src) == 0) {
		brp_error(name, "no .brp log found in the arguments");
		return BRP_EXIT_USAGE;
	}
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
	nargs = logs + argc - first;
	if (!(args = calloc((size_t)nargs + 1, sizeof(char *)))) {
		brp_error(name, "out of memory");
		goto cleanup;
	}
	memcpy(args, logs_v, (size_t)logs * sizeof(char *));
	memcpy(args + logs, argv + first, (size_t)(argc - first) * sizeof(char *));
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
