/*
 * Export, step 2 for flat files: a loaded match as rows of typed cells, one
 * table at a time, with the columns that docs/schema.md gives the CSV files
 * and the XLSX sheets. The CSV and XLSX sinks only write cells; what goes in
 * which column is said once, here.
 */
#include <stdlib.h>
#include <string.h>

#include "export/export_table.h"
#include "base/sha256.h"

/* clang-format off */ /* the columns laid out by hand */
static const char *const matches_cols[] = {
	"hash", "file", "bytes", "format_version", "profile", "overrides", "players", "target", "first_dealer",
	"start_time_utc", "start_unix", "player0", "player1", "player2", "player3", "verdict", "verdict_detail",
	"verdict_deal", "verdict_turn", "verdict_seat", "verdict_decision", "verdict_rule", "verdict_offset",
	"recovered", "deals", "decisions", "winner", "total0", "total1", "identity", "closed", "trusted_keys",
	"replay", "replay_trusted", "replay_detail", "signature", "signature_key", "signature_fingerprint", "signature_key_trusted", "signature_covered",
	"signature_count", "signature_trusted", "signature_trusted_key", "signature_trusted_fingerprint",
	"signature_trusted_covered", "signature_id_clash", "signature_header_signed", "dealing", "dealing_digest", "dealing_player_seeds",
	"dealing_protocol",
};
static const char *const meta_cols[] = { "hash", "idx", "key", "value" };
static const char *const deals_cols[] = {
	"hash", "deal", "dealer", "first_seat", "end_kind", "out_seat", "out_side", "turns", "decisions",
	"pile_taken", "pile_frozen", "rejects", "morto_direct", "morto_indirect", "morto_to_stock",
	"vulnerable_open", "morto0", "morto0_side", "morto1", "morto1_side",
};
static const char *const scores_cols[] = {
	"hash", "deal", "side", "melded", "bonus", "canastras", "canastras_dirty", "canastras_clean",
	"canastras_clean13", "canastras_clean14", "canastras_dirty14", "going_out", "hand", "morto", "total",
	"match_total",
};
static const char *const seats_cols[] = {
	"hash", "deal", "seat", "side", "turns", "draws", "takes", "rejects", "melds", "adds", "discards", "mortos",
	"went_out",
};
static const char *const melds_cols[] = {
	"hash", "deal", "side", "idx", "suit", "lo", "hi", "length", "wilds", "clean", "category", "points", "bonus",
	"cards",
};
static const char *const actions_cols[] = { "hash", "deal", "seq", "turn", "seat", "kind", "text" };
static const char *const players_cols[] = {
	"name", "matches", "wins", "deals", "points", "canastras", "went_out", "turns", "pile_takes",
};
/* clang-format on */
_Static_assert(sizeof(matches_cols) / sizeof(matches_cols[0]) <= XT_MAX_COLS, "a row holds every column");

#define TABLE(n, c)                                                                                                    \
	{                                                                                                                  \
		n, c, sizeof(c) / sizeof(c[0])                                                                                 \
	}

const struct xtable rpl__export_tables[XT_COUNT] = {
	[XT_MATCHES] = TABLE("matches", matches_cols), [XT_META] = TABLE("meta", meta_cols),
	[XT_DEALS] = TABLE("deals", deals_cols),       [XT_SCORES] = TABLE("deal_scores", scores_cols),
	[XT_SEATS] = TABLE("deal_seats", seats_cols),  [XT_MELDS] = TABLE("melds", melds_cols),
	[XT_ACTIONS] = TABLE("actions", actions_cols), [XT_PLAYERS] = TABLE("players", players_cols),
};

/* A row being filled: cells appended in column order, then emitted. */
struct row {
	struct xcell c[XT_MAX_COLS];
	int n;
};

static void put_int(struct row *r, long long v)
{
	r->c[r->n++] = (struct xcell){ XC_INT, v, NULL };
}

static void put_text(struct row *r, const char *s)
{
	r->c[r->n++] = s ? (struct xcell){ XC_TEXT, 0, s } : (struct xcell){ XC_NULL, 0, NULL };
}

