//! `prism ctl` against the controller: login (the token is kept in a
//! session file readable only by its owner), projects, bookings, quota,
//! usage, API keys and the administrator's commands.

use crate::print;
use anyhow::{Context, Result};
use prism_controller_api::session;
use prism_controller_api::{
    Action, ApiKeyRequest, ControllerClient, LoginRequest, MemberRequest, NodeRequest, Operation,
    ProjectRequest, Role, UserRequest,
};
use std::path::{Path, PathBuf};

pub const DEFAULT_CONTROLLER: &str = "127.0.0.1:7440";

#[derive(clap::Args, Debug)]
pub struct Where {
    /// The controller: https://HOST:PORT, or HOST:PORT in plain HTTP
    /// (default: the session's, $PRISM_CONTROLLER or 127.0.0.1:7440).
    #[arg(long, value_name = "ADDR", global = true)]
    pub controller: Option<String>,
    /// The CA that signed an https:// controller's certificate (PEM;
    /// default: the session's, $PRISM_CA, else the system's roots).
    #[arg(long, value_name = "FILE", global = true)]
    pub ca: Option<PathBuf>,
    /// The project (default: the one the session was logged in to).
    #[arg(long, short = 'p', global = true)]
    pub project: Option<String>,
}

#[derive(clap::Subcommand, Debug)]
pub enum ControllerCmd {
    /// Log in to the controller; the password is read from stdin (one line)
    /// or $PRISM_PASSWORD. The token is saved in ~/.config/prism/session.json.
    Login {
        user: String,
        /// Lifetime in seconds (default 3600).
        #[arg(long)]
        ttl: Option<i64>,
    },
    /// Revoke the session's token and forget it.
    Logout,
    Whoami,
    /// The projects you belong to.
    Projects,
    /// The project's bookings (`--all`: released ones too).
    Bookings {
        #[arg(long)]
        all: bool,
    },
    /// Book a network or a processing node (see `book --help`).
    Book(crate::ctl_book::BookArgs),
    /// Your ssh public keys: add one (NAME and its .pub FILE), list them
    /// (neither), or remove one (`--remove ID`).
    SshKey(crate::ctl_book::SshKeyArgs),
    /// Log in to processing node BOOKING as root with OpenSSH, through its
    /// node, checking its host key; ARGS go to ssh (a command to run).
    Ssh(crate::ctl_book::SshArgs),
    /// Shared VLANs: invite a project, revoke, list members; the ones the
    /// project is invited to, and leaving one.
    #[command(subcommand)]
    Vlan(crate::ctl_book::VlanCmd),
    /// The storage service: the bucket, S3 keys, signed URLs, sharing.
    #[command(subcommand)]
    Storage(crate::ctl_book::StorageCmd),
    /// Images: save a processing node as one, list, share, delete.
    #[command(subcommand)]
    Image(crate::ctl_image::ImageCmd),
    /// Lease a public address from a node's pool for host INTERNAL of
    /// booking BOOKING: an IPv4 host of a routed network (the gateway
    /// service: traffic to the address reaches the host), or a MAC host of
    /// a bridge network on one node (a public MAC, docs/wan.md).
    PublicLease {
        booking: String,
        internal: String,
        /// For a network spanning nodes: the node of the host's part.
        #[arg(long)]
        node: Option<String>,
        /// Lease in seconds (default: to the booking's end).
        #[arg(long)]
        lease: Option<i64>,
    },
    /// The project's public addresses (`--all`: released ones too).
    PublicAddresses {
        #[arg(long)]
        all: bool,
    },
    /// Extend a public address's lease to SECONDS from now (never past its
    /// booking's end).
    PublicRenew {
        address: String,
        seconds: i64,
    },
    PublicRelease {
        address: String,
    },
    /// One booking's allocation and operational state.
    Status {
        id: String,
    },
    Provision {
        id: String,
    },
    /// Change a live network booking (docs/customizing.md).
    Edit(crate::ctl_book::EditArgs),
    /// A map of a booking's program (docs/customizing.md): every entry;
    /// with KEY=VALUE (hex, the program's byte order) that entry set, with
    /// KEY= deleted.
    Map {
        booking: String,
        map: String,
        set: Option<String>,
    },
    /// A booking's changes, oldest first.
    Changes {
        /// The booking (its id or name).
        booking: String,
    },
    /// Extend a lease to SECONDS from now (clamped by the service level).
    Renew {
        id: String,
        seconds: i64,
    },
    Release {
        id: String,
    },
    Start {
        id: String,
    },
    Stop {
        id: String,
    },
    Quota,
    /// Resource-hours and bandwidth-hours per user and tier.
    Usage {
        /// Unix ms (default 0).
        #[arg(long, default_value_t = 0)]
        from: i64,
        /// Unix ms (default now).
        #[arg(long)]
        to: Option<i64>,
        #[arg(long)]
        csv: bool,
    },
    /// Create an API key for the project: restricted to OPS
    /// (e.g. bookings.read,bookings.create), printed once.
    KeyCreate {
        name: String,
        #[arg(long, value_delimiter = ',')]
        ops: Vec<String>,
        #[arg(long)]
        ttl: Option<i64>,
    },
    KeyRevoke {
        id: String,
    },
    /// Add a member to the project, or change their role.
    Member {
        user: String,
        role: String,
    },
    /// Administrators: create a user (password from stdin or $PRISM_PASSWORD).
    UserAdd {
        name: String,
        #[arg(long)]
        admin: bool,
    },
    /// Administrators: create a project and its owner.
    ProjectAdd {
        name: String,
        #[arg(long)]
        owner: String,
        #[arg(long, default_value = prism_controller_api::STANDARD)]
        level: String,
    },
    /// Administrators: register a node by its API address.
    NodeAdd {
        name: String,
        address: String,
        #[arg(long, default_value_t = 1000)]
        hw_mbps: i64,
        #[arg(long, default_value_t = 100)]
        sw_mbps: i64,
    },
    /// Administrators: the nodes and their convergence.
    Nodes,
    /// Administrators: make the key node NAME registers with
    /// (`prism node --controller ADDR --controller-key-file FILE`).
    NodeKey {
        name: String,
        /// Write the key to FILE (readable only by you) instead of printing it.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Administrators: the node keys (never the keys themselves).
    NodeKeys,
    /// Administrators: revoke a node key; that node's heartbeats are refused.
    NodeKeyRevoke {
        id: String,
    },
    /// Administrators: the client certificates controller replicas present
    /// to nodes.
    ControllerCerts,
    /// Administrators: revoke a controller's client certificate (by its
    /// serial number); every node refuses it from its next heartbeat.
    ControllerCertRevoke {
        serial: String,
    },
    /// Administrators: the audit log.
    Audit,
}

/// The password, as `session::read_secret` reads it.
pub fn read_password() -> Result<String> {
    session::read_secret().context("reading the password from stdin")
}

pub fn run(w: &Where, cmd: &ControllerCmd) -> Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(call(w, cmd))
}

