//! Fuzzing the task loader with its draws (issue 30): shipped task files
//! mutated, and task files whose `[params]` are generated (fixed values
//! naming each other, every kind of draw with extreme ranges and widths),
//! are loaded and then drawn at several instance seeds. Whatever the input,
//! loading never panics and never grows a string past [`MAX_EXPANDED_LEN`]:
//! it is a clear error naming the file, or instances whose strings are
//! within the bound. `PROPTEST_CASES=N` runs N cases of each target.
//!
//! It found one defect: an `int` draw over more than half the i64 range
//! overflowed (`draw::tests::an_int_draw_over_the_whole_i64_range_stays_in_range`).

use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use super::*;

/// `PROPTEST_CASES`, else `default`: each target's default takes 2-4 s in
/// a debug build on a 2-core machine.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// Load `text` as `fuzz.toml` (its id is rewritten to match), then draw
/// instance seeds 0, 1 and a large one: an error, or instances within
/// bounds. True when it loaded.
fn load_and_draw(text: &str) -> Result<bool, TestCaseError> {
    let path = Path::new("fuzz/fuzz.toml");
    let task = match load_text(path, text) {
        Ok(task) => task,
        Err(e) => {
            prop_assert_eq!(&e.path, path);
            prop_assert!(!e.to_string().is_empty());
            return Ok(false);
        }
    };
    for seed in [0, 1, u64::MAX] {
        let Ok(instances) = task.instances(seed) else {
            continue;
        };
        for instance in instances {
            prop_assert!(instance.goal.len() <= MAX_EXPANDED_LEN);
            for value in instance.params.values() {
                prop_assert!(value.len() <= MAX_EXPANDED_LEN);
            }
        }
    }
    Ok(true)
}

/// Run `strategy`'s cases through `load_and_draw`; print what was tried.
fn fuzz(name: &str, cases: u32, strategy: impl Strategy<Value = String>) {
    let mut runner = TestRunner::new(Config {
        failure_persistence: None,
        ..Config::with_cases(cases)
    });
    let (tried, loaded) = (AtomicU32::new(0), AtomicU32::new(0));
    let started = Instant::now();
    runner
        .run(&strategy, |text| {
            tried.fetch_add(1, Ordering::Relaxed);
            if load_and_draw(&text)? {
                loaded.fetch_add(1, Ordering::Relaxed);
            }
            Ok(())
        })
        .unwrap();
    eprintln!(
        "fuzz {name}: {} inputs ({} loaded, the rest refused with an error) in {:.1} s, 0 crashes",
        tried.load(Ordering::Relaxed),
        loaded.load(Ordering::Relaxed),
        started.elapsed().as_secs_f64()
    );
    assert!(tried.load(Ordering::Relaxed) >= cases);
}

/// Shipped tasks with drawn, composed and fixed params and every kind of
/// variant, their ids made `fuzz`.
fn seeds() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tasks");
    [
        "blind_sms_ask_address",
        "alarm_add_pair",
        "wifi_on",
        "cal_add_event",
    ]
    .iter()
    .map(|id| {
        std::fs::read_to_string(dir.join(format!("{id}.toml")))
            .unwrap()
            .replacen(&format!("id = \"{id}\""), "id = \"fuzz\"", 1)
    })
    .collect()
}

/// What a mutation inserts: TOML and template syntax, params, and keys
/// that are nearly right.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("{".to_string()),
        Just("}".to_string()),
        Just("\"".to_string()),
        Just("\n".to_string()),
        Just("{first}".to_string()),
        Just("{last}{last}{last}{last}".to_string()),
        Just("{nope}".to_string()),
        Just("\\d{2}".to_string()),
        Just("\n[params]\n".to_string()),
        Just("\n[[variant]]\nid = \"v\"\n".to_string()),
        Just("\nrenmae = { \"a\" = \"b\" }\n".to_string()),
        Just("\nx = { int = [-9223372036854775808, 9223372036854775807], pad = 20 }\n".to_string()),
        Just("\ny = { int = [5, 1] }\n".to_string()),
        Just("\nz = { one_of = [] }\n".to_string()),
        Just("\nw = { pick = \"first_name\", distinct = [\"w\"] }\n".to_string()),
        Just("\nv = { phone = true, pad = 3 }\n".to_string()),
        Just("\nu = \"{u}\"\n".to_string()),
        "[ -~]{0,12}",
    ]
}

