/*
 * The recorder. While recording, the file grows by whole sections: each
 * flush appends the decisions since the last one as a section of their own
 * with its checksum, so a killed process loses nothing it flushed. Closing
 * rewrites the match in its compact form (one section a deal) through a
 * temporary file renamed over the log.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "log/format.h"
#include "rules/game_impl.h"
#include "base/msg.h"
#include "base/grow.h"
#include "log/recorder_impl.h"
#include "log/sign_impl.h"
#include "log/tmpfile.h"

/* What was recorded, kept to write the compact form on close: struct mitem (codec.h). */
#define item mitem

/* Where the log goes. */
enum sink_kind {
	SINK_FILE,  /* a path: appended to, the compact form renamed over it */
	SINK_CALLS, /* the caller's callbacks (rpl_recorder_sink) */
	SINK_MEMORY /* mem: lent by rpl_recorder_log */
};

struct rpl_recorder {
	int kind; /* enum sink_kind */
	int fd;
	int fd_lent; /* SINK_FILE without a path: fd is the caller's (rpl__recorder_open_fd) */
	char *path;
	rpl_recorder_sink sink; /* SINK_CALLS */
	struct buf mem;         /* SINK_MEMORY: the log as flushed; after close, the compact form */
	struct buf compact;     /* after close: the compact form (SINK_FILE, SINK_CALLS) */
	unsigned flags;
	struct rpl_rules rules;
	rpl_match_info info;
	char *names[RPL_MAX_SEATS];
	char **keys, **values;
	uint8_t commitment[RPL_DEAL_COMMIT_SIZE];
	uint8_t player_seeds[RPL_DEAL_MAX_PLAYER_SEEDS][RPL_DEAL_SEED_SIZE];
	uint8_t seed[RPL_DEAL_SEED_SIZE]; /* committed mode: the seed, revealed at close */
	int have_seed;
	struct rpl_game *game; /* checked mode */
	struct buf header;     /* the H section, framed */
	/* bookkeeping and coding of the current deal */
	int deal, dealer;
	struct track t;
	struct model m;
	struct buf enc_out;
	struct rc_enc enc;
	int sec_open, sec_deal; /* a section is being coded; it is a D */
	uint32_t sec_count;
	struct buf out;       /* whole sections not yet written */
	size_t hashed;        /* bytes of out already in the signing hash (a file's append to try again) */
	uint64_t written;     /* bytes written to the file */
	size_t decisions;     /* decisions recorded in the match */
	size_t claims;        /* claims recorded in the match */
	int version;          /* the format version written (format.h) */
	int64_t claim_sum[2]; /* the deal claims recorded, added up (rpl__claim_put) */
	/* history */
	struct item *items;
	size_t nitems, capitems;
	rpl_layout *layouts;
	size_t nlayouts, caplayouts;
	int recovered, closed, failed;
	int rule;
	/* signing: the key (borrowed) and the hash of every byte written so far */
	const rpl_seckey *key;
	rpl_prehash *hash;
	char errmsg[RPL_ERRMSG_SIZE];
};

