//! The adb backend against the virtual phone reached in-process: every task
//! variant scored through `settings get`, `content query` and dumps read back
//! over the shell, compared with the in-process simulator's verdict. The same
//! suite through the real adb server is in `adb/backend.rs`.

use std::sync::Arc;

use droidscore::agent::{Agent, LlmAgent, LlmConfig, Noop, Solver};
use droidscore::episode::{self, Episode};
use droidscore::run::backend::{prepare_adb_phone, Prepared};
use droidscore::run::{EpisodeKey, Recording};
use droidscore::store::StepRecord;
use droidscore::task::{load_dir, Instance, Task};
use droidscore_phone::adb::{AdbOptions, AdbPhone};
use droidscore_phone::sim::SimPhone;
use droidscore_phone::vphone::{InProcess, VirtualPhone};
use droidscore_phone::{DeviceAction, Phone, PhoneError};

fn tasks() -> Vec<Task> {
    load_dir(&crate::support::root().join("tasks")).unwrap()
}

fn adb_phone(tasks: &[Task]) -> (Arc<VirtualPhone>, AdbPhone) {
    let vp = Arc::new(VirtualPhone::new(droidscore::task::SuiteSetups(tasks.to_vec())).unwrap());
    let phone = AdbPhone::new(Box::new(InProcess::new(vp.clone())), AdbOptions::default()).unwrap();
    (vp, phone)
}

fn state(vp: &VirtualPhone) -> String {
    String::from_utf8(vp.run("droidscore-sim state").stdout).unwrap()
}

#[test]
fn every_variant_scores_the_same_through_the_adb_backend_except_flip_history_which_is_skipped() {
    let tasks = tasks();
    let (_vp, mut phone) = adb_phone(&tasks);
    assert!(phone.is_virtual());
    let (mut same, mut skipped) = (0, 0);
    for inst in tasks.iter().flat_map(|t| &t.variants) {
        let name = format!("{}/{}", inst.task, inst.variant.id);
        let mut sim = SimPhone::new(inst.setup(0)).unwrap();
        let on_sim = episode::run(&mut sim, &mut Solver::new(inst.solution.clone()), inst).unwrap();
        match prepare_adb_phone(&mut phone, inst, 0).unwrap() {
            Prepared::Skip(why) => {
                assert!(inst.oracle.needs_flip_history(), "{name} skipped: {why}");
                assert!(why.contains("flip history"), "{name}: {why}");
                skipped += 1;
            }
            Prepared::Ready => {
                let over_adb =
                    episode::run(&mut phone, &mut Solver::new(inst.solution.clone()), inst)
                        .unwrap();
                assert_eq!(
                    (over_adb.success, over_adb.verdict.outcome),
                    (on_sim.success, on_sim.verdict.outcome),
                    "{name}: adb {} / sim {}",
                    over_adb.reason,
                    on_sim.reason
                );
                assert!(over_adb.success, "{name}: {}", over_adb.reason);
                same += 1;
            }
        }
    }
    let flip_history = tasks
        .iter()
        .flat_map(|t| &t.variants)
        .filter(|i| i.oracle.needs_flip_history())
        .count();
    assert_eq!(skipped, flip_history);
    assert!(same >= 130, "only {same} variants ran over adb");
}

#[test]
fn a_do_nothing_agent_passes_nothing_through_the_adb_backend() {
    let tasks = tasks();
    let (_vp, mut phone) = adb_phone(&tasks);
    for inst in tasks.iter().flat_map(|t| &t.variants) {
        if prepare_adb_phone(&mut phone, inst, 0).unwrap() != Prepared::Ready {
            continue;
        }
        let ep = episode::run(&mut phone, &mut Noop, inst).unwrap();
        assert!(
            !ep.success,
            "{}/{} passed doing nothing",
            inst.task, inst.variant.id
        );
    }
}

