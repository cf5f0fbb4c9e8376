//! What a replica holds of its client certificate between calls to nodes
//! (`crate::app::client_certs` keeps it current).

use std::time::Instant;

/// What a replica knows of its certificate: the serial it recorded, when
/// it last asked about it; and the revocation list it last signed, for the
/// revocations it lists (signatures differ each time: a node compares).
#[derive(Debug, Default)]
pub(crate) struct ClientCertState {
    pub(crate) recorded: Option<String>,
    pub(crate) checked: Option<Instant>,
    pub(crate) crl: Option<(Vec<(String, i64)>, String)>,
}
