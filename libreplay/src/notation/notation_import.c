/*
 * The import of a whole text into a log (rpl_notation_import, and
 * rpl_notation_import_stream for a text read in pieces): the parser's
 * lines, the header's tags made into the rules and the match info, the
 * rest recorded through rpl_notation_record(), into a temporary file
 * renamed over the log once whole.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "notation/notation_impl.h"
#include "log/recorder_impl.h"
#include "log/tmpfile.h"

/* The header as the tags give it; strings are copies. */
struct header {
	int line; /* line of the last tag */
	char *profile;
	int profile_line, profile_col;
	int nrules;
	struct {
		char *name, *value;
		int line, col;
	} rule[64];
	int players, players_line;
	char *seat[RPL_MAX_SEATS];
	int seat_line[RPL_MAX_SEATS], seat_col[RPL_MAX_SEATS];
	int first_dealer, dealer_line, dealer_col;
	int64_t start;
	int start_line;
	size_t nmeta;
	char *meta_key[RPL_MAX_META], *meta_value[RPL_MAX_META];
	int commit_line, nseeds, seeds_line;
	int commit_version, version_line; /* [CommitmentVersion]: 0 when absent (the current protocol) */
	int format_version, format_line;  /* [FormatVersion]: 0 when absent (the newest) */
	uint8_t commitment[RPL_DEAL_COMMIT_SIZE];
	uint8_t seeds[RPL_DEAL_MAX_PLAYER_SEEDS][RPL_DEAL_SEED_SIZE];
};

static void header_free(struct header *h)
{
	free(h->profile);
	for (int i = 0; i < h->nrules; i++) {
		free(h->rule[i].name);
		free(h->rule[i].value);
	}
	for (int s = 0; s < RPL_MAX_SEATS; s++)
		free(h->seat[s]);
	for (size_t i = 0; i < h->nmeta; i++) {
		free(h->meta_key[i]);
		free(h->meta_value[i]);
	}
}

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

