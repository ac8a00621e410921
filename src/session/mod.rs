//! Sessions (SPEC §8.1): every chat is saved as it happens and can be resumed.
//!
//! - [`store`]: the files — where they live, ids, private permissions, appending, reading a
//!   file whose last line was torn by a crash.
pub mod store;
