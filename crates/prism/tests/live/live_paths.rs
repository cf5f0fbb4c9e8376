//! End-to-end tests of the software tier's other paths, in namespaces: the
//! multi-receiver path (software networks' traffic through a bridge, around
//! the pipeline), an IPIP network through a `kernel` router (the tunnel
//! terminated at the container boundary), and a routing daemon (BIRD)
//! inside a `kernel` router learning a route by BGP. Need root; without it
//! they say so and pass, unless PRISM_REQUIRE_ROOT=1.

use crate::common::*;
use prism_io::afpacket::{PacketPort, RingConfig};
use prism_io::netns;
use std::time::{Duration, Instant};

/// Root-namespace veth pairs a test makes for itself; removed on drop.
struct Links(Vec<String>);
impl Links {
    fn pairs(names: &[(String, String)]) -> Links {
        let mut made = Vec::new();
        for (a, b) in names {
            let _ = netns::delete_link(a);
            netns::create_veth(a, None, b, None).unwrap();
            made.push(a.clone());
        }
        Links(made)
    }
}
impl Drop for Links {
    fn drop(&mut self) {
        for l in &self.0 {
            let _ = netns::delete_link(l);
        }
    }
}

#[test]
fn multi_receiver_path_carries_software_networks_around_the_pipeline() {
    if !root_or_skip("multi-receiver path") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let _t = Topology::build_n(3);
    // Networks 1 and 2 are software networks whose hosts hang off their
    // ports' software interfaces; the ports' own interfaces carry nothing.
    let spare: Vec<(String, String)> = (1..3)
        .flat_map(|k| ["a", "b"].map(|s| (format!("ptu{k}{s}"), format!("ptw{k}{s}"))))
        .collect();
    let _spare = Links::pairs(&spare);
    let mut text = String::from("device = \"alveo-u280\"\n");
    for k in 0..3 {
        for s in ["a", "b"] {
            text += &format!("[[port]]\nname = \"{k}-{s}\"\n");
            if k == 0 {
                text += &format!("interface = \"pth0{s}\"\n");
            } else {
                text += &format!("interface = \"ptu{k}{s}\"\nsoftware_interface = \"pth{k}{s}\"\n");
            }
        }
    }
    text += &network_toml(0, "hw", "hardware");
    text += &network_toml(1, "swk", "kernel");
    text += &network_toml(2, "swp", "prism");
    let node = start_node_with("multi", &text, &[]);
    for k in 0..3 {
        wait_for_ping(&format!("pte{k}a"), 10);
    }
    let links = ok(&["ip", "-o", "link", "show", "master", "pcbr2"]);
    assert!(
        links.contains("pth1a") && links.contains("pc1p2"),
        "{links}"
    );
    for (k, name) in [(1, "swk"), (2, "swp")] {
        let j = iperf3(&format!("pte{k}a"), &format!("pte{k}b"), &[], name);
        let bps = j["end"]["sum_received"]["bits_per_second"]
            .as_f64()
            .unwrap();
        eprintln!("multi-receiver {name}: TCP {:.1} Mbit/s", bps / 1e6);
        assert!(bps > 10e6, "TCP through `{name}`: {bps} bit/s");
    }
    // The pipeline does not see this traffic, so the rate limit becomes a
    // token bucket on the router's interfaces.
    ctl_ok(&["rate-limit", "swk", "5Mbit"]);
    let qd = ok(&[
        "ip", "netns", "exec", "prism-c1", "tc", "qdisc", "show", "dev", "eth3",
    ]);
    assert!(qd.contains("tbf"), "{qd}");
    let j = iperf3("pte1a", "pte1b", &["-u", "-b", "20M"], "swk");
    let got = j["end"]["sum"]["bits_per_second"].as_f64().unwrap()
        * (1.0 - j["end"]["sum"]["lost_percent"].as_f64().unwrap() / 100.0);
    assert!(got < 7e6, "5 Mbit/s limit let {got} bit/s through");
    let c = stop_node(node);
    for name in ["swk", "swp"] {
        assert_eq!(
            network(&c, name)["rx_packets"].as_u64().unwrap(),
            0,
            "`{name}` traffic went through the pipeline"
        );
    }
    assert!(network(&c, "hw")["rx_packets"].as_u64().unwrap() > 0);
    assert!(!ok(&["ip", "-o", "link"]).contains("pcbr"), "bridge left");
}

