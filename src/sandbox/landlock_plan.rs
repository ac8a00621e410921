//! "Read everything except the hidden paths" as Landlock rules, which can only allow: the
//! directories on the way from `/` to each hidden path are opened for listing only, and every
//! other entry beside that way is allowed in full. A pure function over a directory listing,
//! so it is table-tested without a filesystem.
//!
//! Refused on purpose: a symlink beside the way that leads into a hidden path or to one of
//! its parents (allowing it would allow the hidden path through it) is left out; so is a
//! dangling one. Entries created later beside the way are not readable (Landlock rules name
//! what exists); the way's own directories stay listable, so the names inside a hidden
//! directory can be listed though not read (a limit the backend states).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// One entry of a directory listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Dir,
    /// A file, device, socket or anything that is not a directory or a symlink.
    File,
    /// A symlink and where it resolves to (`None`: dangling or unresolvable).
    Link(Option<PathBuf>),
}

/// A directory's entries, or `None` when it cannot be listed.
pub type Listing = dyn Fn(&Path) -> Option<Vec<(OsString, Entry)>>;

/// The read rules: full read beneath `beneath`, listing only of `listing`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReadPlan {
    pub beneath: Vec<PathBuf>,
    pub listing: Vec<PathBuf>,
}

/// The read rules that allow everything but `hidden` (absolute, symlinks resolved), with
/// `list` giving a directory's entries (`None`: it cannot be listed, nothing under it is
/// allowed).
pub fn read_plan(hidden: &[PathBuf], list: &Listing) -> ReadPlan {
    let mut plan = ReadPlan::default();
    let hidden: Vec<&Path> = hidden.iter().map(PathBuf::as_path).collect();
    let root = Path::new("/");
    if hidden.is_empty() {
        plan.beneath.push(root.to_path_buf());
    } else if !hidden.contains(&root) {
        expand(root, &hidden, list, &mut plan);
    }
    plan
}

fn expand(dir: &Path, hidden: &[&Path], list: &Listing, plan: &mut ReadPlan) {
    plan.listing.push(dir.to_path_buf());
    let Some(mut entries) = list(dir) else {
        return;
    };
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, entry) in entries {
        let child = dir.join(&name);
        if hidden.contains(&child.as_path()) {
            continue;
        }
        let under: Vec<&Path> = hidden
            .iter()
            .copied()
            .filter(|h| h.starts_with(&child))
            .collect();
        if !under.is_empty() {
            if entry == Entry::Dir {
                expand(&child, &under, list, plan);
            }
            continue;
        }
        match entry {
            Entry::Dir | Entry::File => plan.beneath.push(child),
            Entry::Link(Some(target)) => {
                let touches = hidden
                    .iter()
                    .any(|h| h.starts_with(&target) || target.starts_with(h));
                if !touches {
                    plan.beneath.push(child);
                }
            }
            Entry::Link(None) => {}
        }
    }
}

/// The real listing of `dir` (symlinks resolved, not followed for the kind).
pub fn list_dir(dir: &Path) -> Option<Vec<(OsString, Entry)>> {
    let entries = std::fs::read_dir(dir).ok()?;
    Some(
        entries
            .filter_map(Result::ok)
            .map(|e| {
                let kind = match e.file_type() {
                    Ok(t) if t.is_symlink() => Entry::Link(std::fs::canonicalize(e.path()).ok()),
                    Ok(t) if t.is_dir() => Entry::Dir,
                    _ => Entry::File,
                };
                (e.file_name(), kind)
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A filesystem as `(dir, [(name, entry)])` rows.
    fn fs(
        rows: &'static [(&'static str, &'static [(&'static str, Entry)])],
    ) -> impl Fn(&Path) -> Option<Vec<(OsString, Entry)>> {
        move |dir: &Path| {
            rows.iter()
                .find(|(d, _)| Path::new(d) == dir)
                .map(|(_, es)| {
                    es.iter()
                        .map(|(n, e)| (OsString::from(n), e.clone()))
                        .collect()
                })
        }
    }

    fn paths(v: &[PathBuf]) -> Vec<String> {
        v.iter().map(|p| p.display().to_string()).collect()
    }

    const TREE: &[(&str, &[(&str, Entry)])] = &[
        (
            "/",
            &[
                ("usr", Entry::Dir),
                ("home", Entry::Dir),
                ("vmlinuz", Entry::File),
            ],
        ),
        ("/home", &[("u", Entry::Dir), ("v", Entry::Dir)]),
        (
            "/home/u",
            &[
                (".config", Entry::Dir),
                ("notes", Entry::File),
                ("proj", Entry::Dir),
            ],
        ),
        (
            "/home/u/.config",
            &[("sayso", Entry::Dir), ("git", Entry::Dir)],
        ),
    ];

    #[test]
    fn nothing_hidden_reads_everything() {
        let plan = read_plan(&[], &fs(TREE));
        assert_eq!(paths(&plan.beneath), ["/"]);
        assert!(plan.listing.is_empty());
    }

    #[test]
    fn a_hidden_dir_leaves_its_siblings_along_the_way() {
        let plan = read_plan(&["/home/u/.config/sayso".into()], &fs(TREE));
        assert_eq!(
            paths(&plan.beneath),
            [
                "/home/u/.config/git",
                "/home/u/notes",
                "/home/u/proj",
                "/home/v",
                "/usr",
                "/vmlinuz"
            ]
        );
        assert_eq!(
            paths(&plan.listing),
            ["/", "/home", "/home/u", "/home/u/.config"]
        );
    }

    #[test]
    fn two_hidden_paths_share_the_way() {
        let hidden = ["/home/u/.config/sayso".into(), "/home/u/notes".into()];
        let plan = read_plan(&hidden, &fs(TREE));
        assert!(!plan.beneath.iter().any(|p| p.ends_with("notes")));
        assert!(plan.beneath.contains(&PathBuf::from("/home/u/proj")));
        assert_eq!(plan.listing.len(), 4, "{:?}", plan.listing);
    }

    #[test]
    fn symlinks_into_or_above_a_hidden_path_are_left_out() {
        const LINKS: &[(&str, &[(&str, Entry)])] = &[
            (
                "/",
                &[
                    ("h", Entry::Dir),
                    ("lib", Entry::Link(None)),
                    ("bin", Entry::Dir),
                ],
            ),
            (
                "/h",
                &[
                    ("secret", Entry::Dir),
                    ("in", Entry::File),
                    ("up", Entry::File),
                ],
            ),
        ];
        // `lib` dangling; the links are given as resolved targets below.
        let list = |dir: &Path| -> Option<Vec<(OsString, Entry)>> {
            let mut v = fs(LINKS)(dir)?;
            if dir == Path::new("/h") {
                v[1].1 = Entry::Link(Some("/h/secret/key".into()));
                v[2].1 = Entry::Link(Some("/h".into()));
                v.push(("ok".into(), Entry::Link(Some("/bin".into()))));
            }
            Some(v)
        };
        let plan = read_plan(&["/h/secret".into()], &list);
        assert_eq!(paths(&plan.beneath), ["/bin", "/h/ok"]);
    }

    #[test]
    fn a_way_that_cannot_be_listed_allows_nothing_under_it() {
        let plan = read_plan(&["/nowhere/sayso".into()], &fs(TREE));
        assert_eq!(paths(&plan.listing), ["/"]);
        assert_eq!(paths(&plan.beneath), ["/home", "/usr", "/vmlinuz"]);
        let plan = read_plan(&["/".into()], &fs(TREE));
        assert_eq!(plan, ReadPlan::default());
    }
}
