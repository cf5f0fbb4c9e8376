-- Which bookings each generation of a node changed: a pass over the node
-- that holds generation G reads and sends only the bookings changed after
-- G, not the node's every booking. `changes_from`: the first generation
-- recorded whole (older ones are pruned; a node that holds one of them is
-- sent its whole state).
CREATE TABLE node_changes (
    node_id TEXT NOT NULL,
    generation BIGINT NOT NULL,
    booking_id TEXT NOT NULL,
    PRIMARY KEY (node_id, generation, booking_id)
);
ALTER TABLE nodes ADD COLUMN changes_from BIGINT NOT NULL DEFAULT 0;
UPDATE nodes SET changes_from = generation + 1;
