//! `SimPhone`: the simulator behind the `Phone` trait. It keeps a back stack of
//! screens, hit-tests taps on the laid-out view tree (a tap lands on the deepest
//! view with a handler, as Android dispatches to the clickable ancestor), scrolls
//! lists by swipes and drags, types into the focused field and edits it with
//! key codes at a caret (`edit`), tells a double tap from two taps, and
//! records every state write.

use std::collections::BTreeMap;

use std::time::{Duration, Instant};

use super::cmd::{AppDialog, AppScreen, ClockTab, Cmd, Dialog, Field, Screen};
use super::edit::{self, Caret, EditKey};
use super::engine::{self, Nav};
use super::layout::{self, Ctx, Frame};
use super::render;
use super::state::State;
use super::view::View;
use super::{Display, Theme};
use crate::apps::{defs, APPS, CLOCK, LAUNCHER, SETTINGS};
use crate::apps::{PhoneSetup, SettingsApp, SetupError, Variant, ALARMS_KEY};
use crate::uiautomator::{self, Hierarchy};
use crate::{
    keycode, Capabilities, DeviceAction, Flip, Intent, Key, Observation, Phone, PhoneError,
    SettingKey,
};

#[derive(Debug, Clone)]
struct Entry {
    screen: Screen,
    scroll: i32,
}

/// The simulated phone. Cloning it gives an independent phone in the same state
/// (the scorer navigates on a clone, so scoring never disturbs an episode).
#[derive(Debug, Clone)]
pub struct SimPhone {
    app: &'static SettingsApp,
    variant: Variant,
    state: State,
    /// The foreground back stack, the launcher at the bottom.
    stack: Vec<Entry>,
    /// Each app's back stack while it is in the background (its "task"), so a
    /// relaunch resumes where it was, as on a stock launcher.
    background: BTreeMap<String, Vec<Entry>>,
    dialog: Option<Dialog>,
    expanded: Option<u32>,
    clock: String,
    /// The caret and selection of the focused text field ([`edit`]); any
    /// touch, navigation or launch puts it back at the end.
    caret: Caret,
    /// The last tap `input tap` delivered, when and where: a second one
    /// soon after and near it is a double tap ([`SimPhone::input_tap`]).
    last_input_tap: Option<(Instant, i32, i32)>,
    /// Overview (the recent tasks) is open over the screen in front.
    overview: bool,
    /// The notification shade is pulled down over the screen in front.
    shade: bool,
    /// Apps in the order they were last in front, the latest first: the
    /// tasks Overview shows (the launcher is none).
    recent: Vec<String>,
    /// The display in its natural (portrait) orientation, as `wm size` and
    /// `wm density` leave it; the rotation and the font scale come from the
    /// settings when a frame is laid out ([`SimPhone::display`]).
    display: Display,
}

/// `system/font_scale` as thousandths ("1.3" is 1300); 1.0 when it is unset
/// or not a positive number, as Android falls back to the default scale.
fn font_scale_milli(value: Option<&str>) -> u32 {
    match value.and_then(|v| v.trim().parse::<f64>().ok()) {
        Some(scale) if scale.is_finite() && scale > 0.0 && scale <= 10.0 => {
            (scale * 1000.0).round() as u32
        }
        _ => 1000,
    }
}

/// The package a screen belongs to.
fn package_of(screen: &Screen) -> String {
    match screen {
        Screen::Launcher => LAUNCHER.to_string(),
        Screen::Settings(_) => SETTINGS.to_string(),
        Screen::Clock(_) => CLOCK.to_string(),
        Screen::Blank { package, .. } => package.clone(),
        Screen::App(app) => defs::app_named(&app.app)
            .map(|a| a.package.clone())
            .unwrap_or_default(),
    }
}

/// Swipes shorter than this (in both axes) are taps, as Android's touch slop.
const TOUCH_SLOP: i32 = 24;

/// A second tap this soon after the first is a double tap
/// (`ViewConfiguration.DOUBLE_TAP_TIMEOUT`, 300 ms).
pub(crate) const DOUBLE_TAP_TIMEOUT: Duration = Duration::from_millis(300);
/// ... and this near it, in pixels (`DOUBLE_TAP_SLOP`, 100 dp at the
/// simulator's 420 dpi: 262 px).
pub(crate) const DOUBLE_TAP_SLOP: i32 = 262;

impl SimPhone {
    pub fn new(config: PhoneSetup) -> Result<SimPhone, SetupError> {
        let values = config.values()?;
        let records = config.records()?;
        let clock = config.clock();
        let minutes = ((clock.now_ms - clock.midnight()) / 60_000) as u32;
        // The condition's display in its natural orientation: landscape is
        // the rotation its settings write, applied when laying out.
        let mut display = config.condition.display(Display::default());
        let physical = Display::default();
        if (display.width > display.height) != (physical.width > physical.height) {
            (display.width, display.height) = (display.height, display.width);
        }
        Ok(SimPhone {
            app: SettingsApp::get(),
            variant: config.variant,
            state: State::new(values, config.alarms).with_records(records, clock),
            background: BTreeMap::new(),
            stack: vec![Entry {
                screen: Screen::Launcher,
                scroll: 0,
            }],
            dialog: None,
            expanded: None,
            clock: format!("{:02}:{:02}", minutes / 60, minutes % 60),
            caret: Caret::default(),
            last_input_tap: None,
            overview: false,
            shade: false,
            recent: Vec::new(),
            display,
        })
    }

    /// The display a frame is laid out for and drawn on now: the size and
    /// density `wm` set, turned by the rotation, at the font scale the
    /// settings hold (so `settings put system font_scale 1.3` changes the
    /// next frame, as on a phone).
    pub fn display(&self) -> Display {
        let mut display = Display {
            font_scale_milli: font_scale_milli(self.state.get("system/font_scale")),
            ..self.display
        };
        if self.rotation() % 2 == 1 {
            (display.width, display.height) = (display.height, display.width);
        }
        display
    }

