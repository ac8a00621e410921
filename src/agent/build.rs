//! An [`Agent`] for a new chat, configured from the config: its engine, judge, tools,
//! sandbox and settings.

use std::sync::Arc;

use super::{Agent, AgentSettings, Frontend, instructions, resume_mode};
use crate::provider::{Client, SharedModel};
use crate::sandbox::{Places, Sandbox};
use crate::tools::configured::ToolSetup;
use crate::tools::context::ToolContext;
use crate::tools::lifecycle::orchestrator::{Engine, EngineSetup};
use crate::tools::policy::approval::SharedMode;
use crate::tools::policy::judge::Judge;

/// The sandbox of a chat in `cwd`: `[sandbox]` as resolved, around the project of `cwd`, with
/// sayso's own directories and config files hidden (also what `sayso config check` reports).
pub fn chat_sandbox(config: &crate::config::Config, cwd: &std::path::Path) -> Sandbox {
    Sandbox::new(
        config.sandbox.clone(),
        Places::for_chat(cwd, config.own_paths()),
    )
}

/// sayso's own directories (data, config, state, the window cache): never part of a project
/// snapshot, even when the project holds them (a chat in `$HOME`).
pub fn own_dirs(config: &crate::config::Config) -> Vec<std::path::PathBuf> {
    let mut v = vec![
        config.dirs.data.clone(),
        config.dirs.config.clone(),
        config.dirs.state.clone(),
    ];
    v.extend(crate::provider::window::default_cache_dir());
    v
}

/// The chat's agent, with its MCP servers starting in the background (those that ask for it
/// in the chat's own sandbox), and its client (which shares what it learns about context
/// windows with the agent's): what the TUI, headless and `sayso acp` all start.
pub fn chat(
    config: &crate::config::Config,
    cwd: std::path::PathBuf,
    frontend: Frontend,
    plan: bool,
) -> Result<(Agent, Client), String> {
    let mut client = Client::new(config.provider.clone()).map_err(|e| e.to_string())?;
    if let Some(dir) = crate::provider::window::default_cache_dir() {
        client = client.with_window_cache(dir);
    }
    let setup = crate::tools::configured::build(config).map_err(|e| e.to_string())?;
    let mut agent = build(config, client.clone(), setup, cwd, frontend);
    agent.plan().set(plan);
    if !config.tools.mcp_servers.is_empty() {
        let sandbox = agent.engine().sandbox_shared();
        agent.set_mcp(crate::mcp::servers::Servers::start(
            &config.tools.mcp_servers,
            &config.secret_env,
            sandbox,
        ));
    }
    Ok((agent, client))
}

