-- Whether a finished game's final board got out (see ../0008_end_shown.sql).
-- PostgreSQL's twin of ../0008_end_shown.sql.
ALTER TABLE games ADD COLUMN end_shown BOOLEAN NOT NULL DEFAULT TRUE;
CREATE INDEX games_end_not_shown ON games (id) WHERE status = 'finished' AND NOT end_shown;
