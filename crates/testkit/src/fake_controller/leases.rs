//! The fake's bookings, quotas, usage, audit log and public addresses.

use super::{FakeCaller, FakeController, admin_only, no_node};
use prism_controller_api::areas::{Answer, LeasesApi, PublicApi};
use prism_controller_api::{
    Action, AllocationState, AuditEntry, AuditQuery, Booking, BookingChange, BookingChangeView,
    BookingChanged, BookingCounters, BookingRequest, CaptureRequest, Error, ErrorCode, ListQuery,
    Operation, OperationalState, Page, PublicAddress, PublicAddressRequest, QuotaUse, QuotaView,
    Renewed, TraceRequest, UsageReport,
};
use prism_node_api::TapAnswer;

impl FakeController {
    /// A booking allocated: its project, type and name checked.
    fn book(&self, p: &FakeCaller, project: &str, r: BookingRequest) -> Answer<Booking> {
        let mut s = self.lock();
        s.project(p, project, Operation::BookingsCreate)?;
        if !s.types.iter().any(|t| t.name == r.resource_type) {
            let e = Error::invalid(format!("no resource type {}", r.resource_type));
            return Err(e.with_field("type"));
        }
        let booked = |b: &&Booking| b.allocation_state != AllocationState::Unallocated;
        let taken = s.bookings.iter().filter(booked).any(|b| b.name == r.name);
        if taken {
            return Err(Error::conflict(format!(
                "a booking named {} exists",
                r.name
            )));
        }
        let b = Booking {
            id: s.id("booking"),
            project: project.into(),
            user: p.user.clone(),
            name: r.name,
            resource_type: r.resource_type,
            allocation_state: AllocationState::Allocated,
            operational_state: OperationalState::Pending,
            bandwidth_mbps: r.bandwidth_mbps,
            created_ms: s.now_ms,
            expires_ms: s.now_ms + 600_000,
            error: None,
            tier: None,
            node: None,
            node_network: None,
            vlan: None,
            provisioned_ms: None,
            released_ms: None,
            spec: r.spec,
            generation: 1,
            parts: Vec::new(),
            s_tag: None,
            nat: r.nat,
            converging: false,
            ssh: None,
            host_keys: Vec::new(),
            ids: Default::default(),
        };
        s.bookings.push(b.clone());
        Ok(b)
    }
}

impl LeasesApi for FakeController {
    async fn find_bookings(
        &self,
        p: &FakeCaller,
        project: &str,
        q: &ListQuery,
    ) -> Answer<Page<Booking>> {
        let s = self.lock();
        s.project(p, project, Operation::BookingsRead)?;
        let live = |b: &&Booking| q.all || b.allocation_state != AllocationState::Unallocated;
        let named = |b: &&Booking| q.name.as_ref().is_none_or(|n| b.name.contains(n.as_str()));
        let items = s.bookings.iter().filter(|b| b.project == project);
        let items = items.filter(live).filter(named).cloned().collect();
        Ok(Page { items, next: None })
    }

    async fn allocate(&self, p: &FakeCaller, project: &str, r: BookingRequest) -> Answer<Booking> {
        let provision = r.provision;
        let b = self.book(p, project, r)?;
        match provision {
            true => self.provision(p, project, &b.id).await,
            false => Ok(b),
        }
    }

    async fn get_booking(&self, p: &FakeCaller, project: &str, id: &str) -> Answer<Booking> {
        let mut s = self.lock();
        s.project(p, project, Operation::BookingsRead)?;
        s.booking_mut(project, id).map(|b| b.clone())
    }

    async fn provision(&self, p: &FakeCaller, project: &str, id: &str) -> Answer<Booking> {
        let mut s = self.lock();
        s.project(p, project, Operation::BookingsCreate)?;
        let node = s.nodes.first().map(|n| n.name.clone());
        let now = s.now_ms;
        let b = s.booking_mut(project, id)?;
        if b.allocation_state != AllocationState::Allocated {
            return Err(Error::conflict("only an allocated booking is provisioned"));
        }
        let Some(node) = node else {
            return Err(Error::new(ErrorCode::NoCapacity, "no node is registered"));
        };
        b.allocation_state = AllocationState::Provisioned;
        b.operational_state = OperationalState::Ready;
        b.node = Some(node);
        b.provisioned_ms = Some(now);
        b.expires_ms = now + 3_600_000;
        Ok(b.clone())
    }

