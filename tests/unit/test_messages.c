/*
 * What a message says (docs/conventions.md, section 4): one line, never the
 * path the caller gave, never a message cut apart or repeated, and every
 * message buffer of one size.
 */
#include "testlib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SRCROOT
#error "SRCROOT must be defined"
#endif

#define MISSING "/nonexistent/brp-test-dir/x.brp"
#define MISSING_DB "/nonexistent/brp-test-dir/x.db"

/* A message: set, one line, and free of what the caller knows (its path). */
#define assert_message(msg, path) assert_message_at((msg), (path), __FILE__, __LINE__)
static void assert_message_at(const char *msg, const char *path, const char *file, int line)
{
	if (!msg || !*msg)
		_fail(file, line);
	if (strchr(msg, '\n') || strlen(msg) >= RPL_ERRMSG_SIZE)
		_fail(file, line);
	if (path && strstr(msg, path)) {
		print_error("message repeats the caller's path %s: \"%s\"\n", path, msg);
		_fail(file, line);
	}
}

/* Every public message buffer has the one size. */
static void one_size(void **state)
{
	(void)state;
	assert_int_equal(sizeof(((rpl_verdict *)0)->message), RPL_ERRMSG_SIZE);
	assert_int_equal(sizeof(((rpl_recover_report *)0)->message), RPL_ERRMSG_SIZE);
	assert_int_equal(sizeof(((rpl_meld_check_result *)0)->reason), RPL_ERRMSG_SIZE);
}

static void recorder_open_names_no_path(void **state)
{
	rpl_rules *r = tl_rules("stbl", NULL);
	rpl_match_info info = { .rules = r, .nplayers = 2, .first_dealer = 1 };
	rpl_recorder *rec = NULL;
	(void)state;

	assert_int_equal(rpl_recorder_open(&rec, MISSING, &info, 0), RPL_EIO);
	assert_non_null(rec);
	assert_message(rpl_recorder_errmsg(rec), MISSING);
	assert_string_equal(rpl_recorder_errmsg(rec), strerror(ENOENT));
	rpl_recorder_free(rec);
	rec = NULL;
	/* a directory is not a log: said without its name */
	assert_int_equal(rpl_recorder_open(&rec, SRCROOT "/samples", &info, 0), RPL_EIO);
	assert_message(rpl_recorder_errmsg(rec), SRCROOT);
	assert_string_equal(rpl_recorder_errmsg(rec), "not a regular file");
	rpl_recorder_free(rec);
	rpl_rules_free(r);
}

/*
 * A message matches its rule: the recorder's refusal of a card not held,
 * after a refusal of another rule, says the card is not held (it once
 * repeated the engine's previous refusal).
 */
static void recorder_refusal_says_its_own_rule(void **state)
{
	rpl_rules *r = tl_rules("stbl", NULL);
	rpl_match_info info = { .rules = r, .nplayers = 2, .first_dealer = 1 };
	rpl_recorder *rec = NULL;
	rpl_layout lay;
	rpl_action draw = A_DRAW, set = A_MELD("8c 8d 8h"), ghost = A_MELD("Ac 2c 3c");
	char path[256];
	(void)state;

	snprintf(path, sizeof path, "%s/brp-test-messages-%ld.brp", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
	         (long)getpid());
	tl_layout(&lay, 2, .hand = { "8c 8d 8h 3s 4s 5s 9c 10c Jc Qh Kh", NULL }, .stock = "6s");
	assert_int_equal(rpl_recorder_open(&rec, path, &info, 0), 0);
	assert_int_equal(rpl_recorder_deal(rec, &lay), 0);
	assert_int_equal(rpl_recorder_action(rec, &draw), 0);
	assert_int_equal(rpl_recorder_action(rec, &set), RPL_EILLEGAL);
	assert_int_equal(rpl_recorder_rule(rec), RPL_RULE_MELD_SUIT);
	assert_int_equal(rpl_recorder_action(rec, &ghost), RPL_EILLEGAL);
	assert_int_equal(rpl_recorder_rule(rec), RPL_RULE_NOT_IN_HAND);
	assert_message(rpl_recorder_errmsg(rec), path);
	assert_string_equal(rpl_recorder_errmsg(rec), "STBL: Ac is not in seat 0's hand");
	rpl_recorder_free(rec);
	remove(path);
	rpl_rules_free(r);
}

