-- The indexes that find active bookings hold active bookings only
-- (partial, `WHERE released_ms IS NULL`): a release, and the reaper's
-- release of many at once, then writes two index entries a booking (its
-- key and its place in its project's list) instead of six. Every query
-- they serve says `released_ms IS NULL` as written here.
DROP INDEX bookings_project;
DROP INDEX bookings_name;
DROP INDEX bookings_node;
DROP INDEX bookings_expiry;
CREATE INDEX bookings_active_project ON bookings (project_id) WHERE released_ms IS NULL;
CREATE INDEX bookings_active_name ON bookings (project_id, name) WHERE released_ms IS NULL;
CREATE INDEX bookings_active_node ON bookings (node_id) WHERE released_ms IS NULL;
CREATE INDEX bookings_active_expiry ON bookings (expires_ms) WHERE released_ms IS NULL;
