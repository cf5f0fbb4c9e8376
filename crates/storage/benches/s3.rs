//! The storage endpoint beside a peer, side by side (docs/performance.md):
//! one 4 MiB object put and got back through `object_store`'s S3 client
//! over loopback HTTP, against Prism's endpoint (local backend, its
//! directory a key lookup and a quota reservation per upload) and against
//! `s3s-fs` (the same protocol crate over a plain directory, no checks).
//! `cargo bench -p prism-storage --bench s3`.

use async_trait::async_trait;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use object_store::path::Path;
use object_store::{ObjectStore, PutPayload};
use prism_storage::keys::{MasterKey, access_key_from};
use prism_storage::{Directory, KeyOwner, Refusal, Storage};
use std::sync::Arc;

#[path = "../tests/support/mod.rs"]
mod support;
use support::{client, serve};

const SIZE: usize = 4 << 20;

/// One project, `bench`, one key, no quota to speak of.
#[derive(Debug)]
struct One;

#[async_trait]
impl Directory for One {
    async fn key(&self, _: &str) -> Result<Option<KeyOwner>, Refusal> {
        Ok(Some(KeyOwner {
            bucket: "bench".into(),
            readable: Vec::new(),
        }))
    }
    async fn bucket_exists(&self, bucket: &str) -> Result<bool, Refusal> {
        Ok(bucket == "bench")
    }
    async fn reserve(&self, _: &str, _: i64) -> Result<(), Refusal> {
        Ok(())
    }
    async fn release(&self, _: &str, _: i64) -> Result<(), Refusal> {
        Ok(())
    }
}

fn round_trips(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (prism, peer) = rt.block_on(async {
        let master = MasterKey::new([1; 32]);
        let key = access_key_from([4; 18]);
        let backend =
            prism_storage::backend::open(dir.path().join("prism").to_str().unwrap()).unwrap();
        let svc = prism_storage::service(Storage::new(backend, Arc::new(One)), master.clone());
        let prism = client(serve(svc).await, "bench", (&key, &master.secret(&key)));
        std::fs::create_dir_all(dir.path().join("peer/bench")).unwrap();
        let fs = s3s_fs::FileSystem::new(dir.path().join("peer")).unwrap();
        let mut b = s3s::service::S3ServiceBuilder::new(fs);
        b.set_auth(s3s::auth::SimpleAuth::from_single("PEERKEY", "peer-secret"));
        let peer = client(serve(b.build()).await, "bench", ("PEERKEY", "peer-secret"));
        (prism, peer)
    });
    let body = bytes::Bytes::from(vec![7u8; SIZE]);
    let mut g = c.benchmark_group("s3_put_get_4MiB");
    g.throughput(Throughput::Bytes(2 * SIZE as u64));
    for (name, s) in [("prism", &prism), ("s3s-fs", &peer)] {
        g.bench_function(name, |b| {
            b.to_async(&rt).iter(|| async {
                let p = Path::from("object.bin");
                s.put(&p, PutPayload::from(body.clone())).await.unwrap();
                let got = s.get(&p).await.unwrap().bytes().await.unwrap();
                assert_eq!(got.len(), SIZE);
            })
        });
    }
    g.finish();
}

criterion_group!(benches, round_trips);
criterion_main!(benches);
