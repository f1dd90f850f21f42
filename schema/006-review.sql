-- Version 6: the review of a match (docs/review.md), written by brp export --review
-- (rpl_export_match_load_reviewed): what each decision cost its seat, and each seat's totals.
-- Only an ok copy is reviewed; a row is reviewed once (its first review is kept: docs/schema.md,
-- "Review"). Values are points of expected deal-score margin of the seat's side.

-- One row a decision reviewed (a seat's decision with a choice of two or more legal decisions).
CREATE TABLE decision_values (
  match_id     INTEGER NOT NULL REFERENCES matches (match_id) ON DELETE CASCADE,
  deal         INTEGER NOT NULL,
  number       INTEGER NOT NULL,           -- the decision's number in the deal, 1-based (actions.seq)
  turn         INTEGER NOT NULL,           -- the turn of the deal, 1-based (actions.turn)
  decision     INTEGER NOT NULL,           -- its number in the turn, 1-based (brp review, brp show -D)
  seat         INTEGER NOT NULL,
  side         INTEGER NOT NULL,
  played       TEXT NOT NULL,              -- the decision played, in notation ("discard 7h")
  best         TEXT NOT NULL,              -- the engine's preferred one (played when none is better)
  greedy       TEXT NOT NULL,              -- the greedy bot's choice at the same position
  value_played REAL NOT NULL,              -- the mean margin after played, over the samples
  value_best   REAL NOT NULL,              -- after best, on the same samples
  loss         REAL NOT NULL,              -- value_best - value_played (>= 0)
  se           REAL NOT NULL,              -- the standard error of loss
  samples      INTEGER NOT NULL,           -- the samples played and best were judged on
  candidates   INTEGER NOT NULL,           -- the decisions judged
  class        TEXT
               CHECK (class IS NULL OR class = 'inaccuracy' OR class = 'mistake' OR class = 'blunder'),
  uncertain    INTEGER NOT NULL,           -- 1: the class would differ somewhere within loss +- se
  win_loss     REAL NOT NULL,              -- the loss in win% (docs/review.md)
  accuracy     REAL NOT NULL,              -- 0..100
  PRIMARY KEY (match_id, deal, number)
) WITHOUT ROWID;

-- One row a seat reviewed and deal where it had a decision reviewed, and one a seat for the match
-- (deal 0, even with no decision reviewed): brp review --json's summaries.
CREATE TABLE reviews (
  match_id     INTEGER NOT NULL REFERENCES matches (match_id) ON DELETE CASCADE,
  seat         INTEGER NOT NULL,
  deal         INTEGER NOT NULL,           -- 0: the whole match
  side         INTEGER NOT NULL,
  decisions    INTEGER NOT NULL,           -- reviewed
  matched      INTEGER NOT NULL,           -- where played was the engine's preferred decision
  accuracy     REAL,                       -- the mean accuracy of its decisions; NULL without one
  match_rate   REAL,                       -- 100 * matched / decisions; NULL without a decision
  loss         REAL NOT NULL,              -- the points lost, summed
  inaccuracies INTEGER NOT NULL,
  mistakes     INTEGER NOT NULL,
  blunders     INTEGER NOT NULL,
  strength     INTEGER NOT NULL,           -- samples a decision (brp review --strength)
  seed         INTEGER NOT NULL,           -- the samples' seed (one of 2^63 or more: itself less 2^64)
  candidates   INTEGER NOT NULL,           -- the most candidates a decision
  significance INTEGER NOT NULL,           -- tenths of a standard error (RPL_REVIEW_SIGNIFICANCE)
  hindsight    INTEGER NOT NULL,           -- 1: judged on the real cards
  version      TEXT NOT NULL,              -- the library that reviewed (rpl_version())
  PRIMARY KEY (match_id, seat, deal)
) WITHOUT ROWID;

PRAGMA user_version = 6;
