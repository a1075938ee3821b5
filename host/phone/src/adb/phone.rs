//! `AdbPhone`: the `Phone` trait over an adb transport. Observing is
//! `uiautomator dump` to a file and `cat` back (retrying the exit-0 failures
//! within a time bound), a raw `screencap` encoded as PNG here, and the
//! foreground package from `dumpsys window`; none of it changes the phone's
//! state. Acting is `input`, `monkey` and `am start`, with every argument
//! quoted for the phone's `sh -c`. Settings are read with `settings get`, app
//! data with `content query` where the phone has the provider.

use std::time::{Duration, Instant};

use base64::Engine;

use super::raw_to_png;
use super::shell::{input_text_command, quote};
use super::transport::{AdbError, ShellResult, Transport};
use super::virtual_phone::{APP_DATA_URI, VIRTUAL_PHONE_MANUFACTURER};
use crate::uiautomator::{self, Dump};
use crate::{
    Capabilities, DeviceAction, Intent, Observation, ObserveTiming, Phone, PhoneError, SettingKey,
};

/// Where dumps go on the phone (uiautomator's own default path).
const DUMP_PATH: &str = "/sdcard/window_dump.xml";
/// How long `uiautomator dump` itself waits for the screen to go idle
/// before it gives up (AOSP UiAutomation.waitForIdle, 10 s): its command
/// deadline is this much longer than others.
const IDLE_WAIT: Duration = Duration::from_secs(10);
const ADBKEYBOARD_IME: &str = "com.android.adbkeyboard/.AdbIME";

/// How the backend behaves; the defaults suit a real phone.
#[derive(Debug, Clone)]
pub struct AdbOptions {
    /// Give up on a dump that keeps failing after this long (uiautomator
    /// itself waits up to 10 s for an idle UI per attempt).
    pub dump_within: Duration,
    /// Pause between dump attempts.
    pub dump_backoff: Duration,
    /// After typing, read the focused field back and refuse the step when it
    /// does not end with the text.
    pub read_back_text: bool,
}

impl Default for AdbOptions {
    fn default() -> Self {
        AdbOptions {
            dump_within: Duration::from_secs(30),
            dump_backoff: Duration::from_millis(500),
            read_back_text: false,
        }
    }
}

/// A phone driven over adb.
pub struct AdbPhone {
    pub(super) transport: Box<dyn Transport>,
    options: AdbOptions,
    /// `ro.product.manufacturer` is droidscore: a virtual phone, which can be
    /// put in any task variant's state.
    virtual_phone: bool,
    /// Whether ADBKeyBoard is installed, asked once.
    adbkeyboard: Option<bool>,
    /// App-data keys the phone's provider lists, read when an episode is prepared.
    app_keys: Vec<String>,
    /// How the shell reaches apps' private files (`appdata`), asked once.
    pub(super) app_access: Option<super::access::Access>,
    /// The last transport failure that means the phone is gone, until it is
    /// back ([`AdbPhone::wait_for_device`]); see [`Phone::lost`].
    lost: Option<String>,
}

impl std::fmt::Debug for AdbPhone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdbPhone")
            .field("serial", &self.transport.serial())
            .field("virtual_phone", &self.virtual_phone)
            .finish()
    }
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

impl From<AdbError> for PhoneError {
    fn from(e: AdbError) -> Self {
        PhoneError::Device(e.to_string())
    }
}

impl AdbPhone {
    /// Connect: asks the phone what it is (one `getprop`).
    pub fn new(transport: Box<dyn Transport>, options: AdbOptions) -> Result<AdbPhone, PhoneError> {
        let mut phone = AdbPhone {
            transport,
            options,
            virtual_phone: false,
            adbkeyboard: None,
            app_keys: Vec::new(),
            app_access: None,
            lost: None,
        };
        let maker = phone.shell_ok("getprop ro.product.manufacturer")?;
        phone.virtual_phone = maker.trim() == VIRTUAL_PHONE_MANUFACTURER;
        Ok(phone)
    }

