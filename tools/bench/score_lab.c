/*
 * brp-score-lab: what a version 7's claims and deal ends would cost, from
 * the format's card bookkeeping alone (not installed; issue 27,
 * docs/format.md 20.8).
 *
 *   brp-score-lab DIR...
 *
 * A version 7 would code each deal claim against a score the format
 * computes itself, from the bookkeeping of section 8 and the header's
 * parameters, with no call to the rules engine (so that a rule fix never
 * changes how a claim reads). This is that computation, measured: for each
 * deal claim of every log of each DIR, the score of each side at the end of
 * its deal from the cards alone (the melds' card values, a canastra's
 * category from its cards, the side whose seat ended with an empty hand,
 * the cards left in the hands, the mortos taken), compared with the claim.
 * It prints, a DIR a line, the deal claims, those both of whose scores it
 * predicts, the misses, and what the claims would cost coded as "the
 * prediction" (an adaptive bit, as the codec's) or else the two
 * differences (as zigzag varints), against the bytes of their scores
 * stored as version 6 stores them. BRP_SCORE_LAB_MISSES set lists each
 * miss.
 *
 * And a second line: what each deal's end would cost coded in the stream
 * (in place of a count of its decisions), a bit after every decision in
 * one of four contexts from the bookkeeping (end_ctx).
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "log/codec.h"
#include "libreplay/libreplay.h"

/* The rule parameters a score needs, read through the public API. */
struct params {
	int joker, two, ace, high, low;
	int dirty, clean, clean13, clean14, dirty14;
	int out, no_morto, if_none, unplayed, sides;
};

static int param(const rpl_rules *r, int id)
{
	int v = 0;
	rpl_rules_get_id(r, id, &v);
	return v;
}

static void params_of(const rpl_rules *r, struct params *p)
{
	p->joker = param(r, RPL_P_VALUE_JOKER);
	p->two = param(r, RPL_P_VALUE_TWO);
	p->ace = param(r, RPL_P_VALUE_ACE);
	p->high = param(r, RPL_P_VALUE_HIGH);
	p->low = param(r, RPL_P_VALUE_LOW);
	p->dirty = param(r, RPL_P_BONUS_DIRTY);
	p->clean = param(r, RPL_P_BONUS_CLEAN);
	p->clean13 = param(r, RPL_P_BONUS_CLEAN13);
	p->clean14 = param(r, RPL_P_BONUS_CLEAN14);
	p->dirty14 = param(r, RPL_P_BONUS_DIRTY14);
	p->out = param(r, RPL_P_BONUS_GOING_OUT);
	p->no_morto = param(r, RPL_P_PENALTY_NO_MORTO);
	p->if_none = param(r, RPL_P_PENALTY_IF_NONE_TAKEN);
	p->unplayed = param(r, RPL_P_UNPLAYED_MORTO_COST);
	p->sides = param(r, RPL_P_PENALTY_NO_MORTO_SIDES);
}

static int value(const struct params *p, rpl_card c)
{
	int rank;
	if (c == RPL_JOKER)
		return p->joker;
	rank = RPL_CARD_RANK(c);
	if (rank == 1)
		return p->ace;
	if (rank == 2)
		return p->two;
	return rank >= 8 ? p->high : p->low;
}

/*
 * 1 when a meld's cards can lie as a run of one suit with no card standing
 * for another (no joker, no 2 of another suit, each rank once, an ace low or
 * high or, twice, both): a canastra of such cards is clean.
 */
static int natural_run(const uint8_t *cnt)
{
	int suit = -1, r[15] = { 0 }, lo = 15, hi = 0;

	if (cnt[RPL_JOKER])
		return 0;
	for (int c = 0; c < RPL_JOKER; c++) {
		if (!cnt[c])
			continue;
		if (suit >= 0 && RPL_CARD_SUIT(c) != suit)
			return 0;
		suit = RPL_CARD_SUIT(c);
		r[RPL_CARD_RANK(c)] += cnt[c];
	}
	if (r[1] == 2) {
		for (int k = 2; k <= 13; k++)
			if (r[k] != 1)
				return 0;
		return 1;
	}
	for (int k = 2; k <= 13; k++) {
		if (r[k] > 1)
			return 0;
		if (r[k]) {
			lo = k < lo ? k : lo;
			hi = k > hi ? k : hi;
		}
	}
	for (int k = lo; k <= hi; k++)
		if (!r[k])
			return 0;
	/* an ace extends the run at 1 (below a 2) or at 14 (above a king) */
	return !r[1] || lo == 2 || hi == 13 || lo > hi;
}

