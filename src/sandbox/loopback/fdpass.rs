//! Descriptors passed over a UNIX socket pair (`SCM_RIGHTS`), one message for all of them: the
//! listeners the helper inside bubblewrap hands to the relay outside, and the seccomp listener
//! the Landlock child hands to the helper.
//!
//! The pair is `SOCK_SEQPACKET`, so a message arrives whole or not at all; a peer that closes
//! without sending is an empty list.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// At most this many descriptors in one message (the kernel's `SCM_MAX_FD` is 253).
pub const MAX_FDS: usize = 250;

/// A connected `SOCK_SEQPACKET` pair, close-on-exec.
pub fn pair() -> Result<(OwnedFd, OwnedFd), String> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: socketpair writes two descriptors into the local array, owned right after.
    let r = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if r != 0 {
        return Err(format!(
            "cannot make a socket pair: {}",
            std::io::Error::last_os_error()
        ));
    }
    // SAFETY: both descriptors were just created and are owned by nothing else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// The control buffer for `n` descriptors, aligned for `cmsghdr`.
fn control(n: usize) -> Vec<u64> {
    // SAFETY: CMSG_SPACE only computes a size.
    let bytes = unsafe { libc::CMSG_SPACE((n * std::mem::size_of::<RawFd>()) as u32) } as usize;
    vec![0u64; bytes.div_ceil(8)]
}

/// Sends `fds` (at most [`MAX_FDS`]) in one message on `sock`.
pub fn send(sock: &impl AsRawFd, fds: &[RawFd]) -> Result<(), String> {
    let fds = &fds[..fds.len().min(MAX_FDS)];
    let mut byte = [1u8];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    let mut buf = control(fds.len());
    // SAFETY: msghdr is plain data; zeroed is a valid empty header.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    if !fds.is_empty() {
        msg.msg_control = buf.as_mut_ptr().cast();
        msg.msg_controllen = (buf.len() * 8) as _;
        // SAFETY: the control buffer is large enough for one header with `fds.len()`
        // descriptors (CMSG_SPACE above), so the first header and its data lie inside it.
        unsafe {
            let cmsg = libc::CMSG_FIRSTHDR(&msg);
            (*cmsg).cmsg_level = libc::SOL_SOCKET;
            (*cmsg).cmsg_type = libc::SCM_RIGHTS;
            (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of_val(fds) as u32) as _;
            std::ptr::copy_nonoverlapping(
                fds.as_ptr(),
                libc::CMSG_DATA(cmsg).cast::<RawFd>(),
                fds.len(),
            );
        }
    }
    // SAFETY: `msg` points at live buffers for the duration of the call.
    let n = unsafe { libc::sendmsg(sock.as_raw_fd(), &msg, libc::MSG_NOSIGNAL) };
    if n < 0 {
        return Err(format!(
            "cannot pass descriptors on: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

/// Receives one message's descriptors from `sock` (blocking); empty when the peer closed
/// without sending, or on an error.
pub fn receive(sock: &impl AsRawFd) -> Vec<OwnedFd> {
    let mut byte = [0u8];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    let mut buf = control(MAX_FDS);
    // SAFETY: msghdr is plain data; zeroed is a valid empty header.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = buf.as_mut_ptr().cast();
    msg.msg_controllen = (buf.len() * 8) as _;
    let n = loop {
        // SAFETY: `msg` points at live buffers for the duration of the call.
        let n = unsafe { libc::recvmsg(sock.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC) };
        if n >= 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            break n;
        }
    };
    let mut out = Vec::new();
    if n <= 0 {
        return out;
    }
    // SAFETY: the kernel filled the control buffer; the CMSG macros walk it within
    // `msg_controllen`, and each SCM_RIGHTS payload is an array of descriptors now ours.
    unsafe {
        let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
        while !cmsg.is_null() {
            if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                let data = libc::CMSG_DATA(cmsg).cast::<RawFd>();
                let header = libc::CMSG_LEN(0) as usize;
                let count = ((*cmsg).cmsg_len as usize).saturating_sub(header)
                    / std::mem::size_of::<RawFd>();
                for i in 0..count {
                    out.push(OwnedFd::from_raw_fd(std::ptr::read_unaligned(data.add(i))));
                }
            }
            cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    #[test]
    fn descriptors_cross_the_pair_and_a_silent_close_is_empty() {
        let (a, b) = pair().unwrap();
        let (mut r, mut w) = std::io::pipe().unwrap();
        send(&a, &[w.as_raw_fd(), r.as_raw_fd()]).unwrap();
        let mut got = receive(&b).into_iter();
        let (passed_w, passed_r) = (got.next().unwrap(), got.next().unwrap());
        assert!(got.next().is_none());
        w.write_all(b"hi").unwrap();
        drop((w, passed_w));
        let mut text = String::new();
        std::fs::File::from(passed_r)
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "hi");
        let _ = r.read(&mut [0u8; 1]);

        send(&a, &[]).unwrap();
        assert!(receive(&b).is_empty());
        drop(a);
        assert!(receive(&b).is_empty());
    }
}
