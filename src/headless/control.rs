//! The control protocol (`-p --json --approvals stdio`): a program that drives sayso answers
//! its approval requests. When a call needs approval, stdout gets a `control_request`; sayso
//! waits for the matching `control_response` line on stdin (README "Approval policy").
//!
//! - `allow` runs the call (`"remember": true` is "Always accept", where the policy lets it
//!   remember); `deny` rejects it with `message` as the reason the model reads; `ask` means
//!   "no one here decides": rejected as a run without a person would be, and the model is told.
//! - An answer may come before its request, for a call of the reply being handled (its
//!   `request_id` is `apr-` and the call id the `tool_use_end` event showed). Call ids are
//!   unique for the whole chat (`agent::call_ids`), so a request id names one request: should
//!   a call id ever come twice, its second request gets `apr2-ID` (no `apr-` id, so no call's).
//! - An answer is used once: an answer for a request already decided, rejected or timed out
//!   is refused with a message on stderr and applied to nothing — a late `allow` never
//!   approves a later call.
//! - A command the sandbox denied may be rerun outside it, once: that is another request for
//!   the same call, `rerun-N-ID` (the call's Nth rerun), with `"rerun": {"what": …, "kind": …}`
//!   saying what was denied. No call id can produce such an id (a call's start with `apr`), and
//!   it is decided only by an answer given after it was printed: an answer that came before
//!   (early, or for a request not yet printed) is never used for it. `allow` reruns it
//!   unconfined (`remember` changes nothing); `deny` sends the failure to the model. Programs
//!   should key on `request.call_id` and `request.rerun`, not parse request ids.
//! - Never a hang, never a run: a line that is not a control response, an answer for no call
//!   of this reply, a closed stdin, or no answer within the timeout each print a message on
//!   stderr and reject the pending call (with the reason for the model).
//!
//! - A `{"type":"user_message","text":"…"}` line steers the run: the message is queued as a
//!   message typed in the TUI during a turn is (`agent::steer`): the model reads it after the
//!   current batch's results, or it starts the next turn when this one ends first. It answers
//!   no request; one without a non-empty string `text` is an unreadable line like the others.
//!
//! Pure state: the headless loop feeds it requests, stdin lines and the clock.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::oneshot;
use tokio::time::Instant;

use crate::events::UserChoice;
use crate::tools::lifecycle::requests::{ApprovalRequest, Ask};
use crate::tools::tool::Preview;

/// How long a request waits for its answer by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// The request id of a call's approval.
pub fn request_id(call_id: &str) -> String {
    format!("apr-{call_id}")
}

/// The request id of a call's `n`th rerun outside the sandbox (from 1): `rerun-N-ID`. It never
/// starts with `apr`, so no call's request id is one, and the number comes before the call id,
/// so two calls' reruns never share one.
pub fn rerun_request_id(call_id: &str, n: u32) -> String {
    format!("rerun-{n}-{call_id}")
}

/// The `control_request` line for `ask`.
pub fn request_line(id: &str, ask: &Ask) -> Value {
    json!({
        "type": "control_request",
        "request_id": id,
        "request": {
            "subtype": "can_use_tool",
            "tool_name": ask.tool,
            "tool_input": ask.args,
            "call_id": ask.call_id,
            "display": ask.cmd_string,
            "diff": match &ask.preview {
                Some(Preview::Diff { diff, .. }) => Some(diff.as_str()),
                _ => None,
            },
            "preview": match &ask.preview {
                Some(Preview::Text(t)) => Some(t.as_str()),
                _ => None,
            },
            "caution": ask.caution,
            "rerun": ask.rerun,
            "judge_reason": ask.judge_reason,
            "position": ask.position,
            "total": ask.total,
        },
    })
}

/// An answer read from stdin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub request_id: String,
    pub choice: UserChoice,
}

/// A `user_message` line's text (`None`: the line is something else; `Err`: why it is not
/// usable).
pub fn parse_user_message(line: &str) -> Option<Result<String, String>> {
    let v: Value = serde_json::from_str(line).ok()?;
    if v["type"] != "user_message" {
        return None;
    }
    Some(
        v["text"]
            .as_str()
            .filter(|t| !t.trim().is_empty())
            .map(str::to_owned)
            .ok_or_else(|| "a user_message needs `text`, a non-empty string".to_owned()),
    )
}

