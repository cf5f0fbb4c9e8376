//! A hung node holds no one up: with one node taking connections and
//! never answering, under load (two busy loops beside the controller), a
//! release, a stop and a renewal answer within a second from the database
//! (the booking released or stopped, its node's convergence pending and
//! said so), a booking on another node is ready at once, and leases end
//! on time; once the node answers again it converges in the background.
//! `scripts/soak` runs it 20 times in a row; CI once.

use crate::common::{Harness, network};
use prism_controller::{Action, AllocationState, BookingRequest, OperationalState, STANDARD};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Two threads spinning until dropped: the load of a busy machine. They
/// run at nice 10, so the cores are busy but a normal thread is still
/// served first: CI runs this beside the live tests, whose routers and
/// iperf3 lost datagrams when two spinners took their cores at equal
/// weight.
struct BusyLoops(Arc<AtomicBool>, Vec<std::thread::JoinHandle<()>>);

impl BusyLoops {
    fn start() -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let spin = |stop: Arc<AtomicBool>| {
            std::thread::spawn(move || {
                // SAFETY: setpriority has no memory preconditions; on Linux
                // PRIO_PROCESS with this thread's id names this thread only.
                unsafe {
                    libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 10);
                }
                let mut x = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                }
            })
        };
        Self(stop.clone(), vec![spin(stop.clone()), spin(stop)])
    }
}

impl Drop for BusyLoops {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
        for t in self.1.drain(..) {
            let _ = t.join();
        }
    }
}

/// `f` answered within `limit`; its answer.
async fn within<T>(what: &str, limit: Duration, f: impl std::future::Future<Output = T>) -> T {
    let t = Instant::now();
    let out = f.await;
    let took = t.elapsed();
    assert!(took < limit, "{what} took {took:?} (at most {limit:?})");
    out
}

/// A VLAN of the pool for 60 s (no node behind it).
fn vlan(name: &str) -> BookingRequest {
    BookingRequest {
        resource_type: "vlan".into(),
        lease_s: Some(60),
        provision: true,
        ..crate::common::probe(name)
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hung_node_holds_up_no_answer_no_other_node_and_no_lease_end() {
    let h = Harness::start().await;
    let background = h.ctl.spawn_background();
    // Three networks on n2, the node that will hang; then n1.
    let hung = h.node("n2", 4, 100_000).await;
    let fay = h.user("fay").await;
    h.project("p", "fay", STANDARD).await;
    let mut booked = std::collections::HashMap::new();
    for name in ["a", "c", "d"] {
        let b = fay
            .book("p", &network(name, "software", 1, true))
            .await
            .unwrap();
        assert_eq!(b.node.as_deref(), Some("n2"));
        booked.insert(name, b);
    }
    let hung_names = ["a", "c", "d"];
    let healthy = h.node("n1", 4, 100_000).await;
    let v = fay.book("p", &vlan("v")).await.unwrap();

    hung.stall.store(true, Ordering::SeqCst);
    let load = BusyLoops::start();
    let second = Duration::from_secs(1);
    let mut released = Vec::new();
    for name in &hung_names {
        let b = &booked[name];
        match *name {
            "a" => {
                let r = within("a release", second, fay.release("p", &b.id)).await;
                let r = r.unwrap();
                assert_eq!(r.allocation_state, AllocationState::Unallocated);
                assert!(r.converging, "its node's convergence pending: {r:?}");
                released.push(b.id.clone());
            }
            "c" => {
                let r = within("a renewal", second, fay.renew("p", &b.id, 60)).await;
                r.unwrap();
            }
            _ => {
                let r = within("a stop", second, fay.act("p", &b.id, Action::Stop)).await;
                let r = r.unwrap();
                assert_eq!(r.operational_state, OperationalState::Stopped);
                assert!(r.converging, "{r:?}");
            }
        }
    }
    let n2 = h.admin.list_nodes().await.unwrap();
    let n2 = n2.iter().find(|n| n.name == "n2").unwrap();
    let why = n2.last_error.clone().unwrap_or_default();
    assert!(why.contains("pending"), "the node says it is behind: {why}");

    // Another node's work goes on: a booking there is ready at once.
    let r = network("e", "software", 1, true);
    let e = within("a booking on a healthy node", second, fay.book("p", &r)).await;
    let e = e.unwrap();
    assert_eq!(e.node.as_deref(), Some("n1"), "the least used node");
    assert_eq!(e.operational_state, OperationalState::Ready, "{e:?}");
    assert!(healthy.names().contains(e.node_network.as_ref().unwrap()));

    // Leases end on time: the reaper (every second) is no node's.
    h.clock.advance_ms(61_000);
    let t = Instant::now();
    loop {
        let v = fay.booking("p", &v.id).await.unwrap();
        if v.allocation_state == AllocationState::Unallocated {
            break;
        }
        let late = t.elapsed();
        assert!(
            late < Duration::from_secs(3),
            "the vlan still leased {late:?} past its end"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    drop(load);

    // The node answers again: it converges in the background, and the
    // bookings say so.
    hung.stall.store(false, Ordering::SeqCst);
    let t = Instant::now();
    loop {
        let mut pending = Vec::new();
        for name in &hung_names {
            let b = fay.booking("p", &booked[name].id).await.unwrap();
            if b.converging {
                pending.push(*name);
            }
        }
        let left: Vec<String> = released
            .iter()
            .map(|id| prism_controller::node_network_name(id))
            .filter(|n| hung.names().contains(n))
            .collect();
        if pending.is_empty() && left.is_empty() {
            break;
        }
        let late = t.elapsed();
        assert!(
            late < Duration::from_secs(30),
            "not converged {late:?} after the node answered: pending {pending:?}, left {left:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    background.abort();
}
