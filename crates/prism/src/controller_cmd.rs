//! `prism controller`: the control and management plane's service, and
//! the bootstrap of its first administrator.

use anyhow::Result;
use prism_controller::{PasswordCost, Settings};
use prism_node_api::read_secret_file;
use std::path::PathBuf;

pub const DEFAULT_DB: &str = "/var/lib/prism/controller.db";
/// Where `bootstrap` makes the lab CA and `serve` looks for it.
pub const DEFAULT_TLS_DIR: &str = "/var/lib/prism/tls";

/// How `serve` speaks: TLS from given files or the lab CA's, or plain
/// HTTP only where that is safe or said.
#[derive(clap::Args, Debug)]
pub struct Transport {
    /// The server's certificate chain (PEM, leaf first).
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// Its private key (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// The lab CA's directory (`bootstrap --tls-name`): its controller
    /// certificate is served when no --tls-cert is given.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_TLS_DIR)]
    tls_dir: PathBuf,
    /// Serve plain HTTP on a non-loopback address: tokens, passwords and
    /// the nodes' credential cross the network in clear text.
    #[arg(long, conflicts_with = "tls_cert")]
    plain_http: bool,
}

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// An SQLite file (created if missing) or a `postgres://` URL.
    #[arg(long, default_value = DEFAULT_DB)]
    db: String,
    #[arg(long, default_value = crate::ctl_controller::DEFAULT_CONTROLLER)]
    listen: String,
    /// The control plane's credential, which the nodes accept
    /// (`prism node --api-credential-file`).
    #[arg(long, value_name = "FILE")]
    node_credential_file: Option<PathBuf>,
    /// Seconds an allocation is held before it must be provisioned.
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(i64).range(1..=86_400))]
    hold: i64,
    /// Argon2id's cost for passwords hashed from now on.
    #[arg(long, value_name = "KIB,PASSES,LANES", default_value_t = PasswordCost::default())]
    argon2: PasswordCost,
    /// Life of the certificates the lab CA issues nodes (renewed after two
    /// thirds of it; a revoked node key ends renewal).
    #[arg(long, default_value_t = 24.0)]
    node_cert_hours: f64,
    /// Connections this replica keeps to PostgreSQL (R replicas: ~8/R each, docs/deploy.md).
    #[arg(long, default_value_t = prism_controller::DB_CONNECTIONS, value_parser = clap::value_parser!(u32).range(1..=1000))]
    db_connections: u32,
    /// Open an SQLite database file that other users may read (it holds
    /// password hashes and token digests: refused otherwise).
    #[arg(long)]
    allow_readable_db: bool,
    #[command(flatten)]
    transport: Transport,
    #[command(flatten)]
    storage: StorageArgs,
}

/// The storage service (docs/storage.md): an S3 endpoint beside the API.
#[derive(clap::Args, Debug)]
pub struct StorageArgs {
    /// Serve the storage service's S3 endpoint here (TLS as the API).
    #[arg(long, value_name = "ADDR")]
    storage_listen: Option<String>,
    /// Where objects are kept: a directory (`file:DIR`), or `s3://BUCKET`
    /// with the endpoint and keys in AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
    /// AWS_SECRET_ACCESS_KEY (a Garage cluster, docs/storage.md).
    #[arg(
        long,
        value_name = "LOCATION",
        default_value = "/var/lib/prism/storage"
    )]
    storage: String,
    /// The master key storage keys' secrets derive from (made if missing, 0600).
    #[arg(
        long,
        value_name = "FILE",
        default_value = "/var/lib/prism/storage.key"
    )]
    storage_key_file: PathBuf,
    /// The endpoint's URL as clients reach it (default: its address).
    #[arg(long, value_name = "URL")]
    storage_endpoint: Option<String>,
}

#[derive(clap::Subcommand, Debug)]
pub enum ControllerCmd {
    /// Serve the controller API until SIGINT or SIGTERM.
    Serve(ServeArgs),
    /// Create the first administrator (password from stdin or
    /// $PRISM_PASSWORD); refused once one exists.
    Bootstrap {
        #[arg(long, default_value = DEFAULT_DB)]
        db: String,
        #[arg(long, default_value = "admin")]
        admin: String,
        /// Argon2id's cost for passwords hashed from now on.
        #[arg(long, value_name = "KIB,PASSES,LANES", default_value_t = PasswordCost::default())]
        argon2: PasswordCost,
        /// Also make a lab CA and a certificate for the controller under
        /// these names (host names or addresses; repeat), in --tls-dir.
        #[arg(long, value_name = "NAME")]
        tls_name: Vec<String>,
        #[arg(long, value_name = "DIR", default_value = DEFAULT_TLS_DIR)]
        tls_dir: PathBuf,
        /// Open an SQLite database file that other users may read.
        #[arg(long)]
        allow_readable_db: bool,
    },
}

pub fn run(cmd: &ControllerCmd) -> Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    rt.block_on(async {
        match cmd {
            ControllerCmd::Bootstrap {
                db,
                admin,
                argon2,
                tls_name,
                tls_dir,
                allow_readable_db,
            } => {
                let password = crate::ctl_controller::read_password()?;
                let settings = Settings {
                    password_cost: *argon2,
                    allow_readable_db: *allow_readable_db,
                    ..Settings::default()
                };
                let tls =
                    (!tls_name.is_empty()).then_some((tls_dir.as_path(), tls_name.as_slice()));
                let said = prism_controller::bootstrap(db, settings, admin, &password, tls).await;
                println!("{}", said.map_err(|e| anyhow::anyhow!("{e}"))?);
                Ok(())
            }
            ControllerCmd::Serve(args) => serve(args).await,
        }
    })
}

/// `prism controller serve`.
async fn serve(args: &ServeArgs) -> Result<()> {
    let t = &args.transport;
    let node_secret = args.node_credential_file.as_deref().map(read_secret_file);
    let settings = Settings {
        node_secret: node_secret.transpose().map_err(anyhow::Error::msg)?,
        hold_s: args.hold,
        password_cost: args.argon2,
        node_cert_life_ms: (args.node_cert_hours * 3_600_000.0) as i64,
        db_connections: args.db_connections,
        allow_readable_db: args.allow_readable_db,
        ..Settings::default()
    };
    let o = prism_controller::ServeOptions {
        db: &args.db,
        listen: &args.listen,
        tls_cert: t.tls_cert.as_deref(),
        tls_key: t.tls_key.as_deref(),
        tls_dir: &t.tls_dir,
        plain_http: t.plain_http,
        storage: (args.storage.storage_listen.as_deref()).map(|listen| {
            prism_controller::StorageOptions {
                listen,
                backend: &args.storage.storage,
                key_file: &args.storage.storage_key_file,
                endpoint: args.storage.storage_endpoint.as_deref(),
            }
        }),
    };
    prism_controller::serve(o, settings)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))
}
