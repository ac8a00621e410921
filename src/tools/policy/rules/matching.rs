//! Pattern words against a command's words: certainly (the rule applies), or possibly (an
//! expansion or more arguments from `xargs` could make it apply, so a deny or ask rule asks).

use crate::tools::policy::command_safety::normalize::Run;

/// `word` against a pattern word where `*` is any characters.
pub(super) fn word_matches(pattern: &str, word: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == word;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !word.starts_with(first) || word.len() < first.len() + last.len() || !word.ends_with(last) {
        return false;
    }
    let mut rest = &word[first.len()..word.len() - last.len()];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(i) => rest = &rest[i + middle.len()..],
            None => return false,
        }
    }
    true
}

/// `argv` against pattern words where a lone `*` is any number of words.
pub(super) fn words_match(pattern: &[String], argv: &[String]) -> bool {
    match pattern.split_first() {
        None => argv.is_empty(),
        Some((p, rest)) if p == "*" => (0..=argv.len()).any(|k| words_match(rest, &argv[k..])),
        Some((p, rest)) => {
            !argv.is_empty() && word_matches(p, &argv[0]) && words_match(rest, &argv[1..])
        }
    }
}

/// The pattern matches whatever the run's expansions and extra arguments turn out to be:
/// it matches the certain words before the first wild one and ends in a lone `*` that takes
/// the rest, or the run is exact and matches.
pub(super) fn certainly(pattern: &[String], run: &Run) -> bool {
    if run.is_exact() {
        return words_match(pattern, &run.argv);
    }
    pattern.last().is_some_and(|l| l == "*") && words_match(pattern, run.fixed())
}

/// Some expansion of the run's wild words (each any number of words) and of its open end
/// could match the pattern. Long commands are assumed to.
pub(super) fn possibly(pattern: &[String], run: &Run) -> bool {
    if run.argv.len() + pattern.len() > 64 {
        return true;
    }
    let words: Vec<(&str, bool)> = run
        .argv
        .iter()
        .zip(&run.wild)
        .map(|(w, wild)| (w.as_str(), *wild))
        .collect();
    possibly_from(pattern, &words, run.open)
}

fn possibly_from(pattern: &[String], words: &[(&str, bool)], open: bool) -> bool {
    match (pattern.split_first(), words.split_first()) {
        (_, None) => open || pattern.iter().all(|p| p == "*"),
        (_, Some(((_, true), rest))) => {
            (0..=pattern.len()).any(|k| possibly_from(&pattern[k..], rest, open))
        }
        (None, Some(_)) => false,
        (Some((p, prest)), Some(_)) if p == "*" => {
            (0..=words.len()).any(|k| possibly_from(prest, &words[k..], open))
        }
        (Some((p, prest)), Some(((w, false), rest))) => {
            word_matches(p, w) && possibly_from(prest, rest, open)
        }
    }
}
