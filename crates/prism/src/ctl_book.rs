//! `prism ctl book`: a network from a spec file, or a processing node or a
//! shared VLAN from flags (`--type processing`, `--type shared-vlan`);
//! `prism ctl ssh-key`, `ssh` and `vlan`.

use anyhow::Result;
use prism_controller_api::{BookFlags, BookingRequest, ControllerClient, SshKeyRequest};
use std::path::PathBuf;

/// Book a network: --spec FILE holds a network document without `name`
/// (JSON, or TOML), e.g. `{"tier": "hardware", "forwarding":
/// "destination", "route": [...]}`; a network spanning nodes adds
/// `[[part]]` tables (`node`, `route`: docs/wan.md). Or a processing node
/// (`--type processing --image IMAGE --attach NETWORK[,NETWORK…] --cpus N
/// --memory MIB`, docs/processing.md), or a shared VLAN (`--type
/// shared-vlan [--node NODE]`). Provisioned at once unless --hold.
#[derive(Debug, Clone, clap::Args)]
pub struct BookArgs {
    pub name: String,
    #[arg(long = "type", default_value = "network", value_parser = ["network", "processing", "shared-vlan"])]
    pub resource_type: String,
    /// A network's document.
    #[arg(long)]
    pub spec: Option<PathBuf>,
    /// A network's guaranteed bandwidth, Mbit/s.
    #[arg(long)]
    pub bandwidth: Option<i64>,
    /// Lease in seconds (default: the service level's, 24 h).
    #[arg(long)]
    pub lease: Option<i64>,
    /// Only allocate (a 10-minute hold); `provision` later.
    #[arg(long)]
    pub hold: bool,
    /// Outgoing NAT through its node's gateway (docs/wan.md).
    #[arg(long)]
    pub nat: bool,
    /// A processing node's image (`base`, or `NAME:TAG`).
    #[arg(long)]
    pub image: Option<String>,
    /// A processing node's networks (the project's networks and shared
    /// VLANs, or `OWNER/NAME` for a shared VLAN another project invited
    /// it to; `eth0` first).
    #[arg(long, value_delimiter = ',')]
    pub attach: Vec<String>,
    /// Its address on each of them, in order (CIDR).
    #[arg(long)]
    pub address: Vec<String>,
    /// Its default route's next hop, on the first network.
    #[arg(long)]
    pub gateway: Option<String>,
    /// Hand the addresses (and gateway) to it by DHCP from its node,
    /// for an image that runs a DHCP client, instead of setting them.
    #[arg(long)]
    pub dhcp: bool,
    /// CPU time, in CPUs (0.5: half of one).
    #[arg(long, default_value_t = 1.0)]
    pub cpus: f64,
    /// Memory, MiB.
    #[arg(long, default_value_t = 512)]
    pub memory: u64,
    /// A shared VLAN's node (default: the first that runs processing nodes).
    #[arg(long)]
    pub node: Option<String>,
}

impl BookArgs {
    pub fn request(&self) -> Result<BookingRequest> {
        let flags = BookFlags {
            name: &self.name,
            resource_type: &self.resource_type,
            spec: self.spec.as_deref(),
            bandwidth: self.bandwidth,
            lease_s: self.lease,
            hold: self.hold,
            nat: self.nat,
            image: self.image.as_deref(),
            attach: &self.attach,
            addresses: &self.address,
            gateway: self.gateway.as_deref(),
            cpus: self.cpus,
            memory_mib: self.memory,
            node: self.node.as_deref(),
            dhcp: self.dhcp,
        };
        flags.request().map_err(anyhow::Error::msg)
    }
}

#[derive(Debug, Clone, clap::Args)]
pub struct SshKeyArgs {
    pub name: Option<String>,
    pub file: Option<PathBuf>,
    #[arg(long, value_name = "ID", conflicts_with_all = ["name", "file"])]
    pub remove: Option<String>,
}

#[derive(Debug, Clone, clap::Args)]
pub struct SshArgs {
    pub booking: String,
    /// The private key to use (default: ssh's own choice).
    #[arg(short = 'i', long)]
    pub identity: Option<PathBuf>,
    #[arg(last = true)]
    pub args: Vec<String>,
}

pub async fn ssh_key(c: &ControllerClient, a: &SshKeyArgs) -> Result<()> {
    match (&a.remove, &a.name, &a.file) {
        (Some(id), _, _) => Ok(c.remove_ssh_key(id).await?),
        (None, Some(name), Some(f)) => {
            let r = SshKeyRequest::from_file(name, f).map_err(anyhow::Error::msg)?;
            crate::print(&c.add_ssh_key(&r).await?)
        }
        (None, None, None) => crate::print(&c.ssh_keys().await?),
        _ => anyhow::bail!("give NAME and FILE (the .pub file) to add a key"),
    }
}

pub async fn ssh(c: &ControllerClient, project: &str, a: &SshArgs) -> Result<()> {
    let id = a.identity.as_deref();
    let code = prism_controller_api::ssh::run(c, project, &a.booking, id, &a.args).await?;
    std::process::exit(code)
}

