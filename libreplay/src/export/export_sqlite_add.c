/*
 * Export, step 2a, the SQLite sink: a loaded match into rows
 * (export_sqlite_impl.h). Every write goes through a prepared statement with
 * bound values.
 */
#include <string.h>

#include <sqlite3.h>

#include "export/export_sqlite_impl.h"
#include "base/msg.h"

/*
 * Binding: every statement is stepped and reset right after its values are
 * bound (step_done), so text is bound SQLITE_STATIC, without a copy: the
 * strings outlive the step, and the text written for a row goes into the
 * handle's row_text, which outlives it too. Every parameter holds its row's
 * value at every step, NULL included: bound for it, or, for an integer of a
 * chunk, found there already (put_int); nothing is left over from the row before.
 */
static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

static void bind_int_or_null(sqlite3_stmt *st, int i, long long v, int present)
{
	if (present)
		sqlite3_bind_int64(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

/* Run a bound statement that returns no row, and reset it. */
static int step_done(rpl_export_db *x, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	int err = rc == SQLITE_DONE ? RPL_OK : rpl__export_db_fail(x, rc, what);

	sqlite3_reset(st);
	return err;
}

/* The verdict's kind, its message and its details, which its kind says (the verdict_* columns). */
static void bind_verdict(sqlite3_stmt *st, const rpl_verdict *v)
{
	char act[160];

	sqlite3_bind_text(st, MC_VERDICT, rpl_verdict_name(v->kind), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, MC_VERDICT_DETAIL, v->message, -1, SQLITE_STATIC);
	for (int i = MC_VERDICT_DEAL; i <= MC_VERDICT_OFFSET; i++)
		sqlite3_bind_null(st, i); /* the verdict's details, set below by kind */
	switch (v->kind) {
	case RPL_VERDICT_ILLEGAL:
		sqlite3_bind_int(st, MC_VERDICT_DEAL, v->deal);
		if (v->turn > 0) {
			sqlite3_bind_int(st, MC_VERDICT_TURN, v->turn);
			sqlite3_bind_int(st, MC_VERDICT_SEAT, v->seat);
			rpl_action_format(&v->action, act, sizeof(act));
			sqlite3_bind_text(st, MC_VERDICT_DECISION, act, -1, SQLITE_TRANSIENT);
		}
		sqlite3_bind_text(st, MC_VERDICT_RULE, rpl_rule_name(v->rule), -1, SQLITE_STATIC);
		break;
	case RPL_VERDICT_INCOMPLETE:
		sqlite3_bind_int(st, MC_VERDICT_DEAL, v->deal);
		sqlite3_bind_int(st, MC_VERDICT_TURN, v->turn);
		break;
	case RPL_VERDICT_MISMATCH:
		/* the deals not those committed: the first deal that differs (0: the seed), as brp verify --json */
		sqlite3_bind_int(st, MC_VERDICT_DEAL,
		                 v->deal_commitment == RPL_DEAL_MISMATCH ? v->deal_mismatch : v->claim_deal);
		break;
	case RPL_VERDICT_MALFORMED:
	case RPL_VERDICT_TAMPERED: sqlite3_bind_int64(st, MC_VERDICT_OFFSET, (long long)v->offset); break;
	default: break;
	}
}

/* A signer's key id and fingerprint at columns key and key + 1, or NULLs when there is none. */
_Static_assert(MC_SIGNATURE_FINGERPRINT == MC_SIGNATURE_KEY + 1 &&
                       MC_SIGNATURE_TRUSTED_FINGERPRINT == MC_SIGNATURE_TRUSTED_KEY + 1,
               "a signer's fingerprint column follows its key's");
static void bind_signer(sqlite3_stmt *st, int key, const rpl_pubkey *pk, int present)
{
	char id[RPL_KEY_ID_TEXT], fp[RPL_KEY_FINGERPRINT_TEXT];

	rpl_key_id_format(pk->id, id);
	rpl__export_fingerprint(pk, present, fp);
	if (present) {
		sqlite3_bind_text(st, key, id, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, key + 1, fp, -1, SQLITE_TRANSIENT);
	} else {
		sqlite3_bind_null(st, key);
		sqlite3_bind_null(st, key + 1);
	}
}

/* What the signatures say (the signature_* columns). */
static void bind_signature(sqlite3_stmt *st, const rpl_verdict *v)
{
	const rpl_signature_report *sr = &v->signature;

	sqlite3_bind_text(st, MC_SIGNATURE, rpl_signature_status_name(sr->status), -1, SQLITE_STATIC);
	bind_signer(st, MC_SIGNATURE_KEY, &sr->key, sr->status != RPL_SIG_UNSIGNED);
	sqlite3_bind_int(st, MC_SIGNATURE_KEY_TRUSTED, sr->key_trusted);
	sqlite3_bind_int64(st, MC_SIGNATURE_COVERED, (long long)sr->covered);
	sqlite3_bind_int(st, MC_SIGNATURE_COUNT, sr->count);
	sqlite3_bind_int(st, MC_SIGNATURE_TRUSTED, sr->trusted);
	bind_signer(st, MC_SIGNATURE_TRUSTED_KEY, &sr->trusted_key, sr->trusted_covered > 0);
	sqlite3_bind_int64(st, MC_SIGNATURE_TRUSTED_COVERED, (long long)sr->trusted_covered);
	sqlite3_bind_int(st, MC_SIGNATURE_ID_CLASH, sr->id_clash);
	sqlite3_bind_int(st, MC_SIGNATURE_HEADER_SIGNED, (v->header_flags & RPL_LOG_SIGNED) != 0);
}

/* The dealing: whether the deals were committed, and to what (the dealing_* columns). */
static void bind_dealing(sqlite3_stmt *st, const rpl_export_match *m)
{
	const rpl_verdict *v = &m->verdict;
	int h = m->have_header, committed = h && v->deal_commitment != RPL_DEAL_NONE;
	char digest[2 * RPL_DEAL_COMMIT_SIZE + 1];

	bind_text(st, MC_DEALING, h ? rpl_deal_commitment_name(v->deal_commitment) : NULL);
	rpl__export_hex(v->commitment, sizeof(v->commitment), digest);
	if (committed)
		sqlite3_bind_text(st, MC_DEALING_DIGEST, digest, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, MC_DEALING_DIGEST);
	bind_int_or_null(st, MC_DEALING_PLAYER_SEEDS, v->player_seeds, committed);
	bind_int_or_null(st, MC_DEALING_PROTOCOL, v->commit_version, committed);
}

/*
 * Every column of m's row (match_cols, ?1 to ?MC_COUNT) into st: what its
 * header says, its verdict, its replay, its signatures, its dealing. The text
 * bound SQLITE_TRANSIENT is made here and copied by SQLite.
 */
static void bind_match(sqlite3_stmt *st, const rpl_export_match *m)
{
	const rpl_verdict *v = &m->verdict;
	int ok = v->kind == RPL_VERDICT_OK && m->detailed, h = m->have_header;
	char iso[RPL__DATE_SIZE];

	sqlite3_bind_text(st, MC_HASH, m->hash, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, MC_FILE, m->file, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, MC_BYTES, (long long)m->bytes);
	bind_int_or_null(st, MC_FORMAT_VERSION, m->format_version, h);
	bind_text(st, MC_PROFILE, h ? m->profile : NULL);
	bind_text(st, MC_OVERRIDES, h ? m->overrides : NULL);
	bind_int_or_null(st, MC_PLAYERS, m->nplayers, h);
	bind_int_or_null(st, MC_TARGET, m->target, h);
	bind_int_or_null(st, MC_FIRST_DEALER, m->first_dealer, h);
	if (h && m->start_time != 0) {
		rpl__date_format(m->start_time, iso, sizeof iso);
		sqlite3_bind_text(st, MC_START_TIME, iso, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, MC_START_UNIX, (long long)m->start_time);
	} else {
		sqlite3_bind_null(st, MC_START_TIME);
		sqlite3_bind_null(st, MC_START_UNIX);
	}
	bind_verdict(st, v);
	sqlite3_bind_int(st, MC_RECOVERED, v->recovered);
	bind_int_or_null(st, MC_DEALS, v->deals, ok);
	bind_int_or_null(st, MC_DECISIONS, v->actions, ok);
	bind_int_or_null(st, MC_WINNER, v->winner, ok);
	bind_int_or_null(st, MC_TOTAL0, v->total[0], ok);
	bind_int_or_null(st, MC_TOTAL1, v->total[1], ok);
	bind_text(st, MC_IDENTITY, v->match_id[0] ? v->match_id : NULL);
	bind_int_or_null(st, MC_CLOSED, v->closed, v->kind != RPL_VERDICT_MALFORMED);
	sqlite3_bind_int(st, MC_TRUSTED_KEYS, v->keys);
	sqlite3_bind_text(st, MC_REPLAY, rpl_verdict_name(v->replay), -1, SQLITE_STATIC);
	sqlite3_bind_int(st, MC_REPLAY_TRUSTED, v->replay_trusted);
	sqlite3_bind_text(st, MC_REPLAY_DETAIL, v->replay_message, -1, SQLITE_STATIC);
	bind_signature(st, v);
	bind_dealing(st, m);
}

static int insert_match(rpl_export_db *x, const rpl_export_match *m)
{
	sqlite3_stmt *st = x->st[ST_MATCH];

	bind_match(st, m);
	sqlite3_bind_int(st, MC_COUNT + 1, m->verdict.kind == RPL_VERDICT_OK && m->detailed && m->has_actions);
	return step_done(x, st, "cannot insert the match");
}

/*
 * A chunk's statement, and what its parameters hold (bound[p] for ?p): an
 * integer is bound only when the parameter does not hold it already, since
 * SQLite keeps a statement's bindings from one step to the next
 * (sqlite3_reset does not clear them, and a statement prepared again takes
 * them over). A row's match, seat, side and small counts are often those the
 * row at its place in the chunk had before, and a binding costs SQLite about
 * 90 instructions. Text, reals and NULLs are always bound, and leave the
 * parameter's integer unknown.
 */
struct chunk {
	sqlite3_stmt *st;
	struct bound_int *bound;
};

static void put_int(const struct chunk *c, int p, long long v)
{
	struct bound_int *b = &c->bound[p];

	if (b->known && b->v == v)
		return;
	sqlite3_bind_int64(c->st, p, v);
	b->v = v;
	b->known = 1;
}

static void put_text(const struct chunk *c, int p, const char *s, int n)
{
	c->bound[p].known = 0;
	if (s)
		sqlite3_bind_text(c->st, p, s, n, SQLITE_STATIC);
	else
		sqlite3_bind_null(c->st, p);
}

static void put_null(const struct chunk *c, int p)
{
	c->bound[p].known = 0;
	sqlite3_bind_null(c->st, p);
}

static void put_double(const struct chunk *c, int p, double v)
{
	c->bound[p].known = 0;
	sqlite3_bind_double(c->st, p, v);
}

static void put_int_or_null(const struct chunk *c, int p, long long v, int present)
{
	if (present)
		put_int(c, p, v);
	else
		put_null(c, p);
}

/*
 * Bind row i of a table's rows of match m: its column c (from 1; the first,
 * the match_id, is ?1 and bound by insert_rows) at parameter base + c. The
 * text written for the row goes into text (ROW_TEXT_SIZE bytes).
 */
typedef void (*row_binder)(const struct chunk *c, int base, const rpl_export_match *m, size_t i, char *text);

/* A decision's text into buf (ACTION_TEXT_SIZE bytes); its length, the text cut at the buffer's end. */
#define ACTION_TEXT_SIZE 160
_Static_assert(3 * ACTION_TEXT_SIZE <= ROW_TEXT_SIZE && RPL__MELD_CARDS_SIZE <= ROW_TEXT_SIZE,
               "a row's text fits its part of row_text");
static int action_text(const rpl_action *a, char *buf)
{
	size_t n = rpl_action_format(a, buf, ACTION_TEXT_SIZE);

	return (int)(n < ACTION_TEXT_SIZE ? n : ACTION_TEXT_SIZE - 1);
}

/* Insert n rows of table t, in chunks of rpl__export_chunk_rows[]. */
static int insert_rows(rpl_export_db *x, int t, size_t n, row_binder bind, const rpl_export_match *m, sqlite3_int64 id)
{
	struct chunk c;
	size_t i = 0;
	int err;

	while (i < n) {
		int k = 0;
		while ((size_t)rpl__export_chunk_rows[k] > n - i)
			k++;
		c.st = x->rows[t][k];
		c.bound = x->bound[t][k];
		put_int(&c, 1, id);
		for (int r = 0; r < rpl__export_chunk_rows[k]; r++)
			bind(&c, r * (rpl__export_row_tables[t].ncols - 1), m, i + (size_t)r, x->row_text[r]);
		if ((err = step_done(x, c.st, rpl__export_row_tables[t].what)) != 0)
			return err;
		i += (size_t)rpl__export_chunk_rows[k];
	}
	return RPL_OK;
}

static void bind_player(const struct chunk *c, int base, const rpl_export_match *m, size_t i, char *text)
{
	put_int(c, base + 2, (int)i);
	put_int(c, base + 3, (int)i % 2);
	put_text(c, base + 4, m->players[i], -1);
}

static void bind_meta(const struct chunk *c, int base, const rpl_export_match *m, size_t i, char *text)
{
	put_int(c, base + 2, (long long)i);
	put_text(c, base + 3, m->meta_keys[i], -1);
	put_text(c, base + 4, m->meta_values[i], -1);
}

static void bind_deal(const struct chunk *c, int base, const rpl_export_match *m, size_t i, char *text)
{
	const struct xdeal *d = &m->deals[i];
	int out = d->st.end == RPL_DEAL_OUT && d->st.out_seat >= 0;

	put_int(c, base + 2, d->deal);
	put_int(c, base + 3, d->dealer);
	put_int(c, base + 4, d->first_seat);
	put_text(c, base + 5, d->st.end == RPL_DEAL_OUT ? "out" : "stock", -1);
	put_int_or_null(c, base + 6, d->st.out_seat, out);
	put_int_or_null(c, base + 7, d->st.out_seat % 2, out);
	put_int(c, base + 8, d->st.turns);
	put_int(c, base + 9, d->st.actions);
	put_int(c, base + 10, d->st.pile_taken);
	put_int(c, base + 11, d->st.pile_frozen);
	put_int(c, base + 12, d->st.rejects);
	put_int(c, base + 13, d->st.morto_direct);
	put_int(c, base + 14, d->st.morto_indirect);
	put_int(c, base + 15, d->st.morto_to_stock);
	put_int(c, base + 16, d->st.vulnerable_open);
	for (int k = 0; k < 2; k++) {
		int taken = d->morto[k] == XM_DIRECT || d->morto[k] == XM_INDIRECT;
		put_text(c, base + 17 + 2 * k, rpl__export_morto_names[d->morto[k]], -1);
		put_int_or_null(c, base + 18 + 2 * k, d->morto_side[k], taken);
	}
}

/* Row i: deal i / 2, side i % 2. */
static void bind_score(const struct chunk *c, int base, const rpl_export_match *m, size_t i, char *text)
{
	const struct xdeal *d = &m->deals[i / 2];
	int s = (int)(i % 2);
	const rpl_score *sc = &d->score[s];
	int32_t all = 0;

	for (int k = 1; k < RPL_CANASTRA_NCAT; k++)
		all += sc->canastras[k];
	put_int(c, base + 2, d->deal);
	put_int(c, base + 3, s);
	put_int(c, base + 4, sc->melded);
	put_int(c, base + 5, sc->bonus);
	put_int(c, base + 6, all);
	put_int(c, base + 7, sc->canastras[RPL_CANASTRA_DIRTY]);
	put_int(c, base + 8, sc->canastras[RPL_CANASTRA_CLEAN]);
	put_int(c, base + 9, sc->canastras[RPL_CANASTRA_CLEAN13]);
	put_int(c, base + 10, sc->canastras[RPL_CANASTRA_CLEAN14]);
	put_int(c, base + 11, sc->canastras[RPL_CANASTRA_DIRTY14]);
	put_int(c, base + 12, sc->going_out);
	put_int(c, base + 13, sc->hand);
	put_int(c, base + 14, sc->morto);
	put_int(c, base + 15, sc->total);
	put_int(c, base + 16, d->match_total[s]);
}

/* The seats a deal has rows for. */
static size_t seats_of(const rpl_export_match *m)
{
	return m->nplayers < 0 ? 0 : m->nplayers > 4 ? 4 : (size_t)m->nplayers;
}

/* Row i: deal i / seats, seat i % seats. */
static void bind_seat(const struct chunk *c, int base, const rpl_export_match *m, size_t i, char *text)
{
	size_t n = seats_of(m);
	const struct xdeal *d = &m->deals[i / n];
	int seat = (int)(i % n);
	const struct xseat *xs = &d->seat[seat];

	put_int(c, base + 2, d->deal);
	put_int(c, base + 3, seat);
	put_int(c, base + 4, seat % 2);
	put_int(c, base + 5, xs->turns);
	put_int(c, base + 6, xs->draws);
	put_int(c, base + 7, xs->takes);
	put_int(c, base + 8, xs->rejects);
	put_int(c, base + 9, xs->melds);
	put_int(c, base + 10, xs->adds);
	put_int(c, base + 11, xs->discards);
	put_int(c, base + 12, xs->mortos);
	put_int(c, base + 13, xs->went_out);
}

static void bind_meld(const struct chunk *c, int base, const rpl_export_match *m, size_t i, char *text)
{
	const struct xmeld *xm = &m->melds[i];
	const rpl_meld_info *mi = &xm->info;
	int n = (int)rpl__export_meld_cards(mi, text, RPL__MELD_CARDS_SIZE);

	put_int(c, base + 2, xm->deal);
	put_int(c, base + 3, xm->side);
	put_int(c, base + 4, xm->idx);
	put_text(c, base + 5, rpl__export_suit_name(mi->suit), -1);
	put_int(c, base + 6, mi->lo);
	put_int(c, base + 7, mi->hi);
	put_int(c, base + 8, mi->length);
	put_int(c, base + 9, mi->wilds);
	put_int(c, base + 10, mi->clean);
	put_text(c, base + 11, rpl_canastra_name(mi->category), -1);
	put_int(c, base + 12, mi->points);
	put_int(c, base + 13, mi->bonus);
	put_text(c, base + 14, text, n);
}

static void bind_action(const struct chunk *c, int base, const rpl_export_match *m, size_t i, char *text)
{
	const struct xaction *a = &m->acts[i];
	int n = action_text(&a->action, text);

	put_int(c, base + 2, a->deal);
	put_int(c, base + 3, a->seq);
	put_int(c, base + 4, a->turn);
	put_int(c, base + 5, a->seat);
	put_text(c, base + 6, rpl__export_kind_name(a->kind), -1);
	put_text(c, base + 7, text, n);
}

static void bind_value(const struct chunk *c, int base, const rpl_export_match *m, size_t i, char *text)
{
	const struct xreview *r = &m->revs[i];
	const rpl_review_decision *d = &r->d;
	const char *cls = rpl_review_class_name(d->cls);
	int n;

	put_int(c, base + 2, d->deal);
	put_int(c, base + 3, d->number);
	put_int(c, base + 4, r->turn);
	put_int(c, base + 5, r->in_turn);
	put_int(c, base + 6, d->seat);
	put_int(c, base + 7, d->seat % 2);
	n = action_text(&d->played, text);
	put_text(c, base + 8, text, n);
	n = action_text(&d->best, text + ACTION_TEXT_SIZE);
	put_text(c, base + 9, text + ACTION_TEXT_SIZE, n);
	n = action_text(&d->greedy, text + 2 * ACTION_TEXT_SIZE);
	put_text(c, base + 10, text + 2 * ACTION_TEXT_SIZE, n);
	put_double(c, base + 11, d->value_played);
	put_double(c, base + 12, d->value_best);
	put_double(c, base + 13, d->loss);
	put_double(c, base + 14, d->se);
	put_int(c, base + 15, d->samples);
	put_int(c, base + 16, d->candidates);
	put_text(c, base + 17, cls, -1);
	put_int(c, base + 18, d->uncertain != 0);
	put_double(c, base + 19, d->win_loss);
	put_double(c, base + 20, d->accuracy);
}

static void bind_review(const struct chunk *c, int base, const rpl_export_match *m, size_t i, char *text)
{
	const rpl_review_summary *s = &m->sums[i];
	const rpl_review_options *o = &m->rev_opt;

	put_int(c, base + 2, s->seat);
	put_int(c, base + 3, s->deal);
	put_int(c, base + 4, s->seat % 2);
	put_int(c, base + 5, s->decisions);
	put_int(c, base + 6, s->matched);
	if (s->decisions) {
		put_double(c, base + 7, rpl_review_summary_accuracy(s));
		put_double(c, base + 8, rpl_review_summary_match_rate(s));
	} else {
		put_null(c, base + 7);
		put_null(c, base + 8);
	}
	put_double(c, base + 9, s->loss_sum);
	put_int(c, base + 10, s->classes[RPL_REVIEW_INACCURACY]);
	put_int(c, base + 11, s->classes[RPL_REVIEW_MISTAKE]);
	put_int(c, base + 12, s->classes[RPL_REVIEW_BLUNDER]);
	put_int(c, base + 13, o->samples);
	put_int(c, base + 14, (sqlite3_int64)o->seed); /* 2^63 and above: itself less 2^64 */
	put_int(c, base + 15, o->candidates);
	put_int(c, base + 16, o->significance);
	put_int(c, base + 17, o->hindsight != 0);
	put_text(c, base + 18, rpl_version(), -1);
}

/*
 * The review of m for row id, unless the row has one: a row keeps its first
 * review (docs/schema.md, "Review"). Only an ok row has deals to review.
 */
/*
 * Has row id rows already in the table statement st looks in (ST_REVIEWED,
 * ST_SCREENED)? 1 yes, 0 no, or the failure (what: what could not be
 * found, for its message).
 */
static int has_rows(rpl_export_db *x, sqlite3_stmt *st, sqlite3_int64 id, const char *what)
{
	int rc;

	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 1;
	return rc == SQLITE_DONE ? 0 : rpl__export_db_fail(x, rc, what);
}

static int add_review(rpl_export_db *x, const rpl_export_match *m, sqlite3_int64 id)
{
	int err;

	if (m->verdict.kind != RPL_VERDICT_OK || !m->detailed || !m->reviewed)
		return RPL_OK;
	if ((err = has_rows(x, x->st[ST_REVIEWED], id, "cannot find the match's review")) != 0)
		return err < 0 ? err : RPL_OK;
	if ((err = insert_rows(x, TB_VALUE, m->nrevs, bind_value, m, id)) != 0)
		return err;
	return insert_rows(x, TB_REVIEW, m->nsums, bind_review, m, id);
}

static void bind_evidence(const struct chunk *c, int base, const rpl_export_match *m, size_t i, char *text)
{
	static const char *const relations[] = { "next", "partner", "previous" };
	const struct xevidence *e = &m->evs[i];
	const rpl_integrity_options *o = &m->int_opt;
	int draw = e->stat == RPL_INTEGRITY_DRAW, n = m->nplayers;

	put_int(c, base + 2, e->deal);
	put_int(c, base + 3, e->seat);
	put_text(c, base + 4, draw ? "draw" : "fit", -1);
	put_int_or_null(c, base + 5, e->target, !draw);
	put_text(c, base + 6, draw ? NULL : relations[(e->target - e->seat + n) % n - 1], -1);
	put_int(c, base + 7, e->bin);
	put_int(c, base + 8, e->decisions);
	put_double(c, base + 9, e->observed);
	put_double(c, base + 10, e->expected);
	put_double(c, base + 11, e->residual);
	put_int(c, base + 12, e->options);
	put_double(c, base + 13, e->excess);
	put_int(c, base + 14, o->samples);
	put_int(c, base + 15, (sqlite3_int64)o->seed); /* 2^63 and above: itself less 2^64 */
	put_text(c, base + 16, rpl_version(), -1);
}

/*
 * The integrity screen's rows of m for row id, unless the row has some: a
 * row keeps its first screen (docs/schema.md, integrity_deals), as its review.
 */
static int add_integrity(rpl_export_db *x, const rpl_export_match *m, sqlite3_int64 id)
{
	int err;

	if (m->verdict.kind != RPL_VERDICT_OK || !m->detailed || !m->screened || !m->nevs)
		return RPL_OK;
	if ((err = has_rows(x, x->st[ST_SCREENED], id, "cannot find the match's integrity evidence")) != 0)
		return err < 0 ? err : RPL_OK;
	return insert_rows(x, TB_EVIDENCE, m->nevs, bind_evidence, m, id);
}

/*
 * A row found for m (id, stored: its actions_stored): the decisions it lacks,
 * when m has them. Only an ok row has deals; a row of m's copy, or of m's
 * own file with m's verdict, has m's content (the identity fixes it).
 */
static int add_actions(rpl_export_db *x, const rpl_export_match *m, sqlite3_int64 id, int stored)
{
	int err;

	if ((err = add_review(x, m, id)) != 0 || (err = add_integrity(x, m, id)) != 0)
		return err;
	if (stored || m->verdict.kind != RPL_VERDICT_OK || !m->detailed || !m->has_actions)
		return RPL_OK;
	if ((err = insert_rows(x, TB_ACTION, m->nacts, bind_action, m, id)) != 0)
		return err;
	sqlite3_bind_int64(x->st[ST_ACTIONS_STORED], 1, id);
	return step_done(x, x->st[ST_ACTIONS_STORED], "cannot mark the decisions stored");
}

/* Run a lookup bound by the caller: 1 with *id and *stored set, 0 when no row, or an error. */
static int find_row(rpl_export_db *x, sqlite3_stmt *st, sqlite3_int64 *id, int *stored)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		*stored = sqlite3_column_int(st, 1);
	}
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 1;
	return rc == SQLITE_DONE ? 0 : rpl__export_db_fail(x, rc, "cannot find the match");
}