/// Reads one stdin line: `Err` says why it is not a control response.
pub fn parse_line(line: &str, tool_of: impl Fn(&str) -> String) -> Result<Answer, String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("not JSON ({e})"))?;
    if v["type"] != "control_response" {
        return Err(
            "not a control_response or user_message (its `type` must be \"control_response\" or \"user_message\")"
                .into(),
        );
    }
    let r = &v["response"];
    if r["subtype"] != "tool_approval" {
        return Err("`response.subtype` must be \"tool_approval\"".into());
    }
    let id = r["request_id"]
        .as_str()
        .ok_or("`response.request_id` is missing")?
        .to_owned();
    let answer = &r["response"];
    let message = answer["message"]
        .as_str()
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .map(str::to_owned);
    let choice = match answer["behavior"].as_str() {
        Some("allow") if answer["remember"] == json!(true) => UserChoice::AlwaysAccept,
        Some("allow") => UserChoice::Accept,
        Some("deny") => UserChoice::Reject(message),
        Some("ask") => UserChoice::Reject(Some(format!(
            "Approval required for `{}`, and the program running sayso left the decision to a person, but no one is there to ask{}",
            tool_of(&id),
            message.map(|m| format!(": {m}")).unwrap_or_default()
        ))),
        other => {
            return Err(format!(
                "`response.response.behavior` must be allow, deny or ask, not {}",
                other.map_or("missing".to_owned(), |b| format!("\"{b}\""))
            ));
        }
    };
    Ok(Answer {
        request_id: id,
        choice,
    })
}

struct Pending {
    id: String,
    call_id: String,
    tool: String,
    reply: oneshot::Sender<UserChoice>,
    /// A rerun outside the sandbox: only an answer to the printed request decides it.
    rerun: bool,
    /// The request line, until the event stream has announced the call (so stdout reads in
    /// order: `approval_requested`, then the `control_request`).
    held: Option<Value>,
    /// Set when the request is printed.
    deadline: Option<Instant>,
}

/// The controller's side of the run: what is pending, what was answered early.
pub struct Control {
    timeout: Duration,
    pending: Option<Pending>,
    /// Request ids of the calls of the reply being handled (answers may come early for them).
    batch: HashSet<String>,
    /// The tool of each call of this reply, by request id (for messages).
    tools: HashMap<String, String>,
    early: HashMap<String, UserChoice>,
    /// Calls the event stream has shown asking for approval (this reply).
    announced: HashSet<String>,
    /// Every request id given out in this run.
    issued: HashSet<String>,
    /// Requests that are over, and how (answered, timed out…): their answers are refused.
    over: HashMap<String, String>,
    closed: bool,
}

/// What the loop must print.
#[derive(Debug, Default)]
pub struct Out {
    /// A `control_request` for stdout.
    pub request: Option<Value>,
    /// Messages for stderr.
    pub notes: Vec<String>,
    /// A `user_message` to queue (it steers the run).
    pub steer: Option<String>,
}

fn rejection(what: &str) -> UserChoice {
    UserChoice::Reject(Some(format!(
        "The program running sayso gave no usable answer ({what}), so the call was not run"
    )))
}

impl Control {
    pub fn new(timeout: Duration) -> Self {
        Self {
            timeout,
            pending: None,
            batch: HashSet::new(),
            tools: HashMap::new(),
            early: HashMap::new(),
            announced: HashSet::new(),
            issued: HashSet::new(),
            over: HashMap::new(),
            closed: false,
        }
    }

    /// A request id for `call_id` that no earlier request of this run had: `apr-ID` (should
    /// the id come twice, `apr2-ID`…), or for a rerun `rerun-1-ID`, `rerun-2-ID`…
    fn new_id(&mut self, call_id: &str, rerun: bool) -> String {
        let nth = |n: u32| match (rerun, n) {
            (true, n) => rerun_request_id(call_id, n),
            (false, 1) => request_id(call_id),
            (false, n) => format!("apr{n}-{call_id}"),
        };
        let mut n = 1;
        let mut id = nth(n);
        while self.issued.contains(&id) {
            n += 1;
            id = nth(n);
        }
        self.issued.insert(id.clone());
        id
    }

