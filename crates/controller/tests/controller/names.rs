//! A project's live bookings have distinct names (the database's unique
//! index on live names, not a query before the insert): a second live
//! booking of a name is refused with 409 on field `name`, whatever its
//! type, and however many ask at once; a released booking's name is free
//! again; another project's bookings are not in the way.

use crate::common::{Harness, network, probe};
use prism_controller::prelude::*;
use prism_controller::{ErrorCode, STANDARD};

#[tokio::test(flavor = "multi_thread")]
async fn a_live_name_is_booked_once_until_released_even_by_sixteen_at_once() {
    let h = Harness::start().await;
    h.node("n1", 4, 1000).await;
    h.register_probe().await;
    let fay = h.user("fay").await;
    h.project("p", "fay", STANDARD).await;
    h.project("q", "fay", STANDARD).await;

    let first = fay
        .book("p", &network("a", "hardware", 1, false))
        .await
        .unwrap();
    // The same name again, as a network or another type: refused, located.
    for again in [network("a", "software", 1, false), probe("a")] {
        let e = fay.book("p", &again).await.unwrap_err();
        assert_eq!(e.status(), Some(409), "{e}");
        let api = e.api().unwrap();
        assert_eq!(
            (api.code, api.field.as_deref()),
            (ErrorCode::Conflict, Some("name"))
        );
    }
    // Another project's `a` is not in the way.
    fay.book("q", &probe("a")).await.unwrap();
    // Released, the name is free; the old booking keeps its name.
    fay.release("p", &first.id).await.unwrap();
    let second = fay.book("p", &probe("a")).await.unwrap();
    assert_ne!(second.id, first.id);
    assert_eq!(fay.booking("p", &first.id).await.unwrap().name, "a");

    // Sixteen at once for one new name: one booking.
    let token = h.login_token("fay").await;
    let who = h.ctl.authenticate(Some(&token)).await.unwrap();
    let tasks: Vec<_> = (0..16)
        .map(|_| {
            let (ctl, who) = (h.ctl.clone(), who.clone());
            tokio::spawn(async move { ctl.allocate(&who, "p", probe("raced")).await })
        })
        .collect();
    let mut won = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(b) => {
                assert_eq!(b.name, "raced");
                won += 1;
            }
            Err(e) => assert_eq!(e.field.as_deref(), Some("name"), "{e}"),
        }
    }
    assert_eq!(won, 1);
    let live = fay.bookings("p", false, None).await.unwrap().items;
    let named = |n: &str| live.iter().filter(|b| b.name == n).count();
    assert_eq!((named("raced"), named("a")), (1, 1), "{live:?}");
}
