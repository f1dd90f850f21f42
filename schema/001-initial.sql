-- libreplay export database, schema version 1 (docs/schema.md explains every table and column).
-- Applied by rpl_export_db_open() to an empty database, inside one transaction.
-- A column of a few allowed words is checked with = and OR, not IN (...): SQLite 3.40 builds a
-- temporary index for each row it inserts under an IN list of more than two values (docs/schema.md).
-- Points are the engine's points; counts are plain counts; sides are 0 (seats 0, 2) and 1 (seats 1, 3).

-- One row a log file, named by the SHA-256 of its bytes.
CREATE TABLE matches (
  match_id         INTEGER PRIMARY KEY,
  hash             TEXT NOT NULL UNIQUE,   -- SHA-256 of the log's bytes, 64 lower-case hex digits
  file             TEXT NOT NULL,          -- the path as given to brp export, the first time
  bytes            INTEGER NOT NULL,       -- size of the log file
  format_version   INTEGER,                -- the log format's version; NULL when the header is unreadable
  profile          TEXT,                   -- kzv, stbl or aberto
  overrides        TEXT,                   -- JSON object: the parameters that differ from the profile
  players          INTEGER,                -- 2 or 4
  target           INTEGER,                -- the match target in points (0: a single deal)
  first_dealer     INTEGER,                -- seat that dealt the first deal
  start_time       TEXT,                   -- ISO 8601 UTC, YYYY-MM-DDTHH:MM:SSZ; NULL unknown
  start_unix       INTEGER,                -- the same, seconds since 1970-01-01 UTC
  verdict          TEXT NOT NULL
                   CHECK (verdict = 'ok' OR verdict = 'illegal' OR verdict = 'mismatch' OR
                     verdict = 'incomplete' OR verdict = 'malformed' OR verdict = 'tampered' OR
                     verdict = 'untrusted'),
  verdict_detail   TEXT NOT NULL,          -- brp verify's one-line message
  verdict_deal     INTEGER,                -- illegal, incomplete: the deal; mismatch: the deal claimed (0 match)
  verdict_turn     INTEGER,                -- illegal, incomplete: the turn
  verdict_seat     INTEGER,                -- illegal: the seat
  verdict_decision TEXT,                   -- illegal: the refused decision, in notation
  verdict_rule     TEXT,                   -- illegal: the stable rule code (docs/rules.md)
  verdict_offset   INTEGER,                -- malformed: byte offset of the damage
  recovered        INTEGER NOT NULL DEFAULT 0, -- 1 when the log was salvaged by brp recover
  deals            INTEGER,                -- ok only: deals played
  decisions        INTEGER,                -- ok only: decisions
  winner           INTEGER,                -- ok only: the winning side
  total0           INTEGER,                -- ok only: the final match total of side 0
  total1           INTEGER,                -- ok only: side 1
  actions_stored   INTEGER NOT NULL DEFAULT 0 -- 1 when the actions table holds its decisions
);

-- Every seat of every match (unnamed seats have a NULL name).
CREATE TABLE match_players (
  match_id INTEGER NOT NULL REFERENCES matches (match_id) ON DELETE CASCADE,
  seat     INTEGER NOT NULL,
  side     INTEGER NOT NULL,               -- seat % 2
  name     TEXT,
  PRIMARY KEY (match_id, seat)
) WITHOUT ROWID;
CREATE INDEX match_players_name ON match_players (name);

-- The log's free-form metadata, in the order of the log.
CREATE TABLE match_meta (
  match_id INTEGER NOT NULL REFERENCES matches (match_id) ON DELETE CASCADE,
  idx      INTEGER NOT NULL,               -- 0-based position in the log
  key      TEXT NOT NULL,
  value    TEXT NOT NULL,
  PRIMARY KEY (match_id, idx)
) WITHOUT ROWID;

