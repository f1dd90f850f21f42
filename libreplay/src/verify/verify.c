/* Verification: a log replayed through the rules engine, judged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log/format.h"
#include "rules/game_impl.h"
#include "base/grow.h"
#include "base/msg.h"
#include "verify/verdict.h"
#include "verify/dead_end.h"

/*
 * The committed deal (format.md 16.4): the layouts read before the seed is
 * revealed are kept, and checked against the seed when it comes; a layout
 * after it is derived by the reader.
 */
struct dealcheck {
	const rpl_match_info *info;
	rpl_layout *layouts;
	size_t n, cap;
	int status, first_bad;
	uint8_t seed[RPL_DEAL_SEED_SIZE];
};

/*
 * A deal was read: 0, or RPL_ENOMEM. derived: the reader derived its layout
 * from the revealed seed itself, so there is nothing to compare.
 */
static int dealcheck_deal(struct dealcheck *dc, const rpl_event *ev, int derived)
{
	if (dc->status == RPL_DEAL_UNREVEALED) {
		rpl_layout *p = rpl__grow(dc->layouts, &dc->cap, dc->n + 1, sizeof(*p), 16);
		if (!p)
			return RPL_ENOMEM;
		dc->layouts = p;
		dc->layouts[dc->n++] = ev->layout;
	} else if (dc->status == RPL_DEAL_REVEALED && !derived) {
		rpl_layout want;
		if (rpl_deal_derive_match(&want, dc->seed, dc->info, ev->deal) < 0 ||
		    !rpl_layout_same(&want, &ev->layout, dc->info->nplayers)) {
			dc->status = RPL_DEAL_MISMATCH;
			dc->first_bad = ev->deal;
		}
	}
	return 0;
}

static void dealcheck_reveal(struct dealcheck *dc, const rpl_event *ev)
{
	uint8_t commit[RPL_DEAL_COMMIT_SIZE];

	if (dc->status != RPL_DEAL_UNREVEALED)
		return;
	if (rpl_deal_commit_match(commit, ev->seed, dc->info) < 0 ||
	    memcmp(commit, dc->info->commitment, sizeof(commit)) != 0) {
		dc->status = RPL_DEAL_MISMATCH;
		dc->first_bad = 0;
		return;
	}
	memcpy(dc->seed, ev->seed, sizeof(dc->seed));
	dc->status = RPL_DEAL_REVEALED;
	for (size_t i = 0; i < dc->n; i++) {
		rpl_layout derived;
		if (rpl_deal_derive_match(&derived, dc->seed, dc->info, (int)i + 1) < 0 ||
		    !rpl_layout_same(&derived, &dc->layouts[i], dc->info->nplayers)) {
			dc->status = RPL_DEAL_MISMATCH;
			dc->first_bad = (int)i + 1;
			return;
		}
	}
}

struct claim {
	int deal;
	int32_t score[2];
	uint64_t offset; /* its section's */
};

/* A deal that ended: its scores, and the section of the decision that ended it. */
struct dealscore {
	rpl_score score[2];
	uint64_t end;
};

/*
 * Whether the log is closed, and its identity: both need the log read to its
 * end, also past an illegal decision (which stops the replay, not the reading).
 */
static int finish_reading(rpl_reader *rd, rpl_verdict *out)
{
	rpl_event ev;
	int got;

	while ((got = rpl_reader_next(rd, &ev)) == 1)
		;
	if (got == RPL_ENOMEM)
		return got;
	out->closed = rpl_reader_closed(rd);
	if (got == 0)
		rpl_reader_match_id(rd, out->match_id);
	return RPL_OK;
}

int rpl_verify_reader(rpl_reader *rd, const rpl_rules *rules, rpl_verdict *out)
{
	return rpl_verify_reader_trusted(rd, rules, NULL, out, NULL);
}

int rpl_verify_reader_observe(rpl_reader *rd, const rpl_rules *rules, rpl_verdict *out, const rpl_verify_observer *obs)
{
	return rpl_verify_reader_trusted(rd, rules, NULL, out, obs);
}

