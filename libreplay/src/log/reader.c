/* The streaming reader of .brp logs. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log/format.h"
#include "log/identity.h"
#include "base/msg.h"
#include "log/sign_impl.h"

struct rpl_reader {
	uint8_t *data;
	int borrowed; /* data is the caller's (rpl__reader_open_view): not freed */
	size_t n, pos;
	int version;
	struct header hdr;
	/* the deal being decoded */
	int deal, dealer;
	int derived; /* its layout was derived from the revealed seed, not read (format.md 16) */
	struct track t;
	struct model m;
	struct rc_dec dec;
	struct section sec;
	uint32_t left;            /* decisions left in the current section */
	int ended;                /* an E section was read */
	size_t sealed;            /* a sealed log: the offset past its checksum (format.md 19.5), else 0 */
	int end_due;              /* version 5: its claims first, then the end event (recovered: end_due - 1) */
	int done;                 /* the log was read to its end without error: match_id is set */
	struct rpl__ident *ident; /* the match identity, built as events are read */
	char match_id[RPL_MATCH_ID_SIZE];
	int revealed;   /* the seed is known (header or R): later D sections hold no layout */
	int reveal_due; /* the header revealed it: the first event says so */
	uint8_t seed[RPL_DEAL_SEED_SIZE];
	uint32_t more_deals;  /* a D after the reveal: deals of the section still to start */
	struct cursor counts; /* ... and the decision counts of those deals */
	struct cursor claims; /* a version-3 C: the claims still to deliver */
	uint64_t decisions;   /* the decision counts of the D and A sections read, added up */
	uint64_t nclaims;     /* the claims of the C sections read */
	int64_t claim_sum[2]; /* the deal claims delivered, added up: version 5 codes a match total against it */
	int failed;           /* the error to repeat */
	uint64_t err_offset;
	char errmsg[RPL_ERRMSG_SIZE];
	/* version 7 (format.md 21) */
	struct v7 *v7;
	struct v7q *v7q;
	unsigned v7hooks; /* bit k: a decision of kind k goes through v7_before; bit 8 + k, through v7_after */
};

/*
 * Version 7's state: the layout as play reveals it, the stream of an M
 * section, and the read-ahead that fills a deal's layout before its event
 * is delivered (format.md 21.4).
 */
#define V7_QUEUE 8192 /* events a deal's read-ahead holds; a longer deal is read twice instead */
struct qev {
	uint8_t kind;
	int32_t deal, turn, seat;
	rpl_action action;
	int32_t score[2];
	uint64_t offset;
};
enum { MS_BETWEEN, MS_DEAL, MS_PLAY, MS_MID, MS_DONE };
struct v7 {
	struct mnotes mn;
	struct mmodel mm;
	rpl_layout lay;      /* the deal's layout: what play has revealed, the rest ascending */
	int src_of;          /* the pile the bookkeeping draws from: -1 the stock, else that morto */
	rpl_layout finished; /* the last deal's, filled when the next one began */
	int mstream;         /* an M section is being read */
	int mstate;          /* MS_* */
	int mseen;           /* an M section was read */
	int dsections;       /* a D, A or C section was read */
	int64_t mpred[2];    /* the deal's computed scores, once it is over */
	int from_m;          /* the deal is the M stream's: its layout whole from its start (21.2) */
	int became, oldn;    /* v7_before to v7_after: the morto that became the stock, the pile done */
	rpl_card old[RPL_DECK_SIZE];
	int regular, inner; /* an M deal: it ends where the bookkeeping says it can; claims come between its decisions */
	int fast;           /* ... regular, no claim between: its decisions are read at once (v7_next) */
	int fdrawn[3];      /* the last deal's drawn piles (rpl__track_drawn), with finished */
	/* the deal delivered last, and how far its piles are recorded (rpl_reader_deal_recorded; an M deal's: how far
	   its stream says play drew each pile) */
	int ldeal, ldrawn[3];
};
/*
 * The read-ahead's queue, apart: a copy of the state leaves it out; and
 * the reader as a deal of D sections began (saved, vsaved), to read it
 * again when it is longer than the queue: held once, not a deal.
 */
struct v7q {
	size_t qn, qpos, cap;
	int tail_due, tail_got; /* what ended the read-ahead: delivered after the queue */
	rpl_event tail;
	struct qev *q; /* grown as deals need, to V7_QUEUE */
	struct rpl_reader saved;
	struct v7 vsaved;
};

static int fail(struct rpl_reader *rd, int err, uint64_t offset, const char *fmt, ...)
		__attribute__((format(printf, 4, 5)));

static int fail(struct rpl_reader *rd, int err, uint64_t offset, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rpl__vmsgf(rd->errmsg, fmt, ap);
	va_end(ap);
	rd->err_offset = offset;
	rd->failed = err;
	return err;
}

/* Reads the magic and the header section. */
static int start(struct rpl_reader *rd)
{
	struct section s;
	char why[RPL_ERRMSG_SIZE];
	int err;

	if (rd->n == 0)
		return fail(rd, RPL_ECORRUPT, 0, "byte 0: empty, not a .brp match log");
	if (rd->n < BRP_MAGIC_LEN || memcmp(rd->data, BRP_MAGIC, BRP_MAGIC_LEN) != 0)
		return fail(rd, RPL_ECORRUPT, 0, "byte 0: not a .brp match log (bad magic)");
	rd->pos = BRP_MAGIC_LEN;
	err = rpl__section_get(rd->data, rd->n, &rd->pos, &s, &rd->sealed, why, sizeof(why));
	if (err == 0)
		return fail(rd, RPL_ECORRUPT, rd->pos, "byte %zu: the log ends before its header", rd->pos);
	if (err < 0)
		return fail(rd, RPL_ECORRUPT, s.offset, "%s", why);
	if (s.type != 'H' && s.type != BRP_SEALED_TYPE)
		return fail(rd, RPL_ECORRUPT, s.offset, "byte %zu: the first section is '%c', not the header 'H'",
		            (size_t)s.offset, s.type);
	err = rpl__header_get(&rd->hdr, s.payload, s.len, &rd->version, why, sizeof(why));
	if (err)
		return fail(rd, err, s.offset, "byte %zu: header: %s", (size_t)s.offset, why);
	if (rd->sealed && rd->version < BRP_VERSION_5)
		return fail(rd, RPL_ECORRUPT, s.offset, "byte %zu: a sealed header of version %d (sealed logs begin in 5)",
		            (size_t)s.offset, rd->version);
	if (rd->version == BRP_VERSION_7) {
		/* not zeroed whole: each deal starts its own notes (v7_deal); the read-ahead's room when a D needs it */
		if (!(rd->v7 = malloc(sizeof(*rd->v7))))
			return fail(rd, RPL_ENOMEM, s.offset, "out of memory");
		rd->v7->mstream = rd->v7->mseen = rd->v7->dsections = rd->v7->from_m = rd->v7->fast = rd->v7->ldeal = 0;
		rd->v7->became = -1;
		rpl__mnotes_values(&rd->v7->mn, &rd->hdr.rules);
	}
	err = rpl__ident_new(&rd->ident, &rd->hdr.info);
	if (err)
		return fail(rd, err, s.offset, "out of memory");
	if (rd->hdr.revealed) {
		memcpy(rd->seed, rd->hdr.seed, RPL_DEAL_SEED_SIZE);
		rd->revealed = 1;
		rd->reveal_due = 1;
	}
	return 0;
}

