/*
 * The text notation's writer (rpl_notation_write, docs/notation.md): a log
 * read event by event into the canonical text, one turn a line. It reads
 * a log through the reader and needs nothing of the parser.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libreplay/notation.h"

struct out {
	int (*write)(void *ud, const char *s, size_t n);
	void *ud;
	int err;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->err == 0 && n > 0)
		o->err = o->write(o->ud, s, n);
	if (o->err > 0)
		o->err = RPL_EIO;
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void printf_(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void printf_(struct out *o, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (k > 0)
		put(o, buf, (size_t)k < sizeof buf ? (size_t)k : sizeof buf - 1);
}

/* A tag value in quotes: printable ASCII as is, '"' and '\' escaped, any other byte as \xHH. */
static void put_string(struct out *o, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)(s ? s : "");
	size_t run = 0;

	put(o, "\"", 1);
	for (;; u++) {
		char esc[4];
		if (*u >= 0x20 && *u < 0x7f && *u != '"' && *u != '\\') {
			run++;
			continue;
		}
		put(o, (const char *)u - run, run);
		run = 0;
		if (!*u)
			break;
		esc[0] = '\\';
		if (*u == '"' || *u == '\\') {
			esc[1] = (char)*u;
			put(o, esc, 2);
		} else {
			esc[1] = 'x';
			esc[2] = hex[*u >> 4];
			esc[3] = hex[*u & 15];
			put(o, esc, 4);
		}
	}
	put(o, "\"", 1);
}

static void put_cards(struct out *o, const rpl_card *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		put(o, " ", 1);
		puts_(o, rpl_card_name(c[i]));
	}
	put(o, "\n", 1);
}

static void put_hex(struct out *o, const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		char two[2] = { digits[p[i] >> 4], digits[p[i] & 15] };
		put(o, two, 2);
	}
}

static void write_header(struct out *o, const rpl_match_info *info, int version)
{
	char val[64];
	size_t n = rpl_rules_param_count();

	puts_(o, "[Notation \"1\"]\n[Profile ");
	put_string(o, rpl_rules_profile(info->rules));
	puts_(o, "]\n");
	for (size_t i = 0; i < n; i++) {
		const rpl_param_info *pi = rpl_rules_param_info(i);
		if (!pi || !rpl_rules_is_override(info->rules, pi->id))
			continue;
		if (rpl_rules_get(info->rules, pi->name, val, sizeof val) < 0)
			continue;
		puts_(o, "[Rule ");
		put_string(o, pi->name);
		put(o, " ", 1);
		put_string(o, val);
		puts_(o, "]\n");
	}
	printf_(o, "[Players \"%d\"]\n", info->nplayers);
	for (int s = 0; s < info->nplayers && s < RPL_MAX_SEATS; s++) {
		if (!info->players[s] || !info->players[s][0])
			continue;
		printf_(o, "[Seat \"%d\" ", s);
		put_string(o, info->players[s]);
		puts_(o, "]\n");
	}
	printf_(o, "[FirstDealer \"%d\"]\n", info->first_dealer);
	if (info->start_time != 0) {
		rpl_notation_time_format(info->start_time, val, sizeof val); /* checked by the caller */
		printf_(o, "[Start \"%s\"]\n", val);
	}
	for (size_t i = 0; i < info->nmeta; i++) {
		puts_(o, "[Meta ");
		put_string(o, info->meta_keys[i]);
		put(o, " ", 1);
		put_string(o, info->meta_values[i]);
		puts_(o, "]\n");
	}
	if (info->commitment) {
		puts_(o, "[Commitment \"");
		put_hex(o, info->commitment, RPL_DEAL_COMMIT_SIZE);
		puts_(o, "\"]\n");
		if (info->commit_version == RPL_COMMIT_V1) /* format version 3's protocol; the current one goes unsaid */
			puts_(o, "[CommitmentVersion \"1\"]\n");
		for (int i = 0; i < info->nplayer_seeds; i++) {
			puts_(o, "[PlayerSeed \"");
			put_hex(o, info->player_seeds[i], RPL_DEAL_SEED_SIZE);
			puts_(o, "\"]\n");
		}
	}
	/*
	 * a version other than the one the text's import would write (3 goes
	 * with [CommitmentVersion "1"], 6 with a commitment of protocol 2, 7
	 * with a match dealt freely): the import writes it again
	 */
	if (version == 2 || version == 4 || version == 5 || (version == 6 && !info->commitment))
		printf_(o, "[FormatVersion \"%d\"]\n", version);
}

