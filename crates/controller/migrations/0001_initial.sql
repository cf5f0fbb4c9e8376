-- Prism controller, schema 1. Portable SQL: the same text runs on SQLite
-- and PostgreSQL (TEXT and BIGINT only; times are Unix milliseconds; ids
-- are UUIDs made by the controller, so no engine-specific sequences).

-- Written first by every transaction that books or frees capacity: a row
-- lock on PostgreSQL, the write lock on SQLite. Quotas, node capacity and
-- the VLAN pool are then checked and taken with no other booking between.
CREATE TABLE locks (
    name TEXT PRIMARY KEY,
    seq BIGINT NOT NULL
);
INSERT INTO locks (name, seq) VALUES ('bookings', 0);

CREATE TABLE service_levels (
    name TEXT PRIMARY KEY,
    -- JSON array of operation names a member on this level may call.
    operations TEXT NOT NULL,
    max_hw_networks BIGINT NOT NULL,
    max_sw_networks BIGINT NOT NULL,
    max_bandwidth_mbps BIGINT NOT NULL,
    max_lease_hours BIGINT NOT NULL,
    max_lease_s BIGINT NOT NULL,
    default_lease_s BIGINT NOT NULL,
    created_ms BIGINT NOT NULL
);

CREATE TABLE users (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    is_admin BIGINT NOT NULL,
    created_ms BIGINT NOT NULL
);

CREATE TABLE projects (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    service_level TEXT NOT NULL REFERENCES service_levels (name),
    created_ms BIGINT NOT NULL
);

CREATE TABLE members (
    project_id TEXT NOT NULL REFERENCES projects (id),
    user_id TEXT NOT NULL REFERENCES users (id),
    role TEXT NOT NULL,
    PRIMARY KEY (project_id, user_id)
);

-- Session tokens and API keys: only the SHA-256 of the secret is kept.
CREATE TABLE credentials (
    id TEXT PRIMARY KEY,
    digest TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    user_id TEXT NOT NULL REFERENCES users (id),
    project_id TEXT REFERENCES projects (id),
    -- JSON array restricting the operations (API keys), or NULL.
    operations TEXT,
    created_ms BIGINT NOT NULL,
    expires_ms BIGINT,
    revoked_ms BIGINT
);

CREATE TABLE nodes (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    address TEXT NOT NULL,
    device TEXT NOT NULL,
    slots BIGINT NOT NULL,
    hw_mbps BIGINT NOT NULL,
    sw_mbps BIGINT NOT NULL,
    ports TEXT NOT NULL,
    -- Desired state's generation, and the last one the node converged to.
    generation BIGINT NOT NULL,
    applied_generation BIGINT NOT NULL,
    last_seen_ms BIGINT NOT NULL,
    last_error TEXT,
    created_ms BIGINT NOT NULL
);

CREATE TABLE bookings (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id),
    user_id TEXT NOT NULL REFERENCES users (id),
    name TEXT NOT NULL,
    resource_type TEXT NOT NULL,
    tier TEXT,
    bandwidth_mbps BIGINT NOT NULL,
    -- The lease asked for, counted from provisioning.
    lease_s BIGINT NOT NULL,
    node_id TEXT REFERENCES nodes (id),
    vlan BIGINT,
    -- The network document as asked (JSON); the node gets it completed.
    spec TEXT NOT NULL,
    -- unallocated | allocated | provisioned (GENI AM API v3).
    allocation_state TEXT NOT NULL,
    -- pending | ready | stopped | failed.
    operational_state TEXT NOT NULL,
    op_error TEXT,
    created_ms BIGINT NOT NULL,
    -- When it was first applied to a node: usage counts from here.
    provisioned_ms BIGINT,
    expires_ms BIGINT NOT NULL,
    released_ms BIGINT
);
CREATE INDEX bookings_project ON bookings (project_id, released_ms);
CREATE INDEX bookings_name ON bookings (project_id, name);
CREATE INDEX bookings_created ON bookings (project_id, created_ms, id);
CREATE INDEX bookings_node ON bookings (node_id, released_ms);
CREATE INDEX bookings_expiry ON bookings (released_ms, expires_ms);

-- One row per VLAN in use: the primary key makes sharing impossible.
CREATE TABLE vlans (
    vlan BIGINT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id),
    booking_id TEXT NOT NULL REFERENCES bookings (id)
);

-- Multi-step node operations, recorded (in the transaction that changes
-- the desired state) before the node is touched; `started` ones are
-- finished at the controller's next start.
CREATE TABLE operations (
    id TEXT PRIMARY KEY,
    booking_id TEXT NOT NULL,
    node_id TEXT,
    kind TEXT NOT NULL,
    state TEXT NOT NULL,
    started_ms BIGINT NOT NULL,
    finished_ms BIGINT
);
CREATE INDEX operations_state ON operations (state);

CREATE TABLE accounting (
    id TEXT PRIMARY KEY,
    at_ms BIGINT NOT NULL,
    event TEXT NOT NULL,
    booking_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    node_id TEXT,
    tier TEXT,
    bandwidth_mbps BIGINT NOT NULL,
    start_ms BIGINT NOT NULL,
    end_ms BIGINT NOT NULL
);
CREATE INDEX accounting_project ON accounting (project_id, at_ms);

CREATE TABLE audit (
    id TEXT PRIMARY KEY,
    at_ms BIGINT NOT NULL,
    principal TEXT NOT NULL,
    project_id TEXT,
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    status BIGINT NOT NULL
);
CREATE INDEX audit_at ON audit (at_ms, id);

CREATE TABLE resource_types (
    name TEXT PRIMARY KEY,
    description TEXT NOT NULL,
    -- JSON Schema of a booking's parameters.
    schema TEXT NOT NULL,
    -- JSON array of the generic operations it supports.
    operations TEXT NOT NULL,
    builtin BIGINT NOT NULL,
    created_ms BIGINT NOT NULL
);