int rpl__reader_open_view(rpl_reader **out, const uint8_t *data, size_t len)
{
	struct rpl_reader *rd;

	if (!out || (!data && len))
		return RPL_EINVAL;
	*out = NULL;
	rd = calloc(1, sizeof(*rd));
	if (!rd)
		return RPL_ENOMEM;
	*out = rd;
	if (len > BRP_MAX_FILE)
		return fail(rd, RPL_ELIMIT, 0, "%zu bytes: larger than the %u bytes a reader accepts", len, BRP_MAX_FILE);
	rd->data = (uint8_t *)(data ? data : (const uint8_t *)""); /* only read, never freed */
	rd->borrowed = 1;
	rd->n = len;
	return start(rd);
}

int rpl_reader_open_memory(rpl_reader **out, const void *data, size_t len)
{
	struct rpl_reader *rd;
	int err;

	if (!out || (!data && len))
		return RPL_EINVAL;
	*out = NULL;
	rd = calloc(1, sizeof(*rd));
	if (!rd)
		return RPL_ENOMEM;
	*out = rd;
	if (len > BRP_MAX_FILE)
		return fail(rd, RPL_ELIMIT, 0, "%zu bytes: larger than the %u bytes a reader accepts", len, BRP_MAX_FILE);
	rd->data = malloc(len ? len : 1);
	if (!rd->data)
		return RPL_ENOMEM;
	if (len)
		memcpy(rd->data, data, len);
	rd->n = len;
	err = start(rd);
	return err;
}

int rpl_reader_open(rpl_reader **out, const char *path)
{
	struct rpl_reader *rd = NULL;
	FILE *f = NULL;
	struct stat st;
	char why[160];
	int err = RPL_OK, fd, e;

	if (!out || !path)
		return RPL_EINVAL;
	*out = NULL;
	rd = calloc(1, sizeof(*rd));
	if (!rd)
		return RPL_ENOMEM;
	*out = rd;
	/* never fopen: a FIFO would block it until a writer comes */
	fd = rpl__open_regular(path, &st, &e, why, sizeof(why));
	if (fd < 0) {
		err = fail(rd, e == ENOMEM ? RPL_ENOMEM : RPL_EIO, 0, "%s", why);
		goto cleanup;
	}
	if (!(f = fdopen(fd, "rb"))) {
		err = fail(rd, RPL_EIO, 0, "cannot open: %s", strerror(errno));
		close(fd);
		goto cleanup;
	}
	if ((uint64_t)st.st_size > BRP_MAX_FILE) {
		err = fail(rd, RPL_ELIMIT, 0, "%lld bytes: larger than the %u bytes a reader accepts", (long long)st.st_size,
		           BRP_MAX_FILE);
		goto cleanup;
	}
	rd->data = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!rd->data) {
		err = RPL_ENOMEM;
		goto cleanup;
	}
	rd->n = fread(rd->data, 1, (size_t)st.st_size, f);
	if (ferror(f)) {
		err = fail(rd, RPL_EIO, 0, "read error: %s", strerror(errno));
		goto cleanup;
	}
	err = start(rd);
cleanup:
	if (f)
		fclose(f);
	return err;
}

int rpl_reader_open_fd(rpl_reader **out, int fd)
{
	struct rpl_reader *rd;
	size_t cap = 0;

	if (!out)
		return RPL_EINVAL;
	*out = NULL;
	if (fd < 0)
		return RPL_EINVAL;
	rd = calloc(1, sizeof(*rd));
	if (!rd)
		return RPL_ENOMEM;
	*out = rd;
	/* to the end of the stream, but never more than one byte past the limit */
	for (;;) {
		ssize_t got;
		if (rd->n == cap) {
			size_t ncap = cap ? cap * 2 : 64u << 10;
			uint8_t *p;
			if (ncap > (size_t)BRP_MAX_FILE + 1)
				ncap = (size_t)BRP_MAX_FILE + 1;
			if (ncap == cap) {
				free(rd->data);
				rd->data = NULL;
				rd->n = 0;
				return fail(rd, RPL_ELIMIT, 0, "more than the %u bytes a reader accepts", BRP_MAX_FILE);
			}
			if (!(p = realloc(rd->data, ncap)))
				return RPL_ENOMEM;
			rd->data = p;
			cap = ncap;
		}
		got = read(fd, rd->data + rd->n, cap - rd->n);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return fail(rd, RPL_EIO, 0, "read error: %s", strerror(errno));
		}
		if (got == 0)
			break;
		rd->n += (size_t)got;
	}
	if (!rd->data && !(rd->data = malloc(1)))
		return RPL_ENOMEM;
	return start(rd);
}

void rpl_reader_free(rpl_reader *rd)
{
	if (!rd)
		return;
	free(rd->v7);
	if (rd->v7q)
		free(rd->v7q->q);
	free(rd->v7q);
	rpl__header_free(&rd->hdr);
	rpl__ident_free(rd->ident);
	if (!rd->borrowed)
		free(rd->data);
	free(rd);
}

const rpl_match_info *rpl_reader_info(const rpl_reader *rd)
{
	return rd && rd->hdr.info.rules ? &rd->hdr.info : NULL;
}

