//! A project command's `@path` mentions stay inside the project. A mention attaches a file to
//! the message (`crate::attach`) — the user's own typing may name any file they can read, but a
//! command file a cloned repository brings was not typed by the user: `@~/.ssh/id_rsa`, an
//! absolute path, `..`, or a symlink in the project pointing out of it would send a file from
//! outside the project to the model the moment the user runs `/NAME`. [`confine`] leaves such a
//! mention as plain text (the `@` dropped, so nothing is attached; the model can still read
//! the path with `read_file`, under the approvals), and returns which it left.
//!
//! What it does not do: decide anything for the user's own commands (theirs, as if typed), or
//! check what a mention inside the project holds (the attachment's own rules do).

use std::path::Path;

/// `text` with every `@path` mention that does not resolve inside `root` turned into plain
/// text, and the mentions so left (as written, without the `@`).
pub fn confine(text: &str, root: &Path) -> (String, Vec<String>) {
    let root = root.canonicalize().ok();
    let mut out = String::with_capacity(text.len());
    let mut left = Vec::new();
    let mut prev_space = true;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == '@' && prev_space {
            let after = &rest[1..];
            let end = after.find(char::is_whitespace).unwrap_or(after.len());
            let token = &after[..end];
            if !token.is_empty() && !token.starts_with('{') && !inside(token, root.as_deref()) {
                left.push(token.to_owned());
                out.push_str(token);
                rest = &after[end..];
                prev_space = false;
                continue;
            }
        }
        out.push(c);
        prev_space = c.is_whitespace();
        rest = &rest[c.len_utf8()..];
    }
    (out, left)
}

/// Whether the mention `token` (a path, maybe with `:N-M` and trailing punctuation) names a
/// file or directory inside `root`, after `..` and symlinks. A path that names nothing is
/// inside: it attaches nothing either way.
fn inside(token: &str, root: Option<&Path>) -> bool {
    let Some(root) = root else {
        return false;
    };
    let token = token.trim_end_matches(['.', ',', ';', '!', '?', ')', '"', '\'']);
    let path = match token.rsplit_once(':') {
        Some((p, range))
            if !p.is_empty() && range.chars().all(|c| c.is_ascii_digit() || c == '-') =>
        {
            p
        }
        _ => token,
    };
    if path.starts_with('~') {
        return false;
    }
    let joined = root.join(path);
    match joined.canonicalize() {
        Ok(real) => real.starts_with(root),
        // Nothing there: nothing to attach; but a path that climbs out is left all the same.
        Err(_) => !Path::new(path).is_absolute() && !path.split('/').any(|c| c == ".."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_that_leave_the_project_lose_their_at() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        let outside = dir.path().join("secret.txt");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/main.rs"), "fn main() {}\n").unwrap();
        std::fs::write(&outside, "key\n").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
        let outside = outside.display().to_string();
        let rows = [
            (
                "read @src/main.rs:1-2 now",
                "read @src/main.rs:1-2 now",
                vec![],
            ),
            ("see @src/", "see @src/", vec![]),
            (
                "@{files} and @nothing-here",
                "@{files} and @nothing-here",
                vec![],
            ),
            ("a@b.c stays", "a@b.c stays", vec![]),
            ("read @link.", "read link.", vec!["link."]),
            (
                "read @~/.ssh/id_rsa",
                "read ~/.ssh/id_rsa",
                vec!["~/.ssh/id_rsa"],
            ),
            (
                "read @../secret.txt",
                "read ../secret.txt",
                vec!["../secret.txt"],
            ),
            ("read @../gone.txt", "read ../gone.txt", vec!["../gone.txt"]),
        ];
        for (text, want, left) in rows {
            assert_eq!(
                confine(text, &root),
                (
                    want.to_owned(),
                    left.iter().map(|s| s.to_string()).collect::<Vec<_>>()
                ),
                "{text}"
            );
        }
        let abs = format!("read @{outside} please");
        assert_eq!(
            confine(&abs, &root),
            (format!("read {outside} please"), vec![outside.clone()])
        );
    }
}
