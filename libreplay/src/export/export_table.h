/*
 * Export for flat files (CSV, XLSX): a loaded match as rows of typed cells,
 * table by table (export_table.c), and the state both flat sinks keep: the
 * hashes already written and the per-player totals.
 */
#ifndef RPL_EXPORT_TABLE_H
#define RPL_EXPORT_TABLE_H

#include "export/export_impl.h"

/* The tables of a flat export, in the order a sink creates them. */
enum { XT_MATCHES, XT_META, XT_DEALS, XT_SCORES, XT_SEATS, XT_MELDS, XT_ACTIONS, XT_PLAYERS, XT_COUNT };

#define XT_MAX_COLS 64

struct xtable {
	const char *name;        /* "deal_scores": the CSV file's and the sheet's name */
	const char *const *cols; /* the header row */
	int ncols;
};
extern const struct xtable rpl__export_tables[XT_COUNT];

/* A cell: nothing (an empty field), an integer, text (UTF-8), or a time (seconds since 1970 UTC). */
enum { XC_NULL, XC_INT, XC_TEXT, XC_TIME };
struct xcell {
	int type;
	long long i;   /* XC_INT, XC_TIME */
	const char *s; /* XC_TEXT: borrowed for the call */
};

/* Takes one row of table; cells are borrowed for the call. Non-zero stops the rows. */
typedef int (*rpl__export_row_fn)(void *ctx, int table, const struct xcell *cells, int ncells);

/*
 * Every row of m but the players table: its matches row, its meta rows and,
 * when it verified ok, its deals, scores, seats, melds and (when loaded with
 * them) actions. Returns 0 or what fn returned.
 */
int rpl__export_rows(const rpl_export_match *m, rpl__export_row_fn fn, void *ctx);

/* A set of 64-hex-digit keys (open addressing): the copies written, the matches counted. */
struct xseen {
	char (*v)[65];
	size_t n, cap;
};
/* 1 when the key is new (now added), 0 when seen before, RPL_ENOMEM. */
int rpl__export_seen_add(struct xseen *set, const char *hash);
/*
 * 1 when m is a copy not written yet (now added: the SHA-256 of its
 * rpl__export_copy_key), 0 when one like it was written, RPL_ENOMEM.
 */
int rpl__export_seen_copy(struct xseen *set, const rpl_export_match *m);
void rpl__export_seen_free(struct xseen *set);

/* Per-player totals (the players table), the same numbers as the player_stats view. */
struct xplayer {
	char *name;
	long long matches, wins, deals, points, canastras, went_out, turns, takes;
};
struct xplayers {
	struct xplayer *v;
	size_t n, cap;
	struct xseen counted; /* the matches counted: each once, from its first ok copy (counted_matches) */
};
/* Count m into the totals when it verified ok and is its match's first ok copy. 0 or RPL_ENOMEM. */
int rpl__export_players_add(struct xplayers *ps, const rpl_export_match *m);
/* The players rows, by name. 0, RPL_ENOMEM, or what fn returned. */
int rpl__export_players_rows(const struct xplayers *ps, rpl__export_row_fn fn, void *ctx);
void rpl__export_players_free(struct xplayers *ps);

/* "YYYY-MM-DD HH:MM:SS" (UTC) for t: the form spreadsheets read as a date and time. */
void rpl__export_datetime(int64_t t, char buf[RPL__DATE_SIZE]);

#endif
