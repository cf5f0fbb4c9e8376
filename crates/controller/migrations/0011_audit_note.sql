-- What an audit entry says beyond the call: `admin-override: …` when an
-- administrator acted in a project beyond what their membership allows
-- (docs/controller.md, "Authorization").
ALTER TABLE audit ADD COLUMN note TEXT;
