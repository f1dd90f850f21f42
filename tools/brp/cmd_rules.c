/* brp rules: print a rule profile, every parameter with its value, meaning and source. */
#include "brp.h"

#include <stdlib.h>
#include <string.h>

static const char *const name = "rules";

static void usage(FILE *f)
{
	fputs("Usage: brp rules [OPTION]... [PROFILE]\n"
	      "Print the parameters of a rule profile (kzv, stbl or aberto; default stbl):\n"
	      "name, value, meaning and [source]. Overridden values are marked '*'.\n"
	      "\n"
	      "  -r, --rules PROFILE   the profile, as in the other commands (the same as PROFILE)\n"
	      "  -s, --set NAME=VALUE  override a parameter (repeatable)\n"
	      "      --json            print one JSON object {\"profile\":..., \"params\":{...}}\n"
	      "  -h, --help            print this help and exit\n"
	      "\n"
	      "Exit status: 0 printed, 2 an unknown profile or parameter, a value out of\n"
	      "range, or a usage error, 3 out of memory or the output cannot be written.\n",
	      f);
}

/* Every parameter must have info and a value: checked before printing anything. */
static int check_params(const rpl_rules *r)
{
	size_t count = rpl_rules_param_count(), i;
	char value[64];
	int v;

	for (i = 0; i < count; i++) {
		const rpl_param_info *p = rpl_rules_param_info(i);
		if (!p || !p->name || rpl_rules_get(r, p->name, value, sizeof value) < 0 ||
		    rpl_rules_get_id(r, p->id, &v) < 0) {
			brp_error(name, "the library has no value for parameter #%zu", i);
			return -1;
		}
	}
	return 0;
}

static void print_plain(const rpl_rules *r)
{
	size_t count = rpl_rules_param_count(), i, wname = 0, wvalue = 0;
	int overridden = 0;
	char value[64];

	for (i = 0; i < count; i++) {
		const rpl_param_info *p = rpl_rules_param_info(i);
		(void)rpl_rules_get(r, p->name, value, sizeof value); /* checked by check_params */
		if (strlen(p->name) > wname)
			wname = strlen(p->name);
		if (strlen(value) > wvalue)
			wvalue = strlen(value);
		overridden += rpl_rules_is_override(r, p->id) == 1;
	}

	printf("Rule profile %s", rpl_rules_profile(r));
	if (overridden)
		printf(", %d overridden (marked *)", overridden);
	printf(": %zu parameters\n", count);
	for (i = 0; i < count; i++) {
		const rpl_param_info *p = rpl_rules_param_info(i);
		(void)rpl_rules_get(r, p->name, value, sizeof value);
		printf("%c %-*s  %-*s  %s [%s]\n", rpl_rules_is_override(r, p->id) == 1 ? '*' : ' ', (int)wname, p->name,
		       (int)wvalue, value, p->meaning ? p->meaning : "", p->source ? p->source : "");
	}
}

static void print_json(const rpl_rules *r)
{
	size_t count = rpl_rules_param_count(), i;

	fputs("{\"profile\":", stdout);
	brp_json_string(stdout, rpl_rules_profile(r));
	fputs(",\"params\":{", stdout);
	for (i = 0; i < count; i++) {
		const rpl_param_info *p = rpl_rules_param_info(i);
		char text[64];
		int v = 0;

		/* checked by check_params */
		(void)rpl_rules_get_id(r, p->id, &v);
		(void)rpl_rules_get(r, p->name, text, sizeof text);
		if (i > 0)
			fputc(',', stdout);
		brp_json_string(stdout, p->name);
		fputc(':', stdout);
		switch (p->kind) {
		case RPL_PARAM_BOOL: fputs(v ? "true" : "false", stdout); break;
		case RPL_PARAM_INT: printf("%d", v); break;
		default: brp_json_string(stdout, text); break;
		}
	}
	fputs("}}\n", stdout);
}

int cmd_rules(int argc, char **argv)
{
	static const struct brp_opt opts[] = {
		BRP_OPT_SET, BRP_OPT_JSON_ROW, BRP_OPT_RULES, BRP_OPT_HELP, BRP_OPT_END,
	};
	struct brp_getopt g;
	struct brp_rules_opts ro = { 0 };
	rpl_rules *r = NULL;
	int json = 0, rc = BRP_EXIT_USAGE, c, first;
	const char *profile = NULL;

	brp_getopt_init(&g, name, opts, argc, argv);
	while ((c = brp_getopt_next(&g)) != -1) {
		if (c == BRP_OPT_BAD)
			goto cleanup;
		if ((first = brp_rules_option(&g, c, &ro)) != 0) {
			if (first != 1) {
				rc = first;
				goto cleanup;
			}
			continue;
		}
		switch (c) {
		case BRP_OPT_JSON: json = 1; break;
		case 'h':
			usage(stdout);
			rc = BRP_EXIT_OK;
			goto cleanup;
		}
	}
	first = brp_getopt_index(&g);
	if (argc - first > 1 || (ro.profile && argc - first == 1)) {
		brp_error(name, "one profile at most, got '%s' and '%s'", ro.profile ? ro.profile : argv[first],
		          argv[argc - 1]);
		goto cleanup;
	}
	profile = first < argc ? argv[first] : ro.profile;
	if ((rc = brp_rules_make(name, profile, ro.sets, ro.nsets, &r)) != 0)
		goto cleanup;
	rc = BRP_EXIT_FAIL;
	if (check_params(r) < 0)
		goto cleanup;
	if (json)
		print_json(r);
	else
		print_plain(r);
	rc = BRP_EXIT_OK;
cleanup:
	rpl_rules_free(r);
	brp_rules_opts_free(&ro);
	return rc;
}
