//! Bookings as leases (GENI AM API v3): allocate (a short hold that takes
//! quota and capacity) → provision (applied to a node) → status → renew →
//! release; start and stop as operational actions.

use crate::app::authz::{Membership, Operation, Principal};
use crate::app::identity::check_name;
use crate::app::nodes::Placement;
use crate::app::projects::ServiceLevel;
use crate::app::registry::{self, NETWORK, VLAN};
use crate::controller::Controller;
use crate::datastore::bookings as store;
use crate::datastore::{nodes, parts};
use crate::error::{Error, Result};
use crate::infra::db::{self, Tx};
use crate::infra::secrets;
use crate::model::{
    Action, AllocationState, Booking, BookingRequest, ListQuery, OperationalState, Page, Renewed,
    node_doc, node_network_name,
};
use prism_netdoc::TierChoice;

/// The VLAN pool (1 is the default VLAN, 4095 reserved).
pub const VLAN_POOL: std::ops::RangeInclusive<i64> = 100..=4094;

/// The tier a network booking asks for; for another type, none, its spec
/// checked against the type's schema.
fn asked_tier(
    compiled: &crate::model::Compiled,
    spec: &serde_json::Value,
) -> Result<Option<TierChoice>> {
    match compiled.t.name.as_str() {
        NETWORK => match spec.get("tier").and_then(|t| t.as_str()) {
            Some(t) => TierChoice::parse(t).map(Some).ok_or_else(|| {
                Error::invalid("`hardware`, `software` or `auto`").with_field("spec.tier")
            }),
            None => Err(Error::invalid("`hardware`, `software` or `auto`").with_field("spec.tier")),
        },
        VLAN if !spec.as_object().is_some_and(|o| o.is_empty()) => {
            Err(Error::invalid("a `vlan` booking takes no parameters: {}").with_field("spec"))
        }
        VLAN => Ok(None),
        _ => registry::check_spec(compiled, spec).map(|()| None),
    }
}

/// Reads network `b`'s parts and S-tag on `conn` (the pool's, or a
/// transaction's). Only a network has them (`check_request`
/// refuses parts to other types): another type's booking reads nothing.
pub(crate) async fn with_parts(b: &mut Booking, conn: &mut sqlx::AnyConnection) -> Result<()> {
    if b.resource_type != NETWORK {
        return Ok(());
    }
    b.parts = parts::parts(&mut *conn, &b.id)
        .await?
        .iter()
        .map(|p| p.view())
        .collect();
    b.s_tag = parts::s_tag_of(&mut *conn, &b.id).await?;
    Ok(())
}

/// Hours, rounded up, of `ms`.
pub(crate) fn hours_up(ms: i64) -> i64 {
    ms.max(0).saturating_add(3_599_999) / 3_600_000
}

impl Controller {
    pub(crate) async fn booking_in(&self, m: &Membership, id: &str) -> Result<Booking> {
        let mut b = store::in_project(&self.pool, id, &m.project_id)
            .await?
            .ok_or_else(|| Error::not_found(format!("booking `{id}`")))?;
        if b.resource_type == NETWORK {
            with_parts(&mut b, &mut *self.pool.acquire().await?).await?;
        }
        Ok(b)
    }

    /// Booking `id` read in `tx`, with its parts.
    pub(crate) async fn booking_tx_row(&self, tx: &mut Tx, id: &str) -> Result<Booking> {
        let mut b = store::by_id(tx, id).await?;
        with_parts(&mut b, tx).await?;
        Ok(b)
    }

    /// The ids of the nodes booking `b` (read with its parts) is on: its
    /// parts' nodes if it spans nodes, else its node, if any.
    pub(crate) async fn node_ids_of(&self, tx: &mut Tx, b: &Booking) -> Result<Vec<String>> {
        if b.parts.is_empty() {
            return Ok(b.ids.node.iter().cloned().collect());
        }
        parts::part_nodes(&mut **tx, &b.id).await
    }

    pub async fn get_booking(&self, p: &Principal, project: &str, id: &str) -> Result<Booking> {
        let m = self
            .project_for(p, project, Operation::BookingsRead)
            .await?;
        self.booking_in(&m, id).await
    }

