"""Drives a booking through the generated Python SDK (sdk/python) against
a running controller: $PRISM_CONTROLLER_URL, the administrator's password
in $PRISM_ADMIN_PASSWORD, and a registered node with ports `a` and `b`;
over HTTPS, the CA in $PRISM_CA (without it the SDK must refuse the server).
Run by crates/controller/tests/python_sdk.rs; exits non-zero on a failure.
"""

import os

import httpx

from prism_controller_api_client import AuthenticatedClient, Client
from prism_controller_api_client.api.accounting import usage
from prism_controller_api_client.api.bookings import changes, create, edit, quota, release, renew, status
from prism_controller_api_client.api.identity import create_user, login
from prism_controller_api_client.api.projects import create_project
from prism_controller_api_client.models import (
    AllocationState,
    Booking,
    BookingChange,
    BookingRequest,
    Error,
    LoginRequest,
    OperationalState,
    ProjectRequest,
    RenewRequest,
    UserRequest,
)

URL = os.environ["PRISM_CONTROLLER_URL"]
ADMIN_PASSWORD = os.environ["PRISM_ADMIN_PASSWORD"]
PASSWORD = "a python sdk password"

CA = os.environ.get("PRISM_CA")
if CA:
    # The SDK checks certificates by default: the lab CA is not a system root.
    try:
        login.sync(client=Client(base_url=URL), body=LoginRequest(user="admin", password=ADMIN_PASSWORD))
        raise SystemExit("the SDK trusted a certificate from an unknown CA")
    except httpx.ConnectError as e:
        assert "CERTIFICATE_VERIFY_FAILED" in str(e), e
VERIFY = CA or True

anon = Client(base_url=URL, verify_ssl=VERIFY)
token = login.sync(client=anon, body=LoginRequest(user="admin", password=ADMIN_PASSWORD))
admin = AuthenticatedClient(base_url=URL, token=token.token, verify_ssl=VERIFY)
create_user.sync(client=admin, body=UserRequest(name="py", password=PASSWORD))
create_project.sync(client=admin, body=ProjectRequest(name="sdk", service_level="standard", owner="py"))

# A refusal is the typed error body.
bad = login.sync_detailed(client=anon, body=LoginRequest(user="py", password="not the password"))
assert bad.status_code == 401, bad
assert isinstance(bad.parsed, Error) and bad.parsed.code.value == "unauthorized", bad.parsed

token = login.sync(client=anon, body=LoginRequest(user="py", password=PASSWORD, project="sdk"))
me = AuthenticatedClient(base_url=URL, token=token.token, verify_ssl=VERIFY)
spec = {
    "tier": "software",
    "forwarding": "destination",
    "route": [{"prefix": "10.9.0.0/16", "action": {"port": "b"}}],
}
b = create.sync("sdk", client=me, body=BookingRequest(name="net", spec=spec, bandwidth_mbps=5, provision=True))
assert isinstance(b, Booking), b
assert b.allocation_state == AllocationState.PROVISIONED, b
assert b.operational_state == OperationalState.READY, b
assert b.vlan == 100 and b.node_network.startswith("pc-"), b

r = renew.sync("sdk", b.id, client=me, body=RenewRequest(lease_s=3600))
assert r.clamped is False and r.expires_ms > b.provisioned_ms, r

# Its routes changed live: the next generation, and its history.
moved = {"route": [{"prefix": "10.8.0.0/16", "action": {"port": "b"}}]}
c = edit.sync("sdk", b.id, client=me, body=BookingChange.from_dict({"spec": moved, "generation": 1})).booking
assert isinstance(c, Booking) and c.generation == 2 and c.spec["route"][0]["prefix"] == "10.8.0.0/16", c
# Another forwarding mode, only checked (`dry_run`): nothing changes.
dry = BookingChange.from_dict({"spec": {"forwarding": "source"}, "dry_run": True})
priced = edit.sync("sdk", b.id, client=me, body=dry)
assert priced.dry_run and priced.booking.spec["forwarding"] == "source", priced
assert status.sync("sdk", b.id, client=me).generation == 2
stale = edit.sync_detailed("sdk", b.id, client=me, body=BookingChange.from_dict({"spec": moved, "generation": 1}))
assert stale.status_code == 409 and stale.parsed.field == "generation", stale.parsed
history = changes.sync("sdk", b.id, client=me)
assert [(h.generation, h.fields) for h in history] == [(2, ["spec.route"])], history

q = quota.sync("sdk", client=me)
assert q.sw_networks.used == 1 and q.bandwidth_mbps.used == 5, q

over = create.sync_detailed("sdk", client=me, body=BookingRequest(name="big", spec=spec, bandwidth_mbps=5000))
assert over.status_code == 409, over
assert over.parsed.code.value == "quota_exceeded" and over.parsed.quota.resource == "bandwidth_mbps", over.parsed

gone = release.sync("sdk", b.id, client=me)
assert gone.allocation_state == AllocationState.UNALLOCATED, gone
assert status.sync("sdk", b.id, client=me).released_ms is not None

# JSON: the generated client reads a 200 as the report (CSV, `format_="csv"`,
# is for other tools).
report = usage.sync("sdk", client=me, from_ms=0, to_ms=gone.released_ms + 1)
assert [(l.user, l.tier, l.bookings) for l in report.lines] == [("py", "software", 1)], report
print("python sdk: booked, renewed, changed, refused over quota, released and accounted")
