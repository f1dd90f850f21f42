/*
 * brp view: a match log as one self-contained HTML page, the director's view.
 *
 * The page has two parts. The summary (players, rules, verdict, the deals'
 * scores) is plain HTML written here, readable without JavaScript. The
 * stepper is tools/brp/view/view.js drawing the positions that
 * rpl_positions_file computes, embedded as JSON (docs/view.md describes the
 * encoding): the page judges nothing, it draws what the engine said.
 * Under the stepper, the match's course: inline SVG charts that view_course.c
 * writes from the public numbers of each position (the points on the table,
 * the match totals), the same on a --seat page.
 * With --seat N every card seat N could not see is left out of the file,
 * the cards of another seat's refused decision included (they were never
 * laid). With -K or --keyring the signatures are judged against trusted
 * keys, as brp verify does: the verdict and the running verdict say so.
 *
 * A page holds at most VIEW_MAX_PAGE bytes (docs/view.md, "Size"): the
 * positions are written into memory and stop there, so brp view's memory
 * is bounded by it too, whatever the log holds (the course keeps some 30
 * bytes a position beside them).
 */
#include "brp.h"
#include "svg.h" /* brp_html_text */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "view_assets.h"
#include "view_review.h"

static const char *const name = "view";

/*
 * The largest page: 64 MiB, about 350 000 positions (some 190 bytes each,
 * real play or not). Headless Chromium opened a page of 37 MB (200 000
 * positions) in 1.9 s with a JavaScript heap of 151 MiB, and one of 113 MB
 * in 6.9 s with 395 MiB: past that a page takes longer to open than anyone
 * waits, and a browser's string limit (V8: 512 MiB) is not far. A real match
 * is under 200 KB a thousand decisions.
 */
#define VIEW_MAX_PAGE (64u << 20)
#define VIEW_TOO_BIG 1 /* on_position's answer once the page is full: stop */

static void usage(FILE *f)
{
	fputs("Usage: brp view [OPTION]... FILE\n"
	      "Write a match log as one self-contained HTML page that replays it decision\n"
	      "by decision: the summary (players, rules, verdict, the deals' scores), a\n"
	      "stepper over every position, opened on the disputed one, and the match's\n"
	      "course as charts. The page makes no network request; its summary and charts\n"
	      "read without JavaScript. FILE - (or /dev/stdin, or --log -) reads the log\n"
	      "from standard input.\n"
	      "\n"
	      "  -o, --output OUT  write the page to OUT (default: FILE with .html for .brp,\n"
	      "                    standard output for a log read from standard input;\n"
	      "                    -: standard output)\n"
	      "      --log FILE    the log to write (the same as FILE)\n"
	      "      --seat N      only what seat N could see: its own hand, the table, the\n"
	      "                    pile as the profile shows it; other hands as counts;\n"
	      "                    another seat's refused decision without its cards\n"
	      "  -K, --key FILE    a trusted public key (a minisign .pub file; repeatable):\n"
	      "                    the log is untrusted unless such a key signs all of it\n"
	      "      --keyring FILE  trusted public keys, one after another in a file\n"
	      "      --review FILE  mark each decision by its class (?! ? ?\?), the better one\n"
	      "                    and each seat's accuracy, from brp review --json's FILE\n"
	      "                    (of this match; on a --seat page that seat's only)\n"
	      "      --review-strength S  the same, reviewed here at S samples a decision\n"
	      "                    (brp review's default: 24; the longer, the slower)\n"
	      "  -h, --help        print this help and exit\n"
	      "\n"
	      "A page holds at most 64 MiB (about 350 000 positions): a larger one is refused.\n"
	      "\n"
	      "Exit status: 0 written (whatever the verdict), 2 a usage error, 3 a log that\n"
	      "cannot be read or a file that is not a log (no page), a review that cannot\n"
	      "be read or is of another match, a page that would pass 64 MiB or that cannot\n"
	      "be written.\n",
	      f);
}

/* Cards in the page's data: one character each, id order (docs/view.md). */
static const char card_chars[RPL_NFACES + 1] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz*";

/* What the summary needs of each deal: its last position. */
struct deal_sum {
	int deal, phase, dealer;
	rpl_score score[2];
	int32_t total[2];
	int claimed;
	int32_t claim[2];
};

struct view {
	FILE *data; /* the positions' JSON, in memory */
	int seat;   /* --seat, or -1 */
	int npos;
	int nplayers;
	char prev[16][4096]; /* the previous position's field texts: a field is written when it changed */
	struct deal_sum *deals;
	int ndeals, capdeals;
	int32_t match_claim[2];
	int match_claimed;
	int open_refused;           /* index of the refused position, or -1 */
	int open_trust;             /* index of the first position from bytes no (trusted) signature vouches for, or -1 */
	int too_big;                /* the positions passed VIEW_MAX_PAGE: the page is refused */
	const char *path;           /* the log's path, as given (read again for a deal that is not the committed one) */
	const unsigned char *bytes; /* a log from standard input: its bytes (read again from here) */
	size_t nbytes;
	struct brp_course *course;      /* what the course charts need of each position (view_course.c) */
	struct brp_view_review *review; /* --review: the decisions reviewed (view_review.c), or NULL */
};

/* Write s as a JSON string that is safe inside a <script> element. */
static void json_text(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;
	fputc('"', f);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&')
			fprintf(f, "\\u%04x", *p);
		else if (*p < 0x80)
			fputc(*p, f);
		else if ((n = brp_utf8_len(p)) != 0) {
			fwrite(p, 1, n, f);
			p += n - 1;
		} else
			fputs("\\ufffd", f); /* not UTF-8: as brp_json_string */
	}
	fputc('"', f);
}

void brp_view_json_text(FILE *f, const char *s)
{
	json_text(f, s);
}

static void cards_field(char *buf, size_t size, const rpl_card *c, int n)
{
	size_t k = 0;
	buf[k++] = '"';
	for (int i = 0; i < n && k + 2 < size; i++)
		buf[k++] = card_chars[c[i] < RPL_NFACES ? c[i] : RPL_JOKER];
	buf[k++] = '"';
	buf[k] = '\0';
}

