/*
 * Salvage: every complete turn of a damaged or unfinished log, rewritten as
 * a valid log. Reading stops at the first section that is cut short or
 * fails its checksum; since the recorder flushes whole turns, what precedes
 * is whole turns, but a turn may still be cut if the platform flushed in
 * the middle of one: the decisions after the last end of a turn are dropped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "libreplay/log.h"
#include "grow.h"
#include "msg.h"
#include "recorder_impl.h"
#include "tmpfile.h"

/* The events kept, compactly: the layout of a deal is kept by index. */
struct kept {
	rpl_event *ev;
	size_t n, cap;
};

static int keep(struct kept *k, const rpl_event *ev)
{
	rpl_event *p = rpl__grow(k->ev, &k->cap, k->n + 1, sizeof(*p), 256);

	if (!p)
		return RPL_ENOMEM;
	k->ev = p;
	k->ev[k->n++] = *ev;
	return 0;
}

/*
 * Where the kept events end: after the last decision that ends a turn (a
 * discard, with the morto it brings), unless the engine says the last deal
 * is over (going out by melding ends a turn too).
 */
static size_t cut_point(const rpl_match_info *info, const struct kept *k)
{
	rpl_game *g = NULL;
	size_t last_end = 0, i;
	int legal = 1;

	if (rpl_game_new(&g, info->rules, info->nplayers, info->first_dealer) != 0)
		legal = 0;
	for (i = 0; i < k->n; i++) {
		const rpl_event *ev = &k->ev[i];
		if (ev->kind == RPL_EV_DEAL) {
			if (legal && rpl_game_deal(g, &ev->layout) != 0)
				legal = 0;
			last_end = i + 1;
		} else if (ev->kind == RPL_EV_ACTION) {
			int kind = ev->action.kind;
			int after_discard = i > 0 && k->ev[i - 1].kind == RPL_EV_ACTION &&
			                    k->ev[i - 1].action.kind == RPL_ACT_DISCARD;
			if (legal && rpl_game_apply(g, &ev->action) != 0)
				legal = 0;
			/* a turn ends with a discard (and the morto it brings), or with the deal */
			if ((kind == RPL_ACT_DISCARD && !(legal && rpl_game_phase(g) == RPL_PHASE_MORTO)) ||
			    (kind == RPL_ACT_MORTO && after_discard) || (legal && rpl_game_phase(g) >= RPL_PHASE_DEAL_OVER))
				last_end = i + 1;
		} else if (ev->kind != RPL_EV_REVEAL) { /* a reveal is kept wherever it is: it cuts no turn */
			last_end = i + 1;
		}
	}
	rpl_game_free(g);
	return last_end;
}

/* A failure writing out: the recorder's reason (the caller knows the path). */
static void io_message(rpl_recover_report *rep, const rpl_recorder *rec, int err)
{
	const char *m = rec ? rpl_recorder_errmsg(rec) : "";

	rep->output = 1;
	rpl__msgf(rep->message, "%s", m && *m ? m : rpl_strerror(err));
}

/*
 * The salvaged log is written to a new temporary file beside out (tmpfile.h)
 * and put in its place once closed: a failure or a kill never leaves at out
 * a log that looks whole.
 */
