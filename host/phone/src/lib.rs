//! droidscore-phone: the phone layer. One trait every phone implements
//! ([`Phone`]: the in-process simulator, a phone over adb) and the small
//! vocabulary it speaks (device actions, settings keys, observations, intents,
//! capabilities), the [`DeployTarget`] an on-device program is pushed to, and
//! the phones themselves:
//!
//! - `uiautomator`: the dump format (parse, serialize, select, element lists);
//! - `records`: the simulated world's rows (contacts, messages, calls, events,
//!   files) and the content-provider URIs that read them;
//! - `apps`: the apps a phone runs, as data (catalogue, Settings, variants,
//!   alarms, the setup a phone starts from);
//! - `sim`: the simulator, which emits real uiautomator XML and PNG screenshots;
//! - `adb`: phones through the adb server (`adb_client`);
//! - `adbd`: adb's own wire protocol served, so the real `adb` reaches a phone
//!   this crate implements;
//! - `vphone`: the virtual phone, the simulator answering adb shell commands.
//!
//! It knows nothing of tasks, oracles, agents or runs: the `droidscore` crate
//! prepares a phone for a task instance through [`apps::PhoneSetup`], and the
//! virtual phone loads a task variant through [`vphone::Setups`].

pub mod adb;
pub mod adbd;
pub mod appdb;
pub mod apps;
mod condition;
mod deploy;
pub mod keycode;
pub mod records;
mod setting;
pub mod sim;
pub mod uiautomator;
pub mod vphone;

pub use condition::{Condition, UnknownCondition};
pub use deploy::DeployTarget;
pub use setting::{Namespace, SettingKey, SettingKeyError};

use crate::uiautomator::Hierarchy;

/// What the phone shows right now. Taking it never changes the phone's state.
#[derive(Debug, Clone)]
pub struct Observation {
    /// The dump exactly as the phone produced it (uiautomator's one-line form).
    pub xml: String,
    pub hierarchy: Hierarchy,
    /// PNG bytes, when asked for and the phone can take screenshots.
    pub screenshot: Option<Vec<u8>>,
    /// Package of the foreground window, e.g. `com.android.settings`.
    pub foreground: String,
    /// Where the time went, on phones reached over a transport (adb).
    pub timing: Option<ObserveTiming>,
}

/// Width and height from a PNG's header: the screenshot's own size.
pub fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    let reader =
        image::ImageReader::with_format(std::io::Cursor::new(png), image::ImageFormat::Png);
    reader.into_dimensions().ok()
}

#[cfg(test)]
#[test]
fn png_size_reads_the_header() {
    let mut png = Vec::new();
    image::RgbImage::new(108, 240)
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    assert_eq!(png_size(&png), Some((108, 240)));
    assert_eq!(png_size(b"GIF89a"), None);
    assert_eq!(png_size(&png[..20]), None, "a header cut short");
}

/// Read one state key: `ns/key` through `settings get`, `app/…` as app data.
pub fn read_key(phone: &mut dyn Phone, key: &str) -> Result<Option<String>, PhoneError> {
    if key.starts_with("app/") {
        return phone.read_app(key);
    }
    let setting: SettingKey = key.parse()?;
    phone.read_setting(&setting)
}

/// How long one observation took over adb, milliseconds, by part.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct ObserveTiming {
    /// `uiautomator dump` to a file, every attempt included.
    pub dump_ms: f64,
    /// Dump attempts (more than 1 when uiautomator could not get an idle state).
    pub dump_attempts: u32,
    /// Reading the dump back (`cat`).
    pub read_ms: f64,
    /// Raw `screencap` over the wire (0 without a screenshot).
    pub screencap_ms: f64,
    /// Encoding the raw screenshot as PNG on the host.
    pub png_ms: f64,
    /// The foreground package (`dumpsys window`).
    pub foreground_ms: f64,
    pub total_ms: f64,
}

/// Hardware and navigation keys (`input keyevent`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Key {
    Back,
    Home,
    Enter,
}

impl Key {
    /// The Android `KeyEvent` code `input keyevent` takes.
    pub fn keycode(self) -> u32 {
        match self {
            Key::Home => 3,
            Key::Back => 4,
            Key::Enter => 66,
        }
    }
}

/// One thing done to the phone, in device coordinates. This is the lowest level:
/// agents' actions (element indexes, scroll directions) are resolved to these.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DeviceAction {
    Tap {
        x: i32,
        y: i32,
    },
    LongPress {
        x: i32,
        y: i32,
    },
    Swipe {
        x1: i32,
        y1: i32,
        x2: i32,
        y2: i32,
        duration_ms: u32,
    },
    /// Type into the focused field (`input text`).
    Text {
        text: String,
    },
    Key {
        key: Key,
    },
    /// Launch an app's main activity by package name.
    Launch {
        package: String,
    },
    /// Two taps at one point within the double-tap timeout.
    DoubleTap {
        x: i32,
        y: i32,
    },
    /// Press, hold, move to the end point and release: a drag and drop
    /// (a long press that moves), unlike a swipe's fling.
    Drag {
        x1: i32,
        y1: i32,
        x2: i32,
        y2: i32,
        duration_ms: u32,
    },
    /// Any other key code (`input keyevent N`): see [`keycode`].
    Keycode {
        code: u32,
    },
    /// Empty the focused text field.
    ClearText,
}

