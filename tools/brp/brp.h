/*
 * brp: helpers shared by the subcommands.
 *
 * Every subcommand is a function cmd_NAME(argc, argv) with argv[0] the
 * subcommand's name; it returns one of the exit codes below. Diagnostics are
 * one line on stderr, "brp NAME: message"; results go to stdout.
 */
#ifndef BRP_H
#define BRP_H

#include <stdio.h>

#include <libreplay/libreplay.h>

/* Exit codes, shared by every subcommand. */
enum brp_exit {
	BRP_EXIT_OK = 0,    /* success; for a check: the answer is yes */
	BRP_EXIT_NO = 1,    /* the check ran and the answer is no (an invalid meld) */
	BRP_EXIT_USAGE = 2  /* a usage error, bad input, or a failure */
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
int cmd_dump(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_deal(int argc, char **argv);
int cmd_keygen(int argc, char **argv);
int cmd_sign(int argc, char **argv);
int cmd_view(int argc, char **argv);

/*
 * Print "brp CMD: message" and a newline to stderr (cmd may be NULL); the
 * message is written through brp_text, so it stays one line.
 */
void brp_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

/*
 * Report the option getopt_long() just refused ('?' or ':' from an
 * optstring starting with ':'), as one line, and return BRP_EXIT_USAGE.
 */
int brp_bad_option(const char *cmd, int c, char **argv);

/*
 * A rule set for profile (NULL: "stbl") with the overrides in sets[0..nsets)
 * applied, each "NAME=VALUE". On failure prints one line and returns -1;
 * *out is then NULL.
 */
int brp_rules_make(const char *cmd, const char *profile, char *const *sets, int nsets,
                   rpl_rules **out);

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
 * or a log met again through a link is skipped, with one line on stderr.
 */
#define BRP_LIST_LINE_MAX 4095
struct brp_source;

/*
 * A source over argv[0..argc) and list. The directories among the arguments
 * are opened once and the list file opened here, so that these mistakes stop
 * a command before any work. On failure prints one line and returns -1 (*out
 * is then NULL).
 */
int brp_source_new(struct brp_source **out, const char *cmd, int argc, char **argv, const char *list);
/*
 * The next path in *path, NULL after the last; it stays valid until the next
 * call. Returns 0, or -1 when a directory met on the way cannot be read or
 * memory runs out: that is not printed, so that the caller can print it in its
 * place, after the results of the paths before it (brp_source_errmsg); every
 * later call fails too.
 */
int brp_source_next(struct brp_source *src, const char **path);
/* Why brp_source_next failed, one line; NULL while it has not. */
const char *brp_source_errmsg(const struct brp_source *src);
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

/* How many paths brp_source_next has given. */
size_t brp_source_count(const struct brp_source *src);
/* Accepts NULL. */
void brp_source_free(struct brp_source *src);

/*
 * Run job on every path of src with jobs threads; out receives each result in
 * the paths' order, one at a time (never concurrently). slot_size: the size of
 * a result. The threads take paths from src through a window of slots, so
 * memory depends on jobs, not on the number of paths. On failure (out of
 * memory, no thread, or src failed: its message comes after every result
 * before it) prints one line and returns -1; the results before it have been
 * handed to out.
 */
typedef void (*brp_job_fn)(const char *path, void *result, void *ud);
typedef void (*brp_out_fn)(const char *path, const void *result, void *ud);
int brp_pool_run(const char *cmd, struct brp_source *src, int jobs, size_t slot_size, brp_job_fn job,
                 brp_out_fn out, void *ud);

/* *buf becomes a copy of s, grown (*cap bytes) when s does not fit; -1 when out of memory. */
int brp_copy_string(char **buf, size_t *cap, const char *s);

/* Parse the argument of --jobs (1..256) into *jobs; on failure one line and -1. */
int brp_parse_jobs(const char *cmd, const char *arg, int *jobs);

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

/* Write s to f as a JSON string literal, quotes included. */
void brp_json_string(FILE *f, const char *s);

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

/* ---- keys (keys.c) ---- */
#define BRP_PASSPHRASE_MAX 1024

/*
 * A passphrase: one line from file descriptor fd, or (fd < 0) asked on the
 * terminal with echo off, twice when confirm. On failure one line and -1.
 */
int brp_passphrase(const char *cmd, int fd, int confirm, char *buf, size_t cap);
/* The argument of --passphrase-fd. On failure one line and -1. */
int brp_parse_fd(const char *cmd, const char *arg, int *fd);
/* A secret key file, asking for its passphrase (from passfd, or the terminal) if it is encrypted. */
int brp_seckey_open(const char *cmd, const char *path, int passfd, rpl_seckey **out);
/* Add the public keys of path (a .pub file or a keyring) to *kr, made on first use. */
int brp_keyring_add(const char *cmd, rpl_keyring **kr, const char *path);

#endif
