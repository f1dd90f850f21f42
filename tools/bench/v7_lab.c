/*
 * brp-v7-lab: version 7 measured on a corpus (not installed; issue 27,
 * docs/format.md 20.8 and 21).
 *
 *   brp-v7-lab claims DIR...           the claims and deal ends of a corpus
 *   brp-v7-lab write IN OUT [growing]  IN's logs recorded again in version 7
 *
 * claims: for each deal claim of every log of each DIR, the score the match
 * stream computes from the bookkeeping alone (rpl__mnotes_score: no rules
 * engine) against the claim; what the claims would cost coded as "the
 * prediction" (an adaptive bit, as the codec's) or else the two
 * differences, against the bytes of their scores stored as version 6
 * stores them; and what each deal's end costs as a bit after every
 * decision in the contexts of rpl__mnotes_end_ctx, in place of a count of
 * its decisions. BRP_V7_LAB_MISSES set lists each miss.
 *
 * write: every log of IN recorded again by the library's recorder in
 * version 7 (rpl__recorder_open_fd; a flush after each turn, as a platform
 * would), compact, into OUT under its name; with a fourth argument the
 * growing form too, as NAME.grow.brp, copied before the close compacts it.
 * A committed match is not written (version 7 holds matches dealt freely).
 * `brp verify`, `brp-bench size` and the rest then read OUT as any corpus.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log/codec_impl.h"
#include "log/format.h"
#include "log/recorder_impl.h"
#include "libreplay/libreplay.h"

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	uint8_t *p = NULL;
	if (!f)
		return NULL;
	if (fstat(fileno(f), &st) == 0 && (p = malloc((size_t)st.st_size + 1)) != NULL) {
		*n = (size_t)st.st_size;
		if (fread(p, 1, *n, f) != *n) {
			free(p);
			p = NULL;
		}
	}
	fclose(f);
	return p;
}

/* Bytes of a zigzag varint. */
static int varint_len(int64_t v)
{
	uint64_t z = v < 0 ? ((uint64_t)(-(v + 1)) << 1) | 1 : (uint64_t)v << 1;
	int n = 1;
	while (z >= 128) {
		z >>= 7;
		n++;
	}
	return n;
}

/* An adaptive bit as the codec's (format.md 6.2): its cost in bits, and the probability learnt. */
struct abit {
	uint32_t p0, n; /* P(0) in 11 bits; bits seen */
};

static double abit_code(struct abit *b, int bit)
{
	static const uint8_t rate_of[7] = { 1, 2, 2, 3, 3, 3, 4 };
	uint32_t r;

	if (b->n == UINT32_MAX) /* a fixed bit: P(1) = 1/4096 */
		return -log2(bit ? 1.0 / 4096 : 4095.0 / 4096);
	r = rate_of[b->n < 6 ? b->n : 6];
	double cost = -log2((bit ? 2048.0 - b->p0 : (double)b->p0) / 2048.0);
	b->p0 = bit ? b->p0 - (b->p0 >> r) : b->p0 + ((2048 - b->p0) >> r);
	b->n++;
	return cost;
}

static void run(const char *dir)
{
	DIR *dd = opendir(dir);
	struct dirent *de;
	uint64_t matches = 0, claims = 0, hits = 0, misses = 0, miss100 = 0, whole = 0;
	uint64_t ends[4] = { 0 }, at[4] = { 0 };
	double bits = 0, end_bits = 0;
	static struct mnotes mn;

	if (!dd) {
		perror(dir);
		exit(2);
	}
	while ((de = readdir(dd)) != NULL) {
		char path[4096];
		size_t len = strlen(de->d_name), n = 0;
		uint8_t *data;
		rpl_reader *rd = NULL;
		rpl_event ev;
		struct track t;
		const rpl_match_info *info;
		int dealer = 0, open = 0, deal = 0, pending = -1;
		/* the contexts of rpl__mnotes_end_ctx: three adaptive, MEND_FIXED fixed; the "prediction" bit */
		struct abit endb[4] = { { 1024, 0 }, { 1024, 0 }, { 1024, 0 }, { 0, UINT32_MAX } }, hitb = { 1024, 0 };

		if (len < 5 || strcmp(de->d_name + len - 4, ".brp") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!(data = slurp(path, &n)))
			continue;
		if (rpl_reader_open_memory(&rd, data, n) != 0) {
			rpl_reader_free(rd);
			free(data);
			continue;
		}
		info = rpl_reader_info(rd);
		rpl__mnotes_values(&mn, info->rules);
		while (rpl_reader_next(rd, &ev) == 1) {
			if (ev.kind == RPL_EV_DEAL) {
				if (pending >= 0) {
					end_bits += abit_code(&endb[pending], 1);
					ends[pending]++;
				}
				pending = -1;
				dealer = ev.deal == 1 ? info->first_dealer : (dealer + 1) % info->nplayers;
				rpl__track_deal(&t, info->nplayers, dealer, &ev.layout);
				rpl__mnotes_deal(&mn);
				open = 1;
				deal = ev.deal;
			} else if (ev.kind == RPL_EV_ACTION && open) {
				if (pending >= 0)
					end_bits += abit_code(&endb[pending], 0);
				rpl__track_apply(&t, &ev.action, NULL, 0);
				rpl__mnotes_applied(&mn, &t, &ev.action, ev.seat);
				pending = rpl__mnotes_end_ctx(&mn, &t);
				at[pending]++;
			} else if (ev.kind == RPL_EV_CLAIM && open && ev.deal == deal && deal > 0) {
				int64_t pred[2];
				int hit = 1;
				rpl__mnotes_score(&mn, &t, info->rules, pred);
				claims++;
				whole += (uint64_t)(varint_len(ev.score[0]) + varint_len(ev.score[1]));
				for (int s = 0; s < 2; s++) {
					int64_t diff = ev.score[s] - pred[s];
					if (!diff)
						continue;
					hit = 0;
					misses++;
					if (getenv("BRP_V7_LAB_MISSES"))
						printf("%s deal %d side %d: claimed %d, computed %lld\n", path, deal, s, (int)ev.score[s],
						       (long long)pred[s]);
					bits += 8.0 * varint_len(diff);
					/* a canastra's category and going out are multiples of 100 in every profile */
					miss100 += diff % 100 == 0;
				}
				bits += abit_code(&hitb, !hit);
				hits += (uint64_t)hit;
			}
		}
		if (pending >= 0) {
			end_bits += abit_code(&endb[pending], 1);
			ends[pending]++;
		}
		matches++;
		rpl_reader_free(rd);
		free(data);
	}
	closedir(dd);
	if (!matches || !claims) {
		printf("%s: no deal claims\n", dir);
		return;
	}
	printf("%s: matches %llu deal_claims %llu predicted %llu (%.2f %%); scores missed by a multiple of 100 %llu, "
	       "by another amount %llu; bytes a match: scores stored %.2f, coded against the prediction %.2f\n",
	       dir, (unsigned long long)matches, (unsigned long long)claims, (unsigned long long)hits,
	       100.0 * (double)hits / (double)claims, (unsigned long long)miss100, (unsigned long long)(misses - miss100),
	       (double)whole / (double)matches, bits / 8 / (double)matches);
	printf("%s: each deal's end, a bit after every decision: deals ended with an empty hand %llu (of %llu such "
	       "decisions; with a morto left for the side %llu of %llu), with nothing to draw %llu (of %llu), otherwise "
	       "%llu (of %llu); bytes a match %.2f\n",
	       dir, (unsigned long long)ends[MEND_OUT], (unsigned long long)at[MEND_OUT],
	       (unsigned long long)ends[MEND_MORTO], (unsigned long long)at[MEND_MORTO], (unsigned long long)ends[MEND_DRY],
	       (unsigned long long)at[MEND_DRY], (unsigned long long)ends[MEND_FIXED], (unsigned long long)at[MEND_FIXED],
	       end_bits / 8 / (double)matches);
}

