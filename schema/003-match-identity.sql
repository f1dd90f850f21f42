-- libreplay export database, schema version 3 (docs/schema.md): a match is named by its match
-- identity (brp verify's match_id, docs/format.md section 17), the same for every byte-variant of
-- one match, and no longer only by the SHA-256 of its file's bytes (matches.hash stays).
-- Applied by rpl_export_db_open() to a database of version 2, inside one transaction.

-- The match identity, 64 lower-case hex digits; NULL for a log that does not decode to its end
-- (malformed), and for the rows of a version-1 database until their log is exported again.
ALTER TABLE matches ADD COLUMN identity TEXT;
-- 1 when the log has its end section, 0 when it is unclosed; NULL: not known (a version-1 row).
ALTER TABLE matches ADD COLUMN closed INTEGER CHECK (closed = 0 OR closed = 1);
-- One row a match: NULLs (malformed logs) do not collide.
CREATE UNIQUE INDEX matches_identity ON matches (identity);

PRAGMA user_version = 3;
