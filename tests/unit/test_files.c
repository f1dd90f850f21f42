/*
 * The files the library writes and the key files it reads (issue 22, part 6):
 *
 *   tmpfile      the one helper of every temporary file (tmpfile.h), in both
 *                forms (unnamed, O_TMPFILE; and named): a commit puts the
 *                whole file in place and leaves nothing else in the
 *                directory, a discard leaves nothing at all, a commit that
 *                must not replace keeps what is there, the mode is the one
 *                asked; an output path that is a link, a FIFO or a directory
 *                is refused before anything is made, without waiting
 *   planted      links planted at every name the writers once used (LOG.sign~,
 *                LOG.minisig.part~, OUT.part~, PATH.tmp~): signing, a detached
 *                signature, an import, a salvage and a recorder's close write
 *                their own output and never the link's target
 *   recorder     a recorder's path that is a symbolic link is refused (it
 *                would record into the other file)
 *   key files    a FIFO as a keyring or a secret key is refused at once; a
 *                NUL byte or an overlong line is RPL_EPARSE with its line
 *   keys saved   a key saved over a 0644 file is 0600, never through a link;
 *                an existing public key refuses the pair before the secret
 *                one is made; a save that fails half way (the file size
 *                limit) leaves neither file, and the next save works
 *   signing      a log that is a FIFO or a link is refused; a signed log
 *                keeps its mode exactly
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include "testlib.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log/tmpfile.h"

/* Every test runs under this alarm: a regression that blocks on a FIFO fails instead of hanging. */
#define TIME_LIMIT 20

static char dir[256];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "%s", tl_tmp_path("files"));
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	assert_int_equal(mkdir(dir, 0755), 0);
	alarm(TIME_LIMIT);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	alarm(0);
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

/* dir/name, in one of four buffers. */
static const char *at(const char *name)
{
	static char buf[4][512];
	static int k;
	char *p = buf[k++ % 4];
	snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
	return p;
}

/* The number of entries of dir (not . and ..); *first the name of one of them. */
static int entries(char *first, size_t cap)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (first && n == 0)
			snprintf(first, cap, "%s", de->d_name);
		n++;
	}
	closedir(d);
	return n;
}

static void write_text(const char *path, const char *text)
{
	tl_write_file(path, text, strlen(text));
}

/* The notation writer's callback: into a FILE. */
static int put(void *ud, const char *s, size_t n)
{
	return fwrite(s, 1, n, ud) == n ? 0 : RPL_EIO;
}

/* path holds exactly text. */
static void assert_file_is(const char *path, const char *text)
{
	size_t n;
	unsigned char *p = tl_read_file(path, &n);
	assert_int_equal(n, strlen(text));
	assert_memory_equal(p, text, n);
	free(p);
}

