//! The phone boundary holds: the core modules reach phones only through this
//! module's traits, and never name a backend (`sim`, `adb`, `vphone`, `adbd`)
//! in a `use` (grouped or not) or a path in code; `run/` and `agent/` never
//! name a concrete phone type.

use std::path::{Path, PathBuf};

use regex::Regex;

const CORE: &[&str] = &["task", "oracle", "agent", "run", "store", "report"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Comments and string literals blanked, so prose and messages may name a backend.
fn code_of(text: &str) -> String {
    let comments = Regex::new(r"//[^\n]*").unwrap();
    let strings = Regex::new(r#""(\\.|[^"\\])*""#).unwrap();
    strings
        .replace_all(&comments.replace_all(text, ""), "\"\"")
        .into_owned()
}

/// Every reference in `code` to a backend module, as (kind, text).
fn backend_references(code: &str) -> Vec<String> {
    let uses = Regex::new(r"\buse\s+([^;]+);").unwrap();
    let in_use =
        Regex::new(r"(crate|super|droidscore)(::\{[^;]*?)?(::|\{|,)(sim|adb|vphone|adbd)\b")
            .unwrap();
    let path = Regex::new(r"\b(crate|super|droidscore)::((super|self)::)*(sim|adb|vphone|adbd)::")
        .unwrap();
    let mut found = Vec::new();
    for u in uses.captures_iter(code) {
        let body: String = u[1].split_whitespace().collect();
        if in_use.is_match(&body) {
            found.push(format!("use {body}"));
        }
    }
    found.extend(path.find_iter(code).map(|m| format!("path {}", m.as_str())));
    found
}

#[test]
fn the_reference_finder_sees_grouped_uses_relative_paths_and_full_paths() {
    let code = code_of(
        "use crate::{\n    phone::Phone,\n    sim::{SimPhone},\n};\nuse super::super::adb;\n\
         fn f() { crate::vphone::x(); } // crate::adbd::y in a comment\nfn g() { \"crate::sim::z\"; }\n",
    );
    assert_eq!(
        backend_references(&code),
        [
            "use crate::{phone::Phone,sim::{SimPhone},}",
            "use super::super::adb",
            "path crate::vphone::"
        ]
    );
}

#[test]
fn core_modules_name_no_backend_and_run_and_agent_no_concrete_phone() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let concrete =
        Regex::new(r"\b(SimPhone|AdbPhone|SimBackend|AdbBackend|VirtualPhone|Phones)\b").unwrap();
    let mut offences = Vec::new();
    for module in CORE {
        let mut files = Vec::new();
        rust_files(&src.join(module), &mut files);
        assert!(!files.is_empty(), "no files under src/{module}");
        for file in files {
            let code = code_of(&std::fs::read_to_string(&file).unwrap());
            let name = file.strip_prefix(&src).unwrap().display().to_string();
            for found in backend_references(&code) {
                offences.push(format!("{name}: {found}"));
            }
            if matches!(*module, "run" | "agent") {
                for m in concrete.find_iter(&code) {
                    offences.push(format!("{name}: names {}", m.as_str()));
                }
            }
        }
    }
    assert!(offences.is_empty(), "{}", offences.join("\n"));
}
