/* .brp framing: sections with CRC-32, varints, and the match header. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "log/format.h"
#include "log/sign_impl.h"

void rpl__buf_zigzag(struct buf *b, int64_t v)
{
	rpl__buf_varint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void rpl__buf_zigzag_plus1(struct buf *b, int64_t v)
{
	rpl__buf_varint(b, (((uint64_t)v << 1) ^ (uint64_t)(v >> 63)) + 1);
}

void rpl__buf_string(struct buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	rpl__buf_varint(b, n);
	rpl__buf_put(b, s, n);
}

static uint32_t section_crc(uint8_t type, const uint8_t *lenbytes, size_t nlen, const uint8_t *payload, size_t len)
{
	uLong crc = crc32(0L, Z_NULL, 0);
	crc = crc32(crc, &type, 1);
	crc = crc32(crc, lenbytes, (uInt)nlen);
	if (len)
		crc = crc32(crc, payload, (uInt)len);
	return (uint32_t)crc;
}

void rpl__section_put(struct buf *out, uint8_t type, const uint8_t *payload, size_t len)
{
	struct buf lb = { 0 };
	uint8_t crc[4];
	uint32_t c;

	rpl__buf_varint(&lb, len);
	if (lb.oom) {
		out->oom = 1;
		return;
	}
	c = section_crc(type, lb.p, lb.n, payload, len);
	crc[0] = (uint8_t)c;
	crc[1] = (uint8_t)(c >> 8);
	crc[2] = (uint8_t)(c >> 16);
	crc[3] = (uint8_t)(c >> 24);
	rpl__buf_byte(out, type);
	rpl__buf_put(out, lb.p, lb.n);
	rpl__buf_put(out, payload, len);
	rpl__buf_put(out, crc, 4);
	rpl__buf_free(&lb);
}

void rpl__section_put_bare(struct buf *out, uint8_t type, const uint8_t *payload, size_t len)
{
	rpl__buf_byte(out, type);
	rpl__buf_varint(out, len);
	rpl__buf_put(out, payload, len);
}

void rpl__header_seal(struct buf *out, const uint8_t *framed, size_t n)
{
	/* the framed H without its checksum, under the sealed header's type */
	rpl__buf_byte(out, BRP_SEALED_TYPE);
	rpl__buf_put(out, framed + 1, n - 5);
}

void rpl__seal_put(struct buf *out, size_t start)
{
	uLong crc = crc32(0L, Z_NULL, 0);
	uint8_t b[4];

	if (out->oom)
		return;
	crc = crc32(crc, out->p + start, (uInt)(out->n - start));
	b[0] = (uint8_t)crc;
	b[1] = (uint8_t)(crc >> 8);
	b[2] = (uint8_t)(crc >> 16);
	b[3] = (uint8_t)(crc >> 24);
	rpl__buf_put(out, b, 4);
}

/* A section's type and length, and its payload in the data; *p is left just past the payload. */
static int frame_get(const uint8_t *data, size_t n, size_t *pos, struct section *s, char *why, size_t whylen)
{
	size_t p = *pos;
	uint64_t len = 0;
	int shift = 0;

	s->offset = p;
	s->type = data[p++];
	if (!((s->type >= 'A' && s->type <= 'Z') || (s->type >= 'a' && s->type <= 'z'))) {
		snprintf(why, whylen, "byte %zu: 0x%02x is not a section type", (size_t)s->offset, s->type);
		return -1;
	}
	for (;;) {
		if (p == n) {
			snprintf(why, whylen, "byte %zu: section '%c' is cut short in its length", (size_t)s->offset, s->type);
			return -1;
		}
		if (shift > 28) {
			snprintf(why, whylen, "byte %zu: section '%c' has a malformed length", (size_t)s->offset, s->type);
			return -1;
		}
		len |= (uint64_t)(data[p] & 0x7F) << shift;
		shift += 7;
		if (!(data[p++] & 0x80)) {
			if (data[p - 1] == 0 && shift > 7) {
				snprintf(why, whylen, "byte %zu: section '%c' has an overlong length", (size_t)s->offset, s->type);
				return -1;
			}
			break;
		}
	}
	if (len > RPL_MAX_SECTION) {
		snprintf(why, whylen, "byte %zu: section '%c' claims %llu bytes, more than the %u a reader accepts",
		         (size_t)s->offset, s->type, (unsigned long long)len, RPL_MAX_SECTION);
		return -1;
	}
	if (n - p < len) {
		snprintf(why, whylen, "byte %zu: section '%c' of %llu bytes is cut short (the file ends at byte %zu)",
		         (size_t)s->offset, s->type, (unsigned long long)len, n);
		return -1;
	}
	s->payload = data + p;
	s->len = (size_t)len;
	*pos = p + (size_t)len;
	return 1;
}

/*
 * A sealed log (format.md 19.5): its sections up to E carry no checksum, one
 * CRC-32 of every byte before it follows E. Checked whole before anything is
 * read, so a reader never delivers a byte of a damaged sealed log.
 */
