//! The first-run picker: no endpoint is configured, but model servers answer on this machine.
//! One row per (server, model); Enter chats with the selected one for this run, Esc/q quits.
//!
//! A screen of its own, shown before the chat's TUI starts and gone before it opens: it enters
//! and restores the terminal itself (on Enter, Esc, a signal, or an error). [`ServerPicker`]
//! holds the state and decides what a key does; [`draw`] only reads it. Nothing is sent to a
//! server from here: the caller starts the chat with what was picked.

use std::io::stdout;

use crossterm::event::{Event, EventStream, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use futures_util::StreamExt;
use ratatui::backend::CrosstermBackend;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Padding, Paragraph};
use ratatui::{Frame, Terminal};

use super::strings;
use super::terminal::{self, Guard};
use super::theme::Theme;
use crate::provider::discover::LocalServer;
use crate::signals::Signals;

/// One line of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Row {
    /// A model of `servers[server]`: can be chosen.
    Model { server: usize, model: String },
    /// A server that lists no model: shown, not chosen.
    Empty { server: usize },
}

/// What a key decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Picked {
    /// Chat with `model` on `servers[server]`.
    Use {
        server: usize,
        model: String,
    },
    Quit,
}

pub struct ServerPicker {
    rows: Vec<Row>,
    /// Index into `rows`; always a `Row::Model` when there is one.
    selected: usize,
}

impl ServerPicker {
    pub fn new(servers: &[LocalServer]) -> Self {
        let rows: Vec<Row> = servers
            .iter()
            .enumerate()
            .flat_map(|(server, s)| {
                if s.models.is_empty() {
                    vec![Row::Empty { server }]
                } else {
                    s.models
                        .iter()
                        .map(|m| Row::Model {
                            server,
                            model: m.clone(),
                        })
                        .collect()
                }
            })
            .collect();
        let selected = rows
            .iter()
            .position(|r| matches!(r, Row::Model { .. }))
            .unwrap_or(0);
        Self { rows, selected }
    }

    /// Whether anything can be chosen.
    pub fn has_choice(&self) -> bool {
        self.rows.iter().any(|r| matches!(r, Row::Model { .. }))
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> Option<Picked> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('c' | 'd') if ctrl => return Some(Picked::Quit),
            KeyCode::Esc | KeyCode::Char('q') => return Some(Picked::Quit),
            KeyCode::Up | KeyCode::Char('k') => self.step(-1),
            KeyCode::Down | KeyCode::Char('j') => self.step(1),
            KeyCode::Home => {
                if let Some(i) = (0..self.rows.len()).find(|i| self.choosable(*i)) {
                    self.selected = i;
                }
            }
            KeyCode::End => {
                if let Some(i) = (0..self.rows.len()).rev().find(|i| self.choosable(*i)) {
                    self.selected = i;
                }
            }
            KeyCode::Enter => {
                if let Some(Row::Model { server, model }) = self.rows.get(self.selected) {
                    return Some(Picked::Use {
                        server: *server,
                        model: model.clone(),
                    });
                }
            }
            _ => {}
        }
        None
    }

    fn choosable(&self, i: usize) -> bool {
        matches!(self.rows.get(i), Some(Row::Model { .. }))
    }

    /// Moves one row up (`-1`) or down (`1`) to the next choosable row; stays put when there
    /// is none that way.
    fn step(&mut self, delta: isize) {
        let mut i = self.selected;
        while let Some(n) = i.checked_add_signed(delta).filter(|n| *n < self.rows.len()) {
            if self.choosable(n) {
                self.selected = n;
                return;
            }
            i = n;
        }
    }

    /// The selected (server, model), if any.
    pub fn selected(&self) -> Option<(usize, &str)> {
        match self.rows.get(self.selected) {
            Some(Row::Model { server, model }) => Some((*server, model)),
            _ => None,
        }
    }
}

