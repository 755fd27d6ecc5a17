-- As of which move each hand message shows what it shows (issue 46): the game's moves made
-- when it was true (-1: not known, as for every row written before this migration). On
-- PostgreSQL several processes edit one message, each as it hears of a change; one that
-- heard late (a turn's dead marks queued behind a board) put the hand from before the
-- person's last move back over the new one, and it stayed so until their next turn. So an
-- edit of an older move than the row's is skipped, and one overtaken by a later move's
-- edit is shown again (cogs/table/dms.py).
ALTER TABLE dm_hands ADD COLUMN ply INTEGER NOT NULL DEFAULT -1;
