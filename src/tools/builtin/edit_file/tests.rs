//! Tests of the parent module.

use super::*;
use crate::provider::ToolCall;
use crate::tools::context::ToolContext;
use pretty_assertions::assert_eq;
use std::fs;
use std::path::Path;

fn inv_in(cwd: &Path, ctx: &Arc<ToolContext>, args: Value) -> Invocation {
    Invocation {
        name: "edit_file".into(),
        function_call: ToolCall {
            id: "call_1".into(),
            name: "edit_file".into(),
            arguments: args.to_string(),
        },
        args,
        opts: EditFile.default_opts(),
        cwd: cwd.to_path_buf(),
        ctx: ctx.clone(),
    }
}

fn args(path: &str, edits: Value) -> Value {
    json!({"filepath": path, "edits": edits, "explanation": null})
}

fn one(old: &str, new: &str) -> Value {
    json!([{"oldText": old, "newText": new, "replaceAll": null}])
}

/// A temp project holding `f.txt` with `content`.
fn project(content: &[u8]) -> (tempfile::TempDir, Arc<ToolContext>) {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.txt"), content).unwrap();
    (dir, Arc::new(ToolContext::default()))
}

fn edit(content: &str, edits: &[Edit]) -> String {
    edit_text(content, edits)
        .unwrap_or_else(|e| panic!("{e}"))
        .output()
        .to_owned()
}

#[test]
fn fixtures_in_many_languages_edit_to_the_exact_expected_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/edit");
    let mut cases: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    assert!(cases.len() >= 12, "{cases:?}");
    let mut seen = std::collections::BTreeSet::new();
    for case in cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let spec: Value =
            serde_json::from_str(&fs::read_to_string(case.join("edits.json")).unwrap()).unwrap();
        let find = |stem: &str| {
            fs::read_dir(&case)
                .unwrap()
                .map(|e| e.unwrap().path())
                .find(|p| p.file_stem().is_some_and(|s| s == stem))
                .unwrap_or_else(|| panic!("{name}: no {stem}.*"))
        };
        let (before, after) = (find("before"), find("after"));
        let file = format!("file.{}", before.extension().unwrap().to_string_lossy());
        let dir = tempfile::tempdir().unwrap();
        fs::copy(&before, dir.path().join(&file)).unwrap();
        let ctx = Arc::new(ToolContext::default());
        let a = args(&file, spec["edits"].clone());
        // The strategies each edit was matched with.
        let parsed = parse_args(&a).unwrap();
        let planned = edit_text(fs::read_to_string(&before).unwrap(), &parsed.edits)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let got: Vec<&str> = planned.applied.iter().map(|a| a.strategy.name()).collect();
        let want: Vec<&str> = spec["strategies"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap())
            .collect();
        assert_eq!(got, want, "{name}: strategies");
        seen.extend(got.iter().map(|s| s.to_string()));
        // The tool writes exactly the expected bytes.
        run(&inv_in(dir.path(), &ctx, a)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            fs::read_to_string(dir.path().join(&file)).unwrap(),
            fs::read_to_string(&after).unwrap(),
            "{name}: resulting file"
        );
    }
    let all: std::collections::BTreeSet<String> = [
        "exact",
        "whitespace-normalised",
        "indentation-tolerant",
        "block anchor",
    ]
    .map(String::from)
    .into();
    assert_eq!(seen, all, "every strategy has a fixture");
}

#[test]
fn a_final_newline_is_kept_when_an_edit_removes_it() {
    assert_eq!(edit("a\nb\n", &[Edit::new("b\n", "c")]), "a\nc\n");
}

#[test]
fn a_final_newline_stays_when_the_last_line_is_edited() {
    assert_eq!(edit("a\nb\n", &[Edit::new("b", "c")]), "a\nc\n");
}

