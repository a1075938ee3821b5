//! The records the apps keep in their own databases (Pro Expense, Joplin,
//! Tasks.org, Simple Calendar Pro), scored three ways on every template
//! over them, every variant, under the reference and the do-nothing agent:
//! the oracle reading the simulator; the oracle reading the virtual phone
//! as a rooted phone (`adb root`, the `databases/` directory pulled and
//! read here); and the pulled files read as AndroidWorld reads them
//! (`SELECT *` into its row types' fields), row for row equal to what the
//! oracle read. Then the real-phone path: the virtual phone posing as a
//! phone of another maker, its initial rows written into the app's file the
//! way AndroidWorld writes them; and a phone that allows no root, where
//! those templates are skipped with what each way answered.

use std::collections::BTreeMap;
use std::sync::Arc;

use droidscore::agent::{Agent, Noop, Solver};
use droidscore::episode;
use droidscore::run::backend::{prepare_adb_phone, Prepared};
use droidscore::task::{load_dir, Instance, Task};
use droidscore_phone::adb::{AdbOptions, AdbPhone};
use droidscore_phone::appdb::{self, android_world, AppDb};
use droidscore_phone::records::{Record, Table};
use droidscore_phone::sim::SimPhone;
use droidscore_phone::vphone::{InProcess, VirtualPhone};

fn tasks() -> Vec<Task> {
    load_dir(&crate::support::root().join("tasks")).unwrap()
}

fn phone(tasks: &[Task], pose: bool) -> (Arc<VirtualPhone>, AdbPhone) {
    let vp = Arc::new(VirtualPhone::new(droidscore::task::SuiteSetups(tasks.to_vec())).unwrap());
    if pose {
        vp.run("droidscore-sim pose-as-phone on");
    }
    let phone = AdbPhone::new(Box::new(InProcess::new(vp.clone())), AdbOptions::default()).unwrap();
    (vp, phone)
}

/// The apps whose databases `inst` is scored on or starts from.
fn apps_of(inst: &Instance) -> Vec<AppDb> {
    let mut tables = inst.oracle.tables();
    tables.extend(inst.setup(0).records.iter().map(|r| r.table));
    let mut apps: Vec<AppDb> = tables.into_iter().filter_map(AppDb::for_table).collect();
    apps.extend(AppDb::for_package(&inst.app));
    apps.sort();
    apps.dedup();
    apps
}

/// A value as text, as Python's `str()` of a row field would print an
/// integer or a string.
fn text(v: &rusqlite::types::Value) -> String {
    match v {
        rusqlite::types::Value::Null => String::new(),
        rusqlite::types::Value::Integer(i) => i.to_string(),
        rusqlite::types::Value::Real(f) => f.to_string(),
        rusqlite::types::Value::Text(t) => t.clone(),
        rusqlite::types::Value::Blob(_) => "BLOB".into(),
    }
}

fn int(row: &android_world::Row, field: &str) -> i64 {
    match &row[field] {
        rusqlite::types::Value::Integer(i) => *i,
        other => panic!("{field} is {other:?}, not an integer"),
    }
}

