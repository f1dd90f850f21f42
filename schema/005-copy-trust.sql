-- Version 5: a copy also says whether a trusted key signs what the replay found (replay_trusted).
--
-- Two logs of one match may verify alike in everything version 4 told copies apart by (the verdict
-- untrusted, the signature partial, one signer, no trust) and yet differ in what the platform vouched
-- for: a growing log signed up to a deal and one signed past it, each with unsigned bytes after (a
-- flush's signature missing, or the end section appended). When the replay finds an illegal decision
-- or a wrong claim in that deal, the first copy only says that someone's bytes hold it; the second
-- says that the trusted key signed it (brp verify names the seat). Under version 4 whichever was
-- exported first was kept and the other was hidden. Making the index finer keeps every row: two rows
-- of one version-4 copy stay apart as they were.
DROP INDEX matches_copy;
CREATE UNIQUE INDEX matches_copy ON matches (coalesce(identity, hash), verdict, coalesce(signature, ''),
  coalesce(signature_key, ''), coalesce(signature_fingerprint, ''), coalesce(signature_trusted, -1),
  coalesce(dealing, ''), coalesce(replay_trusted, -1));

PRAGMA user_version = 5;
