//! Landlock's loopback ([`super::Loopback::Supervise`]): the command's `connect`, `bind` and
//! `listen` go to the helper as seccomp user notifications, and the helper — outside the
//! command's Landlock domain — does them on the command's own socket, to loopback only.
//!
//! - [`install`] (in the child, after Landlock and the main filter): a second filter that
//!   returns `SECCOMP_RET_USER_NOTIF` for those three calls (and their x32 numbers), and the
//!   listener descriptor it gives.
//! - [`Notify::serve`] (in the helper's loop): receives one notification, takes the socket
//!   from the calling thread (`pidfd_getfd`), and answers:
//!   - a UNIX socket's `connect` or `bind`: let through to the kernel (in the command's own
//!     context, where Landlock and the abstract-socket scope apply). If the descriptor was
//!     swapped for a TCP socket meanwhile, Landlock's network rules (ABI 4) refuse it: nothing
//!     but the helper can connect or bind TCP.
//!   - a TCP socket's `connect`: the address is read once from the command's memory; a
//!     loopback one ([`super::to_loopback`]) is connected by the helper, on a thread of its own
//!     (a blocking socket may wait), and the result is the command's; any other is "Network is
//!     unreachable".
//!   - a TCP socket's `bind`: to a loopback address, or a wildcard narrowed to loopback
//!     (`0.0.0.0` → `127.0.0.1`, `::` → `::1`), done by the helper; another address is refused
//!     ("Permission denied").
//!   - `listen`: done by the helper on that same socket, after binding a TCP socket that is not
//!     bound yet to loopback (the kernel would bind it to every address); a TCP socket bound
//!     elsewhere is refused.
//!
//! A notification whose thread is gone (or whose id is no longer valid after the helper looked
//! at it) is not answered. The helper needs to be allowed to look into its own children
//! (`pidfd_getfd`, `process_vm_readv`: the same check as `ptrace`), which Yama's default
//! (`ptrace_scope` 1) allows; where it does not, every TCP connection fails.

use std::net::SocketAddr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use super::to_loopback;

/// The architecture value seccomp checks, for the architectures this supervisor knows.
#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;

/// Whether this architecture has the supervisor.
pub const SUPPORTED: bool = cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));

/// The x32 bit on x86_64: the same calls under another number.
const X32: i64 = 0x4000_0000;

/// The calls sent to the helper.
const CALLS: [i64; 3] = [libc::SYS_connect, libc::SYS_bind, libc::SYS_listen];

const BPF_LD_W_ABS: u16 = 0x20;
const BPF_JEQ_K: u16 = 0x15;
const BPF_RET_K: u16 = 0x06;

fn stmt(code: u16, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter {
        code: BPF_JEQ_K,
        jt,
        jf,
        k,
    }
}

/// The filter: on this architecture, the [`CALLS`] (and on x86_64 their x32 numbers) are
/// notified; everything else is allowed (the main filter decides the rest).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub fn program() -> Vec<libc::sock_filter> {
    let mut numbers: Vec<i64> = CALLS.to_vec();
    if cfg!(target_arch = "x86_64") {
        numbers.extend(CALLS.iter().map(|n| n | X32));
    }
    let n = numbers.len();
    let mut prog = vec![
        // seccomp_data.arch at offset 4, .nr at 0.
        stmt(BPF_LD_W_ABS, 4),
        jump(AUDIT_ARCH, 0, (n + 1) as u8),
        stmt(BPF_LD_W_ABS, 0),
    ];
    for (i, nr) in numbers.iter().enumerate() {
        // To the notify return: past the remaining checks and the allow.
        prog.push(jump(*nr as u32, (n - i) as u8, 0));
    }
    prog.push(stmt(BPF_RET_K, libc::SECCOMP_RET_ALLOW));
    prog.push(stmt(BPF_RET_K, libc::SECCOMP_RET_USER_NOTIF));
    prog
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub fn program() -> Vec<libc::sock_filter> {
    Vec::new()
}