/// A swipe over half of a list's height that moves its content towards the
/// end (`forward`) or the start. The reference solver and the UI oracle both
/// page through lists with it.
pub fn scroll_action(list: crate::uiautomator::Bounds, forward: bool) -> DeviceAction {
    let x = list.center().0;
    let (low, high) = (
        list.top + list.height() * 3 / 4,
        list.top + list.height() / 4,
    );
    let (y1, y2) = if forward { (low, high) } else { (high, low) };
    DeviceAction::Swipe {
        x1: x,
        y1,
        x2: x,
        y2,
        duration_ms: 300,
    }
}

/// A screen the scorer may open to read state from the UI: an activity intent
/// action (`am start -a …`) or a component (`am start -n pkg/.Activity`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Intent(pub String);

/// What a backend can do beyond the trait's minimum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Capabilities {
    pub screenshots: bool,
    /// Every state write is recorded (which control, from, to, step): simulator only.
    pub flip_history: bool,
    /// App data (alarms, decoy state) is readable directly: simulator only.
    pub app_data: bool,
}

/// One state write recorded by a phone with flip history.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Flip {
    /// What was operated, e.g. `setting:global/wifi_on`, `decoy:wifi_calling`, `alarm:2/enabled`.
    pub key: String,
    /// The label the control showed when it was operated.
    pub control: String,
    pub from: String,
    pub to: String,
    /// The number of device actions taken before this write (0-based step).
    pub step: u32,
}

/// Errors at the phone boundary.
#[derive(Debug, thiserror::Error)]
pub enum PhoneError {
    #[error("phone does not support {0}")]
    Unsupported(String),
    #[error("unknown intent {0:?}")]
    UnknownIntent(String),
    #[error("unknown app package {0:?}")]
    UnknownPackage(String),
    /// The phone cannot do this one action as asked (text `input text` cannot
    /// type, with no ADBKeyBoard): recorded on the step, the phone carries on.
    #[error("refused: {0}")]
    Refused(String),
    #[error("{0}")]
    Device(String),
    /// A state key that is no setting (`namespace/key`).
    #[error(transparent)]
    BadKey(#[from] SettingKeyError),
}

impl PhoneError {
    /// The phone refused this one action (an app or intent it does not have),
    /// as `monkey` or `am start` print an error and the phone carries on: an
    /// invalid step for the agent, not a failure of the phone.
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            PhoneError::UnknownIntent(_) | PhoneError::UnknownPackage(_) | PhoneError::Refused(_)
        )
    }
}

/// A phone that can be observed, acted on and read. `observe` and `read_setting`
/// must not change state: reading the screen never turns anything on.
pub trait Phone: Send {
    fn capabilities(&self) -> Capabilities;
    fn observe(&mut self, screenshot: bool) -> Result<Observation, PhoneError>;
    fn act(&mut self, action: &DeviceAction) -> Result<(), PhoneError>;
    /// `settings get <namespace> <key>`; `None` when the key is unset (`null`).
    fn read_setting(&mut self, key: &SettingKey) -> Result<Option<String>, PhoneError>;
    /// Simulator app data (`app/…` keys): phones without it say `Unsupported`.
    fn read_app(&mut self, key: &str) -> Result<Option<String>, PhoneError> {
        Err(PhoneError::Unsupported(format!("app data ({key})")))
    }
    /// The app-data keys this phone holds beyond the simulator's fixed set
    /// (a variant's decoy switches, the alarm list), for `unchanged` checks.
    fn app_keys(&self) -> Vec<String> {
        Vec::new()
    }
    /// Every record of `table` (contacts, messages, …) as the phone's own
    /// providers hold them: the simulator from its store, a phone over adb
    /// with `content query` (files with `find` and `stat`).
    fn records(
        &mut self,
        table: crate::records::Table,
    ) -> Result<Vec<crate::records::Record>, PhoneError> {
        Err(PhoneError::Unsupported(format!("{table} records")))
    }
    /// Open a screen by intent, for oracles that read state from the UI.
    fn open(&mut self, intent: &Intent) -> Result<(), PhoneError>;
    /// An independent copy in the same state, where the backend can make one
    /// (the simulator): the scorer navigates on it so scoring never disturbs.
    fn fork(&self) -> Option<Box<dyn Phone>> {
        None
    }
    /// Every state write so far, on phones that record them.
    fn flip_history(&self) -> Option<&[Flip]> {
        None
    }
    /// Why the phone stopped answering (lost, or past a deadline), if it
    /// has since it was last prepared or recovered. A check that could not
    /// read the phone then is no verdict on the agent (not `skipped`): the
    /// episode is an infrastructure failure, run again.
    fn lost(&self) -> Option<&str> {
        None
    }
}
