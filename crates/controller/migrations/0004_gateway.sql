-- The gateway service (docs/wan.md): outgoing NAT per network booking,
-- and public addresses leased from a node's pool.
ALTER TABLE bookings ADD COLUMN nat BIGINT NOT NULL DEFAULT 0;
ALTER TABLE service_levels ADD COLUMN max_public_addresses BIGINT NOT NULL DEFAULT 4;

-- One row per lease of a public address, kept after release as its
-- record (usage, accounting). An address is held by one lease at a time:
-- the partial unique index makes sharing impossible.
CREATE TABLE public_addresses (
    id TEXT PRIMARY KEY,
    address TEXT NOT NULL,
    node_id TEXT NOT NULL REFERENCES nodes (id),
    project_id TEXT NOT NULL REFERENCES projects (id),
    user_id TEXT NOT NULL REFERENCES users (id),
    booking_id TEXT NOT NULL REFERENCES bookings (id),
    internal TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    expires_ms BIGINT NOT NULL,
    released_ms BIGINT
);
CREATE UNIQUE INDEX public_addresses_held ON public_addresses (address) WHERE released_ms IS NULL;
CREATE INDEX public_addresses_booking ON public_addresses (booking_id);
