//! bubblewrap's loopback ([`super::Loopback::Relay`] outside, [`super::Loopback::Listen`]
//! inside): the namespace stays empty but for listeners on the addresses this machine's
//! loopback servers listen on, and each connection they accept is carried to the real server
//! by the relay outside.
//!
//! - [`hand_out`] (inside, in the helper before it forks the command): binds and listens on
//!   each address in the command's namespace, sends the listening sockets out through
//!   [`super::CHANNEL_FD`], and closes its copies; the command never holds the channel.
//! - [`run`] (outside: `sayso __sandbox-exec '{"lo":"relay"}' -- bwrap …`): starts bubblewrap
//!   with the channel's other end as [`super::CHANNEL_FD`], takes the listeners, and for each
//!   connection accepted connects to the address the command dialled (the accepted socket's
//!   local address, which can only be loopback there) on this machine, and copies bytes both
//!   ways until either side closes. A server that is gone resets the command's connection. It
//!   exits as bubblewrap does; the stop signals sayso sends the group reach bubblewrap too, so
//!   it outlives them to pass bubblewrap's status on, and if it is killed, bubblewrap dies with
//!   it (`--die-with-parent`).

use std::ffi::OsString;
use std::net::SocketAddr;
use std::os::fd::{AsRawFd, FromRawFd, IntoRawFd, OwnedFd};
use std::process::ExitCode;

use super::{CHANNEL_FD, fdpass, to_loopback};

/// Listens on `addrs` here and hands the listeners out through [`CHANNEL_FD`], which it then
/// closes. An address that cannot be bound here (no IPv6, taken twice) is left out.
pub fn hand_out(addrs: &[SocketAddr]) -> Result<(), String> {
    if addrs.is_empty() {
        // Nothing to mirror: the relay was not started, and there is no channel.
        return Ok(());
    }
    // SAFETY: the policy says the relay put the channel at this number; it is checked to be a
    // socket before use and closed (owned) here.
    let channel = unsafe { OwnedFd::from_raw_fd(CHANNEL_FD) };
    let mut domain: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: getsockopt writes an int into a local of that size.
    let r = unsafe {
        libc::getsockopt(
            channel.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_DOMAIN,
            (&raw mut domain).cast(),
            &mut len,
        )
    };
    if r != 0 || domain != libc::AF_UNIX {
        // Not ours to close: whatever it is, leave it.
        let _ = channel.into_raw_fd();
        return Err("the loopback relay's channel is missing".into());
    }
    let mut listeners = Vec::new();
    for addr in addrs
        .iter()
        .filter(|a| a.is_ipv4())
        .chain(addrs.iter().filter(|a| a.is_ipv6()))
    {
        if let Some(l) = listen(*addr) {
            listeners.push(l);
        }
    }
    let fds: Vec<i32> = listeners.iter().map(AsRawFd::as_raw_fd).collect();
    fdpass::send(&channel, &fds)
}

/// A listening socket on `addr` (an IPv6 wildcard also takes IPv4 unless that port is already
/// bound for IPv4, as on the host).
fn listen(addr: SocketAddr) -> Option<socket2::Socket> {
    use socket2::{Domain, Protocol, Socket, Type};
    let open = |v6_only: bool| -> std::io::Result<Socket> {
        let s = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
        s.set_reuse_address(true)?;
        if addr.is_ipv6() {
            s.set_only_v6(v6_only)?;
        }
        s.bind(&addr.into())?;
        s.listen(128)?;
        Ok(s)
    };
    open(false).or_else(|_| open(true)).ok()
}

/// The relay: runs `argv` (bubblewrap) and carries the connections its listeners accept to
/// this machine's loopback; exits as `argv` did. `Err` when it cannot start.
pub fn run(argv: &[OsString]) -> Result<ExitCode, String> {
    // If sayso dies, so does the relay, and bubblewrap with it (--die-with-parent).
    // SAFETY: prctl with integer arguments only.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) };
    let (ours, theirs) = fdpass::pair()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("the loopback relay cannot start: {e}"))?;
    let status = runtime.block_on(relay(argv, ours, theirs))?;
    runtime.shutdown_background();
    Ok(crate::sandbox::supervise::exit_as_status(status))
}

async fn relay(argv: &[OsString], ours: OwnedFd, theirs: OwnedFd) -> Result<libc::c_int, String> {
    use std::os::unix::process::ExitStatusExt;
    use tokio::signal::unix::{SignalKind, signal};
    let (program, args) = argv.split_first().ok_or("no command to run")?;
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args);
    let channel = theirs.as_raw_fd();
    // SAFETY: between fork and exec the closure calls only dup2 and fcntl (async-signal-safe)
    // and allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            if channel == CHANNEL_FD {
                if libc::fcntl(channel, libc::F_SETFD, 0) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
            } else if libc::dup2(channel, CHANNEL_FD) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    // The stop signals are for bubblewrap (it gets them too): the relay waits for its end.
    let mut kept = Vec::new();
    for kind in [
        SignalKind::terminate(),
        SignalKind::interrupt(),
        SignalKind::hangup(),
        SignalKind::quit(),
    ] {
        kept.push(signal(kind).map_err(|e| format!("the loopback relay: {e}"))?);
    }
    let mut child = cmd.spawn().map_err(|e| {
        format!(
            "cannot run {}: {e}",
            std::path::Path::new(program).display()
        )
    })?;
    drop(theirs);
    tokio::spawn(async move {
        let listeners = tokio::task::spawn_blocking(move || fdpass::receive(&ours))
            .await
            .unwrap_or_default();
        for fd in listeners {
            tokio::spawn(accept(std::net::TcpListener::from(fd)));
        }
    });
    let status = child
        .wait()
        .await
        .map_err(|e| format!("the loopback relay lost its command: {e}"))?;
    drop(kept);
    Ok(status.into_raw())
}

/// Accepts on one mirrored listener until the relay ends.
async fn accept(listener: std::net::TcpListener) {
    if listener.set_nonblocking(true).is_err() {
        return;
    }
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        return;
    };
    while let Ok((inside, _)) = listener.accept().await {
        tokio::spawn(carry(inside));
    }
}

/// Carries one connection from inside to the same loopback address here.
async fn carry(mut inside: tokio::net::TcpStream) {
    let target = inside
        .local_addr()
        .ok()
        .and_then(to_loopback)
        .map(|a| match a {
            // A mapped IPv4 address is dialled as IPv4 (the server may listen on IPv4 only).
            SocketAddr::V6(v6) => match v6.ip().to_ipv4_mapped() {
                Some(v4) => SocketAddr::new(v4.into(), v6.port()),
                None => SocketAddr::V6(v6),
            },
            v4 => v4,
        });
    let server = match target {
        Some(t) => tokio::net::TcpStream::connect(t).await.ok(),
        None => None,
    };
    match server {
        Some(mut server) => {
            let _ = tokio::io::copy_bidirectional(&mut inside, &mut server).await;
        }
        None => {
            // A reset, as the command would have had from a closed port.
            let _ = socket2::SockRef::from(&inside).set_linger(Some(std::time::Duration::ZERO));
        }
    }
}
