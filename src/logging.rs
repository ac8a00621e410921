//! Logging to a file under the state directory — never to the terminal sayso draws on.
//!
//! Secrets never reach the log: the provider settings redact the key in `Debug`, and header
//! values are not logged.

use std::path::Path;

use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::EnvFilter;

/// Starts file logging at `level`. Returns the guard that flushes on drop, or `None` when
/// logging is off or the file cannot be opened (sayso runs fine without a log).
pub fn init(log_file: &Path, level: &str) -> Option<WorkerGuard> {
    if level == "off" {
        return None;
    }
    let dir = log_file.parent()?;
    std::fs::create_dir_all(dir).ok()?;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log_file)
        .ok()?;
    // The default queue holds 128,000 lines and costs ~4 MB and ~2 ms at every start; sayso
    // logs little, so a small queue (lossy when full, never blocking the UI) is plenty.
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .buffered_lines_limit(1024)
        .lossy(true)
        .finish(file);
    let filter = EnvFilter::try_new(format!("sayso={level}")).ok()?;
    tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init()
        .ok()?;
    Some(guard)
}