#[test]
fn ipip_network_through_a_kernel_router_keeps_its_tunnel() {
    if !root_or_skip("IPIP through a kernel router") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let _t = Topology::build_n(2);
    // Network 1: IPIP packets whose inner destination is host b's subnet
    // leave towards the next virtual hop's tunnel endpoint.
    let text = ports_toml(2)
        + &network_toml(0, "hw", "hardware")
        + "[[network]]\nname = \"l3v\"\ntier = \"software\"\nforwarding = \"destination\"\n\
             map = [{ in_port = \"1-a\" }, { in_port = \"1-b\" }]\n\
             route = [{ prefix = \"10.0.2.0/24\", action = { port = \"1-b\", ipip_rewrite = { src = \"172.16.0.2\", dst = \"172.16.0.3\" } } },\n\
             { prefix = \"10.0.1.0/24\", action = { port = \"1-a\" } }]\n\
             router = { kind = \"kernel\", addresses = { \"1-a\" = \"10.0.1.1/24\", \"1-b\" = \"10.0.2.1/24\" } }\n";
    let node = start_node_with("ipip", &text, &[]);
    wait_for_api(10);
    let frame = prism_pipeline::traffic::build(
        &prism_pipeline::traffic::FrameSpec {
            src_mac: prism_wire::EthernetAddress(netns::parse_mac(&host_mac(1, 0)).unwrap()),
            dst_mac: prism_wire::EthernetAddress(netns::parse_mac(&gw_mac(1, 2)).unwrap()),
            src: prism_wire::Ipv4Address([10, 0, 1, 2]),
            dst: prism_wire::Ipv4Address([10, 0, 2, 2]),
            tunnel: Some((
                prism_wire::Ipv4Address([172, 16, 0, 1]),
                prism_wire::Ipv4Address([172, 16, 0, 2]),
            )),
            ttl: 30,
            src_port: 4000,
            dst_port: 4001,
            frame_len: 200,
            ..Default::default()
        },
        b"PRSMIPIP",
    );
    let mut rx = netns::in_namespace("pte1b", || {
        PacketPort::open("eth0", Some(RingConfig::default()))
    })
    .unwrap();
    let mut tx = netns::in_namespace("pte1a", || PacketPort::open_tx("eth0")).unwrap();
    let mut got: Option<Vec<u8>> = None;
    let deadline = Instant::now() + Duration::from_secs(5);
    while got.is_none() && Instant::now() < deadline {
        tx.send_batch([frame.as_slice()]);
        for _ in 0..20 {
            rx.recv_block(|f| {
                if f.data.windows(8).any(|w| w == b"PRSMIPIP") {
                    got = Some(f.data.to_vec());
                }
            });
            PacketPort::wait_any(&[&rx], 10).unwrap();
        }
    }
    let got = got.expect("no IPIP frame reached host b");
    // Checked with an independent parser.
    let p = etherparse::SlicedPacket::from_ethernet(&got).unwrap();
    let Some(etherparse::NetSlice::Ipv4(outer)) = &p.net else {
        panic!("not IPv4: {got:?}")
    };
    let oh = outer.header();
    assert_eq!(oh.protocol(), etherparse::IpNumber::IPV4, "outer is IPIP");
    assert_eq!(oh.source(), [172, 16, 0, 2], "next hop's tunnel source");
    assert_eq!(
        oh.destination(),
        [172, 16, 0, 3],
        "next hop's tunnel destination"
    );
    let inner = etherparse::Ipv4HeaderSlice::from_slice(outer.payload().payload).unwrap();
    assert_eq!(inner.source(), [10, 0, 1, 2]);
    assert_eq!(inner.destination(), [10, 0, 2, 2]);
    assert_eq!(
        inner.ttl(),
        29,
        "Linux in the container routed the inner packet once"
    );
    assert_eq!(
        inner.header_checksum(),
        inner.to_header().calc_header_checksum(),
        "inner checksum"
    );
    assert_eq!(
        oh.header_checksum(),
        oh.to_header().calc_header_checksum(),
        "outer checksum"
    );
    let c = stop_node(node);
    assert!(network(&c, "l3v")["from_software"].as_u64().unwrap() > 0);
}

