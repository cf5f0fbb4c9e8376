//! The node's desired state as one document under a generation number
//! (omicron's sled-agent model): the control plane says "generation `g`:
//! the networks whose names start with `scope` are exactly these", the
//! node converges in one reconciliation and answers what it did to each,
//! and refuses any generation older than one it has already accepted, so
//! a stale controller (a replica that lost its lease, a retried request)
//! cannot undo a newer state.

use crate::error::{ApiError, ErrorCode};
use prism_netdoc::NetworkDoc;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use utoipa::ToSchema;

/// `PUT /v1/desired`: the whole desired state of the networks in `scope`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DesiredState {
    /// Bumped by the control plane for every change; a node refuses one
    /// older than the last it accepted (409 `stale_generation`). The same
    /// generation again converges again (retries the networks that failed).
    pub generation: u64,
    /// The name prefix of the networks this document owns (e.g. `pc-`):
    /// every network listed must carry it, and a network on the node that
    /// carries it and is not listed is removed. Networks outside the scope
    /// (the scenario's, an operator's) are left alone. Not empty.
    pub scope: String,
    /// Every network of the scope, as documents.
    #[serde(default)]
    pub networks: Vec<NetworkDoc>,
}

/// `PATCH /v1/desired`: the desired state of generation `base`, which
/// the node holds, changed into generation `generation`: the networks of
/// `put` added or replaced, those named in `remove` gone, every other
/// network of the base state kept as it was sent. The node converges to
/// the whole state this makes exactly as to a `PUT` of it, so a change
/// costs what changed, not every network of the node. Refused (409
/// `base_mismatch`) unless the node's last accepted state is `base`, of
/// the same scope, since it started. The answer lists the networks the
/// change touched (added, replaced, removed, failed), not those unchanged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DesiredChange {
    /// The generation the change applies to.
    pub base: u64,
    /// The generation it makes (fenced as a `PUT`'s).
    pub generation: u64,
    /// The scope of the base state.
    pub scope: String,
    /// Networks added or replaced, as documents.
    #[serde(default)]
    pub put: Vec<NetworkDoc>,
    /// Names of networks removed.
    #[serde(default)]
    pub remove: Vec<String>,
}

impl DesiredChange {
    /// The change from `from` to `to` (two states of one scope): what
    /// `to` lists that `from` does not list alike, and the names `from`
    /// lists that `to` does not.
    pub fn between(from: &DesiredState, to: &DesiredState) -> Self {
        let was: BTreeMap<&str, &NetworkDoc> =
            from.networks.iter().map(|d| (d.name.as_str(), d)).collect();
        let now: BTreeSet<&str> = to.networks.iter().map(|d| d.name.as_str()).collect();
        Self {
            base: from.generation,
            generation: to.generation,
            scope: to.scope.clone(),
            put: (to.networks.iter())
                .filter(|d| was.get(d.name.as_str()) != Some(d))
                .cloned()
                .collect(),
            remove: (was.keys())
                .filter(|n| !now.contains(*n))
                .map(|n| n.to_string())
                .collect(),
        }
    }

    /// The whole state this change makes of `held`, the last state the
    /// node accepted (`None`: none since it started), which it takes (its
    /// documents move, none is copied); refused, `held` left, when `held`
    /// is not this change's base.
    pub fn apply_to(self, held: &mut Option<DesiredState>) -> Result<DesiredState, ApiError> {
        let base = |h: &mut DesiredState| h.generation == self.base && h.scope == self.scope;
        let Some(held) = held.take_if(base) else {
            let has = held
                .as_ref()
                .map_or("none since it started".to_string(), |h| {
                    format!("generation {} of scope `{}`", h.generation, h.scope)
                });
            return Err(ApiError::new(
                ErrorCode::BaseMismatch,
                format!(
                    "this node holds {has}, not generation {} of scope `{}`: send the whole state",
                    self.base, self.scope
                ),
            )
            .with_field("base"));
        };
        let gone: BTreeSet<&str> = self.remove.iter().map(String::as_str).collect();
        let put: BTreeSet<&str> = self.put.iter().map(|d| d.name.as_str()).collect();
        let mut networks: Vec<NetworkDoc> = (held.networks.into_iter())
            .filter(|d| !gone.contains(d.name.as_str()) && !put.contains(d.name.as_str()))
            .collect();
        networks.extend(self.put);
        Ok(DesiredState {
            generation: self.generation,
            scope: self.scope,
            networks,
        })
    }
}

