//! The controller's database: an SQLite file by default (nothing to set
//! up), PostgreSQL for production, through sqlx's `Any` driver so the same
//! queries serve both. Parameters are numbered (`$1`, `$2`, …), which both
//! engines read.
//! Migrations are numbered files in `migrations/`, compiled in.

use crate::error::{Error, Result};
use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::migrate::{Migration, MigrationType, Migrator};
use std::borrow::Cow;
use std::os::unix::fs::OpenOptionsExt;

mod private;

pub type Pool = sqlx::AnyPool;
pub type Tx = sqlx::Transaction<'static, sqlx::Any>;

/// The migrations, oldest first: (version, description, SQL).
const MIGRATIONS: &[(i64, &str, &str)] = &[
    (
        1,
        "initial",
        include_str!("../../migrations/0001_initial.sql"),
    ),
    (
        2,
        "node keys",
        include_str!("../../migrations/0002_node_keys.sql"),
    ),
    (3, "wan", include_str!("../../migrations/0003_wan.sql")),
    (
        4,
        "gateway",
        include_str!("../../migrations/0004_gateway.sql"),
    ),
    (
        5,
        "public macs",
        include_str!("../../migrations/0005_public_macs.sql"),
    ),
    (
        6,
        "leader",
        include_str!("../../migrations/0006_leader.sql"),
    ),
    (
        7,
        "login strikes",
        include_str!("../../migrations/0007_login_strikes.sql"),
    ),
    (
        8,
        "node certificates",
        include_str!("../../migrations/0008_node_certificates.sql"),
    ),
    (
        9,
        "active booking indexes",
        include_str!("../../migrations/0009_active_booking_indexes.sql"),
    ),
    (
        10,
        "unique live names",
        include_str!("../../migrations/0010_unique_live_names.sql"),
    ),
    (
        11,
        "audit note",
        include_str!("../../migrations/0011_audit_note.sql"),
    ),
    (
        12,
        "node revoked",
        include_str!("../../migrations/0012_node_revoked.sql"),
    ),
    (
        13,
        "operations started",
        include_str!("../../migrations/0013_operations_started.sql"),
    ),
    (
        14,
        "pool releases",
        include_str!("../../migrations/0014_pool_releases.sql"),
    ),
    (
        15,
        "node changes",
        include_str!("../../migrations/0015_node_changes.sql"),
    ),
    (
        16,
        "controller certificates",
        include_str!("../../migrations/0016_controller_certificates.sql"),
    ),
    (
        17,
        "processing",
        include_str!("../../migrations/0017_processing.sql"),
    ),
    (
        18,
        "shared VLANs",
        include_str!("../../migrations/0018_shared_vlans.sql"),
    ),
    (
        19,
        "storage",
        include_str!("../../migrations/0019_storage.sql"),
    ),
    (
        20,
        "images",
        include_str!("../../migrations/0020_images.sql"),
    ),
    (
        21,
        "booking changes",
        include_str!("../../migrations/0021_booking_changes.sql"),
    ),
    (
        22,
        "change reconfiguration",
        include_str!("../../migrations/0022_change_reconfiguration.sql"),
    ),
];

/// Which engine a URL names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Sqlite,
    Postgres,
}

/// A URL for `target`: a `sqlite:`/`postgres:` URL as it is, or a file
/// path, which becomes an SQLite database created if missing.
pub fn url_for(target: &str) -> (Engine, String) {
    if target.starts_with("postgres://") || target.starts_with("postgresql://") {
        (Engine::Postgres, target.to_string())
    } else if target.starts_with("sqlite:") {
        (Engine::Sqlite, target.to_string())
    } else {
        (Engine::Sqlite, format!("sqlite://{target}?mode=rwc"))
    }
}