static void put_opt(struct row *r, long long v, int present)
{
	r->c[r->n++] = present ? (struct xcell){ XC_INT, v, NULL } : (struct xcell){ XC_NULL, 0, NULL };
}

static int emit(struct row *r, int table, rpl__export_row_fn fn, void *ctx)
{
	int n = r->n;
	r->n = 0;
	return fn(ctx, table, r->c, n);
}

static int match_row(const rpl_export_match *m, rpl__export_row_fn fn, void *ctx)
{
	const rpl_verdict *v = &m->verdict;
	int h = m->have_header, ok = v->kind == RPL_VERDICT_OK && m->detailed;
	int deal = 0, has_deal = 0, has_turn = 0, has_seat = 0;
	const char *decision = NULL, *rule = NULL;
	const rpl_signature_report *sr = &v->signature;
	int signed_ = sr->status != RPL_SIG_UNSIGNED, has_trusted = sr->trusted_covered > 0;
	int committed = h && v->deal_commitment != RPL_DEAL_NONE;
	char act[160], id[RPL_KEY_ID_TEXT], fp[RPL_KEY_FINGERPRINT_TEXT], tid[RPL_KEY_ID_TEXT];
	char tfp[RPL_KEY_FINGERPRINT_TEXT], digest[2 * RPL_DEAL_COMMIT_SIZE + 1];
	struct row r = { .n = 0 };

	put_text(&r, m->hash);
	put_text(&r, m->file);
	put_int(&r, (long long)m->bytes);
	put_opt(&r, m->format_version, h);
	put_text(&r, h ? m->profile : NULL);
	put_text(&r, h ? m->overrides : NULL);
	put_opt(&r, m->nplayers, h);
	put_opt(&r, m->target, h);
	put_opt(&r, m->first_dealer, h);
	if (h && m->start_time != 0) {
		r.c[r.n++] = (struct xcell){ XC_TIME, (long long)m->start_time, NULL };
		put_int(&r, (long long)m->start_time);
	} else {
		put_text(&r, NULL);
		put_text(&r, NULL);
	}
	for (int s = 0; s < 4; s++)
		put_text(&r, h && s < m->nplayers ? m->players[s] : NULL);
	put_text(&r, rpl_verdict_name(v->kind));
	put_text(&r, v->message);
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
		/* the deals not those committed: the first deal that differs (0: the seed), as brp verify --json */
		deal = v->deal_commitment == RPL_DEAL_MISMATCH ? v->deal_mismatch : v->claim_deal, has_deal = 1;
	}
	put_opt(&r, deal, has_deal);
	put_opt(&r, v->turn, has_turn);
	put_opt(&r, v->seat, has_seat);
	put_text(&r, decision);
	put_text(&r, rule);
	put_opt(&r, (long long)v->offset, v->kind == RPL_VERDICT_MALFORMED || v->kind == RPL_VERDICT_TAMPERED);
	put_int(&r, v->recovered);
	put_opt(&r, v->deals, ok);
	put_opt(&r, v->actions, ok);
	put_opt(&r, v->winner, ok);
	put_opt(&r, v->total[0], ok);
	put_opt(&r, v->total[1], ok);
	put_text(&r, v->match_id[0] ? v->match_id : NULL);
	put_opt(&r, v->closed, v->kind != RPL_VERDICT_MALFORMED);
	/* what the signatures cover and what the log proves of its deals: the SQLite columns of version 4 */
	put_int(&r, v->keys);
	put_text(&r, rpl_verdict_name(v->replay));
	put_int(&r, v->replay_trusted);
	put_text(&r, v->replay_message);
	put_text(&r, rpl_signature_status_name(sr->status));
	rpl_key_id_format(sr->key.id, id);
	rpl__export_fingerprint(&sr->key, signed_, fp);
	put_text(&r, signed_ ? id : NULL);
	put_text(&r, signed_ ? fp : NULL);
	put_int(&r, sr->key_trusted);
	put_int(&r, (long long)sr->covered);
	put_int(&r, sr->count);
	put_int(&r, sr->trusted);
	rpl_key_id_format(sr->trusted_key.id, tid);
	rpl__export_fingerprint(&sr->trusted_key, has_trusted, tfp);
	put_text(&r, has_trusted ? tid : NULL);
	put_text(&r, has_trusted ? tfp : NULL);
	put_int(&r, (long long)sr->trusted_covered);
	put_int(&r, sr->id_clash);
	put_int(&r, (v->header_flags & RPL_LOG_SIGNED) != 0);
	put_text(&r, h ? rpl_deal_commitment_name(v->deal_commitment) : NULL);
	rpl__export_hex(v->commitment, sizeof(v->commitment), digest);
	put_text(&r, committed ? digest : NULL);
	put_opt(&r, v->player_seeds, committed);
	put_opt(&r, v->commit_version, committed);
	return emit(&r, XT_MATCHES, fn, ctx);
}

