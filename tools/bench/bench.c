/*
 * brp-bench: measurements for tools/bench.sh (not installed).
 *
 *   brp-bench size DIR      bytes of logs split into header, layouts and
 *                           decisions; bits a decision
 *   brp-bench speed DIR R   decode only vs decode + rules, in memory, R rounds
 *                           (median), single thread
 *   brp-bench decode DIR R  decode only, R rounds, untimed (for perf stat)
 *   brp-bench verify DIR R  decode + rules, R rounds, untimed
 *   brp-bench record DIR R  the recorder's cost a decision with a flush a turn
 *
 * It links the library's internals (the codec) to split a log's bytes; the
 * numbers it prints are measured, never estimated.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log/codec.h"
#include "libreplay/libreplay.h"

struct file {
	char *path;
	uint8_t *data;
	size_t n;
};

static struct file *files;
static size_t nfiles;

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct file *)a)->path, ((const struct file *)b)->path);
}

static void load(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t cap = 0;

	if (!d) {
		perror(dir);
		exit(2);
	}
	while ((de = readdir(d)) != NULL) {
		char path[4096];
		FILE *f;
		struct stat st;
		size_t len = strlen(de->d_name);
		if (len < 5 || strcmp(de->d_name + len - 4, ".brp") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) < 0 || !(f = fopen(path, "rb")))
			continue;
		if (nfiles == cap) {
			cap = cap ? cap * 2 : 1024;
			files = realloc(files, cap * sizeof(*files));
		}
		files[nfiles].path = strdup(path);
		files[nfiles].n = (size_t)st.st_size;
		files[nfiles].data = malloc(files[nfiles].n + 1);
		if (fread(files[nfiles].data, 1, files[nfiles].n, f) != files[nfiles].n) {
			fclose(f);
			continue;
		}
		fclose(f);
		nfiles++;
	}
	closedir(d);
	qsort(files, nfiles, sizeof(*files), by_path);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Bytes of each part, by coding each again on its own exactly as the log does. */
static int cmd_size(void)
{
	uint64_t total = 0, layouts = 0, decisions_bytes = 0, decisions = 0, deals = 0, matches = 0;

	for (size_t i = 0; i < nfiles; i++) {
		rpl_reader *rd = NULL;
		rpl_event ev;
		struct track t;
		struct model m;
		struct buf lb = { 0 }, ab = { 0 };
		struct rc_enc le, ae;
		int open = 0, dealer = 0;
		const rpl_match_info *info;
		if (rpl_reader_open_memory(&rd, files[i].data, files[i].n) != 0) {
			rpl_reader_free(rd);
			continue;
		}
		info = rpl_reader_info(rd);
		while (rpl_reader_next(rd, &ev) == 1) {
			if (ev.kind == RPL_EV_DEAL) {
				if (open) {
					rpl__rc_enc_finish(&ae);
					decisions_bytes += ab.n;
				}
				dealer = ev.deal == 1 ? info->first_dealer : (dealer + 1) % info->nplayers;
				lb.n = 0;
				rpl__rc_enc_init(&le, &lb);
				rpl__enc_layout(&le, info->nplayers, &ev.layout);
				rpl__rc_enc_finish(&le);
				layouts += lb.n;
				rpl__track_deal(&t, info->nplayers, dealer, &ev.layout);
				if (ev.deal == 1)
					rpl__model_init(&m);
				ab.n = 0;
				rpl__rc_enc_init(&ae, &ab);
				open = 1;
				deals++;
			} else if (ev.kind == RPL_EV_ACTION) {
				rpl__enc_action(&ae, &m, &t, &ev.action);
				rpl__track_apply(&t, &ev.action, NULL, 0);
				decisions++;
			}
		}
		if (open) {
			rpl__rc_enc_finish(&ae);
			decisions_bytes += ab.n;
		}
		total += files[i].n;
		matches++;
		rpl__buf_free(&lb);
		rpl__buf_free(&ab);
		rpl_reader_free(rd);
	}
	printf("matches %llu\ndeals %llu\ndecisions %llu\nbytes %llu\nlayout_bytes %llu\ndecision_bytes %llu\n",
	       (unsigned long long)matches, (unsigned long long)deals, (unsigned long long)decisions,
	       (unsigned long long)total, (unsigned long long)layouts, (unsigned long long)decisions_bytes);
	printf("bits_per_decision_stream %.3f\nbits_per_decision_file %.3f\nbytes_per_deal_file %.1f\n"
	       "layout_bytes_per_deal %.1f\n",
	       8.0 * (double)decisions_bytes / (double)decisions, 8.0 * (double)total / (double)decisions,
	       (double)total / (double)deals, (double)layouts / (double)deals);
	return 0;
}

static uint64_t run_decode(void)
{
	uint64_t n = 0;
	for (size_t i = 0; i < nfiles; i++) {
		rpl_reader *rd = NULL;
		rpl_event ev;
		if (rpl_reader_open_memory(&rd, files[i].data, files[i].n) == 0)
			while (rpl_reader_next(rd, &ev) == 1)
				n += ev.kind == RPL_EV_ACTION;
		rpl_reader_free(rd);
	}
	return n;
}

static uint64_t run_verify(void)
{
	uint64_t n = 0;
	for (size_t i = 0; i < nfiles; i++) {
		rpl_reader *rd = NULL;
		rpl_verdict v;
		if (rpl_reader_open_memory(&rd, files[i].data, files[i].n) == 0 && rpl_verify_reader(rd, NULL, &v) == 0) {
			if (v.kind != RPL_VERDICT_OK)
				fprintf(stderr, "%s: %s\n", files[i].path, rpl_verdict_name(v.kind));
			n += (uint64_t)v.actions;
		}
		rpl_reader_free(rd);
	}
	return n;
}