/*
 * The signatures' part of a verdict, once the replay has judged: a broken
 * signature makes the log tampered whatever else it is; with trusted keys,
 * a log whose end no trusted signature covers is untrusted whatever the
 * replay found, which stays as a detail (replay, replay_trusted); with or
 * without keys, so is a log whose header declares it signed and whose end
 * no valid signature covers.
 */
static int judge_signatures(rpl_reader *rd, const rpl_keyring *trusted, rpl_verdict *out)
{
	rpl_signature_report *sr = &out->signature;
	char id[RPL_KEY_ID_TEXT], fp[RPL_KEY_FINGERPRINT_TEXT];
	size_t n;
	const uint8_t *data = rpl__reader_data(rd, &n);
	int err = rpl_signatures_check(data, n, trusted, sr);

	if (err)
		return err;
	out->keys = (int)rpl_keyring_count(trusted);
	out->header_flags = rpl_reader_flags(rd);
	out->replay = out->kind;
	memcpy(out->replay_message, out->message, sizeof(out->message));
	if (out->kind == RPL_VERDICT_MALFORMED)
		out->replay_offset = out->offset;
	/* a section that starts before the end of a signature ends before it too */
	out->replay_trusted = sr->trusted_covered > 0 && out->replay_offset < sr->trusted_covered;
	switch (rpl__signatures_judge(sr, rpl_keyring_count(trusted), out->header_flags)) {
	case RPL_VERDICT_TAMPERED:
		rpl_key_id_format(sr->key.id, id);
		rpl_pubkey_fingerprint(&sr->key, fp);
		out->kind = RPL_VERDICT_TAMPERED;
		out->offset = sr->offset;
		rpl__msgf(out->message,
		          "the signature at byte %llu (key %s, fingerprint %s) does not verify: bytes 0 to %llu were changed "
		          "after signing",
		          (unsigned long long)sr->offset, id, fp, (unsigned long long)sr->covered);
		return 0;
	case RPL_VERDICT_OK: return 0;
	default: break;
	}
	out->kind = RPL_VERDICT_UNTRUSTED;
	rpl__verdict_untrusted_text(out, 0, out->message, sizeof(out->message));
	return 0;
}

/*
 * The decision ev was refused in g: the verdict names it, or, when the turn
 * was already at a dead end (docs/rules.md 11.10), the decision of the turn
 * that made it so (turn.dead_end), with the refusal that followed in its
 * message. 0 or RPL_ENOMEM.
 */
static int judge_refusal(rpl_reader *rd, const rpl_game *g, const rpl_event *ev, rpl_verdict *out)
{
	const char *msg = rpl_game_errmsg(g), *why = strstr(msg, ": ");
	char text[128];
	struct rpl__dead_end de;
	int dead = rpl__dead_end_find(rd, g, ev, &de);

	if (dead < 0)
		return dead;
	out->kind = RPL_VERDICT_ILLEGAL;
	out->deal = ev->deal;
	out->turn = ev->turn;
	out->seat = ev->seat;
	if (!dead) {
		out->action = ev->action;
		out->rule = rpl_game_rule(g);
		out->replay_offset = ev->offset;
		rpl__msgf(out->message, "%s", msg);
		return 0;
	}
	out->action = de.action;
	out->rule = RPL_RULE_TURN_DEAD_END;
	out->replay_offset = de.offset;
	out->actions -= 1 + de.later;
	rpl_action_format(&ev->action, text, sizeof(text));
	/* the engine's message is "PROFILE: why": the profile first here too */
	rpl__msgf(out->message, "%.*s: after this decision the turn could not end legally: the later %s was refused (%s)",
	          why ? (int)(why - msg) : 0, msg, text, why ? why + 2 : msg);
	return 0;
}