/// What a reconciliation did to one network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DesiredAction {
    /// Already as desired.
    Unchanged,
    Added,
    Replaced,
    /// Kept running, its interfaces plugged anew (a processing node's).
    Rewired,
    Removed,
    /// Refused or failed (see `error`); everything else was still applied.
    Failed,
}

/// One network's outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct DesiredOutcome {
    pub name: String,
    pub action: DesiredAction,
    /// Why it failed (`action = failed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ApiError>,
}

/// The answer to `PUT /v1/desired`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct DesiredApplied {
    /// The generation now held (the one sent).
    pub generation: u64,
    /// Removals first, then the listed networks in the order sent.
    pub networks: Vec<DesiredOutcome>,
}

impl DesiredApplied {
    /// The answer to a change (`PATCH /v1/desired`): the networks it
    /// added, replaced, removed or failed; those unchanged are not listed,
    /// so the answer's size is the change's, not the node's.
    pub fn touched(mut self) -> Self {
        self.networks
            .retain(|n| n.action != DesiredAction::Unchanged);
        self
    }

    /// True when every network is as desired.
    pub fn complete(&self) -> bool {
        self.networks
            .iter()
            .all(|n| n.action != DesiredAction::Failed)
    }
}

impl DesiredState {
    /// Checks what needs no node: a scope, every name in it, no name twice.
    /// The error names the field (`networks[2].name`).
    pub fn check(&self) -> Result<(), ApiError> {
        if self.scope.is_empty() {
            return Err(
                ApiError::invalid("an empty scope would own every network on the node")
                    .with_field("scope"),
            );
        }
        check_names(&self.scope, &self.networks, "networks")
    }
}

impl DesiredChange {
    /// [`DesiredState::check`] for the networks put (`put[0].name`):
    /// checked before the change takes the state it applies to, so a
    /// refused change leaves it.
    pub fn check(&self) -> Result<(), ApiError> {
        check_names(&self.scope, &self.put, "put")
    }
}

