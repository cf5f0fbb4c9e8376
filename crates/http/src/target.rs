//! The address of a server as a user gives it.

/// `https://host:port` (TLS), `http://host:port` or a bare `host:port`
/// (plain HTTP).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// `host:port`, for the TCP connection.
    pub addr: String,
    /// The host alone: the name the server's certificate must carry.
    pub host: String,
    pub tls: bool,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("`{given}`: {reason} (expected https://HOST:PORT, http://HOST:PORT or HOST:PORT)")]
pub struct TargetError {
    pub given: String,
    pub reason: &'static str,
}

impl Target {
    pub fn parse(s: &str) -> Result<Self, TargetError> {
        let err = |reason| TargetError {
            given: s.to_string(),
            reason,
        };
        let (tls, rest) = if let Some(r) = s.strip_prefix("https://") {
            (true, r)
        } else if let Some(r) = s.strip_prefix("http://") {
            (false, r)
        } else if s.contains("://") {
            return Err(err("an unknown scheme"));
        } else {
            (false, s)
        };
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        if rest.contains('/') {
            return Err(err("a path after the address"));
        }
        let (host, port) = rest.rsplit_once(':').ok_or_else(|| err("no port"))?;
        if port.parse::<u16>().is_err() {
            return Err(err("the port is not a number below 65536"));
        }
        let host = host.trim_start_matches('[').trim_end_matches(']');
        if host.is_empty() {
            return Err(err("no host"));
        }
        Ok(Self {
            addr: rest.to_string(),
            host: host.to_string(),
            tls,
        })
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let scheme = if self.tls { "https" } else { "http" };
        write!(f, "{scheme}://{}", self.addr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes_hosts_and_ports() {
        let t = Target::parse("https://ctl.lab:7443/").unwrap();
        assert_eq!(
            (t.addr.as_str(), t.host.as_str(), t.tls),
            ("ctl.lab:7443", "ctl.lab", true)
        );
        let t = Target::parse("127.0.0.1:7400").unwrap();
        assert_eq!((t.host.as_str(), t.tls), ("127.0.0.1", false));
        let t = Target::parse("http://[::1]:80").unwrap();
        assert_eq!((t.addr.as_str(), t.host.as_str()), ("[::1]:80", "::1"));
        assert_eq!(t.to_string(), "http://[::1]:80");
        for (bad, why) in [
            ("ftp://a:1", "an unknown scheme"),
            ("https://a", "no port"),
            ("a:99999", "the port is not a number below 65536"),
            ("https://a:1/v1", "a path after the address"),
            (":1", "no host"),
        ] {
            assert_eq!(Target::parse(bad).unwrap_err().reason, why, "{bad}");
        }
    }
}
