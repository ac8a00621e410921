//! The tool engine's building blocks.
//!
//! - [`approval`]: the approval decision as a pure function of settings, mode, memory and gates.
//! - [`command_safety`]: the deterministic `is_safe` gate for shell commands.
//! - [`judge`]: the LLM judge that vets calls in auto mode.

pub mod approval;
pub mod command_safety;
pub mod judge;
