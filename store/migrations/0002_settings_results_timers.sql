-- Server settings, finished-game results for stats, and the turn timer's stored state.

CREATE TABLE guild_settings (
    guild_id          INTEGER PRIMARY KEY,
    locale            TEXT    NOT NULL DEFAULT 'en',
    turn_timer        REAL,                               -- seconds; NULL: no turn timer
    timeout_action    TEXT    NOT NULL DEFAULT 'computer'
                      CHECK (timeout_action IN ('computer', 'skip')),
    absences_to_free  INTEGER NOT NULL DEFAULT 3,
    defaults          TEXT    NOT NULL DEFAULT '{}',      -- JSON: game -> options
    updated_at        REAL    NOT NULL
);

-- One row per seat per finished game.
CREATE TABLE results (
    game_id     INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat        INTEGER NOT NULL,
    user_id     INTEGER,
    level       TEXT,
    name        TEXT    NOT NULL,
    kind        TEXT    NOT NULL,
    guild_id    INTEGER,
    side        INTEGER NOT NULL,
    outcome     TEXT    NOT NULL CHECK (outcome IN ('win', 'loss', 'draw')),
    resigned    INTEGER NOT NULL DEFAULT 0,
    finished_at REAL    NOT NULL,
    PRIMARY KEY (game_id, seat)
);

CREATE INDEX results_user ON results (user_id, kind);
CREATE INDEX results_guild ON results (guild_id, kind);

ALTER TABLE games ADD COLUMN on_leave TEXT NOT NULL DEFAULT 'skip';
ALTER TABLE games ADD COLUMN turn_reminded INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN end_reason TEXT;
ALTER TABLE seats ADD COLUMN absences INTEGER NOT NULL DEFAULT 0;
