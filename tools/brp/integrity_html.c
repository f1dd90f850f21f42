#define _XOPEN_SOURCE 700 /* realpath, for the links to the logs' pages */
/*
 * brp integrity --html: a page a director reads. One section a statistic:
 * every subject's z (its evidence in standard errors, positive the way a
 * cheat would go) drawn against the null, the standard normal that honest
 * play gives, and the table of its lines with links to the decisions behind
 * each flag. No script: the page is read offline, as brp report's is.
 */
#include "brp.h"
#include "integrity_html.h"
#include "svg.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The z axis: -4 to at least 4, wider to hold every subject. */
struct zaxis {
	double lo, hi;
};

static double zx(const struct brp_frame *fr, const struct zaxis *za, double z)
{
	if (z < za->lo)
		z = za->lo;
	if (z > za->hi)
		z = za->hi;
	return fr->x0 + (z - za->lo) / (za->hi - za->lo) * (fr->x1 - fr->x0);
}

static int wanted(const rpl_integrity_line *l, int stat, const char *player, int pairs)
{
	if (l->stat != stat || (l->partner && !pairs))
		return 0;
	return !player || !strcmp(l->player, player) || (l->partner && !strcmp(l->partner, player));
}

static void subject_name(FILE *f, const rpl_integrity_line *l)
{
	brp_html_text(f, l->player);
	if (l->partner) {
		fputs(" &gt; ", f);
		brp_html_text(f, l->partner);
	}
}

/* The plot of one statistic: a histogram of the subjects' z, the normal density over it, a dot a subject. */
static void plot(FILE *f, const rpl_integrity *in, long n, int stat, const char *player, int pairs)
{
	enum { BINS_PER_Z = 2 };
	struct brp_frame fr = { 720, 300, 60, 700, 20, 230, 0, 0, 0 };
	struct zaxis za = { -4, 4 };
	rpl_integrity_line l;
	long count = 0, *bins;
	double top = 0.45;
	const char *sname = rpl_integrity_stat_name(stat);
	char id[32], title[96];
	int nb;

	for (long i = 0; i < n; i++)
		if (rpl_integrity_line_get(in, i, &l) == 0 && wanted(&l, stat, player, pairs)) {
			count++;
			za.lo = fmin(za.lo, floor(l.z));
			za.hi = fmax(za.hi, ceil(l.z));
		}
	za.lo = fmax(za.lo, -12);
	za.hi = fmin(za.hi, 12);
	nb = (int)((za.hi - za.lo) * BINS_PER_Z);
	if (!(bins = calloc((size_t)nb, sizeof(*bins))))
		return;
	for (long i = 0; i < n; i++)
		if (rpl_integrity_line_get(in, i, &l) == 0 && wanted(&l, stat, player, pairs)) {
			int b = (int)floor((fmin(fmax(l.z, za.lo), za.hi - 1e-9) - za.lo) * BINS_PER_Z);
			bins[b]++;
		}
	for (int b = 0; b < nb; b++)
		top = fmax(top, (double)bins[b] * BINS_PER_Z / (double)count);
	brp_frame_range(&fr, 0, top, 0.05);
	snprintf(id, sizeof(id), "plot-%s", sname);
	snprintf(title, sizeof(title), "%s: each subject's z against the null (honest play)", sname);
	brp_svg_begin(f, id, &fr, " class=\"plot\"", title);
	fprintf(f,
	        "A histogram of the z of %ld subjects (bars, as a density), the standard normal curve that honest play "
	        "gives, and a dot a subject under the axis, flagged ones in vermillion.</desc>\n",
	        count);
	brp_svg_y_axis(f, &fr, "Density");
	for (int b = 0; b < nb; b++)
		if (bins[b]) {
			double x0 = zx(&fr, &za, za.lo + (double)b / BINS_PER_Z), x1 = zx(&fr, &za, za.lo + (b + 1.0) / BINS_PER_Z);
			double y = brp_frame_y(&fr, (double)bins[b] * BINS_PER_Z / (double)count);
			fprintf(f, "<rect class=\"bin\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
			        x0 + 1, y, x1 - x0 - 2, fr.y1 - y, brp_palette[BRP_SKY_BLUE].hex);
		}
	fprintf(f, "<path class=\"null\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" d=\"", brp_palette[BRP_BLACK].hex);
	for (int k = 0; k <= 200; k++) {
		double z = za.lo + (za.hi - za.lo) * k / 200.0;
		fprintf(f, "%s%.1f %.1f", k ? "L" : "M", zx(&fr, &za, z),
		        brp_frame_y(&fr, exp(-z * z / 2) / 2.5066282746310002));
	}
	fputs("\"/>\n", f);
	brp_svg_x_axis(f, &fr);
	for (int z = (int)za.lo; z <= (int)za.hi; z += za.hi - za.lo > 12 ? 2 : 1) {
		char label[16];
		snprintf(label, sizeof(label), "%d", z);
		brp_svg_x_tick(f, &fr, zx(&fr, &za, z), label, 0);
	}
	brp_svg_x_axis_end(f, &fr, "z: the evidence in standard errors (right: the way a cheat goes)");
	for (long i = 0; i < n; i++) {
		if (rpl_integrity_line_get(in, i, &l) != 0 || !wanted(&l, stat, player, pairs))
			continue;
		fprintf(f, "<circle class=\"subject%s\" data-flagged=\"%d\" cx=\"%.1f\" cy=\"%d\" r=\"%d\" fill=\"%s\"><title>",
		        l.flagged ? " flagged" : "", l.flagged, zx(&fr, &za, l.z), fr.y1 - (l.flagged ? 10 : 5),
		        l.flagged ? 6 : 3, brp_palette[l.flagged ? BRP_VERMILLION : BRP_BLUE].hex);
		subject_name(f, &l);
		fprintf(f, ": z %.2f, p %.2g</title></circle>\n", l.z, l.p);
		if (l.flagged) {
			/* a flag is named on the plot, at its dot, right-aligned when the dot is in the right half */
			double x = zx(&fr, &za, l.z);
			int right = x > (fr.x0 + fr.x1) / 2.0;
			fprintf(f, "<text class=\"flag-name\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\" fill=\"%s\">",
			        right ? x - 8 : x + 8, fr.y1 - 16, right ? "end" : "start", brp_palette[BRP_VERMILLION].hex);
			subject_name(f, &l);
			fputs("</text>\n", f);
		}
	}
	fputs("</svg>\n", f);
	free(bins);
}

