/* brp verify: replay each log through the rules engine and give its verdict. */
#include "brp.h"

#include <stdlib.h>
#include <string.h>

static const char *const name = "verify";

static void usage(FILE *f)
{
	fputs("Usage: brp verify [OPTION]... FILE|DIR|-...\n"
	      "Replay each match log through the rules engine and give one verdict a match:\n"
	      "  ok          every decision legal, the claimed scores (if any) right\n"
	      "  illegal     the first illegal decision: deal, turn, seat, decision, rule\n"
	      "  mismatch    all legal, but a claimed score differs from the recomputed one,\n"
	      "              or the deals are not those the log's commitment fixed\n"
	      "  incomplete  all legal, but the log stops before the match ended\n"
	      "  malformed   the file cannot be read: byte offset and reason\n"
	      "  tampered    a signature does not verify: the bytes it covers were changed\n"
	      "  untrusted   trusted keys (-K, --keyring) were given and none signs the whole\n"
	      "              log, or its header declares it signed (format version 4) and no\n"
	      "              signature covers its end; whatever the replay found, which is a\n"
	      "              detail (\"replay\"), naming a seat only in bytes a trusted key\n"
	      "              signs\n"
	      "A log without its end section is said \"unclosed\" (\"ok, unclosed: ...\"):\n"
	      "a recording that was never closed, or one whose end was cut off.\n"
	      "Directories are searched for *.brp files, each directory and log once; - reads\n"
	      "a list of paths from standard input, one a line of at most 4095 bytes.\n"
	      "--log - (or /dev/stdin) reads one log from standard input instead, named -.\n"
	      "Output follows the order of the arguments (the --log - log first).\n"
	      "A committed log (format version 3 or 4) also says what it proves of its deals:\n"
	      "deal commitment revealed (every layout derived from the committed seed),\n"
	      "unrevealed (the seed is not in the log: nothing proven), or mismatch; and,\n"
	      "when a seat added no seed or the log is of protocol 1 (format version 3),\n"
	      "that the deals are only as fair as the platform. --json: \"dealing\" with the\n"
	      "commitment's status, its \"digest\", \"protocol\", \"player_seeds\", \"players\".\n"
	      "\n"
	      "      --rules-from-log  judge by the rules the log carries (the default)\n"
	      "  -r, --rules PROFILE   judge by this profile instead (kzv, stbl, aberto)\n"
	      "  -s, --set NAME=VALUE  with --rules: override a parameter (repeatable)\n"
	      "      --json            one JSON object a match, one a line; \"closed\" and\n"
	      "                        \"match_id\", the match identity: the same for every\n"
	      "                        byte-variant of one match (docs/format.md 17); a\n"
	      "                        file that cannot be read has the verdict\n"
	      "                        \"unreadable\" (and its message on stderr too)\n"
	      "  -j, --jobs N          threads (default 1; the output is the same, in order)\n"
	      "      --from-list FILE  also verify the paths listed in FILE, one a line\n"
	      "      --log FILE        also verify the log FILE (repeatable); - reads it\n"
	      "                        from standard input (a pipe: ... | brp verify --log -)\n"
	      "  -q, --quiet           print only the matches that are not ok (or unclosed)\n"
	      "      --strict          an unclosed log (no end section) is not ok, even when\n"
	      "                        its match is over: claims after its last section may\n"
	      "                        be missing\n"
	      "  -K, --key FILE        a trusted public key (a minisign .pub file; repeatable);\n"
	      "                        with keys, an unclosed log fails as with --strict\n"
	      "      --keyring FILE    trusted public keys, one after another in a file\n"
	      "Signatures are checked in every log; a signed log's line names each signer by\n"
	      "its key id and its fingerprint (a hash of its public key: an id can be copied).\n"
	      "  -h, --help            print this help and exit\n"
	      "\n"
	      "Exit status: 0 all ok; 1 some illegal, mismatch, incomplete, tampered or\n"
	      "untrusted (or, with --strict or keys, unclosed); 2 a usage error, or\n"
	      "arguments that name no log; 3 some malformed or unreadable log, or out of\n"
	      "memory.\n",
	      f);
}

