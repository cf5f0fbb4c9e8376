//! `prism demo --processing --notebook FILE`: a researcher's notebook
//! (examples/experiment.ipynb) executed with `nbclient` against the
//! demo's testbed, as FABRIC's users run its Jupyter examples against
//! theirs. The notebook reaches the testbed only as a researcher would:
//! the controller's URL, an account and a project, given in its
//! environment; the executed copy (outputs and plot) is kept.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Where the executed notebook and what it writes (its plot) are kept.
pub const OUT_DIR: &str = "/var/tmp/prism-demo-notebook";

/// Executes a notebook with nbclient in its own kernel, every cell in
/// turn (a cell that raises stops it), and writes the executed copy.
const EXECUTE: &str = r#"
import sys, nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
notebook, out, cwd = sys.argv[1:4]
nb = nbformat.read(notebook, as_version=4)
client = NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": cwd}})
try:
    client.execute()
except CellExecutionError as e:
    nbformat.write(nb, out)
    sys.exit(f"{notebook}: a cell failed (the executed copy: {out}):\n{e}")
nbformat.write(nb, out)
"#;

/// A notebook to run and the Python that runs it.
#[derive(Debug, Clone)]
pub struct Notebook {
    pub path: PathBuf,
    /// A Python with Prism's SDK, nbclient, ipykernel and matplotlib.
    pub python: PathBuf,
}

impl Notebook {
    /// `path`, run by `$PRISM_SDK_PYTHON`, else the test environment's
    /// (`target/sdk-venv`, made by scripts/ensure-sdk.sh) if present, else
    /// `python3`.
    pub fn new(path: &Path) -> Notebook {
        let venv = Path::new("target/sdk-venv/bin/python");
        let python = match std::env::var_os("PRISM_SDK_PYTHON") {
            Some(p) => PathBuf::from(p),
            None if venv.exists() => venv.to_path_buf(),
            None => PathBuf::from("python3"),
        };
        Notebook {
            path: path.to_path_buf(),
            python,
        }
    }
}

/// What the notebook is told about the testbed: the controller, the
/// researcher and the nodes to book on.
#[derive(Debug, Clone)]
pub struct Testbed {
    pub url: String,
    pub user: String,
    pub password: String,
    pub project: String,
    pub nodes: Vec<String>,
    pub processing_port: String,
}

/// Runs `nb` against `testbed`; the executed copy's path and how long
/// it took. Fails with nbclient's report of the failing cell.
pub fn run(nb: &Notebook, testbed: &Testbed) -> Result<(PathBuf, f64)> {
    let out = PathBuf::from(OUT_DIR);
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).with_context(|| format!("making {}", out.display()))?;
    let name = nb.path.file_name().context("a notebook file")?;
    let executed = out.join(name);
    let t = Instant::now();
    let status = Command::new(&nb.python)
        .arg("-c")
        .arg(EXECUTE)
        .arg(&nb.path)
        .arg(&executed)
        .arg(&out)
        .env("PRISM_CONTROLLER_URL", &testbed.url)
        .env("PRISM_USER", &testbed.user)
        .env("PRISM_PASSWORD", &testbed.password)
        .env("PRISM_PROJECT", &testbed.project)
        .env("PRISM_NODES", testbed.nodes.join(","))
        .env("PRISM_PROCESSING_PORT", &testbed.processing_port)
        .env("PRISM_OUT", &out)
        .status()
        .with_context(|| format!("running {}", nb.python.display()))?;
    if !status.success() {
        bail!(
            "{} did not run to its end with {} (above; it needs Prism's SDK, nbclient, ipykernel and matplotlib: scripts/ensure-sdk.sh makes target/sdk-venv with them)",
            nb.path.display(),
            nb.python.display()
        );
    }
    Ok((executed, t.elapsed().as_secs_f64()))
}
