//! The control side: network specs (`spec`), their compilation into a
//! new data plane (`compile`, `recompile`), the substrate that places
//! networks on a device profile's slots and swaps data planes in
//! (`substrate`, `device`), partial reconfiguration's modelled timing
//! (`reconfig`), power (`power`) and the profiles' datasheet. It builds
//! what `fast`, `wan` and `software` run; none of them uses it.

pub(crate) mod compile;
pub(crate) mod datasheet;
pub mod device;
pub mod power;
pub mod recompile;
pub mod reconfig;
pub(crate) mod spec;
pub mod substrate;
