/*
 * Salvage: what can be kept of a damaged or unfinished log, written out as
 * a valid log. Reading stops at the first section that is cut short, fails
 * its checksum or passes a limit.
 *
 * A signed log (by default) is kept as it is up to its last valid
 * signature: those bytes, verbatim, so that signature still covers all of
 * the output; what follows it is cut, since no signature vouches for it.
 *
 * Otherwise (an unsigned log, or RPL_RECOVER_UNSIGNED) every complete turn
 * is recorded again, closed: since the recorder flushes whole turns, what
 * precedes the damage is whole turns, but a turn may still be cut if the
 * platform flushed in the middle of one: the decisions after the last end
 * of a turn are dropped. The salvage streams: it holds the decisions of the
 * turn being read (a turn has at most a few hundred), and the recorder holds
 * what it holds of any match (32 bytes a decision, RPL_MAX_DECISIONS at
 * most), never the events themselves.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "libreplay/log.h"
#include "log/format.h"
#include "log/recorder_impl.h"
#include "base/grow.h"
#include "base/msg.h"
#include "log/tmpfile.h"

/* ---- the output ---- */

/*
 * The n bytes at p, whole, into a new temporary file beside out (tmpfile.h),
 * put in its place once written and synced: a failure or a kill never leaves
 * at out a log that looks whole. 0, or -1 with t->why (nothing left).
 */
static int write_out(struct rpl__tmpfile *t, const char *out, const uint8_t *p, size_t n)
{
	if (rpl__tmpfile_open(t, out, 0644, 0) != 0)
		return -1;
	if (rpl__tmpfile_write(t, p, n) != 0 || rpl__tmpfile_commit(t, RPL__TMP_REPLACE) != 0) {
		rpl__tmpfile_discard(t);
		return -1;
	}
	return 0;
}

/* A failure writing out: the recorder's reason, or the system's (the caller knows the path). */
static int out_failed(rpl_recover_report *rep, const rpl_recorder *rec, int err)
{
	const char *m = rec ? rpl_recorder_errmsg(rec) : "";

	rep->output = 1;
	rpl__msgf(rep->message, "%s", m && *m ? m : rpl_strerror(err));
	return err;
}

/* Where reading stopped: at damage (its offset and the reader's reason into why), or at the end. */
static void stopped(rpl_reader *rd, int got, rpl_recover_report *rep, char *why, size_t whylen)
{
	if (got < 0) {
		rep->damaged = 1;
		rep->read_bytes = rpl_reader_offset(rd);
		snprintf(why, whylen, "%s", rpl_reader_errmsg(rd));
	} else {
		rep->read_bytes = rep->total_bytes;
		rep->closed = rpl_reader_closed(rd);
	}
}

/* ---- a signed log: its bytes up to the last valid signature ---- */

/*
 * The last valid signature of data[0..n): *covered just past it (0: none),
 * its key; *invalid: the offset of a signature that does not verify, if
 * any, before which the last valid one is then looked for (the bytes before
 * a broken signature may still be vouched for by an earlier one).
 */
static int last_signature(const uint8_t *data, size_t n, uint64_t *covered, rpl_pubkey *key, uint64_t *invalid)
{
	rpl_signature_report sr;
	int err = rpl_signatures_check(data, n, NULL, &sr);

	if (err)
		return err;
	if (sr.status == RPL_SIG_INVALID) {
		*invalid = sr.offset;
		err = rpl_signatures_check(data, (size_t)sr.offset, NULL, &sr);
		if (err)
			return err;
	}
	*covered = sr.count > 0 && sr.status != RPL_SIG_INVALID ? sr.covered : 0;
	if (*covered)
		*key = sr.key;
	return 0;
}

/*
 * Read rd to its end or its damage, counting what the bytes before covered
 * hold (deals, decisions, claims) and the decisions after it.
 */
static int count_signed(rpl_reader *rd, uint64_t covered, rpl_recover_report *rep, char *why, size_t whylen)
{
	rpl_event ev;
	int got;

	rep->deals = rep->actions = rep->claims = rep->uncovered_actions = 0;
	rep->out_closed = 0;
	while ((got = rpl_reader_next(rd, &ev)) == 1) {
		if (ev.offset >= covered) {
			rep->uncovered_actions += ev.kind == RPL_EV_ACTION;
			continue;
		}
		rep->deals += ev.kind == RPL_EV_DEAL;
		rep->actions += ev.kind == RPL_EV_ACTION;
		rep->claims += ev.kind == RPL_EV_CLAIM;
		rep->out_closed |= ev.kind == RPL_EV_END;
	}
	if (got == RPL_ENOMEM)
		return got;
	stopped(rd, got, rep, why, whylen);
	return 0;
}

