//! `build_cmd` templates (SPEC §4.7): finding the `{name}` / `{name?}` placeholders, checking
//! at load time that each sits where a quoted word is safe, and filling them per call.
//!
//! An argument is inserted as one shell word ([`quote_arg`]), which is only safe where the
//! shell reads a fresh word. So a placeholder is refused (a config error naming the file and
//! line) when it stands:
//!
//! - inside single or double quotes: `'{msg}'` lets `'; touch x; '` close the quote, `"{msg}"`
//!   keeps `$(touch x)` live;
//! - right after `$` (`${x}`, `$'…'` ANSI-C quoting reads `\'` as a quote) or an unquoted
//!   backslash (which would escape the opening quote);
//! - after an unquoted `<<` (a here-document body expands `$(…)` whatever the quoting).
//!
//! And when a call is filled, a value that starts with `-` in a placeholder that starts a word
//! is refused (it would be read as an option: `git log {path}` with `--output=x` writes a
//! file), unless an earlier word of the same command is `--` or the schema marks the argument
//! with `option = true`.

use serde_json::Value;

use crate::tools::policy::command_safety::quote_arg;

/// One `{name}` or `{name?}` in a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placeholder {
    /// Byte range of `{…}` in the template.
    pub start: usize,
    pub end: usize,
    pub key: String,
    pub optional: bool,
}

fn is_key(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Every placeholder, in order. Braces around anything else (`awk '{print $1}'`) are text.
pub fn placeholders(template: &str) -> Vec<Placeholder> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(open) = template[from..].find('{').map(|i| from + i) {
        let Some(close) = template[open..].find('}').map(|c| open + c) else {
            break;
        };
        let inner = &template[open + 1..close];
        let (key, optional) = match inner.strip_suffix('?') {
            Some(k) => (k, true),
            None => (inner, false),
        };
        if is_key(key) {
            out.push(Placeholder {
                start: open,
                end: close + 1,
                key: key.to_owned(),
                optional,
            });
            from = close + 1;
        } else {
            from = open + 1;
        }
    }
    out
}

/// The shell's view of one position of a template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct At {
    quoted: Option<char>,
    heredoc: bool,
    /// The previous character is an unquoted `$` or an unquoted escaping backslash.
    after_dollar_or_escape: bool,
    /// A new word starts here (start, or after unquoted blank or operator).
    word_start: bool,
    /// An earlier word of this simple command is `--`.
    after_double_dash: bool,
}

/// The shell state at each placeholder's start (placeholders are read as plain text, as a
/// quoted argument will be). One entry per placeholder, in order.
fn states(template: &str, marks: &[Placeholder]) -> Vec<At> {
    let chars: Vec<(usize, char)> = template.char_indices().collect();
    let mut by_pos: Vec<(usize, At)> = Vec::with_capacity(chars.len());
    let mut quoted: Option<char> = None;
    let mut heredoc = false;
    let mut after_dollar = false;
    let mut escape_next = false;
    let mut word_start = true;
    let mut word = String::new();
    let mut double_dash = false;
    for (i, &(pos, c)) in chars.iter().enumerate() {
        by_pos.push((
            pos,
            At {
                quoted,
                heredoc,
                after_dollar_or_escape: after_dollar || escape_next,
                word_start,
                after_double_dash: double_dash,
            },
        ));
        let unquoted = quoted.is_none();
        after_dollar = c == '$' && quoted != Some('\'');
        if escape_next {
            escape_next = false;
            word.push(c);
            word_start = false;
            continue;
        }
        match (quoted, c) {
            (Some('\''), '\'') | (Some('"'), '"') => quoted = None,
            (Some('"'), '\\') | (None, '\\') => escape_next = true,
            (Some(_), _) => {}
            (None, '\'' | '"') => quoted = Some(c),
            (None, '<') if chars.get(i + 1).is_some_and(|(_, n)| *n == '<') => heredoc = true,
            _ => {}
        }
        let blank = unquoted && matches!(c, ' ' | '\t' | '\n');
        let separator = unquoted && matches!(c, ';' | '|' | '&' | '\n');
        if blank || separator {
            if word == "--" {
                double_dash = true;
            }
            word.clear();
        } else {
            word.push(c);
        }
        if separator {
            double_dash = false;
        }
        word_start = blank || separator || (unquoted && matches!(c, '(' | '`'));
    }
    marks
        .iter()
        .map(|m| {
            by_pos
                .iter()
                .find(|(p, _)| *p == m.start)
                .map(|(_, at)| *at)
                .unwrap_or(At {
                    quoted: Some('?'),
                    heredoc: false,
                    after_dollar_or_escape: false,
                    word_start: false,
                    after_double_dash: false,
                })
        })
        .collect()
}

/// Checks a template at load time; `Err` says what is wrong with which placeholder.
pub fn validate(template: &str) -> Result<(), String> {
    let marks = placeholders(template);
    for (m, at) in marks.iter().zip(states(template, &marks)) {
        let text = &template[m.start..m.end];
        let problem = if at.quoted.is_some() {
            Some(
                "is inside quotes, where a quoted argument can close the quote or expand `$(…)`; remove the quotes around it — sayso quotes every argument itself",
            )
        } else if at.heredoc {
            Some(
                "comes after a here-document (`<<`), whose body expands `$(…)` whatever the quoting",
            )
        } else if at.after_dollar_or_escape {
            Some("follows `$` or `\\`, which would change how its quoting is read")
        } else {
            None
        };
        if let Some(p) = problem {
            return Err(format!("the placeholder `{text}` {p}"));
        }
    }
    Ok(())
}

