/*
 * Export, step 1: a log loaded for export. Its identity is the match
 * identity that verification gives (the SHA-256 of its bytes for a log that
 * has none); its verdict comes from verification, which also collects, in
 * the same pass, what the database and the CSV files hold per deal (the
 * engine's own scores, stats and melds): kept only for an ok log.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/export_impl.h"
#include "log/format.h"
#include "base/grow.h"
#include "base/sha256.h"
#include "base/msg.h"
#include "verify/verdict.h"

const char *const rpl__export_morto_names[4] = { "untouched", "direct", "indirect", "stock" };

const char *rpl__export_kind_name(int kind)
{
	static const char *const names[] = { "?", "draw", "take", "reject", "meld", "add", "discard", "morto" };
	return kind >= 1 && kind <= 7 ? names[kind] : "?";
}

const char *rpl__export_suit_name(int suit)
{
	static const char *const names[] = { "c", "d", "h", "s" };
	return suit >= 0 && suit <= 3 ? names[suit] : "?";
}

/* Append s to buf at *len when it fits with its terminator; 0 when it does not. */
static int append(char *buf, size_t size, size_t *len, const char *s)
{
	size_t n = *len;

	for (; *s; s++) {
		if (n + 1 >= size)
			return 0;
		buf[n++] = *s;
	}
	buf[n] = '\0';
	*len = n;
	return 1;
}

/*
 * Written out rather than with snprintf: the export formats every meld on
 * the table at every deal's end, and snprintf made this a tenth of its time.
 * A card's name is a few bytes: copied a byte at a time, without a strlen
 * and a memcpy each.
 */
size_t rpl__export_meld_cards(const rpl_meld_info *mi, char *buf, size_t size)
{
	size_t len = 0;

	if (size == 0)
		return 0;
	buf[0] = '\0';
	for (int i = 0; i < mi->length && i < 14; i++) {
		size_t at = len;
		int fits = (i == 0 || append(buf, size, &len, " ")) && append(buf, size, &len, rpl_card_name(mi->card[i]));
		if (fits && mi->wild[i])
			fits = append(buf, size, &len, "(") &&
			       append(buf, size, &len, rpl_card_name(rpl_meld_natural(mi->suit, mi->lo + i))) &&
			       append(buf, size, &len, ")");
		if (!fits) {
			/* whole cards only, as before */
			buf[at] = '\0';
			return at;
		}
	}
	return len;
}

/*
 * A copy of s that is valid UTF-8: each byte that does not begin a well-formed
 * sequence (RFC 3629: no overlongs, no surrogates, at most U+10FFFF) becomes
 * U+FFFD, so that SQLite TEXT and the CSV files stay UTF-8 whatever a log holds.
 */
