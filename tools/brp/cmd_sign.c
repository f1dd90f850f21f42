/* brp sign: sign match logs in place (a signature section), or with a detached minisign signature. */
#include "brp.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const name = "sign";

static void usage(FILE *f)
{
	fputs("Usage: brp sign -k KEY [OPTION]... LOG...\n"
	      "Sign each log with the secret key KEY (a minisign secret key file, such as\n"
	      "'brp keygen' or 'minisign -G' makes).\n"
	      "\n"
	      "In place (the default): a signature section over every byte of the log is\n"
	      "appended, through a temporary file renamed over the log, so that the\n"
	      "original survives any failure. A log that does not read to its end\n"
	      "(damaged) is not signed. A log not signed yet first has its header\n"
	      "written again as format version 4 saying it is signed (its other bytes\n"
	      "and its match identity unchanged); one signed already, or a committed log\n"
	      "of version 3, only gets the signature. A log is signed where it lies (in\n"
	      "place, or LOG.minisig beside it), so sign reads no log from standard input\n"
	      "(there is no --log -): save a piped log to a file first. Each log signed is\n"
	      "said with the key's id and fingerprint, as 'brp verify' names the signer.\n"
	      "\n"
	      "  -k, --key FILE          the secret key (required)\n"
	      "      --passphrase-fd N   read the key's passphrase from file descriptor N\n"
	      "                          (default: asked on the terminal, if the key is encrypted)\n"
	      "      --detached          write LOG.minisig instead, a minisign signature that\n"
	      "                          'minisign -Vm LOG -p KEY.pub' accepts; LOG is unchanged\n"
	      "  -t, --trusted-comment TEXT  with --detached: the signed comment (default:\n"
	      "                          minisign's, the time and the file's name)\n"
	      "      --json              one JSON object a log: file, output, detached,\n"
	      "                          signed, key, fingerprint and message (why not)\n"
	      "  -h, --help              print this help and exit\n"
	      "\n"
	      "Exit status: 0 every log signed, 2 a usage error, 3 a key that cannot be read\n"
	      "or a log that could not be signed (the others are signed all the same).\n",
	      f);
}

/* The log signed, in itself (sig NULL) or beside it into sig, with the signals of hold held (see cmd_sign). */
static int sign_held(rpl_seckey *k, const char *log, const char *sig, const char *comment, const sigset_t *hold)
{
	sigset_t old;
	int err, held = sigprocmask(SIG_BLOCK, hold, &old) == 0;

	err = sig ? rpl_sign_detached(k, log, sig, comment, (int64_t)time(NULL)) : rpl_sign_log(k, log);
	if (held)
		sigprocmask(SIG_SETMASK, &old, NULL);
	return err;
}

/*
 * One log's outcome as one JSON line: the log, where its signature went (the
 * log itself, or sig), the signer as brp verify --json names it, and why it
 * was not signed (why NULL: it was).
 */
static void print_json(const char *log, const char *sig, const char *id, const char *fp, const char *why)
{
	fputs("{\"file\":", stdout);
	brp_json_string(stdout, log);
	fputs(",\"output\":", stdout);
	brp_json_string(stdout, sig ? sig : log);
	printf(",\"detached\":%s,\"signed\":%s,\"key\":\"%s\",\"fingerprint\":\"%s\",\"message\":", sig ? "true" : "false",
	       why ? "false" : "true", id, fp);
	brp_json_string(stdout, why ? why : "");
	fputs("}\n", stdout);
}

int cmd_sign(int argc, char **argv)
{
	enum { OPT_DETACHED = BRP_OPT_OWN };
	static const struct brp_opt opts[] = {
		{ "key", 1, 'k', 0, 0 },
		BRP_OPT_PASSFD_ROW,
		{ "detached", 0, OPT_DETACHED, 0, 0 },
		{ "trusted-comment", 1, 't', 0, 0 },
		BRP_OPT_JSON_ROW,
		BRP_OPT_HELP,
		BRP_OPT_END,
	};
	struct brp_getopt g;
	int first;
	const char *keyfile = NULL, *comment = NULL;
	int c, passfd = -1, detached = 0, status = BRP_EXIT_OK, json = 0;
	rpl_seckey *k = NULL;
	rpl_pubkey pk;
	char id[RPL_KEY_ID_TEXT], fp[RPL_KEY_FINGERPRINT_TEXT];
	sigset_t hold;

	brp_getopt_init(&g, name, opts, argc, argv);
	while ((c = brp_getopt_next(&g)) != -1) {
		switch (c) {
		case BRP_OPT_BAD: return BRP_EXIT_USAGE;
		case 'k':
			if (brp_opt_path(&g, &keyfile) != 0)
				return BRP_EXIT_USAGE;
			break;
		case BRP_OPT_PASSFD:
			if (brp_opt_int(&g, 0, 1024, &passfd) != 0)
				return BRP_EXIT_USAGE;
			break;
		case OPT_DETACHED: detached = 1; break;
		case 't': comment = g.arg; break;
		case BRP_OPT_JSON: json = 1; break;
		case 'h': usage(stdout); return BRP_EXIT_OK;
		}
	}
	first = brp_getopt_index(&g);
	if (!keyfile) {
		brp_error(name, "needs a secret key, -k KEY (try 'brp sign --help')");
		return BRP_EXIT_USAGE;
	}
	if (first >= argc) {
		brp_error(name, "no log to sign (try 'brp sign --help')");
		return BRP_EXIT_USAGE;
	}
	if (comment && !detached) {
		brp_error(name, "--trusted-comment needs --detached");
		return BRP_EXIT_USAGE;
	}
	if (brp_seckey_open(name, keyfile, passfd, &k) < 0)
		return BRP_EXIT_FAIL;
	rpl_seckey_public(k, &pk);
	rpl_key_id_format(pk.id, id);
	rpl_pubkey_fingerprint(&pk, fp); /* the signer named by its public key, as brp verify names it */
	/*
	 * A log is signed with the termination signals held: a Ctrl-C or a kill
	 * ends brp between two logs, never while a signed copy is being written
	 * (the library's temporary file has no name where the system allows it;
	 * where it has one, it would be left behind).
	 */
	sigemptyset(&hold);
	sigaddset(&hold, SIGINT);
	sigaddset(&hold, SIGTERM);
	sigaddset(&hold, SIGHUP);
	sigaddset(&hold, SIGQUIT);
	for (int i = first; i < argc; i++) {
		const char *log = argv[i];
		char *sig = NULL;
		int err;
		if (detached) {
			sig = malloc(strlen(log) + 9);
			if (!sig) {
				brp_error(name, "out of memory");
				status = BRP_EXIT_FAIL;
				break;
			}
			sprintf(sig, "%s.minisig", log);
		}
		err = sign_held(k, log, sig, comment, &hold);
		if (!err && !json && printf("%s: signed by key %s (fingerprint %s)\n", sig ? sig : log, id, fp) < 0)
			err = RPL_EIO;
		if (err) {
			brp_error(name, "%s", rpl_seckey_errmsg(k)[0] ? rpl_seckey_errmsg(k) : rpl_strerror(err));
			status = BRP_EXIT_FAIL;
		}
		if (json)
			print_json(log, sig, id, fp,
			           err ? (rpl_seckey_errmsg(k)[0] ? rpl_seckey_errmsg(k) : rpl_strerror(err)) : NULL);
		free(sig);
	}
	rpl_seckey_free(k);
	if (fflush(stdout) != 0) {
		brp_error(name, "cannot write the standard output");
		status = BRP_EXIT_FAIL;
	}
	return status;
}
