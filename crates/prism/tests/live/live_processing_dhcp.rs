//! DHCP served by the node: a processing node booked with `--dhcp` starts
//! with no address (the node sets none in it), busybox's `udhcpc` inside
//! (a real client nobody here wrote) gets the booking's address and
//! gateway from the node's server on its link, and then pings a node with
//! a static address on another subnet through the network's hardware
//! slot. A client that asks for another address is not given it.

use crate::common::*;
use crate::live_processing::tools_present;
use crate::live_processing_booked::{
    BusyboxLan, INSTANCE, book_processing, booking_state, wait_until,
};
use prism_io::oci::runc::Runc;
use std::path::Path;

fn book(dir: &Path, name: &str, net: u8, dhcp: bool) -> String {
    let (address, gateway) = (format!("10.7.{net}.2/24"), format!("10.7.{net}.1"));
    let mut more = vec!["--gateway", gateway.as_str()];
    if dhcp {
        more.push("--dhcp");
    }
    let v = book_processing(dir, name, ("busybox", "lan"), &address, &more);
    v["id"].as_str().unwrap().to_string()
}

/// `script` run by busybox's shell in booking `id`'s container.
fn sh(id: &str, script: &str) -> std::process::Output {
    let runc = Runc::new(format!("/run/prism-{INSTANCE}/runc"));
    let args = ["/bin/busybox", "sh", "-c", script];
    runc.exec(&format!("pp-{id}"), &args).unwrap()
}

fn text(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr)
}

/// What udhcpc runs with the lease: sets the address and route, as
/// Debian's default script does.
const SCRIPT: &str = r#"cat > /dhcp.sh <<'EOF'
#!/bin/busybox sh
case "$1" in
bound|renew)
    /bin/busybox ip addr add "$ip/$mask" dev "$interface"
    [ -n "$router" ] && /bin/busybox ip route add default via "$router" dev "$interface"
    ;;
esac
exit 0
EOF
/bin/busybox chmod +x /dhcp.sh"#;

#[test]
fn a_processing_node_takes_its_bookings_address_from_the_nodes_dhcp_server() {
    if !root_or_skip("DHCP from the node") || !tools_present("DHCP from the node") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let bed = BusyboxLan::new("processing-dhcp", &[]);
    let dir = bed.dir();
    let a = book(dir, "vm-a", 1, true);
    let b = book(dir, "vm-b", 2, false);
    for id in [&a, &b] {
        wait_until(dir, &format!("{id} ready"), 30, || {
            booking_state(dir, id) == "provisioned/ready"
        });
    }
    let before = text(&sh(&a, "/bin/busybox ip -4 addr show dev eth0"));
    assert!(!before.contains("10.7.1.2"), "set statically: {before}");
    assert!(sh(&a, SCRIPT).status.success());
    let wrong = sh(
        &a,
        "/bin/busybox udhcpc -i eth0 -n -q -t 2 -T 1 -r 10.7.1.77 -s /bin/true",
    );
    assert!(
        !text(&wrong).contains("lease of 10.7.1.77"),
        "another address asked: {}",
        text(&wrong)
    );
    let got = sh(
        &a,
        "/bin/busybox udhcpc -i eth0 -n -q -t 3 -T 1 -s /dhcp.sh",
    );
    assert!(got.status.success(), "udhcpc: {}", text(&got));
    let addr = text(&sh(
        &a,
        "/bin/busybox ip -4 addr show dev eth0; /bin/busybox ip route",
    ));
    assert!(addr.contains("10.7.1.2/24"), "{addr}");
    assert!(addr.contains("default via 10.7.1.1"), "{addr}");
    let ping = sh(&a, "/bin/busybox ping -c 3 -W 2 10.7.2.2");
    assert!(
        ping.status.success(),
        "through the network: {}",
        text(&ping)
    );
}
