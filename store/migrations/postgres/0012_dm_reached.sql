-- When a DM last reached each person (see ../0012_dm_reached.sql).
-- PostgreSQL's twin of ../0012_dm_reached.sql.
ALTER TABLE dm_doors ADD COLUMN reached_at DOUBLE PRECISION;
