/*
 * brp view: the match's course, as inline SVG in the page (docs/view.md,
 * "The match's course"). One chart of the match (each side's running total
 * after each deal) and one a deal (each side's points on the table, its
 * melds and canastra bonuses, at the end of each turn), the disputed moment
 * marked on both. Written here, not by the page's script: the charts read
 * and print without JavaScript, and every point is a link to its position's
 * fragment, which the stepper follows.
 *
 * Only public numbers are drawn: the melds on the table and the match totals
 * of the deals ended are what every seat sees, so a --seat page's charts are
 * the director's, byte for byte (tests/cli/view_check.py checks it). The
 * colours are the page's style sheet's (--side0, --side1, --dispute in
 * view.css): the charts name classes only.
 */
#include "brp.h"
#include "svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What a chart needs of a position. */
struct course_pt {
	int32_t deal, turn, n;
	int32_t table[2]; /* melded + bonus: the points on the table */
	int32_t total[2]; /* the match totals of the deals ended */
	int8_t kind;      /* enum rpl_position_kind - 1 */
	int8_t over;      /* the deal is over */
};

struct brp_course {
	struct course_pt *pt;
	int n, cap;
	rpl_action *acts; /* the decisions of the last turn, for a dead end's disputed one */
	int nacts, capacts, acts_from;
};

/* The chart's frame, in the SVG's own units: the plot inside the axes; above it the legend, then the dispute's label. */
enum { CW = 600, CH = 200, PX0 = 56, PX1 = 588, PY0 = 36, PY1 = 160 };

struct brp_course *brp_course_new(void)
{
	return calloc(1, sizeof(struct brp_course));
}

void brp_course_free(struct brp_course *c)
{
	if (!c)
		return;
	free(c->pt);
	free(c->acts);
	free(c);
}

int brp_course_add(struct brp_course *c, const rpl_position *p)
{
	struct course_pt *q;

	if (c->n == c->cap) {
		int cap = c->cap ? 2 * c->cap : 256;
		struct course_pt *grown = realloc(c->pt, (size_t)cap * sizeof(*grown));
		if (!grown)
			return RPL_ENOMEM;
		c->pt = grown;
		c->cap = cap;
	}
	q = &c->pt[c->n];
	q->deal = p->deal;
	q->turn = p->turn;
	q->n = p->decision;
	q->kind = (int8_t)(p->kind - 1);
	q->over = p->phase >= RPL_PHASE_DEAL_OVER;
	for (int s = 0; s < 2; s++) {
		q->table[s] = p->score[s].melded + p->score[s].bonus;
		q->total[s] = p->total[s];
	}
	if (c->n == 0 || c->pt[c->n - 1].deal != q->deal || c->pt[c->n - 1].turn != q->turn) {
		c->nacts = 0;
		c->acts_from = c->n;
	}
	if (c->nacts == c->capacts) {
		int cap = c->capacts ? 2 * c->capacts : 16;
		rpl_action *grown = realloc(c->acts, (size_t)cap * sizeof(*grown));
		if (!grown)
			return RPL_ENOMEM;
		c->acts = grown;
		c->capacts = cap;
	}
	c->acts[c->nacts++] = p->action;
	c->n++;
	return 0;
}

/* The first (last: 1) position of deal d, or of the match when d is 0; -1 when there is none. */
static int deal_edge(const struct brp_course *c, int d, int last)
{
	int at = -1;

	for (int i = 0; i < c->n; i++)
		if (d == 0 || c->pt[i].deal == d) {
			at = i;
			if (!last && d)
				break;
		}
	return d == 0 && !last ? (c->n ? 0 : -1) : at;
}

