/*
 * brp: the logs a batch command works on, given one path at a time (see
 * brp.h). What is held at any moment: the directories being walked, each
 * with its own entries (names only), and one line of a list; never the whole
 * list of paths.
 */
#define _DEFAULT_SOURCE 1 /* d_type and DT_* in struct dirent */
#include "brp.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A directory being walked: its entries were read and sorted when it was entered. */
struct frame {
	char *dir;     /* its path as the paths below it begin: trailing slashes dropped */
	char *names;   /* the entries one after another: a kind byte ('d' or 'f'), the name, a NUL */
	char **entry;  /* into names, in name order */
	size_t n, next;
};

struct brp_source {
	char **argv;
	int argc, arg;          /* the next argument */
	unsigned char *is_dir;  /* per argument: a directory (checked by brp_source_new) */
	FILE *list;             /* the --from-list file, NULL if none */
	int own_list;           /* list was opened here (not standard input) */
	int list_taken;         /* list has been started */
	FILE *reading;          /* the list being read now: stdin for "-", or list */
	char *line;
	size_t line_cap;
	struct frame *stack;    /* the directories being walked, outermost first */
	size_t depth, stack_cap;
	char *path;             /* the path last given */
	size_t path_cap;
	size_t count;
	char *err;              /* why it failed; NULL while it has not */
	int failed;
};

static int has_ext(const char *name, const char *ext)
{
	size_t n = strlen(name), e = strlen(ext);
	return n > e && strcmp(name + n - e, ext) == 0;
}

static int by_name(const void *a, const void *b)
{
	/* past the kind byte */
	return strcmp(*(char *const *)a + 1, *(char *const *)b + 1);
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
 * regular file, 0 neither. d_type saves a stat a file; a symbolic link, or a
 * file system that does not say, is looked at through stat (which follows
 * links, as a path given on the command line is).
 */
static int kind_of(struct brp_source *s, const struct frame *f, const struct dirent *de)
{
	struct stat st;

	switch (de->d_type) {
	case DT_DIR:
		return 'd';
	case DT_REG:
		return has_ext(de->d_name, ".brp") ? 'f' : 0;
	case DT_LNK:
	case DT_UNKNOWN:
		if (set_path(s, f->dir, strlen(f->dir), de->d_name) < 0)
			return -1;
		if (stat(s->path, &st) != 0)
			return 0;
		if (S_ISDIR(st.st_mode))
			return 'd';
		return S_ISREG(st.st_mode) && has_ext(de->d_name, ".brp") ? 'f' : 0;
	default:
		return 0;
	}
}

/* Read and sort the entries of d, f's directory (not the names starting with a dot). */
static int frame_read(struct brp_source *s, struct frame *f, DIR *d)
{
	struct dirent *de;
	size_t used = 0, cap = 0, *off = NULL, off_cap = 0;
	int err = -1;

	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name) + 2;
		int kind;
		if (de->d_name[0] == '.')
			continue;
		kind = kind_of(s, f, de);
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
		memcpy(f->names + used + 1, de->d_name, len - 1);
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

/* Start walking dir: its entries become the innermost frame. */
static int enter(struct brp_source *s, const char *dir)
{
	size_t len = strlen(dir);
	struct frame *f;
	DIR *d;
	int err;

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
	if (!(d = opendir(dir))) {
		err = fail(s, dir, strerror(errno));
	} else {
		err = frame_read(s, f, d);
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
		s->own_list = strcmp(list, "-") != 0;
		s->list = s->own_list ? fopen(list, "r") : stdin;
		if (!s->list) {
			brp_error(cmd, "%s: %s", list, strerror(errno));
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

int brp_source_next(struct brp_source *s, const char **path)
{
	*path = NULL;
	if (s->failed)
		return -1;
	for (;;) {
		const char *arg;
		int dir;
		if (s->depth > 0) {
			struct frame *f = &s->stack[s->depth - 1];
			const char *e;
			if (f->next == f->n) {
				frame_free(f);
				s->depth--;
				continue;
			}
			e = f->entry[f->next++];
			if (set_path(s, f->dir, strlen(f->dir), e + 1) < 0)
				return fail(s, NULL, NULL);
			if (e[0] == 'd') {
				if (enter(s, s->path) < 0)
					return -1;
				continue;
			}
			break;
		}
		if (s->reading) {
			ssize_t len = getline(&s->line, &s->line_cap, s->reading);
			struct stat st;
			if (len <= 0) {
				s->reading = NULL;
				continue;
			}
			while (len > 0 && (s->line[len - 1] == '\n' || s->line[len - 1] == '\r'))
				s->line[--len] = '\0';
			if (len == 0)
				continue;
			arg = s->line;
			dir = stat(arg, &st) == 0 && S_ISDIR(st.st_mode);
		} else if (s->arg < s->argc) {
			dir = s->is_dir[s->arg];
			arg = s->argv[s->arg++];
			if (strcmp(arg, "-") == 0) {
				s->reading = stdin;
				continue;
			}
		} else if (s->list && !s->list_taken) {
			s->list_taken = 1;
			s->reading = s->list;
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
	if (s->own_list && s->list)
		fclose(s->list);
	free(s->line);
	free(s->path);
	free(s->err);
	free(s->is_dir);
	free(s);
}