/// What AndroidWorld's row types hold in `files`, put in the words the
/// records use by AndroidWorld's own reading of each field
/// (`Expense.amount_dollars` is cents / 100, `category_name` the id's name;
/// a Joplin note's notebook is its folder's title; Tasks.org's `completed`
/// a time), compared with the records the oracle read. Joplin's `notes` is
/// the one table AndroidWorld's `JoplinNote` refuses (`deleted_time`, see
/// docs/appdb.md): its reader is checked to refuse it for that column
/// alone, and the notes are read from `notes_normalized`, which AndroidWorld
/// writes beside them.
fn android_world_agrees(
    app: AppDb,
    files: &BTreeMap<String, Vec<u8>>,
    oracle: &[Record],
    at: &str,
) {
    let rows = |table: &str| {
        android_world::read(app, table, files).unwrap_or_else(|e| panic!("{at}: {e}"))
    };
    let got: Vec<BTreeMap<&str, String>> = match app {
        AppDb::ProExpense => rows("expense")
            .iter()
            .map(|r| {
                let cents = int(r, "amount");
                BTreeMap::from([
                    ("name", text(&r["name"])),
                    ("amount", format!("{}.{:02}", cents / 100, cents % 100)),
                    (
                        "category",
                        [
                            "Others",
                            "Income",
                            "Food",
                            "Housing",
                            "Social",
                            "Entertainment",
                            "Transportation",
                            "Clothes",
                            "Health Care",
                            "Education",
                            "Donation",
                        ][int(r, "category") as usize - 1]
                            .to_string(),
                    ),
                    ("date", int(r, "created_date").to_string()),
                ])
            })
            .collect(),
        AppDb::TasksOrg => rows("tasks")
            .iter()
            .filter(|r| int(r, "deleted") == 0)
            .map(|r| {
                BTreeMap::from([
                    ("title", text(&r["title"])),
                    ("done", (int(r, "completed") > 0).to_string()),
                    (
                        "importance",
                        ["high", "medium", "low", "none"][int(r, "importance") as usize]
                            .to_string(),
                    ),
                ])
            })
            .collect(),
        AppDb::Joplin => {
            let err = android_world::read(app, "notes", files)
                .unwrap_err()
                .to_string();
            assert!(err.contains("\"deleted_time\""), "{at}: {err}");
            let folders: BTreeMap<String, String> = rows("folders")
                .iter()
                .map(|f| (text(&f["id"]), text(&f["title"])))
                .collect();
            rows("notes_normalized")
                .iter()
                .map(|n| {
                    BTreeMap::from([
                        ("title", text(&n["title"])),
                        ("body", text(&n["body"])),
                        (
                            "notebook",
                            folders
                                .get(&text(&n["parent_id"]))
                                .cloned()
                                .unwrap_or_default(),
                        ),
                    ])
                })
                .collect()
        }
        AppDb::SimpleCalendar => rows("events")
            .iter()
            .map(|e| {
                BTreeMap::from([
                    ("title", text(&e["title"])),
                    ("start", (int(e, "start_ts") * 1000).to_string()),
                    ("end", (int(e, "end_ts") * 1000).to_string()),
                ])
            })
            .collect(),
    };
    let want: Vec<BTreeMap<&str, String>> = oracle
        .iter()
        .map(|r| match app {
            AppDb::ProExpense => BTreeMap::from([
                ("name", r.text("name")),
                ("amount", r.text("amount")),
                ("category", r.text("category")),
                ("date", r.text("date")),
            ]),
            AppDb::TasksOrg => BTreeMap::from([
                ("title", r.text("title")),
                ("done", (r.text("completed") == "1").to_string()),
                ("importance", r.text("importance")),
            ]),
            AppDb::Joplin => BTreeMap::from([
                ("title", r.text("title").to_lowercase()),
                ("body", r.text("body").to_lowercase()),
                ("notebook", r.text("notebook")),
            ]),
            AppDb::SimpleCalendar => BTreeMap::from([
                ("title", r.text("title")),
                ("start", r.text("start")),
                ("end", r.text("end")),
            ]),
        })
        .collect();
    assert_eq!(got, want, "{at}: AndroidWorld's rows against the oracle's");
}

#[test]
fn every_app_data_template_scores_the_same_three_ways_under_the_reference_and_do_nothing() {
    let tasks = tasks();
    let (_vp, mut phone) = phone(&tasks, false);
    let (mut templates, mut episodes) = (std::collections::BTreeSet::new(), 0);
    let mut flip_history = std::collections::BTreeSet::new();
    for inst in tasks.iter().flat_map(|t| &t.variants) {
        let apps = apps_of(inst);
        if apps.is_empty() {
            continue;
        }
        if inst.oracle.needs_flip_history() {
            // Scored from flip history, in process only (adb_backend.rs).
            flip_history.insert(inst.task.clone());
            continue;
        }

        for name in ["reference", "do-nothing"] {
            let agent = || -> Box<dyn Agent> {
                match name {
                    "reference" => Box::new(Solver::new(inst.solution.clone())),
                    _ => Box::new(Noop),
                }
            };
            let at = format!("{}/{} under {name}", inst.task, inst.variant.id);
            let mut sim = SimPhone::new(inst.setup(0)).unwrap();
            let on_sim = episode::run(&mut sim, &mut *agent(), inst).unwrap();
            assert_eq!(
                prepare_adb_phone(&mut phone, inst, 0).unwrap(),
                Prepared::Ready,
                "{at}"
            );
            let over_adb = episode::run(&mut phone, &mut *agent(), inst).unwrap();
            assert_eq!(
                (over_adb.success, over_adb.verdict.outcome),
                (on_sim.success, on_sim.verdict.outcome),
                "{at}: adb {} / sim {}",
                over_adb.reason,
                on_sim.reason
            );
            assert_eq!(
                over_adb.success,
                name == "reference",
                "{at}: {}",
                over_adb.reason
            );
            for app in &apps {
                let files = phone.pull_app_files(*app).unwrap();
                let oracle = appdb::load(*app, &files).unwrap().remove(0).1;
                android_world_agrees(*app, &files, &oracle, &at);
            }
            episodes += 1;
        }
        templates.insert(inst.task.clone());
    }
    assert!(
        templates.len() >= 48,
        "only {} app-data templates",
        templates.len()
    );
    eprintln!(
        "{} app-data templates, {episodes} episodes, equal three ways; {} more need flip history: {flip_history:?}",
        templates.len(),
        flip_history.len()
    );
}