#[test]
fn a_routing_daemon_in_a_kernel_router_learns_a_route_by_bgp() {
    if !root_or_skip("BIRD in a container") {
        return;
    }
    let bird = std::process::Command::new("bird")
        .arg("--version")
        .output()
        .is_ok();
    if !prism_testkit::gates::prerequisite(
        "a routing daemon learns a route by BGP",
        "BIRD (Debian's bird2; scripts/test installs it)",
        bird,
        "PRISM_REQUIRE_ROOT",
    ) {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let _t = Topology::build_n(2);
    let dir = std::env::temp_dir().join("prism-bird-test");
    // A BIRD an interrupted run left would hold the control socket.
    let _ = sh(&["pkill", "-f", "prism-bird-test"]);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let conf = |name: &str, text: String| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    let timers = "hold time 6; keepalive time 2; connect delay time 1; connect retry time 1; error wait time 1, 2;";
    let router_conf = conf(
        "router.conf",
        format!(
            "router id 10.0.2.1;\nprotocol device {{}}\nprotocol kernel {{ kernel table 200; ipv4 {{ export all; }}; }}\n\
             protocol bgp hostb {{ local 10.0.2.1 as 65001; neighbor 10.0.2.2 as 65002; {timers} ipv4 {{ import all; export none; }}; }}\n"
        ),
    );
    let host_conf = conf(
        "host.conf",
        format!(
            "router id 10.0.2.2;\nprotocol device {{}}\nprotocol static {{ ipv4; route 10.9.9.0/24 blackhole; }}\n\
             protocol bgp rtr {{ local 10.0.2.2 as 65002; neighbor 10.0.2.1 as 65001; {timers} ipv4 {{ import none; export all; }}; }}\n"
        ),
    );
    let ctl_sock = |n: &str| dir.join(n).display().to_string();
    // Network 1: a kernel router that knows only host a's subnet by its
    // table; the route to 10.9.9.0/24 (behind host b) comes by BGP.
    let mut net = network_toml(1, "bgp", "kernel");
    let route_to_a = routes_toml(1, &[0]);
    let both = routes_toml(1, &[0, 1]);
    net = net.replace(&both, &route_to_a);
    net = net.replace(
        " } }\n",
        &format!(
            " }}, command = [\"bird\", \"-f\", \"-c\", \"{router_conf}\", \"-s\", \"{}\", \"-P\", \"{}\"] }}\n",
            ctl_sock("router.ctl"),
            ctl_sock("router.pid")
        ),
    );
    assert!(net.contains("command"), "{net}");
    let text = ports_toml(2) + &network_toml(0, "hw", "hardware") + &net;
    let node = start_node_with("bgp", &text, &[]);
    ok(&[
        "ip",
        "-n",
        "pte1b",
        "addr",
        "add",
        "10.9.9.9/32",
        "dev",
        "lo",
    ]);
    let mut host_bird = std::process::Command::new("ip")
        .args([
            "netns",
            "exec",
            "pte1b",
            "bird",
            "-f",
            "-c",
            &host_conf,
            "-s",
            &ctl_sock("host.ctl"),
            "-P",
            &ctl_sock("host.pid"),
        ])
        .spawn()
        .unwrap();
    let reach = || {
        in_ns("pte1a", &["ping", "-c", "1", "-W", "1", "10.9.9.9"])
            .status
            .success()
    };
    // Before the session is up there is no route; within 30 s there is.
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut learned = false;
    while Instant::now() < deadline {
        if reach() {
            learned = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    let routes = ok(&[
        "ip", "-n", "prism-c1", "route", "show", "table", "200", "proto", "bird",
    ]);
    let _ = host_bird.kill();
    let _ = host_bird.wait();
    let _ = stop_node(node);
    let log = std::fs::read_to_string("/run/prism/prism-c1.log").unwrap_or_default();
    assert!(
        learned,
        "10.9.9.9 never became reachable; router routes: {routes}; log: {log}"
    );
    assert!(routes.contains("10.9.9.0/24 via 10.0.2.2"), "{routes}");
}
