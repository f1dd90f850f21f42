/*
 * A game server that keeps its logs in an object store, not in files it
 * appends to: libreplay's recorder writes through callbacks
 * (rpl_recorder_open_sink).
 *
 * The store here is a directory standing for a bucket: objects are written
 * whole and never appended to, as in most object stores. Each flush of the
 * recorder (one a turn) becomes one object, DIR/chunk-NNNNNN, and the log
 * while the match is played is those chunks concatenated in order: a server
 * that dies mid-match leaves a valid (unclosed) log in them, which anyone
 * can verify or salvage. At close the recorder hands the compact form to
 * replace, which writes DIR/match.brp (a temporary object renamed over it:
 * the store holds the chunks or the whole log, never half of it) and then
 * deletes the chunks.
 *
 * Half way through, the server reads its own chunks back, as a crash
 * recovery would, and verifies them from memory (rpl_reader_open_memory).
 *
 *   object_store DIR [SEED]
 *
 * Build against an installed libreplay:
 *   cc -o object_store object_store.c $(pkg-config --cflags --libs libreplay)
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* fsync, fileno */
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libreplay/libreplay.h>

/* The bucket: a directory, and how many chunks the log has so far. */
struct bucket {
	const char *dir;
	int chunks;
	char why[256]; /* the store's own reason for a failure: the recorder only says which call failed */
};

static int put_object(struct bucket *b, const char *name, const void *data, size_t len)
{
	char path[4096], tmp[4200];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", b->dir, name);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	if (!(f = fopen(tmp, "wb")) || fwrite(data, 1, len, f) != len || fflush(f) != 0 || fsync(fileno(f)) != 0) {
		snprintf(b->why, sizeof b->why, "%.64s: %s", name, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		snprintf(b->why, sizeof b->why, "%.64s: %s", name, strerror(errno));
		return -1;
	}
	return 0;
}

/* write: each flush's bytes (whole sections) become the next chunk. */
static int bucket_write(void *ctx, const void *data, size_t len)
{
	struct bucket *b = ctx;
	char name[32];

	snprintf(name, sizeof name, "chunk-%06d", b->chunks + 1);
	if (put_object(b, name, data, len) != 0)
		return -1;
	b->chunks++;
	return 0;
}

/* replace: the compact form as one object, then the chunks go. */
static int bucket_replace(void *ctx, const void *data, size_t len)
{
	struct bucket *b = ctx;
	char path[4096];

	if (put_object(b, "match.brp", data, len) != 0)
		return -1;
	for (int i = 1; i <= b->chunks; i++) {
		snprintf(path, sizeof path, "%s/chunk-%06d", b->dir, i);
		remove(path);
	}
	b->chunks = 0;
	return 0;
}

/* What a recovery does after a crash: the chunks, concatenated. */
static unsigned char *read_chunks(const struct bucket *b, size_t *len)
{
	unsigned char *all = NULL;
	size_t n = 0;
	char path[4096];

	for (int i = 1; i <= b->chunks; i++) {
		FILE *f;
		long size;
		unsigned char *p;
		snprintf(path, sizeof path, "%s/chunk-%06d", b->dir, i);
		if (!(f = fopen(path, "rb")))
			goto fail;
		if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
		    !(p = realloc(all, n + (size_t)size + 1))) {
			fclose(f);
			goto fail;
		}
		all = p;
		if (fread(all + n, 1, (size_t)size, f) != (size_t)size) {
			fclose(f);
			goto fail;
		}
		n += (size_t)size;
		fclose(f);
	}
	*len = n;
	return all ? all : calloc(1, 1);
fail:
	free(all);
	return NULL;
}

static int check_chunks(const struct bucket *b)
{
	rpl_reader *rd = NULL;
	rpl_verdict v;
	char line[512];
	size_t n = 0;
	unsigned char *log = read_chunks(b, &n);
	int rc;

	if (!log)
		return RPL_EIO;
	rc = rpl_reader_open_memory(&rd, log, n);
	free(log);
	if (rc == RPL_ENOMEM || rc == RPL_EINVAL) {
		rpl_reader_free(rd);
		return rc;
	}
	rc = rpl_verify_reader(rd, NULL, &v); /* a reader that failed to open is a malformed verdict */
	rpl_reader_free(rd);
	if (rc != 0)
		return rc;
	rpl_verdict_format(&v, line, sizeof line);
	printf("the %d chunks so far (%zu bytes): %s\n", b->chunks, n, line);
	return v.closed || (v.kind != RPL_VERDICT_OK && v.kind != RPL_VERDICT_INCOMPLETE) ? RPL_ECORRUPT : 0;
}

