/*
 * brp: run a job on every file with N threads, results in the files' order.
 * Workers take files in order; a result is handed to the caller's output
 * function only once every earlier one has been, through a window of slots
 * so that memory stays the same whatever the size of the corpus.
 */
#include "brp.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct pool {
	const struct brp_files *fl;
	size_t slot_size, window;
	void *slots;     /* window slots of slot_size bytes */
	uint8_t *ready;  /* per slot: result written */
	size_t next;     /* next file to take */
	size_t emitted;  /* files already handed out */
	brp_job_fn job;
	brp_out_fn out;
	void *ud;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static void *worker(void *arg)
{
	struct pool *p = arg;

	for (;;) {
		size_t i;
		void *slot;
		pthread_mutex_lock(&p->lock);
		while (p->next < p->fl->n && p->next >= p->emitted + p->window)
			pthread_cond_wait(&p->cond, &p->lock);
		if (p->next >= p->fl->n) {
			pthread_mutex_unlock(&p->lock);
			return NULL;
		}
		i = p->next++;
		pthread_mutex_unlock(&p->lock);
		slot = (char *)p->slots + (i % p->window) * p->slot_size;
		p->job(p->fl->path[i], slot, p->ud);
		pthread_mutex_lock(&p->lock);
		p->ready[i % p->window] = 1;
		/* hand out every result that is now in order */
		while (p->emitted < p->fl->n && p->ready[p->emitted % p->window]) {
			size_t k = p->emitted % p->window;
			p->out(p->fl->path[p->emitted], (char *)p->slots + k * p->slot_size, p->ud);
			p->ready[k] = 0;
			p->emitted++;
		}
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
	}
}

int brp_pool_run(const struct brp_files *fl, int jobs, size_t slot_size, brp_job_fn job, brp_out_fn out, void *ud)
{
	struct pool p;
	pthread_t *th = NULL;
	int started = 0, err = -1;

	if (jobs <= 1) {
		void *slot = malloc(slot_size);
		if (!slot)
			return -1;
		for (size_t i = 0; i < fl->n; i++) {
			job(fl->path[i], slot, ud);
			out(fl->path[i], slot, ud);
		}
		free(slot);
		return 0;
	}
	memset(&p, 0, sizeof(p));
	p.fl = fl;
	p.slot_size = slot_size;
	p.window = (size_t)jobs * 16;
	p.job = job;
	p.out = out;
	p.ud = ud;
	p.slots = malloc(p.window * slot_size);
	p.ready = calloc(p.window, 1);
	th = calloc((size_t)jobs, sizeof(*th));
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.cond, NULL);
	if (!p.slots || !p.ready || !th)
		goto cleanup;
	for (started = 0; started < jobs; started++)
		if (pthread_create(&th[started], NULL, worker, &p) != 0)
			break;
	if (started == 0)
		goto cleanup;
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	err = 0;
cleanup:
	pthread_cond_destroy(&p.cond);
	pthread_mutex_destroy(&p.lock);
	free(th);
	free(p.ready);
	free(p.slots);
	return err;
}
