//! `@` files: what a message's `@path` and `@path:10-40` mentions attach, and the file index
//! and fuzzy matcher the TUI's `@` picker offers paths from.
//!
//! On send, each mention that names an existing file or directory attaches it to the message
//! the model receives: a text block after the message with its path and the lines sent, a
//! directory's listing, or an image part (`png`, `jpg`, `jpeg`, `gif`, `webp`) — under the file
//! tools' rules ([`read`]), capped, and said so when cut. A mention of nothing is left as typed
//! (`@someone`); one that may not be attached is refused with a sentence for the chat, and
//! nothing of it is sent. `@{group}` mentions are tool groups ([`crate::agent::mentions`]).
//!
//! What it refuses to do: attach more than [`MAX_ATTACHMENTS`] mentions of a message, or
//! anything the rules of [`read`] refuse.

mod block;
pub mod fuzzy;
pub mod index;
pub mod mention;
pub mod read;

pub use read::Place;

use crate::provider::Image;

/// Mentions past this many in one message are not attached (and said so).
pub const MAX_ATTACHMENTS: usize = 20;

/// What a message's mentions attached.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Attached {
    /// The message with the text blocks after it, as the model receives it.
    pub text: String,
    pub images: Vec<Image>,
    /// One chip per attachment, as the transcript shows it: `[@src/main.rs:10-40]`.
    pub chips: Vec<String>,
    /// Refusals and cuts, for the chat.
    pub notes: Vec<String>,
}

/// `message` with its mentions attached.
pub fn attach(message: &str, place: &Place) -> Attached {
    let mut out = Attached {
        text: message.to_owned(),
        ..Attached::default()
    };
    let mut seen = std::collections::BTreeSet::new();
    let mut blocks = Vec::new();
    for m in mention::mentions(message) {
        if !seen.insert(m.typed.clone()) {
            continue;
        }
        if out.chips.len() >= MAX_ATTACHMENTS {
            out.notes.push(format!(
                "@{} was not attached: at most {MAX_ATTACHMENTS} attachments a message",
                m.typed
            ));
            continue;
        }
        match read::read(place, &m.path, m.range) {
            Ok(None) => {}
            Ok(Some(read::Read::Text(block))) => {
                if block.contains("\n(cut: ") || block.contains("\n(listing cut: ") {
                    out.notes
                        .push(format!("@{} was cut to fit the attachment cap", m.typed));
                }
                blocks.push(block);
                out.chips.push(format!("[@{}]", m.typed));
            }
            Ok(Some(read::Read::Image(image))) => {
                out.images.push(image);
                out.chips.push(format!("[@{}]", m.typed));
            }
            Err(why) => out.notes.push(why),
        }
    }
    for block in blocks {
        out.text.push_str("\n\n");
        out.text.push_str(&block);
    }
    out
}

#[cfg(test)]
mod tests;