/* The verdict's line: the library's, which names every signer. */
static void print_text(const char *path, const rpl_verdict *v)
{
	char line[2048];

	/* the path and the message may hold any byte (a name from the log): escaped */
	rpl_verdict_format(v, line, sizeof(line));
	brp_text(stdout, path);
	fputs(": ", stdout);
	brp_text(stdout, line);
	putchar('\n');
}

static void print_score(const rpl_score *s)
{
	printf("{\"melded\":%d,\"bonus\":%d,\"canastras\":{\"dirty\":%d,\"clean\":%d,\"clean13\":%d,\"clean14\":%d,"
	       "\"dirty14\":%d},\"going_out\":%d,\"hand\":%d,\"morto\":%d,\"total\":%d}",
	       (int)s->melded, (int)s->bonus, (int)s->canastras[RPL_CANASTRA_DIRTY], (int)s->canastras[RPL_CANASTRA_CLEAN],
	       (int)s->canastras[RPL_CANASTRA_CLEAN13], (int)s->canastras[RPL_CANASTRA_CLEAN14],
	       (int)s->canastras[RPL_CANASTRA_DIRTY14], (int)s->going_out, (int)s->hand, (int)s->morto, (int)s->total);
}

/* A key's fingerprint as a JSON string, or null when there is no key. */
static void print_fingerprint(const rpl_pubkey *pk, int present)
{
	char fp[RPL_KEY_FINGERPRINT_TEXT];

	if (!present) {
		fputs("null", stdout);
		return;
	}
	rpl_pubkey_fingerprint(pk, fp);
	printf("\"%s\"", fp);
}

/*
 * "signature": what the log's signature sections cover (sign.h), in every
 * verdict: the last signer (its id and fingerprint), whether a trusted key
 * covers the whole log, what the last trusted signature covers, a key that
 * carries a trusted key's id with another public key, and whether the
 * header declares the log signed.
 */
static void print_signature_json(const rpl_signature_report *sr, unsigned header_flags)
{
	char id[RPL_KEY_ID_TEXT];
	int signed_ = sr->status != RPL_SIG_UNSIGNED;

	printf(",\"signature\":{\"status\":\"%s\",\"key\":", rpl_signature_status_name(sr->status));
	if (!signed_) {
		fputs("null", stdout);
	} else {
		rpl_key_id_format(sr->key.id, id);
		printf("\"%s\"", id);
	}
	fputs(",\"fingerprint\":", stdout);
	print_fingerprint(&sr->key, signed_);
	printf(",\"trusted\":%s,\"covered\":%llu,\"size\":%llu,\"trusted_key\":", sr->trusted ? "true" : "false",
	       (unsigned long long)sr->covered, (unsigned long long)sr->size);
	print_fingerprint(&sr->trusted_key, sr->trusted_covered > 0);
	printf(",\"trusted_covered\":%llu,\"id_clash\":", (unsigned long long)sr->trusted_covered);
	print_fingerprint(&sr->clash_key, sr->id_clash);
	printf(",\"header_signed\":%s}", header_flags & RPL_LOG_SIGNED ? "true" : "false");
}

/*
 * What the replay found, as the keys of its kind: those of the verdict, or
 * after "replay" in an untrusted one. blame: the seat and the decision of an
 * illegal one are given (not for bytes no trusted key signs).
 */
