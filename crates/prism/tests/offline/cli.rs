//! The `prism` binary end to end: real captures through `prism run`, output
//! captures checked with etherparse, and the errors a user sees.

use etherparse::{InternetSlice, SlicedPacket};
use std::path::{Path, PathBuf};
use std::process::Command;

fn prism() -> Command {
    Command::new(env!("CARGO_BIN_EXE_prism"))
}

/// The shared captures' directory (a gate: see `prism_testkit::gates`).
fn shared_pcaps(test: &str) -> Option<PathBuf> {
    prism_testkit::shared_data(test, "pcap")
}

fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("prism-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

const ROUTE_ALL: &str = r#"
[[port]]
name = "in"
[[port]]
name = "out"

[[network]]
name = "all"
tier = "hardware"
forwarding = "destination"
route = [{ prefix = "0.0.0.0/0", action = { port = "out", decrement_ttl = true } }]
"#;

/// Frames of a capture, read with pcap-file directly (not through prism-io).
fn count_frames(p: &Path) -> usize {
    let f = std::fs::File::open(p).unwrap();
    let mut r = pcap_file::pcap::PcapReader::new(f).unwrap();
    let mut n = 0;
    while let Some(x) = r.next_packet() {
        x.unwrap();
        n += 1;
    }
    n
}

fn read_out(p: &Path) -> Vec<Vec<u8>> {
    let mut r = pcap_file::pcap::PcapReader::new(std::fs::File::open(p).unwrap()).unwrap();
    let mut v = Vec::new();
    while let Some(x) = r.next_packet() {
        v.push(x.unwrap().data.into_owned());
    }
    v
}

#[test]
fn every_shared_capture_runs_and_is_accounted_for() {
    let Some(pcaps) = shared_pcaps("every_shared_capture_runs_and_is_accounted_for") else {
        return;
    };
    let dir = tmpdir("captures");
    let scenario = dir.join("all.toml");
    std::fs::write(&scenario, format!("default_network = \"all\"\n{ROUTE_ALL}")).unwrap();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&pcaps)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(
        files.len() >= 30,
        "expected the shared captures, found {}",
        files.len()
    );
    let mut forwarded_total = 0;
    let mut not_ipv4_total = 0;
    for f in &files {
        let out = dir.join("out.pcap");
        let o = prism()
            .args(["run", "--json", "--config"])
            .arg(&scenario)
            .arg(format!("--pcap-in=in={}", f.display()))
            .arg(format!("--pcap-out=out={}", out.display()))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{}: {stderr}", f.display());
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let c = &v["counters"];
        let frames = count_frames(f);
        assert_eq!(
            c["rx_packets"].as_u64().unwrap() as usize,
            frames,
            "{}: every frame enters",
            f.display()
        );
        let net = &c["networks"][0];
        let (tx, dropped) = (
            net["tx_packets"].as_u64().unwrap(),
            net["dropped"].as_u64().unwrap(),
        );
        let unmapped: u64 = c["unmapped_drops"]
            .as_object()
            .unwrap()
            .values()
            .map(|n| n.as_u64().unwrap())
            .sum();
        assert_eq!(
            tx + dropped + unmapped,
            frames as u64,
            "{}: every frame accounted for",
            f.display()
        );
        // Real captures are well formed: nothing may fail to parse.
        assert_eq!(unmapped, 0, "{}: {}", f.display(), c["unmapped_drops"]);
        for (reason, n) in net["drops"].as_object().unwrap() {
            let reason = reason.as_str();
            // Only non-IPv4 frames, and IPv4 whose TTL runs out (multicast
            // and VXLAN frames sent with TTL 1), may be dropped.
            assert!(
                ["matching/not-ipv4", "action/ttl-expired"].contains(&reason),
                "{}: unexpected drop {reason}",
                f.display()
            );
            if reason == "matching/not-ipv4" {
                not_ipv4_total += n.as_u64().unwrap();
            } else {
                let ttl1 = read_out(f).iter().filter(|fr| matches!(SlicedPacket::from_ethernet(fr).ok().and_then(|s| s.net), Some(InternetSlice::Ipv4(ip)) if ip.header().ttl() <= 1)).count();
                assert_eq!(
                    n.as_u64().unwrap() as usize,
                    ttl1,
                    "{}: TTL drops are exactly the TTL<=1 frames",
                    f.display()
                );
            }
        }
        // Each forwarded frame: valid IPv4 per etherparse, TTL one less than some input frame's.
        let outs = read_out(&out);
        assert_eq!(outs.len() as u64, tx);
        for frame in &outs {
            let s = SlicedPacket::from_ethernet(frame)
                .unwrap_or_else(|e| panic!("{}: etherparse rejects output: {e}", f.display()));
            let Some(InternetSlice::Ipv4(ip)) = &s.net else {
                panic!("{}: forwarded non-IPv4", f.display())
            };
            let h = ip.header().to_header();
            assert_eq!(
                h.header_checksum,
                h.calc_header_checksum(),
                "{}: checksum",
                f.display()
            );
        }
        forwarded_total += tx;
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with("ipip__ping__veth2")
            || name.starts_with("gre-ip__ping__veth2")
            || name.starts_with("802.1ad")
        {
            assert!(tx > 0, "{name}: IPv4 traffic is forwarded");
        }
        if name.starts_with("mpls") || name.starts_with("arping") {
            assert!(
                dropped > 0 && tx == 0,
                "{name}: non-IPv4 is counted, not forwarded"
            );
        }
    }
    assert!(
        forwarded_total > 50 && not_ipv4_total > 50,
        "forwarded {forwarded_total}, not-ipv4 {not_ipv4_total}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn output_capture_matches_input_with_ttl_decremented() {
    let Some(pcaps) = shared_pcaps("output_capture_matches_input_with_ttl_decremented") else {
        return;
    };
    let dir = tmpdir("ttl");
    let scenario = dir.join("all.toml");
    std::fs::write(&scenario, format!("default_network = \"all\"\n{ROUTE_ALL}")).unwrap();
    let input = pcaps.join("ping__veth2.pcap");
    let out = dir.join("out.pcap");
    let o = prism()
        .args(["run", "--config"])
        .arg(&scenario)
        .arg(format!("--pcap-in=0={}", input.display()))
        .arg(format!("--pcap-out=out={}", out.display()))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ins: Vec<Vec<u8>> = read_out(&input)
        .into_iter()
        .filter(|f| f.len() > 13 && f[12..14] == [8, 0])
        .collect();
    let outs = read_out(&out);
    assert_eq!(ins.len(), outs.len());
    for (i, o) in ins.iter().zip(&outs) {
        let a = SlicedPacket::from_ethernet(i).unwrap();
        let b = SlicedPacket::from_ethernet(o).unwrap();
        let (Some(InternetSlice::Ipv4(x)), Some(InternetSlice::Ipv4(y))) = (&a.net, &b.net) else {
            panic!()
        };
        let (mut hx, hy) = (x.header().to_header(), y.header().to_header());
        assert_eq!(hy.time_to_live + 1, hx.time_to_live);
        hx.time_to_live -= 1;
        hx.header_checksum = hx.calc_header_checksum();
        assert_eq!(hx, hy, "only TTL and checksum change");
        assert_eq!(x.payload().payload, y.payload().payload);
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_scenario_is_a_located_error() {
    let dir = tmpdir("bad");
    let scenario = dir.join("bad.toml");
    std::fs::write(&scenario, ROUTE_ALL.replace("0.0.0.0/0", "0.0.0.0/40")).unwrap();
    let o = prism()
        .args(["run", "--config"])
        .arg(&scenario)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains(&format!("{}:11:", scenario.display())) && e.contains("bad prefix `0.0.0.0/40`"),
        "{e}"
    );
    let o = prism()
        .args(["run", "--config"])
        .arg(dir.join("missing.toml"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing.toml"));
    let o = prism()
        .args(["run", "--config"])
        .arg(scenario.with_file_name("x"))
        .arg("--pcap-in=nosuch=/dev/null")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn demo_passes_its_isolation_check() {
    let o = prism().args(["demo", "--offline"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    for n in ["red", "blue", "green", "violet", "orange"] {
        assert!(out.contains(n), "{out}");
    }
    assert!(String::from_utf8_lossy(&o.stderr).contains("isolation check: every output port"));
}

#[test]
fn sim_alloc_writes_deterministic_csv_and_png() {
    let dir = tmpdir("sim");
    let run = |out: &Path| {
        let o = prism()
            .args([
                "sim",
                "alloc",
                "--networks",
                "300",
                "--variances",
                "0.2,1.0",
                "--out",
            ])
            .arg(out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read_to_string(out.join("alloc.csv")).unwrap()
    };
    let a = run(&dir.join("a"));
    let b = run(&dir.join("b"));
    assert_eq!(a, b, "same seed, same results");
    let lines: Vec<&str> = a.lines().collect();
    assert_eq!(lines.len(), 1 + 3 * 2, "header + 3 policies x 2 variances");
    assert!(lines[0].starts_with("policy,max_variance,"));
    let png = std::fs::read(dir.join("a/alloc.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    // The baseline never migrates.
    for l in lines.iter().filter(|l| l.starts_with("no-migration,")) {
        assert_eq!(l.split(',').nth(9), Some("0"), "{l}");
    }
    let o = prism()
        .args(["sim", "alloc", "--policies", "magic"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown policy `magic`"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sim_rmu_reproduces_table4_within_tolerance() {
    let dir = tmpdir("rmu");
    let o = prism()
        .args(["sim", "rmu", "--periods", "12", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let t4 = std::fs::read_to_string(dir.join("table4.csv")).unwrap();
    let rows: Vec<&str> = t4.lines().skip(1).collect();
    assert_eq!(rows.len(), 12);
    for r in rows {
        let diff: f64 = r.split(',').nth(4).unwrap().parse().unwrap();
        assert!(diff.abs() < 7.5, "{r}");
    }
    let sp = std::fs::read_to_string(dir.join("speedup.csv")).unwrap();
    assert!(sp.lines().count() > 40);
    for f in ["fig3a.png", "fig3b.png", "fig4.png"] {
        assert_eq!(&std::fs::read(dir.join(f)).unwrap()[..4], b"\x89PNG");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn classify_writes_one_checked_match_per_header() {
    let Some(pcaps) = shared_pcaps("classify_writes_one_checked_match_per_header") else {
        return;
    };
    let data = pcaps.join("../classbench");
    let dir = tmpdir("matches");
    for (set, headers) in [("fw1_1k", 7610), ("ipc1_1k", 9325)] {
        let mut written = Vec::new();
        for tree in [false, true] {
            let out = dir.join(format!("{set}-{tree}.txt"));
            let mut cmd = prism();
            cmd.args(["tables", "classify", "--check", "--filters"])
                .arg(data.join(set))
                .arg("--trace")
                .arg(data.join(format!("{set}_trace")))
                .arg("--matches")
                .arg(&out);
            if tree {
                cmd.arg("--tree");
            }
            let o = cmd.output().unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            let stdout = String::from_utf8_lossy(&o.stdout);
            assert!(stdout.contains(&format!("all {headers} agree")), "{stdout}");
            assert_eq!(stdout.contains("decision trees"), tree, "{stdout}");
            let ids: Vec<i64> = std::fs::read_to_string(&out)
                .unwrap()
                .lines()
                .map(|l| l.parse().unwrap())
                .collect();
            let trace = std::fs::read_to_string(data.join(format!("{set}_trace"))).unwrap();
            let generators: Vec<i64> = trace
                .lines()
                .map(|l| l.split_whitespace().nth(6).unwrap().parse().unwrap())
                .collect();
            assert_eq!(ids.len(), generators.len());
            assert!(
                ids.iter().zip(&generators).all(|(m, g)| *m >= 0 && m <= g),
                "{set}: first match is the generating rule or earlier"
            );
            written.push(ids);
        }
        assert_eq!(
            written[0], written[1],
            "{set}: the tree and tuple-space search differ"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `prism sim rmu | head -3`: a reader that goes away ends the command
/// quietly (SIGPIPE, as other Unix tools), never with a panic.
#[test]
fn a_closed_stdout_ends_a_command_without_a_panic() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let dir = tmpdir("pipe");
    for args in [
        vec!["sim", "rmu", "--periods", "12", "--out"],
        vec!["profiles"],
    ] {
        let mut c = prism();
        c.args(&args);
        if args[0] == "sim" {
            c.arg(&dir);
        }
        let mut child = c
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        out.read_line(&mut first).unwrap();
        assert!(!first.is_empty(), "{args:?} printed nothing");
        drop(out);
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!err.contains("Broken pipe"), "{args:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// An output that cannot be written is an error naming the file, with a
/// non-zero exit, not a silent success.
#[test]
fn a_full_output_device_is_an_error_naming_it() {
    let Some(pcaps) = shared_pcaps("a_full_output_device_is_an_error_naming_it") else {
        return;
    };
    let dir = tmpdir("full");
    let scenario = dir.join("all.toml");
    std::fs::write(&scenario, format!("default_network = \"all\"\n{ROUTE_ALL}")).unwrap();
    let input = pcaps.join("ping__veth2.pcap");
    let o = prism()
        .args(["run", "--config"])
        .arg(&scenario)
        .arg(format!("--pcap-in=0={}", input.display()))
        .arg("--pcap-out=out=/dev/full")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("/dev/full: writing failed"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A capture cut short: the frames before the bad record are processed,
/// and the bad record is named by its number and byte offset.
#[test]
fn a_cut_capture_is_processed_up_to_the_bad_record() {
    let Some(pcaps) = shared_pcaps("a_cut_capture_is_processed_up_to_the_bad_record") else {
        return;
    };
    let dir = tmpdir("cut");
    let scenario = dir.join("all.toml");
    std::fs::write(&scenario, format!("default_network = \"all\"\n{ROUTE_ALL}")).unwrap();
    let input = pcaps.join("ping__veth2.pcap");
    let bytes = std::fs::read(&input).unwrap();
    let cut = dir.join("cut.pcap");
    std::fs::write(&cut, &bytes[..bytes.len() - 5]).unwrap();
    let whole = count_frames(&input);
    let o = prism()
        .args(["run", "--json", "--config"])
        .arg(&scenario)
        .arg(format!("--pcap-in=0={}", cut.display()))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains(&format!("record {whole} at byte")), "{err}");
    assert!(err.contains("cut short"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["counters"]["rx_packets"].as_u64().unwrap() as usize,
        whole - 1,
        "every frame before the cut is processed"
    );
    std::fs::remove_dir_all(&dir).ok();
}
