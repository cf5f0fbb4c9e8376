//! `prism experiment`: the papers' reconfiguration experiments with
//! Prism's figures beside the papers' (docs/experiments/live-reconfiguration.md).
//!
//! - `reconfig`: paper 000 Figs. 6 and 7, live (real hosts, packets and
//!   software routers; the hardware tier's times modelled);
//! - `power`: paper 000 Table 2 and paper 003 Table 2 from the power model.

use super::plot::{Series, line_chart};
use crate::bench::reconfig::{self, Timeline};
use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use prism_pipeline::control::power::{self, RegionState};
use prism_pipeline::control::reconfig::Strategy;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Subcommand, Debug)]
pub enum Experiment {
    /// Paper 000 Figs. 6 and 7 live: B replaced by B' beside A, per strategy.
    Reconfig(ReconfigArgs),
    /// Paper 000 Fig. 8: throughput per network against the number of
    /// hardware networks, partial against static reconfiguration (the
    /// pipeline on a virtual clock, not live).
    Fig8 {
        #[arg(long, default_value = "docs/experiments/reconfig")]
        out: PathBuf,
    },
    /// Paper 000 Table 2 and paper 003 Table 2 from Prism's power model.
    Power {
        /// Where the CSV goes.
        #[arg(long, default_value = "docs/experiments/reconfig")]
        out: PathBuf,
    },
}

#[derive(Args, Debug)]
pub struct ReconfigArgs {
    /// Device profiles (their modelled reconfiguration times).
    #[arg(long, value_delimiter = ',', default_values_t = ["netfpga-v2p".to_string(), "alveo-u280".to_string()])]
    pub profiles: Vec<String>,
    #[arg(long, value_delimiter = ',', default_values_t = [Strategy::Full, Strategy::Partial, Strategy::Fallback])]
    pub strategies: Vec<Strategy>,
    /// Frames per second offered to each of A and B.
    #[arg(long, default_value_t = 10_000.0)]
    pub pps: f64,
    /// When B is replaced, s (paper 000: 3 s).
    #[arg(long, default_value_t = 3.0)]
    pub at: f64,
    /// Traffic after the node says the reconfiguration is done, s.
    #[arg(long, default_value_t = 3.0)]
    pub tail: f64,
    #[arg(long, default_value = "docs/experiments/reconfig")]
    pub out: PathBuf,
}

pub fn run(e: Experiment) -> Result<()> {
    match e {
        Experiment::Reconfig(a) => reconfig(&a),
        Experiment::Power { out } => power_tables(&out),
        Experiment::Fig8 { out } => fig8(&out),
    }
}

fn reconfig(a: &ReconfigArgs) -> Result<()> {
    anyhow::ensure!(
        prism_io::netns::have_privileges(),
        "the live experiment needs root (namespaces, raw sockets)"
    );
    std::fs::create_dir_all(&a.out).with_context(|| format!("{}", a.out.display()))?;
    println!(
        "paper 000 Figs. 6-7 live: A and B in hardware at {:.0} frames/s each (64 B UDP, numbered); at t = {:.1} s B becomes B' (destination -> source+destination routing); throughput per 100 ms counted at the receiving hosts. Hardware tier and its reconfiguration times MODELLED (Prism runs no FPGA); hosts, packets and software routers real.",
        a.pps, a.at
    );
    let mut csv = String::from("profile,strategy,t_s,network,received_pps\n");
    let mut summary = String::from(
        "profile,strategy,modelled_ms,measured_ms,a_lost,b_lost,b_lost_ms,a_control_lost,b_control_lost\n",
    );
    println!(
        "{:<13} {:<9} {:>11} {:>11} {:>7} {:>8} {:>9}",
        "profile", "strategy", "modelled ms", "measured ms", "A lost", "B lost", "B lost ms"
    );
    for profile in &a.profiles {
        let mut runs = Vec::new();
        for &st in &a.strategies {
            let at = Duration::from_secs_f64(a.at);
            let total = Duration::from_secs_f64(a.tail);
            let io = prism_node::IoSettings::default();
            let t = reconfig::run_one(
                profile,
                st,
                a.pps,
                at,
                total,
                io,
                &crate::demo::hosts::demo_options(),
            )
            .with_context(|| format!("{profile}, {}", st.as_str()))?;
            report_run(profile, st, &t, &mut summary);
            rows(&mut csv, &t);
            runs.push(t);
        }
        for t in &runs {
            chart(a, t)?;
        }
    }
    let path = a.out.join("fig6-7.csv");
    std::fs::write(&path, csv)?;
    let sum = a.out.join("fig6-7-summary.csv");
    std::fs::write(&sum, summary)?;
    println!(
        "wrote {}, {} and a chart per run",
        path.display(),
        sum.display()
    );
    Ok(())
}

