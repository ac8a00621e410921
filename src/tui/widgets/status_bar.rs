//! The one-line status bar: model, provider, working directory, mode, tokens, activity.

use std::time::Instant;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::events::Mode;
use crate::tui::app::App;

fn tokens(n: Option<u64>) -> String {
    match n.unwrap_or(0) {
        n if n >= 10_000 => format!("{:.0}k", n as f64 / 1000.0),
        n if n >= 1_000 => format!("{:.1}k", n as f64 / 1000.0),
        n => n.to_string(),
    }
}

pub fn draw(f: &mut Frame, area: Rect, app: &App, now: Instant) {
    let t = &app.theme();
    let mode_style = match app.status().mode {
        Mode::Balanced | Mode::Suggest | Mode::Strict => t.mode_normal,
        Mode::Auto | Mode::Trust => t.mode_auto,
    };
    let mut spans = vec![
        Span::styled(app.mode_label(), mode_style),
        Span::styled(format!(" {} ", app.status().model), t.status_bar),
        Span::styled(format!("· {} ", app.status().provider), t.status_bar),
        Span::styled(format!("· {} ", app.status().cwd), t.status_bar),
        Span::styled(
            format!(
                "· {} in / {} out ",
                tokens(app.status().usage.prompt_tokens),
                tokens(app.status().usage.completion_tokens)
            ),
            t.status_bar,
        ),
    ];
    if let Some((used, window, estimated)) = app.status().context {
        let percent = used * 100 / window.max(1);
        let style = if percent >= 85 {
            t.mode_auto
        } else {
            t.status_bar
        };
        let approx = if estimated { "~" } else { "" };
        spans.push(Span::styled(
            format!("· ctx {approx}{percent}% of {} ", tokens(Some(window))),
            style,
        ));
    }
    if !app.chat().following() {
        spans.push(Span::styled("· scrolled ↑ (End) ", t.status_bar));
    }
    let activity = app.activity_text(now);
    if !activity.is_empty() {
        spans.push(Span::styled(format!("· {activity} "), t.status_bar));
    }
    let used: usize = spans.iter().map(|s| s.width()).sum();
    let fill = (area.width as usize).saturating_sub(used);
    spans.push(Span::styled(" ".repeat(fill), t.status_bar));
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}
