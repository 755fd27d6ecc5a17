-- What the Discord layer posted for each lobby and game, and each person's DM door, so
-- that any process (several share one PostgreSQL: docs/SCALING.md) can edit a lobby
-- message another one posted, tidy away the board before the newest whoever posted it,
-- find the thread a game moved to, and skip a DM that another process saw refused.
-- Not the manager's business (it knows nothing of messages); kept in the same database so
-- one backup holds everything. A game's row is deleted when the game ends (and goes with
-- the game); a door is one row per person, rewritten only when it changes.
CREATE TABLE table_posts (
    game_id        INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    lobby_channel  INTEGER,           -- where the lobby message is (NULL: none kept)
    lobby_message  INTEGER,
    board_message  INTEGER,           -- the newest board (NULL: none posted yet)
    board_ply      INTEGER,           -- the move it shows (ties: the later message wins)
    thread_id      INTEGER,           -- the thread the game moved to (NULL: none)
    thread_parent  INTEGER,           -- the channel that thread hangs from
    updated_at     REAL    NOT NULL   -- epoch seconds
);
CREATE INDEX table_posts_thread ON table_posts (thread_id) WHERE thread_id IS NOT NULL;

CREATE TABLE dm_doors (
    user_id     INTEGER PRIMARY KEY,
    dm_channel  INTEGER,              -- the person's DM channel, once opened
    closed_at   REAL,                 -- epoch seconds a DM was refused (NULL: not lately)
    updated_at  REAL    NOT NULL
);