/* A log's brp view page (the log's path with .html for .brp, made absolute when it can be), as an href. */
static void view_href(FILE *f, const char *path, const rpl_integrity_where *w)
{
	char real[PATH_MAX];
	const char *p = realpath(path, real) ? real : path;
	size_t len = strlen(p);

	if (p[0] == '/')
		fputs("file://", f);
	if (len > 4 && !strcmp(p + len - 4, ".brp"))
		len -= 4;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)p[i];
		/* a path's bytes in a URL: unreserved ones and '/' as they are, every other byte %XX */
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("-._~/", c))
			fputc(c, f);
		else
			fprintf(f, "%%%02X", c);
	}
	fprintf(f, ".html#d=%d&amp;t=%d&amp;n=%d", w->deal, w->turn, w->step);
}

static void table(FILE *f, const rpl_integrity *in, long n, int stat, const char *player, int pairs,
                  const char *const *paths)
{
	rpl_integrity_line l;
	const char *sname = rpl_integrity_stat_name(stat);

	fprintf(f,
	        "<table id=\"table-%s\">\n<thead><tr><th scope=\"col\">%s</th><th scope=\"col\">Decisions</th><th "
	        "scope=\"col\">Deals</th><th scope=\"col\">Value</th><th scope=\"col\">z</th><th scope=\"col\">p</th><th "
	        "scope=\"col\">Level</th><th scope=\"col\">Flag and evidence</th></tr></thead>\n<tbody>\n",
	        sname,
	        stat == RPL_INTEGRITY_FEED || stat == RPL_INTEGRITY_SIGNAL ? "Pair (whose decisions &gt; whose hand)"
	                                                                   : "Player");
	for (long i = 0; i < n; i++) {
		if (rpl_integrity_line_get(in, i, &l) != 0 || !wanted(&l, stat, player, pairs))
			continue;
		fprintf(f, "<tr class=\"%s\"><th scope=\"row\">", l.flagged ? "flagged" : "clear");
		subject_name(f, &l);
		fprintf(f, "</th><td>%ld</td><td>%ld</td><td>%+.4f</td><td>%.2f</td><td>%.2g</td><td>%.2g</td><td>",
		        l.decisions, l.deals, l.value, l.z, l.p, l.level);
		if (l.flagged) {
			fputs("<strong>flagged</strong><ul class=\"evidence\">", f);
			for (int k = 0; k < l.nevidence; k++) {
				const rpl_integrity_where *w = &l.evidence[k];
				fputs("<li><a href=\"", f);
				view_href(f, paths[w->match], w);
				fputs("\" title=\"", f);
				brp_html_text(f, paths[w->match]);
				fputs("\">", f);
				brp_html_text(f, strrchr(paths[w->match], '/') ? strrchr(paths[w->match], '/') + 1 : paths[w->match]);
				fprintf(f, ", deal %d, turn %d, decision %d</a></li>", w->deal, w->turn, w->step);
			}
			fputs("</ul>", f);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
}

static const char page_css[] =
		"body{font-family:system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem;color:#222}"
		"body{background:#fdfcf8}h1{font-size:1.6rem}section{margin:2rem 0}"
		"svg.plot{width:100%;height:auto;font-size:12px}table{border-collapse:collapse;width:100%;font-size:.9rem}"
		"th,td{padding:.3rem .5rem;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}"
		"td{font-variant-numeric:tabular-nums}tr.flagged{background:#fbe9e2}"
		"ul.evidence{margin:.3rem 0;padding-left:1.2rem}ul.evidence li{margin:.1rem 0}"
		"a{color:#0055aa;display:inline-block;min-height:24px}"
		"p.caution{border-left:4px solid #d55e00;padding-left:.6rem}";

static const char *const stat_text[RPL_INTEGRITY_NSTATS] = {
	"Discards that fit the next opponent's hidden hand less often than the player's own information explains.",
	"Draws (the stock or the pile) that agree with the stock's hidden card more often than explained.",
	"Discards that fit an opponent's hidden hand more often than explained: one player feeding another.",
	"Discards that fit the partner's hidden hand more often than explained: play as if seeing it.",
	("Decisions that gained more on the real cards than on samples of the unseen ones, against the other "
	 "candidates (the full test, --full: the review's judge with and without hindsight)."),
};

int brp_integrity_html(const char *cmd, const char *out, const rpl_integrity *in, long n, const char *const *paths,
                       const char *player, int pairs)
{
	struct brp_output o;
	rpl_integrity_line l;
	long shown[RPL_INTEGRITY_NSTATS] = { 0 }, flagged = 0;
	char why[256];
	FILE *f;

	if (brp_output_open(&o, out, why, sizeof(why)) != 0) {
		brp_error(cmd, "%s: %s", out, why);
		return -1;
	}
	f = o.f;
	for (long i = 0; i < n; i++)
		for (int s = 0; s < RPL_INTEGRITY_NSTATS; s++)
			if (rpl_integrity_line_get(in, i, &l) == 0 && wanted(&l, s, player, pairs)) {
				shown[s]++;
				flagged += l.flagged;
			}
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>Integrity screen - brp integrity</title>\n<style>",
	      f);
	fputs(page_css, f);
	fprintf(f,
	        "</style>\n</head>\n<body>\n<header>\n<h1>Integrity screen</h1>\n<p id=\"summary\" "
	        "data-flagged=\"%ld\">%ld "
	        "flagged. Each line compares a player's decisions with the cards it could not see, against what its own "
	        "information explains; its p-value comes from a permutation test across its deals "
	        "(docs/integrity.md).</p>\n<p class=\"caution\">A flag is a reason to look at the decisions behind it, "
	        "never a verdict: a strong player who reads the table well, or a corpus small in deals, can stand out "
	        "without any hidden information.</p>\n</header>\n",
	        flagged, flagged);
	for (int s = 0; s < RPL_INTEGRITY_NSTATS; s++) {
		if (!shown[s])
			continue;
		fprintf(f, "<section id=\"stat-%s\">\n<h2>%s</h2>\n<p>", rpl_integrity_stat_name(s),
		        rpl_integrity_stat_name(s));
		brp_html_text(f, stat_text[s]);
		fputs("</p>\n", f);
		plot(f, in, n, s, player, pairs);
		table(f, in, n, s, player, pairs, paths);
		fputs("</section>\n", f);
	}
	fputs("</body>\n</html>\n", f);
	if (brp_output_commit(&o, why, sizeof(why)) != 0) {
		brp_error(cmd, "%s: %s", out, why);
		return -1;
	}
	return 0;
}
