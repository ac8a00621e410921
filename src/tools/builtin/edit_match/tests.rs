//! Tests of the parent module.

use super::*;
use pretty_assertions::assert_eq;

fn apply(content: &str, edits: &[Edit]) -> Outcome {
    apply_edits(content, edits).unwrap_or_else(|e| panic!("{e}"))
}

fn fail(content: &str, edits: &[Edit]) -> EditError {
    match apply_edits(content, edits) {
        Ok(o) => panic!("expected an error, got {:?}", o.content),
        Err(e) => e,
    }
}

fn strategies(o: &Outcome) -> Vec<Strategy> {
    o.applied.iter().map(|a| a.strategy).collect()
}

#[test]
fn exact_replaces_a_substring_inside_a_line() {
    let o = apply("let x = 1;\nlet y = 2;\n", &[Edit::new("y = 2", "y = 3")]);
    assert_eq!(o.content, "let x = 1;\nlet y = 3;\n");
    assert_eq!(
        o.applied,
        [Applied {
            index: 0,
            strategy: Strategy::Exact,
            count: 1,
            line: 2,
            reindented: false,
            similarity: None,
        }]
    );
}

#[test]
fn exact_multi_line_with_final_newline_deletes_whole_lines() {
    let o = apply("a\nb\nc\nd\n", &[Edit::new("b\nc\n", "")]);
    assert_eq!(o.content, "a\nd\n");
}

#[test]
fn edits_apply_in_order_each_to_the_previous_result() {
    let o = apply(
        "one\ntwo\nthree\n",
        &[
            Edit::new("one\n", "zero\none\n"),
            Edit::new("three", "THREE"),
        ],
    );
    assert_eq!(o.content, "zero\none\ntwo\nTHREE\n");
    assert_eq!(o.applied[1].line, 4, "line counted after the first edit");
}

#[test]
fn identical_matches_are_an_error_with_places_not_a_silent_pick() {
    let content = "fn a() {\n    foo();\n}\nfn b() {\n    foo();\n}\n";
    let e = fail(content, &[Edit::new("    foo();", "    bar();")]);
    assert_eq!(
        e.to_string(),
        "edits[0] (oldText beginning `foo();`) failed: oldText matches 2 places in the file (exact match):\n  - line 2: foo();\n  - line 5: foo();\nInclude more surrounding lines in oldText so that it matches exactly one place, or set replaceAll: true to change every occurrence."
    );
}

#[test]
fn ambiguity_lists_at_most_five_places() {
    let content = "x\n".repeat(8);
    let e = fail(&content, &[Edit::new("x", "y")]);
    let ErrorKind::Ambiguous { count, places, .. } = &e.kind else {
        panic!("{e:?}")
    };
    assert_eq!((*count, places.len()), (8, 5));
    assert!(e.to_string().contains("\n  … and 3 more\n"), "{e}");
}

#[test]
fn multi_line_places_show_their_line_range() {
    let content = "if a {\n  b\n}\nif a {\n  b\n}\n";
    let e = fail(content, &[Edit::new("if a {\n  b\n}", "")]);
    assert!(
        e.to_string()
            .contains("  - lines 1–3: if a {\n  - lines 4–6: if a {"),
        "{e}"
    );
}

#[test]
fn replace_all_changes_every_occurrence() {
    let o = apply(
        "var a = 1;\nvar b = 2;\nvar c;\n",
        &[Edit::all("var ", "let ")],
    );
    assert_eq!(o.content, "let a = 1;\nlet b = 2;\nlet c;\n");
    assert_eq!((o.applied[0].count, o.applied[0].line), (3, 1));
}

#[test]
fn replace_all_with_unicode() {
    let o = apply("café ☕ café\nnaïve café\n", &[Edit::all("café", "thé")]);
    assert_eq!(o.content, "thé ☕ thé\nnaïve thé\n");
}

