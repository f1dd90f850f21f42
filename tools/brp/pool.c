/*
 * brp: run a job on every path of a source with N threads, results in the
 * paths' order. Workers take the next path from the source under the lock,
 * into a ring of window slots (each with its own copy of the path and room
 * for a result); a result is handed to the caller's output function only once
 * every earlier one has been, and a worker waits while the window is full.
 * So memory depends on N, not on the number of paths.
 */
#include "brp.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct slot {
	const char *name; /* path, or brp_stdin_name (told apart by its address) */
	char *path;       /* this slot's copy of its path */
	size_t cap;
	int ready; /* result written */
};

struct pool {
	struct brp_source *src;
	size_t slot_size, window;
	struct slot *slot; /* path i in slot[i % window] */
	char *results;     /* window results of slot_size bytes, in the same order */
	size_t next;       /* paths taken from the source */
	size_t emitted;    /* results handed out */
	int end;           /* no more paths: the source ended or failed, memory ran out, or out said stop */
	int nomem;
	int stopped; /* out said stop */
	brp_job_fn job;
	brp_out_fn out;
	void *ud;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

/* With the lock held: the next path into its slot; NULL at the end. */
static struct slot *take(struct pool *p)
{
	const char *path;
	struct slot *s;

	if (brp_source_next(p->src, &path) < 0 || !path) {
		p->end = 1;
		return NULL;
	}
	s = &p->slot[p->next % p->window];
	if (brp_is_stdin_log(path)) {
		s->name = path;
	} else if (brp_copy_string(&s->path, &s->cap, path) < 0) {
		p->end = p->nomem = 1;
		return NULL;
	} else {
		s->name = s->path;
	}
	s->ready = 0;
	p->next++;
	return s;
}

static void *worker(void *arg)
{
	struct pool *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct slot *s;
		size_t i;
		while (!p->end && p->next >= p->emitted + p->window)
			pthread_cond_wait(&p->cond, &p->lock);
		if (p->end)
			break;
		i = p->next;
		if (!(s = take(p))) {
			pthread_cond_broadcast(&p->cond);
			break;
		}
		pthread_mutex_unlock(&p->lock);
		p->job(s->name, p->results + (i % p->window) * p->slot_size, p->ud);
		pthread_mutex_lock(&p->lock);
		s->ready = 1;
		/* hand out every result that is now in order */
		while (!p->stopped && p->emitted < p->next && p->slot[p->emitted % p->window].ready) {
			size_t k = p->emitted % p->window;
			if (p->out(p->slot[k].name, p->results + k * p->slot_size, p->ud) != 0)
				p->stopped = p->end = 1;
			p->slot[k].ready = 0;
			p->emitted++;
		}
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int brp_pool_run(const char *cmd, struct brp_source *src, int jobs, size_t slot_size, brp_job_fn job, brp_out_fn out,
                 brp_drop_fn drop, void *ud)
{
	struct pool p;
	pthread_t *th = NULL;
	int started = 0, err = -1;

	memset(&p, 0, sizeof(p));
	p.src = src;
	p.slot_size = slot_size;
	p.window = jobs <= 1 ? 1 : (size_t)jobs * 16;
	p.job = job;
	p.out = out;
	p.ud = ud;
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.cond, NULL);
	p.slot = calloc(p.window, sizeof(*p.slot));
	p.results = malloc(p.window * slot_size);
	if (!p.slot || !p.results) {
		brp_error(cmd, "out of memory");
		goto cleanup;
	}
	if (jobs <= 1) {
		/* no thread: the path the source gives is used before it is asked again */
		const char *path;
		while (brp_source_next(src, &path) == 0 && path) {
			job(path, p.results, ud);
			if (out(path, p.results, ud) != 0) {
				p.stopped = 1;
				break;
			}
		}
	} else {
		if (!(th = calloc((size_t)jobs, sizeof(*th)))) {
			brp_error(cmd, "out of memory");
			goto cleanup;
		}
		for (started = 0; started < jobs; started++)
			if (pthread_create(&th[started], NULL, worker, &p) != 0)
				break;
		if (started == 0) {
			brp_error(cmd, "cannot start a thread");
			goto cleanup;
		}
		for (int i = 0; i < started; i++)
			pthread_join(th[i], NULL);
		/* every thread has finished: the results made after a stop are ready, and not handed out */
		for (size_t i = p.emitted; i < p.next; i++)
			if (drop && p.slot[i % p.window].ready)
				drop(p.results + (i % p.window) * slot_size, ud);
	}
	if (p.stopped) {
		err = 1;
		goto cleanup;
	}
	/* every result before the failure has been handed out: the failure comes in its place */
	if (brp_source_errmsg(src)) {
		brp_error(cmd, "%s", brp_source_errmsg(src));
		goto cleanup;
	}
	if (p.nomem) {
		brp_error(cmd, "out of memory");
		goto cleanup;
	}
	err = 0;
cleanup:
	pthread_cond_destroy(&p.cond);
	pthread_mutex_destroy(&p.lock);
	free(th);
	if (p.slot)
		for (size_t i = 0; i < p.window; i++)
			free(p.slot[i].path);
	free(p.slot);
	free(p.results);
	return err;
}
