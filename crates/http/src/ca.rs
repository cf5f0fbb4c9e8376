//! Certificates made here (the `server` feature): an end-entity
//! certificate's parameters with a random serial, and the lab CA
//! `prism controller bootstrap` makes for a testbed without one.

use crate::tls::{TlsError, certs_of, fingerprint};
use std::path::{Path, PathBuf};

/// An end-entity certificate's parameters: its `names`, common name
/// `cn`, for `purpose` alone, valid from `from` to `until`, a random
/// serial number.
pub(crate) fn leaf_params(
    names: Vec<String>,
    cn: &str,
    purpose: rcgen::ExtendedKeyUsagePurpose,
    from: time::OffsetDateTime,
    until: time::OffsetDateTime,
) -> Result<rcgen::CertificateParams, rcgen::Error> {
    let mut p = rcgen::CertificateParams::new(names)?;
    p.distinguished_name.push(rcgen::DnType::CommonName, cn);
    p.key_usages = vec![rcgen::KeyUsagePurpose::DigitalSignature];
    p.extended_key_usages = vec![purpose];
    p.not_before = from;
    p.not_after = until;
    p.serial_number = Some(random_serial());
    Ok(p)
}

fn random_serial() -> rcgen::SerialNumber {
    use ring::rand::SecureRandom;
    let mut b = [0u8; 16];
    // Without randomness from the system nothing here can be trusted.
    ring::rand::SystemRandom::new()
        .fill(&mut b)
        .expect("the system's random source");
    b[0] &= 0x7f; // a positive INTEGER
    rcgen::SerialNumber::from(b.to_vec())
}

/// The lab CA's files in a directory: the CA's certificate and key, and
/// the controller's certificate (signed by it) and key.
#[derive(Debug, Clone)]
pub struct LabCa {
    pub ca_cert: PathBuf,
    pub ca_key: PathBuf,
    pub server_cert: PathBuf,
    pub server_key: PathBuf,
    /// The CA certificate's SHA-256 fingerprint.
    pub fingerprint: String,
}

impl LabCa {
    pub fn in_dir(dir: &Path) -> (PathBuf, PathBuf, PathBuf, PathBuf) {
        (
            dir.join("ca.pem"),
            dir.join("ca.key"),
            dir.join("controller.pem"),
            dir.join("controller.key"),
        )
    }

    /// The lab CA in `dir` if it has one.
    pub fn open(dir: &Path) -> Result<Option<Self>, TlsError> {
        let (ca_cert, ca_key, server_cert, server_key) = Self::in_dir(dir);
        if !ca_cert.exists() {
            return Ok(None);
        }
        let fingerprint = fingerprint(certs_of(&ca_cert)?[0].as_ref());
        Ok(Some(Self {
            ca_cert,
            ca_key,
            server_cert,
            server_key,
            fingerprint,
        }))
    }

    /// Makes a CA and a server certificate for `names` (host names or
    /// addresses) valid `days` days, in `dir` (created 0700; keys 0600).
    /// Refuses to replace a CA already there: its certificate is what
    /// every client trusts.
    pub fn create(dir: &Path, names: &[String], days: i64) -> Result<Self, TlsError> {
        use rcgen::{
            BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
            KeyUsagePurpose,
        };
        let (ca_cert, ca_key, server_cert, server_key) = Self::in_dir(dir);
        if ca_cert.exists() {
            return Err(TlsError::Io {
                path: ca_cert.display().to_string(),
                source: std::io::Error::new(
                    std::io::ErrorKind::AlreadyExists,
                    "a CA is already there (remove the directory to make a new one)",
                ),
            });
        }
        let now = time::OffsetDateTime::now_utc();
        let ca_pair = KeyPair::generate()?;
        let mut ca = CertificateParams::new(Vec::<String>::new())?;
        ca.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
        // A name of its own: two lab CAs never pass for each other.
        let id = &fingerprint(ca_pair.public_key_raw())[..11];
        ca.distinguished_name
            .push(DnType::CommonName, format!("Prism lab CA {id}"));
        ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        ca.not_before = now - time::Duration::hours(1);
        ca.not_after = now + time::Duration::days(days.max(1) * 2);
        let ca_made = ca.self_signed(&ca_pair)?;

        let leaf = leaf_params(
            names.to_vec(),
            names.first().map_or("prism", |n| n.as_str()),
            ExtendedKeyUsagePurpose::ServerAuth,
            now - time::Duration::hours(1),
            now + time::Duration::days(days.max(1)),
        )?;
        let leaf_pair = KeyPair::generate()?;
        let leaf_made = leaf.signed_by(&leaf_pair, &ca_made, &ca_pair)?;

        let io = |path: &Path| {
            let path = path.display().to_string();
            move |source| TlsError::Io { path, source }
        };
        create_private_dir(dir).map_err(io(dir))?;
        write_file(&ca_cert, ca_made.pem().as_bytes(), 0o644).map_err(io(&ca_cert))?;
        write_file(&ca_key, ca_pair.serialize_pem().as_bytes(), 0o600).map_err(io(&ca_key))?;
        let chain = leaf_made.pem() + &ca_made.pem();
        write_file(&server_cert, chain.as_bytes(), 0o644).map_err(io(&server_cert))?;
        write_file(&server_key, leaf_pair.serialize_pem().as_bytes(), 0o600)
            .map_err(io(&server_key))?;
        Ok(Self {
            ca_cert,
            ca_key,
            server_cert,
            server_key,
            fingerprint: fingerprint(ca_made.der()),
        })
    }
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// Writes `bytes` to a new file with `mode` from its creation (a key is
/// never readable by others, not even for a moment).
fn write_file(path: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}
