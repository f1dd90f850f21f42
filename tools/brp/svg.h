/*
 * Charts drawn as SVG by brp itself (svg.c), for pages that must read
 * offline, without JavaScript and without images. Two parts:
 *
 * - the frame every chart of brp draws in: a y axis whose range is rounded
 *   to a tick step of 1, 2 or 5 times a power of ten, the <svg> element's
 *   start with its text alternative (role="img", aria-labelledby its <title>
 *   and <desc>), the axes with their lines, tick labels and titles; brp
 *   view's course charts (view_course.c) and brp report's draw with it;
 * - brp report's bar charts (brp_svg_chart): categories on the x axis, one
 *   to BRP_SERIES_MAX bars a category side by side, a legend, and the same
 *   figures as an HTML table after the drawing.
 *
 * The colours of brp report's charts come from one table, brp_palette;
 * brp view's come from its style sheet (view.css), in the same colours.
 */
#ifndef BRP_SVG_H
#define BRP_SVG_H

#include <stdio.h>

/*
 * The palette (Okabe and Ito, "Color Universal Design", 2002): told apart by
 * readers with each common colour-vision deficiency. Side 0 is blue and side
 * 1 vermillion in every chart of brp, in the workbook's too
 * (export_xlsx.c); tests/style/palette.py reads this table as it reads the
 * workbook's and view.css's, and checks that the sides agree.
 */
enum brp_colour {
	BRP_BLUE,       /* side 0 */
	BRP_VERMILLION, /* side 1 */
	BRP_ORANGE,
	BRP_SKY_BLUE,
	BRP_GREEN,
	BRP_YELLOW,
	BRP_PURPLE,
	BRP_BLACK,
	BRP_NCOLOURS
};
struct brp_colour_def {
	const char *name, *hex;
};
extern const struct brp_colour_def brp_palette[BRP_NCOLOURS];

/* Write s as HTML text or an attribute's value (also fit for SVG). */
void brp_html_text(FILE *f, const char *s);

/* A chart's frame, in the SVG's own units, and its y axis's range. */
struct brp_frame {
	int w, h;            /* the drawing */
	int x0, x1, y0, y1;  /* the plot: left, right, top, bottom (y1 > y0) */
	double lo, hi, step; /* the y axis: lo..hi, ticks every step (brp_frame_range) */
};
/*
 * A tick step of 1, 2 or 5 times a power of ten that cuts span (> 0) into
 * at most five steps; never below least (1 for an axis of whole numbers).
 */
double brp_svg_step(double span, double least);
/* fr's y range: lo down and hi up (lo <= 0 <= hi) to a multiple of the step their span takes. */
void brp_frame_range(struct brp_frame *fr, double lo, double hi, double least);
/* The y of value v in fr's plot. */
double brp_frame_y(const struct brp_frame *fr, double v);
/*
 * The <svg> element's start (attrs: more attributes, or ""; no xmlns: an
 * SVG inline in HTML needs none, and brp view's page names no URL), its <title>
 * (id ID-t) and its <desc>'s start tag (id ID-d): the caller writes the
 * description's text and "</desc>".
 */
void brp_svg_begin(FILE *f, const char *id, const struct brp_frame *fr, const char *attrs, const char *title);
/* The y axis (class y-axis): a light grid line and a label at each tick, its line, its title turned. */
void brp_svg_y_axis(FILE *f, const struct brp_frame *fr, const char *title);
/* The x axis (class x-axis): its line, then brp_svg_x_tick for each label, then brp_svg_x_axis_end. */
void brp_svg_x_axis(FILE *f, const struct brp_frame *fr);
/* A tick at x and its label under it (turned: slanted, for long labels side by side). */
void brp_svg_x_tick(FILE *f, const struct brp_frame *fr, double x, const char *label, int turned);
/* The x axis's title and the end of its group. */
void brp_svg_x_axis_end(FILE *f, const struct brp_frame *fr, const char *title);

enum { BRP_SERIES_MAX = 2 };

/* One bar chart: n categories, each with nseries bars side by side. */
struct brp_chart {
	const char *id;              /* unique in the page: the ids of its title and description derive from it */
	const char *title;           /* the chart's title, shown above it and its accessible name */
	const char *desc;            /* the text alternative: what the chart shows, in a sentence or two */
	const char *xlabel, *ylabel; /* the axes' titles */
	int n;
	const char *const *labels; /* each category's name, under its bars and in the table */
	int nseries;               /* 1 to BRP_SERIES_MAX */
	const char *const *series; /* each series' name, in the legend and the table's head */
	const double *values;      /* n * nseries, >= 0: category i's series k at [i * nseries + k] */
	const int *colours;        /* each series' enum brp_colour */
	int decimals;              /* the values' decimals, in the table and the bars' tooltips */
};

/*
 * The chart as a <figure>: the SVG, then the same figures as a table in a
 * <details> element. Every string is escaped.
 */
void brp_svg_chart(FILE *f, const struct brp_chart *c);

#endif