#[test]
fn whitespace_strategy_collapses_runs_and_ignores_trailing_whitespace() {
    let content = "fn main() {\n    let  x =   1;   \n    call(x,\t2);\n}\n";
    let o = apply(
        content,
        &[Edit::new(
            "    let x = 1;\n    call(x, 2);",
            "    let x = 2;\n    call(x, 3);",
        )],
    );
    assert_eq!(
        o.content,
        "fn main() {\n    let x = 2;\n    call(x, 3);\n}\n"
    );
    assert_eq!(strategies(&o), [Strategy::Whitespace]);
    assert!(!o.applied[0].reindented);
}

#[test]
fn indentation_strategy_reindents_new_text_to_the_block() {
    let content =
        "class A:\n    def f(self):\n        if x:\n            return 1\n        return 2\n";
    let o = apply(
        content,
        &[Edit::new(
            "if x:\n    return 1\nreturn 2\n",
            "if x:\n    log()\n    return 1\nreturn 3\n",
        )],
    );
    assert_eq!(
        o.content,
        "class A:\n    def f(self):\n        if x:\n            log()\n            return 1\n        return 3\n"
    );
    assert_eq!(strategies(&o), [Strategy::Indentation]);
    assert!(o.applied[0].reindented);
}

#[test]
fn reindent_handles_lines_less_indented_than_the_anchor() {
    let content = "mod m {\n    fn f() {\n        a();\n    }\n}\n";
    // The model starts mid-block, without indentation, and dedents the closing brace.
    let o = apply(
        content,
        &[Edit::new("    a();\n}", "    a();\n    b();\n}")],
    );
    assert_eq!(
        o.content,
        "mod m {\n    fn f() {\n        a();\n        b();\n    }\n}\n"
    );
}

#[test]
fn spaces_from_the_model_become_tabs_in_a_tab_file() {
    let content = "func f() {\n\tif x {\n\t\ty()\n\t}\n}\n";
    let o = apply(
        content,
        &[Edit::new(
            "    if x {\n        y()\n    }",
            "    if x {\n        y()\n        z()\n    }",
        )],
    );
    assert_eq!(
        o.content,
        "func f() {\n\tif x {\n\t\ty()\n\t\tz()\n\t}\n}\n"
    );
    assert_eq!(strategies(&o), [Strategy::Whitespace]);
    assert!(o.applied[0].reindented);
}

#[test]
fn two_space_model_text_is_converted_to_a_four_space_file() {
    let content = "def f():\n    if a:\n        b()\n";
    let o = apply(
        content,
        &[Edit::new("if a:\n  b()", "if a:\n  b()\n  if c:\n    d()")],
    );
    assert_eq!(
        o.content,
        "def f():\n    if a:\n        b()\n        if c:\n            d()\n"
    );
}

#[test]
fn block_anchor_tolerates_a_stale_line_between_the_anchors() {
    let content = "fn total(items: &[Item]) -> u32 {\n    let mut sum = 0;\n    for i in items {\n        sum += i.price;\n    }\n    sum\n}\n";
    let old = "fn total(items: &[Item]) -> u32 {\n    let mut sum = 0;\n    for i in items {\n        sum += i.cost;\n    }\n    sum\n}";
    let new = "fn total(items: &[Item]) -> u32 {\n    items.iter().map(|i| i.price).sum()\n}";
    let o = apply(content, &[Edit::new(old, new)]);
    assert_eq!(
        o.content,
        "fn total(items: &[Item]) -> u32 {\n    items.iter().map(|i| i.price).sum()\n}\n"
    );
    assert_eq!(strategies(&o), [Strategy::BlockAnchor]);
    assert!(o.applied[0].similarity.unwrap() >= BLOCK_ANCHOR_MIN);
}

#[test]
fn block_anchor_accepts_a_region_with_one_line_more() {
    let content = "def run(self):\n    self.start()\n    self.load_config()\n    self.log(1)\n    self.connect()\n    self.work()\n    self.stop()\n    return True\n";
    let old = "def run(self):\n    self.start()\n    self.load_config()\n    self.connect()\n    self.work()\n    self.stop()\n    return True";
    let o = apply(
        content,
        &[Edit::new(old, "def run(self):\n    return False")],
    );
    assert_eq!(o.content, "def run(self):\n    return False\n");
    assert_eq!(strategies(&o), [Strategy::BlockAnchor]);
}