static void melds_field(char *buf, size_t size, const rpl_position *p, int side)
{
	size_t k = 0;
	k += (size_t)snprintf(buf + k, size - k, "[");
	for (int i = 0; i < p->meld_count[side] && k < size; i++) {
		const rpl_meld_info *m = &p->meld[side][i];
		char cards[20], as[20];
		for (int j = 0; j < m->length; j++) {
			cards[j] = card_chars[m->card[j]];
			as[j] = m->wild[j] ? card_chars[rpl_meld_natural(m->suit, m->lo + j)] : '.';
		}
		cards[m->length] = as[m->length] = '\0';
		k += (size_t)snprintf(buf + k, size - k, "%s[\"%s\",\"%s\",%d,%d,%d]", i ? "," : "", cards, as, m->category,
		                      m->points, m->bonus);
	}
	if (k < size)
		snprintf(buf + k, size - k, "]");
}

/*
 * The deal's score of both sides. On a --seat page, while the deal goes on,
 * the points left in the hands (and so the total) are null: they would tell
 * what the other hands hold; at the deal's end the hands are counted openly.
 */
static void score_field(char *buf, size_t size, const rpl_position *p, int seat)
{
	size_t k = 0;
	int hide = seat >= 0 && p->phase < RPL_PHASE_DEAL_OVER;
	for (int s = 0; s < 2 && k < size; s++) {
		const rpl_score *a = &p->score[s];
		if (hide)
			k += (size_t)snprintf(buf + k, size - k, "%s[%d,%d,%d,null,%d,null]", s ? "," : "[", (int)a->melded,
			                      (int)a->bonus, (int)a->going_out, (int)a->morto);
		else
			k += (size_t)snprintf(buf + k, size - k, "%s[%d,%d,%d,%d,%d,%d]", s ? "," : "[", (int)a->melded,
			                      (int)a->bonus, (int)a->going_out, (int)a->hand, (int)a->morto, (int)a->total);
	}
	if (k < size)
		snprintf(buf + k, size - k, "]");
}

/* One field: written when it differs from the previous position's, or always. */
static void field(struct view *w, int slot, const char *key, const char *text, int always, int *first)
{
	if (!always && strcmp(w->prev[slot], text) == 0)
		return;
	snprintf(w->prev[slot], sizeof(w->prev[slot]), "%s", text);
	fprintf(w->data, "%s\"%s\":%s", *first ? "" : ",", key, text);
	*first = 0;
}

/* The cards moved, where they landed; a card that went into a hand seat N does not see is left out. */
static void moves_field(struct view *w, const rpl_position *p)
{
	int any = 0;

	for (int i = 0; i < p->nmoves; i++) {
		const rpl_position_move *m = &p->move[i];
		int a = m->to == RPL_ZONE_MELD ? m->side : p->seat;
		if (m->to == RPL_ZONE_HAND && w->seat >= 0 && p->seat != w->seat)
			continue;
		if (m->to == RPL_ZONE_PILE && w->seat >= 0 && m->index < p->pile_count - p->pile_visible)
			continue;
		fprintf(w->data, "%s[%d,%d,%d,%d]", any ? "," : ",\"mv\":[", m->to, a, m->to == RPL_ZONE_MELD ? m->meld : 0,
		        m->to == RPL_ZONE_PILE && w->seat >= 0 ? m->index - (p->pile_count - p->pile_visible) : m->index);
		any = 1;
	}
	if (any)
		fputc(']', w->data);
}

/* The summary's deal table: the last position of each deal, p's deal's row. 0, or RPL_ENOMEM. */
static int deal_sum_keep(struct view *w, const rpl_position *p)
{
	struct deal_sum *d;

	if (w->ndeals == 0 || w->deals[w->ndeals - 1].deal != p->deal) {
		if (w->ndeals == w->capdeals) {
			int cap = w->capdeals ? 2 * w->capdeals : 8;
			struct deal_sum *grown = realloc(w->deals, (size_t)cap * sizeof(*grown));
			if (!grown)
				return RPL_ENOMEM;
			w->deals = grown;
			w->capdeals = cap;
		}
		w->ndeals++;
	}
	d = &w->deals[w->ndeals - 1];
	d->deal = p->deal;
	d->phase = p->phase;
	d->dealer = p->dealer;
	d->score[0] = p->score[0];
	d->score[1] = p->score[1];
	d->total[0] = p->total[0];
	d->total[1] = p->total[1];
	d->claimed = p->claimed;
	d->claim[0] = p->claim[0];
	d->claim[1] = p->claim[1];
	return 0;
}

/*
 * The decision's text, "a". hide: only its kind (its first word), for a
 * refused decision of another seat on a --seat page: its cards never left
 * that hand (docs/view.md, "--seat N").
 */
static void action_field(struct view *w, const rpl_position *p, int hide)
{
	char act[160];

	rpl_action_format(&p->action, act, sizeof(act));
	if (hide && strchr(act, ' '))
		strcpy(strchr(act, ' '), " (its cards not shown)");
	fputs(",\"a\":", w->data);
	json_text(w->data, act);
}

/* A refused decision: its text, rule ("r") and message ("x"); "hid" 1 when another seat's, on a --seat page. */
static void refused_fields(struct view *w, const rpl_position *p)
{
	int hide = w->seat >= 0 && p->seat != w->seat;

	action_field(w, p, hide);
	fputs(",\"r\":", w->data);
	json_text(w->data, rpl_rule_name(p->rule));
	fputs(",\"x\":", w->data);
	json_text(w->data, hide ? "" : p->message); /* the engine's message names the cards */
	if (hide)
		fputs(",\"hid\":1", w->data);
	w->open_refused = w->npos;
}