/// Installs [`program`] on the calling thread (no-new-privileges is already set by the main
/// filter); the listener.
pub fn install() -> Result<OwnedFd, String> {
    let mut prog = program();
    if prog.is_empty() {
        return Err(format!(
            "no loopback supervisor for {}",
            std::env::consts::ARCH
        ));
    }
    let fprog = libc::sock_fprog {
        len: prog.len() as u16,
        filter: prog.as_mut_ptr(),
    };
    // SAFETY: seccomp reads the program through a valid pointer during the call.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            libc::SECCOMP_FILTER_FLAG_NEW_LISTENER,
            &fprog,
        )
    };
    if fd < 0 {
        return Err(format!(
            "cannot install the loopback filter: {}",
            std::io::Error::last_os_error()
        ));
    }
    // SAFETY: the kernel just returned this new descriptor.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// The helper's end: the listener of the command's notifications.
pub struct Notify {
    fd: std::sync::Arc<OwnedFd>,
}

/// What to answer.
enum Answer {
    /// Let the kernel do it in the caller.
    Continue,
    /// This result (0, or a negative errno).
    Result(i64),
    /// A `connect` the helper does on a thread, then answers.
    Connect(OwnedFd, SocketAddr),
    /// Nothing (the caller is gone).
    None,
}