#[test]
fn observing_never_changes_the_phones_state() {
    let tasks = tasks();
    let (vp, mut phone) = adb_phone(&tasks);
    let inst = tasks[0].variants[0].clone();
    prepare_adb_phone(&mut phone, &inst, 0).unwrap();
    phone
        .act(&DeviceAction::Launch {
            package: inst.app.clone(),
        })
        .unwrap();
    let before = state(&vp);
    let dumps_before = vp.run("dumpsys window").stdout;
    for _ in 0..3 {
        let obs = phone.observe(true).unwrap();
        assert!(obs.screenshot.is_some());
        assert_eq!(obs.foreground, inst.app);
        assert_eq!(obs.timing.unwrap().dump_attempts, 1);
    }
    assert_eq!(state(&vp), before);
    assert_eq!(vp.run("dumpsys window").stdout, dumps_before);
}

#[test]
fn a_dump_that_cannot_get_an_idle_state_is_retried_and_then_given_up_within_the_bound() {
    let tasks = tasks();
    let (vp, _) = adb_phone(&tasks);
    let options = AdbOptions {
        dump_within: std::time::Duration::from_millis(300),
        dump_backoff: std::time::Duration::from_millis(50),
        ..AdbOptions::default()
    };
    let mut phone = AdbPhone::new(Box::new(InProcess::new(vp.clone())), options).unwrap();
    vp.run("droidscore-sim fail-dumps 2");
    let obs = phone.observe(false).unwrap();
    assert_eq!(obs.timing.unwrap().dump_attempts, 3);
    vp.run("droidscore-sim fail-dumps 1000 null");
    let err = phone.observe(false).unwrap_err().to_string();
    assert!(err.contains("null root node"), "{err}");
    assert!(err.contains("uiautomator dump failed"), "{err}");
}

/// `inst` played by `agent` on `phone`, and the steps a run records.
fn recorded(
    phone: &mut AdbPhone,
    agent: &mut dyn Agent,
    inst: &Instance,
) -> (Episode, Vec<StepRecord>) {
    let key = EpisodeKey {
        run_id: "r".into(),
        task: inst.task.clone(),
        variant: inst.variant.id.clone(),
        repeat: 0,
    };
    let mut recording = Recording::new(agent, key);
    let ep = episode::run(phone, &mut recording, inst).unwrap();
    (ep, recording.steps)
}

/// The invalid reasons on recorded steps.
fn invalid(steps: &[StepRecord]) -> Vec<String> {
    steps
        .iter()
        .filter_map(|s| s.invalid_reason.clone())
        .collect()
}

/// The reference solution of `alarm_add_labeled`, typing `label` instead.
fn typing(tasks: &[Task], label: &str) -> Instance {
    let mut inst = tasks
        .iter()
        .find(|t| t.id == "alarm_add_labeled")
        .unwrap()
        .variant("base")
        .unwrap()
        .clone();
    for step in inst
        .solution
        .iter_mut()
        .filter(|s| s.text.as_deref() == Some("Gym"))
    {
        step.text = Some(label.to_string());
    }
    inst
}

#[test]
fn hostile_text_reaches_the_field_exactly_and_non_ascii_is_refused_on_the_step() {
    let tasks = tasks();
    let (vp, mut phone) = adb_phone(&tasks);
    let hostile = "'; touch \"$CANARY\"; echo ' $(id) `id` && | \\ * %";
    let inst = typing(&tasks, hostile);
    prepare_adb_phone(&mut phone, &inst, 0).unwrap();
    let ep = episode::run(&mut phone, &mut Solver::new(inst.solution.clone()), &inst).unwrap();
    let alarms = phone.read_app("app/alarms").unwrap().unwrap();
    assert!(alarms.contains(&format!("{hostile:?}")), "{alarms} {ep:?}");

    // Without ADBKeyBoard, non-ASCII is a refusal recorded on the step.
    let inst = typing(&tasks, "Café");
    prepare_adb_phone(&mut phone, &inst, 0).unwrap();
    let (ep, steps) = recorded(&mut phone, &mut Solver::new(inst.solution.clone()), &inst);
    let refused = invalid(&steps);
    assert!(
        refused.len() == 1
            && refused[0].contains("not ASCII")
            && refused[0].contains("ADBKeyBoard"),
        "{refused:?} {ep:?}"
    );
    assert!(!phone
        .read_app("app/alarms")
        .unwrap()
        .unwrap()
        .contains("Caf"));

    // With it, the same text is typed through its broadcast.
    vp.run("droidscore-sim adbkeyboard on");
    let mut phone =
        AdbPhone::new(Box::new(InProcess::new(vp.clone())), AdbOptions::default()).unwrap();
    prepare_adb_phone(&mut phone, &inst, 0).unwrap();
    let (_, steps) = recorded(&mut phone, &mut Solver::new(inst.solution.clone()), &inst);
    assert_eq!(invalid(&steps), Vec::<String>::new());
    assert!(phone
        .read_app("app/alarms")
        .unwrap()
        .unwrap()
        .contains("\"Café\""));
}

