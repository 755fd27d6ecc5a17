-- Which moves an owed announcement is about (see ../0011_owed_from.sql).
-- PostgreSQL's twin of ../0011_owed_from.sql.
ALTER TABLE deliveries ADD COLUMN from_ply INTEGER;
ALTER TABLE deliveries ADD COLUMN through_ply INTEGER;
