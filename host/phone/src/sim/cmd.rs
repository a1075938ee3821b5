//! What a tap on a simulator view does, and the navigation vocabulary
//! (screens, Clock tabs, dialogs, text fields) those commands move between.

use std::collections::BTreeMap;

use crate::apps::defs::{Action, ItemDef, Part};
use crate::records::Table;

/// A command bound to a view; the simulator executes it when the view is tapped.
/// Writes carry their target value, resolved when the screen was laid out.
#[derive(Debug, Clone, PartialEq)]
pub enum Cmd {
    /// Push a Settings screen by id.
    Open(String),
    /// Push an empty page (a row the simulator does not model).
    OpenBlank {
        title: String,
        package: String,
    },
    Back,
    Home,
    /// The Overview (recents) button, as `KEYCODE_APP_SWITCH`: opens the
    /// recent tasks, or closes them.
    Overview,
    /// Overview's "Clear all": every recent task is gone.
    ClearRecents,
    Launch(String),
    /// Write `value` to `key`; `control` is the label shown, for flip history.
    Write {
        key: String,
        value: String,
        control: String,
    },
    /// Set `key` from the tap's x position within the slider's bounds.
    Slider {
        key: String,
        scale: Scale,
        control: String,
    },
    Focus(Field),
    AlarmSwitch {
        id: u32,
        on: bool,
    },
    AlarmExpand(u32),
    AlarmDelete(u32),
    AlarmLabel(u32),
    AddAlarm,
    DialogOk,
    DialogCancel,
    ClockTab(ClockTab),
    /// A command of a data-defined app (`sim::engine` runs it).
    App(AppCmd),
    /// A notification in the shade: its app comes to the front, at
    /// `screen` (`app:screen`, with `params`) where it names one, else at
    /// the app's own first screen.
    Notification {
        package: String,
        screen: Option<String>,
        params: BTreeMap<String, String>,
    },
    /// A tap that lands and does nothing (search bars, static rows).
    Nothing,
}

/// Where the app window is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Screen {
    Launcher,
    Settings(String),
    Blank {
        title: String,
        package: String,
    },
    Clock(ClockTab),
    /// A screen of a data-defined app (`crate::apps::defs`).
    App(AppScreen),
}

/// The record an action acts on: a tapped row's, else the screen's.
pub type Target = Option<(Table, u64)>;

/// One screen of a data-defined app and what is typed on it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AppScreen {
    /// The app's name (its definition file's stem).
    pub app: String,
    pub screen: String,
    /// The record the screen is about (a contact's detail, an edit form).
    pub record: Target,
    /// Parameters it was opened with (a thread's `address`).
    pub params: BTreeMap<String, String>,
    /// Text field id → text.
    pub fields: BTreeMap<String, String>,
    pub focus: Option<String>,
    /// A message shown after a write was refused (a bad date).
    pub error: Option<String>,
}

/// What a tap on a data-defined app's view does.
#[derive(Debug, Clone, PartialEq)]
pub enum AppCmd {
    /// Run an action; `control` is the label tapped, for flip history.
    Run {
        action: Action,
        target: Target,
        control: String,
    },
    /// Give a text field focus.
    Focus(String),
    /// The clear-text end icon: empty the field.
    Clear(String),
    /// A dial-pad key typed into a field.
    Key {
        field: String,
        key: char,
    },
    Backspace(String),
    /// Open a popup menu.
    Menu {
        items: Vec<ItemDef>,
        target: Target,
    },
    /// A popup menu's item.
    MenuPick(usize),
    /// A choice dialog's option.
    Choose(String),
    DialogOk,
}

/// A dialog of a data-defined app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppDialog {
    Confirm {
        title: String,
        message: Option<String>,
        ok: String,
        then: Action,
        target: Target,
    },
    Prompt {
        title: String,
        ok: String,
        id: Option<String>,
        text: String,
        column: String,
        part: Option<Part>,
        target: Target,
    },
    Choose {
        title: String,
        options: Vec<String>,
        column: String,
        part: Option<Part>,
        target: Target,
    },
    Menu {
        items: Vec<ItemDef>,
        target: Target,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockTab {
    Alarm,
    Clock,
    Timer,
    Stopwatch,
    Bedtime,
}

impl ClockTab {
    pub const ALL: [ClockTab; 5] = [
        ClockTab::Alarm,
        ClockTab::Clock,
        ClockTab::Timer,
        ClockTab::Stopwatch,
        ClockTab::Bedtime,
    ];

    pub fn label(self) -> &'static str {
        match self {
            ClockTab::Alarm => "Alarm",
            ClockTab::Clock => "Clock",
            ClockTab::Timer => "Timer",
            ClockTab::Stopwatch => "Stopwatch",
            ClockTab::Bedtime => "Bedtime",
        }
    }
}

/// A text field that can hold focus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Hour,
    Minute,
    Label,
}

/// A dialog window over the app. While one is open, the dump shows only it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dialog {
    /// Material time picker in keyboard-input mode (24-hour phone).
    TimePicker {
        hour: String,
        minute: String,
        focus: Option<Field>,
        error: bool,
    },
    /// The alarm label editor.
    Label {
        alarm: u32,
        text: String,
        focused: bool,
    },
    /// A dialog or popup menu of a data-defined app.
    App(AppDialog),
}

/// How a slider's position maps to the value it writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    Linear {
        min: i64,
        max: i64,
    },
    /// Android's brightness curve (`sim::brightness`).
    AndroidBrightness,
}

impl Scale {
    /// The value at slider position `fraction` (0..=1).
    pub fn value(self, fraction: f64) -> i64 {
        match self {
            Scale::Linear { min, max } => {
                min + ((max - min) as f64 * fraction.clamp(0.0, 1.0)).round() as i64
            }
            Scale::AndroidBrightness => super::brightness::slider_to_setting(fraction),
        }
    }

    /// The slider position (0..=1) that shows `value`.
    pub(crate) fn fraction(self, value: i64) -> f64 {
        match self {
            Scale::Linear { min, max } if max > min => {
                ((value - min) as f64 / (max - min) as f64).clamp(0.0, 1.0)
            }
            Scale::Linear { .. } => 0.0,
            Scale::AndroidBrightness => super::brightness::setting_to_slider(value),
        }
    }
}
