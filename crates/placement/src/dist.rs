//! Bandwidth distributions for the simulator.
//!
//! Paper 000 §5.4 draws network bandwidths from "a sample bandwidth
//! distribution measured from PlanetLab nodes" (Lee et al., PAM 2005). The
//! measurements themselves are not available to this project (no public data
//! set of them could be found from here, and the paper's figures give no
//! table of values), so the default is a log-normal model whose parameters
//! are Prism's assumption: median 10 Mbit/s, σ = 1.0 (mean ≈ 16.5 Mbit/s),
//! capped at 1000 Mbit/s — the shape wide-area available-bandwidth samples
//! usually take (many slow paths, a long tail of fast ones). An empirical
//! sample list (one Mbit/s value per line) can be given instead, and the
//! simulator's statistics are tested against whichever is configured.

use rand::Rng;

#[derive(Debug, Clone, PartialEq)]
pub enum BandwidthDist {
    /// exp(N(ln median, sigma²)), capped.
    LogNormal {
        median_mbps: f64,
        sigma: f64,
        cap_mbps: f64,
    },
    /// Uniform choice among measured samples.
    Empirical(Vec<f64>),
}

impl Default for BandwidthDist {
    fn default() -> Self {
        BandwidthDist::LogNormal {
            median_mbps: 10.0,
            sigma: 1.0,
            cap_mbps: 1000.0,
        }
    }
}

/// A standard normal deviate (Box–Muller), from two uniforms.
pub fn standard_normal(rng: &mut impl Rng) -> f64 {
    let u1: f64 = rng.random::<f64>().max(f64::MIN_POSITIVE);
    let u2: f64 = rng.random();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// An exponential deviate with the given mean.
pub fn exponential(rng: &mut impl Rng, mean: f64) -> f64 {
    let u: f64 = rng.random::<f64>().max(f64::MIN_POSITIVE);
    -mean * u.ln()
}

impl BandwidthDist {
    pub fn sample(&self, rng: &mut impl Rng) -> f64 {
        match self {
            BandwidthDist::LogNormal {
                median_mbps,
                sigma,
                cap_mbps,
            } => (median_mbps.ln() + sigma * standard_normal(rng))
                .exp()
                .min(*cap_mbps),
            BandwidthDist::Empirical(v) => v[rng.random_range(0..v.len())],
        }
    }

    /// Reads one positive value (Mbit/s) per line; `#` starts a comment.
    pub fn from_samples(text: &str) -> Result<Self, String> {
        let mut v = Vec::new();
        for (i, l) in text.lines().enumerate() {
            let t = l.split('#').next().unwrap_or("").trim();
            if t.is_empty() {
                continue;
            }
            let x: f64 = t
                .parse()
                .map_err(|_| format!("line {}: `{t}` is not a number", i + 1))?;
            if !(x.is_finite() && x > 0.0) {
                return Err(format!("line {}: bandwidth must be positive", i + 1));
            }
            v.push(x);
        }
        if v.is_empty() {
            return Err("no samples".into());
        }
        Ok(BandwidthDist::Empirical(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn lognormal_median_and_spread() {
        let d = BandwidthDist::default();
        let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
        let mut v: Vec<f64> = (0..200_000).map(|_| d.sample(&mut rng)).collect();
        v.sort_by(f64::total_cmp);
        let median = v[v.len() / 2];
        assert!((median - 10.0).abs() < 0.2, "median {median}");
        // ln-space standard deviation ≈ sigma: the 84th percentile is median·e.
        let p84 = v[(v.len() as f64 * 0.8413) as usize];
        assert!(
            (p84 / median - std::f64::consts::E).abs() < 0.08,
            "p84/median {}",
            p84 / median
        );
    }

    #[test]
    fn exponential_mean() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(2);
        let m: f64 = (0..200_000)
            .map(|_| exponential(&mut rng, 64.0))
            .sum::<f64>()
            / 200_000.0;
        assert!((m - 64.0).abs() < 0.6, "mean {m}");
    }

    #[test]
    fn samples_file() {
        let d = BandwidthDist::from_samples("# Mbit/s\n1.5\n\n20 # fast\n").unwrap();
        assert_eq!(d, BandwidthDist::Empirical(vec![1.5, 20.0]));
        assert!(
            BandwidthDist::from_samples("x")
                .unwrap_err()
                .contains("line 1")
        );
        assert!(BandwidthDist::from_samples("-3").is_err());
    }
}
