//! Lookup tables for Prism: the software stand-ins for the TCAM and BRAM
//! tables of an FPGA data plane.
//!
//! - [`LpmTable`]: IPv4 longest-prefix match (DIR-24-8 family multibit trie).
//! - [`FlowTable`]: two-dimensional (source, destination) prefix lookup.
//! - [`Classifier`]: ternary classifier (tuple-space search), with
//!   [`LinearClassifier`] as the reference and [`SharedClassifier`] for
//!   updates while lookups go on.
//! - [`TreeClassifier`]: a decision tree ([`SplitTree`], HyperSplit) for
//!   large five-tuple rule sets, with updates beside it between rebuilds.
//! - [`RuleTable`]: either, as suits the rules (what the pipeline holds).
//!
//! Lookups allocate nothing and take no lock.

pub mod classbench;
pub mod classifier;
pub mod flow;
/// Fuzz bodies: for the fuzz targets (feature `fuzzing`) and the
/// crate's own tests, not the product's API.
#[cfg(any(test, feature = "fuzzing"))]
pub mod fuzz;
mod leaf_block;
pub mod linear;
pub mod lpm;
pub mod lpm6;
pub mod prefix;
pub mod rule;
pub mod rule_table;
pub mod split_tree;
#[cfg(test)]
mod testing;
pub mod tree_classifier;
mod tree_groups;
mod wide_walk;

pub use classifier::{Classifier, SharedClassifier};
pub use flow::{FlowRule, FlowTable, ReferenceFlowTable};
pub use linear::LinearClassifier;
pub use lpm::arena::{LpmArena, LpmRef};
pub use lpm::{LpmError, LpmShape, LpmTable, ReferenceLpm};
pub use lpm6::{Lpm6Error, Lpm6Table, ReferenceLpm6};
pub use prefix::{Ipv4Prefix, Ipv6Prefix, PrefixError};
pub use rule::{Key, Match, PortRange, Rule, RuleId, Ternary};
pub use rule_table::RuleTable;
pub use split_tree::SplitTree;
pub use tree_classifier::TreeClassifier;
