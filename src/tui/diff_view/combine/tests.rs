//! Tests of the parent module.

use super::*;
use crate::tools::builtin::create_file::unified_diff;
use crate::tools::builtin::edit_file::diff;
use pretty_assertions::assert_eq;

fn change(kind: ChangeKind, before: &str, after: &str) -> FileChange {
    let d = match kind {
        ChangeKind::Edited => diff("f.txt", before, after).0,
        _ => unified_diff("f.txt", before, after),
    };
    FileChange::new("f.txt", "/w/f.txt", kind, d)
}

#[test]
fn undoing_a_diff_gives_back_the_text_it_was_made_from() {
    let long: String = (1..=40).map(|i| format!("line {i}\n")).collect();
    let cases: &[(&str, &str)] = &[
        ("a\nb\nc\n", "a\nB\nc\n"),
        ("a\nb\nc", "a\nb\nc\nd"),
        ("a\nb\nc\n", "a\nb\nc"),
        ("", "new\nfile\n"),
        ("old\nfile\n", ""),
        ("x", "y"),
        (
            &long,
            &long.replace("line 3\n", "").replace("line 30", "LINE 30"),
        ),
        (&long, &format!("top\n{long}bottom\n")),
    ];
    for (before, after) in cases {
        for d in [diff("f", before, after).0, unified_diff("f", before, after)] {
            assert_eq!(
                unapply(&d, after).as_deref(),
                Some(*before),
                "{before:?} -> {after:?}:\n{d}"
            );
        }
    }
}

#[test]
fn a_diff_does_not_undo_over_text_changed_where_it_applied() {
    let d = diff("f", "a\nb\nc\n", "a\nB\nc\n").0;
    assert_eq!(unapply(&d, "a\nX\nc\n"), None);
    assert_eq!(unapply(&d, "a\n"), None);
    // A line added above moves the hunk off the place its header names.
    assert_eq!(unapply(&d, "new\na\nB\nc\n"), None);
    assert_eq!(unapply("@@ -1 +1 @@\n-a\n", "a\n"), None, "counts off");
}

#[test]
fn two_edits_sum_up_to_one_diff_from_before_the_chat() {
    let v0: String = (1..=20).map(|i| format!("l{i}\n")).collect();
    let v1 = v0.replace("l2\n", "two\n");
    let v2 = v1.replace("l18\n", "eighteen\n");
    let (a, b) = (
        change(ChangeKind::Edited, &v0, &v1),
        change(ChangeKind::Edited, &v1, &v2),
    );
    let sum = combine(&[&a, &b], Now::Text(v2.clone()));
    assert_eq!(sum.title, "f.txt — edited (+2 −2; 2 changes summed up)");
    assert_eq!(sum.note, None);
    assert_eq!(sum.diffs, [(String::new(), diff("f.txt", &v0, &v2).0)]);
}

#[test]
fn a_file_created_then_edited_is_shown_as_created_and_one_deleted_after_as_nothing() {
    let a = change(ChangeKind::Created, "", "one\ntwo\n");
    let b = change(ChangeKind::Edited, "one\ntwo\n", "one\n2\n");
    let sum = combine(&[&a, &b], Now::Text("one\n2\n".into()));
    assert_eq!(sum.title, "f.txt — created (+2; 2 changes summed up)");
    assert_eq!(sum.diffs[0].1, diff("f.txt", "", "one\n2\n").0);
    let c = change(ChangeKind::Deleted, "one\n2\n", "");
    let sum = combine(&[&a, &b, &c], Now::Missing);
    assert_eq!(
        sum.title,
        "f.txt — created and deleted again by 3 changes: nothing left"
    );
    assert!(sum.diffs.is_empty());
}

#[test]
fn a_file_changed_since_where_sayso_edited_it_shows_the_diffs_as_applied() {
    let a = change(ChangeKind::Edited, "a\nb\nc\n", "a\nB\nc\n");
    let b = change(ChangeKind::Edited, "a\nB\nc\n", "a\nB\nC\n");
    let sum = combine(&[&a, &b], Now::Text("a\nB\nsomeone else\n".into()));
    assert_eq!(sum.title, "f.txt — 2 changes, as applied");
    assert_eq!(
        sum.note.as_deref(),
        Some(
            "f.txt was changed since, by something other than sayso's file tools, where sayso changed it"
        )
    );
    assert_eq!(
        sum.diffs,
        [
            ("1. Edited f.txt (+1 −1)".to_owned(), a.diff.clone()),
            ("2. Edited f.txt (+1 −1)".to_owned(), b.diff.clone()),
        ]
    );
    let sum = combine(&[&a, &b], Now::Missing);
    assert_eq!(sum.note.as_deref(), Some("f.txt no longer exists"));
}

#[test]
fn a_crlf_file_is_compared_as_edit_file_diffs_it() {
    let a = change(ChangeKind::Edited, "a\nb\n", "a\nB\n");
    let b = change(ChangeKind::Edited, "a\nB\n", "A\nB\n");
    let sum = combine(&[&a, &b], Now::Text("\u{feff}A\r\nB\r\n".into()));
    assert_eq!(
        sum.diffs,
        [(String::new(), diff("f.txt", "a\nb\n", "A\nB\n").0)]
    );
}

#[test]
fn edits_that_cancel_out_say_so() {
    let a = change(ChangeKind::Edited, "a\n", "b\n");
    let b = change(ChangeKind::Edited, "b\n", "a\n");
    let sum = combine(&[&a, &b], Now::Text("a\n".into()));
    assert_eq!(
        sum.title,
        "f.txt — 2 changes that cancel out: as before the chat"
    );
}
