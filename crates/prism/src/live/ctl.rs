//! `prism ctl`: the CLI as a client of a running node's API.

use anyhow::{Context, Result, bail};
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper::body::Bytes;
use std::path::{Path, PathBuf};

pub const DEFAULT_SOCKET: &str = "/run/prism/node.sock";

#[derive(clap::Args, Debug)]
pub struct CtlArgs {
    /// The node's API socket.
    #[arg(long, default_value = DEFAULT_SOCKET)]
    pub socket: PathBuf,
    #[command(subcommand)]
    pub cmd: CtlCmd,
}

#[derive(clap::Subcommand, Debug)]
pub enum CtlCmd {
    /// List the networks.
    Networks,
    /// Print the node's counters (JSON).
    Counters,
    /// Set a network's rate limit (e.g. 10Mbit), or `none`.
    RateLimit { network: String, rate: String },
    /// Replace a network's routes with those in a JSON file, written as in
    /// a scenario file (`{"route": [{"prefix": "10.0.2.0/24", "action": {"port": "b"}}]}`).
    Routes { network: String, file: PathBuf },
    /// Replace a rules network's rule table with the one in a JSON file
    /// (`{"rule": [...], "default_action": {...}}`).
    Rules { network: String, file: PathBuf },
    /// Add a network defined in a JSON or TOML file (the fields of a
    /// scenario's `[[network]]` table).
    Add { file: PathBuf },
    /// Replace a network's whole definition with the one in a file.
    Replace { network: String, file: PathBuf },
    /// Move a network to `hardware` or `software`.
    Tier { network: String, tier: String },
    /// Show one network and its definition.
    Show { network: String },
    /// Remove a network (and its container).
    Remove { network: String },
    /// The node's sockets and their statistics.
    Ports,
    /// The node: device, ports, I/O, workers, free hardware slots.
    Node,
}

/// Sends one request to the node at `socket`; returns (status, body).
pub fn request(
    socket: &Path,
    method: &str,
    path: &str,
    body: Option<String>,
) -> Result<(u16, String)> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let stream = tokio::net::UnixStream::connect(socket)
            .await
            .with_context(|| {
                format!(
                    "cannot reach the node at {} (is `prism node` running?)",
                    socket.display()
                )
            })?;
        let (mut send, conn) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream)).await?;
        tokio::spawn(conn);
        let req = Request::builder()
            .method(method)
            .uri(path)
            .header("host", "prism")
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(body.unwrap_or_default())))?;
        let resp = send.send_request(req).await?;
        let status = resp.status().as_u16();
        let bytes = resp.into_body().collect().await?.to_bytes();
        Ok((status, String::from_utf8_lossy(&bytes).into_owned()))
    })
}

/// A request body from a file: JSON as it is; TOML (a `.toml` file, one
/// network's fields or a `[[network]]` table) converted to JSON.
fn read_body(file: &Path) -> Result<String> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    if file.extension().is_some_and(|e| e == "toml") {
        let t: toml::Table = text
            .parse()
            .with_context(|| format!("{}: not TOML", file.display()))?;
        let v = match t.get("network").and_then(toml::Value::as_array) {
            Some(a) if a.len() == 1 => serde_json::to_value(&a[0])?,
            Some(_) => bail!("{}: one [[network]] table per file", file.display()),
            None => serde_json::to_value(&t)?,
        };
        return Ok(v.to_string());
    }
    Ok(text)
}

pub fn run(a: &CtlArgs) -> Result<()> {
    let (method, path, body) = match &a.cmd {
        CtlCmd::Networks => ("GET", "/v1/networks".to_string(), None),
        CtlCmd::Counters => ("GET", "/v1/counters".to_string(), None),
        CtlCmd::RateLimit { network, rate } => {
            let bps = if rate == "none" {
                None
            } else {
                Some(
                    crate::scenario::parse_rate(rate)
                        .with_context(|| format!("`{rate}` is not a rate (e.g. 10Mbit)"))?,
                )
            };
            let body = serde_json::json!({ "rate_bps": bps }).to_string();
            (
                "PUT",
                format!("/v1/networks/{network}/rate-limit"),
                Some(body),
            )
        }
        CtlCmd::Routes { network, file } => (
            "PUT",
            format!("/v1/networks/{network}/routes"),
            Some(read_body(file)?),
        ),
        CtlCmd::Rules { network, file } => (
            "PUT",
            format!("/v1/networks/{network}/rules"),
            Some(read_body(file)?),
        ),
        CtlCmd::Add { file } => ("POST", "/v1/networks".to_string(), Some(read_body(file)?)),
        CtlCmd::Replace { network, file } => (
            "PUT",
            format!("/v1/networks/{network}"),
            Some(read_body(file)?),
        ),
        CtlCmd::Tier { network, tier } => (
            "PUT",
            format!("/v1/networks/{network}/tier"),
            Some(serde_json::json!({ "tier": tier }).to_string()),
        ),
        CtlCmd::Show { network } => ("GET", format!("/v1/networks/{network}"), None),
        CtlCmd::Remove { network } => ("DELETE", format!("/v1/networks/{network}"), None),
        CtlCmd::Ports => ("GET", "/v1/ports".to_string(), None),
        CtlCmd::Node => ("GET", "/v1/node".to_string(), None),
    };
    let (status, text) = request(&a.socket, method, &path, body)?;
    if !(200..300).contains(&status) {
        bail!("{method} {path}: {status}: {text}");
    }
    if !text.is_empty() {
        match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(v) => println!("{}", serde_json::to_string_pretty(&v)?),
            Err(_) => println!("{text}"),
        }
    }
    Ok(())
}