#[derive(Debug, Clone)]
enum Edit {
    Insert(usize, String),
    Delete(usize, usize),
    Repeat(usize, usize, usize),
}

fn apply(mut text: String, edit: &Edit) -> String {
    let at = |text: &str, i: usize| {
        let mut i = i % (text.len() + 1);
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    match edit {
        Edit::Insert(i, piece) => {
            let i = at(&text, *i);
            text.insert_str(i, piece);
        }
        Edit::Delete(i, n) => {
            let i = at(&text, *i);
            let j = at(&text, i + n % 64);
            if j >= i {
                text.replace_range(i..j, "");
            }
        }
        Edit::Repeat(i, n, times) => {
            let i = at(&text, *i);
            let j = at(&text, i + n % 32);
            if j >= i {
                let copy = text[i..j].repeat(*times % 20);
                text.insert_str(j, &copy);
            }
        }
    }
    text
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => (any::<usize>(), piece()).prop_map(|(i, p)| Edit::Insert(i, p)),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(i, n)| Edit::Delete(i, n)),
        1 => (any::<usize>(), any::<usize>(), any::<usize>()).prop_map(|(i, n, t)| Edit::Repeat(i, n, t)),
    ]
}

#[test]
fn fuzz_mutated_task_files_load_or_fail_clearly() {
    let seeds = seeds();
    let strategy = (0..seeds.len(), proptest::collection::vec(edit(), 1..6))
        .prop_map(move |(i, edits)| edits.iter().fold(seeds[i].clone(), apply));
    fuzz("mutated", cases(1000), strategy);
}

/// A change to a parsed task file, so the text stays TOML and the loader's
/// later stages (params, variants, instances) are reached.
#[derive(Debug, Clone)]
enum Change {
    /// Into the n-th string (in walk order), insert this.
    Text(usize, String),
    /// Into the n-th table, put this key with this value (a TOML value).
    Key(usize, String, String),
    /// Remove the n-th table's first key.
    Remove(usize),
}

/// Walk `value`'s strings and tables in order, counting down `n` for each
/// one `change` applies to; apply it at zero.
fn change_at(value: &mut toml::Value, n: &mut usize, change: &Change) -> bool {
    match (value, change) {
        (toml::Value::String(s), Change::Text(_, piece)) => {
            if *n == 0 {
                let mut mid = s.len() / 2;
                while !s.is_char_boundary(mid) {
                    mid -= 1;
                }
                s.insert_str(mid, piece);
                return true;
            }
            *n -= 1;
            false
        }
        (toml::Value::Array(items), _) => items.iter_mut().any(|v| change_at(v, n, change)),
        (toml::Value::Table(t), _) => {
            if !matches!(change, Change::Text(..)) {
                if *n == 0 {
                    match change {
                        Change::Key(_, key, value) => {
                            let value = toml::from_str::<toml::Table>(&format!("v = {value}"))
                                .ok()
                                .and_then(|mut t| t.remove("v"));
                            if let Some(value) = value {
                                t.insert(key.clone(), value);
                            }
                        }
                        _ => {
                            let first = t.keys().next().cloned();
                            if let Some(first) = first {
                                t.remove(&first);
                            }
                        }
                    }
                    return true;
                }
                *n -= 1;
            }
            t.iter_mut().any(|(_, v)| change_at(v, n, change))
        }
        _ => false,
    }
}

fn change() -> impl Strategy<Value = Change> {
    let key = proptest::sample::select(vec![
        "id",
        "params",
        "rename",
        "renmae",
        "decoys",
        "decoy",
        "initial",
        "alarms",
        "records",
        "decoy_solution",
        "first",
        "last",
        "a0",
        "max_steps",
        "goal",
        "pad",
        "int",
        "one_of",
        "distinct",
        "type",
        "tap",
    ]);
    let value = proptest::sample::select(vec![
        "\"x\"",
        "\"{first}{first}{first}{first}\"",
        "\"{last} {nope}\"",
        "0",
        "-1",
        "99999999999",
        "[]",
        "{}",
        "[\"a\", \"{last}\"]",
        "{ int = [9, 1] }",
        "{ int = [-9223372036854775808, 9223372036854775807] }",
        "{ pick = \"nope\" }",
        "{ one_of = [] }",
        "{ phone = true, distinct = [\"first\"] }",
        "{ \"Wi-Fi\" = \"{first}\" }",
        "[{ screen = \"settings\", title = \"{last}\" }]",
        "true",
    ]);
    prop_oneof![
        3 => (any::<usize>(), piece()).prop_map(|(n, p)| Change::Text(n % 64, p)),
        2 => (any::<usize>(), key, value).prop_map(|(n, k, v)| Change::Key(n % 32, k.into(), v.into())),
        1 => any::<usize>().prop_map(|n| Change::Remove(n % 32)),
    ]
}

