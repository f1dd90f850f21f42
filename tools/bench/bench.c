/*
 * brp-bench: measurements for tools/bench.sh (not installed).
 *
 *   brp-bench size DIR      bytes of logs split into header, layouts and
 *                           decisions; bits a decision (BRP_BENCH_MODEL=V:
 *                           the decisions coded in version V's model)
 *   brp-bench speed DIR R   decode only vs decode + rules, in memory, R rounds
 *                           (median), single thread
 *   brp-bench decode DIR R  decode only, R rounds, untimed (for perf stat)
 *   brp-bench verify DIR R  decode + rules, R rounds, untimed
 *   brp-bench record DIR R  the recorder's cost a decision with a flush a turn
 *   brp-bench parts DIR     every byte of the logs by what it holds, a match on
 *                           average (docs/format.md 19.7: the fixed cost)
 *   brp-bench deflate DIR   the logs against a plain binary encoding of the
 *                           same match deflated at zlib level 9 (format.md 19.10)
 *   brp-bench slack DIR     what the layouts hold that the matches never use:
 *                           the order of the stock cards never drawn and of
 *                           the mortos that never became the stock, and the
 *                           takes whose stock card no later draw of their
 *                           deal shows (format.md 20.8)
 *
 * It links the library's internals (the codec) to split a log's bytes; the
 * numbers it prints are measured, never estimated.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "log/codec.h"
#include "log/format.h"
#include "libreplay/libreplay.h"

struct file {
	char *path;
	uint8_t *data;
	size_t n;
};

static struct file *files;
static size_t nfiles;

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct file *)a)->path, ((const struct file *)b)->path);
}

static void load(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t cap = 0;

	if (!d) {
		perror(dir);
		exit(2);
	}
	while ((de = readdir(d)) != NULL) {
		char path[4096];
		FILE *f;
		struct stat st;
		size_t len = strlen(de->d_name);
		if (len < 5 || strcmp(de->d_name + len - 4, ".brp") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) < 0 || !(f = fopen(path, "rb")))
			continue;
		if (nfiles == cap) {
			cap = cap ? cap * 2 : 1024;
			files = realloc(files, cap * sizeof(*files));
		}
		files[nfiles].path = strdup(path);
		files[nfiles].n = (size_t)st.st_size;
		files[nfiles].data = malloc(files[nfiles].n + 1);
		if (fread(files[nfiles].data, 1, files[nfiles].n, f) != files[nfiles].n) {
			fclose(f);
			continue;
		}
		fclose(f);
		nfiles++;
	}
	closedir(d);
	qsort(files, nfiles, sizeof(*files), by_path);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/*
 * The decision model a log is coded again with: its own version's, or, with
 * BRP_BENCH_MODEL=V in the environment, version V's (what a corpus would
 * weigh in another version's model, docs/format.md 20.4).
 */
static int model_version(const rpl_reader *rd)
{
	const char *v = getenv("BRP_BENCH_MODEL");
	return v ? atoi(v) : rpl_reader_format_version(rd);
}