/*
 * The signed salvage of the log rd reads (data, n: its bytes), up to
 * rep->covered. When reading stops inside the bytes a signature covers (a
 * signer signed bytes that do not decode), the salvage stops at the last
 * signature before the damage, read again from those bytes; with none,
 * rep->covered becomes 0 and the caller salvages the log unsigned.
 */
static int salvage_signed(rpl_reader *rd, const uint8_t *data, rpl_recover_report *rep, char *why, size_t whylen)
{
	rpl_reader *again = NULL;
	uint64_t invalid = 0;
	int err = count_signed(rd, rep->covered, rep, why, whylen);

	if (err || !rep->damaged || rep->read_bytes >= rep->covered)
		return err;
	err = last_signature(data, (size_t)rep->read_bytes, &rep->covered, &rep->key, &invalid);
	if (err || rep->covered == 0)
		return err;
	err = rpl__reader_open_view(&again, data, (size_t)rep->covered);
	if (err == 0) {
		uint64_t read = rep->read_bytes;
		int damaged = rep->damaged;
		char keep[RPL_ERRMSG_SIZE];
		snprintf(keep, sizeof(keep), "%s", why);
		err = count_signed(again, rep->covered, rep, why, whylen);
		/* the prefix reads whole by construction; where the log itself stopped is what the report says */
		rep->read_bytes = read;
		rep->damaged = damaged;
		rep->closed = 0;
		snprintf(why, whylen, "%s", keep);
	}
	rpl_reader_free(again);
	return err;
}

static void signed_message(rpl_recover_report *rep)
{
	char id[RPL_KEY_ID_TEXT], fp[RPL_KEY_FINGERPRINT_TEXT], broken[80] = "", stop[64] = "";
	const char *closed = rep->out_closed ? "closed" : "unclosed";
	uint64_t cut = rep->total_bytes - rep->covered;

	rpl_key_id_format(rep->key.id, id);
	rpl_pubkey_fingerprint(&rep->key, fp);
	if (rep->invalid_offset)
		snprintf(broken, sizeof(broken), "; the signature at byte %llu does not verify",
		         (unsigned long long)rep->invalid_offset);
	if (rep->damaged)
		snprintf(stop, sizeof(stop), "; damaged or cut at byte %llu", (unsigned long long)rep->read_bytes);
	if (cut == 0)
		rpl__msgf(rep->message, "kept bytes 0 to %llu, signed by key %s (%s): the whole log, %s",
		          (unsigned long long)rep->covered, id, fp, closed);
	else
		rpl__msgf(rep->message,
		          "kept bytes 0 to %llu, signed by key %s (%s); cut %llu bytes after the last signature: %d decisions "
		          "that no signature covers%s%s; %s",
		          (unsigned long long)rep->covered, id, fp, (unsigned long long)cut, rep->uncovered_actions, broken,
		          stop, closed);
}

/* ---- an unsigned salvage: every complete turn, recorded again ---- */

struct salvage {
	rpl_recorder *rec;
	rpl_recover_report *rep;
	rpl_game *g;  /* the engine, as long as the decisions are legal: it says where a deal ends */
	int legal;    /* every decision so far was legal */
	int last_was; /* the kind of the last event kept (a reveal included), for an action its action's kind + 16 */
	/* the decisions since the last end of a turn, recorded when the turn ends, else dropped */
	rpl_action *pending;
	size_t npending, cap;
	uint8_t seed[RPL_DEAL_SEED_SIZE];
	int has_seed;
};

/* The turn being read is over: its decisions go to the recorder. */
static int commit(struct salvage *s)
{
	for (size_t i = 0; i < s->npending; i++) {
		int err = rpl_recorder_action(s->rec, &s->pending[i]);
		if (err)
			return err;
		s->rep->actions++;
	}
	s->npending = 0;
	return 0;
}

/*
 * One event. A turn ends with a discard (and the morto it brings), or when
 * the engine says the deal is over (going out by melding ends a turn too);
 * a deal or a claim ends whatever came before it. A reveal is kept wherever
 * it is: it cuts no turn, and the seed goes to the recorder at the end.
 */