-- One row a deal of a match that verified ok.
CREATE TABLE deals (
  match_id        INTEGER NOT NULL REFERENCES matches (match_id) ON DELETE CASCADE,
  deal            INTEGER NOT NULL,        -- 1-based
  dealer          INTEGER NOT NULL,        -- seat
  first_seat      INTEGER NOT NULL,        -- seat that played the first turn
  end_kind        TEXT NOT NULL
                  CHECK (end_kind = 'out' OR end_kind = 'stock'), -- went out, or the stock ran out
  out_seat        INTEGER,                 -- the seat that went out; NULL when the stock ran out
  out_side        INTEGER,                 -- its side
  turns           INTEGER NOT NULL,
  decisions       INTEGER NOT NULL,        -- morto pick-ups included
  pile_taken      INTEGER NOT NULL,        -- pile takes
  pile_frozen     INTEGER NOT NULL,        -- discards that froze the pile
  rejects         INTEGER NOT NULL,        -- ABERTO first-turn rejects
  morto_direct    INTEGER NOT NULL,        -- mortos picked up by melding the hand empty
  morto_indirect  INTEGER NOT NULL,        -- mortos picked up by discarding the hand empty
  morto_to_stock  INTEGER NOT NULL,        -- mortos turned into stock
  vulnerable_open INTEGER NOT NULL,        -- openings by a vulnerable side (ABERTO)
  morto0          TEXT NOT NULL
                  CHECK (morto0 = 'untouched' OR morto0 = 'direct' OR morto0 = 'indirect' OR
                    morto0 = 'stock'),
  morto0_side     INTEGER,                 -- the side that took morto 0 (direct or indirect)
  morto1          TEXT NOT NULL
                  CHECK (morto1 = 'untouched' OR morto1 = 'direct' OR morto1 = 'indirect' OR
                    morto1 = 'stock'),
  morto1_side     INTEGER,
  PRIMARY KEY (match_id, deal)
) WITHOUT ROWID;

-- Per deal and side: the score and its breakdown (total = melded + bonus + going_out + hand + morto).
CREATE TABLE deal_scores (
  match_id          INTEGER NOT NULL REFERENCES matches (match_id) ON DELETE CASCADE,
  deal              INTEGER NOT NULL,
  side              INTEGER NOT NULL,
  melded            INTEGER NOT NULL,      -- + card values in the side's melds
  bonus             INTEGER NOT NULL,      -- + canastra bonuses
  canastras         INTEGER NOT NULL,      -- canastras of every category
  canastras_dirty   INTEGER NOT NULL,
  canastras_clean   INTEGER NOT NULL,
  canastras_clean13 INTEGER NOT NULL,
  canastras_clean14 INTEGER NOT NULL,
  canastras_dirty14 INTEGER NOT NULL,
  going_out         INTEGER NOT NULL,      -- + the going-out bonus
  hand              INTEGER NOT NULL,      -- - values left in hand (<= 0)
  morto             INTEGER NOT NULL,      -- - penalty for a morto not taken (<= 0)
  total             INTEGER NOT NULL,      -- the deal's score
  match_total       INTEGER NOT NULL,      -- the side's match total after this deal
  PRIMARY KEY (match_id, deal, side)
) WITHOUT ROWID;

-- Per deal and seat: what the seat did.
CREATE TABLE deal_seats (
  match_id INTEGER NOT NULL REFERENCES matches (match_id) ON DELETE CASCADE,
  deal     INTEGER NOT NULL,
  seat     INTEGER NOT NULL,
  side     INTEGER NOT NULL,
  turns    INTEGER NOT NULL,               -- turns the seat played
  draws    INTEGER NOT NULL,
  takes    INTEGER NOT NULL,               -- pile takes
  rejects  INTEGER NOT NULL,
  melds    INTEGER NOT NULL,               -- new melds laid
  adds     INTEGER NOT NULL,               -- additions to melds
  discards INTEGER NOT NULL,
  mortos   INTEGER NOT NULL,               -- mortos picked up
  went_out INTEGER NOT NULL,               -- 1 when this seat went out
  PRIMARY KEY (match_id, deal, seat)
) WITHOUT ROWID;

-- The melds on the table when each deal ended.
CREATE TABLE melds (
  match_id INTEGER NOT NULL REFERENCES matches (match_id) ON DELETE CASCADE,
  deal     INTEGER NOT NULL,
  side     INTEGER NOT NULL,
  idx      INTEGER NOT NULL,               -- 0-based, in the order laid (as add S.I names it)
  suit     TEXT NOT NULL CHECK (suit = 'c' OR suit = 'd' OR suit = 'h' OR suit = 's'),
  lo       INTEGER NOT NULL,               -- lowest position: 1 = A (low), 2..10, 11 = J, 12 = Q, 13 = K, 14 = A (high)
  hi       INTEGER NOT NULL,               -- highest position
  length   INTEGER NOT NULL,               -- cards, hi - lo + 1
  wilds    INTEGER NOT NULL,
  clean    INTEGER NOT NULL,               -- 1 without a wild
  category TEXT NOT NULL
           CHECK (category = 'none' OR category = 'dirty' OR category = 'clean' OR category = 'clean13' OR
             category = 'clean14' OR category = 'dirty14'),
  points   INTEGER NOT NULL,               -- card values
  bonus    INTEGER NOT NULL,               -- canastra bonus
  cards    TEXT NOT NULL,                  -- the cards from lo to hi, a wild as JK(9d)
  PRIMARY KEY (match_id, deal, side, idx)
) WITHOUT ROWID;