#[test]
fn a_file_without_final_newline_does_not_gain_one() {
    assert_eq!(edit("a\nb", &[Edit::new("b", "c\n")]), "a\nc");
}

#[test]
fn a_file_without_final_newline_stays_so_when_edited_elsewhere() {
    assert_eq!(edit("a\nb", &[Edit::new("a", "z\ny")]), "z\ny\nb");
}

#[test]
fn crlf_files_stay_crlf_and_crlf_in_edits_is_accepted() {
    assert_eq!(
        edit("a\r\nb\r\n", &[Edit::new("b\r\n", "c\r\nd\n")]),
        "a\r\nc\r\nd\r\n"
    );
    let t = edit_text("x\r\ny\r\n", &[Edit::new("y", "z")]).unwrap();
    assert_eq!((t.before.as_str(), t.after.as_str()), ("x\ny\n", "x\nz\n"));
}

#[test]
fn mixed_line_endings_are_left_as_they_are() {
    assert_eq!(
        edit("a\r\nb\nc\r\n", &[Edit::new("b", "B")]),
        "a\r\nB\nc\r\n"
    );
}

#[test]
fn a_byte_order_mark_is_kept() {
    assert_eq!(
        edit("\u{feff}first\nsecond\n", &[Edit::new("first", "1st")]),
        "\u{feff}1st\nsecond\n"
    );
}

#[test]
fn edits_that_change_nothing_are_an_error() {
    let e = edit_text("a\n", &[Edit::new("a", "a")]).unwrap_err();
    assert!(e.contains("unchanged"), "{e}");
}

#[test]
fn the_tool_reports_a_summary_and_the_diff() {
    let (dir, ctx) = project(b"one\ntwo\nthree\n");
    let applied = run(&inv_in(
        dir.path(),
        &ctx,
        args("f.txt", one("two", "2\n2b")),
    ))
    .unwrap();
    let content = applied.content.clone();
    assert_eq!(applied.display.as_deref(), Some("Edited f.txt (+2 −1)"));
    assert_eq!(
        content,
        "Edited f.txt (+2 −1):\n- edits[0]: exact match at line 2\n````diff\n--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+2\n+2b\n three\n````"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        "one\n2\n2b\nthree\n"
    );
    let change = applied.change.clone().unwrap();
    assert_eq!(
        (
            change.kind,
            change.path.as_str(),
            change.added,
            change.removed
        ),
        (ChangeKind::Edited, "f.txt", 2, 1)
    );
    assert_eq!(
        change.diff,
        "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+2\n+2b\n three\n"
    );
    let CmdResult::Success(data) = CmdResult::ok(applied) else {
        panic!("an error");
    };
    let mut out = ToolOutput::default();
    EditFile.on_success(&inv_in(dir.path(), &ctx, json!({})), &mut out, &[data]);
    assert_eq!(out.display().as_deref(), Some("Edited f.txt (+2 −1)"));
    assert_eq!(out.content(), content);
    assert_eq!(out.changes(), [change]);
}

#[test]
fn fuzzy_matches_are_described_to_the_model() {
    let (dir, ctx) = project(b"fn f() {\n    a();\n    b();\n}\n");
    let (_, content) = run(&inv_in(
        dir.path(),
        &ctx,
        args(
            "f.txt",
            json!([
                {"oldText": "a();\nb();", "newText": "a();\nc();", "replaceAll": null},
                {"oldText": "x", "newText": "y", "replaceAll": true}
            ]),
        ),
    ))
    .unwrap_err()
    .split_once('\n')
    .map(|(a, b)| (a.to_owned(), b.to_owned()))
    .unwrap();
    assert!(
        content.contains("No changes were made to the file."),
        "{content}"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        "fn f() {\n    a();\n    b();\n}\n"
    );
    let content = run(&inv_in(
        dir.path(),
        &ctx,
        args("f.txt", one("a();\nb();", "a();\nc();")),
    ))
    .unwrap()
    .content;
    assert!(
            content.starts_with("Edited f.txt (+1 −1):\n- edits[0]: indentation-tolerant match at line 2; newText re-indented to the file's indentation\n"),
            "{content}"
        );
}