    /// A reply with these calls (id, tool) is being handled: answers for them may come.
    pub fn new_batch<'a>(&mut self, calls: impl IntoIterator<Item = (&'a str, &'a str)>) {
        self.early.clear();
        self.batch.clear();
        self.tools.clear();
        self.announced.clear();
        for (id, tool) in calls {
            let rid = request_id(id);
            self.batch.insert(rid.clone());
            self.tools.insert(rid, tool.to_owned());
        }
    }

    /// When the pending request gives up waiting.
    pub fn deadline(&self) -> Option<Instant> {
        self.pending.as_ref().and_then(|p| p.deadline)
    }

    /// The event stream showed `call_id` asking for approval: its request may be printed. An
    /// announcement is used by one request (a call asked twice — a rerun outside the sandbox
    /// after a denial — is announced twice).
    pub fn announced(&mut self, call_id: &str, now: Instant) -> Out {
        let mut out = Out::default();
        match self
            .pending
            .as_mut()
            .filter(|p| p.call_id == call_id && p.held.is_some())
        {
            Some(p) => {
                out.request = p.held.take();
                p.deadline = Some(now + self.timeout);
            }
            None => {
                self.announced.insert(call_id.to_owned());
            }
        }
        out
    }

    /// The engine asks about a call.
    pub fn request(&mut self, req: ApprovalRequest, now: Instant) -> Out {
        let mut out = Out::default();
        let rerun = req.ask.rerun.is_some();
        let id = self.new_id(&req.ask.call_id, rerun);
        if let Some(p) = self.pending.take() {
            // One at a time: the engine waits for each answer; a second means the first is moot.
            self.over.insert(p.id, "superseded".into());
            let _ = p.reply.send(rejection("superseded"));
        }
        // An early answer may decide a call's own request, never a rerun's.
        if let Some(choice) = self.early.remove(&id).filter(|_| !rerun) {
            self.over.insert(id, "answered".into());
            let _ = req.reply.send(choice);
            return out;
        }
        if self.closed {
            self.over.insert(id, "rejected: stdin is closed".into());
            out.notes.push(format!(
                "control: stdin is closed: rejecting {} ({})",
                req.ask.tool, req.ask.cmd_string
            ));
            let _ = req.reply.send(rejection("its input is closed"));
            return out;
        }
        let line = request_line(&id, &req.ask);
        self.tools.insert(id.clone(), req.ask.tool.clone());
        let shown = self.announced.remove(&req.ask.call_id);
        let (held, deadline) = if shown {
            out.request = Some(line);
            (None, Some(now + self.timeout))
        } else {
            (Some(line), None)
        };
        self.pending = Some(Pending {
            id,
            call_id: req.ask.call_id,
            tool: req.ask.tool,
            reply: req.reply,
            rerun,
            held,
            deadline,
        });
        out
    }

    /// Rejects the pending request, with `note` for stderr.
    fn reject_pending(&mut self, what: &str, out: &mut Out) {
        if let Some(p) = self.pending.take() {
            out.notes.push(format!(
                "control: {what}: rejecting {} (request {})",
                p.tool, p.id
            ));
            self.over.insert(p.id, format!("rejected: {what}"));
            let _ = p.reply.send(rejection(what));
        }
    }

    /// A line arrived on stdin.
    pub fn line(&mut self, line: &str) -> Out {
        let mut out = Out::default();
        if line.trim().is_empty() {
            return out;
        }
        match parse_user_message(line) {
            Some(Ok(text)) => {
                out.steer = Some(text);
                return out;
            }
            Some(Err(why)) => {
                out.notes.push(format!("control: unreadable line: {why}"));
                self.reject_pending("an unreadable answer", &mut out);
                return out;
            }
            None => {}
        }
        let tools = &self.tools;
        let answer = match parse_line(line, |id| {
            tools.get(id).cloned().unwrap_or_else(|| "the tool".into())
        }) {
            Ok(a) => a,
            Err(why) => {
                out.notes.push(format!("control: unreadable line: {why}"));
                self.reject_pending("an unreadable answer", &mut out);
                return out;
            }
        };
        if let Some(how) = self.over.get(&answer.request_id) {
            // Late or twice: whatever waits now is another call, which this answer never saw.
            out.notes.push(format!(
                "control: request `{}` is over ({how}): this answer is refused and applies to no other call",
                answer.request_id
            ));
            return out;
        }
        match &self.pending {
            Some(p) if p.id == answer.request_id && p.rerun && p.held.is_some() => {
                out.notes.push(format!(
                    "control: request `{}` has not been printed yet: a rerun outside the sandbox is decided only by an answer to its printed request, so this answer is refused",
                    answer.request_id
                ));
            }
            Some(p) if p.id == answer.request_id => {
                if let Some(p) = self.pending.take() {
                    self.over.insert(p.id, "answered".into());
                    let _ = p.reply.send(answer.choice);
                }
            }
            _ if self.early.contains_key(&answer.request_id) => {
                out.notes.push(format!(
                    "control: request `{}` was already answered: this second answer is refused",
                    answer.request_id
                ));
            }
            _ if self.batch.contains(&answer.request_id) => {
                self.early.insert(answer.request_id, answer.choice);
            }
            _ => {
                out.notes.push(format!(
                    "control: no call is waiting for `{}`",
                    answer.request_id
                ));
                self.reject_pending("an answer for an unknown request", &mut out);
            }
        }
        out
    }

    /// Stdin was closed: nothing more will be answered.
    pub fn close(&mut self) -> Out {
        let mut out = Out::default();
        self.closed = true;
        self.reject_pending("stdin is closed", &mut out);
        out
    }

    /// The pending request's deadline passed.
    pub fn timed_out(&mut self) -> Out {
        let mut out = Out::default();
        let what = format!("no answer within {} s", self.timeout.as_secs());
        self.reject_pending(&what, &mut out);
        out
    }
}

/// The controller's channels for a run: the engine's approval requests, and stdin's lines
/// (`None` at its end).
pub struct Controller {
    pub approvals: tokio::sync::mpsc::UnboundedReceiver<ApprovalRequest>,
    pub lines: tokio::sync::mpsc::UnboundedReceiver<Option<String>>,
    pub control: Control,
}

/// Reads stdin line by line on its own thread; `None` at the end (or an unreadable stdin).
pub fn stdin_lines() -> tokio::sync::mpsc::UnboundedReceiver<Option<String>> {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::stdin().lock().lines() {
            match line {
                Ok(l) => {
                    if tx.send(Some(l)).is_err() {
                        return;
                    }
                }
                Err(_) => break,
            }
        }
        let _ = tx.send(None);
    });
    rx
}

#[cfg(test)]
mod tests;