static void tmpfile_forms(void **state)
{
	static const unsigned forms[] = { 0, RPL__TMP_NAMED };
	(void)state;

	for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
		struct rpl__tmpfile t = RPL__TMPFILE_INIT, u = RPL__TMPFILE_INIT;
		char name[256], one[256], other[256], out[512];
		struct stat st;

		snprintf(out, sizeof(out), "%s", at("out.brp"));

		/* a new output: while open, the named form has a hidden name of its own, the unnamed none */
		assert_int_equal(rpl__tmpfile_open(&t, out, 0644, forms[f]), 0);
		assert_int_equal(t.unnamed, forms[f] == 0);
		if (forms[f]) {
			assert_int_equal(entries(one, sizeof(one)), 1);
			assert_true(strncmp(one, ".out.brp.", 9) == 0 && one[strlen(one) - 1] == '~');
			/* two opens: two names no one could have guessed */
			assert_int_equal(rpl__tmpfile_open(&u, out, 0644, forms[f]), 0);
			assert_int_equal(entries(NULL, 0), 2);
			snprintf(other, sizeof(other), "%s", strrchr(u.name, '/') + 1);
			assert_string_not_equal(one, other);
			rpl__tmpfile_discard(&u);
			assert_int_equal(entries(NULL, 0), 1);
		} else {
			assert_int_equal(entries(NULL, 0), 0);
			/* the name that opens it is the descriptor's */
			rpl__tmpfile_name(&t, name, sizeof(name));
			assert_true(strncmp(name, "/proc/self/fd/", 14) == 0);
		}
		assert_int_equal(rpl__tmpfile_write(&t, "abc", 3), 0);
		assert_int_equal(rpl__tmpfile_commit(&t, 0), 0);
		assert_int_equal(t.fd, -1);
		assert_file_is(out, "abc");
		assert_int_equal(entries(NULL, 0), 1);

		/* not replacing: the existing file stays, nothing is left */
		assert_int_equal(rpl__tmpfile_open(&t, out, 0644, forms[f]), 0);
		assert_int_equal(rpl__tmpfile_write(&t, "new", 3), 0);
		assert_int_equal(rpl__tmpfile_commit(&t, 0), -1);
		assert_int_equal(t.errnum, EEXIST);
		assert_file_is(out, "abc");
		assert_int_equal(entries(NULL, 0), 1);

		/* replacing */
		assert_int_equal(rpl__tmpfile_open(&t, out, 0644, forms[f]), 0);
		assert_int_equal(rpl__tmpfile_write(&t, "defg", 4), 0);
		assert_int_equal(rpl__tmpfile_commit(&t, RPL__TMP_REPLACE), 0);
		assert_file_is(out, "defg");
		assert_int_equal(entries(NULL, 0), 1);

		/* discarded: the output as it was, nothing else */
		assert_int_equal(rpl__tmpfile_open(&t, out, 0644, forms[f]), 0);
		assert_int_equal(rpl__tmpfile_write(&t, "lost", 4), 0);
		rpl__tmpfile_discard(&t);
		rpl__tmpfile_discard(&t); /* twice does no harm */
		assert_file_is(out, "defg");
		assert_int_equal(entries(NULL, 0), 1);

		/* a commit that cannot rename (a directory took the path meanwhile) leaves nothing */
		assert_int_equal(rpl__tmpfile_open(&t, at("late"), 0644, forms[f]), 0);
		assert_int_equal(mkdir(at("late"), 0755), 0);
		assert_int_equal(rpl__tmpfile_commit(&t, RPL__TMP_REPLACE), -1);
		assert_int_equal(entries(NULL, 0), 2);
		assert_int_equal(rmdir(at("late")), 0);

		/* the mode: exactly as asked, whatever the umask */
		assert_int_equal(rpl__tmpfile_open(&t, at("mode"), 0604, forms[f] | RPL__TMP_EXACT_MODE), 0);
		assert_int_equal(rpl__tmpfile_commit(&t, 0), 0);
		assert_int_equal(stat(at("mode"), &st), 0);
		assert_int_equal(st.st_mode & 07777, 0604);
		assert_int_equal(unlink(at("mode")), 0);
		assert_int_equal(unlink(out), 0);
	}
}

static void tmpfile_refuses(void **state)
{
	struct rpl__tmpfile t = RPL__TMPFILE_INIT;
	(void)state;

	write_text(at("victim"), "victim");
	assert_int_equal(symlink("victim", at("link.brp")), 0);
	assert_int_equal(rpl__tmpfile_open(&t, at("link.brp"), 0644, 0), -1);
	assert_string_equal(t.why, "a symbolic link, not a regular file");
	assert_int_equal(t.fd, -1);
	assert_int_equal(mkfifo(at("fifo.brp"), 0644), 0);
	assert_int_equal(rpl__tmpfile_open(&t, at("fifo.brp"), 0644, 0), -1);
	assert_string_equal(t.why, "a FIFO, not a regular file");
	assert_int_equal(rpl__tmpfile_open(&t, dir, 0644, 0), -1);
	assert_string_equal(t.why, "a directory, not a regular file");
	assert_int_equal(rpl__tmpfile_open(&t, at("sub/"), 0644, 0), -1);
	assert_string_equal(t.why, "a directory, not a regular file");
	assert_int_equal(rpl__tmpfile_open(&t, at("nosuch/out.brp"), 0644, 0), -1);
	assert_int_equal(t.errnum, ENOENT);
	assert_string_equal(t.why, strerror(ENOENT));
	assert_file_is(at("victim"), "victim");
	assert_int_equal(entries(NULL, 0), 3);
}

/* A 2-player match recorded by hand: a deal and nothing else (enough for a log that reads to its end). */
static void record_log(const char *path)
{
	rpl_rules *r = tl_rules("stbl", NULL);
	rpl_match_info info;
	rpl_recorder *rec = NULL;
	rpl_layout lay;
	rpl_rng rng;

	memset(&info, 0, sizeof(info));
	info.rules = r;
	info.nplayers = 2;
	info.players[0] = "a";
	info.players[1] = "b";
	rpl_rng_seed(&rng, 7);
	rpl_layout_shuffle(&lay, 2, &rng);
	assert_int_equal(rpl_recorder_open(&rec, path, &info, 0), 0);
	assert_int_equal(rpl_recorder_deal(rec, &lay), 0);
	assert_int_equal(rpl_recorder_close(rec), 0);
	rpl_recorder_free(rec);
	rpl_rules_free(r);
}

