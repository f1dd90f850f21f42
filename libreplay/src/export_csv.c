/*
 * Export, step 2b: the CSV sink. RFC 4180 through libcsv's quoting, CRLF
 * line ends, a header row, UTF-8. Numbers are integers written by hand
 * (nothing depends on the locale); text is always quoted, and text that a
 * spreadsheet would read as a formula gets a leading ' (docs/schema.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csv.h>

#include "export_impl.h"

enum { F_MATCHES, F_META, F_DEALS, F_SCORES, F_PLAYERS, F_COUNT };

static const char *const file_names[F_COUNT] = { "matches.csv", "meta.csv", "deals.csv", "deal_scores.csv",
	                                         "players.csv" };

static const char *const headers[F_COUNT] = {
	"hash,file,bytes,format_version,profile,overrides,players,target,first_dealer,start_time,start_unix,"
	"player0,player1,player2,player3,verdict,verdict_detail,verdict_deal,verdict_turn,verdict_seat,"
	"verdict_decision,verdict_rule,verdict_offset,recovered,deals,decisions,winner,total0,total1",
	"hash,idx,key,value",
	"hash,deal,dealer,first_seat,end_kind,out_seat,out_side,turns,decisions,pile_taken,pile_frozen,rejects,"
	"morto_direct,morto_indirect,morto_to_stock,vulnerable_open,morto0,morto0_side,morto1,morto1_side",
	"hash,deal,side,melded,bonus,canastras,canastras_dirty,canastras_clean,canastras_clean13,canastras_clean14,"
	"canastras_dirty14,going_out,hand,morto,total,match_total",
	"name,matches,wins,deals,points,canastras,went_out,turns,pile_takes",
};

/* Per-player totals (players.csv), the same numbers as the player_stats view. */
struct player {
	char *name;
	long long matches, wins, deals, points, canastras, went_out, turns, takes;
};

struct rpl_export_csv {
	char *dir;
	FILE *f[F_COUNT];
	char *tmp[F_COUNT];           /* temporary names, until renamed */
	int nfield;                   /* fields written in the current row */
	int finished;
	/* hashes added (open addressing; capacity a power of 2) */
	char (*seen)[65];
	size_t nseen, capseen;
	/* players by name (open addressing) */
	struct player *players;
	size_t nplayers, capplayers;
	char errmsg[320];
};

static int csv_fail(rpl_export_csv *w, int err, const char *what, int e)
{
	char detail[160];

	if (strerror_r(e, detail, sizeof(detail)) != 0)
		snprintf(detail, sizeof(detail), "error %d", e);
	snprintf(w->errmsg, sizeof(w->errmsg), "%s: %s", what, detail);
	return err;
}

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* Add hash to the set; 1 when it was new, 0 when seen before, RPL_ENOMEM. */
static int seen_add(rpl_export_csv *w, const char *hash)
{
	size_t i;

	if (2 * (w->nseen + 1) > w->capseen) {
		size_t cap = w->capseen ? w->capseen * 2 : 1024;
		char(*p)[65] = calloc(cap, sizeof(*p));
		if (!p)
			return RPL_ENOMEM;
		for (size_t k = 0; k < w->capseen; k++) {
			if (!w->seen[k][0])
				continue;
			for (i = fnv1a(w->seen[k]) & (cap - 1); p[i][0]; i = (i + 1) & (cap - 1))
				;
			memcpy(p[i], w->seen[k], 65);
		}
		free(w->seen);
		w->seen = p;
		w->capseen = cap;
	}
	for (i = fnv1a(hash) & (w->capseen - 1); w->seen[i][0]; i = (i + 1) & (w->capseen - 1))
		if (strcmp(w->seen[i], hash) == 0)
			return 0;
	memcpy(w->seen[i], hash, 65);
	w->nseen++;
	return 1;
}

/* The totals of name, made on first use; NULL when out of memory. */
static struct player *player_get(rpl_export_csv *w, const char *name)
{
	size_t i;

	if (2 * (w->nplayers + 1) > w->capplayers) {
		size_t cap = w->capplayers ? w->capplayers * 2 : 64;
		struct player *p = calloc(cap, sizeof(*p));
		if (!p)
			return NULL;
		for (size_t k = 0; k < w->capplayers; k++) {
			if (!w->players[k].name)
				continue;
			for (i = fnv1a(w->players[k].name) & (cap - 1); p[i].name; i = (i + 1) & (cap - 1))
				;
			p[i] = w->players[k];
		}
		free(w->players);
		w->players = p;
		w->capplayers = cap;
	}
	for (i = fnv1a(name) & (w->capplayers - 1); w->players[i].name; i = (i + 1) & (w->capplayers - 1))
		if (strcmp(w->players[i].name, name) == 0)
			return &w->players[i];
	w->players[i].name = strdup(name);
	if (!w->players[i].name)
		return NULL;
	w->nplayers++;
	return &w->players[i];
}

