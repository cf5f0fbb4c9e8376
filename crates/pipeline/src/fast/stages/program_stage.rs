//! Stage 2b: a network's own program (`prism_program`), in its slot, on
//! each of its frames between mapping and matching.
//!
//! In: the batch after mapping. Out: for each pending packet of a network
//! with a program, the program's decision: `XDP_PASS` leaves it pending for
//! the network's tables (its headers parsed again, since the program may
//! have rewritten them); `XDP_TX` sends it out of the port it came in by,
//! `bpf_redirect` out of one of its network's own ports; anything else
//! drops it under a named reason (`hardware/program-…`): the program's own
//! drop or abort, an exhausted budget, an access out of bounds, a foreign
//! port. A trap ends that packet's run only: the worker goes on to the
//! next packet, and no other network's frame is ever given to the program.

use super::Pipeline;
use crate::fast::dataplane::{Dataplane, NetProgram};
use crate::fast::fate::Fate;
use crate::fast::packet::Packet;
use crate::fast::reasons::{DropReason, HardwareDrop};
use crate::fast::scratch::Scratch;
use prism_program::{Trap, Verdict};

impl Pipeline {
    /// Stage 2b over `batch`; nothing unless a network has a program.
    pub(super) fn program_stage(
        &mut self,
        dp: &Dataplane,
        batch: &mut [Packet],
        s: &mut Scratch,
        need_key: bool,
    ) {
        if !dp.has_programs() {
            return;
        }
        for (i, pkt) in batch.iter_mut().enumerate() {
            let net = s.net[i];
            if s.fate[i] != Fate::Pending {
                continue;
            }
            let Some(p) = dp.network(net).and_then(|n| n.program.as_ref()) else {
                continue;
            };
            let fate = decide(
                p,
                pkt.run_program(&p.program, &mut self.programs),
                pkt.port,
                net,
            );
            if fate != Fate::Pending {
                s.fate[i] = fate;
                continue;
            }
            // The program may have rewritten the headers the later stages read.
            match prism_wire::parse_frame_into(pkt.data(), pkt.port, &mut s.info[i]) {
                Ok(()) if need_key => s.key[i] = prism_tables::Key::from_flow(&s.info[i].key),
                Ok(()) => {}
                Err(m) => s.fate[i] = Fate::Drop(net, DropReason::Parse(m)),
            }
        }
    }
}

/// A run's result as the packet's fate.
fn decide(p: &NetProgram, run: Result<Verdict, Trap>, ingress: u16, net: u16) -> Fate {
    let drop = |r| Fate::Drop(net, DropReason::Hardware(r));
    match run {
        Ok(Verdict::Pass) => Fate::Pending,
        Ok(Verdict::Tx) => Fate::Output(ingress),
        Ok(Verdict::Redirect(port)) => match u16::try_from(port) {
            Ok(port) if p.ports.contains(&port) => Fate::Output(port),
            _ => drop(HardwareDrop::ProgramForeignPort),
        },
        Ok(Verdict::Drop) => drop(HardwareDrop::ProgramDrop),
        Ok(Verdict::Aborted) => drop(HardwareDrop::ProgramAborted),
        Err(Trap::Budget) => drop(HardwareDrop::ProgramBudget),
        Err(Trap::Memory { .. }) => drop(HardwareDrop::ProgramOutOfBounds),
        Err(Trap::Depth { .. }) => drop(HardwareDrop::ProgramCallDepth),
        Err(Trap::Helper { .. }) => drop(HardwareDrop::ProgramBadHelperArgument),
        Err(Trap::Action { .. } | Trap::NoRedirect) => drop(HardwareDrop::ProgramBadAction),
    }
}
