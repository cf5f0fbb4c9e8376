//! Where a field is in a TOML text: a field path (`network[2].route[0].action.port`,
//! the form `DocError::field` takes) resolved to a byte range, so that
//! errors found after parsing (unknown ports, capacities) point at the line
//! of the field they concern.

use std::ops::Range;
use toml_edit::{ImDocument, Item, Table, Value};

#[derive(Clone, Copy)]
enum Node<'a> {
    Item(&'a Item),
    Value(&'a Value),
    Table(&'a Table),
}

impl<'a> Node<'a> {
    fn key(self, k: &str) -> Option<Node<'a>> {
        match self {
            Node::Table(t) | Node::Item(Item::Table(t)) => t.get(k).map(Node::Item),
            Node::Item(Item::Value(Value::InlineTable(t))) | Node::Value(Value::InlineTable(t)) => {
                t.get(k).map(Node::Value)
            }
            _ => None,
        }
    }

    fn index(self, i: usize) -> Option<Node<'a>> {
        match self {
            Node::Item(Item::ArrayOfTables(a)) => a.get(i).map(Node::Table),
            Node::Item(Item::Value(Value::Array(a))) | Node::Value(Value::Array(a)) => {
                a.get(i).map(Node::Value)
            }
            _ => None,
        }
    }

    fn range(self) -> Option<Range<usize>> {
        match self {
            Node::Item(i) => i.span(),
            Node::Value(v) => v.span(),
            Node::Table(t) => t.span(),
        }
    }
}

/// The segments of a path: keys and indices.
fn segments(path: &str) -> Vec<Result<&str, usize>> {
    let mut out = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (key, rest) = part.split_at(part.find('[').unwrap_or(part.len()));
        if !key.is_empty() {
            out.push(Ok(key));
        }
        for idx in rest.split('[').filter(|s| !s.is_empty()) {
            if let Ok(i) = idx.trim_end_matches(']').parse() {
                out.push(Err(i));
            }
        }
    }
    out
}

/// The byte range of the deepest part of `path` found in `text` (the
/// whole path if it is all there); `None` if even its first key is not.
pub fn locate(text: &str, path: &str) -> Option<Range<usize>> {
    let doc = ImDocument::parse(text).ok()?;
    let mut node = Node::Table(doc.as_table());
    let mut best = None;
    for seg in segments(path) {
        let next = match seg {
            Ok(k) => node.key(k),
            Err(i) => node.index(i),
        };
        match next {
            Some(n) => {
                node = n;
                best = n.range().or(best);
            }
            None => break,
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_to_their_lines() {
        let text = "device = \"x\"\n[[network]]\nname = \"a\"\n[[network]]\nname = \"b\"\nroute = [\n  { prefix = \"10.0.0.0/8\", action = { port = \"c\" } },\n]\nrouter = { addresses = { p0 = \"1.2.3.4/8\" } }\n";
        let line = |r: Range<usize>| text[..r.start].matches('\n').count() + 1;
        assert_eq!(locate(text, "device").map(line), Some(1));
        assert_eq!(locate(text, "network[1].name").map(line), Some(5));
        let r = locate(text, "network[1].route[0].action.port").unwrap();
        assert_eq!(line(r.clone()), 7);
        assert_eq!(&text[r], "\"c\"");
        assert_eq!(
            locate(text, "network[1].router.addresses.p0").map(line),
            Some(9)
        );
        // A missing tail resolves to what exists of it.
        assert_eq!(
            locate(text, "network[0].route[3]"),
            locate(text, "network[0]")
        );
        assert_eq!(locate(text, "nothing.here"), None);
    }
}