    /// The project's bookings, oldest first, `limit` per page; released
    /// ones only with `all`.
    pub async fn list_bookings(
        &self,
        p: &Principal,
        project: &str,
        all: bool,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Page<Booking>> {
        let q = ListQuery {
            all,
            after: after.map(str::to_string),
            limit: Some(limit),
            ..ListQuery::default()
        };
        self.find_bookings(p, project, &q).await
    }

    /// The project's bookings as `q` asks: oldest first, a page at a time,
    /// by name (containing, any case) and state (allocation or
    /// operational) when asked; released ones with `all` or when the state
    /// asked is `unallocated`.
    pub async fn find_bookings(
        &self,
        p: &Principal,
        project: &str,
        q: &ListQuery,
    ) -> Result<Page<Booking>> {
        let m = self
            .project_for(p, project, Operation::BookingsRead)
            .await?;
        let bad = || Error::invalid("a cursor from `next`").with_field("after");
        let after = match q.after.as_deref().map(|c| c.split_once('.')) {
            Some(Some((ms, id))) => (ms.parse::<i64>().map_err(|_| bad())?, id),
            Some(None) => return Err(bad()),
            None => (i64::MIN, ""),
        };
        let state = q.state.as_deref().filter(|s| !s.is_empty());
        if let Some(s) = state
            && AllocationState::parse(s).is_none()
            && OperationalState::parse(s).is_none()
        {
            return Err(Error::invalid(format!(
                "`{s}` is not a state: allocated, provisioned, unallocated, pending, ready, stopped, failed"
            ))
            .with_field("state"));
        }
        let filter = store::BookingFilter {
            all: q.all || state == Some("unallocated"),
            name: q.name.as_deref().filter(|s| !s.is_empty()),
            state,
        };
        let limit = q.limit.unwrap_or(100).clamp(1, 1000);
        let mut items = store::page(&self.pool, &m.project_id, filter, after, limit + 1).await?;
        let next = (items.len() > limit).then(|| {
            items.truncate(limit);
            let last = &items[limit - 1];
            format!("{}.{}", last.created_ms, last.id)
        });
        Ok(Page { items, next })
    }

    /// Allocates: checks the request, the quota and the capacity, and takes
    /// them, all in one transaction; with `provision`, provisions it too.
    pub async fn allocate(
        &self,
        p: &Principal,
        project: &str,
        mut r: BookingRequest,
    ) -> Result<Booking> {
        let (m, level) = self
            .project_level_for(p, project, Operation::BookingsCreate)
            .await?;
        check_name("name", &r.name)?;
        let compiled = self.resource_type(&r.resource_type).await?;
        let rtype = &compiled.t;
        let lease_s = check_request(&level, &r, &rtype.name)?;
        let is_net = rtype.name == NETWORK;
        let asked_tier = asked_tier(&compiled, &r.spec)?;
        let id = secrets::new_id();
        let shared = registry::shares_capacity(&rtype.name) || r.nat || !r.parts.is_empty();
        let mut tx = db::project_tx(&self.pool, &m.project_id, shared).await?;
        let placement = self
            .place_within_quota(
                &mut tx,
                (&m.project_id, &level),
                &mut r,
                asked_tier,
                lease_s,
            )
            .await?;
        let tier = placement.as_ref().map(|pl| pl.tier);
        // A type on no node: its quota is checked by its insert (below).
        let quota_in_insert = asked_tier.is_none();
        let vlan = if is_net || rtype.name == VLAN {
            Some(self.take_vlan(&mut tx).await?)
        } else {
            None
        };
        let row = store::NewBooking {
            id: &id,
            project_id: &m.project_id,
            user_id: &p.user_id,
            resource_type: &rtype.name,
            tier,
            lease_s,
            node_id: placement.as_ref().map(|pl| pl.node.id.as_str()),
            vlan,
        };
        let now = self.now_ms();
        let held_until = now + self.settings.hold_s * 1000;
        let ceiling = quota_in_insert.then(|| store::Ceiling {
            max_mbps: level.max_bandwidth_mbps,
            mbps: r.bandwidth_mbps,
            max_hours: level.max_lease_hours,
            hours: hours_up(lease_s * 1000),
        });
        if !store::insert_within(&mut tx, &row, &r, (now, held_until), ceiling).await? {
            // Over a ceiling: the refusal, with its numbers.
            let (mbps, project) = (r.bandwidth_mbps, &m.project_id);
            self.check_quota(&mut tx, project, &level, None, mbps, lease_s)
                .await?;
            return Err(Error::internal("a quota refused what its check allows"));
        }
        // The booking as written (no read-back: a round trip less), but
        // for a span, whose parts the database numbered.
        let b = if r.parts.is_empty() {
            let node = placement.as_ref().map(|pl| pl.node.name.clone());
            written(&row, &r, node, (&m.project, &p.user), (now, held_until))
        } else {
            self.record_parts(&mut tx, &id, &r).await?;
            self.booking_tx_row(&mut tx, &id).await?
        };
        self.check_docs(&mut tx, &b, placement.as_ref()).await?;
        let who = (m.project_id.as_str(), p.user_id.as_str());
        self.commit_accounted(tx, ("allocate", &b), who, 201)
            .await?;
        if r.provision {
            return self.provision(p, project, &id).await;
        }
        Ok(b)
    }

    /// Booking `r`'s quota checked and its place found, in `tx`; none for
    /// a type on no node, whose quota its insert checks.
    async fn place_within_quota(
        &self,
        tx: &mut Tx,
        (project_id, level): (&str, &ServiceLevel),
        r: &mut BookingRequest,
        asked: Option<TierChoice>,
        lease_s: i64,
    ) -> Result<Option<Placement>> {
        let Some(asked) = asked else {
            return Ok(None);
        };
        // The quota first: refused as such (409) whatever the nodes have
        // left; an `auto` network's tier counts once placed.
        let fixed = asked.fixed();
        let mbps = r.bandwidth_mbps;
        self.check_quota(tx, project_id, level, fixed, mbps, lease_s)
            .await?;
        let placement = if r.parts.is_empty() {
            self.place(tx, asked, mbps, r.nat).await?
        } else {
            self.span_place(tx, &mut r.parts, asked, mbps).await?
        };
        if fixed.is_none() {
            self.check_quota(tx, project_id, level, Some(placement.tier), 0, 0)
                .await?;
        }
        Ok(Some(placement))
    }

    /// Compiles the documents booking `b` becomes on its node or nodes,
    /// as each node would: a refusal is the booker's, located, and the
    /// transaction is not committed.
    async fn check_docs(&self, tx: &mut Tx, b: &Booking, pl: Option<&Placement>) -> Result<()> {
        let (Some(pl), Some(v)) = (pl, b.vlan) else {
            return Ok(());
        };
        let tier = pl.tier;
        if b.parts.is_empty() {
            let doc = node_doc(
                &b.spec,
                &node_network_name(&b.id),
                tier,
                v,
                b.bandwidth_mbps,
            )?;
            let mut doc = doc;
            let wan = pl.node.wan.as_ref();
            crate::app::wan_guard::refuse_wan_egress(&doc, wan, &pl.node.ports, "spec")?;
            crate::app::gateway::gateway_doc(&mut doc, b, wan, &[])?;
            prism_compile::compile(&doc, &pl.node.ports).map_err(Error::from)?;
            return Ok(());
        }
        let parts = parts::parts(&mut **tx, &b.id).await?;
        for (i, part) in parts.iter().enumerate() {
            let ports = nodes::ports(tx, &part.node_id).await?;
            let wan = part.wan.as_ref();
            let spec = node_doc(&b.spec, "part", tier, v, b.bandwidth_mbps)?;
            crate::app::wan_guard::refuse_wan_egress(&spec, wan, &ports, "spec")?;
            let mut own = prism_netdoc::NetworkDoc::new("part", spec.tier, spec.forwarding);
            own.route = part.route.clone();
            crate::app::wan_guard::refuse_wan_egress(&own, wan, &ports, &format!("parts[{i}]"))?;
            if let Some(mut doc) = crate::app::span::part_doc(b, &parts, i)? {
                crate::app::gateway::gateway_doc(&mut doc, b, part.wan.as_ref(), &[])
                    .map_err(|e| e.with_field(format!("parts[{i}].node")))?;
                prism_compile::compile(&doc, &ports).map_err(|e| {
                    Error::invalid(format!(
                        "on node `{}`: {}: {}",
                        part.node, e.field, e.message
                    ))
                    .with_field(format!("parts[{i}]"))
                })?;
            }
        }
        Ok(())
    }

    /// A VLAN of the pool no booking holds (`crate::app::pools`' order: never
    /// used first, then released longest ago, none within the hold-down).
    async fn take_vlan(&self, tx: &mut Tx) -> Result<i64> {
        use crate::datastore::pool_releases::{VLANS, first_free, held_count};
        let cutoff = self.now_ms() - self.settings.pool_hold_down_ms;
        let (first, last) = (*VLAN_POOL.start(), *VLAN_POOL.end());
        if let Some(v) = first_free(tx, VLANS, first, last, cutoff).await? {
            return Ok(v);
        }
        Err(Error::new(
            crate::error::ErrorCode::NoCapacity,
            format!(
                "the VLAN pool is exhausted ({} released in the last {} s are held down)",
                held_count(tx, VLANS, cutoff).await?,
                self.settings.pool_hold_down_ms / 1000
            ),
        ))
    }

    /// Provisions an allocated booking: records the operation, makes it
    /// part of its node's desired state (a new generation), then
    /// converges the node. A crash between the two is resumed at start.
    pub async fn provision(&self, p: &Principal, project: &str, id: &str) -> Result<Booking> {
        let m = self
            .project_for(p, project, Operation::BookingsCreate)
            .await?;
        let b = self.booking_in(&m, id).await?;
        p.may_touch(
            &m,
            Operation::BookingsCreate,
            &b.ids.user,
            &format!("booking {id}"),
        )?;
        let now = self.now_ms();
        let mut tx = db::project_tx(&self.pool, &m.project_id, true).await?;
        let cur = self.booking_tx_row(&mut tx, id).await?;
        if cur.allocation_state != AllocationState::Allocated {
            return Err(Error::conflict(format!(
                "the booking is {}, not allocated",
                cur.allocation_state.as_str()
            )));
        }
        if cur.expires_ms <= now {
            return Err(Error::conflict(
                "the booking's hold has expired; allocate again",
            ));
        }
        let lease_s = cur.ids.lease_s;
        let op = self.begin_operation(&mut tx, &cur, "provision").await?;
        let state = if cur.node.is_some() {
            OperationalState::Pending
        } else {
            OperationalState::Ready
        };
        store::set_provisioned(&mut tx, id, state, now, now + lease_s * 1000).await?;
        let b = self.booking_tx_row(&mut tx, id).await?;
        self.bump_generation(&mut tx, &b).await?;
        self.account(&mut tx, "provision", &b, &m.project_id, &p.user_id)
            .await?;
        tx.commit().await?;
        self.node_changed(op, self.pass_wait()).await;
        self.booking_in(&m, id).await
    }

    /// Renews a provisioned or allocated booking to `lease_s` from now,
    /// clamped to the service level's longest lease.
    pub async fn renew(
        &self,
        p: &Principal,
        project: &str,
        id: &str,
        lease_s: i64,
    ) -> Result<Renewed> {
        let (m, level) = self
            .project_level_for(p, project, Operation::BookingsRenew)
            .await?;
        let b = self.booking_in(&m, id).await?;
        p.may_touch(
            &m,
            Operation::BookingsRenew,
            &b.ids.user,
            &format!("booking {id}"),
        )?;
        if lease_s < 60 {
            return Err(Error::invalid("at least 60 seconds").with_field("lease_s"));
        }
        let now = self.now_ms();
        let granted_s = lease_s.min(level.max_lease_s);
        let expires = now + granted_s * 1000;
        let mut tx = db::project_tx(&self.pool, &m.project_id, true).await?;
        let cur = self.booking_tx_row(&mut tx, id).await?;
        if cur.allocation_state != AllocationState::Provisioned {
            return Err(Error::conflict(format!(
                "only a provisioned booking is renewed; this one is {}",
                cur.allocation_state.as_str()
            )));
        }
        let start = cur.provisioned_ms.unwrap_or(cur.created_ms);
        let extra_h = hours_up(expires - start) - hours_up(cur.expires_ms - start);
        if extra_h > 0 {
            self.check_quota(&mut tx, &m.project_id, &level, None, 0, extra_h * 3600)
                .await?;
        }
        store::set_expires(&mut tx, id, expires).await?;
        let b = self.booking_tx_row(&mut tx, id).await?;
        self.account(&mut tx, "renew", &b, &m.project_id, &p.user_id)
            .await?;
        tx.commit().await?;
        Ok(Renewed {
            expires_ms: expires,
            clamped: granted_s < lease_s,
        })
    }

    /// Start or stop a provisioned network: a stopped one stays booked
    /// (and counted) but leaves its node.
    pub async fn act(
        &self,
        p: &Principal,
        project: &str,
        id: &str,
        action: Action,
    ) -> Result<Booking> {
        let m = self
            .project_for(p, project, Operation::BookingsAction)
            .await?;
        let b = self.booking_in(&m, id).await?;
        p.may_touch(
            &m,
            Operation::BookingsAction,
            &b.ids.user,
            &format!("booking {id}"),
        )?;
        if b.allocation_state != AllocationState::Provisioned || b.node.is_none() {
            return Err(Error::conflict(
                "only a provisioned network is started or stopped",
            ));
        }
        let state = match action {
            Action::Start => OperationalState::Pending,
            Action::Stop => OperationalState::Stopped,
        };
        let mut tx = db::project_tx(&self.pool, &m.project_id, true).await?;
        let op = self
            .begin_operation(
                &mut tx,
                &b,
                if action == Action::Start {
                    "start"
                } else {
                    "stop"
                },
            )
            .await?;
        store::set_operational(&mut tx, id, state).await?;
        self.bump_generation(&mut tx, &b).await?;
        tx.commit().await?;
        // A network started is answered ready (or failed) when its node
        // answers in time; a stop only waits a moment for its node.
        let wait = match action {
            Action::Start => self.pass_wait(),
            Action::Stop => self.change_wait(),
        };
        self.node_changed(op, wait).await;
        self.booking_in(&m, id).await
    }

    /// How long a release or a stop waits for its node before answering.
    pub(crate) fn change_wait(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.settings.change_wait_ms)
    }

