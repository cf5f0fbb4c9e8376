//! `prism controller`: the control and management plane's service, and
//! the bootstrap of its first administrator.

use anyhow::{Context, Result, bail};
use prism_controller::{Controller, PasswordCost, Settings};
use std::path::PathBuf;

pub const DEFAULT_DB: &str = "/var/lib/prism/controller.db";

#[derive(clap::Subcommand, Debug)]
pub enum ControllerCmd {
    /// Serve the controller API until SIGINT or SIGTERM.
    Serve {
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
        #[arg(long, default_value_t = 600)]
        hold: i64,
        /// Argon2id's cost for passwords hashed from now on.
        #[arg(long, value_name = "KIB,PASSES,LANES", default_value_t = PasswordCost::default())]
        argon2: PasswordCost,
    },
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
    },
}

pub fn run(cmd: &ControllerCmd) -> Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    rt.block_on(async {
        match cmd {
            ControllerCmd::Bootstrap { db, admin, argon2 } => {
                let password = crate::ctl_controller::read_password()?;
                let settings = Settings {
                    password_cost: *argon2,
                    ..Settings::default()
                };
                let ctl = Controller::open(db, settings).await?;
                let u = ctl.bootstrap_admin(admin, &password).await?;
                println!(
                    "administrator `{}` created in {}",
                    u.name,
                    prism_controller::redact(db)
                );
                Ok(())
            }
            ControllerCmd::Serve {
                db,
                listen,
                node_credential_file,
                hold,
                argon2,
            } => {
                let node_secret = match node_credential_file {
                    Some(f) => Some(
                        std::fs::read_to_string(f)
                            .with_context(|| format!("credential file {}", f.display()))?
                            .trim()
                            .to_string(),
                    ),
                    None => None,
                };
                if !(1..=86_400).contains(hold) {
                    bail!("--hold: 1 to 86400 seconds");
                }
                let settings = Settings {
                    node_secret,
                    hold_s: *hold,
                    password_cost: *argon2,
                    ..Settings::default()
                };
                let ctl = Controller::open(db, settings).await?;
                let listener = tokio::net::TcpListener::bind(listen)
                    .await
                    .with_context(|| format!("listening on {listen}"))?;
                eprintln!(
                    "prism controller: serving on {} with {} ({:?})",
                    listener.local_addr()?,
                    prism_controller::redact(db),
                    ctl.engine()
                );
                prism_controller::api::serve_until_signalled(ctl, listener).await?;
                eprintln!("prism controller: stopped");
                Ok(())
            }
        }
    })
}