static char *utf8_dup(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), o = 0;
	char *out = malloc(3 * n + 1);

	if (!out)
		return NULL;
	for (size_t i = 0; i < n;) {
		unsigned c = p[i];
		size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
		int ok = len > 0 && i + len <= n;
		for (size_t k = 1; ok && k < len; k++)
			ok = (p[i + k] & 0xc0) == 0x80;
		if (ok && len > 1) {
			unsigned long cp = c & (0x7fu >> len);
			for (size_t k = 1; k < len; k++)
				cp = cp << 6 | (p[i + k] & 0x3fu);
			ok = !(len == 2 && cp < 0x80) && !(len == 3 && cp < 0x800) && !(len == 4 && cp < 0x10000) &&
			     !(cp >= 0xd800 && cp <= 0xdfff) && cp <= 0x10ffff;
		}
		if (ok) {
			memcpy(out + o, p + i, len);
			o += len;
			i += len;
		} else {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	out[o] = '\0';
	return out;
}

/* {"target":1500,"pile_freezes":true,"wild_mobility":"floating"}: the parameters that differ from the profile. */
static char *overrides_json(const rpl_rules *r)
{
	size_t n = rpl_rules_param_count(), cap = 2 + n * 96, len = 0;
	char *out = malloc(cap);

	if (!out)
		return NULL;
	out[len++] = '{';
	for (size_t i = 0; i < n; i++) {
		const rpl_param_info *pi = rpl_rules_param_info(i);
		char val[64];
		int w;
		if (!pi || !rpl_rules_is_override(r, pi->id) || rpl_rules_get(r, pi->name, val, sizeof(val)) != 0)
			continue;
		/* names and values are the library's own identifiers: nothing to escape */
		w = snprintf(out + len, cap - len, "%s\"%s\":%s%s%s", len > 1 ? "," : "", pi->name,
		             pi->kind == RPL_PARAM_ENUM ? "\"" : "", val, pi->kind == RPL_PARAM_ENUM ? "\"" : "");
		if (w < 0 || (size_t)w >= cap - len - 2)
			break;
		len += (size_t)w;
	}
	out[len++] = '}';
	out[len] = '\0';
	return out;
}

static int fail(rpl_export_match *m, int err, const char *msg)
{
	rpl__msgf(m->errmsg, "%s", msg);
	return err;
}

static int copy_header(rpl_export_match *m, const rpl_reader *rd)
{
	const rpl_match_info *info = rpl_reader_info(rd);
	int target = 0;

	m->have_header = 1;
	m->format_version = rpl_reader_format_version(rd);
	m->profile = utf8_dup(rpl_rules_profile(info->rules));
	m->overrides = overrides_json(info->rules);
	if (!m->profile || !m->overrides)
		return RPL_ENOMEM;
	m->nplayers = info->nplayers;
	m->first_dealer = info->first_dealer;
	rpl_rules_get_id(info->rules, RPL_P_TARGET, &target);
	m->target = target;
	m->start_time = info->start_time;
	for (int s = 0; s < info->nplayers && s < 4; s++) {
		if (info->players[s] && info->players[s][0]) {
			m->players[s] = utf8_dup(info->players[s]);
			if (!m->players[s])
				return RPL_ENOMEM;
		}
	}
	if (info->nmeta) {
		m->meta_keys = calloc(info->nmeta, sizeof(char *));
		m->meta_values = calloc(info->nmeta, sizeof(char *));
		if (!m->meta_keys || !m->meta_values)
			return RPL_ENOMEM;
		m->nmeta = info->nmeta;
		for (size_t i = 0; i < info->nmeta; i++) {
			m->meta_keys[i] = utf8_dup(info->meta_keys[i]);
			m->meta_values[i] = utf8_dup(info->meta_values[i]);
			if (!m->meta_keys[i] || !m->meta_values[i])
				return RPL_ENOMEM;
		}
	}
	return RPL_OK;
}

static int push_meld(rpl_export_match *m, int deal, int side, int idx, const rpl_meld_info *mi)
{
	struct xmeld *p = rpl__grow(m->melds, &m->capmelds, m->nmelds + 1, sizeof(*p), 64);

	if (!p)
		return RPL_ENOMEM;
	m->melds = p;
	p = &m->melds[m->nmelds++];
	p->deal = deal;
	p->side = side;
	p->idx = idx;
	p->info = *mi;
	return RPL_OK;
}

static int push_action(rpl_export_match *m, const struct xdeal *d, const rpl_event *ev)
{
	struct xaction *a, *p = rpl__grow(m->acts, &m->capacts, m->nacts + 1, sizeof(*p), 512);

	if (!p)
		return RPL_ENOMEM;
	m->acts = p;
	a = &m->acts[m->nacts++];
	a->deal = d->deal;
	a->seq = (int)(m->nacts - d->act0);
	a->turn = ev->turn;
	a->seat = (uint8_t)ev->seat;
	a->kind = ev->action.kind;
	a->action = ev->action;
	return RPL_OK;
}

/* The deal just ended: its stats, scores and melds. */
static int deal_over(rpl_export_match *m, struct xdeal *d, const rpl_game *g)
{
	int err;

	rpl_game_deal_stats(g, &d->st);
	for (int s = 0; s < 2; s++) {
		rpl_game_deal_score(g, s, &d->score[s]);
		d->match_total[s] = rpl_game_total(g, s);
	}
	for (int i = 0; i < 2; i++) {
		int st = rpl_game_morto_state(g, i);
		if (st == 2)
			d->morto[i] = XM_STOCK;
		else if (st == -1)
			d->morto[i] = XM_UNTOUCHED;
		/* taken: direct or indirect was noted when it was picked up */
	}
	if (d->st.out_seat >= 0 && d->st.out_seat < 4)
		d->seat[d->st.out_seat].went_out = 1;
	for (int s = 0; s < 2; s++) {
		int n = rpl_game_meld_count(g, s);
		for (int i = 0; i < n; i++) {
			rpl_meld_info mi;
			if (rpl_game_meld(g, s, i, &mi) != 0)
				continue;
			if ((err = push_meld(m, d->deal, s, i, &mi)) != 0)
				return err;
		}
	}
	return RPL_OK;
}

/*
 * What the database and the CSV files hold of a log, collected while it is
 * verified (one decode, one replay); kept only if the verdict is ok.
 */
struct collector {
	rpl_export_match *m;
	unsigned flags;
	size_t capdeals;
	int32_t direct;   /* the deal's mortos picked up directly so far (rpl_deal_stats.morto_direct) */
	rpl_reviewer *rv; /* reviewing: the reviewer, else NULL */
	int last_deal, last_turn, in_turn;
};

/*
 * The decision about to be applied, reviewed from the game before it, as
 * brp review does (cmd_review.c): the decisions of the seats and deal the
 * options ask for, but not a decision the engine refuses (the verdict names
 * it, and the log's rows are then dropped).
 */
static int review_before(struct collector *c, const rpl_event *ev, const rpl_game *g)
{
	rpl_export_match *m = c->m;
	const rpl_review_options *o = &m->rev_opt;
	rpl_review_decision d;
	struct xreview *p;
	int rc;

	if (ev->deal != c->last_deal || ev->turn != c->last_turn)
		c->in_turn = 0;
	c->last_deal = ev->deal;
	c->last_turn = ev->turn;
	c->in_turn++;
	if ((o->deal && ev->deal != o->deal) || (o->seats && !((o->seats >> ev->seat) & 1u)))
		return RPL_OK;
	if (rpl_game_check(g, &ev->action, NULL) != 0)
		return RPL_OK;
	rc = rpl_review_one(&d, c->rv, g, &ev->action);
	if (rc <= 0)
		return rc; /* 0: the seat had no choice */
	p = rpl__grow(m->revs, &m->caprevs, m->nrevs + 1, sizeof(*p), 256);
	if (!p)
		return RPL_ENOMEM;
	m->revs = p;
	p = &m->revs[m->nrevs++];
	p->turn = ev->turn;
	p->in_turn = c->in_turn;
	p->d = d;
	return RPL_OK;
}

/* Only a review looks at the game before a decision: without one, the observer has no before. */
static int collect_before(void *ctx, const rpl_event *ev, const rpl_game *g)
{
	struct collector *c = ctx;

	if (c->rv && ev->kind == RPL_EV_ACTION)
		return review_before(c, ev, g);
	return RPL_OK;
}

static int collect_after(void *ctx, const rpl_event *ev, const rpl_game *g)
{
	struct collector *c = ctx;
	rpl_export_match *m = c->m;
	struct xdeal *d;
	struct xseat *xs;
	int err;

	if (ev->kind == RPL_EV_DEAL) {
		struct xdeal *p = rpl__grow(m->deals, &c->capdeals, m->ndeals + 1, sizeof(*p), 8);
		if (!p)
			return RPL_ENOMEM;
		m->deals = p;
		d = &m->deals[m->ndeals++];
		memset(d, 0, sizeof(*d));
		d->deal = ev->deal;
		d->dealer = rpl_game_dealer(g);
		d->first_seat = rpl_game_seat(g);
		d->morto_side[0] = d->morto_side[1] = -1;
		d->act0 = m->nacts;
		c->direct = 0;
		return RPL_OK;
	}
	if (ev->kind != RPL_EV_ACTION || m->ndeals == 0)
		return RPL_OK;
	d = &m->deals[m->ndeals - 1];
	xs = &d->seat[ev->seat & 3];
	if (ev->turn != d->last_turn[ev->seat & 3]) {
		d->last_turn[ev->seat & 3] = ev->turn;
		xs->turns++;
	}
	switch (ev->action.kind) {
	case RPL_ACT_DRAW: xs->draws++; break;
	case RPL_ACT_TAKE: xs->takes++; break;
	case RPL_ACT_REJECT: xs->rejects++; break;
	case RPL_ACT_MELD: xs->melds++; break;
	case RPL_ACT_ADD: xs->adds++; break;
	case RPL_ACT_DISCARD: xs->discards++; break;
	case RPL_ACT_MORTO: {
		rpl_deal_stats after;
		int i = ev->action.morto & 1;
		xs->mortos++;
		/* only a morto moves the count of direct ones: it grew if this one was direct */
		rpl_game_deal_stats(g, &after);
		d->morto[i] = after.morto_direct > c->direct ? XM_DIRECT : XM_INDIRECT;
		c->direct = after.morto_direct;
		d->morto_side[i] = ev->seat % 2;
		break;
	}
	default: break;
	}
	if ((c->flags & RPL_EXPORT_ACTIONS) && (err = push_action(m, d, ev)) != 0)
		return err;
	if (rpl_game_phase(g) >= RPL_PHASE_DEAL_OVER && (err = deal_over(m, d, g)) != 0)
		return err;
	return RPL_OK;
}

/*
 * The summaries of the review (the reviews table), as brp review --json
 * gives them: for each seat reviewed, each deal where it had a decision
 * reviewed, then the whole match (deal 0), even without one.
 */
static int summarize(rpl_export_match *m)
{
	const rpl_review_options *o = &m->rev_opt;
	int nseats = m->nplayers < 0 ? 0 : m->nplayers > 4 ? 4 : m->nplayers;

	m->sums = calloc((size_t)nseats * (m->ndeals + 1) + 1, sizeof(*m->sums));
	if (!m->sums)
		return RPL_ENOMEM;
	for (int seat = 0; seat < nseats; seat++) {
		if (o->seats && !((o->seats >> seat) & 1u))
			continue;
		for (size_t k = 0; k <= m->ndeals; k++) {
			int deal = k < m->ndeals ? m->deals[k].deal : 0;
			rpl_review_summary *s = &m->sums[m->nsums];
			s->seat = seat;
			s->deal = deal;
			for (size_t i = 0; i < m->nrevs; i++)
				if (m->revs[i].d.seat == seat && (!deal || m->revs[i].d.deal == deal))
					rpl_review_summary_add(s, &m->revs[i].d);
			if (s->decisions || !deal)
				m->nsums++;
			else
				memset(s, 0, sizeof(*s));
		}
	}
	return RPL_OK;
}

/*
 * The analyses' options, kept in m and checked before any work (the
 * reviewer made into *rv): 0, or the load's failure, said on m. The screen
 * runs only on an ok log, but its options are refused as the review's are.
 */
static int analyses_new(rpl_export_match *m, const rpl_review_options *review, const rpl_integrity_options *integrity,
                        rpl_reviewer **rv)
{
	rpl_integrity *probe = NULL;
	int err;

	if (review) {
		m->rev_opt = *review;
		if ((err = rpl_reviewer_new(rv, review)) != 0)
			return fail(m, err, err == RPL_ENOMEM ? "out of memory" : "review options out of range");
	}
	if (integrity) {
		err = rpl_integrity_new(&probe, integrity);
		rpl_integrity_free(probe);
		if (err)
			return fail(m, err, err == RPL_ENOMEM ? "out of memory" : "integrity options out of range");
		m->int_opt = *integrity;
	}
	return RPL_OK;
}

/*
 * Load from memory, reviewing the decisions when review is not NULL, and
 * screening them when integrity is not NULL (rpl_export_match_load_screened).
 */
static int load_memory(rpl_export_match **out, const char *name, const void *data, size_t len, unsigned flags,
                       const rpl_keyring *trusted, const rpl_review_options *review,
                       const rpl_integrity_options *integrity)
{
	rpl_export_match *m;
	rpl_reader *rd = NULL;
	rpl_reviewer *rv = NULL;
	int err;

	if (!out)
		return RPL_EINVAL;
	*out = NULL;
	if (!name || (!data && len))
		return RPL_EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return RPL_ENOMEM;
	*out = m;
	m->verdict.winner = -1;
	m->bytes = len;
	rpl__sha256_hex(data ? data : "", len, m->hash);
	m->file = utf8_dup(name);
	if (!m->file)
		return fail(m, RPL_ENOMEM, "out of memory");
	if ((err = analyses_new(m, review, integrity, &rv)) != 0)
		goto cleanup;
	err = rpl__reader_open_view(&rd, data, len); /* data outlives the reader: read in place */
	if (err == RPL_ENOMEM || (err && !rd)) {
		err = fail(m, RPL_ENOMEM, "out of memory");
		goto cleanup;
	}
	if (err) {
		/* not even the header: malformed, and its signatures judged, as brp verify does */
		err = rpl_verify_reader_trusted(rd, NULL, trusted, &m->verdict, NULL);
		if (err)
			fail(m, err, err == RPL_ENOMEM ? "out of memory" : rpl_strerror(err));
		goto cleanup;
	}
	if ((err = copy_header(m, rd)) != 0) {
		fail(m, err, "out of memory");
		goto cleanup;
	}
	{
		struct collector c = { m, flags, 0, 0, rv, 0, 0, 0 };
		rpl_verify_observer obs = { &c, rv ? collect_before : NULL, collect_after };
		err = rpl_verify_reader_trusted(rd, NULL, trusted, &m->verdict, &obs);
	}
	if (!err && (m->verdict.kind == RPL_VERDICT_UNTRUSTED || m->verdict.kind == RPL_VERDICT_TAMPERED)) {
		/*
		 * The row's replay_detail is a line too: it never blames a seat for
		 * bytes no trusted key signed (docs/security.md), as brp verify's
		 * line and JSON do not.
		 */
		char detail[RPL_ERRMSG_SIZE];
		rpl__verdict_replay_text(&m->verdict, detail, sizeof(detail));
		memcpy(m->verdict.replay_message, detail, sizeof(detail));
	}
	if (err) {
		const char *why = m->verdict.message[0] ? m->verdict.message : rpl_strerror(err);
		fail(m, err, err == RPL_ENOMEM ? "out of memory" : why);
		goto cleanup;
	}
	if (m->verdict.kind != RPL_VERDICT_OK || m->ndeals != (size_t)m->verdict.deals) {
		/* only an ok log is stored in detail */
		m->ndeals = m->nmelds = m->nacts = m->nrevs = 0;
		goto cleanup;
	}
	m->detailed = 1;
	m->has_actions = (flags & RPL_EXPORT_ACTIONS) != 0;
	if (review && (err = summarize(m)) != 0) {
		fail(m, err, "out of memory");
		goto cleanup;
	}
	m->reviewed = review != NULL;
	if (integrity) {
		if ((err = rpl__export_screen(m, data, len, integrity)) != 0) {
			fail(m, err, err == RPL_ENOMEM ? "out of memory" : rpl_strerror(err));
			goto cleanup;
		}
		m->screened = 1;
	}
cleanup:
	rpl_reader_free(rd);
	rpl_reviewer_free(rv);
	return err;
}

int rpl_export_match_load_memory_trusted(rpl_export_match **out, const char *name, const void *data, size_t len,
                                         unsigned flags, const rpl_keyring *trusted)
{
	return load_memory(out, name, data, len, flags, trusted, NULL, NULL);
}

int rpl_export_match_load_memory(rpl_export_match **out, const char *name, const void *data, size_t len, unsigned flags)
{
	return rpl_export_match_load_memory_trusted(out, name, data, len, flags, NULL);
}

/*
 * A file larger than a reader accepts (docs/format.md section 10): loaded
 * as malformed, as the reader refuses it, with the SHA-256 of all its bytes
 * (its identity in the export), hashed in blocks as they are read: never
 * held, so that its size does not become memory. head: its first n bytes,
 * already read; fd is read on to its end. Its signatures are not checked
 * (that would hold it): the row says unsigned, judged with trusted's keys.
 */
static int load_too_large(rpl_export_match **out, const char *path, int fd, const char *head, size_t n,
                          const rpl_keyring *trusted, int *e)
{
	rpl_sha256 h;
	uint8_t digest[32];
	uint64_t total = n;
	char *block = malloc(1 << 16);
	rpl_export_match *m;

	if (!block) {
		*e = ENOMEM;
		return RPL_ENOMEM;
	}
	rpl__sha256_init(&h);
	rpl__sha256_update(&h, head, n);
	for (;;) {
		ssize_t got = read(fd, block, 1 << 16);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			*e = errno;
			free(block);
			return RPL_EIO;
		}
		if (got == 0)
			break;
		rpl__sha256_update(&h, block, (size_t)got);
		total += (uint64_t)got;
	}
	free(block);
	rpl__sha256_final(&h, digest);
	if (!(m = calloc(1, sizeof(*m)))) {
		*e = ENOMEM;
		return RPL_ENOMEM;
	}
	*out = m;
	sodium_bin2hex(m->hash, sizeof(m->hash), digest, sizeof(digest));
	m->bytes = total;
	m->verdict.winner = -1;
	m->verdict.kind = RPL_VERDICT_MALFORMED;
	m->verdict.bytes = total;
	m->verdict.replay = RPL_VERDICT_MALFORMED;
	m->verdict.keys = (int)rpl_keyring_count(trusted); /* judged with them, as far as it could be */
	rpl__msgf(m->verdict.message, "%llu bytes: larger than the %u bytes a reader accepts", (unsigned long long)total,
	          BRP_MAX_FILE);
	memcpy(m->verdict.replay_message, m->verdict.message, sizeof(m->verdict.message));
	if (!(m->file = utf8_dup(path)))
		return fail(m, RPL_ENOMEM, "out of memory");
	return RPL_OK;
}

