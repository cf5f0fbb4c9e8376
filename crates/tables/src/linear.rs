//! The reference classifier: every rule, in priority order, checked in full.
//!
//! It is slow on purpose and simple enough to be obviously right; tests and
//! `prism tables classify --check` compare the fast classifier against it.

use crate::rule::{Key, Match, Rule, RuleId};

#[derive(Debug, Clone, Default)]
pub struct LinearClassifier {
    rules: Vec<Rule>,
}

impl LinearClassifier {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn insert(&mut self, rule: Rule) {
        self.remove(rule.id);
        let at = self.rules.partition_point(|r| {
            r.priority > rule.priority || (r.priority == rule.priority && r.id < rule.id)
        });
        self.rules.insert(at, rule);
    }

    pub fn remove(&mut self, id: RuleId) -> Option<Rule> {
        let i = self.rules.iter().position(|r| r.id == id)?;
        Some(self.rules.remove(i))
    }

    pub fn len(&self) -> usize {
        self.rules.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    pub fn lookup(&self, key: &Key) -> Option<Match> {
        self.rules
            .iter()
            .find(|r| r.matches(key))
            .map(Rule::as_match)
    }
}
