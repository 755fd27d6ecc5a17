-- What is due next in each lobby and game (see ../0006_chores.sql).
-- PostgreSQL's twin of ../0006_chores.sql.
CREATE TABLE chores (
    game_id        BIGINT PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    what           TEXT   NOT NULL,
    due_at         DOUBLE PRECISION,
    claimed_by     TEXT,
    claimed_until  DOUBLE PRECISION
);
CREATE INDEX chores_due ON chores (due_at) WHERE due_at IS NOT NULL;