/* The log at path verifies (any verdict but malformed: it reads). */
static void assert_log(const char *path)
{
	rpl_verdict v;
	assert_int_equal(rpl_verify_file(path, NULL, &v), 0);
	assert_int_not_equal(v.kind, RPL_VERDICT_MALFORMED);
}

/* link is still a symbolic link to "victim", and victim holds "victim". */
static void assert_victim(const char *link)
{
	char target[64];
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = '\0';
	assert_string_equal(target, "victim");
	assert_file_is(at("victim"), "victim");
}

static void planted(void **state)
{
	rpl_seckey *k = NULL;
	rpl_recover_report rep;
	char err[RPL_ERRMSG_SIZE];
	size_t n;
	unsigned char *text;
	(void)state;

	write_text(at("victim"), "victim");
	/* brp sign, in place and detached */
	record_log(at("log.brp"));
	assert_int_equal(symlink("victim", at("log.brp.sign~")), 0);
	assert_int_equal(symlink("victim", at("log.brp.minisig.part~")), 0);
	assert_int_equal(rpl_seckey_generate(&k), 0);
	assert_int_equal(rpl_sign_log(k, at("log.brp")), 0);
	assert_int_equal(rpl_sign_detached(k, at("log.brp"), at("log.brp.minisig"), NULL, 0), 0);
	assert_victim(at("log.brp.sign~"));
	assert_victim(at("log.brp.minisig.part~"));
	assert_log(at("log.brp"));
	{
		struct stat st;
		assert_int_equal(lstat(at("log.brp"), &st), 0);
		assert_true(S_ISREG(st.st_mode));
	}

	/* an import and a salvage */
	text = NULL;
	assert_int_equal(symlink("victim", at("imported.brp.part~")), 0);
	assert_int_equal(symlink("victim", at("imported.brp.part~.tmp~")), 0);
	{
		rpl_reader *rd = NULL;
		char *buf = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&buf, &len);
		assert_non_null(mem);
		assert_int_equal(rpl_reader_open(&rd, at("log.brp")), 0);
		assert_int_equal(rpl_notation_write(rd, put, mem, err, sizeof(err)), 0);
		rpl_reader_free(rd);
		fclose(mem);
		assert_int_equal(rpl_notation_import(buf, len, at("imported.brp"), err, sizeof(err)), 0);
		free(buf);
	}
	assert_victim(at("imported.brp.part~"));
	assert_victim(at("imported.brp.part~.tmp~"));
	assert_log(at("imported.brp"));
	/* the salvage of a cut log: a growing one (a sealed compact log cut is refused whole, format.md 19.5) */
	{
		rpl_rules *r = tl_rules("stbl", NULL);
		rpl_match_info info;
		rpl_recorder *rec = NULL;
		rpl_layout lay;
		rpl_rng rng;
		memset(&info, 0, sizeof(info));
		info.rules = r;
		info.nplayers = 2;
		info.players[0] = "a";
		info.players[1] = "b";
		rpl_rng_seed(&rng, 7);
		rpl_layout_shuffle(&lay, 2, &rng);
		assert_int_equal(rpl_recorder_open(&rec, at("growing.brp"), &info, 0), 0);
		assert_int_equal(rpl_recorder_deal(rec, &lay), 0);
		assert_int_equal(rpl_recorder_flush(rec), 0);
		text = tl_read_file(at("growing.brp"), &n);
		rpl_recorder_free(rec);
		rpl_rules_free(r);
	}
	tl_write_file(at("cut.brp"), text, n - 3);
	free(text);
	assert_int_equal(symlink("victim", at("salvaged.brp.part~")), 0);
	assert_int_equal(symlink("victim", at("salvaged.brp.part~.tmp~")), 0);
	assert_int_equal(rpl_recover(at("cut.brp"), at("salvaged.brp"), 0, &rep), 0);
	assert_victim(at("salvaged.brp.part~"));
	assert_victim(at("salvaged.brp.part~.tmp~"));
	assert_log(at("salvaged.brp"));

	/* a recorder's compact form */
	assert_int_equal(symlink("victim", at("rec.brp.tmp~")), 0);
	record_log(at("rec.brp"));
	assert_victim(at("rec.brp.tmp~"));
	assert_log(at("rec.brp"));
	rpl_seckey_free(k);
}

