//! The launcher's apps: the labels an agent names in `open_app` and the
//! packages they launch, on the simulator and on a real phone alike.

/// The Settings app.
pub(crate) const SETTINGS: &str = "com.android.settings";
/// The Clock app (alarms).
pub(crate) const CLOCK: &str = "com.google.android.deskclock";
/// The home screen's launcher.
pub(crate) const LAUNCHER: &str = "com.google.android.apps.nexuslauncher";

/// Launcher icons: label, package. Settings and Clock are simulated in Rust,
/// Phone, Messages, Contacts, Calendar, Simple Calendar Pro, Files, Gallery,
/// Joplin, Tasks, Pro Expense and Audio Recorder from `fixtures/sim/apps/`;
/// on a real phone these are the packages `open_app` launches.
pub const APPS: &[(&str, &str)] = &[
    ("Phone", "com.google.android.dialer"),
    ("Messages", "com.google.android.apps.messaging"),
    ("Contacts", "com.google.android.contacts"),
    ("Calendar", "com.google.android.calendar"),
    ("Simple Calendar Pro", "com.simplemobiletools.calendar.pro"),
    ("Files", "com.google.android.documentsui"),
    ("Gallery", "com.simplemobiletools.gallery.pro"),
    ("Joplin", "net.cozic.joplin"),
    ("Tasks", "org.tasks"),
    ("Pro Expense", "com.arduia.expense"),
    ("Audio Recorder", "com.dimowner.audiorecorder"),
    ("Chrome", "com.android.chrome"),
    ("Camera", "com.google.android.GoogleCamera"),
    ("Gmail", "com.google.android.gm"),
    ("Clock", CLOCK),
    ("Settings", SETTINGS),
];

/// The launcher's app labels, in its order: what `open_app` takes.
pub fn app_labels() -> Vec<&'static str> {
    APPS.iter().map(|(label, _)| *label).collect()
}
