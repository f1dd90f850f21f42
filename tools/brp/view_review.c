/*
 * brp view --review: the review of a match on its page (view_review.h,
 * docs/view.md "The review"), read from brp review --json or computed here
 * through rpl_review_reader.
 *
 * A review file is matched to the log by the match identity its first line
 * names (docs/format.md section 17), and each of its decisions to the
 * position where it was played, by its deal, turn and number in the turn,
 * its seat and its text: a review of another match, or a file edited to
 * name decisions the log does not hold, is refused rather than drawn.
 * On a --seat page only that seat's decisions are kept: its engine's better
 * decision names only cards of its own hand (review.h: it is chosen among
 * the seat's legal decisions), where another seat's would show that hand.
 */
#include "brp.h"
#include "svg.h" /* brp_html_text */
#include "view_review.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define ACT_SIZE 160

struct row {
	int deal, turn, decision; /* decision: its number in the turn (from a file) */
	int number;               /* its number in the deal (computed here), else 0 */
	int seat, cls, uncertain;
	double loss, se, accuracy;
	char played[ACT_SIZE], best[ACT_SIZE];
	long line; /* its line in the file, 0 when computed */
	int pos;   /* the index of its position in the page's data, -1 until found */
};

struct seat_sum {
	int present; /* the review holds the seat's summary */
	int decisions, classes[4];
	double accuracy, match_rate, loss;
};

struct brp_view_review {
	struct row *rows;
	size_t n, cap;
	size_t next; /* the first row not yet matched to a position */
	struct seat_sum seat[RPL_MAX_SEATS];
	char match_id[RPL_MATCH_ID_SIZE];
	int samples, hindsight, deal;
	unsigned long long seed;
	int computed;
	char *file; /* the review file's name, as given (NULL: computed here) */
	long bad;   /* a row the replay passed without finding it: its index + 1 */
};

static const char *const class_sym[4] = { "", "?!", "?", "??" };

void brp_view_review_free(struct brp_view_review *r)
{
	if (!r)
		return;
	free(r->rows);
	free(r->file);
	free(r);
}

static struct row *add_row(struct brp_view_review *r)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 256;
		struct row *grown = realloc(r->rows, cap * sizeof(*grown));
		if (!grown)
			return NULL;
		r->rows = grown;
		r->cap = cap;
	}
	memset(&r->rows[r->n], 0, sizeof(r->rows[0]));
	r->rows[r->n].pos = -1;
	return &r->rows[r->n++];
}

/* ---- a line of brp review --json: one flat object ---- */

enum { J_NULL, J_BOOL, J_NUM, J_STR };

struct kv {
	char key[24];
	int type;
	double num;
	char str[ACT_SIZE];
};

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
		s++;
	return s;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * A JSON string at *s (after its quote) into out (size bytes, NUL-terminated,
 * cut to fit): the end past its quote, or NULL.
 */
static const char *json_string(const char *s, char *out, size_t size)
{
	size_t k = 0;

	for (; *s && *s != '"'; s++) {
		unsigned c = (unsigned char)*s;
		if (c < 0x20)
			return NULL;
		if (c == '\\') {
			s++;
			switch (*s) {
			case '"':
			case '\\':
			case '/': c = (unsigned char)*s; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u':
				c = 0;
				for (int d = 1; d <= 4; d++) { /* stops at the string's end: a NUL is no hex digit */
					int h = hex_digit(s[d]);
					if (h < 0)
						return NULL;
					c = c * 16 + (unsigned)h;
				}
				s += 4;
				if (c >= 0x80)
					c = '?'; /* brp review writes ASCII but in the players' names, which are not read */
				break;
			default: return NULL;
			}
		}
		if (k + 1 < size) /* a longer one is cut: only a verdict's message is, which is not read */
			out[k++] = (char)c;
	}
	if (*s != '"')
		return NULL;
	out[k] = '\0';
	return s + 1;
}

