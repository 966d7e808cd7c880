//! Which model client serves a model name. A session started on the mock stays on it
//! (so `set_model` in tests never reaches the network).

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use crate::model::anthropic::{AnthropicClient, AnthropicConfig};
use crate::model::mock::MockClient;
use crate::model::{ModelClient, ModelError};
use crate::options::SessionOptions;

use super::models;

pub struct Clients {
    mock: Arc<MockClient>,
    mock_session: bool,
    anthropic: OnceLock<Result<Arc<AnthropicClient>, String>>,
    anthropic_config: AnthropicConfig,
    api_key_source: &'static str,
}

impl Clients {
    pub fn new(opts: &SessionOptions, env: &BTreeMap<String, String>) -> Result<Clients, String> {
        let script = opts
            .mock_script
            .clone()
            .or_else(|| env.get("DCL_MOCK_SCRIPT").map(Into::into));
        let mock = match script {
            Some(path) => MockClient::from_script(&path).map_err(|e| e.to_string())?,
            None => MockClient::new(),
        };
        let requested = opts.model.clone().or_else(|| env.get("DCL_MODEL").cloned());
        let mock_session = requested.as_deref().is_some_and(models::is_mock);
        if let Some(fmt) = opts.api_format.as_deref()
            && fmt != "anthropic"
        {
            return Err(format!(
                "--api-format {fmt}: only \"anthropic\" is supported by this dcl build"
            ));
        }
        let mut anthropic_config = AnthropicConfig::from_env_map(env);
        if let Some(url) = &opts.base_url {
            anthropic_config.base_url = url.trim_end_matches('/').to_string();
        }
        if let Some(key) = &opts.api_key {
            anthropic_config.api_key = Some(key.clone());
        }
        let api_key_source = if mock_session {
            "none"
        } else if anthropic_config.api_key.is_some() {
            "ANTHROPIC_API_KEY"
        } else if anthropic_config.auth_token.is_some() {
            "ANTHROPIC_AUTH_TOKEN"
        } else {
            "none"
        };
        Ok(Clients {
            mock: Arc::new(mock),
            mock_session,
            anthropic: OnceLock::new(),
            anthropic_config,
            api_key_source,
        })
    }

    pub fn default_model(&self) -> &'static str {
        if self.mock_session {
            models::MOCK_MODEL
        } else {
            models::DEFAULT_ANTHROPIC_MODEL
        }
    }

    pub fn api_key_source(&self) -> &'static str {
        self.api_key_source
    }

    pub fn client_for(&self, model: &str) -> Result<Arc<dyn ModelClient>, ModelError> {
        if self.mock_session || models::is_mock(model) {
            return Ok(self.mock.clone());
        }
        let built = self.anthropic.get_or_init(|| {
            if self.anthropic_config.api_key.is_none() && self.anthropic_config.auth_token.is_none() {
                return Err(format!(
                    "No API key for model {model}: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), or use --model mock-model"
                ));
            }
            AnthropicClient::new(self.anthropic_config.clone())
                .map(Arc::new)
                .map_err(|e| e.to_string())
        });
        match built {
            Ok(c) => Ok(c.clone()),
            Err(e) => Err(ModelError::Config(e.clone())),
        }
    }
}