/* Bytes of each part, by coding each again on its own exactly as the log does. */
static int cmd_size(void)
{
	uint64_t total = 0, layouts = 0, decisions_bytes = 0, decisions = 0, deals = 0, matches = 0;

	for (size_t i = 0; i < nfiles; i++) {
		rpl_reader *rd = NULL;
		rpl_event ev;
		struct track t;
		struct model m;
		struct buf lb = { 0 }, ab = { 0 };
		struct rc_enc le, ae;
		int open = 0, dealer = 0;
		const rpl_match_info *info;
		if (rpl_reader_open_memory(&rd, files[i].data, files[i].n) != 0) {
			rpl_reader_free(rd);
			continue;
		}
		info = rpl_reader_info(rd);
		while (rpl_reader_next(rd, &ev) == 1) {
			if (ev.kind == RPL_EV_DEAL) {
				if (open) {
					rpl__rc_enc_finish(&ae);
					decisions_bytes += ab.n;
				}
				dealer = ev.deal == 1 ? info->first_dealer : (dealer + 1) % info->nplayers;
				lb.n = 0;
				rpl__rc_enc_init(&le, &lb);
				rpl__enc_layout(&le, info->nplayers, &ev.layout);
				rpl__rc_enc_finish(&le);
				layouts += lb.n;
				rpl__track_deal(&t, info->nplayers, dealer, &ev.layout);
				if (ev.deal == 1)
					rpl__model_init(&m, model_version(rd));
				ab.n = 0;
				rpl__rc_enc_init(&ae, &ab);
				open = 1;
				deals++;
			} else if (ev.kind == RPL_EV_ACTION) {
				rpl__enc_action(&ae, &m, &t, &ev.action);
				rpl__track_apply(&t, &ev.action, NULL, 0);
				decisions++;
			}
		}
		if (open) {
			rpl__rc_enc_finish(&ae);
			decisions_bytes += ab.n;
		}
		total += files[i].n;
		matches++;
		rpl__buf_free(&lb);
		rpl__buf_free(&ab);
		rpl_reader_free(rd);
	}
	printf("matches %llu\ndeals %llu\ndecisions %llu\nbytes %llu\nlayout_bytes %llu\ndecision_bytes %llu\n",
	       (unsigned long long)matches, (unsigned long long)deals, (unsigned long long)decisions,
	       (unsigned long long)total, (unsigned long long)layouts, (unsigned long long)decisions_bytes);
	printf("bits_per_decision_stream %.3f\nbits_per_decision_file %.3f\nbytes_per_deal_file %.1f\n"
	       "layout_bytes_per_deal %.1f\n",
	       8.0 * (double)decisions_bytes / (double)decisions, 8.0 * (double)total / (double)decisions,
	       (double)total / (double)deals, (double)layouts / (double)deals);
	return 0;
}

/* ---- parts: every byte of a log by what it holds ---- */

enum part {
	P_MAGIC,
	P_FRAME,
	P_CRC,
	P_H_ENC,
	P_H_VERSION,
	P_H_PROFILE,
	P_H_PARAMS,
	P_H_SEATS,
	P_H_START,
	P_H_TEXT,
	P_H_DEALING,
	P_H_FLAGS,
	P_H_DEFLATED,
	P_DEAL_HEAD,
	P_LAYOUT,
	P_DECISIONS,
	P_MATCH_OWN,
	P_CLAIMS,
	P_END,
	P_REVEAL,
	P_SIG,
	P_OTHER,
	P_COUNT
};
static const char *const part_name[P_COUNT] = {
	"magic",
	"frames (type, length)",
	"CRC-32s",
	"header: encoding byte",
	"header: version",
	"header: profile",
	"header: rule parameters",
	"header: players, first dealer",
	"header: start time",
	"header: names and metadata (with their lengths)",
	"header: dealing (seed, commitment, seeds)",
	"header: flags",
	"header: deflate (its bytes less the raw body's)",
	"D/A: deal numbers and counts",
	"layouts",
	"decisions",
	"M: the stream's own (deal ends, claims, flags)",
	"claims (C payloads)",
	"E payload",
	"R payload",
	"signatures (s payloads)",
	"other",
};

/* A string of the header: its length's bytes and its text, counted as the players' own text. */
static void count_string(struct cursor *c, int64_t *part)
{
	size_t at = c->pos;
	uint64_t n = rpl__cur_varint(c);
	if (c->bad || n > c->n - c->pos) {
		c->bad = 1;
		return;
	}
	c->pos += (size_t)n;
	part[P_H_TEXT] += c->pos - at;
}

