//! `[sandbox] allow_loopback`: with the network off, a confined command may still reach the
//! servers on this machine's loopback (the user's dev server, a local database), and nothing
//! else. seccomp cannot read `connect()`'s address (a pointer), so "no network namespace plus
//! a filter" cannot tell loopback from the world; each backend does it its own way:
//!
//! - **bubblewrap** keeps its empty network namespace. The TCP ports listening on this
//!   machine's loopback (or on every address) when the command starts ([`ports`]) are mirrored
//!   into it: the helper inside listens on the same addresses there and hands the listening
//!   sockets out through a socket pair (`fd` [`CHANNEL_FD`]) to a relay outside bubblewrap
//!   (`sayso __sandbox-exec` with [`Loopback::Relay`], bubblewrap's parent), which accepts on
//!   them and connects each one to the same address and port on the host ([`relay`]). Nothing
//!   else exists in the namespace: another address has no route, UDP goes nowhere, and a server
//!   the command starts itself listens on its own loopback, as without the setting. A server
//!   started after the command began is not reachable from it, nor one on a port below 1024
//!   unless sayso runs as root (the helper inside has no privilege to listen there).
//! - **Landlock** (no namespace) keeps its rules denying every TCP bind and connect (ABI 4),
//!   lets the command create TCP sockets (no UDP, raw or other), and has the helper outside the
//!   command's Landlock domain do `connect`, `bind` and `listen` for it, through seccomp user
//!   notifications ([`notify`]): the helper takes the command's socket (`pidfd_getfd`), reads
//!   the address once, and connects or binds it itself only to a loopback address (a wildcard
//!   narrowed to loopback), so the command cannot change the address after the check. A
//!   connection to any other address fails with "Network is unreachable", as in bubblewrap's
//!   namespace. Needs Landlock ABI 4 (Linux 6.7): it is what makes a call let through to the
//!   kernel (a UNIX socket's) safe if the descriptor is swapped meanwhile.
//!
//! What is loopback ([`to_loopback`]): 127.0.0.0/8 and `::1` (also as `::ffff:127.x.y.z`);
//! `0.0.0.0` and `::` as a destination mean this machine's loopback to Linux, and are taken as
//! `127.0.0.1` and `::1`.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use serde::{Deserialize, Serialize};

#[cfg(target_os = "linux")]
pub mod fdpass;
#[cfg(target_os = "linux")]
pub mod notify;
pub mod ports;
#[cfg(target_os = "linux")]
pub mod relay;

/// The descriptor through which the helper inside bubblewrap hands its listeners to the relay
/// outside (inherited through bubblewrap).
pub const CHANNEL_FD: i32 = 3;

/// The helper's part in loopback access (in its policy argument).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Loopback {
    /// Outside bubblewrap: run the program (bubblewrap) with the channel at [`CHANNEL_FD`], and
    /// relay what the listeners it hands out accept to this machine's loopback.
    Relay,
    /// Inside bubblewrap: listen on these addresses in the command's network namespace and hand
    /// the listeners out through [`CHANNEL_FD`].
    Listen(Vec<SocketAddr>),
    /// Landlock: do the command's `connect`, `bind` and `listen`, to loopback only.
    Supervise,
}

/// `addr` as the loopback address a connection to it reaches on this machine, or `None` when
/// it is not loopback: 127.0.0.0/8 and `::1` as they are (and `::ffff:127.x.y.z`), the
/// unspecified `0.0.0.0` and `::` as `127.0.0.1` and `::1` (where Linux sends them).
pub fn to_loopback(addr: SocketAddr) -> Option<SocketAddr> {
    let ip = match addr.ip() {
        IpAddr::V4(v4) if v4.is_loopback() => IpAddr::V4(v4),
        IpAddr::V4(v4) if v4.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(v6) if v6.is_loopback() => IpAddr::V6(v6),
        IpAddr::V6(v6) if v6.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) if v4.is_loopback() => IpAddr::V6(v6),
            Some(v4) if v4.is_unspecified() => IpAddr::V6(Ipv4Addr::LOCALHOST.to_ipv6_mapped()),
            _ => return None,
        },
        IpAddr::V4(_) => return None,
    };
    Some(SocketAddr::new(ip, addr.port()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_is_127_8_and_colon_colon_1_with_the_unspecified_taken_as_them() {
        let rows = [
            ("127.0.0.1:80", Some("127.0.0.1:80")),
            ("127.1.2.3:5432", Some("127.1.2.3:5432")),
            ("0.0.0.0:3000", Some("127.0.0.1:3000")),
            ("[::1]:8080", Some("[::1]:8080")),
            ("[::]:8080", Some("[::1]:8080")),
            ("[::ffff:127.0.0.1]:9", Some("[::ffff:127.0.0.1]:9")),
            ("[::ffff:0.0.0.0]:9", Some("[::ffff:127.0.0.1]:9")),
            ("10.0.0.1:80", None),
            ("192.168.1.5:3000", None),
            ("8.8.8.8:53", None),
            ("[2001:db8::1]:443", None),
            ("[::ffff:8.8.8.8]:53", None),
            ("[fe80::1]:80", None),
        ];
        for (addr, want) in rows {
            let got = to_loopback(addr.parse().unwrap());
            assert_eq!(got, want.map(|w| w.parse().unwrap()), "{addr}");
        }
    }

    #[test]
    fn the_policy_encoding_is_short() {
        let lo = Loopback::Listen(vec!["127.0.0.1:3000".parse().unwrap()]);
        assert_eq!(
            serde_json::to_string(&lo).unwrap(),
            r#"{"listen":["127.0.0.1:3000"]}"#
        );
        assert_eq!(
            serde_json::to_string(&Loopback::Supervise).unwrap(),
            r#""supervise""#
        );
    }
}