/* ---- writing fields ---- */

static void sep(rpl_export_csv *w, FILE *f)
{
	if (w->nfield++)
		fputc(',', f);
}

/*
 * Text, always quoted. A value a spreadsheet would read as a formula (= + - @,
 * or a tab or CR that some strip before looking) gets a leading '; so does a
 * value that already starts with ', so that stripping one ' always gives the
 * original back.
 */
static void field_text(rpl_export_csv *w, FILE *f, const char *s)
{
	sep(w, f);
	if (!s)
		return; /* NULL: an empty, unquoted field */
	if (s[0] && strchr("=+-@\t\r'", s[0])) {
		size_t n = strlen(s);
		char *p = malloc(n + 2);
		if (p) {
			p[0] = '\'';
			memcpy(p + 1, s, n + 1);
			csv_fwrite(f, p, n + 1);
			free(p);
			return;
		}
		/* out of memory: a space keeps the value from being a formula, and the stream's error state is unchanged */
		csv_fwrite(f, " ", 1);
	}
	csv_fwrite(f, s, strlen(s));
}

/* An integer in plain decimal (no locale digit grouping exists for %lld). */
static void field_int(rpl_export_csv *w, FILE *f, long long v)
{
	sep(w, f);
	fprintf(f, "%lld", v);
}

static void field_opt(rpl_export_csv *w, FILE *f, long long v, int present)
{
	if (present)
		field_int(w, f, v);
	else
		sep(w, f);
}

static void row_end(rpl_export_csv *w, FILE *f)
{
	fputs("\r\n", f);
	w->nfield = 0;
}

/* ---- the writer ---- */

int rpl_export_csv_open(rpl_export_csv **out, const char *dir)
{
	rpl_export_csv *w;

	if (!out)
		return RPL_EINVAL;
	*out = NULL;
	if (!dir)
		return RPL_EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return RPL_ENOMEM;
	*out = w;
	w->dir = strdup(dir);
	if (!w->dir)
		return RPL_ENOMEM;
	for (int i = 0; i < F_COUNT; i++) {
		size_t n = strlen(dir) + strlen(file_names[i]) + 16;
		int fd;
		w->tmp[i] = malloc(n);
		if (!w->tmp[i])
			return RPL_ENOMEM;
		snprintf(w->tmp[i], n, "%s/.%s.XXXXXX", dir, file_names[i]);
		fd = mkstemp(w->tmp[i]);
		if (fd < 0) {
			int e = errno;
			free(w->tmp[i]);
			w->tmp[i] = NULL;
			return csv_fail(w, RPL_EIO, dir, e);
		}
		/* mkstemp makes 0600; a finished export is as readable as any other file */
		fchmod(fd, 0644);
		w->f[i] = fdopen(fd, "wb");
		if (!w->f[i]) {
			int e = errno;
			close(fd);
			return csv_fail(w, RPL_EIO, w->tmp[i], e);
		}
		fputs(headers[i], w->f[i]);
		fputs("\r\n", w->f[i]);
	}
	return RPL_OK;
}

static void add_players(rpl_export_csv *w, const rpl_export_match *m, int *oom)
{
	const rpl_verdict *v = &m->verdict;
	int n = m->nplayers < 4 ? m->nplayers : 4;

	/* matches and wins once per distinct name, as count(DISTINCT match_id) in player_stats */
	for (int s = 0; s < n; s++) {
		struct player *p;
		int dup = 0, won = 0;
		if (!m->players[s])
			continue;
		for (int t = 0; t < s; t++)
			dup |= m->players[t] && strcmp(m->players[t], m->players[s]) == 0;
		if (dup)
			continue;
		for (int t = s; t < n; t++)
			won |= m->players[t] && strcmp(m->players[t], m->players[s]) == 0 && t % 2 == v->winner;
		if (!(p = player_get(w, m->players[s]))) {
			*oom = 1;
			return;
		}
		p->matches++;
		p->wins += won;
	}
	/* deals per seat, as player_deals */
	for (size_t k = 0; k < m->ndeals; k++) {
		const struct xdeal *d = &m->deals[k];
		for (int s = 0; s < n; s++) {
			struct player *p;
			int32_t canastras = 0;
			if (!m->players[s])
				continue;
			if (!(p = player_get(w, m->players[s]))) {
				*oom = 1;
				return;
			}
			for (int c = 1; c < RPL_CANASTRA_NCAT; c++)
				canastras += d->score[s % 2].canastras[c];
			p->deals++;
			p->points += d->score[s % 2].total;
			p->canastras += canastras;
			p->went_out += d->seat[s].went_out;
			p->turns += d->seat[s].turns;
			p->takes += d->seat[s].takes;
		}
	}
}