impl Notify {
    pub fn new(fd: OwnedFd) -> Self {
        Self {
            fd: std::sync::Arc::new(fd),
        }
    }

    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Receives and answers one notification. `false` when the listener is done (no
    /// process is left under the filter).
    pub fn serve(&self) -> bool {
        // SAFETY: seccomp_notif is plain data; the ioctl fills the zeroed local.
        let mut req: libc::seccomp_notif = unsafe { std::mem::zeroed() };
        // SAFETY: RECV writes one notification into `req`.
        let r = unsafe { libc::ioctl(self.fd(), libc::SECCOMP_IOCTL_NOTIF_RECV as _, &mut req) };
        if r != 0 {
            let e = std::io::Error::last_os_error().raw_os_error();
            // The caller was interrupted before we got it, or a signal: keep serving.
            return matches!(e, Some(libc::ENOENT | libc::EINTR));
        }
        match self.decide(&req) {
            Answer::Continue => respond(
                &self.fd,
                req.id,
                0,
                libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32,
            ),
            Answer::Result(r) => respond(&self.fd, req.id, r, 0),
            Answer::Connect(sock, addr) => {
                let fd = std::sync::Arc::clone(&self.fd);
                let id = req.id;
                let spawned = std::thread::Builder::new()
                    .name("loopback-connect".into())
                    .spawn(move || respond(&fd, id, connect(&sock, addr), 0));
                if spawned.is_err() {
                    respond(&self.fd, req.id, -i64::from(libc::EAGAIN), 0);
                }
            }
            Answer::None => {}
        }
        true
    }

    fn decide(&self, req: &libc::seccomp_notif) -> Answer {
        let nr = i64::from(req.data.nr) & !X32;
        let args = req.data.args;
        let Ok(target_fd) = RawFd::try_from(args[0] as i64) else {
            return Answer::Result(-i64::from(libc::EBADF));
        };
        let sock = match take_fd(&self.fd, req.id, req.pid, target_fd) {
            Ok(s) => s,
            Err(None) => return Answer::None,
            Err(Some(errno)) => return Answer::Result(-i64::from(errno)),
        };
        let domain = so_domain(&sock);
        let inet = domain == libc::AF_INET || domain == libc::AF_INET6;
        let refuse = |e: i32| Answer::Result(-i64::from(e));
        match nr {
            n if n == libc::SYS_listen => {
                if inet {
                    match local_addr(&sock) {
                        Some(a) if a.port() == 0 => {
                            let any = if a.is_ipv6() {
                                "[::1]:0"
                            } else {
                                "127.0.0.1:0"
                            };
                            if let Some(e) = any.parse().ok().and_then(|a| bind(&sock, a)) {
                                return refuse(e);
                            }
                        }
                        Some(a) if to_loopback(a) == Some(a) => {}
                        _ => return refuse(libc::EACCES),
                    }
                }
                let backlog = args[1] as i32;
                // SAFETY: listen on a descriptor we own.
                let r = unsafe { libc::listen(sock.as_raw_fd(), backlog) };
                Answer::Result(if r == 0 { 0 } else { -i64::from(errno()) })
            }
            _ if !inet => Answer::Continue,
            n if n == libc::SYS_connect || n == libc::SYS_bind => {
                let Some(addr) = read_addr(&self.fd, req, args[1], args[2]) else {
                    return Answer::None;
                };
                let Ok(addr) = addr else {
                    return refuse(libc::EINVAL);
                };
                let Some(addr) = addr else {
                    // AF_UNSPEC: `connect` undoes an association; harmless.
                    return Answer::Continue;
                };
                match (n == libc::SYS_connect, to_loopback(addr)) {
                    (true, Some(to)) => Answer::Connect(sock, to),
                    (true, None) => refuse(libc::ENETUNREACH),
                    (false, Some(to)) => {
                        Answer::Result(bind(&sock, to).map_or(0, |e| -i64::from(e)))
                    }
                    (false, None) => refuse(libc::EACCES),
                }
            }
            _ => Answer::Continue,
        }
    }
}

fn errno() -> i32 {
    std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

/// Sends the answer to notification `id` (`val` ≥ 0 is the return value, < 0 the errno).
fn respond(listener: &OwnedFd, id: u64, val: i64, flags: u32) {
    let (val, error) = if val < 0 { (0, val as i32) } else { (val, 0) };
    let mut resp = libc::seccomp_notif_resp {
        id,
        val,
        error,
        flags,
    };
    // SAFETY: SEND reads the response from a valid local; a caller gone meanwhile is ENOENT.
    unsafe {
        libc::ioctl(
            listener.as_raw_fd(),
            libc::SECCOMP_IOCTL_NOTIF_SEND as _,
            &mut resp,
        )
    };
}

/// Whether notification `id` is still the one it was (its caller has not gone).
fn still_valid(listener: &OwnedFd, id: u64) -> bool {
    let mut id = id;
    // SAFETY: ID_VALID reads the id from a valid local.
    unsafe {
        libc::ioctl(
            listener.as_raw_fd(),
            libc::SECCOMP_IOCTL_NOTIF_ID_VALID as _,
            &mut id,
        ) == 0
    }
}

/// The calling thread's descriptor `fd`, as ours. `Err(None)`: the caller is gone (no answer);
/// `Err(Some(errno))`: the answer is that error.
fn take_fd(listener: &OwnedFd, id: u64, tid: u32, fd: RawFd) -> Result<OwnedFd, Option<i32>> {
    const PIDFD_THREAD: libc::c_uint = libc::O_EXCL as libc::c_uint;
    let open = |pid: i64, flags: libc::c_uint| {
        // SAFETY: pidfd_open with integer arguments; a descriptor on success.
        let r = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, flags) };
        // SAFETY: a new descriptor the kernel just returned.
        (r >= 0).then(|| unsafe { OwnedFd::from_raw_fd(r as RawFd) })
    };
    let pidfd = open(i64::from(tid), PIDFD_THREAD)
        .or_else(|| tgid(tid).and_then(|g| open(i64::from(g), 0)))
        .ok_or(None)?;
    if !still_valid(listener, id) {
        return Err(None);
    }
    // SAFETY: pidfd_getfd with integer arguments; a descriptor on success.
    let r = unsafe { libc::syscall(libc::SYS_pidfd_getfd, pidfd.as_raw_fd(), fd, 0) };
    if r < 0 {
        return Err(Some(errno()));
    }
    // SAFETY: a new descriptor the kernel just returned.
    Ok(unsafe { OwnedFd::from_raw_fd(r as RawFd) })
}

/// The thread group (process) of thread `tid`, from `/proc`.
fn tgid(tid: u32) -> Option<u32> {
    let status = std::fs::read_to_string(format!("/proc/{tid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Tgid:"))?
        .trim()
        .parse()
        .ok()
}

/// The socket's address family (0 when it is not a socket).
fn so_domain(sock: &OwnedFd) -> i32 {
    let mut domain: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: getsockopt writes an int into a local of that size.
    let r = unsafe {
        libc::getsockopt(
            sock.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_DOMAIN,
            (&raw mut domain).cast(),
            &mut len,
        )
    };
    if r == 0 { domain } else { 0 }
}

