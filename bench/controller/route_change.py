#!/usr/bin/env python3
"""A route change through the controller to a real node holding N networks
(issue 52's target: under 20 ms p99 at 100 networks).

A real `prism node --fresh` (device nac-tcam: 1,024 slots; two veth ports
in the root namespace) serves its API on loopback in plain HTTP with a
shared credential; `prism controller serve` (SQLite, plain HTTP on
loopback) calls it with that credential. Over the controller's HTTP API a
user books N hardware networks on it (each one route), then one network's
route is changed CHANGES times (`PATCH /v1/projects/p/bookings/{id}`),
each call timed from the request to its answer, which comes once the node
has taken the change: on a node, a taken change is published to its
workers (the pipeline's next batch forwards by it). At the end the node's
own view of the network is read back: its route must be the last one sent.
Root only (veths); everything it made is removed after.

    sudo python3 bench/controller/route_change.py ./target/release/prism [N] [CHANGES]
"""
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

PASSWORD = "route-change-bench-password"
VETHS = ("prc-a", "prc-b")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(port, method, path, body=None, token=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    c.request(method, path, body=None if body is None else json.dumps(body).encode(), headers=headers)
    r = c.getresponse()
    text = r.read()
    c.close()
    if r.status >= 300:
        sys.exit(f"{method} {path}: {r.status} {text[:400]!r}")
    return json.loads(text) if text else None


def wait_port(port, proc, log):
    deadline = time.time() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.time() > deadline or proc.poll() is not None:
                sys.exit(f"route_change: did not start:\n{open(log).read()[-2000:]}")
            time.sleep(0.05)


def network(name, i):
    return {"name": name, "type": "network", "bandwidth_mbps": 1, "provision": True,
            "spec": {"tier": "hardware", "forwarding": "destination",
                     "route": [{"prefix": f"10.{i // 256}.{i % 256}.0/24", "action": {"port": "b"}}]}}


def setup(ctl):
    admin = call(ctl, "POST", "/v1/login", {"user": "admin", "password": PASSWORD})["token"]
    levels = call(ctl, "GET", "/v1/service-levels", token=admin)
    wide = dict(next(l for l in levels if l["name"] == "standard"), name="wide")
    wide.update(max_hw_networks=2000, max_bandwidth_mbps=100000, max_lease_hours=1_000_000)
    call(ctl, "PUT", "/v1/service-levels/wide", wide, token=admin)
    call(ctl, "POST", "/v1/users", {"name": "u", "password": PASSWORD, "admin": False}, token=admin)
    call(ctl, "POST", "/v1/projects", {"name": "p", "service_level": "wide", "owner": "u"}, token=admin)
    return admin


def main():
    if os.geteuid() != 0:
        sys.exit("route_change: needs root (veths)")
    prism = os.path.abspath(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    changes = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    tmp = tempfile.mkdtemp(prefix="prism-bench-route-change-")
    procs = []
    subprocess.run(["ip", "link", "del", VETHS[0]], stderr=subprocess.DEVNULL)
    try:
        subprocess.run(["ip", "link", "add", VETHS[0], "type", "veth", "peer", "name", VETHS[1]], check=True)
        for d in VETHS:
            subprocess.run(["ip", "link", "set", d, "up"], check=True)
        cred = os.path.join(tmp, "node.secret")
        with open(os.open(cred, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write(os.urandom(32).hex())
        cfg = os.path.join(tmp, "node.toml")
        with open(cfg, "w") as f:
            f.write('device = "nac-tcam"\n\n[[port]]\nname = "a"\ninterface = "prc-a"\n\n'
                    '[[port]]\nname = "b"\ninterface = "prc-b"\n')
        node_port, ctl_port = free_port(), free_port()
        node_log, ctl_log = os.path.join(tmp, "node.log"), os.path.join(tmp, "controller.log")
        procs.append(subprocess.Popen(
            [prism, "node", "--fresh", "--instance", "rc", "--config", cfg, "--api", os.path.join(tmp, "node.sock"),
             "--api-listen", f"127.0.0.1:{node_port}", "--api-credential-file", cred],
            stdout=subprocess.DEVNULL, stderr=open(node_log, "w")))
        wait_port(node_port, procs[-1], node_log)
        db = os.path.join(tmp, "controller.db")
        env = dict(os.environ, PRISM_PASSWORD=PASSWORD)
        subprocess.run([prism, "controller", "bootstrap", "--db", db], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(subprocess.Popen(
            [prism, "controller", "serve", "--db", db, "--listen", f"127.0.0.1:{ctl_port}", "--plain-http",
             "--node-credential-file", cred], stdout=subprocess.DEVNULL, stderr=open(ctl_log, "w")))
        wait_port(ctl_port, procs[-1], ctl_log)
        admin = setup(ctl_port)
        call(ctl_port, "POST", "/v1/nodes", {"name": "n1", "address": f"127.0.0.1:{node_port}",
                                             "hw_mbps": 100000, "sw_mbps": 1000}, token=admin)
        u = call(ctl_port, "POST", "/v1/login", {"user": "u", "password": PASSWORD, "project": "p"})["token"]
        t = time.perf_counter()
        booked = [call(ctl_port, "POST", "/v1/projects/p/bookings", network(f"net-{i}", i), token=u)
                  for i in range(n)]
        booking_s = time.perf_counter() - t
        ready = sum(1 for b in booked if b["operational_state"] == "ready")
        if ready != n:
            sys.exit(f"route_change: {ready} of {n} networks ready")
        target = booked[n // 2]
        times = []
        for k in range(changes):
            route = [{"prefix": f"172.{16 + k // 65536 % 16}.{k // 256 % 256}.{k % 256}/32", "action": {"port": "b"}}]
            t = time.perf_counter()
            r = call(ctl_port, "PATCH", f"/v1/projects/p/bookings/{target['id']}", {"spec": {"route": route}}, token=u)
            times.append(time.perf_counter() - t)
            if r["booking"].get("converging"):
                sys.exit(f"route_change: change {k} answered before its node took it: {r['booking'].get('error')}")
        c = http.client.HTTPConnection("127.0.0.1", node_port, timeout=10)
        c.request("GET", f"/v1/networks/{target['node_network']}",
                  headers={"Authorization": f"Bearer {open(cred).read().strip()}"})
        held = json.loads(c.getresponse().read())
        if held["definition"]["route"][0]["prefix"] != route[0]["prefix"]:
            sys.exit(f"route_change: the node holds {held['definition']['route']}, not the last change")
        times.sort()
        q = lambda p: times[min(len(times) - 1, int(p * len(times)))] * 1e3
        print(f"prism controller (SQLite, plain HTTP on loopback) and a real node (nac-tcam) holding {n} hardware "
              f"networks, booked in {booking_s:.1f} s:")
        print(f"  one network's route changed through the controller, {changes} times: p50 {q(0.5):.2f} ms, "
              f"p99 {q(0.99):.2f} ms, slowest {times[-1] * 1e3:.2f} ms, mean {statistics.mean(times) * 1e3:.2f} ms")
        print("  the node's own view holds the last route sent")
    finally:
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
        subprocess.run(["ip", "link", "del", VETHS[0]], stderr=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
