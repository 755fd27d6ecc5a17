-- The request that made each move (issue 32): an id the transport gives with a person's
-- move (the Discord side: the interaction's id; the Activity: its own id per tap), and the
-- manager's own for a move nobody asked for (a computer's turn, the timer, a forced pass).
-- A commit whose answer was lost (the connection cut after COMMIT was sent) is looked up by
-- it once the database answers again, so what the bot says next is what the database kept;
-- and the same request delivered twice is never applied twice (unique within a game).
-- NULL for moves stored before this migration.
ALTER TABLE actions ADD COLUMN request_id TEXT;
CREATE UNIQUE INDEX actions_request ON actions (game_id, request_id)
    WHERE request_id IS NOT NULL;
