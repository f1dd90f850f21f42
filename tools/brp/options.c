/*
 * brp: the option layer (see brp.h). One table of options a command, one
 * parser a kind of value, one message form for a refused value, and the
 * options several commands share read by one handler each.
 */
#include "brp.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void brp_getopt_init(struct brp_getopt *g, const char *cmd, const struct brp_opt *opts, int argc, char **argv)
{
	size_t k = 0;
	int i;

	memset(g, 0, sizeof(*g));
	g->cmd = cmd;
	g->opts = opts;
	g->argc = argc;
	g->argv = argv;
	g->shorts[k++] = ':'; /* a missing value is ':', told apart from an unknown option */
	for (i = 0; opts[i].name; i++) {
		/* a table longer than BRP_OPT_MAX is a programming error: cut, and the rest unknown */
		if (i == BRP_OPT_MAX)
			break;
		g->table[i].name = opts[i].name;
		g->table[i].has_arg = opts[i].arg ? required_argument : no_argument;
		g->table[i].flag = NULL;
		g->table[i].val = opts[i].val;
		if (opts[i].val < 128) {
			g->shorts[k++] = (char)opts[i].val;
			if (opts[i].arg)
				g->shorts[k++] = ':';
		}
	}
	g->n = i;
	g->shorts[k] = '\0';
	memset(&g->table[i], 0, sizeof(g->table[i]));
	optind = 0; /* glibc: start afresh (brp help CMD parses a second command line) */
	opterr = 0;
}

/* The row of option val, or NULL. */
static int find(const struct brp_getopt *g, int val)
{
	for (int i = 0; i < g->n; i++)
		if (g->opts[i].val == val)
			return i;
	return -1;
}

int brp_getopt_next(struct brp_getopt *g)
{
	int c = getopt_long(g->argc, g->argv, g->shorts, g->table, NULL), i;

	g->arg = NULL;
	g->cur = NULL;
	if (c == -1)
		return -1;
	if (c == '?' || c == ':' || (i = find(g, c)) < 0) {
		brp_bad_option(g->cmd, c, g->argv);
		return BRP_OPT_BAD;
	}
	g->cur = &g->opts[i];
	g->arg = optarg;
	if (!g->opts[i].many) {
		for (int k = 0; k < g->n; k++) {
			if (!g->seen[k])
				continue;
			/* a value given twice is refused; a flag given twice says the same thing twice, and passes */
			if (k == i && g->opts[i].arg) {
				brp_error(g->cmd, "--%s given twice: it takes one value (see brp %s --help)", g->opts[i].name, g->cmd);
				return BRP_OPT_BAD;
			}
			if (k != i && g->opts[i].group && g->opts[k].group == g->opts[i].group) {
				brp_error(g->cmd, "--%s and --%s: give one of them (see brp %s --help)", g->opts[k].name,
				          g->opts[i].name, g->cmd);
				return BRP_OPT_BAD;
			}
		}
		g->seen[i] = 1;
	}
	return c;
}

int brp_getopt_index(const struct brp_getopt *g)
{
	(void)g;
	return optind;
}

const char *brp_opt_name(const struct brp_getopt *g)
{
	return g->cur ? g->cur->name : "";
}

int brp_opt_refuse(const struct brp_getopt *g, const char *what)
{
	brp_error(g->cmd, "--%s takes %s, not '%s'", brp_opt_name(g), what, g->arg ? g->arg : "");
	return BRP_EXIT_USAGE;
}

/* A decimal number with digits only, into *out; -1 when it is not one or does not fit. */
static int digits(const char *s, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1; /* no sign, no blank, not empty */
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end || errno)
		return -1;
	*out = v;
	return 0;
}

int brp_opt_long(const struct brp_getopt *g, long lo, long hi, long *out)
{
	unsigned long long v;
	char what[96];

	if (digits(g->arg, &v) < 0 || v < (unsigned long long)lo || v > (unsigned long long)hi) {
		snprintf(what, sizeof(what), "a number from %ld to %ld", lo, hi);
		return brp_opt_refuse(g, what);
	}
	*out = (long)v;
	return 0;
}

int brp_opt_int(const struct brp_getopt *g, int lo, int hi, int *out)
{
	long v;
	int rc = brp_opt_long(g, lo, hi, &v);

	if (rc == 0)
		*out = (int)v;
	return rc;
}

int brp_opt_u64(const struct brp_getopt *g, uint64_t *out)
{
	unsigned long long v;

	if (digits(g->arg, &v) < 0)
		return brp_opt_refuse(g, "a number from 0 to 18446744073709551615");
	*out = (uint64_t)v;
	return 0;
}