    /// The screen's rotation in quarter turns (`Surface.ROTATION_*`): the
    /// settings' `user_rotation` while auto-rotate (`accelerometer_rotation`)
    /// is off; upright while it is on, as the simulated phone is held upright.
    pub fn rotation(&self) -> u32 {
        if self.state.get("system/accelerometer_rotation") != Some("0") {
            return 0;
        }
        self.state
            .get("system/user_rotation")
            .and_then(|r| r.parse::<u32>().ok())
            .filter(|r| *r < 4)
            .unwrap_or(0)
    }

    /// The display as `wm size` and `wm density` leave it, in its natural
    /// orientation, and the physical one they override.
    pub(crate) fn natural_display(&self) -> (Display, Display) {
        (self.display, Display::default())
    }

    /// `wm size WxH` (Some) or `wm size reset` (None).
    pub(crate) fn set_display_size(&mut self, size: Option<(i32, i32)>) {
        let (width, height) = size.unwrap_or_else(|| {
            let physical = Display::default();
            (physical.width, physical.height)
        });
        self.display.width = width;
        self.display.height = height;
    }

    /// `wm density DPI` (Some) or `wm density reset` (None).
    pub(crate) fn set_density(&mut self, dpi: Option<u32>) {
        self.display.dpi = dpi.unwrap_or(Display::default().dpi);
    }

    pub fn state(&self) -> &State {
        &self.state
    }

    /// Records written from outside the UI (`content insert|delete` over
    /// adb): no control was operated, so no flip is recorded.
    pub(crate) fn records_mut(&mut self) -> &mut crate::records::Records {
        self.state.records_mut()
    }

    pub fn screen(&self) -> &Screen {
        &self.current().screen
    }

    fn current(&self) -> &Entry {
        self.stack
            .last()
            .expect("the back stack always holds the launcher")
    }

    fn frame(&self) -> Frame {
        let entry = self.current();
        let overview = self.overview;
        let ctx = Ctx {
            app: self.app,
            variant: &self.variant,
            state: &self.state,
            scroll: entry.scroll,
            expanded: self.expanded,
            clock: self.clock.clone(),
            display: self.display(),
        };
        if self.shade {
            return layout::notification_shade(&ctx);
        }
        if overview {
            return layout::overview(&ctx, &self.recent);
        }
        layout::layout(&ctx, &entry.screen, self.dialog.as_ref())
    }

    /// `KEYCODE_APP_SWITCH` or the Overview button: Overview opens over the
    /// screen in front (an open dialog is dismissed), or closes back to it.
    fn toggle_overview(&mut self) {
        self.overview = !self.overview;
        if self.overview {
            self.dialog = None;
            self.expanded = None;
        }
    }

    /// The app now in front goes first among the recent tasks.
    fn in_front(&mut self, package: &str) {
        self.recent.retain(|p| p != package);
        self.recent.insert(0, package.to_string());
    }

    /// How far the current list scrolls, in pixels.
    #[cfg(test)]
    pub(crate) fn max_scroll(&self) -> i32 {
        self.frame().max_scroll
    }

    /// The uiautomator dump of the current window (the dialog alone while one is open).
    pub fn hierarchy(&self) -> Hierarchy {
        let frame = self.frame();
        let top = frame.dialog.as_ref().unwrap_or(&frame.window);
        Hierarchy {
            rotation: self.rotation(),
            extra: vec![],
            nodes: vec![top.to_node()],
        }
    }

    /// Everything drawn on screen: app window, dialog, system bars.
    pub(crate) fn composite(&self) -> View {
        let frame = self.frame();
        let mut root = View {
            node: frame.window.node.clone(),
            ..View::default()
        };
        root.children.push(frame.window);
        root.children.extend(frame.dialog);
        root.children.push(frame.bars);
        root
    }

    pub(crate) fn screenshot_png(&self) -> Vec<u8> {
        render::render_png(&self.composite(), &self.display(), Theme::of(&self.state))
    }

    /// The screen as RGB pixels (`screencap`'s raw form is built from these).
    pub(crate) fn screenshot_rgb(&self) -> image::RgbImage {
        render::render_rgb(&self.composite(), &self.display(), Theme::of(&self.state))
    }

    /// `settings put` and the like: a write from outside the UI, with no flip.
    pub(crate) fn write_setting(&mut self, key: &str, value: &str) {
        self.state.put(key, value);
    }

    /// `am force-stop`: the app's task is gone; if it was in front, the
    /// launcher shows. `false` when the package is not an app on this phone.
    pub(crate) fn force_stop(&mut self, package: &str) -> bool {
        let known = [SETTINGS, CLOCK].contains(&package)
            || APPS.iter().any(|(_, p)| *p == package)
            || defs::app_for_package(package).is_some();
        if self.stack.len() > 1 && package_of(&self.stack[1].screen) == package {
            self.stack.truncate(1);
            self.dialog = None;
            self.expanded = None;
        }
        self.background.remove(package);
        self.recent.retain(|p| p != package);
        known
    }

    /// A tapped notification: its app comes to the front (its task kept),
    /// then the screen the notification names, if any, opens on top, as an
    /// app's notification intent starts its activity in the app's task.
    fn open_notification(
        &mut self,
        package: &str,
        screen: Option<&str>,
        params: BTreeMap<String, String>,
    ) {
        self.shade = false;
        if self.launch(package).is_err() {
            return;
        }
        let Some(spec) = screen else { return };
        let Some(app) = defs::app_for_package(package) else {
            return;
        };
        let at = engine::enter(
            &app.name,
            spec,
            None,
            params,
            &mut self.state,
            &self.variant,
        );
        self.push(Screen::App(at));
    }

    /// Whether the notification shade is pulled down.
    pub(crate) fn shade_open(&self) -> bool {
        self.shade
    }

