//! A program's ELF object (what `clang -target bpf` writes) read into
//! checked instructions and map definitions, with `aya-obj`: its sections,
//! its maps (BTF-defined, in `.maps`, or legacy, in `maps`) and their
//! relocations, its functions linked.

use std::collections::HashSet;

use aya_obj::{Object, ProgramSection};
use thiserror::Error;

use crate::insn::{CheckError, Insn, check};
use crate::maps::{MAP_TYPE_ARRAY, MAP_TYPE_HASH, MAX_MAP_BYTES, Map, MapDef, MapError, MapKind};
use crate::vm::Program;

/// A program read from its object and checked, with its maps' definitions
/// and their initial contents (a global data section's bytes).
#[derive(Debug, Clone)]
pub struct Image {
    /// The program's function name.
    pub name: String,
    pub code: Vec<Insn>,
    pub maps: Vec<MapDef>,
    initial: Vec<Vec<u8>>,
}

/// Why an object is refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LoadError {
    #[error("not an eBPF object: {0}")]
    Object(String),
    #[error("the object has no XDP program (a function in a section named \"xdp\")")]
    NoProgram,
    #[error("the object has several XDP programs ({0}); name one")]
    Several(String),
    #[error("the object has no XDP program named {0:?}")]
    Unknown(String),
    #[error("{0}")]
    Map(#[from] MapError),
    #[error("relocating {0}")]
    Relocation(String),
    #[error("{0}")]
    Check(#[from] CheckError),
}

impl Image {
    /// Reads `elf`; `name` chooses among several XDP programs.
    pub fn load(elf: &[u8], name: Option<&str>) -> Result<Image, LoadError> {
        let mut obj = Object::parse(elf).map_err(|e| LoadError::Object(chain(&e)))?;
        let program = choose(&obj, name)?;
        let mut names: Vec<String> = obj.maps.keys().cloned().collect();
        names.sort();
        let mut maps = Vec::with_capacity(names.len());
        let mut initial = Vec::with_capacity(names.len());
        for n in &names {
            let m = &obj.maps[n];
            maps.push(map_def(n, m)?);
            initial.push(m.data().to_vec());
        }
        let total: u64 = maps.iter().map(MapDef::bytes).sum();
        if total > MAX_MAP_BYTES {
            return Err(MapError::TooLarge(total).into());
        }
        let key = obj.programs[&program].function_key();
        link(&mut obj, &names)?;
        let raw: Vec<[u8; 8]> = obj.functions[&key]
            .instructions
            .iter()
            .map(encode)
            .collect();
        let code = check(&raw, maps.len())?;
        Ok(Image {
            name: program,
            code,
            maps,
            initial,
        })
    }

    /// A program given as bare instructions (8-byte slots) with its maps,
    /// checked as an object's are.
    pub fn from_code(name: &str, raw: &[[u8; 8]], maps: Vec<MapDef>) -> Result<Image, LoadError> {
        let maps = maps
            .into_iter()
            .map(MapDef::checked)
            .collect::<Result<Vec<_>, _>>()?;
        let code = check(raw, maps.len())?;
        let initial = vec![Vec::new(); maps.len()];
        Ok(Image {
            name: name.to_string(),
            code,
            maps,
            initial,
        })
    }

    /// The program with its maps made (empty, or with their sections'
    /// initial bytes), `budget` instructions per packet.
    pub fn instantiate(&self, budget: u32) -> Program {
        let maps = self
            .maps
            .iter()
            .zip(&self.initial)
            .map(|(def, data)| {
                let map = Map::new(def.clone());
                if !data.is_empty() {
                    map.update(&0u32.to_le_bytes(), data, 0);
                }
                map
            })
            .collect();
        Program::new(self.code.clone(), maps, budget)
    }
}

fn choose(obj: &Object, name: Option<&str>) -> Result<String, LoadError> {
    let mut xdp: Vec<&String> = obj
        .programs
        .iter()
        .filter(|(_, p)| matches!(p.section, ProgramSection::Xdp { .. }))
        .map(|(n, _)| n)
        .collect();
    xdp.sort();
    match (name, xdp.as_slice()) {
        (Some(n), _) if xdp.iter().any(|x| *x == n) => Ok(n.to_string()),
        (Some(n), _) => Err(LoadError::Unknown(n.to_string())),
        (None, []) => Err(LoadError::NoProgram),
        (None, [one]) => Ok((*one).clone()),
        (None, many) => Err(LoadError::Several(
            many.iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        )),
    }
}

fn map_def(name: &str, m: &aya_obj::Map) -> Result<MapDef, MapError> {
    // A map pinned by name is shared with whatever else pins that name:
    // another network's program, on a node that ran both in the kernel.
    if m.pinning() != aya_obj::maps::PinningType::None {
        return Err(MapError::Pinned {
            name: name.to_string(),
        });
    }
    let kind = match m.map_type() {
        MAP_TYPE_HASH => MapKind::Hash,
        MAP_TYPE_ARRAY => MapKind::Array,
        map_type => {
            return Err(MapError::Type {
                name: name.to_string(),
                map_type,
            });
        }
    };
    MapDef {
        name: name.to_string(),
        kind,
        key_size: m.key_size(),
        value_size: m.value_size(),
        max_entries: m.max_entries(),
    }
    .checked()
}

/// Map references become map indices (as the kernel's loader makes them
/// file descriptors); calls between functions are linked.
fn link(obj: &mut Object, names: &[String]) -> Result<(), LoadError> {
    let text: HashSet<usize> = obj.functions.keys().map(|(section, _)| *section).collect();
    let maps: Vec<(String, aya_obj::Map)> = names
        .iter()
        .map(|n| (n.clone(), obj.maps[n].clone()))
        .collect();
    obj.relocate_maps(
        maps.iter()
            .enumerate()
            .map(|(i, (n, m))| (n.as_str(), i as i32, m)),
        &text,
    )
    .map_err(|e| LoadError::Relocation(chain(&e)))?;
    obj.relocate_calls(&text)
        .map_err(|e| LoadError::Relocation(chain(&e)))
}

fn encode(i: &aya_obj::generated::bpf_insn) -> [u8; 8] {
    let mut b = [0u8; 8];
    b[0] = i.code;
    b[1] = i.dst_reg() | (i.src_reg() << 4);
    b[2..4].copy_from_slice(&i.off.to_le_bytes());
    b[4..8].copy_from_slice(&i.imm.to_le_bytes());
    b
}

/// An error and its causes, on one line.
fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cause = c.source();
    }
    s
}
