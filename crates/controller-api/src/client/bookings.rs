//! The client's calls: bookings and their leases, and the gateway's public addresses.

use super::*;

impl ControllerClient {
    pub async fn book(&self, project: &str, r: &BookingRequest) -> Result<Booking, ClientError> {
        self.call(
            "POST",
            format!("/v1/projects/{}/bookings", seg(project)),
            Some(r),
        )
        .await
    }
    pub async fn bookings(
        &self,
        project: &str,
        all: bool,
        after: Option<&str>,
    ) -> Result<Page<Booking>, ClientError> {
        let mut path = format!("/v1/projects/{}/bookings?all={all}", seg(project));
        if let Some(a) = after {
            path.push_str(&format!("&after={}", seg(a)));
        }
        self.call("GET", path, None::<&()>).await
    }
    /// A page of the project's bookings as `q` asks (name, state, page).
    pub async fn find_bookings(
        &self,
        project: &str,
        q: &ListQuery,
    ) -> Result<Page<Booking>, ClientError> {
        let first = format!("all={}", q.all);
        let pairs = [("after", &q.after), ("name", &q.name), ("state", &q.state)];
        let args = query_string(first, &pairs, q.limit);
        let path = format!("/v1/projects/{}/bookings?{args}", seg(project));
        self.call("GET", path, None::<&()>).await
    }
    /// Every page of [`Self::bookings`].
    pub async fn all_bookings(
        &self,
        project: &str,
        all: bool,
    ) -> Result<Vec<Booking>, ClientError> {
        let mut items = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let page = self.bookings(project, all, after.as_deref()).await?;
            items.extend(page.items);
            match page.next {
                Some(n) => after = Some(n),
                None => return Ok(items),
            }
        }
    }
    /// Project `project`'s live booking `key`: its id or its name (a
    /// live name is unique in a project).
    pub async fn live_booking(&self, project: &str, key: &str) -> Result<Booking, ClientError> {
        let all = self.all_bookings(project, false).await?;
        (all.into_iter())
            .find(|b| b.id == key || b.name == key)
            .ok_or_else(|| ClientError::NoBooking {
                project: project.into(),
                key: key.into(),
            })
    }
    pub async fn booking(&self, project: &str, id: &str) -> Result<Booking, ClientError> {
        self.call(
            "GET",
            format!("/v1/projects/{}/bookings/{}", seg(project), seg(id)),
            None::<&()>,
        )
        .await
    }
    pub async fn provision(&self, project: &str, id: &str) -> Result<Booking, ClientError> {
        self.call(
            "POST",
            format!(
                "/v1/projects/{}/bookings/{}/provision",
                seg(project),
                seg(id)
            ),
            None::<&()>,
        )
        .await
    }
    pub async fn renew(
        &self,
        project: &str,
        id: &str,
        lease_s: i64,
    ) -> Result<Renewed, ClientError> {
        self.call(
            "POST",
            format!("/v1/projects/{}/bookings/{}/renew", seg(project), seg(id)),
            Some(&RenewRequest { lease_s }),
        )
        .await
    }
    pub async fn act(
        &self,
        project: &str,
        id: &str,
        action: Action,
    ) -> Result<Booking, ClientError> {
        self.call(
            "POST",
            format!("/v1/projects/{}/bookings/{}/action", seg(project), seg(id)),
            Some(&ActionRequest { action }),
        )
        .await
    }
    pub async fn release(&self, project: &str, id: &str) -> Result<Booking, ClientError> {
        self.call(
            "DELETE",
            format!("/v1/projects/{}/bookings/{}", seg(project), seg(id)),
            None::<&()>,
        )
        .await
    }
    /// Changes a live network booking (its tables, forwarding mode, tier,
    /// bandwidth), or with `dry_run` only checks the change.
    pub async fn edit_booking(
        &self,
        project: &str,
        id: &str,
        change: &crate::BookingChange,
    ) -> Result<crate::BookingChanged, ClientError> {
        self.call(
            "PATCH",
            format!("/v1/projects/{}/bookings/{}", seg(project), seg(id)),
            Some(change),
        )
        .await
    }
    /// A booking's accepted changes, oldest first.
    pub async fn booking_changes(
        &self,
        project: &str,
        id: &str,
    ) -> Result<Vec<crate::BookingChangeView>, ClientError> {
        self.call(
            "GET",
            format!("/v1/projects/{}/bookings/{}/changes", seg(project), seg(id)),
            None::<&()>,
        )
        .await
    }
    /// Leases a public address (the gateway service).
    pub async fn lease_public(
        &self,
        project: &str,
        r: &PublicAddressRequest,
    ) -> Result<PublicAddress, ClientError> {
        let path = format!("/v1/projects/{}/public-addresses", seg(project));
        self.call("POST", path, Some(r)).await
    }
    pub async fn public_addresses(
        &self,
        project: &str,
        all: bool,
    ) -> Result<Vec<PublicAddress>, ClientError> {
        let path = format!("/v1/projects/{}/public-addresses?all={all}", seg(project));
        self.call("GET", path, None::<&()>).await
    }
    pub async fn renew_public(
        &self,
        project: &str,
        address: &str,
        lease_s: i64,
    ) -> Result<Renewed, ClientError> {
        let path = format!(
            "/v1/projects/{}/public-addresses/{}/renew",
            seg(project),
            seg(address)
        );
        self.call("POST", path, Some(&RenewRequest { lease_s }))
            .await
    }
    pub async fn release_public(
        &self,
        project: &str,
        address: &str,
    ) -> Result<PublicAddress, ClientError> {
        let path = format!(
            "/v1/projects/{}/public-addresses/{}",
            seg(project),
            seg(address)
        );
        self.call("DELETE", path, None::<&()>).await
    }
}
