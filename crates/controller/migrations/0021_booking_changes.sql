-- Changes to a live booking (docs/customizing.md): the booking's
-- generation, one more per change accepted, and each change's fields
-- before and after (JSON), by whom and when.
ALTER TABLE bookings ADD COLUMN generation BIGINT NOT NULL DEFAULT 1;
CREATE TABLE booking_changes (
    id TEXT PRIMARY KEY,
    booking_id TEXT NOT NULL REFERENCES bookings (id),
    generation BIGINT NOT NULL,
    user_id TEXT NOT NULL REFERENCES users (id),
    at_ms BIGINT NOT NULL,
    fields TEXT NOT NULL,
    before_values TEXT NOT NULL,
    after_values TEXT NOT NULL,
    UNIQUE (booking_id, generation)
);
-- Service levels that let members start and stop let them change too.
UPDATE service_levels SET operations = REPLACE(operations, '"bookings.action"', '"bookings.action","bookings.change"')
    WHERE operations LIKE '%"bookings.action"%' AND operations NOT LIKE '%"bookings.change"%';