unsigned rpl_reader_flags(const rpl_reader *rd)
{
	return rd && rd->hdr.info.rules ? rd->hdr.flags & RPL_LOG_SIGNED : 0;
}

int rpl_reader_format_version(const rpl_reader *rd)
{
	return rd ? rd->version : 0;
}

int rpl_reader_deal_recorded(const rpl_reader *rd, int recorded[3])
{
	if (!rd || !recorded)
		return RPL_EINVAL;
	if (rd->v7) {
		if (!rd->v7->ldeal)
			return RPL_ESTATE;
		memcpy(recorded, rd->v7->ldrawn, sizeof(rd->v7->ldrawn));
		return 0;
	}
	if (rd->deal < 1)
		return RPL_ESTATE;
	recorded[0] = RPL_STOCK_SIZE(rd->hdr.info.nplayers);
	recorded[1] = recorded[2] = RPL_MORTO_SIZE;
	return 0;
}

uint64_t rpl_reader_offset(const rpl_reader *rd)
{
	return rd ? rd->err_offset : 0;
}

const char *rpl_reader_errmsg(const rpl_reader *rd)
{
	return rd ? rd->errmsg : "";
}

uint64_t rpl_reader_bytes(const rpl_reader *rd)
{
	return rd ? rd->n : 0;
}

int rpl__reader_derived(const rpl_reader *rd)
{
	return rd ? rd->derived : 0;
}

const uint8_t *rpl__reader_data(const rpl_reader *rd, size_t *n)
{
	*n = rd ? rd->n : 0;
	return rd ? rd->data : NULL;
}

int rpl_reader_closed(const rpl_reader *rd)
{
	return rd ? rd->ended : 0;
}

int rpl_reader_match_id(const rpl_reader *rd, char out[RPL_MATCH_ID_SIZE])
{
	if (!rd || !out)
		return RPL_EINVAL;
	out[0] = '\0';
	if (rd->failed)
		return rd->failed;
	if (!rd->done)
		return RPL_ESTATE;
	memcpy(out, rd->match_id, RPL_MATCH_ID_SIZE);
	return out[0] ? RPL_OK : RPL_ENOMEM;
}

/*
 * The match's limits (log.h, docs/format.md section 10): a section whose
 * decisions or claims would take the match past them is refused whole,
 * before any of it is decoded, so the work a log causes stays bounded.
 */
static int take_decisions(struct rpl_reader *rd, uint64_t count)
{
	if (count > RPL_MAX_DECISIONS - rd->decisions)
		return fail(rd, RPL_ELIMIT, rd->sec.offset,
		            "byte %zu: section '%c' takes the match past %u decisions, the most a log holds",
		            (size_t)rd->sec.offset, rd->sec.type, RPL_MAX_DECISIONS);
	rd->decisions += count;
	return 0;
}

static int take_claims(struct rpl_reader *rd, uint64_t count)
{
	if (count > RPL_MAX_CLAIMS - rd->nclaims)
		return fail(rd, RPL_ELIMIT, rd->sec.offset,
		            "byte %zu: section 'C' takes the match past %u claims, the most a log holds",
		            (size_t)rd->sec.offset, RPL_MAX_CLAIMS);
	rd->nclaims += count;
	return 0;
}

/* Open the coded stream of a D or A section after its two varints. */
static int open_stream(struct rpl_reader *rd, struct cursor *c)
{
	uint64_t count = rpl__cur_varint(c);

	if (c->bad || count > RPL_MAX_SECTION)
		return fail(rd, RPL_ECORRUPT, rd->sec.offset, "byte %zu: section '%c' has a malformed decision count",
		            (size_t)rd->sec.offset, rd->sec.type);
	if (take_decisions(rd, count) < 0)
		return rd->failed;
	rd->left = (uint32_t)count;
	rpl__rc_dec_init(&rd->dec, c->p + c->pos, c->n - c->pos);
	return 0;
}

/* The coded stream of a section must end exactly where its payload does. */
static int close_stream(struct rpl_reader *rd)
{
	if (!rpl__rc_dec_done(&rd->dec))
		return fail(rd, RPL_ECORRUPT, rd->sec.offset, "byte %zu: section '%c' does not decode to its length",
		            (size_t)rd->sec.offset, rd->sec.type);
	return 0;
}

/* The next deal of a D read after the reveal: its layout derived, its decisions next in the stream. */
static int start_derived(struct rpl_reader *rd, rpl_event *ev, uint32_t count)
{
	const rpl_match_info *in = &rd->hdr.info;
	int n = in->nplayers, deal = rd->deal + 1;

	if (rpl_deal_derive_match(&ev->layout, rd->seed, in, deal) < 0)
		return fail(rd, RPL_ECORRUPT, rd->sec.offset, "byte %zu: deal %d cannot be derived", (size_t)rd->sec.offset,
		            deal);
	rd->deal = deal;
	rd->derived = 1;
	rd->dealer = deal == 1 ? in->first_dealer : (rd->dealer + 1) % n;
	rpl__track_deal(&rd->t, n, rd->dealer, &ev->layout);
	if (deal == 1)
		rpl__model_init(&rd->m, rd->version);
	rd->left = count;
	if (rd->left == 0 && rd->more_deals == 0 && close_stream(rd) < 0)
		return rd->failed;
	ev->kind = RPL_EV_DEAL;
	ev->deal = deal;
	ev->offset = rd->sec.offset;
	return 1;
}

/* A claim from c, in the log's coding: 1 with *ev filled, or -1 when it is malformed. */
static int read_claim(rpl_reader *rd, struct cursor *c, rpl_event *ev)
{
	int deal;

	if (rpl__claim_get(c, rd->version, &deal, ev->score, rd->claim_sum) < 0)
		return -1;
	ev->kind = RPL_EV_CLAIM;
	ev->deal = deal;
	return 1;
}

/*
 * The parts of next_event: each returns 1 with an event in *ev, 0 when its
 * section gave none (the next section is read), or an error (rd failed).
 */

/*
 * Version 7: the card a draw or a reject takes, read where the bookkeeping
 * will take it (format.md 21.2). When the pile drawn from is done and a
 * morto becomes the stock, *became is that morto and old (*oldn cards) the
 * pile done, for the layout once the decision is applied.
 */