#[test]
fn fuzz_changed_task_tables_load_or_fail_clearly() {
    let seeds: Vec<toml::Value> = seeds()
        .iter()
        .map(|s| toml::Value::Table(toml::from_str(s).unwrap()))
        .collect();
    let strategy = (0..seeds.len(), proptest::collection::vec(change(), 1..5)).prop_map(
        move |(i, changes)| {
            let mut value = seeds[i].clone();
            for change in &changes {
                let mut n = match change {
                    Change::Text(n, _) | Change::Key(n, ..) | Change::Remove(n) => *n,
                };
                change_at(&mut value, &mut n, change);
            }
            toml::to_string(&value).unwrap_or_default()
        },
    );
    fuzz("changed tables", cases(250), strategy);
}

/// One `[params]` value naming any of `names`.
fn param(names: &'static [&'static str]) -> impl Strategy<Value = String> {
    let text = proptest::collection::vec(
        prop_oneof![
            2 => proptest::sample::select(names).prop_map(|n| format!("{{{n}}}")),
            1 => "[a-z ]{0,6}",
            1 => Just("{".to_string()),
        ],
        0..6,
    )
    .prop_map(|p| p.concat());
    let quoted = |s: String| format!("{s:?}");
    prop_oneof![
        3 => text.clone().prop_map(quoted),
        1 => proptest::sample::select(vec!["first_name", "last_name", "event", "nope"])
            .prop_map(|p| format!("{{ pick = {p:?} }}")),
        1 => proptest::collection::vec(text.clone(), 0..3).prop_map(|o| {
            let items: Vec<String> = o.into_iter().map(|s| format!("{s:?}")).collect();
            format!("{{ one_of = [{}] }}", items.join(", "))
        }),
        1 => (any::<i64>(), any::<i64>(), proptest::option::of(0usize..30)).prop_map(|(a, b, pad)| {
            let pad = pad.map(|p| format!(", pad = {p}")).unwrap_or_default();
            format!("{{ int = [{}, {}]{pad} }}", a.min(b), a.max(b))
        }),
        1 => (-3i64..3, -3i64..3).prop_map(|(a, b)| format!("{{ int = [{a}, {b}] }}")),
        1 => proptest::sample::subsequence(names, 0..3)
            .prop_map(|d| format!("{{ phone = true, distinct = {d:?} }}")),
        1 => proptest::sample::subsequence(names, 0..3)
            .prop_map(|d| format!("{{ one_of = [\"a\", \"b\"], distinct = {d:?} }}")),
    ]
}

const NAMES: &[&str] = &["a0", "a1", "a2", "a3", "a4"];

#[test]
fn fuzz_generated_params_load_or_fail_clearly() {
    let strategy = (
        proptest::collection::vec(param(NAMES), NAMES.len()),
        proptest::collection::vec((proptest::sample::select(NAMES), param(NAMES)), 0..3),
        proptest::sample::select(NAMES),
    )
        .prop_map(|(values, overrides, goal)| {
            let params: String = NAMES
                .iter()
                .zip(values)
                .map(|(n, v)| format!("{n} = {v}\n"))
                .collect();
            let mut variants = String::from("[[variant]]\nid = \"base\"\n");
            for (i, (name, value)) in overrides.iter().enumerate() {
                // A variant's own params are fixed text only.
                let value = if value.starts_with('"') {
                    value.clone()
                } else {
                    "\"x\"".into()
                };
                variants +=
                    &format!("[[variant]]\nid = \"v{i}\"\nparams = {{ {name} = {value} }}\n");
            }
            format!(
                "id = \"fuzz\"\napp = \"com.android.settings\"\ngoal = \"Say {{{goal}}}\"\n\
                 [params]\n{params}\
                 [[oracle]]\ncheck = \"setting\"\nkey = \"global/wifi_on\"\nany_of = [\"1\"]\n\
                 [[solution]]\ntype = \"{{{goal}}}\"\n{variants}"
            )
        });
    fuzz("generated params", cases(800), strategy);
}
