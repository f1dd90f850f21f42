"""The C declarations the bindings use, and the loaded library (cffi, ABI mode).

Only the public API of libreplay (libreplay/include/libreplay/*.h) is declared
here. The struct layouts are copied from the headers; tests/python checks them
against the compiler's (sizeof and offsetof) so a header change cannot drift
silently.
"""

import os

from cffi import FFI

CDEF = r"""
typedef uint8_t rpl_card;
const char *rpl_strerror(int err);
const char *rpl_version(void);
int rpl_card_parse(const char *text, size_t len, rpl_card *out);
const char *rpl_card_name(rpl_card c);

typedef struct rpl_rules rpl_rules;
typedef struct rpl_param_info {
    int id;
    const char *name;
    int kind;
    int min, max;
    const char *const *names;
    const char *meaning;
    const char *source;
} rpl_param_info;
size_t rpl_rules_param_count(void);
const rpl_param_info *rpl_rules_param_info(size_t index);
const char *const *rpl_rules_profiles(void);
int rpl_rules_new(rpl_rules **out, const char *profile);
void rpl_rules_free(rpl_rules *r);
const char *rpl_rules_profile(const rpl_rules *r);
int rpl_rules_set(rpl_rules *r, const char *name, const char *value);
int rpl_rules_get_id(const rpl_rules *r, int id, int *value);
int rpl_rules_get(const rpl_rules *r, const char *name, char *buf, size_t size);
int rpl_rules_is_override(const rpl_rules *r, int id);
const char *rpl_rules_errmsg(const rpl_rules *r);
const char *rpl_rule_name(int rule);

typedef struct rpl_meld_info {
    int suit;
    int lo, hi;
    int length;
    int wilds;
    int clean;
    int points;
    int category;
    int bonus;
    rpl_card card[14];
    uint8_t wild[14];
} rpl_meld_info;
typedef struct rpl_meld_check_result {
    int valid;
    int rule;
    char reason[256]; /* RPL_ERRMSG_SIZE */
    rpl_meld_info meld;
} rpl_meld_check_result;
const char *rpl_canastra_name(int category);
int rpl_meld_check(const rpl_rules *r, const rpl_card *cards, size_t n, int end, rpl_meld_check_result *out);
rpl_card rpl_meld_natural(int suit, int pos);

typedef struct rpl_game rpl_game;
typedef struct rpl_layout {
    rpl_card hand[4][11];
    rpl_card morto[2][11];
    rpl_card stock[64];
} rpl_layout;
typedef struct rpl_action {
    uint8_t kind;
    uint8_t side;
    uint8_t meld;
    uint8_t end;
    uint8_t morto;
    uint8_t ncards;
    rpl_card cards[14];
} rpl_action;
typedef struct rpl_score {
    int32_t melded;
    int32_t bonus;
    int32_t canastras[6];
    int32_t going_out;
    int32_t hand;
    int32_t morto;
    int32_t total;
} rpl_score;
typedef struct rpl_deal_stats {
    int32_t turns;
    int32_t actions;
    int32_t pile_taken;
    int32_t pile_frozen;
    int32_t rejects;
    int32_t morto_direct;
    int32_t morto_indirect;
    int32_t morto_to_stock;
    int32_t vulnerable_open;
    int32_t end;
    int32_t out_seat;
} rpl_deal_stats;
int rpl_game_phase(const rpl_game *g);
int rpl_game_deal_score(const rpl_game *g, int side, rpl_score *out);
void rpl_game_deal_stats(const rpl_game *g, rpl_deal_stats *out);
size_t rpl_action_format(const rpl_action *a, char *buf, size_t size);

typedef struct rpl_match_info {
    const rpl_rules *rules;
    int nplayers;
    const char *players[4];
    int first_dealer;
    int64_t start_time;
    size_t nmeta;
    const char *const *meta_keys;
    const char *const *meta_values;
    const uint8_t *commitment;
    int nplayer_seeds;
    const uint8_t (*player_seeds)[32]; /* RPL_DEAL_SEED_SIZE */
    int commit_version;
} rpl_match_info;
typedef struct rpl_recorder rpl_recorder;
int rpl_recorder_open(rpl_recorder **out, const char *path, const rpl_match_info *info, unsigned flags);
typedef struct rpl_seckey rpl_seckey;
int rpl_recorder_open_memory(rpl_recorder **out, const rpl_match_info *info, unsigned flags, const rpl_seckey *key);
int rpl_recorder_log(const uint8_t **data, size_t *len, const rpl_recorder *rec);
int rpl_recorder_deal(rpl_recorder *rec, const rpl_layout *layout);
int rpl_recorder_action(rpl_recorder *rec, const rpl_action *a);
int rpl_recorder_claim(rpl_recorder *rec, int deal, const int32_t score[2]);
int rpl_recorder_flush(rpl_recorder *rec);
int rpl_recorder_close(rpl_recorder *rec);
void rpl_recorder_free(rpl_recorder *rec);
const rpl_game *rpl_recorder_game(const rpl_recorder *rec);
int rpl_recorder_seat(const rpl_recorder *rec);
int rpl_recorder_turn(const rpl_recorder *rec, int kind);
int rpl_recorder_rule(const rpl_recorder *rec);
const char *rpl_recorder_errmsg(const rpl_recorder *rec);

typedef struct rpl_reader rpl_reader;
typedef struct rpl_event {
    int kind;
    int deal;
    int turn;
    int seat;
    rpl_action action;
    rpl_layout layout;
    int32_t score[2];
    int recovered;
    uint8_t seed[32]; /* RPL_DEAL_SEED_SIZE */
    uint64_t offset;
} rpl_event;
int rpl_reader_open(rpl_reader **out, const char *path);
int rpl_reader_open_memory(rpl_reader **out, const void *data, size_t len);
void rpl_reader_free(rpl_reader *rd);
int rpl_reader_next(rpl_reader *rd, rpl_event *ev);
const rpl_match_info *rpl_reader_info(const rpl_reader *rd);
int rpl_reader_format_version(const rpl_reader *rd);
uint64_t rpl_reader_offset(const rpl_reader *rd);
const char *rpl_reader_errmsg(const rpl_reader *rd);

typedef struct rpl_pubkey {
    uint8_t id[8];
    uint8_t key[32];
} rpl_pubkey;
typedef struct rpl_signature_report {
    int status;
    rpl_pubkey key;
    int trusted;
    uint64_t covered;
    uint64_t size;
    uint64_t offset;
    int count;
    int key_trusted;
    rpl_pubkey trusted_key;
    uint64_t trusted_covered;
    int id_clash;
    rpl_pubkey clash_key;
} rpl_signature_report;
const char *rpl_signature_status_name(int status);
void rpl_key_id_format(const uint8_t id[8], char out[17]);
void rpl_pubkey_fingerprint(const rpl_pubkey *pk, char out[33]);
typedef struct rpl_verdict {
    int kind;
    char message[256]; /* RPL_ERRMSG_SIZE */
    int deal, turn, seat;
    rpl_action action;
    int rule;
    int side;
    int claim_deal;
    int32_t claimed, computed;
    rpl_score breakdown;
    uint64_t offset;
    int deals, actions;
    int32_t total[2];
    int winner;
    int recovered;
    uint64_t bytes;
    int deal_commitment;
    uint8_t commitment[32]; /* RPL_DEAL_COMMIT_SIZE */
    int deal_mismatch;
    rpl_signature_report signature;
    int closed;
    char match_id[65]; /* RPL_MATCH_ID_SIZE */
    int player_seeds;
    int commit_version;
    int players;
    int replay;
    int replay_trusted;
    uint64_t replay_offset;
    char replay_message[256]; /* RPL_ERRMSG_SIZE */
    int keys;
    unsigned header_flags;
} rpl_verdict;
const char *rpl_verdict_name(int kind);
const char *rpl_deal_commitment_name(int status);
int rpl_verify_file(const char *path, const rpl_rules *rules, rpl_verdict *out);
typedef struct rpl_verify_observer {
    void *ctx;
    int (*before)(void *ctx, const rpl_event *ev, const rpl_game *g);
    int (*after)(void *ctx, const rpl_event *ev, const rpl_game *g);
} rpl_verify_observer;
int rpl_verify_file_observe(const char *path, const rpl_rules *rules, rpl_verdict *out,
                            const rpl_verify_observer *obs);
int rpl_verify_reader_observe(rpl_reader *rd, const rpl_rules *rules, rpl_verdict *out,
                              const rpl_verify_observer *obs);
int rpl_game_check(const rpl_game *g, const rpl_action *a, int *rule);
typedef struct rpl_review_options {
    int samples;
    int candidates;
    int32_t inaccuracy;
    int32_t mistake;
    int32_t blunder;
    int significance;
    uint64_t seed;
    int hindsight;
    unsigned seats;
    int deal;
    int horizon;
    int hand_weight;
    int extend;
} rpl_review_options;
void rpl_review_options_init(rpl_review_options *o);
typedef struct rpl_review_decision {
    int deal;
    int turn;
    int number;
    int seat;
    rpl_action played;
    rpl_action best;
    rpl_action greedy;
    int candidates;
    int samples;
    int64_t sum_played;
    int64_t sum_best;
    int64_t sum_sq;
    double value_played;
    double value_best;
    double loss;
    double se;
    int cls;
    int uncertain;
    double win_loss;
    double accuracy;
} rpl_review_decision;
const char *rpl_review_class_name(int cls);
typedef struct rpl_reviewer rpl_reviewer;
int rpl_reviewer_new(rpl_reviewer **out, const rpl_review_options *o);
void rpl_reviewer_free(rpl_reviewer *rv);
int rpl_review_one(rpl_review_decision *out, rpl_reviewer *rv, const rpl_game *g, const rpl_action *played);
typedef struct rpl_integrity_options {
    int samples;
    int permutations;
    double level;
    uint64_t seed;
    unsigned seats;
    int full;
    int full_samples;
} rpl_integrity_options;
void rpl_integrity_options_init(rpl_integrity_options *o);
const char *rpl_integrity_stat_name(int stat);
typedef struct rpl_integrity_decision {
    int deal;
    int turn;
    int number;
    int step;
    int seat;
    int target;
    int stat;
    int choices;
    rpl_action played;
    double observed;
    double expected;
    double residual;
    int bin;
    int cal_n[10];
    double cal_sum[10];
} rpl_integrity_decision;
int rpl_integrity_reader(rpl_reader *rd, const rpl_rules *rules, const rpl_integrity_options *o,
                         int (*fn)(void *ctx, const rpl_integrity_decision *d), void *ctx, rpl_verdict *out);
typedef struct rpl_integrity rpl_integrity;
int rpl_integrity_new(rpl_integrity **out, const rpl_integrity_options *o);
void rpl_integrity_free(rpl_integrity *in);
int rpl_integrity_add(rpl_integrity *in, long match, const char *const *names, int players, const char *group,
                      const rpl_integrity_decision *d, size_t n);
typedef struct rpl_integrity_where {
    long match;
    int deal;
    int turn;
    int number;
    int step;
    double residual;
} rpl_integrity_where;
typedef struct rpl_integrity_line {
    int stat;
    const char *player;
    const char *partner;
    long decisions;
    long deals;
    long matches;
    double observed;
    double expected;
    double baseline;
    double value;
    double z;
    double p;
    double level;
    int flagged;
    int nevidence;
    rpl_integrity_where evidence[5];
} rpl_integrity_line;
long rpl_integrity_finish(rpl_integrity *in);
int rpl_integrity_line_get(const rpl_integrity *in, long i, rpl_integrity_line *out);
double rpl_integrity_sign_test(const double *x, size_t n, int permutations, uint64_t seed);
typedef struct rpl_keyring rpl_keyring;
int rpl_keyring_new(rpl_keyring **out);
void rpl_keyring_free(rpl_keyring *kr);
int rpl_keyring_add_file(rpl_keyring *kr, const char *path);
const char *rpl_keyring_errmsg(const rpl_keyring *kr);
int rpl_verify_file_trusted(const char *path, const rpl_rules *rules, const rpl_keyring *trusted,
                            rpl_verdict *out, const rpl_verify_observer *obs);

typedef struct rpl_position_move {
    rpl_card card;
    uint8_t from, to;
    int8_t side;
    int8_t meld;
    int8_t morto;
    uint8_t index;
} rpl_position_move;
typedef struct rpl_position {
    int kind;
    int index;
    int deal, turn, decision, deal_decision, seat;
    rpl_action action;
    int rule;
    char message[320];
    int verdict;
    int nplayers;
    int dealer, phase, to_move;
    int turns;
    int hand_count[4];           /* RPL_MAX_SEATS */
    rpl_card hand[4][108];       /* RPL_DECK_SIZE */
    int meld_count[2];
    rpl_meld_info meld[2][36];   /* RPL_MAX_MELDS */
    int pile_count;
    rpl_card pile[108];
    int pile_visible;
    int stock_count;
    int morto[2];
    rpl_score score[2];
    int32_t total[2];
    int vulnerable[2];
    int winner;
    int claimed;
    int32_t claim[2];
    int match_claimed;
    int32_t match_claim[2];
    int nmoves;
    rpl_position_move move[108];
} rpl_position;
typedef int (*rpl_position_fn)(void *ctx, const rpl_position *pos);
int rpl_positions_file(const char *path, const rpl_rules *rules, rpl_position_fn fn, void *ctx,
                       rpl_verdict *out);
int rpl_positions_reader(rpl_reader *rd, const rpl_rules *rules, rpl_position_fn fn, void *ctx, rpl_verdict *out);
size_t rpl_position_json(const rpl_position *p, const rpl_match_info *info, const char *const *notes,
                         size_t nnotes, char *buf, size_t size);

typedef struct rpl_export_match rpl_export_match;
int rpl_export_match_load(rpl_export_match **out, const char *path, unsigned flags);
int rpl_export_match_load_memory(rpl_export_match **out, const char *name, const void *data, size_t len,
                                 unsigned flags);
void rpl_export_match_free(rpl_export_match *m);
const char *rpl_export_match_errmsg(const rpl_export_match *m);
const rpl_verdict *rpl_export_match_verdict(const rpl_export_match *m);
typedef struct rpl_export_db rpl_export_db;
int rpl_export_db_open(rpl_export_db **out, const char *path, int timeout_ms);
int rpl_export_db_begin(rpl_export_db *db);
int rpl_export_db_commit(rpl_export_db *db);
void rpl_export_db_rollback(rpl_export_db *db);
int rpl_export_db_add(rpl_export_db *db, const rpl_export_match *m, int *added);
int rpl_export_db_merge(rpl_export_db *db, const char *src, int *added);
void rpl_export_db_free(rpl_export_db *db);
const char *rpl_export_db_errmsg(const rpl_export_db *db);

typedef struct rpl_rng { uint64_t s[4]; } rpl_rng;
void rpl_rng_seed(rpl_rng *rng, uint64_t seed);
void rpl_layout_shuffle(rpl_layout *out, int nplayers, rpl_rng *rng);
"""