    /// The package and activity in front, as `dumpsys window` names them.
    pub(crate) fn focused_activity(&self) -> (String, String) {
        if self.overview {
            // Quickstep draws Overview in the launcher's own activity.
            return (LAUNCHER.to_string(), ".NexusLauncherActivity".to_string());
        }
        let screen = self.screen();
        let activity = match screen {
            Screen::Launcher => ".NexusLauncherActivity",
            Screen::Settings(_) => ".Settings",
            Screen::Clock(_) => "com.android.deskclock.DeskClock",
            Screen::Blank { .. } => ".MainActivity",
            Screen::App(app) => defs::app_named(&app.app).map_or("", |a| a.activity.as_str()),
        };
        (package_of(screen), activity.to_string())
    }

    fn push(&mut self, screen: Screen) {
        self.stack.push(Entry { screen, scroll: 0 });
        self.expanded = None;
    }

    /// Home: the foreground app's stack moves to the background (an open
    /// dialog is dismissed; the simulator does not keep dialogs across tasks).
    fn home(&mut self) {
        self.overview = false;
        self.shade = false;
        if self.stack.len() > 1 {
            let task = self.stack.split_off(1);
            self.background.insert(package_of(&task[0].screen), task);
        }
        self.dialog = None;
        self.expanded = None;
    }

    /// Back: closes a dialog, else pops a screen; at an app's root it returns
    /// to the launcher and the app stays in the background at its root, as
    /// Android 12+ moves a root activity's task to the back.
    fn back(&mut self) {
        // Back in the shade or in Overview returns to the screen in front.
        if std::mem::take(&mut self.shade) || std::mem::take(&mut self.overview) {
            return;
        }
        if self.dialog.take().is_some() {
            return;
        }
        if self.stack.len() > 2 {
            self.stack.pop();
            self.expanded = None;
        } else if self.stack.len() == 2 {
            self.home();
        }
    }

    fn launch(&mut self, package: &str) -> Result<(), PhoneError> {
        if let Some(app) = defs::app_for_package(package) {
            self.home();
            match self.background.remove(package) {
                Some(task) => self.stack.extend(task),
                None => {
                    let root = engine::enter(
                        &app.name,
                        &app.root,
                        None,
                        BTreeMap::new(),
                        &mut self.state,
                        &self.variant,
                    );
                    self.push(Screen::App(root));
                }
            }
            self.in_front(package);
            return Ok(());
        }
        let screen = match package {
            SETTINGS => Screen::Settings("settings".into()),
            CLOCK => Screen::Clock(ClockTab::Alarm),
            other => match APPS.iter().find(|(_, p)| *p == other) {
                Some((label, p)) => Screen::Blank {
                    title: label.to_string(),
                    package: p.to_string(),
                },
                None => return Err(PhoneError::UnknownPackage(other.to_string())),
            },
        };
        self.home();
        match self.background.remove(package) {
            Some(task) => self.stack.extend(task),
            None => self.push(screen),
        }
        self.in_front(package);
        Ok(())
    }

    /// The deepest view under (x, y) that handles taps, among what is on top:
    /// the dialog when one is open (a tap outside it cancels), else the app
    /// window; the system bars are always on top.
    fn hit(&self, frame: &Frame, x: i32, y: i32) -> Option<(Cmd, View)> {
        let deepest = |root: &View| -> Option<(Cmd, View)> {
            let mut found = None;
            for view in root.walk() {
                if let Some(cmd) = &view.on_tap {
                    if view.bounds().contains(x, y) {
                        found = Some((cmd.clone(), view.clone()));
                    }
                }
            }
            found
        };
        if let Some(hit) = deepest(&frame.bars) {
            return Some(hit);
        }
        match &frame.dialog {
            Some(dialog) if !dialog.bounds().contains(x, y) => {
                Some((Cmd::DialogCancel, dialog.clone()))
            }
            Some(dialog) => deepest(dialog),
            None => deepest(&frame.window),
        }
    }

    fn tap(&mut self, x: i32, y: i32) {
        let frame = self.frame();
        let hit = self.hit(&frame, x, y);
        // A tap in Overview leaves it (a card's app comes to the front,
        // a tap between cards goes back to the screen in front).
        if self.overview && !matches!(hit, Some((Cmd::Overview, _))) {
            self.overview = false;
        }
        // A tap in the shade leaves it: on a notification, its app opens.
        if std::mem::take(&mut self.shade) && !matches!(hit, Some((Cmd::Notification { .. }, _))) {
            return;
        }
        if let Some((cmd, view)) = hit {
            self.run(cmd, &view, x);
        }
    }

