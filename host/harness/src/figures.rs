//! Reading an arm's stdout into figures: a flat map of dotted keys to JSON
//! values, the numbers among them being what the harness summarises.
//!
//! `last-line-json`: the last non-empty line must be one JSON object; nested
//! objects become dotted keys (`at_ready.rss_anon_kib`).
//!
//! `llama-bench-json`: llama-bench's `-o json` array (which
//! `droidscore-device speed -o json` copies), pretty-printed over many
//! lines. Each test becomes `pp{n_prompt}_ts`, `tg{n_gen}_ts` or
//! `pp{n_prompt}+tg{n_gen}_ts` holding its `avg_ts` (llama-bench's mean of
//! the per-repetition t/s), with `…_samples_ts` keeping the repetitions
//! (kept, not summarised: the harness's samples are its own passes). From
//! the first test, `load_ms` and `memory_at_ready.*` are kept too when
//! present, and from the last `memory_after.*` (the device server's
//! additions; `memory_after.peak_rss_kib` is the peak of the whole run).
//! The array is read as `droidscore_contract::speed::TestResult`s, the type
//! the device's `speed` writes, so a field of the wrong type (or a memory
//! object missing a counter) is refused by name.

use serde_json::{Map, Value};

use super::spec::OutputFormat;

pub type Figures = std::collections::BTreeMap<String, Value>;

/// What the stdout held: the figures, and the other lines (for diagnosis).
#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    pub figures: Figures,
    pub other_lines: Vec<String>,
}

/// Why stdout held no figures, with the line that was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    pub why: String,
    pub line: String,
}

pub fn read(format: OutputFormat, stdout: &str) -> Result<Read, Unreadable> {
    match format {
        OutputFormat::LastLineJson => last_line_json(stdout),
        OutputFormat::LlamaBenchJson => llama_bench_json(stdout),
    }
}

fn flatten(prefix: &str, object: &Map<String, Value>, out: &mut Figures) {
    for (k, v) in object {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match v {
            Value::Object(inner) => flatten(&key, inner, out),
            other => {
                out.insert(key, other.clone());
            }
        }
    }
}

fn last_line_json(stdout: &str) -> Result<Read, Unreadable> {
    let lines: Vec<&str> = stdout.lines().collect();
    let Some(last) = lines.iter().rposition(|l| !l.trim().is_empty()) else {
        return Err(Unreadable {
            why: "printed nothing on stdout".into(),
            line: String::new(),
        });
    };
    let line = lines[last].trim();
    match serde_json::from_str::<Value>(line) {
        Ok(Value::Object(object)) => {
            let mut figures = Figures::new();
            flatten("", &object, &mut figures);
            Ok(Read {
                figures,
                other_lines: lines[..last].iter().map(|l| l.to_string()).collect(),
            })
        }
        Ok(_) => Err(Unreadable {
            why: "the last stdout line is JSON but not an object".into(),
            line: line.to_string(),
        }),
        Err(e) => Err(Unreadable {
            why: format!("the last stdout line is not a JSON object ({e})"),
            line: line.to_string(),
        }),
    }
}

/// llama-bench's name for a test: `pp512`, `tg128`, or `pp512+tg128`.
pub use droidscore_contract::speed::test_name;

fn llama_bench_json(stdout: &str) -> Result<Read, Unreadable> {
    // The array may follow other lines: parse from the first line opening it.
    let lines: Vec<&str> = stdout.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim_start().starts_with('['))
        .ok_or_else(|| Unreadable {
            why: "no JSON array (llama-bench-json) on stdout".into(),
            line: lines.last().map_or(String::new(), |l| l.to_string()),
        })?;
    let text = lines[start..].join("\n");
    // The contract's type: what `droidscore-device speed` writes, and what
    // of llama-bench's own output the harness needs.
    let tests = droidscore_contract::speed::from_str(&text).map_err(|e| Unreadable {
        why: format!(
            "stdout from line {} is not llama-bench's JSON array (test {e})",
            start + 1
        ),
        line: lines[start].to_string(),
    })?;
    let mut figures = Figures::new();
    for t in &tests {
        let name = t.name();
        figures.insert(format!("{name}_ts"), Value::from(t.avg_ts));
        if let Some(samples) = &t.samples_ts {
            figures.insert(format!("{name}_samples_ts"), Value::from(samples.clone()));
        }
    }
    let memory = |prefix: &str, m: &droidscore_contract::health::Memory, out: &mut Figures| {
        if let Ok(Value::Object(m)) = serde_json::to_value(m) {
            flatten(prefix, &m, out);
        }
    };
    if let Some(first) = tests.first() {
        if let Some(v) = first.load_ms {
            figures.insert("load_ms".into(), Value::from(v));
        }
        if let Some(m) = &first.memory_at_ready {
            memory("memory_at_ready", m, &mut figures);
        }
    }
    // After the last test: its peak (VmHWM) covers the whole run.
    if let Some(m) = tests.last().and_then(|t| t.memory_after.as_ref()) {
        memory("memory_after", m, &mut figures);
    }
    Ok(Read {
        figures,
        other_lines: lines[..start].iter().map(|l| l.to_string()).collect(),
    })
}

