//! Settings keys as `settings get` names them: a namespace and a key, written
//! `global/wifi_on` in task files.

use std::fmt;
use std::str::FromStr;

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Namespace {
    Global,
    System,
    Secure,
}

impl Namespace {
    pub fn as_str(self) -> &'static str {
        match self {
            Namespace::Global => "global",
            Namespace::System => "system",
            Namespace::Secure => "secure",
        }
    }
}

/// A settings key such as `global/wifi_on`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SettingKey {
    pub namespace: Namespace,
    pub name: String,
}

impl SettingKey {
    pub fn new(namespace: Namespace, name: &str) -> Self {
        Self {
            namespace,
            name: name.to_string(),
        }
    }
}

impl fmt::Display for SettingKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.namespace.as_str(), self.name)
    }
}

/// Why a text is not a `namespace/key` setting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingKeyError {
    #[error("setting {0:?} is not of the form namespace/key")]
    NoNamespace(String),
    #[error("setting {text:?}: namespace {namespace:?} is not global, system or secure")]
    Namespace { text: String, namespace: String },
    #[error("setting {text:?}: key {key:?} is not a settings key")]
    Key { text: String, key: String },
}

impl FromStr for SettingKey {
    type Err = SettingKeyError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (ns, name) = s
            .split_once('/')
            .ok_or_else(|| SettingKeyError::NoNamespace(s.to_string()))?;
        let namespace = match ns {
            "global" => Namespace::Global,
            "system" => Namespace::System,
            "secure" => Namespace::Secure,
            other => {
                return Err(SettingKeyError::Namespace {
                    text: s.to_string(),
                    namespace: other.to_string(),
                })
            }
        };
        let valid = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
        if !valid {
            return Err(SettingKeyError::Key {
                text: s.to_string(),
                key: name.to_string(),
            });
        }
        Ok(SettingKey::new(namespace, name))
    }
}

impl serde::Serialize for SettingKey {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for SettingKey {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}