struct deal {
	uint8_t meld[2][RPL_MAX_MELDS][RPL_NFACES];
	uint8_t nmelds[2];
	int8_t morto_side[2]; /* -1 not taken, else the side that took it */
	uint8_t unplayed[RPL_MAX_SEATS];
	int last_seat, last_kind;
};

/* What each part of a side's score came to (the parts of rpl_score). */
struct parts {
	int melded, bonus, out, hand, morto;
};

static void predict(const struct params *p, const struct track *t, const struct deal *d, struct parts sc[2])
{
	int out_seat = -1, any_taken = d->morto_side[0] >= 0 || d->morto_side[1] >= 0;

	/* the deal ended by going out when a hand is empty: the last to act's, if it is */
	for (int s = 0; s < t->n; s++)
		if (t->hand_n[s] == 0 && (out_seat < 0 || s == d->last_seat))
			out_seat = s;
	memset(sc, 0, 2 * sizeof(*sc));
	for (int side = 0; side < 2; side++) {
		struct parts *x = &sc[side];
		for (int i = 0; i < d->nmelds[side]; i++) {
			const uint8_t *m = d->meld[side][i];
			int len = 0, clean = natural_run(m);
			for (int c = 0; c < RPL_NFACES; c++) {
				len += m[c];
				x->melded += m[c] * value(p, (rpl_card)c);
			}
			if (len == 14)
				x->bonus += clean ? p->clean14 : p->dirty14;
			else if (len >= 7)
				x->bonus += !clean ? p->dirty : len == 13 ? p->clean13 : p->clean;
		}
		if (out_seat >= 0 && (out_seat & 1) == side)
			x->out = p->out;
		for (int s = side; s < t->n; s += 2) {
			if (d->unplayed[s] && p->unplayed > 0 && out_seat >= 0 && (out_seat & 1) != side) {
				x->hand -= p->unplayed;
				continue;
			}
			for (int c = 0; c < RPL_NFACES; c++)
				x->hand -= t->hand[s][c] * value(p, (rpl_card)c);
		}
		if (d->morto_side[0] != side && d->morto_side[1] != side && (p->if_none || any_taken) &&
		    !(p->sides == RPL_PENALTY_NOT_OUT && out_seat >= 0 && (out_seat & 1) == side))
			x->morto = -p->no_morto;
	}
}

/* The deal's own notes of a decision, before the bookkeeping applies it. */
static void note(struct deal *d, const struct track *t, const rpl_action *a)
{
	int seat = rpl__track_actor(t, a->kind);

	if (a->kind != RPL_ACT_MORTO && !t->open)
		d->unplayed[seat] = 0; /* the seat's turn starts */
	switch (a->kind) {
	case RPL_ACT_MELD:
		if (d->nmelds[seat & 1] < RPL_MAX_MELDS) {
			uint8_t *m = d->meld[seat & 1][d->nmelds[seat & 1]++];
			memset(m, 0, RPL_NFACES);
			for (int i = 0; i < a->ncards; i++)
				m[a->cards[i]]++;
		}
		break;
	case RPL_ACT_ADD:
		if (a->side < 2 && a->meld < d->nmelds[a->side])
			for (int i = 0; i < a->ncards; i++)
				d->meld[a->side][a->meld][a->cards[i]]++;
		break;
	case RPL_ACT_MORTO:
		if (a->morto < 2)
			d->morto_side[a->morto] = (int8_t)(seat & 1);
		/* picked up after a discard: the seat plays it only from its next turn */
		if (t->last_kind == RPL_ACT_DISCARD)
			d->unplayed[seat] = 1;
		break;
	default: break;
	}
	d->last_seat = seat;
	d->last_kind = a->kind;
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	uint8_t *p = NULL;
	if (!f)
		return NULL;
	if (fstat(fileno(f), &st) == 0 && (p = malloc((size_t)st.st_size + 1)) != NULL) {
		*n = (size_t)st.st_size;
		if (fread(p, 1, *n, f) != *n) {
			free(p);
			p = NULL;
		}
	}
	fclose(f);
	return p;
}

