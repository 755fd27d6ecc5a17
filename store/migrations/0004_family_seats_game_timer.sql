-- Family seats (a child plays from a grown-up's account), a turn timer per game, and the
-- small facts the bot keeps about itself (the digest of the last slash-command sync).

-- A child's seat: user_id is the grown-up's account, name the child's, and guardian the
-- grown-up's name (NULL for everyone else).
ALTER TABLE seats ADD COLUMN guardian TEXT;
-- Results of a child's seat are kept per grown-up and name, apart from the grown-up's own.
ALTER TABLE results ADD COLUMN guardian TEXT;
-- The host's choice in /sequence new: this game's turn timer in seconds (0: none), NULL
-- for the server's; and whether grown-ups may add children's seats.
ALTER TABLE games ADD COLUMN turn_timer REAL;
ALTER TABLE games ADD COLUMN family_seats INTEGER NOT NULL DEFAULT 1;

CREATE TABLE bot_state (
    key         TEXT PRIMARY KEY,
    value       TEXT NOT NULL,
    updated_at  REAL NOT NULL
);