/// A shared VLAN's invitations (its booker's side) and the shared VLANs
/// the project is invited to (the invited side).
#[derive(clap::Subcommand, Debug, Clone)]
pub enum VlanCmd {
    /// Invite PROJECT to shared VLAN BOOKING: its processing nodes may
    /// attach to it as `OWNER/NAME`.
    Invite {
        booking: String,
        #[arg(value_name = "PROJECT")]
        member: String,
    },
    /// Revoke PROJECT's invitation: its processing nodes on the VLAN are
    /// unplugged from it.
    Revoke {
        booking: String,
        #[arg(value_name = "PROJECT")]
        member: String,
    },
    /// The projects invited to shared VLAN BOOKING.
    Members { booking: String },
    /// The shared VLANs the project is invited to.
    List,
    /// Leave shared VLAN ID (the project's owners).
    Leave { id: String },
}

pub async fn vlan(c: &ControllerClient, project: &str, cmd: &VlanCmd) -> Result<()> {
    match cmd {
        VlanCmd::Invite { booking, member: m } => {
            crate::print(&c.invite_to_vlan(project, booking, m).await?)
        }
        VlanCmd::Revoke { booking, member: m } => {
            Ok(c.revoke_from_vlan(project, booking, m).await?)
        }
        VlanCmd::Members { booking } => crate::print(&c.vlan_members(project, booking).await?),
        VlanCmd::List => crate::print(&c.shared_vlans(project).await?),
        VlanCmd::Leave { id } => Ok(c.leave_shared_vlan(project, id).await?),
    }
}

/// The storage service: the project's bucket, its S3 keys, signed URLs
/// and read-only sharing (the objects themselves: any S3 client, with a
/// key, or a signed URL).
#[derive(clap::Subcommand, Debug, Clone)]
pub enum StorageCmd {
    /// The bucket, its endpoint, use and quota.
    Info,
    /// A new S3 key of yours (its secret shown this once).
    Key,
    /// The project's keys.
    Keys,
    /// Revoke key ID.
    Revoke { id: String },
    /// A URL for one GET (or --put) of object KEY, valid --expires seconds.
    Url {
        key: String,
        #[arg(long)]
        put: bool,
        /// Another project's bucket shared with this one (GET only).
        #[arg(long)]
        bucket: Option<String>,
        #[arg(long, default_value_t = 3600)]
        expires: u64,
    },
    /// Share the bucket with PROJECT, read-only.
    Share {
        #[arg(value_name = "PROJECT")]
        with: String,
    },
    /// Stop sharing it with PROJECT.
    Unshare {
        #[arg(value_name = "PROJECT")]
        with: String,
    },
}

pub async fn storage(c: &ControllerClient, project: &str, cmd: &StorageCmd) -> Result<()> {
    use prism_controller_api::PresignRequest;
    match cmd {
        StorageCmd::Info => crate::print(&c.storage(project).await?),
        StorageCmd::Key => crate::print(&c.create_storage_key(project).await?),
        StorageCmd::Keys => crate::print(&c.storage_keys(project).await?),
        StorageCmd::Revoke { id } => Ok(c.revoke_storage_key(project, id).await?),
        StorageCmd::Url {
            key,
            put,
            bucket,
            expires,
        } => {
            let r = PresignRequest::of(key, *put, bucket.as_deref(), *expires);
            crate::print(&c.presign(project, &r).await?)
        }
        StorageCmd::Share { with } => Ok(c.share_storage(project, with).await?),
        StorageCmd::Unshare { with } => Ok(c.unshare_storage(project, with).await?),
    }
}

/// Change a live network booking: its tables (`--spec FILE`, JSON or TOML,
/// with the fields to replace: `route`, `rule`, `default_action`), its
/// forwarding mode (`--set forwarding=source`: a new module in its
/// hardware slot, loaded as `--set reconfigure=dark` or `fallback` says),
/// its tier (`--set tier=software`), its program (`--set
/// program=@prog.o`, an eBPF object from `clang -O2 -target bpf -c`;
/// `program=null` none) and its bandwidth; one generation of the booking
/// each (docs/customizing.md).
#[derive(Debug, Clone, clap::Args)]
pub struct EditArgs {
    /// The booking (its id or name).
    pub booking: String,
    #[arg(long)]
    pub spec: Option<PathBuf>,
    /// A spec field to replace, FIELD=VALUE (repeated).
    #[arg(long = "set", value_name = "FIELD=VALUE")]
    pub set: Vec<String>,
    /// The guaranteed rate, Mbit/s.
    #[arg(long)]
    pub bandwidth: Option<i64>,
    /// Refused unless the booking is still at this generation.
    #[arg(long)]
    pub generation: Option<i64>,
    /// Check the change and show what it would do (its modelled
    /// reconfiguration time); change nothing.
    #[arg(long)]
    pub dry_run: bool,
}

impl EditArgs {
    pub fn change(&self) -> Result<prism_controller_api::BookingChange> {
        let f = prism_controller_api::EditFlags {
            file: self.spec.as_deref(),
            set: &self.set,
            bandwidth_mbps: self.bandwidth,
            generation: self.generation,
            dry_run: self.dry_run,
        };
        prism_controller_api::BookingChange::from_flags(f).map_err(anyhow::Error::msg)
    }
}
