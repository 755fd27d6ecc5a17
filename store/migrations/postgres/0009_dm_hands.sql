-- The hand message kept in each DM per seat (see ../0009_dm_hands.sql).
-- PostgreSQL's twin of ../0009_dm_hands.sql.
CREATE TABLE dm_hands (
    game_id     BIGINT  NOT NULL,
    seat        INTEGER NOT NULL,
    user_id     BIGINT  NOT NULL,
    dm_channel  BIGINT  NOT NULL,
    message_id  BIGINT  NOT NULL,
    shows       TEXT    NOT NULL,
    updated_at  DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE UNIQUE INDEX dm_hands_message ON dm_hands (message_id);
CREATE INDEX dm_hands_user ON dm_hands (user_id);
