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
	if (sr->status == RPL_SIG_INVALID) {
		rpl_key_id_format(sr->key.id, id);
		rpl_pubkey_fingerprint(&sr->key, fp);
		out->kind = RPL_VERDICT_TAMPERED;
		out->offset = sr->offset;
		rpl__msgf(out->message,
		          "the signature at byte %llu (key %s, fingerprint %s) does not verify: bytes 0 to %llu were changed "
		          "after signing",
		          (unsigned long long)sr->offset, id, fp, (unsigned long long)sr->covered);
		return 0;
	}
	/* without keys, a log that says it is signed must be: a cut of its signatures is not ok */
	if (out->keys == 0 &&
	    (!(out->header_flags & RPL_LOG_SIGNED) || (sr->status != RPL_SIG_UNSIGNED && sr->status != RPL_SIG_PARTIAL)))
		return 0;
	if (out->keys > 0 && sr->trusted)
		return 0;
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
static int judge_refusal(const rpl_game *g, const struct rpl__turn_watch *tw, const rpl_event *ev, rpl_verdict *out)
{
	const char *msg = rpl_game_errmsg(g), *why = strstr(msg, ": ");
	char text[128];
	size_t at;
	int dead = tw ? rpl__turn_watch_dead_end(tw, g, &at) : 0;

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
	out->action = tw->dec[at];
	out->rule = RPL_RULE_TURN_DEAD_END;
	out->replay_offset = tw->offset[at];
	out->actions -= (int)(tw->n - at);
	rpl_action_format(&ev->action, text, sizeof(text));
	/* the engine's message is "PROFILE: why": the profile first here too */
	rpl__msgf(out->message, "%.*s: after this decision the turn could not end legally: the later %s was refused (%s)",
	          why ? (int)(why - msg) : 0, msg, text, why ? why + 2 : msg);
	return 0;
}

