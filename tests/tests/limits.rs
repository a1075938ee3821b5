//! docs/limits.md states every resource bound with the constant that
//! enforces it; this test reads each table row, finds that constant in its
//! file and fails when the value in the docs is not the value in the code
//! (or when the constant has moved or been renamed), so the page cannot
//! drift from the program.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// One row of a docs table: the constant's file and name, the value written.
struct Row {
    file: String,
    name: String,
    value: String,
}

/// Rows whose second cell is `` `FILE: NAME` ``.
fn rows(doc: &str) -> Vec<Row> {
    doc.lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            // | what | constant | value | past it |  → ["", what, constant, value, past, ""]
            let constant = cells.get(2)?.strip_prefix('`')?.strip_suffix('`')?;
            let (file, name) = constant.split_once(": ")?;
            Some(Row {
                file: file.to_owned(),
                name: name.to_owned(),
                value: cells.get(3)?.to_string(),
            })
        })
        .collect()
}

/// A value as the docs write it ("64", "32,768", "16 MiB", "100 ms",
/// "120 s"), in bytes, a count or milliseconds.
fn docs_value(text: &str) -> Option<u128> {
    let text = text.replace(',', "");
    let (number, unit) = text.split_once(' ').unwrap_or((&text, ""));
    let number: u128 = number.parse().ok()?;
    let scale = match unit {
        "" | "ms" => 1,
        "s" => 1000,
        "KiB" => 1024,
        "MiB" => 1024 * 1024,
        _ => return None,
    };
    Some(number * scale)
}

/// A constant's value as the code writes it: a product of integer
/// literals (`16 * 1024 * 1024`, `32_768`) or `Duration::from_millis(N)` /
/// `Duration::from_secs(N)`, in the same units as [`docs_value`].
fn code_value(source: &str, name: &str) -> Option<u128> {
    let start = source.find(&format!("const {name}:"))?;
    let rest = &source[start..];
    let expr = rest[rest.find('=')? + 1..rest.find(';')?].trim();
    let literal = |s: &str| s.trim().replace('_', "").parse::<u128>().ok();
    if let Some(inner) = expr.strip_prefix("Duration::from_millis(") {
        return literal(inner.strip_suffix(')')?);
    }
    if let Some(inner) = expr.strip_prefix("Duration::from_secs(") {
        return Some(literal(inner.strip_suffix(')')?)? * 1000);
    }
    expr.split('*').map(literal).product()
}

#[test]
fn every_bound_in_docs_limits_is_the_constant_in_the_code() {
    let doc = std::fs::read_to_string(root().join("docs/limits.md")).unwrap();
    let rows = rows(&doc);
    assert!(
        rows.len() >= 15,
        "docs/limits.md: expected the bounds' tables, found {} rows naming a constant",
        rows.len()
    );
    let mut wrong = Vec::new();
    for row in &rows {
        let source = std::fs::read_to_string(root().join(&row.file))
            .unwrap_or_else(|e| panic!("docs/limits.md names {}: {e}", row.file));
        let Some(documented) = docs_value(&row.value) else {
            wrong.push(format!(
                "{}: value `{}` is not a number with a unit",
                row.name, row.value
            ));
            continue;
        };
        match code_value(&source, &row.name) {
            None => wrong.push(format!(
                "{}: no `const {}` with a plain value there",
                row.file, row.name
            )),
            Some(actual) if actual != documented => wrong.push(format!(
                "{}: {} is {actual} in the code, `{}` in docs/limits.md",
                row.file, row.name, row.value
            )),
            Some(_) => {}
        }
    }
    assert!(
        wrong.is_empty(),
        "docs/limits.md disagrees with the code:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn a_value_that_differs_from_the_code_is_caught() {
    let source = "pub(crate) const MAX_BUFFERED: usize = 16 * 1024 * 1024;\nconst WAIT: Duration = Duration::from_secs(120);";
    assert_eq!(code_value(source, "MAX_BUFFERED"), docs_value("16 MiB"));
    assert_ne!(code_value(source, "MAX_BUFFERED"), docs_value("8 MiB"));
    assert_eq!(code_value(source, "WAIT"), docs_value("120 s"));
    assert_eq!(code_value(source, "MISSING"), None);
    assert_eq!(docs_value("32,768"), Some(32_768));
}
