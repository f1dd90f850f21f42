/* The scratch directory of a fuzz target that needs files (see fuzz.h). */
#include "fuzz.h"

#include <dirent.h>
#include <string.h>
#include <unistd.h>

static char dir[256];

static void cleanup(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

const char *fuzz_tmp_path(const char *name, char *buf, size_t size)
{
	if (!dir[0]) {
		const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
		snprintf(dir, sizeof dir, "%s/brp-fuzz.XXXXXX", base && *base ? base : "/tmp");
		if (!mkdtemp(dir)) {
			perror("mkdtemp");
			abort();
		}
		atexit(cleanup);
	}
	snprintf(buf, size, "%s/%s", dir, name);
	return buf;
}
