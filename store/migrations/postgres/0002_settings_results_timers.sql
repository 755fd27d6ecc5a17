-- Server settings, finished-game results for stats, and the turn timer's stored state.
-- PostgreSQL's twin of ../0002_settings_results_timers.sql.

CREATE TABLE guild_settings (
    guild_id          BIGINT  PRIMARY KEY,
    locale            TEXT    NOT NULL DEFAULT 'en',
    turn_timer        DOUBLE PRECISION,                   -- seconds; NULL: no turn timer
    timeout_action    TEXT    NOT NULL DEFAULT 'computer'
                      CHECK (timeout_action IN ('computer', 'skip')),
    absences_to_free  INTEGER NOT NULL DEFAULT 3,
    defaults          TEXT    NOT NULL DEFAULT '{}',      -- JSON: game -> options
    updated_at        DOUBLE PRECISION NOT NULL
);

-- One row per seat per finished game.
CREATE TABLE results (
    game_id     BIGINT  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat        INTEGER NOT NULL,
    user_id     BIGINT,
    level       TEXT,
    name        TEXT    NOT NULL,
    kind        TEXT    NOT NULL,
    guild_id    BIGINT,
    side        INTEGER NOT NULL,
    outcome     TEXT    NOT NULL CHECK (outcome IN ('win', 'loss', 'draw')),
    resigned    BOOLEAN NOT NULL DEFAULT FALSE,
    finished_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game_id, seat)
);

CREATE INDEX results_user ON results (user_id, kind);
CREATE INDEX results_guild ON results (guild_id, kind);

ALTER TABLE games ADD COLUMN on_leave TEXT NOT NULL DEFAULT 'skip';
ALTER TABLE games ADD COLUMN turn_reminded BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE games ADD COLUMN end_reason TEXT;
ALTER TABLE seats ADD COLUMN absences INTEGER NOT NULL DEFAULT 0;