    /// A new generation for every node booking `b` is on (a spanning
    /// network's parts' nodes, else its node).
    pub(crate) async fn bump_generation(&self, tx: &mut Tx, b: &Booking) -> Result<()> {
        for node in self.node_ids_of(tx, b).await? {
            crate::datastore::nodes::bump_generation(tx, &node, &b.id).await?;
        }
        Ok(())
    }
}

/// Booking `row` (of request `r`) as `store::insert` writes it, allocated
/// at `times.0` and held until `times.1`: what reading it back would give.
fn written(
    row: &store::NewBooking<'_>,
    r: &BookingRequest,
    node: Option<String>,
    (project, user): (&str, &str),
    (now, held_until): (i64, i64),
) -> Booking {
    let on_node = node.is_some() && row.resource_type == NETWORK;
    Booking {
        id: row.id.to_string(),
        project: project.to_string(),
        user: user.to_string(),
        name: r.name.clone(),
        resource_type: row.resource_type.to_string(),
        allocation_state: AllocationState::Allocated,
        operational_state: OperationalState::Pending,
        error: None,
        tier: row.tier,
        bandwidth_mbps: r.bandwidth_mbps,
        node_network: on_node.then(|| crate::model::node_network_name(row.id)),
        node,
        vlan: row.vlan,
        created_ms: now,
        provisioned_ms: None,
        expires_ms: held_until,
        released_ms: None,
        spec: r.spec.clone(),
        parts: Vec::new(),
        s_tag: None,
        nat: r.nat,
        converging: false,
        ids: crate::model::BookingIds {
            user: row.user_id.to_string(),
            project: row.project_id.to_string(),
            node: row.node_id.map(str::to_string),
            lease_s: row.lease_s,
        },
    }
}

/// Checks a request's lease, parts and bandwidth against the service
/// level and its resource type; the lease in seconds.
fn check_request(level: &crate::ServiceLevel, r: &BookingRequest, rtype: &str) -> Result<i64> {
    let lease_s = r.lease_s.unwrap_or(level.default_lease_s);
    if !(60..=level.max_lease_s).contains(&lease_s) {
        return Err(Error::invalid(format!(
            "60 to {} seconds (the service level's longest lease)",
            level.max_lease_s
        ))
        .with_field("lease_s"));
    }
    let is_net = rtype == NETWORK;
    if !r.parts.is_empty() {
        if !is_net {
            return Err(Error::invalid("only a network spans nodes").with_field("parts"));
        }
        crate::app::span::check_parts(&r.parts, &r.spec)?;
    }
    if is_net && !(1..=100_000).contains(&r.bandwidth_mbps) {
        return Err(Error::invalid("1 to 100000 Mbit/s").with_field("bandwidth_mbps"));
    }
    if !is_net && r.bandwidth_mbps != 0 {
        return Err(
            Error::invalid(format!("a `{rtype}` has no bandwidth: 0")).with_field("bandwidth_mbps")
        );
    }
    Ok(lease_s)
}
