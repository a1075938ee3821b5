//! The step schema: its shape for a given screen (snapshot), its bounds,
//! that whatever it admits parses and resolves, and that every action of the
//! suite's reference solutions is admitted by the schema of its step.
//!
//! Validation is a small checker of exactly the keywords the schema may use
//! (it panics on any other, so the schema cannot drift outside the subset
//! constrained decoders share). The `jsonschema` crate was the alternative:
//! well kept, but as a dev-dependency it turns on serde_json's
//! `float_roundtrip` and more hashbrown and num features for the whole
//! workspace, and so rebuilds mistral.rs and candle for every test build.

use serde_json::{json, Map, Value};

use super::*;
use crate::agent::action::{parse_action, resolve, screen_size};
use crate::agent::translate::as_action;
use crate::agent::{Agent, Decision, Solver};
use droidscore_phone::uiautomator::{elements, Bounds, Element};
use droidscore_phone::Observation;

/// Whether `v` is valid under `schema`; the error says where it is not.
fn check(schema: &Value, v: &Value, at: &str) -> Result<(), String> {
    let s = schema.as_object().expect("a schema is an object");
    for key in s.keys() {
        assert!(
            [
                "anyOf",
                "type",
                "const",
                "enum",
                "properties",
                "required",
                "additionalProperties",
                "minimum",
                "maximum",
                "minLength",
                "maxLength",
            ]
            .contains(&key.as_str()),
            "keyword {key:?} is outside the subset"
        );
    }
    if let Some(any) = s.get("anyOf") {
        let errors: Vec<String> = any
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|b| check(b, v, at).err())
            .collect();
        if errors.len() == any.as_array().unwrap().len() {
            return Err(format!(
                "{at}: no branch of anyOf matches ({})",
                errors.join(" | ")
            ));
        }
    }
    if let Some(t) = s.get("type").and_then(Value::as_str) {
        let ok = match t {
            "object" => v.is_object(),
            "string" => v.is_string(),
            "integer" => v.is_i64() || v.is_u64(),
            "boolean" => v.is_boolean(),
            other => panic!("type {other} is not used"),
        };
        if !ok {
            return Err(format!("{at}: {v} is not {t}"));
        }
    }
    if let Some(c) = s.get("const") {
        if c != v {
            return Err(format!("{at}: {v} is not {c}"));
        }
    }
    if let Some(e) = s.get("enum") {
        if !e.as_array().unwrap().contains(v) {
            return Err(format!("{at}: {v} is not in {e}"));
        }
    }
    if let Some(min) = s.get("minimum") {
        if v.as_i64().unwrap() < min.as_i64().unwrap() {
            return Err(format!("{at}: {v} < {min}"));
        }
    }
    if let Some(max) = s.get("maximum") {
        if v.as_i64().unwrap() > max.as_i64().unwrap() {
            return Err(format!("{at}: {v} > {max}"));
        }
    }
    let chars = || v.as_str().unwrap().chars().count() as u64;
    if let Some(n) = s.get("minLength") {
        if chars() < n.as_u64().unwrap() {
            return Err(format!("{at}: shorter than {n}"));
        }
    }
    if let Some(n) = s.get("maxLength") {
        if chars() > n.as_u64().unwrap() {
            return Err(format!("{at}: longer than {n}"));
        }
    }
    if let Some(v) = v.as_object() {
        let props = s.get("properties").and_then(Value::as_object);
        for name in s
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if !v.contains_key(name.as_str().unwrap()) {
                return Err(format!("{at}: {name} is missing"));
            }
        }
        for (k, value) in v {
            match props.and_then(|p| p.get(k)) {
                Some(p) => check(p, value, &format!("{at}.{k}"))?,
                None if s.get("additionalProperties") == Some(&json!(false)) => {
                    return Err(format!("{at}: {k} is not allowed"))
                }
                None => {}
            }
        }
    }
    Ok(())
}

fn el(index: usize, class: &str, label: &str, bounds: Bounds) -> Element {
    droidscore_phone::uiautomator::Element::plain(index, class, label, bounds)
}

fn screen_of(n: usize) -> Vec<Element> {
    (0..n)
        .map(|i| {
            let top = 200 + 150 * i as i32;
            el(
                i,
                "LinearLayout",
                &format!("Row {i}"),
                Bounds::new(0, top, 1080, top + 150),
            )
        })
        .collect()
}

const SCREEN: (i32, i32) = (1080, 2400);

