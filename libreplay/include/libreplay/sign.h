/*
 * Signatures: keys in minisign's formats, Ed25519 over a BLAKE2b-512
 * prehash (minisign's "ED" algorithm), through libsodium. A log is signed
 * by signature sections inside it (docs/format.md section 3.1: each signs
 * every byte of the file before it) or by a detached minisign signature
 * (LOG.minisig) that `minisign -Vm LOG -p KEY.pub` accepts.
 *
 * Ownership: rpl_seckey and rpl_keyring are handles made by their _new,
 * _generate or _load function, owned by the caller and released by _free
 * (which accepts NULL); a secret key is wiped (sodium_memzero) when freed.
 * rpl_pubkey and rpl_signature_report are plain data. Errors: 0 or a
 * negative enum rpl_error; *_errmsg() gives the last failure's one line.
 */
#ifndef LIBREPLAY_SIGN_H
#define LIBREPLAY_SIGN_H

#include "libreplay/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RPL_KEY_ID_BYTES 8          /* a key id: 8 random bytes, minisign's "key number" */
#define RPL_PUBKEY_BYTES 32         /* an Ed25519 public key */
#define RPL_SIGNATURE_BYTES 64      /* an Ed25519 signature */
#define RPL_KEY_ID_TEXT 17          /* up to 16 upper-case hex digits and a NUL, as minisign prints it */
#define RPL_PUBKEY_TEXT 57          /* the base64 line of a public key file and a NUL */
#define RPL_KEY_FINGERPRINT_TEXT 33 /* a key's fingerprint: 32 lower-case hex digits and a NUL */

/* A public key: its id and its Ed25519 key. Plain data. */
typedef struct rpl_pubkey {
	uint8_t id[RPL_KEY_ID_BYTES];
	uint8_t key[RPL_PUBKEY_BYTES];
} rpl_pubkey;

/*
 * The key id as minisign prints it ("minisign public key 9B2A...E7"): the
 * 8 bytes read as a little-endian number, in upper-case hex digits without
 * leading zeros (up to 16).
 */
RPL_API void rpl_key_id_format(const uint8_t id[RPL_KEY_ID_BYTES], char out[RPL_KEY_ID_TEXT]);

/*
 * A public key from the base64 line of a minisign public key file (the
 * second line; surrounding blanks ignored). RPL_EPARSE when it is not one,
 * RPL_EUNSUPPORTED when its algorithm is not Ed25519 ("Ed").
 */
RPL_API int rpl_pubkey_parse(rpl_pubkey *out, const char *line);
/* The base64 line of a public key (what rpl_pubkey_parse reads). */
RPL_API void rpl_pubkey_format(const rpl_pubkey *pk, char out[RPL_PUBKEY_TEXT]);
/*
 * The fingerprint of a public key, which names the key itself where its id
 * names only a label anyone can copy: the first 16 bytes of the BLAKE2b-256
 * digest (unkeyed) of the 32-byte Ed25519 public key, as 32 lower-case hex
 * digits (docs/security.md, "Signed logs"). Two keys with one id have
 * different fingerprints. The id is not hashed: a key is its public key.
 */
RPL_API void rpl_pubkey_fingerprint(const rpl_pubkey *pk, char out[RPL_KEY_FINGERPRINT_TEXT]);

/* ---- secret keys ---- */

/*
 * A key pair that signs: its id, its public key and its secret key, held in
 * memory wiped on free. Opaque; made by rpl_seckey_generate or
 * rpl_seckey_load, owned by the caller, released by rpl_seckey_free. Not
 * to be used by two threads at once (signing writes its errmsg).
 */
typedef struct rpl_seckey rpl_seckey;

/* A new key pair with a random key id. RPL_ENOMEM, RPL_EIO (no randomness: libsodium failed). */
RPL_API int rpl_seckey_generate(rpl_seckey **out);

/*
 * Read a minisign secret key file: unencrypted (`minisign -G -W`, kdf
 * "\0\0") or encrypted with scrypt (kdf "Sc"), then passphrase (NUL-
 * terminated; NULL for an unencrypted key) decrypts it. On failure *out is
 * set whenever possible so that rpl_seckey_errmsg says why: free it. The
 * file is opened as a log is (a regular file only: a FIFO or a device is
 * refused at once, RPL_EIO); a line that holds a NUL byte or is longer than
 * 8192 bytes is RPL_EPARSE with its line number.
 * RPL_EIO, RPL_EPARSE (not a key file), RPL_EUNSUPPORTED (another
 * algorithm), RPL_ESTATE (encrypted and no passphrase), RPL_EINVAL (wrong
 * passphrase or damaged key: its checksum differs), RPL_ELIMIT (scrypt
 * limits beyond twice minisign's: 2 GiB), RPL_ENOMEM.
 */