static int on_position(void *ctx, const rpl_position *p)
{
	struct view *w = ctx;
	char buf[4096]; /* a side's melds: at most 108 cards and 36 melds, under 1200 bytes */
	int first = 1, full = p->kind == RPL_POS_DEALT;
	static const char *const hkey[4] = { "h0", "h1", "h2", "h3" };

	fputs(w->npos ? ",\n{" : "{", w->data);
	fprintf(w->data, "\"k\":%d,\"d\":%d,\"t\":%d,\"n\":%d,\"s\":%d", p->kind - 1, p->deal, p->turn, p->decision,
	        p->seat);
	first = 0;
	if (p->kind == RPL_POS_REFUSED)
		refused_fields(w, p);
	else if (p->kind != RPL_POS_DEALT)
		action_field(w, p, 0);
	if (p->verdict >= RPL_VERDICT_TAMPERED && w->open_trust < 0)
		w->open_trust = w->npos;
	snprintf(buf, sizeof(buf), "[%d,%d,%d,%d,%d]", p->phase, p->to_move, p->turns, p->dealer, p->verdict);
	field(w, 0, "g", buf, full, &first);
	for (int s = 0; s < p->nplayers; s++) {
		if (w->seat < 0 || s == w->seat)
			cards_field(buf, sizeof(buf), p->hand[s], p->hand_count[s]);
		else
			snprintf(buf, sizeof(buf), "%d", p->hand_count[s]); /* another seat's hand: its size only */
		field(w, 1 + s, hkey[s], buf, full, &first);
	}
	melds_field(buf, sizeof(buf), p, 0);
	field(w, 5, "m0", buf, full, &first);
	melds_field(buf, sizeof(buf), p, 1);
	field(w, 6, "m1", buf, full, &first);
	if (w->seat < 0)
		cards_field(buf, sizeof(buf), p->pile, p->pile_count);
	else /* a player sees the top pile_visible cards, no more */
		cards_field(buf, sizeof(buf), p->pile + (p->pile_count - p->pile_visible), p->pile_visible);
	field(w, 7, "p", buf, full, &first);
	snprintf(buf, sizeof(buf), "[%d,%d,%d,%d,%d]", p->pile_count, p->pile_visible, p->stock_count, p->morto[0],
	         p->morto[1]);
	field(w, 8, "c", buf, full, &first);
	score_field(buf, sizeof(buf), p, w->seat);
	field(w, 9, "sc", buf, full, &first);
	snprintf(buf, sizeof(buf), "[%d,%d,%d,%d,%d]", (int)p->total[0], (int)p->total[1], p->vulnerable[0],
	         p->vulnerable[1], p->winner);
	field(w, 10, "tt", buf, full, &first);
	if (p->claimed)
		snprintf(buf, sizeof(buf), "[%d,%d]", (int)p->claim[0], (int)p->claim[1]);
	else
		snprintf(buf, sizeof(buf), "0");
	field(w, 11, "cl", buf, full, &first);
	if (p->match_claimed)
		snprintf(buf, sizeof(buf), "[%d,%d]", (int)p->match_claim[0], (int)p->match_claim[1]);
	else
		snprintf(buf, sizeof(buf), "0");
	field(w, 12, "mc", buf, full, &first);
	moves_field(w, p);
	fputc('}', w->data);
	brp_view_review_position(w->review, p, w->npos);
	w->npos++;
	w->nplayers = p->nplayers;
	if (deal_sum_keep(w, p) < 0 || brp_course_add(w->course, p) < 0)
		return RPL_ENOMEM;
	if (p->match_claimed) {
		w->match_claimed = 1;
		w->match_claim[0] = p->match_claim[0];
		w->match_claim[1] = p->match_claim[1];
	}
	if (ferror(w->data))
		return RPL_ENOMEM;
	if (ftell(w->data) > (long)VIEW_MAX_PAGE) {
		w->too_big = 1;
		return VIEW_TOO_BIG; /* the page cannot be written: no use replaying on */
	}
	return 0;
}

static void breakdown(FILE *f, const rpl_score *s, int hide_hand)
{
	fprintf(f, "melded %d, bonus %d, going out %d, ", (int)s->melded, (int)s->bonus, (int)s->going_out);
	if (hide_hand)
		fputs("hand not shown", f);
	else
		fprintf(f, "hand %d", (int)s->hand);
	fprintf(f, ", morto %d", (int)s->morto);
}

static const char *seat_name(const rpl_match_info *info, int s)
{
	return info->players[s] && info->players[s][0] ? info->players[s] : "";
}

/* The match: its players, its rules (what differs from the profile), its start, its metadata. */
static void summary_match(FILE *f, const rpl_match_info *info)
{
	size_t np = rpl_rules_param_count();
	int over = 0;

	fputs("<table class=\"players\"><caption>Players</caption>\n<tr><th>Seat</th><th>Player</th><th>Side</th>"
	      "<th>Partner</th></tr>\n",
	      f);
	for (int s = 0; s < info->nplayers; s++) {
		fprintf(f, "<tr><td>%d</td><td>", s);
		brp_html_text(f, seat_name(info, s)[0] ? seat_name(info, s) : "(unnamed)");
		fprintf(f, "</td><td>%d</td><td>", s % 2);
		if (info->nplayers == 4)
			fprintf(f, "seat %d", (s + 2) % 4);
		else
			fputs("none", f);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n<p class=\"rules\"><b>Rules</b> ", f);
	brp_html_text(f, rpl_rules_profile(info->rules));
	for (size_t i = 0; i < np; i++) {
		const rpl_param_info *pi = rpl_rules_param_info(i);
		char val[64];
		if (!rpl_rules_is_override(info->rules, pi->id))
			continue;
		rpl_rules_get(info->rules, pi->name, val, sizeof(val));
		fputs(over++ ? ", " : ", differing from the profile: ", f);
		fprintf(f, "<code>%s=", pi->name);
		brp_html_text(f, val);
		fputs("</code>", f);
	}
	if (!over)
		fputs(" (every parameter as the profile says)", f);
	fputs("</p>\n<p class=\"start\"><b>Started</b> ", f);
	if (info->start_time > 0) {
		time_t t = (time_t)info->start_time;
		struct tm tm;
		char when[64];
		if (gmtime_r(&t, &tm) && strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm))
			fputs(when, f);
		else
			fprintf(f, "%lld s after 1970", (long long)info->start_time);
	} else {
		fputs("unknown", f);
	}
	fputs("</p>\n", f);
	if (info->nmeta) {
		fputs("<p class=\"meta\"><b>Metadata</b>", f);
		for (size_t i = 0; i < info->nmeta; i++) {
			fputs(i ? "; " : " ", f);
			brp_html_text(f, info->meta_keys[i]);
			fputs(": ", f);
			brp_html_text(f, info->meta_values[i]);
		}
		fputs("</p>\n", f);
	}
}