/// A figure as a number, if it is one.
pub fn number(figures: &Figures, key: &str) -> Option<f64> {
    figures.get(key).and_then(Value::as_f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_line_is_the_figures_and_earlier_lines_are_kept() {
        let r = read(
            OutputFormat::LastLineJson,
            "loading…\n{\"t_ms\": 5, \"mem\": {\"rss_kib\": 10}}\n\n",
        )
        .unwrap();
        assert_eq!(number(&r.figures, "t_ms"), Some(5.0));
        assert_eq!(number(&r.figures, "mem.rss_kib"), Some(10.0));
        assert_eq!(r.other_lines, vec!["loading…"]);
    }

    #[test]
    fn a_last_line_that_is_not_an_object_is_named() {
        let e = read(OutputFormat::LastLineJson, "{\"t_ms\": 5}\ndone\n").unwrap_err();
        assert_eq!(e.line, "done");
        let e = read(OutputFormat::LastLineJson, "[1, 2]\n").unwrap_err();
        assert!(e.why.contains("not an object"), "{}", e.why);
        let e = read(OutputFormat::LastLineJson, "").unwrap_err();
        assert!(e.why.contains("nothing"), "{}", e.why);
    }

    /// What `droidscore-device speed -o json` prints: a pretty array.
    const SPEED: &str = r#"[
  {
    "model_filename": "m.gguf",
    "n_threads": 2,
    "n_prompt": 512,
    "n_gen": 0,
    "avg_ts": 39.6,
    "stddev_ts": 1.0,
    "samples_ts": [39.0, 40.2],
    "memory_at_ready": {"rss_kib": 395000, "rss_anon_kib": 359000, "rss_file_kib": 36000, "peak_rss_kib": 396000},
    "load_ms": 812.5
  },
  {
    "n_prompt": 0,
    "n_gen": 128,
    "avg_ts": 28.6,
    "samples_ts": [28.0, 29.2],
    "memory_after": {"rss_kib": 397000, "rss_anon_kib": 361000, "rss_file_kib": 36000, "peak_rss_kib": 402000}
  }
]"#;

    #[test]
    fn llama_bench_json_becomes_pp_and_tg_keys() {
        let r = read(OutputFormat::LlamaBenchJson, SPEED).unwrap();
        assert_eq!(number(&r.figures, "pp512_ts"), Some(39.6));
        assert_eq!(number(&r.figures, "tg128_ts"), Some(28.6));
        assert_eq!(
            r.figures["pp512_samples_ts"],
            serde_json::json!([39.0, 40.2])
        );
        assert_eq!(number(&r.figures, "load_ms"), Some(812.5));
        assert_eq!(
            number(&r.figures, "memory_at_ready.rss_anon_kib"),
            Some(359000.0)
        );
        // The last test's memory after it: the peak of the whole run.
        assert_eq!(
            number(&r.figures, "memory_after.peak_rss_kib"),
            Some(402000.0)
        );
        assert_eq!(test_name(512, 128), "pp512+tg128");
    }

    #[test]
    fn llama_bench_json_without_avg_ts_is_refused() {
        let e = read(
            OutputFormat::LlamaBenchJson,
            r#"[{"n_prompt": 1, "n_gen": 0}]"#,
        )
        .unwrap_err();
        assert!(
            e.why.contains("test [0]: missing field `avg_ts`"),
            "{}",
            e.why
        );
        assert!(read(OutputFormat::LlamaBenchJson, "hello\n").is_err());
    }

    #[test]
    fn a_partial_memory_object_is_refused_naming_the_field() {
        // The device writes all four counters; three of them silently
        // missing would read as a memory figure that is not there.
        let e = read(
            OutputFormat::LlamaBenchJson,
            r#"[{"n_prompt": 1, "n_gen": 0, "avg_ts": 2.0, "memory_after": {"rss_kib": 1}}]"#,
        )
        .unwrap_err();
        assert!(
            e.why.contains("test [0].memory_after: missing field"),
            "{}",
            e.why
        );
    }
}
