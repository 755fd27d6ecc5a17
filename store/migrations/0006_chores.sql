-- What is due next in each lobby and game: a computer player's turn, a turn reminder, a
-- turn timer running out, an idle lobby's time-out. One row per active game, rewritten in
-- the transaction of every change of that game, so it always says what the game's state
-- says. Any live process claims the rows that are due (several processes on one
-- PostgreSQL: FOR UPDATE SKIP LOCKED, so one claims each); a claim runs out after
-- ``claimed_until``, so a process that dies holding one leaves nothing undone: another
-- takes it over (engine/manager/chores.py). ``due_at`` NULL: nothing is due (a person
-- is thinking and there is no timer). Only several processes on one PostgreSQL use it;
-- the SQLite twin keeps the schemas alike (one process schedules from its own memory).
CREATE TABLE chores (
    game_id        INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    what           TEXT    NOT NULL,  -- computer, reminder, turn_timer, lobby_timeout, look
    due_at         REAL,              -- epoch seconds; NULL: nothing due
    claimed_by     TEXT,              -- the process doing it (random per start)
    claimed_until  REAL               -- epoch seconds: after this, anyone may claim it
);
CREATE INDEX chores_due ON chores (due_at) WHERE due_at IS NOT NULL;
