-- The request that made each move (see ../0010_action_requests.sql).
-- PostgreSQL's twin of ../0010_action_requests.sql.
ALTER TABLE actions ADD COLUMN request_id TEXT;
CREATE UNIQUE INDEX actions_request ON actions (game_id, request_id)
    WHERE request_id IS NOT NULL;