    pub fn serial(&self) -> &str {
        self.transport.serial()
    }

    /// What the run records about this phone: serial, model, build, screen.
    pub fn describe(&mut self) -> serde_json::Value {
        let mut prop = |name: &str| {
            self.shell_ok(&format!("getprop {name}"))
                .map(|v| v.trim().to_string())
                .unwrap_or_default()
        };
        let (model, manufacturer, release, sdk, fingerprint) = (
            prop("ro.product.model"),
            prop("ro.product.manufacturer"),
            prop("ro.build.version.release"),
            prop("ro.build.version.sdk"),
            prop("ro.build.fingerprint"),
        );
        let size = self
            .shell_ok("wm size")
            .map(|v| v.trim().trim_start_matches("Physical size: ").to_string())
            .unwrap_or_default();
        serde_json::json!({
            "serial": self.serial(),
            "virtual_phone": self.virtual_phone,
            "manufacturer": manufacturer,
            "model": model,
            "android": release,
            "sdk": sdk,
            "fingerprint": fingerprint,
            "screen": size,
        })
    }

    pub fn is_virtual(&self) -> bool {
        self.virtual_phone
    }

    pub fn transport(&mut self) -> &mut dyn Transport {
        self.transport.as_mut()
    }

    /// Run a command; any status is returned.
    pub fn shell(&mut self, command: &str) -> Result<ShellResult, PhoneError> {
        let answer = self.transport.shell(command);
        Ok(self.noting_loss(answer)?)
    }

    /// Pass a transport's answer on, remembering a lost phone.
    pub(super) fn noting_loss<R>(&mut self, answer: Result<R, AdbError>) -> Result<R, AdbError> {
        if let Err(e @ (AdbError::Lost { .. } | AdbError::Timeout { .. })) = &answer {
            self.lost = Some(e.to_string());
        }
        answer
    }

    /// Run a command that must succeed; its stdout.
    pub fn shell_ok(&mut self, command: &str) -> Result<String, PhoneError> {
        let out = self.shell(command)?;
        if out.status != 0 {
            return Err(PhoneError::Device(format!(
                "`{command}` exited {}: {}",
                out.status,
                out.all_text().trim()
            )));
        }
        Ok(out.stdout_text())
    }

    /// Write one value of a phone's state (a setting, or `app/KEY` through the
    /// virtual phone's provider) the way a user's phone takes it: radios
    /// through their switch (`cmd connectivity airplane-mode`, `svc wifi`),
    /// where `settings put` alone would lie. `Some(reason)` when this phone
    /// cannot hold it.
    pub fn write_value(&mut self, key: &str, value: &str) -> Result<Option<String>, PhoneError> {
        let command = match (key, value) {
            ("global/airplane_mode_on", "1") => "cmd connectivity airplane-mode enable".to_string(),
            ("global/airplane_mode_on", "0") => {
                "cmd connectivity airplane-mode disable".to_string()
            }
            ("global/wifi_on", "1") => "svc wifi enable".to_string(),
            ("global/wifi_on", "0") => "svc wifi disable".to_string(),
            ("global/bluetooth_on", "1") => "svc bluetooth enable".to_string(),
            ("global/bluetooth_on", "0") => "svc bluetooth disable".to_string(),
            (app, v) if app.starts_with("app/") => format!(
                "content insert --uri {APP_DATA_URI} --bind {} --bind {}",
                quote(&format!("name:s:{app}")),
                quote(&format!("value:s:{v}"))
            ),
            (setting, v) => {
                let key: SettingKey = setting.parse()?;
                format!(
                    "settings put {} {} {}",
                    key.namespace.as_str(),
                    quote(&key.name),
                    quote(v)
                )
            }
        };
        let out = self.shell(&command)?;
        if out.status != 0 {
            return Ok(Some(format!(
                "cannot set the initial state {key} = {value} on this phone: `{command}` exited {}: {}",
                out.status,
                out.all_text().trim()
            )));
        }
        Ok(None)
    }