/// One run's line on the terminal and in the summary: the modelled and
/// measured times and what each network lost; then where the node dropped.
fn report_run(profile: &str, st: Strategy, t: &Timeline, summary: &mut String) {
    let (modelled, measured) = t.durations();
    let f = |x: Option<f64>| x.map_or("-".into(), |m| format!("{m:.1}"));
    println!(
        "{:<13} {:<9} {:>11} {:>11} {:>7} {:>8} {:>9.1}",
        profile,
        st.as_str(),
        f(modelled),
        f(measured),
        t.lost[0],
        t.lost[1],
        t.lost[1] as f64 / t.pps * 1e3
    );
    let _ = writeln!(
        summary,
        "{profile},{},{},{},{},{},{:.1},{},{}",
        st.as_str(),
        f(modelled),
        f(measured),
        t.lost[0],
        t.lost[1],
        t.lost[1] as f64 / t.pps * 1e3,
        t.control_lost[0],
        t.control_lost[1]
    );
    println!("{}", t.node_drops);
}

fn label(t: &Timeline, k: usize, time: f64) -> &'static str {
    match (k, time >= t.at_s) {
        (0, _) => "A",
        (_, false) => "B",
        (_, true) => "B'",
    }
}

fn rows(csv: &mut String, t: &Timeline) {
    for (k, s) in t.series.iter().enumerate() {
        for (i, v) in s.iter().enumerate() {
            let time = i as f64 * t.bin_ms as f64 / 1e3;
            let _ = writeln!(
                csv,
                "{},{},{time:.1},{},{v:.0}",
                t.profile,
                t.strategy.as_str(),
                label(t, k, time)
            );
        }
    }
}

fn chart(a: &ReconfigArgs, t: &Timeline) -> Result<()> {
    let mut series = Vec::new();
    for (k, s) in t.series.iter().enumerate() {
        let pts = |after: bool| {
            s.iter()
                .enumerate()
                .map(|(i, v)| (i as f64 * t.bin_ms as f64 / 1e3, *v / 1e3))
                .filter(|(x, _)| (*x >= t.at_s) == after || k == 0)
                .collect::<Vec<_>>()
        };
        if k == 0 {
            series.push(Series {
                label: "A".into(),
                points: pts(false),
            });
        } else {
            series.push(Series {
                label: "B".into(),
                points: pts(false),
            });
            series.push(Series {
                label: "B'".into(),
                points: pts(true),
            });
        }
    }
    let png = a
        .out
        .join(format!("fig6-7-{}-{}.png", t.profile, t.strategy.as_str()));
    line_chart(
        &png,
        &format!(
            "{} reconfiguration of B on {} (modelled times), live traffic",
            t.strategy.as_str(),
            t.profile
        ),
        "time (s)",
        "received (thousand frames/s)",
        &series,
    )?;
    Ok(())
}

fn power_tables(out: &std::path::Path) -> Result<()> {
    std::fs::create_dir_all(out)?;
    let mut csv = String::from("table,case,paper_mw,prism_mw\n");
    println!("Power: Prism's MODEL (no FPGA is measured), beside the papers' tables.");
    let m = power::model("netfpga-v2p").context("netfpga model")?;
    let both = m.total_mw(2, 2, RegionState::Blank);
    let one_blank = m.total_mw(2, 1, RegionState::Blank);
    let one_gated = m.total_mw(2, 1, RegionState::Gated);
    println!("paper 000 Table 2 (NetFPGA, 2 PR regions, 62.5 MHz):");
    for (case, paper, prism) in [
        ("device static", 158.75, m.device_static_mw),
        ("static region", 593.56, m.static_region_mw),
        ("PR-Region1", 173.38, m.region_mw[0]),
        ("PR-Region2", 165.68, m.region_mw[1]),
        ("total, both regions active", 1091.37, both),
    ] {
        println!("  {case:<34} paper {paper:>8.2} mW   Prism {prism:>8.2} mW");
        let _ = writeln!(csv, "000-table2,{case},{paper},{prism:.2}");
    }
    let k = Some(prism_pipeline::ModuleKind::DestinationRouting);
    let blank1 = both - m.region_power(0, RegionState::Active, k) + m.blank_mw;
    let (s1, s2) = (
        100.0 * (1.0 - blank1 / both),
        100.0 * (1.0 - one_blank / both),
    );
    println!(
        "  one region blanked: {blank1:.2} / {one_blank:.2} mW (region 1 / 2), {s1:.1}% / {s2:.1}% saved (paper: ~16%); region 2 clock-gated instead: {one_gated:.2} mW"
    );
    let _ = writeln!(csv, "000-5.5,blanking region 1 saving %,16,{s1:.1}");
    let _ = writeln!(csv, "000-5.5,blanking region 2 saving %,16,{s2:.1}");
    paper003_power(&mut csv);
    println!(
        "The model is calibrated on these tables: agreement checks its arithmetic and calibration, not the physics."
    );
    let path = out.join("power.csv");
    std::fs::write(&path, csv)?;
    println!("wrote {}", path.display());
    Ok(())
}

