//! The terminal's input events (crossterm's [`EventStream`]) as a stream that asks crossterm only
//! when it said it has something.
//!
//! Why: the event loop polls the key stream every time it wakes — for each frame and each batch
//! of agent output, ~50 times a second while a reply streams. crossterm's `poll_next` then tries
//! to take its event reader's lock, which its own reader thread holds while it waits for input,
//! and spins (`sched_yield`) until it gives up: 8 % of the TUI's CPU on a slow reply
//! (BENCHMARKS.md §19). Here the inner stream is polled only at first, after it gave an event,
//! and after its reader thread woke it; in between a poll costs an atomic load.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use crossterm::event::{Event, EventStream};
use futures_util::Stream;

pub struct Keys {
    inner: EventStream,
    /// The inner stream must be polled: it gave an event last time (it may have more), or it
    /// has not been polled yet.
    ready: bool,
    flag: Arc<Flag>,
}

/// The waker the inner stream gets: it notes that the reader thread has something and wakes
/// the task that polled last.
#[derive(Default)]
struct Flag {
    woken: AtomicBool,
    task: Mutex<Option<Waker>>,
}

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::SeqCst);
        let task = self.task.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(task) = task {
            task.wake();
        }
    }
}

impl Default for Keys {
    fn default() -> Self {
        Self {
            inner: EventStream::new(),
            ready: true,
            flag: Arc::default(),
        }
    }
}

impl Stream for Keys {
    type Item = io::Result<Event>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        // Stored before looking at `woken`: a wake-up in between finds this task to wake.
        *this.flag.task.lock().unwrap_or_else(|e| e.into_inner()) = Some(cx.waker().clone());
        if !this.ready && !this.flag.woken.swap(false, Ordering::SeqCst) {
            return Poll::Pending;
        }
        let waker = Waker::from(this.flag.clone());
        let polled = Pin::new(&mut this.inner).poll_next(&mut Context::from_waker(&waker));
        this.ready = polled.is_ready();
        polled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A waker that counts its wake-ups.
    #[derive(Default)]
    struct Count(std::sync::atomic::AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn a_wake_up_from_the_reader_reaches_the_task_that_polled_last_and_only_once() {
        let flag = Arc::new(Flag::default());
        let (first, second) = (Arc::new(Count::default()), Arc::new(Count::default()));
        *flag.task.lock().unwrap() = Some(Waker::from(first.clone()));
        *flag.task.lock().unwrap() = Some(Waker::from(second.clone()));
        Waker::from(flag.clone()).wake_by_ref();
        Waker::from(flag.clone()).wake_by_ref();
        assert_eq!(first.0.load(Ordering::SeqCst), 0);
        assert_eq!(second.0.load(Ordering::SeqCst), 1);
        assert!(flag.woken.swap(false, Ordering::SeqCst));
    }
}
