/*
 * The plain program behind a fuzz target when no fuzzing engine is linked
 * (dav1d's habit): feed LLVMFuzzerTestOneInput every file named on the
 * command line and every regular file of every directory named, in name
 * order. A crash, a sanitizer report or a broken FUZZ_CHECK fails the test;
 * the name of the input is printed first so that it is known.
 */
#define _DEFAULT_SOURCE 1
#include "fuzz.h"

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		if (f)
			fclose(f);
		return -1;
	}
	buf = malloc(n ? (size_t)n : 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	fprintf(stderr, "replay: %s (%ld bytes)\n", path, n);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
	int files = 0, bad = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;
		struct dirent **names;
		int n;

		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "replay: no %s\n", argv[i]);
			return 2;
		}
		if (!S_ISDIR(st.st_mode)) {
			bad |= run_file(argv[i]) < 0;
			files++;
			continue;
		}
		n = scandir(argv[i], &names, NULL, by_name);
		if (n < 0) {
			fprintf(stderr, "replay: cannot list %s\n", argv[i]);
			return 2;
		}
		for (int k = 0; k < n; k++) {
			char path[4096];
			snprintf(path, sizeof path, "%s/%s", argv[i], names[k]->d_name);
			if (names[k]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
				bad |= run_file(path) < 0;
				files++;
			}
			free(names[k]);
		}
		free(names);
	}
	printf("%d inputs replayed\n", files);
	if (files == 0) {
		fprintf(stderr, "replay: no input: an empty corpus tests nothing\n");
		return 1;
	}
	return bad ? 1 : 0;
}
