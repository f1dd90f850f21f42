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

/* The drawing's size and the room left around the plot for the axes. */
enum { W = 640, H = 300, LEFT = 64, RIGHT = 16, TOP = 16, BOTTOM = 64 };

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

/* A tick step of 1, 2 or 5 times a power of ten that gives about five ticks up to top (> 0). */
static double tick_step(double top)
{
	double raw = top / 5.0, p = pow(10.0, floor(log10(raw))), m = raw / p;

	if (m <= 1.0)
		return p;
	if (m <= 2.0)
		return 2.0 * p;
	if (m <= 5.0)
		return 5.0 * p;
	return 10.0 * p;
}

/* The decimals a tick label needs at this step. */
static int step_decimals(double step)
{
	int d = 0;
	while (d < 6 && fabs(step * pow(10.0, d) - floor(step * pow(10.0, d) + 0.5)) > 1e-9)
		d++;
	return d;
}

static void chart_table(FILE *f, const struct brp_chart *c)
{
	fputs("<details class=\"data\"><summary>The figures of this chart</summary>\n<table>\n<thead><tr><th "
	      "scope=\"col\">",
	      f);
	brp_html_text(f, c->xlabel);
	fputs("</th><th scope=\"col\">", f);
	brp_html_text(f, c->ylabel);
	fputs("</th></tr></thead>\n<tbody>\n", f);
	for (int i = 0; i < c->n; i++) {
		fputs("<tr><th scope=\"row\">", f);
		brp_html_text(f, c->rows ? c->rows[i] : c->labels[i]);
		fprintf(f, "</th><td>%.*f</td></tr>\n", c->decimals, c->values[i]);
	}
	fputs("</tbody>\n</table>\n</details>\n", f);
}

void brp_svg_chart(FILE *f, const struct brp_chart *c)
{
	double top = 0.0, step, plot_w = W - LEFT - RIGHT, plot_h = H - TOP - BOTTOM, slot, bar, gap;
	int every = 1, dec;

	for (int i = 0; i < c->n; i++)
		if (c->values[i] > top)
			top = c->values[i];
	if (top <= 0.0)
		top = 1.0;
	step = tick_step(top);
	top = ceil(top / step - 1e-9) * step;
	dec = step_decimals(step);
	slot = c->n ? plot_w / c->n : plot_w;
	gap = c->histogram ? 0.0 : slot * 0.25;
	bar = slot - gap;
	if (c->histogram)
		while (c->n / every > 12)
			every++;

	fprintf(f, "<figure id=\"%s\">\n<figcaption>", c->id);
	brp_html_text(f, c->title);
	fprintf(f,
	        "</figcaption>\n<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" role=\"img\" "
	        "aria-labelledby=\"%s-t %s-d\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
	        "font-family=\"sans-serif\" font-size=\"12\">\n<title id=\"%s-t\">",
	        c->id, c->id, W, H, W, H, c->id);
	brp_html_text(f, c->title);
	fprintf(f, "</title>\n<desc id=\"%s-d\">", c->id);
	brp_html_text(f, c->desc);
	fputs("</desc>\n", f);

	/* the bars first, so that the axes are drawn over their feet */
	fputs("<g class=\"bars\">\n", f);
	for (int i = 0; i < c->n; i++) {
		double h = c->values[i] / top * plot_h, x = LEFT + i * slot + gap / 2.0;
		int col = c->colours ? c->colours[i] : BRP_BLUE;
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"%s><title>", x,
		        TOP + plot_h - h, bar, h, brp_palette[col].hex, c->histogram ? " stroke=\"#ffffff\"" : "");
		brp_html_text(f, c->rows ? c->rows[i] : c->labels[i]);
		fprintf(f, ": %.*f</title></rect>\n", c->decimals, c->values[i]);
	}
	fputs("</g>\n", f);

	/* the y axis: its line, ticks with their labels and light grid lines, its title turned */
	fprintf(f, "<g class=\"axis y-axis\">\n<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000000\"/>\n", LEFT,
	        TOP, LEFT, TOP + (int)plot_h);
	for (int t = 0; t * step <= top + step * 1e-9; t++) {
		double y = TOP + plot_h - t * step / top * plot_h;
		fprintf(f,
		        "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#000000\"/>"
		        "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\">%.*f</text>\n",
		        LEFT - 5, y, LEFT, y, LEFT - 8, y, dec, t * step);
	}
	fprintf(f, "<text class=\"axis-title\" transform=\"translate(14 %.1f) rotate(-90)\" text-anchor=\"middle\">",
	        TOP + plot_h / 2.0);
	brp_html_text(f, c->ylabel);
	fputs("</text>\n</g>\n", f);

	/* the x axis: its line, a label under each bar (every few bins of a histogram), its title */
	fprintf(f, "<g class=\"axis x-axis\">\n<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000000\"/>\n", LEFT,
	        TOP + (int)plot_h, W - RIGHT, TOP + (int)plot_h);
	for (int i = 0; i < c->n; i += every) {
		double x = LEFT + i * slot + (c->histogram ? 0.0 : slot / 2.0);
		fprintf(f,
		        "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000000\"/>"
		        "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
		        x, TOP + (int)plot_h, x, TOP + (int)plot_h + 5, x, TOP + (int)plot_h + 18);
		brp_html_text(f, c->labels[i]);
		fputs("</text>\n", f);
	}
	fprintf(f, "<text class=\"axis-title\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", LEFT + plot_w / 2.0, H - 12);
	brp_html_text(f, c->xlabel);
	fputs("</text>\n</g>\n</svg>\n", f);
	chart_table(f, c);
	fputs("</figure>\n", f);
}