int main(int argc, char **argv)
{
	static const char *names[4] = { "Ana", "Bruno", "Carla", "Davi" };
	rpl_bot *bots[4] = { NULL };
	struct bucket bucket = { 0 };
	rpl_recorder_sink sink = { &bucket, bucket_write, NULL, bucket_replace };
	rpl_rules *rules = NULL;
	rpl_recorder *rec = NULL;
	rpl_match_info info;
	rpl_verdict verdict;
	rpl_rng rng;
	const rpl_game *g;
	char path[4096];
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
	int rc, status = 1, checked = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: object_store DIR [SEED]\n");
		return 2;
	}
	bucket.dir = argv[1];
	if (mkdir(bucket.dir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "object_store: %s: %s\n", bucket.dir, strerror(errno));
		return 2;
	}
	rpl_rng_seed(&rng, seed);
	if ((rc = rpl_rules_new(&rules, "stbl")) != 0 || (rc = rpl_rules_set(rules, "target", "1000")) != 0)
		goto fail;
	for (int i = 0; i < 4; i++)
		if ((rc = rpl_bot_new(&bots[i], RPL_BOT_GREEDY, seed * 4 + (uint64_t)i)) != 0)
			goto fail;
	memset(&info, 0, sizeof info);
	info.rules = rules;
	info.nplayers = 4;
	memcpy(info.players, names, sizeof names);
	info.first_dealer = 3;
	info.start_time = 1767225600;

	/* the header is the first chunk, written before the call returns */
	if ((rc = rpl_recorder_open_sink(&rec, &sink, &info, 0, NULL)) != 0)
		goto fail;
	g = rpl_recorder_game(rec);
	while (rpl_game_phase(g) != RPL_PHASE_MATCH_OVER) {
		rpl_layout layout;
		int32_t score[2];
		rpl_score s;
		rpl_layout_shuffle(&layout, 4, &rng);
		if ((rc = rpl_recorder_deal(rec, &layout)) != 0)
			goto fail;
		while (rpl_game_phase(g) != RPL_PHASE_DEAL_OVER && rpl_game_phase(g) != RPL_PHASE_MATCH_OVER) {
			rpl_action a;
			if ((rc = rpl_bot_choose(bots[rpl_game_seat(g)], g, &a)) != 0 || (rc = rpl_recorder_action(rec, &a)) != 0)
				goto fail;
			/* one chunk a turn: once flush returns, the turn is in the store */
			if (a.kind == RPL_ACT_DISCARD && (rc = rpl_recorder_flush(rec)) != 0)
				goto fail;
			if (!checked && bucket.chunks >= 20) {
				checked = 1;
				if ((rc = check_chunks(&bucket)) != 0)
					goto fail;
			}
		}
		for (int side = 0; side < 2; side++) {
			rpl_game_deal_score(g, side, &s);
			score[side] = s.total;
		}
		if ((rc = rpl_recorder_claim(rec, rpl_game_deal_number(g), score)) != 0 || (rc = rpl_recorder_flush(rec)) != 0)
			goto fail;
	}
	if ((rc = rpl_recorder_close(rec)) != 0)
		goto fail;

	snprintf(path, sizeof path, "%s/match.brp", bucket.dir);
	if ((rc = rpl_verify_file(path, NULL, &verdict)) != 0) {
		fprintf(stderr, "object_store: %s: %s\n", path, verdict.message);
		goto cleanup;
	}
	printf("%s: %s: %d deals, %d decisions; side 0 %d, side 1 %d\n", path, rpl_verdict_name(verdict.kind),
	       verdict.deals, verdict.actions, verdict.total[0], verdict.total[1]);
	status = verdict.kind == RPL_VERDICT_OK && verdict.closed && checked ? 0 : 1;
	goto cleanup;
fail:
	fprintf(stderr, "object_store: %s%s%s\n",
	        rec && rpl_recorder_errmsg(rec)[0] ? rpl_recorder_errmsg(rec) : rpl_strerror(rc), bucket.why[0] ? ": " : "",
	        bucket.why);
cleanup:
	rpl_recorder_free(rec);
	for (int i = 0; i < 4; i++)
		rpl_bot_free(bots[i]);
	rpl_rules_free(rules);
	return status;
}
