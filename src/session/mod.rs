//! Sessions (SPEC §8.1): every chat is saved as it happens and can be resumed.
//!
//! - [`store`]: the files — where they live, ids, private permissions, appending, reading a
//!   file whose last line was torn by a crash.
//! - [`record`]: one line of a session file; records replay as the events they came from.
//! - [`writer`]: the task that writes the agent's events as records while they happen.
//! - [`resume`]: a session file read back into history, transcript and state.
//! - [`catalog`]: the saved sessions as a list; latest of a directory; removal and pruning.
//! - [`transcript_md`]: a session as Markdown (`sayso sessions show`).
pub mod catalog;
pub mod record;
pub mod resume;
pub mod store;
pub mod transcript_md;
pub mod writer;
