-- Announcements owed: a change's messages (board, hands, turn line) that the process which
-- made it has not yet finished posting. Written in the change's own transaction, deleted
-- once posted; a row whose time ran out (its process died) is taken over by another
-- process, which shows the table again, posting only what its channel is missing.
-- Only several processes on one PostgreSQL use it; the SQLite twin keeps the schemas alike.
-- Not copied by tools.sqlite_to_postgres (nothing is owed by a stopped bot).
CREATE TABLE deliveries (
    game_id     INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    owner       TEXT    NOT NULL,   -- the process that owes them (random per start)
    until       REAL    NOT NULL,   -- epoch seconds: after this, anyone may take them over
    PRIMARY KEY (game_id, owner)
);
