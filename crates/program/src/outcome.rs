//! How a run ends: the program's verdict, or the trap that stopped it.

/// What the program decided for the frame (its XDP action).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// `XDP_ABORTED`: dropped, counted as the program's error.
    Aborted,
    /// `XDP_DROP`.
    Drop,
    /// `XDP_PASS`: on to the network's own tables.
    Pass,
    /// `XDP_TX`: back out of the port it came in on.
    Tx,
    /// `XDP_REDIRECT` after `bpf_redirect(port, 0)`: out of that port.
    Redirect(u32),
}

/// Why a run stopped before its program's exit: each is a named drop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trap {
    /// The per-packet instruction budget ran out.
    Budget,
    /// A load or store outside every region the program may touch, at
    /// that instruction.
    Memory { at: usize },
    /// Function calls nested deeper than [`MAX_DEPTH`].
    Depth { at: usize },
    /// A helper given something other than what it takes (a map that is
    /// not one, a key out of bounds), at that instruction.
    Helper { at: usize },
    /// An exit with a value that is no XDP action.
    Action { value: u64 },
    /// `XDP_REDIRECT` returned without `bpf_redirect` called first.
    NoRedirect,
}

impl Trap {
    /// The drop reason's name (`program/…`), as counters and traces show it.
    pub fn reason(&self) -> &'static str {
        match self {
            Trap::Budget => "program/budget",
            Trap::Memory { .. } => "program/out-of-bounds",
            Trap::Depth { .. } => "program/call-depth",
            Trap::Helper { .. } => "program/bad-helper-argument",
            Trap::Action { .. } => "program/bad-action",
            Trap::NoRedirect => "program/no-redirect-target",
        }
    }
}