/// An SQLite file's lock (`FILE.lock`, held while a controller has it
/// open): SQLite serves one controller process; a second one on the same
/// file is refused clearly instead of racing the first (PostgreSQL is the
/// database for replicas). Released when the process ends, however.
#[derive(Debug)]
pub struct SqliteLock(#[allow(dead_code)] std::fs::File);

/// Takes `db`'s lock, or says which file is in use.
pub fn lock_sqlite(db: &str) -> Result<SqliteLock> {
    let path = format!("{db}.lock");
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(&path)
        .map_err(|e| Error::internal(format!("{path}: {e}")))?;
    match f.try_lock() {
        Ok(()) => Ok(SqliteLock(f)),
        Err(std::fs::TryLockError::WouldBlock) => {
            let why = "SQLite serves one process; stop the other, or use PostgreSQL for replicas";
            Err(Error::conflict(format!(
                "{db} is in use by another controller process (its lock {path} is held): {why}"
            )))
        }
        Err(std::fs::TryLockError::Error(e)) => Err(Error::internal(format!("{path}: {e}"))),
    }
}

/// Opens the database and brings its schema to the latest version. A
/// database given as a file path gets its directory made if missing, and
/// an SQLite file is made private (`private::prepare`).
pub async fn open(
    target: &str,
    connections: u32,
    allow_readable: bool,
) -> Result<(Engine, Pool, Option<SqliteLock>)> {
    install_default_drivers();
    let (engine, url) = url_for(target);
    let is_path = !target.contains("://") && !target.starts_with("sqlite:");
    if is_path
        && let Some(d) = std::path::Path::new(target)
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
    {
        private::create_dir(d)?;
    }
    // Taken before the file is opened: a second process is refused before
    // it touches the database.
    let lock = match (engine, is_path) {
        (Engine::Sqlite, true) => Some(lock_sqlite(target)?),
        _ => None,
    };
    if let Some(file) = private::sqlite_file(target) {
        private::prepare(&file, allow_readable)?;
    }
    let pool = connect(engine, &url, target, connections).await?;
    migrator()
        .run(&pool)
        .await
        .map_err(|e| Error::internal(format!("migrating the database {}: {e}", redact(target))))?;
    Ok((engine, pool, lock))
}

/// The pool: one connection for SQLite (in WAL mode), `connections` (at
/// least one) for PostgreSQL.
async fn connect(engine: Engine, url: &str, target: &str, connections: u32) -> Result<Pool> {
    // One SQLite connection: SQLite serializes writers anyway, and one
    // connection never meets SQLITE_BUSY between its own transactions.
    let max = match engine {
        Engine::Sqlite => 1,
        Engine::Postgres => connections.max(1),
    };
    AnyPoolOptions::new()
        .max_connections(max)
        // No ping before each use: a round trip more per transaction. A
        // connection broken meanwhile (the server restarted) fails its
        // next statement, is dropped, and the pool opens a new one.
        .test_before_acquire(false)
        // A connection returned still inside a transaction is closed, not
        // reused: SQLite rolls a transaction back by itself on some
        // failures (a full disk), after which sqlx's own rollback fails
        // and the connection would refuse every later `BEGIN`.
        .after_release(|conn, _| {
            Box::pin(async move {
                use sqlx::Connection;
                Ok(!conn.is_in_transaction())
            })
        })
        .after_connect(move |conn, _| {
            Box::pin(async move {
                if engine == Engine::Sqlite {
                    // WAL: readers do not wait for the writer. NORMAL
                    // syncs at checkpoints, not every commit: a power cut
                    // may lose the last commits, never consistency (the
                    // SQLite documentation's advice for WAL).
                    sqlx::query("PRAGMA journal_mode = WAL")
                        .execute(&mut *conn)
                        .await?;
                    sqlx::query("PRAGMA synchronous = NORMAL")
                        .execute(&mut *conn)
                        .await?;
                }
                Ok(())
            })
        })
        .connect(url)
        .await
        .map_err(|e| Error::internal(format!("cannot open the database {}: {e}", redact(target))))
}

fn migrator() -> Migrator {
    let migrations = MIGRATIONS
        .iter()
        .map(|(v, d, sql)| {
            Migration::new(
                *v,
                Cow::Borrowed(*d),
                MigrationType::Simple,
                Cow::Borrowed(*sql),
                false,
            )
        })
        .collect::<Vec<_>>();
    Migrator {
        migrations: Cow::Owned(migrations),
        ..Migrator::DEFAULT
    }
}

/// `target` without a password, for messages.
pub fn redact(target: &str) -> String {
    match (target.find("://"), target.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let userinfo = &target[s + 3..at];
            let user = userinfo.split(':').next().unwrap_or("");
            format!("{}{user}:***{}", &target[..s + 3], &target[at..])
        }
        _ => target.to_string(),
    }
}

/// Starts a transaction, safe to cancel (every transaction starts here).
///
/// sqlx 0.8.6's `Pool::begin` is not: on PostgreSQL, cancelled after its
/// `BEGIN` is sent and before the answer (an aborted task, a client that
/// hung up, a timeout), it returns the connection to the pool inside a
/// transaction that nothing ends (launchbadge/sqlx#2054, fixed for SQLite
/// only; transact-rs/sqlx#4393). The next borrower's statements then run
/// in it, uncommitted, and hold their row locks for good: a replica's
/// claim of the background lease did, and no replica could take the lease
/// again (the replicas test, one run in 26 under load). Begun in a task of
/// its own, a `BEGIN` is always seen through; a caller gone meanwhile
/// drops the transaction, which rolls it back before the connection is
/// used again.
pub async fn begin(pool: &Pool) -> Result<Tx> {
    begin_locking(pool, &[]).await
}

