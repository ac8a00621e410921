//! Checkpoints for undo: what sayso's tool calls changed in the project, kept so any turn can
//! be taken back (and redone), in sayso's own data directory — never in the project's `.git`,
//! never by running git.
//!
//! - [`object`] and [`store`]: the content-addressed object store (`DATA/checkpoints`), shared
//!   by every checkpoint of every session, written `0700`/`0600` and synced before a record
//!   names what it wrote;
//! - [`image`]: one path's image (existence, content hash, mode, a link's target — never
//!   followed), and the session's [`image::Budget`] (`[undo] max_file_size`, `session_cap`);
//! - [`snapshot`]: the files git would see, walked with the gitignore rules and a stat cache,
//!   stored as per-directory trees;
//! - [`manifest`] and [`record`]: what one call changed, and the session records naming it;
//! - [`recorder`]: capture around a call (the tool engine's driver calls it);
//! - [`history`], [`mod@plan`] and [`diff_text`] (pure): the undo state replayed from records, the
//!   plan of an undo or redo with its conflicts, its diff;
//! - [`undo_ops`] and [`mod@apply`]: reading what a plan needs, and writing it inside the project;
//! - [`gc`]: deleting the objects no remaining session names.
//!
//! It refuses to write outside the project, through a symbolic link, or over a file that
//! changed since sayso's change (a conflict is listed, never overwritten); it does not cover
//! ignored files, files outside the project, or what a command did elsewhere (a database, the
//! network).

pub mod apply;
pub mod diff_text;
pub mod gc;
pub mod history;
pub mod image;
pub mod manifest;
pub mod object;
pub mod plan;
pub mod record;
pub mod recorder;
pub mod snapshot;
pub mod store;
pub mod undo_ops;

pub use apply::{Applied, ConflictChoice, apply};
pub use history::{History, Mark};
pub use image::Image;
pub use object::ObjectId;
pub use plan::{Conflict, Restore, UndoPlan, Unrecoverable, plan};
pub use record::{Checkpoint, Undo, UndoAction};
pub use recorder::{Pending, Recorder, Scope};
pub use store::Store;
