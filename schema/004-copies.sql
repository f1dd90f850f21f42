-- libreplay export database, schema version 4 (docs/schema.md, "Copies"): one row a copy of a match.
-- Two logs of one match (one identity) that verify differently (another verdict, another signature
-- status, signer (key id or public key) or trust, another dealing status) are two copies, each a row of its own, linked by
-- matches.identity; byte-variants that verify alike are one copy, one row. The row records what the
-- signatures cover and what the log proves of its deals. The statistics count each match once, from
-- the view counted_matches.
-- Applied by rpl_export_db_open() to a database of version 3, inside one transaction, on a connection
-- whose foreign keys are off (the export's): matches is made again without the UNIQUE on hash (one
-- file judged under other trusted keys is another row), its rows kept with their match_id.

DROP VIEW player_stats;
DROP VIEW player_deals;
DROP VIEW seat_advantage;
DROP VIEW deal_advantage;
DROP VIEW seat_results;

CREATE TABLE matches_v4 (
  match_id         INTEGER PRIMARY KEY,
  hash             TEXT NOT NULL,          -- SHA-256 of the log's bytes, 64 lower-case hex digits
  file             TEXT NOT NULL,          -- the path of the file the row describes, as given to brp export
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
  verdict_deal     INTEGER,                -- illegal, incomplete: the deal; mismatch: the deal (0 match, or seed)
  verdict_turn     INTEGER,                -- illegal, incomplete: the turn
  verdict_seat     INTEGER,                -- illegal: the seat
  verdict_decision TEXT,                   -- illegal: the refused decision, in notation
  verdict_rule     TEXT,                   -- illegal: the stable rule code (docs/rules.md)
  verdict_offset   INTEGER,                -- malformed, tampered: byte offset
  recovered        INTEGER NOT NULL DEFAULT 0, -- 1 when the log was salvaged by brp recover
  deals            INTEGER,                -- ok only: deals played
  decisions        INTEGER,                -- ok only: decisions
  winner           INTEGER,                -- ok only: the winning side
  total0           INTEGER,                -- ok only: the final match total of side 0
  total1           INTEGER,                -- ok only: side 1
  actions_stored   INTEGER NOT NULL DEFAULT 0, -- 1 when the actions table holds its decisions
  identity         TEXT,                   -- the match identity; NULL: malformed (or a version-1 or -2 row)
  closed           INTEGER CHECK (closed = 0 OR closed = 1),
  -- Version 4. Every column below is NULL in a row exported before version 4, until its own file is
  -- exported again.
  trusted_keys     INTEGER,                -- the number of trusted keys the log was judged with (0: no -K)
  replay           TEXT
                   CHECK (replay = 'ok' OR replay = 'illegal' OR replay = 'mismatch' OR
                     replay = 'incomplete' OR replay = 'malformed'),  -- what the replay found: the
                                           -- verdict, unless that is tampered or untrusted
  replay_trusted   INTEGER,                -- 1 when the section the finding rests on is in trusted bytes
  replay_detail    TEXT,                   -- the replay's own message (verdict_detail replaces it)
  signature        TEXT
                   CHECK (signature = 'unsigned' OR signature = 'ok' OR signature = 'partial' OR
                     signature = 'invalid'),
  signature_key    TEXT,                   -- the last valid signature's key id (or the invalid one's); NULL unsigned
  signature_fingerprint TEXT,              -- that key's fingerprint, 32 lower-case hex digits; NULL unsigned
  signature_key_trusted INTEGER,           -- 1 when that key is one of the trusted keys
  signature_covered INTEGER,               -- bytes 0 to this are covered (invalid: the bytes it claims)
  signature_count  INTEGER,                -- valid signatures read
  signature_trusted INTEGER,               -- 1 when a trusted key covers the whole log
  signature_trusted_key TEXT,              -- the last valid signature by a trusted key: its key id; NULL none
  signature_trusted_fingerprint TEXT,      -- its fingerprint
  signature_trusted_covered INTEGER,       -- bytes 0 to this are covered by a trusted key (0: none)
  signature_id_clash INTEGER,              -- 1 when a signer carries a trusted key's id with another public key
  signature_header_signed INTEGER,         -- 1 when the header declares the log signed (format version 4)
  dealing          TEXT
                   CHECK (dealing = 'none' OR dealing = 'unrevealed' OR dealing = 'revealed' OR
                     dealing = 'mismatch'),  -- what the log proves of its deals; NULL: no header
  dealing_digest   TEXT,                   -- the commitment, 64 lower-case hex digits; NULL without one
  dealing_player_seeds INTEGER,            -- the players' seeds in the header; NULL without a commitment
  dealing_protocol INTEGER                 -- the commitment's protocol: 1 (format 3: the seed alone), 2 (with the
                                           -- match's terms); NULL without a commitment
);
INSERT INTO matches_v4 (match_id, hash, file, bytes, format_version, profile, overrides, players, target,
  first_dealer, start_time, start_unix, verdict, verdict_detail, verdict_deal, verdict_turn, verdict_seat,
  verdict_decision, verdict_rule, verdict_offset, recovered, deals, decisions, winner, total0, total1,
  actions_stored, identity, closed)