int brp_course_disputed(const struct brp_course *c, const rpl_verdict *v, int open)
{
	if (v->kind == RPL_VERDICT_OK || c->n == 0)
		return -1;
	if (v->replay == RPL_VERDICT_ILLEGAL && v->rule == RPL_RULE_TURN_DEAD_END && v->turn > 0) {
		/* the decision that left the turn no legal end, as the page's script finds it: by its text */
		char want[160], got[160];
		rpl_action_format(&v->action, want, sizeof(want));
		for (int i = c->nacts - 1; i >= 0; i--) {
			const struct course_pt *q = &c->pt[c->acts_from + i];
			rpl_action_format(&c->acts[i], got, sizeof(got));
			if (q->kind == 1 && q->deal == v->deal && q->turn == v->turn && strcmp(got, want) == 0)
				return c->acts_from + i;
		}
	}
	if (v->kind == RPL_VERDICT_MISMATCH && v->deal_commitment == RPL_DEAL_MISMATCH)
		return deal_edge(c, v->deal_mismatch, 0);
	if (v->kind == RPL_VERDICT_MISMATCH)
		return deal_edge(c, v->claim_deal, 1);
	if (v->kind == RPL_VERDICT_MALFORMED)
		return c->n - 1;
	return open >= 0 && open < c->n ? open : -1;
}

/* A chart's frame (svg.h), its y axis from lo to hi (lo <= 0 <= hi) in whole numbers. */
static struct brp_frame frame(int32_t lo, int32_t hi)
{
	struct brp_frame fr = { CW, CH, PX0, PX1, PY0, PY1, 0, 0, 0 };
	brp_frame_range(&fr, lo, hi, 1.0);
	return fr;
}

/* The y of value v in the frame, in whole units (the page's paths are drawn in them). */
static int y_of(const struct brp_frame *fr, int32_t v)
{
	return (int)lround(brp_frame_y(fr, v));
}

/* The x of k on an axis from 0 to n. */
static int x_of(int k, int n)
{
	return PX0 + (int)((int64_t)k * (PX1 - PX0) / n);
}

/* The axes (svg.c), the x axis numbered 0 to n, and the legend. */
static void axes(FILE *f, const struct brp_frame *fr, int n, const char *xlabel, const char *ylabel)
{
	int xstep = (int)brp_svg_step(n, 1.0);
	char num[16];

	brp_svg_y_axis(f, fr, ylabel);
	brp_svg_x_axis(f, fr);
	for (int k = 0; k <= n; k += xstep) {
		snprintf(num, sizeof(num), "%d", k);
		brp_svg_x_tick(f, fr, x_of(k, n), num, 0);
	}
	brp_svg_x_axis_end(f, fr, xlabel);
	/* the legend: each side by its colour, its line and its marker (the page also prints in grey) */
	fprintf(f,
	        "<g class=\"legend\"><path class=\"s0\" d=\"M%d 12h24\"/><circle class=\"s0\" cx=\"%d\" cy=\"12\" r=\"4\"/>"
	        "<text x=\"%d\" y=\"16\">side 0</text><path class=\"s1\" d=\"M%d 12h24\"/>"
	        "<rect class=\"s1\" x=\"%d\" y=\"8\" width=\"8\" height=\"8\"/><text x=\"%d\" y=\"16\">side 1</text></g>\n",
	        PX0, PX0 + 12, PX0 + 30, PX0 + 90, PX0 + 98, PX0 + 120);
}

/* A point of side s's group, a link to the end of q's turn (its value: the data table's, the desc's). */
static void point(FILE *f, int s, int x, int y, const struct course_pt *q)
{
	fprintf(f, "<a href=\"#d=%d&amp;t=%d\">", (int)q->deal, (int)q->turn);
	if (s == 0)
		fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"4\"/></a>", x, y);
	else
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"8\" height=\"8\"/></a>", x - 4, y - 4);
}

/* The disputed moment at x: a line across the plot and its label, a link to position q. */
static void dispute_mark(FILE *f, int x, const struct course_pt *q, const rpl_verdict *v)
{
	fprintf(f,
	        "<a class=\"disputed\" href=\"#d=%d&amp;t=%d&amp;n=%d\"><path d=\"M%d %dV%d\"/>"
	        "<text x=\"%d\" y=\"%d\"%s>%s</text></a>\n",
	        (int)q->deal, (int)q->turn, (int)q->n, x, PY0 - 16, PY1, x > PX1 - 90 ? x - 4 : x + 4, PY0 - 5,
	        x > PX1 - 90 ? " class=\"ry\"" : "", rpl_verdict_name(v->kind)); /* its label left of a line on the right */
}

/* Is position i the last of its turn (a dealt position is its turn 0)? */
static int turn_end(const struct brp_course *c, int i)
{
	return i + 1 == c->n || c->pt[i + 1].deal != c->pt[i].deal || c->pt[i + 1].turn != c->pt[i].turn;
}