/* Write every column of m over row id with st (ST_COMPLETE, ST_BETTER_FILE): 1 when it did, 0 when not. */
static int replace_row(rpl_export_db *x, sqlite3_stmt *st, const rpl_export_match *m, sqlite3_int64 id)
{
	int err;

	bind_match(st, m);
	sqlite3_bind_int64(st, MC_COUNT + 1, id);
	if ((err = step_done(x, st, "cannot update the match's file")) != 0)
		return err;
	return sqlite3_changes(x->db) > 0;
}

static int add_match(rpl_export_db *x, const rpl_export_match *m, int *added)
{
	const rpl_verdict *v = &m->verdict;
	const rpl_signature_report *sr = &v->signature;
	sqlite3_stmt *st;
	sqlite3_int64 id = 0;
	char fp[RPL_KEY_FINGERPRINT_TEXT], kid[RPL_KEY_ID_TEXT];
	int err, stored = 0;

	/*
	 * A row of version 3 or before of this very file, with this verdict: it
	 * takes every column of m, unless m's copy has a row already. A batch
	 * that began without a match has none: every row it adds has its
	 * signature's status (rpl__export_db_fresh).
	 */
	st = x->st[ST_OLDER];
	if (!x->fresh) {
		sqlite3_bind_text(st, 1, m->hash, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, rpl_verdict_name(v->kind), -1, SQLITE_STATIC);
		if ((err = find_row(x, st, &id, &stored)) < 0)
			return err;
		if (err == 1) {
			if ((err = replace_row(x, x->st[ST_COMPLETE], m, id)) < 0)
				return err;
			if (err == 1)
				return add_actions(x, m, id, stored);
		}
	}
	if ((err = insert_match(x, m)) != 0)
		return err;
	if (sqlite3_changes(x->db) == 0) {
		/* the copy is there: its decisions if it lacks them, and m's file if better */
		st = x->st[ST_FIND];
		rpl__export_fingerprint(&sr->key, sr->status != RPL_SIG_UNSIGNED, fp);
		rpl_key_id_format(sr->key.id, kid);
		sqlite3_bind_text(st, 1, v->match_id[0] ? v->match_id : m->hash, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, rpl_verdict_name(v->kind), -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, rpl_signature_status_name(sr->status), -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, sr->status != RPL_SIG_UNSIGNED ? kid : "", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, fp, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 6, sr->trusted);
		sqlite3_bind_text(st, 7, m->have_header ? rpl_deal_commitment_name(v->deal_commitment) : "", -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 8, v->replay_trusted);
		if ((err = find_row(x, st, &id, &stored)) < 0)
			return err;
		if (err == 0) {
			rpl__msgf(x->errmsg, "cannot insert the match, and no row of its copy is there");
			return RPL_EIO;
		}
		if ((err = replace_row(x, x->st[ST_BETTER_FILE], m, id)) < 0)
			return err;
		return add_actions(x, m, id, stored);
	}
	id = sqlite3_last_insert_rowid(x->db);
	if (added)
		*added = 1;
	if ((m->have_header && (err = insert_rows(x, TB_PLAYER, seats_of(m), bind_player, m, id)) != 0) ||
	    (err = insert_rows(x, TB_META, m->nmeta, bind_meta, m, id)) != 0)
		return err;
	if (m->verdict.kind != RPL_VERDICT_OK || !m->detailed)
		return RPL_OK;
	if ((err = insert_rows(x, TB_DEAL, m->ndeals, bind_deal, m, id)) != 0 ||
	    (err = insert_rows(x, TB_SCORE, 2 * m->ndeals, bind_score, m, id)) != 0 ||
	    (err = insert_rows(x, TB_SEAT, seats_of(m) * m->ndeals, bind_seat, m, id)) != 0 ||
	    (err = insert_rows(x, TB_MELD, m->nmelds, bind_meld, m, id)) != 0)
		return err;
	if (m->has_actions && (err = insert_rows(x, TB_ACTION, m->nacts, bind_action, m, id)) != 0)
		return err;
	if ((err = add_review(x, m, id)) != 0)
		return err;
	return add_integrity(x, m, id);
}

int rpl_export_db_add(rpl_export_db *x, const rpl_export_match *m, int *added)
{
	int err;

	if (added)
		*added = 0;
	if (!x || !x->db || !m)
		return RPL_EINVAL;
	if (!x->in_batch) {
		rpl__msgf(x->errmsg, "no batch is open");
		return RPL_ESTATE;
	}
	/*
	 * A failed insert has already undone the transaction (INSERT OR
	 * ROLLBACK) or left part of a match in it: either way the batch goes.
	 */
	if ((x->fresh < 0 && (err = rpl__export_db_fresh(x)) != 0) || (err = add_match(x, m, added)) != 0) {
		rpl_export_db_rollback(x);
		if (added)
			*added = 0;
	}
	return err;
}