/* A flat object (strings, numbers, true, false, null) into kv[0..max): how many pairs, or -1 when not one. */
static int parse_line(const char *s, struct kv *kv, int max)
{
	int n = 0;

	s = skip_ws(s);
	if (*s++ != '{')
		return -1;
	s = skip_ws(s);
	if (*s == '}')
		return skip_ws(s + 1)[0] ? -1 : 0;
	for (;;) {
		struct kv *p;
		if (n == max || *s++ != '"')
			return -1;
		p = &kv[n++];
		if (!(s = json_string(s, p->key, sizeof(p->key))))
			return -1;
		s = skip_ws(s);
		if (*s++ != ':')
			return -1;
		s = skip_ws(s);
		if (*s == '"') {
			p->type = J_STR;
			if (!(s = json_string(s + 1, p->str, sizeof(p->str))))
				return -1;
		} else if (!strncmp(s, "null", 4)) {
			p->type = J_NULL;
			s += 4;
		} else if (!strncmp(s, "true", 4) || !strncmp(s, "false", 5)) {
			p->type = J_BOOL;
			p->num = *s == 't';
			s += *s == 't' ? 4 : 5;
		} else {
			char *end;
			p->type = J_NUM;
			p->num = strtod(s, &end);
			if (end == s || (size_t)(end - s) >= sizeof(p->str))
				return -1;
			memcpy(p->str, s, (size_t)(end - s)); /* its text too: a seed is read whole from it */
			p->str[end - s] = '\0';
			s = end;
		}
		s = skip_ws(s);
		if (*s == '}')
			return skip_ws(s + 1)[0] ? -1 : n;
		if (*s++ != ',')
			return -1;
		s = skip_ws(s);
	}
}

static const struct kv *get(const struct kv *kv, int n, const char *key, int type)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(kv[i].key, key))
			return kv[i].type == type ? &kv[i] : NULL;
	return NULL;
}

/* An integer field lo..hi into *out: 0, or -1 when missing or another kind. */
static int get_int(const struct kv *kv, int n, const char *key, int lo, int hi, int *out)
{
	const struct kv *p = get(kv, n, key, J_NUM);

	if (!p || !(p->num >= lo && p->num <= hi) || p->num != (double)(int)p->num)
		return -1;
	*out = (int)p->num;
	return 0;
}

static int get_num(const struct kv *kv, int n, const char *key, double *out)
{
	const struct kv *p = get(kv, n, key, J_NUM);

	if (!p)
		return -1;
	*out = p->num;
	return 0;
}

static int class_of(const struct kv *kv, int n, int *out)
{
	const struct kv *p = get(kv, n, "class", J_STR);

	if (get(kv, n, "class", J_NULL)) {
		*out = RPL_REVIEW_NONE;
		return 0;
	}
	for (int c = RPL_REVIEW_INACCURACY; p && c <= RPL_REVIEW_BLUNDER; c++)
		if (!strcmp(p->str, rpl_review_class_name(c))) {
			*out = c;
			return 0;
		}
	return -1;
}

/* The line's pairs as a decision into a new row: 0, 1 not kept (another seat's), -1 not a decision, -2 no memory. */
static int read_decision(struct brp_view_review *r, const struct kv *kv, int n, int seat, long line)
{
	struct row d;
	const struct kv *played = get(kv, n, "played", J_STR), *best = get(kv, n, "best", J_STR);
	const struct kv *unc = get(kv, n, "class_uncertain", J_BOOL);
	struct row *to;

	memset(&d, 0, sizeof(d));
	if (!played || !best || !unc || get_int(kv, n, "deal", 1, RPL_MAX_DEALS, &d.deal) ||
	    get_int(kv, n, "turn", 1, 1 << 30, &d.turn) || get_int(kv, n, "decision", 1, 1 << 30, &d.decision) ||
	    get_int(kv, n, "seat", 0, RPL_MAX_SEATS - 1, &d.seat) || get_num(kv, n, "loss", &d.loss) ||
	    get_num(kv, n, "se", &d.se) || get_num(kv, n, "accuracy", &d.accuracy) || class_of(kv, n, &d.cls))
		return -1;
	if (seat >= 0 && d.seat != seat)
		return 1;
	d.uncertain = unc->num != 0;
	snprintf(d.played, sizeof(d.played), "%s", played->str);
	snprintf(d.best, sizeof(d.best), "%s", best->str);
	d.line = line;
	d.pos = -1;
	if (!(to = add_row(r)))
		return -2;
	*to = d;
	return 0;
}