    /// Read again the app-data keys the phone's provider holds (none on a
    /// real phone), after an episode's initial state is written.
    pub fn refresh_app_keys(&mut self) -> Result<(), PhoneError> {
        let out = self.shell(&format!(
            "content query --uri {APP_DATA_URI} --projection name"
        ))?;
        self.app_keys = if out.status == 0 {
            out.stdout_text()
                .lines()
                .filter_map(|l| l.split_once(" name=").map(|(_, k)| k.trim().to_string()))
                .collect()
        } else {
            Vec::new()
        };
        Ok(())
    }

    /// Start an episode: forget a loss the last one noted. The phone answers
    /// now, or the episode's first command finds out.
    pub fn begin_episode(&mut self) {
        self.lost = None;
    }

    /// Put the virtual phone in a task variant's initial state
    /// (`droidscore-sim load`), its parameters drawn with `instance_seed`.
    pub fn load_variant(
        &mut self,
        task: &str,
        variant: &str,
        instance_seed: u64,
        episode_seed: u64,
    ) -> Result<(), PhoneError> {
        self.shell_ok(&format!(
            "droidscore-sim load {} {} {episode_seed} {instance_seed}",
            quote(task),
            quote(variant),
        ))?;
        Ok(())
    }

    /// Wait for the phone to come back after it was lost.
    pub fn wait_for_device(&mut self, within: Duration) -> Result<(), PhoneError> {
        self.transport.wait_for_device(within)?;
        self.lost = None;
        Ok(())
    }

    /// `uiautomator dump` until it succeeds or `dump_within` runs out.
    /// Returns the attempts made.
    fn dump(&mut self) -> Result<u32, PhoneError> {
        let started = Instant::now();
        let mut attempts = 0;
        loop {
            attempts += 1;
            let answer = self
                .transport
                .shell_waiting(&format!("uiautomator dump {DUMP_PATH}"), IDLE_WAIT);
            let out = self.noting_loss(answer)?;
            let text = out.all_text();
            // uiautomator prints its failures and exits 0.
            if text.contains("UI hierchary dumped to") || text.contains("UI hierarchy dumped to") {
                return Ok(attempts);
            }
            let transient = text.contains("could not get idle state")
                || text.contains("null root node returned");
            if !transient {
                return Err(PhoneError::Device(format!(
                    "uiautomator dump failed (status {}): {}",
                    out.status,
                    text.trim()
                )));
            }
            if started.elapsed() + self.options.dump_backoff > self.options.dump_within {
                return Err(PhoneError::Device(format!(
                    "uiautomator dump failed {attempts} times in {:.1}s: {}",
                    started.elapsed().as_secs_f64(),
                    text.trim()
                )));
            }
            std::thread::sleep(self.options.dump_backoff);
        }
    }

    /// The foreground package from `dumpsys window`'s focus lines.
    fn foreground(&mut self) -> Result<String, PhoneError> {
        let out = self.shell("dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'")?;
        let text = out.stdout_text();
        Ok(parse_foreground(&text).unwrap_or_default())
    }

    fn has_adbkeyboard(&mut self) -> Result<bool, PhoneError> {
        if let Some(known) = self.adbkeyboard {
            return Ok(known);
        }
        let listed = self.shell_ok("ime list -s")?;
        let has = listed.lines().any(|l| l.trim() == ADBKEYBOARD_IME);
        self.adbkeyboard = Some(has);
        Ok(has)
    }

