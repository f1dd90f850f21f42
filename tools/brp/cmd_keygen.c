/* brp keygen: a signing key pair in minisign's formats. */
#include "brp.h"

#include <stdlib.h>
#include <string.h>

static const char *const name = "keygen";

static void usage(FILE *f)
{
	fputs("Usage: brp keygen -o NAME [OPTION]...\n"
	      "Make an Ed25519 key pair in minisign's formats: NAME.key, the secret key\n"
	      "(mode 0600; unencrypted, as 'minisign -G -W' makes it, unless --encrypt), and\n"
	      "NAME.pub, the public key that 'brp verify -K' and 'minisign -V -p' read.\n"
	      "Prints the key's id and its fingerprint (a hash of the public key, as\n"
	      "'brp verify' names a signer): publish the fingerprint with NAME.pub.\n"
	      "\n"
	      "  -o, --output NAME       write NAME.key and NAME.pub (required)\n"
	      "      --encrypt           encrypt the secret key with a passphrase (scrypt, as\n"
	      "                          minisign does), asked on the terminal twice\n"
	      "      --passphrase-fd N   with --encrypt: read the passphrase from file descriptor N\n"
	      "      --fast-kdf          with --encrypt: scrypt's interactive limits (16 MiB)\n"
	      "                          instead of minisign's (1 GiB); minisign reads either\n"
	      "  -f, --force             replace existing key files\n"
	      "      --json              one JSON object: the key's id and fingerprint, the\n"
	      "                          files written and whether the secret key is encrypted\n"
	      "  -h, --help              print this help and exit\n"
	      "\n"
	      "Exit status: 0 written, 2 a usage error, 3 a file that cannot be written (one\n"
	      "that exists, without --force, included).\n",
	      f);
}

int cmd_keygen(int argc, char **argv)
{
	enum { OPT_ENCRYPT = BRP_OPT_OWN, OPT_FAST };
	static const struct brp_opt opts[] = {
		{ "output", 1, 'o', 0, 0 },
		{ "encrypt", 0, OPT_ENCRYPT, 0, 0 },
		BRP_OPT_PASSFD_ROW,
		{ "fast-kdf", 0, OPT_FAST, 0, 0 },
		{ "force", 0, 'f', 0, 0 },
		BRP_OPT_JSON_ROW,
		BRP_OPT_HELP,
		BRP_OPT_END,
	};
	struct brp_getopt g;
	const char *out = NULL;
	char *sec = NULL, *pub = NULL, pass[BRP_PASSPHRASE_MAX], id[RPL_KEY_ID_TEXT];
	char fp[RPL_KEY_FINGERPRINT_TEXT];
	int c, encrypt = 0, passfd = -1, status = BRP_EXIT_FAIL, err, first, json = 0;
	unsigned flags = 0;
	rpl_seckey *k = NULL;
	rpl_pubkey pk;

	pass[0] = '\0';
	brp_getopt_init(&g, name, opts, argc, argv);
	while ((c = brp_getopt_next(&g)) != -1) {
		switch (c) {
		case BRP_OPT_BAD: return BRP_EXIT_USAGE;
		case 'o':
			if (brp_opt_path(&g, &out) != 0)
				return BRP_EXIT_USAGE;
			break;
		case OPT_ENCRYPT: encrypt = 1; break;
		case BRP_OPT_PASSFD:
			if (brp_opt_int(&g, 0, 1024, &passfd) != 0)
				return BRP_EXIT_USAGE;
			break;
		case OPT_FAST: flags |= RPL_KEY_FAST_KDF; break;
		case 'f': flags |= RPL_KEY_OVERWRITE; break;
		case BRP_OPT_JSON: json = 1; break;
		case 'h': usage(stdout); return BRP_EXIT_OK;
		}
	}
	first = brp_getopt_index(&g);
	if (first != argc || !out) {
		brp_error(name, "needs -o NAME and nothing else (try 'brp keygen --help')");
		return BRP_EXIT_USAGE;
	}
	if (!encrypt && (passfd >= 0 || (flags & RPL_KEY_FAST_KDF))) {
		brp_error(name, "--passphrase-fd and --fast-kdf need --encrypt");
		return BRP_EXIT_USAGE;
	}
	sec = malloc(strlen(out) + 5);
	pub = malloc(strlen(out) + 5);
	if (!sec || !pub) {
		brp_error(name, "out of memory");
		goto cleanup;
	}
	sprintf(sec, "%s.key", out);
	sprintf(pub, "%s.pub", out);
	if (encrypt && brp_passphrase(name, passfd, passfd < 0, pass, sizeof(pass)) < 0)
		goto cleanup;
	err = rpl_seckey_generate(&k);
	if (err) {
		brp_error(name, "cannot make a key: %s", rpl_strerror(err));
		goto cleanup;
	}
	err = rpl_seckey_save(k, sec, pub, encrypt ? pass : NULL, flags);
	if (err) {
		brp_error(name, "%s", rpl_seckey_errmsg(k));
		goto cleanup;
	}
	rpl_seckey_public(k, &pk);
	rpl_key_id_format(pk.id, id);
	/* the fingerprint is what the platform publishes beside its .pub: anyone can copy the id */
	rpl_pubkey_fingerprint(&pk, fp);
	if (json) {
		/* the key named as brp verify --json and brp sign --json name a signer */
		printf("{\"key\":\"%s\",\"fingerprint\":\"%s\",\"secret_key\":", id, fp);
		brp_json_string(stdout, sec);
		printf(",\"encrypted\":%s,\"public_key\":", encrypt ? "true" : "false");
		brp_json_string(stdout, pub);
		fputs("}\n", stdout);
	} else {
		printf("key %s (fingerprint %s): secret key %s (%s), public key %s\n", id, fp, sec,
		       encrypt ? "encrypted" : "unencrypted", pub);
	}
	status = BRP_EXIT_OK;
cleanup:
	memset(pass, 0, sizeof(pass));
	rpl_seckey_free(k);
	free(sec);
	free(pub);
	return status;
}
