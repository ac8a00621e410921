//! The command line (SPEC §2). Only options whose capability exists are defined here.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "sayso",
    version,
    about = "A terminal chat agent for any OpenAI-compatible model",
    long_about = "sayso talks to any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, \
                  llama.cpp, Ollama, LiteLLM, LM Studio…) and streams the answer.\n\n\
                  Try it without a model: sayso --demo -p \"hello\"",
    after_help = "Exit codes: 0 success, 1 the run failed, 2 bad usage or config, 130 interrupted.\n\
                  Environment: OPENAI_API_KEY, OPENAI_BASE_URL, SAYSO_MODEL, SAYSO_CONFIG, XDG_CONFIG_HOME, XDG_STATE_HOME."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// The message to send (with -p: read from stdin when omitted or "-"; piped input after a
    /// prompt is sent after it, as a fenced block)
    pub prompt: Option<String>,

    /// Headless: answer the prompt, print to stdout, exit
    #[arg(short = 'p', long = "print")]
    pub print: bool,

    /// With -p PROMPT: wait for piped stdin to end and send it after the prompt. Without it,
    /// piped input is read only when it starts within 3 s
    #[arg(long = "stdin", requires = "print", conflicts_with = "approvals")]
    pub read_stdin: bool,

    /// With -p: print JSON Lines events instead of text
    #[arg(long, requires = "print")]
    pub json: bool,

    /// With -p --json: who answers approval requests. `stdio`: a `control_request` on stdout,
    /// answered by a `control_response` line on stdin (README "Approval policy")
    #[arg(long, value_name = "HOW", value_parser = ["stdio"], requires = "json")]
    pub approvals: Option<String>,

    /// With --approvals stdio: seconds to wait for each answer before rejecting the call
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = 300,
        requires = "approvals"
    )]
    pub approval_timeout: u64,

    /// Talk to a built-in scripted endpoint instead of a real model
    #[arg(long)]
    pub demo: bool,

    /// Auto mode (`--approval-mode auto`): reads and edits run without asking; commands and
    /// network calls run when safe-listed or the LLM judge agrees, else ask
    #[arg(long, global = true, conflicts_with = "approval_mode")]
    pub auto: bool,

    /// Plan mode: only read-only tools run and the model presents a plan (in the TUI, Enter
    /// accepts it; headless, the run ends with the plan)
    #[arg(long, global = true)]
    pub plan: bool,

    /// How much runs without asking: trust, auto, balanced, suggest, strict
    /// [default: chat.approval_mode, else balanced]
    #[arg(long, value_name = "MODE", global = true)]
    pub approval_mode: Option<String>,

    /// What commands may do: workspace-write (write only the project, no network), read-only,
    /// off [default: sandbox.mode, else workspace-write]
    #[arg(long, value_name = "MODE", value_parser = ["workspace-write", "read-only", "off"], global = true)]
    pub sandbox: Option<String>,

    /// Comma-separated tools and groups offered to the model [default: chat.default_tools]
    #[arg(long, value_name = "LIST", value_delimiter = ',', global = true)]
    pub tools: Option<Vec<String>>,

    /// Comma-separated tools that never need approval, in any mode
    #[arg(long, value_name = "LIST", value_delimiter = ',', global = true)]
    pub allowed_tools: Vec<String>,

    /// Cap on model round-trips per message [default: 50]
    #[arg(long, value_name = "N", global = true)]
    pub max_turns: Option<u32>,

    /// Model id
    #[arg(short = 'm', long, value_name = "NAME", global = true)]
    pub model: Option<String>,

    /// `reasoning_effort` to ask the model for (low, medium, high, …) where the server takes it
    #[arg(long, value_name = "LEVEL", global = true)]
    pub reasoning_effort: Option<String>,

    /// Endpoint base URL, e.g. http://127.0.0.1:8080/v1
    #[arg(long, value_name = "URL", global = true)]
    pub base_url: Option<String>,

    /// Environment variable holding the API key [default: OPENAI_API_KEY]
    #[arg(long, value_name = "NAME", global = true)]
    pub api_key_env: Option<String>,

    /// Use [providers.NAME] from the config
    #[arg(long, value_name = "NAME", global = true)]
    pub provider: Option<String>,

    /// Config file [default: $XDG_CONFIG_HOME/sayso/config.toml]
    #[arg(short = 'c', long, value_name = "PATH", global = true)]
    pub config: Option<PathBuf>,

    /// Working directory (where .sayso/config.toml is looked for)
    #[arg(short = 'C', long, value_name = "DIR", global = true)]
    pub cwd: Option<PathBuf>,

    /// More log detail in the log file (-v debug, -vv trace)
    #[arg(short = 'v', long = "verbose", action = clap::ArgAction::Count)]
    pub verbose: u8,

    /// Log level for the log file: error, warn, info, debug, trace, off
    #[arg(long, value_name = "LEVEL", global = true)]
    pub log_level: Option<String>,

    /// Continue a saved session: the given one (an id or its first characters), or without ID
    /// the one of this directory used last
    #[arg(long, value_name = "ID", num_args = 0..=1, default_missing_value = "")]
    pub resume: Option<String>,

    /// Continue the session of this directory used last (the same as --resume)
    #[arg(long = "continue", conflicts_with = "resume")]
    pub continue_last: bool,

    /// Do not save this chat as a session
    #[arg(long, conflicts_with_all = ["resume", "continue_last"])]
    pub no_session: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show, create or check the configuration
    Config {
        #[command(subcommand)]
        action: Option<ConfigAction>,
    },
    /// List the tools with their approval settings
    Tools,
    /// Show the approval policy in force: the mode, the tools that never ask, every rule and
    /// where it was written
    Approvals,
    /// The MCP servers of the config: start them, list their status and tools, stop them
    Mcp {
        #[command(subcommand)]
        action: Option<McpAction>,
    },
    /// List, show or remove saved sessions (default: list)
    Sessions {
        #[command(subcommand)]
        action: Option<SessionsAction>,
    },
    /// Print a shell completion script
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