#[test]
fn the_provider_no_phone_has_is_gone_and_answers_as_android_does_for_an_unknown_authority() {
    let tasks = tasks();
    let (vp, _) = phone(&tasks, false);
    let out = vp.run("content query --uri content://droidscore.sim/records/expenses");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("Error while accessing provider:droidscore.sim\njava.lang.IllegalStateException: Could not find provider: droidscore.sim"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn a_rooted_phone_gets_its_rows_written_into_the_apps_file_and_a_phone_without_root_skips_saying_why(
) {
    let tasks = tasks();
    let (vp, mut phone) = phone(&tasks, true);
    assert!(!phone.is_virtual());
    let (mut ran, mut skipped) = (0, 0);
    for inst in tasks.iter().flat_map(|t| &t.variants) {
        if inst.variant.id != "base" || apps_of(inst).is_empty() {
            continue;
        }
        match prepare_adb_phone(&mut phone, inst, 0).unwrap() {
            Prepared::Skip(why) => {
                assert!(!why.contains("own database"), "{}: {why}", inst.task);
                skipped += 1;
            }
            Prepared::Ready => {
                let mut sim = SimPhone::new(inst.setup(0)).unwrap();
                let on_sim =
                    episode::run(&mut sim, &mut Solver::new(inst.solution.clone()), inst).unwrap();
                let ep = episode::run(&mut phone, &mut Solver::new(inst.solution.clone()), inst)
                    .unwrap();
                assert_eq!(
                    (ep.success, ep.verdict.outcome),
                    (on_sim.success, on_sim.verdict.outcome),
                    "{}: {} / {}",
                    inst.task,
                    ep.reason,
                    on_sim.reason
                );
                assert!(ep.success, "{}: {}", inst.task, ep.reason);
                prepare_adb_phone(&mut phone, inst, 0).unwrap();
                let noop = episode::run(&mut phone, &mut Noop, inst).unwrap();
                assert!(!noop.success, "{} passed doing nothing", inst.task);
                ran += 1;
            }
        }
    }
    assert!(
        ran >= 20,
        "only {ran} app-data base variants ran on the rooted phone ({skipped} skipped)"
    );
    eprintln!(
        "rooted, posing as a phone: {ran} base variants ran, {skipped} skipped for other records"
    );

    // A production build: `adb root` refused, no `su`.
    vp.run("droidscore-sim production on");
    let mut phone =
        AdbPhone::new(Box::new(InProcess::new(vp.clone())), AdbOptions::default()).unwrap();
    let inst = tasks
        .iter()
        .find(|t| t.id == "expense_delete")
        .unwrap()
        .variant("base")
        .unwrap();
    match prepare_adb_phone(&mut phone, inst, 0).unwrap() {
        Prepared::Skip(why) => {
            assert!(why.contains("cannot read without root"), "{why}");
            assert!(why.contains("adb root"), "{why}");
            assert!(why.contains("su 0"), "{why}");
            eprintln!("{why}");
        }
        Prepared::Ready => panic!("expense_delete ran on a phone without root"),
    }
    assert_eq!(Table::Expenses.source().map(|s| s.uri), None);
}
