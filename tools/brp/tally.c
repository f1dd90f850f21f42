/*
 * What a corpus of logs holds, counted: the figures of brp stats, which brp
 * report shows too, computed in one place so that both say the same.
 */
#include "brp.h"

#include <stdlib.h>
#include <string.h>

void brp_counts_add(struct brp_counts *to, const struct brp_counts *c)
{
	long *a = (long *)to;
	const long *b = (const long *)c;
	for (size_t i = 0; i < sizeof(*to) / sizeof(long); i++)
		a[i] += b[i];
}

void brp_counts_deal(struct brp_counts *c, const rpl_game *g)
{
	rpl_deal_stats st;
	rpl_game_deal_stats(g, &st);
	c->deals++;
	c->turns += st.turns;
	c->pile_taken += st.pile_taken;
	c->pile_frozen += st.pile_frozen;
	c->rejects += st.rejects;
	c->morto_direct += st.morto_direct;
	c->morto_indirect += st.morto_indirect;
	c->morto_to_stock += st.morto_to_stock;
	c->vulnerable_open += st.vulnerable_open;
	if (st.end == RPL_DEAL_OUT)
		c->ended_out++;
	else if (st.end == RPL_DEAL_STOCK)
		c->ended_stock++;
	for (int s = 0; s < 2; s++) {
		rpl_score sc;
		rpl_game_deal_score(g, s, &sc);
		for (int k = 1; k < RPL_CANASTRA_NCAT; k++)
			c->canastras[k] += sc.canastras[k];
	}
}

int brp_counts_after(void *ctx, const rpl_event *ev, const rpl_game *g)
{
	struct brp_counts *one = ctx;

	if (ev->kind != RPL_EV_ACTION)
		return 0;
	one->actions++;
	if (rpl_game_phase(g) >= RPL_PHASE_DEAL_OVER)
		brp_counts_deal(one, g);
	return 0;
}

/* The counting and a caller's own observer, on one pass. */
struct tee {
	struct brp_counts *one;
	const rpl_verify_observer *extra;
};

static int tee_after(void *ctx, const rpl_event *ev, const rpl_game *g)
{
	struct tee *t = ctx;
	int rc = brp_counts_after(t->one, ev, g);

	if (rc == 0 && t->extra->after)
		rc = t->extra->after(t->extra->ctx, ev, g);
	return rc;
}

static int tee_before(void *ctx, const rpl_event *ev, const rpl_game *g)
{
	struct tee *t = ctx;
	return t->extra->before ? t->extra->before(t->extra->ctx, ev, g) : 0;
}

int brp_counts_log(const char *path, struct brp_counts *c, rpl_verdict *v, char *message, size_t cap,
                   const rpl_verify_observer *extra)
{
	struct brp_counts one;
	struct tee t = { &one, extra };
	rpl_verify_observer obs = { &one, NULL, brp_counts_after };
	int err;

	memset(c, 0, sizeof(*c));
	memset(&one, 0, sizeof(one));
	message[0] = '\0';
	if (extra) {
		obs.ctx = &t;
		obs.before = extra->before ? tee_before : NULL;
		obs.after = tee_after;
	}
	err = brp_verify_log(path, NULL, NULL, v, &obs);
	if (err) {
		snprintf(message, cap, "%s", v->message[0] ? v->message : rpl_strerror(err));
		c->unreadable++;
		return err;
	}
	c->verdicts[v->kind]++;
	if (v->kind == RPL_VERDICT_MALFORMED) /* it makes the exit 3: said, as an unreadable log is */
		snprintf(message, cap, "%s", v->message);
	if (v->kind != RPL_VERDICT_OK)
		return 0;
	one.matches = 1;
	one.bytes = (long)v->bytes;
	brp_counts_add(c, &one);
	return 0;
}

void brp_counts_print_text(FILE *f, const struct brp_counts *c)
{
	fprintf(f, "matches            %ld\n", c->matches);
	fprintf(f, "deals              %ld\n", c->deals);
	fprintf(f, "turns              %ld\n", c->turns);
	fprintf(f, "decisions          %ld\n", c->actions);
	fprintf(f, "bytes              %ld\n", c->bytes);
	if (c->actions)
		fprintf(f, "bytes/decision     %.3f (%.2f bits)\n", (double)c->bytes / (double)c->actions,
		        8.0 * (double)c->bytes / (double)c->actions);
	fprintf(f, "pile taken         %ld\n", c->pile_taken);
	fprintf(f, "pile frozen        %ld\n", c->pile_frozen);
	fprintf(f, "first-card rejects %ld\n", c->rejects);
	fprintf(f, "morto direct       %ld\n", c->morto_direct);
	fprintf(f, "morto indirect     %ld\n", c->morto_indirect);
	fprintf(f, "morto to stock     %ld\n", c->morto_to_stock);
	fprintf(f, "ended going out    %ld\n", c->ended_out);
	fprintf(f, "ended stock        %ld\n", c->ended_stock);
	for (int k = 1; k < RPL_CANASTRA_NCAT; k++)
		fprintf(f, "canastra %-9s %ld\n", rpl_canastra_name(k), c->canastras[k]);
	fprintf(f, "vulnerable opening %ld\n", c->vulnerable_open);
	for (int k = 1; k <= RPL_VERDICT_UNTRUSTED; k++)
		if (c->verdicts[k])
			fprintf(f, "not counted: %s %ld\n", rpl_verdict_name(k), c->verdicts[k]);
}

