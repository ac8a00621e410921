//! The process's one set of secrets, kept out of every tool's reach: every provider key in use
//! (each `api_key_env` of the config, and the default), every provider `headers` value, every
//! MCP `headers_env` value and the MCP `env` values marked `secret_env`.
//!
//! - At start ([`seal`], before any other thread runs), the secret variables are taken out of
//!   the environment: their values are captured here, the variables removed (no child process
//!   inherits them, whoever spawns it) and their bytes in the initial environment block
//!   overwritten, and the process is made non-dumpable ([`environ`]). Whatever reads such a
//!   variable later asks [`env_var`] (`config::ProcessEnv` does).
//! - [`register`] adds the config's secret values; [`scrub()`] replaces each exact occurrence of
//!   one (at least [`MIN_SCRUB_LEN`] bytes) in a text by a marker naming it
//!   (`[secret $OPENAI_API_KEY removed]`): tool output, instructions, anything the model, the
//!   screen or the session file would otherwise get ([`scrub`](mod@scrub) is the pure part);
//!   [`scrub_json`] does it to every string of a JSON value (an MCP tool's schema).
//! - [`withheld_env`]: the variable names no child may inherit (removed again where a child is
//!   spawned, for platforms and runs where [`seal`] could not take them out).
//! - [`own_files`]: files sayso reads on its own account must be regular files outside `/proc`,
//!   `/sys` and `/dev`.
//!
//! Imports nothing of ours: `config` sits above it.

pub mod environ;
pub mod own_files;
pub mod scrub;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::{LazyLock, RwLock};

pub use scrub::{MIN_SCRUB_LEN, Scrubber, Secret, marker};

#[derive(Default)]
struct Vault {
    scrubber: Scrubber,
    /// Secret variables taken out of the environment, with their values.
    env: BTreeMap<String, String>,
    /// Every variable a child must not inherit.
    withheld: Vec<String>,
}

static VAULT: LazyLock<RwLock<Vault>> = LazyLock::new(Default::default);

fn with<T>(f: impl FnOnce(&Vault) -> T) -> T {
    f(&VAULT.read().unwrap_or_else(|e| e.into_inner()))
}

fn with_mut<T>(f: impl FnOnce(&mut Vault) -> T) -> T {
    f(&mut VAULT.write().unwrap_or_else(|e| e.into_inner()))
}

/// Takes the variables `names` out of the environment (their values kept for [`env_var`] and
/// scrubbed from text), and makes the process non-dumpable.
///
/// # Safety
/// No other thread may read or change the environment while this runs: call it first thing in
/// `main`, before the async runtime starts.
pub unsafe fn seal(names: &[String]) {
    // SAFETY: the caller guarantees that no other thread touches the environment.
    let taken = unsafe { environ::take(names) };
    with_mut(|v| {
        for (name, value) in taken {
            v.scrubber
                .add(&Secret::new(format!("${name}"), value.clone()));
            v.env.insert(name, value);
        }
        withhold(v, names);
    });
    environ::forbid_dumps();
}

/// Adds secret values to scrub, and variables no child may inherit.
pub fn register<'a>(secrets: impl IntoIterator<Item = &'a Secret>, env_names: &[String]) {
    with_mut(|v| {
        for s in secrets {
            v.scrubber.add(s);
        }
        withhold(v, env_names);
    });
}

fn withhold(v: &mut Vault, names: &[String]) {
    for name in names {
        if !v.withheld.contains(name) {
            v.withheld.push(name.clone());
        }
    }
}

/// The value a secret variable had at start, once [`seal`] took it out of the environment.
pub fn env_var(name: &str) -> Option<String> {
    with(|v| v.env.get(name).cloned())
}

/// `text` with every known secret replaced by its marker (borrowed when there is none).
pub fn scrub(text: &str) -> Cow<'_, str> {
    with(|v| match v.scrubber.scrub(text) {
        Cow::Borrowed(_) => Cow::Borrowed(text),
        Cow::Owned(s) => Cow::Owned(s),
    })
}

/// `text` scrubbed where only `text[grown_from..]` is new ([`Scrubber::scrub_grown`]).
pub fn scrub_grown(text: &mut String, grown_from: usize) {
    with(|v| v.scrubber.scrub_grown(text, grown_from))
}

/// Where a text to be continued may be cut for [`scrub()`] to miss no secret
/// ([`Scrubber::safe_cut`]).
pub fn safe_cut(text: &str) -> usize {
    with(|v| v.scrubber.safe_cut(text))
}

/// [`scrub()`] of an owned text, without a copy when there is nothing to remove.
pub fn scrub_owned(text: String) -> String {
    match scrub(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(s) => s,
    }
}

/// `value` with [`scrub()`] applied to every string in it, object keys included.
pub fn scrub_json(value: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::String(s) => Value::String(scrub_owned(s)),
        Value::Array(items) => Value::Array(items.into_iter().map(scrub_json).collect()),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (scrub_owned(k), scrub_json(v)))
                .collect(),
        ),
        other => other,
    }
}

/// The variables no child process may inherit.
pub fn withheld_env() -> Vec<String> {
    with(|v| v.withheld.clone())
}