static void reader_and_verify_name_no_path(void **state)
{
	rpl_reader *rd = NULL;
	rpl_verdict v;
	(void)state;

	assert_int_equal(rpl_reader_open(&rd, MISSING), RPL_EIO);
	assert_message(rpl_reader_errmsg(rd), MISSING);
	rpl_reader_free(rd);
	assert_int_equal(rpl_verify_file(MISSING, NULL, &v), RPL_EIO);
	assert_message(v.message, MISSING);
}

/* The importer says why it cannot write; the caller, which knows out_path, says where. */
static void import_names_no_path(void **state)
{
	static const char text[] = "[Notation \"1\"]\n[Profile \"stbl\"]\n[Players \"2\"]\n[FirstDealer \"0\"]\n";
	char err[RPL_ERRMSG_SIZE];
	(void)state;

	assert_int_equal(rpl_notation_import(text, sizeof text - 1, MISSING, err, sizeof err), RPL_EIO);
	assert_message(err, MISSING);
	assert_int_equal(rpl_notation_import(text, sizeof text - 1, SRCROOT "/samples", err, sizeof err), RPL_EIO);
	assert_message(err, SRCROOT);
	assert_string_equal(err, "a directory, not a regular file");
}

/* rpl_recover says which side failed (rep.output), not the path of either. */
static void recover_names_no_path(void **state)
{
	rpl_recover_report rep;
	(void)state;

	assert_int_equal(rpl_recover(SRCROOT "/samples/disputed/truncated.brp", MISSING, 0, &rep), RPL_EIO);
	assert_int_equal(rep.output, 1);
	assert_message(rep.message, MISSING);
	assert_int_equal(rpl_recover(SRCROOT "/samples/disputed/truncated.brp", SRCROOT "/samples", 0, &rep), RPL_EIO);
	assert_int_equal(rep.output, 1);
	assert_string_equal(rep.message, "not a regular file");
	assert_true(rpl_recover(MISSING, "unused.brp", 0, &rep) < 0);
	assert_int_equal(rep.output, 0);
	assert_message(rep.message, MISSING);
}

/* SQLite's own messages name the file: the export says the same without it. */
static void export_db_names_no_path(void **state)
{
	rpl_export_db *db = NULL;
	char path[256];
	(void)state;

	assert_int_equal(rpl_export_db_open(&db, MISSING_DB, 0), RPL_EIO);
	assert_message(rpl_export_db_errmsg(db), MISSING_DB);
	rpl_export_db_free(db);
	db = NULL;

	snprintf(path, sizeof path, "%s/brp-test-messages-%ld.db", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
	         (long)getpid());
	assert_int_equal(rpl_export_db_open(&db, path, 0), 0);
	assert_true(rpl_export_db_merge(db, MISSING_DB, NULL) < 0);
	assert_message(rpl_export_db_errmsg(db), MISSING_DB);
	rpl_export_db_free(db);
	remove(path);
}

/*
 * The engine's refusal of a lay that leaves one card wraps the reason of the
 * going-out rule: the profile is said once, the reason whole.
 */
static void keep_a_card_message_whole(void **state)
{
	rpl_game *g = tl_game("stbl", NULL, 2, 1);
	const char *msg;
	(void)state;

	tl_deal(g, .hand = { "3h 4h JK 6h 7h 8h 3s 4s 2c 6s 7s", NULL },
	        .morto = { "9h 10h Jh 9s 10s Js 5c 6c 7c 5d 8c", NULL }, .stock = "8s");
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("3h 4h JK 6h 7h 8h"));
	assert_applied(g, A_MELD("3s 4s 2c 6s 7s 8s"));
	assert_applied(g, A_MORTO(0));
	assert_applied(g, A_ADD(0, 0, "9h 10h Jh"));
	assert_applied(g, A_ADD(0, 1, "9s 10s Js"));
	assert_refused(g, A_MELD("5c 6c 7c 8c"), RPL_RULE_OUT_NO_CLEAN);
	msg = rpl_game_errmsg(g);
	assert_message(msg, NULL);
	assert_string_equal(msg, "STBL: this leaves one card, 5d, which could not end the turn: going out needs a "
	                         "clean canastra on the side's table: the player keeps a card");
	rpl_game_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_size),
		cmocka_unit_test(recorder_open_names_no_path),
		cmocka_unit_test(recorder_refusal_says_its_own_rule),
		cmocka_unit_test(reader_and_verify_name_no_path),
		cmocka_unit_test(import_names_no_path),
		cmocka_unit_test(recover_names_no_path),
		cmocka_unit_test(export_db_names_no_path),
		cmocka_unit_test(keep_a_card_message_whole),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
