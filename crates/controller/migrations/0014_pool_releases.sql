-- When each VLAN, tunnel address and S-tag was last released (docs/wan.md,
-- "Threat model"): a released value goes to the back of its pool and is
-- not handed out again for the hold-down time, so a frame of a released
-- booking (in flight, replayed, or from a far node not yet converged)
-- cannot reach the next booking that would take it.
CREATE TABLE pool_releases (
    pool TEXT NOT NULL,
    value TEXT NOT NULL,
    released_ms BIGINT NOT NULL,
    PRIMARY KEY (pool, value)
);
