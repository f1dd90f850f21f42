/*
 * The cost of rpl_game_legal (docs/performance.md, "The legal-move generator"):
 *
 *   brp-bench-legal DIR REPS
 *
 * replays every log of DIR and, before each decision, calls rpl_game_legal
 * REPS times. Run under callgrind with REPS 0 and 1: the difference of the
 * instruction counts over the positions is the instructions a call. Not
 * installed; the public API only.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libreplay/libreplay.h"
int main(int argc, char **argv)
{
	DIR *d = opendir(argv[1]);
	struct dirent *e;
	int reps = atoi(argv[2]);
	long positions = 0, listed = 0;
	static rpl_action mv[65536];
	while ((e = readdir(d))) {
		char path[4096];
		rpl_reader *rd;
		rpl_event ev;
		rpl_game *g = NULL;
		const rpl_match_info *info;
		if (!strstr(e->d_name, ".brp"))
			continue;
		snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
		if (rpl_reader_open(&rd, path))
			continue;
		info = rpl_reader_info(rd);
		rpl_game_new(&g, info->rules, info->nplayers, info->first_dealer);
		while (rpl_reader_next(rd, &ev) == 1) {
			if (ev.kind == RPL_EV_DEAL)
				rpl_game_deal(g, &ev.layout);
			if (ev.kind != RPL_EV_ACTION)
				continue;
			positions++;
			for (int r = 0; r < reps; r++)
				listed += (long)rpl_game_legal(g, mv, 65536);
			rpl_game_apply(g, &ev.action);
		}
		rpl_game_free(g);
		rpl_reader_free(rd);
	}
	printf("%ld positions, %ld listed\n", positions, listed);
	return 0;
}
