//! The undo records as events: `Event::Checkpoint` (a tool call's checkpoint: its turn, call
//! id, manifest reference and the paths it changed; first pending, before the call runs, then
//! complete) and `Event::Undo` (an undo or redo that was applied). Both are saved in the
//! session file, so a resumed chat and `sayso sessions undo` replay the same undo state; the
//! types live in [`crate::checkpoint::record`], below this layer.

pub use crate::checkpoint::record::{Checkpoint, Undo, UndoAction};
