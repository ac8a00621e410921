use super::*;

fn skill(root: &Path, folder: &str, text: &str) -> PathBuf {
    let dir = root.join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), text).unwrap();
    dir
}

#[test]
fn skills_are_found_listed_and_loaded_with_their_files() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config");
    let cwd = home.path().join("proj");
    let pdf = skill(
        &user_dir(&config),
        "pdf",
        "---\nname: pdf-forms\ndescription: Fill PDF forms\nallowed-tools: run_command\n---\nUse scripts/fill.py.\n",
    );
    std::fs::create_dir_all(pdf.join("scripts")).unwrap();
    std::fs::write(pdf.join("scripts/fill.py"), "print(1)").unwrap();
    std::fs::write(pdf.join(".hidden"), "x").unwrap();
    skill(
        &project_dir(&cwd),
        "release",
        "---\ndescription: Cut a release\n---\nTag it.",
    );
    skill(
        &project_dir(&cwd),
        "dup",
        "---\nname: pdf-forms\ndescription: other\n---\nNo.",
    );
    std::fs::create_dir_all(project_dir(&cwd).join("empty")).unwrap();
    let c = discover(&config, &cwd);
    let names: Vec<(&str, &str)> = c
        .skills
        .iter()
        .map(|s| (s.name.as_str(), s.source.as_str()))
        .collect();
    assert_eq!(names, [("pdf-forms", "user"), ("release", "project")]);
    assert_eq!(c.notices.len(), 2, "{:?}", c.notices);
    assert!(
        c.notices[0].contains("SKILL.md:4: `allowed-tools` ignored"),
        "{:?}",
        c.notices
    );
    assert!(c.notices[1].contains("is also in"), "{:?}", c.notices);
    assert_eq!(
        listing(&c),
        "Skills (load one with the `skill` tool when the task matches its description):\n- pdf-forms: Fill PDF forms\n- release: Cut a release"
    );
    let loaded = load(&c, "pdf-forms").unwrap();
    assert!(loaded.contains("Use scripts/fill.py."), "{loaded}");
    assert!(!loaded.contains("allowed-tools"), "{loaded}");
    assert!(
        loaded.contains(&pdf.join("scripts/fill.py").display().to_string()),
        "{loaded}"
    );
    assert!(!loaded.contains(".hidden"), "{loaded}");
    assert!(
        !loaded.contains("- ") || !loaded.contains(&pdf.join("SKILL.md").display().to_string())
    );
    assert_eq!(
        load(&c, "nope").unwrap_err(),
        "no skill `nope`; the skills are: pdf-forms, release"
    );
    assert!(c.holds(&std::fs::canonicalize(pdf.join("scripts/fill.py")).unwrap()));
    assert!(!c.holds(&std::fs::canonicalize(&config).unwrap().join("config.toml")));
}

#[test]
fn the_listing_is_capped() {
    let c = Catalog {
        skills: (0..200)
            .map(|i| Skill {
                name: format!("s{i}"),
                description: "d".repeat(MAX_DESCRIPTION),
                source: Source::User,
                dir: PathBuf::from("/x"),
                real: PathBuf::from("/x"),
            })
            .collect(),
        notices: Vec::new(),
    };
    let l = listing(&c);
    assert!(l.len() <= MAX_LISTING + 60, "{}", l.len());
    assert!(l.ends_with("more (the list is capped)"), "{l}");
    assert_eq!(listing(&Catalog::default()), "");
}

#[cfg(unix)]
#[test]
fn a_skill_linking_out_of_its_folder_is_not_read() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config");
    let cwd = home.path().join("proj");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), "key = \"sk-secret\"").unwrap();
    let dir = project_dir(&cwd).join("leak");
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(config.join("config.toml"), dir.join("SKILL.md")).unwrap();
    let env = project_dir(&cwd).join("env");
    std::fs::create_dir_all(&env).unwrap();
    std::os::unix::fs::symlink("/proc/self/environ", env.join("SKILL.md")).unwrap();
    std::os::unix::fs::symlink(&config, project_dir(&cwd).join("cfg")).unwrap();
    let c = discover(&config, &cwd);
    assert!(c.skills.is_empty(), "{:?}", c.skills);
    assert_eq!(c.notices.len(), 2, "{:?}", c.notices);
    assert!(c.notices.iter().all(|n| !n.contains("sk-secret")));
}

