/*
 * brp: the Buraco replay toolkit's command-line tool. This file only
 * dispatches: each subcommand lives in its own cmd_NAME.c and is one row of
 * the table below.
 */
#include "brp.h"

#include <string.h>

static const struct brp_cmd commands[] = {
	{ "rules", cmd_rules, "print a rule profile and every parameter" },
	{ "meld", cmd_meld, "check whether cards form one new meld" },
	{ "record", cmd_record, "record a match as it is played, from text notation" },
	{ "play", cmd_play, "play a seat of a match against bots, at a terminal" },
	{ "dump", cmd_dump, "write a match log as text notation" },
	{ "import", cmd_import, "write text notation as a match log" },
	{ "verify", cmd_verify, "replay match logs through the rules and judge them" },
	{ "show", cmd_show, "print the table at a moment of a logged match" },
	{ "review", cmd_review, "value each decision of a match against the engine's" },
	{ "integrity", cmd_integrity, "screen a corpus for play that hidden cards would explain" },
	{ "view", cmd_view, "write a match as one HTML page, replayed turn by turn" },
	{ "recover", cmd_recover, "salvage the complete turns of a damaged log" },
	{ "simulate", cmd_simulate, "let bots play legal matches and record them" },
	{ "arena", cmd_arena, "play one kind of bot against another on duplicate deals" },
	{ "stats", cmd_stats, "count what happened in a corpus of logs" },
	{ "report", cmd_report, "write a corpus of logs as one HTML page of figures and charts" },
	{ "export", cmd_export, "export logs to a SQLite database, CSV files or an XLSX workbook" },
	{ "merge", cmd_merge, "merge the export databases of corpus shards into one" },
	{ "deal", cmd_deal, "print the layout a committed seed derives for a deal" },
	{ "keygen", cmd_keygen, "make a signing key pair (minisign's formats)" },
	{ "sign", cmd_sign, "sign match logs, in place or with a detached minisign signature" },
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
	size_t i;

	fputs("Usage: brp [--help] [--version] COMMAND [ARG]...\n"
	      "Record, replay and verify matches of Buraco.\n"
	      "\n"
	      "Commands:\n",
	      f);
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fputs("\n"
	      "Run 'brp COMMAND --help' or 'brp help COMMAND' for the options of a command,\n"
	      "and 'man brp-COMMAND' for its manual page.\n"
	      "Exit status: 0 success, 1 a negative answer (such as an invalid meld),\n"
	      "2 a usage error, 3 a failure (an input that cannot be read, an output that\n"
	      "cannot be written, out of memory).\n",
	      f);
}

static const struct brp_cmd *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(name, commands[i].name) == 0)
			return &commands[i];
	return NULL;
}

static int finish(const char *cmd, int rc);

/* brp help [COMMAND]: the list of commands, or exactly what brp COMMAND --help prints. */
static int help(int argc, char **argv)
{
	const struct brp_cmd *cmd;
	char *args[3];

	if (argc < 2) {
		usage(stdout);
		return finish(NULL, BRP_EXIT_OK);
	}
	if (argc > 2) {
		brp_error("help", "one command at a time (see brp --help)");
		return BRP_EXIT_USAGE;
	}
	if ((cmd = find_command(argv[1])) == NULL) {
		brp_error("help", "unknown command '%s' (see brp --help)", argv[1]);
		return BRP_EXIT_USAGE;
	}
	args[0] = argv[1];
	args[1] = (char *)"--help";
	args[2] = NULL;
	return finish(cmd->name, cmd->run(2, args));
}

/* Fail when stdout could not be written, so that `brp ... > full-disk` is not a success. */
static int finish(const char *cmd, int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		brp_error(cmd, "cannot write the output");
		return BRP_EXIT_FAIL;
	}
	return rc;
}

int main(int argc, char **argv)
{
	const char *name;
	size_t i;

	if (argc < 2) {
		brp_error(NULL, "no command given (see brp --help)");
		return BRP_EXIT_USAGE;
	}
	name = argv[1];
	if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
		usage(stdout);
		return finish(NULL, BRP_EXIT_OK);
	}
	if (strcmp(name, "help") == 0)
		return help(argc - 1, argv + 1);
	if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
		printf("brp %s\n", rpl_version());
		return finish(NULL, BRP_EXIT_OK);
	}
	if (name[0] == '-') {
		brp_error(NULL, "unknown option '%s' (see brp --help)", name);
		return BRP_EXIT_USAGE;
	}
	for (i = 0; i < NCOMMANDS; i++) {
		if (strcmp(name, commands[i].name) != 0)
			continue;
		/* --version works after any command, as --help does (up to a "--") */
		for (int k = 2; k < argc && strcmp(argv[k], "--") != 0; k++)
			if (strcmp(argv[k], "--version") == 0) {
				printf("brp %s\n", rpl_version());
				return finish(name, BRP_EXIT_OK);
			}
		return finish(name, commands[i].run(argc - 1, argv + 1));
	}
	brp_error(NULL, "unknown command '%s' (see brp --help)", name);
	return BRP_EXIT_USAGE;
}