/* A replay under way: the game, what it keeps of the log (claims, the scores of the deals that ended), where. */
struct replay {
	rpl_reader *rd;
	rpl_game *g;
	const rpl_verify_observer *obs;
	rpl_verdict *out;
	struct claim *claims;
	size_t nclaims, capclaims;
	struct dealscore *scores;
	size_t capscores;
	uint64_t last_offset, last_action; /* the sections of the last event read, of the last decision */
	int last_turn;
	int refused; /* the last event was refused: the verdict is set */
	struct dealcheck dc;
};

/* What the header says of the match before any replay: its size, its committed deal. */
static void verdict_start(struct replay *rp, const rpl_match_info *info)
{
	rpl_verdict *out = rp->out;

	out->winner = -1;
	out->bytes = rpl_reader_bytes(rp->rd);
	if (!info)
		return;
	rp->dc.info = info;
	rp->dc.status = info->commitment ? RPL_DEAL_UNREVEALED : RPL_DEAL_NONE;
	out->deal_commitment = rp->dc.status;
	if (info->commitment) {
		memcpy(out->commitment, info->commitment, RPL_DEAL_COMMIT_SIZE);
		out->player_seeds = info->nplayer_seeds;
		out->commit_version = info->commit_version;
		out->players = info->nplayers;
	}
}

/* A deal starts: 0 (rp->refused when the layout is refused: the verdict set), or an error or the observer's value. */
static int replay_deal(struct replay *rp, const rpl_event *ev)
{
	rpl_verdict *out = rp->out;
	int err = dealcheck_deal(&rp->dc, ev, rpl__reader_derived(rp->rd));

	if (err)
		return err;
	if (rpl_game_deal(rp->g, &ev->layout) != 0) {
		out->kind = RPL_VERDICT_ILLEGAL;
		out->deal = ev->deal;
		out->rule = rpl_game_rule(rp->g);
		out->replay_offset = ev->offset;
		rpl__msgf(out->message, "%s", rpl_game_errmsg(rp->g));
		rp->refused = 1;
		return 0;
	}
	out->deals = ev->deal;
	rp->last_turn = 0;
	if (rp->obs && rp->obs->after)
		return rp->obs->after(rp->obs->ctx, ev, rp->g);
	return 0;
}

/* A decision: 0 (rp->refused when refused: the verdict set), or an error or the observer's value. */
static int replay_action(struct replay *rp, const rpl_event *ev)
{
	rpl_game *g = rp->g;
	int err;

	if (rp->obs && rp->obs->before && (err = rp->obs->before(rp->obs->ctx, ev, g)) != 0)
		return err;
	if (rpl_game_apply(g, &ev->action) != 0) {
		rp->refused = 1;
		return judge_refusal(rp->rd, g, ev, rp->out);
	}
	rp->out->actions++;
	rp->last_turn = ev->turn;
	rp->last_action = ev->offset;
	if (rpl_game_phase(g) >= RPL_PHASE_DEAL_OVER) {
		int d = rpl_game_deal_number(g);
		struct dealscore *p = rpl__grow(rp->scores, &rp->capscores, (size_t)d, sizeof(*p), 16);
		if (!p)
			return RPL_ENOMEM;
		rp->scores = p;
		rpl_game_deal_score(g, 0, &p[d - 1].score[0]);
		rpl_game_deal_score(g, 1, &p[d - 1].score[1]);
		p[d - 1].end = ev->offset;
	}
	if (rp->obs && rp->obs->after)
		return rp->obs->after(rp->obs->ctx, ev, g);
	return 0;
}

/* A claim, kept to be checked once the whole log is replayed: 0 or RPL_ENOMEM. */
static int keep_claim(struct replay *rp, const rpl_event *ev)
{
	struct claim *p = rpl__grow(rp->claims, &rp->capclaims, rp->nclaims + 1, sizeof(*p), 16);

	if (!p)
		return RPL_ENOMEM;
	rp->claims = p;
	p[rp->nclaims].deal = ev->deal;
	p[rp->nclaims].score[0] = ev->score[0];
	p[rp->nclaims].score[1] = ev->score[1];
	p[rp->nclaims].offset = ev->offset;
	rp->nclaims++;
	return 0;
}

