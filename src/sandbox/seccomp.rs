//! The seccomp filter every confined command runs under (both Linux backends), built with
//! `seccompiler`: what no command sayso runs needs, denied with `EPERM`.
//!
//! Denied: `ptrace` and `process_vm_readv`/`writev` (reading or steering another process),
//! `io_uring_*` (a second syscall path the filter cannot see into), `ioctl(TIOCSTI)` and
//! `ioctl(TIOCLINUX)` (typing into the terminal sayso runs in), and unless the network is
//! allowed, `socket`/`socketpair` of any domain but `AF_UNIX` — with `allow_loopback`, IPv4
//! and IPv6 sockets too ([`LoopbackSockets`]: any in bubblewrap's empty namespace, TCP only
//! under Landlock, whose connections the helper makes). The helper that stays as the
//! command's parent ([`super::supervise`]) cannot be sent SIGKILL or SIGSTOP (by pid, by its
//! group, by `kill(0)` or `kill(-1)`, by thread, or through a pidfd), so the command cannot
//! end it before it ends what the command leaves behind. On x86_64 the x32 numbers of the
//! same calls are denied too; another architecture in the filter's way (i386 on x86_64) kills
//! the process (seccompiler's architecture check). Everything else is allowed: the filter
//! narrows, the filesystem rules come from bubblewrap or Landlock.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// What the filter is built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Filter {
    /// The command may reach the network.
    pub network: bool,
    /// Without the network, the sockets loopback access needs (`[sandbox] allow_loopback`).
    pub loopback: Option<LoopbackSockets>,
    /// The helper's pid (as the command sees it), which the command may not stop.
    pub helper: Option<i32>,
}

/// The IP sockets a command without the network may still create for the loopback.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopbackSockets {
    /// In bubblewrap's empty network namespace: any IPv4 or IPv6 socket (there is nothing
    /// but its own loopback and the mirrored listeners to reach).
    Namespace,
    /// Under Landlock, in this machine's network: TCP only (no UDP, raw or other protocol,
    /// no `MSG_FASTOPEN`, which connects without `connect`); its `connect`, `bind` and
    /// `listen` go to the helper (`super::loopback::notify`).
    Supervised,
}

/// The signals the command may not send the helper (the two it cannot block).
const UNBLOCKABLE: [i32; 2] = [libc::SIGKILL, libc::SIGSTOP];

fn err(e: seccompiler::BackendError) -> String {
    format!("the seccomp filter does not build: {e}")
}

