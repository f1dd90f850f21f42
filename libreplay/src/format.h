/* Private: .brp framing (magic, sections, checksums) and the header. docs/format.md. */
#ifndef RPL_FORMAT_H
#define RPL_FORMAT_H

#include "libreplay/log.h"
#include "codec.h"
#include "rules_impl.h"

#define BRP_MAGIC                                                                                                      \
	"\x89"                                                                                                             \
	"BRP\r\n\x1a\n"
#define BRP_MAGIC_LEN 8
#define BRP_VERSION 2          /* what the writer writes for a match dealt freely */
#define BRP_VERSION_COMMIT 3   /* ... and for a committed one: the newest version */
#define BRP_PROFILE_REVISION 1 /* the frozen profile revision version 3 writes (format.md 16.2) */
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

/*
 * Read the section at *pos. Returns 1 with *s filled and *pos advanced, 0 at
 * the end of the data, or -1 with why (and *pos unchanged).
 */
int rpl__section_get(const uint8_t *data, size_t n, size_t *pos, struct section *s, char *why, size_t whylen);

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
void rpl__buf_string(struct buf *b, const char *s);

/*
 * The header section from match info. seed: NULL, or for a committed match
 * the seed to reveal in the header (the compact form of a revealed log,
 * format.md 16.1). Returns 0 or RPL_EINVAL with why.
 */
int rpl__header_put(struct buf *out, const rpl_match_info *info, const uint8_t *seed, char *why, size_t whylen);

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
};
/* Decode a header payload. 0, or RPL_ECORRUPT / RPL_EUNSUPPORTED / RPL_ENOMEM with why. */
int rpl__header_get(struct header *h, const uint8_t *p, size_t n, int *version, char *why, size_t whylen);
void rpl__header_free(struct header *h);

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
/* The bytes of the log a reader holds (for the signature check). */
const uint8_t *rpl__reader_data(const rpl_reader *rd, size_t *n);

#endif