/* The fields of a raw header body (format.md 4, 16, 18, 19), each into its part. */
static void count_header(const uint8_t *p, size_t n, int64_t *part)
{
	struct cursor c = { p, n, 0, 0 };
	size_t at = 0;
	uint64_t version, k, nmeta;
	int players;
#define FIELD(P)                                                                                                       \
	do {                                                                                                               \
		part[P] += c.pos - at;                                                                                         \
		at = c.pos;                                                                                                    \
	} while (0)

	version = rpl__cur_varint(&c);
	FIELD(P_H_VERSION);
	if (version >= 5)
		c.pos++;
	else
		rpl__cur_varint(&c), c.pos += (size_t)c.p[c.pos - 1]; /* a short string: one length byte */
	FIELD(P_H_PROFILE);
	if (version >= 3)
		rpl__cur_varint(&c); /* the revision */
	k = rpl__cur_varint(&c);
	for (uint64_t i = 0; i < k && !c.bad; i++)
		rpl__cur_varint(&c), rpl__cur_zigzag(&c);
	FIELD(P_H_PARAMS);
	players = c.p[c.pos++];
	FIELD(P_H_SEATS);
	for (int s = 0; s < players && !c.bad; s++)
		count_string(&c, part);
	at = c.pos;
	c.pos++; /* the first dealer */
	FIELD(P_H_SEATS);
	rpl__cur_zigzag(&c);
	FIELD(P_H_START);
	nmeta = rpl__cur_varint(&c);
	FIELD(P_H_TEXT);
	for (uint64_t i = 0; i < 2 * nmeta && !c.bad; i++)
		count_string(&c, part);
	at = c.pos;
	if (version >= 3 && c.pos < c.n) {
		uint8_t dealing = c.p[c.pos++];
		if (dealing)
			c.pos += 32 + 1 + 32 * (size_t)c.p[c.pos + 32];
		FIELD(P_H_DEALING);
	}
	if (version >= 4)
		rpl__cur_varint(&c);
	FIELD(P_H_FLAGS);
	part[P_OTHER] += n - at; /* nothing, in a header that reads */
#undef FIELD
}

/*
 * A version-7 log's M stream (docs/format.md 21.3) into part: its layouts,
 * each with the cards play drew coded up front, in one stream of their own,
 * its decisions in another (version 7's model over the match), and the
 * rest of M, the stream's own symbols (each deal's flags and end, the
 * claims against the computed score); the two streams' ends (a byte or
 * two each) make that rest a little smaller than it is.
 */
static void count_match(const uint8_t *d, size_t n, uint64_t mstream, int64_t *part)
{
	rpl_reader *rd = NULL;
	rpl_event ev;
	struct buf lb = { 0 }, ab = { 0 };
	struct rc_enc le, ae;
	struct mcx lc = { &le, NULL };
	struct mmodel mm;
	struct model m;
	struct track t;
	int dealer = 0;

	if (rpl_reader_open_memory(&rd, d, n) != 0) {
		rpl_reader_free(rd);
		part[P_OTHER] += (int64_t)mstream;
		return;
	}
	rpl__rc_enc_init(&le, &lb);
	rpl__rc_enc_init(&ae, &ab);
	rpl__mmodel_init(&mm);
	rpl__model_init(&m, 7);
	while (rpl_reader_next(rd, &ev) == 1) {
		const rpl_match_info *info = rpl_reader_info(rd);
		if (ev.kind == RPL_EV_DEAL) {
			int drawn[3];
			if (rpl_reader_deal_recorded(rd, drawn) != 0)
				break;
			rpl__enc_layout_sets(&le, info->nplayers, &ev.layout);
			rpl__mx_drawn(&lc, &mm, &ev.layout, info->nplayers, drawn);
			dealer = ev.deal == 1 ? info->first_dealer : (dealer + 1) % info->nplayers;
			rpl__track_deal(&t, info->nplayers, dealer, &ev.layout);
		} else if (ev.kind == RPL_EV_ACTION) {
			rpl__enc_action(&ae, &m, &t, &ev.action);
			rpl__track_apply(&t, &ev.action, NULL, 0);
		}
	}
	rpl__rc_enc_finish(&le);
	rpl__rc_enc_finish(&ae);
	part[P_LAYOUT] += (int64_t)lb.n;
	part[P_DECISIONS] += (int64_t)ab.n;
	part[P_MATCH_OWN] += (int64_t)mstream - (int64_t)lb.n - (int64_t)ab.n;
	rpl__buf_free(&lb);
	rpl__buf_free(&ab);
	rpl_reader_free(rd);
}

