//! Model selection as ACP's session configuration option (stable in protocol v1 / schema
//! 1.17): one `select` option `model` of category `model`, whose values are the endpoint's
//! models (its `/v1/models` list, asked once when the session opens, with the model in use
//! among them). `session/set_config_option` switches the model as `/model` does (from the next
//! request, also during a prompt). Pure, but for the list asked in [`listed`].
//!
//! It refuses a value that is not in the list, and any other option id.

use std::time::Duration;

use agent_client_protocol::v1::schema::{
    SessionConfigOption, SessionConfigOptionCategory, SessionConfigSelectOption,
};

use crate::provider::Client;

/// The option's id.
pub const MODEL: &str = "model";

/// The models a session offers, and the one in use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Models {
    pub current: String,
    pub list: Vec<String>,
}

impl Models {
    /// `current` first when the list does not have it.
    pub fn new(current: String, listed: Vec<String>) -> Self {
        let mut list = listed;
        if !list.contains(&current) {
            list.insert(0, current.clone());
        }
        Models { current, list }
    }

    /// The session's configuration options.
    pub fn options(&self) -> Vec<SessionConfigOption> {
        let values: Vec<SessionConfigSelectOption> = self
            .list
            .iter()
            .map(|m| SessionConfigSelectOption::new(m.clone(), m.clone()))
            .collect();
        vec![
            SessionConfigOption::select(MODEL, "Model", self.current.clone(), values)
                .category(SessionConfigOptionCategory::Model)
                .description("The model the next request goes to".to_owned()),
        ]
    }

    /// Chooses `value` for option `id`: the model now in use, or why not.
    pub fn choose(&mut self, id: &str, value: Option<&str>) -> Result<String, String> {
        if id != MODEL {
            return Err(format!(
                "no configuration option `{id}` (there is `{MODEL}`)"
            ));
        }
        let value = value.ok_or("`model` takes one of its values, not a boolean")?;
        if !self.list.iter().any(|m| m == value) {
            return Err(format!(
                "no model `{value}` at this endpoint: {}",
                self.list.join(", ")
            ));
        }
        self.current = value.to_owned();
        Ok(self.current.clone())
    }
}

/// The endpoint's models, when it lists them within a few seconds (else none).
pub async fn listed(client: &Client) -> Vec<String> {
    match tokio::time::timeout(Duration::from_secs(3), client.list_models()).await {
        Ok(Ok(list)) => list,
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_in_use_is_always_offered_and_only_offered_ones_are_chosen() {
        let mut m = Models::new("b".into(), vec!["a".into(), "b".into()]);
        assert_eq!(m.list, ["a", "b"]);
        let o = serde_json::to_value(m.options()).unwrap();
        assert_eq!(o[0]["id"], "model");
        assert_eq!(o[0]["category"], "model");
        assert_eq!(o[0]["type"], "select");
        assert_eq!(o[0]["currentValue"], "b");
        assert_eq!(
            o[0]["options"][0],
            serde_json::json!({"value": "a", "name": "a"})
        );
        assert_eq!(m.choose("model", Some("a")), Ok("a".into()));
        assert_eq!(m.current, "a");
        assert!(m.choose("model", Some("zz")).is_err());
        assert!(m.choose("mode", Some("a")).is_err());
        assert!(m.choose("model", None).is_err());
        assert_eq!(m.current, "a", "a refused choice changes nothing");
        let unlisted = Models::new("local".into(), Vec::new());
        assert_eq!(unlisted.list, ["local"]);
    }
}