static int rfail(struct rpl_recorder *rec, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int rfail(struct rpl_recorder *rec, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rpl__vmsgf(rec->errmsg, fmt, ap);
	va_end(ap);
	return err;
}

/*
 * Room a section keeps for what is not coded yet: its deal and count varints
 * (at most 2 + 3 bytes), the coder's pending bytes and end (pending + 5), and
 * one more decision (a few hundred bytes at most: under 200 symbols of at
 * most 12 bits each).
 */
#define SECTION_SLACK 4096u
/* Room the file keeps below the reader's limit: an end section, a deal, claims. */
#define FILE_SLACK (64u << 10)

/* The bytes the stream being coded may take once finished, at most. */
static uint64_t stream_bound(const struct buf *enc_out, const struct rc_enc *enc)
{
	return (uint64_t)(enc_out->n - enc->start) + enc->pending + 5;
}

/*
 * A D or A section is closed when it holds as many decisions as a reader
 * accepts in one, or when its payload could not take one more decision
 * (docs/format.md, 5.2): the deal goes on in an A, so no writer ever
 * makes a section its reader refuses, whatever the length of a deal.
 */
static int section_full(const struct buf *enc_out, const struct rc_enc *enc, uint32_t count)
{
	return count >= RPL_MAX_SECTION || stream_bound(enc_out, enc) + SECTION_SLACK > RPL_MAX_SECTION;
}

/* The bytes of the log once what is being coded is written, at most. */
static uint64_t log_bytes(const struct rpl_recorder *rec)
{
	return rec->written + rec->out.n + (rec->sec_open ? stream_bound(&rec->enc_out, &rec->enc) + 8 : 0);
}

/* Running out of memory says so, whatever was being done. */
static int oom(struct rpl_recorder *rec)
{
	return rfail(rec, RPL_ENOMEM, "out of memory");
}

static char *dupstr(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	char *d = malloc(n + 1);
	if (d) {
		if (n)
			memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

static int push_item(struct rpl_recorder *rec, const struct item *it)
{
	struct item *p = rpl__grow(rec->items, &rec->capitems, rec->nitems + 1, sizeof(*p), 256);

	if (!p)
		return oom(rec);
	rec->items = p;
	rec->items[rec->nitems++] = *it;
	return 0;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int rpl_recorder_open(rpl_recorder **out, const char *path, const rpl_match_info *info, unsigned flags)
{
	return rpl_recorder_open_signed(out, path, info, flags, NULL);
}

static int seed_cmp(const void *a, const void *b)
{
	return memcmp(a, b, RPL_DEAL_SEED_SIZE);
}

/*
 * A recorder of the kind given with info copied, its header built and, with
 * a key, its hash set up; nothing written yet. version: 0 for the newest
 * (rpl__header_version), else the one rpl__recorder_open_fd was asked for.
 * *out is set whenever rec was allocated, failed or not.
 */
static int setup(struct rpl_recorder **out, int kind, const rpl_match_info *info, unsigned flags, const rpl_seckey *key,
                 int version)
{
	struct rpl_recorder *rec;
	char why[RPL_ERRMSG_SIZE];
	int err;

	rec = calloc(1, sizeof(*rec));
	if (!rec)
		return RPL_ENOMEM;
	*out = rec;
	rec->kind = kind;
	rec->fd = -1;
	rec->flags = flags;
	rec->rules = *info->rules;
	rec->info = *info;
	rec->info.rules = &rec->rules;
	for (int s = 0; s < RPL_MAX_SEATS; s++) {
		rec->names[s] = dupstr(s < info->nplayers ? info->players[s] : NULL);
		if (!rec->names[s])
			return oom(rec);
		rec->info.players[s] = rec->names[s];
	}
	if (info->nmeta) {
		if (info->nmeta > RPL_MAX_META || !info->meta_keys || !info->meta_values)
			return rfail(rec, RPL_EINVAL, "at most %d metadata entries", RPL_MAX_META);
		rec->keys = calloc(info->nmeta, sizeof(char *));
		rec->values = calloc(info->nmeta, sizeof(char *));
		if (!rec->keys || !rec->values)
			return oom(rec);
		for (size_t i = 0; i < info->nmeta; i++) {
			rec->keys[i] = dupstr(info->meta_keys[i]);
			rec->values[i] = dupstr(info->meta_values[i]);
			if (!rec->keys[i] || !rec->values[i])
				return oom(rec);
		}
		rec->info.meta_keys = (const char *const *)rec->keys;
		rec->info.meta_values = (const char *const *)rec->values;
	}
	if (info->commitment) {
		if (info->nplayer_seeds < 0 || info->nplayer_seeds > RPL_DEAL_MAX_PLAYER_SEEDS ||
		    (info->nplayer_seeds && !info->player_seeds))
			return rfail(rec, RPL_EINVAL, "a committed match has 0 to %d player seeds", RPL_DEAL_MAX_PLAYER_SEEDS);
		if (info->commit_version != 0 && info->commit_version != RPL_COMMIT_V1 && info->commit_version != RPL_COMMIT_V2)
			return rfail(rec, RPL_EINVAL, "unknown commitment protocol %d", info->commit_version);
		rec->info.commit_version = info->commit_version == RPL_COMMIT_V1 ? RPL_COMMIT_V1 : RPL_COMMIT_V2;
		if (rec->info.commit_version == RPL_COMMIT_V2 && info->nplayer_seeds > info->nplayers)
			return rfail(rec, RPL_EINVAL, "%d player seeds for %d players: each seat adds one at most",
			             info->nplayer_seeds, info->nplayers);
		memcpy(rec->commitment, info->commitment, RPL_DEAL_COMMIT_SIZE);
		if (info->nplayer_seeds)
			memcpy(rec->player_seeds, info->player_seeds, (size_t)info->nplayer_seeds * RPL_DEAL_SEED_SIZE);
		if (rec->info.commit_version == RPL_COMMIT_V2) {
			/* protocol 2 stores them in ascending order, each once (format.md 18.1) */
			qsort(rec->player_seeds, (size_t)info->nplayer_seeds, RPL_DEAL_SEED_SIZE, seed_cmp);
			for (int i = 1; i < info->nplayer_seeds; i++)
				if (memcmp(rec->player_seeds[i - 1], rec->player_seeds[i], RPL_DEAL_SEED_SIZE) == 0)
					return rfail(rec, RPL_EINVAL, "two players' seeds are the same");
		}
		rec->info.commitment = rec->commitment;
		rec->info.player_seeds = (const uint8_t(*)[RPL_DEAL_SEED_SIZE])rec->player_seeds;
	}
	rec->version = rpl__header_version(&rec->info, key ? RPL_LOG_SIGNED : 0);
	if (version) {
		/* an older version written again (a text's [FormatVersion]): one that can hold this match */
		int v1 = info->commitment && info->commit_version == RPL_COMMIT_V1;
		if ((version == BRP_VERSION && (info->commitment || key)) || (version == BRP_VERSION_COMMIT) != v1 ||
		    (version == BRP_VERSION_7 && info->commitment) || version < BRP_VERSION || version > BRP_VERSION_7)
			return rfail(rec, RPL_EINVAL, "format version %d cannot hold this match", version);
		rec->version = version;
	}
	err = rpl__header_put(&rec->header, &rec->info, NULL, key ? RPL_LOG_SIGNED : 0, rec->version, why, sizeof(why));
	if (err)
		return rfail(rec, err, "%s", why);
	if (rec->header.oom)
		return oom(rec);
	if (!(flags & RPL_RECORD_UNCHECKED)) {
		err = rpl_game_new(&rec->game, &rec->rules, info->nplayers, info->first_dealer);
		if (err == RPL_ENOMEM)
			return oom(rec);
		if (err)
			return rfail(rec, err, "the rules do not allow a match of %d players", info->nplayers);
	}
	if (key) {
		err = rpl_prehash_new(&rec->hash);
		if (err)
			return rfail(rec, err, "the signature's hash cannot be set up");
		rec->key = key;
	}
	return 0;
}

/* The magic and the header, written at once: the first flush. */
static int start(struct rpl_recorder *rec)
{
	rpl__buf_put(&rec->out, BRP_MAGIC, BRP_MAGIC_LEN);
	rpl__buf_put(&rec->out, rec->header.p, rec->header.n);
	return rpl_recorder_flush(rec);
}

int rpl_recorder_open_signed(rpl_recorder **out, const char *path, const rpl_match_info *info, unsigned flags,
                             const rpl_seckey *key)
{
	struct rpl_recorder *rec = NULL;
	struct stat st;
	int err, created = 0;

	if (!out)
		return RPL_EINVAL;
	*out = NULL;
	if (!path || !info || !info->rules)
		return RPL_EINVAL;
	err = setup(&rec, SINK_FILE, info, flags, key, 0);
	*out = rec;
	if (err)
		return err;
	rec->path = dupstr(path);
	if (!rec->path)
		return oom(rec);
	/*
	 * closing renames the compact form over path: never over a device, a FIFO
	 * or a directory; and never through a symbolic link, which would make
	 * the growing log another file's (another match's log)
	 */
	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode))
			return rfail(rec, RPL_EIO, "a symbolic link, not a regular file");
		if (!S_ISREG(st.st_mode))
			return rfail(rec, RPL_EIO, "not a regular file");
	} else {
		created = errno == ENOENT;
	}
	/* O_NOFOLLOW and O_NONBLOCK: a link or a FIFO put there since is refused, not followed or waited on */
	rec->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
	if (rec->fd < 0)
		return rfail(rec, RPL_EIO, "%s", errno == ELOOP ? "a symbolic link, not a regular file" : strerror(errno));
	if (fstat(rec->fd, &st) != 0 || !S_ISREG(st.st_mode))
		return rfail(rec, RPL_EIO, "not a regular file");
	err = start(rec);
	if (err && created) {
		/*
		 * Not even the header could be written (a full disk): the file this
		 * call created would be an empty or cut log; it goes (issue 13).
		 */
		close(rec->fd);
		rec->fd = -1;
		unlink(path);
	}
	return err;
}

int rpl__recorder_open_fd(rpl_recorder **out, int fd, const rpl_match_info *info, unsigned flags, const rpl_seckey *key,
                          int version)
{
	struct rpl_recorder *rec = NULL;
	int err;

	if (!out)
		return RPL_EINVAL;
	*out = NULL;
	if (fd < 0 || !info || !info->rules)
		return RPL_EINVAL;
	err = setup(&rec, SINK_FILE, info, flags, key, version);
	*out = rec;
	if (err)
		return err;
	rec->fd = fd;
	rec->fd_lent = 1;
	return start(rec);
}

int rpl_recorder_open_sink(rpl_recorder **out, const rpl_recorder_sink *sink, const rpl_match_info *info,
                           unsigned flags, const rpl_seckey *key)
{
	struct rpl_recorder *rec = NULL;
	int err;

	if (!out)
		return RPL_EINVAL;
	*out = NULL;
	if (!sink || !sink->write || !info || !info->rules)
		return RPL_EINVAL;
	err = setup(&rec, SINK_CALLS, info, flags, key, 0);
	*out = rec;
	if (err)
		return err;
	rec->sink = *sink;
	return start(rec);
}

int rpl_recorder_open_memory(rpl_recorder **out, const rpl_match_info *info, unsigned flags, const rpl_seckey *key)
{
	return rpl__recorder_open_memory(out, info, flags, key, 0);
}

int rpl__recorder_open_memory(rpl_recorder **out, const rpl_match_info *info, unsigned flags, const rpl_seckey *key,
                              int version)
{
	struct rpl_recorder *rec = NULL;
	int err;

	if (!out)
		return RPL_EINVAL;
	*out = NULL;
	if (!info || !info->rules)
		return RPL_EINVAL;
	err = setup(&rec, SINK_MEMORY, info, flags, key, version);
	*out = rec;
	if (err)
		return err;
	return start(rec);
}

/* Close the section being coded, if any, into rec->out. */
static void close_section(struct rpl_recorder *rec)
{
	struct buf pay = { 0 };

	if (!rec->sec_open)
		return;
	rpl__rc_enc_finish(&rec->enc);
	if (rec->version < BRP_VERSION_5)
		rpl__buf_varint(&pay, (uint64_t)rec->deal); /* version 5: the next deal's, or the current one (19.4) */
	rpl__buf_varint(&pay, rec->sec_count);
	rpl__buf_put(&pay, rec->enc_out.p, rec->enc_out.n);
	if (pay.oom || rec->enc_out.oom)
		rec->out.oom = 1;
	else
		rpl__section_put(&rec->out, rec->sec_deal ? 'D' : 'A', pay.p, pay.n);
	rpl__buf_free(&pay);
	rec->enc_out.n = 0;
	rec->sec_open = 0;
	rec->sec_count = 0;
}

static void open_section(struct rpl_recorder *rec, int is_deal)
{
	rec->enc_out.n = 0;
	rpl__rc_enc_init(&rec->enc, &rec->enc_out);
	rec->sec_open = 1;
	rec->sec_deal = is_deal;
	rec->sec_count = 0;
}

/* A deal's layout in the recorder's version: version 7 codes the sets, and the draws the order (format.md 21.2). */
static void enc_layout(const struct rpl_recorder *rec, struct rc_enc *enc, const rpl_layout *layout)
{
	if (rec->version == BRP_VERSION_7)
		rpl__enc_layout_sets(enc, rec->info.nplayers, layout);
	else
		rpl__enc_layout(enc, rec->info.nplayers, layout);
}

/* A decision, and in version 7 the card it draws; the tracker t has not applied it yet. */
static int enc_decision(const struct rpl_recorder *rec, struct rc_enc *enc, struct model *m, struct track *t,
                        const rpl_action *a)
{
	if (rpl__enc_action(enc, m, t, a) < 0)
		return -1;
	if (rec->version == BRP_VERSION_7)
		rpl__enc_pick_draw(enc, t, a);
	return 0;
}

int rpl_recorder_deal(rpl_recorder *rec, const rpl_layout *layout)
{
	struct item it = { 0 };
	int err;

	if (!rec || !layout)
		return RPL_EINVAL;
	if (rec->closed || rec->failed)
		return rfail(rec, RPL_ESTATE, "the recorder is closed");
	if (rec->have_seed && rec->deal < RPL_MAX_DEALS) {
		/* committed mode: only the derived layout, checked before anything changes */
		rpl_layout derived;
		if (rpl_deal_derive_match(&derived, rec->seed, &rec->info, rec->deal + 1) < 0)
			return RPL_EINVAL;
		if (!rpl_layout_same(&derived, layout, rec->info.nplayers)) {
			rec->rule = RPL_RULE_LAYOUT;
			return rfail(rec, RPL_EILLEGAL, "deal %d: the layout is not the one the committed seed derives",
			             rec->deal + 1);
		}
	}
	if (rec->game) {
		err = rpl_game_deal(rec->game, layout);
		if (err) {
			rec->rule = rpl_game_rule(rec->game);
			return rfail(rec, err, "%s", rpl_game_errmsg(rec->game));
		}
	} else {
		uint8_t count[RPL_NFACES] = { 0 };
		int n = rec->info.nplayers;
		for (int s = 0; s < n; s++)
			for (int i = 0; i < RPL_HAND_SIZE; i++)
				if (layout->hand[s][i] < RPL_NFACES)
					count[layout->hand[s][i]]++;
		for (int m = 0; m < 2; m++)
			for (int i = 0; i < RPL_MORTO_SIZE; i++)
				if (layout->morto[m][i] < RPL_NFACES)
					count[layout->morto[m][i]]++;
		for (int i = 0; i < RPL_STOCK_SIZE(n); i++)
			if (layout->stock[i] < RPL_NFACES)
				count[layout->stock[i]]++;
		for (rpl_card c = 0; c < RPL_NFACES; c++)
			if (count[c] != rpl_card_copies(c)) {
				rec->rule = RPL_RULE_LAYOUT;
				return rfail(rec, RPL_EINVAL, "the layout holds %d %s; a deal has %d", count[c], rpl_card_name(c),
				             rpl_card_copies(c));
			}
	}
	if (rec->deal >= RPL_MAX_DEALS)
		return rfail(rec, RPL_ELIMIT, "a match log holds at most %d deals", RPL_MAX_DEALS);
	if (log_bytes(rec) + FILE_SLACK > BRP_MAX_FILE)
		return rfail(rec, RPL_ELIMIT, "a match log holds at most %u bytes", BRP_MAX_FILE);
	{
		rpl_layout *p = rpl__grow(rec->layouts, &rec->caplayouts, rec->nlayouts + 1, sizeof(*p), 16);
		if (!p)
			return oom(rec);
		rec->layouts = p;
	}
	it.type = 'D';
	it.deal = (uint16_t)(rec->deal + 1);
	if (push_item(rec, &it) < 0)
		return oom(rec);
	rec->layouts[rec->nlayouts++] = *layout;
	close_section(rec);
	rec->deal++;
	rec->dealer = rec->deal == 1 ? rec->info.first_dealer : (rec->dealer + 1) % rec->info.nplayers;
	rpl__track_deal(&rec->t, rec->info.nplayers, rec->dealer, layout);
	if (rec->deal == 1)
		rpl__model_init(&rec->m, rec->version); /* the model learns over the whole match */
	open_section(rec, 1);
	enc_layout(rec, &rec->enc, layout);
	return 0;
}

int rpl_recorder_seed(rpl_recorder *rec, const uint8_t seed[RPL_DEAL_SEED_SIZE])
{
	uint8_t commit[RPL_DEAL_COMMIT_SIZE];

	if (!rec || !seed)
		return RPL_EINVAL;
	if (rec->closed || rec->failed)
		return rfail(rec, RPL_ESTATE, "the recorder is closed");
	if (!rec->info.commitment)
		return rfail(rec, RPL_ESTATE, "the match has no commitment to a seed");
	if (rec->have_seed)
		return rfail(rec, RPL_ESTATE, "the seed was already given");
	if (rpl_deal_commit_match(commit, seed, &rec->info) < 0 ||
	    memcmp(commit, rec->commitment, RPL_DEAL_COMMIT_SIZE) != 0)
		return rfail(rec, RPL_EINVAL, "the seed is not the one the header commits to");
	for (size_t i = 0; i < rec->nlayouts; i++) {
		rpl_layout derived;
		if (rpl_deal_derive_match(&derived, seed, &rec->info, (int)i + 1) < 0)
			return RPL_EINVAL;
		if (!rpl_layout_same(&derived, &rec->layouts[i], rec->info.nplayers)) {
			rec->rule = RPL_RULE_LAYOUT;
			return rfail(rec, RPL_EILLEGAL, "deal %zu: the layout is not the one the committed seed derives", i + 1);
		}
	}
	memcpy(rec->seed, seed, RPL_DEAL_SEED_SIZE);
	rec->have_seed = 1;
	return 0;
}

int rpl_recorder_action(rpl_recorder *rec, const rpl_action *a)
{
	struct track next;
	struct item it = { 0 };
	struct rc_enc saved;
	struct model saved_m;
	size_t saved_n;
	int opened = 0, err;
	char why[RPL_ERRMSG_SIZE];

	if (!rec || !a)
		return RPL_EINVAL;
	if (rec->closed || rec->failed)
		return rfail(rec, RPL_ESTATE, "the recorder is closed");
	rec->rule = RPL_RULE_NONE;
	if (rec->deal == 0)
		return rfail(rec, RPL_ESTATE, "no deal has started");
	memcpy(&next, &rec->t, sizeof(next));
	if (rpl__track_apply(&next, a, why, sizeof(why)) < 0) {
		/*
		 * Checked mode: the engine names the rule (a card not held is one).
		 * It judges a copy of the game, so its message is the copy's: the
		 * game itself holds the message of an older refusal, if any
		 * (issue 13: "refused: card.not_in_hand: " with no reason).
		 */
		if (rec->game) {
			struct rpl_game *copy = malloc(sizeof(*copy));
			if (!copy)
				return oom(rec);
			memcpy(copy, rec->game, sizeof(*copy));
			err = rpl__apply(copy, a);
			if (err == RPL_EILLEGAL) {
				rec->rule = copy->rule;
				rfail(rec, RPL_EILLEGAL, "%s", copy->msg);
			}
			free(copy);
			if (err == RPL_EILLEGAL)
				return err;
		}
		return rfail(rec, RPL_EINVAL, "%s", why);
	}
	if (rec->decisions >= RPL_MAX_DECISIONS)
		return rfail(rec, RPL_ELIMIT, "a match log holds at most %u decisions", RPL_MAX_DECISIONS);
	if (log_bytes(rec) + FILE_SLACK > BRP_MAX_FILE)
		return rfail(rec, RPL_ELIMIT, "a match log holds at most %u bytes", BRP_MAX_FILE);
	if (!rec->sec_open) {
		open_section(rec, 0);
		opened = 1;
	}
	/* coded first, so that a refusal (coder or engine) can restore coder and model */
	saved = rec->enc;
	saved_n = rec->enc_out.n;
	saved_m = rec->m;
	if (enc_decision(rec, &rec->enc, &rec->m, &rec->t, a) < 0) {
		err = rfail(rec, RPL_EINVAL, "the decision cannot be coded");
		goto undo;
	}
	if (rec->game) {
		err = rpl_game_apply(rec->game, a);
		if (err) {
			rec->rule = rpl_game_rule(rec->game);
			rfail(rec, err, "%s", rpl_game_errmsg(rec->game));
			goto undo;
		}
	}
	it.type = 'a';
	it.deal = (uint16_t)rec->deal;
	it.a = *a;
	if (push_item(rec, &it) < 0) {
		/* the engine took it; the log cannot: nothing more may be recorded */
		rec->failed = 1;
		return oom(rec);
	}
	rec->sec_count++;
	rec->decisions++;
	memcpy(&rec->t, &next, sizeof(next));
	if (section_full(&rec->enc_out, &rec->enc, rec->sec_count))
		close_section(rec); /* the deal goes on in an A section */
	return 0;
undo:
	rec->enc = saved;
	rec->enc_out.n = saved_n;
	rec->m = saved_m;
	if (opened)
		rec->sec_open = 0;
	return err;
}

int rpl_recorder_claim(rpl_recorder *rec, int deal, const int32_t score[2])
{
	struct item it = { 0 };
	struct buf pay = { 0 };

	if (!rec || !score || deal < 0 || deal > RPL_MAX_DEALS)
		return RPL_EINVAL;
	if (rec->closed || rec->failed)
		return rfail(rec, RPL_ESTATE, "the recorder is closed");
	if (rec->claims >= RPL_MAX_CLAIMS)
		return rfail(rec, RPL_ELIMIT, "a match log holds at most %u claims", RPL_MAX_CLAIMS);
	if (log_bytes(rec) + FILE_SLACK > BRP_MAX_FILE)
		return rfail(rec, RPL_ELIMIT, "a match log holds at most %u bytes", BRP_MAX_FILE);
	it.type = 'C';
	it.deal = (uint16_t)deal;
	it.score[0] = score[0];
	it.score[1] = score[1];
	if (push_item(rec, &it) < 0)
		return oom(rec);
	rec->claims++;
	close_section(rec);
	rpl__claim_put(&pay, rec->version, deal, score, rec->claim_sum);
	if (pay.oom)
		rec->out.oom = 1;
	else
		rpl__section_put(&rec->out, 'C', pay.p, pay.n);
	rpl__buf_free(&pay);
	return 0;
}

/*
 * Hand the n bytes at p to the sink, and make them durable as far as the
 * sink can (file: fsync with RPL_RECORD_SYNC; callbacks: flush). Any
 * failure ends the recording.
 */
static int emit(struct rpl_recorder *rec, const uint8_t *p, size_t n)
{
	int sync = (rec->flags & RPL_RECORD_SYNC) != 0;

	switch (rec->kind) {
	case SINK_MEMORY:
		rpl__buf_put(&rec->mem, p, n);
		if (rec->mem.oom) {
			rec->failed = 1;
			return oom(rec);
		}
		rec->written += n;
		return 0;
	case SINK_CALLS:
		if (rec->sink.write(rec->sink.ctx, p, n) != 0) {
			rec->failed = 1;
			return rfail(rec, RPL_EIO, "the sink's write failed");
		}
		rec->written += n;
		if (rec->sink.flush && rec->sink.flush(rec->sink.ctx, sync) != 0) {
			rec->failed = 1;
			return rfail(rec, RPL_EIO, "the sink's flush failed");
		}
		return 0;
	default:
		if (write_all(rec->fd, p, n) < 0) {
			int e = errno;
			/*
			 * what a part of this append wrote is cut off again, so that the
			 * file ends at the last flush and a later flush appends there
			 */
			if (ftruncate(rec->fd, (off_t)rec->written) == 0)
				(void)lseek(rec->fd, (off_t)rec->written, SEEK_SET);
			rec->failed = 1;
			return rfail(rec, RPL_EIO, "%s", strerror(e));
		}
		rec->written += n;
		if (sync && fsync(rec->fd) < 0) {
			rec->failed = 1;
			return rfail(rec, RPL_EIO, "fsync: %s", strerror(errno));
		}
		return 0;
	}
}

int rpl_recorder_flush(rpl_recorder *rec)
{
	uint64_t before;
	int err;

	if (!rec)
		return RPL_EINVAL;
	if (rec->closed)
		return rfail(rec, RPL_ESTATE, "the recorder is closed");
	if (rec->failed && rec->kind != SINK_FILE)
		return rfail(rec, RPL_ESTATE, "the recording ended at a failure");
	close_section(rec);
	if (rec->key && rec->out.n > rec->hashed) {
		/*
		 * a signature over everything written, this flush included: the hash
		 * goes on from the last, and bytes a failed append left in out (its
		 * signature with them) are in it already
		 */
		size_t n = rec->out.n;
		rpl_prehash_update(rec->hash, rec->out.p + rec->hashed, n - rec->hashed);
		rpl__sig_section_put(&rec->out, rec->hash, rec->key);
		if (!rec->out.oom) {
			rpl_prehash_update(rec->hash, rec->out.p + n, rec->out.n - n);
			rec->hashed = rec->out.n;
		}
	}
	if (rec->out.oom)
		return oom(rec);
	if (rec->out.n == 0 && rec->kind != SINK_FILE)
		return 0; /* nothing new: no call to the sink */
	before = rec->written;
	err = emit(rec, rec->out.p, rec->out.n);
	/*
	 * A sink is never handed the same bytes twice (it may hold part of them);
	 * a file's failed append is tried again by a later flush, as it always was.
	 */
	if (rec->written != before || rec->kind != SINK_FILE)
		rec->out.n = rec->hashed = 0;
	return err;
}

/* A section of the compact form: version 5 seals it, one checksum for the whole (format.md 19.5). */
static void compact_put(struct buf *out, int version, uint8_t type, const uint8_t *p, size_t n)
{
	if (version >= BRP_VERSION_5)
		rpl__section_put_bare(out, type, p, n);
	else
		rpl__section_put(out, type, p, n);
}

/* The compact form's magic and header; version 5's sealed, its flags saying whether the log was salvaged. */
static int compact_head(const struct rpl_recorder *rec, struct buf *out, const uint8_t *seed)
{
	struct buf hdr = { 0 };
	char why[RPL_ERRMSG_SIZE];
	unsigned flags = (rec->key ? RPL_LOG_SIGNED : 0) | (rec->recovered ? BRP_FLAG_RECOVERED : 0);
	int err = 0;

	rpl__buf_put(out, BRP_MAGIC, BRP_MAGIC_LEN);
	if (rec->version < BRP_VERSION_5 && !seed) {
		rpl__buf_put(out, rec->header.p, rec->header.n); /* the growing form's */
		return out->oom ? RPL_ENOMEM : 0;
	}
	if (rec->version < BRP_VERSION_5)
		flags &= RPL_LOG_SIGNED;
	err = rpl__header_put(&hdr, &rec->info, seed, flags, rec->version, why, sizeof(why));
	if (!err && rec->version >= BRP_VERSION_5)
		rpl__header_seal(out, hdr.p, hdr.n);
	else if (!err)
		rpl__buf_put(out, hdr.p, hdr.n);
	if (!err && (hdr.oom || out->oom))
		err = RPL_ENOMEM;
	rpl__buf_free(&hdr);
	return err;
}

/*
 * The compact form of a revealed match (format.md 16.5): the header reveals
 * the seed, one D holds every deal's decisions in one stream (the seed
 * re-creates the layouts), one C every claim, in the order recorded. At a
 * reader's limits (decisions or bytes a section) the D is closed and its
 * deal goes on in an A, the next deal in a new D; claims go on in another C.
 */
struct revealed {
	struct buf enc_out;
	struct rc_enc enc;
	uint32_t *counts; /* of the deals of the open section: a D's k, or an A's one */
	size_t k, first;  /* deals in the open section, and the number of its first */
	int open, is_d;
};

static void revealed_close(struct revealed *r, struct buf *out, int version)
{
	struct buf pay = { 0 };

	if (!r->open)
		return;
	r->open = 0;
	if (!r->is_d && r->counts[0] == 0)
		return; /* an A opened at a limit that no decision followed: none is written */
	rpl__rc_enc_finish(&r->enc);
	rpl__buf_varint(&pay, r->first);
	if (r->is_d) {
		rpl__buf_varint(&pay, r->k);
		for (size_t i = 0; i < r->k; i++)
			rpl__buf_varint(&pay, r->counts[i]);
	} else {
		rpl__buf_varint(&pay, r->counts[0]);
	}
	rpl__buf_put(&pay, r->enc_out.p, r->enc_out.n);
	compact_put(out, version, r->is_d ? 'D' : 'A', pay.p, pay.n);
	if (pay.oom || r->enc_out.oom)
		out->oom = 1;
	rpl__buf_free(&pay);
}

static void revealed_open(struct revealed *r, int is_d, size_t first)
{
	r->enc_out.n = 0;
	rpl__rc_enc_init(&r->enc, &r->enc_out);
	r->open = 1;
	r->is_d = is_d;
	r->first = first;
	r->k = 1;
	r->counts[0] = 0;
}

/* A signing recorder's compact form ends with one signature over the whole log, after E. */
static int sign_compact(const struct rpl_recorder *rec, struct buf *out)
{
	if (rec->key && !out->oom) {
		rpl_prehash *h = NULL;
		int err = rpl_prehash_new(&h);
		if (err)
			return err;
		rpl_prehash_update(h, out->p, out->n);
		rpl__sig_section_put(out, h, rec->key);
		rpl_prehash_free(h);
	}
	return out->oom ? RPL_ENOMEM : 0;
}

/*
 * The end section: its flags (before version 5), then (version 5) the claims
 * after the last decision, if any (format.md 19.4); version 5 then seals the
 * log, the checksum of every byte from the magic (at start) on.
 */
static void end_put(struct buf *out, const struct rpl_recorder *rec, const struct buf *claims, size_t start)
{
	struct buf pay = { 0 };

	if (rec->version < BRP_VERSION_5)
		rpl__buf_byte(&pay, rec->recovered ? 1 : 0);
	if (claims)
		rpl__buf_put(&pay, claims->p, claims->n);
	if (pay.oom)
		out->oom = 1;
	else
		compact_put(out, rec->version, 'E', pay.p, pay.n);
	if (rec->version >= BRP_VERSION_5)
		rpl__seal_put(out, start);
	rpl__buf_free(&pay);
}

static int build_compact_revealed(struct rpl_recorder *rec, struct buf *out)
{
	struct track t;
	struct model m;
	struct buf claims = { 0 };
	struct revealed r = { 0 };
	int64_t sum[2] = { 0, 0 };
	size_t li = 0, start = out->n;
	int dealer = 0, err = RPL_ENOMEM;
	char why[RPL_ERRMSG_SIZE];

	r.counts = calloc(rec->nlayouts ? rec->nlayouts : 1, sizeof(*r.counts));
	if (!r.counts)
		goto cleanup;
	if ((err = compact_head(rec, out, rec->seed)) != 0)
		goto cleanup;
	err = RPL_ENOMEM;
	for (size_t i = 0; i < rec->nitems; i++) {
		const struct item *it = &rec->items[i];
		if (it->type == 'D') {
			dealer = li == 0 ? rec->info.first_dealer : (dealer + 1) % rec->info.nplayers;
			rpl__track_deal(&t, rec->info.nplayers, dealer, &rec->layouts[li]);
			if (li == 0)
				rpl__model_init(&m, rec->version);
			li++;
			if (r.open && r.is_d) {
				r.counts[r.k++] = 0; /* the next deal of the same D */
			} else {
				revealed_close(&r, out, rec->version);
				revealed_open(&r, 1, li);
			}
		} else if (it->type == 'a') {
			if (rpl__enc_action(&r.enc, &m, &t, &it->a) < 0 || rpl__track_apply(&t, &it->a, why, sizeof(why)) < 0) {
				err = RPL_EINVAL;
				goto cleanup;
			}
			r.counts[r.k - 1]++;
			/* the counts take at most 3 bytes each, the deal numbers 2 more */
			if (r.counts[r.k - 1] >= RPL_MAX_SECTION ||
			    stream_bound(&r.enc_out, &r.enc) + 3 * (uint64_t)r.k + SECTION_SLACK > RPL_MAX_SECTION) {
				revealed_close(&r, out, rec->version);
				revealed_open(&r, 0, li); /* the deal goes on in an A */
			}
		} else {
			if (claims.n + 32 > RPL_MAX_SECTION) {
				compact_put(out, rec->version, 'C', claims.p, claims.n);
				claims.n = 0;
			}
			rpl__claim_put(&claims, rec->version, it->deal, it->score, sum);
		}
	}
	revealed_close(&r, out, rec->version);
	if (claims.n && rec->version < BRP_VERSION_5)
		rpl__section_put(out, 'C', claims.p, claims.n);
	end_put(out, rec, rec->version >= BRP_VERSION_5 ? &claims : NULL, start);
	err = out->oom || claims.oom ? RPL_ENOMEM : 0;
cleanup:
	free(r.counts);
	rpl__buf_free(&r.enc_out);
	rpl__buf_free(&claims);
	return err;
}

/*
 * Version 7's compact form after its header: one M and E (format.md 21.1).
 * 0 written; 1 when the match's stream is past what a section holds, and
 * nothing is written (the caller writes D, A and C sections instead); or
 * an error.
 */
static int compact_match(struct rpl_recorder *rec, struct buf *out, size_t start)
{
	struct buf pay = { 0 };
	int err = rpl__enc_match(&pay, rec->items, rec->nitems, rec->layouts, &rec->info), fits = pay.n <= RPL_MAX_SECTION;

	if (!err && fits) {
		compact_put(out, rec->version, BRP_MATCH_TYPE, pay.p, pay.n);
		end_put(out, rec, NULL, start);
	}
	rpl__buf_free(&pay);
	return err ? err : !fits;
}

/* The compact form of everything recorded. */
static int build_compact(struct rpl_recorder *rec, struct buf *out)
{
	struct track t;
	struct model m;
	struct buf enc_out = { 0 }, claims = { 0 };
	struct rc_enc enc;
	int64_t sum[2] = { 0, 0 };
	size_t li = 0, start = out->n;
	int deal = 0, dealer = 0, open = 0, is_deal = 0, herr;
	uint32_t count = 0;
	char why[RPL_ERRMSG_SIZE];

	if (rec->have_seed) {
		int err = build_compact_revealed(rec, out);
		return err ? err : sign_compact(rec, out);
	}
	if ((herr = compact_head(rec, out, NULL)) != 0)
		return herr;
	if (rec->version == BRP_VERSION_7 && (herr = compact_match(rec, out, start)) <= 0)
		return herr < 0 ? herr : sign_compact(rec, out);
#define CLOSE_CLAIMS()                                                                                                 \
	do {                                                                                                               \
		if (claims.n)                                                                                                  \
			compact_put(out, rec->version, 'C', claims.p, claims.n);                                                   \
		claims.n = 0;                                                                                                  \
	} while (0)
#define CLOSE_STREAM()                                                                                                 \
	do {                                                                                                               \
		CLOSE_CLAIMS();                                                                                                \
		if (open) {                                                                                                    \
			struct buf pay = { 0 };                                                                                    \
			rpl__rc_enc_finish(&enc);                                                                                  \
			if (rec->version < BRP_VERSION_5)                                                                          \
				rpl__buf_varint(&pay, (uint64_t)deal);                                                                 \
			rpl__buf_varint(&pay, count);                                                                              \
			rpl__buf_put(&pay, enc_out.p, enc_out.n);                                                                  \
			compact_put(out, rec->version, is_deal ? 'D' : 'A', pay.p, pay.n);                                         \
			if (pay.oom)                                                                                               \
				out->oom = 1;                                                                                          \
			rpl__buf_free(&pay);                                                                                       \
			open = 0;                                                                                                  \
		}                                                                                                              \
	} while (0)
	for (size_t i = 0; i < rec->nitems; i++) {
		const struct item *it = &rec->items[i];
		if (it->type == 'D') {
			CLOSE_STREAM();
			deal++;
			dealer = deal == 1 ? rec->info.first_dealer : (dealer + 1) % rec->info.nplayers;
			rpl__track_deal(&t, rec->info.nplayers, dealer, &rec->layouts[li]);
			if (deal == 1)
				rpl__model_init(&m, rec->version);
			enc_out.n = 0;
			rpl__rc_enc_init(&enc, &enc_out);
			enc_layout(rec, &enc, &rec->layouts[li]);
			li++;
			open = 1;
			is_deal = 1;
			count = 0;
		} else if (it->type == 'a') {
			if (!open) {
				CLOSE_CLAIMS();
				enc_out.n = 0;
				rpl__rc_enc_init(&enc, &enc_out);
				open = 1;
				is_deal = 0;
				count = 0;
			}
			if (enc_decision(rec, &enc, &m, &t, &it->a) < 0 || rpl__track_apply(&t, &it->a, why, sizeof(why)) < 0) {
				rpl__buf_free(&enc_out);
				rpl__buf_free(&claims);
				return RPL_EINVAL;
			}
			count++;
			if (section_full(&enc_out, &enc, count))
				CLOSE_STREAM(); /* the deal goes on in an A section */
		} else {
			/* claims in a row share one C in version 5 (format.md 19.3); earlier, one a C (16.5) */
			if (open || rec->version < BRP_VERSION_5 || claims.n + 32 > RPL_MAX_SECTION)
				CLOSE_STREAM();
			rpl__claim_put(&claims, rec->version, it->deal, it->score, sum);
		}
	}
	if (rec->version >= BRP_VERSION_5 && rec->version < BRP_VERSION_7 && !open) {
		end_put(out, rec, &claims, start); /* the claims after the last decision go into E */
		claims.n = 0;
	} else {
		CLOSE_STREAM();
		end_put(out, rec, NULL, start);
	}
#undef CLOSE_STREAM
#undef CLOSE_CLAIMS
	if (enc_out.oom || claims.oom)
		out->oom = 1;
	rpl__buf_free(&enc_out);
	rpl__buf_free(&claims);
	return sign_compact(rec, out);
}

int rpl_recorder_close(rpl_recorder *rec)
{
	struct buf out = { 0 };
	struct rpl__tmpfile tmp = RPL__TMPFILE_INIT;
	int err;

	if (!rec)
		return RPL_EINVAL;
	if (rec->closed)
		return rfail(rec, RPL_ESTATE, "the recorder is already closed");
	/* a sink that failed is handed nothing more but the whole log, at once */
	if (!(rec->failed && rec->kind != SINK_FILE)) {
		err = rpl_recorder_flush(rec);
		if (err)
			goto cleanup;
	}
	err = build_compact(rec, &out);
	if (err) {
		if (err == RPL_ENOMEM)
			oom(rec);
		else
			rfail(rec, err, "the match could not be written in its compact form");
		goto cleanup;
	}
	if (rec->kind != SINK_FILE) {
		if (rec->kind == SINK_CALLS && rec->sink.replace && rec->sink.replace(rec->sink.ctx, out.p, out.n) != 0) {
			err = rfail(rec, RPL_EIO, "the sink's replace failed");
			goto cleanup;
		}
		goto done;
	}
	if (rec->fd_lent) {
		/* the caller's file, new and its own (a temporary file): the compact form replaces what it holds */
		if (lseek(rec->fd, 0, SEEK_SET) != 0 || write_all(rec->fd, out.p, out.n) < 0 ||
		    ftruncate(rec->fd, (off_t)out.n) != 0) {
			err = rfail(rec, RPL_EIO, "%s", strerror(errno));
			goto cleanup;
		}
		rec->fd = -1;
		goto done;
	}
	if (rpl__tmpfile_open(&tmp, rec->path, 0644, 0) != 0 || rpl__tmpfile_write(&tmp, out.p, out.n) != 0) {
		err = tmp.errnum == ENOMEM ? oom(rec) : rfail(rec, RPL_EIO, "its temporary file: %s", tmp.why);
		goto cleanup;
	}
	if (rpl__tmpfile_commit(&tmp, RPL__TMP_REPLACE) != 0) {
		err = rfail(rec, RPL_EIO, "%s", tmp.why);
		goto cleanup;
	}
	close(rec->fd);
	rec->fd = -1;
done:
	/* the compact form stays with the recorder, lent by rpl_recorder_log */
	if (rec->kind == SINK_MEMORY) {
		rpl__buf_free(&rec->mem);
		rec->mem = out;
	} else {
		rpl__buf_free(&rec->compact);
		rec->compact = out;
	}
	memset(&out, 0, sizeof(out));
	rec->closed = 1;
	err = 0;
cleanup:
	rpl__tmpfile_discard(&tmp);
	rpl__buf_free(&out);
	return err;
}

int rpl_recorder_log(const uint8_t **data, size_t *len, const rpl_recorder *rec)
{
	const struct buf *b;

	if (!data || !len || !rec)
		return RPL_EINVAL;
	*data = NULL;
	*len = 0;
	if (rec->kind == SINK_MEMORY)
		b = &rec->mem;
	else if (rec->closed)
		b = &rec->compact;
	else
		return RPL_ESTATE;
	*data = b->n ? b->p : (const uint8_t *)"";
	*len = b->n;
	return 0;
}

void rpl_recorder_free(rpl_recorder *rec)
{
	if (!rec)
		return;
	if (rec->fd >= 0 && !rec->fd_lent) {
		/* not closed: what was flushed stays in the file, as after a crash */
		close(rec->fd);
	}
	for (int s = 0; s < RPL_MAX_SEATS; s++)
		free(rec->names[s]);
	for (size_t i = 0; rec->keys && i < rec->info.nmeta; i++)
		free(rec->keys[i]);
	for (size_t i = 0; rec->values && i < rec->info.nmeta; i++)
		free(rec->values[i]);
	free(rec->keys);
	free(rec->values);
	rpl_game_free(rec->game);
	rpl__buf_free(&rec->header);
	rpl__buf_free(&rec->enc_out);
	rpl__buf_free(&rec->out);
	rpl__buf_free(&rec->mem);
	rpl__buf_free(&rec->compact);
	free(rec->items);
	free(rec->layouts);
	free(rec->path);
	sodium_memzero(rec->seed, sizeof(rec->seed));
	rpl_prehash_free(rec->hash);
	free(rec);
}

void rpl_recorder_mark_recovered(rpl_recorder *rec)
{
	if (rec)
		rec->recovered = 1;
}

const rpl_game *rpl_recorder_game(const rpl_recorder *rec)
{
	return rec ? rec->game : NULL;
}

int rpl_recorder_seat(const rpl_recorder *rec)
{
	if (!rec || rec->deal == 0)
		return -1;
	return rpl__track_actor(&rec->t, RPL_ACT_DRAW);
}

int rpl_recorder_turn(const rpl_recorder *rec, int kind)
{
	if (!rec || rec->deal == 0)
		return 0;
	/* a decision other than a morto pick-up opens a turn when none is open */
	return rec->t.turn + (kind != RPL_ACT_MORTO && !rec->t.open);
}

int rpl_recorder_rule(const rpl_recorder *rec)
{
	return rec ? rec->rule : RPL_RULE_NONE;
}

const char *rpl_recorder_errmsg(const rpl_recorder *rec)
{
	return rec ? rec->errmsg : "";
}
