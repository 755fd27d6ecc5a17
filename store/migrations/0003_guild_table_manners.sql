-- How games are laid out in a server's channels (the /sequence settings command):
-- whether a game gets a thread of its own, and whether older board messages are
-- deleted so a channel shows only the latest board. Kept apart from guild_settings,
-- which the game manager owns and validates; these two only concern the Discord layer.

CREATE TABLE guild_table_manners (
    guild_id     INTEGER PRIMARY KEY,
    own_thread   INTEGER NOT NULL DEFAULT 0 CHECK (own_thread IN (0, 1)),
    tidy_boards  INTEGER NOT NULL DEFAULT 0 CHECK (tidy_boards IN (0, 1)),
    updated_at   REAL    NOT NULL
);

-- A player's results newest first (streaks) and the computer standings by level.
CREATE INDEX results_user_time ON results (user_id, guild_id, finished_at);
CREATE INDEX results_level ON results (guild_id, level, kind);
