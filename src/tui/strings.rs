//! User-visible strings of the terminal UI, in one place (snapshot diffs stay readable and
//! wording changes happen here).

/// The keys part of `/help` (the commands part is made from the command table).
pub const HELP_KEYS: &str = "\
Keys: Enter send · Alt+Enter / Shift+Enter / Ctrl+J newline · Esc or Ctrl+C stop a running turn · \
Ctrl+C twice quit · Ctrl+D quit on an empty input · PgUp/PgDn/Home/End/wheel scroll · \
Ctrl+T show or hide reasoning · Alt+M cycle the mode (yours → auto → plan) · \
Up/Down (empty input) history · Tab / Shift+Tab (empty input) select a block, Enter fold or \
unfold it, Esc let go
Editing (on the cursor's line; also in the modal's reject reason and a question's free-text \
answer): Ctrl+A / Ctrl+E start / end · Alt+B / Alt+F word back / \
forward · Ctrl+U / Ctrl+K kill to the start / end · Ctrl+W kill the word back (to a space) · \
Alt+Backspace / Alt+D kill a word back / forward · Ctrl+Y yank the last kill · Ctrl+Z or \
Ctrl+_ undo
/ opens the command list: Up/Down choose, Tab complete, Enter run, Esc close. Only a command \
name (or the start of just one) is a command: /tmp/x.log explain sends a message, and // at \
the start sends a literal /
/undo and /redo show the diff first: y apply · n or Esc cancel; with conflicts a apply the rest · s stop. /rewind: Up/Down choose a message, Enter, then 1 code and conversation · 2 conversation only · 3 code only (Esc back)";

pub const FOOTER_IDLE: &[(&str, &str)] = &[
    ("Enter", "send"),
    ("Alt+Enter", "newline"),
    ("PgUp/PgDn", "scroll"),
    ("Tab", "select"),
    ("/help", "help"),
    ("Ctrl+D", "quit"),
];
pub const FOOTER_BUSY: &[(&str, &str)] =
    &[("Esc", "stop"), ("PgUp/PgDn", "scroll"), ("End", "follow")];
/// While the `/` popup is open (its title is [`MENU_TITLE`]).
pub const FOOTER_MENU: &[(&str, &str)] = &[
    ("↑/↓", "choose"),
    ("Tab", "complete"),
    ("Enter", "run"),
    ("Esc", "close"),
];
pub const MENU_TITLE: &str = " Commands ";
/// While the `@` picker is open (its title is [`FILE_MENU_TITLE`]).
pub const FOOTER_FILES: &[(&str, &str)] =
    &[("↑/↓", "choose"), ("Tab/Enter", "attach"), ("Esc", "close")];
/// The `@` picker's title.
pub const FILE_MENU_TITLE: &str = " Files ";
pub const FOOTER_MODAL: &[(&str, &str)] = &[
    ("a", "always"),
    ("y", "accept"),
    ("r", "reject"),
    ("c/Esc", "cancel"),
    ("←/→ Enter", "choose"),
    ("↑/↓", "scroll"),
];
/// The footer's first words while the approval modal swallows keys typed ahead.
pub const KEYS_IGNORED: &str = "keys ignored: read first";
pub const FOOTER_REASON: &[(&str, &str)] = &[("Enter", "reject with this reason"), ("Esc", "back")];
/// While the approval modal's save-rule prompt (`s`) is open: its keys, not the modal's.
pub const FOOTER_SAVE_RULE: &[(&str, &str)] = &[
    ("Enter/number", "save and accept"),
    ("↑/↓", "choose"),
    ("Esc", "back"),
];
/// While the `ask_questions` form is open (Esc skips a question there, it stops nothing).
pub const FOOTER_FORM: &[(&str, &str)] = &[
    ("Enter", "answer"),
    ("Esc", "skip the question"),
    ("Ctrl+C", "skip all"),
];

pub const NEW_OUTPUT: &str = " ▼ new output below — End to follow ";
pub const INTERRUPTED: &str = "⏹ interrupted";
pub const SELECTED_BLOCK: &str =
    "Enter folds or unfolds the selected block · Tab next · Esc let go";
pub const NO_BLOCKS: &str = "no tool or reasoning block on screen to select";
/// A reasoning block while `[ui] show_reasoning` is off (or Ctrl+T hid it).
pub fn reasoning_hidden(lines: usize) -> String {
    let s = if lines == 1 { "" } else { "s" };
    format!("thinking · {lines} line{s} hidden (Ctrl+T shows)")
}
/// The approval modal's line when what is approved holds invisible characters.
pub fn invisible_in_call(n: usize) -> String {
    let what = if n == 1 {
        "an invisible character".to_owned()
    } else {
        format!("{n} invisible characters")
    };
    format!(
        "⚠ This call holds {what}, drawn as ⟨…⟩: they are part of what runs and what the model sent."
    )
}
pub const REASONING_SHOWN: &str = "reasoning shown (Ctrl+T hides it)";
pub const REASONING_HIDDEN: &str = "reasoning hidden (Ctrl+T shows it)";
pub const NO_SESSIONS: &str = "no other saved sessions yet";
pub const PRESS_AGAIN_TO_QUIT: &str = "Press Ctrl+C again to quit";
pub const PLACEHOLDER: &str = "Ask anything — Enter to send, Alt+Enter for a newline, /help";
pub const BUSY_FOR_COMMAND: &str = "wait until the current turn ends (Esc stops it)";
/// Under the queued messages (`tui::queue`).
pub const QUEUE_HINT: &str =
    "  ↑ edits the last · then Esc or Ctrl+U drops it · Esc stops the turn";
pub const SENT_TO_MODEL: &str = "sent to the model:";
pub const REASON_PROMPT: &str = "Reason for rejecting (optional), Enter to submit, Esc to go back:";
/// `/diff` before any file tool changed a file.
pub const NO_CHANGES: &str = "no changes yet: create_file, edit_file and delete_file have changed no file in this chat (/diff does not track files changed by shell commands)";

/// The first-run picker of servers found on this machine (`server_picker`).
pub const LOCAL_PICKER_TITLE: &str = " No model endpoint is configured — found on this machine ";
pub const LOCAL_PICKER_INTRO: &str =
    "Pick a server and model to chat with for this run. Nothing is sent before you choose.";
pub const LOCAL_PICKER_NO_MODELS: &str = "(no models loaded)";
pub const LOCAL_PICKER_KEYS: &str = "Enter chat with it · ↑/↓ choose · Esc/q quit";