/* Salvage the log at in, or (in NULL) the log given reads. */
static int recover(const char *in, rpl_reader *given, const char *out, rpl_recover_report *rep)
{
	rpl_reader *rd = NULL;
	rpl_recorder *rec = NULL;
	struct kept k = { 0 };
	const rpl_match_info *info;
	rpl_event ev;
	size_t cut;
	int err = RPL_OK, got;
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
		rpl__msgf(rep->message, "nothing to salvage: %s", rd ? rpl_reader_errmsg(rd) : rpl_strerror(err));
		if (err != RPL_EIO && err != RPL_ENOMEM && err != RPL_EINVAL)
			err = RPL_ECORRUPT;
		goto cleanup;
	}
	info = rpl_reader_info(rd);
	rep->total_bytes = rpl_reader_bytes(rd);
	while ((got = rpl_reader_next(rd, &ev)) == 1) {
		if (ev.kind == RPL_EV_END)
			continue; /* the salvaged log gets an end section of its own */
		err = keep(&k, &ev);
		if (err)
			goto cleanup;
	}
	if (got == RPL_ENOMEM) {
		err = got;
		goto cleanup;
	}
	if (got < 0) {
		rep->damaged = 1;
		rep->read_bytes = rpl_reader_offset(rd);
		snprintf(why, sizeof(why), "%s", rpl_reader_errmsg(rd));
	} else {
		rep->read_bytes = rep->total_bytes;
		if (rpl_reader_closed(rd)) {
			/* whole and closed: there is nothing to salvage, and out is left as it is */
			rep->closed = 1;
			snprintf(rep->message, sizeof(rep->message),
			         "the log is whole and closed (it has its end section): nothing to salvage, %s not written", out);
			goto cleanup;
		}
	}
	cut = cut_point(info, &k);
	for (size_t i = cut; i < k.n; i++)
		if (k.ev[i].kind == RPL_EV_ACTION)
			rep->dropped_actions++;

	if (rpl__tmpfile_open(&tmp, out, 0644, 0) != 0) {
		err = tmp.errnum == ENOMEM ? RPL_ENOMEM : RPL_EIO;
		rep->output = 1;
		rpl__msgf(rep->message, "%s", tmp.why);
		goto cleanup;
	}
	err = rpl__recorder_open_fd(&rec, tmp.fd, info, RPL_RECORD_UNCHECKED, NULL);
	if (err) {
		io_message(rep, rec, err);
		goto cleanup;
	}
	for (size_t i = 0; i < cut; i++) {
		const rpl_event *e = &k.ev[i];
		if (e->kind == RPL_EV_DEAL) {
			err = rpl_recorder_deal(rec, &e->layout);
			rep->deals++;
		} else if (e->kind == RPL_EV_ACTION) {
			err = rpl_recorder_action(rec, &e->action);
			rep->actions++;
		} else if (e->kind == RPL_EV_CLAIM) {
			err = rpl_recorder_claim(rec, e->deal, e->score);
			rep->claims++;
		}
		if (err) {
			io_message(rep, rec, err);
			goto cleanup;
		}
	}
	/*
	 * A committed log's revealed seed, wherever it came: the salvaged log is
	 * revealed too, unless the seed is not the one committed to (or a layout
	 * not derived): then it stays unrevealed, and the original shows why.
	 */
	for (size_t i = 0; i < k.n; i++)
		if (k.ev[i].kind == RPL_EV_REVEAL) {
			(void)rpl_recorder_seed(rec, k.ev[i].seed);
			break;
		}
	rpl_recorder_mark_recovered(rec);
	err = rpl_recorder_close(rec);
	if (err) {
		io_message(rep, rec, err);
		goto cleanup;
	}
	if (rpl__tmpfile_commit(&tmp, RPL__TMP_REPLACE) != 0) {
		err = RPL_EIO;
		rep->output = 1;
		rpl__msgf(rep->message, "%s", tmp.why);
		goto cleanup;
	}
	if (rep->damaged)
		rpl__msgf(rep->message,
		          "kept %d deals, %d decisions; cut at byte %llu of %llu (%s)%s%d decisions of an unfinished turn "
		          "dropped",
		          rep->deals, rep->actions, (unsigned long long)rep->read_bytes, (unsigned long long)rep->total_bytes,
		          why, "; ", rep->dropped_actions);
	else
		rpl__msgf(rep->message,
		          "kept %d deals, %d decisions; the log was whole; %d decisions of an unfinished turn dropped",
		          rep->deals, rep->actions, rep->dropped_actions);
cleanup:
	rpl_recorder_free(rec);
	rpl__tmpfile_discard(&tmp); /* nothing half-written is left behind */
	if (in)
		rpl_reader_free(rd);
	free(k.ev);
	return err;
}

int rpl_recover(const char *in, const char *out, rpl_recover_report *rep)
{
	if (!in || !out || !rep)
		return RPL_EINVAL;
	return recover(in, NULL, out, rep);
}

int rpl_recover_reader(rpl_reader *rd, const char *out, rpl_recover_report *rep)
{
	if (!rd || !out || !rep)
		return RPL_EINVAL;
	return recover(NULL, rd, out, rep);
}