static int read_summary(struct brp_view_review *r, const struct kv *kv, int n, int seat)
{
	int s;
	struct seat_sum sum;

	memset(&sum, 0, sizeof(sum));
	if (get_int(kv, n, "seat", 0, RPL_MAX_SEATS - 1, &s) || get_int(kv, n, "decisions", 0, 1 << 30, &sum.decisions) ||
	    get_num(kv, n, "accuracy", &sum.accuracy) || get_num(kv, n, "match_rate", &sum.match_rate) ||
	    get_num(kv, n, "loss", &sum.loss) || get_int(kv, n, "inaccuracies", 0, 1 << 30, &sum.classes[1]) ||
	    get_int(kv, n, "mistakes", 0, 1 << 30, &sum.classes[2]) ||
	    get_int(kv, n, "blunders", 0, 1 << 30, &sum.classes[3]))
		return -1;
	if (!get(kv, n, "deal", J_NULL))
		return 0; /* a deal's: the page shows the match's */
	if (seat < 0 || s == seat) {
		sum.present = 1;
		r->seat[s] = sum;
	}
	return 0;
}

static int read_header(struct brp_view_review *r, const struct kv *kv, int n)
{
	const struct kv *id = get(kv, n, "match_id", J_STR), *h = get(kv, n, "hindsight", J_BOOL);
	const struct kv *seed = get(kv, n, "seed", J_NUM);
	char *end;
	int version;

	if (get_int(kv, n, "review", 1, 1, &version) || !h || get_int(kv, n, "strength", 2, 1000, &r->samples) || !seed ||
	    seed->str[0] < '0' || seed->str[0] > '9' ||
	    (!get(kv, n, "deal", J_NULL) && get_int(kv, n, "deal", 1, RPL_MAX_DEALS, &r->deal)))
		return -1;
	if (id && strlen(id->str) == RPL_MATCH_ID_SIZE - 1)
		memcpy(r->match_id, id->str, RPL_MATCH_ID_SIZE);
	else if (id || !get(kv, n, "match_id", J_NULL))
		return -1;
	r->hindsight = h->num != 0;
	errno = 0;
	r->seed = strtoull(seed->str, &end, 10);
	return *end || errno ? -1 : 0;
}

/* The rows are in the log's order, each after the one before: so the replay finds them in one pass. */
static int ordered(const struct row *a, const struct row *b)
{
	if (a->deal != b->deal)
		return a->deal < b->deal;
	if (a->turn != b->turn)
		return a->turn < b->turn;
	return a->decision < b->decision;
}

struct brp_view_review *brp_view_review_load(const char *cmd, const char *file, int seat)
{
	struct brp_view_review *r = calloc(1, sizeof(*r));
	FILE *f = NULL;
	char *line = NULL;
	size_t cap = 0;
	long no = 0;
	int ok = 0, header = 0;
	struct kv kv[32];