static int seal_check(const uint8_t *data, size_t n, size_t *sealed, char *why, size_t whylen)
{
	size_t p = BRP_MAGIC_LEN;
	struct section s;
	char what[RPL_ERRMSG_SIZE];
	uint32_t want;

	/* no byte of it can be trusted: every refusal is at its header, byte 8, the detail after */
	for (;;) {
		if (p == n) {
			snprintf(why, whylen, "byte %u: a sealed log that ends before its end section (cut short?)", BRP_MAGIC_LEN);
			return -1;
		}
		if (frame_get(data, n, &p, &s, what, sizeof(what)) < 0) {
			snprintf(why, whylen, "byte %u: a sealed log whose sections do not read to its end (%s)", BRP_MAGIC_LEN,
			         what);
			return -1;
		}
		if (s.type == 'E')
			break;
	}
	if (n - p < 4) {
		snprintf(why, whylen, "byte %u: a sealed log cut short in its checksum (at byte %zu)", BRP_MAGIC_LEN, p);
		return -1;
	}
	want = (uint32_t)data[p] | (uint32_t)data[p + 1] << 8 | (uint32_t)data[p + 2] << 16 | (uint32_t)data[p + 3] << 24;
	if (want != (uint32_t)crc32(crc32(0L, Z_NULL, 0), data, (uInt)p)) {
		snprintf(why, whylen, "byte %u: the sealed log is damaged (its checksum over bytes 0 to %zu does not match)",
		         BRP_MAGIC_LEN, p);
		return -1;
	}
	*sealed = p + 4;
	return 0;
}

int rpl__section_get(const uint8_t *data, size_t n, size_t *pos, struct section *s, size_t *sealed, char *why,
                     size_t whylen)
{
	size_t p = *pos, lstart = p + 1;
	uint32_t want, got;

	if (p == n)
		return 0;
	if (p == BRP_MAGIC_LEN && data[p] == BRP_SEALED_TYPE && !*sealed && seal_check(data, n, sealed, why, whylen) < 0) {
		s->offset = p;
		s->type = BRP_SEALED_TYPE;
		return -1;
	}
	if (frame_get(data, n, &p, s, why, whylen) < 0)
		return -1;
	if (p < *sealed) {
		/* inside the sealed part: checked already; E is followed by the log's checksum */
		s->end = p + 4 == *sealed ? *sealed : p;
		*pos = s->end;
		return 1;
	}
	if (n - p < 4) {
		snprintf(why, whylen, "byte %zu: section '%c' of %zu bytes is cut short (the file ends at byte %zu)",
		         (size_t)s->offset, s->type, s->len, n);
		return -1;
	}
	want = (uint32_t)data[p] | (uint32_t)data[p + 1] << 8 | (uint32_t)data[p + 2] << 16 | (uint32_t)data[p + 3] << 24;
	got = section_crc(s->type, data + lstart, s->payload - (data + lstart), s->payload, s->len);
	if (want != got) {
		snprintf(why, whylen, "byte %zu: section '%c' is damaged (checksum mismatch)", (size_t)s->offset, s->type);
		return -1;
	}
	p += 4;
	s->end = p;
	*pos = p;
	return 1;
}

/* A varint must be minimal (no final 0x00 byte after the first) and fit 64 bits. */
uint64_t rpl__cur_varint(struct cursor *c)
{
	uint64_t v = 0;
	int shift = 0;
	for (;;) {
		uint8_t b;
		if (c->pos >= c->n || shift > 63) {
			c->bad = 1;
			return 0;
		}
		b = c->p[c->pos++];
		if (shift == 63 && (b & 0x7E)) {
			c->bad = 1;
			return 0;
		}
		v |= (uint64_t)(b & 0x7F) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (b == 0 && shift > 7) {
				c->bad = 1;
				return 0;
			}
			return v;
		}
	}
}

