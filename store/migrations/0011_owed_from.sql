-- Which moves an owed announcement is about (issue 32). ``from_ply``: the number of the
-- game's moves stored when the first untold change was made (the ply of its first move);
-- a process that takes over a dead one's promise tells every move from there again, a
-- board each, before anything new happens in the game, instead of showing only where the
-- game stands now (the moves in between were stored and never shown). ``through_ply``:
-- the number of moves stored after the promise's latest change; the promise is kept
-- (deleted) only by a process that told the game through that many moves, so a change
-- made while the earlier ones were being told keeps its promise. NULL for a promise
-- written before this migration: the table is shown again as it stands, as before.
ALTER TABLE deliveries ADD COLUMN from_ply INTEGER;
ALTER TABLE deliveries ADD COLUMN through_ply INTEGER;