	if (!r || !(r->file = strdup(file))) {
		brp_error(cmd, "out of memory");
		goto cleanup;
	}
	if (!(f = fopen(file, "r"))) {
		brp_error(cmd, "%s: cannot open: %s", file, strerror(errno));
		goto cleanup;
	}
	while (getline(&line, &cap, f) != -1) {
		int n = parse_line(line, kv, 32), rc;
		no++;
		if (n >= 0 && no == 1 && get(kv, n, "review", J_NUM)) {
			if (read_header(r, kv, n) != 0) {
				brp_error(cmd, "%s: line 1: not the first line of brp review --json", file);
				goto cleanup;
			}
			header = 1;
			continue;
		}
		if (!header) {
			brp_error(cmd, "%s: not brp review --json output naming its match (its first line is {\"review\":1,...})",
			          file);
			goto cleanup;
		}
		rc = -1;
		if (n >= 0 && get(kv, n, "played", J_STR))
			rc = read_decision(r, kv, n, seat, no);
		else if (n >= 0 && get(kv, n, "summary", J_BOOL))
			rc = read_summary(r, kv, n, seat);
		else if (n >= 0 && get(kv, n, "verdict", J_STR))
			rc = 0; /* the log's verdict: the page has its own */
		if (rc == -2) {
			brp_error(cmd, "out of memory");
			goto cleanup;
		}
		if (rc == -1) {
			brp_error(cmd, "%s: line %ld: not a line of brp review --json", file, no);
			goto cleanup;
		}
		if (rc == 0 && r->n > 1 && r->rows[r->n - 1].line == no && !ordered(&r->rows[r->n - 2], &r->rows[r->n - 1])) {
			brp_error(cmd, "%s: line %ld: a decision out of the log's order", file, no);
			goto cleanup;
		}
	}
	if (ferror(f)) {
		brp_error(cmd, "%s: cannot read: %s", file, strerror(errno));
		goto cleanup;
	}
	if (!header) {
		brp_error(cmd, "%s: empty: not brp review --json output", file);
		goto cleanup;
	}
	if (seat >= 0 && r->hindsight) {
		/* judged on the real cards: its values tell what the other hands held */
		brp_error(cmd, "%s: a review with hindsight judges on every hand: not for a --seat page", file);
		goto cleanup;
	}
	ok = 1;
cleanup:
	if (f)
		fclose(f);
	free(line);
	if (!ok) {
		brp_view_review_free(r);
		return NULL;
	}
	return r;
}

/* ---- computed here ---- */

struct compute {
	struct brp_view_review *r;
	rpl_review_summary sum[RPL_MAX_SEATS];
};

static int on_decision(void *ctx, const rpl_review_decision *d)
{
	struct compute *c = ctx;
	struct row *to = add_row(c->r);

	if (!to)
		return RPL_ENOMEM;
	to->deal = d->deal;
	to->turn = d->turn;
	to->number = d->number;
	to->seat = d->seat;
	to->cls = d->cls;
	to->uncertain = d->uncertain;
	to->loss = d->loss;
	to->se = d->se;
	to->accuracy = d->accuracy;
	rpl_action_format(&d->played, to->played, sizeof(to->played));
	rpl_action_format(&d->best, to->best, sizeof(to->best));
	if (d->seat >= 0 && d->seat < RPL_MAX_SEATS)
		rpl_review_summary_add(&c->sum[d->seat], d);
	return 0;
}

struct brp_view_review *brp_view_review_compute(const char *cmd, const char *path, const unsigned char *bytes,
                                                size_t nbytes, int samples, int seat)
{
	struct compute c;
	rpl_review_options o;
	rpl_reader *rd = NULL;
	rpl_verdict v;
	const rpl_match_info *info;
	int err, ok = 0;

	memset(&c, 0, sizeof(c));
	if (!(c.r = calloc(1, sizeof(*c.r)))) {
		brp_error(cmd, "out of memory");
		goto cleanup;
	}
	rpl_review_options_init(&o);
	o.samples = samples;
	if (seat >= 0)
		o.seats = 1u << seat; /* the others would not be shown */
	c.r->computed = 1;
	c.r->samples = o.samples;
	c.r->seed = o.seed;
	err = bytes ? rpl_reader_open_memory(&rd, bytes, nbytes) : rpl_reader_open(&rd, path);
	if (err == 0)
		err = rpl_review_reader(rd, NULL, &o, on_decision, &c, &v);
	if (err) {
		brp_error(cmd, "%s: the review failed: %s", path,
		          rd && *rpl_reader_errmsg(rd) ? rpl_reader_errmsg(rd) : rpl_strerror(err));
		goto cleanup;
	}
	info = rpl_reader_info(rd);
	for (int s = 0; info && s < info->nplayers && s < RPL_MAX_SEATS; s++) {
		struct seat_sum *to = &c.r->seat[s];
		if (seat >= 0 && s != seat)
			continue;
		to->present = 1;
		to->decisions = c.sum[s].decisions;
		memcpy(to->classes, c.sum[s].classes, sizeof(to->classes));
		to->accuracy = rpl_review_summary_accuracy(&c.sum[s]);
		to->match_rate = rpl_review_summary_match_rate(&c.sum[s]);
		to->loss = c.sum[s].loss_sum;
	}
	memcpy(c.r->match_id, v.match_id, sizeof(c.r->match_id));
	ok = 1;
cleanup:
	rpl_reader_free(rd);
	if (!ok) {
		brp_view_review_free(c.r);
		return NULL;
	}
	return c.r;
}

