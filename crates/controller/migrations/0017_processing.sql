-- Processing nodes (docs/processing.md). A node that runs them reports the
-- port they are behind (`prism node --processing-port`); NULL when it runs
-- none. A processing booking's node is the node of the network it is
-- attached to, recorded in `bookings.node_id` as a network's is.
ALTER TABLE nodes ADD COLUMN processing_port TEXT;
