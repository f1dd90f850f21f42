/* SVG charts for brp's pages (svg.h): drawn here, no script, no image file. */
#include "svg.h"

#include <math.h>
#include <string.h>

/* clang-format off */
const struct brp_colour_def brp_palette[BRP_NCOLOURS] = {
	{ "blue",       "#0072B2" },
	{ "vermillion", "#D55E00" },
	{ "orange",     "#E69F00" },
	{ "sky blue",   "#56B4E9" },
	{ "green",      "#009E73" },
	{ "yellow",     "#F0E442" },
	{ "purple",     "#CC79A7" },
	{ "black",      "#000000" },
};
/* clang-format on */

void brp_html_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* ---- the frame ---- */

double brp_svg_step(double span, double least)
{
	double raw = span / 5.0, p, m, step;

	if (!(raw > 0.0))
		return least > 0.0 ? least : 1.0;
	p = pow(10.0, floor(log10(raw)));
	m = raw / p;
	step = (m <= 1.0 + 1e-9 ? 1.0 : m <= 2.0 + 1e-9 ? 2.0 : m <= 5.0 + 1e-9 ? 5.0 : 10.0) * p;
	return step < least ? least : step;
}

void brp_frame_range(struct brp_frame *fr, double lo, double hi, double least)
{
	if (hi <= lo)
		hi = lo + 1.0;
	fr->step = brp_svg_step(hi - lo, least);
	fr->lo = -ceil(-lo / fr->step - 1e-9) * fr->step;
	fr->hi = ceil(hi / fr->step - 1e-9) * fr->step;
}

double brp_frame_y(const struct brp_frame *fr, double v)
{
	return fr->y1 - (v - fr->lo) / (fr->hi - fr->lo) * (fr->y1 - fr->y0);
}

/* The decimals a tick label needs at this step. */
static int step_decimals(double step)
{
	int d = 0;
	while (d < 6 && fabs(step * pow(10.0, d) - floor(step * pow(10.0, d) + 0.5)) > 1e-9)
		d++;
	return d;
}

void brp_svg_begin(FILE *f, const char *id, const struct brp_frame *fr, const char *attrs, const char *title)
{
	fputs("<svg role=\"img\" aria-labelledby=\"", f);
	brp_html_text(f, id);
	fputs("-t ", f);
	brp_html_text(f, id);
	fprintf(f, "-d\" viewBox=\"0 0 %d %d\"%s><title id=\"", fr->w, fr->h, attrs);
	brp_html_text(f, id);
	fputs("-t\">", f);
	brp_html_text(f, title);
	fputs("</title><desc id=\"", f);
	brp_html_text(f, id);
	fputs("-d\">", f);
}

void brp_svg_y_axis(FILE *f, const struct brp_frame *fr, const char *title)
{
	int dec = step_decimals(fr->step);
	int nticks = (int)floor((fr->hi - fr->lo) / fr->step + 0.5);

	fputs("<g class=\"axis y-axis\"><path class=\"grid\" fill=\"none\" stroke=\"#e4e1d8\" d=\"", f);
	for (int t = 0; t <= nticks; t++)
		fprintf(f, "M%d %.1fH%d", fr->x0, brp_frame_y(fr, fr->lo + t * fr->step), fr->x1);
	fprintf(f, "\"/>\n<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#555555\"/>\n", fr->x0, fr->y0, fr->x0,
	        fr->y1);
	for (int t = 0; t <= nticks; t++)
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\">%.*f</text>", fr->x0 - 4,
		        brp_frame_y(fr, fr->lo + t * fr->step), dec, fr->lo + t * fr->step);
	fprintf(f, "\n<text class=\"axis-title\" transform=\"translate(14 %d)rotate(-90)\" text-anchor=\"middle\">",
	        (fr->y0 + fr->y1) / 2);
	brp_html_text(f, title);
	fputs("</text></g>\n", f);
}

void brp_svg_x_axis(FILE *f, const struct brp_frame *fr)
{
	fprintf(f, "<g class=\"axis x-axis\"><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#555555\"/>\n", fr->x0,
	        fr->y1, fr->x1, fr->y1);
}

void brp_svg_x_tick(FILE *f, const struct brp_frame *fr, double x, const char *label, int turned)
{
	fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#555555\"/>", x, fr->y1, x, fr->y1 + 4);
	if (turned)
		fprintf(f, "<text transform=\"translate(%.1f %d)rotate(-35)\" text-anchor=\"end\">", x + 4, fr->y1 + 14);
	else
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x, fr->y1 + 16);
	brp_html_text(f, label);
	fputs("</text>\n", f);
}

