/* brp: the list of logs a batch command works on. */
#include "brp.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int push(struct brp_files *fl, const char *path)
{
	char *copy;

	if (fl->n == fl->cap) {
		size_t cap = fl->cap ? fl->cap * 2 : 64;
		char **p = realloc(fl->path, cap * sizeof(*p));
		if (!p)
			return -1;
		fl->path = p;
		fl->cap = cap;
	}
	copy = strdup(path);
	if (!copy)
		return -1;
	fl->path[fl->n++] = copy;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has_ext(const char *name, const char *ext)
{
	size_t n = strlen(name), e = strlen(ext);
	return n > e && strcmp(name + n - e, ext) == 0;
}

/* Every *.brp below dir, in name order (so output order is stable). */
static int walk(const char *cmd, struct brp_files *fl, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct brp_files sub = { 0 };
	int err = 0;

	if (!d) {
		brp_error(cmd, "%s: %s", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		char *p;
		struct stat st;
		if (de->d_name[0] == '.')
			continue;
		p = malloc(strlen(dir) + strlen(de->d_name) + 2);
		if (!p) {
			err = -1;
			break;
		}
		{
			size_t dl = strlen(dir);
			while (dl > 1 && dir[dl - 1] == '/')
				dl--;
			sprintf(p, "%.*s/%s", (int)dl, dir, de->d_name);
		}
		if (stat(p, &st) == 0 && (S_ISDIR(st.st_mode) || (S_ISREG(st.st_mode) && has_ext(p, ".brp"))))
			err = push(&sub, p);
		free(p);
		if (err)
			break;
	}
	closedir(d);
	qsort(sub.path, sub.n, sizeof(char *), by_name);
	for (size_t i = 0; i < sub.n && !err; i++) {
		struct stat st;
		if (stat(sub.path[i], &st) == 0 && S_ISDIR(st.st_mode))
			err = walk(cmd, fl, sub.path[i]);
		else
			err = push(fl, sub.path[i]);
	}
	brp_files_free(&sub);
	return err;
}

static int add_arg(const char *cmd, struct brp_files *fl, const char *arg)
{
	struct stat st;

	if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode))
		return walk(cmd, fl, arg);
	/* a file that does not exist is kept: the command reports it in its place */
	return push(fl, arg);
}

/* Paths one a line from f. */
static int read_list(const char *cmd, struct brp_files *fl, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	while ((len = getline(&line, &cap, f)) > 0) {
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len == 0)
			continue;
		if (add_arg(cmd, fl, line) < 0) {
			free(line);
			return -1;
		}
	}
	free(line);
	return 0;
}

int brp_files_from_list(const char *cmd, const char *list, struct brp_files *fl)
{
	FILE *f = strcmp(list, "-") == 0 ? stdin : fopen(list, "r");
	int err;

	if (!f) {
		brp_error(cmd, "%s: %s", list, strerror(errno));
		return -1;
	}
	err = read_list(cmd, fl, f);
	if (f != stdin)
		fclose(f);
	return err;
}

int brp_files_collect(const char *cmd, int argc, char **argv, struct brp_files *fl)
{
	memset(fl, 0, sizeof(*fl));
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "-") == 0) {
			/* a list of paths on standard input, one a line */
			if (read_list(cmd, fl, stdin) < 0)
				return -1;
			continue;
		}
		if (add_arg(cmd, fl, argv[i]) < 0)
			return -1;
	}
	return 0;
}

void brp_files_free(struct brp_files *fl)
{
	for (size_t i = 0; i < fl->n; i++)
		free(fl->path[i]);
	free(fl->path);
	memset(fl, 0, sizeof(*fl));
}
