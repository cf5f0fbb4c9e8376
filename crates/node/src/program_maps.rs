//! A network's program's maps as the node API shows them: the maps the
//! workers use (shared, not copied), read and written in place, keys and
//! values in hex.

use prism_node_api::{ApiError, MapEntry, MapView, MapWrite};
use prism_pipeline::Dataplane;
use prism_program::{Map, MapKind};

/// Network `network`'s program's maps on data plane `dp`.
pub fn maps_of<'a>(dp: &'a Dataplane, network: &str) -> Result<&'a [Map], ApiError> {
    let id = dp
        .network_id(network)
        .ok_or_else(|| ApiError::not_found(format!("no network `{network}`")))?;
    dp.network(id)
        .and_then(|n| n.program.as_ref())
        .map(|p| &p.program.maps[..])
        .ok_or_else(|| ApiError::not_found(format!("network `{network}` runs no program")))
}

fn find<'a>(maps: &'a [Map], map: &str) -> Result<&'a Map, ApiError> {
    maps.iter().find(|m| m.def.name == map).ok_or_else(|| {
        let names: Vec<&str> = maps.iter().map(|m| m.def.name.as_str()).collect();
        ApiError::not_found(format!(
            "its program has no map `{map}` (maps: {})",
            names.join(", ")
        ))
    })
}

/// Map `map` of network `network`'s program (`maps`), every entry.
pub fn read(network: &str, maps: &[Map], map: &str) -> Result<MapView, ApiError> {
    let m = find(maps, map)?;
    Ok(MapView {
        network: network.to_string(),
        map: map.to_string(),
        kind: match m.def.kind {
            MapKind::Array => "array",
            MapKind::Hash => "hash",
        }
        .to_string(),
        key_size: m.def.key_size,
        value_size: m.def.value_size,
        max_entries: m.def.max_entries,
        entries: m
            .entries()
            .into_iter()
            .map(|(k, v)| MapEntry {
                key: hex::encode(k),
                value: hex::encode(v),
            })
            .collect(),
    })
}

/// Sets or deletes one entry; the map after.
pub fn write(network: &str, maps: &[Map], map: &str, w: &MapWrite) -> Result<MapView, ApiError> {
    let m = find(maps, map)?;
    let key = bytes(&w.key, m.def.key_size, "key")?;
    let errno = match &w.value {
        Some(v) => m.update(&key, &bytes(v, m.def.value_size, "value")?, 0),
        None => m.delete(&key),
    };
    match -errno {
        0 => read(network, maps, map),
        2 => Err(ApiError::not_found("no such key")),
        7 if m.def.kind == MapKind::Array => {
            Err(ApiError::invalid("the index is past the array").with_field("key"))
        }
        7 => Err(
            ApiError::invalid(format!("the map is full ({} entries)", m.def.max_entries))
                .with_field("key"),
        ),
        _ => Err(
            ApiError::invalid("an array's entries cannot be deleted: set them").with_field("value"),
        ),
    }
}

fn bytes(hex_text: &str, size: u32, field: &str) -> Result<Vec<u8>, ApiError> {
    let b = hex::decode(hex_text.trim())
        .map_err(|e| ApiError::invalid(format!("not hex: {e}")).with_field(field))?;
    if b.len() != size as usize {
        let msg = format!("{} bytes; the map's {field}s are {size}", b.len());
        return Err(ApiError::invalid(msg).with_field(field));
    }
    Ok(b)
}
