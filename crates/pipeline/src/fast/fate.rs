//! A packet's fate as the pipeline's stages decide it, shared by the
//! pipeline and the tap that reports it (`crate::fast::tap`).

use crate::fast::action::Verdict;
use crate::fast::reasons::DropReason;

/// What becomes of a packet, decided stage by stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fate {
    Pending,
    Output(u16),
    Software(u8),
    /// A bridge's broadcast, multicast or unknown destination: a copy to
    /// every member but the one it came from ([`crate::fast::bridge`]).
    Flood,
    Drop(u16, DropReason),
}

impl Fate {
    #[inline(always)]
    pub(crate) fn is_pending(&self) -> bool {
        matches!(self, Fate::Pending)
    }

    /// The fate an action's verdict gives a packet of network `net`.
    #[inline(always)]
    pub(crate) fn of(verdict: Verdict, net: u16) -> Fate {
        match verdict {
            Verdict::Output(port) => Fate::Output(port),
            Verdict::Software(ch) => Fate::Software(ch),
            Verdict::Drop(r) => Fate::Drop(net, DropReason::Action(r)),
        }
    }
}

pub(crate) const NO_NET: u16 = u16::MAX;
