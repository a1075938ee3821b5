//! Which Material Symbol an icon-only control shows, and drawing it.
//!
//! The symbols are the Outlined Material Symbols (24 px, weight 400) from the
//! pinned `md-icons` crate, as SVG path data parsed once into tiny-skia paths.
//! A control is matched by what the dump says about it — its content-desc, the
//! title of the row it sits in, the app a launcher icon opens, the resource id
//! of an avatar — so the picture and the XML name the same thing. A control
//! nothing matches is drawn as the old lettered circle and counted by
//! [`placeholder_icons`](super::placeholder_icons).

use std::sync::OnceLock;

use md_icons::outlined as o;
use tiny_skia::{Path, Transform};

use super::canvas::{Canvas, Rgb};
use super::svg::{self, SvgError};
use crate::apps::{CLOCK, SETTINGS};
use crate::sim::{Cmd, View};

macro_rules! symbols {
    ($($name:ident => $svg:expr,)*) => {
        /// The Material Symbols the renderer draws.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(super) enum Symbol { $($name,)* }

        impl Symbol {
            pub const ALL: &'static [Symbol] = &[$(Symbol::$name,)*];

            fn svg(self) -> &'static str {
                match self { $(Symbol::$name => $svg,)* }
            }
        }
    };
}

symbols! {
    Accessibility => o::ICON_ACCESSIBILITY,
    AccountCircle => o::ICON_ACCOUNT_CIRCLE,
    Add => o::ICON_ADD,
    AirplanemodeActive => o::ICON_AIRPLANEMODE_ACTIVE,
    Alarm => o::ICON_ALARM,
    Apps => o::ICON_APPS,
    ArrowBack => o::ICON_ARROW_BACK,
    BarChart => o::ICON_BAR_CHART,
    BatteryFull => o::ICON_BATTERY_FULL,
    BatterySaver => o::ICON_BATTERY_SAVER,
    Bedtime => o::ICON_BEDTIME,
    Bluetooth => o::ICON_BLUETOOTH,
    BrightnessMedium => o::ICON_BRIGHTNESS_MEDIUM,
    CalendarMonth => o::ICON_CALENDAR_MONTH,
    CalendarToday => o::ICON_CALENDAR_TODAY,
    Call => o::ICON_CALL,
    Cast => o::ICON_CAST,
    Chat => o::ICON_CHAT,
    Check => o::ICON_CHECK,
    CheckCircle => o::ICON_CHECK_CIRCLE,
    Close => o::ICON_CLOSE,
    ContentCopy => o::ICON_CONTENT_COPY,
    DataSaverOn => o::ICON_DATA_SAVER_ON,
    Delete => o::ICON_DELETE,
    DevicesOther => o::ICON_DEVICES_OTHER,
    Dialpad => o::ICON_DIALPAD,
    DirectionsCar => o::ICON_DIRECTIONS_CAR,
    Dns => o::ICON_DNS,
    DoNotDisturbOn => o::ICON_DO_NOT_DISTURB_ON,
    Edit => o::ICON_EDIT,
    EditNote => o::ICON_EDIT_NOTE,
    Emergency => o::ICON_EMERGENCY,
    ExpandLess => o::ICON_EXPAND_LESS,
    ExpandMore => o::ICON_EXPAND_MORE,
    FiberManualRecord => o::ICON_FIBER_MANUAL_RECORD,
    Folder => o::ICON_FOLDER,
    History => o::ICON_HISTORY,
    HourglassEmpty => o::ICON_HOURGLASS_EMPTY,
    Image => o::ICON_IMAGE,
    Info => o::ICON_INFO,
    Key => o::ICON_KEY,
    LocationOn => o::ICON_LOCATION_ON,
    Mail => o::ICON_MAIL,
    Mic => o::ICON_MIC,
    MoreVert => o::ICON_MORE_VERT,
    MusicNote => o::ICON_MUSIC_NOTE,
    Nfc => o::ICON_NFC,
    Notifications => o::ICON_NOTIFICATIONS,
    PhoneMissed => o::ICON_PHONE_MISSED,
    NotificationsActive => o::ICON_NOTIFICATIONS_ACTIVE,
    Palette => o::ICON_PALETTE,
    Payments => o::ICON_PAYMENTS,
    Person => o::ICON_PERSON,
    PersonAdd => o::ICON_PERSON_ADD,
    PhoneAndroid => o::ICON_PHONE_ANDROID,
    PhotoCamera => o::ICON_PHOTO_CAMERA,
    PhotoLibrary => o::ICON_PHOTO_LIBRARY,
    Print => o::ICON_PRINT,
    Public => o::ICON_PUBLIC,
    RadioButtonUnchecked => o::ICON_RADIO_BUTTON_UNCHECKED,
    Save => o::ICON_SAVE,
    Schedule => o::ICON_SCHEDULE,
    Search => o::ICON_SEARCH,
    Security => o::ICON_SECURITY,
    Send => o::ICON_SEND,
    Settings => o::ICON_SETTINGS,
    SettingsSuggest => o::ICON_SETTINGS_SUGGEST,
    Share => o::ICON_SHARE,
    SignalCellular4Bar => o::ICON_SIGNAL_CELLULAR_4_BAR,
    SimCard => o::ICON_SIM_CARD,
    Star => o::ICON_STAR,
    StarFilled => o::filled::ICON_STAR,
    Stop => o::ICON_STOP,
    Storage => o::ICON_STORAGE,
    TaskAlt => o::ICON_TASK_ALT,
    Timer => o::ICON_TIMER,
    Tune => o::ICON_TUNE,
    VolumeUp => o::ICON_VOLUME_UP,
    VpnKey => o::ICON_VPN_KEY,
    Wifi => o::ICON_WIFI,
    WifiTethering => o::ICON_WIFI_TETHERING,
}

