-- Shared VLANs (docs/processing.md): the projects a `shared-vlan`
-- booking's owner invited. An invited project's processing nodes may
-- attach to it while the row is here; removing it (the owner's revoke,
-- or the project leaving) unplugs them.
CREATE TABLE shared_vlan_members (
    booking_id TEXT NOT NULL REFERENCES bookings (id),
    project_id TEXT NOT NULL REFERENCES projects (id),
    invited_by TEXT NOT NULL REFERENCES users (id),
    invited_ms BIGINT NOT NULL,
    PRIMARY KEY (booking_id, project_id)
);
CREATE INDEX shared_vlan_members_project ON shared_vlan_members (project_id);
