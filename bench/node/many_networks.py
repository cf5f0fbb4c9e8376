#!/usr/bin/env python3
"""N hardware networks put on a real `prism node` through its API (issue 31:
many networks at API speed), and what the node holds afterwards.

A node (`prism node --fresh`, device nac-tcam: 1,024 slots, paper 001's
data planes) runs in a network namespace of its own with two veth ports;
one `PUT /v1/desired` over its Unix socket brings N networks (each mapped
by its VLAN on port a, 16 routes to port b); then one network's route
changes 20 times with the whole desired state sent again (as the
controller sends a node its first state, or one that holds no other),
then 20 times as a change to the state the node holds (`PATCH
/v1/desired`, the one network put: as the controller sends every later
state). Reported: the time of the first call, each change's
time (median and the slowest), the node's resident memory (VmRSS) before
and after and its peak (VmHWM). Root only; the namespace is removed after.

    sudo python3 bench/node/many_networks.py ./target/release/prism [N]
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

NS = "prism-bench-many"


class UnixHTTP(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost", timeout=600)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.path)


def call(sock, method, path, body=None):
    c = UnixHTTP(sock)
    data = json.dumps(body).encode() if body is not None else None
    c.request(method, path, body=data, headers={"Content-Type": "application/json"})
    r = c.getresponse()
    text = r.read()
    c.close()
    if r.status >= 300:
        sys.exit(f"{method} {path}: {r.status} {text[:300]!r}")
    return json.loads(text) if text else None


def network(i, hop=1):
    routes = [{"prefix": f"10.{i // 256}.{i % 256}.{16 * r}/28",
               "action": {"port": "b", "set_dst_mac": f"02:00:00:00:{hop % 256:02x}:{r:02x}"}}
              for r in range(16)]
    return {"name": f"pc-{i:05d}", "tier": "hardware", "forwarding": "destination",
            "map": [{"vlan": 1 + i, "in_port": "a"}], "route": routes}


def memory(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM"):
                fields[k] = int(v.split()[0]) / 1024
    return fields


def sh(*args):
    subprocess.run(args, check=True)


def main():
    if os.geteuid() != 0:
        sys.exit("many_networks: needs root (a network namespace and veths)")
    prism = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
    changes = 20
    subprocess.run(["ip", "netns", "del", NS], stderr=subprocess.DEVNULL)
    sh("ip", "netns", "add", NS)
    tmp = tempfile.mkdtemp(prefix="prism-bench-many-")
    node = None
    try:
        sh("ip", "-n", NS, "link", "add", "pa", "type", "veth", "peer", "name", "pb")
        for d in ("lo", "pa", "pb"):
            sh("ip", "-n", NS, "link", "set", d, "up")
        cfg = os.path.join(tmp, "node.toml")
        with open(cfg, "w") as f:
            f.write('device = "nac-tcam"\n\n[[port]]\nname = "a"\ninterface = "pa"\n\n'
                    '[[port]]\nname = "b"\ninterface = "pb"\n')
        sock = os.path.join(tmp, "node.sock")
        node = subprocess.Popen(["ip", "netns", "exec", NS, prism, "node", "--fresh", "--instance", "bm",
                                 "--config", cfg, "--api", sock],
                                stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "node.log"), "w"))
        deadline = time.time() + 30
        while not os.path.exists(sock):
            if time.time() > deadline or node.poll() is not None:
                sys.exit("many_networks: the node did not start:\n" + open(os.path.join(tmp, "node.log")).read())
            time.sleep(0.05)
        info = call(sock, "GET", "/v1/node")
        pid = node.pid  # `ip netns exec` execs the node in its place
        before = memory(pid)
        docs = [network(i) for i in range(n)]
        t = time.perf_counter()
        answer = call(sock, "PUT", "/v1/desired", {"generation": 1, "scope": "pc-", "networks": docs})
        first = time.perf_counter() - t
        added = sum(1 for x in answer["networks"] if x["action"] == "added")
        if added != n:
            sys.exit(f"many_networks: {added} of {n} added: {answer['networks'][:3]}")
        times = []
        for k in range(changes):
            docs[(k * 7919) % n] = network((k * 7919) % n, hop=k + 2)
            t = time.perf_counter()
            answer = call(sock, "PUT", "/v1/desired", {"generation": 2 + k, "scope": "pc-", "networks": docs})
            times.append(time.perf_counter() - t)
            replaced = [x for x in answer["networks"] if x["action"] == "replaced"]
            if len(replaced) != 1:
                sys.exit(f"many_networks: change {k}: {len(replaced)} replaced")
        patched = []
        generation = 2 + changes - 1
        for k in range(changes):
            i = (k * 104729 + 1) % n
            docs[i] = network(i, hop=k + 100)
            t = time.perf_counter()
            answer = call(sock, "PATCH", "/v1/desired", {"base": generation, "generation": generation + 1,
                                                        "scope": "pc-", "put": [docs[i]]})
            patched.append(time.perf_counter() - t)
            generation += 1
            replaced = [x for x in answer["networks"] if x["action"] == "replaced"]
            if len(replaced) != 1 or len(answer["networks"]) != n:
                sys.exit(f"many_networks: change {k} as a PATCH: {len(replaced)} replaced of {len(answer['networks'])}")
        after = memory(pid)
        print(f"prism node (nac-tcam, {len(info.get('ports', [])) or 2} ports), {n} hardware networks of 16 routes through PUT /v1/desired on its Unix socket:")
        print(f"  all {n} in one call: {first * 1e3:.0f} ms")
        print(f"  one network's route changed, all {n} sent again: median {statistics.median(times) * 1e3:.1f} ms, "
              f"slowest {max(times) * 1e3:.1f} ms ({changes} changes)")
        print(f"  the same as a change to the state held (PATCH, one network put): median "
              f"{statistics.median(patched) * 1e3:.1f} ms, slowest {max(patched) * 1e3:.1f} ms ({changes} changes)")
        print(f"  resident memory: {before['VmRSS']:.0f} MiB before, {after['VmRSS']:.0f} MiB after "
              f"(peak {after['VmHWM']:.0f} MiB)")
    finally:
        if node:
            node.terminate()
            try:
                node.wait(20)
            except subprocess.TimeoutExpired:
                node.kill()
        subprocess.run(["ip", "netns", "del", NS], stderr=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