#[test]
fn an_ambiguous_edit_is_refused_with_guidance_and_the_file_is_untouched() {
    let (dir, ctx) = project(b"x = 1\ny = 2\nx = 1\n");
    let e = run(&inv_in(
        dir.path(),
        &ctx,
        args("f.txt", one("x = 1", "x = 3")),
    ))
    .unwrap_err();
    assert_eq!(
        e,
        "Could not edit `f.txt`: edits[0] (oldText beginning `x = 1`) failed: oldText matches 2 places in the file (exact match):\n  - line 1: x = 1\n  - line 3: x = 1\nInclude more surrounding lines in oldText so that it matches exactly one place, or set replaceAll: true to change every occurrence.\nNo changes were made to the file."
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        "x = 1\ny = 2\nx = 1\n"
    );
}

#[test]
fn a_missing_file_points_to_create_file() {
    let (dir, ctx) = project(b"");
    let e = run(&inv_in(dir.path(), &ctx, args("nope.rs", one("a", "b")))).unwrap_err();
    assert_eq!(
        e,
        "`nope.rs` does not exist; use create_file to create a new file"
    );
    let e = run(&inv_in(dir.path(), &ctx, args(".", one("a", "b")))).unwrap_err();
    assert!(e.ends_with("is a directory, not a file"), "{e}");
}

#[test]
fn an_empty_file_can_be_filled_with_an_empty_old_text() {
    let (dir, ctx) = project(b"");
    run(&inv_in(dir.path(), &ctx, args("f.txt", one("", "hello\n")))).unwrap();
    assert_eq!(
        fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        "hello\n"
    );
}

#[test]
fn invalid_utf8_is_refused_and_the_file_left_untouched() {
    let bytes = b"caf\xe9 au lait\n";
    let (dir, ctx) = project(bytes);
    let e = run(&inv_in(
        dir.path(),
        &ctx,
        args("f.txt", one("lait", "miel")),
    ))
    .unwrap_err();
    assert_eq!(
        e,
        "`f.txt` is not valid UTF-8 text (invalid bytes at offset 3); edit_file only edits UTF-8 text files, so it left the file untouched"
    );
    assert_eq!(fs::read(dir.path().join("f.txt")).unwrap(), bytes);
}

#[test]
fn a_file_changed_since_the_model_read_it_is_refused_until_read_again() {
    let (dir, ctx) = project(b"alpha\nbeta\n");
    let path = dir.path().join("f.txt");
    // The model reads the file through read_file, which records it in the ledger.
    let read = inv_in(
        dir.path(),
        &ctx,
        json!({"filepath": "f.txt", "start_line": null, "end_line": null}),
    );
    super::super::read_file::read(&read).unwrap();
    fs::write(&path, "alpha\nbeta\ngamma\n").unwrap();
    let e = run(&inv_in(
        dir.path(),
        &ctx,
        args("f.txt", one("beta", "BETA")),
    ))
    .unwrap_err();
    assert!(e.contains("changed since you last read it"), "{e}");
    assert_eq!(
        e,
        "`f.txt` changed since you last read it (someone else edited it): read it again with read_file, then retry your edit. No changes were made to the file."
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "alpha\nbeta\ngamma\n");
    // The preview says the same.
    let p = EditFile.preview(&inv_in(
        dir.path(),
        &ctx,
        args("f.txt", one("beta", "BETA")),
    ));
    assert!(
        matches!(&p, Some(Preview::Text(t)) if t.contains("changed since")),
        "{p:?}"
    );
    super::super::read_file::read(&read).unwrap();
    run(&inv_in(
        dir.path(),
        &ctx,
        args("f.txt", one("beta", "BETA")),
    ))
    .unwrap();
    // The tool's own write is recorded: a second edit needs no new read.
    run(&inv_in(
        dir.path(),
        &ctx,
        args("f.txt", one("gamma", "GAMMA")),
    ))
    .unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "alpha\nBETA\nGAMMA\n");
}

