/* brp rules: print a rule profile, every parameter with its value, meaning and source. */
#include "brp.h"

#include <getopt.h>
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
	      "  -h, --help            print this help and exit\n", f);
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
		printf("%c %-*s  %-*s  %s [%s]\n", rpl_rules_is_override(r, p->id) == 1 ? '*' : ' ',
		       (int)wname, p->name, (int)wvalue, value, p->meaning ? p->meaning : "",
		       p->source ? p->source : "");
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
	static const struct option longopts[] = {
		{ "set", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'J' },
		{ "rules", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	rpl_rules *r = NULL;
	char **sets = NULL;
	int nsets = 0, json = 0, rc = BRP_EXIT_USAGE, c;
	const char *profile = NULL, *profile_opt = NULL;

	sets = calloc((size_t)argc, sizeof *sets);
	if (!sets) {
		brp_error(name, "out of memory");
		goto cleanup;
	}
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":r:s:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's': sets[nsets++] = optarg; break;
		case 'J': json = 1; break;
		case 'r':
			if (profile_opt) {
				brp_error(name, "--rules given twice");
				goto cleanup;
			}
			profile_opt = optarg;
			break;
		case 'h':
			usage(stdout);
			rc = BRP_EXIT_OK;
			goto cleanup;
		default:
			rc = brp_bad_option(name, c, argv);
			goto cleanup;
		}
	}
	if (argc - optind > 1 || (profile_opt && argc - optind == 1)) {
		brp_error(name, "one profile at most, got '%s' and '%s'", profile_opt ? profile_opt : argv[optind],
		          argv[argc - 1]);
		goto cleanup;
	}
	if (optind < argc)
		profile = argv[optind];
	else if (profile_opt)
		profile = profile_opt;
	if (brp_rules_make(name, profile, sets, nsets, &r) < 0)
		goto cleanup;
	if (check_params(r) < 0)
		goto cleanup;
	if (json)
		print_json(r);
	else
		print_plain(r);
	rc = BRP_EXIT_OK;
cleanup:
	rpl_rules_free(r);
	free(sets);
	return rc;
}
