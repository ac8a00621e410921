//! The parts of an event's saved form that serde's attributes cannot say alone: a reply is
//! saved as `{"t": "reply", "message": …}` (the record's shape since sessions began), not with
//! the message's fields spread beside the tag.
//!
//! Nothing here decides what is saved (that is `session::record`) or how it is shown.

/// `#[serde(with)]` for `Event::ReplyDone`: the message under `message`.
pub mod reply {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::provider::AssistantMessage;

    #[derive(Serialize)]
    struct Borrowed<'a> {
        message: &'a AssistantMessage,
    }

    #[derive(Deserialize)]
    struct Owned {
        message: AssistantMessage,
    }

    pub fn serialize<S: Serializer>(message: &AssistantMessage, s: S) -> Result<S::Ok, S::Error> {
        Borrowed { message }.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<AssistantMessage, D::Error> {
        Owned::deserialize(d).map(|o| o.message)
    }
}