    async fn renew(&self, p: &FakeCaller, project: &str, id: &str, s_: i64) -> Answer<Renewed> {
        let mut s = self.lock();
        s.project(p, project, Operation::BookingsRenew)?;
        let now = s.now_ms;
        let b = s.booking_mut(project, id)?;
        if b.allocation_state == AllocationState::Unallocated {
            return Err(Error::conflict("a released booking is not renewed"));
        }
        b.expires_ms = now + s_ * 1000;
        Ok(Renewed {
            expires_ms: b.expires_ms,
            clamped: false,
        })
    }

    async fn act(&self, p: &FakeCaller, project: &str, id: &str, a: Action) -> Answer<Booking> {
        let mut s = self.lock();
        s.project(p, project, Operation::BookingsAction)?;
        let b = s.booking_mut(project, id)?;
        if b.allocation_state != AllocationState::Provisioned {
            return Err(Error::conflict(
                "only a provisioned booking is started or stopped",
            ));
        }
        b.operational_state = match a {
            Action::Start => OperationalState::Ready,
            Action::Stop => OperationalState::Stopped,
        };
        Ok(b.clone())
    }

    async fn release(&self, p: &FakeCaller, project: &str, id: &str) -> Answer<Booking> {
        let mut s = self.lock();
        s.project(p, project, Operation::BookingsRelease)?;
        let now = s.now_ms;
        let b = s.booking_mut(project, id)?;
        if b.allocation_state != AllocationState::Unallocated {
            b.allocation_state = AllocationState::Unallocated;
            b.released_ms = Some(now);
        }
        Ok(b.clone())
    }

    /// As the controller does, without a node: the generation fenced,
    /// the spec's tables and the bandwidth replaced, the change kept.
    async fn edit_booking(
        &self,
        p: &FakeCaller,
        project: &str,
        id: &str,
        c: BookingChange,
    ) -> Answer<BookingChanged> {
        let mut s = self.lock();
        s.project(p, project, Operation::BookingsChange)?;
        let now = s.now_ms;
        let b = s.booking_mut(project, id)?;
        if b.allocation_state == AllocationState::Unallocated {
            return Err(Error::conflict("a released booking is not changed"));
        }
        if let Some(g) = c.generation.filter(|g| *g != b.generation) {
            let m = format!("generation {g} is not current: {}", b.generation);
            return Err(Error::conflict(m).with_field("generation"));
        }
        let (mut fields, mut before, mut after) =
            (Vec::new(), serde_json::Map::new(), serde_json::Map::new());
        for (k, v) in c.spec.unwrap_or_default() {
            if !prism_controller_api::CHANGEABLE_SPEC.contains(&k.as_str()) {
                return Err(Error::invalid("not changeable").with_field(format!("spec.{k}")));
            }
            let key = format!("spec.{k}");
            before.insert(key.clone(), b.spec.get(&k).cloned().unwrap_or_default());
            after.insert(key.clone(), v.clone());
            b.spec[k.as_str()] = v;
            fields.push(key);
        }
        if let Some(m) = c.bandwidth_mbps {
            before.insert("bandwidth_mbps".into(), b.bandwidth_mbps.into());
            after.insert("bandwidth_mbps".into(), m.into());
            b.bandwidth_mbps = m;
            fields.push("bandwidth_mbps".into());
        }
        b.generation += 1;
        let view = BookingChangeView {
            generation: b.generation,
            at_ms: now,
            user: p.user.clone(),
            fields,
            before: before.into(),
            after: after.into(),
            strategy: None,
            modelled_ms: None,
        };
        let booking = b.clone();
        s.changes
            .entry(id.to_string())
            .or_default()
            .push(view.clone());
        Ok(BookingChanged {
            booking,
            change: view,
            dry_run: false,
        })
    }

    async fn booking_changes(
        &self,
        p: &FakeCaller,
        project: &str,
        id: &str,
    ) -> Answer<Vec<BookingChangeView>> {
        self.get_booking(p, project, id).await?;
        Ok(self.lock().changes.get(id).cloned().unwrap_or_default())
    }