/* "a, b or c" of names[0..], into buf. */
static void word_list(char *buf, size_t size, const char *const *names)
{
	size_t n = 0, len = 0;

	buf[0] = '\0';
	while (names[n])
		n++;
	for (size_t i = 0; i < n; i++) {
		int w = snprintf(buf + len, size - len, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", names[i]);
		if (w < 0 || (size_t)w >= size - len)
			return; /* cut: still a usable hint */
		len += (size_t)w;
	}
}

int brp_opt_choice(const struct brp_getopt *g, const char *const *names, int *out)
{
	char what[256];

	for (int i = 0; names[i]; i++)
		if (strcmp(g->arg, names[i]) == 0) {
			*out = i;
			return 0;
		}
	word_list(what, sizeof(what), names);
	return brp_opt_refuse(g, what);
}

int brp_opt_profile(const struct brp_getopt *g, const char **out)
{
	const char *const *names = rpl_rules_profiles();
	char what[256];

	/* in any case, as rpl_rules_new and brp rules PROFILE take it: one rule for a profile's name */
	for (int i = 0; names[i]; i++)
		if (strcasecmp(g->arg, names[i]) == 0) {
			*out = names[i];
			return 0;
		}
	word_list(what, sizeof(what), names);
	return brp_opt_refuse(g, what);
}

int brp_opt_path(const struct brp_getopt *g, const char **out)
{
	if (!g->arg || !*g->arg)
		return brp_opt_refuse(g, "a path");
	*out = g->arg;
	return 0;
}

int brp_opt_pair(const struct brp_getopt *g, const char *what, const char **value)
{
	const char *eq = strchr(g->arg, '=');

	if (!eq || eq == g->arg)
		return brp_opt_refuse(g, what);
	*value = eq + 1;
	return 0;
}

int brp_opt_hex(const struct brp_getopt *g, uint8_t *out, size_t n)
{
	char what[64];

	if (brp_parse_hex(g->arg, out, n) < 0) {
		snprintf(what, sizeof(what), "%zu hex digits", 2 * n);
		return brp_opt_refuse(g, what);
	}
	return 0;
}

int brp_batch_option(const struct brp_getopt *g, int c, struct brp_batch *b)
{
	switch (c) {
	case 'j': return brp_opt_int(g, 1, 256, &b->jobs) ? BRP_EXIT_USAGE : 1;
	case BRP_OPT_LIST: return brp_opt_path(g, &b->list) ? BRP_EXIT_USAGE : 1;
	case 'q': b->quiet = 1; return 1;
	case BRP_OPT_TIMEOUT: return brp_opt_long(g, 0, 86400, &b->timeout) ? BRP_EXIT_USAGE : 1;
	default: return 0;
	}
}

int brp_rules_opts_add(const char *cmd, struct brp_rules_opts *r, const char *set)
{
	if (r->nsets == r->cap) {
		int cap = r->cap ? r->cap * 2 : 8;
		const char **p = realloc(r->sets, (size_t)cap * sizeof(*p));
		if (!p) {
			brp_error(cmd, "out of memory");
			return BRP_EXIT_FAIL;
		}
		r->sets = p;
		r->cap = cap;
	}
	r->sets[r->nsets++] = set;
	return 0;
}

int brp_rules_option(const struct brp_getopt *g, int c, struct brp_rules_opts *r)
{
	const char *value;
	int rc;

	switch (c) {
	case 'r': return brp_opt_profile(g, &r->profile) ? BRP_EXIT_USAGE : 1;
	case 's':
		if (brp_opt_pair(g, "NAME=VALUE", &value))
			return BRP_EXIT_USAGE;
		rc = brp_rules_opts_add(g->cmd, r, g->arg);
		return rc ? rc : 1;
	default: return 0;
	}
}

int brp_table_option(const struct brp_getopt *g, int c, struct brp_table_opts *t)
{
	static const char *const counts[] = { "2", "4", NULL };
	static const char *const seat_form = "I=NAME with I a seat from 0 to 3";
	const char *value;
	int s;

	switch (c) {
	case 'p':
		if (brp_opt_choice(g, counts, &t->players) != 0)
			return BRP_EXIT_USAGE;
		t->players = t->players ? 4 : 2;
		break;
	case BRP_OPT_SEAT:
		if (brp_opt_pair(g, seat_form, &value) != 0)
			return BRP_EXIT_USAGE;
		if (value - g->arg != 2 || g->arg[0] < '0' || g->arg[0] > '3')
			return brp_opt_refuse(g, seat_form);
		s = g->arg[0] - '0';
		if (t->name[s]) {
			brp_error(g->cmd, "--seat %d given twice: a seat has one name", s);
			return BRP_EXIT_USAGE;
		}
		t->name[s] = value;
		break;
	case BRP_OPT_FIRST_DEALER:
		/* checked against --players once both are known */
		if (brp_opt_int(g, 0, RPL_MAX_SEATS - 1, &t->first_dealer) != 0)
			return BRP_EXIT_USAGE;
		t->dealer_given = 1;
		break;
	default: return 0;
	}
	t->given = 1;
	return 1;
}

int brp_table_finish(const char *cmd, struct brp_table_opts *t)
{
	if (!t->dealer_given) {
		t->first_dealer = t->players - 1;
	} else if (t->first_dealer >= t->players) {
		brp_error(cmd, "--first-dealer %d: there is no seat %d with %d players", t->first_dealer, t->first_dealer,
		          t->players);
		return BRP_EXIT_USAGE;
	}
	for (int s = t->players; s < RPL_MAX_SEATS; s++)
		if (t->name[s]) {
			brp_error(cmd, "--seat %d: there is no seat %d with %d players", s, s, t->players);
			return BRP_EXIT_USAGE;
		}
	return 0;
}

void brp_rules_opts_free(struct brp_rules_opts *r)
{
	free(r->sets);
	memset(r, 0, sizeof(*r));
}