void brp_svg_x_axis_end(FILE *f, const struct brp_frame *fr, const char *title)
{
	fprintf(f, "<text class=\"axis-title\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (fr->x0 + fr->x1) / 2,
	        fr->h - 5);
	brp_html_text(f, title);
	fputs("</text></g>\n", f);
}

/* ---- brp report's bar charts ---- */

/* The drawing's size and the plot's edges: a legend above the plot, slanted labels under it. */
enum { W = 640, H = 330, LEFT = 64, RIGHT = 16, TOP = 40, BOTTOM = 92 };

static void chart_table(FILE *f, const struct brp_chart *c)
{
	fputs("<details class=\"data\"><summary>The figures of this chart</summary>\n<table>\n<thead><tr><th "
	      "scope=\"col\">",
	      f);
	brp_html_text(f, c->xlabel);
	for (int k = 0; k < c->nseries; k++) {
		fputs("</th><th scope=\"col\">", f);
		brp_html_text(f, c->series[k]);
	}
	fputs("</th></tr></thead>\n<tbody>\n", f);
	for (int i = 0; i < c->n; i++) {
		fputs("<tr><th scope=\"row\">", f);
		brp_html_text(f, c->labels[i]);
		fputs("</th>", f);
		for (int k = 0; k < c->nseries; k++)
			fprintf(f, "<td>%.*f</td>", c->decimals, c->values[i * c->nseries + k]);
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n</details>\n", f);
}

/* Each series' colour and name, above the plot (the series' order is also each category's bars' order). */
static void legend(FILE *f, const struct brp_chart *c)
{
	fputs("<g class=\"legend\">", f);
	for (int k = 0; k < c->nseries; k++) {
		int x = LEFT + k * 200;
		fprintf(f, "<rect x=\"%d\" y=\"10\" width=\"14\" height=\"14\" fill=\"%s\" stroke=\"#000000\"/>", x,
		        brp_palette[c->colours[k]].hex);
		fprintf(f, "<text x=\"%d\" y=\"17\" dominant-baseline=\"middle\">", x + 20);
		brp_html_text(f, c->series[k]);
		fputs("</text>", f);
	}
	fputs("</g>\n", f);
}

void brp_svg_chart(FILE *f, const struct brp_chart *c)
{
	struct brp_frame fr = { W, H, LEFT, W - RIGHT, TOP, H - BOTTOM, 0, 0, 0 };
	double top = 0.0, slot, bar;
	int turned = 0;

	for (int i = 0; i < c->n * c->nseries; i++)
		if (c->values[i] > top)
			top = c->values[i];
	brp_frame_range(&fr, 0.0, top > 0.0 ? top : 1.0, c->decimals ? 0.0 : 1.0);
	slot = c->n ? (double)(fr.x1 - fr.x0) / c->n : (double)(fr.x1 - fr.x0);
	bar = slot * 0.8 / c->nseries;
	for (int i = 0; i < c->n; i++)
		if (strlen(c->labels[i]) * 7.0 > slot)
			turned = 1;

	fprintf(f, "<figure id=\"%s\">\n<figcaption>", c->id);
	brp_html_text(f, c->title);
	fputs("</figcaption>\n", f);
	brp_svg_begin(f, c->id, &fr,
	              " xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"640\" height=\"330\" "
	              "font-family=\"sans-serif\" font-size=\"12\"",
	              c->title);
	brp_html_text(f, c->desc);
	fputs("</desc>\n", f);
	brp_svg_y_axis(f, &fr, c->ylabel);
	if (c->nseries > 1)
		legend(f, c);

	/* the bars before the x axis, so that its line is drawn over their feet */
	fputs("<g class=\"bars\">\n", f);
	for (int i = 0; i < c->n; i++)
		for (int k = 0; k < c->nseries; k++) {
			double v = c->values[i * c->nseries + k], y = brp_frame_y(&fr, v);
			fprintf(f,
			        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" stroke=\"#000000\" "
			        "stroke-width=\"0.75\"><title>",
			        fr.x0 + i * slot + slot * 0.1 + k * bar, y, bar, fr.y1 - y, brp_palette[c->colours[k]].hex);
			brp_html_text(f, c->labels[i]);
			if (c->nseries > 1) {
				fputs(", ", f);
				brp_html_text(f, c->series[k]);
			}
			fprintf(f, ": %.*f</title></rect>\n", c->decimals, v);
		}
	fputs("</g>\n", f);

	brp_svg_x_axis(f, &fr);
	for (int i = 0; i < c->n; i++)
		brp_svg_x_tick(f, &fr, fr.x0 + (i + 0.5) * slot, c->labels[i], turned);
	brp_svg_x_axis_end(f, &fr, c->xlabel);
	fputs("</svg>\n", f);
	chart_table(f, c);
	fputs("</figure>\n", f);
}
