//! The model server a run uses when no `--base-url` is given, whichever
//! place it runs: what the run needs of it (its base URL, model, whether it
//! reads images, its `/health`) and what goes into the run's config.

use droidscore_contract::health::Health;

use crate::agent::ApiKey;

use super::local::LocalServer;
use super::on_phone::OnPhone;

/// The model server a run uses when no `--base-url` is given: started on
/// this machine for the run, or deployed to the phone (`--on-device`).
#[derive(Debug)]
pub enum Served {
    Local(LocalServer),
    OnPhone(OnPhone),
}

impl Served {
    pub fn base_url(&self) -> &str {
        match self {
            Served::Local(s) => &s.base_url,
            Served::OnPhone(s) => &s.base_url,
        }
    }

    pub fn model(&self) -> &str {
        match self {
            Served::Local(s) => &s.model,
            Served::OnPhone(s) => &s.model,
        }
    }

    pub fn text_only(&self) -> bool {
        match self {
            Served::Local(s) => s.text_only(),
            Served::OnPhone(s) => s.text_only(),
        }
    }

    /// The bearer token its requests need: a deployed server's; none for
    /// one started on this machine's loopback for the run.
    pub fn token(&self) -> Option<&ApiKey> {
        match self {
            Served::Local(_) => None,
            Served::OnPhone(s) => Some(&s.token),
        }
    }

    pub fn health(&self) -> &Health {
        match self {
            Served::Local(s) => &s.health,
            Served::OnPhone(s) => &s.health,
        }
    }

    /// Into the run's config: where the model ran (`base_url`, the port
    /// left out) and the server's settings.
    pub fn record(&self, config: &mut serde_json::Value) {
        let (place, key, settings) = match self {
            Served::Local(s) => ("local", "local_server", s.config()),
            Served::OnPhone(s) => ("on-device", "device_server", s.config()),
        };
        config["base_url"] = place.into();
        config["model"] = self.model().into();
        config[key] = settings;
    }
}