/* One log's bytes into part; the layouts' bytes re-coded alone, as brp-bench size does. */
static void count_log(const uint8_t *d, size_t n, int64_t *part)
{
	size_t pos = BRP_MAGIC_LEN, sealed = 0;
	struct section s;
	char why[256];
	uint64_t layouts = 0, streams = 0, mstream = 0;
	rpl_reader *rd = NULL;
	rpl_event ev;
	struct buf lb = { 0 };
	int version = 0;

	part[P_MAGIC] += BRP_MAGIC_LEN;
	while (rpl__section_get(d, n, &pos, &s, &sealed, why, sizeof(why)) == 1) {
		part[P_FRAME] += (size_t)(s.payload - (d + s.offset));
		part[P_CRC] += (int64_t)(s.end - (size_t)(s.payload - d) - s.len); /* 4, or 0 in a sealed log but after E */
		switch (s.type) {
		case 'Z':
		case 'H':
			part[P_H_ENC]++;
			if (s.payload[0] == 0) {
				count_header(s.payload + 1, s.len - 1, part);
			} else {
				/* deflated: the fields of the body it inflates to, and what deflating saved (negative) */
				struct cursor lc = { s.payload + 1, s.len - 1, 0, 0 };
				uLongf rawlen = (uLongf)rpl__cur_varint(&lc);
				uint8_t *raw = malloc(rawlen ? rawlen : 1);
				if (raw && uncompress(raw, &rawlen, s.payload + 1 + lc.pos, (uLong)(s.len - 1 - lc.pos)) == Z_OK)
					count_header(raw, rawlen, part);
				part[P_H_DEFLATED] += (int64_t)(s.len - 1) - (int64_t)rawlen;
				free(raw);
			}
			break;
		case 'D':
		case 'A': break;                   /* below */
		case 'M': mstream += s.len; break; /* below */
		case 'C': part[P_CLAIMS] += s.len; break;
		case 'E': part[P_END] += s.len; break;
		case 'R': part[P_REVEAL] += s.len; break;
		case 's': part[P_SIG] += s.len; break;
		default: part[P_OTHER] += s.len; break;
		}
	}
	/* version 7's M: its layouts (with the cards drawn up front) and its decisions re-coded alone */
	if (mstream) {
		count_match(d, n, mstream, part);
		return;
	}
	/* the D and A sections again, with the reader, which knows their form */
	if (rpl_reader_open_memory(&rd, d, n) == 0) {
		version = rpl_reader_format_version(rd);
		while (rpl_reader_next(rd, &ev) == 1) {
			if (ev.kind == RPL_EV_DEAL && !rpl__reader_derived(rd)) {
				struct rc_enc le;
				lb.n = 0;
				rpl__rc_enc_init(&le, &lb);
				rpl__enc_layout(&le, rpl_reader_info(rd)->nplayers, &ev.layout);
				rpl__rc_enc_finish(&le);
				layouts += lb.n;
			}
		}
	}
	rpl_reader_free(rd);
	rpl__buf_free(&lb);
	/* the streams: each D or A payload past its varints (a D after the reveal: deal, k and k counts) */
	pos = BRP_MAGIC_LEN;
	sealed = 0;
	{
		int revealed = 0;
		while (rpl__section_get(d, n, &pos, &s, &sealed, why, sizeof(why)) == 1) {
			struct cursor c = { s.payload, s.len, 0, 0 };
			if (s.type == 'R')
				revealed = 1;
			if ((s.type == 'H' || s.type == 'Z') && s.len > 1 && s.payload[0] == 0) {
				/* a header that reveals its seed: dealing 2 */
				struct header h;
				int hv;
				if (rpl__header_get(&h, s.payload, s.len, &hv, why, sizeof(why)) == 0) {
					revealed = h.revealed;
					rpl__header_free(&h);
				}
			}
			if (s.type != 'D' && s.type != 'A')
				continue;
			if (version < 5 || revealed)
				rpl__cur_varint(&c); /* the deal: version 5 has none but after the reveal */
			if (s.type == 'D' && revealed) {
				uint64_t k = rpl__cur_varint(&c);
				for (uint64_t i = 0; i < k && !c.bad; i++)
					rpl__cur_varint(&c);
			} else {
				rpl__cur_varint(&c);
			}
			part[P_DEAL_HEAD] += c.pos;
			streams += s.len - c.pos;
		}
	}
	part[P_LAYOUT] += layouts;
	part[P_DECISIONS] += streams - layouts;
}

