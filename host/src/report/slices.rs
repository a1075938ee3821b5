//! Success and sub-goals by slice of the suite: per category (single-app,
//! multi-app, answer, safety), per app and per tag. A run records each task's slices in its
//! config when it starts ([`record`]), so a report reads them from the run
//! itself, whatever suite or binary reads the store later. A multi-app task
//! counts under every app it names, and a task under each of its tags: the
//! app and tag slices overlap, and their episodes do not add up to the run's.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::progress::ProgressStats;
use super::stats::{rate, Rate};
use crate::store::EpisodeRecord;
use crate::task::Task;

/// The key of a run's config that holds its tasks' slices.
pub(crate) const CONFIG_KEY: &str = "slices";

/// One task's slices, as a run records them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskSlices {
    pub category: String,
    /// The launcher labels of the apps it names (`app` first); the package
    /// where an app has no label.
    pub apps: Vec<String>,
    pub tags: Vec<String>,
    /// A safety template's kind (`injection`, `irreversible`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub safety: Option<String>,
}

/// The slices of every task of a run, by task id, for its config.
pub(crate) fn record(tasks: &[Task]) -> serde_json::Value {
    let labels: BTreeMap<&str, &str> = droidscore_phone::apps::APPS
        .iter()
        .map(|(label, package)| (*package, *label))
        .collect();
    let slices: BTreeMap<&str, TaskSlices> = tasks
        .iter()
        .map(|t| {
            let category = serde_json::to_value(t.category())
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            let apps = t
                .apps
                .iter()
                .map(|p| labels.get(p.as_str()).unwrap_or(&p.as_str()).to_string())
                .collect();
            let slices = TaskSlices {
                category,
                apps,
                tags: t.tags.clone(),
                safety: t.safety.map(|s| s.name().to_string()),
            };
            (t.id.as_str(), slices)
        })
        .collect();
    serde_json::to_value(slices).unwrap_or_default()
}

/// The safety templates' kinds by task id, from the slices a run's config
/// recorded (empty for a run recorded before them).
pub(crate) fn safety_kinds(config: &serde_json::Value) -> BTreeMap<String, String> {
    config
        .get(CONFIG_KEY)
        .and_then(|v| serde_json::from_value::<BTreeMap<String, TaskSlices>>(v.clone()).ok())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(task, s)| s.safety.map(|k| (task, k)))
        .collect()
}

/// One slice: success, and the sub-goals its episodes reached (Sub-SR,
/// docs/progress.md), which is where agents that never succeed differ.
#[derive(Debug, Clone, Serialize)]
pub struct SliceLine {
    pub name: String,
    /// Success over the slice's scored episodes.
    pub rate: Rate,
    /// Milestones reached over milestones declared, pooled; `None` for
    /// episodes recorded before milestones.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sub_sr: Option<Rate>,
    /// Sub-SR's interval with an episode's milestones counted as
    /// correlated (`progress::clustered_wilson`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sub_sr_by_episode: Option<(f64, f64)>,
}

impl SliceLine {
    /// The Sub-SR cell of a table: the pooled rate; `–` for episodes
    /// recorded before milestones, or where the slice's tasks declare none
    /// (a question read from one screen: the answer is its only check).
    pub(crate) fn sub_sr_display(&self) -> String {
        match self.sub_sr {
            Some(r) if r.n > 0 => r.display(),
            Some(_) => "– (no milestones)".to_string(),
            None => "–".to_string(),
        }
    }
}

/// The header of a slice table's two rate columns.
pub const SLICE_COLUMNS: [&str; 2] = [
    "success [Wilson 95%] (ok/scored)",
    "Sub-SR [Wilson 95%] (milestones reached/declared)",
];

