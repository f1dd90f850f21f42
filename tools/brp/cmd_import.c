/* brp import: text notation into a match log. */
#include "brp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const name = "import";

static void usage(FILE *f)
{
	fputs("Usage: brp import [OPTION]... TEXT -o FILE.brp\n"
	      "Read a match in text notation (docs/notation.md) from TEXT ('-' for stdin)\n"
	      "and write it as a match log. Decisions are recorded as written, legal or\n"
	      "not (only the cards must be where a decision says), so that a disputed\n"
	      "match can be imported and then judged by 'brp verify'. A text that ends\n"
	      "without 'end' gives a log that was never closed. The text is read as it\n"
	      "is imported (one line at a time; a line holds at most 65536 bytes).\n"
	      "\n"
	      "  -o, --output FILE  the log to write (required)\n"
	      "      --json         one JSON object: file, output, status (imported or\n"
	      "                     failed), and what the log holds (deals, decisions,\n"
	      "                     closed, match_id) or why it failed (message)\n"
	      "  -h, --help         print this help and exit\n"
	      "\n"
	      "Exit status: 0 success, 2 a usage error, 3 a text that cannot be read or\n"
	      "imported (the message names the line and the column), or a log that cannot\n"
	      "be written.\n",
	      f);
}

/* The text, read in pieces by the import (it keeps one line at most): errno of a failed read is kept. */
struct input {
	FILE *f;
	int error;
};

static ptrdiff_t read_input(void *ud, char *buf, size_t n)
{
	struct input *in = ud;
	size_t k = fread(buf, 1, n, in->f);

	if (k == 0 && ferror(in->f)) {
		in->error = errno ? errno : EIO;
		return RPL_EIO;
	}
	return (ptrdiff_t)k;
}

/*
 * The outcome as one JSON line, the keys as brp verify --json names the same
 * things: what the written log holds (read back: imported), or why there is
 * no log (why: failed).
 */
static void print_json(const char *path, const char *out, const char *why)
{
	rpl_reader *rd = NULL;
	rpl_event ev;
	long deals = 0, decisions = 0;
	char id[RPL_MATCH_ID_SIZE] = "";
	int e;

	if (!why && (e = rpl_reader_open(&rd, out)) == 0) {
		while ((e = rpl_reader_next(rd, &ev)) > 0) {
			deals += ev.kind == RPL_EV_DEAL;
			decisions += ev.kind == RPL_EV_ACTION;
		}
		if (e == 0)
			rpl_reader_match_id(rd, id);
	}
	fputs("{\"file\":", stdout);
	brp_json_string(stdout, path);
	fputs(",\"output\":", stdout);
	brp_json_string(stdout, out);
	printf(",\"status\":\"%s\"", why ? "failed" : "imported");
	if (!why) {
		printf(",\"deals\":%ld,\"decisions\":%ld,\"closed\":%s,\"match_id\":", deals, decisions,
		       rpl_reader_closed(rd) ? "true" : "false");
		if (id[0])
			printf("\"%s\"", id);
		else
			fputs("null", stdout);
	}
	fputs(",\"message\":", stdout);
	brp_json_string(stdout, why ? why : "");
	fputs("}\n", stdout);
	rpl_reader_free(rd);
}

int cmd_import(int argc, char **argv)
{
	static const struct brp_opt opts[] = {
		{ "output", 1, 'o', 0, 0 },
		BRP_OPT_JSON_ROW,
		BRP_OPT_HELP,
		BRP_OPT_END,
	};
	struct brp_getopt g;
	int first;
	const char *out_path = NULL, *path;
	struct input in = { NULL, 0 };
	char err[RPL_ERRMSG_SIZE], why[2 * RPL_ERRMSG_SIZE];
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
		case 'h': usage(stdout); return BRP_EXIT_OK;
		}
	}
	first = brp_getopt_index(&g);
	if (first != argc - 1) {
		brp_error(name, first == argc ? "no text given (see brp import --help)"
		                              : "one text at a time (see brp import --help)");
		return BRP_EXIT_USAGE;
	}
	if (!out_path) {
		brp_error(name, "no log to write: give -o FILE.brp");
		return BRP_EXIT_USAGE;
	}
	path = argv[first];
	rc = BRP_EXIT_FAIL;
	in.f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (!in.f) {
		snprintf(why, sizeof(why), "%s: cannot open: %s", path, strerror(errno));
		goto fail;
	}
	errno = 0;
	e = rpl_notation_import_stream(read_input, &in, out_path, err, sizeof err);
	if (e < 0) {
		if (in.error)
			snprintf(why, sizeof(why), "%s: cannot read: %s", path, strerror(in.error));
		/* the library's message says what went wrong; the path is ours to add */
		else if (e == RPL_EIO)
			snprintf(why, sizeof(why), "cannot write %s: %s", out_path, err[0] ? err : rpl_strerror(e));
		else
			snprintf(why, sizeof(why), "%s", err[0] ? err : rpl_strerror(e));
		goto fail;
	}
	if (json)
		print_json(path, out_path, NULL);
	rc = BRP_EXIT_OK;
	goto cleanup;
fail:
	brp_error(name, "%s", why);
	if (json)
		print_json(path, out_path, why);
cleanup:
	if (in.f && in.f != stdin)
		fclose(in.f);
	return rc;
}