static int deal_rows(const rpl_export_match *m, const struct xdeal *d, rpl__export_row_fn fn, void *ctx)
{
	int out = d->st.end == RPL_DEAL_OUT && d->st.out_seat >= 0, err;
	struct row r = { .n = 0 };

	put_text(&r, m->hash);
	put_int(&r, d->deal);
	put_int(&r, d->dealer);
	put_int(&r, d->first_seat);
	put_text(&r, d->st.end == RPL_DEAL_OUT ? "out" : "stock");
	put_opt(&r, d->st.out_seat, out);
	put_opt(&r, d->st.out_seat % 2, out);
	put_int(&r, d->st.turns);
	put_int(&r, d->st.actions);
	put_int(&r, d->st.pile_taken);
	put_int(&r, d->st.pile_frozen);
	put_int(&r, d->st.rejects);
	put_int(&r, d->st.morto_direct);
	put_int(&r, d->st.morto_indirect);
	put_int(&r, d->st.morto_to_stock);
	put_int(&r, d->st.vulnerable_open);
	for (int i = 0; i < 2; i++) {
		put_text(&r, rpl__export_morto_names[d->morto[i]]);
		put_opt(&r, d->morto_side[i], d->morto[i] == XM_DIRECT || d->morto[i] == XM_INDIRECT);
	}
	if ((err = emit(&r, XT_DEALS, fn, ctx)) != 0)
		return err;

	for (int s = 0; s < 2; s++) {
		const rpl_score *sc = &d->score[s];
		int32_t all = 0;
		for (int c = 1; c < RPL_CANASTRA_NCAT; c++)
			all += sc->canastras[c];
		put_text(&r, m->hash);
		put_int(&r, d->deal);
		put_int(&r, s);
		put_int(&r, sc->melded);
		put_int(&r, sc->bonus);
		put_int(&r, all);
		for (int c = 1; c < RPL_CANASTRA_NCAT; c++)
			put_int(&r, sc->canastras[c]);
		put_int(&r, sc->going_out);
		put_int(&r, sc->hand);
		put_int(&r, sc->morto);
		put_int(&r, sc->total);
		put_int(&r, d->match_total[s]);
		if ((err = emit(&r, XT_SCORES, fn, ctx)) != 0)
			return err;
	}

	for (int s = 0; s < m->nplayers && s < 4; s++) {
		const struct xseat *xs = &d->seat[s];
		put_text(&r, m->hash);
		put_int(&r, d->deal);
		put_int(&r, s);
		put_int(&r, s % 2);
		put_int(&r, xs->turns);
		put_int(&r, xs->draws);
		put_int(&r, xs->takes);
		put_int(&r, xs->rejects);
		put_int(&r, xs->melds);
		put_int(&r, xs->adds);
		put_int(&r, xs->discards);
		put_int(&r, xs->mortos);
		put_int(&r, xs->went_out);
		if ((err = emit(&r, XT_SEATS, fn, ctx)) != 0)
			return err;
	}
	return 0;
}