RPL_API int rpl_seckey_load(rpl_seckey **out, const char *path, const char *passphrase);
/* 1 when the key file at path is encrypted, 0 when not, or a negative error. */
RPL_API int rpl_seckey_file_encrypted(const char *path);

#define RPL_KEY_OVERWRITE 1u /* rpl_seckey_save: replace existing files */
#define RPL_KEY_FAST_KDF 2u  /* rpl_seckey_save: scrypt's "interactive" limits (16 MiB), not minisign's 1 GiB */

/*
 * Write the key pair: secret_path in minisign's secret-key format (mode
 * 0600; encrypted with scrypt and passphrase, minisign's parameters, or
 * unencrypted when passphrase is NULL) and, if public_path is not NULL,
 * public_path in minisign's public-key format. Both are written whole to
 * new files (0600 and 0644, less the umask) before either is renamed into
 * place, so a failure leaves neither. Existing files are refused (RPL_EIO,
 * before anything is made) unless flags has RPL_KEY_OVERWRITE; a path that
 * is a symbolic link is refused even then. RPL_EIO, RPL_ENOMEM.
 */
RPL_API int rpl_seckey_save(rpl_seckey *k, const char *secret_path, const char *public_path, const char *passphrase,
                            unsigned flags);

/* The public half. */
RPL_API void rpl_seckey_public(const rpl_seckey *k, rpl_pubkey *out);
/* The one-line reason of k's last failure; "" when none (and for NULL). Lives as long as k. */
RPL_API const char *rpl_seckey_errmsg(const rpl_seckey *k);
/* Wipes the key. Accepts NULL. */
RPL_API void rpl_seckey_free(rpl_seckey *k);

/* ---- trusted keys ---- */

/*
 * A set of trusted public keys (brp verify -K, --keyring). Opaque; owned by
 * the caller. Read-only use (verification) may share one keyring between
 * threads; adding keys may not run beside any other use.
 */
typedef struct rpl_keyring rpl_keyring;

/* An empty keyring in *out (free it with rpl_keyring_free). 0 or RPL_ENOMEM (*out NULL). */
RPL_API int rpl_keyring_new(rpl_keyring **out);
/* Accepts NULL. */
RPL_API void rpl_keyring_free(rpl_keyring *kr);
/* Add a copy of pk (a key already there is not added twice). 0, RPL_ENOMEM, RPL_EINVAL for NULL. */
RPL_API int rpl_keyring_add(rpl_keyring *kr, const rpl_pubkey *pk);
/*
 * Add every public key of a file: a minisign public key file, or a keyring,
 * any number of them one after another. Each line is a base64 public key,
 * except empty lines, lines starting with '#' and minisign's "untrusted
 * comment:" lines. The file is opened as a log is (a regular file only: a
 * FIFO or a device is refused at once, RPL_EIO); a line that holds a NUL
 * byte or is longer than 8192 bytes is RPL_EPARSE. RPL_EIO, RPL_EPARSE
 * (with the line number in rpl_keyring_errmsg), RPL_ENOMEM; a file without
 * any key is RPL_EPARSE.
 */
RPL_API int rpl_keyring_add_file(rpl_keyring *kr, const char *path);
/* The number of keys held; 0 for NULL. */
RPL_API size_t rpl_keyring_count(const rpl_keyring *kr);
/* 1 when kr holds exactly this key (id and public key), else 0. kr may be NULL. */
RPL_API int rpl_keyring_has(const rpl_keyring *kr, const rpl_pubkey *pk);
/* The one-line reason of kr's last failure; "" when none. Lives as long as kr. */
RPL_API const char *rpl_keyring_errmsg(const rpl_keyring *kr);

/* ---- the prehash and signing ---- */

/*
 * An incremental BLAKE2b-512 over bytes, signed at any point without being
 * finished: the recorder feeds it every byte it writes and signs at every
 * flush without hashing the prefix again.
 */
typedef struct rpl_prehash rpl_prehash;

/* A hash of no bytes yet in *out (owned by the caller: rpl_prehash_free). 0 or RPL_ENOMEM (*out NULL). */
RPL_API int rpl_prehash_new(rpl_prehash **out);
/* Accepts NULL. */
RPL_API void rpl_prehash_free(rpl_prehash *h);
/* Hash len more bytes of data. One thread at a time per h. */
RPL_API void rpl_prehash_update(rpl_prehash *h, const void *data, size_t len);
/* Bytes hashed so far. */
RPL_API uint64_t rpl_prehash_length(const rpl_prehash *h);
/* The BLAKE2b-512 of the bytes so far; h goes on. */
RPL_API void rpl_prehash_digest(const rpl_prehash *h, uint8_t digest[64]);
/* The Ed25519 signature of that digest with k (minisign's prehashed signature). */
RPL_API void rpl_prehash_sign(const rpl_prehash *h, const rpl_seckey *k, uint8_t sig[RPL_SIGNATURE_BYTES]);

