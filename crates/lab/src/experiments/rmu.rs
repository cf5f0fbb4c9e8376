//! `prism sim rmu`: paper 004's reconfiguration managers (Table 4, Figs 3a,
//! 3b and 4), on Prism's model of the router.

use super::plot::{Series, line_chart};
use anyhow::{Context, Result};
use prism_placement::rmu::{self, Costs, PAPER_TABLE4, Static, Traffic, manager_by_name};
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct RmuArgs {
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Stability periods per run.
    #[arg(long, default_value_t = 60)]
    pub periods: usize,
    /// Where the CSV and PNG files go.
    #[arg(long, default_value = "out/sim-rmu")]
    pub out: PathBuf,
}

const MANAGERS: [&str; 3] = ["distribution", "fifo", "adaptive"];

fn speedups(costs: &Costs, t: Traffic) -> Vec<(String, f64, usize)> {
    let tr = rmu::trace(&t, costs);
    let (base, _) = rmu::run(costs, &tr, &mut Static);
    MANAGERS
        .iter()
        .map(|m| {
            let mut mgr = manager_by_name(m, *costs).expect("known manager");
            let (time, reconfigs) = rmu::run(costs, &tr, mgr.as_mut());
            (m.to_string(), base / time, reconfigs)
        })
        .collect()
}

pub fn rmu(a: &RmuArgs) -> Result<()> {
    let costs = Costs::default();
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    table4(a, &costs)?;
    // Figures 3a and 3b: speedup against network stability.
    let stabilities = [5.0, 10.0, 15.0, 20.0, 30.0, 40.0];
    let mut csv = String::from("figure,stability_ms,spikes,manager,speedup,reconfigurations\n");
    let s3a = figure(a, &costs, ("3a", 0), &stabilities, false, &mut csv);
    let s3b = figure(a, &costs, ("3b", 2), &stabilities, false, &mut csv);
    let s4 = figure(
        a,
        &costs,
        ("4", 0),
        &[1.0, 2.0, 3.0, 4.0, 5.0],
        true,
        &mut csv,
    );
    std::fs::write(a.out.join("speedup.csv"), &csv)?;
    let labelled = charts(a, [&s3a, &s3b, &s4])?;
    println!("\nspeedup over the static Config_A system (higher is better)");
    println!(
        "{:<7} {:>13} {:>7} {}",
        "figure",
        "stability ms",
        "spikes",
        MANAGERS.map(|m| format!("{m:>14}")).join("")
    );
    for l in csv.lines().skip(1).collect::<Vec<_>>().chunks(3) {
        let f: Vec<Vec<&str>> = l.iter().map(|x| x.split(',').collect()).collect();
        println!(
            "{:<7} {:>13} {:>7} {}",
            f[0][0],
            f[0][1],
            f[0][2],
            f.iter()
                .map(|x| format!("{:>9} ({:>2})", x[4], x[5]))
                .collect::<String>()
        );
    }
    println!(
        "\nwrote {}/table4.csv, speedup.csv, fig3a.png, fig3b.png, fig4.png{}; (n) = reconfigurations; model, not hardware: see docs/experiments/reconfiguration.md",
        a.out.display(),
        if labelled {
            ""
        } else {
            " (no font found: charts without labels)"
        }
    );
    Ok(())
}

/// Table 4, the paper's figures beside the model's, printed and written.
fn table4(a: &RmuArgs, costs: &Costs) -> Result<()> {
    let model = rmu::table4(costs);
    let dists = ["60/20/20", "20/60/20", "20/20/60"];
    let cols = ["Config_A", "Config_B", "Config_C", "Reconfiguration"];
    let mut csv = String::from("distribution,configuration,paper_us,prism_us,difference_pct\n");
    println!(
        "Table 4: µs to process 100 packets of 512 B (paper / Prism's model, clock 133 MHz inferred)"
    );
    println!("{:<10} {}", "", cols.map(|c| format!("{c:>18}")).join(""));
    for (r, d) in dists.iter().enumerate() {
        let mut line = format!("{d:<10}");
        for (c, name) in cols.iter().enumerate() {
            let (p, m) = (PAPER_TABLE4[r][c], model[r][c]);
            let _ = write!(line, "{:>18}", format!("{p:.0} / {m:.0}"));
            let _ = writeln!(csv, "{d},{name},{p},{m:.1},{:.1}", 100.0 * (m - p) / p);
        }
        println!("{line}");
    }
    std::fs::write(a.out.join("table4.csv"), csv)?;
    Ok(())
}

/// Figures 3a, 3b and 4 as charts; false where no font labels them.
fn charts(a: &RmuArgs, [s3a, s3b, s4]: [&[Series]; 3]) -> Result<bool> {
    let mut labelled = true;
    labelled &= line_chart(
        &a.out.join("fig3a.png"),
        "Speedup over static Config_A, steady traffic (paper 004 Fig. 3a)",
        "network stability (ms)",
        "speedup",
        s3a,
    )?;
    labelled &= line_chart(
        &a.out.join("fig3b.png"),
        "Speedup with 2 spikes of 2 ms per period (paper 004 Fig. 3b)",
        "network stability (ms)",
        "speedup",
        s3b,
    )?;
    labelled &= line_chart(
        &a.out.join("fig4.png"),
        "Speedup against spikes per 20 ms period (paper 004 Fig. 4)",
        "spikes per period",
        "speedup",
        s4,
    )?;
    Ok(labelled)
}

/// One figure's runs: each manager's speedup at each point of `xs`
/// (stabilities in ms, or spikes per 20 ms period), written to `csv`.
fn figure(
    a: &RmuArgs,
    costs: &Costs,
    (name, spikes): (&str, usize),
    xs: &[f64],
    x_is_spikes: bool,
    csv: &mut String,
) -> Vec<Series> {
    let mut series: Vec<Series> = MANAGERS
        .iter()
        .map(|m| Series {
            label: m.to_string(),
            points: vec![],
        })
        .collect();
    for &x in xs {
        let (stability_ms, n_spikes) = if x_is_spikes {
            (20.0, x as usize)
        } else {
            (x, spikes)
        };
        let t = Traffic {
            stability_us: stability_ms * 1000.0,
            periods: a.periods,
            spikes: n_spikes,
            spike_us: 2000.0,
            fluctuation: 0.05,
            seed: a.seed,
        };
        for (i, (m, s, n)) in speedups(costs, t).into_iter().enumerate() {
            let _ = writeln!(csv, "{name},{stability_ms},{n_spikes},{m},{s:.4},{n}");
            series[i].points.push((x, s));
        }
    }
    series
}
