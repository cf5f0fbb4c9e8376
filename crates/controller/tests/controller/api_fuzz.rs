//! Schema-driven fuzzing of the whole API with schemathesis (from PyPI;
//! `$PRISM_SCHEMATHESIS` names its executable, which scripts/test
//! installs): requests generated from docs/api/controller.json, valid and
//! not, as an administrator, as a project owner and (heartbeats) as a
//! node with its key; no answer may be a
//! server error (5xx) and every answer must match the document. Skipped
//! without it, failed where every prerequisite is required (CI).
//!
//! Left out: `POST /v1/nodes` (the controller would dial the generated
//! addresses, and rightly answers 502 when nothing is there).

use crate::common::Harness;
use prism_controller::MemberRequest;

#[tokio::test(flavor = "multi_thread")]
async fn generated_requests_get_no_server_error() {
    let Some(st) = prism_testkit::gates::sdk_program("api_fuzz", "PRISM_SCHEMATHESIS") else {
        return;
    };
    let h = Harness::start().await;
    // Room for whatever the fuzzer books: the quota refuses first.
    h.node("n1", 64, 1_000_000).await;
    let owner = h.user("fz").await;
    h.project("fz", "fz", prism_controller::STANDARD).await;
    owner
        .set_member(
            "fz",
            "admin",
            &MemberRequest {
                role: prism_controller::Role::Viewer,
            },
        )
        .await
        .unwrap();
    let dir = std::env::temp_dir().join(format!("prism-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Path parameters that exist, so the fuzzer gets past 404.
    std::fs::write(
        dir.join("schemathesis.toml"),
        "[parameters]\n\"path.project\" = \"fz\"\n\"path.name\" = \"standard\"\n\"path.user\" = \"admin\"\n",
    )
    .unwrap();
    let spec =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/api/controller.json");
    let mut failures = Vec::new();
    owner.whoami().await.unwrap();
    // As a node too, with its key, on the one path a node key opens.
    let node_key = h.admin.create_node_key("fzn").await.unwrap().key.unwrap();
    let runs = [
        ("admin", h.login_token("admin").await, "/v1/logout"),
        ("owner", h.login_token("fz").await, "/v1/logout"),
        ("node", node_key, "/v1/nodes/heartbeat"),
    ];
    for (who, bearer, only) in runs {
        let select = if who == "node" {
            vec!["--include-path", only]
        } else {
            vec!["--exclude-path", "/v1/nodes", "--exclude-path", only]
        };
        let (st, spec, dir, url) = (
            st.clone(),
            spec.clone(),
            dir.clone(),
            format!("http://{}", h.addr),
        );
        let out = tokio::task::spawn_blocking(move || {
            std::process::Command::new(&st)
                .current_dir(&dir)
                .args(["run", spec.to_str().unwrap(), "--url", &url])
                .args(["--header", &format!("Authorization: Bearer {bearer}")])
                .args(["--checks", "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"])
                .args(["--max-examples", "25", "--seed", "1", "--workers", "1"])
                .args(&select)
                .output()
        })
        .await
        .unwrap()
        .expect("running schemathesis");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        if !out.status.success() {
            failures.push(format!("as {who}:\n{text}"));
        } else {
            eprintln!(
                "api_fuzz as {who}: {}",
                text.lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("")
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
