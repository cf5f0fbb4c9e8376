//! What a node served in-process is set up with, from its configuration:
//! its instance's options, its WAN port as the API shows it, its heartbeat
//! agent and its identity for mutual TLS.

use super::*;

/// The heartbeat thread's settings; the address is filled in once the
/// API listens.
pub(super) fn agent_config(cfg: &ServeConfig) -> Result<Option<AgentConfig>> {
    let Some(j) = &cfg.join else {
        return Ok(None);
    };
    let name = match &j.name {
        Some(n) => n.clone(),
        None => {
            let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
                .unwrap_or_else(|_| "node".into());
            match &cfg.instance {
                Some(i) => format!("{}-{i}", host.trim()),
                None => host.trim().to_string(),
            }
        }
    };
    let address = match (&j.advertise, &cfg.api_tcp) {
        (Some(x), _) => x.clone(),
        (None, Some((l, _))) if l.ip().is_unspecified() => bail!(
            "--api-listen {l} is a wildcard: give --advertise HOST:PORT, where the controller reaches this node"
        ),
        // The address bound, once the API listens.
        _ => String::new(),
    };
    let controller =
        ControllerClient::connect(&j.controller, Some(j.key.clone()), j.ca.as_deref())?;
    Ok(Some(AgentConfig {
        controller,
        name,
        address,
        hw_mbps: None,
        sw_mbps: None,
        local: Endpoint::Unix(cfg.api_socket.clone()),
        identity: None,
    }))
}

/// The node instance's names and state directory, with what `cfg` sets.
pub(super) fn node_options(cfg: &ServeConfig) -> NodeOptions {
    let mut opts = instance_options(cfg.instance.as_deref());
    opts.workers = cfg.workers;
    opts.cores = cfg.cores.clone();
    opts.persist = Some(cfg.scenario_text.clone());
    opts.reconfig_strategy = cfg.reconfig_strategy;
    opts.router_exe = cfg.router_exe.clone();
    opts.processing = cfg.processing_port.is_some();
    opts.door_ip = cfg.api_tcp.as_ref().map(|(at, _)| at.ip());
    opts
}

/// The port processing nodes are behind, checked: a port of the
/// scenario, on a host that can run them.
pub(super) fn processing_port(cfg: &ServeConfig, sc: &Scenario) -> Result<Option<String>> {
    let Some(port) = &cfg.processing_port else {
        return Ok(None);
    };
    if !sc.port_names.contains(port) {
        anyhow::bail!(
            "--processing-port {port}: the scenario has no such port ({})",
            sc.port_names.join(", ")
        );
    }
    if !crate::linux::processing::tools_present() {
        anyhow::bail!(
            "--processing-port: processing nodes need runc, umoci, tini (tini-static) and \
             containers-common's seccomp profile (apt install runc umoci tini golang-github-containers-common)"
        );
    }
    Ok(Some(port.clone()))
}

/// The node's WAN port as its API shows it.
pub(super) fn wan_info(sc: &Scenario) -> Option<prism_node_api::WanInfo> {
    sc.wan.as_ref().map(|(port, w)| prism_node_api::WanInfo {
        port: sc.port_names[usize::from(*port)].clone(),
        address: w.address.0.to_string(),
        mac: w.mac.0.to_string(),
        next_hop: w.next_hop.map(|m| m.0.to_string()),
        public: w.public.map(|p| p.0.to_string()),
        public_macs: w.public_macs.map(|p| p.0.to_string()),
    })
}

/// The node's identity when its API on TCP is in mutual TLS: refused
/// unless it joins a controller over `https://`, whose CA it then trusts.
pub(super) fn node_identity(
    cfg: &ServeConfig,
    agent: Option<&AgentConfig>,
) -> Result<Option<Arc<NodeIdentity>>> {
    let Some((_, TcpAuth::Certificate)) = &cfg.api_tcp else {
        return Ok(None);
    };
    let (Some(j), Some(a)) = (&cfg.join, agent) else {
        bail!(
            "the API on TCP needs the shared credential (--api-credential-file) or a controller to certify this node (--controller https://…)"
        );
    };
    let verified = prism_http::Target::parse(&j.controller).is_ok_and(|t| t.tls);
    if !verified {
        bail!(
            "--controller {}: a node certificate is only taken from a controller it can verify (https://…); or give --api-credential-file",
            j.controller
        );
    }
    let id = NodeIdentity::new(&a.name).with_context(|| {
        format!(
            "node name `{}`: a certificate's name is letters, digits, `-` and `.` (--node-name)",
            a.name
        )
    })?;
    Ok(Some(Arc::new(id)))
}
