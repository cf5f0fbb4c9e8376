//! `prism controller serve` as the binary calls it.

use crate::api::serve_until_signalled;

/// What `prism controller serve` is given beyond its settings: the
/// database, where to listen, and how to speak.
#[derive(Debug, Clone)]
pub struct ServeOptions<'a> {
    pub db: &'a str,
    pub listen: &'a str,
    pub tls_cert: Option<&'a std::path::Path>,
    pub tls_key: Option<&'a std::path::Path>,
    pub tls_dir: &'a std::path::Path,
    pub plain_http: bool,
    /// The storage service, if it is served.
    pub storage: Option<StorageOptions<'a>>,
}

/// Where the storage service's S3 endpoint listens and keeps objects.
#[derive(Debug, Clone)]
pub struct StorageOptions<'a> {
    pub listen: &'a str,
    /// `file:DIR` (or a path), or `s3://BUCKET` (docs/storage.md).
    pub backend: &'a str,
    /// The master key its keys' secrets derive from (made if missing, 0600).
    pub key_file: &'a std::path::Path,
    /// Its URL as clients reach it, for signed URLs (default: the
    /// listener's address).
    pub endpoint: Option<&'a str>,
}

/// `prism controller serve`: the database opened with `settings` (the
/// lab CA in `o.tls_dir` certifying nodes, if there is one), the API
/// served as [`choose`] decides until SIGINT or SIGTERM; what it did, in
/// the log.
pub async fn serve(
    o: ServeOptions<'_>,
    mut settings: crate::Settings,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let (node_ca, certified) = crate::infra::transport::node_ca(o.tls_dir)?;
    settings.node_ca = node_ca;
    let storage = match &o.storage {
        Some(s) => Some(storage_listener(&o, s, &mut settings).await?),
        None => None,
    };
    let ctl = crate::Controller::open(o.db, settings).await?;
    let listener = tokio::net::TcpListener::bind(o.listen)
        .await
        .map_err(|e| format!("listening on {}: {e}", o.listen))?;
    let at = listener.local_addr()?;
    let (tls, how) =
        crate::infra::transport::choose(o.tls_cert.zip(o.tls_key), o.tls_dir, o.plain_http, at)?;
    eprintln!(
        "prism controller: serving {how} on {at} with {} ({:?}); {certified}",
        crate::redact(o.db),
        ctl.engine()
    );
    if let Some((listener, s_tls, backend)) = storage {
        let at = listener.local_addr()?;
        eprintln!("prism controller: storage (S3) on {at}, objects in {backend:?}");
        let router = ctl.storage_router().ok_or("no storage settings")?;
        let s_tls = s_tls.map(prism_http::CurrentTls::fixed);
        let stats = std::sync::Arc::new(prism_http::ServeStats::default());
        let limits = prism_http::Limits::default();
        tokio::spawn(prism_http::serve(router, listener, s_tls, limits, stats));
    }
    serve_until_signalled(ctl, listener, tls).await?;
    eprintln!("prism controller: stopped");
    Ok(())
}

/// `prism controller bootstrap`: the first administrator `admin` in the
/// database `db` (and a lab CA in `tls.0` for names `tls.1`, if given);
/// what was made, in words.
pub async fn bootstrap(
    db: &str,
    settings: crate::Settings,
    admin: &str,
    password: &str,
    tls: Option<(&std::path::Path, &[String])>,
) -> Result<String, Box<dyn std::error::Error + Send + Sync>> {
    let mut said = Vec::new();
    if let Some((dir, names)) = tls {
        said.push(crate::infra::transport::lab_ca(dir, names)?);
    }
    let ctl = crate::Controller::open(db, settings).await?;
    let u = ctl.bootstrap_admin(admin, password).await?;
    said.push(format!(
        "administrator `{}` created in {}",
        u.name,
        crate::redact(db)
    ));
    Ok(said.join("\n"))
}

/// The storage endpoint's listener, its TLS (as the API's: a
/// certificate, or plain HTTP on loopback or when said) and backend, its
/// settings (endpoint, master key) put in `settings`.
async fn storage_listener(
    o: &ServeOptions<'_>,
    s: &StorageOptions<'_>,
    settings: &mut crate::Settings,
) -> Result<StorageServed, Box<dyn std::error::Error + Send + Sync>> {
    let listener = tokio::net::TcpListener::bind(s.listen)
        .await
        .map_err(|e| format!("storage: listening on {}: {e}", s.listen))?;
    let at = listener.local_addr()?;
    let cert = o.tls_cert.zip(o.tls_key);
    let (tls, _) = crate::infra::transport::choose(cert, o.tls_dir, o.plain_http, at)
        .map_err(|e| format!("storage: {e}"))?;
    let backend = prism_storage::backend::open(s.backend).map_err(|e| format!("storage: {e}"))?;
    if let Some(dir) = s.key_file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let master = prism_storage::keys::MasterKey::load_or_create(s.key_file)
        .map_err(|e| format!("storage: the master key {}: {e}", s.key_file.display()))?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    // The lab's certificate when the endpoint is served with it.
    let lab_ca = (tls.is_some() && cert.is_none())
        .then(|| std::fs::read_to_string(prism_http::LabCa::in_dir(o.tls_dir).0).ok())
        .flatten();
    settings.storage = Some(crate::app::context::StorageSettings {
        endpoint: (s.endpoint.map(str::to_string)).unwrap_or_else(|| format!("{scheme}://{at}")),
        master,
        backend: backend.clone(),
        ca_pem: lab_ca,
    });
    Ok((listener, tls, backend))
}

/// The storage endpoint's listener, TLS and backend.
type StorageServed = (
    tokio::net::TcpListener,
    Option<prism_http::ServerTls>,
    std::sync::Arc<dyn prism_storage::ObjectStore>,
);
