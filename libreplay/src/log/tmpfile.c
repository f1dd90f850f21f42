/* The temporary files of every output written whole (tmpfile.h). */
#define _GNU_SOURCE 1 /* O_TMPFILE, linkat's AT_EMPTY_PATH, renameat2, getrandom */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log/format.h"
#include "log/tmpfile.h"

/* How many fresh names are tried before giving up (each collision is a 1 in 2^72 chance, or an attack). */
#define NAME_TRIES 64
/* Random characters in a temporary name: 12 of 64, 72 bits. */
#define NAME_RANDOM 12
/* The part of the output's name kept in the temporary name, so that it stays under NAME_MAX. */
#define NAME_KEEP 200

/* Fail with the message what and then more (NULL: nothing more). */
static int tfail(struct rpl__tmpfile *t, int e, const char *what, const char *more)
{
	t->errnum = e;
	snprintf(t->why, sizeof(t->why), "%s%s", what, more ? more : "");
	return -1;
}

static int sys_fail(struct rpl__tmpfile *t, int e)
{
	return tfail(t, e, strerror(e), NULL);
}

/* NAME_RANDOM characters a-z A-Z 0-9 - _ from the system's randomness. */
static int random_part(char *out)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";
	unsigned char r[NAME_RANDOM];
	size_t got = 0;

	while (got < sizeof(r)) {
		ssize_t n = getrandom(r + got, sizeof(r) - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		got += (size_t)n;
	}
	for (int i = 0; i < NAME_RANDOM; i++)
		out[i] = set[r[i] & 63];
	out[NAME_RANDOM] = '\0';
	return 0;
}

/*
 * A fresh name beside path: "DIR/.BASE.RANDOM~" (BASE cut to NAME_KEEP
 * bytes). buf holds strlen(path) + NAME_RANDOM + 4 bytes.
 */
static int fresh_name(char *buf, const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	const char *base = path + dirlen;
	size_t blen = strlen(base);
	char rnd[NAME_RANDOM + 1];

	if (random_part(rnd) < 0)
		return -1;
	if (blen > NAME_KEEP)
		blen = NAME_KEEP;
	memcpy(buf, path, dirlen);
	sprintf(buf + dirlen, ".%.*s.%s~", (int)blen, base, rnd);
	return 0;
}

/* The directory of path, for O_TMPFILE: "." when path has no slash, "/" for "/NAME". */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 1;
	char *d;

	if (slash && n == 0)
		n = 1; /* "/NAME" */
	d = malloc(n + 1);
	if (!d)
		return NULL;
	memcpy(d, slash ? path : ".", n);
	d[n] = '\0';
	return d;
}

/* 1 when the process can link an unnamed file through /proc/self/fd (no /proc: use names). */
static int proc_fd_usable(void)
{
	return access("/proc/self/fd", X_OK) == 0;
}

int rpl__tmpfile_open(struct rpl__tmpfile *t, const char *path, mode_t mode, unsigned flags)
{
	const char *base;
	struct stat st;
	size_t cap;

	t->fd = -1;
	t->path = t->name = NULL;
	t->unnamed = 0;
	t->errnum = 0;
	t->why[0] = '\0';
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return tfail(t, EISDIR, "a directory, not a regular file", NULL);
	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode))
			return tfail(t, 0, "a symbolic link, not a regular file", NULL);
		if (!S_ISREG(st.st_mode))
			return tfail(t, 0, rpl__file_kind(st.st_mode), ", not a regular file");
	} else if (errno != ENOENT) {
		return sys_fail(t, errno);
	}
	cap = strlen(path) + NAME_RANDOM + 4;
	t->path = strdup(path);
	t->name = malloc(cap);
	if (!t->path || !t->name) {
		rpl__tmpfile_discard(t);
		return tfail(t, ENOMEM, "out of memory", NULL);
	}
#ifdef O_TMPFILE
	if (!(flags & RPL__TMP_NAMED) && proc_fd_usable()) {
		char *dir = dir_of(path);
		if (!dir) {
			rpl__tmpfile_discard(t);
			return tfail(t, ENOMEM, "out of memory", NULL);
		}
		t->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
		free(dir);
		/* a file system without O_TMPFILE says EOPNOTSUPP (or EISDIR, on old kernels): names then */
		if (t->fd >= 0) {
			t->unnamed = 1;
			free(t->name);
			t->name = NULL;
		}
	}