static void print_finding(const rpl_verdict *v, int kind, int blame)
{
	char act[160];

	switch (kind) {
	case RPL_VERDICT_ILLEGAL:
		printf(",\"deal\":%d,\"turn\":%d", v->deal, v->turn);
		if (blame) {
			rpl_action_format(&v->action, act, sizeof(act));
			printf(",\"seat\":%d,\"decision\":", v->seat);
			brp_json_string(stdout, v->turn > 0 ? act : "");
		}
		fputs(",\"rule\":", stdout);
		brp_json_string(stdout, rpl_rule_name(v->rule));
		break;
	case RPL_VERDICT_MISMATCH:
		if (v->deal_commitment == RPL_DEAL_MISMATCH) {
			printf(",\"deal\":%d", v->deal_mismatch); /* 0: the seed itself */
			break;
		}
		printf(",\"deal\":%d,\"side\":%d,\"claimed\":%d,\"computed\":%d", v->claim_deal, v->side, (int)v->claimed,
		       (int)v->computed);
		if (v->claim_deal > 0) {
			fputs(",\"breakdown\":", stdout);
			print_score(&v->breakdown);
		}
		break;
	case RPL_VERDICT_INCOMPLETE: printf(",\"deal\":%d,\"turn\":%d", v->deal, v->turn); break;
	case RPL_VERDICT_MALFORMED:
	case RPL_VERDICT_TAMPERED: printf(",\"offset\":%llu", (unsigned long long)v->offset); break;
	default: break;
	}
}

static void print_json(const char *path, const rpl_verdict *v)
{
	fputs("{\"file\":", stdout);
	brp_json_string(stdout, path);
	printf(",\"verdict\":\"%s\"", rpl_verdict_name(v->kind));
	if (v->kind == RPL_VERDICT_UNTRUSTED) {
		/* what the replay found is a detail; the seat only for trusted bytes */
		printf(",\"replay\":\"%s\"", rpl_verdict_name(v->replay));
		print_finding(v, v->replay, v->replay_trusted);
		printf(",\"replay_trusted\":%s", v->replay_trusted ? "true" : "false");
	} else {
		print_finding(v, v->kind, 1);
	}
	print_signature_json(&v->signature, v->header_flags);
	if (v->kind != RPL_VERDICT_MALFORMED)
		printf(",\"deals\":%d,\"decisions\":%d,\"total\":[%d,%d],\"winner\":%d,\"recovered\":%s", v->deals, v->actions,
		       (int)v->total[0], (int)v->total[1], v->winner, v->recovered ? "true" : "false");
	/* what the log is: closed (its end section), and the match identity (null: the log does not decode) */
	printf(",\"closed\":%s,\"match_id\":", v->closed ? "true" : "false");
	if (v->match_id[0])
		printf("\"%s\"", v->match_id);
	else
		fputs("null", stdout);
	printf(",\"dealing\":{\"commitment\":\"%s\"", rpl_deal_commitment_name(v->deal_commitment));
	if (v->deal_commitment != RPL_DEAL_NONE) {
		fputs(",\"digest\":\"", stdout);
		for (size_t i = 0; i < sizeof(v->commitment); i++)
			printf("%02x", v->commitment[i]);
		/* fewer player seeds than players, or protocol 1: only as fair as the platform (the text line says so) */
		printf("\",\"protocol\":%d,\"player_seeds\":%d,\"players\":%d", v->commit_version, v->player_seeds, v->players);
	}
	putchar('}');
	fputs(",\"message\":", stdout);
	brp_json_string(stdout, v->message);
	fputs("}\n", stdout);
}

struct vjob {
	const rpl_rules *rules;
	const rpl_keyring *trusted;
	int json, quiet, strict, keys, worst;
	struct brp_progress prog;
	size_t n;
};

struct vresult {
	int err;
	rpl_verdict v;
};

static void verify_one(const char *path, void *result, void *ud)
{
	struct vjob *j = ud;
	struct vresult *r = result;
	r->err = brp_verify_log(path, j->rules, j->trusted, &r->v, NULL);
}

