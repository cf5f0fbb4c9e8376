//! A controller process for the offline tests: started from the built
//! binary on a free loopback port, killed when dropped.

use std::process::{Child, Command, Stdio};

pub const PASSWORD: &str = "the administrator's password";

pub struct Controller {
    pub child: Child,
}

impl Drop for Controller {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub fn start(db: &str, listen: &str, cred: &std::path::Path) -> Controller {
    start_with(db, listen, cred, &[])
}

/// The same, with `more` arguments to `prism controller serve`.
pub fn start_with(db: &str, listen: &str, cred: &std::path::Path, more: &[&str]) -> Controller {
    let child = Command::new(env!("CARGO_BIN_EXE_prism"))
        .args([
            "controller",
            "serve",
            "--db",
            db,
            "--listen",
            listen,
            // Whatever a lab CA in the default place says: these tests
            // speak plain HTTP on loopback.
            "--plain-http",
            "--node-credential-file",
        ])
        .arg(cred)
        .args(more)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    Controller { child }
}

/// `prism controller bootstrap` on `db`: the administrator `admin` with
/// [`PASSWORD`].
pub fn bootstrap(db: &str) {
    let boot = Command::new(env!("CARGO_BIN_EXE_prism"))
        .args(["controller", "bootstrap", "--db", db])
        .env("PRISM_PASSWORD", PASSWORD)
        .output()
        .unwrap();
    assert!(
        boot.status.success(),
        "{}",
        String::from_utf8_lossy(&boot.stderr)
    );
}

/// Logs in at `addr` as `user` (password [`PASSWORD`]) once the
/// controller there answers (20 s at most).
pub async fn login(addr: &str, user: &str) -> prism_controller::ControllerClient {
    use std::time::{Duration, Instant};
    let anon = prism_controller::ControllerClient::new(addr, None);
    let t = Instant::now();
    loop {
        let r = prism_controller::LoginRequest {
            user: user.into(),
            password: PASSWORD.into(),
            project: None,
            ttl_s: None,
        };
        match anon.login(&r).await {
            Ok(tok) => return anon.with_token(Some(tok.token)),
            Err(e) if e.status() != Some(401) && t.elapsed() < Duration::from_secs(20) => {
                tokio::time::sleep(Duration::from_millis(50)).await
            }
            Err(e) => panic!("login at {addr}: {e}"),
        }
    }
}