    async fn booking_counters(
        &self,
        p: &FakeCaller,
        pr: &str,
        id: &str,
    ) -> Answer<BookingCounters> {
        self.get_booking(p, pr, id).await?;
        Err(no_node("counters"))
    }

    async fn read_map(
        &self,
        p: &FakeCaller,
        pr: &str,
        id: &str,
        _map: &str,
    ) -> Answer<prism_node_api::MapView> {
        self.get_booking(p, pr, id).await?;
        Err(no_node("maps"))
    }

    async fn write_map(
        &self,
        p: &FakeCaller,
        (pr, id, _): (&str, &str, &str),
        _w: prism_node_api::MapWrite,
    ) -> Answer<prism_node_api::MapView> {
        self.get_booking(p, pr, id).await?;
        Err(no_node("maps"))
    }

    async fn trace_booking(
        &self,
        p: &FakeCaller,
        pr: &str,
        id: &str,
        _r: TraceRequest,
    ) -> Answer<TapAnswer> {
        self.get_booking(p, pr, id).await?;
        Err(no_node("a trace"))
    }

    async fn capture_booking(
        &self,
        p: &FakeCaller,
        pr: &str,
        id: &str,
        _r: CaptureRequest,
    ) -> Answer<(String, Vec<u8>)> {
        self.get_booking(p, pr, id).await?;
        Err(no_node("a capture"))
    }

    async fn quota(&self, p: &FakeCaller, project: &str) -> Answer<QuotaView> {
        let s = self.lock();
        let pr = s.project(p, project, Operation::BookingsRead)?;
        let level = &s.levels[&pr.level];
        let held = s
            .bookings
            .iter()
            .filter(|b| b.project == project && b.allocation_state != AllocationState::Unallocated);
        let mbps = held.map(|b| b.bandwidth_mbps).sum();
        let q = |used, limit| QuotaUse {
            used,
            reserved: 0,
            limit,
        };
        Ok(QuotaView {
            service_level: level.name.clone(),
            hw_networks: q(0, level.max_hw_networks),
            sw_networks: q(0, level.max_sw_networks),
            bandwidth_mbps: q(mbps, level.max_bandwidth_mbps),
            lease_hours: q(0, level.max_lease_hours),
            public_addresses: q(0, level.max_public_addresses),
        })
    }

    async fn usage(&self, p: &FakeCaller, pr: &str, from: i64, to: i64) -> Answer<UsageReport> {
        self.lock().project(p, pr, Operation::UsageRead)?;
        Ok(UsageReport {
            project: pr.into(),
            from_ms: from,
            to_ms: to,
            lines: Vec::new(),
            total_resource_hours: 0.0,
            total_bandwidth_mbps_hours: 0.0,
            storage_byte_hours: 0.0,
        })
    }

    async fn list_audit(&self, p: &FakeCaller, q: &AuditQuery) -> Answer<Page<AuditEntry>> {
        admin_only(p)?;
        let mut items = self.audit_log();
        if q.newest_first {
            items.reverse();
        }
        items.truncate(q.limit.unwrap_or(100));
        Ok(Page { items, next: None })
    }
}

impl PublicApi for FakeController {
    async fn list_public(
        &self,
        p: &FakeCaller,
        pr: &str,
        _all: bool,
    ) -> Answer<Vec<PublicAddress>> {
        self.lock().project(p, pr, Operation::BookingsRead)?;
        Ok(Vec::new())
    }

    async fn lease_public(
        &self,
        p: &FakeCaller,
        pr: &str,
        _r: PublicAddressRequest,
    ) -> Answer<PublicAddress> {
        self.lock().project(p, pr, Operation::BookingsCreate)?;
        Err(Error::new(
            ErrorCode::NoCapacity,
            "the fake controller keeps no public addresses",
        ))
    }

    async fn renew_public(&self, p: &FakeCaller, pr: &str, a: &str, _s: i64) -> Answer<Renewed> {
        self.lock().project(p, pr, Operation::BookingsRenew)?;
        Err(Error::not_found(format!("public address {a}")))
    }

    async fn release_public(&self, p: &FakeCaller, pr: &str, a: &str) -> Answer<PublicAddress> {
        self.lock().project(p, pr, Operation::BookingsRelease)?;
        Err(Error::not_found(format!("public address {a}")))
    }
}