/*
 * Sign a log in place with a signature section over all its bytes (through
 * a new temporary file in path's directory, with the log's mode, renamed
 * over path: the original survives any failure). A log with no signature
 * section yet first has its header written again with RPL_LOG_SIGNED
 * (docs/format.md 18.1), as format version 4 (a log of version 2 or 4) or in
 * its own version (5 or 6), its other sections' bytes and its match identity
 * unchanged; a log signed already, or a committed log of
 * format version 3, keeps its bytes. The log must be a regular file, not a
 * symbolic link, and read to its end without damage (a damaged log is
 * RPL_ECORRUPT). Errors: RPL_EIO (a FIFO or a device is refused without
 * waiting on it), RPL_ECORRUPT, RPL_ELIMIT, RPL_ENOMEM, with the reason in
 * rpl_seckey_errmsg(k).
 */
RPL_API int rpl_sign_log(rpl_seckey *k, const char *path);

/*
 * Write sig_path (usually path ".minisig"): a minisign signature of the
 * file's bytes (prehashed, "ED") with trusted_comment (one line; NULL for
 * "timestamp:T\tfile:NAME\thashed" as minisign writes it, or "file:NAME\thashed"
 * when timestamp is 0). Written through a new temporary file in sig_path's
 * directory and renamed; a sig_path that is a symbolic link is refused.
 * RPL_EIO, RPL_EINVAL (a comment with a line break), RPL_ENOMEM; the reason
 * in rpl_seckey_errmsg(k).
 */
RPL_API int rpl_sign_detached(rpl_seckey *k, const char *path, const char *sig_path, const char *trusted_comment,
                              int64_t timestamp);

/* ---- what a log's signatures cover ---- */

/* What a log's signature sections say, as rpl_signatures_check reports it. */
enum rpl_signature_status {
	RPL_SIG_UNSIGNED = 0, /* no signature section */
	RPL_SIG_OK = 1,       /* the last signature covers every byte of the file */
	RPL_SIG_PARTIAL = 2,  /* bytes after the last valid signature are not covered */
	RPL_SIG_INVALID = 3   /* a signature does not verify: the bytes it covers were changed */
};

/*
 * What a log's signatures cover (verify's "signature" JSON object). Plain
 * data. key is the last valid signature's (or the invalid one's); the
 * trusted_ fields are those of the last valid signature by a trusted key,
 * which may be an earlier one (a countersignature by another key after it,
 * or bytes appended and signed by a forger).
 */
typedef struct rpl_signature_report {
	int status;               /* enum rpl_signature_status */
	rpl_pubkey key;           /* the last valid signature's key, or the invalid one's */
	int trusted;              /* a trusted key covers the whole log: trusted_covered is size, or only
	                     signature sections follow it (they change no decoded byte) */
	uint64_t covered;         /* OK, PARTIAL: bytes 0..covered are vouched for (the last valid
	                     signature section included); INVALID: the bytes the broken
	                     signature claims, 0..offset */
	uint64_t size;            /* the file's size */
	uint64_t offset;          /* INVALID: byte offset of the broken signature section */
	int count;                /* valid signatures read */
	int key_trusted;          /* key is one of the trusted keys (its id and its public key) */
	rpl_pubkey trusted_key;   /* the last valid signature by a trusted key (zero when none) */
	uint64_t trusted_covered; /* bytes 0..trusted_covered are vouched for by trusted_key; 0 when none */
	int id_clash;             /* a valid signature's key carries a trusted key's id with another public key */
	rpl_pubkey clash_key;     /* id_clash: the first such key (the impostor) */
} rpl_signature_report;

/* "ok", "invalid", "unsigned", "partial". */
RPL_API const char *rpl_signature_status_name(int status);

/*
 * Check every signature section of a log held in memory (n bytes), up to
 * its first damaged section; trusted may be NULL. Never fails on bad data:
 * *out says what the signatures cover. RPL_EINVAL, RPL_EIO (libsodium).
 */
RPL_API int rpl_signatures_check(const void *data, size_t n, const rpl_keyring *trusted, rpl_signature_report *out);

#ifdef __cplusplus
}
#endif

#endif