/* ---- the replay ---- */

/* -1, 0, 1: row before, at, after position p. */
static int row_vs(const struct brp_view_review *r, const struct row *w, const rpl_position *p)
{
	if (w->deal != p->deal)
		return w->deal < p->deal ? -1 : 1;
	if (r->computed)
		return w->number < p->deal_decision ? -1 : w->number > p->deal_decision;
	if (w->turn != p->turn)
		return w->turn < p->turn ? -1 : 1;
	return w->decision < p->decision ? -1 : w->decision > p->decision;
}

void brp_view_review_position(struct brp_view_review *r, const rpl_position *p, int index)
{
	char act[ACT_SIZE];
	struct row *w;
	int at;

	if (!r || r->bad || p->kind != RPL_POS_DECISION)
		return;
	while (r->next < r->n && (at = row_vs(r, &r->rows[r->next], p)) <= 0) {
		w = &r->rows[r->next];
		rpl_action_format(&p->action, act, sizeof(act));
		if (at < 0 || w->seat != p->seat || strcmp(w->played, act) != 0) {
			r->bad = (long)r->next + 1; /* not the log's: said by brp_view_review_check */
			return;
		}
		w->pos = index;
		w->turn = p->turn;
		w->decision = p->decision;
		r->next++;
	}
}

int brp_view_review_check(const struct brp_view_review *r, const char *cmd, const rpl_verdict *v)
{
	const char *name = r->file;

	if (!r->computed && (!r->match_id[0] || strcmp(r->match_id, v->match_id) != 0)) {
		if (!v->match_id[0])
			brp_error(cmd,
			          "%s: the log is damaged before its end and has no match identity to match a review "
			          "to (--review-strength reviews it here)",
			          name);
		else if (!r->match_id[0])
			brp_error(cmd, "%s: the review names no match (its log was damaged)", name);
		else
			brp_error(cmd, "%s: the review of another match (%.16s..., the log is %.16s...)", name, r->match_id,
			          v->match_id);
		return -1;
	}
	if (r->bad || r->next < r->n) {
		const struct row *w = &r->rows[r->bad ? r->bad - 1 : (long)r->next];
		if (r->computed)
			brp_error(cmd, "the review's decision %d of deal %d is not the log's", w->number, w->deal);
		else
			brp_error(cmd, "%s: line %ld: deal %d, turn %d, decision %d is not '%s' by seat %d in the log", name,
			          w->line, w->deal, w->turn, w->decision, w->played, w->seat);
		return -1;
	}
	return 0;
}

/* ---- the page ---- */

static void fragment(FILE *f, const struct row *w)
{
	fprintf(f, "#d=%d&amp;t=%d&amp;n=%d", w->deal, w->turn, w->decision);
}

