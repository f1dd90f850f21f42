/* brp merge: export databases of shards of a corpus, merged into one. */
#include "brp.h"

#include <stdlib.h>
#include <string.h>

static const char *const name = "merge";

static void usage(FILE *f)
{
	fputs("Usage: brp merge [OPTION]... OUT.db IN.db...\n"
	      "Add to OUT.db (created if missing) every copy of a match of each IN.db that\n"
	      "OUT.db lacks, with all its rows: the databases that brp export --sqlite made\n"
	      "for shards of a corpus (on other machines, or under GNU parallel) become one.\n"
	      "A copy is known as brp export knows it: the match identity (the same for\n"
	      "every byte-variant of its log; the hash of its file when it has none), the\n"
	      "verdict, the signature's status, signer and trust, and the dealing status.\n"
	      "Two databases holding different copies of one match give both rows, never\n"
	      "merged into one; a copy both hold stays one row (the better file's), so\n"
	      "merging twice adds nothing (docs/schema.md, \"Copies\").\n"
	      "Each IN.db is one transaction.\n"
	      "\n"
	      "      --timeout S   wait up to S seconds for another writer (default 600)\n"
	      "  -q, --quiet       no progress and no summary line\n"
	      "      --json        the summary as one JSON object (even with -q): output,\n"
	      "                    added (copies), databases, and each input's file and\n"
	      "                    added\n"
	      "  -h, --help        print this help and exit\n"
	      "\n"
	      "Exit status: 0 merged, 2 a usage error, 3 a database that cannot be read or\n"
	      "merged (those merged before it stay merged).\n",
	      f);
}

int cmd_merge(int argc, char **argv)
{
	static const struct brp_opt opts[] = {
		BRP_OPT_TIMEOUT_ROW, BRP_OPT_QUIET, BRP_OPT_JSON_ROW, BRP_OPT_HELP, BRP_OPT_END,
	};
	struct brp_getopt g;
	struct brp_batch b = BRP_BATCH_INIT;
	rpl_export_db *db = NULL;
	int c, quiet, json = 0, status = BRP_EXIT_FAIL, err, total = 0, first, rc;
	int *added_by = NULL;
	struct brp_progress prog = { 0 };
	long timeout;

	brp_getopt_init(&g, name, opts, argc, argv);
	while ((c = brp_getopt_next(&g)) != -1) {
		if (c == BRP_OPT_BAD)
			return BRP_EXIT_USAGE;
		if ((rc = brp_batch_option(&g, c, &b)) != 0) {
			if (rc != 1)
				return rc;
			continue;
		}
		if (c == BRP_OPT_JSON)
			json = 1;
		if (c == 'h') {
			usage(stdout);
			return BRP_EXIT_OK;
		}
	}
	first = brp_getopt_index(&g);
	quiet = b.quiet;
	timeout = b.timeout;
	if (argc - first < 2) {
		brp_error(name, "needs OUT.db and at least one IN.db (try 'brp merge --help')");
		return BRP_EXIT_USAGE;
	}
	if (json && !(added_by = calloc((size_t)argc, sizeof *added_by))) {
		brp_error(name, "out of memory");
		return BRP_EXIT_FAIL;
	}
	err = rpl_export_db_open(&db, argv[first], (int)timeout * 1000);
	if (err) {
		brp_error(name, "%s: %s", argv[first], db ? rpl_export_db_errmsg(db) : rpl_strerror(err));
		goto cleanup;
	}
	brp_progress_start(&prog, name, "databases", quiet, (size_t)(argc - first - 1));
	for (int i = first + 1; i < argc; i++) {
		int added = 0;
		if (strcmp(argv[i], argv[first]) == 0) {
			brp_progress_clear(&prog);
			brp_error(name, "%s: a database cannot be merged into itself", argv[i]);
			status = BRP_EXIT_USAGE;
			goto cleanup;
		}
		err = rpl_export_db_merge(db, argv[i], &added);
		if (err) {
			brp_progress_clear(&prog);
			brp_error(name, "%s: %s", argv[i], rpl_export_db_errmsg(db));
			goto cleanup;
		}
		total += added;
		if (added_by)
			added_by[i] = added;
		brp_progress_step(&prog, (size_t)(i - first));
	}
	brp_progress_end(&prog);
	if (json) {
		fputs("{\"output\":", stdout);
		brp_json_string(stdout, argv[first]);
		printf(",\"added\":%d,\"databases\":%d,\"inputs\":[", total, argc - first - 1);
		for (int i = first + 1; i < argc; i++) {
			fputs(i > first + 1 ? ",{\"file\":" : "{\"file\":", stdout);
			brp_json_string(stdout, argv[i]);
			printf(",\"added\":%d}", added_by[i]);
		}
		fputs("]}\n", stdout);
	} else if (!quiet) {
		printf("%d match%s added to ", total, total == 1 ? "" : "es");
		brp_text(stdout, argv[first]);
		printf(" from %d database%s\n", argc - first - 1, argc - first - 1 == 1 ? "" : "s");
	}
	status = BRP_EXIT_OK;
cleanup:
	free(added_by);
	rpl_export_db_free(db);
	return status;
}