/*
 * Read the log to its end, replaying it until a verdict is reached (and on,
 * for a committed match whose seed may still come). 0, or an error. *judged:
 * a verdict was reached by the replay (illegal) or the reading (malformed).
 */
static int replay_log(struct replay *rp, int *judged)
{
	rpl_verdict *out = rp->out;
	rpl_event ev;
	int got, err = 0, zeroed = 0;

	for (;;) {
		/*
		 * An observer is shown the whole event, as rpl_reader_next fills it:
		 * every field a decision does not set is zero. The lean read of a
		 * decision sets only a decision's own fields, so they are zeroed once
		 * after any other event (which the lean read fills whole, as
		 * rpl_reader_next does), not at every decision.
		 */
		if (rp->obs && !zeroed) {
			memset(&ev, 0, sizeof(ev));
			zeroed = 1;
		}
		got = rpl__reader_next_lean(rp->rd, &ev);
		if (got == 0)
			return 0;
		if (got == 1) {
			rp->last_offset = ev.offset;
			zeroed = ev.kind == RPL_EV_ACTION;
		}
		if (got < 0) {
			if (got == RPL_ENOMEM)
				return got;
			if (*judged)
				return 0; /* damage after the verdict ends the reading on, not the verdict */
			out->kind = RPL_VERDICT_MALFORMED;
			out->offset = rpl_reader_offset(rp->rd);
			rpl__msgf(out->message, "%s", rpl_reader_errmsg(rp->rd));
			*judged = 2;
			return 0;
		}
		if (*judged) {
			/* a verdict is reached: read on only for what the log proves of its deals */
			if (ev.kind == RPL_EV_DEAL && (err = dealcheck_deal(&rp->dc, &ev, rpl__reader_derived(rp->rd))) != 0)
				return err;
			if (ev.kind == RPL_EV_REVEAL)
				dealcheck_reveal(&rp->dc, &ev);
			continue;
		}
		switch (ev.kind) {
		case RPL_EV_REVEAL: dealcheck_reveal(&rp->dc, &ev); break;
		case RPL_EV_DEAL: err = replay_deal(rp, &ev); break;
		case RPL_EV_ACTION: err = replay_action(rp, &ev); break;
		case RPL_EV_CLAIM: err = keep_claim(rp, &ev); break;
		case RPL_EV_END: out->recovered = ev.recovered; break;
		default: break;
		}
		if (err)
			return err;
		if (rp->refused) {
			*judged = 1;
			if (rp->dc.status != RPL_DEAL_UNREVEALED)
				return 0;
			/* the verdict stands; the seed may still come */
		}
	}
}

/* The claimed scores against the recomputed ones: 1 with the first difference as the verdict, else 0. */
static int judge_claims(struct replay *rp)
{
	rpl_verdict *out = rp->out;
	const rpl_game *g = rp->g;
	int ended = rpl_game_deal_number(g) - (rpl_game_phase(g) < RPL_PHASE_DEAL_OVER ? 1 : 0);

	for (size_t i = 0; i < rp->nclaims; i++) {
		const struct claim *c = &rp->claims[i];
		for (int s = 0; s < 2; s++) {
			int32_t computed;
			if (c->deal == 0) {
				if (rpl_game_phase(g) != RPL_PHASE_MATCH_OVER)
					break;
				computed = out->total[s];
			} else if (c->deal > ended) {
				out->kind = RPL_VERDICT_MISMATCH;
				out->claim_deal = c->deal;
				out->side = s;
				out->claimed = c->score[s];
				out->replay_offset = c->offset; /* not ended in the whole log, so not in any prefix of it */
				rpl__msgf(out->message, "a score is claimed for deal %d, which never ended", c->deal);
				return 1;
			} else {
				computed = rp->scores[c->deal - 1].score[s].total;
			}
			if (computed == c->score[s])
				continue;
			out->kind = RPL_VERDICT_MISMATCH;
			out->claim_deal = c->deal;
			out->side = s;
			out->claimed = c->score[s];
			out->computed = computed;
			/* the claim and the decisions it is checked against (a match total: every one, to the last) */
			out->replay_offset = c->offset;
			if (c->deal > 0 && rp->scores[c->deal - 1].end > out->replay_offset)
				out->replay_offset = rp->scores[c->deal - 1].end;
			if (c->deal == 0 && rp->last_action > out->replay_offset)
				out->replay_offset = rp->last_action;
			if (c->deal > 0) {
				out->breakdown = rp->scores[c->deal - 1].score[s];
				rpl__msgf(out->message,
				          "deal %d, side %d: claimed %d, recomputed %d (melded %d, bonus %d, going out %d, "
				          "hand %d, morto %d)",
				          c->deal, s, (int)c->score[s], (int)computed, (int)out->breakdown.melded,
				          (int)out->breakdown.bonus, (int)out->breakdown.going_out, (int)out->breakdown.hand,
				          (int)out->breakdown.morto);
			} else {
				rpl__msgf(out->message, "match total, side %d: claimed %d, recomputed %d", s, (int)c->score[s],
				          (int)computed);
			}
			return 1;
		}
	}
	return 0;
}

