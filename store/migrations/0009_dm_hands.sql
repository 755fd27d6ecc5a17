-- The hand message kept in a person's DMs for each seat they play (issue 25): one message
-- per seat, edited whenever its hand changes (a click on it answered in place, a move made
-- from the channel, a timer, a restart, another process), so that it is true whenever the
-- family looks. Any process edits it by these ids. A row outlives its game: the person's
-- next game takes the message over (a rematch edits the old hand into the new one instead
-- of sending another), so a person has as many rows as hands they ever held at once.
CREATE TABLE dm_hands (
    game_id     INTEGER NOT NULL,     -- the game whose hand the message shows now
    seat        INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,     -- whose DMs it is in
    dm_channel  INTEGER NOT NULL,
    message_id  INTEGER NOT NULL,
    shows       TEXT    NOT NULL,     -- what it shows ('hand:<cards>', 'choice:<ply>', ''
                                      -- when not known): an edit is skipped if unchanged
    updated_at  REAL    NOT NULL,     -- epoch seconds
    PRIMARY KEY (game_id, seat)
);
CREATE UNIQUE INDEX dm_hands_message ON dm_hands (message_id);
CREATE INDEX dm_hands_user ON dm_hands (user_id);