/* ---- write: a corpus written again in version 7, by the library's recorder ---- */

static int copy_file(int fd, const char *to)
{
	FILE *f = fopen(to, "wb");
	uint8_t b[65536];
	ssize_t got;
	off_t at = 0;
	if (!f)
		return -1;
	while ((got = pread(fd, b, sizeof(b), at)) > 0) {
		fwrite(b, 1, (size_t)got, f);
		at += got;
	}
	return fclose(f);
}

/*
 * Each log of IN recorded again in version 7 (a flush after each turn, as
 * a platform would) into OUT under its name; with a third argument, the
 * growing form too, as NAME.grow.brp, before the close compacts it.
 */
static int write_dir(const char *in, const char *out, int growing)
{
	DIR *dd = opendir(in);
	struct dirent *de;
	int failed = 0;

	if (!dd) {
		perror(in);
		return 2;
	}
	while ((de = readdir(dd)) != NULL) {
		char path[4096], to[4096];
		size_t len = strlen(de->d_name);
		rpl_reader *rd = NULL;
		rpl_recorder *rec = NULL;
		rpl_event ev;
		int fd, err = 0;

		if (len < 5 || strcmp(de->d_name + len - 4, ".brp") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", in, de->d_name);
		snprintf(to, sizeof(to), "%s/%s", out, de->d_name);
		if (rpl_reader_open(&rd, path) != 0) {
			rpl_reader_free(rd);
			continue;
		}
		fd = open(to, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || rpl__recorder_open_fd(&rec, fd, rpl_reader_info(rd), RPL_RECORD_UNCHECKED, NULL, 7) != 0) {
			/* a committed match: version 7 holds matches dealt freely */
			fprintf(stderr, "%s: %s (not written)\n", path, rec ? rpl_recorder_errmsg(rec) : "cannot open");
			if (fd >= 0)
				unlink(to);
		} else {
			while (!err && rpl_reader_next(rd, &ev) == 1) {
				if (ev.kind == RPL_EV_DEAL)
					err = rpl_recorder_deal(rec, &ev.layout);
				else if (ev.kind == RPL_EV_ACTION) {
					err = rpl_recorder_action(rec, &ev.action);
					if (!err && ev.action.kind == RPL_ACT_DISCARD)
						err = rpl_recorder_flush(rec);
				} else if (ev.kind == RPL_EV_CLAIM)
					err = rpl_recorder_claim(rec, ev.deal, ev.score);
			}
			if (!err)
				err = rpl_recorder_flush(rec);
			if (!err && growing) {
				char g[4096];
				snprintf(g, sizeof(g), "%s/%.*s.grow.brp", out, (int)(len - 4), de->d_name);
				err = copy_file(fd, g);
			}
			if (!err)
				err = rpl_recorder_close(rec);
			if (err) {
				fprintf(stderr, "%s: %s\n", to, rpl_recorder_errmsg(rec));
				failed = 1;
			}
		}
		rpl_recorder_free(rec);
		if (fd >= 0)
			close(fd);
		rpl_reader_free(rd);
	}
	closedir(dd);
	return failed;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "write") == 0)
		return write_dir(argv[2], argv[3], argc > 4);
	if (argc < 3 || strcmp(argv[1], "claims") != 0) {
		fprintf(stderr, "usage: brp-v7-lab claims DIR... | write IN OUT [growing]\n");
		return 2;
	}
	for (int i = 2; i < argc; i++)
		run(argv[i]);
	return 0;
}
