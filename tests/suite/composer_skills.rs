//! Skills end to end (issue 23, item 4): the real binary, headless, against the fixture
//! server. A skill's name and description are in the first request's system message; the
//! model calls `skill`, and the skill's full text and its files' paths are in the next
//! request's tool message — not before.

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::support::fixture::sse::tool_call_reply as calls;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::{home_with, run, sayso, tool_messages};

fn system(body: &serde_json::Value) -> String {
    body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn a_skill_is_listed_loaded_by_the_tool_and_its_text_reaches_the_next_request() {
    let fx = Fixture::start().await;
    fx.push(calls(&[("s1", "skill", json!({"name": "pdf-forms"}))]));
    fx.push(Reply::Stream(sse::text_reply(&["Filled."])));
    let home = home_with(&fx.base_url(), "");
    let skill = home.path().join("config/sayso/skills/pdf");
    std::fs::create_dir_all(skill.join("scripts")).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: pdf-forms\ndescription: Fill in PDF forms with the bundled script\n---\nRun scripts/fill.py FORM VALUES; never edit the PDF by hand.\n",
    )
    .unwrap();
    std::fs::write(skill.join("scripts/fill.py"), "print('fill')\n").unwrap();
    let project = home.path().join(".sayso/skills/release");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("SKILL.md"),
        "---\ndescription: Cut a release of this project\n---\nTag and push.\n",
    )
    .unwrap();
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "fill in form.pdf"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let requests = fx.requests();
    assert_eq!(requests.len(), 2);
    let first = system(&requests[0].body);
    assert!(
        first.contains(
            "- pdf-forms: Fill in PDF forms with the bundled script\n- release: Cut a release of this project"
        ),
        "{first}"
    );
    assert!(
        !first.contains("never edit the PDF by hand"),
        "only the list: {first}"
    );
    let offered: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert!(offered.contains(&"skill"), "{offered:?}");
    let tool = tool_messages(&requests[1].body);
    assert_eq!(tool.len(), 1, "{tool:?}");
    assert_eq!(tool[0].0, "s1");
    assert!(
        tool[0]
            .1
            .contains("Run scripts/fill.py FORM VALUES; never edit the PDF by hand."),
        "{}",
        tool[0].1
    );
    let listed = std::fs::canonicalize(&skill)
        .unwrap_or(skill.clone())
        .join("scripts/fill.py");
    assert!(
        tool[0].1.contains(&listed.display().to_string())
            || tool[0]
                .1
                .contains(&skill.join("scripts/fill.py").display().to_string()),
        "{}",
        tool[0].1
    );
}