int rpl_export_csv_add(rpl_export_csv *w, const rpl_export_match *m, int *added)
{
	const rpl_verdict *v;
	FILE *f;
	int h, ok, isnew, oom = 0;
	char iso[RPL__ISO8601_SIZE], act[160];

	if (added)
		*added = 0;
	if (!w || !m)
		return RPL_EINVAL;
	if (w->finished || !w->f[F_MATCHES]) {
		snprintf(w->errmsg, sizeof(w->errmsg), "the CSV files are not open");
		return RPL_ESTATE;
	}
	isnew = seen_add(w, m->hash);
	if (isnew < 0)
		return csv_fail(w, RPL_ENOMEM, "out of memory", ENOMEM);
	if (!isnew)
		return RPL_OK;
	v = &m->verdict;
	h = m->have_header;
	ok = v->kind == RPL_VERDICT_OK && m->detailed;

	f = w->f[F_MATCHES];
	field_text(w, f, m->hash);
	field_text(w, f, m->file);
	field_int(w, f, (long long)m->bytes);
	field_opt(w, f, m->format_version, h);
	field_text(w, f, h ? m->profile : NULL);
	field_text(w, f, h ? m->overrides : NULL);
	field_opt(w, f, m->nplayers, h);
	field_opt(w, f, m->target, h);
	field_opt(w, f, m->first_dealer, h);
	if (h && m->start_time != 0) {
		rpl__export_iso8601(m->start_time, iso);
		field_text(w, f, iso);
		field_int(w, f, (long long)m->start_time);
	} else {
		field_text(w, f, NULL);
		field_text(w, f, NULL);
	}
	for (int s = 0; s < 4; s++)
		field_text(w, f, h && s < m->nplayers ? m->players[s] : NULL);
	field_text(w, f, rpl_verdict_name(v->kind));
	field_text(w, f, v->message);
	{
		int deal = 0, has_deal = 0, has_turn = 0, has_seat = 0;
		const char *decision = NULL, *rule = NULL;
		if (v->kind == RPL_VERDICT_ILLEGAL) {
			deal = v->deal, has_deal = 1;
			if (v->turn > 0) {
				has_turn = has_seat = 1;
				rpl_action_format(&v->action, act, sizeof(act));
				decision = act;
			}
			rule = rpl_rule_name(v->rule);
		} else if (v->kind == RPL_VERDICT_INCOMPLETE) {
			deal = v->deal, has_deal = has_turn = 1;
		} else if (v->kind == RPL_VERDICT_MISMATCH) {
			deal = v->claim_deal, has_deal = 1;
		}
		field_opt(w, f, deal, has_deal);
		field_opt(w, f, v->turn, has_turn);
		field_opt(w, f, v->seat, has_seat);
		field_text(w, f, decision);
		field_text(w, f, rule);
		field_opt(w, f, (long long)v->offset, v->kind == RPL_VERDICT_MALFORMED);
	}
	field_int(w, f, v->recovered);
	field_opt(w, f, v->deals, ok);
	field_opt(w, f, v->actions, ok);
	field_opt(w, f, v->winner, ok);
	field_opt(w, f, v->total[0], ok);
	field_opt(w, f, v->total[1], ok);
	row_end(w, f);

	f = w->f[F_META];
	for (size_t i = 0; i < m->nmeta; i++) {
		field_text(w, f, m->hash);
		field_int(w, f, (long long)i);
		field_text(w, f, m->meta_keys[i]);
		field_text(w, f, m->meta_values[i]);
		row_end(w, f);
	}

	for (size_t k = 0; ok && k < m->ndeals; k++) {
		const struct xdeal *d = &m->deals[k];
		int out = d->st.end == RPL_DEAL_OUT && d->st.out_seat >= 0;
		f = w->f[F_DEALS];
		field_text(w, f, m->hash);
		field_int(w, f, d->deal);
		field_int(w, f, d->dealer);
		field_int(w, f, d->first_seat);
		field_text(w, f, d->st.end == RPL_DEAL_OUT ? "out" : "stock");
		field_opt(w, f, d->st.out_seat, out);
		field_opt(w, f, d->st.out_seat % 2, out);
		field_int(w, f, d->st.turns);
		field_int(w, f, d->st.actions);
		field_int(w, f, d->st.pile_taken);
		field_int(w, f, d->st.pile_frozen);
		field_int(w, f, d->st.rejects);
		field_int(w, f, d->st.morto_direct);
		field_int(w, f, d->st.morto_indirect);
		field_int(w, f, d->st.morto_to_stock);
		field_int(w, f, d->st.vulnerable_open);
		for (int i = 0; i < 2; i++) {
			field_text(w, f, rpl__export_morto_names[d->morto[i]]);
			field_opt(w, f, d->morto_side[i], d->morto[i] == XM_DIRECT || d->morto[i] == XM_INDIRECT);
		}
		row_end(w, f);

		f = w->f[F_SCORES];
		for (int s = 0; s < 2; s++) {
			const rpl_score *sc = &d->score[s];
			int32_t all = 0;
			for (int c = 1; c < RPL_CANASTRA_NCAT; c++)
				all += sc->canastras[c];
			field_text(w, f, m->hash);
			field_int(w, f, d->deal);
			field_int(w, f, s);
			field_int(w, f, sc->melded);
			field_int(w, f, sc->bonus);
			field_int(w, f, all);
			for (int c = 1; c < RPL_CANASTRA_NCAT; c++)
				field_int(w, f, sc->canastras[c]);
			field_int(w, f, sc->going_out);
			field_int(w, f, sc->hand);
			field_int(w, f, sc->morto);
			field_int(w, f, sc->total);
			field_int(w, f, d->match_total[s]);
			row_end(w, f);
		}
	}
	if (ok)
		add_players(w, m, &oom);
	if (oom)
		return csv_fail(w, RPL_ENOMEM, "out of memory", ENOMEM);
	for (int i = 0; i < F_PLAYERS; i++)
		if (ferror(w->f[i]))
			return csv_fail(w, RPL_EIO, w->tmp[i], errno);
	if (added)
		*added = 1;
	return RPL_OK;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct player *)a)->name, ((const struct player *)b)->name);
}

