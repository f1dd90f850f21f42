/*
 * Keys in minisign's formats, detached and embedded signatures, and the
 * check of a log's signature sections. Every primitive is libsodium's:
 * Ed25519 (crypto_sign_*), BLAKE2b (crypto_generichash_*), scrypt
 * (crypto_pwhash_scryptsalsa208sha256) for encrypted secret keys.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log/format.h"
#include "log/sign_impl.h"
#include "base/sodium_init.h"
#include "log/tmpfile.h"

/* minisign's key and signature structures, as bytes (all little-endian). */
#define ALG_ED "Ed" /* a key's algorithm; a legacy (not prehashed) signature's too */
#define KDF_NONE "\0\0"
#define KDF_SCRYPT "Sc"
#define CHK_B2 "B2"
#define SALT_BYTES 32
#define SK_BYTES 64 /* libsodium's Ed25519 secret key: seed and public key */
#define CHK_BYTES 32
/* sig_alg 2, kdf_alg 2, chk_alg 2, salt 32, opslimit 8, memlimit 8, then keynum_sk: key id 8, sk 64, chk 32 */
#define SECKEY_KEYNUM_SK 54
#define SECKEY_BYTES (SECKEY_KEYNUM_SK + RPL_KEY_ID_BYTES + SK_BYTES + CHK_BYTES)
#define PUBKEY_BYTES (2 + RPL_KEY_ID_BYTES + RPL_PUBKEY_BYTES)
#define SIG_BYTES (2 + RPL_KEY_ID_BYTES + RPL_SIGNATURE_BYTES)
#define COMMENT_PREFIX "untrusted comment: "
#define TRUSTED_PREFIX "trusted comment: "
#define LINE_MAX_BYTES 8192

struct rpl_seckey {
	uint8_t id[RPL_KEY_ID_BYTES];
	uint8_t sk[SK_BYTES];
	char errmsg[RPL_ERRMSG_SIZE];
};

struct rpl_keyring {
	rpl_pubkey *keys;
	size_t n, cap;
	char errmsg[RPL_ERRMSG_SIZE];
};

struct rpl_prehash {
	crypto_generichash_state st;
	uint64_t len;
};

static int kfail(char *msg, size_t cap, int err, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int kfail(char *msg, size_t cap, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, cap, fmt, ap);
	va_end(ap);
	return err;
}

