//! Ctrl+G (and Ctrl+X Ctrl+E): the input's text in the user's editor.
//!
//! The editor is `$VISUAL`, else `$EDITOR` (split with shell-words, so `code --wait` works);
//! with neither set, nothing runs and the user is told so. The text goes into a temp file
//! (mode 0600, removed afterwards); the editor runs in the foreground on the real terminal
//! while the TUI is suspended (the event loop in `run.rs` leaves raw mode and the alternate
//! screen around [`edit`], and redraws). What was saved comes back; an editor that exits
//! non-zero or leaves the file empty leaves the input as it was, and says so.
//!
//! It refuses to run the editor through the tool runner: that path has no terminal (a session
//! of its own), and the editor is the user's own program, not a tool call.

use std::io::Write;

/// How the edit ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The input becomes this.
    Edited(String),
    /// The input stays as it was, for this reason (shown to the user).
    Unchanged(String),
}

/// The editor's argv from `$VISUAL` and `$EDITOR` (a blank one counts as unset).
pub fn command(visual: Option<&str>, editor: Option<&str>) -> Result<Vec<String>, String> {
    let (name, value) = [("VISUAL", visual), ("EDITOR", editor)]
        .into_iter()
        .find_map(|(n, v)| v.filter(|v| !v.trim().is_empty()).map(|v| (n, v)))
        .ok_or_else(|| {
            "no editor set: set $VISUAL or $EDITOR (e.g. EDITOR=vim) to edit the input with Ctrl+G"
                .to_owned()
        })?;
    let argv = shell_words::split(value).map_err(|e| format!("${name} ({value:?}): {e}"))?;
    if argv.is_empty() {
        return Err(format!("${name} names no program"));
    }
    Ok(argv)
}

/// The text the editor saved: one trailing newline (editors add it) dropped; `None` when
/// nothing but white space is left.
pub fn taken_back(saved: &str) -> Option<String> {
    let text = saved.strip_suffix('\n').unwrap_or(saved);
    let text = text.strip_suffix('\r').unwrap_or(text);
    (!text.trim().is_empty()).then(|| text.to_owned())
}

/// Edits `text` with `argv` (from [`command`]) on the terminal, which the caller has handed
/// over (raw mode and the alternate screen left).
pub async fn edit(argv: &[String], text: &str) -> Outcome {
    let file = match write_temp(text) {
        Ok(f) => f,
        Err(e) => return Outcome::Unchanged(format!("could not write the temp file: {e}")),
    };
    let Some((program, args)) = argv.split_first() else {
        return Outcome::Unchanged("no editor command".into());
    };
    let status = tokio::process::Command::new(program)
        .args(args)
        .arg(file.path())
        .status()
        .await;
    let label = shell_words::join(argv);
    match status {
        Err(e) => Outcome::Unchanged(format!("could not start the editor `{label}`: {e}")),
        Ok(s) if !s.success() => Outcome::Unchanged(format!(
            "the editor `{label}` exited with {s}: the input is unchanged"
        )),
        // Read by path: many editors save by writing a new file and renaming it over the old.
        Ok(_) => match std::fs::read(file.path()) {
            Err(e) => Outcome::Unchanged(format!("could not read what the editor saved: {e}")),
            Ok(bytes) => match taken_back(&String::from_utf8_lossy(&bytes)) {
                Some(t) => Outcome::Edited(t),
                None => Outcome::Unchanged(
                    "the editor saved an empty file: the input is unchanged".into(),
                ),
            },
        },
    }
    // `file` is removed when dropped here.
}

/// A 0600 temp file holding `text` (a `.md` name, so editors highlight Markdown).
fn write_temp(text: &str) -> std::io::Result<tempfile::NamedTempFile> {
    let mut file = tempfile::Builder::new()
        .prefix("sayso-input-")
        .suffix(".md")
        .tempfile()?;
    file.write_all(text.as_bytes())?;
    file.flush()?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `$VISUAL`, `$EDITOR`, and the argv (`Ok`) or a part of the error.
    type Case<'a> = (
        Option<&'a str>,
        Option<&'a str>,
        Result<&'a [&'a str], &'a str>,
    );

    #[test]
    fn the_editor_command_comes_from_visual_then_editor_split_as_a_shell_would() {
        let cases: &[Case] = &[
            (Some("vim"), Some("nano"), Ok(&["vim"])),
            (None, Some("code --wait"), Ok(&["code", "--wait"])),
            (Some("  "), Some("nano"), Ok(&["nano"])),
            (
                None,
                Some("'/opt/my editor/bin/ed' -n"),
                Ok(&["/opt/my editor/bin/ed", "-n"]),
            ),
            (None, None, Err("no editor set")),
            (None, Some(""), Err("no editor set")),
            (None, Some("vim 'unclosed"), Err("$EDITOR")),
        ];
        for (visual, editor, want) in cases {
            let got = command(*visual, *editor);
            match want {
                Ok(argv) => assert_eq!(got.unwrap(), *argv, "{visual:?} {editor:?}"),
                Err(part) => {
                    let e = got.unwrap_err();
                    assert!(e.contains(part), "{visual:?} {editor:?}: {e}");
                }
            }
        }
    }

    #[test]
    fn what_was_saved_comes_back_without_the_trailing_newline() {
        let cases = [
            ("hello\n", Some("hello")),
            ("two\nlines\n", Some("two\nlines")),
            ("keep\n\n", Some("keep\n")),
            ("crlf\r\n", Some("crlf")),
            ("", None),
            ("  \n\n", None),
        ];
        for (saved, want) in cases {
            assert_eq!(taken_back(saved).as_deref(), want, "{saved:?}");
        }
    }

    #[tokio::test]
    async fn a_real_editor_rewrites_the_file_in_a_0600_temp_file_that_is_removed() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let seen = dir.path().join("seen");
        let script = dir.path().join("ed.sh");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\nstat -c %a \"$1\" > {seen}\necho \"$1\" >> {seen}\ncat \"$1\" >> {seen}\nprintf 'new text\\n' > \"$1\"\n",
                seen = seen.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let argv = vec![script.display().to_string()];
        assert_eq!(edit(&argv, "old").await, Outcome::Edited("new text".into()));
        let seen = std::fs::read_to_string(&seen).unwrap();
        let mut lines = seen.lines();
        assert_eq!(lines.next(), Some("600"));
        let path = lines.next().unwrap();
        assert!(
            !std::path::Path::new(path).exists(),
            "the temp file is removed"
        );
        assert_eq!(lines.next(), Some("old"));
    }

    #[tokio::test]
    async fn an_editor_that_fails_or_saves_nothing_leaves_the_input() {
        let fails = vec!["false".to_owned()];
        let Outcome::Unchanged(why) = edit(&fails, "x").await else {
            panic!("unchanged")
        };
        assert!(why.contains("exited with"), "{why}");
        let empties = vec!["sh".into(), "-c".into(), ": > \"$1\"".into(), "sh".into()];
        let Outcome::Unchanged(why) = edit(&empties, "x").await else {
            panic!("unchanged")
        };
        assert!(why.contains("empty"), "{why}");
    }
}
