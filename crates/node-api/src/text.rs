//! How a person reads the API's answers (`prism ctl`, logs): a traced
//! packet as VPP shows one (a line for the packet, one per stage), an
//! event on one line, the device's modelled power by slot.

use crate::types::{NodeEvent, PowerView, TapView};
use std::fmt;

impl fmt::Display for TapView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let network = self
            .network
            .as_deref()
            .map_or(String::new(), |n| format!(", network `{n}`"));
        write!(
            f,
            "{} B in on {} at {}.{:09}{network}",
            self.len,
            self.port,
            self.timestamp_ns / 1_000_000_000,
            self.timestamp_ns % 1_000_000_000,
        )?;
        for s in &self.stages {
            write!(f, "\n  {:<9} {}", s.stage, s.decision)?;
        }
        Ok(())
    }
}

impl fmt::Display for NodeEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |x: Option<f64>| x.map_or("-".to_string(), |m| format!("{m:.1}"));
        let kind = serde_json::to_value(self.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        write!(
            f,
            "#{:<4} {kind:<24} modelled {:>8} ms  measured {:>8} ms  {}",
            self.seq,
            ms(self.modelled_ms),
            ms(self.measured_ms),
            self.message
        )
    }
}

impl fmt::Display for PowerView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {:.1} mW MODELLED (device static {:.1}, static region {:.1}); {}",
            self.device, self.total_mw, self.device_static_mw, self.static_region_mw, self.source
        )?;
        for r in &self.regions {
            write!(
                f,
                "\n  slot {:<3} {:<7} {:>9.2} mW  {}",
                r.slot,
                r.state,
                r.mw,
                r.network.as_deref().unwrap_or("")
            )?;
        }
        Ok(())
    }
}
