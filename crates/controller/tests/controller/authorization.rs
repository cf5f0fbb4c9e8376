//! The authorization matrix: every endpoint, called by anonymous, a member
//! of another project, a viewer, a member who did not book the resource,
//! the project's owner (who booked it) and an administrator. Another
//! project's resources answer 404 (invisible), a missing right 403.

use crate::common::{Harness, network};
use prism_controller::prelude::*;
use prism_controller::{ApiKeyRequest, ControllerClient, MemberRequest, Operation, Role, STANDARD};
use serde_json::{Value, json};

#[derive(Clone, Copy, Debug)]
enum Prep {
    Nothing,
    /// A provisioned booking of the owner's: `{b}`.
    Booking,
    /// An allocated (not provisioned) booking of the owner's: `{b}`.
    Held,
    /// An API key of the owner's: `{k}`.
    Key,
    /// A new user, a viewer of the project: `{u}`.
    Member,
    /// A node key: `{nk}`.
    NodeKey,
    /// An ssh key of the owner's: `{sk}`.
    SshKey,
    /// A shared VLAN of the owner's (`{b}`).
    SharedVlan,
    /// The same, project `q` invited to it (whose owner is the caller
    /// from another project).
    SharedWithQ,
    /// A shared VLAN of project `q`'s (`{b}`) that invited project `p`.
    InvitedVlan,
    /// A storage key of the owner's: `{stk}`.
    StorageKey,
    /// The owner's bucket shared with project `q`.
    StorageShared,
    /// A processing node of the owner's on a shared VLAN (`{b}` in the
    /// body).
    Processing,
    /// An image of the owner's saved from one: `{i}`.
    Image,
    /// The same, shared with project `q`.
    ImageShared,
    /// A provisioned booking of the owner's with NAT (`{b}`), on the node
    /// with a gateway, and a public address leased for its host 10.0.0.5
    /// (`{a}`).
    Public,
}

struct Case {
    method: &'static str,
    path: &'static str,
    body: Option<Value>,
    prep: Prep,
    /// anonymous, other project, viewer, member, owner, admin, and an
    /// API key of the owner's without the operation.
    expect: [u16; 7],
}