static void print_result(const char *path, const void *result, void *ud)
{
	struct vjob *j = ud;
	const struct vresult *r = result;
	const rpl_verdict *v = &r->v;
	int rc;

	if (r->err) {
		const char *why = v->message[0] ? v->message : rpl_strerror(r->err);
		brp_error(name, "%s: %s", path, why);
		j->worst = BRP_EXIT_FAIL;
		if (j->json) {
			/* a log that cannot be read still has its line: the keys of a verdict that apply */
			fputs("{\"file\":", stdout);
			brp_json_string(stdout, path);
			fputs(",\"verdict\":\"unreadable\",\"closed\":false,\"match_id\":null,\"message\":", stdout);
			brp_json_string(stdout, why);
			fputs("}\n", stdout);
		}
		return;
	}
	rc = v->kind == RPL_VERDICT_OK ? BRP_EXIT_OK : v->kind == RPL_VERDICT_MALFORMED ? BRP_EXIT_FAIL : BRP_EXIT_NO;
	if (rc == BRP_EXIT_OK && (j->strict || j->keys) && !v->closed)
		rc = BRP_EXIT_NO; /* a finished match whose claims may have been cut off (every flush of a growing log is signed) */
	if (rc > j->worst)
		j->worst = rc;
	if (j->quiet && rc == BRP_EXIT_OK && v->closed)
		return;
	if (j->json)
		print_json(path, v);
	else
		print_text(path, v);
}

/* Each result in the paths' order, with the progress line (a terminal's) wiped before and drawn after. */
static int print_one(const char *path, const void *result, void *ud)
{
	struct vjob *j = ud;

	brp_progress_clear(&j->prog);
	print_result(path, result, ud);
	brp_progress_step(&j->prog, ++j->n);
	return 0;
}

/* What the command line says. */
struct verify_args {
	struct brp_batch b;
	struct brp_rules_opts ro;
	int json, strict;
	const char **logs_v;   /* the --log paths, argc + 1 of room */
	int logs, stdin_first; /* how many; how many times --log - */
	int first;             /* the first operand */
	rpl_keyring *trusted;
};

/* The options into *a: -1 when the command goes on, else the code it exits with (said). */
static int verify_options(struct verify_args *a, int argc, char **argv)
{
	enum { OPT_FROM_LOG = BRP_OPT_OWN, OPT_STRICT };
	static const struct brp_opt opts[] = {
		{ "rules-from-log", 0, OPT_FROM_LOG, 0, 1 }, /* group 1, with --rules */
		BRP_OPT_RULES,
		BRP_OPT_SET,
		BRP_OPT_JSON_ROW,
		BRP_OPT_QUIET,
		{ "strict", 0, OPT_STRICT, 0, 0 },
		BRP_OPT_JOBS,
		BRP_OPT_FROM_LIST,
		BRP_OPT_KEY,
		BRP_OPT_KEYRING_ROW,
		BRP_OPT_LOGS,
		BRP_OPT_HELP,
		BRP_OPT_END,
	};
	struct brp_getopt g;
	int c, rc;

	brp_getopt_init(&g, name, opts, argc, argv);
	while ((c = brp_getopt_next(&g)) != -1) {
		if (c == BRP_OPT_BAD)
			return BRP_EXIT_USAGE;
		if ((rc = brp_batch_option(&g, c, &a->b)) != 0 || (rc = brp_rules_option(&g, c, &a->ro)) != 0) {
			if (rc != 1)
				return rc;
			continue;
		}
		switch (c) {
		case OPT_FROM_LOG: break; /* the default: said to be sure no --rules is given */
		case BRP_OPT_JSON: a->json = 1; break;
		case OPT_STRICT: a->strict = 1; break;
		case BRP_OPT_LOGFILE:
			if (strcmp(g.arg, "-") == 0)
				a->stdin_first++;
			else if (brp_opt_path(&g, &a->logs_v[a->logs]) != 0)
				return BRP_EXIT_USAGE;
			else
				a->logs++;
			break;
		case 'K':
		case BRP_OPT_KEYRING:
			if (brp_keyring_add(name, &a->trusted, g.arg) < 0)
				return BRP_EXIT_FAIL;
			break;
		case 'h': usage(stdout); return BRP_EXIT_OK;
		}
	}
	a->first = brp_getopt_index(&g);
	if (a->first >= argc && !a->b.list && !a->logs && !a->stdin_first) {
		brp_error(name, "no log to verify (try 'brp verify --help')");
		return BRP_EXIT_USAGE;
	}
	if (a->ro.nsets && !a->ro.profile) {
		brp_error(name, "--set needs --rules: the log's own rules are used as recorded");
		return BRP_EXIT_USAGE;
	}
	return -1;
}

