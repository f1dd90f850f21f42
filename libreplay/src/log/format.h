/* Private: .brp framing (magic, sections, checksums) and the header. docs/format.md. */
#ifndef RPL_FORMAT_H
#define RPL_FORMAT_H

#include "libreplay/log.h"
#include "log/codec.h"
#include "rules/rules_impl.h"

#define BRP_MAGIC                                                                                                      \
	"\x89"                                                                                                             \
	"BRP\r\n\x1a\n"
#define BRP_MAGIC_LEN 8
#define BRP_VERSION 2          /* every parameter in the header, one claim a C (format.md 4, 5.3); read only */
#define BRP_VERSION_COMMIT 3   /* the first version with a committed deal (protocol 1, RPL_COMMIT_V1) */
#define BRP_VERSION_4 4        /* protocol 2 and header flags (format.md 18); written again only by rpl_sign_log */
#define BRP_VERSION_5 5        /* the profile's code, claims against the deals' (format.md 19) */
#define BRP_VERSION_6 6        /* version 5 with the decisions' refined model (format.md 20): a committed match's */
#define BRP_VERSION_7 7        /* a match dealt freely in one stream (format.md 21): the newest */
#define BRP_MATCH_TYPE 'M'     /* version 7's compact form: the match's stream */
#define BRP_PROFILE_REVISION 1 /* the frozen profile revision version 3 writes (format.md 16.2) */
#define BRP_SEALED_TYPE 'Z'    /* the header of a sealed log: one checksum for the whole (format.md 19.5) */
#define BRP_TIME_EPOCH 1767225600LL /* 2026-01-01T00:00:00Z: version 5 codes a start time from it (format.md 19.1) */
#define BRP_FLAG_RECOVERED 2u       /* version 5's header flag: salvaged by brp recover (format.md 19.1) */
#define BRP_MAX_FILE (64u << 20)

struct section {
	uint8_t type;
	const uint8_t *payload;
	size_t len;
	uint64_t offset; /* of the type byte */
	size_t end;      /* offset just past the checksum */
};

/* Append a section with its checksum. */
void rpl__section_put(struct buf *out, uint8_t type, const uint8_t *payload, size_t len);

/* Append a section without a checksum: in a sealed log, before its one checksum (format.md 19.5). */
void rpl__section_put_bare(struct buf *out, uint8_t type, const uint8_t *payload, size_t len);
/* A framed H (from rpl__header_put) as a sealed log's header: type Z, no checksum. */
void rpl__header_seal(struct buf *out, const uint8_t *framed, size_t n);
/* The checksum that ends a sealed log's E: a CRC-32 of out from start (the magic) on. */
void rpl__seal_put(struct buf *out, size_t start);

/*
 * Read the section at *pos. Returns 1 with *s filled and *pos advanced, 0 at
 * the end of the data, or -1 with why (and *pos unchanged). *sealed: 0
 * before the first section; when the log is sealed (its first section is
 * Z), the first call checks the log's checksum and sets it to the offset
 * just past that checksum, and the sections before it are read without one.
 */
int rpl__section_get(const uint8_t *data, size_t n, size_t *pos, struct section *s, size_t *sealed, char *why,
                     size_t whylen);

/* A bounded cursor over a payload. */
struct cursor {
	const uint8_t *p;
	size_t n, pos;
	int bad;
};
uint64_t rpl__cur_varint(struct cursor *c);
int64_t rpl__cur_zigzag(struct cursor *c);
/* A length-prefixed string of at most max bytes copied into a new NUL-terminated allocation. */
char *rpl__cur_string(struct cursor *c, size_t max);

void rpl__buf_zigzag(struct buf *b, int64_t v);
void rpl__buf_zigzag_plus1(struct buf *b, int64_t v);
void rpl__buf_string(struct buf *b, const char *s);

/*
 * The header section from match info. seed: NULL, or for a committed match
 * the seed to reveal in the header (the compact form of a revealed log,
 * format.md 16.1). flags: RPL_LOG_SIGNED for a log that will be signed.
 * version: 0 for rpl__header_version's, or 4 (rpl_sign_log's header of a
 * log of version 2 or 4, whose other sections keep their bytes). A
 * committed match of protocol 2 has its players' seeds sorted already (the
 * recorder sorts its copy). Returns 0 or RPL_EINVAL with why.
 */
int rpl__header_put(struct buf *out, const rpl_match_info *info, const uint8_t *seed, unsigned flags, int version,
                    char *why, size_t whylen);