int rpl_verify_reader_trusted(rpl_reader *rd, const rpl_rules *rules, const rpl_keyring *trusted, rpl_verdict *out,
                              const rpl_verify_observer *obs)
{
	const rpl_match_info *info;
	rpl_game *g = NULL;
	rpl_event ev;
	struct claim *claims = NULL;
	size_t nclaims = 0, capclaims = 0;
	struct dealscore *scores = NULL;
	size_t capscores = 0;
	uint64_t last_offset = 0, last_action = 0; /* the sections of the last event read, of the last decision */
	struct dealcheck dc = { 0 };
	struct rpl__turn_watch *tw = NULL;
	int err = RPL_OK, got, last_turn = 0, judged = 0, read_all = 0;

	if (!rd || !out)
		return RPL_EINVAL;
	memset(out, 0, sizeof(*out));
	out->winner = -1;
	out->bytes = rpl_reader_bytes(rd);
	info = rpl_reader_info(rd);
	if (info) {
		dc.info = info;
		dc.status = info->commitment ? RPL_DEAL_UNREVEALED : RPL_DEAL_NONE;
		out->deal_commitment = dc.status;
		if (info->commitment) {
			memcpy(out->commitment, info->commitment, RPL_DEAL_COMMIT_SIZE);
			out->player_seeds = info->nplayer_seeds;
			out->commit_version = info->commit_version;
			out->players = info->nplayers;
		}
	}
	if (!info) {
		out->kind = RPL_VERDICT_MALFORMED;
		out->offset = rpl_reader_offset(rd);
		rpl__msgf(out->message, "%s", rpl_reader_errmsg(rd));
		return judge_signatures(rd, trusted, out);
	}
	err = rpl_game_new(&g, rules ? rules : info->rules, info->nplayers, info->first_dealer);
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
	for (;;) {
		got = rpl_reader_next(rd, &ev);
		if (got == 0)
			break;
		if (got == 1)
			last_offset = ev.offset;
		if (got < 0) {
			if (got == RPL_ENOMEM) {
				err = got;
				goto cleanup;
			}
			if (judged)
				break; /* damage after the verdict ends the reading on, not the verdict */
			out->kind = RPL_VERDICT_MALFORMED;
			out->offset = rpl_reader_offset(rd);
			rpl__msgf(out->message, "%s", rpl_reader_errmsg(rd));
			goto cleanup;
		}
		if (judged) {
			/* a verdict is reached: read on only for what the log proves of its deals */
			if (ev.kind == RPL_EV_DEAL && (err = dealcheck_deal(&dc, &ev, rpl__reader_derived(rd))) != 0)
				goto cleanup;
			if (ev.kind == RPL_EV_REVEAL)
				dealcheck_reveal(&dc, &ev);
			continue;
		}
		switch (ev.kind) {
		case RPL_EV_REVEAL: dealcheck_reveal(&dc, &ev); break;
		case RPL_EV_DEAL:
			if ((err = dealcheck_deal(&dc, &ev, rpl__reader_derived(rd))) != 0)
				goto cleanup;
			if (rpl_game_deal(g, &ev.layout) != 0) {
				out->kind = RPL_VERDICT_ILLEGAL;
				out->deal = ev.deal;
				out->rule = rpl_game_rule(g);
				out->replay_offset = ev.offset;
				rpl__msgf(out->message, "%s", rpl_game_errmsg(g));
				goto illegal;
			}
			out->deals = ev.deal;
			last_turn = 0;
			if (obs && obs->after && (err = obs->after(obs->ctx, &ev, g)) != 0)
				goto cleanup;
			break;
		case RPL_EV_ACTION: {
			int was_over;
			if (obs && obs->before && (err = obs->before(obs->ctx, &ev, g)) != 0)
				goto cleanup;
			if (!tw && !(tw = malloc(sizeof(*tw)))) {
				err = RPL_ENOMEM;
				goto cleanup;
			}
			if (g->phase == RPL_PHASE_DRAW)
				rpl__turn_watch_before(tw, g, &ev.action);
			if (rpl_game_apply(g, &ev.action) != 0) {
				if ((err = judge_refusal(g, tw, &ev, out)) != 0)
					goto cleanup;
				goto illegal;
			}
			if (tw->watching)
				rpl__turn_watch_after(tw, &ev.action, ev.offset);
			out->actions++;
			last_turn = ev.turn;
			last_action = ev.offset;
			was_over = rpl_game_phase(g) >= RPL_PHASE_DEAL_OVER;
			if (was_over) {
				int d = rpl_game_deal_number(g);
				void *p = rpl__grow(scores, &capscores, (size_t)d, sizeof(*scores), 16);
				if (!p) {
					err = RPL_ENOMEM;
					goto cleanup;
				}
				scores = p;
				rpl_game_deal_score(g, 0, &scores[d - 1].score[0]);
				rpl_game_deal_score(g, 1, &scores[d - 1].score[1]);
				scores[d - 1].end = ev.offset;
			}
			if (obs && obs->after && (err = obs->after(obs->ctx, &ev, g)) != 0)
				goto cleanup;
			break;
		}
		case RPL_EV_CLAIM: {
			struct claim *p = rpl__grow(claims, &capclaims, nclaims + 1, sizeof(*p), 16);
			if (!p) {
				err = RPL_ENOMEM;
				goto cleanup;
			}
			claims = p;
		}
			claims[nclaims].deal = ev.deal;
			claims[nclaims].score[0] = ev.score[0];
			claims[nclaims].score[1] = ev.score[1];
			claims[nclaims].offset = ev.offset;
			nclaims++;
			break;
		case RPL_EV_END: out->recovered = ev.recovered; break;
		default: break;
		}
		continue;
illegal:
		if (dc.status != RPL_DEAL_UNREVEALED)
			goto cleanup;
		judged = 1; /* the verdict stands; the seed may still come */
	}
	/* the reader is at its end (or at damage after a verdict): whether the log is closed, its identity */
	read_all = 1;
	if ((err = finish_reading(rd, out)) != 0)
		goto cleanup;
	if (judged)
		goto cleanup;
	out->replay_offset = last_offset; /* ok and incomplete rest on every section read */
	out->total[0] = rpl_game_total(g, 0);
	out->total[1] = rpl_game_total(g, 1);
	out->winner = rpl_game_winner(g);
	/* claimed scores against the recomputed ones: the first difference is the verdict */
	for (size_t i = 0; i < nclaims; i++) {
		const struct claim *c = &claims[i];
		int ended = rpl_game_deal_number(g) - (rpl_game_phase(g) < RPL_PHASE_DEAL_OVER ? 1 : 0);
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
				goto cleanup;
			} else {
				computed = scores[c->deal - 1].score[s].total;
			}
			if (computed != c->score[s]) {
				out->kind = RPL_VERDICT_MISMATCH;
				out->claim_deal = c->deal;
				out->side = s;
				out->claimed = c->score[s];
				out->computed = computed;
				/* the claim and the decisions it is checked against (a match total: every one, to the last) */
				out->replay_offset = c->offset;
				if (c->deal > 0 && scores[c->deal - 1].end > out->replay_offset)
					out->replay_offset = scores[c->deal - 1].end;
				if (c->deal == 0 && last_action > out->replay_offset)
					out->replay_offset = last_action;
				if (c->deal > 0) {
					out->breakdown = scores[c->deal - 1].score[s];
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
				goto cleanup;
			}
		}
	}
	if (rpl_game_phase(g) != RPL_PHASE_MATCH_OVER) {
		out->kind = RPL_VERDICT_INCOMPLETE;
		out->deal = rpl_game_deal_number(g);
		out->turn = last_turn;
		if (rpl_game_phase(g) == RPL_PHASE_NO_DEAL)
			rpl__msgf(out->message, "the log stops before the first deal");
		else if (rpl_game_phase(g) == RPL_PHASE_DEAL_OVER)
			rpl__msgf(out->message, "the log stops after deal %d; the match is not over (%d to %d)", out->deal,
			          (int)out->total[0], (int)out->total[1]);
		else
			rpl__msgf(out->message, "the log stops in deal %d after turn %d", out->deal, last_turn);
		goto cleanup;
	}
	out->kind = RPL_VERDICT_OK;
	rpl__msgf(out->message, "%d deal%s, %d decision%s; side %d won %d to %d%s", out->deals, out->deals == 1 ? "" : "s",
	          out->actions, out->actions == 1 ? "" : "s", out->winner, (int)out->total[out->winner],
	          (int)out->total[!out->winner],
	          out->closed ? "" : "; no end section: claims recorded after its last section may be missing");