    fn run(&mut self, cmd: Cmd, view: &View, x: i32) {
        match cmd {
            Cmd::Open(id) => self.push(Screen::Settings(id)),
            Cmd::OpenBlank { title, package } => self.push(Screen::Blank { title, package }),
            Cmd::Back => self.back(),
            Cmd::Home => self.home(),
            Cmd::Overview => self.toggle_overview(),
            Cmd::Notification {
                package,
                screen,
                params,
            } => self.open_notification(&package, screen.as_deref(), params),
            Cmd::ClearRecents => {
                // Every task ends; the launcher shows.
                self.home();
                self.background.clear();
                self.recent.clear();
            }
            Cmd::Nothing => {}
            Cmd::Launch(package) => {
                // Launcher icons only name packages the simulator knows.
                let _ = self.launch(&package);
            }
            Cmd::Write {
                key,
                value,
                control,
            } => self.state.set(&key, &value, &control),
            Cmd::Slider {
                key,
                scale,
                control,
            } => {
                let b = view.bounds();
                let fraction =
                    f64::from((x - b.left).clamp(0, b.width())) / f64::from(b.width().max(1));
                let value = scale.value(fraction);
                self.state.set(&key, &value.to_string(), &control);
            }
            Cmd::Focus(field) => match &mut self.dialog {
                Some(Dialog::TimePicker { focus, .. }) => *focus = Some(field),
                Some(Dialog::Label { focused, .. }) => *focused = true,
                Some(Dialog::App(_)) | None => {}
            },
            Cmd::AlarmSwitch { id, on } => self.state.set_alarm_enabled(id, on),
            Cmd::AlarmExpand(id) => {
                self.expanded = if self.expanded == Some(id) {
                    None
                } else {
                    Some(id)
                }
            }
            Cmd::AlarmDelete(id) => {
                self.state.delete_alarm(id);
                self.expanded = None;
            }
            Cmd::AlarmLabel(id) => {
                let text = self
                    .state
                    .alarm(id)
                    .map(|a| a.label.clone())
                    .unwrap_or_default();
                self.dialog = Some(Dialog::Label {
                    alarm: id,
                    text,
                    focused: true,
                });
            }
            Cmd::AddAlarm => {
                self.dialog = Some(Dialog::TimePicker {
                    hour: String::new(),
                    minute: String::new(),
                    focus: Some(Field::Hour),
                    error: false,
                })
            }
            Cmd::DialogOk => self.dialog_ok(),
            Cmd::DialogCancel => self.dialog = None,
            Cmd::ClockTab(tab) => {
                if let Some(entry) = self.stack.last_mut() {
                    *entry = Entry {
                        screen: Screen::Clock(tab),
                        scroll: 0,
                    };
                }
                self.expanded = None;
            }
            Cmd::App(cmd) => {
                let Some(screen) = self.app_screen_mut() else {
                    return;
                };
                let mut screen = std::mem::take(screen);
                let nav = engine::run(
                    cmd,
                    &mut self.state,
                    &self.variant,
                    &mut screen,
                    &mut self.dialog,
                );
                self.apply(screen, nav);
            }
        }
    }

    /// The data-defined app screen in front, if one is.
    fn app_screen_mut(&mut self) -> Option<&mut AppScreen> {
        match self.stack.last_mut() {
            Some(Entry {
                screen: Screen::App(screen),
                ..
            }) => Some(screen),
            _ => None,
        }
    }

    /// Put the front app screen back (as a command left it) and navigate.
    fn apply(&mut self, screen: AppScreen, nav: Nav) {
        if let Some(front) = self.app_screen_mut() {
            *front = screen;
        }
        match nav {
            Nav::Stay => {}
            Nav::Push(next) => self.push(Screen::App(next)),
            Nav::Replace(next) => {
                if let Some(entry) = self.stack.last_mut() {
                    *entry = Entry {
                        screen: Screen::App(next),
                        scroll: 0,
                    };
                }
            }
            Nav::Back => self.back(),
        }
    }

    fn dialog_ok(&mut self) {
        match self.dialog.take() {
            Some(Dialog::TimePicker {
                hour,
                minute,
                focus,
                ..
            }) => {
                match (hour.parse::<u8>(), minute.parse::<u8>()) {
                    (Ok(h), Ok(m)) if h < 24 && m < 60 => {
                        let id = self.state.add_alarm(h, m);
                        self.expanded = Some(id);
                    }
                    // An invalid time keeps the dialog open with an error, as the picker does.
                    _ => {
                        self.dialog = Some(Dialog::TimePicker {
                            hour,
                            minute,
                            focus,
                            error: true,
                        })
                    }
                }
            }
            Some(Dialog::Label { alarm, text, .. }) => self.state.set_alarm_label(alarm, &text),
            // App dialogs have their own OK command.
            Some(other @ Dialog::App(_)) => self.dialog = Some(other),
            None => {}
        }
    }

    /// The focused text field's text, if a field has focus: a time
    /// picker's hour or minute, the alarm label, an app prompt's text, or
    /// the app screen's focused field.
    fn focused_field(&mut self) -> Option<&mut String> {
        if self.dialog.is_none() {
            let screen = self.app_screen_mut()?;
            let focus = screen.focus.clone()?;
            return Some(screen.fields.entry(focus).or_default());
        }
        match &mut self.dialog {
            Some(Dialog::TimePicker {
                hour,
                minute,
                focus: Some(field),
                ..
            }) => Some(if *field == Field::Hour { hour } else { minute }),
            Some(Dialog::Label {
                text,
                focused: true,
                ..
            }) => Some(text),
            Some(Dialog::App(AppDialog::Prompt { text, .. })) => Some(text),
            _ => None,
        }
    }

    /// `input text`: goes in at the focused field's caret, replacing a
    /// selection ([`edit`]).
    fn type_text(&mut self, text: &str) {
        let caret = std::mem::take(&mut self.caret);
        let tail = self
            .focused_field()
            .map(|field| edit::before_typing(field, &caret))
            .unwrap_or_default();
        self.append_text(text);
        if let Some(field) = self.focused_field() {
            self.caret = edit::after_typing(field, &tail);
        }
    }

    /// Typing at the end of the focused field; the time fields take at most
    /// two digits, a dial field digits and `+*#`.
    fn append_text(&mut self, text: &str) {
        match &mut self.dialog {
            Some(Dialog::TimePicker {
                hour,
                minute,
                focus: Some(field),
                error,
            }) => {
                let target = if *field == Field::Hour { hour } else { minute };
                for c in text.chars().filter(char::is_ascii_digit) {
                    if target.len() < 2 {
                        target.push(c);
                    }
                }
                *error = false;
            }
            Some(Dialog::Label {
                text: label,
                focused: true,
                ..
            }) => label.push_str(text),
            Some(Dialog::App(_)) => {
                if let Some(prompt) = engine::prompt_text(&mut self.dialog) {
                    prompt.push_str(text);
                }
            }
            _ => {
                if let Some(screen) = self.app_screen_mut() {
                    engine::type_text(screen, text);
                }
            }
        }
    }

    /// Enter: a focused app field's action (a search, a recipient).
    fn enter_key(&mut self) {
        if self.dialog.is_some() {
            return;
        }
        let Some(screen) = self.app_screen_mut() else {
            return;
        };
        let mut screen = std::mem::take(screen);
        let nav = engine::enter_key(
            &mut self.state,
            &self.variant,
            &mut screen,
            &mut self.dialog,
        );
        self.apply(screen, nav);
    }