fn cases() -> Vec<Case> {
    use Prep::*;
    let c = |method, path, body, prep, expect| Case {
        method,
        path,
        body,
        prep,
        expect,
    };
    let book = json!({"name": "{n}", "spec": network("x", "software", 1, false).spec, "bandwidth_mbps": 1});
    let level = serde_json::to_value(prism_controller::ServiceLevel::standard()).unwrap();
    let heartbeat = json!({"name": "{n}", "address": "127.0.0.1:1", "boot_id": "b",
        "info": {"device": "d", "ports": [], "software_interfaces": [], "io": "packet",
                 "workers": 1, "hardware_slots": {"total": 0, "free": 0}}});
    vec![
        c(
            "GET",
            "/v1/whoami",
            None,
            Nothing,
            [401, 200, 200, 200, 200, 200, 200],
        ),
        c(
            "GET",
            "/v1/service-levels",
            None,
            Nothing,
            [401, 200, 200, 200, 200, 200, 200],
        ),
        c(
            "GET",
            "/v1/projects",
            None,
            Nothing,
            [401, 200, 200, 200, 200, 200, 200],
        ),
        c(
            "GET",
            "/v1/resource-types",
            None,
            Nothing,
            [401, 200, 200, 200, 200, 200, 200],
        ),
        c(
            "GET",
            "/v1/users",
            None,
            Nothing,
            [401, 403, 403, 403, 403, 200, 403],
        ),
        c(
            "POST",
            "/v1/users",
            Some(json!({"name": "{n}", "password": "long enough password"})),
            Nothing,
            [401, 403, 403, 403, 403, 201, 403],
        ),
        c(
            "PUT",
            "/v1/service-levels/standard",
            Some(level),
            Nothing,
            [401, 403, 403, 403, 403, 200, 403],
        ),
        c(
            "POST",
            "/v1/projects",
            Some(json!({"name": "{n}", "service_level": "standard", "owner": "owner"})),
            Nothing,
            [401, 403, 403, 403, 403, 201, 403],
        ),
        c(
            "GET",
            "/v1/nodes",
            None,
            Nothing,
            [401, 403, 403, 403, 403, 200, 403],
        ),
        c(
            "POST",
            "/v1/nodes",
            Some(json!({"name": "{n}", "address": "127.0.0.1:1"})),
            Nothing,
            [401, 403, 403, 403, 403, 502, 403],
        ),
        c(
            "GET",
            "/v1/node-keys",
            None,
            Nothing,
            [401, 403, 403, 403, 403, 200, 403],
        ),
        c(
            "POST",
            "/v1/node-keys",
            Some(json!({"node": "{n}"})),
            Nothing,
            [401, 403, 403, 403, 403, 201, 403],
        ),
        c(
            "GET",
            "/v1/ssh-keys",
            None,
            Nothing,
            [401, 200, 200, 200, 200, 200, 403],
        ),
        c(
            "POST",
            "/v1/ssh-keys",
            Some(json!({"name": "{n}", "public_key": crate::processing::KEY})),
            Nothing,
            [401, 201, 201, 201, 201, 201, 403],
        ),
        c(
            "DELETE",
            "/v1/ssh-keys/{sk}",
            None,
            SshKey,
            [401, 404, 404, 404, 204, 404, 403],
        ),
        c(
            "DELETE",
            "/v1/node-keys/{nk}",
            None,
            NodeKey,
            [401, 403, 403, 403, 403, 204, 403],
        ),
        c(
            "GET",
            "/v1/controller-certificates",
            None,
            Nothing,
            [401, 403, 403, 403, 403, 200, 403],
        ),
        // No CA here, so no certificate of that serial.
        c(
            "DELETE",
            "/v1/controller-certificates/00",
            None,
            Nothing,
            [401, 403, 403, 403, 403, 404, 403],
        ),
        // A user's token, an administrator's included, is not a node key.
        c(
            "POST",
            "/v1/nodes/heartbeat",
            Some(heartbeat),
            Nothing,
            [401, 401, 401, 401, 401, 401, 401],
        ),
        c(
            "POST",
            "/v1/resource-types",
            Some(
                json!({"name": "{n}", "description": "d", "schema": {"type": "object"}, "operations": ["get", "release"]}),
            ),
            Nothing,
            [401, 403, 403, 403, 403, 201, 403],
        ),
        c(
            "GET",
            "/v1/audit",
            None,
            Nothing,
            [401, 403, 403, 403, 403, 200, 403],
        ),
        c(
            "GET",
            "/v1/projects/p",
            None,
            Nothing,
            [401, 404, 200, 200, 200, 200, 403],
        ),
        c(
            "GET",
            "/v1/projects/p/members",
            None,
            Nothing,
            [401, 404, 200, 200, 200, 200, 403],
        ),
        c(
            "PUT",
            "/v1/projects/p/members/{u}",
            Some(json!({"role": "member"})),
            Member,
            [401, 404, 403, 403, 200, 200, 403],
        ),
        c(
            "DELETE",
            "/v1/projects/p/members/{u}",
            None,
            Member,
            [401, 404, 403, 403, 204, 204, 403],
        ),
        c(
            "GET",
            "/v1/projects/p/api-keys",
            None,
            Nothing,
            [401, 404, 403, 200, 200, 200, 403],
        ),
        c(
            "POST",
            "/v1/projects/p/api-keys",
            Some(json!({"name": "k", "operations": ["bookings.read"]})),
            Nothing,
            [401, 404, 403, 201, 201, 201, 403],
        ),
        c(
            "DELETE",
            "/v1/projects/p/api-keys/{k}",
            None,
            Key,
            [401, 404, 403, 403, 204, 204, 403],
        ),
        c(
            "GET",
            "/v1/projects/p/bookings",
            None,
            Nothing,
            [401, 404, 200, 200, 200, 200, 403],
        ),
        c(
            "POST",
            "/v1/projects/p/bookings",
            Some(book),
            Nothing,
            [401, 404, 403, 201, 201, 201, 403],
        ),
        c(
            "GET",
            "/v1/projects/p/bookings/{b}",
            None,
            Booking,
            [401, 404, 200, 200, 200, 200, 403],
        ),
        c(
            "POST",
            "/v1/projects/p/bookings/{b}/provision",
            None,
            Held,
            [401, 404, 403, 403, 200, 200, 403],
        ),
        c(
            "POST",
            "/v1/projects/p/bookings/{b}/renew",
            Some(json!({"lease_s": 3600})),
            Booking,
            [401, 404, 403, 403, 200, 200, 403],
        ),
        c(
            "GET",
            "/v1/projects/p/bookings/{b}/counters",
            None,
            Booking,
            [401, 404, 200, 200, 200, 200, 403],
        ),
        // The booking runs no program: admitted, it is told so (409).
        c(
            "GET",
            "/v1/projects/p/bookings/{b}/maps/counts",
            None,
            Booking,
            [401, 404, 409, 409, 409, 409, 403],
        ),
        c(
            "PUT",
            "/v1/projects/p/bookings/{b}/maps/counts",
            Some(json!({"key": "00000000", "value": "01"})),
            Booking,
            [401, 404, 403, 403, 409, 409, 403],
        ),
        c(
            "POST",
            "/v1/projects/p/bookings/{b}/trace",
            Some(json!({"count": 1, "timeout_ms": 10})),
            Booking,
            [401, 404, 403, 403, 200, 200, 403],
        ),
        c(
            "POST",
            "/v1/projects/p/bookings/{b}/capture",
            Some(json!({"count": 1, "timeout_ms": 10})),
            Booking,
            [401, 404, 403, 403, 200, 200, 403],
        ),
        c(
            "GET",
            "/v1/nodes/n1/hardware",
            None,
            Nothing,
            [401, 403, 403, 403, 403, 200, 403],
        ),
        c(
            "GET",
            "/v1/nodes/n1/events",
            None,
            Nothing,
            [401, 403, 403, 403, 403, 200, 403],
        ),
        c(
            "PATCH",
            "/v1/projects/p/bookings/{b}",
            Some(json!({"bandwidth_mbps": 11})),
            Booking,
            [401, 404, 403, 403, 200, 200, 403],
        ),
        c(
            "GET",
            "/v1/projects/p/bookings/{b}/changes",
            None,
            Booking,
            [401, 404, 200, 200, 200, 200, 403],
        ),
        c(
            "POST",
            "/v1/projects/p/bookings/{b}/action",
            Some(json!({"action": "stop"})),
            Booking,
            [401, 404, 403, 403, 200, 200, 403],
        ),
        c(
            "DELETE",
            "/v1/projects/p/bookings/{b}",
            None,
            Booking,
            [401, 404, 403, 403, 200, 200, 403],
        ),
        c(
            "GET",
            "/v1/projects/p/quota",
            None,
            Nothing,
            [401, 404, 200, 200, 200, 200, 403],
        ),
        c(
            "GET",
            "/v1/projects/p/usage",
            None,
            Nothing,
            [401, 404, 200, 200, 200, 200, 403],
        ),
        c(
            "GET",
            "/v1/projects/p/public-addresses",
            None,
            Nothing,
            [401, 404, 200, 200, 200, 200, 403],
        ),
        c(
            "POST",
            "/v1/projects/p/public-addresses",
            Some(json!({"booking": "{b}", "internal": "10.0.0.6"})),
            Public,
            [401, 404, 403, 403, 201, 201, 403],
        ),
        c(
            "POST",
            "/v1/projects/p/public-addresses/{a}/renew",
            Some(json!({"lease_s": 3600})),
            Public,
            [401, 404, 403, 403, 200, 200, 403],
        ),
        c(
            "DELETE",
            "/v1/projects/p/public-addresses/{a}",
            None,
            Public,
            [401, 404, 403, 403, 200, 200, 403],
        ),
        c(
            "GET",
            "/v1/projects/p/bookings/{b}/members",
            None,
            SharedVlan,
            [401, 404, 200, 200, 200, 200, 403],
        ),
        c(
            "PUT",
            "/v1/projects/p/bookings/{b}/members/q",
            None,
            SharedVlan,
            [401, 404, 403, 403, 200, 200, 403],
        ),
        c(
            "DELETE",
            "/v1/projects/p/bookings/{b}/members/q",
            None,
            SharedWithQ,
            [401, 404, 403, 403, 204, 204, 403],
        ),
        c(
            "GET",
            "/v1/projects/p/shared-vlans",
            None,
            Nothing,
            [401, 404, 200, 200, 200, 200, 403],
        ),
        c(
            "DELETE",
            "/v1/projects/p/shared-vlans/{b}",
            None,
            InvitedVlan,
            [401, 404, 403, 403, 204, 204, 403],
        ),
        c(
            "GET",
            "/v1/projects/p/storage",
            None,
            Nothing,
            [401, 404, 200, 200, 200, 200, 403],
        ),
        c(
            "GET",
            "/v1/projects/p/storage/keys",
            None,
            Nothing,
            [401, 404, 200, 200, 200, 200, 403],
        ),
        c(
            "POST",
            "/v1/projects/p/storage/keys",
            None,
            Nothing,
            [401, 404, 403, 201, 201, 201, 403],
        ),
        c(
            "DELETE",
            "/v1/projects/p/storage/keys/{stk}",
            None,
            StorageKey,
            [401, 404, 403, 403, 204, 204, 403],
        ),
        c(
            "POST",
            "/v1/projects/p/storage/urls",
            Some(json!({"method": "GET", "key": "images/base.tar"})),
            Nothing,
            [401, 404, 200, 200, 200, 200, 403],
        ),
        c(
            "PUT",
            "/v1/projects/p/storage/shares/q",
            None,
            Nothing,
            [401, 404, 403, 403, 204, 204, 403],
        ),
        c(
            "DELETE",
            "/v1/projects/p/storage/shares/q",
            None,
            StorageShared,
            [401, 404, 403, 403, 204, 204, 403],
        ),
        c(
            "GET",
            "/v1/projects/p/images",
            None,
            Nothing,
            [401, 404, 200, 200, 200, 200, 403],
        ),
        c(
            "POST",
            "/v1/projects/p/images",
            Some(json!({"booking": "{b}", "name": "{n}"})),
            Processing,
            [401, 404, 403, 403, 200, 200, 403],
        ),
        c(
            "DELETE",
            "/v1/projects/p/images/{i}",
            None,
            Image,
            [401, 404, 403, 403, 204, 204, 403],
        ),
        c(
            "PUT",
            "/v1/projects/p/images/{i}/shares/q",
            None,
            Image,
            [401, 404, 403, 403, 204, 204, 403],
        ),
        c(
            "DELETE",
            "/v1/projects/p/images/{i}/shares/q",
            None,
            ImageShared,
            [401, 404, 403, 403, 204, 204, 403],
        ),
    ]
}

