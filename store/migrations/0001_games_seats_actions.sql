-- The first schema: lobbies and games, their seats, and each game's action log.

CREATE TABLE games (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    kind            TEXT    NOT NULL CHECK (kind IN ('kids', 'dice')),
    options         TEXT    NOT NULL DEFAULT '{}',          -- JSON
    seed            INTEGER,                                -- set at start
    status          TEXT    NOT NULL DEFAULT 'lobby'
                    CHECK (status IN ('lobby', 'playing', 'finished', 'cancelled')),
    guild_id        INTEGER,
    channel_id      INTEGER NOT NULL,
    host_id         INTEGER NOT NULL,
    snapshot        TEXT,                                   -- JSON of Game.to_dict()
    lobby_deadline  REAL,                                   -- epoch seconds
    turn_deadline   REAL,
    created_at      REAL    NOT NULL,
    updated_at      REAL    NOT NULL
);

-- One lobby or game in play per channel.
CREATE UNIQUE INDEX games_active_channel ON games (channel_id)
    WHERE status IN ('lobby', 'playing');

CREATE TABLE seats (
    game_id     INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat        INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    user_id     INTEGER,                                    -- NULL: a computer player
    level       TEXT,                                       -- computer level, else NULL
    name        TEXT    NOT NULL,
    left_game   INTEGER NOT NULL DEFAULT 0,
    resigned    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, seat)
);

CREATE INDEX seats_user ON seats (user_id);

-- The engine history of each game: ply is the index in Game.history.
CREATE TABLE actions (
    game_id     INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    ply         INTEGER NOT NULL,
    seat        INTEGER,
    action      TEXT    NOT NULL,
    at          REAL    NOT NULL,
    PRIMARY KEY (game_id, ply)
) WITHOUT ROWID;