/* A small decimal tag value in 0..max; -1 otherwise. */
static int small_number(const char *s, int max)
{
	int v = 0;

	if (!*s || strlen(s) > 3)
		return -1;
	for (; *s; s++) {
		if (!is_digit(*s))
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v <= max ? v : -1;
}

/*
 * Take in one tag; errors name the line and column of the value at fault.
 * It stays whole: a flat dispatch, one short block a tag of docs/notation.md,
 * each independent of the others, reads best as one list.
 */
static int header_add(rpl_notation_parser *p, struct header *h, const rpl_notation_item *it)
{
	const char *t = it->tag, *v0 = it->value[0];
	int c0 = it->value_column[0], c1 = it->value_column[1];

	h->line = it->line;
	if (strcmp(t, "Notation") == 0)
		return 0;
	if (strcmp(t, "Profile") == 0) {
		if (h->profile)
			return rpl__notation_fail(p, RPL_EPARSE, c0, "[Profile] is given twice");
		if (!(h->profile = dup_str(v0)))
			return rpl__notation_fail(p, RPL_ENOMEM, 0, "out of memory");
		h->profile_line = it->line;
		h->profile_col = c0;
		return 0;
	}
	if (strcmp(t, "Rule") == 0) {
		for (int i = 0; i < h->nrules; i++)
			if (ieq(h->rule[i].name, v0))
				return rpl__notation_fail(p, RPL_EPARSE, c0, "[Rule \"%s\"] is given twice", v0);
		if (h->nrules == (int)(sizeof h->rule / sizeof h->rule[0]))
			return rpl__notation_fail(p, RPL_ELIMIT, c0, "too many [Rule] tags");
		h->rule[h->nrules].name = dup_str(v0);
		h->rule[h->nrules].value = dup_str(it->value[1]);
		h->rule[h->nrules].line = it->line;
		h->rule[h->nrules].col = c0;
		h->nrules++;
		if (!h->rule[h->nrules - 1].name || !h->rule[h->nrules - 1].value)
			return rpl__notation_fail(p, RPL_ENOMEM, 0, "out of memory");
		return 0;
	}
	if (strcmp(t, "Players") == 0) {
		if (h->players)
			return rpl__notation_fail(p, RPL_EPARSE, c0, "[Players] is given twice");
		h->players = v0[0] - '0'; /* the parser checked "2" or "4" */
		h->players_line = it->line;
		return 0;
	}
	if (strcmp(t, "Seat") == 0) {
		int s = small_number(v0, RPL_MAX_SEATS - 1);
		if (s < 0)
			return rpl__notation_fail(p, RPL_EPARSE, c0, "[Seat] names seat 0 to 3, not \"%s\"", v0);
		if (h->seat[s])
			return rpl__notation_fail(p, RPL_EPARSE, c0, "seat %d is named twice", s);
		if (strlen(it->value[1]) > RPL_MAX_NAME)
			return rpl__notation_fail(p, RPL_ELIMIT, c1, "a name has at most %d bytes", RPL_MAX_NAME);
		if (!(h->seat[s] = dup_str(it->value[1])))
			return rpl__notation_fail(p, RPL_ENOMEM, 0, "out of memory");
		h->seat_line[s] = it->line;
		h->seat_col[s] = c0;
		return 0;
	}
	if (strcmp(t, "FirstDealer") == 0) {
		int s = small_number(v0, RPL_MAX_SEATS - 1);
		if (h->dealer_line)
			return rpl__notation_fail(p, RPL_EPARSE, c0, "[FirstDealer] is given twice");
		if (s < 0)
			return rpl__notation_fail(p, RPL_EPARSE, c0, "[FirstDealer] is a seat, 0 to 3, not \"%s\"", v0);
		h->first_dealer = s;
		h->dealer_line = it->line;
		h->dealer_col = c0;
		return 0;
	}
	if (strcmp(t, "Start") == 0) {
		if (h->start_line)
			return rpl__notation_fail(p, RPL_EPARSE, c0, "[Start] is given twice");
		if (rpl_notation_time_parse(v0, &h->start) < 0)
			return rpl__notation_fail(p, RPL_EPARSE, c0,
			                          "[Start] is a UTC time such as \"2026-11-30T01:58:23Z\", not \"%s\"", v0);
		if (h->start == 0)
			return rpl__notation_fail(p, RPL_EPARSE, c0, "[Start] at 0 means unknown: leave the tag out");
		h->start_line = it->line;
		return 0;
	}
	if (strcmp(t, "Meta") == 0) {
		if (h->nmeta == RPL_MAX_META)
			return rpl__notation_fail(p, RPL_ELIMIT, c0, "at most %d [Meta] tags", RPL_MAX_META);
		if (strlen(v0) > RPL_MAX_META_TEXT)
			return rpl__notation_fail(p, RPL_ELIMIT, c0, "a metadata key has at most %d bytes", RPL_MAX_META_TEXT);
		if (strlen(it->value[1]) > RPL_MAX_META_TEXT)
			return rpl__notation_fail(p, RPL_ELIMIT, c1, "a metadata value has at most %d bytes", RPL_MAX_META_TEXT);
		h->meta_key[h->nmeta] = dup_str(v0);
		h->meta_value[h->nmeta] = dup_str(it->value[1]);
		h->nmeta++;
		if (!h->meta_key[h->nmeta - 1] || !h->meta_value[h->nmeta - 1])
			return rpl__notation_fail(p, RPL_ENOMEM, 0, "out of memory");
		return 0;
	}
	if (strcmp(t, "Commitment") == 0) {
		if (h->commit_line)
			return rpl__notation_fail(p, RPL_EPARSE, c0, "[Commitment] is given twice");
		if (rpl__notation_hex_bytes(v0, h->commitment, sizeof h->commitment) < 0)
			return rpl__notation_fail(p, RPL_EPARSE, c0, "[Commitment] is 64 hex digits");
		h->commit_line = it->line;
		return 0;
	}
	if (strcmp(t, "CommitmentVersion") == 0) {
		if (h->version_line)
			return rpl__notation_fail(p, RPL_EPARSE, c0, "[CommitmentVersion] is given twice");
		if (strcmp(v0, "1") != 0 && strcmp(v0, "2") != 0)
			return rpl__notation_fail(p, RPL_EPARSE, c0, "[CommitmentVersion] is \"1\" or \"2\", not \"%s\"", v0);
		h->commit_version = v0[0] - '0';
		h->version_line = it->line;
		return 0;
	}
	if (strcmp(t, "FormatVersion") == 0) {
		if (h->format_line)
			return rpl__notation_fail(p, RPL_EPARSE, c0, "[FormatVersion] is given twice");
		if (strlen(v0) != 1 || v0[0] < '2' || v0[0] > '7')
			return rpl__notation_fail(p, RPL_EPARSE, c0, "[FormatVersion] is \"2\" to \"7\", not \"%s\"", v0);
		h->format_version = v0[0] - '0';
		h->format_line = it->line;
		return 0;
	}
	if (strcmp(t, "PlayerSeed") == 0) {
		if (h->nseeds == RPL_DEAL_MAX_PLAYER_SEEDS)
			return rpl__notation_fail(p, RPL_ELIMIT, c0, "at most %d [PlayerSeed] tags", RPL_DEAL_MAX_PLAYER_SEEDS);
		if (rpl__notation_hex_bytes(v0, h->seeds[h->nseeds], RPL_DEAL_SEED_SIZE) < 0)
			return rpl__notation_fail(p, RPL_EPARSE, c0, "[PlayerSeed] is 64 hex digits");
		h->nseeds++;
		h->seeds_line = it->line;
		return 0;
	}
	return rpl__notation_fail(p, RPL_EPARSE, 1, "unknown tag '%s'", t);
}

/* The rules and the match info of a complete header; p->line is the line that ends the header. */
static int header_finish(rpl_notation_parser *p, const struct header *h, rpl_rules **rules, rpl_match_info *info)
{
	int err, saved = p->line;
	const char *missing = NULL;

	if (p->tags == 0)
		return rpl__notation_fail(p, RPL_EPARSE, 0, "the text does not begin with [Notation \"1\"]");
	if (!h->profile)
		missing = "Profile";
	else if (!h->players)
		missing = "Players";
	else if (!h->dealer_line)
		missing = "FirstDealer";
	if (missing)
		return rpl__notation_fail(p, RPL_EPARSE, 0, "the header has no [%s] tag", missing);
	err = rpl_rules_new(rules, h->profile);
	if (err < 0) {
		p->line = h->profile_line;
		if (err == RPL_ENOTFOUND)
			err = rpl__notation_fail(p, RPL_EPARSE, h->profile_col, "unknown profile \"%s\"", h->profile);
		else
			err = rpl__notation_fail(p, err, 0, "%s", rpl_strerror(err));
		goto out;
	}
	for (int i = 0; i < h->nrules; i++) {
		err = rpl_rules_set(*rules, h->rule[i].name, h->rule[i].value);
		if (err < 0) {
			const char *detail = rpl_rules_errmsg(*rules);
			p->line = h->rule[i].line;
			if (err == RPL_ENOTFOUND)
				err = rpl__notation_fail(p, RPL_EPARSE, h->rule[i].col, "unknown rule parameter \"%s\"",
				                         h->rule[i].name);
			else
				err = rpl__notation_fail(p, RPL_EPARSE, h->rule[i].col, "%s",
				                         detail && *detail ? detail : "a value out of range");
			goto out;
		}
	}
	for (int s = h->players; s < RPL_MAX_SEATS; s++)
		if (h->seat[s]) {
			p->line = h->seat_line[s];
			err = rpl__notation_fail(p, RPL_EPARSE, h->seat_col[s], "there is no seat %d with %d players", s,
			                         h->players);
			goto out;
		}
	if (h->first_dealer >= h->players) {
		p->line = h->dealer_line;
		err = rpl__notation_fail(p, RPL_EPARSE, h->dealer_col, "there is no seat %d with %d players", h->first_dealer,
		                         h->players);
		goto out;
	}
	memset(info, 0, sizeof *info);
	info->rules = *rules;
	info->nplayers = h->players;
	for (int s = 0; s < RPL_MAX_SEATS; s++)
		info->players[s] = h->seat[s];
	info->first_dealer = h->first_dealer;
	info->start_time = h->start;
	info->nmeta = h->nmeta;
	info->meta_keys = (const char *const *)h->meta_key;
	info->meta_values = (const char *const *)h->meta_value;
	if (h->nseeds && !h->commit_line) {
		p->line = h->seeds_line;
		err = rpl__notation_fail(p, RPL_EPARSE, 1, "[PlayerSeed] needs a [Commitment]");
		goto out;
	}
	if (h->version_line && !h->commit_line) {
		p->line = h->version_line;
		err = rpl__notation_fail(p, RPL_EPARSE, 1, "[CommitmentVersion] needs a [Commitment]");
		goto out;
	}
	if (h->format_line && (((h->format_version == 2 || h->format_version == 7) && h->commit_line) ||
	                       (h->format_version == 3) != (h->commit_version == 1))) {
		p->line = h->format_line;
		err = rpl__notation_fail(p, RPL_EPARSE, 1,
		                         "[FormatVersion \"%d\"] cannot hold this match (versions 2 and 7: dealt freely; 3: "
		                         "[CommitmentVersion \"1\"], which only it holds)",
		                         h->format_version);
		goto out;
	}
	if (h->commit_line) {
		info->commitment = h->commitment;
		info->commit_version = h->commit_version;
		info->nplayer_seeds = h->nseeds;
		info->player_seeds = (const uint8_t(*)[RPL_DEAL_SEED_SIZE])h->seeds;
	}
	err = 0;
out:
	p->line = saved;
	return err;
}

/* Why the recorder failed (its message names no path; the caller knows out_path). */
static const char *io_why(const rpl_recorder *rec, int rc)
{
	const char *m = rec ? rpl_recorder_errmsg(rec) : "";

	return m && *m ? m : rpl_strerror(rc);
}

/*
 * The log is recorded into a new temporary file beside out_path (tmpfile.h)
 * and put in its place once whole, so that a failed or killed import never
 * leaves a log that looks complete, and an existing out_path is untouched
 * until then.
 */
/* The header is complete: open the recorder on the temporary file. */
static int open_output(rpl_notation_parser *p, const struct header *h, rpl_rules **rules, rpl_match_info *info,
                       rpl_recorder **rec, struct rpl__tmpfile *tmp)
{
	int rc = header_finish(p, h, rules, info);

	if (rc < 0)
		return rc;
	rc = rpl__recorder_open_fd(rec, tmp->fd, info, RPL_RECORD_UNCHECKED, NULL, h->format_version);
	if (rc < 0) {
		rpl__msgf(p->errmsg, "%s", io_why(*rec, rc));
		return rc;
	}
	return 0;
}

/*
 * Where import takes its lines from: a text in memory, or a read callback
 * through a buffer of one line at most (plus its line break), so that
 * memory does not grow with the input. A line longer than the limit is
 * handed over cut at RPL_NOTATION_MAX_LINE + 1 bytes, for the parser to
 * refuse: the rest of it is never read.
 */
struct source {
	const char *text; /* in memory */
	size_t len, pos;
	ptrdiff_t (*read)(void *ud, char *buf, size_t n); /* or streamed */
	void *ud;
	char *buf;
	size_t start, end;
	int eof;
};

#define SOURCE_BUF (RPL_NOTATION_MAX_LINE + 2)

/* The next line without its "\n": 1, 0 at the end of the text, or a negative error of the callback. */
static int next_line(struct source *src, const char **line, size_t *n)
{
	if (!src->read) {
		const char *nl;
		if (src->pos >= src->len)
			return 0;
		nl = memchr(src->text + src->pos, '\n', src->len - src->pos);
		*line = src->text + src->pos;
		*n = nl ? (size_t)(nl - *line) : src->len - src->pos;
		src->pos += *n + (nl ? 1 : 0);
		return 1;
	}
	for (;;) {
		const char *nl = memchr(src->buf + src->start, '\n', src->end - src->start);
		ptrdiff_t got;
		if (nl || src->end - src->start == SOURCE_BUF || (src->eof && src->end > src->start)) {
			*line = src->buf + src->start;
			*n = nl ? (size_t)(nl - *line) : src->end - src->start;
			src->start += *n + (nl ? 1 : 0);
			return 1;
		}
		if (src->eof)
			return 0;
		if (src->start > 0) {
			memmove(src->buf, src->buf + src->start, src->end - src->start);
			src->end -= src->start;
			src->start = 0;
		}
		got = src->read(src->ud, src->buf + src->end, SOURCE_BUF - src->end);
		if (got < 0)
			return (int)got;
		if (got == 0)
			src->eof = 1;
		src->end += (size_t)got;
	}
}

static int import_source(struct source *src, const char *out_path, char *err, size_t errlen);

int rpl_notation_import(const char *text, size_t len, const char *out_path, char *err, size_t errlen)
{
	struct source src = { 0 };

	if (err && errlen)
		err[0] = '\0';
	if ((!text && len) || !out_path)
		return RPL_EINVAL;
	src.text = text;
	src.len = len;
	return import_source(&src, out_path, err, errlen);
}

int rpl_notation_import_stream(ptrdiff_t (*read)(void *ud, char *buf, size_t n), void *ud, const char *out_path,
                               char *err, size_t errlen)
{
	struct source src = { 0 };
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (!read || !out_path)
		return RPL_EINVAL;
	src.read = read;
	src.ud = ud;
	src.buf = malloc(SOURCE_BUF);
	if (!src.buf)
		return RPL_ENOMEM;
	rc = import_source(&src, out_path, err, errlen);
	free(src.buf);
	return rc;
}

static int import_source(struct source *src, const char *out_path, char *err, size_t errlen)
{
	rpl_notation_parser *p = NULL;
	rpl_notation_item *it = NULL;
	rpl_recorder *rec = NULL;
	rpl_rules *rules = NULL;
	rpl_match_info info;
	struct header h;
	const char *line = NULL;
	size_t n = 0;
	int rc, ended = 0, got;
	struct rpl__tmpfile tmp = RPL__TMPFILE_INIT;

	memset(&h, 0, sizeof h);
	rc = rpl_notation_parser_new(&p);
	if (rc < 0)
		goto cleanup;
	/* the log is put in place whole: never over a device, a directory or a link */
	if (rpl__tmpfile_open(&tmp, out_path, 0644, 0) != 0) {
		rc = tmp.errnum == ENOMEM ? RPL_ENOMEM : RPL_EIO;
		rpl__msgf(p->errmsg, "%s", tmp.why);
		goto cleanup;
	}
	it = malloc(sizeof *it);
	if (!it) {
		rc = RPL_ENOMEM;
		goto cleanup;
	}
	while ((got = next_line(src, &line, &n)) > 0) {
		rc = rpl_notation_parser_line(p, line, n, it);
		if (rc < 0)
			goto cleanup;
		if (it->kind == RPL_NOTATION_BLANK)
			continue;
		if (it->kind == RPL_NOTATION_TAG) {
			rc = header_add(p, &h, it);
			if (rc < 0)
				goto cleanup;
			continue;
		}
		if (!rec) {
			rc = open_output(p, &h, &rules, &info, &rec, &tmp);
			if (rc < 0)
				goto cleanup;
		}
		if (it->kind == RPL_NOTATION_END) {
			ended = 1;
			if (it->recovered)
				rpl_recorder_mark_recovered(rec);
			continue;
		}
		rc = rpl_notation_record(p, rec, it, NULL);
		if (rc < 0)
			goto cleanup;
	}
	if (got < 0) {
		rc = got;
		snprintf(p->errmsg, sizeof p->errmsg, "line %d: cannot read the text: %s", p->line + 1, rpl_strerror(rc));
		goto cleanup;
	}
	rc = rpl_notation_parser_finish(p);
	if (rc < 0)
		goto cleanup;
	if (!rec) {
		/* a header and nothing else: a match not yet begun */
		p->line++;
		rc = open_output(p, &h, &rules, &info, &rec, &tmp);
		if (rc < 0)
			goto cleanup;
	}
	rc = ended ? rpl_recorder_close(rec) : rpl_recorder_flush(rec);
	if (rc < 0) {
		rpl__msgf(p->errmsg, "%s", io_why(rec, rc));
	} else {
		rpl_recorder_free(rec);
		rec = NULL;
		if (rpl__tmpfile_commit(&tmp, RPL__TMP_REPLACE) != 0) {
			rc = RPL_EIO;
			rpl__msgf(p->errmsg, "%s", tmp.why);
		}
	}
cleanup:
	if (rc < 0 && err && errlen)
		snprintf(err, errlen, "%s", p && p->errmsg[0] ? p->errmsg : rpl_strerror(rc));
	rpl_recorder_free(rec);
	rpl__tmpfile_discard(&tmp); /* nothing half-written is left behind */
	rpl_rules_free(rules);
	header_free(&h);
	free(it);
	rpl_notation_parser_free(p);
	return rc;
}
