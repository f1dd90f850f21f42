/*
 * brp recover: salvage a damaged or unfinished log: a signed one up to its
 * last valid signature, verbatim; any other (or with --unsigned) every
 * complete turn, recorded again.
 */
#include "brp.h"

#include <string.h>
#include <sys/stat.h>

static const char *const name = "recover";

static void usage(FILE *f)
{
	fputs("Usage: brp recover [--unsigned] [--json] IN -o OUT\n"
	      "       ... | brp recover [--unsigned] [--json] - -o OUT\n"
	      "Salvage a damaged log, or a recording cut short by a crash, into OUT, and\n"
	      "say in one line what was kept and cut. A signed log is kept as it is up to\n"
	      "its last valid signature (those bytes, verbatim: that signature still covers\n"
	      "all of OUT, which is then unclosed); what follows it is cut, since no\n"
	      "signature covers it. Any other log: every complete turn up to the first\n"
	      "damaged or missing byte is written to OUT as a valid, closed log (its end\n"
	      "marked recovered). A log that is whole and closed needs no salvage: brp\n"
	      "recover says so and leaves OUT as it was. IN - (or /dev/stdin, or --log -)\n"
	      "reads the log from standard input.\n"
	      "\n"
	      "      --log IN        the log to salvage (the same as IN)\n"
	      "  -o, --output FILE   the salvaged log (required; written whole or not at all)\n"
	      "      --unsigned      salvage a signed log as an unsigned one: every complete\n"
	      "                      turn, the decisions after its last signature included,\n"
	      "                      recorded again, closed, with no signature\n"
	      "      --json          the outcome as one JSON object on one line (also when\n"
	      "                      nothing could be salvaged): \"status\" is \"salvaged\",\n"
	      "                      \"whole\" or \"failed\"\n"
	      "  -h, --help          print this help and exit\n"
	      "\n"
	      "Exit status: 0 salvaged (even if something was cut), 1 nothing to salvage\n"
	      "(the log is whole and closed; OUT not written), 2 a usage error, 3 nothing\n"
	      "could be salvaged (no readable header), or OUT cannot be written.\n",
	      f);
}

/*
 * The outcome as one JSON line: the keys brp verify --json gives the same
 * things (file, deals, decisions, message), what was kept and cut, and
 * status: salvaged (OUT written), whole (nothing to salvage, OUT not
 * written) or failed (nothing could be salvaged or OUT not written).
 */
static void print_json(const char *in, const char *out, const rpl_recover_report *rep, const char *status,
                       const char *message)
{
	int failed = strcmp(status, "failed") == 0;

	fputs("{\"file\":", stdout);
	brp_json_string(stdout, in);
	fputs(",\"output\":", stdout);
	brp_json_string(stdout, out);
	printf(",\"status\":\"%s\"", status);
	if (!failed) {
		printf(",\"deals\":%d,\"decisions\":%d,\"claims\":%d,\"dropped_decisions\":%d,\"read_bytes\":%llu,"
		       "\"total_bytes\":%llu,\"damaged\":%s",
		       rep->deals, rep->actions, rep->claims, rep->dropped_actions, (unsigned long long)rep->read_bytes,
		       (unsigned long long)rep->total_bytes, rep->damaged ? "true" : "false");
		/* what a signature covers of OUT: kept_signed, the bytes kept and by which key, what was cut after it */
		printf(",\"signed\":%s,\"covered\":%llu,\"key\":", rep->kept_signed ? "true" : "false",
		       (unsigned long long)rep->covered);
		if (rep->kept_signed) {
			char id[RPL_KEY_ID_TEXT], fp[RPL_KEY_FINGERPRINT_TEXT];
			rpl_key_id_format(rep->key.id, id);
			rpl_pubkey_fingerprint(&rep->key, fp);
			printf("{\"id\":\"%s\",\"fingerprint\":\"%s\"}", id, fp);
		} else {
			fputs("null", stdout);
		}
		printf(",\"uncovered_decisions\":%d,\"invalid_signature\":", rep->uncovered_actions);
		if (rep->invalid_offset)
			printf("%llu", (unsigned long long)rep->invalid_offset);
		else
			fputs("null", stdout);
		printf(",\"output_closed\":%s", rep->out_closed ? "true" : "false");
	}
	fputs(",\"message\":", stdout);
	brp_json_string(stdout, message);
	fputs("}\n", stdout);
}