#[derive(Debug, Subcommand)]
pub enum McpAction {
    /// Each server's status and tools with their kind and approval (the default)
    List,
}

#[derive(Debug, Subcommand)]
pub enum ConfigAction {
    /// Print the config file paths and whether they exist
    Path,
    /// Write a commented config file to the user config path
    Init,
    /// Load the configuration and report what it resolves to
    Check,
}

#[derive(Debug, Subcommand)]
pub enum SessionsAction {
    /// The saved sessions, newest first
    List,
    /// A session's transcript as Markdown (or its records with --json)
    Show {
        /// The session id (or its start)
        id: String,
        /// Print the records as JSON Lines instead
        #[arg(long)]
        json: bool,
    },
    /// Remove a session, every session older than an age, or those whose directory is gone
    Rm {
        /// The session id (or its start)
        #[arg(required_unless_present_any = ["older_than", "gone"])]
        id: Option<String>,
        /// Remove every session last written longer ago than this (30d, 12h, 90m, 4w)
        #[arg(long, value_name = "AGE", conflicts_with_all = ["id", "gone"])]
        older_than: Option<String>,
        /// Remove every session whose directory no longer exists
        #[arg(long, conflicts_with = "id")]
        gone: bool,
    },
    /// Take back the file changes of a session's last turn (or of every turn from --turn N on):
    /// prints the diff and what it would do; --yes applies it
    Undo {
        /// The session id (or its start)
        id: String,
        /// Undo every turn from this one on (the user message's number, 1 for the first)
        #[arg(long, value_name = "N")]
        turn: Option<u32>,
        /// Apply it (without it nothing is written)
        #[arg(long)]
        yes: bool,
        /// With conflicts (files changed since sayso's change), apply the other files
        /// instead of nothing; the conflicts are left as they are
        #[arg(long)]
        apply_rest: bool,
    },
    /// Re-apply what the session's last undo took back (same options as undo)
    Redo {
        /// The session id (or its start)
        id: String,
        #[arg(long)]
        yes: bool,
        #[arg(long)]
        apply_rest: bool,
    },
    /// The file changes a session made (of one turn with --turn N), as a unified diff
    Diff {
        /// The session id (or its start)
        id: String,
        #[arg(long, value_name = "N")]
        turn: Option<u32>,
    },
}

impl Cli {
    /// The command line of this process; on a mistake, clap's message on stderr and exit 2 —
    /// after the `error` event on stdout when `--json` was asked for (a script reading
    /// stdout learns why nothing else comes).
    pub fn parse_or_exit() -> Cli {
        match Cli::try_parse() {
            Ok(cli) => cli,
            Err(e) => {
                if e.use_stderr() && asks_for_json(std::env::args_os().skip(1)) {
                    let text = e.to_string();
                    let first = text.lines().next().unwrap_or_default();
                    let message = first.strip_prefix("error: ").unwrap_or(first);
                    println!("{}", crate::headless::startup_error(message));
                }
                e.exit()
            }
        }
    }

    /// Which saved session to continue: `Some(None)` the latest of this directory.
    pub fn resume_choice(&self) -> Option<Option<String>> {
        if self.continue_last {
            return Some(None);
        }
        self.resume
            .as_ref()
            .map(|id| (!id.trim().is_empty()).then(|| id.trim().to_owned()))
    }

    /// The log level implied by `-v` / `--log-level`.
    pub fn log_level(&self) -> Option<String> {
        self.log_level.clone().or(match self.verbose {
            0 => None,
            1 => Some("debug".into()),
            _ => Some("trace".into()),
        })
    }
}

/// Whether `--json` is among the options (before a `--`).
fn asks_for_json(args: impl Iterator<Item = std::ffi::OsString>) -> bool {
    args.take_while(|a| a != "--").any(|a| a == "--json")
}
