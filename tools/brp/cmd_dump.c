/* brp dump: a match log as text notation (docs/notation.md). */
#include "brp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const name = "dump";

static void usage(FILE *f)
{
	fputs("Usage: brp dump [OPTION]... FILE\n"
	      "       ... | brp dump -\n"
	      "Write the match log FILE (.brp) as text notation: the header as tags, each\n"
	      "deal's layout, one line per turn, the claimed scores and the end of the\n"
	      "recording (see docs/notation.md). 'brp import' reads it back into the\n"
	      "same log, byte for byte. FILE - (or /dev/stdin, or --log -) reads the log\n"
	      "from standard input: a pipe is read whole, up to the reader's limit.\n"
	      "\n"
	      "      --log FILE    the log to write (the same as FILE)\n"
	      "  -o, --output OUT  write the text to OUT instead of stdout\n"
	      "      --json        write the match as one JSON object instead, for jq and\n"
	      "                    the like: the header (rules, players...), each deal's\n"
	      "                    layout, turns and decisions, the claims, the end, the\n"
	      "                    match_id; whole even for a damaged log (\"error\")\n"
	      "  -h, --help        print this help and exit\n"
	      "\n"
	      "Exit status: 0 success, 2 a usage error, 3 a log that cannot be read or an\n"
	      "output that cannot be written.\n",
	      f);
}

static int put(void *ud, const char *s, size_t n)
{
	return fwrite(s, 1, n, (FILE *)ud) == n ? 0 : RPL_EIO;
}

/* ---- --json: the whole match as one object (docs/notation.md, "The match as JSON") ---- */

static void json_cards(FILE *f, const rpl_card *c, int n)
{
	fputc('[', f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s\"%s\"", i ? "," : "", rpl_card_name(c[i]));
	fputc(']', f);
}

static void json_hex(FILE *f, const uint8_t *b, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", b[i]);
	fputc('"', f);
}

static const char *const action_kind[] = { "", "draw", "take", "reject", "meld", "add", "discard", "morto" };

/* One decision: the notation's text and its parts. */
static void json_action(FILE *f, const rpl_action *a)
{
	char text[160];

	rpl_action_format(a, text, sizeof text);
	fputs("{\"action\":", f);
	brp_json_string(f, text);
	fprintf(f, ",\"kind\":\"%s\"", a->kind < sizeof action_kind / sizeof action_kind[0] ? action_kind[a->kind] : "");
	switch (a->kind) {
	case RPL_ACT_ADD:
	case RPL_ACT_MELD:
		if (a->kind == RPL_ACT_ADD)
			fprintf(f, ",\"side\":%d,\"meld\":%d", a->side, a->meld);
		fputs(",\"cards\":", f);
		json_cards(f, a->cards, a->ncards);
		fprintf(f, ",\"end\":\"%s\"", a->end == RPL_END_LOW ? "low" : a->end == RPL_END_HIGH ? "high" : "default");
		break;
	case RPL_ACT_DISCARD:
		fputs(",\"cards\":", f);
		json_cards(f, a->cards, 1);
		break;
	case RPL_ACT_MORTO: fprintf(f, ",\"morto\":%d", a->morto); break;
	default: break;
	}
	fputc('}', f);
}

