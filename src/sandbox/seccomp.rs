//! The seccomp filter every confined command runs under (both Linux backends), built with
//! `seccompiler`: what no command sayso runs needs, denied with `EPERM`.
//!
//! Denied: `ptrace` and `process_vm_readv`/`writev` (reading or steering another process),
//! `io_uring_*` (a second syscall path the filter cannot see into), `ioctl(TIOCSTI)` and
//! `ioctl(TIOCLINUX)` (typing into the terminal sayso runs in), and unless the network is
//! allowed, `socket`/`socketpair` of any domain but `AF_UNIX`. On x86_64 the x32 numbers of
//! the same calls are denied too; another architecture in the filter's way (i386 on x86_64)
//! kills the process (seccompiler's architecture check). Everything else is allowed: the
//! filter narrows, the filesystem rules come from bubblewrap or Landlock.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// The filter as rules by syscall number (an empty list: denied whatever the arguments).
pub fn rules(network: bool) -> Result<BTreeMap<i64, Vec<SeccompRule>>, String> {
    let err = |e: seccompiler::BackendError| format!("the seccomp filter does not build: {e}");
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
    if !network {
        let not_unix = arg_is(0, SeccompCmpOp::Ne, libc::AF_UNIX as u64)?;
        rules.insert(libc::SYS_socket, vec![not_unix.clone()]);
        rules.insert(libc::SYS_socketpair, vec![not_unix]);
    }
    #[cfg(target_arch = "x86_64")]
    x32_too(&mut rules);
    Ok(rules)
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
pub fn program(network: bool) -> Result<BpfProgram, String> {
    let filter = SeccompFilter::new(
        rules(network)?,
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
pub fn apply(network: bool) -> Result<(), String> {
    let program = program(network)?;
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
            let r = rules(network).unwrap();
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
            assert!(!program(network).unwrap().is_empty());
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn x32_numbers_are_denied_as_well() {
        let r = rules(false).unwrap();
        assert!(r.contains_key(&(41 | 0x4000_0000)), "x32 socket");
        assert!(r.contains_key(&(521 | 0x4000_0000)), "x32 ptrace");
        assert!(r.contains_key(&(514 | 0x4000_0000)), "x32 ioctl");
    }
}