static int v7_pick(rpl_reader *rd, int *became, rpl_card *old, int *oldn)
{
	int pos, len;
	rpl_card *at = rpl__track_draw_place(&rd->t, &pos, &len, became);

	if (!at)
		return 0; /* nothing is left to draw: the bookkeeping says so */
	if (*became >= 0) {
		memcpy(old, rd->t.src, rd->t.src_len);
		*oldn = rd->t.src_len;
	}
	return rpl__dec_pick(&rd->dec, at, pos, len) < 0 ? -1 : 0;
}

/* Version 7: the deal's layout as far as play revealed it, each pile's unrevealed cards ascending. */
static void v7_fill(const rpl_reader *rd, rpl_layout *out)
{
	const struct v7 *v = rd->v7;
	rpl_card *cur;

	*out = v->lay;
	cur = v->src_of < 0 ? out->stock : out->morto[v->src_of];
	memcpy(cur, rd->t.src, rd->t.src_len);
	/* a counting sort of the rest: at most 64 cards of 53 faces */
	{
		uint8_t cnt[RPL_NFACES] = { 0 };
		int k = rd->t.src_pos;
		for (int i = rd->t.src_pos; i < rd->t.src_len; i++)
			cnt[cur[i]]++;
		for (int f = 0; f < RPL_NFACES; f++)
			while (cnt[f]--)
				cur[k++] = (rpl_card)f;
	}
}

/* Version 7: a deal begins with its layout's sets (in a D or an M). */
static void v7_deal(rpl_reader *rd, const rpl_layout *lay, int from_m)
{
	struct v7 *v = rd->v7;
	if (rd->deal > 0 && !v->from_m) {
		v7_fill(rd, &v->finished); /* a deal of D sections: its layout, for the read-ahead */
		rpl__track_drawn(&rd->t, v->fdrawn);
	}
	v->lay = *lay;
	v->src_of = -1;
	v->from_m = from_m;
	v->became = -1;
	/* D: a draw's card, before and after; M: the notes of a lay or a morto, after (in rd: one load a decision) */
	rd->v7hooks = from_m ? (1u << RPL_ACT_MELD | 1u << RPL_ACT_ADD | 1u << RPL_ACT_MORTO) << 8
	                     : (1u << RPL_ACT_DRAW | 1u << RPL_ACT_REJECT) * 0x101u;
}

/*
 * Version 7, before the bookkeeping applies a draw or a reject of a deal
 * of D sections (21.2): the card it takes, kept for v7_after when the pile
 * drawn from changes. Out of line, as v7_after, so that decode_decision
 * stays as small as the other versions need it.
 */
static __attribute__((noinline)) int v7_before(rpl_reader *rd)
{
	struct v7 *v = rd->v7;

	v->became = -1;
	return v7_pick(rd, &v->became, v->old, &v->oldn);
}

/*
 * Version 7, once a decision of a kind in post is applied: in the M
 * stream, its notes (a lay, a morto); in D sections, a morto became the
 * stock, and the pile done is kept.
 */
static __attribute__((noinline)) void v7_after(rpl_reader *rd, const rpl_action *a, int seat)
{
	struct v7 *v = rd->v7;

	if (v->from_m) {
		rpl__mnotes_applied(&v->mn, &rd->t, a, seat);
		return;
	}
	if (v->became < 0)
		return;
	memcpy(v->src_of < 0 ? v->lay.stock : v->lay.morto[v->src_of], v->old, (size_t)v->oldn);
	v->src_of = v->became;
	v->became = -1;
}

/* One decision of the stream open, applied to the bookkeeping, into ev. */
static int decode_decision(rpl_reader *rd, rpl_event *ev)
{
	char why[RPL_ERRMSG_SIZE];
	rpl_action a;
	int seat;

	if (rpl__dec_action(&rd->dec, &rd->m, &rd->t, &a) < 0 || ((rd->v7hooks >> a.kind & 1) && v7_before(rd) < 0))
		return fail(rd, RPL_ECORRUPT, rd->sec.offset, "byte %zu: deal %d: a decision does not decode (turn %d)",
		            (size_t)rd->sec.offset, rd->deal, rd->t.turn);
	seat = rpl__track_actor(&rd->t, a.kind);
	if (rpl__track_apply_decoded(&rd->t, &a, why, sizeof(why)) < 0)
		return fail(rd, RPL_ECORRUPT, rd->sec.offset, "byte %zu: deal %d turn %d: %s", (size_t)rd->sec.offset, rd->deal,
		            rd->t.turn, why);
	if (rd->v7hooks >> 8 >> a.kind & 1)
		v7_after(rd, &a, seat);
	ev->kind = RPL_EV_ACTION;
	ev->deal = rd->deal;
	ev->turn = rd->t.turn;
	ev->seat = seat;
	ev->action = a;
	ev->offset = rd->sec.offset;
	return 1;
}

/* The next decision of the current deal's stream, checked against the tracked state. */
static int next_decision(rpl_reader *rd, rpl_event *ev)
{
	int got = decode_decision(rd, ev);

	if (got < 0)
		return got;
	rd->left--;
	if (rd->left == 0 && rd->more_deals == 0 && close_stream(rd) < 0)
		return rd->failed;
	return 1;
}

/* A D section after the reveal, whose seed re-creates the layouts: the deals, their counts, one stream of decisions. */
static int revealed_deals(rpl_reader *rd, struct cursor *c, rpl_event *ev)
{
	uint64_t k = rpl__cur_varint(c), first, total = 0;

	if (c->bad || k == 0 || k > RPL_MAX_DEALS - (uint64_t)rd->deal)
		return fail(rd, RPL_ECORRUPT, rd->sec.offset,
		            "byte %zu: deal section of a revealed log with a malformed number of deals",
		            (size_t)rd->sec.offset);
	rd->counts = *c;
	for (uint64_t i = 0; i < k; i++) {
		uint64_t count = rpl__cur_varint(c);
		if (c->bad || count > RPL_MAX_SECTION)
			return fail(rd, RPL_ECORRUPT, rd->sec.offset, "byte %zu: section 'D' has a malformed decision count",
			            (size_t)rd->sec.offset);
		total += count;
	}
	if (take_decisions(rd, total) < 0)
		return rd->failed;
	rpl__rc_dec_init(&rd->dec, c->p + c->pos, c->n - c->pos);
	first = rpl__cur_varint(&rd->counts);
	rd->more_deals = (uint32_t)(k - 1);
	return start_derived(rd, ev, (uint32_t)first);
}

