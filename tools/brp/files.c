/*
 * brp: the logs a batch command works on, given one path at a time (see
 * brp.h). What is held at any moment: the directories being walked, each
 * with its own entries (names only), one line of a list, and for the walk
 * under way the identity (device and inode) of each directory entered and
 * each log given; never the whole list of paths.
 */
#define _GNU_SOURCE 1 /* d_type and DT_* in struct dirent; O_TMPFILE, AT_EMPTY_PATH and getrandom for outputs */
#include "brp.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* A file's identity: device and inode. */
struct fid {
	uint64_t dev, ino;
};

/* A set of identities (open addressing; ino + 1 is never 0 in a used slot: used marks it). */
struct fidset {
	struct fid *slot;
	unsigned char *used;
	size_t n, cap; /* cap: a power of two, or 0 */
};

/* A directory being walked: its entries were read and sorted when it was entered. */
struct frame {
	char *dir; /* its path as the paths below it begin: trailing slashes dropped */
	/*
	 * The entries one after another: a kind byte ('d' or 'f'), for a log its
	 * identity (struct fid, unaligned), the name, a NUL.
	 */
	char *names;
	char **entry; /* into names, in name order */
	size_t n, next;
	uint64_t dev; /* the directory's device: a log's, unless reached through a link */
};

#define ENTRY_NAME (1 + sizeof(struct fid))

/* How much of a list line too long to be a path is quoted in the message. */
#define LINE_QUOTE 40

struct brp_source {
	const char *cmd; /* for the notes on what a walk skips */
	char **argv;
	int argc, arg;         /* the next argument */
	unsigned char *is_dir; /* per argument: a directory (checked by brp_source_new) */
	FILE *list;            /* the --from-list file, NULL if none */
	const char *list_name;
	int own_list;   /* list was opened here (not standard input) */
	int list_taken; /* list has been started */
	FILE *reading;  /* the list being read now: stdin for "-", or list */
	const char *reading_name;
	unsigned long lineno; /* of the line last read from it */
	char *line;           /* BRP_LIST_LINE_MAX bytes, a CR, a LF and a NUL */
	struct frame *stack;  /* the directories being walked, outermost first */
	size_t depth, stack_cap;
	char *path; /* the path last given */
	size_t path_cap;
	size_t count;
	struct fidset seen; /* the directories entered and the logs given by the walk under way */
	int stdin_ok;       /* /dev/stdin among the arguments is the stdin log (brp_source_stdin_log) */
	int stdin_first;    /* the stdin log comes before the arguments (--log -), not given yet */
	char *err;          /* why it failed; NULL while it has not */
	int failed;
	size_t unreadable; /* directories a walk could not open or read, each said in its place */
};

/* A note on what a walk skips or cannot read, said unless the source is brp_source_total's own (cmd NULL). */
#define walk_note(s, ...)                                                                                              \
	do {                                                                                                               \
		if ((s)->cmd)                                                                                                  \
			brp_error((s)->cmd, __VA_ARGS__);                                                                          \
	} while (0)

static size_t fid_hash(struct fid f, size_t mask)
{
	uint64_t h = (f.ino ^ (f.dev * 0x9e3779b97f4a7c15u)) * 0xff51afd7ed558ccdu;
	return (size_t)(h ^ (h >> 32)) & mask;
}

/* Put f into the set: 1 when it is new, 0 when it was there, -1 when out of memory. */
static int fid_add(struct fidset *set, struct fid f)
{
	size_t i;

	if ((set->n + 1) * 2 > set->cap) {
		struct fidset big = { NULL, NULL, 0, set->cap ? set->cap * 2 : 64 };
		big.slot = malloc(big.cap * sizeof(*big.slot));
		big.used = calloc(big.cap, 1);
		if (!big.slot || !big.used) {
			free(big.slot);
			free(big.used);
			return -1;
		}
		for (size_t k = 0; k < set->cap; k++) {
			if (!set->used[k])
				continue;
			for (i = fid_hash(set->slot[k], big.cap - 1); big.used[i]; i = (i + 1) & (big.cap - 1))
				;
			big.slot[i] = set->slot[k];
			big.used[i] = 1;
		}
		big.n = set->n;
		free(set->slot);
		free(set->used);
		*set = big;
	}
	for (i = fid_hash(f, set->cap - 1); set->used[i]; i = (i + 1) & (set->cap - 1))
		if (set->slot[i].dev == f.dev && set->slot[i].ino == f.ino)
			return 0;
	set->slot[i] = f;
	set->used[i] = 1;
	set->n++;
	return 1;
}

