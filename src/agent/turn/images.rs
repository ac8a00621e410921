//! A server that refuses the images a message carries (`@picture.png`, `crate::attach`): a
//! 400-class answer whose words name images or content parts, while the history holds images.
//! The turn says so, drops the images from the history (each message that had some says how
//! many were not sent), and sends the round again — so the chat goes on with a model that
//! takes text only, and the refusal is not met again at every message.
//!
//! Pure, like the rest of the turn. What it refuses to do: retry when no image was sent (the
//! refusal was about something else), or retry more than once for the same images.

use super::{Effect, Turn};
use crate::events::{Event, Notice};
use crate::provider::{ChatMessage, ProviderError};

/// Whether `e` reads as a refusal of image content.
pub fn refuses_images(e: &ProviderError) -> bool {
    let ProviderError::Status {
        status, message, ..
    } = e
    else {
        return false;
    };
    let m = message.to_ascii_lowercase();
    matches!(status, 400 | 415 | 422)
        && (m.contains("image")
            || m.contains("vision")
            || m.contains("multimodal")
            || (m.contains("content") && (m.contains("array") || m.contains("part"))))
}

/// Drops every image of `messages`; how many there were.
pub fn drop_images(messages: &mut [ChatMessage]) -> usize {
    let mut n = 0;
    for m in messages {
        if let ChatMessage::User { content, images } = m
            && !images.is_empty()
        {
            n += images.len();
            content.push_str(&format!(
                "\n\n({} attached image(s) not sent: the server refused images)",
                images.len()
            ));
            images.clear();
        }
    }
    n
}

impl Turn {
    /// Whether the history has images for a refusal of them to be answered by dropping them.
    pub(super) fn answers_image_refusal(&self, e: &ProviderError) -> bool {
        refuses_images(e)
            && self
                .chat
                .messages
                .iter()
                .any(|m| matches!(m, ChatMessage::User { images, .. } if !images.is_empty()))
    }

    /// The server refused the images: say so, drop them, send the round again.
    pub(super) fn images_refused(&mut self, e: ProviderError, fx: &mut Vec<Effect>) {
        let n = drop_images(&mut self.chat.messages);
        fx.push(Effect::Emit(Event::Notice(Notice::AttachmentRefused(format!(
            "the server refused the attached image{} ({e}); sent again without {}: this model may not take images",
            if n == 1 { "" } else { "s" },
            if n == 1 { "it" } else { "them" },
        )))));
        self.round = self.round.saturating_sub(1);
        self.next_round(fx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::Image;

    fn status(status: u16, message: &str) -> ProviderError {
        ProviderError::Status {
            status,
            message: message.into(),
            retry_after: None,
        }
    }

    #[test]
    fn refusals_of_images_are_told_from_other_errors() {
        let table = [
            (
                400,
                "Invalid content type. image_url is only supported by certain models.",
                true,
            ),
            (400, "this model does not support image input", true),
            (400, "messages[1].content: expected string, got array", true),
            (422, "Multimodal input not supported", true),
            (400, "max_tokens is too large", false),
            (500, "image processing failed", false),
            (401, "invalid api key", false),
        ];
        for (code, message, want) in table {
            assert_eq!(
                refuses_images(&status(code, message)),
                want,
                "{code} {message}"
            );
        }
    }

    #[test]
    fn dropping_images_says_so_in_the_message() {
        let mut messages = vec![
            ChatMessage::User {
                content: "see".into(),
                images: vec![Image {
                    mime: "image/png".into(),
                    base64: "AA==".into(),
                }],
            },
            ChatMessage::user("plain"),
        ];
        assert_eq!(drop_images(&mut messages), 1);
        assert_eq!(
            messages[0],
            ChatMessage::user("see\n\n(1 attached image(s) not sent: the server refused images)")
        );
        assert_eq!(messages[1], ChatMessage::user("plain"));
        assert_eq!(drop_images(&mut messages), 0);
    }
}
