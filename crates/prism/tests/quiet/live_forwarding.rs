//! Ping, iperf3 TCP and UDP, and TTL expiry through a hardware network and
//! software networks with each router kind. The UDP check counts datagrams
//! lost at the receiving host (under 5%), so it runs in the quiet lane:
//! beside the other lanes on two cores a software router can be starved
//! long enough to lose a tenth of a 20 Mbit/s flow. Needs root.

use crate::common::*;

#[test]
fn ping_iperf3_and_ttl_through_hardware_and_software_networks() {
    if !root_or_skip("live forwarding") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let _t = Topology::build();
    let node = start_node("fwd");
    for (k, (name, _)) in NETS.iter().enumerate() {
        let a = format!("pte{k}a");
        let b = format!("pte{k}b");
        let p = in_ns(&a, &["ping", "-c", "3", "-i", "0.2", "-W", "2", "10.0.2.2"]);
        assert!(
            p.status.success(),
            "ping through `{name}`: {}",
            String::from_utf8_lossy(&p.stdout)
        );
        // TTL 1: the network decrements it to 0 and must not deliver.
        let p = in_ns(
            &a,
            &[
                "ping", "-c", "2", "-i", "0.2", "-W", "1", "-t", "1", "10.0.2.2",
            ],
        );
        assert!(!p.status.success(), "TTL-1 ping crossed `{name}`");
        for udp in [false, true] {
            let mut extra = vec![];
            if udp {
                extra.extend(["-u", "-b", "20M", "-l", "1000"]);
            }
            let j = iperf3(&a, &b, &extra, name);
            let sum = &j["end"]["sum"];
            if udp {
                let lost = sum["lost_percent"].as_f64().unwrap();
                let bps = sum["bits_per_second"].as_f64().unwrap();
                eprintln!(
                    "{name}: UDP 20 Mbit/s offered, {:.1} Mbit/s, {lost:.2}% lost",
                    bps / 1e6
                );
                assert!(lost < 5.0, "UDP through `{name}` lost {lost}%");
            } else {
                let bps = j["end"]["sum_received"]["bits_per_second"]
                    .as_f64()
                    .unwrap();
                eprintln!("{name}: TCP {:.1} Mbit/s", bps / 1e6);
                assert!(bps > 10e6, "TCP through `{name}`: {bps} bit/s");
            }
        }
    }
    let c = stop_node(node);
    let hw = network(&c, "hw");
    let drops = hw["drops"].to_string();
    assert!(drops.contains("action/ttl-expired"), "hw drops: {drops}");
    assert!(network(&c, "swk")["to_software"].as_u64().unwrap() > 1000);
    assert!(network(&c, "swp")["from_software"].as_u64().unwrap() > 1000);
    // The node removed its containers on the way out.
    let ns = ok(&["ip", "netns", "list"]);
    assert!(!ns.contains("prism-c"), "containers left: {ns}");
}
