//! Steps of a reference solution, written with selectors so they survive
//! variants: "tap the clickable row whose title is Wi-Fi or WLAN", not "tap (540, 812)".

use droidscore_phone::uiautomator::Selector;
use droidscore_phone::Key;

/// One step. Exactly one of the action fields is set (checked at load).
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Launch an app by package.
    #[serde(default)]
    pub launch: Option<String>,
    /// Open a screen by intent (`android.settings.WIFI_SETTINGS`, or `sim:<screen>`).
    #[serde(default)]
    pub open: Option<String>,
    /// Tap the first node matching; scroll the list to find it if needed.
    #[serde(default)]
    pub tap: Option<Selector>,
    /// Long-press the first node matching.
    #[serde(default)]
    pub long_press: Option<Selector>,
    /// Where in the node to tap, as fractions of its width and height (default centre).
    #[serde(default)]
    pub at: Option<[f32; 2]>,
    /// Type into the focused field.
    #[serde(default, rename = "type")]
    pub text: Option<String>,
    #[serde(default)]
    pub key: Option<Key>,
    /// A swipe: `"shade"` pulls the notification shade down from the
    /// status bar.
    #[serde(default)]
    pub swipe: Option<Swipe>,
    /// Answer the user's question (`answer` checks score it).
    #[serde(default)]
    pub answer: Option<String>,
    /// The step's instruction under `--instructions steps`, in place of the
    /// one written from the variant's screens (`task::step_instructions`);
    /// `{param}`s are filled in as in any other string of the file.
    #[serde(default)]
    pub instruction: Option<String>,
}

/// The swipes a step may make.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Swipe {
    /// Down from the middle of the status bar to the middle of the screen.
    Shade,
}

impl Step {
    /// How many action fields are set; a valid step has exactly one.
    pub(crate) fn action_count(&self) -> usize {
        [
            self.launch.is_some(),
            self.open.is_some(),
            self.tap.is_some(),
            self.long_press.is_some(),
            self.text.is_some(),
            self.key.is_some(),
            self.swipe.is_some(),
            self.answer.is_some(),
        ]
        .into_iter()
        .filter(|x| *x)
        .count()
    }
}
