//! What the storage crate's tests and bench share: an S3 service served
//! on a loopback port, and `object_store`'s S3 client of one bucket.

use std::net::SocketAddr;

/// Serves `svc` (an s3s service: Prism's, or a peer's) on a loopback port.
pub async fn serve(svc: s3s::service::S3Service) -> SocketAddr {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let at = l.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = l.accept().await {
            let svc = svc.clone();
            tokio::spawn(async move {
                let io = hyper_util::rt::TokioIo::new(tcp);
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(io, svc)
                    .await;
            });
        }
    });
    at
}

/// `object_store`'s S3 client of `bucket` at `at`, path-style, signing
/// with (`key`, `secret`), never retrying (a refusal is the answer).
pub fn client(
    at: SocketAddr,
    bucket: &str,
    (key, secret): (&str, &str),
) -> object_store::aws::AmazonS3 {
    object_store::aws::AmazonS3Builder::new()
        .with_endpoint(format!("http://{at}"))
        .with_allow_http(true)
        .with_region("us-east-1")
        .with_bucket_name(bucket)
        .with_access_key_id(key)
        .with_secret_access_key(secret)
        .with_virtual_hosted_style_request(false)
        .with_retry(object_store::RetryConfig {
            max_retries: 0,
            ..Default::default()
        })
        .build()
        .unwrap()
}