/// An agent for a new chat, configured from `config`.
pub fn build(
    config: &crate::config::Config,
    client: Client,
    setup: ToolSetup,
    cwd: std::path::PathBuf,
    frontend: Frontend,
) -> Agent {
    let model = SharedModel::new(config.model.clone());
    let judge = config.judge.enabled.then(|| {
        // An empty `[judge] model` follows the chat model, also after `/model`.
        let judge_model = match &config.judge.model {
            Some(m) => SharedModel::new(m.clone()),
            None => model.clone(),
        };
        Arc::new(Judge::new(
            client.clone(),
            judge_model,
            config.judge.timeout,
        ))
    });
    // Skills are offered (the tool, and their list in the system message) when there are
    // any, unless the user picked the tools without `skill`. The files are stamped before they
    // are read, so a change while they are read is seen at the next refresh.
    let stamps = super::live_files::watched(&cwd, &config.dirs.config);
    let skills = crate::skills::discover(&config.dirs.config, &cwd);
    let mut active = setup.active;
    if !skills.is_empty() && !config.tools.default_tools_chosen {
        active.insert(crate::tools::builtin::skill::NAME.to_owned());
    }
    let mut engine = Engine::new(EngineSetup {
        registry: Arc::new(setup.registry),
        active,
        allowed: setup.allowed,
        mode: SharedMode::new(config.tools.approval_mode),
        interaction: frontend.interaction,
        judge,
        cwd: cwd.clone(),
        approver: frontend.approver,
        rules: crate::tools::policy::rules::SharedRules::new(
            crate::tools::policy::rules::Rules::new(&config.tools.rules),
        ),
        ctx: Arc::new(ToolContext {
            ledger: Default::default(),
            questions: frontend.questions,
            memory_dir: config.dirs.data.join("memories"),
            own_paths: config.own_paths(),
            secret_env: config.secret_env.clone(),
            // The engine puts its rules here (one set for the decisions and the tools).
            rules: Default::default(),
            sandbox: Arc::new(chat_sandbox(config, &cwd)),
            skills: skills.clone(),
            plan: Default::default(),
            files: Default::default(),
        }),
    });
    // Undo's checkpoints, when chats are saved (the records name them).
    if config.undo.enabled && config.sessions.save {
        match crate::checkpoint::Store::in_data_dir(&config.dirs.data) {
            Ok(store) => engine.set_checkpoints(Arc::new(crate::checkpoint::Recorder::new(
                &cwd,
                store,
                &config.undo,
                &own_dirs(config),
            ))),
            Err(e) => tracing::warn!(%e, "undo is off: the checkpoint store cannot be opened"),
        }
    }
    let today = crate::session::live::rfc3339(std::time::SystemTime::now());
    let mut instructions =
        instructions::load(&cwd, &config.dirs.config, today.get(..10).unwrap_or(&today));
    instructions.add_skills(&skills);
    let settings = AgentSettings {
        system_prompt: config.system_prompt.clone(),
        instructions,
        max_turns: config.tools.max_turns,
        auto_submit_success: config.tools.auto_submit_success,
        auto_submit_errors: config.tools.auto_submit_errors,
        default_tools_chosen: config.tools.default_tools_chosen,
        text_tool_calls: config.text_tool_calls,
        user_config: config.user_file.clone(),
    };
    let mut agent = Agent::new(client, engine, model, settings, setup.groups);
    agent.watch_project_files(config.dirs.config.clone(), stamps);
    agent.mcp.selection = setup.mcp;
    agent.start_mode = resume_mode::StartMode {
        mode: config.tools.approval_mode,
        explicit: config.tools.approval_mode_explicit,
    };
    agent
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::config::{Config, Overrides};
    use crate::tools::policy::approval::{Interaction, Mode};

    /// A fresh machine's config (no file), in `home`.
    pub(crate) fn config(home: &std::path::Path) -> Config {
        let env: HashMap<String, String> =
            ["HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME"]
                .iter()
                .map(|v| (v.to_string(), home.join(v).display().to_string()))
                .collect();
        let overrides = Overrides {
            cwd: home.to_path_buf(),
            ..Overrides::default()
        };
        Config::load(&overrides, &env).expect("the config loads")
    }

    pub(crate) fn agent(config: &Config, home: &std::path::Path) -> Agent {
        let setup = crate::tools::configured::build(config).expect("the tools set up");
        let client = Client::new(config.provider.clone()).expect("the client");
        let frontend = Frontend {
            interaction: Interaction::Headless,
            approver: None,
            questions: None,
        };
        build(config, client, setup, home.to_path_buf(), frontend)
    }

    #[test]
    fn an_empty_judge_model_follows_the_chat_model_and_a_set_one_stays() {
        let home = tempfile::tempdir().expect("a temp dir");
        let mut c = config(home.path());
        c.judge.enabled = true;
        c.model = "chat-a".into();
        // (the `[judge] model`, the judge's model after `/model chat-b`)
        for (judge, want) in [(None, "chat-b"), (Some("judge-j"), "judge-j")] {
            c.judge.model = judge.map(str::to_owned);
            let a = agent(&c, home.path());
            a.model_handle().set("chat-b");
            let judge_model = a.engine().judge().map(|j| j.model());
            assert_eq!(judge_model.as_deref(), Some(want), "{judge:?}");
        }
        c.judge.enabled = false;
        assert!(agent(&c, home.path()).engine().judge().is_none());
    }

    #[test]
    fn the_settings_and_the_start_mode_come_from_the_config() {
        let home = tempfile::tempdir().expect("a temp dir");
        let mut c = config(home.path());
        (c.tools.max_turns, c.tools.auto_submit_errors) = (7, false);
        (c.tools.approval_mode, c.tools.approval_mode_explicit) = (Mode::Auto, true);
        let a = agent(&c, home.path());
        assert_eq!(a.settings.max_turns, 7);
        assert!(!a.settings.auto_submit_errors);
        assert_eq!(a.settings.user_config, c.user_file);
        assert_eq!(a.mode().get(), Mode::Auto);
        assert_eq!(
            (a.start_mode.mode, a.start_mode.explicit),
            (Mode::Auto, true)
        );
        assert_eq!(a.model(), c.model);
    }

    #[test]
    fn the_chat_runs_in_the_sandbox_of_the_config_around_its_project() {
        let home = tempfile::tempdir().expect("a temp dir");
        let mut c = config(home.path());
        c.sandbox.mode = crate::sandbox::Mode::ReadOnly;
        c.sandbox.network = true;
        let project = home.path().join("proj");
        std::fs::create_dir_all(project.join(".git")).expect("a repository");
        std::fs::create_dir_all(project.join("src")).expect("a directory");
        let a = agent(&c, &project.join("src"));
        let sandbox = a.engine().sandbox();
        assert_eq!(sandbox.settings, c.sandbox);
        assert_eq!(sandbox.places.project, project);
        assert_eq!(sandbox.places.hidden, c.own_paths());
        assert_eq!(*sandbox, chat_sandbox(&c, &project.join("src")));
    }
}