    /// A key code other than Back, Home and Enter: editing keys act on the
    /// focused field ([`EditKey`]), typing keys type their character, Tab
    /// moves focus to the next field, Ctrl+A is [`SimPhone::select_all`]
    /// (through `key_combination`); any other code reaches no simulated
    /// control and does nothing (the step still counts).
    fn keycode(&mut self, code: u32) {
        if code == keycode::APP_SWITCH {
            // PhoneWindowManager: toggleRecentApps on the key's up.
            return self.toggle_overview();
        }
        if let DeviceAction::Key { key } = keycode::action(code) {
            self.caret = Caret::default();
            return match key {
                Key::Back => self.back(),
                Key::Home => self.home(),
                Key::Enter => self.enter_key(),
            };
        }
        if let Some(key) = EditKey::from_code(code) {
            let mut caret = self.caret;
            if let Some(field) = self.focused_field() {
                edit::apply(field, &mut caret, key);
                self.caret = caret;
            }
        } else if let Some(c) = keycode::typed_char(code) {
            self.type_text(c.encode_utf8(&mut [0; 4]));
        } else if code == keycode::TAB {
            self.caret = Caret::default();
            self.next_field();
        }
    }

    /// Tab: focus moves to the next text field (hour to minute in the time
    /// picker, the next field of an app screen); past the last it stays.
    fn next_field(&mut self) {
        match &mut self.dialog {
            Some(Dialog::TimePicker { focus, .. }) => {
                if *focus == Some(Field::Hour) {
                    *focus = Some(Field::Minute);
                }
            }
            Some(_) => {}
            None => {
                if let Some(screen) = self.app_screen_mut() {
                    engine::focus_next_field(screen);
                }
            }
        }
    }

    /// Select the focused field's whole text (Ctrl+A; the second tap of a
    /// double tap on a field). Nothing when no field has focus.
    pub(crate) fn select_all(&mut self) {
        if self.focused_field().is_some() {
            self.caret = Caret {
                at: None,
                all: true,
            };
        }
    }

    /// `input keycombination`: Ctrl (left or right) with A selects all; no
    /// other combination reaches a simulated control. Counts as a step.
    pub(crate) fn key_combination(&mut self, codes: &[u32]) {
        let ctrl = codes
            .iter()
            .any(|c| [keycode::CTRL_LEFT, keycode::CTRL_RIGHT].contains(c));
        if ctrl && codes.contains(&keycode::A) {
            self.select_all();
        }
        self.state.step += 1;
    }

    /// Empty the focused text field (and its selection).
    fn clear_text(&mut self) {
        self.caret = Caret::default();
        if let Some(field) = self.focused_field() {
            field.clear();
        }
    }

    /// The second tap of a double tap: a tap again, and on a text field the
    /// text is selected (Android selects the word under the finger; the
    /// simulator, with no glyph positions, selects it all). Two taps on
    /// anything else are two taps: a switch flips and flips back.
    fn second_tap(&mut self, x: i32, y: i32) {
        let focus_before = self.focused_field().is_some();
        self.tap(x, y);
        let frame = self.frame();
        let on_field = self
            .hit(&frame, x, y)
            .is_some_and(|(_, view)| view.style == super::view::Style::EditText);
        if on_field && (focus_before || self.focused_field().is_some()) {
            self.select_all();
        }
    }

    /// A tap `input tap` delivered at `now`: within [`DOUBLE_TAP_TIMEOUT`]
    /// and [`DOUBLE_TAP_SLOP`] of the previous one it is the second tap of
    /// a double tap, as `GestureDetector` tells them, so the two `input tap`s
    /// of one double tap reach the state a [`DeviceAction::DoubleTap`] does.
    pub(crate) fn input_tap(&mut self, x: i32, y: i32, now: Instant) -> Result<(), PhoneError> {
        let double = self.last_input_tap.is_some_and(|(at, px, py)| {
            now.duration_since(at) <= DOUBLE_TAP_TIMEOUT
                && (x - px).abs() <= DOUBLE_TAP_SLOP
                && (y - py).abs() <= DOUBLE_TAP_SLOP
        });
        if double {
            // A third tap starts a new gesture.
            self.last_input_tap = None;
            self.caret = Caret::default();
            self.second_tap(x, y);
            self.state.step += 1;
            return Ok(());
        }
        self.last_input_tap = Some((now, x, y));
        self.act(&DeviceAction::Tap { x, y })
    }

    /// Press, hold past the long-press timeout, move, release (`input
    /// draganddrop`). The hold is a long press: a view with a long-press
    /// action (a row's menu) runs it, and the menu then takes the touch.
    /// Otherwise the move is a slow swipe: a list scrolls by the distance
    /// moved, a slider follows a mostly horizontal move. A drag that does
    /// not move is a long press. The simulator has no drop targets (no
    /// reordering, no moving icons), so nothing else reacts to the drop.
    fn drag(&mut self, x1: i32, y1: i32, x2: i32, y2: i32) {
        let frame = self.frame();
        let still = (x2 - x1).abs() < TOUCH_SLOP && (y2 - y1).abs() < TOUCH_SLOP;
        if let Some((cmd, view)) = self.hit(&frame, x1, y1) {
            match view.on_long_press.clone() {
                Some(Cmd::Nothing) | None if !still => {}
                Some(long) => return self.run(long, &view, x1),
                None => return self.run(cmd, &view, x1),
            }
        }
        if !still {
            self.swipe(x1, y1, x2, y2);
        }
    }

