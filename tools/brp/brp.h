/*
 * brp: helpers shared by the subcommands.
 *
 * Every subcommand is a function cmd_NAME(argc, argv) with argv[0] the
 * subcommand's name; it returns one of the exit codes below. Diagnostics are
 * one line on stderr, "brp NAME: message"; results go to stdout.
 */
#ifndef BRP_H
#define BRP_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include <libreplay/libreplay.h>

/*
 * Exit codes, shared by every subcommand (brp(1), EXIT STATUS). A higher code
 * is the worse outcome: a command that meets several reports the highest.
 */
enum brp_exit {
	BRP_EXIT_OK = 0,    /* success; for a check: the answer is yes */
	BRP_EXIT_NO = 1,    /* the check ran and the answer is no (an invalid meld, an illegal match) */
	BRP_EXIT_USAGE = 2, /* a usage error: the command line is wrong, nothing was done */
	BRP_EXIT_FAIL = 3   /* a failure while working: an input that cannot be read (missing, not a
	                       log, damaged), an output or a database that cannot be written, out of
	                       memory */
};

struct brp_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary; /* one line, shown by brp --help */
};

/* The subcommands: one file each. */
int cmd_rules(int argc, char **argv);
int cmd_meld(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_play(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_arena(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_deal(int argc, char **argv);
int cmd_keygen(int argc, char **argv);
int cmd_sign(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_review(int argc, char **argv);
int cmd_integrity(int argc, char **argv);

/*
 * Print "brp CMD: message" and a newline to stderr (cmd may be NULL); the
 * message is written through brp_text, so it stays one line.
 */
void brp_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
		__attribute__((format(printf, 2, 3)))
#endif
		;

/* ---- the option layer (options.c) ----
 *
 * A command lists its options once, in a table of struct brp_opt; the layer
 * makes getopt_long's tables from it, refuses what getopt refuses (an unknown
 * option, a missing value) and a single-valued option given twice, and gives
 * a parser per kind of value. Every refusal is one line in one form,
 * "brp CMD: --NAME takes WHAT, not 'VALUE'" for a value, and makes the
 * command exit with BRP_EXIT_USAGE. Options shared by several commands (the
 * batch options, the rules) are the BRP_OPT_* rows below and are read by the
 * shared handlers, so they are spelt and checked the same everywhere.
 */

/* The codes of the options without a short letter: shared ones first, a command's own from BRP_OPT_OWN. */
enum {
	BRP_OPT_LIST = 256,   /* --from-list FILE */
	BRP_OPT_TIMEOUT,      /* --timeout SECS */
	BRP_OPT_JSON,         /* --json */
	BRP_OPT_PASSFD,       /* --passphrase-fd N */
	BRP_OPT_LOGFILE,      /* --log FILE (- or /dev/stdin: standard input) */
	BRP_OPT_SEAT,         /* --seat I=NAME */
	BRP_OPT_FIRST_DEALER, /* --first-dealer S */
	BRP_OPT_KEYRING,      /* --keyring FILE */
	BRP_OPT_OWN = 300
};

struct brp_opt {
	const char *name; /* the long name, without "--"; NULL ends a table */
	int arg;          /* 1: the option takes a value */
	int val;          /* its short letter (an ASCII letter: -x works too), or a code from 256 */
	int many;         /* 1: may be given more than once (-K, --set); else a second one is refused */
	int group;        /* options with the same non-zero group set one thing: one of them at most */
};

#define BRP_OPT_JOBS                                                                                                   \
	{                                                                                                                  \
		"jobs", 1, 'j', 0, 0                                                                                           \
	}
#define BRP_OPT_FROM_LIST                                                                                              \
	{                                                                                                                  \
		"from-list", 1, BRP_OPT_LIST, 0, 0                                                                             \
	}
#define BRP_OPT_QUIET                                                                                                  \
	{                                                                                                                  \
		"quiet", 0, 'q', 0, 0                                                                                          \
	}
#define BRP_OPT_TIMEOUT_ROW                                                                                            \
	{                                                                                                                  \
		"timeout", 1, BRP_OPT_TIMEOUT, 0, 0                                                                            \
	}
#define BRP_OPT_JSON_ROW                                                                                               \
	{                                                                                                                  \
		"json", 0, BRP_OPT_JSON, 0, 0                                                                                  \
	}
#define BRP_OPT_RULES                                                                                                  \
	{                                                                                                                  \
		"rules", 1, 'r', 0, 1                                                                                          \
	}
#define BRP_OPT_SET                                                                                                    \
	{                                                                                                                  \
		"set", 1, 's', 1, 0                                                                                            \
	}
#define BRP_OPT_PASSFD_ROW                                                                                             \
	{                                                                                                                  \
		"passphrase-fd", 1, BRP_OPT_PASSFD, 0, 0                                                                       \
	}
/* --log FILE: once in a command that reads one log, repeatable in a batch (brp verify, brp stats) */
#define BRP_OPT_LOG                                                                                                    \
	{                                                                                                                  \
		"log", 1, BRP_OPT_LOGFILE, 0, 0                                                                                \
	}
#define BRP_OPT_LOGS                                                                                                   \
	{                                                                                                                  \
		"log", 1, BRP_OPT_LOGFILE, 1, 0                                                                                \
	}
/* -K/--key FILE and --keyring FILE: trusted public keys (brp verify, brp export), read by brp_keyring_add */
#define BRP_OPT_KEY                                                                                                    \
	{                                                                                                                  \
		"key", 1, 'K', 1, 0                                                                                            \
	}
#define BRP_OPT_KEYRING_ROW                                                                                            \
	{                                                                                                                  \
		"keyring", 1, BRP_OPT_KEYRING, 1, 0                                                                            \
	}
/* the match's table: -p/--players N, --seat I=NAME (repeatable), --first-dealer S (brp_table_option) */
#define BRP_OPT_PLAYERS                                                                                                \
	{                                                                                                                  \
		"players", 1, 'p', 0, 0                                                                                        \
	}
#define BRP_OPT_SEAT_ROW                                                                                               \
	{                                                                                                                  \
		"seat", 1, BRP_OPT_SEAT, 1, 0                                                                                  \
	}
#define BRP_OPT_FIRST_DEALER_ROW                                                                                       \
	{                                                                                                                  \
		"first-dealer", 1, BRP_OPT_FIRST_DEALER, 0, 0                                                                  \
	}
#define BRP_OPT_HELP                                                                                                   \
	{                                                                                                                  \
		"help", 0, 'h', 0, 0                                                                                           \
	}
#define BRP_OPT_END                                                                                                    \
	{                                                                                                                  \
		NULL, 0, 0, 0, 0                                                                                               \
	}

#define BRP_OPT_MAX 32

/* The parsing state of one command line. */
struct brp_getopt {
	const char *cmd;
	const struct brp_opt *opts;
	int argc;
	char **argv;
	const char *arg;           /* the value of the option last returned (NULL for a flag) */
	const struct brp_opt *cur; /* the option last returned */
	int n;
	struct option table[BRP_OPT_MAX + 1];
	char shorts[3 * BRP_OPT_MAX + 2];
	unsigned char seen[BRP_OPT_MAX];
};

/* Start parsing argv[0..argc) (argv[0]: the command) with the options of opts. */
void brp_getopt_init(struct brp_getopt *g, const char *cmd, const struct brp_opt *opts, int argc, char **argv);
/*
 * The next option: its val; -1 after the last (the operands are then
 * argv[brp_getopt_index(g)..argc), options and operands may be mixed, "--"
 * ends the options); BRP_OPT_BAD after printing why the command line is
 * refused (the command returns BRP_EXIT_USAGE).
 */
#define BRP_OPT_BAD (-2)
int brp_getopt_next(struct brp_getopt *g);
/* The index of the first operand, once brp_getopt_next has returned -1. */
int brp_getopt_index(const struct brp_getopt *g);
/* "--NAME" of the option last returned. */
const char *brp_opt_name(const struct brp_getopt *g);

/*
 * The value parsers: each reads g->arg, the value of the option last
 * returned; 0 on success, else one line "--NAME takes WHAT, not 'VALUE'" and
 * BRP_EXIT_USAGE.
 */
/* A decimal number from lo to hi (no sign, no blank, no other character). */
int brp_opt_long(const struct brp_getopt *g, long lo, long hi, long *out);
/* The same, into an int. */
int brp_opt_int(const struct brp_getopt *g, int lo, int hi, int *out);
/* Any decimal number a uint64_t holds (a seed). */
int brp_opt_u64(const struct brp_getopt *g, uint64_t *out);
/* One of the words names[0..] (NULL-terminated): *out its index. */
int brp_opt_choice(const struct brp_getopt *g, const char *const *names, int *out);
/* A rule profile the library knows, in any case (*out: its name as the library spells it). */
int brp_opt_profile(const struct brp_getopt *g, const char **out);
/* A path: anything but the empty string. */
int brp_opt_path(const struct brp_getopt *g, const char **out);
/* KEY=VALUE with a non-empty KEY (what: how the help writes it, "NAME=VALUE"): *value after the '='. */
int brp_opt_pair(const struct brp_getopt *g, const char *what, const char **value);
/* Exactly 2 * n hex digits into out[0..n). */
int brp_opt_hex(const struct brp_getopt *g, uint8_t *out, size_t n);
/* The one message form: "--NAME takes WHAT, not 'VALUE'"; returns BRP_EXIT_USAGE. */
int brp_opt_refuse(const struct brp_getopt *g, const char *what);

/* The batch options: -j/--jobs, --from-list, -q/--quiet, --timeout. */
struct brp_batch {
	int jobs;         /* 1..256, default 1 */
	const char *list; /* --from-list, or NULL */
	int quiet;
	long timeout; /* seconds, 0..86400, default 600 */
};
#define BRP_BATCH_INIT                                                                                                 \
	{                                                                                                                  \
		1, NULL, 0, 600                                                                                                \
	}
/*
 * Take option c if it is one of the batch options: 1 taken, 0 not one of
 * them, BRP_EXIT_USAGE a bad value (said).
 */
int brp_batch_option(const struct brp_getopt *g, int c, struct brp_batch *b);

/* The rules options: -r/--rules PROFILE and -s/--set NAME=VALUE (repeatable). */
struct brp_rules_opts {
	const char *profile; /* NULL: not given */
	const char **sets;
	int nsets, cap;
};
/* Take option c if it is -r or -s: 1 taken, 0 not one of them, BRP_EXIT_USAGE or BRP_EXIT_FAIL (said). */
int brp_rules_option(const struct brp_getopt *g, int c, struct brp_rules_opts *r);
/* Add one more "NAME=VALUE" (the option's or the command's own); BRP_EXIT_FAIL when out of memory. */
int brp_rules_opts_add(const char *cmd, struct brp_rules_opts *r, const char *set);
/* Frees sets; the struct may be used again. */
void brp_rules_opts_free(struct brp_rules_opts *r);

/*
 * The table of a match as brp record takes it: -p/--players (2 or 4, default
 * 4), --seat I=NAME (a seat's name, once a seat), --first-dealer S (default:
 * the last seat, so that seat 0 moves first). given: one of them was given.
 */
struct brp_table_opts {
	int players;
	const char *name[RPL_MAX_SEATS]; /* NULL: unnamed */
	int first_dealer;
	int dealer_given, given;
};
#define BRP_TABLE_INIT                                                                                                 \
	{                                                                                                                  \
		4, { NULL }, 0, 0, 0                                                                                           \
	}
/* Take option c if it is -p, --seat or --first-dealer: 1 taken, 0 not one of them, BRP_EXIT_USAGE (said). */
int brp_table_option(const struct brp_getopt *g, int c, struct brp_table_opts *t);
/* Once every option is read: the seats and the first dealer against the players; 0, or BRP_EXIT_USAGE (said). */
int brp_table_finish(const char *cmd, struct brp_table_opts *t);

/*
 * Report the option getopt_long() just refused ('?' or ':' from an
 * optstring starting with ':'), as one line, and return BRP_EXIT_USAGE.
 */
int brp_bad_option(const char *cmd, int c, char **argv);

/*
 * A rule set for profile (NULL: "stbl") with the overrides in sets[0..nsets)
 * applied, each "NAME=VALUE". Returns 0, or prints one line and returns
 * BRP_EXIT_USAGE (an unknown profile or parameter, a bad value) or
 * BRP_EXIT_FAIL (out of memory); *out is then NULL.
 */
int brp_rules_make(const char *cmd, const char *profile, const char *const *sets, int nsets, rpl_rules **out);

/*
 * The logs a batch command works on, one path at a time, so that memory does
 * not grow with their number: the arguments in order, a directory walked for
 * *.brp in name order (one directory's entries held at a time), "-" the paths
 * listed on standard input, one a line, read as they are needed; then the
 * paths listed in the --from-list file (list; "-": standard input; NULL: none).
 * A path that does not exist is given as it is: the command reports it in its
 * place. Empty lines are skipped, a line's CR and LF dropped; a line longer
 * than BRP_LIST_LINE_MAX bytes (PATH_MAX on Linux, with its NUL) cannot be a
 * path and stops the list, quoting 40 bytes of it. A walk enters each
 * directory once and gives each log once (by device and inode): a directory
 * or a log met again through a link is skipped, with one line on stderr. A
 * directory met on the way that cannot be opened or read (no permission, a
 * link into /proc, a path too long) is said in one line, "PATH: cannot open:
 * REASON", and the walk goes on past it, as find does; the command then
 * exits 3 (brp_source_unreadable).
 */
#define BRP_LIST_LINE_MAX 4095
struct brp_source;

/*
 * A source over argv[0..argc) and list. The directories among the arguments
 * are opened once and the list file opened here, so that these mistakes stop
 * a command before any work; a list that is a directory is refused (it would
 * read as an empty list). On failure prints one line and returns -1 (*out is
 * then NULL).
 */
int brp_source_new(struct brp_source **out, const char *cmd, int argc, char **argv, const char *list);
/*
 * The next path in *path, NULL after the last; it stays valid until the next
 * call. Returns 0, or -1 when a list cannot be read on (a line too long, a
 * NUL byte, a read error) or memory runs out: that is not printed, so that
 * the caller can print it in its place, after the results of the paths
 * before it (brp_source_errmsg); every later call fails too.
 */
int brp_source_next(struct brp_source *src, const char **path);
/* Why brp_source_next failed, one line; NULL while it has not. */
const char *brp_source_errmsg(const struct brp_source *src);
/* How many directories the walks could not open or read (each said on stderr): non-zero makes the exit 3. */
size_t brp_source_unreadable(const struct brp_source *src);
/*
 * Logs read from standard input (a pipe: `... | brp verify --log -`). A
 * path to a FIFO stays refused (a hostile FIFO could block a batch forever);
 * the explicit spellings read the stream whole, into memory, up to the
 * reader's limit. In a batch command (a source) standard input is either the
 * list of paths (-, --from-list -) or one log (--log -, /dev/stdin among the
 * arguments), never both. The log read from it is named "-" in every output.
 *
 * brp_source_stdin_log: let src give the stdin log, first when first (--log
 * -), and in place of each /dev/stdin among the arguments; on a second use
 * of standard input prints one line and returns -1. The path the source
 * gives for it is brp_stdin_name ("-"), told apart from a path "-" by its
 * address: brp_is_stdin_log.
 */
extern const char brp_stdin_name[];
int brp_source_stdin_log(struct brp_source *src, int first);
int brp_is_stdin_log(const char *path);
/* 1 when a single-log command's argument means standard input: "-" or "/dev/stdin". */
int brp_stdin_spelling(const char *arg);
/* rpl_reader_open, or rpl_reader_open_fd on standard input when brp_stdin_spelling(arg). */
int brp_open_log(const char *arg, rpl_reader **rd);
/* rpl_verify_file_trusted, the stdin log (brp_is_stdin_log) read from standard input. */
int brp_verify_log(const char *path, const rpl_rules *rules, const rpl_keyring *trusted, rpl_verdict *out,
                   const rpl_verify_observer *obs);

/*
 * An output file written whole (brp dump -o, brp view -o): written to a new
 * file in the output's directory, unnamed (O_TMPFILE) or under a fresh name
 * no one can guess made with O_EXCL|O_NOFOLLOW, and renamed over the
 * output only once complete, so that a failure (a full disk) leaves nothing
 * and an existing output untouched, and a link planted anywhere is never
 * written through. An output that is a symbolic link is refused; one that
 * exists and is neither a regular file nor a directory (a device such as
 * /dev/full, a FIFO) is written as it is.
 *
 * brp_output_open: 0 with o->f to write to; -1 with why (the system's reason,
 * or "a symbolic link, not a regular file"), nothing made. brp_output_commit:
 * flush, sync and put in place; 0, or -1 with why and nothing left.
 * brp_output_discard: close and remove; accepts an o already committed.
 */
struct brp_output {
	FILE *f;
	int fd;      /* the new file; -1 when the output is a device, written as it is */
	char *path;  /* the output's path */
	char *name;  /* the new file's name, while it has one (not unnamed) */
	int unnamed; /* made with O_TMPFILE: linked into place at commit */
};
int brp_output_open(struct brp_output *o, const char *path, char *why, size_t cap);
int brp_output_commit(struct brp_output *o, char *why, size_t cap);
void brp_output_discard(struct brp_output *o);

/*
 * How many paths a source over the same arguments and list gives, walked
 * once ahead without a word (for a progress line's total); 0 when it cannot
 * be known without taking what it reads: standard input among them, or a
 * list that is not a regular file (a pipe). The walk reads directories only.
 */
size_t brp_source_total(int argc, char **argv, const char *list);
/* How many paths brp_source_next has given. */
size_t brp_source_count(const struct brp_source *src);
/* Accepts NULL. */
void brp_source_free(struct brp_source *src);

/*
 * Run job on every path of src with jobs threads; out receives each result in
 * the paths' order, one at a time (never concurrently). slot_size: the size of
 * a result. The threads take paths from src through a window of slots, so
 * memory depends on jobs, not on the number of paths. out returns 0 to go on,
 * non-zero to stop: no path is taken after it and no result handed out; the
 * results made meanwhile go to drop (NULL: nothing to release), and the run
 * returns 1 (out says why, not the pool). On failure (out of memory, no
 * thread, or src failed: its message comes after every result before it)
 * prints one line and returns -1; the results before it have been handed to
 * out. Else 0.
 */
typedef void (*brp_job_fn)(const char *path, void *result, void *ud);
typedef int (*brp_out_fn)(const char *path, const void *result, void *ud);
typedef void (*brp_drop_fn)(void *result, void *ud);
int brp_pool_run(const char *cmd, struct brp_source *src, int jobs, size_t slot_size, brp_job_fn job, brp_out_fn out,
                 brp_drop_fn drop, void *ud);

/* *buf becomes a copy of s, grown (*cap bytes) when s does not fit; -1 when out of memory. */
int brp_copy_string(char **buf, size_t *cap, const char *s);

/* Parse exactly 2 * n hex digits (either case) into out[0..n); -1 when s is not that. */
int brp_parse_hex(const char *s, uint8_t *out, size_t n);
/*
 * Write s to f for a terminal, every text output's one escaping (JSON and the
 * notation have their own): a control character (below 0x20, 0x7f, and the
 * C1 controls U+0080 to U+009F) and a byte that is not part of well-formed
 * UTF-8 as \xHH, except \n, \t and \r; a backslash as \\. So a file or a
 * player name cannot move the cursor, set the title or end a line, and the
 * escaped text reads back unambiguously. Other UTF-8 passes through.
 */
void brp_text(FILE *f, const char *s);
/* The same, of at most the first max bytes of s (cut at a character's start). */
void brp_text_n(FILE *f, const char *s, size_t max);

/*
 * Write s to f as a JSON string literal, quotes included: JSON is UTF-8, so a
 * byte that is not part of well-formed UTF-8 is written as U+FFFD (as the
 * export writes such a byte), a control character as \uXXXX.
 */
void brp_json_string(FILE *f, const char *s);
/*
 * The length of the well-formed UTF-8 sequence (RFC 3629: no overlong form,
 * no surrogate, at most U+10FFFF) at p, else 0; p is NUL-terminated.
 */
size_t brp_utf8_len(const unsigned char *p);

/*
 * A progress line on standard error while a long command runs, drawn only when
 * standard error is a terminal and quiet is 0 (progress.c). total: the number
 * of units when known, else 0. brp_progress_clear wipes the line before a
 * result is printed to the terminal (the next step draws it again);
 * brp_progress_end leaves the final count on a line of its own.
 */
struct brp_progress {
	const char *cmd, *unit;
	int on, shown;
	size_t total, done;
	double start, last;
};
void brp_progress_start(struct brp_progress *p, const char *cmd, const char *unit, int quiet, size_t total);
void brp_progress_step(struct brp_progress *p, size_t done);
void brp_progress_clear(struct brp_progress *p);
void brp_progress_end(struct brp_progress *p);

/* Room for one line of brp show's notes: a rule's message and the decision around it. */
#define BRP_NOTE_SIZE 640

#define BRP_DEFAULT_PROFILE "stbl"

/* ---- simulated matches (util.c): what simulate, arena and play derive from a seed ---- */

/* splitmix64's finalizer: a seed spread over 64 bits (the same on every machine). */
uint64_t brp_mix64(uint64_t x);
/*
 * The committed seed of a simulated match and nplayer_seeds players' seeds,
 * drawn in that order from a stream started at brp_mix64(seed ^ salt): not
 * secret, so that the same seed deals the same match again. Each command has
 * its own salt, so that its matches are its own.
 */
void brp_commit_secrets(uint64_t seed, uint64_t salt, int nplayer_seeds, uint8_t dseed[RPL_DEAL_SEED_SIZE],
                        uint8_t pseeds[][RPL_DEAL_SEED_SIZE]);

/*
 * The search bot's strength in a bot kind: "search" (RPL_SEARCH_SAMPLES
 * samples a decision) or "search:N", N digits 1 to 1000. 0 with *samples
 * set; -1 for any other text (another kind, or a bad N), *samples unchanged.
 */
int brp_search_kind(const char *arg, int *samples);
/*
 * Run fn(arg) on jobs threads and wait for them all. Returns how many
 * started (fewer than jobs: "cannot start a thread" said), or -1 when out of
 * memory (said); the caller counts a shortfall as a failure.
 */
int brp_threads_run(const char *cmd, int jobs, void *(*fn)(void *), void *arg);
/*
 * Do rules allow players seats? -1 when they do; else the exit code, said
 * for cmd: a usage error, or a failure when out of memory. simulate and
 * arena ask before anything is played.
 */
int brp_players_allowed(const char *cmd, const rpl_rules *rules, int players);

/* ---- a corpus counted (tally.c): the figures of brp stats, which brp report shows too ---- */

/* What the logs that verify ok hold, and the others counted by verdict. All longs: added as an array. */
struct brp_counts {
	long matches, deals, turns, actions, bytes;
	long pile_taken, pile_frozen, rejects, morto_direct, morto_indirect, morto_to_stock;
	long ended_out, ended_stock, vulnerable_open;
	long canastras[RPL_CANASTRA_NCAT];
	long verdicts[RPL_VERDICT_UNTRUSTED + 1];
	long unreadable;
};
/* to += c. */
void brp_counts_add(struct brp_counts *to, const struct brp_counts *c);
/* One deal of g just ended: its figures into c. */
void brp_counts_deal(struct brp_counts *c, const rpl_game *g);
/* A verification observer's after (ctx: a struct brp_counts): the decisions, and each deal as it ends. */
int brp_counts_after(void *ctx, const rpl_event *ev, const rpl_game *g);
/*
 * Verify the log path and count it into *c (zeroed first), in one pass (one
 * decode, one replay); extra (may be NULL) observes the same pass after the
 * counting. The events are kept only for a log that verifies ok; the others
 * are counted by verdict. Returns 0, or the error that kept the log from
 * being read (c->unreadable is then 1); message gets the line to say for an
 * unreadable or malformed log, else "".
 */
int brp_counts_log(const char *path, struct brp_counts *c, rpl_verdict *v, char *message, size_t cap,
                   const rpl_verify_observer *extra);
/* brp stats' table and JSON object (no newline after it). */
void brp_counts_print_text(FILE *f, const struct brp_counts *c);
void brp_counts_print_json(FILE *f, const struct brp_counts *c);
/*
 * The exit code the counts give, as brp verify's: a failure when a log or a
 * directory (unreadable_dirs) could not be read, or a log is damaged; no when
 * a log is not ok otherwise; else yes.
 */
int brp_counts_status(const struct brp_counts *c, int unreadable_dirs);
/*
 * The logs a counting command (stats, report) reads: the --log paths
 * (logs_v[0..logs)) first, then argv[first..argc); a new array (free) of
 * *nargs paths and a NULL, or NULL when out of memory (said).
 */
char **brp_corpus_args(const char *cmd, const char **logs_v, int logs, int argc, char **argv, int first, int *nargs);
/*
 * Read that corpus: *src made from the nargs paths args and b's list (the
 * caller's, brp_source_free; standard input is a log at stdin_first), each
 * log handed to job on b->jobs threads and its result to out in order, with
 * the progress prog counting logs. Returns 0, or the exit status: usage when
 * standard input is named twice or no log is found (said), a failure when
 * the pool or a directory could not be read (said).
 */
int brp_corpus_read(const char *cmd, struct brp_source **src, int nargs, char **args, const struct brp_batch *b,
                    int stdin_first, struct brp_progress *prog, size_t slot_size, brp_job_fn job, brp_out_fn out,
                    void *ud);

/* ---- keys (keys.c) ---- */
#define BRP_PASSPHRASE_MAX 1024

/*
 * A passphrase: one line from file descriptor fd, or (fd < 0) asked on the
 * terminal with echo off, twice when confirm. On failure one line and -1.
 */
int brp_passphrase(const char *cmd, int fd, int confirm, char *buf, size_t cap);
/* A secret key file, asking for its passphrase (from passfd, or the terminal) if it is encrypted. */
int brp_seckey_open(const char *cmd, const char *path, int passfd, rpl_seckey **out);
/* Add the public keys of path (a .pub file or a keyring) to *kr, made on first use. */
int brp_keyring_add(const char *cmd, rpl_keyring **kr, const char *path);

/* ---- brp view's course charts (view_course.c; docs/view.md, "The match's course") ---- */
struct brp_course;
/* An empty record of a match's course: NULL out of memory. */
struct brp_course *brp_course_new(void);
/* Free c (NULL: nothing). */
void brp_course_free(struct brp_course *c);
/* Keep what the charts need of p, the next position of the match: 0, or RPL_ENOMEM. */
int brp_course_add(struct brp_course *c, const rpl_position *p);
/*
 * The index of the disputed position for verdict v (-1: none, an ok log),
 * where the page opens for it: open, the index brp view opens at (the
 * refused decision, where trust ends, where an incomplete log stops), except
 * for a dead end (the decision that caused it), a mismatch (the end of the
 * mismatched deal; the deal as dealt for one the committed seed does not
 * derive), a malformed log (its last position).
 */
int brp_course_disputed(const struct brp_course *c, const rpl_verdict *v, int open);
/* The charts of the match's course as an HTML section into f, disputed marked (-1: nothing); none for no position. */
void brp_course_write(FILE *f, const struct brp_course *c, int disputed, const rpl_verdict *v);

#endif
