/* brp: keys for the subcommands that sign or check signatures (keygen, sign, record, simulate, verify). */
#include "brp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

/*
 * One line from fd into buf (the line break dropped): 0; -1 on error or an
 * empty passphrase; -2 for a line holding a NUL byte, which a C string would
 * cut there ("\0\0\0secret" would be the empty passphrase).
 */
static int read_line_fd(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	int nul = 0;

	while (n + 1 < cap) {
		char ch;
		ssize_t r = read(fd, &ch, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || ch == '\n')
			break;
		nul |= ch == '\0';
		buf[n++] = ch;
	}
	if (n && buf[n - 1] == '\r')
		n--;
	buf[n] = '\0';
	if (nul) {
		memset(buf, 0, cap);
		return -2;
	}
	return n ? 0 : -1;
}

/* Ask on the terminal with echo off. */
static int ask_tty(const char *prompt, char *buf, size_t cap)
{
	struct termios old, quiet;
	int fd = open("/dev/tty", O_RDWR | O_CLOEXEC), err, echo_off = 0;

	if (fd < 0)
		return -1;
	if (tcgetattr(fd, &old) == 0) {
		quiet = old;
		quiet.c_lflag &= ~(tcflag_t)ECHO;
		echo_off = tcsetattr(fd, TCSAFLUSH, &quiet) == 0;
	}
	if (write(fd, prompt, strlen(prompt)) < 0) {
		/* the prompt is a courtesy: the answer is what matters */
	}
	err = read_line_fd(fd, buf, cap);
	if (echo_off)
		tcsetattr(fd, TCSAFLUSH, &old);
	if (write(fd, "\n", 1) < 0) {
		/* as above */
	}
	close(fd);
	return err;
}

int brp_passphrase(const char *cmd, int fd, int confirm, char *buf, size_t cap)
{
	int got;

	if (fd >= 0) {
		if ((got = read_line_fd(fd, buf, cap)) == -2) {
			brp_error(cmd, "the passphrase on file descriptor %d holds a NUL byte", fd);
			return -1;
		}
		if (got < 0) {
			brp_error(cmd, "no passphrase on file descriptor %d", fd);
			return -1;
		}
		return 0;
	}
	if ((got = ask_tty("Passphrase: ", buf, cap)) == -2) {
		brp_error(cmd, "the passphrase holds a NUL byte");
		return -1;
	}
	if (got < 0) {
		brp_error(cmd, "a passphrase is needed: no terminal to ask on (use --passphrase-fd N)");
		return -1;
	}
	if (confirm) {
		char again[BRP_PASSPHRASE_MAX];
		int same = ask_tty("Passphrase (again): ", again, sizeof(again)) == 0 && strcmp(again, buf) == 0;
		memset(again, 0, sizeof(again));
		if (!same) {
			brp_error(cmd, "the passphrases differ");
			return -1;
		}
	}
	return 0;
}

int brp_seckey_open(const char *cmd, const char *path, int passfd, rpl_seckey **out)
{
	char pass[BRP_PASSPHRASE_MAX];
	int enc = rpl_seckey_file_encrypted(path), err;

	*out = NULL;
	if (enc < 0) {
		rpl_seckey *k = NULL;
		/* the loader says why in one line */
		err = rpl_seckey_load(&k, path, NULL);
		brp_error(cmd, "%s", k ? rpl_seckey_errmsg(k) : rpl_strerror(err));
		rpl_seckey_free(k);
		return -1;
	}
	if (enc && brp_passphrase(cmd, passfd, 0, pass, sizeof(pass)) < 0)
		return -1;
	err = rpl_seckey_load(out, path, enc ? pass : NULL);
	memset(pass, 0, sizeof(pass));
	if (err) {
		brp_error(cmd, "%s", *out ? rpl_seckey_errmsg(*out) : rpl_strerror(err));
		rpl_seckey_free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

int brp_keyring_add(const char *cmd, rpl_keyring **kr, const char *path)
{
	int err;

	if (!*kr && rpl_keyring_new(kr) < 0) {
		brp_error(cmd, "out of memory");
		return -1;
	}
	err = rpl_keyring_add_file(*kr, path);
	if (err) {
		brp_error(cmd, "%s", rpl_keyring_errmsg(*kr));
		return -1;
	}
	return 0;
}
