//! Every status the API answers in a test, checked against the OpenAPI
//! document: the harness's server records each (method, route, status) it
//! serves, and the harness, when dropped, fails the test on any status the
//! document does not list for that operation. So every refusal any test
//! provokes is a documented one.

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

/// (method, route as the document names it, status).
pub type Seen = Arc<Mutex<BTreeSet<(String, String, u16)>>>;

/// The recording middleware (after routing: the route is known).
pub async fn record(State(seen): State<Seen>, req: Request, next: Next) -> Response {
    let method = req.method().as_str().to_ascii_lowercase();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|m| m.as_str().to_string());
    let resp = next.run(req).await;
    if let Some(route) = route {
        let status = resp.status().as_u16();
        seen.lock().unwrap().insert((method, route, status));
    }
    resp
}

/// The statuses seen that the document does not list for their
/// operation (operations the document does not have are not the API's:
/// the portal's pages, a method a path does not take).
pub fn undocumented(seen: &BTreeSet<(String, String, u16)>) -> Vec<String> {
    let doc: serde_json::Value =
        serde_json::from_str(&prism_controller::api::spec_json()).expect("the spec is JSON");
    seen.iter()
        .filter_map(|(method, route, status)| {
            let op = doc["paths"].get(route)?.get(method)?;
            let listed = op["responses"].get(status.to_string()).is_some();
            (!listed).then(|| format!("{} {route}: {status}", method.to_uppercase()))
        })
        .collect()
}
