-- Public MACs (docs/wan.md): a lease of the public-address table whose
-- address is a MAC from a node's pool, standing for a host of a bridge
-- network. `kind` tells them apart: 'ipv4' or 'mac'.
ALTER TABLE public_addresses ADD COLUMN kind TEXT NOT NULL DEFAULT 'ipv4';
