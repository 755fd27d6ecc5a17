-- How games are laid out in a server's channels (the /sequence settings command).
-- PostgreSQL's twin of ../0003_guild_table_manners.sql.

CREATE TABLE guild_table_manners (
    guild_id     BIGINT  PRIMARY KEY,
    own_thread   BOOLEAN NOT NULL DEFAULT FALSE,
    tidy_boards  BOOLEAN NOT NULL DEFAULT FALSE,
    updated_at   DOUBLE PRECISION NOT NULL
);

-- A player's results newest first (streaks) and the computer standings by level.
CREATE INDEX results_user_time ON results (user_id, guild_id, finished_at);
CREATE INDEX results_level ON results (guild_id, level, kind);