/* A log replayed to its end with every claim right: incomplete where it stops short of the match's end, else ok. */
static void judge_end(struct replay *rp)
{
	rpl_verdict *out = rp->out;
	const rpl_game *g = rp->g;

	if (rpl_game_phase(g) != RPL_PHASE_MATCH_OVER) {
		out->kind = RPL_VERDICT_INCOMPLETE;
		out->deal = rpl_game_deal_number(g);
		out->turn = rp->last_turn;
		if (rpl_game_phase(g) == RPL_PHASE_NO_DEAL)
			rpl__msgf(out->message, "the log stops before the first deal");
		else if (rpl_game_phase(g) == RPL_PHASE_DEAL_OVER)
			rpl__msgf(out->message, "the log stops after deal %d; the match is not over (%d to %d)", out->deal,
			          (int)out->total[0], (int)out->total[1]);
		else
			rpl__msgf(out->message, "the log stops in deal %d after turn %d", out->deal, rp->last_turn);
		return;
	}
	out->kind = RPL_VERDICT_OK;
	rpl__msgf(out->message, "%d deal%s, %d decision%s; side %d won %d to %d%s", out->deals, out->deals == 1 ? "" : "s",
	          out->actions, out->actions == 1 ? "" : "s", out->winner, (int)out->total[out->winner],
	          (int)out->total[!out->winner],
	          out->closed ? "" : "; no end section: claims recorded after its last section may be missing");
}

/* The deals are not those committed: never ok, whatever else holds (but malformed). */
static void judge_dealing(struct replay *rp)
{
	rpl_verdict *out = rp->out;

	out->kind = RPL_VERDICT_MISMATCH;
	out->deal_mismatch = rp->dc.first_bad;
	out->claim_deal = 0;
	out->side = 0;
	out->claimed = out->computed = 0;
	memset(&out->breakdown, 0, sizeof(out->breakdown));
	out->replay_offset = rp->last_offset; /* the seed may come last: the whole log */
	if (rp->dc.first_bad == 0)
		rpl__msgf(out->message, "the revealed seed is not the one the header commits to: the deals are not proven");
	else
		rpl__msgf(out->message, "deal %d: the layout is not the one the committed seed derives", rp->dc.first_bad);
}

