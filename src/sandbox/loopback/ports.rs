//! The TCP sockets listening on this machine's loopback, from `/proc/net/tcp` and
//! `/proc/net/tcp6` (this process's network namespace): what bubblewrap's loopback mirrors.
//!
//! A listener on every address (`0.0.0.0`, `::`) is reachable through loopback too, so it
//! counts; one on a specific other address (the LAN's) does not. Parsing is pure
//! ([`parse`]) and table-tested; a file that cannot be read lists nothing.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// The kernel's state number for a listening socket.
const LISTEN: &str = "0A";

/// At most this many listeners are mirrored (a descriptor each, passed in one message).
pub const MAX: usize = 200;

/// The listening sockets reachable through loopback now, IPv4 first, without repeats.
pub fn listening() -> Vec<SocketAddr> {
    let read = |path: &str| std::fs::read_to_string(path).unwrap_or_default();
    let mut out = parse(&read("/proc/net/tcp"));
    for a in parse(&read("/proc/net/tcp6")) {
        if !out.contains(&a) {
            out.push(a);
        }
    }
    out.truncate(MAX);
    out
}

/// The listening sockets of one `/proc/net/tcp{,6}` text whose address is loopback or
/// unspecified, in the order listed.
pub fn parse(text: &str) -> Vec<SocketAddr> {
    let mut out = Vec::new();
    for line in text.lines().skip(1) {
        let mut fields = line.split_whitespace();
        let (Some(_slot), Some(local), Some(_remote), Some(state)) =
            (fields.next(), fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        if state != LISTEN {
            continue;
        }
        let Some(addr) = address(local) else {
            continue;
        };
        let reachable = match addr.ip() {
            IpAddr::V4(v4) => v4.is_loopback() || v4.is_unspecified(),
            IpAddr::V6(v6) => {
                v6.is_loopback()
                    || v6.is_unspecified()
                    || v6
                        .to_ipv4_mapped()
                        .is_some_and(|v4| v4.is_loopback() || v4.is_unspecified())
            }
        };
        if reachable && !out.contains(&addr) {
            out.push(addr);
        }
    }
    out
}

/// `HEXADDR:HEXPORT` as the kernel prints it: the address as 32-bit words in the machine's
/// byte order (one for IPv4, four for IPv6), the port as a number.
fn address(field: &str) -> Option<SocketAddr> {
    let (addr, port) = field.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let words: Option<Vec<u32>> = (0..addr.len() / 8)
        .map(|i| u32::from_str_radix(addr.get(i * 8..i * 8 + 8)?, 16).ok())
        .collect();
    let bytes: Vec<u8> = words?.iter().flat_map(|w| w.to_ne_bytes()).collect();
    let ip = match (addr.len(), bytes.len()) {
        (8, 4) => IpAddr::V4(Ipv4Addr::new(bytes[0], bytes[1], bytes[2], bytes[3])),
        (32, 16) => {
            let mut b = [0u8; 16];
            b.copy_from_slice(&bytes);
            IpAddr::V6(Ipv6Addr::from(b))
        }
        _ => return None,
    };
    Some(SocketAddr::new(ip, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `/proc/net/tcp` row as this machine's kernel would print it.
    fn row4(ip: Ipv4Addr, port: u16, state: &str) -> String {
        let word = u32::from_ne_bytes(ip.octets());
        format!(
            "   0: {word:08X}:{port:04X} 00000000:0000 {state} 00000000:00000000 00:00000000 00000000  1000 0 1 1"
        )
    }

    fn row6(ip: Ipv6Addr, port: u16, state: &str) -> String {
        let o = ip.octets();
        let words: String = o
            .chunks(4)
            .map(|c| format!("{:08X}", u32::from_ne_bytes([c[0], c[1], c[2], c[3]])))
            .collect();
        format!("   0: {words}:{port:04X} 00000000000000000000000000000000:0000 {state} 0 0 0")
    }

    #[test]
    fn loopback_and_wildcard_listeners_count_and_nothing_else() {
        let head = "  sl  local_address rem_address   st tx_queue ...";
        let text = [
            head.to_owned(),
            row4(Ipv4Addr::new(127, 0, 0, 1), 3000, "0A"),
            row4(Ipv4Addr::new(0, 0, 0, 0), 5432, "0A"),
            row4(Ipv4Addr::new(127, 0, 0, 53), 53, "0A"),
            row4(Ipv4Addr::new(192, 168, 1, 5), 8080, "0A"),
            // An established connection, not a listener.
            row4(Ipv4Addr::new(127, 0, 0, 1), 40000, "01"),
            row4(Ipv4Addr::new(127, 0, 0, 1), 3000, "0A"),
            "garbage".to_owned(),
        ]
        .join("\n");
        let got: Vec<String> = parse(&text).iter().map(ToString::to_string).collect();
        assert_eq!(got, ["127.0.0.1:3000", "0.0.0.0:5432", "127.0.0.53:53"]);

        let text = [
            head.to_owned(),
            row6(Ipv6Addr::LOCALHOST, 5173, "0A"),
            row6(Ipv6Addr::UNSPECIFIED, 8000, "0A"),
            row6(Ipv4Addr::new(127, 0, 0, 1).to_ipv6_mapped(), 9000, "0A"),
            row6("2001:db8::1".parse().unwrap(), 443, "0A"),
            row6(Ipv6Addr::LOCALHOST, 6000, "06"),
        ]
        .join("\n");
        let got: Vec<String> = parse(&text).iter().map(ToString::to_string).collect();
        assert_eq!(got, ["[::1]:5173", "[::]:8000", "[::ffff:127.0.0.1]:9000"]);
    }

    #[test]
    fn this_machine_lists_a_listener_it_just_opened() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        assert!(
            listening().contains(&addr),
            "{addr} not in {:?}",
            listening()
        );
    }
}
