-- When a node's last live key was revoked: the node is down at once (not
-- when its heartbeats stop counting) until a heartbeat with a live key.
ALTER TABLE nodes ADD COLUMN revoked_ms BIGINT;