/* A D section: the next deal, its layout and the start of its decisions (or, revealed, the deals to derive). */
static int deal_section(rpl_reader *rd, struct cursor *c, rpl_event *ev)
{
	/* version 5 stores no number where it can only be the next deal's (format.md 19.4) */
	uint64_t deal = rd->version >= BRP_VERSION_5 && !rd->revealed ? (uint64_t)rd->deal + 1 : rpl__cur_varint(c);
	int n = rd->hdr.info.nplayers;

	if (c->bad || deal != (uint64_t)rd->deal + 1 || deal > RPL_MAX_DEALS)
		return fail(rd, RPL_ECORRUPT, rd->sec.offset, "byte %zu: deal section numbered %llu after deal %d",
		            (size_t)rd->sec.offset, (unsigned long long)deal, rd->deal);
	if (rd->revealed)
		return revealed_deals(rd, c, ev);
	if (open_stream(rd, c) < 0)
		return rd->failed;
	if ((rd->v7 ? rpl__dec_layout_sets(&rd->dec, n, &ev->layout) : rpl__dec_layout(&rd->dec, n, &ev->layout)) < 0)
		return fail(rd, RPL_ECORRUPT, rd->sec.offset, "byte %zu: deal %llu: the card layout does not decode",
		            (size_t)rd->sec.offset, (unsigned long long)deal);
	if (rd->v7)
		v7_deal(rd, &ev->layout, 0);
	rd->deal = (int)deal;
	rd->derived = 0;
	rd->dealer = rd->deal == 1 ? rd->hdr.info.first_dealer : (rd->dealer + 1) % n;
	rpl__track_deal(&rd->t, n, rd->dealer, &ev->layout);
	if (rd->deal == 1)
		rpl__model_init(&rd->m, rd->version); /* the model learns over the whole match */
	if (rd->left == 0 && close_stream(rd) < 0)
		return rd->failed;
	ev->kind = RPL_EV_DEAL;
	ev->deal = rd->deal;
	return 1;
}

/* An A section: more decisions of the current deal (no event of its own). */
static int decision_section(rpl_reader *rd, struct cursor *c)
{
	uint64_t deal = rd->version >= BRP_VERSION_5 && !rd->revealed ? (uint64_t)rd->deal : rpl__cur_varint(c);

	if (c->bad || rd->deal == 0 || deal != (uint64_t)rd->deal)
		return fail(rd, RPL_ECORRUPT, rd->sec.offset,
		            "byte %zu: a decision section for deal %llu while deal %d is being read", (size_t)rd->sec.offset,
		            (unsigned long long)deal, rd->deal);
	if (open_stream(rd, c) < 0)
		return rd->failed;
	if (rd->left == 0 && close_stream(rd) < 0)
		return rd->failed;
	return 0;
}

/* A C section: one claim (version 2), or several (version 3 on), delivered one an event from rd->claims. */
static int claim_section(rpl_reader *rd, struct cursor *c, rpl_event *ev)
{
	if (rd->version >= BRP_VERSION_COMMIT) {
		/* version 3 on: one or more claims */
		struct cursor n = *c;
		uint64_t count = 0;
		int64_t sum[2] = { rd->claim_sum[0], rd->claim_sum[1] };
		int deal;
		int32_t score[2];
		if (c->n == 0)
			return fail(rd, RPL_ECORRUPT, rd->sec.offset, "byte %zu: malformed claim section", (size_t)rd->sec.offset);
		/* counted before any is delivered; a malformed one is refused where it is read */
		while (n.pos < n.n && rpl__claim_get(&n, rd->version, &deal, score, sum) == 0)
			count++;
		if (take_claims(rd, count) < 0)
			return rd->failed;
		rd->claims = *c;
		return 0;
	}
	if (read_claim(rd, c, ev) < 0 || c->pos != c->n)
		return fail(rd, RPL_ECORRUPT, rd->sec.offset, "byte %zu: malformed claim section", (size_t)rd->sec.offset);
	if (take_claims(rd, 1) < 0)
		return rd->failed;
	return 1;
}

/* Version 7's M: a claim of the stream (format.md 21.3). */
static int m_claim(rpl_reader *rd, rpl_event *ev, int over, int lean)
{
	struct v7 *v = rd->v7;
	struct mcx c = { NULL, &rd->dec };

	if (lean)
		memset(ev, 0, sizeof(*ev));
	if (take_claims(rd, 1) < 0)
		return rd->failed;
	if (rpl__mx_claim(&c, &v->mm, rd->deal, over && rd->deal > 0 ? v->mpred : NULL, rd->claim_sum, &ev->deal,
	                  ev->score) < 0 ||
	    rd->dec.bad)
		return fail(rd, RPL_ECORRUPT, rd->sec.offset, "byte %zu: deal %d: a claim does not decode",
		            (size_t)rd->sec.offset, rd->deal);
	if (ev->deal > 0) {
		rd->claim_sum[0] += ev->score[0];
		rd->claim_sum[1] += ev->score[1];
	}
	ev->kind = RPL_EV_CLAIM;
	ev->offset = rd->sec.offset;
	return 1;
}

/*
 * Version 7's M: the next event of the match's stream, or 0 once it has
 * ended where its payload does (format.md 21.3).
 */
