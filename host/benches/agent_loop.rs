//! The LLM agent loop's own cost per step, model time excluded: the scripted
//! server answers instantly, so a step is observe (dump + PNG unless
//! no-image) → element list → prompt → HTTP on loopback → parse → resolve →
//! act on the simulator. `cargo bench -p droidscore --bench agent_loop`.

// Only part of the test server is used here.
#[allow(dead_code)]
#[path = "../tests/integration/scripted_server.rs"]
mod scripted_server;

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use droidscore::agent::{Agent, Decision, LlmAgent, LlmConfig};
use droidscore_phone::apps::PhoneSetup;
use droidscore_phone::sim::SimPhone;
use droidscore_phone::{DeviceAction, Phone};
use scripted_server::{Reply, ScriptedServer};

/// Requests the server can answer before it runs out (criterion's sample count
/// is bounded well below this at these settings).
const SCRIPT: usize = 200_000;

fn step_loop(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let mut group = c.benchmark_group("agent_loop");
    for no_image in [true, false] {
        // Home, then relaunch Settings: every step sees the same screen.
        let answer = r#"Reason: bench.
Action: {"action_type": "navigate_home"}"#;
        let server = ScriptedServer::start(&rt, vec![Reply::Content(answer.into()); SCRIPT]);
        let config = LlmConfig {
            no_image,
            timeout: Duration::from_secs(5),
            ..LlmConfig::new(server.base_url.clone(), "bench")
        };
        let mut agent = LlmAgent::new(config, rt.handle().clone()).unwrap();
        let mut phone = SimPhone::new(PhoneSetup::default()).unwrap();
        phone
            .act(&DeviceAction::Launch {
                package: "com.android.settings".into(),
            })
            .unwrap();
        let name = if no_image {
            "step_no_image"
        } else {
            "step_with_png"
        };
        group.bench_function(name, |b| {
            b.iter(|| {
                let obs = phone.observe(agent.wants_screenshot()).unwrap();
                match agent.next("Turn on Wi-Fi.", &obs) {
                    Decision::Act(a) => phone.act(&a).unwrap(),
                    other => panic!("{other:?}"),
                }
                // Back to the same screen so every step sees the same dump.
                phone
                    .act(&DeviceAction::Launch {
                        package: "com.android.settings".into(),
                    })
                    .unwrap();
                assert_eq!(agent.take_step_log().len(), 1);
                // A fresh history, so the prompt does not grow across iterations.
                agent.reset(0);
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(Duration::from_secs(8));
    targets = step_loop
}
criterion_main!(benches);