int rpl__export_rows(const rpl_export_match *m, rpl__export_row_fn fn, void *ctx)
{
	int ok = m->verdict.kind == RPL_VERDICT_OK && m->detailed, err;
	struct row r = { .n = 0 };

	if ((err = match_row(m, fn, ctx)) != 0)
		return err;
	for (size_t i = 0; i < m->nmeta; i++) {
		put_text(&r, m->hash);
		put_int(&r, (long long)i);
		put_text(&r, m->meta_keys[i]);
		put_text(&r, m->meta_values[i]);
		if ((err = emit(&r, XT_META, fn, ctx)) != 0)
			return err;
	}
	if (!ok)
		return 0;
	for (size_t k = 0; k < m->ndeals; k++)
		if ((err = deal_rows(m, &m->deals[k], fn, ctx)) != 0)
			return err;
	for (size_t i = 0; i < m->nmelds; i++) {
		const struct xmeld *xm = &m->melds[i];
		const rpl_meld_info *mi = &xm->info;
		char cards[RPL__MELD_CARDS_SIZE];
		rpl__export_meld_cards(mi, cards, sizeof(cards));
		put_text(&r, m->hash);
		put_int(&r, xm->deal);
		put_int(&r, xm->side);
		put_int(&r, xm->idx);
		put_text(&r, rpl__export_suit_name(mi->suit));
		put_int(&r, mi->lo);
		put_int(&r, mi->hi);
		put_int(&r, mi->length);
		put_int(&r, mi->wilds);
		put_int(&r, mi->clean);
		put_text(&r, rpl_canastra_name(mi->category));
		put_int(&r, mi->points);
		put_int(&r, mi->bonus);
		put_text(&r, cards);
		if ((err = emit(&r, XT_MELDS, fn, ctx)) != 0)
			return err;
	}
	for (size_t i = 0; m->has_actions && i < m->nacts; i++) {
		const struct xaction *a = &m->acts[i];
		char text[160];
		rpl_action_format(&a->action, text, sizeof(text));
		put_text(&r, m->hash);
		put_int(&r, a->deal);
		put_int(&r, a->seq);
		put_int(&r, a->turn);
		put_int(&r, a->seat);
		put_text(&r, rpl__export_kind_name(a->kind));
		put_text(&r, text);
		if ((err = emit(&r, XT_ACTIONS, fn, ctx)) != 0)
			return err;
	}
	return 0;
}

/* ---- per-player totals ---- */

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

int rpl__export_seen_add(struct xseen *set, const char *hash)
{
	size_t i;

	if (2 * (set->n + 1) > set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 1024;
		char(*p)[65] = calloc(cap, sizeof(*p));
		if (!p)
			return RPL_ENOMEM;
		for (size_t k = 0; k < set->cap; k++) {
			if (!set->v[k][0])
				continue;
			for (i = fnv1a(set->v[k]) & (cap - 1); p[i][0]; i = (i + 1) & (cap - 1))
				;
			memcpy(p[i], set->v[k], 65);
		}
		free(set->v);
		set->v = p;
		set->cap = cap;
	}
	for (i = fnv1a(hash) & (set->cap - 1); set->v[i][0]; i = (i + 1) & (set->cap - 1))
		if (strcmp(set->v[i], hash) == 0)
			return 0;
	memcpy(set->v[i], hash, 65);
	set->n++;
	return 1;
}

int rpl__export_seen_copy(struct xseen *set, const rpl_export_match *m)
{
	char key[RPL__EXPORT_COPY_SIZE], hex[65];

	rpl__export_copy_key(m, key);
	rpl__sha256_hex(key, strlen(key), hex);
	return rpl__export_seen_add(set, hex);
}

void rpl__export_seen_free(struct xseen *set)
{
	free(set->v);
	memset(set, 0, sizeof(*set));
}

/* The totals of name, made on first use; NULL when out of memory. */
static struct xplayer *player_get(struct xplayers *ps, const char *name)
{
	size_t i;

