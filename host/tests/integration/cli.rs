//! The `droidscore` binary run as a user runs it: exit codes, tables, files.

use std::path::Path;
use std::process::{Command, Output};

use droidscore::exit;

use super::root;

fn droidscore(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_droidscore"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("droidscore runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn tasks_list_json_has_at_least_30_tasks_with_3_variants_each() {
    let o = droidscore(&["tasks", "list", "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let tasks: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let tasks = tasks.as_array().unwrap();
    assert!(tasks.len() >= 30, "{} tasks", tasks.len());
    for t in tasks {
        let n = t["variants"].as_array().unwrap().len();
        assert!(n >= 3, "{} has {n} variants", t["id"]);
    }
}

#[test]
fn tasks_check_passes_on_the_bundled_suite() {
    let o = droidscore(&["tasks", "check"]);
    let out = stdout(&o);
    assert!(
        o.status.success(),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!out.contains("VIOLATION"), "{out}");
    assert!(out.contains("task variants hold"), "{out}");
}

/// Issue 17: run anywhere but the repository's root (as `cargo install`
/// leaves it), the binary said `tasks: cannot read task directory`. The
/// suite is built in now, and a run says it used the built-in one.
#[test]
fn the_built_in_suite_works_from_a_directory_outside_the_repository() {
    let away = tempdir::Dir::new("away");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_droidscore"))
            .args(args)
            .current_dir(away.path())
            .output()
            .expect("droidscore runs")
    };
    let o = run(&["tasks", "check", "--tasks", "wifi_*"]);
    assert_eq!(o.status.code(), Some(exit::SUCCESS), "{}", stdout(&o));
    assert!(stdout(&o).contains("task variants hold"), "{}", stdout(&o));

    let o = run(&["tasks", "list", "--json", "--tasks", "wifi_on"]);
    let tasks: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(tasks[0]["path"], "embedded:tasks/wifi_on.toml");

    let o = run(&["run", "--phone", "sim", "--agent", "reference"]);
    let out = stdout(&o);
    assert_eq!(
        o.status.code(),
        Some(exit::SUCCESS),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let variants = droidscore::task::Suite::Embedded
        .load()
        .unwrap()
        .iter()
        .map(|t| t.variants.len())
        .sum::<usize>();
    let last = out.lines().last().unwrap_or_default();
    assert!(
        last.starts_with(&format!(
            "agent reference: {variants}/{variants} episodes succeeded"
        )),
        "{out}"
    );
    let store = droidscore::store::Store::open_existing(away.path().join("droidscore-runs.sqlite"))
        .unwrap();
    let record = store.latest_run().unwrap().unwrap();
    assert_eq!(record.config["suite"], "embedded");
    let tasks_dir = droidscore::task::Suite::Dir(root().join("tasks"));
    assert_eq!(
        record.provenance.suite_hash,
        tasks_dir.hash().unwrap(),
        "the same bytes as the tasks/ it was built from"
    );

    let mut serve = Command::new(env!("CARGO_BIN_EXE_droidscore"))
        .args(["sim", "serve", "--listen", "127.0.0.1:0"])
        .current_dir(away.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(serve.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let _ = serve.kill();
    let status = serve.wait().unwrap();
    assert!(
        line.trim().parse::<std::net::SocketAddr>().is_ok(),
        "sim serve printed {line:?} ({status})"
    );
}

/// README lists every exit code `droidscore::exit` defines, with its words.
#[test]
fn readme_lists_every_exit_code() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    for (code, words) in exit::ALL {
        let row = format!("| {code} | ");
        assert!(
            readme
                .lines()
                .any(|l| l.starts_with(&row) && l.contains(words)),
            "README has no row `{row}{words} …`"
        );
    }
    assert!(readme.contains(&format!("| {} + N | ", exit::SIGNALLED)));
}

/// Write a one-task suite into a temp dir and return its path.
fn suite_with(name: &str, body: &str) -> tempdir::Dir {
    let dir = tempdir::Dir::new(name);
    std::fs::write(dir.path().join(format!("{name}.toml")), body).unwrap();
    dir
}

const WIFI_VARIANTS: &str = r#"
[[variant]]
id = "base"
"#;

const DECOY_VARIANT: &str = r#"
[[variant]]
id = "decoy"
decoys = [{ screen = "settings.internet", after = "T-Mobile", title = "Wi-Fi calling", switch = true }]
"#;

const WIFI_SOLUTION: &str = r#"
[[solution]]
launch = "com.android.settings"
[[solution]]
tap = { text = "Network & internet", row = true }
[[solution]]
tap = { text = "Internet", row = true }
[[solution]]
tap = { text = "Wi-Fi", row = true }
"#;

#[test]
fn an_oracle_true_on_the_initial_state_fails_the_check() {
    // Broken on purpose: Wi-Fi already starts on, so "Wi-Fi is on" proves nothing.
    let body = format!(
        "id = \"broken\"\napp = \"com.android.settings\"\ngoal = \"Turn on Wi-Fi.\"\n[initial]\n\"global/wifi_on\" = \"1\"\n[[oracle]]\ncheck = \"setting\"\nkey = \"global/wifi_on\"\nequals = \"1\"\n{WIFI_VARIANTS}{DECOY_VARIANT}{WIFI_SOLUTION}"
    );
    let dir = suite_with("broken", &body);
    let o = droidscore(&["tasks", "check", "--suite", dir.path().to_str().unwrap()]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(exit::SUITE_FAILED), "{out}");
    assert!(
        out.contains("VIOLATION: initial state: oracle is Pass"),
        "{out}"
    );
    assert!(out.contains("do-nothing agent: oracle is Pass"), "{out}");
}

#[test]
fn an_oracle_the_decoy_satisfies_fails_the_check() {
    // Broken on purpose: it reads the decoy's own key.
    let body = format!(
        "id = \"decoyed\"\napp = \"com.android.settings\"\ngoal = \"Turn on Wi-Fi.\"\n[initial]\n\"global/wifi_on\" = \"0\"\n[[oracle]]\ncheck = \"app\"\nkey = \"app/decoy.wi_fi_calling\"\nequals = \"1\"\n{DECOY_VARIANT}{WIFI_SOLUTION}"
    );
    let dir = suite_with("decoyed", &body);
    let o = droidscore(&["tasks", "check", "--suite", dir.path().to_str().unwrap()]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(exit::SUITE_FAILED), "{out}");
    assert!(out.contains("decoy agent: oracle is Pass"), "{out}");
    assert!(out.contains("reference solution fails"), "{out}");
}

#[test]
fn an_oracle_key_the_phone_does_not_have_is_refused_at_load() {
    // The decoy's key exists only in the variant that has the decoy.
    let body = format!(
        "id = \"nokey\"\napp = \"com.android.settings\"\ngoal = \"g\"\n[[oracle]]\ncheck = \"app\"\nkey = \"app/decoy.wi_fi_calling\"\nequals = \"1\"\n{WIFI_VARIANTS}{WIFI_SOLUTION}"
    );
    let dir = suite_with("nokey", &body);
    let o = droidscore(&["tasks", "check", "--suite", dir.path().to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(exit::BAD_INPUT), "{err}");
    assert!(
        err.contains("nokey.toml: variant \"base\": oracle[0].key: \"app/decoy.wi_fi_calling\" is not a state key"),
        "{err}"
    );
}

#[test]
fn a_bad_task_file_names_the_file_and_field_and_exits_3() {
    let dir = suite_with(
        "typo",
        "id = \"typo\"\napp = \"x\"\ngoal = \"g\"\n[[oracle]]\ncheck = \"setings\"\n",
    );
    let o = droidscore(&["tasks", "list", "--suite", dir.path().to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(exit::BAD_INPUT), "{err}");
    assert!(
        err.contains("typo.toml") && err.contains("oracle[0].check"),
        "{err}"
    );
}

#[test]
fn reference_agent_scores_100_percent_and_noop_0_percent() {
    let dir = tempdir::Dir::new("runs");
    let store = dir.path().join("runs.sqlite");
    let store = store.to_str().unwrap();
    let reference = stdout(&droidscore(&[
        "run",
        "--phone",
        "sim",
        "--agent",
        "reference",
        "--store",
        store,
    ]));
    let summary = reference.lines().last().unwrap();
    assert!(summary.contains("(100.0%)"), "{summary}");
    let noop = stdout(&droidscore(&[
        "run", "--phone", "sim", "--agent", "noop", "--store", store,
    ]));
    let summary = noop.lines().last().unwrap();
    assert!(summary.starts_with("agent noop: 0/"), "{summary}");
    assert!(summary.contains("(0.0%)"), "{summary}");
}

/// uiautomator's attribute order (AOSP AccessibilityNodeInfoDumper). Written
/// out again on purpose rather than taken from the parser's table: a test that
/// used the library's own constant could not catch a mistake in it.
const ORDER: [&str; 17] = [
    "index",
    "text",
    "resource-id",
    "class",
    "package",
    "content-desc",
    "checkable",
    "checked",
    "clickable",
    "enabled",
    "focusable",
    "focused",
    "scrollable",
    "long-clickable",
    "password",
    "selected",
    "bounds",
];

#[test]
fn sim_dump_parses_with_a_stock_xml_parser_in_uiautomator_attribute_order() {
    let o = droidscore(&[
        "sim",
        "dump",
        "--task",
        "wifi_on",
        "--variant",
        "decoy",
        "--open",
        "sim:settings.internet",
    ]);
    assert!(o.status.success());
    let xml = stdout(&o);
    assert!(
        xml.starts_with(
            "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
        ),
        "{xml}"
    );
    assert_eq!(xml.trim_end().lines().count(), 1, "one line");
    let doc =
        roxmltree::Document::parse(xml.trim_end()).expect("stock XML parser accepts the dump");
    let nodes: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("node"))
        .collect();
    assert!(nodes.len() > 20);
    for node in nodes {
        let names: Vec<&str> = node.attributes().map(|a| a.name()).collect();
        assert_eq!(
            names,
            ORDER,
            "attribute order of {:?}",
            node.attribute("text")
        );
    }
    assert!(xml.contains("text=\"Wi-Fi calling\""));
}

#[test]
fn two_sim_dumps_with_one_seed_are_byte_identical_and_seeds_differ() {
    let dir = tempdir::Dir::new("dumps");
    let run = |seed: &str, png: &Path| {
        let o = droidscore(&[
            "sim",
            "dump",
            "--task",
            "alarm_add",
            "--variant",
            "decoy",
            "--seed",
            seed,
            "--png",
            png.to_str().unwrap(),
        ]);
        assert!(o.status.success());
        (o.stdout, std::fs::read(png).unwrap())
    };
    let a = run("7", &dir.path().join("a.png"));
    let b = run("7", &dir.path().join("b.png"));
    assert_eq!(a.0, b.0, "XML differs between runs");
    assert_eq!(a.1, b.1, "PNG differs between runs");
    assert_eq!(&a.1[..8], b"\x89PNG\r\n\x1a\n");
    let c = run("8", &dir.path().join("c.png"));
    assert_ne!(
        a.1, c.1,
        "the seed picks the status-bar clock, so the pixels differ"
    );
}

#[test]
fn ui_reads_a_dump_back_and_re_serialises_it_byte_for_byte() {
    let dir = tempdir::Dir::new("ui");
    let o = droidscore(&[
        "sim",
        "dump",
        "--task",
        "wifi_on",
        "--open",
        "sim:settings.display",
    ]);
    let path = dir.path().join("dump.xml");
    std::fs::write(&path, &o.stdout).unwrap();
    let xml = droidscore(&["ui", path.to_str().unwrap(), "--xml"]);
    assert_eq!(stdout(&xml), stdout(&o));
    let elements = stdout(&droidscore(&["ui", path.to_str().unwrap()]));
    assert!(elements.contains("\"Dark theme"), "{elements}");
}

/// The (task, variant, repeat, status, steps, reason) rows of a run, sorted.
fn episode_rows(store: &Path, run: &str) -> Vec<(String, String, u32, String, u32, String)> {
    let store = droidscore::store::Store::open_existing(store).unwrap();
    let mut rows: Vec<_> = store
        .episodes(run)
        .unwrap()
        .into_iter()
        .map(|e| {
            (
                e.task,
                e.variant,
                e.repeat,
                format!("{:?}", e.status),
                e.steps,
                e.reason,
            )
        })
        .collect();
    rows.sort();
    rows
}

#[test]
fn a_run_killed_mid_way_and_resumed_equals_an_uninterrupted_run() {
    let dir = tempdir::Dir::new("resume");
    let (killed, whole) = (
        dir.path().join("killed.sqlite"),
        dir.path().join("whole.sqlite"),
    );
    let args = [
        "run",
        "--agent",
        "reference",
        "--tasks",
        "wifi*",
        "--repeat",
        "30",
    ];
    // SIGKILL a real run once some episodes are committed (std's kill is SIGKILL on unix).
    let mut child = Command::new(env!("CARGO_BIN_EXE_droidscore"))
        .args(args)
        .args(["--store", killed.to_str().unwrap(), "--run-id", "k"])
        .current_dir(root())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let done_before_kill = loop {
        let n = droidscore::store::Store::open_existing(&killed)
            .ok()
            .and_then(|s| s.finished("k").ok())
            .map_or(0, |f| f.len());
        if n >= 40 || started.elapsed() > std::time::Duration::from_secs(120) {
            break n;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    let after_kill = episode_rows(&killed, "k").len();
    assert!(
        done_before_kill >= 40,
        "the run committed {done_before_kill} episodes in 120 s"
    );
    assert!(
        after_kill < 17 * 30,
        "killed before the end: {after_kill} episodes"
    );
    let resumed = droidscore(
        &[
            &args[..],
            &["--store", killed.to_str().unwrap(), "--resume", "k"],
        ]
        .concat(),
    );
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    let straight = droidscore(
        &[
            &args[..],
            &["--store", whole.to_str().unwrap(), "--run-id", "w"],
        ]
        .concat(),
    );
    assert!(straight.status.success());
    let (a, b) = (episode_rows(&killed, "k"), episode_rows(&whole, "w"));
    assert_eq!(a.len(), 17 * 30, "no episode lost or counted twice");
    assert_eq!(a, b, "the resumed run equals the uninterrupted one");
}

#[test]
fn resume_refuses_a_run_started_with_other_settings() {
    let dir = tempdir::Dir::new("resume-mismatch");
    let store = dir.path().join("r.sqlite");
    let store = store.to_str().unwrap();
    let first = droidscore(&[
        "run", "--agent", "noop", "--tasks", "wifi_on", "--store", store, "--run-id", "r",
    ]);
    assert!(first.status.success());
    let again = droidscore(&[
        "run", "--agent", "noop", "--tasks", "wifi_on", "--repeat", "2", "--store", store,
        "--resume", "r",
    ]);
    let err = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(exit::BAD_INPUT), "{err}");
    assert!(err.contains("repeat was 1 (now 2)"), "{err}");
}

/// A scratch directory removed on drop.
pub(crate) mod tempdir {
    use std::path::{Path, PathBuf};

    pub struct Dir(PathBuf);

    impl Dir {
        pub fn new(name: &str) -> Dir {
            let path =
                std::env::temp_dir().join(format!("droidscore-test-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&path);
            std::fs::create_dir_all(&path).unwrap();
            Dir(path)
        }
        pub fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}
