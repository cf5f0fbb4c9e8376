//! The controller API's errors (`prism_controller_api::error`: a stable
//! code, a message, the field concerned and, for a refused quota, the
//! numbers), and the controller's `Result`.

pub use prism_controller_api::error::{Error, ErrorCode, QuotaDetail};

pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::StatusCode;

    #[test]
    fn a_quota_refusal_carries_its_numbers_and_maps_to_409() {
        let e = Error::quota(QuotaDetail {
            resource: "hw_networks".into(),
            limit: 2,
            used: 2,
            requested: 1,
        });
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(v["code"], "quota_exceeded");
        assert_eq!(v["quota"]["limit"], 2);
        assert_eq!(e.code.status(), StatusCode::CONFLICT);
        assert_eq!(
            ErrorCode::NoCapacity.status(),
            StatusCode::SERVICE_UNAVAILABLE
        );
        assert!(v.get("field").is_none());
    }
}