/* Empty the set (the memory is freed: a walk's size says nothing of the next). */
static void fid_clear(struct fidset *set)
{
	free(set->slot);
	free(set->used);
	memset(set, 0, sizeof(*set));
}

static int has_ext(const char *name, const char *ext)
{
	size_t n = strlen(name), e = strlen(ext);
	return n > e && strcmp(name + n - e, ext) == 0;
}

static int by_name(const void *a, const void *b)
{
	/* past the kind byte and the identity */
	return strcmp(*(char *const *)a + ENTRY_NAME, *(char *const *)b + ENTRY_NAME);
}

/* Fail for good with "what: why" (why NULL: out of memory); returns -1. */
static int fail(struct brp_source *s, const char *what, const char *why)
{
	s->failed = 1;
	if (why && what) {
		s->err = malloc(strlen(what) + strlen(why) + 3);
		if (s->err)
			sprintf(s->err, "%s: %s", what, why);
	}
	return -1;
}

/* s->path = a, or a "/" b (b non-NULL, a of len bytes). */
static int set_path(struct brp_source *s, const char *a, size_t len, const char *b)
{
	size_t need = len + (b ? strlen(b) + 1 : 0) + 1;

	if (need > s->path_cap) {
		char *p = realloc(s->path, need);
		if (!p)
			return -1;
		s->path = p;
		s->path_cap = need;
	}
	memcpy(s->path, a, len);
	if (b) {
		s->path[len] = '/';
		strcpy(s->path + len + 1, b);
	} else {
		s->path[len] = '\0';
	}
	return 0;
}

static void frame_free(struct frame *f)
{
	free(f->dir);
	free(f->names);
	free(f->entry);
	memset(f, 0, sizeof(*f));
}

/*
 * What walking keeps of an entry of f->dir: 'd' a directory, 'f' a *.brp
 * regular file (*id its identity), 0 neither. d_type and d_ino save a stat a
 * file; a symbolic link, or a file system that does not say, is looked at
 * through stat (which follows links, as a path given on the command line is).
 */
static int kind_of(struct brp_source *s, const struct frame *f, const struct dirent *de, struct fid *id)
{
	struct stat st;

	id->dev = f->dev;
	id->ino = (uint64_t)de->d_ino;
	switch (de->d_type) {
	case DT_DIR: return 'd';
	case DT_REG: return has_ext(de->d_name, ".brp") ? 'f' : 0;
	case DT_LNK:
	case DT_UNKNOWN:
		if (set_path(s, f->dir, strlen(f->dir), de->d_name) < 0)
			return -1;
		if (stat(s->path, &st) != 0)
			return 0;
		if (S_ISDIR(st.st_mode))
			return 'd';
		id->dev = (uint64_t)st.st_dev;
		id->ino = (uint64_t)st.st_ino;
		return S_ISREG(st.st_mode) && has_ext(de->d_name, ".brp") ? 'f' : 0;
	default: return 0;
	}
}

/*
 * The next line of the list being read into s->line (BRP_LIST_LINE_MAX + 3
 * bytes), without its LF and trailing CRs: 1 (*len its length), 0 at the
 * end; -1 a line longer than BRP_LIST_LINE_MAX, -2 one holding a NUL (no path
 * does), -3 a read error (errno; never taken for the end of the list). At
 * most BRP_LIST_LINE_MAX + 2 bytes of a line are read: a longer one stops the
 * list, so the rest of it is never read.
 */
