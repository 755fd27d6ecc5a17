-- As of which move each hand message shows what it shows (see ../0013_dm_hand_ply.sql).
ALTER TABLE dm_hands ADD COLUMN ply INTEGER NOT NULL DEFAULT -1;
