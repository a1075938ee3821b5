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

impl FromStr for SettingKey {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (ns, name) = s
            .split_once('/')
            .ok_or_else(|| format!("setting {s:?} is not of the form namespace/key"))?;
        let namespace = match ns {
            "global" => Namespace::Global,
            "system" => Namespace::System,
            "secure" => Namespace::Secure,
            other => {
                return Err(format!(
                    "setting {s:?}: namespace {other:?} is not global, system or secure"
                ))
            }
        };
        let valid = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
        if !valid {
            return Err(format!("setting {s:?}: key {name:?} is not a settings key"));
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