SELECT match_id, hash, file, bytes, format_version, profile, overrides, players, target, first_dealer,
  start_time, start_unix, verdict, verdict_detail, verdict_deal, verdict_turn, verdict_seat, verdict_decision,
  verdict_rule, verdict_offset, recovered, deals, decisions, winner, total0, total1, actions_stored, identity,
  closed
FROM matches ORDER BY match_id;
DROP TABLE matches;
ALTER TABLE matches_v4 RENAME TO matches;

-- One row a copy: the match (its identity; a log without one, by its bytes), its verdict, what its
-- signatures say (status, signer: key id and fingerprint, trust) and what it proves of its deals. The
-- same expressions name a copy in the export's statements, so that they use this index.
CREATE UNIQUE INDEX matches_copy ON matches (coalesce(identity, hash), verdict, coalesce(signature, ''),
  coalesce(signature_key, ''), coalesce(signature_fingerprint, ''), coalesce(signature_trusted, -1),
  coalesce(dealing, ''));
-- The copies of a match, and the one a statistic counts (counted_matches).
CREATE INDEX matches_identity ON matches (identity, verdict);
CREATE INDEX matches_hash ON matches (hash);
-- As in version 2.
CREATE INDEX matches_profile ON matches (profile, players);
CREATE INDEX matches_start ON matches (start_unix);
CREATE INDEX matches_verdict ON matches (verdict);

-- One row a match that has an ok copy: the first ok copy exported (the lowest match_id). Every ok copy
-- of one match has the same content (the identity fixes it), hence the same deals, scores and players:
-- which of them is counted changes no number, and no match is counted twice. A row without an identity
-- (a version-1 or -2 row not exported since) is a match of its own.
CREATE VIEW counted_matches AS
SELECT m.* FROM matches m
WHERE m.verdict = 'ok' AND NOT EXISTS (
  SELECT 1 FROM matches c WHERE c.identity = m.identity AND c.verdict = 'ok' AND c.match_id < m.match_id);

-- The views of versions 1 and 2, over counted_matches.
CREATE VIEW player_deals AS
SELECT mp.name AS name, m.match_id AS match_id, m.profile AS profile, m.players AS players, d.deal AS deal,
       mp.seat AS seat, mp.side AS side, s.total AS score, s.canastras AS canastras,
       ds.went_out AS went_out, ds.turns AS turns, ds.takes AS takes
FROM match_players mp
JOIN counted_matches m ON m.match_id = mp.match_id
JOIN deals d ON d.match_id = mp.match_id
JOIN deal_scores s ON s.match_id = d.match_id AND s.deal = d.deal AND s.side = mp.side
JOIN deal_seats ds ON ds.match_id = d.match_id AND ds.deal = d.deal AND ds.seat = mp.seat
WHERE mp.name IS NOT NULL;

CREATE VIEW player_stats AS
WITH pm AS (
  SELECT mp.name AS name, count(DISTINCT mp.match_id) AS matches,
         count(DISTINCT CASE WHEN m.winner = mp.side THEN mp.match_id END) AS wins
  FROM match_players mp JOIN counted_matches m ON m.match_id = mp.match_id
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

CREATE VIEW seat_advantage AS
SELECT m.profile AS profile, m.players AS players,
       (mp.seat - d.first_seat + m.players) % m.players + 1 AS position,
       count(*) AS matches, sum(m.winner = mp.side) AS wins,
       round(avg(m.winner = mp.side), 4) AS win_rate
FROM counted_matches m
JOIN deals d ON d.match_id = m.match_id AND d.deal = 1
JOIN match_players mp ON mp.match_id = m.match_id
GROUP BY m.profile, m.players, position;

CREATE VIEW deal_advantage AS
SELECT m.profile AS profile, m.players AS players,
       (ds.seat - d.first_seat + m.players) % m.players + 1 AS position,
       count(*) AS deals, round(avg(s.total), 2) AS avg_score, round(avg(ds.went_out), 4) AS going_out_rate
FROM deals d
JOIN counted_matches m ON m.match_id = d.match_id
JOIN deal_seats ds ON ds.match_id = d.match_id AND ds.deal = d.deal
JOIN deal_scores s ON s.match_id = d.match_id AND s.deal = d.deal AND s.side = ds.side
GROUP BY m.profile, m.players, position;

CREATE VIEW seat_results AS
SELECT m.match_id AS match_id, m.profile AS profile, m.players AS players, mp.seat AS seat,
       mp.side AS side, mp.name AS name,
       (mp.seat - d.first_seat + m.players) % m.players + 1 AS position,
       m.winner = mp.side AS won,
       CASE mp.side WHEN 0 THEN m.total0 ELSE m.total1 END AS total,
       CASE mp.side WHEN 0 THEN m.total1 ELSE m.total0 END AS opponents_total,
       m.deals AS deals
FROM counted_matches m
JOIN match_players mp ON mp.match_id = m.match_id
JOIN deals d ON d.match_id = m.match_id AND d.deal = 1;

PRAGMA user_version = 4;