/// The address the caller passed (`ptr`, `len` in its memory), read once. `None`: the caller
/// is gone; `Some(Err)`: not a readable address; `Some(Ok(None))`: `AF_UNSPEC`.
fn read_addr(
    listener: &OwnedFd,
    req: &libc::seccomp_notif,
    ptr: u64,
    len: u64,
) -> Option<Result<Option<SocketAddr>, ()>> {
    let mut storage = socket2::SockAddrStorage::zeroed();
    let want = usize::try_from(len)
        .unwrap_or(usize::MAX)
        .min(std::mem::size_of::<libc::sockaddr_storage>());
    if want < 2 {
        return Some(Err(()));
    }
    let local = libc::iovec {
        iov_base: (&raw mut storage).cast(),
        iov_len: want,
    };
    let remote = libc::iovec {
        iov_base: ptr as *mut libc::c_void,
        iov_len: want,
    };
    // SAFETY: reads at most `want` bytes of the caller's memory into the local storage.
    let n = unsafe { libc::process_vm_readv(req.pid as libc::pid_t, &local, 1, &remote, 1, 0) };
    if !still_valid(listener, req.id) {
        return None;
    }
    if usize::try_from(n).ok() != Some(want) {
        return Some(Err(()));
    }
    // SAFETY: the storage is a sockaddr_storage (repr(transparent)).
    let family = unsafe { storage.view_as::<libc::sockaddr_storage>() }.ss_family;
    if i32::from(family) == libc::AF_UNSPEC {
        return Some(Ok(None));
    }
    // SAFETY: `storage` holds `want` bytes the caller gave as a socket address.
    let addr = unsafe { socket2::SockAddr::new(storage, want as libc::socklen_t) };
    Some(addr.as_socket().map(Some).ok_or(()))
}

/// The socket's own address, if it has one it can say.
fn local_addr(sock: &OwnedFd) -> Option<SocketAddr> {
    socket2::SockRef::from(sock).local_addr().ok()?.as_socket()
}

/// Binds the socket to `addr`; the errno on failure.
fn bind(sock: &OwnedFd, addr: SocketAddr) -> Option<i32> {
    socket2::SockRef::from(sock)
        .bind(&addr.into())
        .err()
        .map(|e| e.raw_os_error().unwrap_or(libc::EIO))
}

/// Connects the socket to `addr`: 0, or the negative errno (`EINPROGRESS` for a non-blocking
/// socket, as the caller would have had).
fn connect(sock: &OwnedFd, addr: SocketAddr) -> i64 {
    let addr = socket2::SockAddr::from(addr);
    // SAFETY: connect reads the address from a live SockAddr for its length.
    let r = unsafe { libc::connect(sock.as_raw_fd(), addr.as_ptr().cast(), addr.len()) };
    if r == 0 { 0 } else { -i64::from(errno()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    #[test]
    fn the_filter_notifies_the_three_calls_and_allows_the_rest() {
        let prog = program();
        let ret_allow = prog.len() - 2;
        let ret_notify = prog.len() - 1;
        assert_eq!(prog[ret_allow].k, libc::SECCOMP_RET_ALLOW);
        assert_eq!(prog[ret_notify].k, libc::SECCOMP_RET_USER_NOTIF);
        // Another architecture jumps to the allow.
        assert_eq!(2 + usize::from(prog[1].jf), ret_allow);
        // Each number's true branch lands on the notify return.
        let checks: Vec<(usize, &libc::sock_filter)> = prog
            .iter()
            .enumerate()
            .skip(3)
            .take_while(|(_, i)| i.code == BPF_JEQ_K)
            .collect();
        let per_arch = if cfg!(target_arch = "x86_64") { 6 } else { 3 };
        assert_eq!(checks.len(), per_arch);
        for (at, i) in checks {
            assert_eq!(at + 1 + usize::from(i.jt), ret_notify, "{}", i.k);
            assert_eq!(i.jf, 0);
        }
    }
}
