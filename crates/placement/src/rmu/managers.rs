//! The reconfiguration managers compared: a static configuration, paper
//! 004's distribution and FIFO managers, and Prism's adaptive one.

use super::*;

fn dominant(m: Mix, threshold: f64) -> Option<UnitConfig> {
    if m.fwd >= threshold {
        Some(CONFIG_A)
    } else if m.enc >= threshold {
        Some(CONFIG_B)
    } else if m.comp >= threshold {
        Some(CONFIG_C)
    } else {
        None
    }
}

/// Per-flow packet counters read every `len_us`: the distribution managers'
/// view of the traffic.
#[derive(Debug, Clone, Copy)]
struct Window {
    acc: Mix,
    us: f64,
    len_us: f64,
}

impl Window {
    fn new(len_us: f64) -> Self {
        Self {
            acc: Mix::ZERO,
            us: 0.0,
            len_us,
        }
    }

    /// Adds one step; returns the window's mix when it is complete.
    fn push(&mut self, m: Mix) -> Option<Mix> {
        self.acc = self.acc.plus(m);
        self.us += STEP_US;
        if self.us < self.len_us {
            return None;
        }
        let mix = self.acc.normalised();
        *self = Window::new(self.len_us);
        Some(mix)
    }
}

/// Never reconfigures (the static Config_A system).
#[derive(Debug, Default, Clone, Copy)]
pub struct Static;

impl Manager for Static {
    fn name(&self) -> &'static str {
        "static"
    }
    fn decide(&mut self, _: &Observation) -> UnitConfig {
        CONFIG_A
    }
}

/// Paper 004 §3.2, first scheme: per-flow packet counters over a short
/// window; a flow at or above the threshold (50%) gets its configuration.
#[derive(Debug, Clone)]
pub struct DistributionManager {
    pub threshold: f64,
    window: Window,
    want: UnitConfig,
}

impl Default for DistributionManager {
    fn default() -> Self {
        Self {
            threshold: 0.5,
            window: Window::new(500.0),
            want: CONFIG_A,
        }
    }
}

impl Manager for DistributionManager {
    fn name(&self) -> &'static str {
        "distribution"
    }
    fn decide(&mut self, o: &Observation) -> UnitConfig {
        if let Some(c) = self
            .window
            .push(o.mix)
            .and_then(|m| dominant(m, self.threshold))
        {
            self.want = c;
        }
        self.want
    }
}

/// Paper 004 §3.2, second scheme: stay until FIFO_DES or FIFO_LZC passes a
/// high threshold, then give that flow its units; when both are nearly empty
/// the processors are the bottleneck and Config_A returns.
#[derive(Debug, Clone, Copy)]
pub struct FifoManager {
    pub high: f64,
    pub low: f64,
}

impl Default for FifoManager {
    fn default() -> Self {
        Self {
            high: 0.75,
            low: 0.1,
        }
    }
}

impl Manager for FifoManager {
    fn name(&self) -> &'static str {
        "fifo"
    }
    fn decide(&mut self, o: &Observation) -> UnitConfig {
        if o.fifo_des >= self.high && o.fifo_des >= o.fifo_lz {
            CONFIG_B
        } else if o.fifo_lz >= self.high {
            CONFIG_C
        } else if o.fifo_des <= self.low && o.fifo_lz <= self.low {
            CONFIG_A
        } else {
            o.current
        }
    }
}

/// Prism's manager, the paper's own suggestion at the end of §4: detect how
/// stable the traffic is and reconfigure only when it pays.
///
/// It keeps the distribution counters, but a change of dominant flow must
/// persist for a confirmation time before it counts, and the manager learns
/// how long mixes last (the median of the recent confirmed regimes). It
/// reconfigures only if, over the regime's expected remaining life, the new
/// configuration's gain exceeds what the 2.5 ms in the reduced configuration
/// costs, using the router's cost model. Short spikes are therefore ignored
/// once they have been seen to be short, and unstable traffic keeps the
/// current configuration, as §4 recommends below 10 ms of stability.
#[derive(Debug, Clone)]
pub struct AdaptiveManager {
    pub threshold: f64,
    pub confirm_us: f64,
    pub costs: Costs,
    window: Window,
    candidate: Option<(UnitConfig, f64)>,
    regime_start_us: f64,
    regime_config: UnitConfig,
    lengths: Vec<f64>,
    want: UnitConfig,
    last_mix: Mix,
}

impl AdaptiveManager {
    pub fn new(costs: Costs) -> Self {
        Self {
            threshold: 0.5,
            confirm_us: 1000.0,
            costs,
            window: Window::new(500.0),
            candidate: None,
            regime_start_us: 0.0,
            regime_config: CONFIG_A,
            lengths: Vec::new(),
            want: CONFIG_A,
            last_mix: Mix::FWD,
        }
    }

    fn expected_length(&self) -> f64 {
        if self.lengths.is_empty() {
            return 20_000.0; // until it has seen traffic, assume the paper's middle case
        }
        let mut v = self.lengths.clone();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    }
}

impl Manager for AdaptiveManager {
    fn name(&self) -> &'static str {
        "adaptive"
    }
    fn decide(&mut self, o: &Observation) -> UnitConfig {
        let Some(mix) = self.window.push(o.mix) else {
            return self.want;
        };
        self.last_mix = mix;
        if let Some(seen) = dominant(mix, self.threshold) {
            if seen == self.regime_config {
                self.candidate = None;
            } else {
                let since = match self.candidate {
                    Some((c, t)) if c == seen => t,
                    _ => {
                        self.candidate = Some((seen, o.now_us));
                        o.now_us
                    }
                };
                if o.now_us - since >= self.confirm_us {
                    // A new regime is confirmed: record the old one's length.
                    self.lengths.push(since - self.regime_start_us);
                    if self.lengths.len() > 16 {
                        self.lengths.remove(0);
                    }
                    self.regime_start_us = since;
                    self.regime_config = seen;
                    self.candidate = None;
                }
            }
        }
        if self.want == self.regime_config {
            return self.want;
        }
        // The configuration does not suit the regime: switch if it pays over
        // the regime's expected remaining life. A regime that has already
        // lasted long is expected to last about as long again.
        let elapsed = o.now_us - self.regime_start_us;
        let remaining = (self.expected_length() - elapsed).max(elapsed);
        let c = &self.costs;
        let target = self.regime_config;
        let r_cur = c.rate(&o.current, mix);
        let r_new = c.rate(&target, mix);
        let r_reconf = c.rate(&RECONFIGURING, mix);
        let work = remaining * r_cur;
        let during = (c.reconfig_us * r_reconf).min(work);
        let switch = during / r_reconf + (work - during) / r_new;
        if switch < remaining {
            self.want = target;
        }
        self.want
    }
}
