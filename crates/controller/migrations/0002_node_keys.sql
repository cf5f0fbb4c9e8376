-- Nodes that register themselves and send heartbeats. An administrator
-- makes a key for a node name; the controller keeps only its digest. A
-- node's boot id changes when its process restarts, so the controller
-- reconciles it at once rather than on its next pass.
CREATE TABLE node_keys (
    id TEXT PRIMARY KEY,
    node_name TEXT NOT NULL,
    digest TEXT NOT NULL UNIQUE,
    created_by TEXT NOT NULL REFERENCES users (id),
    created_ms BIGINT NOT NULL,
    last_used_ms BIGINT,
    revoked_ms BIGINT
);

ALTER TABLE nodes ADD COLUMN boot_id TEXT;
