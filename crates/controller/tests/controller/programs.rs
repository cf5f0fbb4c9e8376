//! A researcher's program for a booked network's slot (docs/customizing.md):
//! the kernel's verifier decides whether the controller takes it (a refusal
//! names the field and the instruction, and changes nothing), and a new
//! program is loaded into the slot as a module is, its modelled time said
//! before it is made. Needs root (to ask the kernel's verifier) and clang.

use crate::common::{Harness, network};
use base64::Engine as _;
use prism_controller::{BookingChange, ControllerClient, STANDARD};
use prism_testkit::{bpf_object, root};
use serde_json::json;

/// The API's refusal: its status and body.
fn refusal(e: prism_controller::ClientError) -> (u16, prism_controller::Error) {
    match e {
        prism_controller::ClientError::Api { status, error, .. } => (status, error),
        e => panic!("not an API refusal: {e}"),
    }
}

fn with_program(object: &[u8]) -> BookingChange {
    let program = json!({"object": base64::engine::general_purpose::STANDARD.encode(object)});
    BookingChange {
        spec: Some(
            json!({"program": program, "reconfigure": "dark"})
                .as_object()
                .unwrap()
                .clone(),
        ),
        ..BookingChange::default()
    }
}

async fn booked() -> (Harness, ControllerClient, prism_controller::Booking) {
    let h = Harness::start().await;
    h.node("n1", 4, 10_000).await;
    let alice = h.user("alice").await;
    h.project("exp", "alice", STANDARD).await;
    let b = alice
        .book("exp", &network("lan", "hardware", 10, true))
        .await
        .unwrap();
    (h, alice, b)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_program_the_kernels_verifier_refuses_is_refused_at_its_field_with_the_instruction() {
    let test = "controller: a program the verifier refuses";
    if !root(test) {
        return;
    }
    let Some(bad) = bpf_object(test, "crates/io/tests/linux/programs/past_the_end.c") else {
        return;
    };
    let (_h, alice, b) = booked().await;
    let e = alice
        .edit_booking("exp", &b.id, &with_program(&bad))
        .await
        .unwrap_err();
    let (status, error) = refusal(e);
    assert_eq!(
        (status, error.field.as_deref()),
        (400, Some("spec.program.object")),
        "{}",
        error.message
    );
    assert!(
        error
            .message
            .contains("verifier refused the program at instruction"),
        "{}",
        error.message
    );
    // The verifier's whole log comes with it: the instruction the message
    // names, as the verifier walked it, and its count of what it processed.
    let at = error
        .message
        .split("at instruction ")
        .nth(1)
        .and_then(|r| r.split(':').next())
        .unwrap_or_default();
    let log = error.detail.as_deref().unwrap_or_default();
    assert!(
        log.lines().any(|l| l.starts_with(&format!("{at}: ("))) && log.contains("processed "),
        "instruction {at} not in the log returned:\n{log}"
    );
    let now = alice.booking("exp", &b.id).await.unwrap();
    assert_eq!(
        (now.generation, now.spec.get("program")),
        (1, None),
        "nothing changed"
    );
    // Not an object at all: located too.
    let junk = with_program(b"not an ELF object");
    let e = alice.edit_booking("exp", &b.id, &junk).await.unwrap_err();
    let (_, error) = refusal(e);
    assert_eq!(
        error.field.as_deref(),
        Some("spec.program.object"),
        "{}",
        error.message
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_program_that_loops_calls_a_helper_it_may_not_or_shares_a_map_is_refused_located() {
    let test = "controller: programs refused";
    if !root(test) {
        return;
    }
    let dir = "crates/io/tests/linux/programs";
    let objects =
        ["spins", "uses_clock", "pinned_map"].map(|n| bpf_object(test, &format!("{dir}/{n}.c")));
    let [Some(spins), Some(clock), Some(pinned)] = objects else {
        return;
    };
    let (_h, alice, b) = booked().await;
    let cases: [(&[u8], &str); 3] = [
        (&spins, "verifier refused the program"),
        (&clock, "helper 5 is not one a program may call"),
        (&pinned, "map shared is pinned by name"),
    ];
    for (object, said) in cases {
        let e = alice
            .edit_booking("exp", &b.id, &with_program(object))
            .await
            .unwrap_err();
        let (status, error) = refusal(e);
        assert_eq!(
            (status, error.field.as_deref()),
            (400, Some("spec.program.object")),
            "{}",
            error.message
        );
        assert!(error.message.contains(said), "{}", error.message);
    }
    assert_eq!(
        alice.booking("exp", &b.id).await.unwrap().generation,
        1,
        "nothing changed"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_program_is_loaded_into_the_slot_with_its_modelled_time_said_first() {
    let test = "controller: a program loaded";
    if !root(test) {
        return;
    }
    let Some(counter) = bpf_object(test, "programs/count_sources.c") else {
        return;
    };
    let (_h, alice, b) = booked().await;
    let mut change = with_program(&counter);
    change.dry_run = true;
    let priced = alice.edit_booking("exp", &b.id, &change).await.unwrap();
    let ms = priced.change.modelled_ms.expect("a load of the slot");
    assert!(ms > 100.0, "the device model's partial load: {ms}");
    assert_eq!(
        alice.booking("exp", &b.id).await.unwrap().generation,
        1,
        "a dry run changes nothing"
    );
    change.dry_run = false;
    let made = alice.edit_booking("exp", &b.id, &change).await.unwrap();
    assert_eq!(
        (made.booking.generation, made.change.modelled_ms),
        (2, Some(ms))
    );
    assert!(made.booking.spec.get("program").is_some());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_programs_maps_are_read_and_written_by_its_project_only() {
    let test = "controller: a program's maps";
    if !root(test) {
        return;
    }
    let Some(router) = bpf_object(test, "programs/content_router.c") else {
        return;
    };
    let (h, alice, b) = booked().await;
    alice
        .edit_booking("exp", &b.id, &with_program(&router))
        .await
        .unwrap();
    let routes = alice.read_map("exp", &b.id, "routes").await.unwrap();
    assert_eq!(
        (
            routes.kind.as_str(),
            routes.key_size,
            routes.value_size,
            routes.entries.len()
        ),
        ("array", 4, 4, 256)
    );
    let set = prism_node_api::MapWrite {
        key: "2a000000".into(),
        value: Some("03000000".into()),
    };
    let after = alice.write_map("exp", &b.id, "routes", &set).await.unwrap();
    assert_eq!(after.entries[42].value, "03000000");
    assert_eq!(
        alice
            .read_map("exp", &b.id, "routes")
            .await
            .unwrap()
            .entries[42]
            .value,
        "03000000"
    );
    // A key of the wrong size, a map the program lacks: located refusals.
    let short = prism_node_api::MapWrite {
        key: "2a".into(),
        value: Some("03000000".into()),
    };
    let e = alice
        .write_map("exp", &b.id, "routes", &short)
        .await
        .unwrap_err();
    let (status, error) = refusal(e);
    assert_eq!(
        (status, error.field.as_deref()),
        (400, Some("key")),
        "{}",
        error.message
    );
    let e = alice.read_map("exp", &b.id, "nope").await.unwrap_err();
    assert_eq!(e.status(), Some(404));
    // Another project's user sees no such booking.
    let mallory = h.user("mallory").await;
    h.project("other", "mallory", STANDARD).await;
    let e = mallory.read_map("exp", &b.id, "routes").await.unwrap_err();
    assert!(matches!(e.status(), Some(403 | 404)), "{e}");
}
