//! A refused document: the field it concerns (a path such as
//! `route[0].action.port`) and what is wrong with it.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocError {
    /// Path of the field within the document; empty for the whole document.
    pub field: String,
    pub message: String,
}

impl DocError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }

    /// The same error for a document nested at `prefix` (`network[2]`).
    pub fn within(mut self, prefix: &str) -> Self {
        self.field = match (prefix.is_empty(), self.field.is_empty()) {
            (true, _) => self.field,
            (false, true) => prefix.to_string(),
            (false, false) if self.field.starts_with('[') => format!("{prefix}{}", self.field),
            (false, false) => format!("{prefix}.{}", self.field),
        };
        self
    }
}

impl fmt::Display for DocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "field `{}`: {}", self.field, self.message)
        }
    }
}

impl std::error::Error for DocError {}

/// Parses a JSON object of type `T`, naming the field of the first
/// error (`route[1].action.port`), as `serde_path_to_error` tracks it.
pub fn from_json<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, DocError> {
    // serde reads a struct from an array too; a body is always an object.
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(DocError::new("", "the body is a JSON object"));
    }
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    let v = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let field = if path == "." || path == "?" {
            String::new()
        } else {
            path
        };
        // serde_json appends " at line L column C"; keep it, it helps.
        DocError::new(field, e.into_inner().to_string())
    })?;
    Ok(v)
}

/// A body of type `T` from a file's text, as the CLI reads spec files:
/// JSON, or TOML when `name` ends in `.toml` (the same fields); a TOML file
/// holding one `[[network]]` table is that network. TOML's errors keep
/// their line and column.
pub fn from_file_text<T: serde::de::DeserializeOwned>(
    name: &str,
    text: &str,
) -> Result<T, DocError> {
    if !name.ends_with(".toml") {
        return from_json(text.as_bytes());
    }
    let mut t: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| DocError::new("", format!("not TOML: {e}")))?;
    if let Some(toml::Value::Array(mut a)) = t.remove("network") {
        if a.len() != 1 || !t.is_empty() {
            return Err(DocError::new(
                "network",
                "one [[network]] table per file, and nothing else",
            ));
        }
        return a
            .remove(0)
            .try_into()
            .map_err(|e: toml::de::Error| DocError::new("network[0]", e.to_string()));
    }
    toml::from_str(text).map_err(|e| DocError::new("", e.to_string()))
}

/// A body of type `T` read from file `path` as [`from_file_text`] reads
/// text; the error names the file (and, as there, the field).
pub fn from_file<T: serde::de::DeserializeOwned>(path: &std::path::Path) -> Result<T, DocError> {
    let name = path.display().to_string();
    let located = |e: DocError| DocError::new(e.field, format!("{name}: {}", e.message));
    let text = std::fs::read_to_string(path)
        .map_err(|e| DocError::new("", format!("reading {name}: {e}")))?;
    from_file_text(&name, &text).map_err(located)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_bodies_read_as_json_or_toml() {
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct B {
            tier: String,
        }
        let want = B {
            tier: "software".into(),
        };
        let j: B = from_file_text("a.json", r#"{"tier": "software"}"#).unwrap();
        let t: B = from_file_text("a.toml", "tier = \"software\"\n").unwrap();
        let w: B = from_file_text("a.toml", "[[network]]\ntier = \"software\"\n").unwrap();
        assert_eq!(
            (j, &t),
            (
                B {
                    tier: "software".into()
                },
                &want
            )
        );
        assert_eq!(w, want);
        let e = from_file_text::<B>(
            "a.toml",
            "[[network]]\ntier = \"s\"\n[[network]]\ntier = \"s\"\n",
        )
        .unwrap_err();
        assert_eq!(e.field, "network");
        let e = from_file_text::<B>("a.toml", "tier = \n").unwrap_err();
        assert!(e.message.contains("line 1"), "{e}");
        assert!(from_file_text::<B>("a.json", "[]").is_err());
    }

    #[test]
    fn paths_nest() {
        let e = DocError::new("route[0].action.port", "no port `c`");
        assert_eq!(
            e.clone().within("network[2]").to_string(),
            "field `network[2].route[0].action.port`: no port `c`"
        );
        assert_eq!(
            DocError::new("", "x").within("network[1]").field,
            "network[1]"
        );
        assert_eq!(DocError::new("", "bad").to_string(), "bad");
    }
}
