use std::os::unix::fs::PermissionsExt;

use super::*;

fn loaded(dir: &Path) -> History {
    let (h, error) = History::load(dir);
    assert_eq!(error, None);
    h
}

#[test]
fn entries_survive_a_restart_in_a_0600_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = loaded(dir.path());
    assert!(h.is_empty());
    h.push("first").unwrap();
    h.push("two\nlines").unwrap();
    let file = dir.path().join(FILE_NAME);
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert_eq!(loaded(dir.path()).entries(), ["first", "two\nlines"]);
}

#[test]
fn secrets_are_scrubbed_in_the_file() {
    let secret = "sk-history-test-0123456789abcdef";
    crate::secrets::register(&[crate::secrets::Secret::new("$HIST_KEY", secret)], &[]);
    let dir = tempfile::tempdir().unwrap();
    let mut h = loaded(dir.path());
    h.push(&format!("use {secret} please")).unwrap();
    let text = std::fs::read_to_string(dir.path().join(FILE_NAME)).unwrap();
    assert!(!text.contains(secret), "{text}");
    assert!(text.contains("$HIST_KEY"), "{text}");
}

#[test]
fn duplicates_collapse_and_the_oldest_go_past_the_cap() {
    let mut entries = Vec::new();
    for i in 0..MAX_ENTRIES + 5 {
        add(&mut entries, &format!("m{i}"));
    }
    add(&mut entries, "m10");
    assert_eq!(entries.len(), MAX_ENTRIES);
    assert_eq!(entries.last().unwrap(), "m10");
    assert_eq!(entries.iter().filter(|e| *e == "m10").count(), 1);
    assert_eq!(entries[0], "m5", "the five oldest went");
}

#[test]
fn lines_that_are_not_json_strings_are_skipped() {
    let text = "\"a\"\nnot json\n42\n\n\"b\"\n\"a\"\n";
    assert_eq!(parse(text), ["b", "a"]);
}

#[test]
fn a_symlink_to_a_file_elsewhere_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(outside.path(), "\"outside\"\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join(FILE_NAME)).unwrap();
    let (h, error) = History::load(dir.path());
    assert!(h.is_empty());
    assert!(error.unwrap().contains("was not read"));
}

#[test]
fn search_finds_the_newest_match_first_then_older_ones() {
    let mut h = History::default();
    for e in ["cargo build", "git status", "cargo test", "ls"] {
        h.push(e).unwrap();
    }
    let cases: &[(&str, usize, Option<usize>)] = &[
        ("cargo", 4, Some(2)),
        ("cargo", 2, Some(0)),
        ("cargo", 0, None),
        ("CARGO T", 4, Some(2)),
        ("", 4, Some(3)),
        ("nothing", 4, None),
        ("ls", 99, Some(3)),
    ];
    for &(q, before, want) in cases {
        assert_eq!(h.search(q, before), want, "{q:?} before {before}");
    }
}