static int read_line(struct brp_source *s, size_t *len)
{
	FILE *f = s->reading;
	size_t n = 0;
	int c = EOF, any = 0, nul = 0, rc;

	flockfile(f);
	while (n < BRP_LIST_LINE_MAX + 2 && (c = getc_unlocked(f)) != EOF) {
		any = 1;
		if (c == '\n')
			break;
		nul |= c == '\0';
		s->line[n++] = (char)c;
	}
	if (c == EOF && ferror(f)) {
		funlockfile(f);
		s->lineno++;
		return -3;
	}
	funlockfile(f);
	s->line[n] = '\0';
	if (!any)
		return 0;
	s->lineno++;
	rc = n == BRP_LIST_LINE_MAX + 2 ? -1 : 1; /* and no LF yet: longer than a path with its CR */
	while (n > 0 && s->line[n - 1] == '\r')
		s->line[--n] = '\0';
	if (rc == 1 && n > BRP_LIST_LINE_MAX)
		rc = -1;
	if (rc == 1 && nul)
		rc = -2;
	*len = n;
	return rc;
}

/* Read and sort the entries of d, f's directory (not the names starting with a dot). */
static int frame_read(struct brp_source *s, struct frame *f, DIR *d)
{
	struct dirent *de;
	size_t used = 0, cap = 0, *off = NULL, off_cap = 0;
	int err = -1;

	for (;;) {
		size_t len;
		errno = 0;
		if (!(de = readdir(d))) {
			if (errno) {
				/* what was read is walked; the rest cannot be, and is said */
				walk_note(s, "%s: cannot read: %s", f->dir, strerror(errno));
				s->unreadable++;
			}
			break;
		}
		len = strlen(de->d_name) + 1 + ENTRY_NAME;
		struct fid id;
		int kind;
		if (de->d_name[0] == '.')
			continue;
		kind = kind_of(s, f, de, &id);
		if (kind < 0)
			goto cleanup;
		if (kind == 0)
			continue;
		if (used + len > cap) {
			size_t ncap = cap ? cap * 2 : 1024;
			char *p;
			while (ncap < used + len)
				ncap *= 2;
			if (!(p = realloc(f->names, ncap)))
				goto cleanup;
			f->names = p;
			cap = ncap;
		}
		if (f->n == off_cap) {
			size_t ncap = off_cap ? off_cap * 2 : 64;
			size_t *p = realloc(off, ncap * sizeof(*p));
			if (!p)
				goto cleanup;
			off = p;
			off_cap = ncap;
		}
		off[f->n++] = used;
		f->names[used] = (char)kind;
		memcpy(f->names + used + 1, &id, sizeof(id));
		memcpy(f->names + used + ENTRY_NAME, de->d_name, len - ENTRY_NAME);
		used += len;
	}
	/* names has stopped moving: the offsets can become pointers */
	if (f->n) {
		if (!(f->entry = malloc(f->n * sizeof(*f->entry))))
			goto cleanup;
		for (size_t i = 0; i < f->n; i++)
			f->entry[i] = f->names + off[i];
		qsort(f->entry, f->n, sizeof(*f->entry), by_name);
	}
	err = 0;
cleanup:
	free(off);
	if (err)
		fail(s, NULL, NULL);
	return err;
}

/*
 * Start walking dir: its entries become the innermost frame. A directory the
 * walk has entered before (a symbolic link loop, or a second link to one) is
 * skipped, and said so, once for each link: each directory is walked once.
 */