/* The running totals: a point a deal ended, the start at 0 to 0. The data is the summary's deal table. */
static void chart_match(FILE *f, const struct brp_course *c, int disputed, const rpl_verdict *v)
{
	int nd = 0, ddeal = disputed >= 0 ? c->pt[disputed].deal : 0, n;
	int32_t lo = 0, hi = 0;
	struct brp_frame fr;

	for (int i = 0; i < c->n; i++)
		if (c->pt[i].over && turn_end(c, i)) {
			nd = c->pt[i].deal;
			for (int s = 0; s < 2; s++) {
				lo = c->pt[i].total[s] < lo ? c->pt[i].total[s] : lo;
				hi = c->pt[i].total[s] > hi ? c->pt[i].total[s] : hi;
			}
		}
	n = ddeal > nd ? ddeal : nd;
	n = n ? n : 1; /* the x axis: deals 0 to the last ended, or the disputed one */
	fr = frame(lo, hi > lo ? hi : lo + 100);
	fputs("<figure id=\"course-match\">", f);
	brp_svg_begin(f, "cm", &fr, "", "The match: each side's running total after each deal");
	for (int s = 0; s < 2; s++) {
		fprintf(f, "%s %d: 0", s ? "; side" : "Side", s);
		for (int i = 0; i < c->n; i++)
			if (c->pt[i].over && turn_end(c, i))
				fprintf(f, ", %d after deal %d", (int)c->pt[i].total[s], (int)c->pt[i].deal);
	}
	fputs(".</desc>\n", f);
	axes(f, &fr, n, "deal", "match total");
	for (int s = 0; s < 2; s++) {
		fprintf(f, "<path class=\"s%d\" d=\"M%d %d", s, x_of(0, n), y_of(&fr, 0));
		for (int i = 0; i < c->n; i++)
			if (c->pt[i].over && turn_end(c, i))
				fprintf(f, "L%d %d", x_of(c->pt[i].deal, n), y_of(&fr, c->pt[i].total[s]));
		fprintf(f, "\"/><g class=\"s%d pt\">", s);
		for (int i = 0; i < c->n; i++)
			if (c->pt[i].over && turn_end(c, i))
				point(f, s, x_of(c->pt[i].deal, n), y_of(&fr, c->pt[i].total[s]), &c->pt[i]);
		fputs("</g>\n", f);
	}
	if (disputed >= 0) /* within its deal: between the deal before and its end */
		dispute_mark(f, (x_of(ddeal - 1, n) + x_of(ddeal, n)) / 2, &c->pt[disputed], v);
	fputs("</svg><figcaption>The match's course: each side's total after each deal (the data: the deal table "
	      "above)",
	      f);
	if (disputed >= 0)
		fprintf(f, "; the disputed moment (%s) in deal %d", rpl_verdict_name(v->kind), ddeal);
	fputs(".</figcaption></figure>\n", f);
}

/* Did side s's points on the table change in the turn that ends at position i (from the turn before)? */
static int changed(const struct brp_course *c, int from, int i, int s)
{
	int prev = i - 1;

	while (prev > from && !turn_end(c, prev))
		prev--;
	return i > from && c->pt[i].table[s] != c->pt[prev].table[s];
}

/* The data of a deal's chart: a row a turn that changed the table, and the disputed turn's. */
static void deal_data(FILE *f, const struct brp_course *c, int from, int to, int disputed, const rpl_verdict *v)
{
	int deal = c->pt[from].deal;

	fprintf(f,
	        "<details><summary>Deal %d's points on the table, turn by turn</summary><table><tr><th>Turn</th>"
	        "<th>Side 0</th><th>Side 1</th></tr>",
	        deal);
	for (int i = from + 1; i < to; i++) {
		int here = disputed >= from && disputed < to && c->pt[disputed].turn == c->pt[i].turn;
		if (!turn_end(c, i) || !(changed(c, from, i, 0) || changed(c, from, i, 1) || here))
			continue;
		fprintf(f, "<tr%s><td><a href=\"#d=%d&amp;t=%d\">%d</a>%s%s</td><td>%d</td><td>%d</td></tr>",
		        here ? " class=\"disputed\"" : "", deal, (int)c->pt[i].turn, (int)c->pt[i].turn,
		        here ? ", disputed: " : "", here ? rpl_verdict_name(v->kind) : "", (int)c->pt[i].table[0],
		        (int)c->pt[i].table[1]);
	}
	fputs("</table></details>", f);
}

