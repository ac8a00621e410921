//! The approval modal as an ACP `session/request_permission`: the options offered for an
//! [`Ask`] (allow once, allow always — named by what "always" remembers —, reject), and the
//! editor's answer back as the modal's [`UserChoice`].
//!
//! Pure. Anything that is not a clear choice of an offered option rejects: an unknown option
//! id, "allow always" where it was not offered, an error response, a closed connection. The
//! `cancelled` outcome is the modal's Cancel (the call is rejected and the turn stops). ACP 1.17
//! has no reason field: a rejection carries one only when the response's (or the selected
//! outcome's) `_meta` has a `reason` string, an extension of ours the editor may use.

use agent_client_protocol::v1::schema::{
    Meta, PermissionOption, PermissionOptionKind, RequestPermissionOutcome,
    RequestPermissionResponse,
};

use crate::events::UserChoice;
use crate::tools::lifecycle::requests::{Ask, Remember};

pub const ALLOW_ONCE: &str = "allow_once";
pub const ALLOW_ALWAYS: &str = "allow_always";
pub const REJECT: &str = "reject_once";

/// The options for `ask`, in the modal's order. "Allow always" is offered only where the
/// policy remembers something (never for a protected path, nor for a rerun outside the
/// sandbox), and its name says what.
pub fn options(ask: &Ask) -> Vec<PermissionOption> {
    let mut out = Vec::with_capacity(3);
    let once = match ask.rerun {
        Some(_) => "Rerun once outside the sandbox",
        None => "Allow once",
    };
    out.push(PermissionOption::new(
        ALLOW_ONCE,
        once,
        PermissionOptionKind::AllowOnce,
    ));
    if let Some(what) = always_names(&ask.remember) {
        out.push(PermissionOption::new(
            ALLOW_ALWAYS,
            format!("Always allow {what}"),
            PermissionOptionKind::AllowAlways,
        ));
    }
    let reject = match ask.rerun {
        Some(_) => "Keep the failure",
        None => "Reject",
    };
    out.push(PermissionOption::new(
        REJECT,
        reject,
        PermissionOptionKind::RejectOnce,
    ));
    out
}

/// What "Always allow" remembers, in words (`None`: nothing, so it is not offered).
pub fn always_names(remember: &Remember) -> Option<String> {
    match remember {
        Remember::Tool(t) => Some(format!("`{}` in this chat", label_text(t))),
        Remember::Command(c) => Some(format!("the command `{}` in this chat", label_text(c))),
        Remember::Call { display, .. } => Some(format!("`{}` in this chat", label_text(display))),
        Remember::Nothing => None,
    }
}

/// Longest model-written text an option's label carries, in characters.
const LABEL_CHARS: usize = 80;

/// Model-written text as it may appear in an option's label: one line (a newline, any other
/// control and a bidirectional control written as a visible `\n` / `⟨U+XXXX⟩`), at most
/// [`LABEL_CHARS`] characters. A command must not be able to lay out a label that reads
/// like another option ("…`\n\nReject") or reorder it on screen.
fn label_text(text: &str) -> String {
    let mut one_line = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => one_line.push_str("\\n"),
            '\r' => one_line.push_str("\\r"),
            '\t' => one_line.push_str("\\t"),
            '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' => {
                one_line.push_str(&format!("⟨U+{:04X}⟩", c as u32))
            }
            c if c.is_control() => one_line.push_str(&format!("⟨U+{:04X}⟩", c as u32)),
            c => one_line.push(c),
        }
    }
    let kept = crate::text_cut::head_chars(&one_line, LABEL_CHARS);
    if kept.len() == one_line.len() {
        one_line
    } else {
        format!("{kept}…")
    }
}

/// How the request ended, as far as the server knows.
#[derive(Debug)]
pub enum Outcome {
    /// The editor answered.
    Answered(RequestPermissionResponse),
    /// The editor answered with an error (its message).
    Error(String),
    /// The connection closed before an answer.
    Closed,
}

/// The modal's choice for what the editor answered to a request offering `offered`.
pub fn choice(outcome: &Outcome, offered: &[PermissionOption]) -> UserChoice {
    let response = match outcome {
        Outcome::Answered(r) => r,
        Outcome::Error(e) => {
            return UserChoice::Reject(Some(format!(
                "the editor did not answer the permission request ({e})"
            )));
        }
        Outcome::Closed => return UserChoice::Cancel,
    };
    match &response.outcome {
        RequestPermissionOutcome::Cancelled => UserChoice::Cancel,
        RequestPermissionOutcome::Selected(selected) => {
            let id = selected.option_id.0.as_ref();
            if !offered.iter().any(|o| o.option_id.0.as_ref() == id) {
                return UserChoice::Reject(Some(format!(
                    "the editor chose `{id}`, which was not offered"
                )));
            }
            match id {
                ALLOW_ONCE => UserChoice::Accept,
                ALLOW_ALWAYS => UserChoice::AlwaysAccept,
                _ => UserChoice::Reject(
                    reason(selected.meta.as_ref()).or_else(|| reason(response.meta.as_ref())),
                ),
            }
        }
        // A later protocol's outcome this server does not know: not an approval.
        _ => UserChoice::Reject(Some("the editor's answer was not understood".into())),
    }
}

/// A non-empty `reason` string in `_meta`.
fn reason(meta: Option<&Meta>) -> Option<String> {
    meta?
        .get("reason")?
        .as_str()
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(str::to_owned)
}

#[cfg(test)]
#[path = "permissions_tests.rs"]
mod tests;