/* Flush, fsync and close file i; RPL_EIO. */
static int close_file(rpl_export_csv *w, int i)
{
	FILE *f = w->f[i];
	int bad;

	w->f[i] = NULL;
	bad = fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0;
	if (fclose(f) != 0)
		bad = 1;
	return bad ? csv_fail(w, RPL_EIO, w->tmp[i], errno) : RPL_OK;
}

int rpl_export_csv_finish(rpl_export_csv *w)
{
	struct player *list = NULL;
	size_t n = 0;
	int err = RPL_OK, dfd;

	if (!w)
		return RPL_EINVAL;
	if (w->finished || !w->f[F_PLAYERS]) {
		snprintf(w->errmsg, sizeof(w->errmsg), "the CSV files are not open");
		return RPL_ESTATE;
	}
	if (w->nplayers) {
		list = malloc(w->nplayers * sizeof(*list));
		if (!list)
			return csv_fail(w, RPL_ENOMEM, "out of memory", ENOMEM);
		for (size_t k = 0; k < w->capplayers; k++)
			if (w->players[k].name)
				list[n++] = w->players[k];
		qsort(list, n, sizeof(*list), by_name);
	}
	for (size_t k = 0; k < n; k++) {
		FILE *f = w->f[F_PLAYERS];
		field_text(w, f, list[k].name);
		field_int(w, f, list[k].matches);
		field_int(w, f, list[k].wins);
		field_int(w, f, list[k].deals);
		field_int(w, f, list[k].points);
		field_int(w, f, list[k].canastras);
		field_int(w, f, list[k].went_out);
		field_int(w, f, list[k].turns);
		field_int(w, f, list[k].takes);
		row_end(w, f);
	}
	free(list);
	for (int i = 0; i < F_COUNT; i++)
		if ((err = close_file(w, i)) != 0)
			return err;
	/* every file is whole before the first takes its name */
	for (int i = 0; i < F_COUNT; i++) {
		size_t len = strlen(w->dir) + strlen(file_names[i]) + 2;
		char *final = malloc(len);
		if (!final)
			return csv_fail(w, RPL_ENOMEM, "out of memory", ENOMEM);
		snprintf(final, len, "%s/%s", w->dir, file_names[i]);
		if (rename(w->tmp[i], final) != 0) {
			err = csv_fail(w, RPL_EIO, final, errno);
			free(final);
			return err;
		}
		free(final);
		free(w->tmp[i]);
		w->tmp[i] = NULL;
	}
	dfd = open(w->dir, O_RDONLY);
	if (dfd >= 0) {
		fsync(dfd); /* the renames survive a power loss; best effort */
		close(dfd);
	}
	w->finished = 1;
	return RPL_OK;
}

void rpl_export_csv_free(rpl_export_csv *w)
{
	if (!w)
		return;
	for (int i = 0; i < F_COUNT; i++) {
		if (w->f[i])
			fclose(w->f[i]);
		if (w->tmp[i]) {
			unlink(w->tmp[i]);
			free(w->tmp[i]);
		}
	}
	for (size_t k = 0; k < w->capplayers; k++)
		free(w->players[k].name);
	free(w->players);
	free(w->seen);
	free(w->dir);
	free(w);
}

const char *rpl_export_csv_errmsg(const rpl_export_csv *w)
{
	return w ? w->errmsg : "";
}
