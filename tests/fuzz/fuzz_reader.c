/*
 * The binary reader on hostile bytes: open from memory, read every event,
 * then judge the same bytes with rpl_verify_reader and write them as text
 * with rpl_notation_write. Besides not crashing, hanging or leaking:
 *   - every offset the reader reports lies within the input (or at its end,
 *     for a section that is missing);
 *   - verification says malformed exactly when reading fails (or stops
 *     earlier, at an illegal decision), and never malformed for a log that
 *     reads to its end.
 * Random mutations nearly always break a section's CRC-32, which the reader
 * checks first; so each input is also read with every CRC it frames
 * recomputed, to reach the decoders behind the checksums.
 */
#include "fuzz.h"

#include <string.h>
#include <zlib.h>

#include <libreplay/libreplay.h>

static int sink(void *ud, const char *s, size_t n)
{
	(void)s;
	*(size_t *)ud += n;
	return 0;
}

/* Recompute the CRC of every whole section frame of buf (docs/format.md, section 3). */
static void fix_crcs(uint8_t *buf, size_t n)
{
	size_t p = 8;

	while (p < n) {
		size_t start = p, lstart;
		uint64_t len = 0;
		int shift = 0;
		uLong crc;

		p++;
		lstart = p;
		for (;;) {
			if (p >= n || shift > 28)
				return;
			len |= (uint64_t)(buf[p] & 0x7F) << shift;
			shift += 7;
			if (!(buf[p++] & 0x80))
				break;
		}
		if (len > n - p || n - p - len < 4)
			return;
		crc = crc32(0L, Z_NULL, 0);
		crc = crc32(crc, buf + start, 1);
		crc = crc32(crc, buf + lstart, (uInt)(p - lstart));
		crc = crc32(crc, buf + p, (uInt)len);
		p += len;
		buf[p] = (uint8_t)crc;
		buf[p + 1] = (uint8_t)(crc >> 8);
		buf[p + 2] = (uint8_t)(crc >> 16);
		buf[p + 3] = (uint8_t)(crc >> 24);
		p += 4;
	}
}

static void check(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *fixed;

	check(data, size);
	fixed = malloc(size ? size : 1);
	FUZZ_CHECK(fixed);
	if (size)
		memcpy(fixed, data, size);
	fix_crcs(fixed, size);
	if (size && memcmp(fixed, data, size) != 0)
		check(fixed, size);
	free(fixed);
	return 0;
}

static void check(const uint8_t *data, size_t size)
{
	rpl_reader *rd = NULL;
	rpl_event ev;
	rpl_verdict v;
	int err, got, read_failed = 0;
	size_t events = 0, text = 0;
	char msg[200];

	err = rpl_reader_open_memory(&rd, data, size);
	if (err == 0) {
		const rpl_match_info *info = rpl_reader_info(rd);
		FUZZ_CHECK(info && (info->nplayers == 2 || info->nplayers == 4));
		while ((got = rpl_reader_next(rd, &ev)) == 1) {
			FUZZ_CHECK(ev.offset < size);
			FUZZ_CHECK(ev.kind >= RPL_EV_DEAL && ev.kind <= RPL_EV_REVEAL);
			/* a reveal only in a committed log (format.md 16.1) */
			FUZZ_CHECK(ev.kind != RPL_EV_REVEAL || info->commitment);
			if (ev.kind == RPL_EV_ACTION)
				/* a morto pick-up before any turn of the deal belongs to turn 0 (format.md, 8) */
				FUZZ_CHECK(ev.seat >= 0 && ev.seat < info->nplayers &&
				           (ev.turn >= 1 || (ev.turn == 0 && ev.action.kind == RPL_ACT_MORTO)));
			events++;
		}
		if (got < 0) {
			read_failed = 1;
			/* a missing section is at the end of the file: offset == size */
			FUZZ_CHECK(rpl_reader_offset(rd) <= size);
			FUZZ_CHECK(rpl_reader_errmsg(rd)[0] != '\0');
			/* the error repeats */
			FUZZ_CHECK(rpl_reader_next(rd, &ev) == got);
		}
	} else {
		read_failed = 1;
		FUZZ_CHECK(rd != NULL || err == RPL_ELIMIT || err == RPL_ENOMEM);
		if (rd)
			FUZZ_CHECK(rpl_reader_offset(rd) <= size);
	}
	rpl_reader_free(rd);
	rd = NULL;

	err = rpl_reader_open_memory(&rd, data, size);
	if (rd) {
		FUZZ_CHECK(rpl_verify_reader(rd, NULL, &v) == 0);
		/*
		 * no trusted keys: untrusted exactly when the header says the log is
		 * signed and no signature covers its end; a signature that fails is
		 * tampered, whatever else (verify.c); the replay's finding is kept
		 */
		FUZZ_CHECK(v.kind >= RPL_VERDICT_OK && v.kind <= RPL_VERDICT_UNTRUSTED);
		FUZZ_CHECK(memchr(v.message, '\0', sizeof v.message) != NULL);
		FUZZ_CHECK(memchr(v.replay_message, '\0', sizeof v.replay_message) != NULL);
		FUZZ_CHECK(v.replay >= RPL_VERDICT_OK && v.replay <= RPL_VERDICT_MALFORMED);
		FUZZ_CHECK(v.kind == v.replay || v.kind == RPL_VERDICT_TAMPERED || v.kind == RPL_VERDICT_UNTRUSTED);
		FUZZ_CHECK(v.header_flags == rpl_reader_flags(rd) && !v.replay_trusted);
		if (v.kind != RPL_VERDICT_TAMPERED)
			FUZZ_CHECK((v.kind == RPL_VERDICT_UNTRUSTED) ==
			           ((v.header_flags & RPL_LOG_SIGNED) &&
			            (v.signature.status == RPL_SIG_UNSIGNED || v.signature.status == RPL_SIG_PARTIAL)));
		if (v.replay == RPL_VERDICT_MALFORMED)
			FUZZ_CHECK(read_failed && v.replay_offset <= size);
		if (v.kind == RPL_VERDICT_MALFORMED)
			FUZZ_CHECK(read_failed && v.offset <= size);
		if (v.kind == RPL_VERDICT_TAMPERED)
			FUZZ_CHECK(v.signature.status == RPL_SIG_INVALID && v.signature.covered <= size);
		else
			FUZZ_CHECK(v.signature.status != RPL_SIG_INVALID);
		/*
		 * a log that does not read whole: malformed, or illegal before the
		 * damage; a committed one whose deals are not its seed's is a
		 * mismatch whatever else holds, but malformed (verify.c, judge_dealing)
		 */
		if (read_failed)
			FUZZ_CHECK(v.replay == RPL_VERDICT_MALFORMED || v.replay == RPL_VERDICT_ILLEGAL ||
			           (v.replay == RPL_VERDICT_MISMATCH && v.deal_commitment == RPL_DEAL_MISMATCH));
	}
	rpl_reader_free(rd);
	rd = NULL;

	if (rpl_reader_open_memory(&rd, data, size) == 0) {
		err = rpl_notation_write(rd, sink, &text, msg, sizeof msg);
		FUZZ_CHECK(err == 0 || msg[0] != '\0');
	}
	rpl_reader_free(rd);
}