/// Starts a transaction that first takes locks `locks` (in order), in the
/// same round trip as its `BEGIN` (one simple query of several
/// statements: a booking's transaction costs one round trip less). On
/// PostgreSQL a lock is a transaction-level advisory lock on the name's
/// 64-bit hash (no row written: no WAL, no dead tuples); on SQLite a
/// lock row's write (the write lock).
async fn begin_locking(pool: &Pool, locks: &[&str]) -> Result<Tx> {
    let pool = pool.clone();
    let postgres = pool
        .connect_options()
        .database_url
        .scheme()
        .starts_with("postgres");
    let mut begin = String::from("BEGIN");
    for name in locks {
        // The names are the controller's own (`project:` and a UUID it
        // made, `bookings`); quoted all the same.
        let name = name.replace('\'', "''");
        begin.push_str(&match postgres {
            true => format!("; SELECT pg_advisory_xact_lock(hashtextextended('{name}', 0))"),
            false => format!(
                "; INSERT INTO locks (name, seq) VALUES ('{name}', 1) \
                 ON CONFLICT (name) DO UPDATE SET seq = locks.seq + 1"
            ),
        });
    }
    tokio::spawn(async move {
        match begin.len() {
            5 => pool.begin().await,
            _ => pool.begin_with(begin).await,
        }
    })
    .await
    .map_err(|e| Error::internal(format!("starting a transaction: {e}")))?
    .map_err(Into::into)
}

/// Starts a transaction that frees shared capacity across projects (the
/// reapers): it first takes the `bookings` lock.
pub async fn booking_tx(pool: &Pool) -> Result<Tx> {
    begin_locking(pool, &["bookings"]).await
}

/// Starts a transaction that books or frees capacity of project
/// `project_id`. It first takes the project's lock (quotas are a
/// project's), then, when the change takes or frees `shared` capacity (a
/// node's, the VLAN pool, tunnel addresses, public addresses), the
/// `bookings` lock. So one project's bookings run one at a time, and
/// bookings of shared capacity one at a time across projects, while
/// different projects' bookings of nothing shared (a registered resource
/// type with no node) run side by side. Always project, then shared: no
/// two transactions wait on each other in a circle (the reapers take
/// `bookings` alone, and only free).
pub async fn project_tx(pool: &Pool, project_id: &str, shared: bool) -> Result<Tx> {
    let project = format!("project:{project_id}");
    match shared {
        true => begin_locking(pool, &[&project, "bookings"]).await,
        false => begin_locking(pool, &[&project]).await,
    }
}

/// Takes the shared lock (`bookings`) in a project's transaction
/// begun without it, once what it changes is known to take or free
/// shared capacity: still project, then shared.
pub(crate) async fn take_shared(tx: &mut Tx) -> Result<()> {
    take_lock(tx, "bookings").await
}

/// Takes lock `name` until the transaction ends: an advisory lock on
/// PostgreSQL, a lock row's write (made at its first use) on SQLite (the
/// write lock).
pub(crate) async fn take_lock(tx: &mut Tx, name: &str) -> Result<()> {
    let sql = match tx.backend_name() {
        // Its own value is `void`, which the `Any` driver does not read.
        "PostgreSQL" => {
            "SELECT 1 FROM (SELECT pg_advisory_xact_lock(hashtextextended($1, 0))) AS l"
        }
        _ => {
            "INSERT INTO locks (name, seq) VALUES ($1, 1) \
             ON CONFLICT (name) DO UPDATE SET seq = locks.seq + 1"
        }
    };
    sqlx::query(sql).bind(name).execute(&mut **tx).await?;
    Ok(())
}

#[cfg(test)]
mod pool_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_paths_and_redaction() {
        assert_eq!(
            url_for("/var/lib/p.db").1,
            "sqlite:///var/lib/p.db?mode=rwc"
        );
        assert_eq!(url_for("postgres://u:p@h/db").0, Engine::Postgres);
        assert_eq!(redact("postgres://u:secret@h/db"), "postgres://u:***@h/db");
        assert_eq!(redact("/x.db"), "/x.db");
    }
}
