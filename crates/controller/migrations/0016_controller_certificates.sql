-- The client certificates controller replicas present to nodes (each
-- replica makes its own from the CA): revoked ones are listed in the
-- revocation list every heartbeat answer carries.
CREATE TABLE controller_certificates (
    serial TEXT PRIMARY KEY,
    replica TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    not_after_ms BIGINT NOT NULL,
    revoked_ms BIGINT
);