static void recorder_link(void **state)
{
	rpl_rules *r = tl_rules("stbl", NULL);
	rpl_match_info info;
	rpl_recorder *rec = NULL;
	(void)state;

	write_text(at("victim"), "victim");
	assert_int_equal(symlink("victim", at("link.brp")), 0);
	memset(&info, 0, sizeof(info));
	info.rules = r;
	info.nplayers = 2;
	info.players[0] = "a";
	info.players[1] = "b";
	assert_int_equal(rpl_recorder_open(&rec, at("link.brp"), &info, 0), RPL_EIO);
	assert_non_null(rec);
	assert_string_equal(rpl_recorder_errmsg(rec), "a symbolic link, not a regular file");
	rpl_recorder_free(rec);
	assert_victim(at("link.brp"));
	rpl_rules_free(r);
}

/* The message of kr's failure holds want. */
static void assert_keyring_fails(const char *path, int code, const char *want)
{
	rpl_keyring *kr = NULL;
	assert_int_equal(rpl_keyring_new(&kr), 0);
	assert_int_equal(rpl_keyring_add_file(kr, path), code);
	if (!strstr(rpl_keyring_errmsg(kr), want))
		tl_fail("%s: \"%s\" does not say \"%s\"", path, rpl_keyring_errmsg(kr), want);
	rpl_keyring_free(kr);
}

static void key_files(void **state)
{
	rpl_seckey *k = NULL, *k2 = NULL;
	rpl_pubkey pk;
	char line[RPL_PUBKEY_TEXT], text[9000 + 200];
	static const char nuls[4096];
	(void)state;

	assert_int_equal(rpl_seckey_generate(&k), 0);
	rpl_seckey_public(k, &pk);
	rpl_pubkey_format(&pk, line);

	/* FIFOs: refused at once (the alarm fails a test that would block) */
	assert_int_equal(mkfifo(at("fifo"), 0644), 0);
	assert_keyring_fails(at("fifo"), RPL_EIO, "a FIFO, not a regular file");
	assert_int_equal(rpl_seckey_file_encrypted(at("fifo")), RPL_EIO);
	assert_int_equal(rpl_seckey_load(&k2, at("fifo"), NULL), RPL_EIO);
	assert_non_null(strstr(rpl_seckey_errmsg(k2), "a FIFO, not a regular file"));
	rpl_seckey_free(k2);
	k2 = NULL;
	/* a device: refused, not read for ever */
	assert_keyring_fails("/dev/zero", RPL_EIO, "a character device, not a regular file");

	/* NUL bytes: a file of them, and one in the second line */
	tl_write_file(at("nuls"), nuls, sizeof(nuls));
	assert_keyring_fails(at("nuls"), RPL_EPARSE, "line 1: holds a NUL byte");
	{
		size_t n = (size_t)snprintf(text, sizeof(text), "%s\nRW?RW\n", line);
		text[strlen(line) + 3] = '\0';
		tl_write_file(at("nul2"), text, n);
	}
	assert_keyring_fails(at("nul2"), RPL_EPARSE, "line 2: holds a NUL byte");
	/* a line longer than any key line, between two keys */
	{
		size_t n = (size_t)snprintf(text, sizeof(text), "%s\n", line);
		memset(text + n, 'A', 8193);
		n += 8193;
		n += (size_t)snprintf(text + n, sizeof(text) - n, "\n%s\n", line);
		tl_write_file(at("long"), text, n);
	}
	assert_keyring_fails(at("long"), RPL_EPARSE, "line 2: longer than 8192 bytes");
	/* the same key file without them reads */
	snprintf(text, sizeof(text), "untrusted comment: k\n%s\n", line);
	write_text(at("good.pub"), text);
	{
		rpl_keyring *kr = NULL;
		assert_int_equal(rpl_keyring_new(&kr), 0);
		assert_int_equal(rpl_keyring_add_file(kr, at("good.pub")), 0);
		assert_true(rpl_keyring_has(kr, &pk));
		rpl_keyring_free(kr);
	}

	/* a secret key file with a NUL byte in its key line */
	assert_int_equal(rpl_seckey_save(k, at("s.key"), NULL, NULL, 0), 0);
	{
		size_t n;
		unsigned char *p = tl_read_file(at("s.key"), &n);
		p[strchr((char *)p, '\n') - (char *)p + 5] = '\0';
		tl_write_file(at("s.key"), p, n);
		free(p);
	}
	assert_int_equal(rpl_seckey_file_encrypted(at("s.key")), RPL_EPARSE);
	assert_int_equal(rpl_seckey_load(&k2, at("s.key"), NULL), RPL_EPARSE);
	assert_non_null(strstr(rpl_seckey_errmsg(k2), "line 2: holds a NUL byte"));
	rpl_seckey_free(k2);
	rpl_seckey_free(k);
}

