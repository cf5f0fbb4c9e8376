-- Processing nodes (docs/processing.md). A node that runs them reports the
-- port they are behind (`prism node --processing-port`); NULL when it runs
-- none. A processing booking's node is the node of the network it is
-- attached to, recorded in `bookings.node_id` as a network's is.
ALTER TABLE nodes ADD COLUMN processing_port TEXT;

-- A user's ssh public keys: their processing nodes' root accepts them.
CREATE TABLE ssh_keys (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users (id),
    name TEXT NOT NULL,
    public_key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    UNIQUE (user_id, name)
);

-- A processing booking's ssh door through its node (`host:port`) and its
-- host keys (JSON), as its node last reported them.
ALTER TABLE bookings ADD COLUMN ssh TEXT;
ALTER TABLE bookings ADD COLUMN host_keys TEXT;