int64_t rpl__cur_zigzag(struct cursor *c)
{
	uint64_t v = rpl__cur_varint(c);
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

char *rpl__cur_string(struct cursor *c, size_t max)
{
	uint64_t len = rpl__cur_varint(c);
	char *s;

	if (c->bad || len > max || len > c->n - c->pos) {
		c->bad = 1;
		return NULL;
	}
	s = malloc((size_t)len + 1);
	if (!s) {
		c->bad = 2;
		return NULL;
	}
	memcpy(s, c->p + c->pos, (size_t)len);
	s[len] = '\0';
	c->pos += (size_t)len;
	if (memchr(s, '\0', (size_t)len)) {
		free(s);
		c->bad = 1;
		return NULL;
	}
	return s;
}

#define HEADER_RAW 0
#define HEADER_DEFLATE 1
#define HEADER_MAX_RAW (1u << 18)

#define DEALING_FREE 0
#define DEALING_COMMITTED 1
#define DEALING_REVEALED 2

/*
 * Profile revision 1, frozen (docs/format.md 16.2): the values a version-3
 * header's parameters start from. They never change, whatever the live
 * profiles in rules.c become: a log must verify under exactly the rules it
 * was played with. A new parameter or a changed default is a new revision.
 */
#define FROZEN_REV1_PARAMS 32
_Static_assert(FROZEN_REV1_PARAMS == RPL_P_COUNT, "a new rule parameter needs a new frozen profile revision");
static const struct {
	const char *profile;
	int32_t v[FROZEN_REV1_PARAMS + 1];
} frozen_rev1[] = {
	{ "kzv", { 0, 1, 1, 3000, 20, 10, 15, 10, 5, 100, 200, 200, 600, 300, 100, 100, 1,
	           0, 2, 1, 0,    1,  0,  0,  0,  0, 1,   0,   1,   0,   1,   0,   0 } },
	{ "stbl", { 0, 1, 1, 0, 50, 10, 15, 10, 5, 100, 200, 500, 1000, 100, 100, 100, 1,
	            1, 2, 0, 1, 0,  0,  0,  0,  0, 1,   1,   2,   0,    1,   0,   1 } },
	{ "aberto", { 0, 1, 1, 3000, 20, 10, 15, 10,   5,  100, 200, 500, 1000, 100, 100, 100, 1,
	              1, 2, 0, 2,    0,  1,  1,  1500, 75, 1,   0,   2,   1,    0,   100, 0 } },
};

/* The frozen values of a profile (rpl_rules_profile's name), indexed by id; NULL for an unknown profile. */
static const int32_t *frozen_values(const char *profile)
{
	for (size_t i = 0; i < sizeof(frozen_rev1) / sizeof(frozen_rev1[0]); i++)
		if (strcmp(frozen_rev1[i].profile, profile) == 0)
			return frozen_rev1[i].v;
	return NULL;
}

/* Version 5 names the profile by a byte, its index here (format.md 19.1): a code never changes meaning. */
static const char *const profile_codes[] = { "kzv", "stbl", "aberto" };

int rpl__header_version(const rpl_match_info *info, unsigned flags)
{
	(void)flags;
	if (info->commitment && info->commit_version == RPL_COMMIT_V1)
		return BRP_VERSION_COMMIT;
	return info->commitment ? BRP_VERSION_6 : BRP_VERSION_7;
}

void rpl__claim_put(struct buf *b, int version, int deal, const int32_t score[2], int64_t sum[2])
{
	if (version < BRP_VERSION_5) {
		rpl__buf_varint(b, (uint64_t)deal);
		rpl__buf_zigzag(b, score[0]);
		rpl__buf_zigzag(b, score[1]);
		return;
	}
	if (deal == 0 && score[0] == sum[0] && score[1] == sum[1]) {
		rpl__buf_varint(b, 1); /* the match total: the deals' claims added up */
		return;
	}
	rpl__buf_varint(b, (uint64_t)deal << 1);
	rpl__buf_zigzag(b, score[0]);
	rpl__buf_zigzag(b, score[1]);
	if (deal) {
		sum[0] += score[0];
		sum[1] += score[1];
	}
}

int rpl__claim_get(struct cursor *c, int version, int *deal, int32_t score[2], int64_t sum[2])
{
	uint64_t tag = rpl__cur_varint(c), d = tag;
	int64_t s0, s1;

	if (c->bad)
		return -1;
	if (version >= BRP_VERSION_5) {
		d = tag >> 1;
		if (tag & 1) {
			/* only a match total is coded so, and only one that a claim can hold */
			if (d != 0 || sum[0] < INT32_MIN || sum[0] > INT32_MAX || sum[1] < INT32_MIN || sum[1] > INT32_MAX)
				return -1;
			*deal = 0;
			score[0] = (int32_t)sum[0];
			score[1] = (int32_t)sum[1];
			return 0;
		}
	}
	s0 = rpl__cur_zigzag(c);
	s1 = rpl__cur_zigzag(c);
	if (c->bad || d > RPL_MAX_DEALS || s0 < INT32_MIN || s0 > INT32_MAX || s1 < INT32_MIN || s1 > INT32_MAX)
		return -1;
	if (version >= BRP_VERSION_5) {
		if (d == 0 && s0 == sum[0] && s1 == sum[1])
			return -1; /* the one-byte form is the only encoding of this claim */
		if (d) {
			sum[0] += s0;
			sum[1] += s1;
		}
	}
	*deal = (int)d;
	score[0] = (int32_t)s0;
	score[1] = (int32_t)s1;
	return 0;
}

/* What no header can say: the checks of rpl__header_put before it writes anything. */
static int header_check(const rpl_match_info *info, unsigned flags, char *why, size_t whylen)
{
	if (!info || !info->rules || (info->nplayers != 2 && info->nplayers != 4) || info->first_dealer < 0 ||
	    info->first_dealer >= info->nplayers || info->nmeta > RPL_MAX_META ||
	    (info->nmeta && (!info->meta_keys || !info->meta_values)) || (flags & ~(RPL_LOG_SIGNED | BRP_FLAG_RECOVERED))) {
		snprintf(why, whylen, "the match header is incomplete or out of range");
		return RPL_EINVAL;
	}
	if (info->commitment && (info->nplayer_seeds < 0 || info->nplayer_seeds > RPL_DEAL_MAX_PLAYER_SEEDS ||
	                         (info->nplayer_seeds && !info->player_seeds))) {
		snprintf(why, whylen, "a committed match has 0 to %d player seeds", RPL_DEAL_MAX_PLAYER_SEEDS);
		return RPL_EINVAL;
	}
	if (info->commitment && info->commit_version != 0 && info->commit_version != RPL_COMMIT_V1 &&
	    info->commit_version != RPL_COMMIT_V2) {
		snprintf(why, whylen, "unknown commitment protocol %d", info->commit_version);
		return RPL_EINVAL;
	}
	if (info->commitment && info->commit_version != RPL_COMMIT_V1) {
		if (info->nplayer_seeds > info->nplayers) {
			snprintf(why, whylen, "%d player seeds for %d players: each seat adds one at most", info->nplayer_seeds,
			         info->nplayers);
			return RPL_EINVAL;
		}
		for (int i = 1; i < info->nplayer_seeds; i++)
			if (memcmp(info->player_seeds[i - 1], info->player_seeds[i], RPL_DEAL_SEED_SIZE) >= 0) {
				snprintf(why, whylen, "the players' seeds are not distinct and in ascending order");
				return RPL_EINVAL;
			}
	}
	return RPL_OK;
}

/* The version, the profile and its parameters: every one (version 2), or those that differ from the revision. */
static void params_put(struct buf *raw, const rpl_match_info *info, int version)
{
	if (version == BRP_VERSION) {
		rpl__buf_varint(raw, BRP_VERSION);
		rpl__buf_string(raw, rpl_rules_profile(info->rules));
		rpl__buf_varint(raw, RPL_P_COUNT);
		for (int id = 1; id <= RPL_P_COUNT; id++) {
			int v = 0;
			rpl_rules_get_id(info->rules, id, &v);
			rpl__buf_varint(raw, (uint64_t)id);
			rpl__buf_zigzag(raw, v);
		}
	} else {
		/* versions 3 on: only the parameters that differ from the frozen revision */
		const int32_t *frozen = frozen_values(rpl_rules_profile(info->rules));
		int ndiff = 0;
		for (int id = 1; id <= RPL_P_COUNT; id++) {
			int v = 0;
			rpl_rules_get_id(info->rules, id, &v);
			ndiff += v != frozen[id];
		}
		rpl__buf_varint(raw, (uint64_t)version);
		if (version >= BRP_VERSION_5) {
			for (uint8_t i = 0; i < sizeof(profile_codes) / sizeof(profile_codes[0]); i++)
				if (strcmp(profile_codes[i], rpl_rules_profile(info->rules)) == 0)
					rpl__buf_byte(raw, i);
		} else {
			rpl__buf_string(raw, rpl_rules_profile(info->rules));
		}
		rpl__buf_varint(raw, BRP_PROFILE_REVISION);
		rpl__buf_varint(raw, (uint64_t)ndiff);
		for (int id = 1; id <= RPL_P_COUNT; id++) {
			int v = 0;
			rpl_rules_get_id(info->rules, id, &v);
			if (v == frozen[id])
				continue;
			rpl__buf_varint(raw, (uint64_t)id);
			rpl__buf_zigzag(raw, v);
		}
	}
}

/* The dealing (versions 3 on): committed, revealed (seed given) or, from version 4, free. */
static void dealing_put(struct buf *raw, const rpl_match_info *info, const uint8_t *seed, int version)
{
	if (info->commitment) {
		/* revealed: the seed alone, as the commitment is its hash (with the terms, in version 4) */
		rpl__buf_byte(raw, seed ? DEALING_REVEALED : DEALING_COMMITTED);
		rpl__buf_put(raw, seed ? seed : info->commitment, RPL_DEAL_COMMIT_SIZE);
		rpl__buf_byte(raw, (uint8_t)info->nplayer_seeds);
		for (int i = 0; i < info->nplayer_seeds; i++)
			rpl__buf_put(raw, info->player_seeds[i], RPL_DEAL_SEED_SIZE);
	} else if (version >= BRP_VERSION_4) {
		rpl__buf_byte(raw, DEALING_FREE);
	}
}

/* The header section of the header's bytes raw: deflated when it pays (long metadata does, a bare header does not). */
static int section_put(struct buf *out, const struct buf *raw)
{
	uLongf zlen = compressBound((uLong)raw->n);
	uint8_t *z = malloc(zlen);
	struct buf body = { 0 };
	int err = RPL_OK;

	if (z && compress2(z, &zlen, raw->p, (uLong)raw->n, 9) == Z_OK) {
		rpl__buf_byte(&body, HEADER_DEFLATE);
		rpl__buf_varint(&body, raw->n);
		rpl__buf_put(&body, z, zlen);
	}
	if (!body.n || body.n >= raw->n + 1) {
		body.n = 0;
		rpl__buf_byte(&body, HEADER_RAW);
		rpl__buf_put(&body, raw->p, raw->n);
	}
	free(z);
	if (body.oom)
		err = RPL_ENOMEM;
	else
		rpl__section_put(out, 'H', body.p, body.n);
	rpl__buf_free(&body);
	return err;
}

int rpl__header_put(struct buf *out, const rpl_match_info *info, const uint8_t *seed, unsigned flags, int version,
                    char *why, size_t whylen)
{
	struct buf raw = { 0 };
	int err;

	if ((err = header_check(info, flags, why, whylen)) != 0)
		return err;
	if (!version)
		version = rpl__header_version(info, flags);
	params_put(&raw, info, version);
	rpl__buf_byte(&raw, (uint8_t)info->nplayers);
	for (int s = 0; s < info->nplayers; s++) {
		const char *name = info->players[s] ? info->players[s] : "";
		if (strlen(name) > RPL_MAX_NAME) {
			snprintf(why, whylen, "seat %d's name is longer than %d bytes", s, RPL_MAX_NAME);
			err = RPL_EINVAL;
			goto cleanup;
		}
		rpl__buf_string(&raw, name);
	}
	rpl__buf_byte(&raw, (uint8_t)info->first_dealer);
	if (info->start_time < RPL_MIN_START_TIME || info->start_time > RPL_MAX_START_TIME) {
		snprintf(why, whylen, "the start time %lld is outside the years 0000 to 9999", (long long)info->start_time);
		err = RPL_EINVAL;
		goto cleanup;
	}
	if (version >= BRP_VERSION_5 && info->start_time)
		rpl__buf_zigzag_plus1(&raw, info->start_time - BRP_TIME_EPOCH); /* format.md 19.1: 4 bytes near 2026 */
	else if (version >= BRP_VERSION_5)
		rpl__buf_byte(&raw, 0); /* unknown */
	else
		rpl__buf_zigzag(&raw, info->start_time);
	rpl__buf_varint(&raw, info->nmeta);
	for (size_t i = 0; i < info->nmeta; i++) {
		const char *k = info->meta_keys[i] ? info->meta_keys[i] : "";
		const char *v = info->meta_values[i] ? info->meta_values[i] : "";
		if (strlen(k) > RPL_MAX_META_TEXT || strlen(v) > RPL_MAX_META_TEXT) {
			snprintf(why, whylen, "metadata entry %zu is longer than %d bytes", i, RPL_MAX_META_TEXT);
			err = RPL_EINVAL;
			goto cleanup;
		}
		rpl__buf_string(&raw, k);
		rpl__buf_string(&raw, v);
	}
	dealing_put(&raw, info, seed, version);
	if (version >= BRP_VERSION_4)
		rpl__buf_varint(&raw, version >= BRP_VERSION_5 ? flags : flags & RPL_LOG_SIGNED);
	if (raw.oom) {
		err = RPL_ENOMEM;
		goto cleanup;
	}
	err = section_put(out, &raw);
cleanup:
	rpl__buf_free(&raw);
	return err;
}

int rpl__log_mark_signed(const uint8_t *data, size_t n, struct buf *out, char *why, size_t whylen)
{
	struct header h;
	struct section hs, s;
	size_t pos = BRP_MAGIC_LEN, at, sealed = 0;
	int version = 0, err, got;

	memset(&h, 0, sizeof(h));
	if (n < BRP_MAGIC_LEN || memcmp(data, BRP_MAGIC, BRP_MAGIC_LEN) != 0 ||
	    rpl__section_get(data, n, &pos, &hs, &sealed, why, whylen) != 1 ||
	    (hs.type != 'H' && hs.type != BRP_SEALED_TYPE)) {
		snprintf(why, whylen, "not a match log that reads to its end");
		return RPL_ECORRUPT;
	}
	at = pos;
	while ((got = rpl__section_get(data, n, &pos, &s, &sealed, why, whylen)) == 1)
		if (s.type == BRP_SIG_TYPE)
			return 0;
	if (got < 0)
		return RPL_ECORRUPT;
	err = rpl__header_get(&h, hs.payload, hs.len, &version, why, whylen);
	if (err)
		goto cleanup;
	if ((version == BRP_VERSION_COMMIT && h.info.commitment) || (h.flags & RPL_LOG_SIGNED))
		goto cleanup; /* err 0: kept as it is */
	rpl__buf_put(out, data, BRP_MAGIC_LEN);
	/* a log of version 2 or 4 becomes version 4, whose C sections read as its own do; versions 5 and 6 stay */
	if (sealed) {
		/* a sealed log stays sealed: its header again, the sections as they are, a new checksum */
		struct buf hb = { 0 };
		err = rpl__header_put(&hb, &h.info, h.revealed ? h.seed : NULL, RPL_LOG_SIGNED | (h.flags & BRP_FLAG_RECOVERED),
		                      version, why, whylen);
		if (!err) {
			rpl__header_seal(out, hb.p, hb.n);
			rpl__buf_put(out, data + at, sealed - 4 - at);
			rpl__seal_put(out, 0);
		}
		rpl__buf_free(&hb);
		if (err)
			goto cleanup;
	} else {
		err = rpl__header_put(out, &h.info, h.revealed ? h.seed : NULL, RPL_LOG_SIGNED | (h.flags & BRP_FLAG_RECOVERED),
		                      version >= BRP_VERSION_5 ? version : BRP_VERSION_4, why, whylen);
		if (err)
			goto cleanup;
		rpl__buf_put(out, data + at, n - at);
	}
	err = out->oom ? RPL_ENOMEM : 1;
cleanup:
	rpl__header_free(&h);
	return err;
}

void rpl__header_free(struct header *h)
{
	for (int s = 0; s < RPL_MAX_SEATS; s++)
		free(h->names[s]);
	for (size_t i = 0; h->keys && i < h->info.nmeta; i++)
		free(h->keys[i]);
	for (size_t i = 0; h->values && i < h->info.nmeta; i++)
		free(h->values[i]);
	free(h->keys);
	free(h->values);
	memset(h, 0, sizeof(*h));
}

/*
 * Version 3's parameters: the revision, then the pairs that differ from it,
 * ids strictly ascending, each value different from the revision's.
 */
static int params_v3(struct header *h, struct cursor *c, char *why, size_t whylen)
{
	const int32_t *frozen = frozen_values(rpl_rules_profile(&h->rules));
	uint64_t revision = rpl__cur_varint(c), ndiff;
	uint64_t last = 0;

	if (c->bad)
		return RPL_ECORRUPT;
	if (revision != BRP_PROFILE_REVISION || !frozen) {
		snprintf(why, whylen, "profile revision %llu; this reader knows revision %d", (unsigned long long)revision,
		         BRP_PROFILE_REVISION);
		return RPL_EUNSUPPORTED;
	}
	for (int id = 1; id <= RPL_P_COUNT; id++)
		h->rules.v[id] = frozen[id];
	ndiff = rpl__cur_varint(c);
	if (c->bad)
		return RPL_ECORRUPT;
	if (ndiff > RPL_P_COUNT) {
		snprintf(why, whylen, "%llu rule parameters differ; revision %d has %d", (unsigned long long)ndiff,
		         BRP_PROFILE_REVISION, RPL_P_COUNT);
		return RPL_ECORRUPT;
	}
	for (uint64_t i = 0; i < ndiff; i++) {
		uint64_t id = rpl__cur_varint(c);
		int64_t v = rpl__cur_zigzag(c);
		if (c->bad)
			return RPL_ECORRUPT;
		if (id > RPL_P_COUNT) {
			snprintf(why, whylen, "rule parameter %llu is unknown to revision %d", (unsigned long long)id,
			         BRP_PROFILE_REVISION);
			return RPL_EUNSUPPORTED;
		}
		if (id <= last) {
			snprintf(why, whylen, "rule parameter %llu out of place: ids ascend, each at most once",
			         (unsigned long long)id);
			return RPL_ECORRUPT;
		}
		last = id;
		if (v == frozen[id]) {
			snprintf(why, whylen, "rule parameter %s is stored with the revision's own value %lld",
			         rpl_rules_param_by_id((int)id)->name, (long long)v);
			return RPL_ECORRUPT;
		}
		if (v < INT32_MIN || v > INT32_MAX || rpl_rules_set_id(&h->rules, (int)id, (int)v) < 0) {
			snprintf(why, whylen, "rule parameter %s has an out-of-range value %lld",
			         rpl_rules_param_by_id((int)id)->name, (long long)v);
			return RPL_ECORRUPT;
		}
	}
	return 0;
}

/*
 * The helpers of rpl__header_get return 0 or an error; RPL_ECORRUPT with the
 * cursor bad means the header is malformed where the cursor stands (or, bad
 * == 2, that memory ran out), which the caller says. A helper that leaves the
 * cursor bad and returns 0 leaves it to the next read to find.
 */

/* The header's bytes into *c: stored as they are, or deflated (into *raw, which the caller frees). */
static int header_bytes(struct cursor *c, uint8_t **raw, const uint8_t *p, size_t n, char *why, size_t whylen)
{
	if (p[0] == HEADER_DEFLATE) {
		struct cursor lc = { p + 1, n - 1, 0, 0 };
		uint64_t rawlen = rpl__cur_varint(&lc);
		uLongf got;
		uLong srclen;
		if (lc.bad || rawlen == 0 || rawlen > HEADER_MAX_RAW) {
			snprintf(why, whylen, "the compressed header declares a size out of bounds");
			return RPL_ECORRUPT;
		}
		*raw = malloc((size_t)rawlen);
		if (!*raw)
			return RPL_ENOMEM;
		got = (uLongf)rawlen;
		srclen = (uLong)(n - 1 - lc.pos);
		if (uncompress2(*raw, &got, p + 1 + lc.pos, &srclen) != Z_OK || got != rawlen ||
		    srclen != (uLong)(n - 1 - lc.pos)) {
			snprintf(why, whylen, "the compressed header does not inflate exactly to its declared size and end");
			return RPL_ECORRUPT;
		}
		c->p = *raw;
		c->n = (size_t)rawlen;
	} else if (p[0] == HEADER_RAW) {
		c->p = p + 1;
		c->n = n - 1;
	} else {
		snprintf(why, whylen, "unknown header encoding %d", p[0]);
		return RPL_EUNSUPPORTED;
	}
	return 0;
}

/* Versions 1 and 2's parameters: every one, ids 1, 2, 3... (31 of them before parameter 32 existed). */
static int params_v2(struct header *h, struct cursor *c, char *why, size_t whylen)
{
	uint64_t nparams = rpl__cur_varint(c);

	if (c->bad)
		return RPL_ECORRUPT;
	if (nparams > RPL_P_COUNT) {
		snprintf(why, whylen, "%llu rule parameters; this reader knows %d", (unsigned long long)nparams, RPL_P_COUNT);
		return RPL_EUNSUPPORTED;
	}
	if (nparams < RPL_P_COUNT_V2_OLD) {
		snprintf(why, whylen, "%llu rule parameters: a header carries every one of the %d (%d before id %d)",
		         (unsigned long long)nparams, RPL_P_COUNT, RPL_P_COUNT_V2_OLD, RPL_P_COUNT);
		return RPL_ECORRUPT;
	}
	/* a header written before parameter 32 existed: the rules it was played by charged every side without
	   a morto, whatever the profile (docs/format.md section 4) */
	if (nparams == RPL_P_COUNT_V2_OLD)
		h->rules.v[RPL_P_PENALTY_NO_MORTO_SIDES] = RPL_PENALTY_EACH;
	for (uint64_t i = 0; i < nparams; i++) {
		uint64_t id = rpl__cur_varint(c);
		int64_t v = rpl__cur_zigzag(c);
		if (c->bad)
			return RPL_ECORRUPT;
		if (id != i + 1) {
			snprintf(why, whylen, "rule parameter %llu out of place: ids run 1, 2, 3... each once",
			         (unsigned long long)id);
			return RPL_ECORRUPT;
		}
		if (id < 1 || id > RPL_P_COUNT) {
			snprintf(why, whylen, "rule parameter %llu is unknown to this reader", (unsigned long long)id);
			return RPL_EUNSUPPORTED;
		}
		if (v < INT32_MIN || v > INT32_MAX || rpl_rules_set_id(&h->rules, (int)id, (int)v) < 0) {
			snprintf(why, whylen, "rule parameter %s has an out-of-range value %lld",
			         rpl_rules_param_by_id((int)id)->name, (long long)v);
			return RPL_ECORRUPT;
		}
	}
	return 0;
}

/* The players: how many, their names, the first dealer; then the start time. */
static int players_get(struct header *h, struct cursor *c, int version, char *why, size_t whylen)
{
	if (c->pos >= c->n) {
		c->bad = 1;
		return RPL_ECORRUPT;
	}
	h->info.nplayers = c->p[c->pos++];
	if (h->info.nplayers != 2 && h->info.nplayers != 4) {
		snprintf(why, whylen, "a match has 2 or 4 players, not %d", h->info.nplayers);
		return RPL_ECORRUPT;
	}
	for (int s = 0; s < h->info.nplayers; s++) {
		h->names[s] = rpl__cur_string(c, RPL_MAX_NAME);
		if (!h->names[s])
			return RPL_ECORRUPT;
		h->info.players[s] = h->names[s];
	}
	if (c->pos >= c->n) {
		c->bad = 1;
		return RPL_ECORRUPT;
	}
	h->info.first_dealer = c->p[c->pos++];
	if (h->info.first_dealer >= h->info.nplayers) {
		snprintf(why, whylen, "the first dealer %d is not a seat", h->info.first_dealer);
		return RPL_ECORRUPT;
	}
	if (version >= BRP_VERSION_5) {
		/* 0 unknown, else zigzag(t - 2026-01-01) + 1; the one encoding of 0 is 0 */
		uint64_t u = rpl__cur_varint(c);
		int64_t d = (int64_t)((u - 1) >> 1) ^ -(int64_t)((u - 1) & 1);
		if (c->bad)
			return RPL_ECORRUPT;
		if (u && (d < RPL_MIN_START_TIME - BRP_TIME_EPOCH || d > RPL_MAX_START_TIME - BRP_TIME_EPOCH ||
		          d == -BRP_TIME_EPOCH)) {
			snprintf(why, whylen, "a start time outside the years 0000 to 9999, or 0 coded otherwise than as 0");
			return RPL_ECORRUPT;
		}
		h->info.start_time = u ? BRP_TIME_EPOCH + d : 0;
	} else {
		h->info.start_time = rpl__cur_zigzag(c);
	}
	if (!c->bad && (h->info.start_time < RPL_MIN_START_TIME || h->info.start_time > RPL_MAX_START_TIME)) {
		/* what the notation and the export could not write as a date (issue 13, item 9) */
		snprintf(why, whylen, "the start time %lld is outside the years 0000 to 9999", (long long)h->info.start_time);
		return RPL_ECORRUPT;
	}
	return 0;
}

/* The metadata: its count, then each key and value. */
static int meta_get(struct header *h, struct cursor *c, char *why, size_t whylen)
{
	uint64_t nmeta = rpl__cur_varint(c);

	if (c->bad)
		return RPL_ECORRUPT;
	if (nmeta > RPL_MAX_META) {
		snprintf(why, whylen, "%llu metadata entries; a reader accepts at most %d", (unsigned long long)nmeta,
		         RPL_MAX_META);
		return RPL_ECORRUPT;
	}
	if (nmeta) {
		h->keys = calloc((size_t)nmeta, sizeof(char *));
		h->values = calloc((size_t)nmeta, sizeof(char *));
		if (!h->keys || !h->values)
			return RPL_ENOMEM;
	}
	h->info.nmeta = (size_t)nmeta;
	for (uint64_t i = 0; i < nmeta; i++) {
		h->keys[i] = rpl__cur_string(c, RPL_MAX_META_TEXT);
		h->values[i] = rpl__cur_string(c, RPL_MAX_META_TEXT);
		if (!h->keys[i] || !h->values[i])
			return RPL_ECORRUPT;
	}
	return 0;
}

/* Versions 3 and 4's dealing: free, or committed (the commitment) or revealed (the seed), and the players' seeds. */
static int dealing_get(struct header *h, struct cursor *c, int version, char *why, size_t whylen)
{
	uint8_t dealing, nseeds;

	if (c->pos >= c->n) {
		c->bad = 1;
		return RPL_ECORRUPT;
	}
	dealing = c->p[c->pos++];
	if (dealing == DEALING_FREE)
		return 0;
	if (dealing != DEALING_COMMITTED && dealing != DEALING_REVEALED) {
		snprintf(why, whylen, "unknown dealing %d", dealing);
		return RPL_EUNSUPPORTED;
	}
	if (c->n - c->pos < RPL_DEAL_COMMIT_SIZE + 1) {
		c->bad = 1;
		return RPL_ECORRUPT;
	}
	if (dealing == DEALING_REVEALED) {
		memcpy(h->seed, c->p + c->pos, RPL_DEAL_SEED_SIZE);
		h->revealed = 1;
	} else {
		memcpy(h->commitment, c->p + c->pos, RPL_DEAL_COMMIT_SIZE);
	}
	c->pos += RPL_DEAL_COMMIT_SIZE;
	nseeds = c->p[c->pos++];
	if (nseeds > RPL_DEAL_MAX_PLAYER_SEEDS) {
		snprintf(why, whylen, "%d player seeds; a match has at most %d", nseeds, RPL_DEAL_MAX_PLAYER_SEEDS);
		return RPL_ECORRUPT;
	}
	if (version >= BRP_VERSION_4 && nseeds > h->info.nplayers) {
		snprintf(why, whylen, "%d player seeds for %d players: each seat adds one at most", nseeds, h->info.nplayers);
		return RPL_ECORRUPT;
	}
	if (c->n - c->pos < (size_t)nseeds * RPL_DEAL_SEED_SIZE) {
		c->bad = 1;
		return RPL_ECORRUPT;
	}
	memcpy(h->player_seeds, c->p + c->pos, (size_t)nseeds * RPL_DEAL_SEED_SIZE);
	c->pos += (size_t)nseeds * RPL_DEAL_SEED_SIZE;
	/* version 4 stores them in ascending order, each once: one encoding, no choice of order */
	for (int i = 1; version >= BRP_VERSION_4 && i < nseeds; i++)
		if (memcmp(h->player_seeds[i - 1], h->player_seeds[i], RPL_DEAL_SEED_SIZE) >= 0) {
			snprintf(why, whylen, "the players' seeds are not distinct and in ascending order");
			return RPL_ECORRUPT;
		}
	h->info.commitment = h->commitment;
	h->info.nplayer_seeds = nseeds;
	h->info.player_seeds = (const uint8_t(*)[RPL_DEAL_SEED_SIZE])h->player_seeds;
	h->info.commit_version = version >= BRP_VERSION_4 ? RPL_COMMIT_V2 : RPL_COMMIT_V1;
	return 0;
}

/* The flags of versions 4 and 5. */
static int flags_get(struct header *h, struct cursor *c, int version, char *why, size_t whylen)
{
	uint64_t flags = rpl__cur_varint(c);

	if (c->bad)
		return RPL_ECORRUPT;
	if (flags & ~(uint64_t)(version >= BRP_VERSION_5 ? RPL_LOG_SIGNED | BRP_FLAG_RECOVERED : RPL_LOG_SIGNED)) {
		snprintf(why, whylen, "header flags %llu; this reader knows only 1 (signed)%s", (unsigned long long)flags,
		         version >= BRP_VERSION_5 ? " and 2 (recovered)" : "");
		return RPL_EUNSUPPORTED;
	}
	h->flags = (unsigned)flags;
	return 0;
}

int rpl__header_get(struct header *h, const uint8_t *p, size_t n, int *version, char *why, size_t whylen)
{
	struct cursor c = { 0 };
	uint8_t *raw = NULL;
	char *profile = NULL;
	int err = RPL_ECORRUPT;

	memset(h, 0, sizeof(*h));
	if (n < 1) {
		snprintf(why, whylen, "the header is empty");
		goto cleanup;
	}
	if ((err = header_bytes(&c, &raw, p, n, why, whylen)) != 0)
		goto cleanup;
	{
		uint64_t v = rpl__cur_varint(&c);
		if (c.bad)
			goto bad;
		*version = v > 1000000 ? 1000000 : (int)v;
		if (v < BRP_VERSION || v > BRP_VERSION_7) {
			snprintf(why, whylen, "format version %llu; this reader knows versions %d to %d", (unsigned long long)v,
			         BRP_VERSION, BRP_VERSION_7);
			err = RPL_EUNSUPPORTED;
			goto cleanup;
		}
	}
	if (*version >= BRP_VERSION_5) {
		/* a byte: the index of profile_codes */
		uint8_t code;
		if (c.pos >= c.n)
			goto bad;
		code = c.p[c.pos++];
		if (code >= sizeof(profile_codes) / sizeof(profile_codes[0])) {
			snprintf(why, whylen, "unknown rule profile code %d", code);
			err = RPL_EUNSUPPORTED;
			goto cleanup;
		}
		profile = strdup(profile_codes[code]);
		if (!profile) {
			err = RPL_ENOMEM;
			goto cleanup;
		}
	} else {
		profile = rpl__cur_string(&c, 32);
	}
	if (!profile)
		goto bad;
	if (rpl__rules_init(&h->rules, profile) < 0) {
		snprintf(why, whylen, "unknown rule profile '%s'", profile);
		err = RPL_EUNSUPPORTED;
		goto cleanup;
	}
	err = *version >= BRP_VERSION_COMMIT ? params_v3(h, &c, why, whylen) : params_v2(h, &c, why, whylen);
	if (!err)
		err = players_get(h, &c, *version, why, whylen);
	if (!err)
		err = meta_get(h, &c, why, whylen);
	if (!err && *version >= BRP_VERSION_COMMIT)
		err = dealing_get(h, &c, *version, why, whylen);
	if (!err && *version >= BRP_VERSION_4)
		err = flags_get(h, &c, *version, why, whylen);
	if (err == RPL_ECORRUPT && c.bad)
		goto bad;
	if (err)
		goto cleanup;
	err = RPL_ECORRUPT;
	if (c.pos != c.n)
		goto bad;
	if (*version == BRP_VERSION_7 && h->info.commitment) {
		/* a committed match's layouts are its seed's: version 7 holds matches dealt freely (format.md 21) */
		snprintf(why, whylen, "a version-7 header with a commitment (version 7 holds matches dealt freely)");
		goto cleanup;
	}
	h->info.meta_keys = (const char *const *)h->keys;
	h->info.meta_values = (const char *const *)h->values;
	h->info.rules = &h->rules;
	/* a header that reveals its seed: the commitment is the seed's (and, in version 4, the terms') hash */
	if (h->revealed && rpl_deal_commit_match(h->commitment, h->seed, &h->info) < 0) {
		err = RPL_ENOMEM;
		goto cleanup;
	}
	err = RPL_OK;
	goto cleanup;
bad:
	if (c.bad == 2) {
		err = RPL_ENOMEM;
	} else {
		snprintf(why, whylen, "the header is malformed at its byte %zu", c.pos);
		err = RPL_ECORRUPT;
	}
cleanup:
	free(raw);
	free(profile);
	if (err)
		rpl__header_free(h);
	return err;
}

const char *rpl__file_kind(unsigned mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "a special file";
}

int rpl__open_regular(const char *path, struct stat *st, int *errnum, char *why, size_t whylen)
{
	int fd;

	*errnum = 0;
	/* a path that cannot be looked at fails at open, with its reason */
	if (stat(path, st) == 0 && !S_ISREG(st->st_mode)) {
		snprintf(why, whylen, "%s, not a regular file", rpl__file_kind(st->st_mode));
		return -1;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, st) != 0) {
		*errnum = errno;
		snprintf(why, whylen, "cannot open: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		snprintf(why, whylen, "%s, not a regular file", rpl__file_kind(st->st_mode));
		close(fd);
		return -1;
	}
	return fd;
}
