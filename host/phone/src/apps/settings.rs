//! The Settings app as data (`fixtures/sim/settings.toml`): its screens, rows
//! and the state keys they read and write with their defaults, validated once
//! at first use; and the rows of a screen as a variant reorders and decorates
//! them. The simulator draws it; the oracle watches its keys on every phone.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::variant::Variant;

/// A Settings app definition (`fixtures/sim/settings.toml`) that is wrong.
#[derive(Debug, thiserror::Error)]
pub enum DefinitionError {
    #[error("{0}")]
    Toml(#[from] toml::de::Error),
    /// `at` names the screen and row.
    #[error("{at}: {problem}")]
    Row { at: String, problem: RowProblem },
}

/// What is wrong with one row of the definition.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RowProblem {
    #[error("more than one of to/switch/main_switch/slider/radio/toggle_button/info")]
    Kinds,
    #[error("key {0:?} has no default in [defaults]")]
    NoDefault(String),
    #[error("curve {0:?} is not \"android_brightness\"")]
    Curve(String),
    #[error("to = {0:?} names no screen")]
    NoScreen(String),
    #[error("when = {0:?} is not key=value")]
    When(String),
    #[error("when names unknown key {0:?}")]
    WhenKey(String),
}

/// A variant that names a screen or row the Settings app does not have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnknownRow {
    #[error("screen {0:?} does not exist")]
    Screen(String),
    #[error("reorder: screen {screen:?} has no row {title:?}")]
    Reorder { screen: String, title: String },
    #[error("decoy {decoy:?}: screen {screen:?} has no row {after:?}")]
    Decoy {
        decoy: String,
        screen: String,
        after: String,
    },
}

const SETTINGS_TOML: &str = include_str!("../../../../fixtures/sim/settings.toml");

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SettingsApp {
    /// Every state key the simulator knows, with its value on a fresh phone.
    pub defaults: BTreeMap<String, String>,
    pub screen: Vec<ScreenDef>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScreenDef {
    pub id: String,
    pub title: String,
    #[serde(default)]
    pub intents: Vec<String>,
    pub rows: Vec<RowDef>,
}

#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RowDef {
    pub title: String,
    #[serde(default)]
    pub summary: Option<String>,
    #[serde(default)]
    pub summary_of: Option<String>,
    #[serde(default)]
    pub summaries: BTreeMap<String, String>,
    #[serde(default)]
    pub icon: bool,
    #[serde(default)]
    pub to: Option<String>,
    #[serde(default)]
    pub switch: Option<String>,
    #[serde(default)]
    pub main_switch: Option<String>,
    #[serde(default)]
    pub on: Option<String>,
    #[serde(default)]
    pub off: Option<String>,
    #[serde(default)]
    pub slider: Option<String>,
    #[serde(default)]
    pub min: Option<i64>,
    #[serde(default)]
    pub max: Option<i64>,
    /// `"android_brightness"`: the slider follows Android's brightness curve
    /// (see `sim::brightness`); otherwise it is linear from `min` to `max`.
    #[serde(default)]
    pub curve: Option<String>,
    #[serde(default)]
    pub radio: Option<String>,
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub toggle_button: Option<String>,
    #[serde(default)]
    pub text_on: Option<String>,
    #[serde(default)]
    pub text_off: Option<String>,
    #[serde(default)]
    pub info: bool,
    #[serde(default)]
    pub when: Option<String>,
}

impl RowDef {
    /// The state key this row reads or writes, if any.
    pub fn key(&self) -> Option<&str> {
        [
            &self.switch,
            &self.main_switch,
            &self.slider,
            &self.radio,
            &self.toggle_button,
        ]
        .into_iter()
        .find_map(|k| k.as_deref())
    }
}