static int salvage_event(struct salvage *s, const rpl_event *ev)
{
	int err = 0, end = 1;

	switch (ev->kind) {
	case RPL_EV_DEAL:
		if (s->legal && rpl_game_deal(s->g, &ev->layout) != 0)
			s->legal = 0;
		if ((err = commit(s)) == 0 && (err = rpl_recorder_deal(s->rec, &ev->layout)) == 0)
			s->rep->deals++;
		break;
	case RPL_EV_ACTION: {
		int kind = ev->action.kind, after_discard = s->last_was == 16 + RPL_ACT_DISCARD;
		rpl_action *p = rpl__grow(s->pending, &s->cap, s->npending + 1, sizeof(*p), 64);
		if (!p)
			return RPL_ENOMEM;
		s->pending = p;
		s->pending[s->npending++] = ev->action;
		if (s->legal && rpl_game_apply(s->g, &ev->action) != 0)
			s->legal = 0;
		end = (kind == RPL_ACT_DISCARD && !(s->legal && rpl_game_phase(s->g) == RPL_PHASE_MORTO)) ||
		      (kind == RPL_ACT_MORTO && after_discard) || (s->legal && rpl_game_phase(s->g) >= RPL_PHASE_DEAL_OVER);
		if (end)
			err = commit(s);
		s->last_was = 16 + kind;
		return err;
	}
	case RPL_EV_CLAIM:
		if ((err = commit(s)) == 0 && (err = rpl_recorder_claim(s->rec, ev->deal, ev->score)) == 0)
			s->rep->claims++;
		break;
	case RPL_EV_REVEAL:
		if (!s->has_seed) {
			memcpy(s->seed, ev->seed, sizeof(s->seed));
			s->has_seed = 1;
		}
		break;
	default: return 0; /* the end: the salvaged log gets an end section of its own */
	}
	s->last_was = ev->kind;
	return err;
}

/*
 * The unsigned salvage of the log rd reads, recorded again in memory;
 * *out (the caller frees it) holds the closed log unless the input was
 * whole and closed (rep->closed: nothing to write). A recorder's failure
 * is an output failure (rep->output).
 */
static int salvage_unsigned(rpl_reader *rd, rpl_recover_report *rep, rpl_recorder **out, char *why, size_t whylen)
{
	const rpl_match_info *info = rpl_reader_info(rd);
	struct salvage s;
	rpl_event ev;
	int err, got;

	memset(&s, 0, sizeof(s));
	s.rep = rep;
	rep->deals = rep->actions = rep->claims = rep->dropped_actions = 0;
	s.legal = rpl_game_new(&s.g, info->rules, info->nplayers, info->first_dealer) == 0;
	/*
	 * The newest version, but a log of an older one whose match version 7
	 * would hold (dealt freely) stays in version 6: version 7 keeps of the
	 * stock only the order play revealed, so its identity would not be the
	 * input's (docs/format.md 21.2).
	 */
	err = rpl__recorder_open_memory(&s.rec, info, RPL_RECORD_UNCHECKED, NULL,
	                                rpl_reader_format_version(rd) < 7 && !info->commitment ? 6 : 0);
	*out = s.rec;
	if (err) {
		err = err == RPL_ENOMEM ? err : out_failed(rep, s.rec, err);
		goto cleanup;
	}
	while ((got = rpl_reader_next(rd, &ev)) == 1) {
		if ((err = salvage_event(&s, &ev)) != 0) {
			if (err != RPL_ENOMEM)
				out_failed(rep, s.rec, err);
			goto cleanup;
		}
	}
	if (got == RPL_ENOMEM) {
		err = got;
		goto cleanup;
	}
	stopped(rd, got, rep, why, whylen);
	if (rep->closed)
		goto cleanup;
	rep->dropped_actions = (int)s.npending;
	/*
	 * A committed log's revealed seed, wherever it came: the salvaged log is
	 * revealed too, unless the seed is not the one committed to (or a layout
	 * not derived): then it stays unrevealed, and the original shows why.
	 */
	if (s.has_seed)
		(void)rpl_recorder_seed(s.rec, s.seed);
	rpl_recorder_mark_recovered(s.rec);
	if ((err = rpl_recorder_close(s.rec)) != 0 && err != RPL_ENOMEM)
		out_failed(rep, s.rec, err);
	rep->out_closed = err == 0;
cleanup:
	rpl_game_free(s.g);
	free(s.pending);
	return err;
}

static void unsigned_message(rpl_recover_report *rep, const char *why)
{
	size_t n;

	if (rep->damaged)
		rpl__msgf(rep->message,
		          "kept %d deals, %d decisions; cut at byte %llu of %llu (%s); %d decisions of an unfinished turn "
		          "dropped",
		          rep->deals, rep->actions, (unsigned long long)rep->read_bytes, (unsigned long long)rep->total_bytes,
		          why, rep->dropped_actions);
	else
		rpl__msgf(rep->message,
		          "kept %d deals, %d decisions; the log was whole; %d decisions of an unfinished turn dropped",
		          rep->deals, rep->actions, rep->dropped_actions);
	/* a signed log whose every signature fails: said, since nothing of it could be kept signed */
	if (rep->invalid_offset && (n = strlen(rep->message)) < sizeof(rep->message))
		snprintf(rep->message + n, sizeof(rep->message) - n, "; the signature at byte %llu does not verify",
		         (unsigned long long)rep->invalid_offset);
}

