//! What a caller may do: the operations service levels, roles and API
//! keys allow.

use crate::bookings::Role;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The operations a project's members may be allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
pub enum Operation {
    #[serde(rename = "bookings.read")]
    BookingsRead,
    #[serde(rename = "bookings.create")]
    BookingsCreate,
    #[serde(rename = "bookings.renew")]
    BookingsRenew,
    #[serde(rename = "bookings.release")]
    BookingsRelease,
    /// Start and stop (operational actions).
    #[serde(rename = "bookings.action")]
    BookingsAction,
    /// Changes to a live booking: its tables, its bandwidth.
    #[serde(rename = "bookings.change")]
    BookingsChange,
    #[serde(rename = "usage.read")]
    UsageRead,
    #[serde(rename = "members.manage")]
    MembersManage,
    #[serde(rename = "keys.manage")]
    KeysManage,
}

impl Operation {
    pub const ALL: [Operation; 9] = [
        Operation::BookingsRead,
        Operation::BookingsCreate,
        Operation::BookingsRenew,
        Operation::BookingsRelease,
        Operation::BookingsAction,
        Operation::BookingsChange,
        Operation::UsageRead,
        Operation::MembersManage,
        Operation::KeysManage,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Operation::BookingsRead => "bookings.read",
            Operation::BookingsCreate => "bookings.create",
            Operation::BookingsRenew => "bookings.renew",
            Operation::BookingsRelease => "bookings.release",
            Operation::BookingsAction => "bookings.action",
            Operation::BookingsChange => "bookings.change",
            Operation::UsageRead => "usage.read",
            Operation::MembersManage => "members.manage",
            Operation::KeysManage => "keys.manage",
        }
    }

    /// An operation by its name (`bookings.read`), or the names there are.
    pub fn parse(s: &str) -> Result<Operation, String> {
        Operation::ALL
            .into_iter()
            .find(|o| o.as_str() == s)
            .ok_or_else(|| {
                let all: Vec<&str> = Operation::ALL.iter().map(|o| o.as_str()).collect();
                format!("`{s}` is not an operation: {}", all.join(", "))
            })
    }

    /// Operations a member with this role may call, before the service
    /// level and any key restrict them further.
    pub fn of_role(role: Role) -> &'static [Operation] {
        use Operation::*;
        match role {
            Role::Owner => &Operation::ALL,
            Role::Member => &[
                BookingsRead,
                BookingsCreate,
                BookingsRenew,
                BookingsRelease,
                BookingsAction,
                BookingsChange,
                UsageRead,
                KeysManage,
            ],
            Role::Viewer => &[BookingsRead, UsageRead],
        }
    }
}