/// Every symbol's path, parsed once, in [`Symbol::ALL`]'s order.
fn paths() -> &'static [Result<Path, SvgError>] {
    static PATHS: OnceLock<Vec<Result<Path, SvgError>>> = OnceLock::new();
    PATHS.get_or_init(|| Symbol::ALL.iter().map(|s| svg::symbol(s.svg())).collect())
}

impl Symbol {
    /// The symbol's path in view-box units (0..960 on both axes).
    pub fn path(self) -> Result<&'static Path, &'static SvgError> {
        paths()[self as usize].as_ref()
    }

    /// Draw the symbol `size` pixels square, centred on (cx, cy).
    pub fn draw(self, canvas: &mut Canvas, cx: f32, cy: f32, size: f32, c: Rgb) {
        let Ok(path) = self.path() else {
            // Unreachable for the symbols listed: a test parses every one.
            return;
        };
        let k = size / svg::VIEW_BOX;
        let t = Transform::from_row(k, 0.0, 0.0, k, cx - size / 2.0, cy - size / 2.0);
        canvas.fill_path(path, t, c);
    }
}

/// What an icon-only control is drawn as.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Art {
    /// A Material Symbol.
    Symbol(Symbol),
    /// A contact's round avatar: the name's initial on a colour from the name.
    Avatar(String),
    /// A launcher icon: the app's symbol on its own colour.
    App(Symbol, Rgb),
}

/// What `view` shows, given the views it sits in (nearest last); `None` when
/// nothing matches and a lettered placeholder is drawn instead.
pub(super) fn art_of(view: &View, ancestors: &[&View]) -> Option<Art> {
    let node = &view.node;
    if let Some(Cmd::Launch(package)) = &view.on_tap {
        if let Some((symbol, color)) = app_icon(package) {
            return Some(Art::App(symbol, color));
        }
    }
    if node.resource_id.ends_with(":id/avatar") {
        return nearby_text(ancestors).map(|name| Art::Avatar(name.to_string()));
    }
    // Tasks.org's round check box before each task, which has no content-desc.
    if node.resource_id == "org.tasks:id/completeBox" {
        return Some(Art::Symbol(Symbol::RadioButtonUnchecked));
    }
    if !node.content_desc.is_empty() {
        return by_desc(&node.content_desc).map(Art::Symbol);
    }
    if node.text.is_empty() {
        // A Settings row's leading icon: named by the row's title.
        return nearby_text(ancestors)
            .and_then(settings_row_icon)
            .map(Art::Symbol);
    }
    None
}

/// The first text in the nearest ancestor that has any: the row a bare icon sits in.
fn nearby_text<'a>(ancestors: &[&'a View]) -> Option<&'a str> {
    ancestors.iter().rev().take(3).find_map(|a| {
        a.walk()
            .map(|v| v.node.text.as_str())
            .find(|t| !t.is_empty())
    })
}