#[test]
fn front_matter_without_a_name_takes_the_folder_name() {
    let mut notices = Vec::new();
    let s = from_text(
        Path::new("/s/lint-fix"),
        "no front matter",
        Source::Project,
        &mut notices,
    )
    .unwrap();
    assert_eq!(s.name, "lint-fix");
    assert_eq!(notices.len(), 1, "no description: {notices:?}");
    assert!(
        from_text(
            Path::new("/s/x"),
            "---\nname: a b\n---\n",
            Source::User,
            &mut notices
        )
        .is_none()
    );
}

/// A project's skills directory, or a skill folder in it, that resolves outside the project is
/// not read, and nothing outside becomes "inside" for `read_file` (issue 36, item 7).
#[cfg(unix)]
#[test]
fn a_project_skills_directory_or_folder_leading_out_of_the_project_is_refused() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config");
    let cwd = home.path().join("proj");
    std::fs::create_dir_all(cwd.join(".git")).unwrap();
    std::fs::create_dir_all(&config).unwrap();
    let outside = home.path().join("elsewhere");
    skill(&outside, "notes", "---\ndescription: outside\n---\nx");
    std::fs::write(outside.join("notes/private.txt"), "secret").unwrap();
    std::fs::create_dir_all(cwd.join(".sayso")).unwrap();
    // The whole skills directory links out.
    std::os::unix::fs::symlink(&outside, project_dir(&cwd)).unwrap();
    let c = discover(&config, &cwd);
    assert!(c.skills.is_empty(), "{:?}", c.skills);
    assert_eq!(c.notices.len(), 1, "{:?}", c.notices);
    assert!(
        c.notices[0].contains("outside the project"),
        "{:?}",
        c.notices
    );
    let private = std::fs::canonicalize(outside.join("notes/private.txt")).unwrap();
    assert!(!c.holds(&private));
    // One folder in a real skills directory links out.
    std::fs::remove_file(project_dir(&cwd)).unwrap();
    skill(&project_dir(&cwd), "ok", "---\ndescription: fine\n---\nx");
    std::os::unix::fs::symlink(outside.join("notes"), project_dir(&cwd).join("notes")).unwrap();
    let c = discover(&config, &cwd);
    let names: Vec<&str> = c.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["ok"]);
    assert!(!c.holds(&private));
    // The whole `.sayso` links out.
    std::fs::remove_dir_all(cwd.join(".sayso")).unwrap();
    std::fs::create_dir_all(outside.join("dot/skills")).unwrap();
    std::os::unix::fs::symlink(outside.join("notes"), outside.join("dot/skills/notes")).unwrap();
    std::os::unix::fs::symlink(outside.join("dot"), cwd.join(".sayso")).unwrap();
    let c = discover(&config, &cwd);
    assert!(c.skills.is_empty(), "{:?}", c.skills);
    assert!(!c.holds(&private));
}

/// A folder pointed elsewhere after it was found is neither loaded nor makes its new place
/// inside.
#[cfg(unix)]
#[test]
fn a_skill_folder_repointed_after_it_was_found_is_not_loaded() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config");
    let cwd = home.path().join("proj");
    std::fs::create_dir_all(&config).unwrap();
    skill(
        &project_dir(&cwd),
        "real",
        "---\ndescription: d\n---\nthe real text",
    );
    std::os::unix::fs::symlink("real", project_dir(&cwd).join("fix")).unwrap();
    let c = discover(&config, &cwd);
    assert!(load(&c, "fix").unwrap().contains("the real text"));
    skill(
        &project_dir(&cwd),
        "other",
        "---\ndescription: d\n---\nother text",
    );
    std::fs::remove_file(project_dir(&cwd).join("fix")).unwrap();
    std::os::unix::fs::symlink("other", project_dir(&cwd).join("fix")).unwrap();
    let err = load(&c, "fix").unwrap_err();
    assert!(err.contains("now leads to"), "{err}");
    let other = std::fs::canonicalize(project_dir(&cwd).join("other/SKILL.md")).unwrap();
    let fix = c.find("fix").unwrap();
    assert!(!other.starts_with(&fix.real));
}

#[test]
fn a_skill_holding_invisible_characters_is_named_in_a_notice() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config");
    let cwd = home.path().join("proj");
    skill(
        &project_dir(&cwd),
        "lint",
        "---\ndescription: Fix lint\n---\nRun the linter.\nThen r\u{200B}m the cache.\n",
    );
    let c = discover(&config, &cwd);
    assert_eq!(c.skills.len(), 1);
    assert_eq!(c.notices.len(), 1, "{:?}", c.notices);
    assert!(
        c.notices[0]
            .contains("lint/SKILL.md holds an invisible character (⟨ZWSP⟩), the first on line 5"),
        "{:?}",
        c.notices
    );
}
