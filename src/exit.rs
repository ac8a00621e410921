//! Process exit codes (SPEC §2).

/// Success.
pub const OK: u8 = 0;
/// The run failed: endpoint error after retries, a cut-off reply, …
pub const FAILED: u8 = 1;
/// Bad usage or invalid config.
pub const USAGE: u8 = 2;
/// Interrupted by the user.
pub const INTERRUPTED: u8 = 130;