#[cfg(unix)]
#[test]
fn permissions_are_preserved() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, ctx) = project(b"#!/bin/sh\necho hi\n");
    let path = dir.path().join("f.txt");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o750)).unwrap();
    run(&inv_in(dir.path(), &ctx, args("f.txt", one("hi", "bye")))).unwrap();
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o750
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "#!/bin/sh\necho bye\n");
    // No temporary file is left behind.
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[cfg(unix)]
#[test]
fn symlinks_and_hard_links_keep_pointing_at_the_edited_content() {
    let (dir, ctx) = project(b"v1\n");
    let path = dir.path().join("f.txt");
    std::os::unix::fs::symlink(&path, dir.path().join("link.txt")).unwrap();
    fs::hard_link(&path, dir.path().join("hard.txt")).unwrap();
    run(&inv_in(dir.path(), &ctx, args("link.txt", one("v1", "v2")))).unwrap();
    assert!(
        fs::symlink_metadata(dir.path().join("link.txt"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "v2\n");
    assert_eq!(
        fs::read_to_string(dir.path().join("hard.txt")).unwrap(),
        "v2\n"
    );
}

/// The diff of the whole texts, as similar makes it.
fn full_diff(before: &str, after: &str) -> String {
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(CONTEXT)
        .header("a/f", "b/f")
        .to_string()
}

/// `before` patched with the unified `diff`.
fn patch(before: &str, diff: &str) -> String {
    let old: Vec<&str> = before.split_inclusive('\n').collect();
    let lines: Vec<&str> = diff.split_inclusive('\n').skip(2).collect();
    let mut out = String::new();
    let mut at = 0; // next line of `old` to copy
    let mut i = 0;
    while i < lines.len() {
        let h = lines[i].trim_end();
        assert!(h.starts_with("@@ -"), "{h:?} in {diff}");
        let range = h[4..].split(' ').next().unwrap();
        let (start, len) = range.split_once(',').unwrap_or((range, "1"));
        let (start, len): (usize, usize) = (start.parse().unwrap(), len.parse().unwrap());
        let first = if len == 0 { start } else { start - 1 };
        while at < first {
            out.push_str(old[at]);
            at += 1;
        }
        i += 1;
        while i < lines.len() && !lines[i].starts_with("@@") {
            let (tag, mut text) = lines[i].split_at(1);
            let no_nl = lines.get(i + 1).is_some_and(|l| l.starts_with('\\'));
            if no_nl {
                text = text.strip_suffix('\n').unwrap();
            }
            match tag {
                " " | "-" => {
                    assert_eq!(old[at], text, "context/removed line {at} in {diff}");
                    if tag == " " {
                        out.push_str(text);
                    }
                    at += 1;
                }
                "+" => out.push_str(text),
                other => panic!("{other:?} in {diff}"),
            }
            i += if no_nl { 2 } else { 1 };
        }
    }
    for l in &old[at..] {
        out.push_str(l);
    }
    out
}

#[test]
fn the_windowed_diff_equals_the_full_diff() {
    let base: String = (1..=40).map(|i| format!("line {i}\n")).collect();
    let mut cases: Vec<(String, String)> = vec![
        (base.clone(), base.replace("line 20\n", "line twenty\n")),
        (base.clone(), base.replace("line 1\n", "")),
        (base.clone(), format!("{base}appended\n")),
        (base.clone(), base.trim_end().to_owned()),
        (
            base.clone(),
            base.replace("line 3\n", "x\n").replace("line 38\n", "y\n"),
        ),
        (
            base.clone(),
            base.replace("line 10\n", "line 10\nline 10\n"),
        ),
        (
            base.clone(),
            base.replace("line 5\n", "line 5 \n")
                .replace("line 13\n", ""),
        ),
        ("a\nb".into(), "a\nc".into()),
        ("".into(), "new\n".into()),
        ("x\n".into(), "".into()),
        ("same\nsame\nsame\n".into(), "same\nsame\n".into()),
    ];
    // Pseudo-random line edits of a text with repeated lines.
    let mut seed = 7u64;
    let mut rnd = |n: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    for _ in 0..300 {
        let mut lines: Vec<String> = (0..30).map(|i| format!("l{}", i % 7)).collect();
        let before = lines.join("\n") + "\n";
        for _ in 0..1 + rnd(3) {
            let at = rnd(lines.len());
            match rnd(3) {
                0 => lines[at] = format!("changed {}", rnd(5)),
                1 => {
                    lines.remove(at);
                }
                _ => lines.insert(at, format!("l{}", rnd(7))),
            }
        }
        let mut after = lines.join("\n");
        if rnd(4) > 0 {
            after.push('\n');
        }
        cases.push((before, after));
    }
    for (n, (before, after)) in cases.into_iter().enumerate() {
        let (got, added, removed) = diff("f", &before, &after);
        if n < 11 {
            // Distinct lines: one right diff.
            assert_eq!(got, full_diff(&before, &after), "{before:?} → {after:?}");
        } else {
            // Repeated lines: Myers may align an insertion differently in the window, but
            // the diff must apply and be as small.
            assert_eq!(patch(&before, &got), after, "{got}");
        }
        assert_eq!(patch(&before, &full_diff(&before, &after)), after);
        let full = similar::TextDiff::from_lines(before.as_str(), after.as_str());
        let count = |tag| full.iter_all_changes().filter(|c| c.tag() == tag).count();
        assert_eq!(
            (added, removed),
            (
                count(similar::ChangeTag::Insert),
                count(similar::ChangeTag::Delete)
            )
        );
    }
}

#[test]
fn the_preview_is_the_diff_or_the_reason_it_would_fail() {
    let (dir, ctx) = project(b"a\nb\n");
    let p = EditFile.preview(&inv_in(dir.path(), &ctx, args("f.txt", one("b", "c"))));
    assert_eq!(
        p,
        Some(Preview::Diff {
            path: "f.txt".into(),
            diff: "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n".into()
        })
    );
    let p = EditFile.preview(&inv_in(dir.path(), &ctx, args("f.txt", one("zzz", "c"))));
    let Some(Preview::Text(t)) = p else {
        panic!("{p:?}")
    };
    assert!(t.starts_with("Could not edit `f.txt`: edits[0] (oldText beginning `zzz`) failed: oldText was not found"), "{t}");
    // Previewing writes nothing.
    assert_eq!(
        fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        "a\nb\n"
    );
}

#[test]
fn outside_the_working_directory_must_ask() {
    let (dir, ctx) = project(b"");
    let ask = |p: &str| {
        EditFile
            .policy(&inv_in(dir.path(), &ctx, args(p, one("a", "b"))))
            .must_ask
            .is_some()
    };
    assert!(!ask("f.txt"));
    assert!(!ask("sub/../f.txt"));
    assert!(ask("../elsewhere.txt"));
    assert!(ask("/etc/hosts"));
    let i = inv_in(dir.path(), &ctx, args("../x.txt", one("a", "b")));
    assert_eq!(
        EditFile.prompt(&i).unwrap(),
        format!(
            "Apply 1 edit to `{}`, OUTSIDE the working directory?",
            resolve(dir.path(), "../x.txt").path.display()
        )
    );
    assert_eq!(EditFile.cmd_string(&i), "edit_file ../x.txt");
    let i = inv_in(
        dir.path(),
        &ctx,
        args(
            "f.txt",
            json!([{"oldText": "a", "newText": "b"}, {"oldText": "c", "newText": "d"}]),
        ),
    );
    assert_eq!(EditFile.prompt(&i).unwrap(), "Apply 2 edits to `f.txt`?");
}

#[test]
fn arguments_are_checked_with_helpful_messages() {
    let e = |v: Value| parse_args(&v).unwrap_err();
    assert_eq!(
        e(json!({"filepath": "f", "edits": [{"newText": "x"}]})),
        "edits[0] has no oldText: give the exact text to replace, copied from the file"
    );
    assert_eq!(
        e(json!({"filepath": "f", "edits": [{"oldText": "x", "newText": null}]})),
        "edits[0] has no newText: give the text to put in place of oldText (an empty string deletes it)"
    );
    assert_eq!(
        e(json!({"filepath": "f", "edits": []})),
        "`edits` is empty: give at least one {oldText, newText} edit"
    );
    assert_eq!(e(json!({"edits": []})), "`filepath` is required");
    assert!(e(json!({"filepath": "f", "edits": "not json"})).starts_with("`edits` must be an array of {oldText, newText, replaceAll} objects; the string given is not a JSON array"));
    assert_eq!(
        e(json!({"filepath": "f", "edits": [{"oldText": "a", "newText": "b", "replaceAll": 3}]})),
        "edits[0].replaceAll must be true, false or null, got 3"
    );
    // Edits sent as a JSON string are accepted, as are string booleans.
    let a = parse_args(&json!({"filepath": "f", "edits": "[{\"oldText\":\"a\",\"newText\":\"b\",\"replaceAll\":\"true\"}]", "explanation": "why"})).unwrap();
    assert_eq!(a.edits, [Edit::all("a", "b")]);
    assert_eq!(a.explanation.as_deref(), Some("why"));
}

#[test]
fn the_schema_is_strict() {
    let spec = EditFile.spec();
    assert_eq!(spec.strict, Some(true));
    let p = &spec.parameters;
    assert_eq!(p["required"], json!(["filepath", "edits", "explanation"]));
    assert_eq!(
        p["properties"]["explanation"]["type"],
        json!(["string", "null"])
    );
    let item = &p["properties"]["edits"]["items"];
    assert_eq!(
        item["required"],
        json!(["oldText", "newText", "replaceAll"])
    );
    assert_eq!(
        item["properties"]["replaceAll"]["type"],
        json!(["boolean", "null"])
    );
    assert_eq!(item["additionalProperties"], json!(false));
    assert_eq!(EditFile.kind(), Kind::FileEdit);
    assert_eq!(
        EditFile.default_opts().approval_before(),
        crate::config::opts::ApprovalBefore::Always
    );
}

/// How fast this is, `benches/edit_file.rs` measures (`edit_file_tool/*_near_end`).
#[test]
fn a_ten_megabyte_file_is_edited_exactly_then_fuzzily() {
    let mut content = String::with_capacity(10_500_000);
    let mut i = 0;
    while content.len() < 10_000_000 {
        content.push_str(&format!("    let value_{i} = compute({i}, &table);\n"));
        i += 1;
    }
    content.push_str("fn end() {\n    finish();\n}\n");
    let (dir, ctx) = project(content.as_bytes());
    run(&inv_in(
        dir.path(),
        &ctx,
        args(
            "f.txt",
            one("    finish();", "    finish();\n    cleanup();"),
        ),
    ))
    .unwrap();
    run(&inv_in(
        dir.path(),
        &ctx,
        args(
            "f.txt",
            one("fn end() {\n  finish();\n  cleanup();\n}", "fn end() {}"),
        ),
    ))
    .unwrap();
    let edited = fs::read_to_string(dir.path().join("f.txt")).unwrap();
    assert_eq!(edited.len(), content.len() - "\n    finish();\n".len());
    assert!(edited.ends_with("table);\nfn end() {}\n"));
}