-- Every decision (brp export --actions).
CREATE TABLE actions (
  match_id INTEGER NOT NULL REFERENCES matches (match_id) ON DELETE CASCADE,
  deal     INTEGER NOT NULL,
  seq      INTEGER NOT NULL,               -- 1-based position within the deal
  turn     INTEGER NOT NULL,               -- 1-based turn within the deal
  seat     INTEGER NOT NULL,
  kind     TEXT NOT NULL
           CHECK (kind = 'draw' OR kind = 'take' OR kind = 'reject' OR kind = 'meld' OR kind = 'add' OR
             kind = 'discard' OR kind = 'morto'),
  text     TEXT NOT NULL,                  -- as rpl_action_format() writes it: "meld 5h 6h 7h"
  PRIMARY KEY (match_id, deal, seq)
) WITHOUT ROWID;

-- Per player name and deal played (ok matches, named seats): the side's score, the seat's play.
CREATE VIEW player_deals AS
SELECT mp.name AS name, m.match_id AS match_id, m.profile AS profile, m.players AS players, d.deal AS deal,
       mp.seat AS seat, mp.side AS side, s.total AS score, s.canastras AS canastras,
       ds.went_out AS went_out, ds.turns AS turns, ds.takes AS takes
FROM match_players mp
JOIN matches m ON m.match_id = mp.match_id AND m.verdict = 'ok'
JOIN deals d ON d.match_id = mp.match_id
JOIN deal_scores s ON s.match_id = d.match_id AND s.deal = d.deal AND s.side = mp.side
JOIN deal_seats ds ON ds.match_id = d.match_id AND ds.deal = d.deal AND ds.seat = mp.seat
WHERE mp.name IS NOT NULL;

-- Per player name: matches, wins, deals and rates (ok matches only).
CREATE VIEW player_stats AS
WITH pm AS (
  SELECT mp.name AS name, count(DISTINCT mp.match_id) AS matches,
         count(DISTINCT CASE WHEN m.winner = mp.side THEN mp.match_id END) AS wins
  FROM match_players mp JOIN matches m ON m.match_id = mp.match_id AND m.verdict = 'ok'
  WHERE mp.name IS NOT NULL
  GROUP BY mp.name),
pd AS (
  SELECT name, count(*) AS deals, sum(score) AS points, sum(canastras) AS canastras, sum(went_out) AS went_out,
         sum(turns) AS turns, sum(takes) AS pile_takes
  FROM player_deals GROUP BY name)
SELECT pm.name AS name, pm.matches AS matches, pm.wins AS wins, pd.deals AS deals, pd.points AS points,
       pd.canastras AS canastras, pd.went_out AS went_out, pd.turns AS turns, pd.pile_takes AS pile_takes,
       round(CAST(pm.wins AS REAL) / pm.matches, 4) AS win_rate,
       round(CAST(pd.points AS REAL) / pd.deals, 2) AS avg_score_per_deal,
       round(CAST(pd.canastras AS REAL) / pd.deals, 4) AS canastras_per_deal,
       round(CAST(pd.went_out AS REAL) / pd.deals, 4) AS going_out_rate,
       round(CAST(pd.pile_takes AS REAL) / pd.turns, 4) AS pile_taking_rate
FROM pm JOIN pd ON pd.name = pm.name;

-- Per profile, table size and position (1: the seat that plays first, after the first dealer; n: the
-- first dealer): how often that seat's side won the match (ok matches).
CREATE VIEW seat_advantage AS
SELECT m.profile AS profile, m.players AS players,
       (mp.seat - d.first_seat + m.players) % m.players + 1 AS position,
       count(*) AS matches, sum(m.winner = mp.side) AS wins,
       round(avg(m.winner = mp.side), 4) AS win_rate
FROM matches m
JOIN deals d ON d.match_id = m.match_id AND d.deal = 1
JOIN match_players mp ON mp.match_id = m.match_id
WHERE m.verdict = 'ok'
GROUP BY m.profile, m.players, position;

-- The same per deal: position 1 plays the deal's first turn; the side's average deal score.
CREATE VIEW deal_advantage AS
SELECT m.profile AS profile, m.players AS players,
       (ds.seat - d.first_seat + m.players) % m.players + 1 AS position,
       count(*) AS deals, round(avg(s.total), 2) AS avg_score, round(avg(ds.went_out), 4) AS going_out_rate
FROM deals d
JOIN matches m ON m.match_id = d.match_id
JOIN deal_seats ds ON ds.match_id = d.match_id AND ds.deal = d.deal
JOIN deal_scores s ON s.match_id = d.match_id AND s.deal = d.deal AND s.side = ds.side
GROUP BY m.profile, m.players, position;

PRAGMA user_version = 1;