/* Bytes of a zigzag varint. */
static int varint_len(int64_t v)
{
	uint64_t z = v < 0 ? ((uint64_t)(-(v + 1)) << 1) | 1 : (uint64_t)v << 1;
	int n = 1;
	while (z >= 128) {
		z >>= 7;
		n++;
	}
	return n;
}

/* An adaptive bit as the codec's (format.md 6.2): its cost in bits, and the probability learnt. */
struct abit {
	uint32_t p0, n; /* P(0) in 11 bits; bits seen */
};

static double abit_code(struct abit *b, int bit)
{
	if (b->n == UINT32_MAX) /* a fixed bit: P(1) = 1/4096 */
		return -log2(bit ? 1.0 / 4096 : 4095.0 / 4096);
	static const uint8_t rate_of[7] = { 1, 2, 2, 3, 3, 3, 4 };
	uint32_t r = rate_of[b->n < 6 ? b->n : 6];
	double cost = -log2((bit ? 2048.0 - b->p0 : (double)b->p0) / 2048.0);
	b->p0 = bit ? b->p0 - (b->p0 >> r) : b->p0 + ((2048 - b->p0) >> r);
	b->n++;
	return cost;
}

/*
 * Where a deal can end, from the bookkeeping: 0 the seat that acted has an
 * empty hand and no morto is left for its side (it took one, or none is
 * left), 3 an empty hand with a morto left for the side, 1 a turn ended
 * and nothing is left to draw (the stock done, every morto taken or drawn
 * from), 2 none of
 * these (coded with a fixed probability of 1/4096: a deal ends there only
 * in a log cut short or recorded unchecked).
 */
static int end_ctx(const struct track *t, const struct deal *d, int seat)
{
	if (t->hand_n[seat] == 0) {
		int left = (t->morto_used[0] == 0) + (t->morto_used[1] == 0);
		int has = d->morto_side[0] == (seat & 1) || d->morto_side[1] == (seat & 1);
		return has || !left ? 0 : 3;
	}
	if (!t->open && t->src_pos >= t->src_len && t->morto_used[0] && t->morto_used[1])
		return 1;
	return 2;
}

