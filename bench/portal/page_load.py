"""The portal's bookings page, timed in headless Chromium (Debian's,
through Playwright) against a controller `prism bench-controller --portal`
serves: from the start of a navigation until the table holds its first
page of rows, both a full load of the page (its files, the session, the
project list, a page of bookings and the quota) and a move inside it (the
bookings asked again). Prints one line of figures; run by the bench.
"""

import os
import statistics
import sys

from playwright.sync_api import sync_playwright

URL = os.environ["PRISM_PORTAL_URL"].rstrip("/")
USER, PASSWORD, PROJECT = os.environ["PRISM_USER"], os.environ["PRISM_PASSWORD"], os.environ["PRISM_PROJECT"]
RUNS = int(os.environ.get("PRISM_RUNS", "30"))
ROWS = "table[aria-label=Bookings] tbody tr[data-booking]"


def pct(v, p):
    v = sorted(v)
    return v[round((len(v) - 1) * p)]


with sync_playwright() as pw:
    browser = pw.chromium.launch(executable_path=os.environ["PRISM_CHROMIUM"], args=["--no-sandbox"])
    page = browser.new_page()
    page.goto(URL + "/")
    page.get_by_label("User").fill(USER)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_selector(ROWS)
    full, moves = [], []
    for i in range(RUNS + 2):
        page.goto("about:blank")
        page.goto(f"{URL}/#/p/{PROJECT}/bookings")
        page.wait_for_selector(ROWS)
        # From the navigation's start (the request for the page) to now.
        ms = page.evaluate("performance.now()")
        if i >= 2:  # the first two warm the browser's and the server's caches
            full.append(ms)
        # Within the page: the bookings asked again and drawn (the old
        # table taken away first, so only the new one counts).
        t = page.evaluate("""async ([rows, hash]) => {
            const t0 = performance.now();
            document.getElementById("main").replaceChildren();
            location.hash = hash;
            while (!document.querySelector(rows)) await new Promise((r) => requestAnimationFrame(r));
            return performance.now() - t0;
        }""", [ROWS, f"#/p/{PROJECT}/bookings?run={i}"])
        if i >= 2:
            moves.append(t)
    rows = page.locator(ROWS).count()
    browser.close()
print(f"  portal bookings page ({rows} rows shown, Chromium headless, {RUNS} runs): full load p50 {statistics.median(full):.0f} ms p99 {pct(full, 0.99):.0f} ms; "
      f"within the page p50 {statistics.median(moves):.0f} ms p99 {pct(moves, 0.99):.0f} ms")
sys.exit(0)
