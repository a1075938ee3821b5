//! The `droidscore` binary run as a user runs it: exit codes, tables, files.

use std::path::Path;
use std::process::{Output, Stdio};

use droidscore::exit;

use super::support::{root, text, TestEnv};

fn stdout(o: &Output) -> String {
    text(&o.stdout)
}

#[test]
fn tasks_list_json_has_at_least_30_tasks_with_3_variants_each() {
    let env = TestEnv::new("tasks-list");
    let o = env.droidscore().args(["tasks", "list", "--json"]).ok();
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
    let env = TestEnv::new("tasks-check");
    let o = env.droidscore().args(["tasks", "check"]).ok();
    let out = stdout(&o);
    assert!(!out.contains("VIOLATION"), "{out}");
    assert!(out.contains("task instances of"), "{out}");
}

/// Issue 17: run anywhere but the repository's root (as `cargo install`
/// leaves it), the binary said `tasks: cannot read task directory`. The
/// suite is built in now, and a run says it used the built-in one.
#[test]
fn the_built_in_suite_works_from_a_directory_outside_the_repository() {
    let away = TestEnv::new("away");
    let o = away
        .droidscore()
        .in_temp_dir()
        .args(["tasks", "check", "--tasks", "wifi_*"])
        .code(exit::SUCCESS);
    assert!(stdout(&o).contains("task instances of"), "{}", stdout(&o));

    let o = away
        .droidscore()
        .in_temp_dir()
        .args(["tasks", "list", "--json", "--tasks", "wifi_on"])
        .output();
    let tasks: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(tasks[0]["path"], "embedded:tasks/wifi_on.toml");

    let o = away
        .droidscore()
        .in_temp_dir()
        .args(["run", "--phone", "sim", "--agent", "reference"])
        .code(exit::SUCCESS);
    let out = stdout(&o);
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

    let mut serve = away
        .droidscore()
        .in_temp_dir()
        .args(["sim", "serve", "--listen", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .spawn_server();
    let _ = serve.child.kill();
    let status = serve.child.wait().unwrap();
    assert!(
        serve.addr.parse::<std::net::SocketAddr>().is_ok(),
        "sim serve printed {:?} ({status})",
        serve.addr
    );
}

/// docs/cli.md lists every exit code `droidscore::exit` defines, with its words.
#[test]
fn cli_reference_lists_every_exit_code() {
    let readme = std::fs::read_to_string(root().join("docs/cli.md")).unwrap();
    for (code, words) in exit::ALL {
        let row = format!("| {code} | ");
        assert!(
            readme
                .lines()
                .any(|l| l.starts_with(&row) && l.contains(words)),
            "docs/cli.md has no row `{row}{words} …`"
        );
    }
    assert!(readme.contains(&format!("| {} + N | ", exit::SIGNALLED)));
}

/// Write a one-task suite into a temp dir and return it.
fn suite_with(name: &str, body: &str) -> TestEnv {
    let env = TestEnv::new(name);
    env.write(format!("{name}.toml"), body);
    env
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
    let o = dir
        .droidscore()
        .args(["tasks", "check", "--suite"])
        .arg(dir.path())
        .code(exit::SUITE_FAILED);
    let out = stdout(&o);
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
    let o = dir
        .droidscore()
        .args(["tasks", "check", "--suite"])
        .arg(dir.path())
        .code(exit::SUITE_FAILED);
    let out = stdout(&o);
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
    let o = dir
        .droidscore()
        .args(["tasks", "check", "--suite"])
        .arg(dir.path())
        .code(exit::BAD_INPUT);
    let err = text(&o.stderr);
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
    let o = dir
        .droidscore()
        .args(["tasks", "list", "--suite"])
        .arg(dir.path())
        .code(exit::BAD_INPUT);
    let err = text(&o.stderr);
    assert!(
        err.contains("typo.toml") && err.contains("oracle[0].check"),
        "{err}"
    );
}

#[test]
fn reference_agent_scores_100_percent_and_noop_0_percent() {
    let dir = TestEnv::new("runs");
    let store = dir.join("runs.sqlite");
    let store = store.to_str().unwrap();
    let reference = stdout(
        &dir.droidscore()
            .args([
                "run",
                "--phone",
                "sim",
                "--agent",
                "reference",
                "--store",
                store,
            ])
            .output(),
    );
    let summary = reference.lines().last().unwrap();
    assert!(summary.contains("(100.0%)"), "{summary}");
    let noop = stdout(
        &dir.droidscore()
            .args(["run", "--phone", "sim", "--agent", "noop", "--store", store])
            .output(),
    );
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
    let env = TestEnv::new("sim-dump");
    let o = env
        .droidscore()
        .args(["sim", "dump", "--task", "wifi_on", "--variant", "decoy"])
        .args(["--open", "sim:settings.internet"])
        .ok();
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
    let dir = TestEnv::new("dumps");
    let run = |seed: &str, png: &Path| {
        let o = dir
            .droidscore()
            .args(["sim", "dump", "--task", "alarm_add", "--variant", "decoy"])
            .args(["--episode-seed", seed, "--png"])
            .arg(png)
            .ok();
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
    let dir = TestEnv::new("ui");
    let o = dir
        .droidscore()
        .args([
            "sim",
            "dump",
            "--task",
            "wifi_on",
            "--open",
            "sim:settings.display",
        ])
        .output();
    let path = dir.write("dump.xml", &o.stdout);
    let xml = dir.droidscore().arg("ui").arg(&path).arg("--xml").output();
    assert_eq!(stdout(&xml), stdout(&o));
    let elements = stdout(&dir.droidscore().arg("ui").arg(&path).output());
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
    let dir = TestEnv::new("resume");
    let (killed, whole) = (dir.join("killed.sqlite"), dir.join("whole.sqlite"));
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
    let mut child = dir
        .droidscore()
        .args(args)
        .args(["--store", killed.to_str().unwrap(), "--run-id", "k"])
        .stdout(Stdio::null())
        .spawn();
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
    dir.droidscore()
        .args(args)
        .args(["--store", killed.to_str().unwrap(), "--resume", "k"])
        .ok();
    dir.droidscore()
        .args(args)
        .args(["--store", whole.to_str().unwrap(), "--run-id", "w"])
        .ok();
    let (a, b) = (episode_rows(&killed, "k"), episode_rows(&whole, "w"));
    assert_eq!(a.len(), 17 * 30, "no episode lost or counted twice");
    assert_eq!(a, b, "the resumed run equals the uninterrupted one");
}

#[test]
fn resume_refuses_a_run_started_with_other_settings() {
    let dir = TestEnv::new("resume-mismatch");
    let store = dir.join("r.sqlite");
    let store = store.to_str().unwrap();
    dir.droidscore()
        .args([
            "run", "--agent", "noop", "--tasks", "wifi_on", "--store", store,
        ])
        .args(["--run-id", "r"])
        .ok();
    let again = dir
        .droidscore()
        .args([
            "run", "--agent", "noop", "--tasks", "wifi_on", "--repeat", "2",
        ])
        .args(["--store", store, "--resume", "r"])
        .code(exit::BAD_INPUT);
    let err = text(&again.stderr);
    assert!(err.contains("repeat was 1 (now 2)"), "{err}");
}

/// A run is resumed on the suite it ran, judged by what the suite holds (its
/// hash), not where it was read from: one recorded with `--suite DIR` (as
/// every run was before the suite was built in) resumes on the built-in copy
/// of the same files; an edited suite is refused with both sources named.
#[test]
fn resume_compares_the_suite_by_its_contents() {
    let dir = TestEnv::new("resume-suite");
    let copy = dir.join("suite");
    std::fs::create_dir(&copy).unwrap();
    for entry in std::fs::read_dir(root().join("tasks")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, copy.join(path.file_name().unwrap())).unwrap();
    }
    let store = dir.join("r.sqlite");
    let run = |id: &str, suite: Option<&Path>, resume: bool| {
        let mut cmd = dir.droidscore();
        cmd.args(["run", "--agent", "noop", "--tasks", "wifi_on"])
            .arg("--store")
            .arg(&store)
            .args([if resume { "--resume" } else { "--run-id" }, id]);
        if let Some(suite) = suite {
            cmd.arg("--suite").arg(suite);
        }
        cmd
    };
    run("same", Some(&copy), false).ok();
    run("same", None, true).ok();

    let task = copy.join("wifi_on.toml");
    let edited = std::fs::read_to_string(&task).unwrap() + "\n# edited\n";
    std::fs::write(&task, edited).unwrap();
    run("edited", Some(&copy), false).ok();
    let refused = run("edited", None, true).code(exit::BAD_INPUT);
    let err = text(&refused.stderr);
    assert!(err.contains("suite hash differs"), "{err}");
    assert!(err.contains(copy.to_str().unwrap()), "{err}");
    assert!(err.contains("embedded"), "{err}");
}

/// `report --store missing.sqlite` created a 28 KB store, and an empty
/// file got a schema written into it: reading must never write.
#[test]
fn report_on_a_missing_or_empty_store_writes_nothing() {
    let env = TestEnv::new("report-read-only");
    let missing = env.join("missing.sqlite");
    let o = env
        .droidscore()
        .args(["report", "--store"])
        .arg(&missing)
        .code(exit::IO);
    assert!(text(&o.stderr).contains("missing.sqlite does not exist"));
    assert!(!missing.exists(), "report created the store");
    let empty = env.join("empty.sqlite");
    std::fs::write(&empty, b"").unwrap();
    let o = env
        .droidscore()
        .args(["report", "--store"])
        .arg(&empty)
        .code(exit::BAD_INPUT);
    assert!(text(&o.stderr).contains("holds no runs"));
    assert_eq!(std::fs::metadata(&empty).unwrap().len(), 0);
}
