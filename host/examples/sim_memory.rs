//! Resident memory per simulated phone: build N phones of one task
//! variant, each launched into its app and observed once (so its screen has
//! been laid out), and report what the kernel says became resident
//! (`VmRSS` in /proc/self/status, after − before, divided by N). One arm per
//! process, so arms do not share a heap; run each several times,
//! interleaved, and quote the median with its range:
//!
//!   cargo run --release -p droidscore --example sim_memory -- TASK VARIANT N

use droidscore_phone::sim::SimPhone;
use droidscore_phone::{DeviceAction, Phone};

fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("Linux /proc");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS in /proc/self/status")
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [task, variant, n] = args.as_slice() else {
        eprintln!("usage: sim_memory TASK VARIANT N");
        std::process::exit(2);
    };
    let n: usize = n.parse().expect("N is a number");
    let suite = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tasks");
    let tasks = droidscore::task::load_dir(&suite).expect("the suite loads");
    let t = tasks.iter().find(|t| &t.id == task).expect("no such task");
    let inst = t.variant(variant).expect("no such variant");
    // One phone first, so code pages and lazily built statics are resident
    // before the baseline.
    let mut warm = SimPhone::new(inst.setup(0)).unwrap();
    warm.act(&DeviceAction::Launch {
        package: t.app.clone(),
    })
    .unwrap();
    warm.observe(false).unwrap();
    let before = rss_kib();
    let mut phones = Vec::with_capacity(n);
    for seed in 0..n as u64 {
        let mut p = SimPhone::new(inst.setup(seed)).unwrap();
        p.act(&DeviceAction::Launch {
            package: t.app.clone(),
        })
        .unwrap();
        p.observe(false).unwrap();
        phones.push(p);
    }
    let after = rss_kib();
    let per_phone = (after.saturating_sub(before)) as f64 / n as f64;
    println!("{task}/{variant}\tphones {n}\trss_before_kib {before}\trss_after_kib {after}\tkib_per_phone {per_phone:.1}");
    drop(phones);
}
