//! The unified diff of what a plan will write, as `git diff` shows it: `--- a/path`,
//! `+++ b/path`, hunks; a created or deleted file against `/dev/null`; a mode change as
//! `old mode`/`new mode`; a link as its target; a binary file (a NUL, or not UTF-8) as one line.
//! Pure: the caller hands over the bytes of each side.

use similar::TextDiff;

use super::image::Image;
use super::plan::UndoPlan;

/// The text of an image: `Some(bytes)` for a file or a link (its target), `None` when missing.
pub type Side = Option<Vec<u8>>;

fn octal(i: &Image) -> Option<String> {
    match i {
        Image::File { mode, .. } => Some(format!("100{:o}", mode & 0o777)),
        Image::Symlink { .. } => Some("120000".into()),
        _ => None,
    }
}

/// One path's diff from `old` to `new`.
pub fn file_diff(path: &str, from: &Image, old: &Side, to: &Image, new: &Side) -> String {
    let mut out = format!("diff --sayso a/{path} b/{path}\n");
    match (octal(from), octal(to)) {
        (Some(a), Some(b)) if a != b => out.push_str(&format!("old mode {a}\nnew mode {b}\n")),
        (None, Some(b)) => out.push_str(&format!("new file mode {b}\n")),
        (Some(a), None) => out.push_str(&format!("deleted file mode {a}\n")),
        _ => {}
    }
    let text = |s: &Side| match s {
        None => Some(String::new()),
        Some(b) if b.contains(&0) => None,
        Some(b) => String::from_utf8(b.clone()).ok(),
    };
    let (a_name, b_name) = (
        if old.is_some() {
            format!("a/{path}")
        } else {
            "/dev/null".into()
        },
        if new.is_some() {
            format!("b/{path}")
        } else {
            "/dev/null".into()
        },
    );
    match (text(old), text(new)) {
        (Some(a), Some(b)) => {
            if a != b {
                let diff = TextDiff::from_lines(&a, &b);
                out.push_str(&diff.unified_diff().header(&a_name, &b_name).to_string());
            }
        }
        _ => out.push_str(&format!("Binary files {a_name} and {b_name} differ\n")),
    }
    out
}

/// The whole plan's diff; `bytes(path, image, is_current)` gives each side's content.
pub fn plan_diff(plan: &UndoPlan, bytes: impl Fn(&str, &Image, bool) -> Side) -> String {
    plan.restores
        .iter()
        .map(|r| {
            let old = bytes(&r.path, &r.current, true);
            let new = bytes(&r.path, &r.target, false);
            file_diff(&r.path, &r.current, &old, &r.target, &new)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::object::ObjectId;

    fn f(mode: u32) -> Image {
        Image::File {
            hash: ObjectId::of(b""),
            mode,
            len: 0,
            hash_only: false,
        }
    }

    #[test]
    fn diffs_read_like_git() {
        let d = file_diff(
            "a.txt",
            &f(0o644),
            &Some(b"one\ntwo\n".to_vec()),
            &f(0o644),
            &Some(b"one\n".to_vec()),
        );
        assert!(d.contains("--- a/a.txt\n+++ b/a.txt\n"), "{d}");
        assert!(d.contains("-two\n"), "{d}");
        let created = file_diff(
            "n",
            &Image::Missing,
            &None,
            &f(0o755),
            &Some(b"x\n".to_vec()),
        );
        assert!(
            created.contains("new file mode 100755") && created.contains("--- /dev/null"),
            "{created}"
        );
        let chmod = file_diff(
            "s",
            &f(0o755),
            &Some(b"x".to_vec()),
            &f(0o644),
            &Some(b"x".to_vec()),
        );
        assert!(
            chmod.contains("old mode 100755\nnew mode 100644\n"),
            "{chmod}"
        );
        let bin = file_diff(
            "b",
            &f(0o644),
            &Some(vec![0, 1]),
            &f(0o644),
            &Some(vec![0, 2]),
        );
        assert!(bin.contains("Binary files a/b and b/b differ"), "{bin}");
    }
}