/*
 * The version a new log of info is written in: 3 for a committed match of
 * protocol 1 (version 3 has no flags: a signed one is not marked), 6 for
 * one of protocol 2, else (a match dealt freely) 7.
 */
int rpl__header_version(const rpl_match_info *info, unsigned flags);

/*
 * A claim in the coding of a C section of version (format.md 5.3, 16.3,
 * 19.3). sum: the scores of every deal claim before it in the log, added
 * up (version 5 codes a match claim equal to them in one byte); both
 * functions add a deal claim to it. rpl__claim_get returns 0, or -1 when
 * the claim is malformed, out of range or not in its one encoding.
 */
void rpl__claim_put(struct buf *b, int version, int deal, const int32_t score[2], int64_t sum[2]);
int rpl__claim_get(struct cursor *c, int version, int *deal, int32_t score[2], int64_t sum[2]);

/* A decoded header, owning its strings. */
struct header {
	struct rpl_rules rules;
	rpl_match_info info;
	char *names[RPL_MAX_SEATS];
	char **keys, **values;
	uint8_t commitment[RPL_DEAL_COMMIT_SIZE];
	uint8_t player_seeds[RPL_DEAL_MAX_PLAYER_SEEDS][RPL_DEAL_SEED_SIZE];
	int revealed; /* the header itself reveals the seed */
	uint8_t seed[RPL_DEAL_SEED_SIZE];
	unsigned flags; /* version 4: RPL_LOG_SIGNED */
};
/* Decode a header payload. 0, or RPL_ECORRUPT / RPL_EUNSUPPORTED / RPL_ENOMEM with why. */
int rpl__header_get(struct header *h, const uint8_t *p, size_t n, int *version, char *why, size_t whylen);
void rpl__header_free(struct header *h);

/*
 * The log data[0..n) saying in its header that it is signed (format.md
 * 18.1), for rpl_sign_log: when it holds no signature section yet and does
 * not say so already, out gets the magic, the header written again as
 * version 4 with RPL_LOG_SIGNED (the same match info and revealed seed), and
 * every later section's bytes unchanged, and 1 is returned. 0, out untouched,
 * when the log is to keep its bytes: a signature section is in it (rewriting
 * the header would break what it signs), the flag is set already, or it is a
 * committed log of version 3, whose protocol version 4 cannot hold. The log
 * must read to its end (the caller checked). RPL_ECORRUPT, RPL_EUNSUPPORTED,
 * RPL_ENOMEM with why.
 */
int rpl__log_mark_signed(const uint8_t *data, size_t n, struct buf *out, char *why, size_t whylen);

/*
 * Open path to read it, only if it is a regular file: anything else (a FIFO,
 * a device, a directory) is refused without waiting on it, since a FIFO
 * opened for reading blocks until a writer comes, and opening some devices
 * acts on them. path is looked at first (stat), then opened with O_NONBLOCK
 * and looked at again (fstat: it may have been replaced in between).
 * Returns the descriptor (close it), *st its status; or -1 with why ("cannot
 * open: ...", or "a FIFO, not a regular file") and *errnum the errno (0 for
 * a file that is not regular).
 */
struct stat;
int rpl__open_regular(const char *path, struct stat *st, int *errnum, char *why, size_t whylen);
/* What a file that is not a regular one is, by its st_mode: "a FIFO", "a block device", ... */
const char *rpl__file_kind(unsigned mode);
/* 1 when the layout of the last deal event was derived from the revealed seed, 0 when it was read. */
int rpl__reader_derived(const rpl_reader *rd);
/*
 * rpl_reader_next for a caller that reads nothing of a decision's event but
 * its own fields (kind, deal, turn, seat, action, offset): those are set,
 * and the others keep what the previous event left (not zeroed: a decision
 * is most events, and the event is a few hundred bytes). Every other event
 * is filled as rpl_reader_next fills it. The verifier's replay without an
 * observer reads so.
 */
int rpl__reader_next_lean(rpl_reader *rd, rpl_event *ev);
/* The bytes of the log a reader holds (for the signature check). */
const uint8_t *rpl__reader_data(const rpl_reader *rd, size_t *n);
/*
 * rpl_reader_open_memory without the copy: the reader reads data in place,
 * which must stay unchanged and alive until rpl_reader_free. For the
 * library's second look at bytes it holds already (the claims of a log whose
 * positions are made, the export of a file it read, a salvage read again),
 * so that a log of 64 MiB costs 64 MiB once, not twice.
 */
int rpl__reader_open_view(rpl_reader **out, const uint8_t *data, size_t len);

#endif