/// Draws the picker in the middle of the screen.
pub fn draw(f: &mut Frame, picker: &ServerPicker, servers: &[LocalServer], t: &Theme) {
    let screen = f.area();
    let width = screen.width.saturating_sub(4).min(96);
    let height = (picker.rows.len() as u16 + 6).min(screen.height);
    let [_, mid, _] = Layout::vertical([
        Constraint::Fill(1),
        Constraint::Length(height),
        Constraint::Fill(1),
    ])
    .areas(screen);
    let rect = Rect {
        x: screen.x + (screen.width.saturating_sub(width)) / 2,
        width,
        ..mid
    };
    f.render_widget(Clear, rect);
    let block = Block::default()
        .borders(Borders::ALL)
        .padding(Padding::horizontal(1))
        .border_style(t.modal_border)
        .title(Span::styled(strings::LOCAL_PICKER_TITLE, t.modal_title));
    let inner = block.inner(rect);
    f.render_widget(block, rect);
    let [intro, list, keys] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Fill(1),
        Constraint::Length(1),
    ])
    .areas(inner);
    f.render_widget(
        Paragraph::new(Line::from(Span::styled(strings::LOCAL_PICKER_INTRO, t.dim))),
        intro,
    );
    let kind_w = servers
        .iter()
        .map(|s| s.kind.name().len())
        .max()
        .unwrap_or(0);
    let url_w = servers.iter().map(|s| s.base_url.len()).max().unwrap_or(0);
    let first = picker
        .selected
        .saturating_sub((list.height as usize).saturating_sub(1));
    let lines: Vec<Line<'static>> = picker
        .rows
        .iter()
        .enumerate()
        .skip(first)
        .take(list.height as usize)
        .map(|(i, row)| {
            let (server, model, style) = match row {
                Row::Model { server, model } if i == picker.selected => {
                    (*server, model.clone(), t.choice_selected)
                }
                Row::Model { server, model } => (*server, model.clone(), t.text),
                Row::Empty { server } => (*server, strings::LOCAL_PICKER_NO_MODELS.into(), t.dim),
            };
            let s = servers.get(server);
            let marker = if i == picker.selected { "▸ " } else { "  " };
            let text = format!(
                "{marker}{:kind_w$}  {:url_w$}  {model}",
                s.map_or("", |s| s.kind.name()),
                s.map_or("", |s| s.base_url.as_str()),
            );
            Line::from(Span::styled(
                crate::text_cut::head_chars(&text, list.width as usize).to_owned(),
                style,
            ))
        })
        .collect();
    f.render_widget(Paragraph::new(lines), list);
    f.render_widget(
        Paragraph::new(Line::from(Span::styled(
            strings::LOCAL_PICKER_KEYS,
            t.footer,
        ))),
        keys,
    );
    if !t.colour {
        super::theme::strip_colours(f.buffer_mut());
    }
}

