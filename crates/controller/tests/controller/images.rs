//! Images over the controller's database, against a fake node (which
//! saves an image of three blobs and keeps what it is asked to upload):
//! a save asks the node to upload only the blobs the project's bucket
//! lacks, each to a URL signed for its key; names located and unique;
//! another project sees none of them until one is shared, then books it
//! as `OWNER/NAME`, and its node is given every blob with a signed URL
//! to pull and check; a share ended is refused at the next booking; a
//! blob goes from the bucket with the last image
//! that has it.

use crate::common::{Harness, settings};
use crate::processing::node;
use object_store::path::Path;
use object_store::{ObjectStore, PutPayload};
use prism_controller::{BookingRequest, ErrorCode, ProcessingSpec, STANDARD, StorageSettings};
use serde_json::json;

fn processing(name: &str, network: &str, image: &str) -> BookingRequest {
    let attach = [network.to_string()];
    let spec = ProcessingSpec::from_flags(image, &attach, &["10.1.0.5/24".into()], None, (0.5, 64))
        .unwrap();
    BookingRequest::processing(name, &spec, None)
}

fn network(name: &str) -> BookingRequest {
    let mut r = BookingRequest::network(
        name,
        json!({"tier": "software", "forwarding": "destination"}),
        10,
    );
    r.provision = true;
    r
}

/// A controller whose storage service keeps its objects in a directory of
/// its own (no endpoint: the fake node uploads nothing), its backend, and
/// the directory (removed when dropped).
async fn with_storage(
    name: &str,
) -> (
    Harness,
    std::sync::Arc<dyn ObjectStore>,
    prism_testkit::TempDir,
) {
    let objects = prism_testkit::TempDir::new(name);
    let backend = prism_storage::backend::open(objects.path().to_str().unwrap()).unwrap();
    let storage = StorageSettings {
        endpoint: "http://127.0.0.1:9".into(),
        master: prism_storage::keys::MasterKey::new([7; 32]),
        backend: backend.clone(),
        ca_pem: None,
    };
    let h = Harness::start_with(prism_controller::Settings {
        storage: Some(storage),
        ..settings()
    })
    .await;
    (h, backend, objects)
}

#[tokio::test(flavor = "multi_thread")]
async fn images_are_saved_once_per_blob_shared_read_only_and_pulled_with_signed_urls() {
    let (h, backend, _objects) = with_storage("image-objects").await;
    let n1 = node(&h, "n1", true).await;
    let (alice, bob) = (h.user("alice").await, h.user("bob").await);
    h.project("exp", "alice", STANDARD).await;
    h.project("other", "bob", STANDARD).await;
    alice.book("exp", &network("lan")).await.unwrap();
    let vm = alice
        .book("exp", &processing("vm", "lan", "base"))
        .await
        .unwrap();
    let net = alice.book("exp", &network("plain")).await.unwrap();

    let mine = alice.save_image("exp", &vm.id, "mine").await.unwrap();
    assert_eq!((mine.layers, mine.use_as.as_str()), (2, "mine"), "{mine:?}");
    let pushed = n1.pushed.lock().unwrap().clone();
    assert_eq!(pushed.len(), 4, "manifest, config and two layers");
    for b in &pushed {
        assert!(b.url.contains("/exp/prism-images/sha256/"), "{}", b.url);
        assert!(b.url.contains("X-Amz-Signature="), "{}", b.url);
    }
    // The fake uploads nothing: the blobs put by hand, as it would have.
    for b in &pushed {
        let path = Path::from(format!("exp/prism-images/sha256/{}", &b.digest[7..]));
        let bytes = PutPayload::from(vec![0u8; b.size as usize]);
        backend.put(&path, bytes).await.unwrap();
    }
    alice.save_image("exp", &vm.id, "again").await.unwrap();
    assert_eq!(
        n1.pushed.lock().unwrap().len(),
        4,
        "held blobs are not sent again"
    );

    let field = |e: prism_controller::ClientError| {
        let a = e.api().unwrap().clone();
        (a.code, a.field.unwrap_or_default())
    };
    let taken = alice.save_image("exp", &vm.id, "mine").await.unwrap_err();
    assert_eq!(field(taken), (ErrorCode::Conflict, "name".into()));
    let bad = alice.save_image("exp", &vm.id, "Mine!").await.unwrap_err();
    assert_eq!(field(bad), (ErrorCode::InvalidInput, "name".into()));
    let not_vm = alice.save_image("exp", &net.id, "net").await.unwrap_err();
    assert_eq!(field(not_vm), (ErrorCode::InvalidInput, "booking".into()));
    let theirs = bob.save_image("exp", &vm.id, "stolen").await.unwrap_err();
    assert_eq!(theirs.api().unwrap().code, ErrorCode::NotFound);

    // Bob's project sees none of them, and may not book one, until shared.
    bob.book("other", &network("lan2")).await.unwrap();
    assert!(bob.images("other").await.unwrap().is_empty());
    let refused = bob
        .book("other", &processing("vm2", "lan2", "exp/mine"))
        .await
        .unwrap_err();
    assert_eq!(field(refused), (ErrorCode::NotFound, "spec.image".into()));
    alice.share_image("exp", "mine", "other").await.unwrap();
    let seen = bob.images("other").await.unwrap();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].use_as, "exp/mine");
    assert_eq!(seen[0].from_booking, None, "nothing more of the owner's");
    let vm2 = bob
        .book("other", &processing("vm2", "lan2", "exp/mine"))
        .await
        .unwrap();
    let docs = n1.processing_nodes();
    let doc = docs.iter().find(|d| d.name.ends_with(&vm2.id)).unwrap();
    let stored = doc.image.stored.as_ref().expect("a stored image");
    assert_eq!(stored.manifest.digest, mine.digest);
    assert_eq!(stored.blobs.len(), 3);
    assert!(
        stored
            .blobs
            .iter()
            .all(|b| b.url.contains("/exp/prism-images/"))
    );
    // Ended: the next booking is refused; deleted: gone from the list.
    alice.unshare_image("exp", "mine", "other").await.unwrap();
    let refused = bob
        .book("other", &processing("vm3", "lan2", "exp/mine"))
        .await
        .unwrap_err();
    assert_eq!(field(refused), (ErrorCode::NotFound, "spec.image".into()));
    alice.delete_image("exp", "again").await.unwrap();
    let names: Vec<String> = (alice.images("exp").await.unwrap())
        .into_iter()
        .map(|i| i.name)
        .collect();
    assert_eq!(names, vec!["mine".to_string()]);
    // Its blobs are `mine`'s too: kept; `mine` deleted, they go.
    let held = |b: &prism_node_api::BlobSource| {
        let path = Path::from(format!("exp/prism-images/sha256/{}", &b.digest[7..]));
        let backend = backend.clone();
        async move { backend.head(&path).await.is_ok() }
    };
    for b in &pushed {
        assert!(held(b).await, "{} shared with `mine`", b.digest);
    }
    alice.delete_image("exp", "mine").await.unwrap();
    for b in &pushed {
        assert!(!held(b).await, "{} left", b.digest);
    }
}

