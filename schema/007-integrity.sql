-- Version 7: the integrity screen's evidence (integrity.h), written by brp export --integrity
-- (rpl_export_match_load_screened): each deal's decisions with evidence, summed by seat, statistic,
-- target and calibration bin, with the calibration of every option the seats had, the null model's
-- centre. Only an ok copy is screened; a row is screened once (its first screen is kept:
-- docs/schema.md, integrity_deals). The views sum the rows by player and by pair, as brp integrity does.

-- One row a deal, seat, statistic, target and bin with a decision or an option in that bin.
CREATE TABLE integrity_deals (
  match_id   INTEGER NOT NULL REFERENCES matches (match_id) ON DELETE CASCADE,
  deal       INTEGER NOT NULL,
  seat       INTEGER NOT NULL,           -- who decided
  statistic  TEXT NOT NULL
             CHECK (statistic = 'fit' OR statistic = 'draw'),
  target     INTEGER,                    -- fit: the seat whose hidden hand; NULL for draw
  relation   TEXT                        -- fit: the target's offset from the seat (+1, +2, +3); NULL for draw
             CHECK (relation IS NULL OR relation = 'next' OR relation = 'partner' OR relation = 'previous'),
  bin        INTEGER NOT NULL,           -- the tenth of 0..1 the expected values counted here fall in, 0..9
  decisions  INTEGER NOT NULL,           -- decisions with evidence whose expected value falls in bin
  observed   REAL NOT NULL,              -- the sum of their observed values (each 0 or 1)
  expected   REAL NOT NULL,              -- the sum of what the seat's information explains
  residual   REAL NOT NULL,              -- the sum of observed - expected, decision by decision
  options    INTEGER NOT NULL,           -- the calibration: the options of this key's decisions in bin
  excess     REAL NOT NULL,              -- the sum of those options' observed - expected
  samples    INTEGER NOT NULL,           -- samples of the unseen cards a discard (rpl_integrity_options)
  seed       INTEGER NOT NULL,           -- the samples' seed (2^63 or more: itself less 2^64)
  version    TEXT NOT NULL               -- the library that screened (rpl_version())
);
-- The key: a draw row's target is NULL, which a primary key cannot hold (nor a UNIQUE tell apart).
CREATE UNIQUE INDEX integrity_deals_key ON integrity_deals (match_id, deal, seat, statistic, ifnull(target, -1), bin);

-- brp integrity's players: 'peek' (discards against the next seat's hidden hand) and 'draw', summed
-- over the named seats of the counted copies; centre is the null's: the calibration's excess an option
-- of the same profile, table size, relation and bin, weighted by the player's decisions in each.
CREATE VIEW integrity_players AS
WITH centres AS (
  SELECT m.profile AS profile, m.players AS players, coalesce(i.relation, 'draw') AS kind, i.bin AS bin,
         sum(i.excess) / sum(i.options) AS centre
  FROM integrity_deals i JOIN counted_matches m ON m.match_id = i.match_id
  WHERE i.options > 0
  GROUP BY m.profile, m.players, kind, i.bin),
evidence AS (
  SELECT mp.name AS name, CASE i.statistic WHEN 'draw' THEN 'draw' ELSE 'peek' END AS statistic,
         i.match_id AS match_id, i.deal AS deal, i.decisions AS decisions, i.observed AS observed,
         i.expected AS expected, i.decisions * coalesce(c.centre, 0) AS centred
  FROM integrity_deals i
  JOIN counted_matches m ON m.match_id = i.match_id
  JOIN match_players mp ON mp.match_id = i.match_id AND mp.seat = i.seat
  LEFT JOIN centres c ON c.profile = m.profile AND c.players = m.players AND c.kind = coalesce(i.relation, 'draw')
                     AND c.bin = i.bin
  WHERE i.decisions > 0 AND mp.name IS NOT NULL AND (i.statistic = 'draw' OR i.relation = 'next'))
SELECT name, statistic, count(DISTINCT match_id) AS matches, count(DISTINCT match_id || '.' || deal) AS deals,
       sum(decisions) AS decisions, sum(observed) AS observed, sum(expected) AS expected,
       (sum(observed) - sum(expected)) / sum(decisions) AS raw, sum(centred) / sum(decisions) AS centre
FROM evidence GROUP BY name, statistic;

-- brp integrity's pairs: name's discards against target_name's hidden hand, 'feed' for an opponent
-- (next or previous), 'signal' for a partner; two seats of one name are no pair.
CREATE VIEW integrity_pairs AS
WITH centres AS (
  SELECT m.profile AS profile, m.players AS players, i.relation AS relation, i.bin AS bin,
         sum(i.excess) / sum(i.options) AS centre
  FROM integrity_deals i JOIN counted_matches m ON m.match_id = i.match_id
  WHERE i.options > 0 AND i.statistic = 'fit'
  GROUP BY m.profile, m.players, i.relation, i.bin),
evidence AS (
  SELECT a.name AS name, b.name AS target_name,
         CASE i.relation WHEN 'partner' THEN 'signal' ELSE 'feed' END AS statistic,
         i.match_id AS match_id, i.deal AS deal, i.decisions AS decisions, i.observed AS observed,
         i.expected AS expected, i.decisions * coalesce(c.centre, 0) AS centred
  FROM integrity_deals i
  JOIN counted_matches m ON m.match_id = i.match_id
  JOIN match_players a ON a.match_id = i.match_id AND a.seat = i.seat
  JOIN match_players b ON b.match_id = i.match_id AND b.seat = i.target
  LEFT JOIN centres c ON c.profile = m.profile AND c.players = m.players AND c.relation = i.relation
                     AND c.bin = i.bin
  WHERE i.decisions > 0 AND i.statistic = 'fit' AND a.name IS NOT NULL AND b.name IS NOT NULL AND a.name <> b.name)
SELECT name, target_name, statistic, count(DISTINCT match_id) AS matches,
       count(DISTINCT match_id || '.' || deal) AS deals, sum(decisions) AS decisions, sum(observed) AS observed,
       sum(expected) AS expected, (sum(observed) - sum(expected)) / sum(decisions) AS raw,
       sum(centred) / sum(decisions) AS centre
FROM evidence GROUP BY name, target_name, statistic;

PRAGMA user_version = 7;
