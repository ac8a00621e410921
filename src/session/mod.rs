//! Sessions (SPEC §8.1): every chat is saved as it happens and can be resumed.
//!
//! - [`store`]: the files — where they live, ids, private permissions, appending, reading a
//!   file whose last line was torn by a crash.
//! - [`record`]: one line of a session file; records replay as the events they came from.
//! - [`writer`]: the task that writes the agent's events as records while they happen.
//! - [`resume`]: a session file read back into history, transcript and state.
pub mod record;
pub mod resume;
pub mod store;
pub mod writer;