int rpl_export_match_load_screened(rpl_export_match **out, const char *path, unsigned flags, const rpl_keyring *trusted,
                                   const rpl_review_options *review, const rpl_integrity_options *integrity)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int fd = -1, err, e = 0;
	struct stat st;
	char why[160] = "";

	if (!out)
		return RPL_EINVAL;
	*out = NULL;
	if (!path)
		return RPL_EINVAL;
	/* a FIFO or a device is refused without waiting on it */
	fd = rpl__open_regular(path, &st, &e, why, sizeof(why));
	if (fd < 0) {
		err = e == ENOMEM ? RPL_ENOMEM : RPL_EIO;
		goto fail;
	}
	/*
	 * The file's size, and one byte more, as the first guess: a regular file
	 * is then read in one call, which comes back short at its end.
	 */
	cap = S_ISREG(st.st_mode) && st.st_size >= 0 && st.st_size <= BRP_MAX_FILE ? (size_t)st.st_size + 1 : 4096;
	for (;;) {
		ssize_t got;
		if (len > BRP_MAX_FILE || (!buf && S_ISREG(st.st_mode) && (uint64_t)st.st_size > BRP_MAX_FILE)) {
			err = load_too_large(out, path, fd, buf, len, trusted, &e);
			if (err && !*out)
				goto fail;
			close(fd);
			free(buf);
			return err;
		}
		if (len == cap || !buf) {
			size_t ncap = buf ? cap * 2 : cap;
			char *p;
			if (ncap > (size_t)BRP_MAX_FILE + 1)
				ncap = (size_t)BRP_MAX_FILE + 1; /* one byte past the limit says the file is larger */
			p = realloc(buf, ncap);
			if (!p) {
				e = ENOMEM;
				err = RPL_ENOMEM;
				goto fail;
			}
			buf = p;
			cap = ncap;
		}
		got = read(fd, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			e = errno;
			err = RPL_EIO;
			goto fail;
		}
		len += (size_t)got;
		if (got == 0 || (S_ISREG(st.st_mode) && len < cap))
			break;
	}
	close(fd);
	err = load_memory(out, path, buf, len, flags, trusted, review, integrity);
	free(buf);
	return err;
