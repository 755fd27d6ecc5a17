-- Family seats, a turn timer per game, the bot's own small facts.
-- PostgreSQL's twin of ../0004_family_seats_game_timer.sql.

ALTER TABLE seats ADD COLUMN guardian TEXT;
ALTER TABLE results ADD COLUMN guardian TEXT;
ALTER TABLE games ADD COLUMN turn_timer DOUBLE PRECISION;
ALTER TABLE games ADD COLUMN family_seats BOOLEAN NOT NULL DEFAULT TRUE;

CREATE TABLE bot_state (
    key         TEXT PRIMARY KEY,
    value       TEXT NOT NULL,
    updated_at  DOUBLE PRECISION NOT NULL
);
