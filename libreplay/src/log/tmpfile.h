/*
 * Private: every file the library writes whole and then puts in place (a
 * signed log, a detached signature, a key, an imported or salvaged log, a
 * recorder's compact form, a workbook, the CSV files) is written through
 * one of these, never through a name built from the caller's path.
 *
 * rpl__tmpfile_open makes a new, empty file in the output's own directory:
 * with O_TMPFILE where the system has it (the file has no name until
 * rpl__tmpfile_commit links it, so a process killed even by SIGKILL leaves
 * nothing), else under a name no one can guess, ".BASE.XXXXXXXXXXXX~",
 * created with O_CREAT|O_EXCL|O_NOFOLLOW: a link or a file planted at any
 * name is never opened, truncated or written through. The output's own path
 * must not be a symbolic link, nor anything but a regular file (refused
 * before anything is made). rpl__tmpfile_commit syncs the file and puts it
 * at the output's path; rpl__tmpfile_discard (called by a failed commit
 * too) closes and removes it. Any process may use them on several threads.
 */
#ifndef RPL_TMPFILE_H
#define RPL_TMPFILE_H

#include <stddef.h>
#include <sys/types.h>

struct rpl__tmpfile {
	int fd;       /* write here; -1 when none is open */
	char *path;   /* the output's path (a copy) */
	char *name;   /* the temporary file's name while it has one (no O_TMPFILE), else NULL */
	int unnamed;  /* made with O_TMPFILE: linked into place at commit */
	int errnum;   /* the errno of the last failure, 0 for one that is not the system's */
	char why[96]; /* the last failure, one line without a path ("a FIFO, not a regular file") */
};
#define RPL__TMPFILE_INIT                                                                                              \
	{                                                                                                                  \
		-1, NULL, NULL, 0, 0, ""                                                                                       \
	}

/* rpl__tmpfile_open flags */
#define RPL__TMP_EXACT_MODE 1u /* the file gets exactly mode, whatever the umask (a log signed in place) */
#define RPL__TMP_NAMED 2u      /* never O_TMPFILE (the tests of the named form) */

/*
 * A new file for path with mode (less the umask unless RPL__TMP_EXACT_MODE).
 * Returns 0 with t->fd open; or -1 with t->why and t->errnum, nothing made
 * (t needs no discard, one does no harm). path itself is refused when it is
 * a symbolic link or exists and is not a regular file.
 */
int rpl__tmpfile_open(struct rpl__tmpfile *t, const char *path, mode_t mode, unsigned flags);

/* Write all n bytes at the file's offset (EINTR retried). 0, or -1 with t->why. */
int rpl__tmpfile_write(struct rpl__tmpfile *t, const void *data, size_t n);

/*
 * A name that opens the file itself (for a library that takes a name, such
 * as libxlsxwriter): "/proc/self/fd/N" for an unnamed file, else its name.
 * The name is the file only while t is open. Returns buf.
 */
const char *rpl__tmpfile_name(const struct rpl__tmpfile *t, char *buf, size_t size);

/* rpl__tmpfile_commit flags */
#define RPL__TMP_REPLACE 1u /* replace a file at the path (rename over it); else an existing path fails (EEXIST) */

/*
 * fsync the file and put it at its path, in one step that a reader never
 * sees half done; the termination signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT)
 * are held while an unnamed file's last two steps (link, rename) run, so that
 * they cannot leave its link behind. Closes the file. 0; or -1 with t->why and
 * t->errnum, the file discarded (nothing left, the path untouched).
 */
int rpl__tmpfile_commit(struct rpl__tmpfile *t, unsigned flags);

/* Close and remove the file (nothing at its path changes); t may be used again. Accepts a t never opened. */
void rpl__tmpfile_discard(struct rpl__tmpfile *t);

#endif