cleanup:
	if (err == RPL_OK && !read_all && out->kind != RPL_VERDICT_MALFORMED)
		err = finish_reading(rd, out);
	out->deal_commitment = dc.status;
	if (err == RPL_OK && dc.status == RPL_DEAL_MISMATCH && out->kind != RPL_VERDICT_MALFORMED) {
		/* the deals are not those committed: never ok, whatever else holds */
		out->kind = RPL_VERDICT_MISMATCH;
		out->deal_mismatch = dc.first_bad;
		out->claim_deal = 0;
		out->side = 0;
		out->claimed = out->computed = 0;
		memset(&out->breakdown, 0, sizeof(out->breakdown));
		out->replay_offset = last_offset; /* the seed may come last: the whole log */
		if (dc.first_bad == 0)
			rpl__msgf(out->message, "the revealed seed is not the one the header commits to: the deals are not proven");
		else
			rpl__msgf(out->message, "deal %d: the layout is not the one the committed seed derives", dc.first_bad);
	}
	if (g && out->kind != RPL_VERDICT_OK) {
		/* what was replayed before the verdict: the totals of the deals that ended */
		out->total[0] = rpl_game_total(g, 0);
		out->total[1] = rpl_game_total(g, 1);
		out->winner = rpl_game_winner(g);
	}
	rpl_game_free(g);
	free(tw);
	free(claims);
	free(scores);
	free(dc.layouts);
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