    fn swipe(&mut self, x1: i32, y1: i32, x2: i32, y2: i32) {
        if (x2 - x1).abs() < TOUCH_SLOP && (y2 - y1).abs() < TOUCH_SLOP {
            return self.tap(x1, y1);
        }
        let frame = self.frame();
        // A swipe down from the status bar pulls the shade down over any
        // screen; a swipe up in the shade pushes it back.
        let status_bottom = frame
            .bars
            .walk()
            .find(|v| v.style == super::view::Style::StatusBar)
            .map_or(0, |v| v.bounds().bottom);
        if self.shade {
            if y2 < y1 {
                self.shade = false;
            }
            return;
        }
        if y1 <= status_bottom && y2 - y1 > (x2 - x1).abs() {
            self.overview = false;
            self.dialog = None;
            self.expanded = None;
            self.shade = true;
            return;
        }
        // Dragging a slider sets it where the finger lifts, but only a mostly
        // horizontal drag: a vertical one scrolls the list, as a SeekBar in a
        // scrolling list does on Android.
        if (x2 - x1).abs() > (y2 - y1).abs() {
            if let Some((cmd @ Cmd::Slider { .. }, view)) = self.hit(&frame, x1, y1) {
                return self.run(cmd, &view, x2);
            }
        }
        if self.dialog.is_some() {
            return;
        }
        let scrolls = frame
            .window
            .walk()
            .any(|v| v.node.scrollable && v.bounds().contains(x1, y1));
        if scrolls {
            let max = frame.max_scroll;
            if let Some(entry) = self.stack.last_mut() {
                entry.scroll = (entry.scroll + (y1 - y2)).clamp(0, max);
            }
        }
    }
}

impl Phone for SimPhone {
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            screenshots: true,
            flip_history: true,
            app_data: true,
        }
    }

    fn observe(&mut self, screenshot: bool) -> Result<Observation, PhoneError> {
        let hierarchy = self.hierarchy();
        let xml = uiautomator::to_xml(&hierarchy);
        // The shade is System UI's window over the app, which keeps the
        // focus a phone's `dumpsys window` reports (`mFocusedApp`).
        let foreground = match self.shade {
            true => self.focused_activity().0.into(),
            false => hierarchy
                .nodes
                .first()
                .map(|n| n.package.clone())
                .unwrap_or_default(),
        };
        let screenshot = screenshot.then(|| self.screenshot_png());
        Ok(Observation {
            xml,
            hierarchy,
            screenshot,
            foreground: foreground.to_string(),
            timing: None,
        })
    }

    fn act(&mut self, action: &DeviceAction) -> Result<(), PhoneError> {
        if !matches!(
            action,
            DeviceAction::Text { .. } | DeviceAction::Keycode { .. } | DeviceAction::ClearText
        ) {
            self.caret = Caret::default();
        }
        // The shade takes no text: it goes nowhere, as with no field focused.
        if self.shade && matches!(action, DeviceAction::Text { .. } | DeviceAction::ClearText) {
            self.state.step += 1;
            return Ok(());
        }
        // Overview takes no text and no scroll: the tasks stay as they are.
        if self.overview
            && matches!(
                action,
                DeviceAction::Text { .. } | DeviceAction::ClearText | DeviceAction::Swipe { .. }
            )
        {
            self.state.step += 1;
            return Ok(());
        }
        match action {
            DeviceAction::Tap { x, y } => self.tap(*x, *y),
            DeviceAction::LongPress { x, y } => {
                let frame = self.frame();
                if let Some((cmd, view)) = self.hit(&frame, *x, *y) {
                    let cmd = view.on_long_press.clone().unwrap_or(cmd);
                    self.run(cmd, &view, *x);
                }
            }
            DeviceAction::Swipe { x1, y1, x2, y2, .. } => self.swipe(*x1, *y1, *x2, *y2),
            DeviceAction::Text { text } => self.type_text(text),
            DeviceAction::Key { key: Key::Back } => self.back(),
            DeviceAction::Key { key: Key::Home } => self.home(),
            DeviceAction::Key { key: Key::Enter } => self.enter_key(),
            DeviceAction::Launch { package } => {
                let result = self.launch(package);
                self.state.step += 1;
                return result;
            }
            DeviceAction::DoubleTap { x, y } => {
                self.tap(*x, *y);
                self.second_tap(*x, *y);
            }
            DeviceAction::Drag { x1, y1, x2, y2, .. } => self.drag(*x1, *y1, *x2, *y2),
            DeviceAction::Keycode { code } => self.keycode(*code),
            DeviceAction::ClearText => self.clear_text(),
        }
        self.state.step += 1;
        Ok(())
    }

    fn read_setting(&mut self, key: &SettingKey) -> Result<Option<String>, PhoneError> {
        Ok(self.state.get(&key.to_string()).map(str::to_string))
    }

    fn read_app(&mut self, key: &str) -> Result<Option<String>, PhoneError> {
        if key == ALARMS_KEY {
            return Ok(Some(self.state.alarms_digest()));
        }
        Ok(self.state.get(key).map(str::to_string))
    }

    fn records(
        &mut self,
        table: crate::records::Table,
    ) -> Result<Vec<crate::records::Record>, PhoneError> {
        Ok(self.state.records().rows(table).to_vec())
    }

    fn app_keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self
            .state
            .values()
            .keys()
            .filter(|k| k.starts_with("app/"))
            .cloned()
            .collect();
        keys.push(ALARMS_KEY.to_string());
        keys
    }

    fn open(&mut self, intent: &Intent) -> Result<(), PhoneError> {
        self.caret = Caret::default();
        if intent.0 == "android.intent.category.HOME" {
            // `am start -c android.intent.category.HOME`: the launcher.
            self.home();
            self.state.step += 1;
            return Ok(());
        }
        let screen = match intent.0.as_str() {
            "android.intent.action.SHOW_ALARMS" => Screen::Clock(ClockTab::Alarm),
            // `sim:<screen id>` reaches any Settings page; only the checker's decoy agent uses it.
            other if other.starts_with("sim:") => match self.app.screen(&other[4..]) {
                Some(screen) => Screen::Settings(screen.id.clone()),
                None => return Err(PhoneError::UnknownIntent(other.to_string())),
            },
            other => match self.app.screen_for_intent(other) {
                Some(screen) => Screen::Settings(screen.id.clone()),
                None => return Err(PhoneError::UnknownIntent(other.to_string())),
            },
        };
        // A fresh task for the opened screen, replacing any the app had.
        self.home();
        self.background.remove(&package_of(&screen));
        self.push(screen);
        // Opening a screen is an action like any other: it advances the step.
        self.state.step += 1;
        Ok(())
    }

    fn fork(&self) -> Option<Box<dyn Phone>> {
        Some(Box::new(self.clone()))
    }

    fn flip_history(&self) -> Option<&[Flip]> {
        Some(self.state.flips())
    }
}