static void keys_saved(void **state)
{
	rpl_seckey *k = NULL, *k2 = NULL;
	struct stat st;
	struct rlimit old, none = { 0, 0 };
	(void)state;

	assert_int_equal(rpl_seckey_generate(&k), 0);
	/* over a 0644 file: the new key is 0600 */
	write_text(at("k.key"), "old\n");
	assert_int_equal(chmod(at("k.key"), 0644), 0);
	assert_int_equal(rpl_seckey_save(k, at("k.key"), at("k.pub"), NULL, RPL_KEY_OVERWRITE), 0);
	assert_int_equal(stat(at("k.key"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(rpl_seckey_load(&k2, at("k.key"), NULL), 0);
	rpl_seckey_free(k2);
	k2 = NULL;

	/* never through a link, even with RPL_KEY_OVERWRITE */
	write_text(at("victim"), "victim");
	assert_int_equal(symlink("victim", at("l.key")), 0);
	assert_int_equal(rpl_seckey_save(k, at("l.key"), at("l.pub"), NULL, RPL_KEY_OVERWRITE), RPL_EIO);
	assert_non_null(strstr(rpl_seckey_errmsg(k), "a symbolic link, not a regular file"));
	assert_victim(at("l.key"));
	assert_int_equal(access(at("l.pub"), F_OK), -1);

	/* an existing public key: refused before the secret key is made */
	write_text(at("p.pub"), "mine\n");
	assert_int_equal(rpl_seckey_save(k, at("p.key"), at("p.pub"), NULL, 0), RPL_EIO);
	assert_int_equal(access(at("p.key"), F_OK), -1);
	assert_file_is(at("p.pub"), "mine\n");

	/* a save that fails half way (no byte may be written) leaves neither file: the next works */
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	none.rlim_max = old.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &none), 0);
	assert_int_equal(rpl_seckey_save(k, at("h.key"), at("h.pub"), NULL, 0), RPL_EIO);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_non_null(strstr(rpl_seckey_errmsg(k), strerror(EFBIG)));
	assert_int_equal(access(at("h.key"), F_OK), -1);
	assert_int_equal(access(at("h.pub"), F_OK), -1);
	assert_int_equal(rpl_seckey_save(k, at("h.key"), at("h.pub"), NULL, 0), 0);
	assert_int_equal(rpl_seckey_load(&k2, at("h.key"), NULL), 0);
	rpl_seckey_free(k2);
	rpl_seckey_free(k);
}

static void signing(void **state)
{
	rpl_seckey *k = NULL;
	struct stat st;
	mode_t old = umask(022);
	(void)state;

	assert_int_equal(rpl_seckey_generate(&k), 0);
	assert_int_equal(mkfifo(at("fifo.brp"), 0644), 0);
	assert_int_equal(rpl_sign_log(k, at("fifo.brp")), RPL_EIO);
	assert_non_null(strstr(rpl_seckey_errmsg(k), "a FIFO, not a regular file"));
	assert_int_equal(rpl_sign_detached(k, at("fifo.brp"), at("fifo.brp.minisig"), NULL, 0), RPL_EIO);
	assert_int_equal(access(at("fifo.brp.minisig"), F_OK), -1);

	record_log(at("log.brp"));
	assert_int_equal(symlink("log.brp", at("link.brp")), 0);
	assert_int_equal(rpl_sign_log(k, at("link.brp")), RPL_EIO);
	assert_non_null(strstr(rpl_seckey_errmsg(k), "a symbolic link"));
	assert_int_equal(lstat(at("link.brp"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));

	/* the signed log keeps its mode, a group-writable one too (umask 022) */
	assert_int_equal(chmod(at("log.brp"), 0664), 0);
	assert_int_equal(rpl_sign_log(k, at("log.brp")), 0);
	assert_int_equal(stat(at("log.brp"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0664);
	assert_int_equal(entries(NULL, 0), 3);
	umask(old);
	rpl_seckey_free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(tmpfile_forms, setup, teardown),
		cmocka_unit_test_setup_teardown(tmpfile_refuses, setup, teardown),
		cmocka_unit_test_setup_teardown(planted, setup, teardown),
		cmocka_unit_test_setup_teardown(recorder_link, setup, teardown),
		cmocka_unit_test_setup_teardown(key_files, setup, teardown),
		cmocka_unit_test_setup_teardown(keys_saved, setup, teardown),
		cmocka_unit_test_setup_teardown(signing, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
