//! Snapshots of every simulator screen: the uiautomator XML (indented for
//! readable diffs; the one-line form is the same tree) and the element list an
//! agent reads. A change to any screen shows up here as a reviewed diff.

use droidscore::phone::{DeviceAction, Intent, Phone};
use droidscore::sim::{Alarm, SettingsApp, SimConfig, SimPhone};
use droidscore::uiautomator::{self, Selector, XmlStyle};

fn phone() -> SimPhone {
    let alarms = vec![
        Alarm {
            id: 0,
            hour: 7,
            minute: 30,
            enabled: true,
            label: "Gym".into(),
        },
        Alarm {
            id: 0,
            hour: 22,
            minute: 0,
            enabled: false,
            label: String::new(),
        },
    ];
    SimPhone::new(SimConfig {
        alarms,
        seed: 1,
        ..SimConfig::default()
    })
    .unwrap()
}

fn snapshot(name: &str, phone: &mut SimPhone) {
    let obs = phone.observe(false).unwrap();
    let xml = uiautomator::to_xml_styled(&obs.hierarchy, XmlStyle::Indented { crlf: false });
    let elements = uiautomator::render(&uiautomator::elements(&obs.hierarchy));
    insta::assert_snapshot!(format!("{name}.xml"), xml);
    insta::assert_snapshot!(format!("{name}.elements"), elements);
}

fn tap(phone: &mut SimPhone, selector: &Selector) {
    let obs = phone.observe(false).unwrap();
    let node = selector
        .find_first(&obs.hierarchy)
        .unwrap_or_else(|| panic!("no node matches {selector}"));
    let (x, y) = node.bounds.center();
    phone.act(&DeviceAction::Tap { x, y }).unwrap();
}

#[test]
fn every_settings_screen() {
    for screen in &SettingsApp::get().screen {
        let mut p = phone();
        p.open(&Intent(format!("sim:{}", screen.id))).unwrap();
        snapshot(&format!("settings-{}", screen.id), &mut p);
    }
}

#[test]
fn launcher_and_clock_screens() {
    let mut p = phone();
    snapshot("launcher", &mut p);
    p.act(&DeviceAction::Launch {
        package: "com.google.android.deskclock".into(),
    })
    .unwrap();
    snapshot("clock-alarms", &mut p);
    tap(
        &mut p,
        &Selector::resource_id("com.google.android.deskclock:id/arrow"),
    );
    snapshot("clock-alarm-expanded", &mut p);
    tap(
        &mut p,
        &Selector::resource_id("com.google.android.deskclock:id/edit_label"),
    );
    snapshot("clock-label-dialog", &mut p);
    p.act(&DeviceAction::Key {
        key: droidscore::phone::Key::Back,
    })
    .unwrap();
    tap(&mut p, &Selector::desc("Add alarm"));
    p.act(&DeviceAction::Text { text: "6".into() }).unwrap();
    snapshot("clock-time-picker", &mut p);
    p.act(&DeviceAction::Key {
        key: droidscore::phone::Key::Back,
    })
    .unwrap();
    tap(&mut p, &Selector::desc("Timer"));
    snapshot("clock-timer-tab", &mut p);
}
