//! The model id requests are sent with, shared between the chat and whoever may change it
//! (`/model`), so a change made during a turn applies from the next request.

use std::sync::{Arc, RwLock};

#[derive(Debug, Clone, Default)]
pub struct SharedModel(Arc<RwLock<String>>);

impl SharedModel {
    pub fn new(model: impl Into<String>) -> Self {
        Self(Arc::new(RwLock::new(model.into())))
    }

    pub fn get(&self) -> String {
        self.0.read().map(|m| m.clone()).unwrap_or_default()
    }

    pub fn set(&self, model: impl Into<String>) {
        if let Ok(mut m) = self.0.write() {
            *m = model.into();
        }
    }
}
