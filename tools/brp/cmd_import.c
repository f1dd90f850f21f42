/* brp import: text notation into a match log. */
#include "brp.h"

#include <errno.h>
#include <getopt.h>
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
	      "without 'end' gives a log that was never closed.\n"
	      "\n"
	      "  -o, --output FILE  the log to write (required)\n"
	      "  -h, --help         print this help and exit\n"
	      "\n"
	      "Exit status: 0 success, 2 a usage error or a text that cannot be imported\n"
	      "(the message names the line and the column).\n", f);
}

/* The whole of f in a malloc'ed buffer; NULL on a read error or out of memory. */
static char *slurp(FILE *f, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);

	while (buf) {
		size_t k = fread(buf + n, 1, cap - n, f);
		n += k;
		if (k == 0)
			break;
		if (n == cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
	}
	if (buf && ferror(f)) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

int cmd_import(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out_path = NULL, *path;
	FILE *in = NULL;
	char *text = NULL, err[400];
	size_t len = 0;
	int rc = BRP_EXIT_USAGE, c, e;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': out_path = optarg; break;
		case 'h':
			usage(stdout);
			return BRP_EXIT_OK;
		default: return brp_bad_option(name, c, argv);
		}
	}
	if (optind != argc - 1) {
		brp_error(name, optind == argc ? "no text given (see brp import --help)"
		                               : "one text at a time (see brp import --help)");
		return BRP_EXIT_USAGE;
	}
	if (!out_path) {
		brp_error(name, "no log to write: give -o FILE.brp");
		return BRP_EXIT_USAGE;
	}
	path = argv[optind];
	in = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (!in) {
		brp_error(name, "cannot open %s: %s", path, strerror(errno));
		goto cleanup;
	}
	errno = 0;
	text = slurp(in, &len);
	if (!text) {
		brp_error(name, "cannot read %s: %s", path, errno ? strerror(errno) : "out of memory");
		goto cleanup;
	}
	e = rpl_notation_import(text, len, out_path, err, sizeof err);
	if (e < 0) {
		brp_error(name, "%s", err[0] ? err : rpl_strerror(e));
		goto cleanup;
	}
	rc = BRP_EXIT_OK;
cleanup:
	if (in && in != stdin)
		fclose(in);
	free(text);
	return rc;
}