/// The launcher icon of an app: its symbol and background colour.
fn app_icon(package: &str) -> Option<(Symbol, Rgb)> {
    Some(match package {
        "com.google.android.dialer" => (Symbol::Call, [0x1a, 0x73, 0xe8]),
        "com.google.android.apps.messaging" => (Symbol::Chat, [0x18, 0x80, 0x38]),
        "com.google.android.contacts" => (Symbol::Person, [0x42, 0x85, 0xf4]),
        "com.google.android.calendar" => (Symbol::CalendarToday, [0x34, 0xa8, 0x53]),
        "com.google.android.documentsui" => (Symbol::Folder, [0xf9, 0xab, 0x00]),
        "com.android.chrome" => (Symbol::Public, [0xd9, 0x30, 0x25]),
        "com.google.android.GoogleCamera" => (Symbol::PhotoCamera, [0x5f, 0x63, 0x68]),
        "com.google.android.gm" => (Symbol::Mail, [0xea, 0x43, 0x35]),
        "net.cozic.joplin" => (Symbol::EditNote, [0x1d, 0x4f, 0x91]),
        "org.tasks" => (Symbol::TaskAlt, [0x1a, 0x73, 0xe8]),
        "com.simplemobiletools.calendar.pro" => (Symbol::CalendarMonth, [0x6b, 0x5b, 0x95]),
        "com.arduia.expense" => (Symbol::Payments, [0x00, 0x89, 0x7b]),
        "com.simplemobiletools.gallery.pro" => (Symbol::PhotoLibrary, [0xf5, 0x7c, 0x00]),
        "com.dimowner.audiorecorder" => (Symbol::Mic, [0xd3, 0x2f, 0x2f]),
        p if p == CLOCK => (Symbol::Schedule, [0x3c, 0x40, 0x43]),
        p if p == SETTINGS => (Symbol::Settings, [0x60, 0x63, 0x68]),
        _ => return None,
    })
}

/// The status bar icons' content-descs, worded as System UI words them; the
/// layout's `bars()` writes them and [`by_desc`] draws them.
pub(crate) mod status {
    pub const WIFI: &str = "Wifi signal full.";
    pub const CELLULAR: &str = "Phone signal full.";
    pub const AIRPLANE: &str = "Airplane mode on.";
    pub const BLUETOOTH: &str = "Bluetooth on.";
    pub const DND: &str = "Do Not Disturb on.";
    pub const BATTERY: &str = "Battery 100 percent.";
    pub const BATTERY_SAVER: &str = "Battery Saver on, battery 100 percent.";
}

/// The symbol a content-desc names, as the apps and the system bars write them.
fn by_desc(desc: &str) -> Option<Symbol> {
    let d = desc.trim().to_lowercase();
    Some(match d.as_str() {
        "navigate up" | "back" => Symbol::ArrowBack,
        "more options" => Symbol::MoreVert,
        "search" => Symbol::Search,
        "clear text" => Symbol::Close,
        "add alarm" | "create new event" | "add" => Symbol::Add,
        "create contact" => Symbol::PersonAdd,
        "start chat" => Symbol::Chat,
        "send sms" | "send" => Symbol::Send,
        "call" => Symbol::Call,
        "edit" | "edit event" => Symbol::Edit,
        "delete" | "delete task" => Symbol::Delete,
        "duplicate event" => Symbol::ContentCopy,
        "save" => Symbol::Save,
        "new note" => Symbol::EditNote,
        "create new task" | "add expense" => Symbol::Add,
        "add star" => Symbol::Star,
        "remove star" => Symbol::StarFilled,
        "record" => Symbol::FiberManualRecord,
        "stop recording" => Symbol::Stop,
        "share" => Symbol::Share,
        "add to favorites" => Symbol::Star,
        "remove from favorites" => Symbol::StarFilled,
        "key pad" | "dialpad" => Symbol::Dialpad,
        "expand alarm" => Symbol::ExpandMore,
        "collapse alarm" => Symbol::ExpandLess,
        "alarm" => Symbol::Alarm,
        "clock" => Symbol::Schedule,
        "timer" => Symbol::HourglassEmpty,
        "stopwatch" => Symbol::Timer,
        "bedtime" => Symbol::Bedtime,
        "settings" => Symbol::Settings,
        "favorites" => Symbol::Star,
        "recents" => Symbol::Schedule,
        "contacts" => Symbol::Person,
        "keypad" => Symbol::Dialpad,
        _ if d == status::WIFI.to_lowercase() => Symbol::Wifi,
        _ if d == status::CELLULAR.to_lowercase() => Symbol::SignalCellular4Bar,
        _ if d == status::AIRPLANE.to_lowercase() => Symbol::AirplanemodeActive,
        _ if d == status::BLUETOOTH.to_lowercase() => Symbol::Bluetooth,
        _ if d == status::DND.to_lowercase() => Symbol::DoNotDisturbOn,
        _ if d == status::BATTERY.to_lowercase() => Symbol::BatteryFull,
        _ if d == status::BATTERY_SAVER.to_lowercase() => Symbol::BatterySaver,
        _ if d.starts_with("call ") => Symbol::Call,
        // The status bar's notification icons (`shade::status_desc`).
        _ if d.starts_with("messages notification:") => Symbol::Chat,
        _ if d.starts_with("phone notification:") => Symbol::PhoneMissed,
        _ if d.contains(" notification: ") => Symbol::Notifications,
        _ => return None,
    })
}

