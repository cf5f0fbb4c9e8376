-- The storage service (docs/storage.md). A project's bucket holds at most
-- its service level's bytes.
ALTER TABLE service_levels ADD COLUMN max_storage_bytes BIGINT NOT NULL DEFAULT 10737418240;

-- Storage keys: an access key ID per key; its secret is derived from the
-- controller's master key, never stored.
CREATE TABLE storage_keys (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id),
    user_id TEXT NOT NULL REFERENCES users (id),
    created_ms BIGINT NOT NULL,
    revoked_ms BIGINT
);
CREATE INDEX storage_keys_project ON storage_keys (project_id);

-- A project's bucket shared, read-only, with another project.
CREATE TABLE storage_shares (
    project_id TEXT NOT NULL REFERENCES projects (id),
    with_project_id TEXT NOT NULL REFERENCES projects (id),
    created_ms BIGINT NOT NULL,
    PRIMARY KEY (project_id, with_project_id)
);

-- The bytes a project's bucket holds (uploads reserve theirs before a
-- byte is stored), and each change with its time: byte-hours in the
-- usage report are the integral of the steps.
CREATE TABLE storage_usage (
    project_id TEXT PRIMARY KEY REFERENCES projects (id),
    bytes BIGINT NOT NULL
);
CREATE TABLE storage_usage_events (
    project_id TEXT NOT NULL REFERENCES projects (id),
    at_ms BIGINT NOT NULL,
    bytes BIGINT NOT NULL
);
CREATE INDEX storage_usage_events_at ON storage_usage_events (project_id, at_ms);
