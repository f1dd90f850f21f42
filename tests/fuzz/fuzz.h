/*
 * libFuzzer targets. Each fuzz_*.c defines LLVMFuzzerTestOneInput(); built
 * with -Dfuzzing=true it links libFuzzer (-fsanitize=fuzzer), otherwise it
 * links replay.c, a main that feeds it every file of its corpus: the ordinary
 * test suite replays the seeds and every input a fuzzer ever found.
 *
 * A target reports a broken invariant with FUZZ_CHECK, which aborts: libFuzzer
 * saves the input, the replay test fails.
 */
#ifndef BRP_FUZZ_H
#define BRP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                                               \
	do {                                                                                                               \
		if (!(cond)) {                                                                                                 \
			fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond);                               \
			abort();                                                                                                   \
		}                                                                                                              \
	} while (0)

/* A scratch directory of this process (created once, removed at exit); path + name in buf. */
const char *fuzz_tmp_path(const char *name, char *buf, size_t size);

#endif