async fn call(w: &Where, cmd: &ControllerCmd) -> Result<()> {
    let session = session::load();
    let to = session::Where::resolve(
        w.controller.as_deref(),
        w.ca.as_deref(),
        DEFAULT_CONTROLLER,
        session.as_ref(),
    );
    let (addr, ca) = (&to.controller, to.ca.as_deref());
    let c = ControllerClient::connect(addr, to.token.clone(), ca)?;
    let project = || -> Result<String> {
        w.project
            .clone()
            .or_else(|| session.as_ref().and_then(|s| s.project.clone()))
            .context("which project? `--project NAME`, or log in with one")
    };
    use ControllerCmd as C;
    match cmd {
        C::Login { user, ttl } => login(addr, ca, w, user, *ttl).await,
        C::Logout => logout(&c).await,
        C::Whoami => print(&c.whoami().await?),
        C::SshKey(a) => crate::ctl_book::ssh_key(&c, a).await,
        C::Ssh(a) => crate::ctl_book::ssh(&c, &project()?, a).await,
        C::Vlan(v) => crate::ctl_book::vlan(&c, &project()?, v).await,
        C::Storage(s) => crate::ctl_book::storage(&c, &project()?, s).await,
        C::Image(i) => crate::ctl_image::image(&c, &project()?, i).await,
        C::Projects => print(&c.list_projects().await?),
        C::Bookings { .. }
        | C::Book(_)
        | C::Status { .. }
        | C::Provision { .. }
        | C::Renew { .. }
        | C::Release { .. }
        | C::Start { .. }
        | C::Stop { .. }
        | C::Edit(_)
        | C::Map { .. }
        | C::Changes { .. } => booking_call(&c, &project()?, cmd).await,
        C::PublicLease { .. }
        | C::PublicAddresses { .. }
        | C::PublicRenew { .. }
        | C::PublicRelease { .. } => public_call(&c, &project()?, cmd).await,
        C::Quota => print(&c.quota(&project()?).await?),
        C::Usage { .. } | C::KeyCreate { .. } | C::KeyRevoke { .. } | C::Member { .. } => {
            report_call(&c, &project()?, cmd).await
        }
        C::UserAdd { .. }
        | C::ProjectAdd { .. }
        | C::NodeAdd { .. }
        | C::Nodes
        | C::NodeKey { .. }
        | C::NodeKeys
        | C::NodeKeyRevoke { .. }
        | C::ControllerCerts
        | C::ControllerCertRevoke { .. }
        | C::Audit => admin_call(&c, cmd).await,
    }
}

