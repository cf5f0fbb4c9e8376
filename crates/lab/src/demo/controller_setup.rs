//! The controller demo's machines (`crate::demo::controller`): the
//! namespaces of two nodes and their hosts, the controller in HTTPS with
//! a lab CA, and the `prism node` processes that register with it.

use crate::demo::controller_traffic::{INSTANCES, MGMT, NODES, host_mac, host_ns, node_ns};
use crate::demo::nodes::{DemoNode, Topology, management_link};
use anyhow::{Result, bail};
use prism_controller::{Controller, ControllerClient, Settings};
use prism_http::LabCa;
use prism_http::NodeCa;
use prism_io::netns;
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

/// Where the demo keeps its database, keys, configurations and logs.
pub const STATE_DIR: &str = "/run/prism-demo-ctl";

pub(crate) fn build_topology() -> Result<()> {
    for i in 1..=NODES {
        let n = node_ns(i);
        netns::create_namespace(&n)?;
        management_link(&n, &format!("{MGMT}{i}"), 254, i)?;
        for s in 0..2 {
            let h = host_ns(i, s);
            netns::create_namespace(&h)?;
            netns::create_veth("eth0", Some(&h), &format!("p{}", ["a", "b"][s]), Some(&n))?;
            netns::ip_in(
                Some(&h),
                &[
                    "link",
                    "set",
                    "eth0",
                    "address",
                    &netns::format_mac(host_mac(s)),
                ],
            )?;
            netns::ip_in(
                Some(&h),
                &[
                    "addr",
                    "add",
                    &format!("10.0.{}.2/24", s + 1),
                    "dev",
                    "eth0",
                ],
            )?;
        }
    }
    Ok(())
}

/// Starts node `i`; it registers itself with the controller at
/// `controller` (whose CA is `ca`) with the key in `key`, and serves its
/// API in mutual TLS with the certificate the controller gives it.
fn start_node(prism: &Path, i: usize, ca: &Path, controller: &str, key: &Path) -> Result<Child> {
    let node = DemoNode {
        prism,
        dir: Path::new(STATE_DIR),
        i,
        ns: &node_ns(i),
        instance: INSTANCES[i - 1],
        controller,
        key,
        cgroups: false,
    };
    let listen = format!("10.254.{i}.2:7700");
    node.spawn(
        "# prism demo --controller: a node with two ports and no networks; the controller books them.\n\
         device = \"alveo-u280\"\n\n[[port]]\nname = \"a\"\ninterface = \"pa\"\n\n[[port]]\nname = \"b\"\ninterface = \"pb\"\n",
        &[
            "--api-listen".as_ref(),
            listen.as_ref(),
            "--controller-ca".as_ref(),
            ca.as_os_str(),
        ],
        true,
    )
}

/// Where the controller listens: node 1's management link, which node 2
/// reaches through its own.
const CONTROLLER_IP: &str = "10.254.1.1";
const CONTROLLER_AT: &str = "10.254.1.1:0";

/// Waits until every node has registered itself and is up.
async fn wait_for_nodes(admin: &ControllerClient) -> Result<Vec<prism_controller::NodeView>> {
    let t = Instant::now();
    loop {
        let nodes = admin.list_nodes().await?;
        if nodes.len() == NODES && nodes.iter().all(|n| n.up) {
            return Ok(nodes);
        }
        if t.elapsed() > Duration::from_secs(20) {
            bail!(
                "{} of {NODES} nodes registered within 20 s (see {STATE_DIR}/node*.log)",
                nodes.len()
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The controller, in HTTPS with the lab CA it makes in `dir/tls`, which
/// also certifies the nodes (no shared credential: each node is called in
/// mutual TLS); its address and its tasks (the server, the background).
pub(crate) async fn start_controller(
    dir: &Path,
    password: &str,
    cut: bool,
    say: &dyn Fn(&str),
) -> Result<(Controller, String, [tokio::task::JoinHandle<()>; 2])> {
    let db = dir.join("controller.db").display().to_string();
    let lab = LabCa::create(&dir.join("tls"), &[CONTROLLER_IP.into()], 1)?;
    let node_ca = NodeCa::open(&lab.ca_cert, &lab.ca_key)?;
    let settings = Settings {
        node_ca: Some(std::sync::Arc::new(node_ca)),
        // A node cut off is down after two and a half missed heartbeats
        // (a short cut's controller would not see it down otherwise).
        node_timeout_ms: if cut { 5000 } else { 10_000 },
        ..Settings::default()
    };
    let ctl = Controller::open(&db, settings).await?;
    ctl.bootstrap_admin("admin", password).await?;
    let listener = tokio::net::TcpListener::bind(CONTROLLER_AT).await?;
    let addr = format!("https://{}", listener.local_addr()?);
    let tls = prism_http::tls::server_config(&lab.server_cert, &lab.server_key)?;
    let limits = prism_http::Limits::default();
    let serving = prism_controller::api::serve_with(ctl.clone(), listener, Some(tls), limits);
    let server = tokio::spawn(async move {
        let _ = serving.await;
    });
    let background = ctl.spawn_background();
    say(&format!(
        "  controller on {addr} (lab CA {}), database {db}",
        lab.ca_cert.display()
    ));
    Ok((ctl, addr, [server, background]))
}

/// Starts the nodes, each registering itself with its own key, and waits
/// until all are up.
pub(crate) async fn start_nodes(
    prism: &Path,
    dir: &Path,
    addr: &str,
    admin: &ControllerClient,
    topo: &mut Topology,
    say: &dyn Fn(&str),
) -> Result<()> {
    let ca = dir.join("tls").join("ca.pem");
    for i in 1..=NODES {
        let key = admin.create_node_key(&format!("node{i}")).await?;
        let file = dir.join(format!("node{i}.key"));
        std::fs::write(&file, key.key.unwrap_or_default())?;
        std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
        topo.nodes.push(start_node(prism, i, &ca, addr, &file)?);
    }
    for n in wait_for_nodes(admin).await? {
        say(&format!(
            "  {} registered itself at {} and took a certificate for its name: {} with {} slots, ports {:?}",
            n.name, n.address, n.device, n.slots, n.ports
        ));
    }
    Ok(())
}
