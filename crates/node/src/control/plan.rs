//! The node's side of a desired state (`PUT /v1/desired`): the fence
//! against older generations, the plan from what the node runs to what
//! was sent, and its execution one network at a time. The node's control
//! and the test kit's fake node both converge with it.

use prism_netdoc::NetworkDoc;
use prism_node_api::{ApiError, DesiredAction, DesiredOutcome, DesiredState, ErrorCode};
use std::collections::{BTreeMap, BTreeSet};

/// The fence: `sent` is refused when older than `held`, the generation
/// the node accepted last.
pub fn fence(held: u64, sent: u64) -> Result<(), ApiError> {
    if sent < held {
        return Err(ApiError::new(
            ErrorCode::StaleGeneration,
            format!("generation {sent} is older than generation {held}, which this node holds"),
        )
        .with_field("generation"));
    }
    Ok(())
}

/// One step of a reconciliation.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Unchanged,
    Add(NetworkDoc),
    Replace(NetworkDoc),
    Remove,
}

/// The steps from `current` (every network on the node, by name) to
/// `body`: removals first (they free slots the others may need), then
/// the listed networks in the order sent.
/// `current` may hold its documents owned or borrowed (a node reads its
/// own without copying them).
pub fn plan<K, D>(body: &DesiredState, current: &BTreeMap<K, D>) -> Vec<(String, Step)>
where
    K: std::borrow::Borrow<str> + Ord,
    D: std::borrow::Borrow<NetworkDoc>,
{
    let listed: BTreeSet<&str> = body.networks.iter().map(|n| n.name.as_str()).collect();
    let mut steps: Vec<(String, Step)> = current
        .keys()
        .map(|n| n.borrow())
        .filter(|n| n.starts_with(&body.scope) && !listed.contains(n))
        .map(|n| (n.to_string(), Step::Remove))
        .collect();
    for doc in &body.networks {
        let step = match current.get(doc.name.as_str()).map(|d| d.borrow()) {
            Some(cur) if cur == doc => Step::Unchanged,
            Some(_) => Step::Replace(doc.clone()),
            None => Step::Add(doc.clone()),
        };
        steps.push((doc.name.clone(), step));
    }
    steps
}

/// Carries out `steps` with `apply`, one network's failure not stopping
/// the others, and says what each did.
pub fn execute(
    steps: Vec<(String, Step)>,
    mut apply: impl FnMut(&str, Step) -> Result<(), ApiError>,
) -> Vec<DesiredOutcome> {
    steps
        .into_iter()
        .map(|(name, step)| {
            let action = match &step {
                Step::Unchanged => DesiredAction::Unchanged,
                Step::Add(_) => DesiredAction::Added,
                Step::Replace(_) => DesiredAction::Replaced,
                Step::Remove => DesiredAction::Removed,
            };
            let result = match step {
                Step::Unchanged => Ok(()),
                step => apply(&name, step),
            };
            match result {
                Ok(()) => DesiredOutcome {
                    name,
                    action,
                    error: None,
                },
                Err(e) => DesiredOutcome {
                    name,
                    action: DesiredAction::Failed,
                    error: Some(e),
                },
            }
        })
        .collect()
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
    fn the_plan_removes_first_and_leaves_other_scopes_alone() {
        let mut on_node = BTreeMap::new();
        for n in ["pc-gone", "pc-same", "pc-changed", "scenario-net"] {
            on_node.insert(n.to_string(), doc(n));
        }
        let mut changed = doc("pc-changed");
        changed.tier = prism_netdoc::TierChoice::Software;
        let body = DesiredState {
            generation: 9,
            scope: "pc-".into(),
            networks: vec![doc("pc-new"), doc("pc-same"), changed.clone()],
        };
        let steps = plan(&body, &on_node);
        assert_eq!(
            steps,
            vec![
                ("pc-gone".to_string(), Step::Remove),
                ("pc-new".to_string(), Step::Add(doc("pc-new"))),
                ("pc-same".to_string(), Step::Unchanged),
                ("pc-changed".to_string(), Step::Replace(changed)),
            ]
        );
        let out = execute(steps, |name, _| match name {
            "pc-new" => Err(ApiError::new(ErrorCode::Capacity, "no slot")),
            _ => Ok(()),
        });
        let actions: Vec<_> = out.iter().map(|o| o.action).collect();
        assert_eq!(
            actions,
            [
                DesiredAction::Removed,
                DesiredAction::Failed,
                DesiredAction::Unchanged,
                DesiredAction::Replaced
            ]
        );
        assert_eq!(out[1].error.as_ref().unwrap().code, ErrorCode::Capacity);
    }

    /// A change between two states made whole on the first gives the
    /// second (as a set: the kept networks come before the put ones), and
    /// carries only what differs.
    #[test]
    fn an_older_generation_is_fenced_off_and_the_same_one_is_not() {
        assert_eq!(fence(5, 5), Ok(()));
        assert_eq!(fence(5, 6), Ok(()));
        let e = fence(5, 4).unwrap_err();
        assert_eq!(e.code, ErrorCode::StaleGeneration);
        assert_eq!(e.code.status().as_u16(), 409);
    }
}
