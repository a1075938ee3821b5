//! droidscore's paired comparisons (`report::paired`) against statsmodels
//! and scipy on tables recorded from real run stores (tests/stats/tables,
//! made by scripts/paired-table.py): every row's difference, interval,
//! p-values, Holm-corrected verdict and detectable difference equal to the
//! precision `report` prints, and a numpy cluster bootstrap agreeing on
//! every verdict (tests/stats/check.py). Needs python3 with numpy==2.4.6,
//! scipy==1.17.1 and statsmodels==0.15.0 (scripts/install-pyclients.sh,
//! which scripts/test.sh runs): without them the test fails saying so.

use std::process::Command;

use droidscore::report::paired::{self, Unit};

use crate::support::{python3, root, TestEnv};

const PINS: [(&str, &str); 3] = [
    ("numpy", "2.4.6"),
    ("scipy", "1.17.1"),
    ("statsmodels", "0.15.0"),
];

/// Each table's rows judged by droidscore, the rows of one table one family.
fn judge(table: &serde_json::Value) -> Vec<paired::Paired> {
    let rows = table["rows"].as_array().expect("rows");
    let mut out: Vec<paired::Paired> = rows
        .iter()
        .map(|row| {
            let units: Vec<Unit> = row["units"]
                .as_array()
                .expect("units")
                .iter()
                .map(|u| Unit {
                    cluster: u[0].to_string(),
                    a: u[1].as_f64().unwrap(),
                    b: u[2].as_f64().unwrap(),
                    trials: u[3].as_f64().unwrap(),
                })
                .collect();
            paired::compare(&units, row["yes_no"].as_bool().unwrap())
        })
        .collect();
    paired::holm(&mut out.iter_mut().collect::<Vec<_>>());
    out
}

#[test]
fn paired_comparisons_equal_statsmodels_on_recorded_tables() {
    let python = python3();
    for (module, version) in PINS {
        let out = Command::new(python)
            .args([
                "-c",
                &format!("import importlib.metadata as m; print(m.version({module:?}))"),
            ])
            .output()
            .expect("python3 runs");
        let found = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        assert!(
            out.status.success() && found == version,
            "this test needs the PyPI package {module}=={version} (found {found:?}): run scripts/install-pyclients.sh"
        );
    }
    let tables = root().join("tests/stats/tables");
    let mut results = serde_json::Map::new();
    let mut names: Vec<_> = std::fs::read_dir(&tables)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    names.sort();
    assert!(
        names.len() >= 4,
        "tables in {}: {names:?}",
        tables.display()
    );
    for path in &names {
        let table: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let judged = judge(&table);
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        results.insert(name, serde_json::to_value(judged).unwrap());
    }
    let env = TestEnv::new("stats");
    let file = env.path().join("results.json");
    std::fs::write(&file, serde_json::to_string(&results).unwrap()).unwrap();
    let out = Command::new(python)
        .arg(root().join("tests/stats/check.py"))
        .arg(&tables)
        .arg(&file)
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success(),
        "droidscore and statsmodels differ:\n{stdout}"
    );
    assert!(stdout.contains(": 0 differ"), "{stdout}");
}
