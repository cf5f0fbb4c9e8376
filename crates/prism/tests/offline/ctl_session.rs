//! `prism ctl` against a running controller, as a user types it: a refused
//! password leaves no session; a login saves one readable by its owner
//! only; a booking's spec read from a TOML file with one `[[network]]`
//! table; a bad spec file refused naming the file and the field; its
//! routes changed by name from a file (`edit`), a stale generation
//! refused, and the change in its history (`changes`).

use crate::common::{PASSWORD, bootstrap, free_port, start};
use prism_testkit::fake_node::{FakeNode, SECRET};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

fn ctl(dir: &Path, listen: &str, password: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_prism"))
        .arg("ctl")
        .args(["--controller", listen])
        .args(args)
        .env("PRISM_CONFIG_DIR", dir)
        .env("PRISM_PASSWORD", password)
        .env_remove("PRISM_TOKEN")
        .env_remove("PRISM_CONTROLLER")
        .output()
        .unwrap()
}

fn ok(o: Output) -> String {
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

fn refused(o: Output) -> String {
    assert!(
        !o.status.success(),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_user_logs_in_and_books_from_a_toml_spec_file() {
    let dir = std::env::temp_dir().join(format!("prism-ctl-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("controller.db").display().to_string();
    bootstrap(&db);
    let listen = format!("127.0.0.1:{}", free_port());
    let cred = dir.join("node.secret");
    std::fs::write(&cred, SECRET).unwrap();
    let e = refused(ctl(&dir, &listen, PASSWORD, &["login", "admin"]));
    assert!(
        e.contains("cannot reach the controller") && !e.contains("node"),
        "a controller's client speaks of the controller: {e}"
    );
    let _ctl = start(&db, &listen, &cred);
    let session = dir.join("session.json");

    // The controller may still be starting: retry the first login.
    let mut first = ctl(&dir, &listen, "wrong", &["login", "admin"]);
    for _ in 0..100 {
        if !String::from_utf8_lossy(&first.stderr).contains("cannot reach") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
        first = ctl(&dir, &listen, "wrong", &["login", "admin"]);
    }
    let e = refused(first);
    assert!(e.contains("401") && e.contains("password"), "{e}");
    assert!(!session.exists(), "a refused login saved a session");

    ok(ctl(&dir, &listen, PASSWORD, &["login", "admin"]));
    let mode = std::fs::metadata(&session).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "the session file is the owner's only");
    let node = FakeNode::new(&["a", "b"], 4);
    let node_addr = node.serve();
    ok(ctl(&dir, &listen, "", &["node-add", "n", &node_addr]));
    ok(ctl(&dir, &listen, "ann's password", &["user-add", "ann"]));
    ok(ctl(
        &dir,
        &listen,
        "",
        &["project-add", "p", "--owner", "ann"],
    ));
    ok(ctl(
        &dir,
        &listen,
        "ann's password",
        &["login", "ann", "-p", "p"],
    ));
    let saved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&session).unwrap()).unwrap();
    assert_eq!(saved["project"], "p");

    let spec = dir.join("net.toml");
    std::fs::write(
        &spec,
        "[[network]]\ntier = \"hardware\"\nforwarding = \"destination\"\n\
         [[network.route]]\nprefix = \"10.0.0.0/8\"\naction = { port = \"b\" }\n",
    )
    .unwrap();
    let spec_arg = spec.display().to_string();
    let book = [
        "book",
        "net",
        "--spec",
        &spec_arg,
        "--bandwidth",
        "10",
        "--hold",
    ];
    let booked: serde_json::Value =
        serde_json::from_str(&ok(ctl(&dir, &listen, "", &book))).unwrap();
    assert_eq!(booked["name"], "net");
    assert_eq!(booked["allocation_state"], "allocated", "{booked}");
    assert_eq!(booked["spec"]["route"][0]["prefix"], "10.0.0.0/8");

    std::fs::write(&spec, "[[network]]\ntier = \"hardware\"\n[[network]]\n").unwrap();
    let e = refused(ctl(&dir, &listen, "", &book));
    assert!(e.contains(&spec_arg) && e.contains("network"), "{e}");
    let listed: serde_json::Value =
        serde_json::from_str(&ok(ctl(&dir, &listen, "", &["bookings"]))).unwrap();
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");

    // Its routes changed from a file of the fields to replace, by name.
    let change = dir.join("routes.json");
    std::fs::write(
        &change,
        r#"{"route": [{"prefix": "10.2.0.0/16", "action": {"port": "a"}}]}"#,
    )
    .unwrap();
    let change_arg = change.display().to_string();
    let edit = ["edit", "net", "--spec", &change_arg, "--generation", "1"];
    let edited: serde_json::Value =
        serde_json::from_str(&ok(ctl(&dir, &listen, "", &edit))).unwrap();
    assert_eq!(edited["booking"]["generation"], 2, "{edited}");
    assert_eq!(
        edited["booking"]["spec"]["route"][0]["prefix"],
        "10.2.0.0/16"
    );
    assert_eq!(edited["change"]["fields"][0], "spec.route", "{edited}");
    // Another forwarding mode, only checked: nothing kept.
    let dry = [
        "edit",
        "net",
        "--set",
        "forwarding=source",
        "--set",
        "reconfigure=dark",
        "--dry-run",
    ];
    let priced: serde_json::Value =
        serde_json::from_str(&ok(ctl(&dir, &listen, "", &dry))).unwrap();
    assert_eq!(priced["dry_run"], true, "{priced}");
    assert_eq!(
        priced["booking"]["spec"]["forwarding"], "source",
        "{priced}"
    );
    let e = refused(ctl(&dir, &listen, "", &edit));
    assert!(e.contains("409") && e.contains("generation 2"), "{e}");
    std::fs::write(&change, "{\"route\": [}").unwrap();
    let e = refused(ctl(
        &dir,
        &listen,
        "",
        &["edit", "net", "--spec", &change_arg],
    ));
    assert!(e.contains(&change_arg), "a bad file is named: {e}");
    let history: serde_json::Value =
        serde_json::from_str(&ok(ctl(&dir, &listen, "", &["changes", "net"]))).unwrap();
    assert_eq!(history[0]["fields"][0], "spec.route", "{history}");
    assert_eq!(history[0]["user"], "ann");

    ok(ctl(&dir, &listen, "", &["logout"]));
    assert!(!session.exists(), "logout forgets the session");
    let _ = std::fs::remove_dir_all(&dir);
}
