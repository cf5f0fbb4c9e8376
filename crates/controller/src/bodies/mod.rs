//! The controller API's bodies, apart from the logic that produces them,
//! so that the application layer and the datastore share them without
//! depending on each other. (Moved here so far: the projects'; the others
//! are in `crate::model` and beside their resources.)

pub mod accounting;
pub mod identity;
pub mod node_keys;
pub mod projects;
