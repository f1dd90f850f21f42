/*
 * The text notation on hostile bytes, two ways:
 *   1. rpl_notation_import() of the whole text into a log (unchecked
 *      recording); when it succeeds the log must read and verify without a
 *      malformed verdict, and log -> text -> log must give the same bytes
 *      (the round trip README promises);
 *   2. the streaming parser line by line, as brp record drives it: tags
 *      before the first deal, then each item handed to a checked recorder
 *      (the rules engine judges every decision), flushed after each line.
 * The parser's unit is the line, so "small chunks" here are lines: a line is
 * fed with and without its "\n", and a line that holds a NUL is cut there,
 * as fgets would. The text in pieces of a few bytes, through
 * rpl_notation_import_stream, is fuzz_notation_chunks.c.
 */
#include "fuzz.h"

#include <string.h>
#include <unistd.h>

#include <libreplay/libreplay.h>

struct text {
	char *p;
	size_t n, cap;
};

static int put(void *ud, const char *s, size_t n)
{
	struct text *t = ud;
	if (t->n + n > t->cap) {
		size_t cap = (t->n + n) * 2;
		char *p = realloc(t->p, cap);
		if (!p)
			return RPL_ENOMEM;
		t->p = p;
		t->cap = cap;
	}
	memcpy(t->p + t->n, s, n);
	t->n += n;
	return 0;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n > 0 ? (size_t)n : 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void import_round_trip(const uint8_t *data, size_t size)
{
	char log1[300], log2[300], err[400];
	struct text t = { 0 };
	rpl_reader *rd = NULL;
	rpl_verdict v;
	uint8_t *b1 = NULL, *b2 = NULL;
	size_t n1 = 0, n2 = 0;

	fuzz_tmp_path("import.brp", log1, sizeof log1);
	fuzz_tmp_path("reimport.brp", log2, sizeof log2);
	if (rpl_notation_import((const char *)data, size, log1, err, sizeof err) < 0) {
		FUZZ_CHECK(err[0] != '\0');
		/* a failed import leaves nothing behind */
		char part[320];
		snprintf(part, sizeof part, "%s.part~", log1);
		FUZZ_CHECK(access(log1, F_OK) != 0 && access(part, F_OK) != 0);
		return;
	}
	FUZZ_CHECK(rpl_verify_file(log1, NULL, &v) == 0);
	FUZZ_CHECK(v.kind != RPL_VERDICT_MALFORMED);
	FUZZ_CHECK(rpl_reader_open(&rd, log1) == 0);
	FUZZ_CHECK(rpl_notation_write(rd, put, &t, err, sizeof err) == 0);
	rpl_reader_free(rd);
	FUZZ_CHECK(rpl_notation_import(t.p, t.n, log2, err, sizeof err) == 0);
	b1 = slurp(log1, &n1);
	b2 = slurp(log2, &n2);
	FUZZ_CHECK(b1 && b2 && n1 == n2 && memcmp(b1, b2, n1) == 0);
	free(b1);
	free(b2);
	free(t.p);
	remove(log1);
	remove(log2);
}

static void stream_record(const uint8_t *data, size_t size)
{
	rpl_notation_parser *p = NULL;
	rpl_notation_item *it = malloc(sizeof *it);
	rpl_recorder *rec = NULL;
	rpl_rules *rules = NULL;
	char path[300], profile[40] = "stbl";
	int players = 0, failed_io = 0;
	size_t pos = 0;

	FUZZ_CHECK(it && rpl_notation_parser_new(&p) == 0);
	fuzz_tmp_path("record.brp", path, sizeof path);
	while (pos < size && !failed_io) {
		const uint8_t *nl = memchr(data + pos, '\n', size - pos);
		size_t n = nl ? (size_t)(nl - (data + pos)) + 1 : size - pos;
		const uint8_t *nul = memchr(data + pos, '\0', n);
		size_t len = nul ? (size_t)(nul - (data + pos)) : n;
		int e;

		e = rpl_notation_parser_line(p, (const char *)data + pos, len, it);
		pos += n;
		if (e < 0) {
			int line, col;
			FUZZ_CHECK(rpl_notation_parser_errmsg(p)[0] != '\0');
			rpl_notation_parser_where(p, &line, &col);
			FUZZ_CHECK(line >= 1 && col >= 0);
			continue;
		}
		if (it->kind == RPL_NOTATION_TAG) {
			FUZZ_CHECK(it->nvalues >= 1 && it->nvalues <= 2 && it->value[0]);
			if (strcmp(it->tag, "Profile") == 0)
				snprintf(profile, sizeof profile, "%s", it->value[0]);
			else if (strcmp(it->tag, "Players") == 0)
				players = it->value[0][0] - '0';
			continue;
		}
		if (it->kind == RPL_NOTATION_BLANK || it->kind == RPL_NOTATION_END)
			continue;
		FUZZ_CHECK(it->ncards <= RPL_NOTATION_MAX_CARDS && it->nactions <= RPL_NOTATION_MAX_ACTIONS);
		if (!rec) {
			rpl_match_info info;
			if (players != 2 && players != 4) {
				players = 4;
				FUZZ_CHECK(rpl_notation_parser_set_players(p, players) == 0);
			}
			if (rpl_rules_new(&rules, profile) < 0)
				FUZZ_CHECK(rpl_rules_new(&rules, "stbl") == 0);
			memset(&info, 0, sizeof info);
			info.rules = rules;
			info.nplayers = players;
			info.first_dealer = players - 1;
			if (rpl_recorder_open(&rec, path, &info, 0) < 0)
				break; /* a profile that forbids this many players */
		}
		e = rpl_notation_record(p, rec, it, NULL);
		FUZZ_CHECK(e != RPL_EIO);
		if (rpl_recorder_flush(rec) < 0)
			failed_io = 1;
	}
	rpl_notation_parser_finish(p);
	if (rec) {
		/* what was flushed is a valid (growing) log */
		rpl_verdict v;
		FUZZ_CHECK(rpl_verify_file(path, NULL, &v) == 0);
		FUZZ_CHECK(v.kind != RPL_VERDICT_MALFORMED);
		FUZZ_CHECK(rpl_recorder_close(rec) == 0);
		FUZZ_CHECK(rpl_verify_file(path, NULL, &v) == 0);
		FUZZ_CHECK(v.kind != RPL_VERDICT_MALFORMED && v.kind != RPL_VERDICT_ILLEGAL);
	}
	rpl_recorder_free(rec);
	rpl_rules_free(rules);
	rpl_notation_parser_free(p);
	free(it);
	remove(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1 << 20)
		return 0; /* a text of a match is a few KiB */
	import_round_trip(data, size);
	stream_record(data, size);
	return 0;
}
