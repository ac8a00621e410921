//! Accessors only tests use: set up a scene, type a draft, read the time and the folds.

use std::collections::HashSet;
use std::time::Instant;

use super::App;
use crate::tui::transcript::Transcript;

impl App {
    /// The transcript, for tests that set up a scene.
    pub fn transcript_mut(&mut self) -> &mut Transcript {
        &mut self.transcript
    }

    /// When the last key was pressed, for tests that inject time.
    pub fn last_key(&self) -> Option<Instant> {
        self.last_key
    }

    /// What was expanded, for tests.
    pub fn expanded(&self) -> &HashSet<usize> {
        &self.expanded
    }

    /// After a test changed the transcript directly.
    pub fn refresh(&mut self) {
        self.after_transcript_change();
    }
}