/// A rule that holds when every `(argument, value)` is equal (32-bit compare).
fn all_equal(args: &[(u8, u64)]) -> Result<SeccompRule, String> {
    let conditions = args
        .iter()
        .map(|&(index, value)| {
            SeccompCondition::new(index, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, value)
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(err)?;
    SeccompRule::new(conditions).map_err(err)
}

/// The rules that keep SIGKILL and SIGSTOP from reaching `helper`: by pid or group (`kill`,
/// including `kill(0)` and `kill(-1)`), by thread (`tkill`, `tgkill`), queued
/// (`rt_sigqueueinfo`, `rt_tgsigqueueinfo`), and no pidfd for it (`pidfd_open`).
fn protect_helper(helper: i32, rules: &mut BTreeMap<i64, Vec<SeccompRule>>) -> Result<(), String> {
    // Two's complement in 32 bits, as the kernel compares an int argument.
    let pid = |p: i32| u64::from(p as u32);
    let mut add = |nr: i64, rule: SeccompRule| rules.entry(nr).or_default().push(rule);
    for sig in UNBLOCKABLE.map(pid) {
        for target in [helper, -helper, 0, -1] {
            add(libc::SYS_kill, all_equal(&[(0, pid(target)), (1, sig)])?);
        }
        add(libc::SYS_tkill, all_equal(&[(0, pid(helper)), (1, sig)])?);
        add(libc::SYS_tgkill, all_equal(&[(0, pid(helper)), (2, sig)])?);
        add(
            libc::SYS_rt_sigqueueinfo,
            all_equal(&[(0, pid(helper)), (1, sig)])?,
        );
        add(
            libc::SYS_rt_tgsigqueueinfo,
            all_equal(&[(0, pid(helper)), (2, sig)])?,
        );
    }
    add(libc::SYS_pidfd_open, all_equal(&[(0, pid(helper))])?);
    Ok(())
}

/// The filter as rules by syscall number (an empty list: denied whatever the arguments).
pub fn rules(filter: &Filter) -> Result<BTreeMap<i64, Vec<SeccompRule>>, String> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for nr in [
        libc::SYS_ptrace,
        libc::SYS_process_vm_readv,
        libc::SYS_process_vm_writev,
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
    ] {
        rules.insert(nr, Vec::new());
    }
    let arg_is = |index: u8, op: SeccompCmpOp, value: u64| {
        SeccompCondition::new(index, SeccompCmpArgLen::Dword, op, value)
            .and_then(|c| SeccompRule::new(vec![c]))
            .map_err(err)
    };
    // The request's type differs between libcs (an unsigned long in glibc, an int in musl).
    #[allow(clippy::unnecessary_cast)]
    rules.insert(
        libc::SYS_ioctl,
        vec![
            arg_is(1, SeccompCmpOp::Eq, libc::TIOCSTI as u64)?,
            arg_is(1, SeccompCmpOp::Eq, TIOCLINUX)?,
        ],
    );
    if !filter.network {
        let not_unix = arg_is(0, SeccompCmpOp::Ne, libc::AF_UNIX as u64)?;
        rules.insert(libc::SYS_socketpair, vec![not_unix.clone()]);
        let socket = match filter.loopback {
            None => vec![not_unix],
            Some(kind) => loopback_sockets(kind, &mut rules)?,
        };
        rules.insert(libc::SYS_socket, socket);
    }
    if let Some(helper) = filter.helper {
        protect_helper(helper, &mut rules)?;
    }
    #[cfg(target_arch = "x86_64")]
    x32_too(&mut rules);
    Ok(rules)
}

/// The `socket` rules (denied when one holds) for `kind`, and, for [`LoopbackSockets::Supervised`],
/// the `MSG_FASTOPEN` sends refused.
fn loopback_sockets(
    kind: LoopbackSockets,
    rules: &mut BTreeMap<i64, Vec<SeccompRule>>,
) -> Result<Vec<SeccompRule>, String> {
    let cond = |index: u8, op: SeccompCmpOp, value: u64| {
        SeccompCondition::new(index, SeccompCmpArgLen::Dword, op, value).map_err(err)
    };
    let inet = [libc::AF_INET as u64, libc::AF_INET6 as u64];
    // Neither UNIX nor IP.
    let mut out = vec![
        SeccompRule::new(vec![
            cond(0, SeccompCmpOp::Ne, libc::AF_UNIX as u64)?,
            cond(0, SeccompCmpOp::Ne, inet[0])?,
            cond(0, SeccompCmpOp::Ne, inet[1])?,
        ])
        .map_err(err)?,
    ];
    if kind == LoopbackSockets::Namespace {
        return Ok(out);
    }
    let stream = libc::SOCK_STREAM as u64;
    let (nonblock, cloexec) = (libc::SOCK_NONBLOCK as u64, libc::SOCK_CLOEXEC as u64);
    for domain in inet {
        // An IP socket that is not a plain TCP stream (with or without its two flags)...
        let mut not_stream = vec![cond(0, SeccompCmpOp::Eq, domain)?];
        for t in [
            stream,
            stream | nonblock,
            stream | cloexec,
            stream | nonblock | cloexec,
        ] {
            not_stream.push(cond(1, SeccompCmpOp::Ne, t)?);
        }
        out.push(SeccompRule::new(not_stream).map_err(err)?);
        // ...or of another protocol than TCP (MPTCP, SCTP).
        out.push(
            SeccompRule::new(vec![
                cond(0, SeccompCmpOp::Eq, domain)?,
                cond(2, SeccompCmpOp::Ne, 0)?,
                cond(2, SeccompCmpOp::Ne, libc::IPPROTO_TCP as u64)?,
            ])
            .map_err(err)?,
        );
    }
    let fastopen = libc::MSG_FASTOPEN as u64;
    for (nr, flags) in [
        (libc::SYS_sendto, 3),
        (libc::SYS_sendmsg, 2),
        (libc::SYS_sendmmsg, 3),
    ] {
        let rule = SeccompRule::new(vec![cond(
            flags,
            SeccompCmpOp::MaskedEq(fastopen),
            fastopen,
        )?])
        .map_err(err)?;
        rules.entry(nr).or_default().push(rule);
    }
    Ok(out)
}

/// `TIOCLINUX` (not in every libc's constants).
const TIOCLINUX: u64 = 0x541C;

/// The x32 ABI reaches the same calls with bit 30 set (and its own numbers for `ioctl`,
/// `ptrace` and `process_vm_*`), under the x86_64 architecture value.
#[cfg(target_arch = "x86_64")]
fn x32_too(rules: &mut BTreeMap<i64, Vec<SeccompRule>>) {
    const X32: i64 = 0x4000_0000;
    let x32_own = [
        (libc::SYS_ioctl, 514),
        (libc::SYS_ptrace, 521),
        (libc::SYS_process_vm_readv, 539),
        (libc::SYS_process_vm_writev, 540),
        (libc::SYS_rt_sigqueueinfo, 524),
        (libc::SYS_rt_tgsigqueueinfo, 536),
        (libc::SYS_sendmsg, 518),
        (libc::SYS_sendmmsg, 538),
    ];
    let common: Vec<(i64, Vec<SeccompRule>)> = rules
        .iter()
        .map(|(nr, r)| {
            let x32 = x32_own
                .iter()
                .find(|(n, _)| n == nr)
                .map_or(*nr, |(_, own)| *own);
            (x32 | X32, r.clone())
        })
        .collect();
    rules.extend(common);
}

/// The architecture the filter is compiled for, if seccompiler knows it.
fn arch() -> Result<TargetArch, String> {
    TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|_| format!("no seccomp filter for {}", std::env::consts::ARCH))
}