static int m_next(rpl_reader *rd, rpl_event *ev, int lean)
{
	struct v7 *v = rd->v7;
	struct mcx c = { NULL, &rd->dec };
	int n = rd->hdr.info.nplayers;

	for (;;) {
		if (rd->dec.bad)
			return fail(rd, RPL_ECORRUPT, rd->sec.offset, "byte %zu: the match's stream does not decode (deal %d)",
			            (size_t)rd->sec.offset, rd->deal);
		switch (v->mstate) {
		case MS_BETWEEN:
			if (rpl__mx_claim_next(&c, &v->mm, 1, 0))
				return m_claim(rd, ev, 1, lean);
			v->mstate = rpl__mx_more_deals(&c, &v->mm, 0) ? MS_DEAL : MS_DONE;
			continue;
		case MS_DEAL:
			if (lean)
				memset(ev, 0, sizeof(*ev));
			if (rd->deal >= RPL_MAX_DEALS)
				return fail(rd, RPL_ELIMIT, rd->sec.offset, "byte %zu: the match's stream holds more than %d deals",
				            (size_t)rd->sec.offset, RPL_MAX_DEALS);
			if (rpl__dec_layout_sets(&rd->dec, n, &ev->layout) < 0 ||
			    rpl__mx_drawn(&c, &v->mm, &ev->layout, n, v->ldrawn) < 0 || rd->dec.bad)
				return fail(rd, RPL_ECORRUPT, rd->sec.offset, "byte %zu: deal %d: the card layout does not decode",
				            (size_t)rd->sec.offset, rd->deal + 1);
			v7_deal(rd, &ev->layout, 1);
			v->regular = rpl__mx_bit(&c, &v->mm.regular, 0);
			v->inner = rpl__mx_bit(&c, &v->mm.inner, 0);
			v->fast = v->regular && !v->inner; /* (a regular deal has a decision) */
			v->ldeal = rd->deal + 1;
			rd->deal++;
			rd->derived = 0;
			rd->dealer = rd->deal == 1 ? rd->hdr.info.first_dealer : (rd->dealer + 1) % n;
			rpl__track_deal(&rd->t, n, rd->dealer, &ev->layout);
			rpl__mnotes_deal(&v->mn);
			if (rd->deal == 1)
				rpl__model_init(&rd->m, rd->version);
			v->mstate = MS_PLAY;
			ev->kind = RPL_EV_DEAL;
			ev->deal = rd->deal;
			ev->offset = rd->sec.offset;
			return 1;
		case MS_PLAY: {
			int ctx = rpl__mnotes_end_ctx(&v->mn, &rd->t), drawn[3];
			if (v->regular ? ctx != MEND_OUT && ctx != MEND_DRY : !rpl__mx_over(&c, &v->mm, ctx, 0)) {
				v->mstate = MS_MID;
				continue;
			}
			/* the deal is over: it drew what its layout said, in that order */
			v->fast = 0;
			rpl__track_drawn(&rd->t, drawn);
			if (memcmp(drawn, v->ldrawn, sizeof(drawn)) != 0)
				return fail(rd, RPL_ECORRUPT, rd->sec.offset,
				            "byte %zu: deal %d drew %d cards of the stock and %d and %d of the mortos, not the %d, %d "
				            "and %d its layout says",
				            (size_t)rd->sec.offset, rd->deal, drawn[0], drawn[1], drawn[2], v->ldrawn[0], v->ldrawn[1],
				            v->ldrawn[2]);
			rpl__mnotes_score(&v->mn, &rd->t, &rd->hdr.rules, v->mpred);
			v->mstate = MS_BETWEEN;
			continue;
		}
		case MS_MID:
			if (v->inner && rpl__mx_claim_next(&c, &v->mm, 0, 0))
				return m_claim(rd, ev, 0, lean);
			if (take_decisions(rd, 1) < 0)
				return rd->failed;
			v->mstate = MS_PLAY;
			return 2; /* a decision: v7_next reads it */
		default:
			v->mstream = 0;
			if (close_stream(rd) < 0)
				return rd->failed;
			if (lean)
				memset(ev, 0, sizeof(*ev)); /* what follows is the next section's */
			return 0;
		}
	}
}

/* Version 7's M section: the match's stream, alone in its log (format.md 21.1). */
static int match_section(rpl_reader *rd, struct cursor *c)
{
	struct v7 *v = rd->v7;

	if (!v || v->mseen || v->dsections)
		return fail(rd, !v ? RPL_EUNSUPPORTED : RPL_ECORRUPT, rd->sec.offset, "byte %zu: %s", (size_t)rd->sec.offset,
		            !v         ? "required section 'M' is unknown to this reader (a newer format?)"
		            : v->mseen ? "a second match section"
		                       : "a match section in a log of deal sections");
	v->mseen = 1;
	v->mstream = 1;
	v->mstate = MS_BETWEEN;
	rpl__mmodel_init(&v->mm);
	rpl__rc_dec_init(&rd->dec, c->p, c->n);
	return 0;
}

/*
 * The next event: a decision of the stream open, a claim of a C section
 * read, the next derived deal; else the next section's. The switch on the
 * section's type stays whole: one case a type of docs/format.md section 5,
 * each short or a helper of its own.
 */
