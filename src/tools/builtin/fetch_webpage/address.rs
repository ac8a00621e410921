//! Which addresses `fetch_webpage` may connect to, and the DNS resolver that enforces it.
//!
//! A page the model asks for must not reach what only this machine or its network can reach:
//! loopback (a local model server, a dev database's HTTP port), link-local (cloud metadata at
//! 169.254.169.254), private networks (RFC 1918, IPv6 unique local), shared address space
//! (CGNAT), unspecified, multicast, broadcast and reserved addresses. [`refused_class`] says
//! which class an address is in, if any; IPv4 addresses embedded in IPv6 (mapped
//! `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are judged
//! as the IPv4 address they carry.
//!
//! The check is made on the addresses the connection will use, not on the host's name:
//! [`GuardedResolver`] resolves a name and hands reqwest only the addresses that pass, so a
//! name cannot resolve to a public address when checked and a private one when connected (no
//! DNS-rebinding gap). An IP literal in the URL is never resolved (reqwest connects to it
//! directly), so the caller checks it with [`check_literal`] first.
//!
//! What it does not do: it does not guard a proxy's target (`fetch_webpage` uses no proxy).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use reqwest::Url;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// An address `fetch_webpage` will not connect to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{host} is {addr}, a {class} address; fetch_webpage does not fetch loopback, link-local or private addresses unless the user's config sets [tools.fetch_webpage.opts] allow_private_addresses = true"
)]
pub struct AddressRefused {
    pub host: String,
    pub addr: IpAddr,
    pub class: &'static str,
}

/// The class that makes `ip` refused, or `None` for an address on the public internet.
pub fn refused_class(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => v4_class(v4),
        IpAddr::V6(v6) => v6_class(v6),
    }
}

fn v4_class(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        _ if ip.is_unspecified() || a == 0 => "unspecified",
        _ if ip.is_loopback() => "loopback",
        _ if ip.is_private() => "private",
        _ if ip.is_link_local() => "link-local",
        (100, 64..=127, _) => "shared (CGNAT)",
        (192, 0, 0) => "reserved (IETF protocol)",
        (198, 18..=19, _) => "reserved (benchmarking)",
        _ if ip.is_broadcast() => "broadcast",
        _ if ip.is_multicast() => "multicast",
        (240..=255, _, _) => "reserved",
        _ => return None,
    })
}

fn v6_class(ip: Ipv6Addr) -> Option<&'static str> {
    if let Some(v4) = embedded_v4(ip) {
        return v4_class(v4);
    }
    let first = ip.segments()[0];
    Some(match first {
        _ if ip.is_unspecified() => "unspecified",
        _ if ip.is_loopback() => "loopback",
        _ if first & 0xffc0 == 0xfe80 => "link-local",
        _ if first & 0xffc0 == 0xfec0 => "site-local",
        _ if first & 0xfe00 == 0xfc00 => "unique local (private)",
        _ if first & 0xff00 == 0xff00 => "multicast",
        _ => return None,
    })
}

/// The IPv4 address an IPv6 address carries: mapped, compatible, NAT64 or 6to4.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let tail =
        |hi: u16, lo: u16| Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8);
    match s {
        [0, 0, 0, 0, 0, 0xffff, hi, lo] => Some(tail(hi, lo)),
        // `::` and `::1` are themselves, not 0.0.0.0 and 0.0.0.1.
        [0, 0, 0, 0, 0, 0, hi, lo] if hi != 0 => Some(tail(hi, lo)),
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => Some(tail(hi, lo)),
        [0x2002, hi, lo, ..] => Some(tail(hi, lo)),
        _ => None,
    }
}

/// Checks a URL whose host is an IP address (which no resolver sees); a name passes here and
/// is checked by [`GuardedResolver`] when it is resolved.
pub fn check_literal(url: &Url) -> Result<(), AddressRefused> {
    let host = url.host_str().unwrap_or_default();
    // The parser has already read every spelling of an IPv4 address (`0x7f.1`) as dotted quad;
    // an IPv6 one comes in brackets.
    match host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<IpAddr>()
    {
        Ok(ip) => check(host, ip),
        Err(_) => Ok(()),
    }
}

fn check(host: &str, addr: IpAddr) -> Result<(), AddressRefused> {
    match refused_class(addr) {
        Some(class) => Err(AddressRefused {
            host: host.to_owned(),
            addr,
            class,
        }),
        None => Ok(()),
    }
}

/// Resolves names with the system resolver and passes on only the addresses
/// [`refused_class`] accepts; a name with none left is an [`AddressRefused`] error.
#[derive(Debug, Default)]
pub struct GuardedResolver;

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let (passed, refused) = passing(&host, found);
            match (passed.is_empty(), refused) {
                (false, _) => Ok(Box::new(passed.into_iter()) as Addrs),
                (true, Some(e)) => Err(Box::new(e) as _),
                (true, None) => Err(format!("{host} has no address").into()),
            }
        })
    }
}

