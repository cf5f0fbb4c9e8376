//! Prism's software router: the same forwarding modes and action results as
//! the hardware tier, run on one packet at a time by a software-tier
//! network's router.
//!
//! In: a packet of a software-tier network (from its software channel).
//! Out: the egress port, or the reason it was dropped. The packet is changed
//! in place exactly as the hardware tier would change it, so a network
//! behaves the same in either tier. Offline, `prism run` serves the channels
//! with this router in-process; a live node runs it inside the network's
//! container.

use crate::fast::action::{self, Verdict};
use crate::fast::dataplane::Dataplane;
use crate::fast::matching;
use crate::fast::packet::Packet;
use crate::fast::payload::PayloadScratch;
use crate::fast::reasons::{ActionDrop, DropReason, MapDrop};
use prism_tables::Key;

/// Routes `pkt`, whose `network` field the mapping stage set.
pub fn route(
    dp: &Dataplane,
    pkt: &mut Packet,
    scratch: &mut PayloadScratch,
) -> Result<u16, DropReason> {
    let info = prism_wire::parse_frame(pkt.data(), pkt.port).map_err(DropReason::Parse)?;
    let net = dp
        .network(pkt.network)
        .ok_or(DropReason::Map(MapDrop::NoNetwork))?;
    let key = Key::from_flow(&info.key);
    let a = matching::decide(&net.forwarding, &info, &key).map_err(DropReason::Match)?;
    let mut act = net.actions[a as usize];
    // This is the software path already: a hand-off bit means "forward here".
    act.to_software = None;
    match action::apply(&act, pkt, &info, scratch) {
        Verdict::Output(p) => Ok(p),
        Verdict::Drop(r) => Err(DropReason::Action(r)),
        // Not produced once the hand-off bit is cleared; counted if it were.
        Verdict::Software(_) => Err(DropReason::Action(ActionDrop::NoOutputPort)),
    }
}