static int next_event(rpl_reader *rd, rpl_event *ev, int lean)
{
	char why[RPL_ERRMSG_SIZE];

	/* the next event is a decision of the stream: for rpl__reader_next_lean, its own fields only */
	if (lean && rd->left > 0 && !rd->reveal_due && rd->claims.pos >= rd->claims.n)
		return next_decision(rd, ev);
	/* lean 2: version 7's read-ahead, which keeps only each event's own fields (q_put) */
	if (lean != 2)
		memset(ev, 0, sizeof(*ev));
	if (rd->reveal_due) {
		rd->reveal_due = 0;
		ev->kind = RPL_EV_REVEAL;
		memcpy(ev->seed, rd->seed, RPL_DEAL_SEED_SIZE);
		ev->offset = BRP_MAGIC_LEN;
		return 1;
	}
	for (;;) {
		struct cursor c = { 0 };
		int got;

		if (rd->left == 0 && rd->more_deals > 0) {
			uint64_t count = rpl__cur_varint(&rd->counts);
			rd->more_deals--;
			return start_derived(rd, ev, (uint32_t)count); /* the counts were checked with the section */
		}
		if (rd->claims.pos < rd->claims.n) {
			ev->offset = rd->sec.offset;
			if (read_claim(rd, &rd->claims, ev) < 0)
				return fail(rd, RPL_ECORRUPT, rd->sec.offset, "byte %zu: malformed claim section",
				            (size_t)rd->sec.offset);
			return 1;
		}
		if (rd->end_due) {
			ev->offset = rd->sec.offset;
			ev->kind = RPL_EV_END;
			ev->recovered = rd->end_due - 1;
			rd->end_due = 0;
			return 1;
		}
		if (rd->left > 0)
			return next_decision(rd, ev);
		got = rpl__section_get(rd->data, rd->n, &rd->pos, &rd->sec, &rd->sealed, why, sizeof(why));
		if (got == 0)
			return 0;
		if (got < 0)
			return fail(rd, RPL_ECORRUPT, rd->pos, "%s", why);
		if (rd->sec.type == BRP_SIG_TYPE) {
			/* a signature: checked by rpl_signatures_check; here only its form (format.md 5.5) */
			if (rd->sec.len >= 2 && memcmp(rd->sec.payload, BRP_SIG_ALG, 2) == 0 && rd->sec.len != BRP_SIG_PAYLOAD)
				return fail(rd, RPL_ECORRUPT, rd->sec.offset, "byte %zu: malformed signature section",
				            (size_t)rd->sec.offset);
			continue;
		}
		if (rd->ended)
			return fail(rd, RPL_ECORRUPT, rd->sec.offset, "byte %zu: section '%c' after the end section",
			            (size_t)rd->sec.offset, rd->sec.type);
		c.p = rd->sec.payload;
		c.n = rd->sec.len;
		ev->offset = rd->sec.offset;
		if (rd->v7 && (rd->sec.type == 'D' || rd->sec.type == 'A' || rd->sec.type == 'C')) {
			if (rd->v7->mseen)
				return fail(rd, RPL_ECORRUPT, rd->sec.offset, "byte %zu: section '%c' after the match section",
				            (size_t)rd->sec.offset, rd->sec.type);
			rd->v7->dsections = 1;
		}
		switch (rd->sec.type) {
		case 'D': return deal_section(rd, &c, ev);
		case 'A':
			if ((got = decision_section(rd, &c)) != 0)
				return got;
			continue;
		case 'C':
			if ((got = claim_section(rd, &c, ev)) != 0)
				return got;
			continue;
		case BRP_MATCH_TYPE:
			if (!rd->v7)
				goto unknown;
			if ((got = match_section(rd, &c)) != 0 || (got = m_next(rd, ev, lean)) != 0)
				return got;
			continue;
		case 'E': {
			/* version 5: no flags, the header says whether the log was salvaged (format.md 19.4) */
			uint64_t flags = rd->version >= BRP_VERSION_5 ? (rd->hdr.flags & BRP_FLAG_RECOVERED) != 0
			                                              : rpl__cur_varint(&c);
			if (c.bad || (c.pos != c.n && rd->version < BRP_VERSION_5) || flags > 1)
				return fail(rd, RPL_ECORRUPT, rd->sec.offset, "byte %zu: malformed end section",
				            (size_t)rd->sec.offset);
			rd->ended = 1;
			if (rd->v7 && c.pos < c.n)
				return fail(rd, RPL_ECORRUPT, rd->sec.offset,
				            "byte %zu: an end section that holds claims (version 7 codes them in the match's stream)",
				            (size_t)rd->sec.offset);
			if (c.pos < c.n) {
				/* version 5: the claims after the last decision, then the end (format.md 19.4) */
				struct cursor rest = { c.p + c.pos, c.n - c.pos, 0, 0 };
				if ((got = claim_section(rd, &rest, ev)) != 0)
					return got;
				rd->end_due = 1 + (int)(flags & 1);
				continue;
			}
			ev->kind = RPL_EV_END;
			ev->recovered = (int)(flags & 1);
			return 1;
		}
		case 'R':
			if (rd->version < BRP_VERSION_COMMIT)
				goto unknown; /* version 2 knows no R */
			if (!rd->hdr.info.commitment || rd->revealed || c.n != RPL_DEAL_SEED_SIZE)
				return fail(rd, RPL_ECORRUPT, rd->sec.offset, "byte %zu: %s", (size_t)rd->sec.offset,
				            !rd->hdr.info.commitment ? "a reveal section in a log without a commitment"
				            : rd->revealed           ? "a second reveal section"
				                                     : "a reveal section that is not a 32-byte seed");
			memcpy(rd->seed, c.p, RPL_DEAL_SEED_SIZE);
			rd->revealed = 1;
			ev->kind = RPL_EV_REVEAL;
			memcpy(ev->seed, rd->seed, RPL_DEAL_SEED_SIZE);
			return 1;
		case 'H':
			return fail(rd, RPL_ECORRUPT, rd->sec.offset, "byte %zu: a second header section", (size_t)rd->sec.offset);
		default:
unknown:
			if (rd->sec.type >= 'A' && rd->sec.type <= 'Z')
				return fail(rd, RPL_EUNSUPPORTED, rd->sec.offset,
				            "byte %zu: required section '%c' is unknown to this reader (a newer format?)",
				            (size_t)rd->sec.offset, rd->sec.type);
			continue; /* an optional section this reader does not know: skipped */
		}
	}
}

/* A queued event keeps its kind's fields only. */
static void q_put(struct qev *q, const rpl_event *ev)
{
	q->kind = (uint8_t)ev->kind;
	q->deal = ev->deal;
	q->offset = ev->offset;
	if (ev->kind == RPL_EV_ACTION) {
		q->turn = ev->turn;
		q->seat = ev->seat;
		q->action = ev->action;
	} else {
		q->score[0] = ev->score[0];
		q->score[1] = ev->score[1];
	}
}

/* lean: the other fields keep what the previous event left (rpl__reader_next_lean), else they are 0. */
static void q_get(const struct qev *q, rpl_event *ev, int lean)
{
	if (!lean)
		memset(ev, 0, sizeof(*ev));
	ev->kind = q->kind;
	ev->deal = q->deal;
	ev->offset = q->offset;
	if (q->kind == RPL_EV_ACTION) {
		ev->turn = q->turn;
		ev->seat = q->seat;
		ev->action = q->action;
	} else {
		ev->score[0] = q->score[0];
		ev->score[1] = q->score[1];
	}
}

/*
 * Version 7: read the deal whose event is in *ev to its end, to fill its
 * layout (format.md 21.4). Its events wait in the queue, and what ended it
 * (the next deal, the end, the log's end or an error) after them; a deal
 * longer than the queue is read ahead by a copy of the reader, and then its
 * events are read a second time as they are delivered.
 */