static int enter(struct brp_source *s, const char *dir)
{
	size_t len = strlen(dir);
	struct frame *f;
	struct stat st;
	DIR *d;
	int err;

	if (s->depth == 0)
		fid_clear(&s->seen); /* a new walk */

	if (s->depth == s->stack_cap) {
		size_t cap = s->stack_cap ? s->stack_cap * 2 : 8;
		struct frame *p = realloc(s->stack, cap * sizeof(*p));
		if (!p)
			return fail(s, NULL, NULL);
		s->stack = p;
		s->stack_cap = cap;
	}
	f = &s->stack[s->depth];
	memset(f, 0, sizeof(*f));
	/* "dir/" and "dir" give the same paths, "dir/NAME" ("/" gives "//NAME", as it always has) */
	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (!(f->dir = malloc(len + 1)))
		return fail(s, NULL, NULL);
	memcpy(f->dir, dir, len);
	f->dir[len] = '\0';
	if (!(d = opendir(dir)) || fstat(dirfd(d), &st) != 0) {
		/*
		 * A directory the walk cannot open (no permission, a link into /proc,
		 * a path too long) is said and skipped, as find does: the walk goes
		 * on, and the command's exit status says a failure (brp_source_unreadable).
		 */
		walk_note(s, "%s: cannot open: %s", dir, strerror(errno));
		s->unreadable++;
		if (d)
			closedir(d);
		frame_free(f);
		return 0;
	} else {
		struct fid id = { (uint64_t)st.st_dev, (uint64_t)st.st_ino };
		int fresh = fid_add(&s->seen, id);
		if (fresh < 0) {
			err = fail(s, NULL, NULL);
		} else if (!fresh) {
			walk_note(s,
			          "%s: skipped: a directory this walk has entered already, reached again through a "
			          "symbolic link",
			          dir);
			closedir(d);
			frame_free(f);
			return 0;
		} else {
			f->dev = id.dev;
			err = frame_read(s, f, d);
		}
		closedir(d);
	}
	if (err) {
		frame_free(f);
		return -1;
	}
	s->depth++;
	return 0;
}