    /// Type `text`: `input text` when it can, ADBKeyBoard when installed, else
    /// a refusal naming why (never silently dropped characters).
    fn type_text(&mut self, text: &str) -> Result<(), PhoneError> {
        match input_text_command(text) {
            Ok(command) => {
                self.shell_ok(&command)?;
            }
            Err(refusal) => {
                if !self.has_adbkeyboard()? {
                    return Err(PhoneError::Refused(refusal.to_string()));
                }
                let b64 = base64::engine::general_purpose::STANDARD.encode(text);
                self.shell_ok(&format!(
                    "am broadcast -a ADB_INPUT_B64 --es msg {}",
                    quote(&b64)
                ))?;
            }
        }
        if self.options.read_back_text {
            let shown = self.focused_text()?;
            if !shown.as_deref().unwrap_or("").ends_with(text) {
                return Err(PhoneError::Refused(format!(
                    "typed {text:?}, but the focused field shows {:?}",
                    shown.unwrap_or_default()
                )));
            }
        }
        Ok(())
    }

    /// The text of the focused field, read back from a dump.
    pub(crate) fn focused_text(&mut self) -> Result<Option<String>, PhoneError> {
        let observation = self.observe(false)?;
        // The deepest focused node: a field inside a focused container.
        Ok(observation
            .hierarchy
            .walk()
            .filter(|n| n.focused)
            .last()
            .map(|n| n.text.to_string()))
    }
}

/// `mCurrentFocus=Window{5e1a9c0 u0 com.android.settings/…}` → the package;
/// `mFocusedApp=ActivityRecord{… u0 pkg/.Act t12}` when focus is `null`.
pub(crate) fn parse_foreground(dumpsys: &str) -> Option<String> {
    let component = |line: &str| -> Option<String> {
        let inner = line.split_once('{')?.1.trim_end_matches('}');
        let word = inner.split_whitespace().find(|w| w.contains('/'))?;
        Some(word.split('/').next()?.to_string())
    };
    let focus = dumpsys
        .lines()
        .find(|l| l.contains("mCurrentFocus="))
        .and_then(component);
    focus.or_else(|| {
        dumpsys
            .lines()
            .find(|l| l.contains("mFocusedApp="))
            .and_then(component)
    })
}

/// Said by `input` (InputShellCommand's `handleDefaultCommands`, or the
/// older `Input.java`) for a command that build does not have. Whether it
/// then exits non-zero differs between builds, so the words decide.
fn unknown_input_command(out: &ShellResult) -> bool {
    out.all_text().contains("Unknown command")
}

/// DELs the fallback clear sends after moving to the end of the field.
const CLEAR_DELETES: usize = 64;

impl AdbPhone {
    /// `input draganddrop` (InputShellCommand.java in frameworks/base
    /// services/core/java/com/android/server/input: down, a sleep of the
    /// long-press timeout, interpolated moves for `duration_ms`, up). A
    /// build whose `input` lacks it gets a swipe of the same path and
    /// duration: no long press first, the same scroll on a list.
    fn drag(
        &mut self,
        (x1, y1): (i32, i32),
        (x2, y2): (i32, i32),
        ms: u32,
    ) -> Result<(), PhoneError> {
        let out = self.shell(&format!("input draganddrop {x1} {y1} {x2} {y2} {ms}"))?;
        if unknown_input_command(&out) {
            return self
                .shell_ok(&format!("input swipe {x1} {y1} {x2} {y2} {ms}"))
                .map(drop);
        }
        if out.status != 0 {
            return Err(PhoneError::Device(format!(
                "`input draganddrop` exited {}: {}",
                out.status,
                out.all_text().trim()
            )));
        }
        Ok(())
    }

    /// Empty the focused field as AndroidWorld's `input_text` with
    /// `clear_text` does (env/actuation.py): Ctrl+A (`keycombination 113
    /// 29`) selects all, `keyevent 67` deletes it. A build without
    /// `keycombination` gets MOVE_END and [`CLEAR_DELETES`] DELs in one
    /// `keyevent` call (a longer text keeps its head).
    fn clear_text(&mut self) -> Result<(), PhoneError> {
        let out = self.shell("input keycombination 113 29 && input keyevent 67")?;
        if unknown_input_command(&out) {
            let deletes = vec!["67"; CLEAR_DELETES].join(" ");
            return self
                .shell_ok(&format!("input keyevent 123 {deletes}"))
                .map(drop);
        }
        if out.status != 0 {
            return Err(PhoneError::Device(format!(
                "`input keycombination 113 29 && input keyevent 67` exited {}: {}",
                out.status,
                out.all_text().trim()
            )));
        }
        Ok(())
    }
}

