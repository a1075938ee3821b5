//! `droidscore steps judge`: steps from a file, each an answer and its
//! reference in the serde form the store keeps them in ([`Act`],
//! [`Reference`]), judged under any matchers and versions. So stored steps,
//! or steps from another tool, can be scored again under any rule.
//!
//! The file is a JSON array of items or JSON lines, one item a line:
//! `{"id": …, "answer": <Act>, "reference": <Reference>}`; the id is any
//! JSON value and comes back as given. Every item is read before any is
//! judged, and bad input names the item and the field.

use serde_json::{json, Map, Value};

use super::matchers::Matcher;
use super::step::{Act, Reference};

/// One step to judge.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub id: Value,
    pub answer: Act,
    pub reference: Reference,
}

/// Where an item sits in its file, for messages: `item 3` of an array
/// (counted from 1), `line 7` of JSON lines.
fn place(array: bool, index: usize) -> String {
    match array {
        true => format!("item {}", index + 1),
        false => format!("line {}", index + 1),
    }
}

/// The items of `text` (a JSON array, or JSON lines), or what is wrong
/// with the first bad ones (up to ten, each naming its item and field).
pub fn parse(text: &str) -> Result<Vec<Item>, String> {
    let trimmed = text.trim_start();
    let (array, values): (bool, Vec<(usize, Value)>) = if trimmed.starts_with('[') {
        let values: Vec<Value> =
            serde_json::from_str(text).map_err(|e| format!("not a JSON array of items: {e}"))?;
        (true, values.into_iter().enumerate().collect())
    } else {
        let mut values = Vec::new();
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let value =
                serde_json::from_str(line).map_err(|e| format!("line {}: not JSON: {e}", n + 1))?;
            values.push((n, value));
        }
        (false, values)
    };
    let mut items = Vec::new();
    let mut errors = Vec::new();
    for (index, value) in values {
        match item(value) {
            Ok(item) => items.push(item),
            Err(why) => errors.push(format!("{}{why}", place(array, index))),
        }
    }
    if errors.is_empty() {
        return Ok(items);
    }
    let shown = errors.len().min(10);
    let more = match errors.len() - shown {
        0 => String::new(),
        n => format!("\n… and {n} more"),
    };
    Err(format!(
        "{} of {} items are bad:\n{}{more}",
        errors.len(),
        errors.len() + items.len(),
        errors[..shown].join("\n")
    ))
}

/// One item from its JSON, or what is wrong: ` (id "a7"): answer.kind: …`.
fn item(value: Value) -> Result<Item, String> {
    let Value::Object(mut fields) = value else {
        return Err(": not an object with id, answer and reference".into());
    };
    let id = fields.remove("id");
    let named = match &id {
        Some(id) => format!(" (id {id})"),
        None => String::new(),
    };
    let field = |fields: &mut Map<String, Value>, name: &str| {
        fields
            .remove(name)
            .ok_or_else(|| format!("{named}: missing field `{name}`"))
    };
    let id = id.ok_or_else(|| ": missing field `id`".to_string())?;
    let answer =
        typed(field(&mut fields, "answer")?, "answer").map_err(|e| format!("{named}: {e}"))?;
    let reference = typed(field(&mut fields, "reference")?, "reference")
        .map_err(|e| format!("{named}: {e}"))?;
    Ok(Item {
        id,
        answer,
        reference,
    })
}

/// `value` as a `T`, or the path of the field that is wrong under `name`.
fn typed<T: serde::de::DeserializeOwned>(value: Value, name: &str) -> Result<T, String> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let message = e.inner().to_string();
        match path.as_str() {
            "." => format!("{name}: {message}"),
            _ => format!("{name}.{path}: {message}"),
        }
    })
}

