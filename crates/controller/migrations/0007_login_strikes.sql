-- Failed logins by user name and by source address (`login_guard`), in
-- the database so that every replica counts the same guesses.
CREATE TABLE login_strikes (
    key TEXT PRIMARY KEY,
    failures BIGINT NOT NULL,
    blocked_until_ms BIGINT NOT NULL,
    last_ms BIGINT NOT NULL
);