/// Text `input text` cannot type was refused by the phone, but the step
/// said nothing: no invalid reason, and the model was told the screen
/// changed (issue 30 item 11). Now the step is invalid for the reason and
/// the next prompt says the text was not typed and why.
#[test]
fn text_adb_cannot_type_is_an_invalid_step_and_the_model_is_told_why() {
    let tasks = tasks();
    let (_vp, mut phone) = adb_phone(&tasks);
    let inst = instance(&tasks, "wifi_on", "base").clone();
    prepare_adb_phone(&mut phone, &inst, 0).unwrap();
    let rt = crate::scripted_server::runtime();
    let server = crate::scripted_server::ScriptedServer::start(
        &rt,
        ["Caf\u{e9} au lait", "line one\\nline two", "100%s sure"]
            .iter()
            .map(|text| {
                crate::scripted_server::Reply::Content(format!(
                    "Reason: type it.\nAction: {{\"action_type\": \"input_text\", \"text\": \"{text}\"}}"
                ))
            })
            .chain([crate::scripted_server::Reply::Content(
                "Action: {\"action_type\": \"status\", \"goal_status\": \"complete\"}".into(),
            )])
            .collect(),
    );
    let config = LlmConfig {
        timeout: std::time::Duration::from_secs(5),
        ..LlmConfig::new(server.base_url.clone(), "scripted")
    };
    let mut agent = LlmAgent::new(config, rt.handle().clone()).unwrap();
    let (_, steps) = recorded(&mut phone, &mut agent, &inst);
    let reasons: Vec<Option<String>> = steps.iter().map(|s| s.invalid_reason.clone()).collect();
    assert_eq!(reasons.len(), 4, "{reasons:?}");
    for (reason, why) in reasons
        .iter()
        .zip(["not ASCII", "control character", "\"%s\""])
    {
        assert!(
            reason.as_deref().is_some_and(|r| r.contains(why)),
            "{reasons:?}"
        );
    }
    assert_eq!(reasons[3], None);
    let prompts: Vec<String> = server
        .received()
        .iter()
        .map(|r| {
            let content = &r.body["messages"][1]["content"];
            content
                .as_str()
                .map(str::to_owned)
                .unwrap_or_else(|| content[0]["text"].as_str().unwrap().to_owned())
        })
        .collect();
    for (prompt, why) in prompts[1..]
        .iter()
        .zip(["not ASCII", "control character", "\"%s\""])
    {
        assert!(prompt.contains("-> not performed"), "{prompt}");
        assert!(!prompt.contains("screen changed"), "{prompt}");
        let last = prompt
            .lines()
            .find(|l| l.starts_with("Last answer invalid, not performed: refused:"))
            .unwrap_or_else(|| panic!("{prompt}"));
        assert!(last.contains(why), "{last}");
    }
}

#[test]
fn an_unknown_app_or_intent_is_a_refusal_not_a_phone_failure() {
    let tasks = tasks();
    let (_vp, mut phone) = adb_phone(&tasks);
    let err = phone
        .act(&DeviceAction::Launch {
            package: "com.example.nosuch".into(),
        })
        .unwrap_err();
    assert!(matches!(err, PhoneError::UnknownPackage(_)) && err.is_refusal());
    let err = phone
        .open(&droidscore_phone::Intent(
            "android.intent.action.NO_SUCH".into(),
        ))
        .unwrap_err();
    assert!(err.is_refusal(), "{err}");
}