#[test]
fn the_schema_for_a_three_element_screen() {
    insta::assert_snapshot!(
        serde_json::to_string_pretty(&action_schema(3, SCREEN, Reason::Full)).unwrap()
    );
}

#[test]
fn the_index_is_bounded_by_the_element_list_and_absent_without_elements() {
    let schema = action_schema(3, SCREEN, Reason::Full);
    let click = |index: Value| json!({"reason": "r", "action_type": "click", "index": index});
    assert!(check(&schema, &click(json!(0)), "$").is_ok());
    assert!(check(&schema, &click(json!(2)), "$").is_ok());
    assert!(check(&schema, &click(json!(3)), "$").is_err());
    assert!(check(&schema, &click(json!(-1)), "$").is_err());
    let scroll = json!({"reason": "r", "action_type": "scroll", "direction": "down", "index": 3});
    assert!(check(&schema, &scroll, "$").is_err());

    let empty = action_schema(0, SCREEN, Reason::Full);
    assert!(!empty.to_string().contains("\"index\""), "{empty}");
    assert!(check(&empty, &click(json!(0)), "$").is_err());
    let point = json!({"reason": "r", "action_type": "click", "x": 1079, "y": 2399});
    assert!(check(&empty, &point, "$").is_ok());
    let off = json!({"reason": "r", "action_type": "click", "x": 1080, "y": 0});
    assert!(check(&empty, &off, "$").is_err());
}

#[test]
fn malformed_actions_are_outside_the_schema() {
    let schema = action_schema(3, SCREEN, Reason::Full);
    for bad in [
        json!({"action_type": "click", "index": 0}),
        json!({"reason": "r", "action_type": "click", "index": 0, "x": 5}),
        json!({"reason": "r", "action_type": "tap", "index": 0}),
        json!({"reason": "r", "action_type": "scroll", "direction": "sideways"}),
        json!({"reason": "r", "action_type": "status", "goal_status": "done"}),
        json!({"reason": "r", "action_type": "input_text", "text": ""}),
        json!({"reason": "r", "action_type": "open_app", "app_name": "Calculator"}),
        json!({"reason": "r".repeat(REASON_MAX_CHARS as usize + 1), "action_type": "wait"}),
        json!({"reason": "r", "action_type": "navigate_back", "extra": 1}),
    ] {
        assert!(check(&schema, &bad, "$").is_err(), "{bad} was admitted");
    }
}

/// One instance of each branch at its bounds: every enum value, each
/// integer's minimum and maximum, the longest strings allowed.
fn instances(schema: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for branch in schema["anyOf"].as_array().unwrap() {
        let props = branch["properties"].as_object().unwrap();
        let required: Vec<&str> = branch["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap())
            .collect();
        let values = |p: &Value| -> Vec<Value> {
            if let Some(c) = p.get("const") {
                vec![c.clone()]
            } else if let Some(e) = p.get("enum") {
                e.as_array().unwrap().clone()
            } else if p["type"] == "integer" {
                vec![p["minimum"].clone(), p["maximum"].clone()]
            } else if p["type"] == "boolean" {
                vec![json!(false), json!(true)]
            } else {
                let max = p["maxLength"].as_u64().unwrap() as usize;
                vec![
                    json!("a"),
                    json!("é\"}{ x".repeat(max).chars().take(max).collect::<String>()),
                ]
            }
        };
        for pick in 0..2 {
            for with_optional in [false, true] {
                let mut m = Map::new();
                for (name, p) in props {
                    if !with_optional && !required.contains(&name.as_str()) {
                        continue;
                    }
                    let vs = values(p);
                    m.insert(name.clone(), vs[pick.min(vs.len() - 1)].clone());
                }
                out.push(Value::Object(m));
            }
            // Every value of each enum, the rest at their first.
            for (name, p) in props {
                for v in p
                    .get("enum")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let mut m = Map::new();
                    for (other, q) in props {
                        if required.contains(&other.as_str()) {
                            m.insert(other.clone(), values(q)[0].clone());
                        }
                    }
                    m.insert(name.clone(), v.clone());
                    out.push(Value::Object(m));
                }
            }
        }
    }
    out
}

#[test]
fn whatever_the_schema_admits_parses_and_resolves() {
    for n in [0, 1, 7] {
        let els = screen_of(n);
        let schema = action_schema(n, SCREEN, Reason::Full);
        let all = instances(&schema);
        assert!(all.len() > 20, "{}", all.len());
        for v in all {
            check(&schema, &v, "$").unwrap_or_else(|e| panic!("{v}: {e}"));
            let action = parse_action(&v.to_string()).unwrap_or_else(|e| panic!("{v}: {e}"));
            resolve(&action, &els, SCREEN).unwrap_or_else(|e| panic!("{v}: {e}"));
        }
    }
}