void brp_view_review_html(FILE *f, const struct brp_view_review *r, const rpl_match_info *info, int seat)
{
	int marked = 0;

	/* folded by the script on a narrow screen, as the players are, so that the stepper comes first */
	fputs("<details id=\"review\" class=\"review\" open><summary>Review</summary>\n<p class=\"review-how\">", f);
	fprintf(f,
	        "Each decision where its seat had a choice, judged against the engine's preferred one on %d samples of "
	        "the cards that seat could not see%s (brp review, seed %llu%s). Marks: <b>?!</b> inaccuracy (a loss of "
	        "%d points or more), <b>?</b> mistake (%d), <b>?\?</b> blunder (%d); \"uncertain\" when the class could "
	        "differ within the loss &plusmn; its standard error.",
	        r->samples, r->hindsight ? ", <b>with hindsight</b>: on the real cards" : "", r->seed,
	        r->deal ? ", one deal" : "", RPL_REVIEW_INACCURACY_POINTS, RPL_REVIEW_MISTAKE_POINTS,
	        RPL_REVIEW_BLUNDER_POINTS);
	if (r->deal)
		fprintf(f, " Deal %d only.", r->deal);
	if (seat >= 0)
		fprintf(f, " Seat %d's decisions only: another seat's better decision would show its hand.", seat);
	fputs("</p>\n<table id=\"review-seats\" class=\"review-seats\"><caption>Accuracy</caption>\n<tr><th>Seat</th>"
	      "<th>Player</th><th>Accuracy</th><th>Match rate</th><th>Decisions</th><th>Points lost</th>"
	      "<th>?! inaccuracies</th><th>? mistakes</th><th>?\? blunders</th></tr>\n",
	      f);
	for (int s = 0; s < info->nplayers && s < RPL_MAX_SEATS; s++) {
		const struct seat_sum *m = &r->seat[s];
		if (!m->present)
			continue;
		fprintf(f, "<tr data-seat=\"%d\" data-accuracy=\"%.1f\" data-match-rate=\"%.1f\"><td>%d</td><td>", s,
		        m->accuracy, m->match_rate, s);
		brp_html_text(f, info->players[s] && info->players[s][0] ? info->players[s] : "(unnamed)");
		fprintf(f,
		        "</td><td><b>%.1f%%</b></td><td>%.1f%%</td><td>%d</td><td>%.1f</td><td>%d</td><td>%d</td>"
		        "<td>%d</td></tr>\n",
		        m->accuracy, m->match_rate, m->decisions, m->loss, m->classes[1], m->classes[2], m->classes[3]);
	}
	fputs("</table>\n", f);
	for (size_t i = 0; i < r->n; i++)
		marked += r->rows[i].cls > 0;
	if (!marked) {
		fputs("<p class=\"review-none\">No decision is marked.</p>\n</details>\n", f);
		return;
	}
	fprintf(f,
	        "<details id=\"review-marks\" open><summary>Marked decisions (%d)</summary>\n<table class=\"review-marks\">"
	        "\n<tr><th>Where</th><th>Seat</th><th>Mark</th><th>Played</th><th>Better</th><th>Loss (points)</th></tr>\n",
	        marked);
	for (size_t i = 0; i < r->n; i++) {
		const struct row *w = &r->rows[i];
		const char *cls = rpl_review_class_name(w->cls);
		if (!cls)
			continue;
		fprintf(f,
		        "<tr class=\"rv rv-%s\" data-deal=\"%d\" data-turn=\"%d\" data-decision=\"%d\" data-seat=\"%d\">"
		        "<td><a href=\"",
		        cls, w->deal, w->turn, w->decision, w->seat);
		fragment(f, w);
		fprintf(f,
		        "\">deal %d, turn %d, decision %d</a></td><td>%d</td><td><b class=\"rv-sym\">%s</b> %s</td>"
		        "<td><code>",
		        w->deal, w->turn, w->decision, w->seat, class_sym[w->cls], cls);
		brp_html_text(f, w->played);
		fputs("</code></td><td><code>", f);
		brp_html_text(f, w->best);
		fprintf(f, "</code></td><td>%.1f &plusmn; %.1f%s</td></tr>\n", w->loss, w->se,
		        w->uncertain ? " (uncertain)" : "");
	}
	fputs("</table>\n</details>\n</details>\n", f);
}

void brp_view_review_json(FILE *f, const struct brp_view_review *r)
{
	int first = 1;

	fprintf(f, ",\"review\":{\"strength\":%d,\"hindsight\":%d,\"rows\":[", r->samples, r->hindsight);
	for (size_t i = 0; i < r->n; i++) {
		const struct row *w = &r->rows[i];
		fputs(first ? "[" : ",[", f);
		first = 0;
		if (!strcmp(w->played, w->best) && !w->cls) {
			fprintf(f, "%d]", w->pos); /* the engine's choice too */
			continue;
		}
		fprintf(f, "%d,%d,%d,", w->pos, w->cls, w->uncertain);
		brp_view_json_text(f, w->best);
		fprintf(f, ",%.1f,%.1f,%.1f]", w->loss, w->se, w->accuracy);
	}
	fputs("]}", f);
}
