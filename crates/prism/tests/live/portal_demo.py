"""`prism demo --controller --portal` in headless Chromium: real nodes, real
frames. Run by portal_demo.rs with the address, password and lab CA the
demo printed ($PRISM_PORTAL_URL, $PRISM_PASSWORD, $PRISM_CA). Chromium
trusts exactly the controller's key (its SPKI digest, from the
certificate the lab CA signed: no warning ignored wholesale). Exits
non-zero at the first failed check.
"""

import base64
import hashlib
import os
import re
import socket
import ssl
import subprocess
import sys
from urllib.parse import urlparse

from playwright.sync_api import expect, sync_playwright

URL = os.environ["PRISM_PORTAL_URL"].rstrip("/")
PASSWORD = os.environ["PRISM_PASSWORD"]
CA = os.environ["PRISM_CA"]
SHOTS = os.environ.get("PRISM_SHOTS")
expect.set_options(timeout=15_000)


def spki_digest():
    """The controller's public key digest, from its certificate checked
    against the lab CA (a stranger's certificate fails here)."""
    u = urlparse(URL)
    ctx = ssl.create_default_context(cafile=CA)
    ctx.check_hostname = False

    with socket.create_connection((u.hostname, u.port)) as s, ctx.wrap_socket(s) as t:
        der = t.getpeercert(binary_form=True)
    pem = ssl.DER_cert_to_PEM_cert(der).encode()
    pub = subprocess.run(["openssl", "x509", "-pubkey", "-noout"], input=pem, capture_output=True, check=True).stdout
    spki = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=pub, capture_output=True, check=True).stdout
    return base64.b64encode(hashlib.sha256(spki).digest()).decode()


def log_in(page, user):
    page.goto(URL + "/")
    page.get_by_label("User").fill(user)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()


def rate_of(page, name):
    page.goto(URL + "/#/p/demo/bookings")
    page.get_by_role("link", name=name, exact=True).click()
    expect(page.get_by_role("heading", name=name)).to_be_visible()
    expect(page.locator("#rate-in-pps")).to_be_visible()
    # Two readings a second apart make a rate; the third confirms it.
    page.wait_for_timeout(2500)
    return float(page.locator("#rate-in-pps").get_attribute("data-value")), page.locator("#graph-in").get_attribute("points")


with sync_playwright() as pw:
    browser = pw.chromium.launch(
        executable_path=os.environ["PRISM_CHROMIUM"],
        args=["--no-sandbox", f"--ignore-certificate-errors-spki-list={spki_digest()}"],
    )
    ctx = browser.new_context()
    page = ctx.new_page()
    log_in(page, "alice")
    # The session cookie is Secure over TLS.
    cookie = next(c for c in ctx.cookies() if c["name"] == "prism_session")
    assert cookie["secure"] and cookie["httpOnly"] and cookie["sameSite"] == "Strict", cookie
    # hw-1 carries 1,000 frames a second from its host a: the graph shows
    # about that (the node's own counters, read through the controller).
    rate, points = rate_of(page, "hw-1")
    assert 700 < rate < 1300, f"hw-1 at {rate} packets/s"
    page.wait_for_timeout(1500)
    assert page.locator("#graph-in").get_attribute("points") != points, "hw-1's graph did not move"
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, "demo-network.png"), full_page=True)
    rate, _ = rate_of(page, "sw-1")
    assert 120 < rate < 280, f"sw-1 at {rate} packets/s"
    rate, points = rate_of(page, "sw-2")
    assert rate == 0, f"the idle sw-2 at {rate} packets/s"
    # A trace of the busy network: each stage's decision, from the node.
    rate_of(page, "hw-1")
    page.get_by_label("Trace the next packets").fill("3")
    page.get_by_role("button", name="Trace").click()
    trace = page.get_by_role("table", name="Trace")
    expect(page.locator("#trace-out")).to_contain_text("3 packets")
    expect(trace.locator("tbody tr")).to_have_count(3)
    assert re.search(r"map|forward|route", trace.inner_text(), re.I), trace.inner_text()
    # A capture of hw-1's next frames: a pcapng that tshark (Wireshark's
    # own reader, not Prism's) reads as frames of its VLAN at ingress and
    # untagged ones at egress on the node's ports a and b.
    vlan = page.locator("#b-vlan").inner_text()
    page.get_by_label("Capture the next frames (pcapng)").fill("10")
    with page.expect_download() as d:
        page.get_by_role("button", name="Capture").click()
    fields = subprocess.run(["tshark", "-r", d.value.path(), "-T", "fields", "-e", "frame.interface_name",
                             "-e", "vlan.id", "-e", "udp.dstport"], capture_output=True, text=True, check=True).stdout
    rows = [r.split("\t") for r in fields.strip().splitlines()]
    assert len(rows) == 10, fields
    assert {r[0] for r in rows} == {"a", "b"}, fields
    assert all(r[2] == "7000" for r in rows), fields
    assert all(r[1] == vlan for r in rows if r[0] == "a") and all(r[1] == "" for r in rows if r[0] == "b"), fields
    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("button", name="Log in")).to_be_visible()
    # The operator: both nodes up, each hardware network in a slot of its node.
    log_in(page, "admin")
    page.get_by_role("link", name="Nodes").click()
    for n in ["node1", "node2"]:
        expect(page.locator(f"tr[data-node={n}]")).to_contain_text("up")
    for n, booking in [("node1", "hw-1"), ("node2", "hw-2")]:
        page.goto(f"{URL}/#/nodes/{n}")
        slot = page.locator("li.slot.active")
        expect(slot).to_have_count(1)
        expect(slot).to_contain_text(f"{booking} (project demo)")
        expect(page.get_by_text("Power is the profile's model, not a measurement")).to_be_visible()
        expect(page.locator("#timeline tr", has_text="node started")).to_contain_text("from its configuration")
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, "demo-node.png"), full_page=True)
    browser.close()
print("portal demo: every check passed")
sys.exit(0)