int rpl_verify_reader_trusted(rpl_reader *rd, const rpl_rules *rules, const rpl_keyring *trusted, rpl_verdict *out,
                              const rpl_verify_observer *obs)
{
	const rpl_match_info *info;
	struct replay rp;
	int err = RPL_OK, judged = 0, read_all = 0;

	if (!rd || !out)
		return RPL_EINVAL;
	memset(out, 0, sizeof(*out));
	memset(&rp, 0, sizeof(rp));
	rp.rd = rd;
	rp.obs = obs;
	rp.out = out;
	info = rpl_reader_info(rd);
	verdict_start(&rp, info);
	if (!info) {
		out->kind = RPL_VERDICT_MALFORMED;
		out->offset = rpl_reader_offset(rd);
		rpl__msgf(out->message, "%s", rpl_reader_errmsg(rd));
		return judge_signatures(rd, trusted, out);
	}
	err = rpl_game_new(&rp.g, rules ? rules : info->rules, info->nplayers, info->first_dealer);
	if (err == RPL_ENOMEM)
		goto cleanup;
	if (err) {
		out->kind = RPL_VERDICT_ILLEGAL;
		out->rule = RPL_RULE_BAD_ACTION;
		rpl__msgf(out->message, "the rules do not allow a match of %d players", info->nplayers);
		out->replay_offset = BRP_MAGIC_LEN; /* the header's */
		err = RPL_OK;
		goto cleanup;
	}
	if ((err = replay_log(&rp, &judged)) != 0 || judged == 2)
		goto cleanup;
	/* the reader is at its end (or at damage after a verdict): whether the log is closed, its identity */
	read_all = 1;
	if ((err = finish_reading(rd, out)) != 0 || judged)
		goto cleanup;
	out->replay_offset = rp.last_offset; /* ok and incomplete rest on every section read */
	out->total[0] = rpl_game_total(rp.g, 0);
	out->total[1] = rpl_game_total(rp.g, 1);
	out->winner = rpl_game_winner(rp.g);
	if (!judge_claims(&rp))
		judge_end(&rp);
cleanup:
	if (err == RPL_OK && !read_all && out->kind != RPL_VERDICT_MALFORMED)
		err = finish_reading(rd, out);
	out->deal_commitment = rp.dc.status;
	if (err == RPL_OK && rp.dc.status == RPL_DEAL_MISMATCH && out->kind != RPL_VERDICT_MALFORMED)
		judge_dealing(&rp);
	if (rp.g && out->kind != RPL_VERDICT_OK) {
		/* what was replayed before the verdict: the totals of the deals that ended */
		out->total[0] = rpl_game_total(rp.g, 0);
		out->total[1] = rpl_game_total(rp.g, 1);
		out->winner = rpl_game_winner(rp.g);
	}
	rpl_game_free(rp.g);
	free(rp.claims);
	free(rp.scores);
	free(rp.dc.layouts);
	if (err == RPL_OK)
		err = judge_signatures(rd, trusted, out);
	return err;
}

int rpl_verify_file(const char *path, const rpl_rules *rules, rpl_verdict *out)
{
	return rpl_verify_file_trusted(path, rules, NULL, out, NULL);
}

int rpl_verify_file_observe(const char *path, const rpl_rules *rules, rpl_verdict *out, const rpl_verify_observer *obs)
{
	return rpl_verify_file_trusted(path, rules, NULL, out, obs);
}

int rpl_verify_file_trusted(const char *path, const rpl_rules *rules, const rpl_keyring *trusted, rpl_verdict *out,
                            const rpl_verify_observer *obs)
{
	rpl_reader *rd = NULL;
	int err;

	if (!path || !out)
		return RPL_EINVAL;
	err = rpl_reader_open(&rd, path);
	memset(out, 0, sizeof(*out));
	out->winner = -1;
	if (err == RPL_EINVAL || err == RPL_ENOMEM || err == RPL_EIO) {
		/* not a verdict on the log: the file could not be read at all */
		rpl__msgf(out->message, "%s", rd ? rpl_reader_errmsg(rd) : rpl_strerror(err));
		rpl_reader_free(rd);
		return err;
	}
	if (err) {
		out->kind = RPL_VERDICT_MALFORMED;
		out->offset = rpl_reader_offset(rd);
		out->bytes = rpl_reader_bytes(rd);
		rpl__msgf(out->message, "%s", rpl_reader_errmsg(rd));
		err = judge_signatures(rd, trusted, out);
		rpl_reader_free(rd);
		return err;
	}
	err = rpl_verify_reader_trusted(rd, rules, trusted, out, obs);
	rpl_reader_free(rd);
	return err;
}