static int cmd_parts(void)
{
	int64_t part[P_COUNT] = { 0 }, total = 0, fixed = 0;

	for (size_t i = 0; i < nfiles; i++) {
		count_log(files[i].data, files[i].n, part);
		total += (int64_t)files[i].n;
	}
	printf("%zu matches, %.1f bytes a match\n", nfiles, (double)total / (double)nfiles);
	for (int p = 0; p < P_COUNT; p++) {
		printf("%-48s %8.1f\n", part_name[p], (double)part[p] / (double)nfiles);
		/* the deflate of a header saves on its text: counted with the text */
		if (p != P_LAYOUT && p != P_DECISIONS && p != P_H_TEXT && p != P_H_DEFLATED)
			fixed += part[p];
	}
	printf("%-48s %8.1f\n", "everything but layouts, decisions, text, deflate", (double)fixed / (double)nfiles);
	return 0;
}

/* ---- slack: the order the layouts hold that no play uses ---- */

/* log2 of the number of orders of n cards (a multinomial: copies of a face are alike). */
static double orders_bits(const rpl_card *c, int n)
{
	int copies[RPL_NFACES] = { 0 };
	double bits = lgamma(n + 1.0);
	for (int i = 0; i < n; i++)
		copies[c[i]]++;
	for (int f = 0; f < RPL_NFACES; f++)
		bits -= lgamma(copies[f] + 1.0);
	return bits / log(2.0);
}

/*
 * At the end of each deal, from the bookkeeping (the codec's track): the
 * order of what is left of the pile being drawn from (the stock, or a morto
 * that became the stock), and of each morto that never became the stock. A
 * layout stores that order; no decision, claim or score depends on it.
 */
static void slack_end(const struct track *t, double *stock_bits, double *morto_bits, uint64_t *left, uint64_t *became)
{
	*stock_bits += orders_bits(t->src + t->src_pos, t->src_len - t->src_pos);
	*left += (uint64_t)(t->src_len - t->src_pos);
	for (int m = 0; m < 2; m++)
		if (t->morto_used[m] != 2)
			*morto_bits += orders_bits(t->morto[m], RPL_MORTO_SIZE);
		else
			++*became;
}

static int cmd_slack(void)
{
	double stock_bits = 0, morto_bits = 0, len_bits = 0;
	uint64_t deals = 0, matches = 0, left = 0, became = 0, takes = 0, unseen = 0;

	for (size_t i = 0; i < nfiles; i++) {
		rpl_reader *rd = NULL;
		rpl_event ev;
		struct track t;
		int open = 0, dealer = 0, pending = 0;
		const rpl_match_info *info;
		if (rpl_reader_open_memory(&rd, files[i].data, files[i].n) != 0) {
			rpl_reader_free(rd);
			continue;
		}
		info = rpl_reader_info(rd);
		while (rpl_reader_next(rd, &ev) == 1) {
			if (ev.kind == RPL_EV_DEAL) {
				if (open)
					slack_end(&t, &stock_bits, &morto_bits, &left, &became);
				unseen += (uint64_t)pending;
				pending = 0;
				dealer = ev.deal == 1 ? info->first_dealer : (dealer + 1) % info->nplayers;
				rpl__track_deal(&t, info->nplayers, dealer, &ev.layout);
				len_bits += log2(RPL_STOCK_SIZE(info->nplayers) + 1.0); /* the stock's count, below */
				open = 1;
				deals++;
			} else if (ev.kind == RPL_EV_ACTION) {
				/*
				 * A take while the stock has a card: which card it left on the
				 * stock is seen only if a later draw of the deal takes it.
				 */
				if (ev.action.kind == RPL_ACT_TAKE && t.src_pos < t.src_len) {
					takes++;
					pending = 1;
				} else if (ev.action.kind == RPL_ACT_DRAW || ev.action.kind == RPL_ACT_REJECT) {
					pending = 0;
				}
				rpl__track_apply(&t, &ev.action, NULL, 0);
			}
		}
		if (open)
			slack_end(&t, &stock_bits, &morto_bits, &left, &became);
		unseen += (uint64_t)pending;
		matches++;
		rpl_reader_free(rd);
	}
	if (!deals)
		return 1;
	printf("matches %llu\ndeals %llu\n", (unsigned long long)matches, (unsigned long long)deals);
	printf("stock_cards_never_drawn_per_deal %.2f\nmortos_that_became_stock %llu\n", (double)left / (double)deals,
	       (unsigned long long)became);
	printf("stock_order_bytes_per_deal %.2f\nmorto_order_bytes_per_deal %.2f\n", stock_bits / 8 / (double)deals,
	       morto_bits / 8 / (double)deals);
	printf("slack_bytes_per_match %.2f\n", (stock_bits + morto_bits) / 8 / (double)matches);
	printf("takes %llu\ntakes_whose_stock_top_no_draw_reveals %llu\n", (unsigned long long)takes,
	       (unsigned long long)unseen);
	/*
	 * What a layout that drops that order would spend instead to say how far
	 * each pile's order is kept: the stock's count, uniform over 0 to its
	 * size; whether each morto became the stock, at this corpus's rate; and
	 * for one that did, its count, uniform over 0 to 11.
	 */
	{
		double q = (double)became / (2.0 * (double)deals);
		len_bits += (double)became * log2(RPL_MORTO_SIZE + 1.0);
		if (q > 0 && q < 1)
			len_bits += 2.0 * (double)deals * -(q * log2(q) + (1 - q) * log2(1 - q));
		printf("order_lengths_bytes_per_match %.2f\n", len_bits / 8 / (double)matches);
	}
	return 0;
}