/// A processing node `v{n}` of `owner`'s in project `p`, on a shared
/// VLAN `s{n}` of node `pn`: its id.
async fn processing_node(owner: &ControllerClient, n: usize) -> String {
    let r = prism_controller::BookingRequest::shared_vlan(&format!("s{n}"), Some("pn"), None);
    owner.book("p", &r).await.unwrap();
    let spec = prism_controller::ProcessingSpec::from_flags(
        "base",
        &[format!("s{n}")],
        &["10.3.0.5/24".to_string()],
        None,
        (0.5, 64),
    )
    .unwrap();
    let r = prism_controller::BookingRequest::processing(&format!("v{n}"), &spec, None);
    owner.book("p", &r).await.unwrap().id
}

#[tokio::test(flavor = "multi_thread")]
async fn every_endpoint_refuses_whom_it_must_and_admits_whom_it_should() {
    let objects = prism_testkit::TempDir::new("authz-objects");
    let storage = prism_controller::StorageSettings {
        endpoint: "http://127.0.0.1:9".into(),
        master: prism_storage::keys::MasterKey::new([3; 32]),
        backend: prism_storage::backend::open(objects.path().to_str().unwrap()).unwrap(),
        ca_pem: None,
    };
    let h = Harness::start_with(prism_controller::Settings {
        storage: Some(storage),
        ..crate::common::settings()
    })
    .await;
    h.node("n1", 64, 100_000).await;
    h.gateway_node("g1", "198.51.100.0/24").await;
    // A node for shared VLANs only: no capacity left for networks.
    let pn = crate::common::fake_node::FakeNode::new(&["proc"], 0).with_processing("proc");
    let address = pn.serve();
    let r = prism_controller::NodeRequest {
        name: "pn".into(),
        address,
        hw_mbps: 0,
        sw_mbps: 0,
    };
    h.admin.register_node(&r).await.unwrap();
    let owner = h.user("owner").await;
    let other = h.user("other").await;
    let viewer = h.user("viewer").await;
    let member = h.user("member").await;
    let mut big = prism_controller::ServiceLevel::standard();
    big.name = "big".into();
    (
        big.max_sw_networks,
        big.max_bandwidth_mbps,
        big.max_lease_hours,
    ) = (1000, 100_000, 1_000_000);
    big.max_public_addresses = 100;
    h.admin.put_service_level(&big).await.unwrap();
    h.project("p", "owner", "big").await;
    h.project("q", "other", STANDARD).await;
    owner
        .set_member("p", "viewer", &MemberRequest { role: Role::Viewer })
        .await
        .unwrap();
    owner
        .set_member("p", "member", &MemberRequest { role: Role::Member })
        .await
        .unwrap();
    // The owner's API keys, each without some operation: the usage
    // report's for every case but the usage report, a reader's for it.
    let key_with = |op: Operation| {
        let owner = owner.clone();
        async move {
            let r = ApiKeyRequest {
                name: format!("only-{}", op.as_str().replace('.', "-")),
                operations: vec![op],
                ttl_s: None,
            };
            let k = owner.create_api_key("p", &r).await.unwrap();
            owner.with_token(k.key)
        }
    };
    let usage_key = key_with(Operation::UsageRead).await;
    let read_key = key_with(Operation::BookingsRead).await;
    let who: [(&str, ControllerClient); 7] = [
        ("anonymous", h.anonymous()),
        ("other project", other),
        ("viewer", viewer),
        ("member", member),
        ("owner", owner.clone()),
        ("admin", h.admin.clone()),
        ("a key without the operation", usage_key),
    ];
    const ADMIN: usize = 5;
    let mut n = 0;
    let mut wrong = Vec::new();
    let paths = cases();
    for case in &paths {
        for (i, (name, client)) in who.iter().enumerate() {
            n += 1;
            let mut path = case.path.to_string();
            let mut booking = String::new();
            match case.prep {
                Prep::Nothing => {}
                Prep::Booking | Prep::Held => {
                    let b = owner
                        .book(
                            "p",
                            &network(
                                &format!("b{n}"),
                                "software",
                                1,
                                matches!(case.prep, Prep::Booking),
                            ),
                        )
                        .await
                        .unwrap();
                    path = path.replace("{b}", &b.id);
                }
                Prep::Key => {
                    let k = owner
                        .create_api_key(
                            "p",
                            &ApiKeyRequest {
                                name: format!("k{n}"),
                                operations: vec![Operation::BookingsRead],
                                ttl_s: None,
                            },
                        )
                        .await
                        .unwrap();
                    path = path.replace("{k}", &k.id);
                }
                Prep::Public => {
                    let mut r = network(&format!("b{n}"), "software", 1, true);
                    r.nat = true;
                    let b = owner.book("p", &r).await.unwrap();
                    let a = owner
                        .lease_public(
                            "p",
                            &prism_controller::PublicAddressRequest {
                                booking: b.id.clone(),
                                internal: "10.0.0.5".into(),
                                node: None,
                                lease_s: None,
                            },
                        )
                        .await
                        .unwrap();
                    path = path.replace("{a}", &a.address);
                    booking = b.id;
                }
                Prep::SharedVlan | Prep::SharedWithQ => {
                    let r = prism_controller::BookingRequest::shared_vlan(
                        &format!("s{n}"),
                        Some("pn"),
                        None,
                    );
                    let b = owner.book("p", &r).await.unwrap();
                    if matches!(case.prep, Prep::SharedWithQ) {
                        owner.invite_to_vlan("p", &b.id, "q").await.unwrap();
                    }
                    path = path.replace("{b}", &b.id);
                }
                Prep::InvitedVlan => {
                    let r = prism_controller::BookingRequest::shared_vlan(
                        &format!("s{n}"),
                        Some("pn"),
                        None,
                    );
                    let b = who[1].1.book("q", &r).await.unwrap();
                    who[1].1.invite_to_vlan("q", &b.id, "p").await.unwrap();
                    path = path.replace("{b}", &b.id);
                }
                Prep::StorageKey => {
                    let k = owner.create_storage_key("p").await.unwrap();
                    path = path.replace("{stk}", &k.access_key);
                }
                Prep::StorageShared => owner.share_storage("p", "q").await.unwrap(),
                Prep::Processing => booking = processing_node(&owner, n).await,
                Prep::Image | Prep::ImageShared => {
                    let b = processing_node(&owner, n).await;
                    let i = owner.save_image("p", &b, &format!("i{n}")).await.unwrap();
                    if matches!(case.prep, Prep::ImageShared) {
                        owner.share_image("p", &i.name, "q").await.unwrap();
                    }
                    path = path.replace("{i}", &i.name);
                }
                Prep::NodeKey => {
                    let k = h.admin.create_node_key(&format!("n{n}")).await.unwrap();
                    path = path.replace("{nk}", &k.id);
                }
                Prep::SshKey => {
                    let r = prism_controller::SshKeyRequest {
                        name: format!("k{n}"),
                        public_key: crate::processing::KEY.into(),
                    };
                    let k = owner.add_ssh_key(&r).await.unwrap();
                    path = path.replace("{sk}", &k.id);
                }
                Prep::Member => {
                    let u = format!("u{n}");
                    h.admin
                        .create_user(&prism_controller::UserRequest {
                            name: u.clone(),
                            password: crate::common::PASSWORD.into(),
                            admin: false,
                        })
                        .await
                        .unwrap();
                    owner
                        .set_member("p", &u, &MemberRequest { role: Role::Viewer })
                        .await
                        .unwrap();
                    path = path.replace("{u}", &u);
                }
            }
            let body = case.body.as_ref().map(|b| {
                let b = b.to_string().replace("{n}", &format!("n{n}"));
                b.replace("{b}", &booking).into_bytes()
            });
            let client = match (i, case.path.ends_with("/usage")) {
                (6, true) => &read_key,
                _ => client,
            };
            let (status, answer) = client.raw(case.method, &path, body).await.unwrap();
            // The administrator's calls in the project, the owner's on
            // its resources (which only the case touches: a member's
            // path the owner's preparation touched too).
            let in_p = case.path.starts_with("/v1/projects/p/");
            let prepared = matches!(case.prep, Prep::Member);
            let own = name == &"owner" && case.path.contains('{') && !prepared;
            if case.method != "GET" && in_p && (i == ADMIN || own) {
                let overrides = i == ADMIN;
                let who = if i == ADMIN { "admin" } else { "owner" };
                check_override_audit(&h, who, case.method, &path, overrides).await;
            }
            let want = case.expect[i];
            if status != want {
                wrong.push(format!(
                    "{} {} as {name}: {status}, expected {want}: {}",
                    case.method,
                    case.path,
                    String::from_utf8_lossy(&answer)
                ));
            } else if status >= 400 {
                // Every refusal has the one error body with its code.
                let e: Value = serde_json::from_slice(&answer).unwrap();
                let code = e["code"].as_str().unwrap_or("");
                let expected = match status {
                    401 => "unauthorized",
                    403 => "forbidden",
                    404 => "not_found",
                    502 => "node_failed",
                    _ => code,
                };
                assert_eq!(code, expected, "{} {} as {name}", case.method, case.path);
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {n} calls answered otherwise:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    // Every path the API serves is in the matrix.
    let mut covered: Vec<&str> = paths.iter().map(|c| c.path).collect();
    covered.extend(["/v1/login", "/v1/logout"]);
    for p in prism_controller::api::PATHS {
        let templ = p
            .replace("/v1/nodes/{name}", "/v1/nodes/n1")
            .replace("{project}", "p")
            .replace(
                "{name}",
                if p.contains("/images/") {
                    "{i}"
                } else {
                    "standard"
                },
            )
            .replace("{user}", "{u}")
            .replace("{address}", "{a}")
            .replace("{serial}", "00")
            .replace("{member}", "q")
            .replace("{map}", "counts")
            .replace(
                "{id}",
                if p.contains("api-keys") {
                    "{k}"
                } else if p.contains("node-keys") {
                    "{nk}"
                } else if p.contains("ssh-keys") {
                    "{sk}"
                } else if p.contains("storage/keys") {
                    "{stk}"
                } else {
                    "{b}"
                },
            );
        assert!(
            covered.contains(&templ.as_str()),
            "{p} is not in the matrix"
        );
    }
}

/// The audit entry of `who`'s call `method path` (one each in the matrix):
/// an administrator's in a project they are not a member of says
/// `admin-override` and names the project (and the resource, for a
/// booking, key, member or address); anyone else's, and an
/// administrator's own business, says nothing.
async fn check_override_audit(h: &Harness, who: &str, method: &str, path: &str, overrides: bool) {
    let q = prism_controller::AuditQuery {
        principal: Some(who.to_string()),
        path: Some(path.to_string()),
        limit: Some(1000),
        ..Default::default()
    };
    let page = h.admin.audit_where(&q).await.unwrap();
    let mut mine = page
        .items
        .iter()
        .filter(|e| e.path == path && e.method == method);
    let entry = mine
        .next()
        .unwrap_or_else(|| panic!("{method} {path}: no audit entry"));
    assert!(mine.next().is_none(), "{method} {path}: one audit entry");
    match (&entry.note, overrides) {
        (Some(n), true) => {
            assert!(n.starts_with("admin-override: project p"), "{path}: {n}");
            let resource = path
                .split('/')
                .nth(5)
                .filter(|_| !path.contains("/members/") && !path.contains("/storage/"));
            if let Some(id) = resource {
                assert!(n.contains(id), "{path}: the note names the resource: {n}");
            }
        }
        (None, false) => {}
        (n, _) => panic!("{method} {path} by {who}: note {n:?}, expected an override: {overrides}"),
    }
}

/// A name taken answers 409 where a name is given: a node's, a resource
/// type's (each status the document lists).
#[tokio::test(flavor = "multi_thread")]
async fn a_name_taken_answers_409() {
    let h = Harness::start().await;
    let n = crate::common::fake_node::FakeNode::new(&["a"], 1);
    let address = n.serve();
    let node = prism_controller::NodeRequest {
        name: "n1".into(),
        address,
        hw_mbps: 1,
        sw_mbps: 1,
    };
    h.admin.register_node(&node).await.unwrap();
    let e = h.admin.register_node(&node).await.unwrap_err();
    assert_eq!(e.status(), Some(409), "{e}");
    h.register_probe().await;
    let probe = prism_controller::ResourceType {
        name: "probe".into(),
        description: "again".into(),
        schema: json!({"type": "object"}),
        operations: vec![
            prism_controller::GenericOp::Get,
            prism_controller::GenericOp::Release,
        ],
        builtin: false,
    };
    let e = h.admin.register_type(&probe).await.unwrap_err();
    assert_eq!(e.status(), Some(409), "{e}");
}

#[tokio::test(flavor = "multi_thread")]
async fn tokens_and_keys_are_scoped_restricted_expiring_and_revocable() {
    let h = Harness::start().await;
    h.node("n1", 4, 1000).await;
    let owner = h.user("owner").await;
    h.project("p", "owner", STANDARD).await;
    h.project("q", "owner", STANDARD).await;

    // A token scoped to p does not see q (404), and q is not listed.
    let scoped = h.login_as("owner", Some("p")).await;
    assert_eq!(
        scoped.booking("q", "x").await.unwrap_err().status(),
        Some(404)
    );
    let listed: Vec<String> = scoped
        .list_projects()
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(listed, vec!["p".to_string()]);
    // A login to a project the user is not in is refused like a bad password.
    let e = h
        .anonymous()
        .login(&crate::common::login("owner", Some("nope")))
        .await
        .unwrap_err();
    assert_eq!(e.status(), Some(401));
    let e = h
        .anonymous()
        .login(&prism_controller::LoginRequest {
            password: "wrong password!".into(),
            ..crate::common::login("owner", None)
        })
        .await
        .unwrap_err();
    assert_eq!(e.status(), Some(401));

    // A read-only key reads and cannot book; it cannot carry more than its
    // creator may; revoked, it is refused.
    let k = owner
        .create_api_key(
            "p",
            &ApiKeyRequest {
                name: "ro".into(),
                operations: vec![Operation::BookingsRead],
                ttl_s: Some(60),
            },
        )
        .await
        .unwrap();
    let secret = k.key.clone().unwrap();
    assert!(secret.starts_with("prk_"));
    let key = h.anonymous().with_token(Some(secret.clone()));
    key.bookings("p", false, None).await.unwrap();
    let e = key
        .book("p", &network("n", "software", 1, false))
        .await
        .unwrap_err();
    assert_eq!(e.status(), Some(403));
    assert_eq!(
        key.bookings("q", false, None).await.unwrap_err().status(),
        Some(404),
        "a key is its project's only"
    );
    let e = key
        .create_api_key(
            "p",
            &ApiKeyRequest {
                name: "esc".into(),
                operations: vec![Operation::BookingsCreate],
                ttl_s: None,
            },
        )
        .await
        .unwrap_err();
    assert_eq!(
        e.status(),
        Some(403),
        "a key cannot mint keys it was not given the right to"
    );
    // Listing keys never shows a secret.
    let listed = owner
        .raw("GET", "/v1/projects/p/api-keys", None)
        .await
        .unwrap();
    assert!(!String::from_utf8_lossy(&listed.1).contains(&secret[4..]));
    // Expiry: 60 s.
    h.clock.advance_ms(61_000);
    assert_eq!(key.whoami().await.unwrap_err().status(), Some(401));
    let k2 = owner
        .create_api_key(
            "p",
            &ApiKeyRequest {
                name: "rw".into(),
                operations: vec![Operation::BookingsRead],
                ttl_s: None,
            },
        )
        .await
        .unwrap();
    let key2 = h.anonymous().with_token(k2.key.clone());
    key2.whoami().await.unwrap();
    owner.revoke_api_key("p", &k2.id).await.unwrap();
    assert_eq!(key2.whoami().await.unwrap_err().status(), Some(401));

    // Logout revokes the session.
    scoped.logout().await.unwrap();
    assert_eq!(scoped.whoami().await.unwrap_err().status(), Some(401));
    // Garbage and missing credentials.
    let bad = h.anonymous().with_token(Some("prt_00".into()));
    assert_eq!(bad.whoami().await.unwrap_err().status(), Some(401));
    let (s, _) = h
        .anonymous()
        .raw("GET", "/v1/projects", None)
        .await
        .unwrap();
    assert_eq!(s, 401);
}

#[tokio::test(flavor = "multi_thread")]
async fn refusals_are_typed_located_and_rate_limited() {
    let mut s = crate::common::settings();
    s.rate_per_s = 1.0;
    s.rate_burst = 20.0;
    let h = Harness::start_with(s).await;
    let (st, body) = h
        .admin
        .raw(
            "POST",
            "/v1/users",
            Some(b"{\"name\": \"x\", \"password\": 5}".to_vec()),
        )
        .await
        .unwrap();
    assert_eq!(st, 400);
    let e: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(e["code"], "invalid_input");
    assert_eq!(e["field"], "password");
    let (st, _) = h.admin.raw("GET", "/v1/nope", None).await.unwrap();
    assert_eq!(st, 404);
    let (st, _) = h.admin.raw("PATCH", "/v1/users", None).await.unwrap();
    assert_eq!(st, 405);
    let big = vec![b' '; 2 << 20];
    let (st, _) = h.admin.raw("POST", "/v1/users", Some(big)).await.unwrap();
    assert_eq!(st, 413);
    let mut limited = 0;
    for _ in 0..40 {
        let (st, body) = h.admin.raw("GET", "/v1/whoami", None).await.unwrap();
        if st == 429 {
            let e: Value = serde_json::from_slice(&body).unwrap();
            assert_eq!(e["code"], "rate_limited");
            limited += 1;
        }
    }
    assert!(limited >= 15, "{limited} of 40 refused past a burst of 20");
}

/// What a credential stands for is kept a moment (`Settings::auth_cache_ms`):
/// a token revoked through one replica is refused by it at once, and by
/// another replica within the moment; a role changed likewise.
#[tokio::test(flavor = "multi_thread")]
async fn a_credential_revoked_through_one_replica_is_refused_by_another_within_the_moment() {
    let h = Harness::start().await;
    h.user("owner").await;
    h.project("p", "owner", STANDARD).await;
    let token = h.login_token("owner").await;
    let b = h.ctl.as_replica("b");
    let at = |ctl: &prism_controller::Controller| {
        let (ctl, token) = (ctl.clone(), token.clone());
        async move { ctl.authenticate_in(Some(&token), Some("p")).await }
    };
    // Both replicas have read it.
    at(&h.ctl).await.unwrap();
    at(&b).await.unwrap();
    let owner = h.anonymous().with_token(Some(token.clone()));
    owner.logout().await.unwrap();
    assert!(at(&h.ctl).await.is_err(), "refused at once where revoked");
    let ttl = std::time::Duration::from_millis(h.ctl.settings().auth_cache_ms);
    let t = std::time::Instant::now();
    while at(&b).await.is_ok() {
        assert!(
            t.elapsed() < ttl + std::time::Duration::from_millis(500),
            "the other replica still takes it"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}