/// Every document of list `field` named inside `scope`, none twice.
fn check_names(scope: &str, docs: &[NetworkDoc], field: &str) -> Result<(), ApiError> {
    let mut seen = BTreeSet::new();
    for (i, n) in docs.iter().enumerate() {
        let field = format!("{field}[{i}].name");
        if !n.name.starts_with(scope) {
            return Err(ApiError::invalid(format!(
                "`{}` is outside the scope `{}`",
                n.name, scope
            ))
            .with_field(field));
        }
        if !seen.insert(n.name.as_str()) {
            return Err(
                ApiError::invalid(format!("`{}` is listed twice", n.name)).with_field(field)
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(name: &str) -> NetworkDoc {
        prism_netdoc::from_json(
            format!(r#"{{"name": "{name}", "tier": "hardware", "forwarding": "destination"}}"#)
                .as_bytes(),
        )
        .unwrap()
    }

    #[test]
    fn a_document_is_checked_before_any_node_sees_it() {
        let ok = DesiredState {
            generation: 3,
            scope: "pc-".into(),
            networks: vec![doc("pc-a"), doc("pc-b")],
        };
        assert_eq!(ok.check(), Ok(()));
        let outside = DesiredState {
            networks: vec![doc("pc-a"), doc("web")],
            ..ok.clone()
        };
        let e = outside.check().unwrap_err();
        assert_eq!(e.field.as_deref(), Some("networks[1].name"));
        assert!(e.message.contains("outside the scope"), "{e}");
        let twice = DesiredState {
            networks: vec![doc("pc-a"), doc("pc-a")],
            ..ok.clone()
        };
        assert!(twice.check().unwrap_err().message.contains("twice"));
        let unscoped = DesiredState {
            scope: String::new(),
            ..ok
        };
        assert_eq!(
            unscoped.check().unwrap_err().field.as_deref(),
            Some("scope")
        );
    }

    #[test]
    fn unknown_fields_are_refused_by_name() {
        let e = prism_netdoc::from_json::<DesiredState>(
            br#"{"generation": 1, "scope": "pc-", "networks": [], "force": true}"#,
        )
        .unwrap_err();
        assert!(e.message.contains("force"), "{}", e.message);
    }

    #[test]
    fn a_change_made_whole_on_its_base_is_the_state_it_was_taken_to() {
        let mut changed = doc("pc-changed");
        changed.tier = prism_netdoc::TierChoice::Software;
        let state = |generation, names: &[&str], extra: Option<&NetworkDoc>| DesiredState {
            generation,
            scope: "pc-".into(),
            networks: names.iter().map(|n| doc(n)).chain(extra.cloned()).collect(),
        };
        let from = state(3, &["pc-gone", "pc-same", "pc-changed"], None);
        let to = state(5, &["pc-same", "pc-new"], Some(&changed));
        let change = DesiredChange::between(&from, &to);
        let names = |d: &[NetworkDoc]| d.iter().map(|d| d.name.clone()).collect::<Vec<_>>();
        assert_eq!((change.base, change.generation), (3, 5));
        assert_eq!(names(&change.put), ["pc-new", "pc-changed"]);
        assert_eq!(change.remove, ["pc-gone"]);
        let whole = change.apply_to(&mut Some(from.clone())).unwrap();
        let by_name = |s: &DesiredState| -> BTreeMap<String, NetworkDoc> {
            s.networks
                .iter()
                .map(|d| (d.name.clone(), d.clone()))
                .collect()
        };
        assert_eq!((whole.generation, &whole.scope), (5, &to.scope));
        assert_eq!(by_name(&whole), by_name(&to));
        assert_eq!(whole.networks.len(), to.networks.len());
        // No change at all: an empty one, which makes the same state.
        let none = DesiredChange::between(&to, &to);
        assert!(none.put.is_empty() && none.remove.is_empty());
        assert_eq!(
            by_name(&none.apply_to(&mut Some(to.clone())).unwrap()),
            by_name(&to)
        );
    }

    /// Only on the state it names: not another generation, not another
    /// scope, not on a node that holds none since it started.
    #[test]
    fn a_change_is_refused_on_any_state_but_its_base() {
        let held = DesiredState {
            generation: 3,
            scope: "pc-".into(),
            networks: vec![doc("pc-a")],
        };
        let change = |base, scope: &str| DesiredChange {
            base,
            generation: 4,
            scope: scope.into(),
            put: vec![],
            remove: vec!["pc-a".into()],
        };
        for (c, mut held) in [
            (change(2, "pc-"), Some(held.clone())),
            (change(3, "qa-"), Some(held.clone())),
            (change(3, "pc-"), None),
        ] {
            let before = held.clone();
            let e = c.apply_to(&mut held).unwrap_err();
            assert_eq!(e.code, ErrorCode::BaseMismatch, "{e:?}");
            assert_eq!(e.field.as_deref(), Some("base"));
            assert_eq!(held, before, "a refused change leaves what is held");
        }
        let mut held = Some(held);
        let whole = change(3, "pc-").apply_to(&mut held).unwrap();
        assert!(whole.networks.is_empty());
        assert_eq!(held, None, "taken");
    }
}