#[test]
fn block_anchor_needs_similar_lines_between_the_anchors() {
    let content = "fn a() {\n    completely();\n    different();\n    things();\n}\n";
    let e = fail(
        content,
        &[Edit::new(
            "fn a() {\n    x = 1;\n    y = 2;\n    z = 3;\n}",
            "",
        )],
    );
    let ErrorKind::NotFound { tried, .. } = &e.kind else {
        panic!("{e:?}")
    };
    assert_eq!(
        tried,
        &[
            Strategy::Exact,
            Strategy::Whitespace,
            Strategy::Indentation,
            Strategy::BlockAnchor
        ]
    );
}

#[test]
fn block_anchor_with_two_similar_regions_is_ambiguous() {
    let block = "fn handler() {\n    let a = load();\n    save(a);\n}\n";
    let content = format!("{block}\n{block}");
    let e = fail(
        &content,
        &[Edit::new(
            "fn handler() {\n    let a = load()?;\n    save(a);\n}",
            "",
        )],
    );
    assert!(
        matches!(
            e.kind,
            ErrorKind::Ambiguous {
                strategy: Strategy::BlockAnchor,
                count: 2,
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn not_found_names_the_strategies_and_shows_the_closest_region() {
    let content = "use std::io;\n\nfn main() {\n    let name = read();\n    greet(&name);\n}\n";
    let e = fail(
        content,
        &[Edit::new(
            "fn main() {\n    let name = read_line();\n    greet(name);\n",
            "x",
        )],
    );
    assert_eq!(
        e.to_string(),
        "edits[0] (oldText beginning `fn main() {`) failed: oldText was not found in the file (tried exact, whitespace-normalised, indentation-tolerant, block anchor matching).\nThe closest text is at lines 3–5 (1 of 3 lines equal ignoring indentation):\n     3 | fn main() {\n     4 |     let name = read();\n     5 |     greet(&name);\nRe-read the file with read_file and copy the text to replace exactly as it is in the file, including whitespace and indentation."
    );
}

#[test]
fn a_three_line_edit_with_one_stale_middle_line_matches_by_its_anchors() {
    let content = "fn main() {\n    let name = read();\n    greet(&name);\n}\n";
    let o = apply(
        content,
        &[Edit::new(
            "fn main() {\n    let name = read_line();\n    greet(&name);\n",
            "fn main() {\n    greet(\"you\");\n",
        )],
    );
    assert_eq!(o.content, "fn main() {\n    greet(\"you\");\n}\n");
    assert_eq!(strategies(&o), [Strategy::BlockAnchor]);
}

#[test]
fn not_found_falls_back_to_a_line_sharing_a_word() {
    let content = "alpha\nbeta\nlet configuration = load();\ngamma\n";
    let e = fail(content, &[Edit::new("configuration=load()", "x")]);
    let ErrorKind::NotFound { tried, closest, .. } = &e.kind else {
        panic!("{e:?}")
    };
    assert_eq!(
        tried,
        &[Strategy::Exact, Strategy::Whitespace, Strategy::Indentation]
    );
    let c = closest.as_ref().unwrap();
    assert_eq!(
        (c.start_line, c.why.as_str()),
        (3, "it contains `configuration`")
    );
}

#[test]
fn not_found_in_an_empty_file_says_so() {
    let e = fail("", &[Edit::new("x", "y")]);
    assert!(
        e.to_string()
            .contains("The file is empty: use an empty oldText"),
        "{e}"
    );
}

#[test]
fn empty_old_text_fills_an_empty_file() {
    let o = apply("", &[Edit::new("", "hello\n")]);
    assert_eq!(o.content, "hello\n");
    assert_eq!(strategies(&o), [Strategy::EmptyFile]);
}

#[test]
fn empty_old_text_on_a_non_empty_file_is_an_error() {
    let e = fail("content\n", &[Edit::new("", "more")]);
    assert_eq!(e.kind, ErrorKind::EmptyOldText);
    assert!(
        e.to_string()
            .starts_with("edits[0] failed: oldText is empty."),
        "{e}"
    );
}

#[test]
fn a_failing_edit_fails_the_whole_call_and_is_named() {
    let e = fail(
        "a\nb\nc\n",
        &[
            Edit::new("a", "A"),
            Edit::new("zzz\nyyy", "q"),
            Edit::new("c", "C"),
        ],
    );
    assert_eq!(e.index, 1);
    assert_eq!(e.old_first_line, "zzz");
    assert!(
        e.to_string()
            .starts_with("edits[1] (oldText beginning `zzz`) failed")
    );
    assert!(e.after_earlier);
}

#[test]
fn an_edit_overlapping_an_earlier_one_in_the_original_is_an_overlap_error() {
    let e = fail(
        "one\ntwo\nthree\nfour\n",
        &[
            Edit::new("two\nthree", "2\n3"),
            Edit::new("three\nfour", "3\n4"),
        ],
    );
    assert_eq!(
        e.kind,
        ErrorKind::Overlap {
            earlier: 0,
            place: Location {
                start_line: 3,
                end_line: 4,
                preview: "three".into()
            }
        }
    );
    assert_eq!(
        e.to_string(),
        "edits[1] (oldText beginning `three`) failed: its oldText (lines 3–4: three) overlaps the text that edits[0] changes. Edits in one call must not overlap: merge them into a single edit."
    );
}

#[test]
fn text_written_by_an_earlier_edit_is_not_matched_again() {
    // Only the first edit's new text holds `beta`: an overlap, not a chained edit.
    let e = fail(
        "alpha\n",
        &[Edit::new("alpha", "alpha beta"), Edit::new("beta", "gamma")],
    );
    assert!(
        matches!(e.kind, ErrorKind::Overlap { earlier: 0, .. }),
        "{e:?}"
    );
    // A copy outside the earlier edit's text is unique and is the one edited.
    let o = apply(
        "keep();\nold();\n",
        &[
            Edit::new("keep();\n", "keep();\nold();\n"),
            Edit::new("old();\n", ""),
        ],
    );
    assert_eq!(o.content, "keep();\nold();\n");
    assert_eq!(o.applied[1].line, 3);
}

#[test]
fn adjacent_edits_do_not_overlap() {
    let o = apply("ab\n", &[Edit::new("a", "A"), Edit::new("b", "B")]);
    assert_eq!(o.content, "AB\n");
}

#[test]
fn fuzzy_match_with_final_newline_takes_the_line_break() {
    let o = apply("a\n  b  \nc\n", &[Edit::new("b\n", "")]);
    assert_eq!(o.content, "a\nc\n");
    assert_eq!(strategies(&o), [Strategy::Indentation]);
    // At the end of a file without a final newline there is no line break to take.
    let o = apply("a\n  b  ", &[Edit::new("b\n", "B\n")]);
    assert_eq!(o.content, "a\n  B");
}

#[test]
fn blank_only_old_text_is_matched_exactly_only() {
    let e = fail("a\n\nb\n", &[Edit::new("   \n", "x")]);
    let ErrorKind::NotFound { tried, .. } = &e.kind else {
        panic!("{e:?}")
    };
    assert_eq!(tried, &[Strategy::Exact]);
}

/// How fast this is, `benches/edit_file.rs` measures (`edit_file_match/exact_near_end`).
#[test]
fn exact_match_at_the_end_of_a_large_text() {
    let mut content = "let value = compute(index);\n".repeat(200_000);
    content.push_str("fn the_end() {}\n");
    let o = apply(
        &content,
        &[Edit::new("fn the_end() {}", "fn the_end() { done() }")],
    );
    assert_eq!(strategies(&o), [Strategy::Exact]);
    assert_eq!(o.applied[0].line, 200_001);
    assert_eq!(
        o.content,
        content.replace("fn the_end() {}", "fn the_end() { done() }")
    );
}