/* A deal's chart: each side's points on the table at the end of each turn, positions from..to-1. */
static void chart_deal(FILE *f, const struct brp_course *c, int from, int to, int disputed, const rpl_verdict *v)
{
	int deal = c->pt[from].deal, n = c->pt[to - 1].turn > 0 ? c->pt[to - 1].turn : 1;
	int here = disputed >= from && disputed < to;
	int32_t lo = 0, hi = 0;
	char id[24], attrs[96], title[96];
	struct brp_frame fr;

	for (int i = from; i < to; i++)
		for (int s = 0; s < 2; s++) {
			lo = c->pt[i].table[s] < lo ? c->pt[i].table[s] : lo;
			hi = c->pt[i].table[s] > hi ? c->pt[i].table[s] : hi;
		}
	fr = frame(lo, hi > lo ? hi : lo + 100);
	snprintf(id, sizeof(id), "cd%d", deal);
	snprintf(attrs, sizeof(attrs), " data-x0=\"%d\" data-x1=\"%d\" data-turns=\"%d\"", PX0, PX1, n);
	snprintf(title, sizeof(title), "Deal %d: each side's points on the table, turn by turn", deal);
	fprintf(f, "<figure id=\"course-d%d\" class=\"deal-course\" data-deal=\"%d\">", deal, deal);
	brp_svg_begin(f, id, &fr, attrs, title);
	fprintf(f, "After %d turns side 0 has %d points on the table, side 1 %d", (int)c->pt[to - 1].turn,
	        (int)c->pt[to - 1].table[0], (int)c->pt[to - 1].table[1]);
	if (here)
		fprintf(f, "; the disputed moment (%s) at turn %d", rpl_verdict_name(v->kind), (int)c->pt[disputed].turn);
	fputs(". The data: the table below.</desc>\n", f);
	axes(f, &fr, n, "turn", "points on the table");
	fprintf(f, "<path class=\"cursor\" d=\"M%d %dV%d\"/>\n", PX0, PY0, PY1);
	for (int s = 0; s < 2; s++) {
		/* a step: the points hold from one turn to the next, and change in a turn */
		fprintf(f, "<path class=\"s%d\" d=\"M%d %d", s, x_of(0, n), y_of(&fr, c->pt[from].table[s]));
		for (int i = from + 1; i < to; i++)
			if (turn_end(c, i) && changed(c, from, i, s))
				fprintf(f, "H%dV%d", x_of(c->pt[i].turn, n), y_of(&fr, c->pt[i].table[s]));
		fprintf(f, "H%d\"/><g class=\"s%d pt\">", x_of(n, n), s);
		for (int i = from + 1; i < to; i++)
			if (turn_end(c, i) && changed(c, from, i, s))
				point(f, s, x_of(c->pt[i].turn, n), y_of(&fr, c->pt[i].table[s]), &c->pt[i]);
		fputs("</g>\n", f);
	}
	if (here)
		dispute_mark(f, x_of(c->pt[disputed].turn, n), &c->pt[disputed], v);
	fprintf(f,
	        "</svg><figcaption>Deal %d: each side's melds and canastra bonuses on the table, at the end of each "
	        "turn; a point opens its turn.</figcaption>",
	        deal);
	deal_data(f, c, from, to, disputed, v);
	fputs("</figure>\n", f);
}

void brp_course_write(FILE *f, const struct brp_course *c, int disputed, const rpl_verdict *v)
{
	if (c->n == 0)
		return;
	fputs("<section id=\"course\" class=\"course\"><h2>The match's course</h2>\n", f);
	chart_match(f, c, disputed, v);
	for (int from = 0, to; from < c->n; from = to) {
		for (to = from + 1; to < c->n && c->pt[to].deal == c->pt[from].deal;)
			to++;
		chart_deal(f, c, from, to, disputed, v);
	}
	fputs("</section>\n", f);
}
