/* brp dump: a match log as text notation (docs/notation.md). */
#include "brp.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const name = "dump";

static void usage(FILE *f)
{
	fputs("Usage: brp dump [OPTION]... FILE\n"
	      "Write the match log FILE (.brp) as text notation: the header as tags, each\n"
	      "deal's layout, one line per turn, the claimed scores and the end of the\n"
	      "recording (see docs/notation.md). 'brp import' reads it back into the\n"
	      "same log, byte for byte.\n"
	      "\n"
	      "  -o, --output OUT  write the text to OUT instead of stdout\n"
	      "  -h, --help        print this help and exit\n"
	      "\n"
	      "Exit status: 0 success, 2 a usage error or a log that cannot be read.\n", f);
}

static int put(void *ud, const char *s, size_t n)
{
	return fwrite(s, 1, n, (FILE *)ud) == n ? 0 : RPL_EIO;
}

int cmd_dump(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out_path = NULL, *path;
	rpl_reader *rd = NULL;
	FILE *out = stdout;
	char err[RPL_ERRMSG_SIZE];
	int rc = BRP_EXIT_USAGE, c, e, regular = 0;

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
		brp_error(name, optind == argc ? "no log given (see brp dump --help)"
		                               : "one log at a time (see brp dump --help)");
		return BRP_EXIT_USAGE;
	}
	path = argv[optind];
	e = rpl_reader_open(&rd, path);
	if (e < 0) {
		const char *m = rd ? rpl_reader_errmsg(rd) : "";
		brp_error(name, "%s: %s", path, m && *m ? m : rpl_strerror(e));
		goto cleanup;
	}
	if (out_path) {
		struct stat st;
		out = fopen(out_path, "wb");
		if (!out) {
			brp_error(name, "cannot create %s: %s", out_path, strerror(errno));
			goto cleanup;
		}
		/* on failure only a regular file is removed: never a device such as /dev/full */
		regular = fstat(fileno(out), &st) == 0 && S_ISREG(st.st_mode);
	}
	e = rpl_notation_write(rd, put, out, err, sizeof err);
	if (e < 0) {
		if (out == stdout && ferror(stdout))
			goto cleanup; /* main() says "cannot write the output", once */
		brp_error(name, "%s: %s", path, err[0] ? err : rpl_strerror(e));
		goto cleanup;
	}
	if (out != stdout) {
		FILE *f = out;
		out = NULL;
		if (fclose(f) != 0) {
			brp_error(name, "cannot write %s: %s", out_path, strerror(errno));
			if (regular)
				remove(out_path);
			goto cleanup;
		}
	}
	rc = BRP_EXIT_OK;
cleanup:
	if (out && out != stdout) {
		fclose(out);
		if (regular)
			remove(out_path); /* nothing half-written is left behind */
	}
	rpl_reader_free(rd);
	return rc;
}
