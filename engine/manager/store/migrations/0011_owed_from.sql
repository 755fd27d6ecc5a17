-- Which moves an owed announcement is about (issue 32): the number of the game's moves
-- stored when its first untold change was made (the ply of that change's first move).
-- A process that takes over a dead one's promise tells every move from there again, a
-- board each, before anything new happens in the game, instead of showing only where the
-- game stands now (the moves in between were stored and never shown). NULL for a promise
-- written before this migration: the table is shown again as it stands, as before.
ALTER TABLE deliveries ADD COLUMN from_ply INTEGER;