static void seterr(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

int rpl_notation_write(rpl_reader *rd, int (*write)(void *ud, const char *s, size_t n), void *ud, char *err,
                       size_t errlen)
{
	struct out o = { write, ud, 0 };
	const rpl_match_info *info;
	rpl_event *ev = NULL;
	char text[128], tbuf[32];
	int rc = 0, open = 0, deal = 0, turn = 0, seat = -1, nplayers;
	size_t inline_n = 0;

	if (err && errlen)
		err[0] = '\0';
	if (!rd || !write)
		return RPL_EINVAL;
	info = rpl_reader_info(rd);
	if (!info || !info->rules)
		return RPL_EINVAL;
	nplayers = info->nplayers;
	if (info->start_time != 0 && rpl_notation_time_format(info->start_time, tbuf, sizeof tbuf) < 0) {
		seterr(err, errlen, "the start time %lld is outside the years 0000 to 9999", (long long)info->start_time);
		return RPL_ELIMIT;
	}
	ev = malloc(sizeof *ev);
	if (!ev) {
		seterr(err, errlen, "out of memory");
		return RPL_ENOMEM;
	}
	write_header(&o, info, rpl_reader_format_version(rd));
	while (o.err == 0 && (rc = rpl_reader_next(rd, ev)) > 0) {
		if (ev->kind == RPL_EV_ACTION) {
			/* one line per turn (the codec's turn count); a very long turn goes on on the next line */
			if (open &&
			    (ev->deal != deal || ev->turn != turn || ev->seat != seat || inline_n == RPL_NOTATION_MAX_ACTIONS)) {
				put(&o, "\n", 1);
				open = 0;
			}
			rpl_action_format(&ev->action, text, sizeof text);
			if (!open) {
				printf_(&o, "%d. %d: %s", ev->turn, ev->seat, text);
				open = 1;
				inline_n = 0;
				deal = ev->deal;
				turn = ev->turn;
				seat = ev->seat;
			} else {
				put(&o, ", ", 2);
				puts_(&o, text);
			}
			inline_n++;
			continue;
		}
		if (open) {
			put(&o, "\n", 1);
			open = 0;
		}
		switch (ev->kind) {
		case RPL_EV_DEAL:
			printf_(&o, "\ndeal %d\n", ev->deal);
			for (int s = 0; s < nplayers; s++) {
				printf_(&o, "hand %d:", s);
				put_cards(&o, ev->layout.hand[s], RPL_HAND_SIZE);
			}
			for (int m = 0; m < 2; m++) {
				printf_(&o, "morto %d:", m);
				put_cards(&o, ev->layout.morto[m], RPL_MORTO_SIZE);
			}
			puts_(&o, "stock:");
			put_cards(&o, ev->layout.stock, (size_t)RPL_STOCK_SIZE(nplayers));
			break;
		case RPL_EV_CLAIM:
			if (ev->deal == 0)
				printf_(&o, "claim match: %ld %ld\n", (long)ev->score[0], (long)ev->score[1]);
			else
				printf_(&o, "claim %d: %ld %ld\n", ev->deal, (long)ev->score[0], (long)ev->score[1]);
			break;
		case RPL_EV_END: puts_(&o, ev->recovered ? "end recovered\n" : "end\n"); break;
		case RPL_EV_REVEAL:
			puts_(&o, "\nseed ");
			put_hex(&o, ev->seed, RPL_DEAL_SEED_SIZE);
			put(&o, "\n", 1);
			break;
		default: break;
		}
	}
	if (open)
		put(&o, "\n", 1);
	if (o.err < 0) {
		rc = o.err;
		seterr(err, errlen, "cannot write the text: %s", rpl_strerror(rc));
	} else if (rc < 0) {
		seterr(err, errlen, "%s", rpl_reader_errmsg(rd)); /* it says the byte */
	} else {
		rc = 0;
	}
	free(ev);
	return rc;
}
