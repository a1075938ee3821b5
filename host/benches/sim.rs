//! Simulator benchmarks: one agent step (observe the dump, then act), the same
//! with a PNG screenshot, and one full reference pass over every task × variant.
//! Run: `cargo bench -p droidscore --bench sim`.

use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use droidscore::agent::Solver;
use droidscore::apps::PhoneSetup;
use droidscore::episode;
use droidscore::phone::{DeviceAction, Intent, Phone};
use droidscore::sim::SimPhone;
use droidscore::task;
use droidscore::uiautomator::Selector;

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