/* The header: the tags of the notation as keys; "rules" holds every parameter, as brp rules --json. */
static void json_header(FILE *f, rpl_reader *rd, const rpl_match_info *info, const char *start)
{
	size_t n = rpl_rules_param_count();
	int first = 1;

	fprintf(f, "{\"format\":%d,\"profile\":", rpl_reader_format_version(rd));
	brp_json_string(f, rpl_rules_profile(info->rules));
	fputs(",\"rules\":{", f);
	for (size_t i = 0; i < n; i++) {
		const rpl_param_info *pi = rpl_rules_param_info(i);
		char text[64];
		int v = 0;
		if (!pi || rpl_rules_get_id(info->rules, pi->id, &v) < 0 ||
		    rpl_rules_get(info->rules, pi->name, text, sizeof text) < 0)
			continue;
		fputs(first ? "" : ",", f);
		first = 0;
		brp_json_string(f, pi->name);
		fputc(':', f);
		if (pi->kind == RPL_PARAM_BOOL)
			fputs(v ? "true" : "false", f);
		else if (pi->kind == RPL_PARAM_INT)
			fprintf(f, "%d", v);
		else
			brp_json_string(f, text);
	}
	fputs("},\"overrides\":[", f);
	first = 1;
	for (size_t i = 0; i < n; i++) {
		const rpl_param_info *pi = rpl_rules_param_info(i);
		if (!pi || rpl_rules_is_override(info->rules, pi->id) != 1)
			continue;
		fputs(first ? "" : ",", f);
		first = 0;
		brp_json_string(f, pi->name);
	}
	fputs("],\"players\":[", f);
	for (int s = 0; s < info->nplayers && s < RPL_MAX_SEATS; s++) {
		fputs(s ? "," : "", f);
		if (info->players[s] && info->players[s][0])
			brp_json_string(f, info->players[s]);
		else
			fputs("null", f);
	}
	fprintf(f, "],\"first_dealer\":%d,\"start\":", info->first_dealer);
	if (start)
		brp_json_string(f, start);
	else
		fputs("null", f);
	fputs(",\"meta\":[", f);
	for (size_t i = 0; i < info->nmeta; i++) {
		fputs(i ? ",{\"key\":" : "{\"key\":", f);
		brp_json_string(f, info->meta_keys[i]);
		fputs(",\"value\":", f);
		brp_json_string(f, info->meta_values[i]);
		fputc('}', f);
	}
	fputs("],\"commitment\":", f);
	if (info->commitment)
		json_hex(f, info->commitment, RPL_DEAL_COMMIT_SIZE);
	else
		fputs("null", f);
	if (info->commitment)
		fprintf(f, ",\"commitment_version\":%d", info->commit_version);
	else
		fputs(",\"commitment_version\":null", f);
	fputs(",\"player_seeds\":[", f);
	for (int i = 0; info->commitment && i < info->nplayer_seeds; i++) {
		fputs(i ? "," : "", f);
		json_hex(f, info->player_seeds[i], RPL_DEAL_SEED_SIZE);
	}
	fputc(']', f);
}

struct claim {
	int deal;
	int32_t score[2];
};

/* What the log says after its deals, gathered as it is read. */
struct dump_tail {
	struct claim *claims; /* in the log's order */
	size_t nclaims, capclaims;
	int match_claimed, closed, recovered, has_seed;
	int32_t match_claim[2];
	uint8_t seed[RPL_DEAL_SEED_SIZE];
};

/* A deal's object up to its turns: its number, its hands, its mortos and its stock. */
static void json_deal(FILE *f, const rpl_event *ev, int nplayers, int first)
{
	fprintf(f, "%s{\"deal\":%d,\"hands\":[", first ? "" : ",", ev->deal);
	for (int s = 0; s < nplayers; s++) {
		fputs(s ? "," : "", f);
		json_cards(f, ev->layout.hand[s], RPL_HAND_SIZE);
	}
	fputs("],\"mortos\":[", f);
	json_cards(f, ev->layout.morto[0], RPL_MORTO_SIZE);
	fputc(',', f);
	json_cards(f, ev->layout.morto[1], RPL_MORTO_SIZE);
	fputs("],\"stock\":", f);
	json_cards(f, ev->layout.stock, RPL_STOCK_SIZE(nplayers));
	fputs(",\"turns\":[", f);
}

/* A claim kept for the tail (the last match claim apart): 0, or -1 out of memory. */
static int claim_keep(struct dump_tail *t, const rpl_event *ev)
{
	if (t->nclaims == t->capclaims) {
		size_t cap = t->capclaims ? 2 * t->capclaims : 16;
		struct claim *grown = realloc(t->claims, cap * sizeof *t->claims);
		if (!grown)
			return -1;
		t->claims = grown;
		t->capclaims = cap;
	}
	t->claims[t->nclaims].deal = ev->deal;
	memcpy(t->claims[t->nclaims++].score, ev->score, sizeof ev->score);
	if (ev->deal == 0) {
		t->match_claimed = 1;
		memcpy(t->match_claim, ev->score, sizeof t->match_claim);
	}
	return 0;
}