impl Phone for AdbPhone {
    fn lost(&self) -> Option<&str> {
        self.lost.as_deref()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            screenshots: true,
            flip_history: false,
            app_data: self.virtual_phone,
        }
    }

    fn observe(&mut self, screenshot: bool) -> Result<Observation, PhoneError> {
        let started = Instant::now();
        let mut timing = ObserveTiming::default();
        let t = Instant::now();
        timing.dump_attempts = self.dump()?;
        timing.dump_ms = ms(t);
        let t = Instant::now();
        let read = self.shell(&format!("cat {DUMP_PATH}"))?;
        timing.read_ms = ms(t);
        if read.status != 0 {
            return Err(PhoneError::Device(format!(
                "reading the dump back failed: {}",
                read.all_text().trim()
            )));
        }
        let hierarchy = match uiautomator::parse(&read.stdout) {
            Ok(Dump::Hierarchy { hierarchy, .. }) => hierarchy,
            Ok(other) => {
                return Err(PhoneError::Device(format!(
                    "the dump file held no hierarchy: {other:?}"
                )))
            }
            Err(e) => return Err(PhoneError::Device(format!("the dump does not parse: {e}"))),
        };
        let xml = String::from_utf8_lossy(&read.stdout).into_owned();
        let screenshot = if screenshot {
            let t = Instant::now();
            let raw = self.shell("screencap")?;
            timing.screencap_ms = ms(t);
            let t = Instant::now();
            let png = raw_to_png(&raw.stdout)
                .map_err(|e| PhoneError::Device(format!("screencap: {e}")))?;
            timing.png_ms = ms(t);
            Some(png)
        } else {
            None
        };
        let t = Instant::now();
        let foreground = self.foreground()?;
        timing.foreground_ms = ms(t);
        timing.total_ms = ms(started);
        Ok(Observation {
            xml,
            hierarchy,
            screenshot,
            foreground,
            timing: Some(timing),
        })
    }

    fn act(&mut self, action: &DeviceAction) -> Result<(), PhoneError> {
        match action {
            DeviceAction::Tap { x, y } => self.shell_ok(&format!("input tap {x} {y}")).map(drop),
            DeviceAction::LongPress { x, y } => self
                .shell_ok(&format!("input swipe {x} {y} {x} {y} 1000"))
                .map(drop),
            DeviceAction::Swipe {
                x1,
                y1,
                x2,
                y2,
                duration_ms,
            } => self
                .shell_ok(&format!("input swipe {x1} {y1} {x2} {y2} {duration_ms}"))
                .map(drop),
            DeviceAction::Key { key } => self
                .shell_ok(&format!("input keyevent {}", key.keycode()))
                .map(drop),
            DeviceAction::Text { text } => self.type_text(text),
            DeviceAction::Launch { package } => {
                let out = self.shell(&format!(
                    "monkey -p {} -c android.intent.category.LAUNCHER 1",
                    quote(package)
                ))?;
                if out.status != 0 || out.all_text().contains("No activities found") {
                    return Err(PhoneError::UnknownPackage(package.clone()));
                }
                Ok(())
            }
            // Both taps in one shell command line: on Android 12+ `input`
            // is `cmd input` (no JVM start), so the second lands well within
            // the 300 ms double-tap timeout; two adb round trips may not.
            // AndroidWorld's `adb_utils.double_tap` and MobileWorld's
            // controller also send two taps.
            DeviceAction::DoubleTap { x, y } => self
                .shell_ok(&format!("input tap {x} {y} && input tap {x} {y}"))
                .map(drop),
            DeviceAction::Drag {
                x1,
                y1,
                x2,
                y2,
                duration_ms,
            } => self.drag((*x1, *y1), (*x2, *y2), *duration_ms),
            DeviceAction::Keycode { code } => {
                self.shell_ok(&format!("input keyevent {code}")).map(drop)
            }
            DeviceAction::ClearText => self.clear_text(),
        }
    }

    fn read_setting(&mut self, key: &SettingKey) -> Result<Option<String>, PhoneError> {
        let out = self.shell_ok(&format!(
            "settings get {} {}",
            key.namespace.as_str(),
            quote(&key.name)
        ))?;
        let value = out.trim_end_matches(['\n', '\r']);
        Ok((value != "null").then(|| value.to_string()))
    }

    fn read_app(&mut self, key: &str) -> Result<Option<String>, PhoneError> {
        let out = self.shell(&format!(
            "content query --uri {APP_DATA_URI} --projection value --where {}",
            quote(&format!("name='{key}'"))
        ))?;
        let text = out.stdout_text();
        if out.status != 0 || !(text.starts_with("Row: ") || text.starts_with("No result found")) {
            return Err(PhoneError::Unsupported(format!(
                "app data ({key}): this phone has no {APP_DATA_URI} provider"
            )));
        }
        Ok(text
            .lines()
            .find_map(|l| l.split_once(" value=").map(|(_, v)| v.to_string())))
    }

    /// `content query` of the table's provider (files: `find` with `stat`),
    /// parsed with the projection asked for. A provider that refuses the
    /// shell (the call log on older builds) prints its error on stderr with
    /// status 0: that is `Unsupported`, so the check is skipped with it.
    fn records(
        &mut self,
        table: crate::records::Table,
    ) -> Result<Vec<crate::records::Record>, PhoneError> {
        if crate::appdb::AppDb::for_table(table).is_some() {
            return self.read_app_records(table);
        }
        let Some(source) = table.source() else {
            let out = self.shell(&crate::records::list_command())?;
            return Ok(crate::records::files_from_stat(&out.stdout_text()));
        };
        let out = self.shell(&format!(
            "content query --uri {} --projection {}",
            source.uri,
            source.projection.join(":")
        ))?;
        let text = out.stdout_text();
        let errors = String::from_utf8_lossy(&out.stderr).into_owned();
        if errors.contains("Error while accessing provider") || out.status != 0 {
            let first = errors.lines().take(2).collect::<Vec<_>>().join(" ");
            return Err(PhoneError::Unsupported(format!(
                "{table} records: {} refused the shell: {first}",
                source.uri
            )));
        }
        let rows = crate::records::content::parse(&text, source.projection)
            .map_err(|e| PhoneError::Device(format!("{}: {e}", source.uri)))?;
        Ok(table.records_from(&rows))
    }

    fn app_keys(&self) -> Vec<String> {
        // The trait gives `&self`: the keys are listed when the episode is prepared.
        self.app_keys.clone()
    }

    fn open(&mut self, intent: &Intent) -> Result<(), PhoneError> {
        let args = match intent.0.as_str() {
            "android.intent.category.HOME" => {
                "-a android.intent.action.MAIN -c android.intent.category.HOME".to_string()
            }
            c if c.contains('/') => format!("-n {}", quote(c)),
            a => format!("-a {}", quote(a)),
        };
        let out = self.shell(&format!("am start -W {args}"))?;
        let text = out.all_text();
        if out.status != 0 || text.contains("Error") {
            return Err(PhoneError::UnknownIntent(intent.0.clone()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_foreground_comes_from_the_focus_lines() {
        let dumpsys = "  mCurrentFocus=Window{5e1a9c0 u0 com.android.settings/com.android.settings.Settings}\n  mFocusedApp=ActivityRecord{1 u0 com.x/.A t1}\n";
        assert_eq!(
            parse_foreground(dumpsys).as_deref(),
            Some("com.android.settings")
        );
        let no_focus = "  mCurrentFocus=null\n  mFocusedApp=ActivityRecord{8b3 u0 com.google.android.deskclock/com.android.deskclock.DeskClock t12}\n";
        assert_eq!(
            parse_foreground(no_focus).as_deref(),
            Some("com.google.android.deskclock")
        );
        assert_eq!(parse_foreground(""), None);
    }

    /// The virtual phone as a build whose `input` has neither
    /// `draganddrop` nor `keycombination` (it says so, status 0, as
    /// `ShellCommand.handleDefaultCommands` prints), recording each command.
    struct OldInput {
        inner: crate::vphone::InProcess,
        sent: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    }

    impl Transport for OldInput {
        fn serial(&self) -> &str {
            "old-input"
        }
        fn shell(&mut self, command: &str) -> Result<ShellResult, AdbError> {
            self.sent.lock().unwrap().push(command.to_string());
            for missing in ["draganddrop", "keycombination"] {
                if command.starts_with(&format!("input {missing}")) {
                    return Ok(ShellResult {
                        stdout: format!("Unknown command: {missing}\n").into_bytes(),
                        stderr: Vec::new(),
                        status: 0,
                    });
                }
            }
            self.inner.shell(command)
        }
        fn push(&mut self, data: &[u8], remote: &str) -> Result<(), AdbError> {
            self.inner.push(data, remote)
        }
        fn forward(&mut self, local: &str, remote: &str) -> Result<(), AdbError> {
            self.inner.forward(local, remote)
        }
        fn wait_for_device(&mut self, within: Duration) -> Result<(), AdbError> {
            self.inner.wait_for_device(within)
        }
    }

    #[test]
    fn without_draganddrop_or_keycombination_a_swipe_and_dels_stand_in() {
        let device = std::sync::Arc::new(
            crate::vphone::VirtualPhone::new(crate::vphone::test_support::TestSetups).unwrap(),
        );
        let sent = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let transport = OldInput {
            inner: crate::vphone::InProcess::new(device),
            sent: sent.clone(),
        };
        let mut phone = AdbPhone::new(Box::new(transport), AdbOptions::default()).unwrap();
        let launch = |package: &str| DeviceAction::Launch {
            package: package.into(),
        };
        phone.act(&launch(crate::apps::SETTINGS)).unwrap();
        let before = phone.observe(false).unwrap().xml;
        let drag = DeviceAction::Drag {
            x1: 540,
            y1: 1900,
            x2: 540,
            y2: 900,
            duration_ms: 1500,
        };
        phone.act(&drag).unwrap();
        assert_ne!(
            phone.observe(false).unwrap().xml,
            before,
            "the list scrolled"
        );
        assert!(sent
            .lock()
            .unwrap()
            .contains(&"input swipe 540 1900 540 900 1500".to_string()));

        phone.act(&launch("com.google.android.contacts")).unwrap();
        let h = phone.observe(false).unwrap().hierarchy;
        let (x, y) = crate::uiautomator::Selector::desc("Create contact")
            .find_first(&h)
            .unwrap()
            .bounds
            .center();
        phone.act(&DeviceAction::Tap { x, y }).unwrap();
        phone
            .act(&DeviceAction::Text { text: "Zoe".into() })
            .unwrap();
        phone.act(&DeviceAction::ClearText).unwrap();
        let h = phone.observe(false).unwrap().hierarchy;
        let field =
            crate::uiautomator::Selector::resource_id("com.google.android.contacts:id/first_name")
                .find_first(&h)
                .unwrap()
                .text
                .to_string();
        assert_eq!(field, "First name", "emptied: the hint shows");
        let sent = sent.lock().unwrap();
        let dels = sent
            .iter()
            .any(|c| c.starts_with("input keyevent 123 67 67 "));
        assert!(dels, "{sent:?}");
    }
}
