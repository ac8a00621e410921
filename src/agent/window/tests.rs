//! Learning the window (once per model and base URL; what the client said decides the tools'
//! fit) and `/compact` (nothing to compact, a focus, a failure or a stop keeps the history),
//! as tables over the pure parts: no client, no engine.

use pretty_assertions::assert_eq;

use super::*;
use crate::provider::window::WindowSource;

fn key(model: &str, url: &str) -> (String, String) {
    (model.into(), url.into())
}

fn w(tokens: u64, source: WindowSource, confidence: Confidence) -> ContextWindow {
    ContextWindow::new(tokens, source, confidence, "a test route")
}

const URL: &str = "http://127.0.0.1:1/v1";

#[test]
fn the_notes_are_due_once() {
    let mut l = Learning::default();
    assert_eq!(
        [l.notes_due(), l.notes_due(), l.notes_due()],
        [true, false, false]
    );
}

/// Each row: the window the client gave for a key, then whether the same key is asked for
/// again, the next (key, window) and so on. (`chosen`: the user chose the tools.)
#[test]
fn learning_is_cached_per_model_and_base_url_and_fits_the_tools_once() {
    use {Confidence as C, WindowSource as S};
    let config = w(32_768, S::Config, C::Config);
    let loaded = w(4096, S::LlamaCpp, C::Loaded);
    let assumed = w(DEFAULT_WINDOW, S::Default, C::Assumed);
    let not_loaded = w(131_072, S::Ollama, C::Catalog);
    let known = w(400_000, S::KnownModel, C::Catalog);
    // (what the client says, for which key, chosen) → (fit the tools, the same key asked again)
    type Row = (ContextWindow, (String, String), bool, bool, bool);
    let rows: &[(&str, &[Row])] = &[
        (
            "the config's window is learned and fits the tools",
            &[(config, key("m", URL), false, true, false)],
        ),
        (
            "a model switch asks again; the tools are fitted once per chat",
            &[
                (loaded, key("a", URL), false, true, false),
                (known, key("b", URL), false, false, false),
            ],
        ),
        (
            "a corrected base URL asks again",
            &[
                (loaded, key("m", URL), false, true, false),
                (
                    loaded,
                    key("m", "http://127.0.0.1:2/v1"),
                    false,
                    false,
                    false,
                ),
            ],
        ),
        (
            "probes that fail: the default, cached, and the tools stay until a real window",
            &[
                (assumed, key("a", URL), false, false, false),
                (loaded, key("b", URL), false, true, false),
            ],
        ),
        (
            "a window the server changes once it loads the model is asked for again",
            &[(not_loaded, key("m", URL), false, true, true)],
        ),
        (
            "tools the user chose are never fitted",
            &[
                (config, key("a", URL), true, false, false),
                (loaded, key("b", URL), true, false, false),
            ],
        ),
    ];
    for (name, steps) in rows {
        let mut l = Learning::default();
        for (i, (window, k, chosen, fit, ask_again)) in steps.iter().enumerate() {
            assert!(l.must_ask(k), "{name}, step {i}: a new key is asked for");
            let learned = l.learned(k.clone(), window, *chosen);
            let want = Learned {
                tokens: window.tokens,
                source: window.origin(),
                fit_tools: *fit,
            };
            assert_eq!(learned, want, "{name}, step {i}");
            assert_eq!(l.must_ask(k), *ask_again, "{name}, step {i}: asked again");
        }
    }
}

fn user(text: &str) -> ChatMessage {
    ChatMessage::User {
        content: text.into(),
        images: Vec::new(),
    }
}

fn assistant(text: &str) -> ChatMessage {
    ChatMessage::Assistant {
        content: text.into(),
        tool_calls: Vec::new(),
        reasoning: None,
    }
}

fn system(text: &str) -> ChatMessage {
    ChatMessage::System {
        content: text.into(),
    }
}

/// Two turns: the first can be summarised.
fn two_turns() -> Vec<ChatMessage> {
    vec![
        system("sys"),
        user("first question"),
        assistant("first answer"),
        user("second question"),
        assistant("second answer"),
    ]
}

