//! Variants: declarative changes to what the agent sees — a renamed control,
//! reordered rows, a plausible decoy — and to where the phone starts. A variant
//! never changes what an oracle reads: decoys write only their own `app/decoy.*`
//! keys, and renames touch labels, never keys.

use std::collections::BTreeMap;

use super::Alarm;
use crate::records::InitialRecord;

#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Variant {
    pub id: String,
    /// Exact label → label shown instead, applied to every text and content-desc.
    #[serde(default)]
    pub rename: BTreeMap<String, String>,
    #[serde(default)]
    pub reorder: Vec<Reorder>,
    #[serde(default)]
    pub decoys: Vec<Decoy>,
    /// Initial state on top of the task's (`"global/wifi_on" = "1"`).
    #[serde(default)]
    pub initial: BTreeMap<String, String>,
    /// Alarms present at the start, replacing the task's list when given.
    #[serde(default)]
    pub alarms: Option<Vec<Alarm>>,
    /// Goal parameters overriding the task's.
    #[serde(default)]
    pub params: BTreeMap<String, String>,
    /// Records added to the task's (a decoy contact, a reordering of a list
    /// by an extra row): `{ table = "contacts", display_name = "…" }`.
    #[serde(default)]
    pub records: Vec<InitialRecord>,
}

/// Rows of `screen` listed in `first` (by their original titles) move to the top
/// in that order; with `reverse`, the whole list is reversed first.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reorder {
    pub screen: String,
    #[serde(default)]
    pub first: Vec<String>,
    #[serde(default)]
    pub reverse: bool,
}

/// A row that looks like the target but is not it. A switch decoy has its own
/// state under `app/decoy.<slug>`; other decoys open an empty page.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Decoy {
    pub screen: String,
    /// Original title of the row the decoy goes right after (at the top when absent).
    #[serde(default)]
    pub after: Option<String>,
    pub title: String,
    #[serde(default)]
    pub summary: Option<String>,
    #[serde(default)]
    pub switch: bool,
}

impl Decoy {
    /// The state key a switch decoy writes.
    pub fn key(&self) -> String {
        let slug: String = self
            .title
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .collect();
        format!("app/decoy.{slug}")
    }
}

impl Variant {
    /// The label shown for `label` under this variant.
    pub fn label<'a>(&'a self, label: &'a str) -> &'a str {
        self.rename.get(label).map(String::as_str).unwrap_or(label)
    }
}