/// The reference solver, checking each decision against its step's schema.
struct Checked {
    solver: Solver,
    failures: Vec<String>,
    actions: usize,
}

impl Agent for Checked {
    fn next(&mut self, goal: &str, obs: &Observation) -> Decision {
        let els = elements(&obs.hierarchy);
        let screen = screen_size(&obs.hierarchy);
        let decision = self.solver.next(goal, obs);
        let Some(action) = as_action(&decision, &els) else {
            self.failures
                .push(format!("{decision:?} is no AndroidWorld action"));
            return decision;
        };
        let mut answer = action.to_json();
        answer["reason"] = json!("the reference solution");
        // `reason` first, as the schema orders it.
        let mut ordered = Map::new();
        ordered.insert("reason".into(), answer["reason"].clone());
        for (k, v) in answer.as_object().unwrap() {
            ordered.entry(k.clone()).or_insert(v.clone());
        }
        let answer = Value::Object(ordered);
        if let Err(e) = check(
            &action_schema(els.len(), screen, Reason::Full),
            &answer,
            "$",
        ) {
            self.failures.push(format!("{answer}: {e}"));
        }
        self.actions += 1;
        decision
    }
}

#[test]
fn every_reference_action_of_the_suite_is_valid_under_its_steps_schema() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tasks");
    let tasks = crate::task::load_dir(&dir).unwrap();
    let (mut episodes, mut actions) = (0, 0);
    for task in &tasks {
        for inst in &task.variants {
            let mut phone = crate::test_support::with_setup(inst.setup(0));
            let mut agent = Checked {
                solver: Solver::new(inst.solution.clone()),
                failures: Vec::new(),
                actions: 0,
            };
            let ep = crate::episode::run(phone.as_mut(), &mut agent, inst).unwrap();
            assert!(
                ep.success,
                "{}/{}: {}",
                inst.task, inst.variant.id, ep.reason
            );
            assert!(
                agent.failures.is_empty(),
                "{}/{}: {:#?}",
                inst.task,
                inst.variant.id,
                agent.failures
            );
            episodes += 1;
            actions += agent.actions;
        }
    }
    assert!(
        episodes > 100 && actions > 400,
        "{episodes} episodes, {actions} actions"
    );
}

#[test]
fn the_response_format_names_the_schema_and_is_strict() {
    let rf = response_format(json!({"anyOf": []}));
    assert_eq!(rf["type"], "json_schema");
    assert_eq!(rf["json_schema"]["name"], SCHEMA_NAME);
    assert_eq!(rf["json_schema"]["strict"], true);
}

/// `--reason short`: the same branches, the reason capped at a few words.
#[test]
fn a_short_reason_is_capped_at_a_few_words() {
    let schema = action_schema(3, SCREEN, Reason::Short);
    insta::assert_snapshot!(serde_json::to_string_pretty(&schema).unwrap());
    let click = |reason: &str| json!({"reason": reason, "action_type": "click", "index": 0});
    assert!(check(&schema, &click("open Network & internet"), "$").is_ok());
    let sentence = "The screen shows the Settings list and Network & internet leads to Wi-Fi";
    assert!(check(&schema, &click(sentence), "$").is_err());
    assert!(check(
        &action_schema(3, SCREEN, Reason::Full),
        &click(sentence),
        "$"
    )
    .is_ok());
}

/// `--reason off`: no branch has a reason, and an answer with one is refused.
#[test]
fn without_a_reason_the_answer_is_the_action_alone() {
    let schema = action_schema(3, SCREEN, Reason::Off);
    insta::assert_snapshot!(serde_json::to_string_pretty(&schema).unwrap());
    assert!(!schema.to_string().contains("reason"), "{schema}");
    let bare = json!({"action_type": "click", "index": 2});
    assert!(check(&schema, &bare, "$").is_ok());
    let with = json!({"reason": "r", "action_type": "click", "index": 2});
    assert!(check(&schema, &with, "$").is_err());
    // What it admits, the parser takes.
    for v in instances(&schema) {
        check(&schema, &v, "$").unwrap_or_else(|e| panic!("{v}: {e}"));
        parse_action(&v.to_string()).unwrap_or_else(|e| panic!("{v}: {e}"));
    }
}
