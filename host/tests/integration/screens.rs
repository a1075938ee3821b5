//! Snapshots of every simulator screen: the uiautomator XML (indented for
//! readable diffs; the one-line form is the same tree) and the element list an
//! agent reads. A change to any screen shows up here as a reviewed diff.

use droidscore_phone::apps::{Alarm, PhoneSetup, SettingsApp};
use droidscore_phone::sim::SimPhone;
use droidscore_phone::uiautomator::{self, Selector, XmlStyle};
use droidscore_phone::{DeviceAction, Intent, Phone};

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
    SimPhone::new(PhoneSetup {
        alarms,
        episode_seed: 1,
        ..PhoneSetup::default()
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
        key: droidscore_phone::Key::Back,
    })
    .unwrap();
    tap(&mut p, &Selector::desc("Add alarm"));
    p.act(&DeviceAction::Text { text: "6".into() }).unwrap();
    snapshot("clock-time-picker", &mut p);
    p.act(&DeviceAction::Key {
        key: droidscore_phone::Key::Back,
    })
    .unwrap();
    tap(&mut p, &Selector::desc("Timer"));
    snapshot("clock-timer-tab", &mut p);
}

/// Every observation (XML and PNG) along a reference solution, driven by hand.
fn trace(
    instance: &droidscore::task::Instance,
    seed: u64,
    png: bool,
) -> Vec<(String, Option<Vec<u8>>)> {
    use droidscore::agent::{Agent, Decision, Solver};
    let mut phone = SimPhone::new(instance.setup(seed)).unwrap();
    let mut solver = Solver::new(instance.solution.clone());
    let mut seen = Vec::new();
    for _ in 0..instance.max_steps {
        let obs = phone.observe(png).unwrap();
        let decision = solver.next(&instance.goal, &obs);
        seen.push((obs.xml, obs.screenshot));
        match decision {
            Decision::Act(action) => phone.act(&action).unwrap(),
            Decision::Open(intent) => phone.open(&intent).unwrap(),
            Decision::ActAll(actions) => actions.iter().for_each(|a| phone.act(a).unwrap()),
            Decision::Idle | Decision::Answer(_) => {}
            Decision::Complete
            | Decision::Finish(_)
            | Decision::Infeasible(_)
            | Decision::Refuse(_)
            | Decision::AskConsent(_)
            | Decision::Infra(_)
            | Decision::Fatal(_) => break,
        }
    }
    seen
}

#[test]
fn same_task_variant_seed_and_actions_give_identical_xml_and_png_at_every_step() {
    let tasks = droidscore::task::load_dir(&super::support::root().join("tasks")).unwrap();
    // PNGs on the dialog-heavy trace only: encoding them is slow in debug builds.
    for (task, variant, png) in [
        ("alarm_add_labeled", "decoy", true),
        ("wifi_off_bluetooth_on", "reordered", false),
        ("brightness_half", "reordered", false),
    ] {
        let instance = tasks
            .iter()
            .find(|t| t.id == task)
            .unwrap()
            .variant(variant)
            .unwrap();
        let a = trace(instance, 42, png);
        let b = trace(instance, 42, png);
        assert_eq!(a.iter().all(|o| o.1.is_some()), png);
        assert!(a.len() >= 4, "{task}/{variant}: {} observations", a.len());
        assert_eq!(a.len(), b.len());
        for (step, (x, y)) in a.iter().zip(&b).enumerate() {
            assert!(x.0 == y.0, "{task}/{variant} step {step}: XML differs");
            assert!(x.1 == y.1, "{task}/{variant} step {step}: PNG differs");
        }
        // The screens really change along the way: the trace is not one frame repeated.
        assert!(
            a.windows(2).filter(|w| w[0].0 != w[1].0).count() >= 3,
            "{task}/{variant}"
        );
    }
}

/// The data-defined apps (`fixtures/sim/apps/`), each at its root screen.
#[test]
fn every_data_defined_app_root() {
    for app in droidscore_phone::apps::defs::apps() {
        let mut p = phone();
        p.act(&DeviceAction::Launch {
            package: app.package.clone(),
        })
        .unwrap();
        snapshot(&format!("app-{}-{}", app.name, app.root), &mut p);
    }
}
