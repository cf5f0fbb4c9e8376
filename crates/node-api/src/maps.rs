//! A researcher's program's maps, read and written through the API
//! (`GET`/`PUT /v1/networks/{name}/maps/{map}`): keys and values as hex,
//! in the byte order the program stores them.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A map of a network's program and every entry it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct MapView {
    pub network: String,
    pub map: String,
    /// `array` or `hash`.
    pub kind: String,
    pub key_size: u32,
    pub value_size: u32,
    pub max_entries: u32,
    /// An array's every element; a hash table's entries, in no order.
    pub entries: Vec<MapEntry>,
}

/// One entry: its key and value, in hex.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct MapEntry {
    pub key: String,
    pub value: String,
}

/// Sets one entry (`value`), or deletes it (no `value`; a hash table's
/// only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MapWrite {
    /// `key_size` bytes in hex.
    pub key: String,
    /// `value_size` bytes in hex; absent: delete the entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

impl MapWrite {
    /// `KEY=VALUE` (hex each): that entry set; `KEY=`: deleted.
    pub fn parse(kv: &str) -> Result<MapWrite, String> {
        let (key, value) = kv
            .split_once('=')
            .ok_or_else(|| format!("{kv}: KEY=VALUE in hex (KEY= deletes)"))?;
        let value = (!value.is_empty()).then(|| value.to_string());
        Ok(MapWrite {
            key: key.to_string(),
            value,
        })
    }
}