/* ---- deflate: the logs against a plain binary encoding deflated ---- */

/* A decision as plain bytes: its kind, then the fields the kind uses, a byte each. */
static void plain_action(struct buf *b, const rpl_action *a)
{
	rpl__buf_byte(b, a->kind);
	switch (a->kind) {
	case RPL_ACT_ADD:
	case RPL_ACT_MELD:
		if (a->kind == RPL_ACT_ADD) {
			rpl__buf_byte(b, a->side);
			rpl__buf_byte(b, a->meld);
		}
		rpl__buf_byte(b, a->end);
		rpl__buf_byte(b, a->ncards);
		rpl__buf_put(b, a->cards, a->ncards);
		break;
	case RPL_ACT_DISCARD: rpl__buf_byte(b, a->cards[0]); break;
	case RPL_ACT_MORTO: rpl__buf_byte(b, a->morto); break;
	default: break;
	}
}

/* The deflated size of b at level 9 (zlib's compress2: the zlib stream, header and Adler-32 included). */
static uint64_t deflated(const struct buf *b)
{
	uLongf zn = compressBound((uLong)b->n);
	uint8_t *z = malloc(zn);
	if (!z || compress2(z, &zn, b->p, (uLong)b->n, 9) != Z_OK)
		zn = 0;
	free(z);
	return zn;
}

/*
 * Each match on its own, as it is stored: the header body (the log's H
 * payload), each deal's 108 cards a byte each (hands, mortos, stock), each
 * decision as plain_action, each claim (deal u16, two i32); deflated at
 * level 9. And the decisions alone: their plain bytes deflated, against the
 * range coder's bytes for them (the streams less the layouts).
 */