/// An item's verdicts under `matchers`: its JSON line,
/// `{"id": …, "verdicts": {"aitw@2": {"type": …, "grounded": …|null, "correct": …}, …}}`.
pub fn judge(item: &Item, matchers: &[Box<dyn Matcher>]) -> Value {
    let verdicts: Map<String, Value> = matchers
        .iter()
        .map(|m| {
            let v = m.judge(&item.answer, &item.reference);
            let verdict =
                json!({"type": v.type_match, "grounded": v.grounded, "correct": v.correct});
            (m.name().to_owned(), verdict)
        })
        .collect();
    json!({"id": item.id, "verdicts": verdicts})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offline::matchers::by_names;

    const TAP: &str = r#"{"id": "a", "answer": {"kind": "tap", "point": [540, 950]},
        "reference": {"act": {"kind": "tap", "point": [540, 800]}, "screen": [1080, 2400],
                      "solution_step": 0, "search": false}}"#;

    #[test]
    fn an_array_and_json_lines_read_the_same_items() {
        let array = parse(&format!("[{TAP}, {TAP}]")).unwrap();
        let lines = parse(&format!(
            "{}\n\n{}\n",
            TAP.replace('\n', " "),
            TAP.replace('\n', " ")
        ))
        .unwrap();
        assert_eq!(array, lines);
        assert_eq!(array.len(), 2);
        assert_eq!(array[0].id, json!("a"));
    }

    #[test]
    fn every_matcher_gives_type_grounded_and_correct_with_null_for_no_grounding() {
        let mut items = parse(&format!("[{TAP}]")).unwrap();
        let matchers = by_names("droidscore,aitw@1,aitw@2").unwrap();
        let line = judge(&items[0], &matchers);
        assert_eq!(line["id"], json!("a"));
        let names: Vec<&String> = line["verdicts"].as_object().unwrap().keys().collect();
        assert_eq!(names, ["droidscore@1", "aitw@1", "aitw@2"]);
        // 150 px below, no target known: droidscore says no, AITW yes.
        assert_eq!(
            line["verdicts"]["aitw@2"],
            json!({"type": true, "grounded": true, "correct": true})
        );
        assert_eq!(line["verdicts"]["droidscore@1"]["correct"], json!(false));
        // A typed answer against a tap: a type mismatch, grounding null.
        items[0].answer = Act {
            text: Some("hi".into()),
            ..Act::kind(crate::offline::step::Kind::Type)
        };
        let line = judge(&items[0], &matchers);
        assert_eq!(
            line["verdicts"]["aitw@2"],
            json!({"type": false, "grounded": null, "correct": false})
        );
    }

    #[test]
    fn bad_input_names_the_item_and_the_field() {
        let bad_kind = TAP.replace(r#""kind": "tap", "point": [540, 950]"#, r#""kind": "tapp""#);
        let no_reference = r#"{"id": 7, "answer": {"kind": "back"}}"#;
        let bad_screen = TAP.replace("[1080, 2400]", r#""big""#);
        let err = parse(&format!(
            "[{TAP}, {bad_kind}, {no_reference}, {bad_screen}, 3]"
        ))
        .unwrap_err();
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines[0], "4 of 5 items are bad:", "{err}");
        assert!(
            lines[1].starts_with(r#"item 2 (id "a"): answer.kind: unknown variant `tapp`"#),
            "{err}"
        );
        assert_eq!(
            lines[2], "item 3 (id 7): missing field `reference`",
            "{err}"
        );
        assert!(
            lines[3]
                .starts_with(r#"item 4 (id "a"): reference.screen: invalid type: string "big""#),
            "{err}"
        );
        assert_eq!(
            lines[4], "item 5: not an object with id, answer and reference",
            "{err}"
        );
        let err = parse("{\"id\": 1}\n{").unwrap_err();
        assert!(err.starts_with("line 2: not JSON"), "{err}");
        let err = parse(r#"{"answer": {"kind": "back"}}"#).unwrap_err();
        assert!(err.ends_with("line 1: missing field `id`"), "{err}");
    }
}