/// Shows the picker until the user chooses or leaves: `Ok(Some((server, model)))` to chat with
/// it, `Ok(None)` when they quit (Esc, q, Ctrl+C, a signal).
pub async fn pick(
    servers: &[LocalServer],
    theme: &Theme,
) -> std::io::Result<Option<(usize, String)>> {
    let mut picker = ServerPicker::new(servers);
    if !picker.has_choice() {
        return Ok(None);
    }
    terminal::enter(false)?;
    let _guard = Guard;
    let mut term = Terminal::new(CrosstermBackend::new(stdout()))?;
    let mut events = EventStream::new();
    let mut signals = Signals::new();
    loop {
        term.draw(|f| draw(f, &picker, servers, theme))?;
        let event = tokio::select! {
            e = events.next() => e,
            () = signals.recv() => return Ok(None),
        };
        match event {
            Some(Ok(Event::Key(k))) if k.kind != KeyEventKind::Release => {
                match picker.handle_key(k) {
                    Some(Picked::Use { server, model }) => return Ok(Some((server, model))),
                    Some(Picked::Quit) => return Ok(None),
                    None => {}
                }
            }
            Some(Ok(_)) => {}
            Some(Err(e)) => return Err(e),
            None => return Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use crossterm::event::{KeyEvent, KeyModifiers};
    use pretty_assertions::assert_eq;
    use ratatui::backend::TestBackend;

    use super::*;
    use crate::provider::discover::ServerKind;

    fn servers() -> Vec<LocalServer> {
        vec![
            LocalServer {
                kind: ServerKind::LlamaCpp,
                base_url: "http://127.0.0.1:8080/v1".into(),
                models: vec!["tiny".into()],
            },
            LocalServer {
                kind: ServerKind::LmStudio,
                base_url: "http://127.0.0.1:1234/v1".into(),
                models: vec![],
            },
            LocalServer {
                kind: ServerKind::Ollama,
                base_url: "http://127.0.0.1:11434/v1".into(),
                models: vec!["qwen3:8b".into(), "llama3.2".into()],
            },
        ]
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn enter_picks_the_selected_model_and_moves_skip_servers_without_models() {
        let mut p = ServerPicker::new(&servers());
        assert_eq!(p.selected(), Some((0, "tiny")));
        assert_eq!(p.handle_key(key(KeyCode::Down)), None);
        assert_eq!(
            p.selected(),
            Some((2, "qwen3:8b")),
            "LM Studio has no model"
        );
        assert_eq!(p.handle_key(key(KeyCode::Char('j'))), None);
        assert_eq!(p.selected(), Some((2, "llama3.2")));
        assert_eq!(p.handle_key(key(KeyCode::Down)), None);
        assert_eq!(p.selected(), Some((2, "llama3.2")), "stays on the last");
        p.handle_key(key(KeyCode::Up));
        p.handle_key(key(KeyCode::Char('k')));
        assert_eq!(p.selected(), Some((0, "tiny")));
        p.handle_key(key(KeyCode::End));
        assert_eq!(
            p.handle_key(key(KeyCode::Enter)),
            Some(Picked::Use {
                server: 2,
                model: "llama3.2".into()
            })
        );
        p.handle_key(key(KeyCode::Home));
        assert_eq!(p.selected(), Some((0, "tiny")));
    }

    #[test]
    fn esc_q_and_ctrl_c_quit() {
        let mut p = ServerPicker::new(&servers());
        assert_eq!(p.handle_key(key(KeyCode::Esc)), Some(Picked::Quit));
        assert_eq!(p.handle_key(key(KeyCode::Char('q'))), Some(Picked::Quit));
        assert_eq!(
            p.handle_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(Picked::Quit)
        );
        assert_eq!(p.handle_key(key(KeyCode::Char('x'))), None);
    }

    #[test]
    fn servers_without_models_offer_nothing_to_choose() {
        let only_empty = vec![servers().remove(1)];
        let mut p = ServerPicker::new(&only_empty);
        assert!(!p.has_choice());
        assert_eq!(p.selected(), None);
        assert_eq!(p.handle_key(key(KeyCode::Enter)), None);
        assert_eq!(p.handle_key(key(KeyCode::Down)), None);
    }

    #[test]
    fn draws_every_server_and_model_with_the_keys() {
        let servers = servers();
        let picker = ServerPicker::new(&servers);
        let mut term = Terminal::new(TestBackend::new(90, 14)).expect("test terminal");
        let theme = Theme::named("dark", None);
        term.draw(|f| draw(f, &picker, &servers, &theme))
            .expect("draw");
        let screen: String = term
            .backend()
            .buffer()
            .content()
            .chunks(90)
            .map(|row| row.iter().map(|c| c.symbol()).collect::<String>() + "\n")
            .collect();
        for text in [
            "▸ llama.cpp  http://127.0.0.1:8080/v1   tiny",
            "  LM Studio  http://127.0.0.1:1234/v1   (no models loaded)",
            "  Ollama     http://127.0.0.1:11434/v1  qwen3:8b",
            "  Ollama     http://127.0.0.1:11434/v1  llama3.2",
            "Enter",
            "Esc",
        ] {
            assert!(screen.contains(text), "{text:?} missing:\n{screen}");
        }
    }
}