/*
 * The object's end after the deals: the claims, the match claim, the seed,
 * the end, the match identity and the error where reading stopped (rc < 0:
 * the reader's, into err). Returns rc, or 0 when reading ended well.
 */
static int json_tail(FILE *f, const struct dump_tail *t, rpl_reader *rd, int rc, char *err, size_t errlen)
{
	char id[RPL_MATCH_ID_SIZE];

	fputs("],\"claims\":[", f);
	for (size_t i = 0; i < t->nclaims; i++)
		fprintf(f, "%s{\"deal\":%d,\"score\":[%ld,%ld]}", i ? "," : "", t->claims[i].deal, (long)t->claims[i].score[0],
		        (long)t->claims[i].score[1]);
	fputs("],\"match_claim\":", f);
	if (t->match_claimed)
		fprintf(f, "[%ld,%ld]", (long)t->match_claim[0], (long)t->match_claim[1]);
	else
		fputs("null", f);
	fputs(",\"seed\":", f);
	if (t->has_seed)
		json_hex(f, t->seed, sizeof t->seed);
	else
		fputs("null", f);
	fprintf(f, ",\"closed\":%s,\"recovered\":%s,\"match_id\":", t->closed ? "true" : "false",
	        t->recovered ? "true" : "false");
	if (rc == 0 && rpl_reader_match_id(rd, id) == 0)
		fprintf(f, "\"%s\"", id);
	else
		fputs("null", f);
	fputs(",\"error\":", f);
	if (rc < 0) {
		snprintf(err, errlen, "%s", rpl_reader_errmsg(rd)); /* it says the byte */
		fprintf(f, "{\"offset\":%llu,\"message\":", (unsigned long long)rpl_reader_offset(rd));
		brp_json_string(f, rpl_reader_errmsg(rd));
		fputc('}', f);
	} else {
		fputs("null", f);
		rc = 0;
	}
	fputs("}\n", f);
	return rc;
}

/*
 * Write the match rd reads as one JSON object and a newline: the header,
 * then the deals, each with its layout, its turns and their decisions,
 * then every claim in the log's order (a log may hold a deal's claim after
 * later deals), the last match claim, the seed, the end. The
 * object is whole even when the log is damaged: "error" then says where
 * reading stopped, and the function returns the reader's error (err: the
 * message). Returns 0, a reader's error, or RPL_ENOMEM / RPL_ELIMIT.
 */
static int dump_json(rpl_reader *rd, FILE *f, char *err, size_t errlen)
{
	const rpl_match_info *info = rpl_reader_info(rd);
	rpl_event *ev = malloc(sizeof *ev);
	struct dump_tail t = { 0 };
	char start[32];
	int rc = 0, in_deal = 0, turn_open = 0, ndeals = 0, nturns = 0, ndec = 0, turn = 0, seat = -1;

	err[0] = '\0';
	if (!ev) {
		snprintf(err, errlen, "out of memory");
		return RPL_ENOMEM;
	}
	if (info->start_time != 0 && rpl_notation_time_format(info->start_time, start, sizeof start) < 0) {
		snprintf(err, errlen, "the start time %lld is outside the years 0000 to 9999", (long long)info->start_time);
		free(ev);
		return RPL_ELIMIT;
	}
	json_header(f, rd, info, info->start_time != 0 ? start : NULL);
	fputs(",\"deals\":[", f);
	for (;;) {
		rc = rpl_reader_next(rd, ev);
		if (rc > 0 && ev->kind == RPL_EV_ACTION && in_deal) {
			if (turn_open && (ev->turn != turn || ev->seat != seat)) {
				fputs("]}", f);
				turn_open = 0;
			}
			if (!turn_open) {
				fprintf(f, "%s{\"turn\":%d,\"seat\":%d,\"decisions\":[", nturns++ ? "," : "", ev->turn, ev->seat);
				turn_open = 1;
				turn = ev->turn;
				seat = ev->seat;
				ndec = 0;
			}
			fputs(ndec++ ? "," : "", f);
			json_action(f, &ev->action);
			continue;
		}
		if (turn_open) {
			fputs("]}", f);
			turn_open = 0;
		}
		if (in_deal && (rc <= 0 || ev->kind == RPL_EV_DEAL)) {
			fputs("]}", f);
			in_deal = 0;
		}
		if (rc <= 0)
			break;
		switch (ev->kind) {
		case RPL_EV_DEAL:
			json_deal(f, ev, info->nplayers, ndeals++ == 0);
			in_deal = 1;
			nturns = 0;
			break;
		case RPL_EV_CLAIM:
			if (claim_keep(&t, ev) < 0) {
				rc = RPL_ENOMEM;
				snprintf(err, errlen, "out of memory");
				goto done;
			}
			break;
		case RPL_EV_END:
			t.closed = 1;
			t.recovered = ev->recovered;
			break;
		case RPL_EV_REVEAL:
			t.has_seed = 1;
			memcpy(t.seed, ev->seed, sizeof t.seed);
			break;
		default: break;
		}
	}
	rc = json_tail(f, &t, rd, rc, err, errlen);
done:
	free(t.claims);
	free(ev);
	return rc;
}

