//! `prism sim alloc`: paper 000 §5.4 (Fig. 10) and Prism's own policy.

use super::plot::{Series, line_chart};
use anyhow::{Context, Result, bail};
use prism_placement::dist::BandwidthDist;
use prism_placement::sim::{self, SimConfig, SimResult};
use prism_placement::{Capacity, policy_by_name};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct AllocArgs {
    /// Networks in the trace.
    #[arg(long, default_value_t = 1000)]
    pub networks: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Maximum hourly variances to sweep, as fractions (1.0 = ±100%).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0"
    )]
    pub variances: Vec<f64>,
    /// Policies: paper, no-migration, repack.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "no-migration,paper,repack"
    )]
    pub policies: Vec<String>,
    /// Hardware regions (the paper's Virtex-5 has 20).
    #[arg(long, default_value_t = Capacity::PAPER.hw_regions)]
    pub hw_regions: usize,
    /// Aggregate hardware bandwidth, Mbit/s (paper: 1000).
    #[arg(long, default_value_t = Capacity::PAPER.hw_mbps)]
    pub hw_mbps: f64,
    /// Aggregate software bandwidth, Mbit/s (paper: 100).
    #[arg(long, default_value_t = Capacity::PAPER.sw_mbps)]
    pub sw_mbps: f64,
    /// Log-normal bandwidth model: median (Mbit/s) and sigma.
    #[arg(long, default_value_t = 10.0)]
    pub bw_median: f64,
    #[arg(long, default_value_t = 1.0)]
    pub bw_sigma: f64,
    /// Empirical bandwidth samples instead (one Mbit/s value a line).
    #[arg(long)]
    pub bw_samples: Option<PathBuf>,
    /// Where alloc.csv and alloc.png go.
    #[arg(long, default_value = "out/sim-alloc")]
    pub out: PathBuf,
}

pub fn alloc(a: &AllocArgs) -> Result<()> {
    if a.networks == 0 || a.variances.iter().any(|v| !(0.0..=10.0).contains(v)) {
        bail!("--networks must be positive and --variances fractions from 0 to 10");
    }
    let base = sim_config(a)?;
    let trace = sim::trace(&base);
    let t0 = Instant::now();
    let mut results: Vec<SimResult> = Vec::new();
    for name in &a.policies {
        if policy_by_name(name).is_none() {
            bail!("unknown policy `{name}` (paper, no-migration, repack)");
        }
        for &v in &a.variances {
            let cfg = SimConfig {
                max_variance: v,
                ..base.clone()
            };
            let mut p = policy_by_name(name).expect("checked");
            results.push(sim::run(&cfg, &trace, p.as_mut()));
        }
    }
    let elapsed = t0.elapsed();
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    let csv = table(&results);
    let csv_path = a.out.join("alloc.csv");
    std::fs::write(&csv_path, csv).with_context(|| format!("writing {}", csv_path.display()))?;
    let series = series(&a.policies, &results);
    let png = a.out.join("alloc.png");
    let labelled = line_chart(
        &png,
        "Bandwidth revisions granted (paper 000 Fig. 10)",
        "maximum variance (%)",
        "revisions granted (%)",
        &series,
    )?;
    println!(
        "\n{} networks, {} runs in {:.2?}; wrote {} and {}{}",
        a.networks,
        results.len(),
        elapsed,
        csv_path.display(),
        png.display(),
        if labelled {
            ""
        } else {
            " (no font found: chart without labels; install fonts-dejavu-core)"
        }
    );
    println!(
        "bandwidth model: {}",
        match &a.bw_samples {
            Some(p) => format!("empirical samples from {}", p.display()),
            None => format!(
                "log-normal, median {} Mbit/s, sigma {} (Prism's assumption: the PlanetLab measurements are not available; see docs/experiments/allocation.md)",
                a.bw_median, a.bw_sigma
            ),
        }
    );
    Ok(())
}

/// Each policy's revisions granted against the maximum variance, as a
/// chart's series.
fn series(policies: &[String], results: &[SimResult]) -> Vec<Series> {
    policies
        .iter()
        .map(|p| Series {
            label: p.clone(),
            points: results
                .iter()
                .filter(|r| &r.policy == p)
                .map(|r| (r.max_variance * 100.0, r.granted_pct()))
                .collect(),
        })
        .collect()
}

/// The simulation the arguments describe (before the variance is set).
fn sim_config(a: &AllocArgs) -> Result<SimConfig> {
    let bandwidth = match &a.bw_samples {
        Some(p) => {
            let text =
                std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
            BandwidthDist::from_samples(&text)
                .map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?
        }
        None => BandwidthDist::LogNormal {
            median_mbps: a.bw_median,
            sigma: a.bw_sigma,
            cap_mbps: a.hw_mbps,
        },
    };
    let capacity = Capacity {
        hw_regions: a.hw_regions,
        hw_mbps: a.hw_mbps,
        sw_mbps: a.sw_mbps,
        ..Capacity::PAPER
    };
    Ok(SimConfig {
        networks: a.networks,
        seed: a.seed,
        capacity,
        bandwidth,
        ..Default::default()
    })
}

/// The results as CSV, each printed as a table row on the way.
fn table(results: &[SimResult]) -> String {
    let mut csv = String::from(
        "policy,max_variance,networks,admitted,rejected,revisions,granted_pct,increases,increases_granted_pct,migrations,migrations_to_hw,migrations_to_sw,downtime_s,mean_active\n",
    );
    println!(
        "{:<13} {:>8} {:>9} {:>10} {:>12} {:>10} {:>11} {:>9}",
        "policy",
        "variance",
        "granted%",
        "increases",
        "increases ok%",
        "migrations",
        "downtime s",
        "rejected"
    );
    for r in results {
        let _ = writeln!(
            csv,
            "{},{},{},{},{},{},{:.3},{},{:.3},{},{},{},{:.0},{:.2}",
            r.policy,
            r.max_variance,
            r.networks,
            r.admitted,
            r.rejected,
            r.revisions,
            r.granted_pct(),
            r.increases,
            r.increases_granted_pct(),
            r.migrations,
            r.migrations_to_hw,
            r.migrations_to_sw,
            r.downtime_s,
            r.mean_active
        );
        println!(
            "{:<13} {:>7.0}% {:>8.2}% {:>10} {:>11.2}% {:>10} {:>11.0} {:>9}",
            r.policy,
            r.max_variance * 100.0,
            r.granted_pct(),
            r.increases,
            r.increases_granted_pct(),
            r.migrations,
            r.downtime_s,
            r.rejected
        );
    }
    csv
}
