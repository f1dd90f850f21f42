/* brp meld: check whether cards laid together form one new meld, and how. */
#include "brp.h"

#include <stdlib.h>
#include <string.h>

static const char *const name = "meld";

static void usage(FILE *f)
{
	fputs("Usage: brp meld [OPTION]... CARD...\n"
	      "Check whether the cards, laid down together, form one new meld, and show\n"
	      "where each card sits (a wild with the card it stands for). Cards are\n"
	      "separate arguments: 8d 9d JK, 10h (or Th), Qs, JK for a joker.\n"
	      "\n"
	      "  -r, --rules PROFILE   rule profile: kzv, stbl or aberto (default stbl)\n"
	      "  -s, --set NAME=VALUE  override a rule parameter (repeatable; see brp rules)\n"
	      "  -e, --end low|high    where a wild that could sit at either end goes\n"
	      "                        (default: the profile's wild_end_default)\n"
	      "      --symbols         write suits as the symbols \xe2\x99\xa3 \xe2\x99\xa6 \xe2\x99\xa5 \xe2\x99\xa0 "
	      "(plain output only)\n"
	      "      --json            print one JSON object instead of a line\n"
	      "  -h, --help            print this help and exit\n"
	      "\n"
	      "Exit status: 0 a valid meld, 1 not a meld, 2 a usage error or a bad card,\n"
	      "3 out of memory.\n",
	      f);
}

static void print_card(rpl_card c, unsigned flags)
{
	char buf[16];

	rpl_card_format(c, buf, sizeof buf, flags);
	fputs(buf, stdout);
}

static void print_plain(const rpl_meld_check_result *res, unsigned flags)
{
	const rpl_meld_info *m = &res->meld;
	int i;

	if (!res->valid) {
		printf("invalid: %s [%s]\n", res->reason, rpl_rule_name(res->rule));
		return;
	}
	fputs("valid:", stdout);
	for (i = 0; i < m->length; i++) {
		fputc(' ', stdout);
		print_card(m->card[i], flags);
		if (m->wild[i]) {
			fputc('(', stdout);
			print_card(rpl_meld_natural(m->suit, m->lo + i), flags);
			fputc(')', stdout);
		}
	}
	if (m->category != RPL_CANASTRA_NONE)
		printf(" - %s canastra, ", rpl_canastra_name(m->category));
	else
		printf(" - %s, ", m->clean ? "clean" : "dirty");
	printf("%d cards, %d points", m->length, m->points);
	if (m->category != RPL_CANASTRA_NONE)
		printf(", bonus %d", m->bonus);
	fputc('\n', stdout);
}

static void print_json(const rpl_meld_check_result *res)
{
	const rpl_meld_info *m = &res->meld;
	int i;

	if (!res->valid) {
		fputs("{\"valid\":false,\"reason\":", stdout);
		brp_json_string(stdout, res->reason);
		fputs(",\"rule\":", stdout);
		brp_json_string(stdout, rpl_rule_name(res->rule));
		fputs("}\n", stdout);
		return;
	}
	printf("{\"valid\":true,\"clean\":%s,\"length\":%d,\"points\":%d,\"bonus\":%d,\"category\":",
	       m->clean ? "true" : "false", m->length, m->points, m->bonus);
	brp_json_string(stdout, rpl_canastra_name(m->category));
	fputs(",\"arrangement\":[", stdout);
	for (i = 0; i < m->length; i++) {
		printf("%s{\"pos\":%d,\"card\":", i ? "," : "", m->lo + i);
		brp_json_string(stdout, rpl_card_name(m->card[i]));
		printf(",\"wild\":%s", m->wild[i] ? "true" : "false");
		if (m->wild[i]) {
			fputs(",\"as\":", stdout);
			brp_json_string(stdout, rpl_card_name(rpl_meld_natural(m->suit, m->lo + i)));
		}
		fputc('}', stdout);
	}
	fputs("]}\n", stdout);
}

/* The result must describe a meld we can print; anything else is a library bug, said so. */
static int check_result(const rpl_meld_check_result *res)
{
	const rpl_meld_info *m = &res->meld;

	if (!res->valid)
		return 0;
	if (m->length < 1 || m->length > 14 || m->lo < 1 || m->hi > 14 || m->hi - m->lo + 1 != m->length || m->suit < 0 ||
	    m->suit > 3) {
		brp_error(name, "the library returned an impossible arrangement (lo %d, hi %d, length %d)", m->lo, m->hi,
		          m->length);
		return -1;
	}
	return 0;
}

int cmd_meld(int argc, char **argv)
{
	enum { OPT_SYMBOLS = BRP_OPT_OWN };
	static const struct brp_opt opts[] = {
		BRP_OPT_RULES, BRP_OPT_SET, { "end", 1, 'e', 0, 0 }, { "symbols", 0, OPT_SYMBOLS, 0, 0 }, BRP_OPT_JSON_ROW,
		BRP_OPT_HELP,  BRP_OPT_END,
	};
	static const char *const ends[] = { "low", "high", "default", NULL };
	static const int end_of[] = { RPL_END_LOW, RPL_END_HIGH, RPL_END_DEFAULT };
	struct brp_getopt g;
	struct brp_rules_opts ro = { 0 };
	rpl_meld_check_result res;
	rpl_rules *r = NULL;
	rpl_card *cards = NULL;
	unsigned flags = 0;
	int json = 0, end = RPL_END_DEFAULT, rc = BRP_EXIT_USAGE, c, err, k, i;
	size_t n = 0;

	brp_getopt_init(&g, name, opts, argc, argv);
	while ((c = brp_getopt_next(&g)) != -1) {
		if (c == BRP_OPT_BAD)
			goto cleanup;
		if ((k = brp_rules_option(&g, c, &ro)) != 0) {
			if (k != 1) {
				rc = k;
				goto cleanup;
			}
			continue;
		}
		switch (c) {
		case 'e':
			if (brp_opt_choice(&g, ends, &k) != 0)
				goto cleanup;
			end = end_of[k];
			break;
		case OPT_SYMBOLS: flags |= RPL_CARD_SYMBOLS; break;
		case BRP_OPT_JSON: json = 1; break;
		case 'h':
			usage(stdout);
			rc = BRP_EXIT_OK;
			goto cleanup;
		}
	}
	i = brp_getopt_index(&g);
	if (i == argc) {
		brp_error(name, "no cards given (see brp meld --help)");
		goto cleanup;
	}
	if (!(cards = calloc((size_t)argc, sizeof *cards))) {
		brp_error(name, "out of memory");
		rc = BRP_EXIT_FAIL;
		goto cleanup;
	}
	for (; i < argc; i++) {
		const char *tok = argv[i];
		if (rpl_card_parse(tok, strlen(tok), &cards[n]) < 0) {
			brp_error(name, "not a card: '%s'", tok);
			goto cleanup;
		}
		n++;
	}
	if ((rc = brp_rules_make(name, ro.profile, ro.sets, ro.nsets, &r)) != 0)
		goto cleanup;
	rc = BRP_EXIT_FAIL;
	memset(&res, 0, sizeof res);
	err = rpl_meld_check(r, cards, n, end, &res);
	if (err < 0) {
		brp_error(name, "cannot check the meld: %s", rpl_strerror(err));
		goto cleanup;
	}
	if (check_result(&res) < 0)
		goto cleanup;
	if (json)
		print_json(&res);
	else
		print_plain(&res, flags);
	rc = res.valid ? BRP_EXIT_OK : BRP_EXIT_NO;
cleanup:
	rpl_rules_free(r);
	free(cards);
	brp_rules_opts_free(&ro);
	return rc;
}
