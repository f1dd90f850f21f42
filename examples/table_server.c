/*
 * A game server's table, recorded through libreplay's public API.
 *
 * A server that hosts a Buraco table records the match as it is played:
 * it opens a recorder with the match's header, deals each deal from a
 * layout it shuffled, hands each decision a player sends to the recorder
 * (which checks it against the rules and refuses an illegal one, so the
 * server can answer the player at once), flushes at the end of every turn
 * (a crash then loses nothing acknowledged), records the scores it shows
 * the players as claims, and closes the log when the match is over. Then
 * anyone can verify the log.
 *
 * Here the players are bots and one of them first tries a move it does not
 * own, to show how a refusal is handled.
 *
 *   table_server OUT.brp [SEED]
 *
 * Build against an installed libreplay:
 *   cc -o table_server table_server.c $(pkg-config --cflags --libs libreplay)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libreplay/libreplay.h>

/* One player's connection; a real server would read the move from a socket. */
struct player {
	const char *name;
	rpl_bot *bot;
};

static int next_move(struct player *p, const rpl_game *g, rpl_action *out)
{
	return rpl_bot_choose(p->bot, g, out);
}

/* A discard of a card the seat does not hold: what a buggy or cheating client might send. */
static void card_not_held(const rpl_game *g, rpl_action *out)
{
	rpl_card hand[RPL_DECK_SIZE];
	int n = rpl_game_hand(g, rpl_game_seat(g), hand, RPL_DECK_SIZE);
	rpl_card c;

	memset(out, 0, sizeof *out);
	out->kind = RPL_ACT_DISCARD;
	out->ncards = 1;
	for (c = 0; c < RPL_NFACES; c++) {
		int held = 0;
		for (int i = 0; i < n; i++)
			held |= hand[i] == c;
		if (!held)
			break;
	}
	out->cards[0] = c;
}

static int play_deal(rpl_recorder *rec, struct player *players, rpl_rng *rng, int *refusals)
{
	const rpl_game *g = rpl_recorder_game(rec);
	rpl_layout layout;
	int32_t score[2];
	rpl_score s;
	int rc, decisions = 0;

	rpl_layout_shuffle(&layout, rpl_game_players(g), rng);
	if ((rc = rpl_recorder_deal(rec, &layout)) != 0)
		return rc;
	while (rpl_game_phase(g) != RPL_PHASE_DEAL_OVER && rpl_game_phase(g) != RPL_PHASE_MATCH_OVER) {
		rpl_action a;
		int seat = rpl_game_seat(g);

		if (decisions++ > 100000)
			return RPL_ESTATE; /* a bot that cannot finish: give up, keep the log */
		if (*refusals == 0 && rpl_game_phase(g) == RPL_PHASE_PLAY) {
			card_not_held(g, &a);
			rc = rpl_recorder_action(rec, &a);
			if (rc != RPL_EILLEGAL)
				return rc == 0 ? RPL_ESTATE : rc;
			/* The server answers the client with the rule and the message; nothing was recorded. */
			printf("refused from %s: %s: %s\n", players[seat].name, rpl_rule_name(rpl_recorder_rule(rec)),
			       rpl_recorder_errmsg(rec));
			(*refusals)++;
		}
		if ((rc = next_move(&players[seat], g, &a)) != 0)
			return rc;
		if ((rc = rpl_recorder_action(rec, &a)) != 0)
			return rc;
		/* A turn ends with a discard (or with the deal): make it durable before the next player moves. */
		if (a.kind == RPL_ACT_DISCARD && (rc = rpl_recorder_flush(rec)) != 0)
			return rc;
	}
	/* The scores the table showed the players: recorded as claims, checked by verification. */
	for (int side = 0; side < 2; side++) {
		rpl_game_deal_score(g, side, &s);
		score[side] = s.total;
	}
	if ((rc = rpl_recorder_claim(rec, rpl_game_deal_number(g), score)) != 0)
		return rc;
	return rpl_recorder_flush(rec);
}

int main(int argc, char **argv)
{
	static const char *names[4] = { "Ana", "Bruno", "Carla", "Davi" };
	struct player players[4] = { { 0 } };
	const char *meta_keys[] = { "platform", "table" };
	const char *meta_values[] = { "example-server", "7" };
	rpl_rules *rules = NULL;
	rpl_recorder *rec = NULL;
	rpl_match_info info;
	rpl_verdict verdict;
	rpl_rng rng;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
	int rc, refusals = 0, status = 1;

	if (argc < 2) {
		fprintf(stderr, "usage: table_server OUT.brp [SEED]\n");
		return 2;
	}
	rpl_rng_seed(&rng, seed);
	if ((rc = rpl_rules_new(&rules, "aberto")) != 0 || (rc = rpl_rules_set(rules, "target", "1000")) != 0)
		goto fail;
	for (int i = 0; i < 4; i++) {
		players[i].name = names[i];
		if ((rc = rpl_bot_new(&players[i].bot, RPL_BOT_GREEDY, seed * 4 + (uint64_t)i)) != 0)
			goto fail;
	}

	memset(&info, 0, sizeof info);
	info.rules = rules;
	info.nplayers = 4;
	memcpy(info.players, names, sizeof names);
	info.first_dealer = (int)rpl_rng_below(&rng, 4);
	info.start_time = 1767225600; /* 2026-01-01T00:00:00Z; a server would pass time(NULL) */
	info.nmeta = 2;
	info.meta_keys = meta_keys;
	info.meta_values = meta_values;

	rc = rpl_recorder_open(&rec, argv[1], &info, 0);
	if (rc != 0) {
		fprintf(stderr, "table_server: %s: %s\n", argv[1], rec ? rpl_recorder_errmsg(rec) : rpl_strerror(rc));
		goto cleanup;
	}
	while (rpl_game_phase(rpl_recorder_game(rec)) != RPL_PHASE_MATCH_OVER)
		if ((rc = play_deal(rec, players, &rng, &refusals)) != 0)
			goto fail;
	if ((rc = rpl_recorder_close(rec)) != 0)
		goto fail;

	/* Anyone holding the file can now check it, independently of the server. */
	if ((rc = rpl_verify_file(argv[1], NULL, &verdict)) != 0) {
		fprintf(stderr, "table_server: %s: %s\n", argv[1], verdict.message);
		goto cleanup;
	}
	printf("%s: %s: %d deals, %d decisions; side 0 %d, side 1 %d\n", argv[1], rpl_verdict_name(verdict.kind),
	       verdict.deals, verdict.actions, verdict.total[0], verdict.total[1]);
	status = verdict.kind == RPL_VERDICT_OK ? 0 : 1;
	goto cleanup;
fail:
	fprintf(stderr, "table_server: %s\n",
	        rec && rpl_recorder_errmsg(rec)[0] ? rpl_recorder_errmsg(rec) : rpl_strerror(rc));
cleanup:
	rpl_recorder_free(rec);
	for (int i = 0; i < 4; i++)
		rpl_bot_free(players[i].bot);
	rpl_rules_free(rules);
	return status;
}
