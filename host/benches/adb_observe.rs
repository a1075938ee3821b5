//! The adb backend's observation without the wire: `AdbPhone::observe` over
//! the virtual phone reached in-process, so the cost of the virtual phone's
//! own work (dump, raw screencap rendering) and the backend's (parsing, PNG
//! encoding) is measured apart from the adb server and sockets that
//! `droidscore adb latency` adds. The difference between the two is the wire.
//! Run: `cargo bench -p droidscore --bench adb_observe`.

use std::path::Path;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use droidscore::task;
use droidscore_phone::adb::{AdbOptions, AdbPhone};
use droidscore_phone::vphone::{InProcess, VirtualPhone};
use droidscore_phone::{DeviceAction, Phone};

fn observe(c: &mut Criterion) {
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tasks");
    let tasks = task::load_dir(&suite).unwrap();
    let vp = Arc::new(VirtualPhone::new(droidscore::task::SuiteSetups(tasks)).unwrap());
    let mut phone =
        AdbPhone::new(Box::new(InProcess::new(vp.clone())), AdbOptions::default()).unwrap();
    phone
        .act(&DeviceAction::Launch {
            package: "com.android.settings".into(),
        })
        .unwrap();
    let mut group = c.benchmark_group("adb in-process");
    group.bench_function("observe: dump + cat + dumpsys", |b| {
        b.iter(|| phone.observe(false).unwrap().xml.len())
    });
    group.bench_function("observe with raw screencap + png", |b| {
        b.iter(|| phone.observe(true).unwrap().screenshot.map(|s| s.len()))
    });
    group.bench_function("virtual phone: raw screencap alone", |b| {
        b.iter(|| vp.run("screencap").stdout.len())
    });
    group.finish();
}

criterion_group!(benches, observe);
criterion_main!(benches);