/// A project's bookings: listed, booked, read, provisioned, renewed,
/// released, started and stopped, changed and their changes listed.
async fn booking_call(c: &ControllerClient, project: &str, cmd: &ControllerCmd) -> Result<()> {
    use ControllerCmd as C;
    match cmd {
        C::Bookings { all } => print(&c.all_bookings(project, *all).await?),
        C::Book(a) => print(&c.book(project, &a.request()?).await?),
        C::Status { id } => print(&c.booking(project, id).await?),
        C::Provision { id } => print(&c.provision(project, id).await?),
        C::Renew { id, seconds } => print(&c.renew(project, id, *seconds).await?),
        C::Release { id } => print(&c.release(project, id).await?),
        C::Start { id } => print(&c.act(project, id, Action::Start).await?),
        C::Stop { id } => print(&c.act(project, id, Action::Stop).await?),
        C::Edit(a) => {
            let id = c.live_booking(project, &a.booking).await?.id;
            let r = c.edit_booking(project, &id, &a.change()?).await?;
            eprintln!("{}", r.summary());
            print(&r)
        }
        C::Map { booking, map, set } => {
            let id = c.live_booking(project, booking).await?.id;
            let w = set.as_deref().map(prism_node_api::MapWrite::parse);
            match w.transpose().map_err(anyhow::Error::msg)? {
                None => print(&c.read_map(project, &id, map).await?),
                Some(w) => print(&c.write_map(project, &id, map, &w).await?),
            }
        }
        C::Changes { booking } => {
            let id = c.live_booking(project, booking).await?.id;
            print(&c.booking_changes(project, &id).await?)
        }
        _ => Ok(()),
    }
}

async fn logout(c: &ControllerClient) -> Result<()> {
    c.logout().await?;
    let _ = std::fs::remove_file(session::path());
    println!("logged out");
    Ok(())
}

/// A project's usage report, API keys and members.
async fn report_call(c: &ControllerClient, project: &str, cmd: &ControllerCmd) -> Result<()> {
    use ControllerCmd as C;
    match cmd {
        C::Usage { from, to, csv } => {
            let to = to.unwrap_or_else(prism_http::identity::wall_ms);
            if *csv {
                print!("{}", c.usage_csv(project, *from, to).await?);
                Ok(())
            } else {
                print(&c.usage(project, *from, to).await?)
            }
        }
        C::KeyCreate { name, ops, ttl } => {
            let operations = ops
                .iter()
                .map(|o| Operation::parse(o).map_err(anyhow::Error::msg))
                .collect::<Result<Vec<_>>>()?;
            let (name, ttl_s) = (name.clone(), *ttl);
            let req = ApiKeyRequest {
                name,
                operations,
                ttl_s,
            };
            print(&c.create_api_key(project, &req).await?)
        }
        C::KeyRevoke { id } => {
            c.revoke_api_key(project, id).await?;
            println!("revoked");
            Ok(())
        }
        C::Member { user, role } => {
            let role = Role::parse(role)
                .with_context(|| format!("`{role}` is not a role: owner, member or viewer"))?;
            print(&c.set_member(project, user, &MemberRequest { role }).await?)
        }
        _ => Ok(()),
    }
}

