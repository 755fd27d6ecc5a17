-- Announcements owed by a process (see ../0005_deliveries.sql).
-- PostgreSQL's twin of ../0005_deliveries.sql.
CREATE TABLE deliveries (
    game_id     BIGINT  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    owner       TEXT    NOT NULL,
    until       DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game_id, owner)
);
