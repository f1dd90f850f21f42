/*
 * brp: a progress line on standard error, for the long batch commands. It
 * shows only when standard error is a terminal (and the command was not told
 * to be quiet): "brp export: 9680/20000 logs, 48%, 1210/s, 0:08 left". The
 * line is redrawn at most ten times a second, and wiped before a result line
 * is printed on the same terminal, so results and progress never share a
 * line. Nothing here goes to a file or a pipe.
 */
#include "brp.h"

#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void brp_progress_start(struct brp_progress *p, const char *cmd, const char *unit, int quiet, size_t total)
{
	p->cmd = cmd;
	p->unit = unit;
	p->on = !quiet && isatty(STDERR_FILENO);
	p->total = total;
	p->done = 0;
	p->shown = 0;
	p->start = p->last = p->on ? now() : 0;
}

static void draw(struct brp_progress *p, double t)
{
	double elapsed = t - p->start, rate = elapsed > 0 ? (double)p->done / elapsed : 0;

	fflush(stdout); /* a result printed before this line comes first */
	fprintf(stderr, "\rbrp %s: %zu", p->cmd, p->done);
	if (p->total)
		fprintf(stderr, "/%zu %s, %d%%", p->total, p->unit, (int)(100.0 * (double)p->done / (double)p->total));
	else
		fprintf(stderr, " %s", p->unit);
	if (elapsed >= 1 && rate > 0) {
		fprintf(stderr, ", %.0f/s", rate);
		if (p->total && p->done < p->total) {
			long left = (long)((double)(p->total - p->done) / rate + 0.5);
			fprintf(stderr, ", %ld:%02ld left", left / 60, left % 60);
		}
	}
	fputs("\033[K", stderr); /* wipe what a longer line left */
	fflush(stderr);
	p->shown = 1;
	p->last = t;
}

void brp_progress_step(struct brp_progress *p, size_t done)
{
	double t;

	if (!p->on)
		return;
	p->done = done;
	t = now();
	if (t - p->last >= 0.1 || (p->total && done == p->total))
		draw(p, t);
}

void brp_progress_clear(struct brp_progress *p)
{
	if (!p->on || !p->shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	p->shown = 0;
}

void brp_progress_end(struct brp_progress *p)
{
	if (!p->on)
		return;
	/* the last count stays on the screen, on its own line */
	draw(p, now());
	fputc('\n', stderr);
	p->on = 0;
}
