-- Work that must run once across controller replicas (the reaper, the
-- reconcilers, recovery of interrupted operations) runs in the replica
-- holding this lease. `token` rises at every change of holder (a fencing
-- token); `expires_ms` is renewed by the holder every second.
CREATE TABLE leader_leases (
    name TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    token BIGINT NOT NULL,
    expires_ms BIGINT NOT NULL
);