	if (2 * (ps->n + 1) > ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 64;
		struct xplayer *p = calloc(cap, sizeof(*p));
		if (!p)
			return NULL;
		for (size_t k = 0; k < ps->cap; k++) {
			if (!ps->v[k].name)
				continue;
			for (i = fnv1a(ps->v[k].name) & (cap - 1); p[i].name; i = (i + 1) & (cap - 1))
				;
			p[i] = ps->v[k];
		}
		free(ps->v);
		ps->v = p;
		ps->cap = cap;
	}
	for (i = fnv1a(name) & (ps->cap - 1); ps->v[i].name; i = (i + 1) & (ps->cap - 1))
		if (strcmp(ps->v[i].name, name) == 0)
			return &ps->v[i];
	ps->v[i].name = strdup(name);
	if (!ps->v[i].name)
		return NULL;
	ps->n++;
	return &ps->v[i];
}

int rpl__export_players_add(struct xplayers *ps, const rpl_export_match *m)
{
	const rpl_verdict *v = &m->verdict;
	int n = m->nplayers < 4 ? m->nplayers : 4;

	int first;

	if (v->kind != RPL_VERDICT_OK || !m->detailed)
		return 0;
	/* each match once, as counted_matches: another ok copy of it adds nothing */
	if ((first = rpl__export_seen_add(&ps->counted, v->match_id[0] ? v->match_id : m->hash)) <= 0)
		return first;
	/* matches and wins once per distinct name, as count(DISTINCT match_id) in player_stats */
	for (int s = 0; s < n; s++) {
		struct xplayer *p;
		int dup = 0, won = 0;
		if (!m->players[s])
			continue;
		for (int t = 0; t < s; t++)
			dup |= m->players[t] && strcmp(m->players[t], m->players[s]) == 0;
		if (dup)
			continue;
		for (int t = s; t < n; t++)
			won |= m->players[t] && strcmp(m->players[t], m->players[s]) == 0 && t % 2 == v->winner;
		if (!(p = player_get(ps, m->players[s])))
			return RPL_ENOMEM;
		p->matches++;
		p->wins += won;
	}
	/* deals per seat, as player_deals */
	for (size_t k = 0; k < m->ndeals; k++) {
		const struct xdeal *d = &m->deals[k];
		for (int s = 0; s < n; s++) {
			struct xplayer *p;
			int32_t canastras = 0;
			if (!m->players[s])
				continue;
			if (!(p = player_get(ps, m->players[s])))
				return RPL_ENOMEM;
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
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct xplayer *)a)->name, ((const struct xplayer *)b)->name);
}

int rpl__export_players_rows(const struct xplayers *ps, rpl__export_row_fn fn, void *ctx)
{
	struct xplayer *list = NULL;
	struct row r = { .n = 0 };
	size_t n = 0;
	int err = 0;

	if (ps->n) {
		list = malloc(ps->n * sizeof(*list));
		if (!list)
			return RPL_ENOMEM;
		for (size_t k = 0; k < ps->cap; k++)
			if (ps->v[k].name)
				list[n++] = ps->v[k];
		qsort(list, n, sizeof(*list), by_name);
	}
	for (size_t k = 0; k < n && err == 0; k++) {
		put_text(&r, list[k].name);
		put_int(&r, list[k].matches);
		put_int(&r, list[k].wins);
		put_int(&r, list[k].deals);
		put_int(&r, list[k].points);
		put_int(&r, list[k].canastras);
		put_int(&r, list[k].went_out);
		put_int(&r, list[k].turns);
		put_int(&r, list[k].takes);
		err = emit(&r, XT_PLAYERS, fn, ctx);
	}
	free(list);
	return err;
}

void rpl__export_players_free(struct xplayers *ps)
{
	for (size_t k = 0; k < ps->cap; k++)
		free(ps->v[k].name);
	free(ps->v);
	rpl__export_seen_free(&ps->counted);
	memset(ps, 0, sizeof(*ps));
}

void rpl__export_datetime(int64_t t, char buf[RPL__DATE_SIZE])
{
	rpl__date_format(t, buf, RPL__DATE_SIZE);
	/* "YYYY-MM-DDTHH:MM:SSZ" -> "YYYY-MM-DD HH:MM:SS": the form spreadsheets read as a date */
	char *tp = strchr(buf, 'T');
	size_t n = strlen(buf);
	if (tp)
		*tp = ' ';
	if (n && buf[n - 1] == 'Z')
		buf[n - 1] = '\0';
}
