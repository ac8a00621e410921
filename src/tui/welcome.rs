//! The welcome at the top of a new chat's empty pane: the model and its context window, the
//! directory, what is in force — which `AGENTS.md` files were read, the skills and the commands
//! from files (when there are any) — and three tips. It is drawn from the live status (the
//! window appears once the agent learned it; a `/model` switch shows) and follows the project's
//! files as they are read again (an `AGENTS.md` that `/init` wrote shows after `/clear`); it
//! goes away with the first message, comes back with `/clear` (a new chat), and is not shown
//! when a saved chat is resumed. The app decides whether it shows; this module only lays it
//! out.

use std::path::Path;

use ratatui::text::{Line, Span};

use super::app::Status;
use super::theme::Theme;
use super::wrap::wrap_line_prefixed;

/// What the welcome knows beyond the status bar's facts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Welcome {
    /// The `AGENTS.md` files read into the system prompt, as the user would name them.
    pub instructions: Vec<String>,
    /// The skills' names.
    pub skills: Vec<String>,
    /// The commands from files, with their `/`.
    pub commands: Vec<String>,
    /// Where names are shown from: the working directory and the home directory.
    cwd: std::path::PathBuf,
    home: Option<std::path::PathBuf>,
}

pub const TITLE: &str = "Welcome to sayso";
pub const NO_INSTRUCTIONS: &str =
    "none found (an AGENTS.md in the project gives standing instructions)";
pub const TIPS: [(&str, &str); 3] = [
    ("/help", "lists the commands and keys"),
    (
        "@{name} + Tab",
        "adds a tool or group to the chat, Tab completes the name",
    ),
    (
        "--auto, /mode",
        "choose how often sayso asks before it acts",
    ),
];

impl Welcome {
    /// The files in `files` named relative to `cwd` (`./AGENTS.md`), else to `home` (`~/…`).
    pub fn new(files: &[std::path::PathBuf], cwd: &Path, home: Option<&Path>) -> Self {
        let mut w = Self {
            cwd: cwd.to_path_buf(),
            home: home.map(Path::to_path_buf),
            ..Self::default()
        };
        w.set_instructions(files);
        w
    }

    /// The `AGENTS.md` files now read.
    pub fn set_instructions(&mut self, files: &[std::path::PathBuf]) {
        let name = |p: &Path| {
            if let Ok(rel) = p.strip_prefix(&self.cwd) {
                return format!("./{}", rel.display());
            }
            match self.home.as_deref().map(|h| p.strip_prefix(h)) {
                Some(Ok(rel)) => format!("~/{}", rel.display()),
                _ => p.display().to_string(),
            }
        };
        self.instructions = files.iter().map(|p| name(p)).collect();
    }
}

fn tokens(n: u64) -> String {
    match n {
        n if n >= 10_000 => format!("{:.0}k", n as f64 / 1000.0),
        n if n >= 1_000 => format!("{:.1}k", n as f64 / 1000.0),
        n => n.to_string(),
    }
}

/// The welcome's lines at `width` (each fact and tip wrapped under its label), ending with a
/// blank line.
pub fn lines(w: &Welcome, status: &Status, t: &Theme, width: u16) -> Vec<Line<'static>> {
    let window = match status.context {
        Some((_, window, _)) => format!(" · context window {} tokens", tokens(window)),
        None => String::new(),
    };
    let instructions = if w.instructions.is_empty() {
        NO_INSTRUCTIONS.to_owned()
    } else {
        format!("read {}", w.instructions.join(", "))
    };
    let mut facts = vec![
        ("model", format!("{}{window}", status.model)),
        ("directory", status.cwd.clone()),
        ("AGENTS.md", instructions),
    ];
    if !w.skills.is_empty() {
        facts.push(("skills", w.skills.join(", ")));
    }
    if !w.commands.is_empty() {
        facts.push(("commands", w.commands.join(", ")));
    }
    let mut out = vec![Line::from(Span::styled(TITLE, t.heading))];
    let label_w = 12;
    for (label, value) in facts {
        let first = [Span::styled(format!("  {label:<label_w$}"), t.dim)];
        let line = Line::from(Span::styled(value, t.text));
        out.extend(wrap_line_prefixed(
            &line,
            width,
            &first,
            &[Span::raw(" ".repeat(label_w + 2))],
        ));
    }
    out.push(Line::default());
    out.push(Line::from(Span::styled("Tips", t.strong)));
    for (keys, what) in TIPS {
        let first = [
            Span::raw("  "),
            Span::styled(format!("{keys:<15}"), t.footer_key),
        ];
        let line = Line::from(Span::styled(what, t.text));
        out.extend(wrap_line_prefixed(
            &line,
            width,
            &first,
            &[Span::raw(" ".repeat(17))],
        ));
    }
    out.push(Line::default());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::Mode;

    fn status(context: Option<(u64, u64, bool)>) -> Status {
        Status {
            model: "qwen2.5-coder".into(),
            provider: "local".into(),
            cwd: "~/src/proj".into(),
            mode: Mode::Balanced,
            usage: Default::default(),
            context,
            sandbox: None,
        }
    }

    fn text(lines: &[Line<'static>]) -> String {
        lines
            .iter()
            .map(|l| l.to_string().trim_end().to_owned())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn the_welcome_names_the_model_window_directory_and_instructions() {
        let w = Welcome::new(
            &[
                "/home/me/src/proj/AGENTS.md".into(),
                "/home/me/.config/sayso/AGENTS.md".into(),
            ],
            Path::new("/home/me/src/proj"),
            Some(Path::new("/home/me")),
        );
        let shown = text(&lines(
            &w,
            &status(Some((900, 32_768, true))),
            &Theme::dark(),
            100,
        ));
        assert_eq!(
            shown,
            "Welcome to sayso
  model       qwen2.5-coder · context window 33k tokens
  directory   ~/src/proj
  AGENTS.md   read ./AGENTS.md, ~/.config/sayso/AGENTS.md

Tips
  /help          lists the commands and keys
  @{name} + Tab  adds a tool or group to the chat, Tab completes the name
  --auto, /mode  choose how often sayso asks before it acts
"
        );
    }

    #[test]
    fn skills_and_commands_in_force_are_named_and_the_instructions_follow_the_files() {
        let mut w = Welcome::new(&[], Path::new("/p"), None);
        w.skills = vec!["deploy".into(), "pdf".into()];
        w.commands = vec!["/review".into()];
        w.set_instructions(&["/p/AGENTS.md".into()]);
        let shown = text(&lines(&w, &status(None), &Theme::dark(), 100));
        assert!(
            shown.contains(
                "  AGENTS.md   read ./AGENTS.md\n  skills      deploy, pdf\n  commands    /review\n"
            ),
            "{shown}"
        );
    }

    #[test]
    fn without_instructions_or_a_known_window_it_says_so_and_wraps_when_narrow() {
        let shown = text(&lines(
            &Welcome::default(),
            &status(None),
            &Theme::dark(),
            40,
        ));
        assert!(shown.contains("  model       qwen2.5-coder\n"), "{shown}");
        assert!(
            shown.contains("AGENTS.md   none found (an AGENTS.md\n"),
            "{shown}"
        );
        assert!(shown.lines().all(|l| l.chars().count() <= 40), "{shown}");
    }
}
