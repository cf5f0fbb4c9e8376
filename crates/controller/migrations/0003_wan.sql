-- The wide area (docs/wan.md). A node reports its WAN port (JSON: port,
-- address, MAC) with its heartbeat; NULL when it has none.
ALTER TABLE nodes ADD COLUMN wan TEXT;

-- The parts of a network that spans nodes: one row per part, kept after
-- release as the booking's record. `route` is the part's own routes (JSON),
-- whose prefixes the other parts send it through the tunnel; `tunnel` is
-- the part's tunnel source address on the wide area.
CREATE TABLE booking_parts (
    booking_id TEXT NOT NULL REFERENCES bookings (id),
    part BIGINT NOT NULL,
    node_id TEXT NOT NULL REFERENCES nodes (id),
    route TEXT NOT NULL,
    tunnel TEXT NOT NULL,
    -- A bridged network's port on the node for its side (its frames).
    port TEXT,
    PRIMARY KEY (booking_id, part)
);
CREATE INDEX booking_parts_node ON booking_parts (node_id);

-- One row per tunnel address in use: the primary key makes sharing
-- impossible (the VLAN pool's pattern).
CREATE TABLE tunnel_addresses (
    address TEXT PRIMARY KEY,
    booking_id TEXT NOT NULL REFERENCES bookings (id)
);

-- One row per S-tag in use by a bridged network spanning nodes (802.1ad
-- across the wide area): unique across the testbed.
CREATE TABLE s_tags (
    tag BIGINT PRIMARY KEY,
    booking_id TEXT NOT NULL REFERENCES bookings (id)
);
