//! Shared VLANs (docs/processing.md) against a fake node: a `shared-vlan`
//! booking on a node that runs processing nodes, its booker inviting
//! another project, that project's processing node attaching to it as
//! `OWNER/NAME` on the same VLAN; a project not invited can neither
//! attach nor see it; leaving, revoking and releasing unplug the
//! interfaces that were on it (the container kept), before the call
//! answers.

use crate::common::Harness;
use crate::processing::node;
use prism_controller::{BookingRequest, ErrorCode, ProcessingSpec, STANDARD};
use prism_controller_api::ControllerClient;
use prism_node_api::{InterfaceDoc, ProcessingDoc};

fn vm(name: &str, on: &str, address: &str) -> BookingRequest {
    let spec = ProcessingSpec::from_flags("base", &[on.into()], &[address.into()], None, (0.5, 64))
        .unwrap();
    BookingRequest::processing(name, &spec, None)
}

/// Booking `id`'s processing node's first interface, as the node has it.
fn eth0(nodes: &[ProcessingDoc], id: &str) -> InterfaceDoc {
    let d = nodes.iter().find(|d| d.name == format!("pp-{id}"));
    d.unwrap_or_else(|| panic!("pp-{id} in {nodes:?}"))
        .interfaces[0]
        .clone()
}

async fn refused_field(c: &ControllerClient, project: &str, r: &BookingRequest) -> String {
    let e = c.book(project, r).await.unwrap_err();
    e.api().unwrap().field.clone().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_invited_project_shares_the_vlan_and_leaving_unplugs_it() {
    let h = Harness::start().await;
    let n1 = node(&h, "n1", true).await;
    let (alice, bob, carol) = (
        h.user("alice").await,
        h.user("bob").await,
        h.user("carol").await,
    );
    h.project("exp", "alice", STANDARD).await;
    h.project("other", "bob", STANDARD).await;
    h.project("third", "carol", STANDARD).await;
    let lab = alice
        .book("exp", &BookingRequest::shared_vlan("lab", None, None))
        .await
        .unwrap();
    assert_eq!(
        (lab.resource_type.as_str(), lab.node.as_deref()),
        ("shared-vlan", Some("n1"))
    );
    let vlan = lab.vlan.expect("a VLAN from the pool") as u16;
    let a = alice
        .book("exp", &vm("vm-a", "lab", "10.9.0.1/24"))
        .await
        .unwrap();
    let own = vm("vm-own", "exp/lab", "10.9.0.9/24");
    let o = alice.book("exp", &own).await.unwrap();
    assert_eq!(
        o.node.as_deref(),
        Some("n1"),
        "its owner names it OWNER/NAME too"
    );
    alice.release("exp", &o.id).await.unwrap();
    // Not invited: nothing to attach to, and nothing seen.
    let field = refused_field(&bob, "other", &vm("vm-b", "exp/lab", "10.9.0.2/24")).await;
    assert_eq!(field, "spec.attach[0].network");
    assert!(bob.shared_vlans("other").await.unwrap().is_empty());
    let e = bob
        .invite_to_vlan("exp", &lab.id, "other")
        .await
        .unwrap_err();
    assert_eq!(
        e.api().unwrap().code,
        ErrorCode::NotFound,
        "another project's booking"
    );

    let m = alice.invite_to_vlan("exp", &lab.id, "other").await.unwrap();
    assert_eq!(
        (m.project.as_str(), m.invited_by.as_str()),
        ("other", "alice")
    );
    let seen = bob.shared_vlans("other").await.unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(
        (seen[0].attach_as.as_str(), seen[0].vlan),
        ("exp/lab", Some(i64::from(vlan)))
    );
    assert!(carol.shared_vlans("third").await.unwrap().is_empty());
    let field = refused_field(&carol, "third", &vm("vm-c", "exp/lab", "10.9.0.3/24")).await;
    assert_eq!(field, "spec.attach[0].network", "a project not invited");
    let b = bob
        .book("other", &vm("vm-b", "exp/lab", "10.9.0.2/24"))
        .await
        .unwrap();
    assert_eq!(b.node.as_deref(), Some("n1"));
    let nodes = n1.processing_nodes();
    for id in [&a.id, &b.id] {
        let i = eth0(&nodes, id);
        assert_eq!(
            (i.port.as_str(), i.vlan, i.unplugged),
            ("proc", vlan, false)
        );
        assert_eq!(i.gateway_mac, None, "hosts on a shared VLAN answer ARP");
    }
    let members = alice.vlan_members("exp", &lab.id).await.unwrap();
    assert_eq!(members.len(), 1);

    // Bob's project leaves: its node is unplugged before the call answers,
    // alice's stays on the VLAN.
    bob.leave_shared_vlan("other", &lab.id).await.unwrap();
    let nodes = n1.processing_nodes();
    let i = eth0(&nodes, &b.id);
    assert_eq!((i.vlan, i.unplugged), (0, true));
    assert_eq!(
        i.addresses,
        ["10.9.0.2/24"],
        "the interface kept, its cable out"
    );
    assert_eq!(eth0(&nodes, &a.id).vlan, vlan);
    assert!(bob.shared_vlans("other").await.unwrap().is_empty());
    let e = bob.leave_shared_vlan("other", &lab.id).await.unwrap_err();
    assert_eq!(e.api().unwrap().code, ErrorCode::NotFound);

    // Invited again, plugged in again; revoked, out again.
    alice.invite_to_vlan("exp", &lab.id, "other").await.unwrap();
    assert_eq!(eth0(&n1.processing_nodes(), &b.id).vlan, vlan);
    alice
        .revoke_from_vlan("exp", &lab.id, "other")
        .await
        .unwrap();
    assert!(eth0(&n1.processing_nodes(), &b.id).unplugged);
    let e = alice
        .revoke_from_vlan("exp", &lab.id, "other")
        .await
        .unwrap_err();
    assert_eq!(e.api().unwrap().code, ErrorCode::NotFound);

    // Released: alice's own node is unplugged too.
    alice.release("exp", &lab.id).await.unwrap();
    assert!(eth0(&n1.processing_nodes(), &a.id).unplugged);
    assert_eq!(n1.processing_nodes().len(), 2, "both containers kept");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_shared_vlan_needs_a_node_that_runs_processing_nodes() {
    let h = Harness::start().await;
    let _n1 = node(&h, "n1", false).await;
    let alice = h.user("alice").await;
    h.project("exp", "alice", STANDARD).await;
    for (node, code) in [
        (None, ErrorCode::NoCapacity),
        (Some("n1"), ErrorCode::NoCapacity),
        (Some("n9"), ErrorCode::NotFound),
    ] {
        let r = BookingRequest::shared_vlan("lab", node, None);
        let e = alice.book("exp", &r).await.unwrap_err();
        let e = e.api().unwrap();
        assert_eq!(
            (e.code, e.field.as_deref()),
            (code, Some("spec.node")),
            "{node:?}: {e:?}"
        );
    }
    assert!(
        alice.all_bookings("exp", true).await.unwrap().is_empty(),
        "nothing taken"
    );
}
