//! The one place that listens for the signals that end a run: SIGINT (Ctrl+C from outside raw
//! mode), SIGTERM and SIGHUP. The TUI restores the terminal and quits on them; headless stops
//! the turn and exits 130.

/// Resolves when one of the signals arrives; it can be awaited again for the next one.
pub struct Signals {
    #[cfg(unix)]
    streams: Vec<tokio::signal::unix::Signal>,
}

impl Default for Signals {
    fn default() -> Self {
        Self::new()
    }
}

impl Signals {
    pub fn new() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let streams = [
                SignalKind::terminate(),
                SignalKind::hangup(),
                SignalKind::interrupt(),
            ]
            .into_iter()
            .filter_map(|k| signal(k).ok())
            .collect();
            Self { streams }
        }
        #[cfg(not(unix))]
        {
            Self {}
        }
    }

    pub async fn recv(&mut self) {
        #[cfg(unix)]
        {
            if self.streams.is_empty() {
                return std::future::pending().await;
            }
            // Polled in place: the event loop awaits this on every wake-up, and boxing a future
            // per stream each time cost three allocations a frame.
            std::future::poll_fn(|cx| {
                for s in &mut self.streams {
                    if s.poll_recv(cx).is_ready() {
                        return std::task::Poll::Ready(());
                    }
                }
                std::task::Poll::Pending
            })
            .await;
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