fn arg_text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// Fills the placeholders with quoted arguments. `options` are the arguments allowed to start
/// with `-` where a word starts.
pub fn fill(template: &str, args: &Value, options: &[String]) -> Result<String, String> {
    let marks = placeholders(template);
    let at = states(template, &marks);
    let mut out = String::with_capacity(template.len());
    let mut last = 0;
    let mut skip_space = false;
    for (m, at) in marks.iter().zip(at) {
        let mut between = &template[last..m.start];
        if skip_space {
            between = between.strip_prefix(' ').unwrap_or(between);
            skip_space = false;
        }
        out.push_str(between);
        last = m.end;
        match args.get(&m.key).and_then(arg_text) {
            Some(v) => {
                if v.starts_with('-')
                    && at.word_start
                    && !at.after_double_dash
                    && !options.contains(&m.key)
                {
                    return Err(format!(
                        "the `{}` argument `{v}` starts with `-`, so the command would read it as an option; pass a value that does not start with `-` (for a file, write `./{v}`)",
                        m.key
                    ));
                }
                out.push_str(&quote_arg(&v));
            }
            None if m.optional => {
                // Drop the placeholder and one space beside it, so no double spaces remain.
                if out.ends_with(' ') {
                    out.pop();
                } else {
                    skip_space = true;
                }
            }
            None => return Err(format!("the `{}` argument is missing", m.key)),
        }
    }
    let rest = &template[last..];
    out.push_str(if skip_space {
        rest.strip_prefix(' ').unwrap_or(rest)
    } else {
        rest
    });
    Ok(out.trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn placeholders_quote_arguments_and_drop_absent_optionals() {
        let t = "bd {action} {task_id?} {args?}";
        assert_eq!(
            fill(t, &json!({"action": "ready"}), &[]).unwrap(),
            "bd ready"
        );
        assert_eq!(
            fill(
                t,
                &json!({"action": "show", "task_id": "x-1", "args": null}),
                &[]
            )
            .unwrap(),
            "bd show x-1"
        );
        assert_eq!(
            fill(t, &json!({"action": "; rm -rf ~", "args": "$(id)"}), &[]).unwrap(),
            "bd '; rm -rf ~' '$(id)'"
        );
        assert_eq!(fill("echo {n}", &json!({"n": 3}), &[]).unwrap(), "echo 3");
        assert!(fill(t, &json!({}), &[]).unwrap_err().contains("`action`"));
        assert_eq!(
            fill("awk '{print $1}' {f}", &json!({"f": "a b"}), &[]).unwrap(),
            "awk '{print $1}' 'a b'"
        );
        assert_eq!(
            fill("a {x?} b", &json!({}), &[]).unwrap(),
            "a b",
            "one space dropped"
        );
        assert_eq!(fill("{x?} b", &json!({}), &[]).unwrap(), "b");
    }

    #[test]
    fn placeholders_where_a_word_is_not_safe_are_config_errors() {
        for bad in [
            "echo \"{msg}\"",
            "echo '{msg}'",
            "echo \"hello {msg} there\"",
            "echo ${msg}",
            "echo $'{msg}'",
            "echo \\{msg}",
            "cat <<EOF\n{msg}\nEOF",
            "echo ok; echo \"x{msg?}\"",
        ] {
            let e = validate(bad).unwrap_err();
            assert!(e.contains("{msg"), "{bad}: {e}");
        }
        for good in [
            "bd {action} {task_id?} {args?}",
            "git log --format=%H {path}",
            "grep -e {pattern} -- {file}",
            "awk '{print $1}' {file}",
            "echo 'literal' {msg} \"x\"",
            "echo \\\\ {msg}",
            "x=$(echo {msg})",
            "a && b {msg}",
        ] {
            assert_eq!(validate(good), Ok(()), "{good}");
        }
    }

    #[test]
    fn a_value_that_would_be_read_as_an_option_is_refused() {
        let args = json!({"path": "--output=/tmp/x", "fmt": "-x"});
        let e = fill("git log {path}", &args, &[]).unwrap_err();
        assert!(e.contains("starts with `-`"), "{e}");
        assert_eq!(
            fill("git log -- {path}", &args, &[]).unwrap(),
            "git log -- '--output=/tmp/x'"
        );
        assert_eq!(
            fill("git log --format={fmt}", &args, &[]).unwrap(),
            "git log --format=-x"
        );
        assert_eq!(
            fill("ls {fmt}", &args, &["fmt".into()]).unwrap(),
            "ls -x",
            "marked as an option in the schema"
        );
        assert!(
            fill("a -- x; git log {path}", &args, &[]).is_err(),
            "`--` of another command does not count"
        );
        assert_eq!(
            fill("ls {n}", &json!({"n": -3}), &[]).unwrap_err(),
            fill("ls {n}", &json!({"n": "-3"}), &[]).unwrap_err()
        );
    }

    /// What the shell really runs: every injection attempt stays one word.
    #[cfg(unix)]
    #[test]
    fn filled_templates_pass_arguments_to_the_shell_as_one_word() {
        let dir = tempfile::tempdir().unwrap();
        for evil in [
            "$(touch pwned)",
            "'; touch pwned; '",
            "\"; touch pwned; \"",
            "`touch pwned`",
            "a\nb; touch pwned",
            "\\'; touch pwned",
        ] {
            let script = fill("printf '%s' {msg}", &json!({ "msg": evil }), &[]).unwrap();
            let out = std::process::Command::new("sh")
                .args(["-c", &script])
                .current_dir(dir.path())
                .output()
                .unwrap();
            assert_eq!(String::from_utf8_lossy(&out.stdout), evil, "{script}");
            assert!(!dir.path().join("pwned").exists(), "{script}");
        }
    }
}
