//! The papers' experiments reproduced, with Prism's figures beside the
//! papers' and their charts: what `prism experiment` and `prism sim` run.
//!
//! - [`paper000`]: `prism experiment reconfig|power|fig8`, paper 000's
//!   reconfiguration experiments live and its (and 003's) power tables;
//! - [`alloc`]: `prism sim alloc`, paper 000 §5.4's allocation experiment
//!   and Prism's own policy, on `prism_placement`'s simulator;
//! - [`rmu`]: `prism sim rmu`, paper 004's reconfiguration managers;
//! - [`fig8`]: paper 000 Fig. 8 through the pipeline on a virtual clock;
//! - [`plot`]: PNG line charts of the results.

pub mod alloc;
pub mod fig8;
pub mod paper000;
pub mod plot;
pub mod rmu;
