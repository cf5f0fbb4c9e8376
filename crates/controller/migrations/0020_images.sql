-- Images (docs/processing.md): processing nodes' file systems saved as
-- OCI images into the project's bucket, by manifest digest; the blobs
-- (digest and size, JSON) are what a node pulling it is given to fetch.
CREATE TABLE images (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id),
    name TEXT NOT NULL,
    manifest_digest TEXT NOT NULL,
    manifest_size BIGINT NOT NULL,
    blobs TEXT NOT NULL,
    size_bytes BIGINT NOT NULL,
    created_by TEXT NOT NULL REFERENCES users (id),
    from_booking TEXT,
    created_ms BIGINT NOT NULL,
    UNIQUE (project_id, name)
);

-- An image shared, read-only, with another project.
CREATE TABLE image_shares (
    image_id TEXT NOT NULL REFERENCES images (id) ON DELETE CASCADE,
    with_project_id TEXT NOT NULL REFERENCES projects (id),
    created_ms BIGINT NOT NULL,
    PRIMARY KEY (image_id, with_project_id)
);
CREATE INDEX image_shares_with ON image_shares (with_project_id);
