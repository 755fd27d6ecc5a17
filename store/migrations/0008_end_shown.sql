-- Whether a finished game's final board (its result, the rematch button) got out. The
-- move that ends a game commits with end_shown = 0; the Discord side sets it once the
-- final board is posted. A process that dies in between leaves it 0, and the next one to
-- look (a restart, or another process taking over what the dead one owed) posts the
-- final board then: exactly the games that need it, without reading any channel.
-- Games finished before this migration count as shown.
ALTER TABLE games ADD COLUMN end_shown INTEGER NOT NULL DEFAULT 1;
CREATE INDEX games_end_not_shown ON games (id) WHERE status = 'finished' AND end_shown = 0;