/* ---- both ---- */

/* Salvage the log at in, or (in NULL) the log given reads. */
static int recover(const char *in, rpl_reader *given, const char *out, unsigned flags, rpl_recover_report *rep)
{
	rpl_reader *rd = NULL, *again = NULL;
	rpl_recorder *rec = NULL;
	const uint8_t *data, *bytes = NULL;
	size_t n, nbytes = 0;
	int err = RPL_OK;
	char why[RPL_ERRMSG_SIZE] = "";
	struct rpl__tmpfile tmp = RPL__TMPFILE_INIT;
	struct stat st;

	memset(rep, 0, sizeof(*rep));
	/* never over a device, a directory or a link (said before any reading) */
	if (lstat(out, &st) == 0 && !S_ISREG(st.st_mode)) {
		rep->output = 1;
		rpl__msgf(rep->message, "%s",
		          S_ISLNK(st.st_mode) ? "a symbolic link, not a regular file" : "not a regular file");
		return RPL_EIO;
	}
	if (in) {
		err = rpl_reader_open(&rd, in);
	} else {
		rd = given;
		err = rpl_reader_info(rd) ? RPL_OK : RPL_ECORRUPT; /* a reader whose open failed */
	}
	if (err) {
		/* a file that cannot be opened or read is said as every reader of a path says it */
		if (err == RPL_EIO || err == RPL_ENOMEM)
			rpl__msgf(rep->message, "%s", rd && *rpl_reader_errmsg(rd) ? rpl_reader_errmsg(rd) : rpl_strerror(err));
		else
			rpl__msgf(rep->message, "nothing to salvage: %s", rd ? rpl_reader_errmsg(rd) : rpl_strerror(err));
		if (err != RPL_EIO && err != RPL_ENOMEM && err != RPL_EINVAL)
			err = RPL_ECORRUPT;
		goto cleanup;
	}
	rep->total_bytes = rpl_reader_bytes(rd);
	data = rpl__reader_data(rd, &n);
	if (!(flags & RPL_RECOVER_UNSIGNED) &&
	    (err = last_signature(data, n, &rep->covered, &rep->key, &rep->invalid_offset)) != 0)
		goto cleanup;
	if (rep->covered) {
		if ((err = salvage_signed(rd, data, rep, why, sizeof(why))) != 0)
			goto cleanup;
		if (rep->covered) {
			rep->kept_signed = 1;
			bytes = data;
			nbytes = (size_t)rep->covered;
		} else {
			/* no signature before the damage: salvaged unsigned, from the bytes again */
			rep->invalid_offset = 0;
			if ((err = rpl__reader_open_view(&again, data, n)) != 0)
				goto cleanup;
		}
	}
	if (!rep->kept_signed) {
		if ((err = salvage_unsigned(again ? again : rd, rep, &rec, why, sizeof(why))) != 0)
			goto cleanup;
		if (!rep->closed)
			(void)rpl_recorder_log(&bytes, &nbytes, rec);
	}
	if (rep->closed) {
		/* whole and closed: there is nothing to salvage, and out is left as it is */
		rep->deals = rep->actions = rep->claims = rep->dropped_actions = 0;
		rep->kept_signed = rep->uncovered_actions = rep->out_closed = 0;
		rep->covered = 0;
		memset(&rep->key, 0, sizeof(rep->key));
		snprintf(rep->message, sizeof(rep->message),
		         "the log is whole and closed (it has its end section): nothing to salvage, %s not written", out);
		goto cleanup;
	}
	if (write_out(&tmp, out, bytes, nbytes) < 0) {
		err = tmp.errnum == ENOMEM ? RPL_ENOMEM : RPL_EIO;
		rep->output = 1;
		rpl__msgf(rep->message, "%s", tmp.why);
		goto cleanup;
	}
	if (rep->kept_signed)
		signed_message(rep);
	else
		unsigned_message(rep, why);
cleanup:
	rpl_recorder_free(rec);
	rpl_reader_free(again);
	rpl__tmpfile_discard(&tmp);
	if (in)
		rpl_reader_free(rd);
	return err;
}

int rpl_recover(const char *in, const char *out, unsigned flags, rpl_recover_report *rep)
{
	if (!in || !out || !rep)
		return RPL_EINVAL;
	return recover(in, NULL, out, flags, rep);
}

int rpl_recover_reader(rpl_reader *rd, const char *out, unsigned flags, rpl_recover_report *rep)
{
	if (!rd || !out || !rep)
		return RPL_EINVAL;
	return recover(NULL, rd, out, flags, rep);
}
