//! Simulator benchmarks: one agent step (observe the dump, then act), the same
//! with a PNG screenshot, the same on a data-defined app's list (Contacts with
//! 30 contacts), and one full reference pass over every task × variant.
//! Run: `cargo bench -p droidscore --bench sim`.

use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use droidscore::agent::Solver;
use droidscore::episode;
use droidscore::task;
use droidscore_phone::apps::{InitialRecord, PhoneSetup};
use droidscore_phone::records::Table;
use droidscore_phone::sim::SimPhone;
use droidscore_phone::uiautomator::Selector;
use droidscore_phone::{DeviceAction, Intent, Phone};

fn internet_screen() -> (SimPhone, DeviceAction) {
    let mut phone = SimPhone::new(PhoneSetup::default()).unwrap();
    phone
        .open(&Intent("android.settings.WIFI_SETTINGS".into()))
        .unwrap();
    let obs = phone.observe(false).unwrap();
    let (x, y) = Selector::text("Wi-Fi")
        .row()
        .find_first(&obs.hierarchy)
        .unwrap()
        .bounds
        .center();
    (phone, DeviceAction::Tap { x, y })
}

/// The Contacts list holding 30 contacts (the world's 10 and 20 more); the
/// tap focuses the search field, so every step lays out the same list.
fn contacts_list() -> (SimPhone, DeviceAction) {
    let records = (0..20)
        .map(|i| InitialRecord {
            table: Table::Contacts,
            fields: [
                ("display_name".to_string(), format!("Bench Person {i:02}")),
                ("number".to_string(), format!("+1 650-555-01{:02}", 50 + i)),
            ]
            .into(),
        })
        .collect();
    let mut phone = SimPhone::new(PhoneSetup {
        records,
        ..PhoneSetup::default()
    })
    .unwrap();
    phone
        .act(&DeviceAction::Launch {
            package: "com.google.android.contacts".into(),
        })
        .unwrap();
    let obs = phone.observe(false).unwrap();
    assert_eq!(phone.state().records().rows(Table::Contacts).len(), 30);
    let (x, y) = Selector::resource_id("com.google.android.contacts:id/search_view")
        .find_first(&obs.hierarchy)
        .unwrap()
        .bounds
        .center();
    (phone, DeviceAction::Tap { x, y })
}

fn step(c: &mut Criterion) {
    let mut group = c.benchmark_group("sim");
    let (mut phone, tap) = internet_screen();
    // One step as the agent loop takes it: dump the screen, then tap (Wi-Fi flips each time).
    group.bench_function("step: observe xml + tap", |b| {
        b.iter(|| {
            let obs = phone.observe(false).unwrap();
            phone.act(&tap).unwrap();
            obs.xml.len()
        })
    });
    let (mut phone, tap) = internet_screen();
    group.bench_function("step: observe xml + png + tap", |b| {
        b.iter(|| {
            let obs = phone.observe(true).unwrap();
            phone.act(&tap).unwrap();
            obs.screenshot.map(|s| s.len())
        })
    });
    let (mut phone, tap) = contacts_list();
    group.bench_function("contacts list (30): observe xml + tap", |b| {
        b.iter(|| {
            let obs = phone.observe(false).unwrap();
            phone.act(&tap).unwrap();
            obs.xml.len()
        })
    });
    let (mut phone, tap) = contacts_list();
    group.bench_function("contacts list (30): observe xml + png + tap", |b| {
        b.iter(|| {
            let obs = phone.observe(true).unwrap();
            phone.act(&tap).unwrap();
            obs.screenshot.map(|s| s.len())
        })
    });
    group.finish();
}

fn reference_pass(c: &mut Criterion) {
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tasks");
    let tasks = task::load_dir(&suite).unwrap();
    let instances: Vec<_> = tasks.iter().flat_map(|t| t.variants.iter()).collect();
    let mut group = c.benchmark_group("suite");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.bench_function(
        format!("reference pass: {} task variants", instances.len()),
        |b| {
            b.iter(|| {
                let mut passed = 0;
                for inst in &instances {
                    let mut phone = SimPhone::new(inst.setup(0)).unwrap();
                    let ep =
                        episode::run(&mut phone, &mut Solver::new(inst.solution.clone()), inst)
                            .unwrap();
                    passed += usize::from(ep.success);
                }
                assert_eq!(
                    passed,
                    instances.len(),
                    "the reference solves every variant"
                );
                passed
            })
        },
    );
    group.finish();
}

criterion_group!(benches, step, reference_pass);
criterion_main!(benches);
