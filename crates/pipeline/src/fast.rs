//! The fast path: the stages a batch of packets passes (ingress, network
//! mapping, action matching, action processing, output) over one compiled
//! [`Dataplane`](dataplane::Dataplane), their drop reasons and counters,
//! the packet buffers and the tap. It may use `wan` and `software` (the
//! stages it runs for them), never `control`: a data plane is handed to it
//! built.

pub mod action;
pub mod bridge;
pub mod counters;
pub mod dataplane;
pub(crate) mod fate;
pub(crate) mod ingress;
pub mod mapping;
pub mod matching;
pub mod output;
pub mod packet;
pub mod payload;
pub mod reasons;
pub(crate) mod routed_batch;
pub(crate) mod ruled_batch;
pub(crate) mod scratch;
pub mod stages;
pub mod tap;
