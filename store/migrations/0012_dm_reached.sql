-- When a DM last reached each person (epoch seconds; NULL: never, or refused since), kept
-- beside their DM channel and the time a DM was refused, so that every process, and this
-- one after a restart, knows the person's DMs work without sending a hello to find out.
-- With it the store's row is the whole of what the bot knows of a person's DMs; the
-- Discord side keeps no more than a bounded cache of these rows (cogs/table/dm_memory.py).
ALTER TABLE dm_doors ADD COLUMN reached_at REAL;