/// A booking keeps the image it was booked with: its manifest digest is
/// pinned in its spec; a digest given that the image lacks is refused;
/// the name deleted and saved again as another image is not switched to
/// (the booking's node is given no image, so it fails naming it), while
/// a new booking gets the new one.
#[tokio::test(flavor = "multi_thread")]
async fn a_booking_keeps_the_image_digest_it_was_booked_with() {
    let (h, _backend, _objects) = with_storage("image-pins").await;
    let n1 = node(&h, "n1", true).await;
    let alice = h.user("alice").await;
    h.project("exp", "alice", STANDARD).await;
    alice.book("exp", &network("lan")).await.unwrap();
    let vm = alice
        .book("exp", &processing("vm", "lan", "base"))
        .await
        .unwrap();
    assert_eq!(vm.spec.get("image_digest"), None, "the node's own image");
    let first = alice.save_image("exp", &vm.id, "mine").await.unwrap();

    let mut wrong = processing("bad", "lan", "mine");
    wrong.spec["image_digest"] = format!("sha256:{:064x}", 1).into();
    let e = alice.book("exp", &wrong).await.unwrap_err();
    assert_eq!(
        e.api().unwrap().field.as_deref(),
        Some("spec.image_digest"),
        "{e}"
    );
    let pinned = alice
        .book("exp", &processing("pinned", "lan", "mine"))
        .await
        .unwrap();
    assert_eq!(pinned.spec["image_digest"], first.digest.as_str());

    // `mine` saved again from another processing node: another image.
    alice.delete_image("exp", "mine").await.unwrap();
    let vm2 = alice
        .book("exp", &processing("vm2", "lan", "base"))
        .await
        .unwrap();
    let second = alice.save_image("exp", &vm2.id, "mine").await.unwrap();
    assert_ne!(second.digest, first.digest);
    // A new booking of `mine` makes the node's processing state anew
    // (whole): the pinned booking's document with it.
    let fresh = alice
        .book("exp", &processing("fresh", "lan", "mine"))
        .await
        .unwrap();
    assert_eq!(fresh.spec["image_digest"], second.digest.as_str());
    h.ctl.converge_all().await;
    let doc_of = |id: &str| {
        let docs = n1.processing_nodes();
        docs.into_iter().find(|d| d.name.ends_with(id)).unwrap()
    };
    assert!(
        doc_of(&pinned.id).image.stored.is_none(),
        "the pinned booking is not switched to the new image"
    );
    let stored = doc_of(&fresh.id).image.stored.expect("the new image");
    assert_eq!(stored.manifest.digest, second.digest);
}