fail : {
	rpl_export_match *m = calloc(1, sizeof(*m));
	if (fd >= 0)
		close(fd);
	free(buf);
	if (!m)
		return RPL_ENOMEM;
	m->verdict.winner = -1;
	if (err == RPL_ENOMEM) {
		rpl__msgf(m->errmsg, "out of memory");
	} else if (why[0]) {
		rpl__msgf(m->errmsg, "%s", why); /* as a reader says it: "cannot open: ...", "a FIFO, not a regular file" */
	} else {
		char detail[128];
		if (strerror_r(e, detail, sizeof(detail)) != 0)
			snprintf(detail, sizeof(detail), "%s", rpl_strerror(err));
		rpl__msgf(m->errmsg, "cannot read: %s", detail);
	}
	*out = m;
	return err;
}
}

int rpl_export_match_load_reviewed(rpl_export_match **out, const char *path, unsigned flags, const rpl_keyring *trusted,
                                   const rpl_review_options *review)
{
	return rpl_export_match_load_screened(out, path, flags, trusted, review, NULL);
}

int rpl_export_match_load_trusted(rpl_export_match **out, const char *path, unsigned flags, const rpl_keyring *trusted)
{
	return rpl_export_match_load_reviewed(out, path, flags, trusted, NULL);
}