/*
 * The logs to verify: the --log paths first, then the operands, then the
 * list (*src; *args holds the paths, freed by the caller). -1 when the
 * command goes on, else the code it exits with (said).
 */
static int verify_sources(struct brp_source **src, char ***args, const struct verify_args *a, int argc, char **argv)
{
	int nargs = a->logs + argc - a->first;

	*args = calloc((size_t)nargs + 1, sizeof(char *));
	if (!*args) {
		brp_error(name, "out of memory");
		return BRP_EXIT_FAIL;
	}
	memcpy(*args, a->logs_v, (size_t)a->logs * sizeof(char *));
	memcpy(*args + a->logs, argv + a->first, (size_t)(argc - a->first) * sizeof(char *));
	if (brp_source_new(src, name, nargs, *args, a->b.list) < 0)
		return BRP_EXIT_FAIL;
	if (brp_source_stdin_log(*src, a->stdin_first) < 0)
		return BRP_EXIT_USAGE; /* standard input twice: the command line is wrong */
	return -1;
}

int cmd_verify(int argc, char **argv)
{
	struct verify_args a = { .b = BRP_BATCH_INIT };
	int status, rc;
	struct vjob job = { 0 };
	rpl_rules *rules = NULL;
	struct brp_source *src = NULL;
	char **args = NULL;

	a.logs_v = calloc((size_t)argc + 1, sizeof(char *));
	if (!a.logs_v) {
		brp_error(name, "out of memory");
		return BRP_EXIT_FAIL;
	}
	if ((status = verify_options(&a, argc, argv)) >= 0)
		goto cleanup;
	if (a.ro.profile && (status = brp_rules_make(name, a.ro.profile, a.ro.sets, a.ro.nsets, &rules)) != 0)
		goto cleanup;
	if ((status = verify_sources(&src, &args, &a, argc, argv)) >= 0)
		goto cleanup;
	status = BRP_EXIT_FAIL;
	job.rules = rules;
	job.trusted = a.trusted;
	job.json = a.json;
	job.quiet = a.b.quiet;
	job.strict = a.strict;
	job.keys = rpl_keyring_count(a.trusted) > 0;
	job.worst = BRP_EXIT_OK;
	brp_progress_start(&job.prog, name, "logs", a.b.quiet, 0);
	rc = brp_pool_run(name, src, a.b.jobs, sizeof(struct vresult), verify_one, print_one, NULL, &job);
	brp_progress_end(&job.prog);
	if (rc < 0)
		goto cleanup;
	/* a directory the walk could not open was said in its place: a failure, whatever the logs said */
	if (brp_source_unreadable(src)) {
		status = BRP_EXIT_FAIL;
		goto cleanup;
	}
	if (brp_source_count(src) == 0) {
		brp_error(name, "no .brp log found in the arguments");
		status = BRP_EXIT_USAGE;
		goto cleanup;
	}
	status = job.worst;
cleanup:
	brp_source_free(src);
	rpl_keyring_free(a.trusted);
	rpl_rules_free(rules);
	brp_rules_opts_free(&a.ro);
	free(a.logs_v);
	free(args);
	return status;
}