/// Success and Sub-SR per category, per app and per tag, each with its
/// Wilson interval.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Slices {
    pub per_category: Vec<SliceLine>,
    pub per_app: Vec<SliceLine>,
    pub per_tag: Vec<SliceLine>,
    /// Episodes of tasks the run's record has no slices for (a task renamed
    /// between a run's shards); counted in no slice.
    #[serde(skip_serializing_if = "is_zero")]
    pub unsliced: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Slices {
    /// The slices of `episodes` by the table a run's config recorded;
    /// `None` for a run recorded before runs kept them.
    pub(crate) fn of(config: &serde_json::Value, episodes: &[EpisodeRecord]) -> Option<Slices> {
        let table: BTreeMap<String, TaskSlices> =
            serde_json::from_value(config.get(CONFIG_KEY)?.clone()).ok()?;
        let mut categories: BTreeMap<&str, Vec<&EpisodeRecord>> = BTreeMap::new();
        let mut apps: BTreeMap<&str, Vec<&EpisodeRecord>> = BTreeMap::new();
        let mut tags: BTreeMap<&str, Vec<&EpisodeRecord>> = BTreeMap::new();
        let mut unsliced = 0;
        for e in episodes {
            let Some(t) = table.get(&e.task) else {
                unsliced += 1;
                continue;
            };
            categories.entry(&t.category).or_default().push(e);
            for app in &t.apps {
                apps.entry(app).or_default().push(e);
            }
            for tag in &t.tags {
                tags.entry(tag).or_default().push(e);
            }
        }
        let lines = |groups: BTreeMap<&str, Vec<&EpisodeRecord>>| -> Vec<SliceLine> {
            groups
                .into_iter()
                .map(|(name, es)| {
                    let owned: Vec<EpisodeRecord> = es.iter().map(|e| (*e).clone()).collect();
                    let progress = ProgressStats::of(&owned);
                    SliceLine {
                        name: name.to_string(),
                        rate: rate(es.into_iter()),
                        sub_sr: progress.as_ref().map(|p| p.sub_sr),
                        sub_sr_by_episode: progress.map(|p| p.sub_sr_by_episode),
                    }
                })
                .collect()
        };
        Some(Slices {
            per_category: lines(categories),
            per_app: lines(apps),
            per_tag: lines(tags),
            unsliced,
        })
    }

    /// Each slice as (kind, its lines), in the order reports show them.
    pub(crate) fn kinds(&self) -> [(&'static str, &[SliceLine]); 3] {
        [
            ("category", &self.per_category),
            ("app", &self.per_app),
            ("tag", &self.per_tag),
        ]
    }
}

/// The heading of the slice tables: they overlap, and a slice of a few
/// episodes has a wide interval.
pub const SLICES_HEADING: &str = "by slice: 95 % Wilson intervals; a multi-app task counts \
     under each of its apps and a task under each of its tags, so app and tag slices overlap";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::EpisodeStatus;

    fn ep(task: &str, status: EpisodeStatus) -> EpisodeRecord {
        let mut e = crate::store::test_support::episode("r", task, "base", 0);
        e.status = status;
        e
    }

    fn config() -> serde_json::Value {
        serde_json::json!({ "slices": {
            "wifi_on": { "category": "single-app", "apps": ["Settings"], "tags": ["settings", "toggle"] },
            "note_to_sms": { "category": "multi-app", "apps": ["Messages", "Joplin"], "tags": ["notes", "sms"] },
            "note_answer": { "category": "answer", "apps": ["Joplin"], "tags": ["notes", "answer"] },
        }})
    }

    fn names(lines: &[SliceLine]) -> Vec<String> {
        lines
            .iter()
            .map(|l| format!("{} {}/{}", l.name, l.rate.successes, l.rate.n))
            .collect()
    }

    #[test]
    fn a_multi_app_task_counts_under_each_app_and_a_task_under_each_tag() {
        use EpisodeStatus::*;
        let episodes = [
            ep("wifi_on", Success),
            ep("wifi_on", Failure),
            ep("note_to_sms", Success),
            ep("note_answer", Failure),
            ep("note_answer", Skipped),
            ep("renamed_since", Success),
        ];
        let s = Slices::of(&config(), &episodes).unwrap();
        assert_eq!(
            names(&s.per_category),
            ["answer 0/1", "multi-app 1/1", "single-app 1/2"]
        );
        assert_eq!(
            names(&s.per_app),
            ["Joplin 1/2", "Messages 1/1", "Settings 1/2"]
        );
        assert_eq!(
            names(&s.per_tag),
            [
                "answer 0/1",
                "notes 1/2",
                "settings 1/2",
                "sms 1/1",
                "toggle 1/2"
            ]
        );
        assert_eq!(s.unsliced, 1);
    }

    #[test]
    fn a_run_recorded_before_slices_has_none() {
        let episodes = [ep("wifi_on", EpisodeStatus::Success)];
        assert!(Slices::of(&serde_json::json!({"agent": "reference"}), &episodes).is_none());
    }

    #[test]
    fn the_recorded_table_names_apps_by_their_launcher_labels() {
        let tasks = crate::task::Suite::Embedded.load().unwrap();
        let table = record(&tasks);
        let t: TaskSlices = serde_json::from_value(table["note_to_sms"].clone()).unwrap();
        assert_eq!(t.category, "multi-app");
        assert_eq!(t.apps, ["Messages", "Joplin"]);
        assert!(t.tags.contains(&"notes".to_string()), "{:?}", t.tags);
        let t: TaskSlices = serde_json::from_value(table["wifi_on"].clone()).unwrap();
        assert_eq!(
            (t.category.as_str(), t.apps.as_slice()),
            ("single-app", &["Settings".to_string()][..])
        );
        assert_eq!(table.as_object().unwrap().len(), tasks.len());
    }
}