int cmd_recover(int argc, char **argv)
{
	enum { OPT_UNSIGNED = BRP_OPT_OWN };
	static const struct brp_opt opts[] = {
		{ "output", 1, 'o', 0, 0 },
		{ "unsigned", 0, OPT_UNSIGNED, 0, 0 },
		BRP_OPT_JSON_ROW,
		BRP_OPT_LOG,
		BRP_OPT_HELP,
		BRP_OPT_END,
	};
	struct brp_getopt g;
	const char *out = NULL, *in = NULL;
	rpl_recover_report rep;
	rpl_reader *rd = NULL;
	int c, err, first, json = 0;
	unsigned flags = 0;

	brp_getopt_init(&g, name, opts, argc, argv);
	while ((c = brp_getopt_next(&g)) != -1) {
		switch (c) {
		case BRP_OPT_BAD: return BRP_EXIT_USAGE;
		case 'o':
			if (brp_opt_path(&g, &out) != 0)
				return BRP_EXIT_USAGE;
			break;
		case BRP_OPT_JSON: json = 1; break;
		case OPT_UNSIGNED: flags |= RPL_RECOVER_UNSIGNED; break;
		case BRP_OPT_LOGFILE:
			if (brp_opt_path(&g, &in) != 0)
				return BRP_EXIT_USAGE;
			break;
		case 'h': usage(stdout); return BRP_EXIT_OK;
		}
	}
	first = brp_getopt_index(&g);
	if (first + !in != argc || !out) {
		brp_error(name, "needs one log and -o OUT (try 'brp recover --help')");
		return BRP_EXIT_USAGE;
	}
	if (!in)
		in = argv[first];
	struct stat si, so;
	if (!brp_stdin_spelling(in) && (strcmp(in, out) == 0 || (stat(in, &si) == 0 && stat(out, &so) == 0 &&
	                                                         si.st_dev == so.st_dev && si.st_ino == so.st_ino))) {
		brp_error(name, "OUT must differ from IN: the damaged log is kept as evidence");
		return BRP_EXIT_USAGE;
	}
	if (brp_stdin_spelling(in)) {
		/* the stream read whole; one that cannot be read is said as rpl_recover says a file's */
		in = brp_stdin_name;
		err = rpl_reader_open_fd(&rd, 0);
		if (err == RPL_EIO || err == RPL_ENOMEM || err == RPL_EINVAL) {
			memset(&rep, 0, sizeof(rep));
			snprintf(rep.message, sizeof(rep.message), "%s",
			         rd && *rpl_reader_errmsg(rd) ? rpl_reader_errmsg(rd) : rpl_strerror(err));
		} else {
			err = rpl_recover_reader(rd, out, flags, &rep);
		}
		rpl_reader_free(rd);
	} else {
		err = rpl_recover(in, out, flags, &rep);
	}
	if (err) {
		const char *why = rep.message[0] ? rep.message : rpl_strerror(err);
		if (rep.output)
			brp_error(name, "%s: cannot write %s: %s", in, out, why);
		else
			brp_error(name, "%s: %s", in, why);
		if (json)
			print_json(in, out, &rep, "failed", why);
		return BRP_EXIT_FAIL;
	}
	if (json) {
		print_json(in, out, &rep, rep.closed ? "whole" : "salvaged", rep.message);
		return rep.closed ? BRP_EXIT_NO : BRP_EXIT_OK;
	}
	brp_text(stdout, in);
	fputs(": ", stdout);
	brp_text(stdout, rep.message);
	putchar('\n');
	return rep.closed ? BRP_EXIT_NO : BRP_EXIT_OK;
}