/// The addresses that pass, and the first refusal (if any address was refused).
fn passing(host: &str, found: Vec<SocketAddr>) -> (Vec<SocketAddr>, Option<AddressRefused>) {
    let mut refused = None;
    let passed = found
        .into_iter()
        .filter(|a| match check(host, a.ip()) {
            Ok(()) => true,
            Err(e) => {
                refused.get_or_insert(e);
                false
            }
        })
        .collect();
    (passed, refused)
}

/// The refusal behind a reqwest error, if an address was refused.
pub fn refusal(e: &reqwest::Error) -> Option<AddressRefused> {
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        if let Some(r) = s.downcast_ref::<AddressRefused>() {
            return Some(r.clone());
        }
        src = s.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(s: &str) -> Option<&'static str> {
        refused_class(s.parse().unwrap())
    }

    #[test]
    fn ipv4_classes() {
        let table = [
            ("127.0.0.1", Some("loopback")),
            ("127.255.0.9", Some("loopback")),
            ("10.1.2.3", Some("private")),
            ("172.16.0.1", Some("private")),
            ("172.31.255.255", Some("private")),
            ("192.168.1.1", Some("private")),
            ("169.254.169.254", Some("link-local")),
            ("100.64.0.1", Some("shared (CGNAT)")),
            ("100.127.255.254", Some("shared (CGNAT)")),
            ("0.0.0.0", Some("unspecified")),
            ("0.1.2.3", Some("unspecified")),
            ("255.255.255.255", Some("broadcast")),
            ("224.0.0.1", Some("multicast")),
            ("240.0.0.1", Some("reserved")),
            ("192.0.0.8", Some("reserved (IETF protocol)")),
            ("198.18.0.1", Some("reserved (benchmarking)")),
            ("8.8.8.8", None),
            ("1.1.1.1", None),
            ("172.32.0.1", None),
            ("100.128.0.1", None),
            ("169.255.0.1", None),
            ("93.184.216.34", None),
        ];
        for (addr, want) in table {
            assert_eq!(class(addr), want, "{addr}");
        }
    }

    #[test]
    fn ipv6_classes_and_ipv4_inside_ipv6() {
        let table = [
            ("::1", Some("loopback")),
            ("::", Some("unspecified")),
            ("fe80::1", Some("link-local")),
            ("febf::1", Some("link-local")),
            ("fec0::1", Some("site-local")),
            ("fc00::1", Some("unique local (private)")),
            ("fd12:3456::1", Some("unique local (private)")),
            ("ff02::1", Some("multicast")),
            ("::ffff:127.0.0.1", Some("loopback")),
            ("::ffff:10.0.0.1", Some("private")),
            ("::ffff:169.254.169.254", Some("link-local")),
            ("::127.0.0.1", Some("loopback")),
            ("64:ff9b::192.168.0.1", Some("private")),
            ("2002:7f00:1::", Some("loopback")),
            ("2002:a9fe:a9fe::1", Some("link-local")),
            ("::ffff:8.8.8.8", None),
            ("2001:4860:4860::8888", None),
            ("2606:4700::1111", None),
            ("2002:808:808::1", None),
        ];
        for (addr, want) in table {
            assert_eq!(class(addr), want, "{addr}");
        }
    }

    #[test]
    fn literals_are_checked_and_names_are_left_to_the_resolver() {
        let refused = |u: &str| {
            check_literal(&Url::parse(u).unwrap())
                .err()
                .map(|e| e.class)
        };
        assert_eq!(refused("http://127.0.0.1:8080/x"), Some("loopback"));
        assert_eq!(refused("http://[::1]/"), Some("loopback"));
        assert_eq!(refused("http://[::ffff:7f00:1]/"), Some("loopback"));
        // The URL parser reads other spellings of an IPv4 address as that address.
        assert_eq!(refused("http://0x7f.1/"), Some("loopback"));
        assert_eq!(refused("http://2130706433/"), Some("loopback"));
        assert_eq!(refused("http://8.8.8.8/"), None);
        assert_eq!(refused("http://localhost/"), None);
    }

    #[test]
    fn only_passing_addresses_are_handed_on() {
        let a = |s: &str| SocketAddr::new(s.parse().unwrap(), 0);
        let (passed, refused) = passing("h", vec![a("127.0.0.1"), a("8.8.8.8")]);
        assert_eq!(passed, [a("8.8.8.8")]);
        assert_eq!(refused.map(|e| e.class), Some("loopback"));
        let (passed, refused) = passing("h", vec![a("10.0.0.1")]);
        assert!(passed.is_empty());
        assert_eq!(
            refused.unwrap().to_string(),
            "h is 10.0.0.1, a private address; fetch_webpage does not fetch loopback, link-local or private addresses unless the user's config sets [tools.fetch_webpage.opts] allow_private_addresses = true"
        );
    }

    /// `localhost` goes through the resolver, which refuses every address it has.
    #[tokio::test]
    async fn a_name_that_resolves_to_loopback_is_refused() {
        let name: Name = "localhost".parse().unwrap();
        let err = match GuardedResolver.resolve(name).await {
            Ok(addrs) => panic!("resolved to {:?}", addrs.collect::<Vec<_>>()),
            Err(e) => e,
        };
        let refused = err.downcast_ref::<AddressRefused>().expect("a refusal");
        assert_eq!(refused.class, "loopback");
    }
}
