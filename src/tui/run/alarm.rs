//! The event loop's one timer: a `timerfd` the runtime watches, which wakes the UI thread once,
//! at the moment asked.
//!
//! tokio's timers live in a hierarchical wheel of millisecond slots, 64 to a level: a deadline
//! 40 ms ahead that lies past the next 64 ms boundary sits on the second level, and the runtime
//! wakes at the boundary to move it down, then again at the deadline. While a reply streams,
//! that was a wake-up of the UI thread between six frames in ten (~800 wake-ups for 514 frames
//! of `slow20k`), each as costly as the frame's own on a cold cache; and each new deadline
//! earlier than the runtime's next one made tokio write to its own eventfd to re-arm it. A
//! kernel timer has neither. Where `timerfd_create` fails (a sandbox that forbids it), tokio's
//! timer does the same job.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::Instant;

use tokio::io::Interest;
use tokio::io::unix::AsyncFd;

/// A one-shot timer, re-armed by each [`Alarm::at`] for a new moment.
pub struct Alarm {
    fd: Option<AsyncFd<OwnedFd>>,
    /// The moment the timer is set for, until it has been seen to go off.
    armed: Option<Instant>,
}

impl Alarm {
    /// Needs a tokio runtime with IO enabled (the one the loop runs on).
    pub fn new() -> Self {
        Self {
            fd: timer_fd().ok(),
            armed: None,
        }
    }

    /// Resolves at `at` (at once when it has passed). Cancel-safe: dropped before it resolves,
    /// the timer stays set, and a later call for the same moment waits for the same expiry.
    pub async fn at(&mut self, at: Instant) {
        let Some(fd) = &self.fd else {
            return tokio::time::sleep_until(at.into()).await;
        };
        if self.armed != Some(at) {
            if set(fd.get_ref(), at).is_err() {
                return tokio::time::sleep_until(at.into()).await;
            }
            self.armed = Some(at);
        }
        loop {
            let Ok(mut ready) = fd.readable().await else {
                self.armed = None;
                return tokio::time::sleep_until(at.into()).await;
            };
            // The expiry count (8 bytes); would-block clears the readiness and waits again.
            match ready.try_io(|fd| read_expiries(fd.get_ref())) {
                Ok(_) => {
                    self.armed = None;
                    return;
                }
                Err(_would_block) => continue,
            }
        }
    }
}

/// A non-blocking monotonic timer (std's `Instant` is `CLOCK_MONOTONIC` on Linux too).
fn timer_fd() -> io::Result<AsyncFd<OwnedFd>> {
    // SAFETY: no pointers; a negative result is an error, anything else a new fd owned here.
    let fd = unsafe {
        libc::timerfd_create(
            libc::CLOCK_MONOTONIC,
            libc::TFD_NONBLOCK | libc::TFD_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just created and nothing else owns it; the `OwnedFd` keeps it open, and
    // the same, for as long as the `AsyncFd` that owns it lives.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: as above.
    unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) }.map_err(io::Error::from)
}

/// Sets the timer to go off once, `at` (relative to now: a moment passed goes off at once —
/// 1 ns, as zero would disarm it). Setting it clears an expiry not yet read.
fn set(fd: &OwnedFd, at: Instant) -> io::Result<()> {
    let wait = at.saturating_duration_since(Instant::now());
    let nanos = if wait.is_zero() {
        1
    } else {
        wait.subsec_nanos() as libc::c_long
    };
    let spec = libc::itimerspec {
        it_interval: libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        },
        it_value: libc::timespec {
            tv_sec: wait.as_secs() as libc::time_t,
            tv_nsec: nanos,
        },
    };
    // SAFETY: `spec` is read, the old value is not asked for (null).
    let rc = unsafe { libc::timerfd_settime(fd.as_raw_fd(), 0, &spec, std::ptr::null_mut()) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn read_expiries(fd: &OwnedFd) -> io::Result<u64> {
    let mut count = [0u8; 8];
    // SAFETY: reads at most 8 bytes into the 8-byte array.
    let n = unsafe { libc::read(fd.as_raw_fd(), count.as_mut_ptr().cast(), count.len()) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(u64::from_ne_bytes(count))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn it_goes_off_at_the_moment_asked_not_before() {
        runtime().block_on(async {
            let mut alarm = Alarm::new();
            assert!(alarm.fd.is_some(), "timerfd_create failed on Linux");
            for ms in [0u64, 3, 25] {
                let at = Instant::now() + Duration::from_millis(ms);
                alarm.at(at).await;
                assert!(Instant::now() >= at, "went off before {ms} ms");
            }
            // A moment already passed: at once.
            alarm.at(Instant::now() - Duration::from_secs(1)).await;
        });
    }

    #[test]
    fn dropped_before_it_goes_off_it_can_be_asked_again_for_another_moment() {
        runtime().block_on(async {
            let mut alarm = Alarm::new();
            let far = Instant::now() + Duration::from_secs(60);
            let near = Instant::now() + Duration::from_millis(5);
            tokio::select! {
                () = alarm.at(far) => panic!("the far alarm went off"),
                () = tokio::time::sleep(Duration::from_millis(2)) => {}
            }
            alarm.at(near).await;
            assert!(Instant::now() >= near);
            // The same moment asked again after it went off: re-armed (passed: at once), not
            // waiting for an expiry that was already read.
            alarm.at(near).await;
        });
    }
}