static int cmd_speed(int rounds)
{
	double *td = calloc((size_t)rounds, sizeof(double)), *tv = calloc((size_t)rounds, sizeof(double));
	uint64_t nd = 0, nv = 0;

	for (int r = 0; r < rounds; r++) {
		double t0 = now();
		nd = run_decode();
		td[r] = now() - t0;
		t0 = now();
		nv = run_verify();
		tv[r] = now() - t0;
	}
	qsort(td, (size_t)rounds, sizeof(double), cmp_double);
	qsort(tv, (size_t)rounds, sizeof(double), cmp_double);
	printf("matches %zu\ndecisions %llu\n", nfiles, (unsigned long long)nv);
	printf("decode_seconds %.4f\nverify_seconds %.4f\n", td[rounds / 2], tv[rounds / 2]);
	printf("decode_decisions_per_second %.0f\nverify_decisions_per_second %.0f\nverify_matches_per_second %.0f\n",
	       (double)nd / td[rounds / 2], (double)nv / tv[rounds / 2], (double)nfiles / tv[rounds / 2]);
	printf("decode_share %.3f\n", td[rounds / 2] / tv[rounds / 2]);
	free(td);
	free(tv);
	return 0;
}

/* Record every match again, flushing after each turn (each discard, and a morto it brings). */
static int cmd_record(int rounds, unsigned flags, const char *tmpdir)
{
	double *t = calloc((size_t)rounds, sizeof(double)), *tc = calloc((size_t)rounds, sizeof(double));
	uint64_t decisions = 0, turns = 0;
	char path[4096];

	snprintf(path, sizeof(path), "%s/bench-record.brp", tmpdir);
	for (int r = 0; r < rounds; r++) {
		double tclose = 0, trec = 0;
		decisions = 0;
		turns = 0;
		for (size_t i = 0; i < nfiles; i++) {
			rpl_reader *rd = NULL;
			rpl_recorder *rec = NULL;
			rpl_event ev;
			double t0 = now();
			if (rpl_reader_open_memory(&rd, files[i].data, files[i].n) != 0 ||
			    rpl_recorder_open(&rec, path, rpl_reader_info(rd), flags) != 0) {
				fprintf(stderr, "%s: cannot record\n", files[i].path);
				return 2;
			}
			while (rpl_reader_next(rd, &ev) == 1) {
				if (ev.kind == RPL_EV_DEAL) {
					rpl_recorder_deal(rec, &ev.layout);
				} else if (ev.kind == RPL_EV_ACTION) {
					if (rpl_recorder_action(rec, &ev.action) != 0) {
						fprintf(stderr, "%s: %s\n", files[i].path, rpl_recorder_errmsg(rec));
						return 2;
					}
					decisions++;
					if (ev.action.kind == RPL_ACT_DISCARD) {
						rpl_recorder_flush(rec);
						turns++;
					}
				} else if (ev.kind == RPL_EV_CLAIM) {
					rpl_recorder_claim(rec, ev.deal, ev.score);
				}
			}
			trec += now() - t0;
			t0 = now();
			rpl_recorder_close(rec);
			tclose += now() - t0;
			rpl_recorder_free(rec);
			rpl_reader_free(rd);
		}
		t[r] = trec;
		tc[r] = tclose;
	}
	qsort(t, (size_t)rounds, sizeof(double), cmp_double);
	qsort(tc, (size_t)rounds, sizeof(double), cmp_double);
	/* the recording includes decoding the log it replays; the close is the compaction and its fsync */
	printf("matches %zu\ndecisions %llu\nflushes %llu\nrecord_seconds %.4f\nrecord_ns_per_decision %.0f\n"
	       "close_ms_per_match %.3f\n",
	       nfiles, (unsigned long long)decisions, (unsigned long long)turns, t[rounds / 2],
	       1e9 * t[rounds / 2] / (double)decisions, 1e3 * tc[rounds / 2] / (double)nfiles);
	unlink(path);
	free(t);
	free(tc);
	return 0;
}

int main(int argc, char **argv)
{
	int rounds;

	if (argc < 3) {
		fprintf(stderr, "usage: brp-bench size|speed|decode|verify|record|record-unchecked DIR [ROUNDS [TMPDIR]]\n");
		return 2;
	}
	load(argv[2]);
	rounds = argc > 3 ? atoi(argv[3]) : 3;
	if (rounds < 1)
		rounds = 1;
	if (strcmp(argv[1], "size") == 0)
		return cmd_size();
	if (strcmp(argv[1], "speed") == 0)
		return cmd_speed(rounds);
	if (strcmp(argv[1], "decode") == 0 || strcmp(argv[1], "verify") == 0) {
		/* one half alone, for a profiler or an instruction count */
		uint64_t n = 0;
		for (int r = 0; r < rounds; r++)
			n += argv[1][0] == 'd' ? run_decode() : run_verify();
		printf("decisions %llu\n", (unsigned long long)n);
		return 0;
	}
	if (strcmp(argv[1], "record") == 0)
		return cmd_record(rounds, 0, argc > 4 ? argv[4] : "/tmp");
	if (strcmp(argv[1], "record-unchecked") == 0)
		return cmd_record(rounds, RPL_RECORD_UNCHECKED, argc > 4 ? argv[4] : "/tmp");
	fprintf(stderr, "brp-bench: unknown command %s\n", argv[1]);
	return 2;
}
