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
