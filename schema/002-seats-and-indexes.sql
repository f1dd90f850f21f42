-- Schema version 2: indexes for the usual filters, and results by seat.
-- Applied in one transaction to a version-1 database (docs/schema.md, "Versions").

-- The filters analysts write most: a profile and table size, a period, a verdict. (A player's name
-- has match_players_name since version 1; the views join on primary keys.)
CREATE INDEX matches_profile ON matches (profile, players);
CREATE INDEX matches_start ON matches (start_unix);
CREATE INDEX matches_verdict ON matches (verdict);

-- One row per ok match and seat: who sat there, where the seat played in the match's first deal
-- (position 1 plays first), and how the seat's side did. A win rate by seat is then
-- SELECT seat, avg(won) FROM seat_results GROUP BY seat.
CREATE VIEW seat_results AS
SELECT m.match_id AS match_id, m.profile AS profile, m.players AS players, mp.seat AS seat,
       mp.side AS side, mp.name AS name,
       (mp.seat - d.first_seat + m.players) % m.players + 1 AS position,
       m.winner = mp.side AS won,
       CASE mp.side WHEN 0 THEN m.total0 ELSE m.total1 END AS total,
       CASE mp.side WHEN 0 THEN m.total1 ELSE m.total0 END AS opponents_total,
       m.deals AS deals
FROM matches m
JOIN match_players mp ON mp.match_id = m.match_id
JOIN deals d ON d.match_id = m.match_id AND d.deal = 1
WHERE m.verdict = 'ok';

PRAGMA user_version = 2;