/// The events as words, and how `/compact` ended, and the history after.
fn compact(
    messages: &[ChatMessage],
    reply: Option<Result<&str, ProviderError>>,
    cancelled: bool,
) -> (Vec<String>, TurnEnd, Vec<ChatMessage>, WindowState) {
    let mut messages = messages.to_vec();
    let mut window = WindowState::default();
    let asked = compact_request(&messages, &[], &window, "m", None).map(|(plan, _)| {
        let reply = reply.expect("a row with something to compact has a reply");
        (plan, reply.map(str::to_owned))
    });
    let chat = Compacting {
        system: system("new sys"),
        messages: &mut messages,
        window: &mut window,
        tools: &[],
    };
    let (events, end) = compact_end(asked, cancelled, chat);
    let words = events
        .iter()
        .map(|e| match e {
            Event::Notice(Notice::NothingToCompact) => {
                "ok: nothing to compact yet: the conversation is too short".into()
            }
            Event::Notice(Notice::CompactionStopped) => {
                "ok: compaction stopped; the history is unchanged".into()
            }
            Event::Notice(Notice::CompactionFailed(e)) => {
                format!("err: could not compact: {e} — the history is unchanged")
            }
            Event::Compacted { summary, tail, .. } => format!("compacted {tail}: {summary}"),
            Event::TurnEnded(end) => format!("ended {end:?}"),
            Event::Context { .. } => "context".into(),
            other => format!("{other:?}"),
        })
        .collect();
    (words, end, messages, window)
}

#[test]
fn compact_with_nothing_older_says_so_and_changes_nothing() {
    let short = vec![system("sys"), user("only question"), assistant("answer")];
    for history in [vec![], vec![system("sys")], short] {
        let (words, end, after, window) = compact(&history, None, false);
        assert_eq!(
            words,
            [
                "ok: nothing to compact yet: the conversation is too short",
                "ended Completed"
            ],
            "{history:?}"
        );
        assert_eq!(
            (end, after, window.compactions),
            (TurnEnd::Completed, history, 0)
        );
    }
}

#[test]
fn compact_replaces_the_older_history_with_the_summary() {
    let (words, end, after, window) = compact(&two_turns(), Some(Ok("we talked")), false);
    let summary = compaction::summary_message("we talked");
    assert_eq!(
        words,
        [
            "compacted 2: we talked".to_owned(),
            "context".into(),
            "ended Completed".into()
        ]
    );
    assert_eq!(end, TurnEnd::Completed);
    assert_eq!(
        after,
        [
            system("new sys"),
            user(&summary),
            user("second question"),
            assistant("second answer")
        ]
    );
    assert_eq!(window.compactions, 1);
}

#[test]
fn a_reply_that_comes_although_stopped_is_still_applied() {
    let (_, end, after, _) = compact(&two_turns(), Some(Ok("we talked")), true);
    assert_eq!((end, after.len()), (TurnEnd::Completed, 4));
}

#[test]
fn a_failed_or_stopped_compaction_keeps_the_history() {
    let failed = || ProviderError::Dropped("connection reset".into());
    let rows = [
        (
            false,
            "err: could not compact: the stream stopped before the reply was complete \
             (connection reset) — the history is unchanged",
            TurnEnd::Completed,
        ),
        (
            true,
            "ok: compaction stopped; the history is unchanged",
            TurnEnd::Stopped,
        ),
    ];
    for (cancelled, note, want_end) in rows {
        let (words, end, after, window) = compact(&two_turns(), Some(Err(failed())), cancelled);
        assert_eq!(words, [note.to_owned(), format!("ended {want_end:?}")]);
        assert_eq!(end, want_end);
        assert_eq!(after, two_turns(), "the history is unchanged");
        assert_eq!(window.compactions, 0);
    }
}

#[test]
fn the_summary_request_carries_the_focus_and_only_the_older_history() {
    let window = WindowState::default();
    let (plan, req) =
        compact_request(&two_turns(), &[], &window, "m", Some("the failing test")).unwrap();
    assert_eq!(plan.start, 3, "the last turn is kept verbatim");
    assert_eq!(req.model, "m");
    let ask = match req.messages.last() {
        Some(ChatMessage::User { content, .. }) => content.clone(),
        other => panic!("{other:?}"),
    };
    assert!(
        ask.contains("first question") && ask.contains("first answer"),
        "{ask}"
    );
    assert!(!ask.contains("second question"), "{ask}");
    assert!(
        ask.ends_with("Pay particular attention to: the failing test"),
        "{ask}"
    );
    let (_, unfocused) = compact_request(&two_turns(), &[], &window, "m", None).unwrap();
    assert!(!format!("{:?}", unfocused.messages).contains("Pay particular attention"));
}