/// The filter as a BPF program.
pub fn program(filter: &Filter) -> Result<BpfProgram, String> {
    let filter = SeccompFilter::new(
        rules(filter)?,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch()?,
    )
    .map_err(|e| format!("the seccomp filter does not build: {e}"))?;
    filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| format!("the seccomp filter does not compile: {e}"))
}

/// Installs the filter on the calling thread (no new privileges first, which it needs).
pub fn apply(filter: &Filter) -> Result<(), String> {
    let program = program(filter)?;
    // SAFETY: prctl with integer arguments only.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(format!(
            "cannot set no-new-privileges: {}",
            std::io::Error::last_os_error()
        ));
    }
    seccompiler::apply_filter(&program)
        .map_err(|e| format!("cannot install the seccomp filter: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_compiles_and_denies_the_listed_calls() {
        for network in [false, true] {
            let r = rules(&Filter {
                network,
                ..Filter::default()
            })
            .unwrap();
            for nr in [
                libc::SYS_ptrace,
                libc::SYS_io_uring_setup,
                libc::SYS_process_vm_readv,
            ] {
                assert!(
                    r.get(&nr).is_some_and(Vec::is_empty),
                    "{nr} denied outright"
                );
            }
            assert_eq!(r.get(&libc::SYS_ioctl).map(Vec::len), Some(2));
            assert_eq!(r.contains_key(&libc::SYS_socket), !network);
            assert!(!r.contains_key(&libc::SYS_kill));
            let filter = Filter {
                network,
                helper: Some(7),
                ..Filter::default()
            };
            assert!(!program(&filter).unwrap().is_empty());
        }
    }

    #[test]
    fn the_helper_cannot_be_killed_or_stopped() {
        let r = rules(&Filter {
            helper: Some(7),
            ..Filter::default()
        })
        .unwrap();
        // kill: 2 signals x (pid, group, own group, everyone).
        assert_eq!(r.get(&libc::SYS_kill).map(Vec::len), Some(8));
        for nr in [
            libc::SYS_tkill,
            libc::SYS_tgkill,
            libc::SYS_rt_sigqueueinfo,
            libc::SYS_rt_tgsigqueueinfo,
        ] {
            assert_eq!(r.get(&nr).map(Vec::len), Some(2), "{nr}");
        }
        assert_eq!(r.get(&libc::SYS_pidfd_open).map(Vec::len), Some(1));
    }

    #[test]
    fn loopback_sockets_are_ip_and_supervised_ones_tcp_only() {
        let of = |loopback| {
            rules(&Filter {
                loopback: Some(loopback),
                ..Filter::default()
            })
            .unwrap()
        };
        let ns = of(LoopbackSockets::Namespace);
        assert_eq!(ns.get(&libc::SYS_socket).map(Vec::len), Some(1));
        assert!(!ns.contains_key(&libc::SYS_sendto));
        let sup = of(LoopbackSockets::Supervised);
        // Neither UNIX nor IP; per IP family: not a stream, not TCP.
        assert_eq!(sup.get(&libc::SYS_socket).map(Vec::len), Some(5));
        for nr in [libc::SYS_sendto, libc::SYS_sendmsg, libc::SYS_sendmmsg] {
            assert_eq!(sup.get(&nr).map(Vec::len), Some(1), "{nr}: MSG_FASTOPEN");
        }
        let with_network = rules(&Filter {
            network: true,
            loopback: Some(LoopbackSockets::Supervised),
            ..Filter::default()
        })
        .unwrap();
        assert!(!with_network.contains_key(&libc::SYS_socket));
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn x32_numbers_are_denied_as_well() {
        let r = rules(&Filter::default()).unwrap();
        assert!(r.contains_key(&(41 | 0x4000_0000)), "x32 socket");
        assert!(r.contains_key(&(521 | 0x4000_0000)), "x32 ptrace");
        assert!(r.contains_key(&(514 | 0x4000_0000)), "x32 ioctl");
    }
}
