//! An [`Agent`] for a new chat, configured from the config: its engine, judge, tools and
//! settings.

use std::sync::Arc;

use super::{Agent, AgentSettings, Frontend, instructions, resume_mode};
use crate::provider::{Client, SharedModel};
use crate::tools::configured::ToolSetup;
use crate::tools::context::ToolContext;
use crate::tools::lifecycle::orchestrator::{Engine, EngineSetup};
use crate::tools::policy::approval::SharedMode;
use crate::tools::policy::judge::Judge;

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
    let engine = Engine::new(EngineSetup {
        registry: Arc::new(setup.registry),
        active: setup.active,
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
        }),
    });
    let today = crate::session::live::rfc3339(std::time::SystemTime::now());
    let settings = AgentSettings {
        system_prompt: config.system_prompt.clone(),
        instructions: instructions::load(
            &cwd,
            &config.dirs.config,
            today.get(..10).unwrap_or(&today),
        ),
        max_turns: config.tools.max_turns,
        auto_submit_success: config.tools.auto_submit_success,
        auto_submit_errors: config.tools.auto_submit_errors,
        default_tools_chosen: config.tools.default_tools_chosen,
        user_config: config.user_file.clone(),
    };
    let mut agent = Agent::new(client, engine, model, settings, setup.groups);
    agent.mcp.selection = setup.mcp;
    agent.start_mode = resume_mode::StartMode {
        mode: config.tools.approval_mode,
        explicit: config.tools.approval_mode_explicit,
    };
    agent
}
