-- A change that loads another module into a booking's slot
-- (docs/customizing.md): how (`partial` or `fallback`; NULL: the node's
-- default) and the device model's time for the load, microseconds.
ALTER TABLE booking_changes ADD COLUMN strategy TEXT;
ALTER TABLE booking_changes ADD COLUMN modelled_us BIGINT;