/// The administrator's commands.
async fn admin_call(c: &ControllerClient, cmd: &ControllerCmd) -> Result<()> {
    use ControllerCmd as C;
    match cmd {
        C::UserAdd { name, admin } => {
            let (name, password, admin) = (name.clone(), read_password()?, *admin);
            print(
                &c.create_user(&UserRequest {
                    name,
                    password,
                    admin,
                })
                .await?,
            )
        }
        C::ProjectAdd { name, owner, level } => print(
            &c.create_project(&ProjectRequest {
                name: name.clone(),
                service_level: level.clone(),
                owner: owner.clone(),
            })
            .await?,
        ),
        C::NodeAdd {
            name,
            address,
            hw_mbps,
            sw_mbps,
        } => print(
            &c.register_node(&NodeRequest {
                name: name.clone(),
                address: address.clone(),
                hw_mbps: *hw_mbps,
                sw_mbps: *sw_mbps,
            })
            .await?,
        ),
        C::Nodes => print(&c.list_nodes().await?),
        C::NodeKey { .. }
        | C::NodeKeys
        | C::NodeKeyRevoke { .. }
        | C::ControllerCerts
        | C::ControllerCertRevoke { .. } => credential_call(c, cmd).await,
        C::Audit => print(&c.all_audit().await?),
        _ => Ok(()),
    }
}

/// Node keys and the controller's client certificates (administrators).
async fn credential_call(c: &ControllerClient, cmd: &ControllerCmd) -> Result<()> {
    use ControllerCmd as C;
    match cmd {
        C::NodeKey { name, out } => {
            let mut k = c.create_node_key(name).await?;
            if let Some(file) = out {
                let key = k.key.take().unwrap_or_default();
                session::write_private(file, &format!("{key}\n"))
                    .with_context(|| format!("writing {}", file.display()))?;
                eprintln!("the key is in {} (mode 0600)", file.display());
            }
            print(&k)
        }
        C::NodeKeys => print(&c.list_node_keys().await?),
        C::NodeKeyRevoke { id } => {
            c.revoke_node_key(id).await?;
            println!("revoked");
            Ok(())
        }
        C::ControllerCerts => print(&c.controller_certificates().await?),
        C::ControllerCertRevoke { serial } => {
            c.revoke_controller_certificate(serial).await?;
            println!("revoked: nodes refuse it from their next heartbeat");
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Logs in and saves the session.
async fn login(
    addr: &str,
    ca: Option<&Path>,
    w: &Where,
    user: &str,
    ttl: Option<i64>,
) -> Result<()> {
    let r = LoginRequest {
        user: user.to_string(),
        password: read_password()?,
        project: w.project.clone(),
        ttl_s: ttl,
    };
    println!("{}", session::login_said(addr, ca, &r).await?);
    Ok(())
}

/// The public-address commands (the gateway service).
async fn public_call(c: &ControllerClient, project: &str, cmd: &ControllerCmd) -> Result<()> {
    use ControllerCmd as C;
    match cmd {
        C::PublicLease {
            booking,
            internal,
            node,
            lease,
        } => {
            let r = prism_controller_api::PublicAddressRequest {
                booking: booking.clone(),
                internal: internal.clone(),
                node: node.clone(),
                lease_s: *lease,
            };
            print(&c.lease_public(project, &r).await?)
        }
        C::PublicAddresses { all } => print(&c.public_addresses(project, *all).await?),
        C::PublicRenew { address, seconds } => {
            print(&c.renew_public(project, address, *seconds).await?)
        }
        C::PublicRelease { address } => print(&c.release_public(project, address).await?),
        _ => Ok(()),
    }
}