#endif
	for (int i = 0; t->fd < 0 && i < NAME_TRIES; i++) {
		if (fresh_name(t->name, path) < 0) {
			int e = errno;
			rpl__tmpfile_discard(t);
			return tfail(t, e, "no randomness for its temporary file's name: ", strerror(e));
		}
		t->fd = open(t->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (t->fd < 0 && errno != EEXIST) {
			int e = errno;
			free(t->name);
			t->name = NULL; /* nothing was made */
			rpl__tmpfile_discard(t);
			return sys_fail(t, e);
		}
	}
	if (t->fd < 0) {
		free(t->name);
		t->name = NULL;
		rpl__tmpfile_discard(t);
		return tfail(t, EEXIST, "no fresh name for its temporary file", NULL);
	}
	if ((flags & RPL__TMP_EXACT_MODE) && fchmod(t->fd, mode & 07777) != 0) {
		int e = errno;
		rpl__tmpfile_discard(t);
		return sys_fail(t, e);
	}
	return 0;
}

int rpl__tmpfile_write(struct rpl__tmpfile *t, const void *data, size_t n)
{
	const unsigned char *p = data;

	while (n > 0) {
		ssize_t w = write(t->fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return sys_fail(t, errno);
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

const char *rpl__tmpfile_name(const struct rpl__tmpfile *t, char *buf, size_t size)
{
	if (t->unnamed)
		snprintf(buf, size, "/proc/self/fd/%d", t->fd);
	else
		snprintf(buf, size, "%s", t->name ? t->name : "");
	return buf;
}

/* Give the unnamed file the name dest (which must not exist). 0, or -1 with errno. */
static int link_unnamed(int fd, const char *dest)
{
	char proc[64];

#ifdef AT_EMPTY_PATH
	/* needs CAP_DAC_READ_SEARCH; the /proc form does not */
	if (linkat(fd, "", AT_FDCWD, dest, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno == EEXIST)
		return -1;
#endif
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return linkat(AT_FDCWD, proc, AT_FDCWD, dest, AT_SYMLINK_FOLLOW);
}

/* Rename from to dest only if dest does not exist. 0, or -1 with errno. */
static int rename_noreplace(const char *from, const char *dest)
{
#ifdef RENAME_NOREPLACE
	if (renameat2(AT_FDCWD, from, AT_FDCWD, dest, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
#endif
	/* no renameat2 here: a hard link does not replace either, then the name goes */
	if (link(from, dest) != 0)
		return -1;
	unlink(from);
	return 0;
}

/* The unnamed file into place over t->path: linked at a fresh name, renamed; the name gone on failure. */
static int place_unnamed(struct rpl__tmpfile *t)
{
	sigset_t hold, old;
	int rc = -1, e = 0, held;
	char *name = malloc(strlen(t->path) + NAME_RANDOM + 4);

	if (!name)
		return tfail(t, ENOMEM, "out of memory", NULL);
	sigemptyset(&hold);
	sigaddset(&hold, SIGINT);
	sigaddset(&hold, SIGTERM);
	sigaddset(&hold, SIGHUP);
	sigaddset(&hold, SIGQUIT);
	held = pthread_sigmask(SIG_BLOCK, &hold, &old) == 0;
	for (int i = 0; i < NAME_TRIES; i++) {
		if (fresh_name(name, t->path) < 0) {
			e = errno;
			break;
		}
		if (link_unnamed(t->fd, name) == 0) {
			if (rename(name, t->path) == 0) {
				rc = 0;
			} else {
				e = errno;
				unlink(name);
			}
			break;
		}
		e = errno;
		if (e != EEXIST)
			break;
	}
	if (held)
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	free(name);
	return rc == 0 ? 0 : sys_fail(t, e ? e : EEXIST);
}

int rpl__tmpfile_commit(struct rpl__tmpfile *t, unsigned flags)
{
	int rc;

	if (t->fd < 0)
		return tfail(t, EBADF, "its temporary file is not open", NULL);
	if (fsync(t->fd) != 0) {
		int e = errno;
		rpl__tmpfile_discard(t);
		return sys_fail(t, e);
	}
	if (t->unnamed)
		rc = (flags & RPL__TMP_REPLACE) ? place_unnamed(t) : link_unnamed(t->fd, t->path) == 0 ? 0 : sys_fail(t, errno);
	else
		rc = ((flags & RPL__TMP_REPLACE) ? rename(t->name, t->path) : rename_noreplace(t->name, t->path)) == 0
		             ? 0
		             : sys_fail(t, errno);
	if (rc != 0) {
		rpl__tmpfile_discard(t);
		return -1;
	}
	free(t->name);
	t->name = NULL; /* it is the output now: discard must not remove it */
	if (close(t->fd) != 0) {
		/* the data was synced: a late error of close says nothing more about it */
	}
	t->fd = -1;
	rpl__tmpfile_discard(t);
	return 0;
}

void rpl__tmpfile_discard(struct rpl__tmpfile *t)
{
	if (t->fd >= 0) {
		close(t->fd);
		if (t->name)
			unlink(t->name); /* named, and made by open: nothing else has that name */
	}
	t->fd = -1;
	free(t->name);
	free(t->path);
	t->name = t->path = NULL;
	t->unnamed = 0;
}