int brp_source_new(struct brp_source **out, const char *cmd, int argc, char **argv, const char *list)
{
	struct brp_source *s = calloc(1, sizeof(*s));
	int err = -1;

	*out = NULL;
	if (!s || !(s->is_dir = calloc((size_t)argc + 1, 1))) {
		brp_error(cmd, "out of memory");
		goto cleanup;
	}
	s->cmd = cmd;
	s->argv = argv;
	s->argc = argc;
	for (int i = 0; i < argc; i++) {
		struct stat st;
		DIR *d;
		if (strcmp(argv[i], "-") == 0 || stat(argv[i], &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		if (!(d = opendir(argv[i]))) {
			brp_error(cmd, "%s: %s", argv[i], strerror(errno));
			goto cleanup;
		}
		closedir(d);
		s->is_dir[i] = 1;
	}
	if (list) {
		struct stat st;
		s->list_name = list;
		s->own_list = strcmp(list, "-") != 0;
		s->list = s->own_list ? fopen(list, "r") : stdin;
		if (!s->list) {
			brp_error(cmd, "%s: %s", list, strerror(errno));
			goto cleanup;
		}
		/* a directory opens, and reads as nothing: an empty list, so a mistake would pass for success */
		if (fstat(fileno(s->list), &st) == 0 && S_ISDIR(st.st_mode)) {
			brp_error(cmd, "--from-list %s: a directory, not a list of paths (give it as an argument to walk it)",
			          list);
			goto cleanup;
		}
	}
	*out = s;
	s = NULL;
	err = 0;
cleanup:
	brp_source_free(s);
	return err;
}

const char brp_stdin_name[] = "-";

int brp_is_stdin_log(const char *path)
{
	return path == brp_stdin_name;
}

int brp_stdin_spelling(const char *arg)
{
	return strcmp(arg, "-") == 0 || strcmp(arg, "/dev/stdin") == 0;
}

int brp_source_stdin_log(struct brp_source *s, int first)
{
	int uses = first + (s->list && !s->own_list);

	for (int i = 0; i < s->argc; i++)
		uses += strcmp(s->argv[i], "-") == 0 || strcmp(s->argv[i], "/dev/stdin") == 0;
	if (uses > 1) {
		brp_error(s->cmd, "standard input is read once: as one log (--log -, /dev/stdin) or as a list of "
		                  "paths (-, --from-list -), not both");
		return -1;
	}
	s->stdin_ok = 1;
	s->stdin_first = first;
	return 0;
}

int brp_open_log(const char *arg, rpl_reader **rd)
{
	return brp_stdin_spelling(arg) ? rpl_reader_open_fd(rd, 0) : rpl_reader_open(rd, arg);
}

int brp_verify_log(const char *path, const rpl_rules *rules, const rpl_keyring *trusted, rpl_verdict *out,
                   const rpl_verify_observer *obs)
{
	rpl_reader *rd = NULL;
	int err;

	if (!brp_is_stdin_log(path))
		return rpl_verify_file_trusted(path, rules, trusted, out, obs);
	/* what rpl_verify_file_trusted does with a path, with the stream read whole */
	err = rpl_reader_open_fd(&rd, 0);
	if (err == RPL_EINVAL || err == RPL_ENOMEM || err == RPL_EIO) {
		memset(out, 0, sizeof(*out));
		out->winner = -1;
		snprintf(out->message, sizeof(out->message), "%s",
		         rd && *rpl_reader_errmsg(rd) ? rpl_reader_errmsg(rd) : rpl_strerror(err));
	} else {
		err = rpl_verify_reader_trusted(rd, rules, trusted, out, obs);
	}
	rpl_reader_free(rd);
	return err;
}

/* The walk's next entry: 1 a log, its path in s->path; 0 none here (read on); -1 a failure. */
static int walk_next(struct brp_source *s)
{
	struct frame *f = &s->stack[s->depth - 1];
	const char *e;
	struct fid id;
	int fresh;

	if (f->next == f->n) {
		frame_free(f);
		s->depth--;
		return 0;
	}
	e = f->entry[f->next++];
	if (set_path(s, f->dir, strlen(f->dir), e + ENTRY_NAME) < 0)
		return fail(s, NULL, NULL);
	if (e[0] == 'd')
		return enter(s, s->path) < 0 ? -1 : 0;
	memcpy(&id, e + 1, sizeof(id));
	if ((fresh = fid_add(&s->seen, id)) < 0)
		return fail(s, NULL, NULL);
	if (!fresh) {
		walk_note(s, "%s: skipped: a log this walk has given already, reached again through a link", s->path);
		return 0;
	}
	return 1;
}

/*
 * The next line of the list being read: 1 a path in *arg (*dir: whether it
 * is a directory); 0 none (a blank line, or the list's end); -1 a failure.
 */
static int list_next(struct brp_source *s, const char **arg, int *dir)
{
	size_t len;
	int got;
	struct stat st;

	if (!s->line && !(s->line = malloc(BRP_LIST_LINE_MAX + 3)))
		return fail(s, NULL, NULL);
	if ((got = read_line(s, &len)) == 0) {
		s->reading = NULL;
		return 0;
	}
	if (got < 0) {
		char what[64], why[LINE_QUOTE + 80];
		snprintf(what, sizeof(what), "%s, line %lu", s->reading_name, s->lineno);
		if (got == -3)
			snprintf(why, sizeof(why), "cannot read: %s", strerror(errno));
		else if (got == -1)
			snprintf(why, sizeof(why), "longer than %d bytes, so no path: \"%.*s...\"", BRP_LIST_LINE_MAX, LINE_QUOTE,
			         s->line);
		else
			snprintf(why, sizeof(why), "holds a NUL byte, so no path: \"%.*s\"...", LINE_QUOTE, s->line);
		return fail(s, what, why);
	}
	if (len == 0)
		return 0;
	*arg = s->line;
	*dir = stat(*arg, &st) == 0 && S_ISDIR(st.st_mode);
	return 1;
}

int brp_source_next(struct brp_source *s, const char **path)
{
	*path = NULL;
	if (s->failed)
		return -1;
	if (s->stdin_first) {
		s->stdin_first = 0;
		s->count++;
		*path = brp_stdin_name;
		return 0;
	}
	for (;;) {
		const char *arg;
		int dir, got;
		if (s->depth > 0) {
			if ((got = walk_next(s)) < 0)
				return -1;
			if (got == 0)
				continue;
			break;
		}
		if (s->reading) {
			if ((got = list_next(s, &arg, &dir)) < 0)
				return -1;
			if (got == 0)
				continue;
		} else if (s->arg < s->argc) {
			dir = s->is_dir[s->arg];
			arg = s->argv[s->arg++];
			if (strcmp(arg, "-") == 0) {
				s->reading = stdin;
				s->reading_name = "standard input";
				s->lineno = 0;
				continue;
			}
			if (s->stdin_ok && strcmp(arg, "/dev/stdin") == 0) {
				/* the stream, read whole: the path would be a FIFO, which is refused */
				s->count++;
				*path = brp_stdin_name;
				return 0;
			}
		} else if (s->list && !s->list_taken) {
			s->list_taken = 1;
			s->reading = s->list;
			s->reading_name = s->own_list ? s->list_name : "standard input";
			s->lineno = 0;
			continue;
		} else {
			return 0;
		}
		if (dir) {
			if (enter(s, arg) < 0)
				return -1;
			continue;
		}
		/* a file that does not exist is given too: the command reports it in its place */
		if (set_path(s, arg, strlen(arg), NULL) < 0)
			return fail(s, NULL, NULL);
		break;
	}
	s->count++;
	*path = s->path;
	return 0;
}

size_t brp_source_unreadable(const struct brp_source *s)
{
	return s ? s->unreadable : 0;
}

const char *brp_source_errmsg(const struct brp_source *s)
{
	if (!s->failed)
		return NULL;
	return s->err ? s->err : "out of memory";
}

size_t brp_source_count(const struct brp_source *s)
{
	return s->count;
}

void brp_source_free(struct brp_source *s)
{
	if (!s)
		return;
	while (s->depth > 0)
		frame_free(&s->stack[--s->depth]);
	free(s->stack);
	fid_clear(&s->seen);
	if (s->own_list && s->list)
		fclose(s->list);
	free(s->line);
	free(s->path);
	free(s->err);
	free(s->is_dir);
	free(s);
}

/* ---- outputs written whole (brp_output_*) ---- */

/* Random characters in a temporary file's name (72 bits), and the part of the output's name kept in it. */
#define OUT_RANDOM 12
#define OUT_KEEP 200
#define OUT_TRIES 64

static void out_why(char *why, size_t cap, const char *what)
{
	snprintf(why, cap, "%s", what);
}

/* "DIR/.BASE.RANDOM~" beside path into buf (strlen(path) + OUT_RANDOM + 4 bytes); -1 with errno. */
static int out_fresh_name(char *buf, const char *path)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0, blen = strlen(path + dirlen), got = 0;
	unsigned char r[OUT_RANDOM];
	char *p;

	while (got < sizeof(r)) {
		ssize_t n = getrandom(r + got, sizeof(r) - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		got += (size_t)n;
	}
	if (blen > OUT_KEEP)
		blen = OUT_KEEP;
	memcpy(buf, path, dirlen);
	p = buf + dirlen;
	p += sprintf(p, ".%.*s.", (int)blen, path + dirlen);
	for (int i = 0; i < OUT_RANDOM; i++)
		*p++ = set[r[i] & 63];
	strcpy(p, "~");
	return 0;
}

int brp_output_open(struct brp_output *o, const char *path, char *why, size_t cap)
{
	const char *base = strrchr(path, '/');
	struct stat st;
	int fd;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	base = base ? base + 1 : path;
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		out_why(why, cap, "a symbolic link, not a regular file");
		return -1;
	}
	if ((!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) ||
	    (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))) {
		out_why(why, cap, strerror(EISDIR));
		return -1;
	}
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* a device or a FIFO the user named (/dev/full, a pipe): written as it is, never replaced */
		fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0 || !(o->f = fdopen(fd, "w"))) {
			out_why(why, cap, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		return 0;
	}
	if (!(o->path = strdup(path)) || !(o->name = malloc(strlen(path) + OUT_RANDOM + 4))) {
		brp_output_discard(o);
		out_why(why, cap, strerror(ENOMEM));
		return -1;
	}
#ifdef O_TMPFILE
	if (access("/proc/self/fd", X_OK) == 0) {
		/* unnamed until it is whole: a killed brp leaves nothing */
		size_t n = base == path ? 1 : (size_t)(base - path) - 1;
		char *dir = malloc(n + 1);
		if (dir) {
			memcpy(dir, base == path ? "." : n == 0 ? "/" : path, n ? n : 1);
			dir[n ? n : 1] = '\0';
			o->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
			free(dir);
			o->unnamed = o->fd >= 0;
		}
	}
#endif
	for (int i = 0; o->fd < 0 && i < OUT_TRIES; i++) {
		if (out_fresh_name(o->name, path) < 0)
			break;
		o->fd = open(o->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (o->fd < 0 && errno != EEXIST)
			break;
	}
	if (o->fd < 0) {
		out_why(why, cap, strerror(errno));
		free(o->name);
		o->name = NULL; /* nothing was made */
		brp_output_discard(o);
		return -1;
	}
	if (o->unnamed) {
		free(o->name);
		o->name = NULL;
	}
	/* the stream has a descriptor of its own: the file's stays open to be linked into place */
	if ((fd = dup(o->fd)) < 0 || !(o->f = fdopen(fd, "w"))) {
		out_why(why, cap, strerror(errno));
		if (fd >= 0)
			close(fd);
		brp_output_discard(o);
		return -1;
	}
	return 0;
}

/* Give the unnamed file the name dest (that must not exist). */
static int out_link(int fd, const char *dest)
{
	char proc[64];

#ifdef AT_EMPTY_PATH
	if (linkat(fd, "", AT_FDCWD, dest, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno == EEXIST)
		return -1;
#endif
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return linkat(AT_FDCWD, proc, AT_FDCWD, dest, AT_SYMLINK_FOLLOW);
}

int brp_output_commit(struct brp_output *o, char *why, size_t cap)
{
	FILE *f = o->f;
	int bad, e = 0, rc = -1;

	o->f = NULL;
	bad = fflush(f) != 0 || ferror(f);
	if (bad)
		e = errno ? errno : EIO;
	if (fclose(f) != 0 && !bad) {
		bad = 1;
		e = errno;
	}
	if (!bad && o->fd >= 0 && fsync(o->fd) != 0) {
		bad = 1;
		e = errno;
	}
	if (bad) {
		out_why(why, cap, strerror(e));
		brp_output_discard(o);
		return -1;
	}
	if (o->fd < 0)
		return 0; /* a device, written */
	if (o->unnamed) {
		/* linked at a fresh name and renamed over the output, the termination signals held meanwhile */
		char *name = malloc(strlen(o->path) + OUT_RANDOM + 4);
		sigset_t hold, old;
		int held;
		sigemptyset(&hold);
		sigaddset(&hold, SIGINT);
		sigaddset(&hold, SIGTERM);
		sigaddset(&hold, SIGHUP);
		sigaddset(&hold, SIGQUIT);
		held = name && sigprocmask(SIG_BLOCK, &hold, &old) == 0;
		e = ENOMEM;
		for (int i = 0; name && i < OUT_TRIES; i++) {
			if (out_fresh_name(name, o->path) < 0 || out_link(o->fd, name) < 0) {
				e = errno;
				if (e == EEXIST)
					continue;
				break;
			}
			if (rename(name, o->path) == 0) {
				rc = 0;
			} else {
				e = errno;
				unlink(name);
			}
			break;
		}
		if (held)
			sigprocmask(SIG_SETMASK, &old, NULL);
		free(name);
	} else if (rename(o->name, o->path) == 0) {
		free(o->name);
		o->name = NULL; /* the output's now */
		rc = 0;
	} else {
		e = errno;
	}
	if (rc != 0)
		out_why(why, cap, strerror(e));
	brp_output_discard(o);
	return rc;
}

void brp_output_discard(struct brp_output *o)
{
	if (o->f)
		fclose(o->f);
	if (o->fd >= 0) {
		close(o->fd);
		if (o->name)
			unlink(o->name); /* named, made by brp_output_open */
	}
	free(o->name);
	free(o->path);
	memset(o, 0, sizeof(*o));
	o->fd = -1;
}

size_t brp_source_total(int argc, char **argv, const char *list)
{
	struct brp_source *s = NULL;
	const char *path;
	struct stat st;
	size_t n = 0;

	/* standard input is read once, and a list that is not a regular file may be a pipe: not counted */
	for (int i = 0; i < argc; i++)
		if (brp_stdin_spelling(argv[i]))
			return 0;
	if (list && (strcmp(list, "-") == 0 || stat(list, &st) != 0 || !S_ISREG(st.st_mode)))
		return 0;
	if (brp_source_new(&s, NULL, argc, argv, list) < 0)
		return 0;
	while (brp_source_next(s, &path) == 0 && path)
		n++;
	if (s->failed)
		n = 0;
	brp_source_free(s);
	return n;
}