#[cfg(test)]
#[path = "actions_tests.rs"]
mod actions_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uiautomator::Selector;

    /// Drag the list up by 1200 px: content moves towards its end.
    const SCROLL_DOWN: DeviceAction = DeviceAction::Swipe {
        x1: 540,
        y1: 2000,
        x2: 540,
        y2: 800,
        duration_ms: 300,
    };

    fn phone(initial: &[(&str, &str)]) -> SimPhone {
        let initial = initial
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        SimPhone::new(PhoneSetup {
            initial,
            ..PhoneSetup::default()
        })
        .unwrap()
    }

    fn centre_of(phone: &mut SimPhone, selector: &Selector) -> (i32, i32) {
        let obs = phone.observe(false).unwrap();
        let node = selector
            .find_first(&obs.hierarchy)
            .unwrap_or_else(|| panic!("no node matches {selector}"));
        node.bounds.center()
    }

    fn tap(phone: &mut SimPhone, selector: &Selector) {
        let (x, y) = centre_of(phone, selector);
        phone.act(&DeviceAction::Tap { x, y }).unwrap();
    }

    #[test]
    fn a_tap_on_the_title_text_lands_on_its_clickable_row() {
        let mut p = phone(&[("global/wifi_on", "0")]);
        p.open(&Intent("android.settings.WIFI_SETTINGS".into()))
            .unwrap();
        // The title TextView is not clickable; the row around it is.
        tap(&mut p, &Selector::text("Wi-Fi").clickable(false));
        assert_eq!(p.state().get("global/wifi_on"), Some("1"));
        // Step 0 opened the page; the tap was step 1.
        let flip = &p.state().flips()[0];
        assert_eq!(
            (
                flip.key.as_str(),
                flip.from.as_str(),
                flip.to.as_str(),
                flip.step
            ),
            ("global/wifi_on", "0", "1", 1)
        );
    }

    /// Regression: only the exact "on" value showed a switch as on, so Wi-Fi
    /// on while in airplane mode (`wifi_on` 2) looked off and a tap wrote 1.
    #[test]
    fn every_value_but_off_shows_a_switch_on() {
        let mut p = phone(&[("global/wifi_on", "2")]);
        p.open(&Intent("android.settings.WIFI_SETTINGS".into()))
            .unwrap();
        let obs = p.observe(false).unwrap();
        let row = Selector::any().clickable(true).has(Selector::text("Wi-Fi"));
        let switch = Selector::resource_id("android:id/switch_widget").inside(row);
        assert!(switch.find_first(&obs.hierarchy).unwrap().checked);
        tap(&mut p, &Selector::text("Wi-Fi").row());
        assert_eq!(
            p.state().get("global/wifi_on"),
            Some("0"),
            "tapping an on switch turns it off"
        );
    }

    #[test]
    fn observing_never_changes_state() {
        let mut p = phone(&[]);
        p.open(&Intent("android.settings.WIFI_SETTINGS".into()))
            .unwrap();
        let before = p.state().values().clone();
        let a = p.observe(true).unwrap();
        let b = p.observe(true).unwrap();
        assert_eq!(a.xml, b.xml);
        assert_eq!(a.screenshot, b.screenshot);
        assert_eq!(p.state().values(), &before);
        assert!(p.state().flips().is_empty());
    }

    #[test]
    fn rows_scrolled_out_of_sight_are_not_dumped_until_scrolled_to() {
        let mut p = phone(&[]);
        p.act(&DeviceAction::Launch {
            package: SETTINGS.into(),
        })
        .unwrap();
        let about = Selector::text("About phone");
        assert!(about
            .find_first(&p.observe(false).unwrap().hierarchy)
            .is_none());
        for _ in 0..3 {
            p.act(&SCROLL_DOWN).unwrap();
        }
        let obs = p.observe(false).unwrap();
        let node = about
            .find_first(&obs.hierarchy)
            .expect("About phone is visible after scrolling to the end");
        assert!(
            node.bounds.bottom <= p.display().height - layout::NAV_BAR,
            "clipped to the list: {}",
            node.bounds
        );
        // Scrolling further does not move past the end.
        p.act(&SCROLL_DOWN).unwrap();
        assert_eq!(p.observe(false).unwrap().xml, obs.xml);
    }

    #[test]
    fn back_pops_the_stack_and_home_clears_it() {
        let mut p = phone(&[]);
        p.act(&DeviceAction::Launch {
            package: SETTINGS.into(),
        })
        .unwrap();
        tap(&mut p, &Selector::text("Network & internet").row());
        assert_eq!(p.screen(), &Screen::Settings("settings.network".into()));
        p.act(&DeviceAction::Key { key: Key::Back }).unwrap();
        assert_eq!(p.screen(), &Screen::Settings("settings".into()));
        p.act(&DeviceAction::Key { key: Key::Home }).unwrap();
        assert_eq!(p.screen(), &Screen::Launcher);
        p.act(&DeviceAction::Key { key: Key::Back }).unwrap();
        assert_eq!(p.screen(), &Screen::Launcher);
    }

    /// Regression: relaunching an app started it on its first screen; a stock
    /// launcher resumes the app's task where it was.
    #[test]
    fn relaunching_an_app_resumes_where_it_was() {
        let mut p = phone(&[]);
        p.act(&DeviceAction::Launch {
            package: SETTINGS.into(),
        })
        .unwrap();
        tap(&mut p, &Selector::text("Network & internet").row());
        p.act(&DeviceAction::Key { key: Key::Home }).unwrap();
        p.act(&DeviceAction::Launch {
            package: CLOCK.into(),
        })
        .unwrap();
        p.act(&DeviceAction::Launch {
            package: SETTINGS.into(),
        })
        .unwrap();
        assert_eq!(p.screen(), &Screen::Settings("settings.network".into()));
        // Back at the root leaves the app in the background at its root.
        p.act(&DeviceAction::Key { key: Key::Back }).unwrap();
        p.act(&DeviceAction::Key { key: Key::Back }).unwrap();
        assert_eq!(p.screen(), &Screen::Launcher);
        p.act(&DeviceAction::Launch {
            package: SETTINGS.into(),
        })
        .unwrap();
        assert_eq!(p.screen(), &Screen::Settings("settings".into()));
    }

    #[test]
    fn typed_digits_are_not_an_alarm_until_ok_is_pressed() {
        let mut p = phone(&[]);
        p.act(&DeviceAction::Launch {
            package: CLOCK.into(),
        })
        .unwrap();
        tap(&mut p, &Selector::desc("Add alarm"));
        p.act(&DeviceAction::Text { text: "7".into() }).unwrap();
        tap(&mut p, &Selector::resource_id("android:id/input_minute"));
        p.act(&DeviceAction::Text {
            text: "3'0;$(x)".into(),
        })
        .unwrap();
        assert!(p.state().alarms().is_empty(), "no alarm before OK");
        let dump = p.observe(false).unwrap();
        assert_eq!(dump.foreground, CLOCK);
        assert!(
            Selector::text("30").find_first(&dump.hierarchy).is_some(),
            "only digits are typed into the minute field"
        );
        // Back dismisses the dialog without saving.
        p.act(&DeviceAction::Key { key: Key::Back }).unwrap();
        assert!(p.state().alarms().is_empty());
        tap(&mut p, &Selector::desc("Add alarm"));
        p.act(&DeviceAction::Text { text: "25".into() }).unwrap();
        tap(&mut p, &Selector::text("OK"));
        assert!(Selector::text("Enter a valid time")
            .find_first(&p.observe(false).unwrap().hierarchy)
            .is_some());
        assert!(p.state().alarms().is_empty(), "25:00 is not a time");
    }

    #[test]
    fn a_tap_outside_a_dialog_cancels_it() {
        let mut p = phone(&[]);
        p.act(&DeviceAction::Launch {
            package: CLOCK.into(),
        })
        .unwrap();
        tap(&mut p, &Selector::desc("Add alarm"));
        p.act(&DeviceAction::Tap { x: 540, y: 200 }).unwrap();
        assert_eq!(
            p.observe(false).unwrap().hierarchy.nodes[0].bounds,
            crate::uiautomator::Bounds::new(0, 0, 1080, 2400)
        );
    }

    /// The slider follows Android's brightness curve: its last pixel is 253 of
    /// 255 and its first is the minimum, 1 (see `sim::brightness`).
    #[test]
    fn the_brightness_slider_takes_the_tap_position() {
        let mut p = phone(&[]);
        p.open(&Intent("android.settings.DISPLAY_SETTINGS".into()))
            .unwrap();
        let obs = p.observe(false).unwrap();
        let b = Selector::resource_id("android:id/seekbar")
            .find_first(&obs.hierarchy)
            .unwrap()
            .bounds;
        p.act(&DeviceAction::Tap {
            x: b.right - 1,
            y: b.center().1,
        })
        .unwrap();
        assert_eq!(p.state().get("system/screen_brightness"), Some("253"));
        p.act(&DeviceAction::Swipe {
            x1: b.right - 1,
            y1: b.center().1,
            x2: b.left,
            y2: b.center().1,
            duration_ms: 300,
        })
        .unwrap();
        assert_eq!(p.state().get("system/screen_brightness"), Some("1"));
    }

    /// Regression: a vertical swipe that started on the brightness slider set
    /// the brightness (and recorded a flip) instead of scrolling the list.
    #[test]
    fn a_vertical_swipe_over_the_slider_scrolls_instead_of_dragging_it() {
        let mut p = phone(&[]);
        p.open(&Intent("android.settings.DISPLAY_SETTINGS".into()))
            .unwrap();
        let before = p.observe(false).unwrap();
        let b = Selector::resource_id("android:id/seekbar")
            .find_first(&before.hierarchy)
            .unwrap()
            .bounds;
        let (x, y) = b.center();
        p.act(&DeviceAction::Swipe {
            x1: x,
            y1: y,
            x2: x,
            y2: y - 900,
            duration_ms: 300,
        })
        .unwrap();
        assert_eq!(p.state().get("system/screen_brightness"), Some("102"));
        assert!(p.state().flips().is_empty());
        assert_ne!(
            p.observe(false).unwrap().xml,
            before.xml,
            "the list scrolled"
        );
    }

    #[test]
    fn a_fork_is_independent_of_its_phone() {
        let mut p = phone(&[]);
        let mut fork = p.fork().unwrap();
        fork.open(&Intent("android.settings.WIFI_SETTINGS".into()))
            .unwrap();
        assert_eq!(p.screen(), &Screen::Launcher);
        assert_ne!(
            fork.observe(false).unwrap().foreground,
            p.observe(false).unwrap().foreground
        );
    }

    #[test]
    fn an_unknown_initial_key_is_refused_by_name() {
        let initial = [("global/wifi_onn".to_string(), "1".to_string())].into();
        let err = SimPhone::new(PhoneSetup {
            initial,
            ..PhoneSetup::default()
        })
        .unwrap_err();
        assert!(err.to_string().contains("global/wifi_onn"), "{err}");
    }
}
