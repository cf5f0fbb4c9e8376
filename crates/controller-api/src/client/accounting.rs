//! The client's calls: quota, usage and the audit log.

use super::*;

impl ControllerClient {
    pub async fn quota(&self, project: &str) -> Result<QuotaView, ClientError> {
        self.call(
            "GET",
            format!("/v1/projects/{}/quota", seg(project)),
            None::<&()>,
        )
        .await
    }
    pub async fn usage(
        &self,
        project: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<UsageReport, ClientError> {
        self.call(
            "GET",
            format!(
                "/v1/projects/{}/usage?from_ms={from_ms}&to_ms={to_ms}",
                seg(project)
            ),
            None::<&()>,
        )
        .await
    }
    pub async fn usage_csv(
        &self,
        project: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<String, ClientError> {
        let path = format!(
            "/v1/projects/{}/usage?from_ms={from_ms}&to_ms={to_ms}&format=csv",
            seg(project)
        );
        let (status, body) = self.raw("GET", &path, None).await?;
        let text = String::from_utf8_lossy(&body).into_owned();
        if status == 200 {
            Ok(text)
        } else {
            Err(ClientError::Unexpected {
                method: "GET",
                path,
                status,
                body: text,
            })
        }
    }
    pub async fn audit(&self, after: Option<&str>) -> Result<Page<AuditEntry>, ClientError> {
        let path = match after {
            Some(a) => format!("/v1/audit?after={}", seg(a)),
            None => "/v1/audit".into(),
        };
        self.call("GET", path, None::<&()>).await
    }

    /// A page of the audit log as `q` asks (order, principal, path).
    pub async fn audit_where(&self, q: &AuditQuery) -> Result<Page<AuditEntry>, ClientError> {
        let first = format!("newest_first={}", q.newest_first);
        let pairs = [
            ("after", &q.after),
            ("principal", &q.principal),
            ("path", &q.path),
        ];
        let args = query_string(first, &pairs, q.limit);
        self.call("GET", format!("/v1/audit?{args}"), None::<&()>)
            .await
    }

    /// Every page of [`Self::audit`].
    pub async fn all_audit(&self) -> Result<Vec<AuditEntry>, ClientError> {
        let mut items = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let page = self.audit(after.as_deref()).await?;
            items.extend(page.items);
            match page.next {
                Some(n) => after = Some(n),
                None => return Ok(items),
            }
        }
    }
}