/// The virtual phone posing as a real one: the backend cannot load variants
/// there, so it sets the initial state itself or skips with the reason.
fn real_like(tasks: &[Task]) -> (Arc<VirtualPhone>, AdbPhone) {
    let vp = Arc::new(VirtualPhone::new(droidscore::task::SuiteSetups(tasks.to_vec())).unwrap());
    vp.run("droidscore-sim pose-as-phone on");
    let phone = AdbPhone::new(Box::new(InProcess::new(vp.clone())), AdbOptions::default()).unwrap();
    assert!(!phone.is_virtual());
    (vp, phone)
}

fn instance<'a>(tasks: &'a [Task], task: &str, variant: &str) -> &'a Instance {
    tasks
        .iter()
        .find(|t| t.id == task)
        .unwrap()
        .variant(variant)
        .unwrap()
}

#[test]
fn on_a_real_phone_ui_variants_and_alarm_lists_are_skipped_and_base_variants_set_their_state() {
    let tasks = tasks();
    let (vp, mut phone) = real_like(&tasks);
    let skip = |phone: &mut AdbPhone, task: &str, variant: &str| match prepare_adb_phone(
        phone,
        instance(&tasks, task, variant),
        0,
    )
    .unwrap()
    {
        Prepared::Skip(why) => why,
        Prepared::Ready => panic!("{task}/{variant} was not skipped"),
    };
    assert!(skip(&mut phone, "wifi_on", "renamed").contains("renames controls"));
    assert!(skip(&mut phone, "bluetooth_on", "decoy").contains("adds decoy rows"));
    assert!(skip(&mut phone, "alarm_enable", "base").contains("alarm list"));
    assert!(skip(&mut phone, "wifi_off_no_flips", "base").contains("flip history"));

    // A base variant: the backend writes the initial state (here Wi-Fi off,
    // through `svc wifi disable`) on a phone where Wi-Fi was on.
    vp.run("svc wifi enable");
    let inst = instance(&tasks, "wifi_on", "base");
    assert_eq!(
        prepare_adb_phone(&mut phone, inst, 0).unwrap(),
        Prepared::Ready
    );
    assert_eq!(
        String::from_utf8(vp.run("settings get global wifi_on").stdout).unwrap(),
        "0\n"
    );
    let ep = episode::run(&mut phone, &mut Solver::new(inst.solution.clone()), inst).unwrap();
    assert!(ep.success, "{}", ep.reason);
}

#[test]
fn an_initial_value_the_phone_does_not_take_skips_the_episode_naming_it() {
    let tasks = tasks();
    let (vp, mut phone) = real_like(&tasks);
    vp.run("svc wifi enable");
    vp.run("droidscore-sim ignore-writes global/wifi_on");
    let why = match prepare_adb_phone(&mut phone, instance(&tasks, "wifi_on", "base"), 0).unwrap() {
        Prepared::Skip(why) => why,
        Prepared::Ready => panic!("ran from a state that was not set"),
    };
    assert_eq!(
        why,
        "the initial state global/wifi_on = 0 did not take on this phone: it reads 1"
    );
}

#[test]
fn with_read_back_typing_is_checked_against_the_focused_field() {
    let tasks = tasks();
    let vp = Arc::new(VirtualPhone::new(droidscore::task::SuiteSetups(tasks.clone())).unwrap());
    let options = AdbOptions {
        read_back_text: true,
        ..AdbOptions::default()
    };
    let mut phone = AdbPhone::new(Box::new(InProcess::new(vp.clone())), options).unwrap();
    // Typed into the label field: read back, it is there.
    let inst = typing(&tasks, "Swim");
    prepare_adb_phone(&mut phone, &inst, 0).unwrap();
    let (_, steps) = recorded(&mut phone, &mut Solver::new(inst.solution.clone()), &inst);
    assert_eq!(invalid(&steps), Vec::<String>::new());
    // Typed with no field focused (the launcher): nothing took it, so the step is refused.
    phone
        .act(&DeviceAction::Key {
            key: droidscore_phone::Key::Home,
        })
        .unwrap();
    let err = phone
        .act(&DeviceAction::Text {
            text: "lost".into(),
        })
        .unwrap_err();
    assert!(err.is_refusal(), "{err}");
    assert!(err.to_string().contains("typed \"lost\""), "{err}");
}
