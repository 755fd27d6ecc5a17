-- When a DM last reached each person (see ../0010_dm_reached.sql).
-- PostgreSQL's twin of ../0010_dm_reached.sql.
ALTER TABLE dm_doors ADD COLUMN reached_at DOUBLE PRECISION;
