-- A project's live bookings have distinct names, and the index says so:
-- a booking's insert under a live name is refused by the database (409,
-- `bookings::insert`) instead of a query before every insert. The
-- project's lock row already kept names distinct, so no database has two.
DROP INDEX bookings_active_name;
CREATE UNIQUE INDEX bookings_active_name ON bookings (project_id, name) WHERE released_ms IS NULL;
