/* brp recover: salvage every complete turn of a damaged or unfinished log. */
#include "brp.h"

#include <getopt.h>
#include <string.h>
#include <sys/stat.h>

static const char *const name = "recover";

static void usage(FILE *f)
{
	fputs("Usage: brp recover IN -o OUT\n"
	      "Salvage a damaged log, or a recording cut short by a crash: every complete\n"
	      "turn up to the first damaged or missing byte is written to OUT as a valid,\n"
	      "closed log (its end marked recovered), and one line says what was cut.\n"
	      "\n"
	      "  -o, --output FILE   the salvaged log (required; written whole or not at all)\n"
	      "  -h, --help          print this help and exit\n"
	      "\n"
	      "Exit status: 0 salvaged (even if something was cut), 2 nothing could be\n"
	      "salvaged (no readable header), or a usage or write error.\n",
	      f);
}

int cmd_recover(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	rpl_recover_report rep;
	int c, err;

	while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'h': usage(stdout); return BRP_EXIT_OK;
		default: return brp_bad_option(name, c, argv);
		}
	}
	if (optind + 1 != argc || !out) {
		brp_error(name, "needs one log and -o OUT (try 'brp recover --help')");
		return BRP_EXIT_USAGE;
	}
	struct stat si, so;
	if (strcmp(argv[optind], out) == 0 ||
	    (stat(argv[optind], &si) == 0 && stat(out, &so) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino)) {
		brp_error(name, "OUT must differ from IN: the damaged log is kept as evidence");
		return BRP_EXIT_USAGE;
	}
	err = rpl_recover(argv[optind], out, &rep);
	if (err) {
		const char *why = rep.message[0] ? rep.message : rpl_strerror(err);
		if (rep.output)
			brp_error(name, "%s: cannot write %s: %s", argv[optind], out, why);
		else
			brp_error(name, "%s: %s", argv[optind], why);
		return BRP_EXIT_USAGE;
	}
	brp_text(stdout, argv[optind]);
	fputs(": ", stdout);
	brp_text(stdout, rep.message);
	putchar('\n');
	return BRP_EXIT_OK;
}