# The structs whose layout tests/python/layout.c prints: (type, fields).
CHECKED_STRUCTS = {
    "rpl_integrity_options": ["samples", "permutations", "level", "seed", "seats", "full", "full_samples"],
    "rpl_integrity_decision": ["deal", "turn", "number", "step", "seat", "target", "stat", "choices", "played",
                               "observed", "expected", "residual", "bin", "cal_n", "cal_sum"],
    "rpl_integrity_where": ["match", "deal", "turn", "number", "step", "residual"],
    "rpl_integrity_line": ["stat", "player", "partner", "decisions", "deals", "matches", "observed", "expected",
                           "baseline", "value", "z", "p", "level", "flagged", "nevidence", "evidence"],
    "rpl_param_info": ["id", "name", "kind", "min", "max", "names", "meaning", "source"],
    "rpl_meld_info": ["suit", "lo", "points", "category", "bonus", "card", "wild"],
    "rpl_meld_check_result": ["valid", "rule", "reason", "meld"],
    "rpl_layout": ["hand", "morto", "stock"],
    "rpl_action": ["kind", "side", "meld", "end", "morto", "ncards", "cards"],
    "rpl_score": ["melded", "bonus", "canastras", "going_out", "hand", "morto", "total"],
    "rpl_deal_stats": ["turns", "actions", "vulnerable_open", "end", "out_seat"],
    "rpl_match_info": ["rules", "nplayers", "players", "first_dealer", "start_time", "nmeta",
                       "meta_keys", "meta_values", "commitment", "nplayer_seeds", "player_seeds", "commit_version"],
    "rpl_event": ["kind", "deal", "turn", "seat", "action", "layout", "score", "recovered", "seed", "offset"],
    "rpl_verdict": ["kind", "message", "deal", "turn", "seat", "action", "rule", "side", "claim_deal",
                    "claimed", "computed", "breakdown", "offset", "deals", "actions", "total", "winner",
                    "recovered", "bytes", "deal_commitment", "commitment", "deal_mismatch", "signature",
                    "closed", "match_id", "player_seeds", "commit_version", "players", "replay",
                    "replay_trusted", "replay_offset", "replay_message", "keys", "header_flags"],
    "rpl_signature_report": ["status", "key", "trusted", "covered", "size", "offset", "count", "key_trusted",
                             "trusted_key", "trusted_covered", "id_clash", "clash_key"],
    "rpl_pubkey": ["id", "key"],
    "rpl_verify_observer": ["ctx", "before", "after"],
    "rpl_rng": ["s"],
    "rpl_review_options": ["samples", "candidates", "inaccuracy", "mistake", "blunder", "significance", "seed",
                           "hindsight", "seats", "deal", "horizon", "hand_weight", "extend"],
    "rpl_review_decision": ["deal", "turn", "number", "seat", "played", "best", "greedy", "candidates", "samples",
                            "sum_played", "sum_best", "sum_sq", "value_played", "value_best", "loss", "se", "cls",
                            "uncertain", "win_loss", "accuracy"],
    "rpl_position_move": ["card", "from", "to", "side", "meld", "morto", "index"],
    "rpl_position": ["kind", "index", "deal", "turn", "decision", "deal_decision", "seat", "action", "rule",
                     "message", "verdict", "nplayers", "dealer", "phase", "to_move", "turns", "hand_count",
                     "hand", "meld_count", "meld", "pile_count", "pile", "pile_visible", "stock_count", "morto",
                     "score", "total", "vulnerable", "winner", "claimed", "claim", "match_claimed",
                     "match_claim", "nmoves", "move"],
}

ffi = FFI()
ffi.cdef(CDEF)


def _library_path() -> str:
    """Where libreplay.so is: $LIBREPLAY_LIBRARY (meson devenv sets it to the
    build tree's), else the installed library found relative to this
    package's own files (as meson install placed them one from the other,
    so a prefix moved whole still finds its own), else the path meson
    install wrote into _config.py, else the dynamic linker's search for the
    soname."""
    path = os.environ.get("LIBREPLAY_LIBRARY")
    if path:
        return path
    try:
        from . import _config  # written by meson install
    except ImportError:
        return "libreplay.so.0"
    here = os.path.dirname(os.path.abspath(__file__))
    moved = os.path.normpath(os.path.join(here, os.path.relpath(_config.LIBRARY, _config.PACKAGE)))
    for candidate in (moved, _config.LIBRARY):
        if os.path.exists(candidate):
            return candidate
    return "libreplay.so.0"


lib = ffi.dlopen(_library_path())
