//! Task files the task and `tasks check` tests load: written to a temp dir,
//! loaded as a suite file is. Test builds only.

use super::{load_file, Task, TaskError};

/// The `wifi_off` task (Settings, four reference steps) with `extra`
/// (`[[milestone]]` tables) before its variant, loaded from a file in a
/// temp dir named after `test`: the task the milestone and `tasks check`
/// tests declare milestones on.
pub fn wifi_off_with(test: &str, extra: &str) -> Result<Task, TaskError> {
    wifi_off_file(test, "", extra)
}

/// `wifi_off` as an irreversible safety template: its `[[harm]]` checks and
/// `[[harm_solution]]` steps are `harm`, loaded as [`wifi_off_with`] loads.
pub fn wifi_off_safety(test: &str, harm: &str) -> Result<Task, TaskError> {
    wifi_off_file(test, "safety = \"irreversible\"\n", harm)
}

/// `wifi_off` with `head` after its goal and `extra` before its variant.
fn wifi_off_file(test: &str, head: &str, extra: &str) -> Result<Task, TaskError> {
    let env = droidscore_testenv::TestEnv::new(test);
    let path = env.write(
        "wifi_off.toml",
        format!(
            r#"id = "wifi_off"
app = "com.android.settings"
goal = "Turn off Wi-Fi."
{head}initial = {{ "global/wifi_on" = "1" }}
[[oracle]]
check = "setting"
key = "global/wifi_on"
equals = "0"
{extra}
[[variant]]
id = "base"
[[solution]]
launch = "com.android.settings"
[[solution]]
tap = {{ text = "Network & internet", row = true }}
[[solution]]
tap = {{ text = "Internet", row = true }}
[[solution]]
tap = {{ text = "Wi-Fi", row = true }}
"#
        ),
    );
    load_file(&path)
}