static int cmd_deflate(void)
{
	uint64_t brp = 0, zall = 0, zdec = 0, dec = 0, decisions = 0, plain = 0;
	int64_t part[P_COUNT];

	for (size_t i = 0; i < nfiles; i++) {
		rpl_reader *rd = NULL;
		rpl_event ev;
		struct buf all = { 0 }, dn = { 0 };
		size_t pos = BRP_MAGIC_LEN;
		struct section s;
		char why[256];
		size_t sealed = 0;
		if (rpl__section_get(files[i].data, files[i].n, &pos, &s, &sealed, why, sizeof(why)) == 1)
			rpl__buf_put(&all, s.payload, s.len);
		if (rpl_reader_open_memory(&rd, files[i].data, files[i].n) == 0) {
			int nplayers = rpl_reader_info(rd)->nplayers;
			while (rpl_reader_next(rd, &ev) == 1) {
				if (ev.kind == RPL_EV_DEAL) {
					rpl__buf_put(&all, ev.layout.hand, (size_t)nplayers * RPL_HAND_SIZE);
					rpl__buf_put(&all, ev.layout.morto, sizeof(ev.layout.morto));
					rpl__buf_put(&all, ev.layout.stock, RPL_STOCK_SIZE(nplayers));
				} else if (ev.kind == RPL_EV_ACTION) {
					plain_action(&all, &ev.action);
					plain_action(&dn, &ev.action);
					decisions++;
				} else if (ev.kind == RPL_EV_CLAIM) {
					uint8_t c[10];
					c[0] = (uint8_t)ev.deal;
					c[1] = (uint8_t)(ev.deal >> 8);
					for (int k = 0; k < 4; k++) {
						c[2 + k] = (uint8_t)((uint32_t)ev.score[0] >> (8 * k));
						c[6 + k] = (uint8_t)((uint32_t)ev.score[1] >> (8 * k));
					}
					rpl__buf_put(&all, c, sizeof(c));
				}
			}
		}
		rpl_reader_free(rd);
		memset(part, 0, sizeof(part));
		count_log(files[i].data, files[i].n, part);
		dec += (uint64_t)part[P_DECISIONS];
		brp += files[i].n;
		plain += all.n;
		zall += deflated(&all);
		zdec += deflated(&dn);
		rpl__buf_free(&all);
		rpl__buf_free(&dn);
	}
	printf("matches %zu\ndecisions %llu\nbrp_bytes %llu\nplain_bytes %llu\nplain_deflate9_bytes %llu\n"
	       "brp_over_deflate %.3f\ndecision_bytes_range_coded %llu\ndecision_bytes_plain_deflate9 %llu\n"
	       "decisions_range_over_deflate %.3f\n",
	       nfiles, (unsigned long long)decisions, (unsigned long long)brp, (unsigned long long)plain,
	       (unsigned long long)zall, (double)brp / (double)zall, (unsigned long long)dec, (unsigned long long)zdec,
	       (double)dec / (double)zdec);
	return 0;
}

static uint64_t run_decode(void)
{
	uint64_t n = 0;
	for (size_t i = 0; i < nfiles; i++) {
		rpl_reader *rd = NULL;
		rpl_event ev;
		if (rpl_reader_open_memory(&rd, files[i].data, files[i].n) == 0)
			while (rpl_reader_next(rd, &ev) == 1)
				n += ev.kind == RPL_EV_ACTION;
		rpl_reader_free(rd);
	}
	return n;
}

static uint64_t run_verify(void)
{
	uint64_t n = 0;
	for (size_t i = 0; i < nfiles; i++) {
		rpl_reader *rd = NULL;
		rpl_verdict v;
		if (rpl_reader_open_memory(&rd, files[i].data, files[i].n) == 0 && rpl_verify_reader(rd, NULL, &v) == 0) {
			if (v.kind != RPL_VERDICT_OK)
				fprintf(stderr, "%s: %s\n", files[i].path, rpl_verdict_name(v.kind));
			n += (uint64_t)v.actions;
		}
		rpl_reader_free(rd);
	}
	return n;
}

static int cmd_speed(int rounds)
{
	double *td = calloc((size_t)rounds, sizeof(double)), *tv = calloc((size_t)rounds, sizeof(double));
	uint64_t nd = 0, nv = 0;

	for (int r = 0; r < rounds; r++) {
		double t0 = now();
		nd = run_decode();
		td[r] = now() - t0;
		t0 = now();
		nv = run_verify();
		tv[r] = now() - t0;
	}
	qsort(td, (size_t)rounds, sizeof(double), cmp_double);
	qsort(tv, (size_t)rounds, sizeof(double), cmp_double);
	printf("matches %zu\ndecisions %llu\n", nfiles, (unsigned long long)nv);
	printf("decode_seconds %.4f\nverify_seconds %.4f\n", td[rounds / 2], tv[rounds / 2]);
	printf("decode_decisions_per_second %.0f\nverify_decisions_per_second %.0f\nverify_matches_per_second %.0f\n",
	       (double)nd / td[rounds / 2], (double)nv / tv[rounds / 2], (double)nfiles / tv[rounds / 2]);
	printf("decode_share %.3f\n", td[rounds / 2] / tv[rounds / 2]);
	free(td);
	free(tv);
	return 0;
}