#define SKFAIL(k, err, ...) kfail((k)->errmsg, sizeof((k)->errmsg), err, __VA_ARGS__)

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void le64_put(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void rpl_key_id_format(const uint8_t id[RPL_KEY_ID_BYTES], char out[RPL_KEY_ID_TEXT])
{
	snprintf(out, RPL_KEY_ID_TEXT, "%llX", (unsigned long long)le64(id)); /* no leading zeros, as minisign */
}

/* Decode a base64 line (padding required, blanks around it ignored) of exactly want bytes. */
static int b64_decode(uint8_t *out, size_t want, const char *line)
{
	size_t got = 0, n;
	const char *end;

	while (*line == ' ' || *line == '\t')
		line++;
	n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
		n--;
	if (sodium_base642bin(out, want, line, n, NULL, &got, &end, sodium_base64_VARIANT_ORIGINAL) != 0 || got != want ||
	    end != line + n)
		return -1;
	return 0;
}

static void b64_encode(char *out, size_t cap, const uint8_t *in, size_t n)
{
	sodium_bin2base64(out, cap, in, n, sodium_base64_VARIANT_ORIGINAL);
}

int rpl_pubkey_parse(rpl_pubkey *out, const char *line)
{
	uint8_t b[PUBKEY_BYTES];

	if (!out || !line)
		return RPL_EINVAL;
	if (b64_decode(b, sizeof(b), line) < 0)
		return RPL_EPARSE;
	if (memcmp(b, ALG_ED, 2) != 0)
		return RPL_EUNSUPPORTED;
	memcpy(out->id, b + 2, RPL_KEY_ID_BYTES);
	memcpy(out->key, b + 2 + RPL_KEY_ID_BYTES, RPL_PUBKEY_BYTES);
	return 0;
}

void rpl_pubkey_format(const rpl_pubkey *pk, char out[RPL_PUBKEY_TEXT])
{
	uint8_t b[PUBKEY_BYTES];

	memcpy(b, ALG_ED, 2);
	memcpy(b + 2, pk->id, RPL_KEY_ID_BYTES);
	memcpy(b + 2 + RPL_KEY_ID_BYTES, pk->key, RPL_PUBKEY_BYTES);
	b64_encode(out, RPL_PUBKEY_TEXT, b, sizeof(b));
}

void rpl_pubkey_fingerprint(const rpl_pubkey *pk, char out[RPL_KEY_FINGERPRINT_TEXT])
{
	uint8_t d[32];

	crypto_generichash(d, sizeof(d), pk->key, RPL_PUBKEY_BYTES, NULL, 0);
	sodium_bin2hex(out, RPL_KEY_FINGERPRINT_TEXT, d, 16);
}

/* ---- secret keys ---- */

int rpl_seckey_generate(rpl_seckey **out)
{
	struct rpl_seckey *k;
	uint8_t pk[RPL_PUBKEY_BYTES];

	if (!out)
		return RPL_EINVAL;
	*out = NULL;
	if (rpl__sodium_init() < 0)
		return RPL_EIO;
	k = calloc(1, sizeof(*k));
	if (!k)
		return RPL_ENOMEM;
	randombytes_buf(k->id, sizeof(k->id));
	crypto_sign_keypair(pk, k->sk);
	*out = k;
	return 0;
}

void rpl_seckey_free(rpl_seckey *k)
{
	if (!k)
		return;
	sodium_memzero(k, sizeof(*k));
	free(k);
}

void rpl_seckey_public(const rpl_seckey *k, rpl_pubkey *out)
{
	memcpy(out->id, k->id, RPL_KEY_ID_BYTES);
	/* libsodium's secret key ends with the public key */
	memcpy(out->key, k->sk + SK_BYTES - RPL_PUBKEY_BYTES, RPL_PUBKEY_BYTES);
}

const char *rpl_seckey_errmsg(const rpl_seckey *k)
{
	return k ? k->errmsg : "";
}

/* minisign's checksum of a secret key: BLAKE2b-256 of the algorithm, the key id and the key. */
static void seckey_chk(const uint8_t *file, uint8_t chk[CHK_BYTES])
{
	crypto_generichash_state hs;

	crypto_generichash_init(&hs, NULL, 0, CHK_BYTES);
	crypto_generichash_update(&hs, file, 2);
	crypto_generichash_update(&hs, file + SECKEY_KEYNUM_SK, RPL_KEY_ID_BYTES + SK_BYTES);
	crypto_generichash_final(&hs, chk, CHK_BYTES);
	sodium_memzero(&hs, sizeof(hs));
}

/* XOR the key id, key and checksum with the scrypt stream of passphrase (minisign's encryption). */
static int seckey_crypt(uint8_t *file, const char *passphrase)
{
	uint8_t stream[SECKEY_BYTES - SECKEY_KEYNUM_SK];
	int err;

	err = crypto_pwhash_scryptsalsa208sha256(stream, sizeof(stream), passphrase, strlen(passphrase), file + 6,
	                                         le64(file + 38), (size_t)le64(file + 46));
	if (err == 0)
		for (size_t i = 0; i < sizeof(stream); i++)
			file[SECKEY_KEYNUM_SK + i] ^= stream[i];
	sodium_memzero(stream, sizeof(stream));
	return err;
}

/*
 * A key file or a keyring, line by line. It is opened as the reader opens a
 * log (rpl__open_regular: a regular file only, so a FIFO or a device never
 * blocks or feeds it for ever), and a line that holds a NUL byte or is
 * longer than LINE_MAX_BYTES ends it with RPL_EPARSE and the line's number:
 * no key line is either, and a file of NUL bytes is refused at its first.
 */
struct lines {
	int fd;
	int lineno; /* of the line last given */
	int eof;
	size_t start, end;
	char buf[LINE_MAX_BYTES + 2]; /* a line at its longest, its LF, and a NUL */
};

static int lines_open(struct lines *l, const char *path, char *msg, size_t cap)
{
	struct stat st;
	char why[RPL_ERRMSG_SIZE];
	int e;

	l->lineno = l->eof = 0;
	l->start = l->end = 0;
	l->fd = rpl__open_regular(path, &st, &e, why, sizeof(why));
	if (l->fd < 0)
		return kfail(msg, cap, RPL_EIO, "%s: %s", path, why);
	return 0;
}

static void lines_close(struct lines *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
	sodium_memzero(l->buf, sizeof(l->buf)); /* a secret key passed through it */
}

/* The next line in *line (NUL-terminated, its LF and a CR before it dropped): 1; 0 at the end; or an error. */
static int lines_next(struct lines *l, char **line, const char *path, char *msg, size_t cap)
{
	for (;;) {
		char *nl = memchr(l->buf + l->start, '\n', l->end - l->start);
		size_t n;
		ssize_t got;
		if (nl || (l->eof && l->end > l->start)) {
			char *p = l->buf + l->start;
			n = nl ? (size_t)(nl - p) : l->end - l->start;
			l->lineno++;
			l->start += n + (nl ? 1 : 0);
			if (memchr(p, '\0', n))
				return kfail(msg, cap, RPL_EPARSE, "%s: line %d: holds a NUL byte", path, l->lineno);
			if (n > LINE_MAX_BYTES)
				return kfail(msg, cap, RPL_EPARSE, "%s: line %d: longer than %d bytes", path, l->lineno,
				             LINE_MAX_BYTES);
			p[n] = '\0';
			if (n && p[n - 1] == '\r')
				p[n - 1] = '\0';
			*line = p;
			return 1;
		}
		if (l->eof)
			return 0;
		/* a line not yet whole that holds a NUL already is refused as soon as it is seen */
		if (memchr(l->buf + l->start, '\0', l->end - l->start))
			return kfail(msg, cap, RPL_EPARSE, "%s: line %d: holds a NUL byte", path, l->lineno + 1);
		if (l->end - l->start > LINE_MAX_BYTES)
			return kfail(msg, cap, RPL_EPARSE, "%s: line %d: longer than %d bytes", path, l->lineno + 1,
			             LINE_MAX_BYTES);
		if (l->start > 0) {
			memmove(l->buf, l->buf + l->start, l->end - l->start);
			l->end -= l->start;
			l->start = 0;
		}
		got = read(l->fd, l->buf + l->end, sizeof(l->buf) - 1 - l->end);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return kfail(msg, cap, RPL_EIO, "%s: %s", path, strerror(errno));
		if (got == 0)
			l->eof = 1;
		l->end += (size_t)got;
	}
}

/*
 * A secret key file's two lines: *commented whether the first is minisign's
 * "untrusted comment:", *b64 the second (in l's buffer), NULL when the file
 * has fewer lines.
 */
static int read_seckey(struct lines *l, const char *path, int *commented, char **b64, char *msg, size_t cap)
{
	char *line = NULL;
	int err, got;

	*commented = 0;
	*b64 = NULL;
	err = lines_open(l, path, msg, cap);
	if (err)
		return err;
	got = lines_next(l, &line, path, msg, cap);
	if (got <= 0)
		return got;
	*commented = strncmp(line, COMMENT_PREFIX, strlen(COMMENT_PREFIX)) == 0;
	got = lines_next(l, &line, path, msg, cap);
	if (got < 0)
		return got;
	if (got)
		*b64 = line;
	return 0;
}

int rpl_seckey_file_encrypted(const char *path)
{
	struct lines l;
	char *b64, msg[8];
	uint8_t file[SECKEY_BYTES];
	int commented, err;

	if (!path)
		return RPL_EINVAL;
	err = read_seckey(&l, path, &commented, &b64, msg, sizeof(msg));
	if (!err && (!b64 || b64_decode(file, sizeof(file), b64) < 0))
		err = RPL_EPARSE;
	else if (!err)
		err = memcmp(file + 2, KDF_SCRYPT, 2) == 0;
	lines_close(&l);
	sodium_memzero(file, sizeof(file));
	return err;
}

int rpl_seckey_load(rpl_seckey **out, const char *path, const char *passphrase)
{
	struct rpl_seckey *k;
	struct lines l;
	char *b64;
	uint8_t file[SECKEY_BYTES], chk[CHK_BYTES];
	int commented, err;

	if (!out)
		return RPL_EINVAL;
	*out = NULL;
	if (!path)
		return RPL_EINVAL;
	if (rpl__sodium_init() < 0)
		return RPL_EIO;
	k = calloc(1, sizeof(*k));
	if (!k)
		return RPL_ENOMEM;
	*out = k;
	l.fd = -1;
	err = read_seckey(&l, path, &commented, &b64, k->errmsg, sizeof(k->errmsg));
	if (err)
		goto cleanup;
	if (!commented || !b64 || b64_decode(file, sizeof(file), b64) < 0) {
		err = SKFAIL(k, RPL_EPARSE, "%s: not a minisign secret key file", path);
		goto cleanup;
	}
	if (memcmp(file, ALG_ED, 2) != 0 || memcmp(file + 4, CHK_B2, 2) != 0) {
		err = SKFAIL(k, RPL_EUNSUPPORTED, "%s: not an Ed25519 key with a BLAKE2b checksum", path);
		goto cleanup;
	}
	if (memcmp(file + 2, KDF_SCRYPT, 2) == 0) {
		if (!passphrase) {
			err = SKFAIL(k, RPL_ESTATE, "%s: the key is encrypted and no passphrase was given", path);
			goto cleanup;
		}
		/* a key file must not make us spend more than twice minisign's own limits */
		if (le64(file + 38) > 2ull * crypto_pwhash_scryptsalsa208sha256_OPSLIMIT_SENSITIVE ||
		    le64(file + 46) > 2ull * crypto_pwhash_scryptsalsa208sha256_MEMLIMIT_SENSITIVE) {
			err = SKFAIL(k, RPL_ELIMIT, "%s: the key's scrypt limits are beyond twice minisign's", path);
			goto cleanup;
		}
		if (seckey_crypt(file, passphrase) != 0) {
			err = SKFAIL(k, RPL_ENOMEM, "%s: the key derivation failed (out of memory?)", path);
			goto cleanup;
		}
		seckey_chk(file, chk);
		if (sodium_memcmp(chk, file + SECKEY_KEYNUM_SK + RPL_KEY_ID_BYTES + SK_BYTES, CHK_BYTES) != 0) {
			err = SKFAIL(k, RPL_EINVAL, "%s: wrong passphrase for this key", path);
			goto cleanup;
		}
	} else if (memcmp(file + 2, KDF_NONE, 2) == 0) {
		/* minisign -G -W leaves the checksum of an unencrypted key zero; one that is set must match */
		static const uint8_t zero[CHK_BYTES];
		seckey_chk(file, chk);
		if (memcmp(file + SECKEY_BYTES - CHK_BYTES, zero, CHK_BYTES) != 0 &&
		    sodium_memcmp(chk, file + SECKEY_BYTES - CHK_BYTES, CHK_BYTES) != 0) {
			err = SKFAIL(k, RPL_EINVAL, "%s: the key is damaged (its checksum differs)", path);
			goto cleanup;
		}
	} else {
		err = SKFAIL(k, RPL_EUNSUPPORTED, "%s: unknown key derivation", path);
		goto cleanup;
	}
	memcpy(k->id, file + SECKEY_KEYNUM_SK, RPL_KEY_ID_BYTES);
	memcpy(k->sk, file + SECKEY_KEYNUM_SK + RPL_KEY_ID_BYTES, SK_BYTES);
	err = 0;
cleanup:
	lines_close(&l);
	sodium_memzero(file, sizeof(file));
	sodium_memzero(chk, sizeof(chk));
	return err;
}

/* A new temporary file for path holding text (tmpfile.h); on failure nothing is left and msg says why. */
static int key_file(struct rpl__tmpfile *t, const char *path, const char *text, mode_t mode, char *msg, size_t cap)
{
	if (rpl__tmpfile_open(t, path, mode, 0) == 0 && rpl__tmpfile_write(t, text, strlen(text)) == 0)
		return 0;
	rpl__tmpfile_discard(t);
	return kfail(msg, cap, t->errnum == ENOMEM ? RPL_ENOMEM : RPL_EIO, "%s: %s", path, t->why);
}

/* Put t (made by key_file for path) in place. */
static int key_commit(struct rpl__tmpfile *t, const char *path, unsigned flags, char *msg, size_t cap)
{
	if (rpl__tmpfile_commit(t, (flags & RPL_KEY_OVERWRITE) ? RPL__TMP_REPLACE : 0) == 0)
		return 0;
	return kfail(msg, cap, RPL_EIO, "%s: %s", path, t->why);
}

int rpl_seckey_save(rpl_seckey *k, const char *secret_path, const char *public_path, const char *passphrase,
                    unsigned flags)
{
	uint8_t file[SECKEY_BYTES];
	char text[512], b64[sodium_base64_ENCODED_LEN(SECKEY_BYTES, sodium_base64_VARIANT_ORIGINAL)];
	char id[RPL_KEY_ID_TEXT], pkline[RPL_PUBKEY_TEXT];
	struct rpl__tmpfile sec = RPL__TMPFILE_INIT, pub = RPL__TMPFILE_INIT;
	rpl_pubkey pk;
	int err;

	if (!k || !secret_path)
		return RPL_EINVAL;
	memset(file, 0, sizeof(file));
	memcpy(file, ALG_ED, 2);
	memcpy(file + 2, passphrase ? KDF_SCRYPT : KDF_NONE, 2);
	memcpy(file + 4, CHK_B2, 2);
	memcpy(file + SECKEY_KEYNUM_SK, k->id, RPL_KEY_ID_BYTES);
	memcpy(file + SECKEY_KEYNUM_SK + RPL_KEY_ID_BYTES, k->sk, SK_BYTES);
	seckey_chk(file, file + SECKEY_BYTES - CHK_BYTES);
	if (passphrase) {
		/* minisign's parameters ("sensitive"), halved while memory runs short, as minisign does */
		uint64_t ops = crypto_pwhash_scryptsalsa208sha256_OPSLIMIT_SENSITIVE;
		uint64_t mem = crypto_pwhash_scryptsalsa208sha256_MEMLIMIT_SENSITIVE;
		if (flags & RPL_KEY_FAST_KDF) {
			ops = crypto_pwhash_scryptsalsa208sha256_OPSLIMIT_INTERACTIVE;
			mem = crypto_pwhash_scryptsalsa208sha256_MEMLIMIT_INTERACTIVE;
		}
		randombytes_buf(file + 6, SALT_BYTES);
		for (;;) {
			le64_put(file + 38, ops);
			le64_put(file + 46, mem);
			if (seckey_crypt(file, passphrase) == 0)
				break;
			ops /= 2;
			mem /= 2;
			if (ops < crypto_pwhash_scryptsalsa208sha256_OPSLIMIT_MIN ||
			    mem < crypto_pwhash_scryptsalsa208sha256_MEMLIMIT_MIN) {
				err = SKFAIL(k, RPL_ENOMEM, "not enough memory to derive a key from the passphrase");
				goto cleanup;
			}
		}
	}
	b64_encode(b64, sizeof(b64), file, sizeof(file));
	snprintf(text, sizeof(text), "%s%s\n%s\n", COMMENT_PREFIX,
	         passphrase ? "brp encrypted secret key" : "brp secret key (unencrypted)", b64);
	/*
	 * Both files are written whole, each to a new file of its own mode, before
	 * either takes its name; an existing one is refused before anything is
	 * made (without RPL_KEY_OVERWRITE), so a failure leaves neither.
	 */
	if (!(flags & RPL_KEY_OVERWRITE)) {
		struct stat st;
		const char *in_way = lstat(secret_path, &st) == 0                  ? secret_path
		                     : public_path && lstat(public_path, &st) == 0 ? public_path
		                                                                   : NULL;
		if (in_way) {
			err = SKFAIL(k, RPL_EIO, "%s: %s", in_way, strerror(EEXIST));
			goto cleanup;
		}
	}
	err = key_file(&sec, secret_path, text, 0600, k->errmsg, sizeof(k->errmsg));
	if (err)
		goto cleanup;
	if (public_path) {
		rpl_seckey_public(k, &pk);
		rpl_key_id_format(pk.id, id);
		rpl_pubkey_format(&pk, pkline);
		snprintf(text, sizeof(text), "%sminisign public key %s\n%s\n", COMMENT_PREFIX, id, pkline);
		err = key_file(&pub, public_path, text, 0644, k->errmsg, sizeof(k->errmsg));
		if (err)
			goto cleanup;
	}
	err = key_commit(&sec, secret_path, flags, k->errmsg, sizeof(k->errmsg));
	if (err)
		goto cleanup;
	if (public_path && (err = key_commit(&pub, public_path, flags, k->errmsg, sizeof(k->errmsg))) != 0 &&
	    !(flags & RPL_KEY_OVERWRITE))
		unlink(secret_path); /* put there a moment ago: a secret key without its public key goes */
cleanup:
	rpl__tmpfile_discard(&sec);
	rpl__tmpfile_discard(&pub);
	sodium_memzero(file, sizeof(file));
	sodium_memzero(text, sizeof(text));
	sodium_memzero(b64, sizeof(b64));
	return err;
}

/* ---- trusted keys ---- */

int rpl_keyring_new(rpl_keyring **out)
{
	if (!out)
		return RPL_EINVAL;
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : RPL_ENOMEM;
}

void rpl_keyring_free(rpl_keyring *kr)
{
	if (!kr)
		return;
	free(kr->keys);
	free(kr);
}

int rpl_keyring_add(rpl_keyring *kr, const rpl_pubkey *pk)
{
	if (!kr || !pk)
		return RPL_EINVAL;
	if (rpl_keyring_has(kr, pk))
		return 0;
	if (kr->n == kr->cap) {
		size_t cap = kr->cap ? kr->cap * 2 : 4;
		rpl_pubkey *p = realloc(kr->keys, cap * sizeof(*p));
		if (!p)
			return RPL_ENOMEM;
		kr->keys = p;
		kr->cap = cap;
	}
	kr->keys[kr->n++] = *pk;
	return 0;
}

int rpl_keyring_add_file(rpl_keyring *kr, const char *path)
{
	struct lines l;
	char *line;
	int found = 0, err, got;

	if (!kr || !path)
		return RPL_EINVAL;
	err = lines_open(&l, path, kr->errmsg, sizeof(kr->errmsg));
	if (err)
		return err;
	while ((got = lines_next(&l, &line, path, kr->errmsg, sizeof(kr->errmsg))) > 0) {
		const char *p = line;
		rpl_pubkey pk;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0' || *p == '#' || strncmp(p, COMMENT_PREFIX, strlen(COMMENT_PREFIX)) == 0)
			continue;
		err = rpl_pubkey_parse(&pk, p);
		if (err) {
			err = kfail(kr->errmsg, sizeof(kr->errmsg), err, "%s: line %d: %s", path, l.lineno,
			            err == RPL_EUNSUPPORTED ? "not an Ed25519 public key" : "not a minisign public key");
			goto cleanup;
		}
		err = rpl_keyring_add(kr, &pk);
		if (err)
			goto cleanup;
		found++;
	}
	if (got < 0) {
		err = got;
		goto cleanup;
	}
	if (!found)
		err = kfail(kr->errmsg, sizeof(kr->errmsg), RPL_EPARSE, "%s: no public key in the file", path);
cleanup:
	lines_close(&l);
	return err;
}

size_t rpl_keyring_count(const rpl_keyring *kr)
{
	return kr ? kr->n : 0;
}

int rpl_keyring_has(const rpl_keyring *kr, const rpl_pubkey *pk)
{
	if (!kr || !pk)
		return 0;
	for (size_t i = 0; i < kr->n; i++)
		if (memcmp(kr->keys[i].id, pk->id, RPL_KEY_ID_BYTES) == 0 &&
		    memcmp(kr->keys[i].key, pk->key, RPL_PUBKEY_BYTES) == 0)
			return 1;
	return 0;
}

const char *rpl_keyring_errmsg(const rpl_keyring *kr)
{
	return kr ? kr->errmsg : "";
}

/* ---- the prehash ---- */

int rpl_prehash_new(rpl_prehash **out)
{
	struct rpl_prehash *h;

	if (!out)
		return RPL_EINVAL;
	*out = NULL;
	if (rpl__sodium_init() < 0)
		return RPL_EIO;
	h = calloc(1, sizeof(*h));
	if (!h)
		return RPL_ENOMEM;
	crypto_generichash_init(&h->st, NULL, 0, crypto_generichash_BYTES_MAX);
	*out = h;
	return 0;
}

void rpl_prehash_free(rpl_prehash *h)
{
	free(h);
}

void rpl_prehash_update(rpl_prehash *h, const void *data, size_t len)
{
	if (len)
		crypto_generichash_update(&h->st, data, len);
	h->len += len;
}

uint64_t rpl_prehash_length(const rpl_prehash *h)
{
	return h ? h->len : 0;
}

void rpl_prehash_digest(const rpl_prehash *h, uint8_t digest[64])
{
	crypto_generichash_state copy = h->st;

	crypto_generichash_final(&copy, digest, 64);
}

void rpl_prehash_sign(const rpl_prehash *h, const rpl_seckey *k, uint8_t sig[RPL_SIGNATURE_BYTES])
{
	uint8_t d[64];

	rpl_prehash_digest(h, d);
	crypto_sign_detached(sig, NULL, d, sizeof(d), k->sk);
}

void rpl__sig_section_put(struct buf *out, const rpl_prehash *h, const rpl_seckey *k)
{
	uint8_t pay[BRP_SIG_PAYLOAD];
	rpl_pubkey pk;

	rpl_seckey_public(k, &pk);
	memcpy(pay, BRP_SIG_ALG, 2);
	memcpy(pay + 2, k->id, RPL_KEY_ID_BYTES);
	rpl_prehash_sign(h, k, pay + 2 + RPL_KEY_ID_BYTES);
	memcpy(pay + 2 + RPL_KEY_ID_BYTES + RPL_SIGNATURE_BYTES, pk.key, RPL_PUBKEY_BYTES);
	rpl__section_put(out, BRP_SIG_TYPE, pay, sizeof(pay));
}

/* ---- signing files ---- */

/* The bytes of the log at path, opened as the reader opens one (never waiting on a FIFO); *st its status. */
static int read_file(const char *path, uint8_t **data, size_t *n, struct stat *st, char *msg, size_t cap)
{
	char why[RPL_ERRMSG_SIZE];
	int err = 0, e, fd;

	*data = NULL;
	*n = 0;
	fd = rpl__open_regular(path, st, &e, why, sizeof(why));
	if (fd < 0)
		return kfail(msg, cap, RPL_EIO, "%s: %s", path, why);
	if ((uint64_t)st->st_size > BRP_MAX_FILE) {
		err = kfail(msg, cap, RPL_ELIMIT, "%s: larger than the %u bytes a log may have", path, BRP_MAX_FILE);
		goto cleanup;
	}
	*data = malloc(st->st_size ? (size_t)st->st_size : 1);
	if (!*data) {
		err = RPL_ENOMEM;
		goto cleanup;
	}
	while (*n < (size_t)st->st_size) {
		ssize_t got = read(fd, *data + *n, (size_t)st->st_size - *n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			err = kfail(msg, cap, RPL_EIO, "%s: %s", path, got < 0 ? strerror(errno) : "read error");
			goto cleanup;
		}
		*n += (size_t)got;
	}
cleanup:
	close(fd);
	if (err) {
		free(*data);
		*data = NULL;
	}
	return err;
}

/*
 * Write data to a new file beside path (tmpfile.h) and put it over path;
 * nothing is left of it on failure, and path is as it was.
 */
static int replace_file(const char *path, const void *data, size_t n, mode_t mode, unsigned flags, char *msg,
                        size_t cap)
{
	struct rpl__tmpfile t = RPL__TMPFILE_INIT;

	if (rpl__tmpfile_open(&t, path, mode, flags) == 0 && rpl__tmpfile_write(&t, data, n) == 0 &&
	    rpl__tmpfile_commit(&t, RPL__TMP_REPLACE) == 0)
		return 0;
	rpl__tmpfile_discard(&t);
	return kfail(msg, cap, t.errnum == ENOMEM ? RPL_ENOMEM : RPL_EIO, "%s: %s", path, t.why);
}

/*
 * A log signed for the first time says so in its header (format.md 18.1):
 * *data becomes the log with its header marked (rpl__log_mark_signed), when
 * that applies, checked to be the same match (rd: the original, read to its
 * end). 0 either way, or an error with the reason in k.
 */
static int mark_signed(rpl_seckey *k, const rpl_reader *rd, uint8_t **data, size_t *n)
{
	struct buf marked = { 0 };
	rpl_reader *again = NULL;
	rpl_event ev;
	char before[RPL_MATCH_ID_SIZE], after[RPL_MATCH_ID_SIZE];
	int err, got;

	err = rpl__log_mark_signed(*data, *n, &marked, k->errmsg, sizeof(k->errmsg));
	if (err <= 0)
		goto cleanup;
	/* what the header says of the match, and every other byte, must not change: its identity does not */
	err = rpl_reader_open_memory(&again, marked.p, marked.n);
	while (err == 0 && (got = rpl_reader_next(again, &ev)) != 0)
		if (got < 0)
			err = got;
	if (err == 0 &&
	    (rpl_reader_match_id(rd, before) != 0 || rpl_reader_match_id(again, after) != 0 || strcmp(before, after) != 0))
		err = SKFAIL(k, RPL_ECORRUPT, "the header cannot say the log is signed without changing the match");
	else if (err)
		err = SKFAIL(k, err == RPL_ENOMEM ? RPL_ENOMEM : RPL_ECORRUPT, "the header marked signed: %s",
		             again ? rpl_reader_errmsg(again) : rpl_strerror(err));
	if (err)
		goto cleanup;
	free(*data);
	*data = marked.p;
	*n = marked.n;
	marked.p = NULL;
cleanup:
	rpl_reader_free(again);
	rpl__buf_free(&marked);
	return err;
}

int rpl_sign_log(rpl_seckey *k, const char *path)
{
	uint8_t *data = NULL;
	size_t n = 0;
	rpl_reader *rd = NULL;
	rpl_prehash h;
	struct buf out = { 0 };
	rpl_event ev;
	struct stat st;
	int err, got;

	if (!k || !path)
		return RPL_EINVAL;
	if (rpl__sodium_init() < 0)
		return SKFAIL(k, RPL_EIO, "libsodium cannot be initialised");
	/* signed in place: never through a link (the signed copy would replace the link, not sign its file) */
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		err = SKFAIL(k, RPL_EIO, "%s: a symbolic link, not a regular file (sign the file it points to)", path);
		goto cleanup;
	}
	err = read_file(path, &data, &n, &st, k->errmsg, sizeof(k->errmsg));
	if (err)
		goto cleanup;
	/* only a log that reads to its end is signed: a signature must not vouch for damage */
	err = rpl_reader_open_memory(&rd, data, n);
	while (err == 0 && (got = rpl_reader_next(rd, &ev)) != 0)
		if (got < 0)
			err = got;
	if (err == RPL_ENOMEM)
		goto cleanup;
	if (err) {
		err = SKFAIL(k, err == RPL_EUNSUPPORTED ? RPL_EUNSUPPORTED : RPL_ECORRUPT, "%s: %s", path,
		             rd ? rpl_reader_errmsg(rd) : rpl_strerror(err));
		goto cleanup;
	}
	if ((err = mark_signed(k, rd, &data, &n)) != 0)
		goto cleanup;
	crypto_generichash_init(&h.st, NULL, 0, crypto_generichash_BYTES_MAX);
	h.len = 0;
	rpl_prehash_update(&h, data, n);
	rpl__buf_put(&out, data, n);
	rpl__sig_section_put(&out, &h, k);
	if (out.oom) {
		err = RPL_ENOMEM;
		goto cleanup;
	}
	/* the signed log keeps the mode of the log it replaces */
	err = replace_file(path, out.p, out.n, st.st_mode & 0777, RPL__TMP_EXACT_MODE, k->errmsg, sizeof(k->errmsg));
cleanup:
	rpl_reader_free(rd);
	rpl__buf_free(&out);
	free(data);
	return err;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

int rpl_sign_detached(rpl_seckey *k, const char *path, const char *sig_path, const char *trusted_comment,
                      int64_t timestamp)
{
	uint8_t *data = NULL, sig[SIG_BYTES], global[RPL_SIGNATURE_BYTES], d[64];
	uint8_t *tc_msg = NULL;
	size_t n = 0, tclen;
	char *tc = NULL, *text = NULL;
	char b64s[sodium_base64_ENCODED_LEN(SIG_BYTES, sodium_base64_VARIANT_ORIGINAL)];
	char b64g[sodium_base64_ENCODED_LEN(RPL_SIGNATURE_BYTES, sodium_base64_VARIANT_ORIGINAL)];
	struct stat st;
	int err;

	if (!k || !path || !sig_path)
		return RPL_EINVAL;
	if (rpl__sodium_init() < 0)
		return SKFAIL(k, RPL_EIO, "libsodium cannot be initialised");
	if (trusted_comment && strpbrk(trusted_comment, "\r\n"))
		return SKFAIL(k, RPL_EINVAL, "a trusted comment is one line");
	err = read_file(path, &data, &n, &st, k->errmsg, sizeof(k->errmsg));
	if (err)
		goto cleanup;
	if (trusted_comment) {
		tc = malloc(strlen(trusted_comment) + 1);
		if (tc)
			strcpy(tc, trusted_comment);
	} else {
		/* minisign's default: the time, the file's name, and that it is prehashed */
		tc = malloc(strlen(base_name(path)) + 64);
		if (tc && timestamp)
			sprintf(tc, "timestamp:%lld\tfile:%s\thashed", (long long)timestamp, base_name(path));
		else if (tc)
			sprintf(tc, "file:%s\thashed", base_name(path));
	}
	if (!tc) {
		err = RPL_ENOMEM;
		goto cleanup;
	}
	tclen = strlen(tc);
	if (tclen + strlen(TRUSTED_PREFIX) + 1 >= LINE_MAX_BYTES) {
		err = SKFAIL(k, RPL_EINVAL, "the trusted comment is too long");
		goto cleanup;
	}
	crypto_generichash(d, sizeof(d), data, n, NULL, 0);
	memcpy(sig, BRP_SIG_ALG, 2);
	memcpy(sig + 2, k->id, RPL_KEY_ID_BYTES);
	crypto_sign_detached(sig + 2 + RPL_KEY_ID_BYTES, NULL, d, sizeof(d), k->sk);
	/* the global signature covers the signature and the trusted comment */
	tc_msg = malloc(RPL_SIGNATURE_BYTES + tclen);
	text = malloc(tclen + 512);
	if (!tc_msg || !text) {
		err = RPL_ENOMEM;
		goto cleanup;
	}
	memcpy(tc_msg, sig + 2 + RPL_KEY_ID_BYTES, RPL_SIGNATURE_BYTES);
	memcpy(tc_msg + RPL_SIGNATURE_BYTES, tc, tclen);
	crypto_sign_detached(global, NULL, tc_msg, RPL_SIGNATURE_BYTES + tclen, k->sk);
	b64_encode(b64s, sizeof(b64s), sig, sizeof(sig));
	b64_encode(b64g, sizeof(b64g), global, sizeof(global));
	sprintf(text, "%ssignature from brp secret key\n%s\n%s%s\n%s\n", COMMENT_PREFIX, b64s, TRUSTED_PREFIX, tc, b64g);
	err = replace_file(sig_path, text, strlen(text), 0644, 0, k->errmsg, sizeof(k->errmsg));
cleanup:
	free(data);
	free(tc);
	free(tc_msg);
	free(text);
	return err;
}

/* ---- checking a log's signatures ---- */

const char *rpl_signature_status_name(int status)
{
	switch (status) {
	case RPL_SIG_UNSIGNED: return "unsigned";
	case RPL_SIG_OK: return "ok";
	case RPL_SIG_PARTIAL: return "partial";
	case RPL_SIG_INVALID: return "invalid";
	default: return "unknown";
	}
}

/* 1 when kr holds a key with pk's id and another public key: pk passes itself off as that key. */
static int id_clash(const rpl_keyring *kr, const rpl_pubkey *pk)
{
	for (size_t i = 0; kr && i < kr->n; i++)
		if (memcmp(kr->keys[i].id, pk->id, RPL_KEY_ID_BYTES) == 0 &&
		    memcmp(kr->keys[i].key, pk->key, RPL_PUBKEY_BYTES) != 0)
			return 1;
	return 0;
}

int rpl_signatures_check(const void *data_, size_t n, const rpl_keyring *trusted, rpl_signature_report *out)
{
	const uint8_t *data = data_;
	crypto_generichash_state hs;
	size_t pos = BRP_MAGIC_LEN, hashed = 0, sealed = 0;
	struct section s;
	char why[200];
	int only_sigs = 1; /* no section but signatures since the last trusted signature */

	if (!out || (!data && n))
		return RPL_EINVAL;
	memset(out, 0, sizeof(*out));
	out->size = n;
	if (n < BRP_MAGIC_LEN || memcmp(data, BRP_MAGIC, BRP_MAGIC_LEN) != 0)
		return 0;
	if (rpl__sodium_init() < 0)
		return RPL_EIO;
	crypto_generichash_init(&hs, NULL, 0, crypto_generichash_BYTES_MAX);
	while (rpl__section_get(data, n, &pos, &s, &sealed, why, sizeof(why)) == 1) {
		crypto_generichash_state copy;
		uint8_t d[64];
		rpl_pubkey pk;
		if (s.type != BRP_SIG_TYPE || s.len != BRP_SIG_PAYLOAD || memcmp(s.payload, BRP_SIG_ALG, 2) != 0) {
			only_sigs = 0; /* not a signature this reader knows: it vouches for nothing */
			continue;
		}
		crypto_generichash_update(&hs, data + hashed, (size_t)s.offset - hashed);
		hashed = (size_t)s.offset;
		copy = hs;
		crypto_generichash_final(&copy, d, sizeof(d));
		memcpy(pk.id, s.payload + 2, RPL_KEY_ID_BYTES);
		memcpy(pk.key, s.payload + 2 + RPL_KEY_ID_BYTES + RPL_SIGNATURE_BYTES, RPL_PUBKEY_BYTES);
		if (crypto_sign_verify_detached(s.payload + 2 + RPL_KEY_ID_BYTES, d, sizeof(d), pk.key) != 0) {
			out->status = RPL_SIG_INVALID;
			out->key = pk;
			out->key_trusted = rpl_keyring_has(trusted, &pk);
			out->covered = s.offset;
			out->offset = s.offset;
			out->trusted = 0;
			if (!out->id_clash && id_clash(trusted, &pk)) {
				out->id_clash = 1;
				out->clash_key = pk;
			}
			return 0;
		}
		out->key = pk;
		out->key_trusted = rpl_keyring_has(trusted, &pk);
		out->covered = s.end;
		out->count++;
		if (out->key_trusted) {
			out->trusted_key = pk;
			out->trusted_covered = s.end;
			only_sigs = 1;
		} else if (!out->id_clash && id_clash(trusted, &pk)) {
			out->id_clash = 1;
			out->clash_key = pk;
		}
	}
	if (out->count)
		out->status = out->covered == n ? RPL_SIG_OK : RPL_SIG_PARTIAL;
	/* a countersignature after the trusted one adds no decoded byte; anything else does */
	out->trusted = out->trusted_covered > 0 && (out->trusted_covered == n || (only_sigs && out->covered == n));
	return 0;
}
