/*
 * Charts drawn as SVG by brp itself (svg.c), for a page that must read
 * offline, without JavaScript and without images: a bar chart or a
 * histogram with a title, axis lines, tick labels, axis titles and a text
 * alternative (role="img", aria-labelledby its <title> and <desc>), and the
 * same figures as an HTML table after it. brp report draws its charts with
 * it; the colours come from one table, brp_palette.
 */
#ifndef BRP_SVG_H
#define BRP_SVG_H

#include <stdio.h>

/*
 * The palette (Okabe and Ito, "Color Universal Design", 2002): told apart by
 * readers with each common colour-vision deficiency, and kept in this order
 * so that the first two (the two sides) also differ in grey when printed.
 * tests/style/palette.py reads this table as it reads the workbook's.
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

/* One chart: n bars, each a label and a value (>= 0). */
struct brp_chart {
	const char *id;              /* unique in the page: the ids of its title and description derive from it */
	const char *title;           /* the chart's title, shown above it and its accessible name */
	const char *desc;            /* the text alternative: what the chart shows, in a sentence or two */
	const char *xlabel, *ylabel; /* the axes' titles */
	int n;
	const char *const *labels; /* each bar's label on the x axis */
	const char *const *rows;   /* each bar's name in the table (NULL: its label) */
	const double *values;
	const int *colours; /* each bar's enum brp_colour; NULL: all BRP_BLUE */
	int histogram;      /* the bars are bins: drawn touching, fewer labels under them */
	int decimals;       /* the values' decimals, in the table and the bars' tooltips */
};

/* Write s as HTML text or an attribute's value (also fit for SVG). */
void brp_html_text(FILE *f, const char *s);
/*
 * The chart as a <figure>: the SVG, then the same figures as a table in a
 * <details> element (open in print and without styles alike). Every string
 * is escaped.
 */
void brp_svg_chart(FILE *f, const struct brp_chart *c);

#endif