impl SettingsApp {
    /// The bundled app definition. It is validated by a unit test, so a broken
    /// fixture fails the build's tests rather than a user's run.
    pub fn get() -> &'static SettingsApp {
        static APP: OnceLock<SettingsApp> = OnceLock::new();
        APP.get_or_init(|| match SettingsApp::parse(SETTINGS_TOML) {
            Ok(app) => app,
            Err(e) => panic!("fixtures/sim/settings.toml is invalid: {e}"),
        })
    }

    pub fn parse(text: &str) -> Result<SettingsApp, DefinitionError> {
        let app: SettingsApp = toml::from_str(text)?;
        app.validate()?;
        Ok(app)
    }

    fn validate(&self) -> Result<(), DefinitionError> {
        for screen in &self.screen {
            for (i, row) in screen.rows.iter().enumerate() {
                let at = || format!("screen {:?} row {i} ({:?})", screen.id, row.title);
                let wrong = |problem| DefinitionError::Row { at: at(), problem };
                let kinds = [
                    &row.switch,
                    &row.main_switch,
                    &row.slider,
                    &row.radio,
                    &row.toggle_button,
                    &row.to,
                ]
                .iter()
                .filter(|k| k.is_some())
                .count()
                    + usize::from(row.info);
                if kinds > 1 {
                    return Err(wrong(RowProblem::Kinds));
                }
                for key in row.key().into_iter().chain(row.summary_of.as_deref()) {
                    if !self.defaults.contains_key(key) {
                        return Err(wrong(RowProblem::NoDefault(key.to_string())));
                    }
                }
                if let Some(curve) = row.curve.as_deref().filter(|c| *c != "android_brightness") {
                    return Err(wrong(RowProblem::Curve(curve.to_string())));
                }
                if let Some(to) = &row.to {
                    if self.screen(to).is_none() {
                        return Err(wrong(RowProblem::NoScreen(to.clone())));
                    }
                }
                if let Some(when) = &row.when {
                    let (key, _) = when
                        .split_once('=')
                        .ok_or_else(|| wrong(RowProblem::When(when.clone())))?;
                    if !self.defaults.contains_key(key) {
                        return Err(wrong(RowProblem::WhenKey(key.to_string())));
                    }
                }
            }
        }
        Ok(())
    }

    pub fn screen(&self, id: &str) -> Option<&ScreenDef> {
        self.screen.iter().find(|s| s.id == id)
    }

    /// The screen an intent opens, if any.
    pub(crate) fn screen_for_intent(&self, intent: &str) -> Option<&ScreenDef> {
        self.screen
            .iter()
            .find(|s| s.intents.iter().any(|i| i == intent))
    }

    /// The rows of `screen` as `variant` shows them: reordered, with decoys inserted.
    /// Decoy rows come back as switch or navigation rows keyed `app/decoy.*`.
    pub fn rows(&self, screen: &ScreenDef, variant: &Variant) -> Vec<RowDef> {
        let mut rows = screen.rows.clone();
        for reorder in variant.reorder.iter().filter(|r| r.screen == screen.id) {
            if reorder.reverse {
                rows.reverse();
            }
            let mut first = Vec::new();
            for title in &reorder.first {
                if let Some(at) = rows.iter().position(|r| &r.title == title) {
                    first.push(rows.remove(at));
                }
            }
            first.append(&mut rows);
            rows = first;
        }
        for decoy in variant.decoys.iter().filter(|d| d.screen == screen.id) {
            let row = RowDef {
                title: decoy.title.clone(),
                summary: decoy.summary.clone(),
                switch: decoy.switch.then(|| decoy.key()),
                ..RowDef::default()
            };
            let at = match &decoy.after {
                Some(after) => rows
                    .iter()
                    .position(|r| &r.title == after)
                    .map_or(rows.len(), |i| i + 1),
                None => 0,
            };
            rows.insert(at, row);
        }
        rows
    }

    /// Check that a variant names only screens and rows that exist.
    pub(crate) fn check_variant(&self, variant: &Variant) -> Result<(), UnknownRow> {
        let screen = |id: &str| {
            self.screen(id)
                .ok_or_else(|| UnknownRow::Screen(id.to_string()))
        };
        for r in &variant.reorder {
            let s = screen(&r.screen)?;
            for title in &r.first {
                if !s.rows.iter().any(|row| &row.title == title) {
                    return Err(UnknownRow::Reorder {
                        screen: r.screen.clone(),
                        title: title.clone(),
                    });
                }
            }
        }
        for d in &variant.decoys {
            let s = screen(&d.screen)?;
            if let Some(after) = &d.after {
                if !s.rows.iter().any(|row| &row.title == after) {
                    return Err(UnknownRow::Decoy {
                        decoy: d.title.clone(),
                        screen: d.screen.clone(),
                        after: after.clone(),
                    });
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::{Decoy, Reorder};

    #[test]
    fn bundled_settings_fixture_is_valid() {
        let app = SettingsApp::parse(SETTINGS_TOML).unwrap();
        assert!(app.screen("settings").is_some());
        assert_eq!(
            app.screen_for_intent("android.settings.WIFI_SETTINGS")
                .unwrap()
                .id,
            "settings.internet"
        );
    }

    #[test]
    fn a_row_naming_a_missing_screen_is_rejected() {
        let text = "[defaults]\n[[screen]]\nid = \"a\"\ntitle = \"A\"\nrows = [{ title = \"x\", to = \"nowhere\" }]\n";
        let err = SettingsApp::parse(text).unwrap_err().to_string();
        assert!(err.contains("names no screen"), "{err}");
    }

    #[test]
    fn variant_reorders_then_inserts_decoys() {
        let app = SettingsApp::get();
        let screen = app.screen("settings.network").unwrap();
        let variant = Variant {
            reorder: vec![Reorder {
                screen: screen.id.clone(),
                first: vec!["Airplane mode".into()],
                reverse: false,
            }],
            decoys: vec![Decoy {
                screen: screen.id.clone(),
                after: Some("Airplane mode".into()),
                title: "Airplane mode scheduling".into(),
                summary: None,
                switch: true,
            }],
            ..Variant::default()
        };
        let rows = app.rows(screen, &variant);
        assert_eq!(rows[0].title, "Airplane mode");
        assert_eq!(rows[1].title, "Airplane mode scheduling");
        assert_eq!(
            rows[1].switch.as_deref(),
            Some("app/decoy.airplane_mode_scheduling")
        );
        assert_eq!(rows[2].title, "Internet");
    }
}
