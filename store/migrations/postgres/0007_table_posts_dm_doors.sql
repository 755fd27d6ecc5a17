-- What the Discord layer posted per game, each person's DM door (see ../0007_table_posts_dm_doors.sql).
-- PostgreSQL's twin of ../0007_table_posts_dm_doors.sql.
CREATE TABLE table_posts (
    game_id        BIGINT  PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    lobby_channel  BIGINT,
    lobby_message  BIGINT,
    board_message  BIGINT,
    board_ply      INTEGER,
    thread_id      BIGINT,
    thread_parent  BIGINT,
    updated_at     DOUBLE PRECISION NOT NULL
);
CREATE INDEX table_posts_thread ON table_posts (thread_id) WHERE thread_id IS NOT NULL;

CREATE TABLE dm_doors (
    user_id     BIGINT  PRIMARY KEY,
    dm_channel  BIGINT,
    closed_at   DOUBLE PRECISION,
    updated_at  DOUBLE PRECISION NOT NULL
);