int cmd_dump(int argc, char **argv)
{
	static const struct brp_opt opts[] = {
		{ "output", 1, 'o', 0, 0 }, BRP_OPT_JSON_ROW, BRP_OPT_LOG, BRP_OPT_HELP, BRP_OPT_END,
	};
	struct brp_getopt g;
	int first;
	const char *out_path = NULL, *path = NULL;
	rpl_reader *rd = NULL;
	FILE *out = stdout;
	struct brp_output o = { NULL, -1, NULL, NULL, 0 };
	char why[256];
	char err[RPL_ERRMSG_SIZE];
	int rc = BRP_EXIT_USAGE, c, e, json = 0;

	brp_getopt_init(&g, name, opts, argc, argv);
	while ((c = brp_getopt_next(&g)) != -1) {
		switch (c) {
		case BRP_OPT_BAD: return BRP_EXIT_USAGE;
		case 'o':
			if (brp_opt_path(&g, &out_path) != 0)
				return BRP_EXIT_USAGE;
			break;
		case BRP_OPT_JSON: json = 1; break;
		case BRP_OPT_LOGFILE:
			if (brp_opt_path(&g, &path) != 0)
				return BRP_EXIT_USAGE;
			break;
		case 'h': usage(stdout); return BRP_EXIT_OK;
		}
	}
	first = brp_getopt_index(&g);
	if (first + !path != argc) {
		brp_error(name,
		          first == argc ? "no log given (see brp dump --help)" : "one log at a time (see brp dump --help)");
		return BRP_EXIT_USAGE;
	}
	if (!path)
		path = argv[first];
	rc = BRP_EXIT_FAIL;
	e = brp_open_log(path, &rd);
	if (brp_stdin_spelling(path))
		path = brp_stdin_name; /* named so in messages */
	if (e < 0) {
		const char *m = rd ? rpl_reader_errmsg(rd) : "";
		brp_error(name, "%s: %s", path, m && *m ? m : rpl_strerror(e));
		goto cleanup;
	}
	if (out_path) {
		/* written beside it and renamed over it once whole: a failure leaves nothing half-written */
		if (brp_output_open(&o, out_path, why, sizeof(why)) != 0) {
			brp_error(name, "cannot create %s: %s", out_path, why);
			goto cleanup;
		}
		out = o.f;
	}
	if (json)
		e = dump_json(rd, out, err, sizeof err);
	else
		e = rpl_notation_write(rd, put, out, err, sizeof err);
	if (e < 0) {
		if (out == stdout && ferror(stdout))
			goto cleanup; /* main() says "cannot write the output", once */
		brp_error(name, "%s: %s", path, err[0] ? err : rpl_strerror(e));
		goto cleanup;
	}
	if (out != stdout) {
		out = stdout;
		if (brp_output_commit(&o, why, sizeof(why)) != 0) {
			brp_error(name, "cannot write %s: %s", out_path, why);
			goto cleanup;
		}
	}
	rc = BRP_EXIT_OK;
cleanup:
	brp_output_discard(&o); /* nothing half-written is left behind */
	rpl_reader_free(rd);
	return rc;
}