int rpl_export_match_load(rpl_export_match **out, const char *path, unsigned flags)
{
	return rpl_export_match_load_trusted(out, path, flags, NULL);
}

void rpl__export_hex(const uint8_t *p, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}

void rpl__export_fingerprint(const rpl_pubkey *pk, int present, char out[RPL_KEY_FINGERPRINT_TEXT])
{
	if (present)
		rpl_pubkey_fingerprint(pk, out);
	else
		out[0] = '\0';
}

void rpl__export_copy_key(const rpl_export_match *m, char out[RPL__EXPORT_COPY_SIZE])
{
	const rpl_verdict *v = &m->verdict;
	const rpl_signature_report *sr = &v->signature;
	int signed_ = sr->status != RPL_SIG_UNSIGNED;
	char fp[RPL_KEY_FINGERPRINT_TEXT], id[RPL_KEY_ID_TEXT];

	rpl__export_fingerprint(&sr->key, signed_, fp);
	rpl_key_id_format(sr->key.id, id);
	snprintf(out, RPL__EXPORT_COPY_SIZE, "%s%s|%s|%s|%s|%s|%d|%s|%d",
	         v->match_id[0] ? "" : "h:", v->match_id[0] ? v->match_id : m->hash, rpl_verdict_name(v->kind),
	         rpl_signature_status_name(sr->status), signed_ ? id : "", fp, sr->trusted,
	         m->have_header ? rpl_deal_commitment_name(v->deal_commitment) : "", v->replay_trusted);
}

void rpl_export_match_free(rpl_export_match *m)
{
	if (!m)
		return;
	free(m->file);
	free(m->profile);
	free(m->overrides);
	for (int s = 0; s < 4; s++)
		free(m->players[s]);
	for (size_t i = 0; i < m->nmeta; i++) {
		free(m->meta_keys[i]);
		free(m->meta_values[i]);
	}
	free(m->meta_keys);
	free(m->meta_values);
	free(m->deals);
	free(m->melds);
	free(m->acts);
	free(m->revs);
	free(m->sums);
	free(m->evs);
	free(m);
}

const char *rpl_export_match_hash(const rpl_export_match *m)
{
	return m ? m->hash : "";
}

const char *rpl_export_match_id(const rpl_export_match *m)
{
	return m ? m->verdict.match_id : "";
}

const rpl_verdict *rpl_export_match_verdict(const rpl_export_match *m)
{
	return m ? &m->verdict : NULL;
}

const char *rpl_export_match_errmsg(const rpl_export_match *m)
{
	return m ? m->errmsg : "";
}