/// A Settings row's leading icon, by the row's title (as Pixel Settings draws them).
fn settings_row_icon(title: &str) -> Option<Symbol> {
    let t = title.to_lowercase();
    Some(match t.as_str() {
        "network & internet" | "internet" | "homenet" | "coffeeshop guest" | "neighbour-5g" => {
            Symbol::Wifi
        }
        "connected devices" => Symbol::DevicesOther,
        "do not disturb" => Symbol::DoNotDisturbOn,
        "apps" => Symbol::Apps,
        "notifications" => Symbol::Notifications,
        "battery" | "adaptive battery" => Symbol::BatteryFull,
        "battery saver" => Symbol::BatterySaver,
        "battery usage" => Symbol::BarChart,
        "storage" => Symbol::Storage,
        "sound & vibration" => Symbol::VolumeUp,
        "media volume" => Symbol::MusicNote,
        "call volume" | "calls & sms" => Symbol::Call,
        "ring & notification volume" => Symbol::NotificationsActive,
        "display" => Symbol::BrightnessMedium,
        "wallpaper & style" => Symbol::Palette,
        "accessibility" => Symbol::Accessibility,
        "security & privacy" => Symbol::Security,
        "location" => Symbol::LocationOn,
        "safety & emergency" => Symbol::Emergency,
        "passwords & accounts" => Symbol::Key,
        "digital wellbeing & parental controls" => Symbol::HourglassEmpty,
        "google" => Symbol::AccountCircle,
        "system" => Symbol::Info,
        "about phone" => Symbol::PhoneAndroid,
        "airplane mode" => Symbol::AirplanemodeActive,
        "hotspot & tethering" => Symbol::WifiTethering,
        "data saver" => Symbol::DataSaverOn,
        "vpn" => Symbol::VpnKey,
        "private dns" => Symbol::Dns,
        "adaptive connectivity" => Symbol::SettingsSuggest,
        "sims" | "t-mobile" => Symbol::SimCard,
        "add network" | "pair new device" => Symbol::Add,
        "previously connected devices" => Symbol::History,
        "connection preferences" => Symbol::Tune,
        "bluetooth" => Symbol::Bluetooth,
        "cast" => Symbol::Cast,
        "printing" => Symbol::Print,
        "nfc" => Symbol::Nfc,
        "nearby share" => Symbol::Share,
        "android auto" => Symbol::DirectionsCar,
        _ => return None,
    })
}

/// A stable hash of a name (FNV-1a over its UTF-8): the same colour for the
/// same contact on every machine and run, unlike std's seeded hasher.
pub(super) fn name_hash(name: &str) -> u32 {
    name.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// The initial an avatar shows: the name's first letter, upper-cased, or "#"
/// for a number.
pub(super) fn initial(name: &str) -> String {
    match name.chars().find(|c| !c.is_whitespace()) {
        Some(c) if c.is_alphabetic() => c.to_uppercase().collect(),
        Some(_) => "#".into(),
        None => String::new(),
    }
}