static int v7_read_ahead(rpl_reader *rd, rpl_event *ev)
{
	struct v7 *v = rd->v7;
	struct v7q *q = rd->v7q;
	struct rpl_reader *saved;
	struct v7 *vsaved;
	rpl_event t;
	int got;

	if (!q) {
		if (!(q = rd->v7q = malloc(sizeof(*q))))
			return fail(rd, RPL_ENOMEM, ev->offset, "out of memory");
		q->qn = q->qpos = q->cap = 0;
		q->tail_due = 0;
		q->q = NULL;
	}
	saved = &q->saved;
	vsaved = &q->vsaved;
	memcpy(saved, rd, sizeof(*rd));
	memcpy(vsaved, v, sizeof(*v));
	q->qn = q->qpos = 0;
	for (;;) {
		got = next_event(rd, &t, 2);
		if (got != 1 || t.kind == RPL_EV_DEAL || t.kind == RPL_EV_END)
			break;
		if (q->qn == q->cap && q->cap < V7_QUEUE) {
			size_t cap = q->cap ? 2 * q->cap : 256;
			struct qev *p = realloc(q->q, cap * sizeof(*p));
			if (p) {
				q->q = p;
				q->cap = cap;
			}
		}
		if (q->qn == q->cap) {
			/*
			 * Too long to hold: back to where the deal began, and a copy of
			 * the reader (sharing its bytes, header and identity, which
			 * reading does not change) reads it to its end.
			 */
			memcpy(rd, saved, sizeof(*rd));
			memcpy(v, vsaved, sizeof(*v));
			saved->v7 = vsaved;
			do
				got = next_event(saved, &t, 2);
			while (got == 1 && t.kind != RPL_EV_DEAL && t.kind != RPL_EV_END);
			if (got == 1 && t.kind == RPL_EV_DEAL) {
				ev->layout = vsaved->finished;
				memcpy(v->ldrawn, vsaved->fdrawn, sizeof(v->ldrawn));
			} else {
				v7_fill(saved, &ev->layout);
				rpl__track_drawn(&saved->t, v->ldrawn);
			}
			v->ldeal = ev->deal;
			q->qn = q->qpos = 0;
			return 1;
		}
		q_put(&q->q[q->qn++], &t);
	}
	if (got == 1 && t.kind == RPL_EV_DEAL) {
		ev->layout = v->finished;
		memcpy(v->ldrawn, v->fdrawn, sizeof(v->ldrawn));
	} else {
		v7_fill(rd, &ev->layout);
		rpl__track_drawn(&rd->t, v->ldrawn);
	}
	v->ldeal = ev->deal;
	/* what ended the deal, whole: the next deal's event (layout and all) or the end's */
	memset(&q->tail, 0, sizeof(q->tail));
	if (got == 1) {
		q->tail.kind = t.kind;
		q->tail.deal = t.kind == RPL_EV_DEAL ? t.deal : 0;
		q->tail.offset = t.offset;
		q->tail.recovered = t.kind == RPL_EV_END ? t.recovered : 0;
		if (t.kind == RPL_EV_DEAL)
			q->tail.layout = t.layout;
	}
	q->tail_got = got;
	q->tail_due = 1;
	if (got < 0)
		rd->failed = 0; /* kept for its turn, after the queue */
	return 1;
}

/*
 * Version 7: the next event: of the M stream; else from the queue, then
 * what ended it; a deal's event once its layout is filled.
 */
static __attribute__((noinline)) int v7_event(rpl_reader *rd, rpl_event *ev, int lean)
{
	struct v7 *v = rd->v7;
	struct v7q *q = rd->v7q;
	int got;

	if (v->mstream) {
		if (!lean)
			memset(ev, 0, sizeof(*ev));
		got = m_next(rd, ev, lean);
		if (got == 2) {
			if (!lean)
				memset(ev, 0, sizeof(*ev));
			got = decode_decision(rd, ev);
		}
		if (got != 0)
			return got;
	}

	if (q && q->qpos < q->qn) {
		q_get(&q->q[q->qpos++], ev, lean);
		return 1;
	}
	if (q && q->tail_due) {
		q->tail_due = 0;
		if (q->tail_got < 0)
			return rd->failed = q->tail_got;
		got = q->tail_got;
		*ev = q->tail;
	} else {
		got = next_event(rd, ev, lean);
	}
	/* a deal of D sections: its layout is whole once it is read to its end */
	if (got == 1 && ev->kind == RPL_EV_DEAL && !rd->v7->from_m)
		return v7_read_ahead(rd, ev);
	return got;
}

/*
 * Version 7: the next event. A deal of the M stream that ends where the
 * bookkeeping says it can and has no claim between its decisions (21.3),
 * while nothing says it may be over (no hand is empty, the pile drawn from
 * is not done): its next decision, at once, with nothing to keep across
 * the call (a tail call); else v7_event.
 */
static __attribute__((noinline)) int v7_next(rpl_reader *rd, rpl_event *ev, int lean)
{
	const struct track *t = &rd->t;

	if (lean && rd->v7->fast && !rd->dec.bad && rd->decisions < RPL_MAX_DECISIONS && t->src_pos < t->src_len &&
	    t->last >= 0 && t->hand_n[t->last] != 0) {
		rd->decisions++;
		return decode_decision(rd, ev);
	}
	return v7_event(rd, ev, lean);
}

/* Every event read goes into the match identity; the end of the log completes it. */
static int reader_next(rpl_reader *rd, rpl_event *ev, int lean)
{
	int got;

	if (!rd || !ev)
		return RPL_EINVAL;
	if (rd->failed)
		return rd->failed;
	if (!rd->ident)
		return RPL_ESTATE; /* the header was not read: the open failed */
	got = rd->v7 ? v7_next(rd, ev, lean) : next_event(rd, ev, lean);
	if (got == 0 && !rd->done) {
		(void)rpl__ident_final(rd->ident, rd->match_id); /* out of memory: "", which rpl_reader_match_id reports */
		rd->done = 1;
	} else if (got == 1) {
		if (ev->kind == RPL_EV_DEAL)
			rpl__ident_deal(rd->ident, ev->deal, rd->hdr.info.nplayers, &ev->layout);
		else if (ev->kind == RPL_EV_ACTION)
			rpl__ident_action(rd->ident, &ev->action);
		else if (ev->kind == RPL_EV_CLAIM)
			rpl__ident_claim(rd->ident, ev->deal, ev->score);
	}
	return got;
}

int rpl_reader_next(rpl_reader *rd, rpl_event *ev)
{
	return reader_next(rd, ev, 0);
}

int rpl__reader_next_lean(rpl_reader *rd, rpl_event *ev)
{
	return reader_next(rd, ev, 1);
}