/* The deals' table: each deal's scores recomputed (and claimed, where they differ), the match's claim. */
static void summary_deals(FILE *f, const struct view *w, const rpl_verdict *v)
{
	if (v->kind == RPL_VERDICT_MALFORMED)
		fprintf(f,
		        "<p id=\"damage\" class=\"damage\">The log is damaged at byte %llu; the page shows what decoded "
		        "before it.</p>\n",
		        (unsigned long long)v->offset);
	fputs("<table id=\"deals\" class=\"deals\"><caption>Deals</caption>\n<tr><th>Deal</th><th>Dealer</th>"
	      "<th>Side 0</th><th>Side 1</th><th>Match</th></tr>\n",
	      f);
	for (int i = 0; i < w->ndeals; i++) {
		const struct deal_sum *d = &w->deals[i];
		int ended = d->phase >= RPL_PHASE_DEAL_OVER;
		/* the deal's number links to it as dealt: the stepper follows the fragment */
		fprintf(f, "<tr data-deal=\"%d\"><td><a href=\"#d=%d&amp;t=0&amp;n=0\">%d</a>%s</td><td>%d</td>", d->deal,
		        d->deal, d->deal, ended ? "" : " (unfinished)", d->dealer);
		for (int s = 0; s < 2; s++) {
			int differs = d->claimed && d->claim[s] != d->score[s].total;
			int hide = w->seat >= 0 && !ended; /* as the stepper: the hands are counted at the deal's end */
			fprintf(f, "<td class=\"%s\" data-side=\"%d\">", differs ? "differs" : "", s);
			if (differs)
				fprintf(f, "claimed <b>%d</b>, recomputed <b>%d</b>", (int)d->claim[s], (int)d->score[s].total);
			else if (hide)
				fputs("on the table so far", f);
			else
				fprintf(f, "<b>%d</b>%s", (int)d->score[s].total, ended ? "" : " so far");
			fputs("<br><small>", f);
			breakdown(f, &d->score[s], hide);
			fputs("</small></td>", f);
		}
		fprintf(f, "<td>%d to %d</td></tr>\n", (int)d->total[0], (int)d->total[1]);
	}
	if (w->match_claimed) {
		const struct deal_sum *d = &w->deals[w->ndeals - 1];
		fputs("<tr class=\"match\"><td colspan=\"2\">Match</td>", f);
		for (int s = 0; s < 2; s++) {
			int differs = w->match_claim[s] != d->total[s];
			if (differs)
				fprintf(f, "<td class=\"differs\">claimed <b>%d</b>, recomputed <b>%d</b></td>", (int)w->match_claim[s],
				        (int)d->total[s]);
			else
				fprintf(f, "<td><b>%d</b></td>", (int)d->total[s]);
		}
		fputs("<td></td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/*
 * The cards of a hand in a but not in b (two decks: a card may be there
 * twice), as card names into f, "none" when there is none; the count.
 */
static int hand_minus(FILE *f, const rpl_card *a, const rpl_card *b)
{
	int used[RPL_HAND_SIZE] = { 0 }, n = 0;

	for (int i = 0; i < RPL_HAND_SIZE; i++) {
		int found = 0;
		for (int j = 0; j < RPL_HAND_SIZE && !found; j++)
			if (!used[j] && b[j] == a[i])
				used[j] = found = 1;
		if (!found)
			fprintf(f, "%s%s", n++ ? " " : "", rpl_card_name(a[i]));
	}
	if (!n)
		fputs("none", f);
	return n;
}

/* The places of a row (a morto, the stock) where got and want differ, as "#K: got (derived want)". */
static void row_diff(FILE *f, const rpl_card *got, const rpl_card *want, int n)
{
	int any = 0;

	for (int i = 0; i < n; i++)
		if (got[i] != want[i])
			fprintf(f, "%s#%d: %s (derived %s)", any++ ? ", " : "", i + 1, rpl_card_name(got[i]),
			        rpl_card_name(want[i]));
}

/*
 * A committed log whose deal is not the one its seed derives: the layout the
 * log holds against the derived one, place by place, in the summary
 * (docs/view.md, "Deals"): a hand by the cards in one and not the other, a
 * morto and the stock card by card. The log is read again, from its path or
 * the bytes kept of standard input, for its layout and its revealed seed. On a --seat page only the seat's own hand is shown
 * card by card; the other places (hands, mortos, the stock) by name.
 */
static void dealing_diff(FILE *f, const struct view *w, const rpl_match_info *info, int deal)
{
	const char *path = w->path;
	int seat = w->seat;
	rpl_reader *rd = NULL;
	rpl_event ev;
	rpl_layout got, want;
	uint8_t seed[RPL_DEAL_SEED_SIZE];
	int have = 0, revealed = 0, n = info->nplayers, diff;

	if (w->bytes ? rpl_reader_open_memory(&rd, w->bytes, w->nbytes) != 0 : rpl_reader_open(&rd, path) != 0)
		goto cleanup;
	while (rpl_reader_next(rd, &ev) == 1) {
		if (ev.kind == RPL_EV_DEAL && ev.deal == deal && !have) {
			got = ev.layout;
			have = 1;
		} else if (ev.kind == RPL_EV_REVEAL) {
			memcpy(seed, ev.seed, sizeof(seed));
			revealed = 1;
		}
	}
	if (!have || !revealed || rpl_deal_derive_match(&want, seed, info, deal) != 0)
		goto cleanup;
	fprintf(f,
	        "<table id=\"dealing-diff\" class=\"dealing-diff\"><caption>Deal %d against the layout the committed "
	        "seed derives</caption>\n<tr><th>Place</th><th>In the log, not derived</th><th>Derived, not in the log"
	        "</th></tr>\n",
	        deal);
	for (int s = 0; s < n; s++) {
		diff = 0;
		for (int i = 0; i < RPL_HAND_SIZE; i++)
			diff |= got.hand[s][i] != want.hand[s][i]; /* both sorted by card id */
		if (!diff)
			continue;
		if (seat >= 0 && s != seat) {
			fprintf(f,
			        "<tr data-place=\"hand %d\"><td>hand %d</td><td colspan=\"2\">differs (not shown to seat "
			        "%d)</td></tr>\n",
			        s, s, seat);
			continue;
		}
		fprintf(f, "<tr data-place=\"hand %d\"><td>hand %d</td><td class=\"cards-differ\">", s, s);
		hand_minus(f, got.hand[s], want.hand[s]);
		fputs("</td><td>", f);
		hand_minus(f, want.hand[s], got.hand[s]);
		fputs("</td></tr>\n", f);
	}
	for (int m = 0; m < 2; m++)
		if (memcmp(got.morto[m], want.morto[m], sizeof(got.morto[m])) != 0) {
			fprintf(f, "<tr data-place=\"morto %d\"><td>morto %d</td><td colspan=\"2\">", m, m);
			if (seat < 0)
				row_diff(f, got.morto[m], want.morto[m], RPL_MORTO_SIZE);
			else
				fputs("differs", f);
			fputs("</td></tr>\n", f);
		}
	if (memcmp(got.stock, want.stock, (size_t)RPL_STOCK_SIZE(n) * sizeof(rpl_card)) != 0) {
		fputs("<tr data-place=\"stock\"><td>stock (from its top)</td><td colspan=\"2\">", f);
		if (seat < 0)
			row_diff(f, got.stock, want.stock, RPL_STOCK_SIZE(n));
		else
			fputs("differs", f);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
cleanup:
	rpl_reader_free(rd);
}

/*
 * How the verdict looks (docs/view.md, "The verdict"): "bad" for every
 * verdict but ok; "caution" for an ok log that is unclosed, unsigned (in
 * part or whole) or whose committed seed is not revealed, with why; "good".
 */
static const char *verdict_tone(const rpl_verdict *v, char *why, size_t size)
{
	size_t k = 0;

	why[0] = '\0';
	if (v->kind != RPL_VERDICT_OK)
		return "bad";
	if (!v->closed)
		k += (size_t)snprintf(why + k, size - k, "%sunclosed: what was recorded after its last section may be missing",
		                      k ? "; " : "");
	if (v->signature.status == RPL_SIG_UNSIGNED && k < size)
		k += (size_t)snprintf(why + k, size - k, "%sunsigned: nothing shows who wrote it", k ? "; " : "");
	else if (v->signature.status == RPL_SIG_PARTIAL && k < size)
		k += (size_t)snprintf(why + k, size - k, "%sits last %llu bytes are signed by no one", k ? "; " : "",
		                      (unsigned long long)(v->signature.size - v->signature.covered));
	if (v->deal_commitment == RPL_DEAL_UNREVEALED && k < size)
		snprintf(why + k, size - k, "%sthe committed seed is not revealed: no deal is proven", k ? "; " : "");
	return why[0] ? "caution" : "good";
}

/* The signature's badge: the key, trusted or not, the bytes covered (docs/view.md). */
static void badge_signature(FILE *f, const rpl_verdict *v)
{
	const rpl_signature_report *sr = &v->signature;
	char id[RPL_KEY_ID_TEXT], fp[RPL_KEY_FINGERPRINT_TEXT];
	const char *tone, *trust = "unchecked";

	rpl_key_id_format(sr->key.id, id);
	rpl_pubkey_fingerprint(&sr->key, fp);
	if (sr->status == RPL_SIG_UNSIGNED)
		tone = v->header_flags & RPL_LOG_SIGNED ? "bad" : "caution";
	else if (sr->status == RPL_SIG_INVALID)
		tone = "bad";
	else if (v->keys > 0)
		tone = sr->trusted ? "good" : "bad";
	else
		tone = v->kind == RPL_VERDICT_UNTRUSTED ? "bad" : "caution";
	if (sr->status != RPL_SIG_UNSIGNED && v->keys > 0)
		trust = sr->key_trusted ? "yes" : "no";
	fprintf(f,
	        "<span id=\"badge-signature\" class=\"badge tone-%s\" data-status=\"%s\" data-trusted=\"%s\" "
	        "data-covered=\"%llu\" data-size=\"%llu\" data-key=\"%s\"><b>Signature</b> ",
	        tone, rpl_signature_status_name(sr->status), trust, (unsigned long long)sr->covered,
	        (unsigned long long)sr->size, sr->status == RPL_SIG_UNSIGNED ? "" : id);
	if (sr->status == RPL_SIG_UNSIGNED) {
		fputs(v->header_flags & RPL_LOG_SIGNED ? "none, though the header says the log is signed: its signatures were "
		                                         "cut off"
		                                       : "unsigned: nothing shows who wrote the log",
		      f);
	} else if (sr->status == RPL_SIG_INVALID) {
		fprintf(f, "the signature at byte %llu (key %s) does not verify: bytes were changed after signing",
		        (unsigned long long)sr->offset, id);
	} else {
		fprintf(f, "key %s (fingerprint <code>%s</code>), ", id, fp);
		if (v->keys == 0)
			fputs("not checked against trusted keys (brp view -K), ", f);
		else if (sr->key_trusted)
			fputs("a trusted key, ", f);
		else
			fputs("<b>not a trusted key</b>, ", f);
		if (v->keys > 0 && !sr->key_trusted && sr->trusted_covered > 0)
			fprintf(f, "a trusted key signs bytes 0 to %llu, ", (unsigned long long)sr->trusted_covered);
		fprintf(f, "covers bytes 0 to %llu of %llu%s", (unsigned long long)sr->covered, (unsigned long long)sr->size,
		        sr->covered < sr->size ? " (the rest is signed by no one)" : "");
	}
	fputs("</span>\n", f);
}

/* The dealing's badge: what the log proves of its deals (docs/format.md 16.4). */
static void badge_dealing(FILE *f, const rpl_verdict *v)
{
	static const char *const tones[] = { "none", "caution", "good", "bad" };
	int dc = v->deal_commitment >= 0 && v->deal_commitment <= RPL_DEAL_MISMATCH ? v->deal_commitment : 0;
	int few = dc == RPL_DEAL_REVEALED && v->player_seeds < v->players;

	fprintf(f, "<span id=\"badge-dealing\" class=\"badge tone-%s\" data-dealing=\"%s\"><b>Deals</b> ",
	        few ? "caution" : tones[dc], rpl_deal_commitment_name(dc));
	switch (dc) {
	case RPL_DEAL_NONE: fputs("not committed: the layouts are as the log says", f); break;
	case RPL_DEAL_UNREVEALED: fputs("committed, the seed not revealed: no deal is proven", f); break;
	case RPL_DEAL_REVEALED:
		fprintf(f,
		        "committed and revealed: every deal is the one the seed derives (protocol %d, %d of %d players' "
		        "seeds%s)",
		        v->commit_version, v->player_seeds, v->players, few ? ": only as fair as the platform" : "");
		break;
	default:
		if (v->deal_mismatch == 0)
			fputs("<b>the revealed seed is not the one the header commits to</b>: no deal is proven", f);
		else
			fprintf(f, "<b>deal %d is not the one the committed seed derives</b>", v->deal_mismatch);
	}
	fputs("</span>\n", f);
}

static void write_summary(FILE *f, const struct view *w, const rpl_match_info *info, const rpl_verdict *v,
                          const char *line, const char *logname)
{
	char why[512];
	const char *tone = verdict_tone(v, why, sizeof(why));

	fputs("<header id=\"summary\">\n<h1>Match ", f);
	brp_html_text(f, logname);
	fputs("</h1>\n", f);
	fprintf(f, "<div id=\"verdict\" class=\"verdict v-%s tone-%s\" data-tone=\"%s\"><p><b>Verdict</b> <code>",
	        rpl_verdict_name(v->kind), tone, tone);
	brp_html_text(f, line);
	fputs("</code></p>\n", f);
	if (why[0]) {
		fputs("<p class=\"why\">ok, but ", f);
		brp_html_text(f, why);
		fputs("</p>\n", f);
	}
	fputs("<p class=\"badges\">", f);
	badge_signature(f, v);
	badge_dealing(f, v);
	fputs("</p></div>\n", f);
	if (w->seat >= 0)
		fprintf(f, "<p class=\"seatview\">As seen by seat %d: the other hands are shown as card counts.</p>\n",
		        w->seat);
	if (info->rules) {
		/* folded by the script on a narrow screen, so that the stepper comes first */
		fputs("<details id=\"match-details\" open><summary>Players and rules</summary>\n", f);
		summary_match(f, info);
		fputs("</details>\n", f);
	}
	if (info->rules && v->deal_commitment == RPL_DEAL_MISMATCH && v->deal_mismatch > 0)
		dealing_diff(f, w, info, v->deal_mismatch);
	summary_deals(f, w, v);
	if (w->review)
		brp_view_review_html(f, w->review, info, w->seat);
	fputs("</header>\n", f);
}

/*
 * Everything of the page before the positions: the document's head, the
 * summary, and the data's start (the match, the verdict, where the page opens).
 */
/*
 * Where the page opens (the index, or -1: the script decides): a tampered or
 * untrusted log where the bytes no (trusted) signature vouches for begin (its
 * last position when they hold none), an incomplete one where it stops, an
 * illegal one on the refused decision. On a mismatched claim the script
 * finds the deal's end; on deals that are not those committed, the deal as
 * dealt; on a malformed log, the last position.
 */
static int open_at(const struct view *w, const rpl_verdict *v)
{
	if (v->kind == RPL_VERDICT_TAMPERED || v->kind == RPL_VERDICT_UNTRUSTED)
		return w->open_trust >= 0 ? w->open_trust : w->npos - 1;
	if (v->kind == RPL_VERDICT_INCOMPLETE)
		return w->npos - 1;
	return w->open_refused;
}

static void write_head(FILE *head, const struct view *w, const rpl_match_info *info, const rpl_verdict *v,
                       const char *line, const char *base)
{
	char why[512];

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
	      "script-src 'unsafe-inline'; img-src data:\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
	      head);
	brp_html_text(head, base);
	fputs(" - brp view</title>\n<style>\n", head);
	fputs(view_css, head);
	fputs("</style>\n</head>\n<body>\n", head);
	write_summary(head, w, info, v, line, base);
	fputs("<main id=\"stepper\"><noscript><p>The stepper over every decision needs JavaScript; the summary above "
	      "does not.</p></noscript></main>\n",
	      head);
	/* under the stepper, as lichess's graph under a game: on a phone the stepper comes first */
	brp_course_write(head, w->course, brp_course_disputed(w->course, v, open_at(w, v)), v);
	fputs("<script type=\"application/json\" id=\"brp-data\">\n{\"version\":1,\"profile\":", head);
	json_text(head, info->rules ? rpl_rules_profile(info->rules) : "");
	fprintf(head, ",\"players\":%d,\"names\":[", info->nplayers);
	for (int s = 0; s < info->nplayers; s++) {
		if (s)
			fputc(',', head);
		json_text(head, seat_name(info, s));
	}
	fprintf(head, "],\"seat\":%d,\"keys\":%d,\"verdict\":", w->seat, v->keys);
	json_text(head, rpl_verdict_name(v->kind));
	fputs(",\"line\":", head);
	json_text(head, line);
	fprintf(head, ",\"tone\":\"%s\",\"open\":%d", verdict_tone(v, why, sizeof(why)), open_at(w, v));
	if (v->replay == RPL_VERDICT_ILLEGAL && v->rule == RPL_RULE_TURN_DEAD_END && v->turn > 0) {
		/* the disputed decision is the one that left the turn no legal end: the script finds it */
		char act[160];
		rpl_action_format(&v->action, act, sizeof(act));
		fprintf(head, ",\"deadend\":{\"d\":%d,\"t\":%d,\"a\":", v->deal, v->turn);
		json_text(head, act);
		fputc('}', head);
	}
	if (v->kind == RPL_VERDICT_MISMATCH && v->deal_commitment == RPL_DEAL_MISMATCH)
		fprintf(head, ",\"dealing\":{\"deal\":%d}", v->deal_mismatch); /* 0: the seed itself */
	else if (v->kind == RPL_VERDICT_MISMATCH)
		fprintf(head, ",\"mismatch\":{\"deal\":%d,\"side\":%d,\"claimed\":%d,\"computed\":%d}", v->claim_deal, v->side,
		        (int)v->claimed, (int)v->computed);
	if (v->kind == RPL_VERDICT_MALFORMED)
		fprintf(head, ",\"damage\":%llu", (unsigned long long)v->offset);
	if (w->review)
		brp_view_review_json(head, w->review);
	fputs(",\"positions\":[\n", head);
}

/*
 * Every position of the log into w->data (the page's data, in memory), its
 * verdict into *v, each reviewed decision found at its position: 0, or -1 (said).
 */
static int replay_positions(struct view *w, rpl_reader *rd, const rpl_keyring *trusted, const char *path,
                            rpl_verdict *v)
{
	int err = rpl_positions_reader_trusted(rd, NULL, trusted, on_position, w, v);

	fclose(w->data);
	w->data = NULL;
	if (err && w->too_big) {
		brp_error(name, "%s: the page would pass %u MiB, the most a page holds (docs/view.md); %d positions fit", path,
		          VIEW_MAX_PAGE >> 20, w->npos - 1);
		return -1;
	}
	if (err) {
		brp_error(name, "%s: %s", path, v->message[0] ? v->message : rpl_strerror(err));
		return -1;
	}
	return w->review ? brp_view_review_check(w->review, name, v) : 0; /* of this match, each decision the log's */
}

/*
 * The verdict's line, as brp verify prints it; on a --seat page, when the
 * replay found another seat's decision illegal, without the decision and the
 * engine's message, which name cards that never left that seat's hand.
 */
static void verdict_line(char *line, size_t size, const rpl_verdict *v, int seat)
{
	if (seat < 0 || v->replay != RPL_VERDICT_ILLEGAL || v->turn <= 0 || v->seat == seat) {
		rpl_verdict_format(v, line, size);
		return;
	}
	snprintf(line, size,
	         "%s: deal %d, turn %d, seat %d: %s: a decision of seat %d (its cards are not shown to seat %d)",
	         rpl_verdict_name(v->kind), v->deal, v->turn, v->seat, rpl_rule_name(v->rule), v->seat, seat);
}

/* write_head into memory (*buf, which the caller frees, set or not): 0, or -1 (said). */
static int make_head(char **buf, size_t *len, const struct view *w, const rpl_match_info *info, const rpl_verdict *v,
                     const char *line, const char *base)
{
	FILE *head = open_memstream(buf, len);

	if (!head) {
		brp_error(name, "out of memory");
		return -1;
	}
	write_head(head, w, info, v, line, base);
	if (fclose(head) != 0) {
		brp_error(name, "out of memory");
		return -1;
	}
	return 0;
}

/* The page beside the log: FILE.brp gives FILE.html, any other name NAME gives NAME.html; NULL out of memory. */
static char *page_name(const char *path)
{
	size_t n = strlen(path);
	char *s = malloc(n + 6);

	if (!s)
		return NULL;
	memcpy(s, path, n + 1);
	if (n > 4 && strcmp(s + n - 4, ".brp") == 0)
		s[n - 4] = '\0';
	strcat(s, ".html");
	return s;
}

static const char page_tail[] = "]}\n</script>\n<script>\n", page_end[] = "</script>\n</body>\n</html>\n";

/*
 * The page into out ("-": stdout), its head then its positions then the
 * script, written beside the file and renamed over it once whole (o): a full
 * disk leaves no empty page. 0, or -1 (said).
 */
static int write_page(const char *out, struct brp_output *o, const char *headbuf, size_t headlen, const char *data,
                      size_t datalen)
{
	FILE *f;
	char why[256];

	if (strcmp(out, "-") == 0) {
		f = stdout;
	} else if (brp_output_open(o, out, why, sizeof(why)) != 0) {
		/* written beside it and renamed over it once whole: a full disk leaves no empty page */
		brp_error(name, "%s: %s", out, why);
		return -1;
	} else {
		f = o->f;
	}
	fwrite(headbuf, 1, headlen, f);
	if (datalen)
		fwrite(data, 1, datalen, f);
	fputs(page_tail, f);
	fputs(view_js, f);
	fputs(page_end, f);
	if (f == stdout ? fflush(f) != 0 || ferror(f) : brp_output_commit(o, why, sizeof(why)) != 0) {
		brp_error(name, "%s: %s", out, f == stdout ? strerror(errno) : why);
		return -1;
	}
	return 0;
}

/*
 * Standard input read whole into *buf (the caller's to free, set or not), at
 * most one byte past the 64 MiB a reader accepts (docs/format.md section 10),
 * so that the reader refuses a longer log as it would the file: kept, the
 * bytes are read a second time for a deal that is not the committed one.
 * 0, or -1 (said).
 */
static int read_stdin(unsigned char **buf, size_t *len)
{
	const size_t most = ((size_t)64 << 20) + 1;
	size_t cap = 0;

	*len = 0;
	for (;;) {
		ssize_t got;
		if (*len == cap) {
			unsigned char *grown;
			if (cap == most)
				return 0;
			cap = cap ? (2 * cap < most ? 2 * cap : most) : 65536;
			if (!(grown = realloc(*buf, cap))) {
				brp_error(name, "-: out of memory");
				return -1;
			}
			*buf = grown;
		}
		got = read(0, *buf + *len, cap - *len);
		if (got == 0)
			return 0;
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			brp_error(name, "-: cannot read: %s", strerror(errno));
			return -1;
		}
		*len += (size_t)got;
	}
}

/* The options: -1 when the command goes on (*path NULL: the operand is the log), else the code it exits with (said). */
/* What --review and --review-strength ask: a review file, or the strength of a review made here (0: none). */
struct view_review_opt {
	const char *file;
	int strength;
};

static int view_options(int argc, char **argv, const char **out, const char **path, long *seat, rpl_keyring **trusted,
                        struct view_review_opt *rv)
{
	enum { OPT_SEAT = BRP_OPT_OWN, OPT_REVIEW, OPT_REVIEW_STRENGTH };
	static const struct brp_opt opts[] = {
		{ "output", 1, 'o', 0, 0 },
		{ "seat", 1, OPT_SEAT, 0, 0 },
		{ "review", 1, OPT_REVIEW, 0, 1 },
		{ "review-strength", 1, OPT_REVIEW_STRENGTH, 0, 1 },
		BRP_OPT_KEY,
		BRP_OPT_KEYRING_ROW,
		BRP_OPT_LOG,
		BRP_OPT_HELP,
		BRP_OPT_END,
	};
	struct brp_getopt g;
	int c, first;

	brp_getopt_init(&g, name, opts, argc, argv);
	while ((c = brp_getopt_next(&g)) != -1) {
		switch (c) {
		case BRP_OPT_BAD: return BRP_EXIT_USAGE;
		case 'o':
			if (brp_opt_path(&g, out) != 0)
				return BRP_EXIT_USAGE;
			break;
		case OPT_SEAT:
			if (brp_opt_long(&g, 0, 3, seat) != 0)
				return BRP_EXIT_USAGE;
			break;
		case OPT_REVIEW:
			if (brp_opt_path(&g, &rv->file) != 0)
				return BRP_EXIT_USAGE;
			break;
		case OPT_REVIEW_STRENGTH:
			if (brp_opt_int(&g, 2, 1000, &rv->strength) != 0)
				return BRP_EXIT_USAGE;
			break;
		case BRP_OPT_LOGFILE:
			if (brp_opt_path(&g, path) != 0)
				return BRP_EXIT_USAGE;
			break;
		case 'K':
		case BRP_OPT_KEYRING:
			if (brp_keyring_add(name, trusted, g.arg) < 0)
				return BRP_EXIT_FAIL;
			break;
		case 'h': usage(stdout); return BRP_EXIT_OK;
		}
	}
	first = brp_getopt_index(&g);
	if (first + !*path != argc) {
		brp_error(name, "needs one log (try 'brp view --help')");
		return BRP_EXIT_USAGE;
	}
	return -1;
}

/*
 * The review, read or made before the replay, so that the replay finds each
 * reviewed decision's position (view_review.c); the log is read again for a
 * review made here. 0 (w->review NULL when none is asked), or -1 (said).
 */
static int review_start(struct view *w, const struct view_review_opt *rv)
{
	if (rv->file)
		w->review = brp_view_review_load(name, rv->file, w->seat);
	else if (rv->strength)
		w->review = brp_view_review_compute(name, w->path, w->bytes, w->nbytes, rv->strength, w->seat);
	else
		return 0;
	return w->review ? 0 : -1;
}

int cmd_view(int argc, char **argv)
{
	const char *out = NULL, *path = NULL, *base;
	char *outbuf = NULL, *data = NULL, *headbuf = NULL, line[1024];
	unsigned char *stdin_bytes = NULL;
	size_t stdin_len = 0;
	size_t datalen = 0, headlen = 0;
	int status, err;
	long seat = -1;
	struct view *w = NULL;
	rpl_reader *rd = NULL;
	rpl_keyring *trusted = NULL;
	const rpl_match_info *info;
	static const rpl_match_info no_header;
	rpl_verdict v;
	struct brp_output o = { NULL, -1, NULL, NULL, 0 };
	struct view_review_opt rv = { NULL, 0 };

	if ((status = view_options(argc, argv, &out, &path, &seat, &trusted, &rv)) >= 0)
		goto cleanup;
	status = BRP_EXIT_FAIL;
	if (!path)
		path = argv[argc - 1]; /* the one operand */
	if (brp_stdin_spelling(path)) {
		if (read_stdin(&stdin_bytes, &stdin_len) != 0)
			goto cleanup;
		err = rpl_reader_open_memory(&rd, stdin_bytes, stdin_len);
	} else {
		err = brp_open_log(path, &rd);
	}
	if (brp_stdin_spelling(path)) {
		path = brp_stdin_name; /* named so in messages and the page */
		if (!out)
			out = "-";
	}
	/* a file that is not a log at all (its first byte is wrong, or it is empty) has no page to show */
	if (err == RPL_EIO || err == RPL_ENOMEM || err == RPL_EINVAL || !rd ||
	    (!rpl_reader_info(rd) && rpl_reader_offset(rd) == 0)) {
		brp_error(name, "%s: %s", path, rd ? rpl_reader_errmsg(rd) : "out of memory");
		goto cleanup;
	}
	info = rpl_reader_info(rd);
	if (!info) /* not even the header reads: the page says where the log is damaged, and no more */
		info = &no_header;
	if (info && seat >= info->nplayers) {
		brp_error(name, "--seat %ld: the match has %d players", seat, info->nplayers);
		status = BRP_EXIT_USAGE;
		goto cleanup;
	}
	w = calloc(1, sizeof(*w));
	if (!w || !(w->course = brp_course_new()) || !(w->data = open_memstream(&data, &datalen))) {
		brp_error(name, "out of memory");
		goto cleanup;
	}
	w->seat = (int)seat;
	w->path = path;
	w->bytes = stdin_bytes;
	w->nbytes = stdin_len;
	w->open_refused = w->open_trust = -1;
	if (review_start(w, &rv) != 0 || replay_positions(w, rd, trusted, path, &v) != 0)
		goto cleanup;
	verdict_line(line, sizeof(line), &v, w->seat);
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!out) {
		if (!(outbuf = page_name(path))) {
			brp_error(name, "out of memory");
			goto cleanup;
		}
		out = outbuf;
	}
	/* everything before the positions into memory, so that the page's size is known before it is written */
	if (make_head(&headbuf, &headlen, w, info, &v, line, base) != 0)
		goto cleanup;
	if ((uint64_t)headlen + datalen + sizeof(page_tail) - 1 + strlen(view_js) + sizeof(page_end) - 1 > VIEW_MAX_PAGE) {
		brp_error(name, "%s: the page would pass %u MiB, the most a page holds (docs/view.md)", path,
		          VIEW_MAX_PAGE >> 20);
		goto cleanup;
	}
	if (write_page(out, &o, headbuf, headlen, data, datalen) != 0)
		goto cleanup;
	status = BRP_EXIT_OK;
cleanup:
	brp_output_discard(&o); /* a page that failed is not left */
	if (w) {
		if (w->data)
			fclose(w->data);
		free(w->deals);
		brp_course_free(w->course);
		brp_view_review_free(w->review);
	}
	free(w);
	free(data);
	free(headbuf);
	free(outbuf);
	free(stdin_bytes);
	rpl_reader_free(rd);
	rpl_keyring_free(trusted);
	return status;
}