/// Paper 003's Table 2 (statically configured routers) and its clock
/// gating saving, beside the model's, as lines and CSV rows.
fn paper003_power(csv: &mut String) {
    let p = power::PAPER_003_STATIC;
    println!("paper 003 Table 2 (NetFPGA, statically configured routers):");
    for (n, paper) in [(1, 846.3), (2, 925.1), (3, 1012.3), (4, 1095.0)] {
        let prism = p.total_mw(4, n, RegionState::Blank);
        println!(
            "  {n} routers{:<25} paper {paper:>8.1} mW   Prism {prism:>8.1} mW",
            ""
        );
        let _ = writeln!(csv, "003-table2,{n} routers,{paper},{prism:.1}");
    }
    let dynamic = p.total_mw(4, 2, RegionState::Blank) - p.device_static_mw;
    let saved = p.region_power(
        1,
        RegionState::Active,
        Some(prism_pipeline::ModuleKind::DestinationRouting),
    ) - p.region_power(
        1,
        RegionState::Gated,
        Some(prism_pipeline::ModuleKind::DestinationRouting),
    );
    println!(
        "  clock gating one of 2 routers saves {:.1}% of dynamic power (paper: ~10%)",
        100.0 * saved / dynamic
    );
    let _ = writeln!(
        csv,
        "003-5,gating saving %,10,{:.1}",
        100.0 * saved / dynamic
    );
}

/// Fig. 8's series as a table: each line's Mbit/s per network at 1, 2,
/// 5, 10 and 20 networks.
fn say_per_network(series: &[Series]) {
    println!("{:<22} per-network Mbit/s at 1, 2, 5, 10, 20 networks", "");
    for s in series {
        let at: Vec<String> = [1, 2, 5, 10, 20]
            .iter()
            .map(|n| format!("{:7.1}", s.points[n - 1].1))
            .collect();
        println!("{:<22} {}", s.label, at.join(" "));
    }
}

fn fig8(out: &std::path::Path) -> Result<()> {
    std::fs::create_dir_all(out)?;
    let counts: Vec<usize> = (1..=20).collect();
    let t = std::time::Instant::now();
    let points = crate::experiments::fig8::figure(&counts, &[30.0, 180.0])?;
    println!(
        "paper 000 Fig. 8 on the virtex5-lx330t profile (MODELLED times: 0.6 s per region, 12 s full), each network reconfigured once per period; frames through the real pipeline on a VIRTUAL clock (not live); {} points in {:.1?}",
        points.len(),
        t.elapsed()
    );
    let mut csv = String::from("networks,period_s,strategy,capacity_mbps,per_network_mbps\n");
    let mut series: Vec<Series> = Vec::new();
    for p in &points {
        let _ = writeln!(
            csv,
            "{},{},{},{},{:.2}",
            p.networks,
            p.period_s,
            p.strategy.as_str(),
            p.capacity_mbps,
            p.per_network_mbps
        );
        let label = format!(
            "{} {:.0} s, {} Gbit/s",
            if p.strategy == Strategy::Full {
                "SR"
            } else {
                "PR"
            },
            p.period_s,
            p.capacity_mbps / 1000.0
        );
        match series.iter_mut().find(|s| s.label == label) {
            Some(s) => s.points.push((p.networks as f64, p.per_network_mbps)),
            None => series.push(Series {
                label,
                points: vec![(p.networks as f64, p.per_network_mbps)],
            }),
        }
    }
    say_per_network(&series);
    let path = out.join("fig8.csv");
    std::fs::write(&path, csv)?;
    let png = out.join("fig8.png");
    line_chart(
        &png,
        "Throughput per network, reconfigured every 30 s / 180 s (Virtex-5 model)",
        "hardware networks",
        "Mbit/s per network",
        &series,
    )?;
    println!("wrote {} and {}", path.display(), png.display());
    Ok(())
}