static void run(const char *dir)
{
	DIR *dd = opendir(dir);
	struct dirent *de;
	uint64_t matches = 0, claims = 0, hits = 0, miss[4] = { 0 }, whole = 0;
	double bits = 0;
	uint32_t p0 = 1024, n0 = 0; /* the "prediction" bit: P(hit) in 11 bits, adapted as the codec's; bits seen */
	double end_bits = 0;
	uint64_t ends[4] = { 0 }, at[4] = { 0 };

	if (!dd) {
		perror(dir);
		exit(2);
	}
	while ((de = readdir(dd)) != NULL) {
		char path[4096];
		size_t len = strlen(de->d_name), n = 0;
		uint8_t *data;
		rpl_reader *rd = NULL;
		rpl_event ev;
		struct track t;
		static struct deal d;
		struct params p;
		const rpl_match_info *info;
		int dealer = 0, open = 0, deal = 0, pending = -1;
		struct abit endb[4] = { { 1024, 0 }, { 1024, 0 }, { 0, UINT32_MAX }, { 1024, 0 } };

		if (len < 5 || strcmp(de->d_name + len - 4, ".brp") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!(data = slurp(path, &n)))
			continue;
		if (rpl_reader_open_memory(&rd, data, n) != 0) {
			rpl_reader_free(rd);
			free(data);
			continue;
		}
		info = rpl_reader_info(rd);
		params_of(info->rules, &p);
		while (rpl_reader_next(rd, &ev) == 1) {
			if (ev.kind == RPL_EV_DEAL) {
				if (pending >= 0) {
					end_bits += abit_code(&endb[pending], 1);
					ends[pending]++;
				}
				pending = -1;
				dealer = ev.deal == 1 ? info->first_dealer : (dealer + 1) % info->nplayers;
				rpl__track_deal(&t, info->nplayers, dealer, &ev.layout);
				memset(&d, 0, sizeof(d));
				d.morto_side[0] = d.morto_side[1] = -1;
				d.last_seat = -1;
				open = 1;
				deal = ev.deal;
			} else if (ev.kind == RPL_EV_ACTION && open) {
				int seat = rpl__track_actor(&t, ev.action.kind);
				if (pending >= 0)
					end_bits += abit_code(&endb[pending], 0);
				note(&d, &t, &ev.action);
				rpl__track_apply(&t, &ev.action, NULL, 0);
				pending = end_ctx(&t, &d, seat);
				at[pending]++;
			} else if (ev.kind == RPL_EV_CLAIM && open && ev.deal == deal && deal > 0) {
				struct parts sc[2];
				int hit;
				predict(&p, &t, &d, sc);
				claims++;
				whole += (uint64_t)(varint_len(ev.score[0]) + varint_len(ev.score[1]));
				hit = 1;
				for (int s = 0; s < 2; s++) {
					int tot = sc[s].melded + sc[s].bonus + sc[s].out + sc[s].hand + sc[s].morto;
					if (tot != ev.score[s]) {
						int diff = ev.score[s] - tot;
						hit = 0;
						if (getenv("BRP_SCORE_LAB_MISSES"))
							printf("%s deal %d side %d: claimed %d, predicted %d (melded %d bonus %d out %d hand "
							       "%d morto %d)\n",
							       path, deal, s, ev.score[s], tot, sc[s].melded, sc[s].bonus, sc[s].out, sc[s].hand,
							       sc[s].morto);
						bits += 8.0 * varint_len(diff);
						/* a canastra's category and going out are multiples of 100 in every profile */
						miss[diff % 100 == 0 ? 1 : 3]++;
					}
				}
				/* the bit, adaptive: its cost at the estimate before it (counts, as the codec's do) */
				bits += -log2((hit ? (double)p0 : 2048.0 - p0) / 2048.0);
				{
					static const uint8_t rate_of[7] = { 1, 2, 2, 3, 3, 3, 4 }; /* the codec's (format.md 6.2) */
					uint32_t r = rate_of[n0 < 6 ? n0 : 6];
					p0 = hit ? p0 + ((2048 - p0) >> r) : p0 - (p0 >> r);
					n0++;
				}
				hits += (uint64_t)hit;
			}
		}
		if (pending >= 0) {
			end_bits += abit_code(&endb[pending], 1);
			ends[pending]++;
		}
		matches++;
		p0 = 1024;
		n0 = 0;
		rpl_reader_free(rd);
		free(data);
	}
	closedir(dd);
	if (!matches || !claims) {
		printf("%s: no deal claims\n", dir);
		return;
	}
	printf("%s: matches %llu deal_claims %llu predicted %llu (%.2f %%); scores missed by a multiple of 100 %llu, "
	       "by another amount %llu; bytes a match: scores stored %.2f, coded against the prediction %.2f\n",
	       dir, (unsigned long long)matches, (unsigned long long)claims, (unsigned long long)hits,
	       100.0 * (double)hits / (double)claims, (unsigned long long)miss[1], (unsigned long long)miss[3],
	       (double)whole / (double)matches, bits / 8 / (double)matches);
	printf("%s: each deal's end, a bit after every decision: deals ended with an empty hand %llu (of %llu such "
	       "decisions; with a morto left for the side %llu of %llu), with nothing to draw %llu (of %llu), otherwise "
	       "%llu (of %llu); bytes a match %.2f\n",
	       dir, (unsigned long long)ends[0], (unsigned long long)at[0], (unsigned long long)ends[3],
	       (unsigned long long)at[3], (unsigned long long)ends[1], (unsigned long long)at[1],
	       (unsigned long long)ends[2], (unsigned long long)at[2], end_bits / 8 / (double)matches);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: brp-score-lab DIR...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++)
		run(argv[i]);
	return 0;
}
