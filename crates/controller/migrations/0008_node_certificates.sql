-- Certificates the controller's CA issued nodes (`node_identity`): the
-- controller calls a node only if it presents one of its live ones, so a
-- revoked node key or an expired certificate ends the node's identity.
CREATE TABLE node_certificates (
    fingerprint TEXT PRIMARY KEY,
    node TEXT NOT NULL,
    key_id TEXT NOT NULL,
    issued_ms BIGINT NOT NULL,
    not_after_ms BIGINT NOT NULL,
    revoked_ms BIGINT
);
CREATE INDEX node_certificates_by_node ON node_certificates (node);
CREATE INDEX node_certificates_by_key ON node_certificates (key_id);
