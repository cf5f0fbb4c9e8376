//! Bookings as leases against fake nodes over real HTTP: the node gets
//! each booked network with the project's VLAN and the bandwidth as its
//! rate limit; renewals are clamped; releases and expiries leave the node
//! and are accounted; quotas refuse with their numbers; parallel requests
//! never over-book; a node that lost its networks gets them back.

use crate::common::{Harness, START_MS, network, probe};
use prism_controller::prelude::*;
use prism_controller::{
    Action, AllocationState, ErrorCode, NODE_PREFIX, OperationalState, STANDARD, ServiceLevel,
};

async fn level(h: &Harness, name: &str, f: impl FnOnce(&mut ServiceLevel)) {
    let mut l = ServiceLevel::standard();
    l.name = name.into();
    f(&mut l);
    h.admin.put_service_level(&l).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_booking_is_allocated_provisioned_renewed_released_and_accounted() {
    let h = Harness::start().await;
    let node = h.node("n1", 4, 100).await;
    let alice = h.user("alice").await;
    h.project("exp", "alice", STANDARD).await;

    let b = alice
        .book("exp", &network("hw", "hardware", 50, false))
        .await
        .unwrap();
    assert_eq!(b.allocation_state, AllocationState::Allocated);
    assert_eq!(b.operational_state, OperationalState::Pending);
    assert_eq!(b.tier.map(|t| t.as_str()), Some("hardware"));
    assert_eq!(b.vlan, Some(100));
    assert_eq!(b.expires_ms, START_MS + 600_000, "a hold of 10 minutes");
    assert!(node.names().is_empty(), "allocation touches no node");
    // The answer is the booking as the database holds it.
    assert_eq!(alice.booking("exp", &b.id).await.unwrap(), b);

    let b = alice.provision("exp", &b.id).await.unwrap();
    assert_eq!(b.allocation_state, AllocationState::Provisioned);
    assert_eq!(b.operational_state, OperationalState::Ready);
    assert_eq!(
        b.expires_ms,
        START_MS + 24 * 3600 * 1000,
        "the default lease is 24 h"
    );
    let on_node = b.node_network.clone().unwrap();
    assert!(on_node.starts_with(NODE_PREFIX));
    let doc = node.doc(&on_node).expect("the network is on the node");
    assert_eq!(
        doc.rate_limit.unwrap().rate.0,
        50_000_000,
        "bandwidth is the rate limit"
    );
    assert_eq!(doc.map.len(), 1);
    assert_eq!(
        doc.map[0].vlan.unwrap().0,
        Some(100),
        "mapped by the project's VLAN"
    );

    // A second network gets another VLAN.
    let b2 = alice
        .book("exp", &network("sw", "software", 10, true))
        .await
        .unwrap();
    assert_eq!(b2.vlan, Some(101));
    assert_eq!(b2.tier.map(|t| t.as_str()), Some("software"));

    // Renewal: clamped to the service level's 15 days, and said so.
    h.clock.advance_ms(3600 * 1000);
    let r = alice.renew("exp", &b.id, 30 * 24 * 3600).await.unwrap();
    assert!(r.clamped);
    assert_eq!(r.expires_ms, START_MS + 3600 * 1000 + 15 * 24 * 3600 * 1000);
    let r = alice.renew("exp", &b.id, 2 * 24 * 3600).await.unwrap();
    assert!(!r.clamped);

    // Stop takes it off the node, start brings it back.
    let s = alice.act("exp", &b.id, Action::Stop).await.unwrap();
    assert_eq!(s.operational_state, OperationalState::Stopped);
    assert!(node.doc(&on_node).is_none());
    let s = alice.act("exp", &b.id, Action::Start).await.unwrap();
    assert_eq!(s.operational_state, OperationalState::Ready);
    assert!(node.doc(&on_node).is_some());

    h.clock.advance_ms(3600 * 1000);
    let gone = alice.release("exp", &b.id).await.unwrap();
    assert_eq!(gone.allocation_state, AllocationState::Unallocated);
    assert!(node.doc(&on_node).is_none(), "released: gone from the node");
    let again = alice.release("exp", &b.id).await.unwrap_err();
    assert_eq!(again.api().unwrap().code, ErrorCode::Conflict);

    // The VLAN goes to the back of the pool, held down (docs/wan.md,
    // "Threat model"): the next booking takes a VLAN never used.
    let b3 = alice
        .book("exp", &network("hw2", "hardware", 5, false))
        .await
        .unwrap();
    assert_eq!(b3.vlan, Some(102));

    // Usage: hw was provisioned for exactly 2 h at 50 Mbit/s.
    let u = alice
        .usage("exp", START_MS, START_MS + 10 * 3600 * 1000)
        .await
        .unwrap();
    let hw = u.lines.iter().find(|l| l.tier == "hardware").unwrap();
    assert_eq!(hw.user, "alice");
    assert!((hw.resource_hours - 2.0).abs() < 1e-9, "{u:?}");
    assert!((hw.bandwidth_mbps_hours - 100.0).abs() < 1e-9);
    let csv = alice
        .usage_csv("exp", START_MS, START_MS + 10 * 3600 * 1000)
        .await
        .unwrap();
    assert!(csv.starts_with("project,user,tier,bookings,resource_hours,bandwidth_mbps_hours\n"));
    assert!(
        csv.contains("exp,alice,hardware,1,2.0000,100.0000"),
        "{csv}"
    );

    // The audit log has every mutating call, with who made it.
    let audit = h.admin.audit(None).await.unwrap();
    assert!(
        audit
            .items
            .iter()
            .any(|e| e.principal == "alice" && e.method == "DELETE" && e.status == 200)
    );
    assert!(
        audit
            .items
            .iter()
            .any(|e| e.principal == "login:alice from 127.0.0.1" && e.path == "/v1/login")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn quotas_refuse_with_their_numbers_and_capacity_with_its_own_code() {
    let h = Harness::start().await;
    h.node("n1", 2, 100).await;
    level(&h, "small", |l| {
        l.max_hw_networks = 1;
        l.max_bandwidth_mbps = 60;
    })
    .await;
    let bob = h.user("bob").await;
    h.project("p", "bob", "small").await;
    bob.book("p", &network("a", "hardware", 10, true))
        .await
        .unwrap();

    let e = bob
        .book("p", &network("b", "hardware", 10, false))
        .await
        .unwrap_err();
    assert_eq!(e.status(), Some(409));
    let q = e.api().unwrap().quota.clone().unwrap();
    assert_eq!(
        (q.resource.as_str(), q.limit, q.used, q.requested),
        ("hw_networks", 1, 1, 1)
    );

    let e = bob
        .book("p", &network("c", "software", 51, false))
        .await
        .unwrap_err();
    let q = e.api().unwrap().quota.clone().unwrap();
    assert_eq!(
        (q.resource.as_str(), q.limit, q.used, q.requested),
        ("bandwidth_mbps", 60, 10, 51)
    );

    // Software tier of 100 Mbit/s on the only node: 101 cannot be placed.
    level(&h, "big", |l| l.max_bandwidth_mbps = 100_000).await;
    let carol = h.user("carol").await;
    h.project("q", "carol", "big").await;
    let e = carol
        .book("q", &network("x", "software", 101, false))
        .await
        .unwrap_err();
    assert_eq!(e.status(), Some(503));
    assert_eq!(e.api().unwrap().code, ErrorCode::NoCapacity);
    // Two slots, one taken by bob: carol gets one, then none is left.
    carol
        .book("q", &network("h1", "hardware", 1, false))
        .await
        .unwrap();
    let e = carol
        .book("q", &network("h2", "hardware", 1, false))
        .await
        .unwrap_err();
    assert_eq!(e.api().unwrap().code, ErrorCode::NoCapacity);
    // `auto` falls back to software when no slot is free (admission of the
    // placement library, software first).
    let a = carol
        .book("q", &network("au", "auto", 1, false))
        .await
        .unwrap();
    assert_eq!(a.tier.map(|t| t.as_str()), Some("software"));

    let view = carol.quota("q").await.unwrap();
    assert_eq!(view.hw_networks.reserved, 1);
    assert_eq!(view.sw_networks.reserved, 1);
    assert_eq!(view.bandwidth_mbps.reserved, 2);

    // A document the node would refuse is refused at booking, located.
    let mut bad = network("bad", "software", 1, false);
    bad.spec["route"][0]["action"]["port"] = "nowhere".into();
    let e = carol.book("q", &bad).await.unwrap_err();
    assert_eq!(e.api().unwrap().code, ErrorCode::InvalidInput);
    assert_eq!(
        e.api().unwrap().field.as_deref(),
        Some("spec.route[0].action.port"),
        "{e}"
    );
    // A VLAN that is not the booking's is refused.
    let mut spoof = network("spoof", "software", 1, false);
    spoof.spec["map"] = serde_json::json!([{"vlan": 7}]);
    let e = carol.book("q", &spoof).await.unwrap_err();
    assert_eq!(e.status(), Some(403));
    assert_eq!(e.api().unwrap().field.as_deref(), Some("spec.map[0].vlan"));
}

#[tokio::test(flavor = "multi_thread")]
async fn fifty_parallel_allocations_against_a_quota_of_ten_book_exactly_ten() {
    let h = Harness::start().await;
    h.node("n1", 0, 100_000).await;
    level(&h, "ten", |l| l.max_sw_networks = 10).await;
    let dan = h.user("dan").await;
    h.project("p", "dan", "ten").await;
    let mut tasks = Vec::new();
    for i in 0..50 {
        let c = dan.clone();
        tasks.push(tokio::spawn(async move {
            c.book("p", &network(&format!("n{i}"), "software", 1, false))
                .await
        }));
    }
    let (mut ok, mut quota) = (0, 0);
    for t in tasks {
        match t.await.unwrap() {
            Ok(_) => ok += 1,
            Err(e) => {
                assert_eq!(
                    e.api().map(|a| a.code),
                    Some(ErrorCode::QuotaExceeded),
                    "{e}"
                );
                quota += 1;
            }
        }
    }
    assert_eq!((ok, quota), (10, 40));
    let q = dan.quota("p").await.unwrap();
    assert_eq!(q.sw_networks.reserved, 10);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_lease_past_its_end_is_gone_from_the_node_and_accounted() {
    let h = Harness::start().await;
    let node = h.node("n1", 4, 100).await;
    let eve = h.user("eve").await;
    h.project("p", "eve", STANDARD).await;
    let mut r = network("short", "hardware", 20, true);
    r.lease_s = Some(120);
    let b = eve.book("p", &r).await.unwrap();
    let held = eve
        .book("p", &network("held", "software", 1, false))
        .await
        .unwrap();
    assert_eq!(node.names().len(), 1);

    h.clock.advance_ms(119_000);
    assert_eq!(h.ctl.reap().await.unwrap(), 0);
    assert_eq!(node.names().len(), 1);
    h.clock.advance_ms(1_000);
    assert_eq!(h.ctl.reap().await.unwrap(), 1, "the lease ends at 120 s");
    // The reaper asks the node for a pass; it runs in its own task.
    h.ctl.settle().await;
    assert!(node.names().is_empty(), "gone from the node");
    let b = eve.booking("p", &b.id).await.unwrap();
    assert_eq!(b.allocation_state, AllocationState::Unallocated);
    assert_eq!(b.released_ms, Some(START_MS + 120_000));
    let u = eve
        .usage("p", START_MS, START_MS + 3_600_000)
        .await
        .unwrap();
    assert!(
        (u.total_resource_hours - 120.0 / 3600.0).abs() < 1e-9,
        "{u:?}"
    );
    assert!(eve.quota("p").await.unwrap().hw_networks.used == 0);

    // The unprovisioned hold ends at 10 minutes.
    h.clock.advance_ms(600_000);
    assert_eq!(h.ctl.reap().await.unwrap(), 1);
    let held = eve.booking("p", &held.id).await.unwrap();
    assert_eq!(held.allocation_state, AllocationState::Unallocated);
    let e = eve.provision("p", &held.id).await.unwrap_err();
    assert_eq!(e.api().unwrap().code, ErrorCode::Conflict);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_node_converges_to_its_desired_state_and_foreign_networks_stay() {
    let h = Harness::start().await;
    let node = h.node("n1", 4, 100).await;
    let fay = h.user("fay").await;
    h.project("p", "fay", STANDARD).await;
    let a = fay
        .book("p", &network("a", "hardware", 1, true))
        .await
        .unwrap();
    let b = fay
        .book("p", &network("b", "software", 1, true))
        .await
        .unwrap();
    let mut want = vec![
        a.node_network.clone().unwrap(),
        b.node_network.clone().unwrap(),
    ];
    want.sort();
    assert_eq!(node.names(), want);

    // The node restarts empty; someone else's network and a stale one of
    // the controller's appear.
    let extra = {
        let mut d = node.doc(&want[0]).unwrap();
        d.name = "pc-0000000000000000".into();
        d
    };
    let foreign = {
        let mut d = node.doc(&want[0]).unwrap();
        d.name = "mine".into();
        d
    };
    *node.docs.lock().unwrap() = vec![extra, foreign];
    let c = h
        .ctl
        .converge_node(&h.admin.list_nodes().await.unwrap()[0].id)
        .await;
    assert_eq!((c.added, c.removed, c.failed), (2, 1, 0));
    let mut now = want.clone();
    now.push("mine".into());
    now.sort();
    assert_eq!(node.names(), now);

    // A second pass changes nothing.
    let c = h
        .ctl
        .converge_node(&h.admin.list_nodes().await.unwrap()[0].id)
        .await;
    assert_eq!((c.added, c.replaced, c.removed), (0, 0, 0));
    let n = &h.admin.list_nodes().await.unwrap()[0];
    assert_eq!(n.generation, n.applied_generation);
    assert_eq!(n.used_slots, 1);

    // A node that cannot be reached marks nothing ready and says why.
    node.down.store(true, std::sync::atomic::Ordering::Relaxed);
    let c2 = fay
        .book("p", &network("c", "software", 1, true))
        .await
        .unwrap();
    let n = &h.admin.list_nodes().await.unwrap()[0];
    assert!(
        n.last_error
            .as_deref()
            .unwrap_or("")
            .contains("unreachable"),
        "{n:?}"
    );
    assert_eq!(c2.operational_state, OperationalState::Pending);
    node.down.store(false, std::sync::atomic::Ordering::Relaxed);
    h.ctl.converge_all().await;
    assert_eq!(
        fay.booking("p", &c2.id).await.unwrap().operational_state,
        OperationalState::Ready
    );
}

/// A booking and its release are each one audit row, written in the
/// change's own transaction (not once there and again after the answer);
/// a refused booking is audited after the answer.
#[tokio::test(flavor = "multi_thread")]
async fn a_booking_and_its_release_are_audited_once_each() {
    let h = Harness::start().await;
    h.node("n1", 4, 1000).await;
    let fay = h.user("fay").await;
    h.project("p", "fay", STANDARD).await;
    let b = fay
        .book("p", &network("a", "hardware", 1, false))
        .await
        .unwrap();
    fay.release("p", &b.id).await.unwrap();
    let e = fay.book("p", &network("a b", "hardware", 1, false)).await;
    assert_eq!(e.unwrap_err().status(), Some(400));
    let audit = h.admin.all_audit().await.unwrap();
    // One manual clock: entries of one millisecond, in no set order.
    let mut by_fay: Vec<(&str, &str, i64)> = audit
        .iter()
        .filter(|e| e.principal == "fay")
        .map(|e| (e.method.as_str(), e.path.as_str(), e.status))
        .collect();
    by_fay.sort();
    let release = format!("/v1/projects/p/bookings/{}", b.id);
    assert_eq!(
        by_fay,
        [
            ("DELETE", release.as_str(), 200),
            ("POST", "/v1/projects/p/bookings", 201),
            ("POST", "/v1/projects/p/bookings", 400),
        ],
        "{audit:?}"
    );
}

/// In the library, inside a request's audit scope, the booking's commit
/// writes the entry itself (the API layer then writes nothing more).
#[tokio::test(flavor = "multi_thread")]
async fn a_booking_commits_its_audit_row_with_it() {
    let h = Harness::start().await;
    h.node("n1", 4, 1000).await;
    h.user("fay").await;
    h.project("p", "fay", STANDARD).await;
    let token = h.login_token("fay").await;
    let fay = h.ctl.authenticate(Some(&token)).await.unwrap();
    let pending = prism_controller::app::audit_scope::PendingAudit::new(Some("fay"), "POST", "/x");
    pending
        .scope(
            h.ctl
                .allocate(&fay, "p", network("a", "hardware", 1, false)),
        )
        .await
        .unwrap();
    assert_eq!(pending.written(), Some(201));
    let audit = h.admin.all_audit().await.unwrap();
    assert!(
        audit.iter().any(|e| e.path == "/x" && e.status == 201),
        "{audit:?}"
    );
}

/// Bookings of a registered type (no node) lock their project only: 16
/// at once in a project allowed 5 lease-hours give exactly 5 leases of an
/// hour (on PostgreSQL the 16 run on separate connections); another
/// project's bookings meanwhile are not counted against it.
#[tokio::test(flavor = "multi_thread")]
async fn a_projects_quota_holds_under_concurrent_bookings_of_a_type_without_node() {
    let h = Harness::start().await;
    let mut level = ServiceLevel::standard();
    level.name = "five".into();
    level.max_lease_hours = 5;
    h.admin.put_service_level(&level).await.unwrap();
    h.register_probe().await;
    h.user("fay").await;
    h.project("p", "fay", "five").await;
    h.project("q", "fay", "five").await;
    let token = h.login_token("fay").await;
    let fay = h.ctl.authenticate(Some(&token)).await.unwrap();
    let tasks: Vec<_> = (0..16)
        .map(|i| {
            let (ctl, fay) = (h.ctl.clone(), fay.clone());
            let project = if i % 4 == 3 { "q" } else { "p" };
            tokio::spawn(async move {
                let r = probe(&format!("b{i}"));
                (project, ctl.allocate(&fay, project, r).await.is_ok())
            })
        })
        .collect();
    let mut granted = std::collections::BTreeMap::new();
    for t in tasks {
        let (project, ok) = t.await.unwrap();
        *granted.entry(project).or_insert(0) += i32::from(ok);
    }
    assert_eq!(granted["p"], 5, "{granted:?}");
    assert_eq!(granted["q"], 4, "{granted:?}");
}