void brp_counts_print_json(FILE *f, const struct brp_counts *c)
{
	fprintf(f, "{\"matches\":%ld,\"deals\":%ld,\"turns\":%ld,\"decisions\":%ld,\"bytes\":%ld,", c->matches, c->deals,
	        c->turns, c->actions, c->bytes);
	fprintf(f, "\"bytes_per_decision\":%.4f,", c->actions ? (double)c->bytes / (double)c->actions : 0.0);
	fprintf(f,
	        "\"pile_taken\":%ld,\"pile_frozen\":%ld,\"rejects\":%ld,\"morto_direct\":%ld,\"morto_indirect\":%ld,"
	        "\"morto_to_stock\":%ld,\"ended_out\":%ld,\"ended_stock\":%ld,\"vulnerable_open\":%ld,",
	        c->pile_taken, c->pile_frozen, c->rejects, c->morto_direct, c->morto_indirect, c->morto_to_stock,
	        c->ended_out, c->ended_stock, c->vulnerable_open);
	fputs("\"canastras\":{", f);
	for (int k = 1; k < RPL_CANASTRA_NCAT; k++)
		fprintf(f, "%s\"%s\":%ld", k > 1 ? "," : "", rpl_canastra_name(k), c->canastras[k]);
	fputs("},\"verdicts\":{", f);
	for (int k = 0; k <= RPL_VERDICT_UNTRUSTED; k++)
		fprintf(f, "%s\"%s\":%ld", k ? "," : "", rpl_verdict_name(k), c->verdicts[k]);
	fputs("}}", f);
}

int brp_counts_status(const struct brp_counts *c, int unreadable_dirs)
{
	if (c->unreadable || c->verdicts[RPL_VERDICT_MALFORMED] || unreadable_dirs)
		return BRP_EXIT_FAIL;
	if (c->verdicts[RPL_VERDICT_ILLEGAL] || c->verdicts[RPL_VERDICT_MISMATCH] || c->verdicts[RPL_VERDICT_INCOMPLETE] ||
	    c->verdicts[RPL_VERDICT_TAMPERED] || c->verdicts[RPL_VERDICT_UNTRUSTED])
		return BRP_EXIT_NO;
	return BRP_EXIT_OK;
}

char **brp_corpus_args(const char *cmd, const char **logs_v, int logs, int argc, char **argv, int first, int *nargs)
{
	char **args;

	*nargs = logs + argc - first;
	if (!(args = calloc((size_t)*nargs + 1, sizeof(char *)))) {
		brp_error(cmd, "out of memory");
		return NULL;
	}
	memcpy(args, logs_v, (size_t)logs * sizeof(char *));
	memcpy(args + logs, argv + first, (size_t)(argc - first) * sizeof(char *));
	return args;
}

int brp_corpus_read(const char *cmd, struct brp_source **src, int nargs, char **args, const struct brp_batch *b,
                    int stdin_first, struct brp_progress *prog, size_t slot_size, brp_job_fn job, brp_out_fn out,
                    void *ud)
{
	int rc;

	if (brp_source_new(src, cmd, nargs, args, b->list) < 0)
		return BRP_EXIT_FAIL;
	if (brp_source_stdin_log(*src, stdin_first) < 0)
		return BRP_EXIT_USAGE; /* standard input twice: the command line is wrong */
	brp_progress_start(prog, cmd, "logs", b->quiet, 0);
	if (prog->on && !stdin_first) /* a total to count towards, on a terminal only */
		prog->total = brp_source_total(nargs, args, b->list);
	rc = brp_pool_run(cmd, *src, b->jobs, slot_size, job, out, NULL, ud);
	brp_progress_end(prog);
	if (rc < 0)
		return BRP_EXIT_FAIL;
	if (brp_source_count(*src) == 0 && brp_source_unreadable(*src))
		return BRP_EXIT_FAIL; /* a directory that could not be walked, said */
	if (brp_source_count(*src) == 0) {
		brp_error(cmd, "no .brp log found in the arguments");
		return BRP_EXIT_USAGE;
	}
	return 0;
}
