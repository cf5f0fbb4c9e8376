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