/* Record every match again, flushing after each turn (each discard, and a morto it brings). */
static int cmd_record(int rounds, unsigned flags, const char *tmpdir)
{
	double *t = calloc((size_t)rounds, sizeof(double)), *tc = calloc((size_t)rounds, sizeof(double));
	uint64_t decisions = 0, turns = 0;
	char path[4096];

	snprintf(path, sizeof(path), "%s/bench-record.brp", tmpdir);
	for (int r = 0; r < rounds; r++) {
		double tclose = 0, trec = 0;
		decisions = 0;
		turns = 0;
		for (size_t i = 0; i < nfiles; i++) {
			rpl_reader *rd = NULL;
			rpl_recorder *rec = NULL;
			rpl_event ev;
			double t0 = now();
			if (rpl_reader_open_memory(&rd, files[i].data, files[i].n) != 0 ||
			    rpl_recorder_open(&rec, path, rpl_reader_info(rd), flags) != 0) {
				fprintf(stderr, "%s: cannot record\n", files[i].path);
				return 2;
			}
			while (rpl_reader_next(rd, &ev) == 1) {
				if (ev.kind == RPL_EV_DEAL) {
					rpl_recorder_deal(rec, &ev.layout);
				} else if (ev.kind == RPL_EV_ACTION) {
					if (rpl_recorder_action(rec, &ev.action) != 0) {
						fprintf(stderr, "%s: %s\n", files[i].path, rpl_recorder_errmsg(rec));
						return 2;
					}
					decisions++;
					if (ev.action.kind == RPL_ACT_DISCARD) {
						rpl_recorder_flush(rec);
						turns++;
					}
				} else if (ev.kind == RPL_EV_CLAIM) {
					rpl_recorder_claim(rec, ev.deal, ev.score);
				}
			}
			trec += now() - t0;
			t0 = now();
			rpl_recorder_close(rec);
			tclose += now() - t0;
			rpl_recorder_free(rec);
			rpl_reader_free(rd);
		}
		t[r] = trec;
		tc[r] = tclose;
	}
	qsort(t, (size_t)rounds, sizeof(double), cmp_double);
	qsort(tc, (size_t)rounds, sizeof(double), cmp_double);
	/* the recording includes decoding the log it replays; the close is the compaction and its fsync */
	printf("matches %zu\ndecisions %llu\nflushes %llu\nrecord_seconds %.4f\nrecord_ns_per_decision %.0f\n"
	       "close_ms_per_match %.3f\n",
	       nfiles, (unsigned long long)decisions, (unsigned long long)turns, t[rounds / 2],
	       1e9 * t[rounds / 2] / (double)decisions, 1e3 * tc[rounds / 2] / (double)nfiles);
	unlink(path);
	free(t);
	free(tc);
	return 0;
}

int main(int argc, char **argv)
{
	int rounds;

	if (argc < 3) {
		fprintf(stderr,
		        "usage: brp-bench size|parts|deflate|slack|speed|decode|verify|record|record-unchecked DIR [ROUNDS "
		        "[TMPDIR]]\n");
		return 2;
	}
	load(argv[2]);
	rounds = argc > 3 ? atoi(argv[3]) : 3;
	if (rounds < 1)
		rounds = 1;
	if (strcmp(argv[1], "size") == 0)
		return cmd_size();
	if (strcmp(argv[1], "parts") == 0)
		return cmd_parts();
	if (strcmp(argv[1], "deflate") == 0)
		return cmd_deflate();
	if (strcmp(argv[1], "slack") == 0)
		return cmd_slack();
	if (strcmp(argv[1], "speed") == 0)
		return cmd_speed(rounds);
	if (strcmp(argv[1], "decode") == 0 || strcmp(argv[1], "verify") == 0) {
		/* one half alone, for a profiler or an instruction count */
		uint64_t n = 0;
		for (int r = 0; r < rounds; r++)
			n += argv[1][0] == 'd' ? run_decode() : run_verify();
		printf("decisions %llu\n", (unsigned long long)n);
		return 0;
	}
	if (strcmp(argv[1], "record") == 0)
		return cmd_record(rounds, 0, argc > 4 ? argv[4] : "/tmp");
	if (strcmp(argv[1], "record-unchecked") == 0)
		return cmd_record(rounds, RPL_RECORD_UNCHECKED, argc > 4 ? argv[4] : "/tmp");
	fprintf(stderr, "brp-bench: unknown command %s\n", argv[1]);
	return 2;
}
