//! The crash test: a real writer process is SIGKILLed while it records
//! episodes, and the store it leaves must hold only whole episodes, every
//! episode it reported committed, and pass SQLite's integrity check.
//!
//! The writer is this test binary again, running the ignored test
//! [`crash_writer_child`] with `DROIDSCORE_STORE_CRASH_WRITER` naming the store.

use std::{
    collections::BTreeSet,
    io::{BufRead, BufReader, Write},
    process::{Command, Stdio},
    time::Duration,
};

use super::{test_support as t, EpisodeRecord, StepRecord, Store};

const WRITER_ENV: &str = "DROIDSCORE_STORE_CRASH_WRITER";
const WRITER_TEST: &str = "store::crash_tests::crash_writer_child";
const RUN: &str = "crash";
/// Steps per episode; with a 32 KiB screenshot each, one episode is ~160
/// pages, so most of the writer's time is spent inside a transaction and
/// checkpoints (every 1000 pages) happen during the test too.
const STEPS: u32 = 20;
const SCREENSHOT_BYTES: usize = 32 * 1024;

/// Not a test on its own: the writer half of [`sigkill_mid_write_leaves_no_torn_episode`].
/// Records episodes of run `crash` until killed, skipping finished ones as
/// `--resume` would, and prints `crash-writer begin N` before each
/// `record_episode` and `crash-writer committed N` after it.
#[test]
#[ignore = "child process of sigkill_mid_write_leaves_no_torn_episode"]
fn crash_writer_child() {
    let Some(path) = std::env::var_os(WRITER_ENV) else {
        eprintln!("{WRITER_TEST} only runs as the crash test's child ({WRITER_ENV} unset)");
        return;
    };
    let store = Store::open(&path).unwrap();
    if store.run(RUN).unwrap().is_none() {
        store
            .create_run(&t::run(RUN, "2026-11-30T04:35:12Z"))
            .unwrap();
    }
    let finished = store.finished(RUN).unwrap();
    // xorshift noise, so screenshots are bytes SQLite stores page for page.
    let mut state = u64::from(std::process::id()) | 1;
    let noise: Vec<u8> = (0..4 * SCREENSHOT_BYTES)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    // Built once, so nearly all the writer's time is spent inside transactions.
    let mut template = t::episode(RUN, "wifi_on", "base", 0);
    template.steps = STEPS;
    let mut template_steps = t::steps(&template, STEPS);
    for (step, at) in template_steps.iter_mut().zip((0..).step_by(997)) {
        let at = at % (3 * SCREENSHOT_BYTES);
        step.screenshot = Some(noise[at..at + SCREENSHOT_BYTES].to_vec());
    }
    let mut stdout = std::io::stdout();
    for repeat in 0..100_000 {
        if finished.contains(&("wifi_on".into(), "base".into(), repeat)) {
            continue;
        }
        let episode = EpisodeRecord {
            repeat,
            ..template.clone()
        };
        let steps: Vec<StepRecord> = template_steps
            .iter()
            .map(|step| StepRecord {
                repeat,
                ..step.clone()
            })
            .collect();
        writeln!(stdout, "crash-writer begin {repeat}").unwrap();
        stdout.flush().unwrap();
        store.record_episode(&episode, &steps).unwrap();
        writeln!(stdout, "crash-writer committed {repeat}").unwrap();
        stdout.flush().unwrap();
    }
}

/// Spawn the writer, wait for `commits` commit reports and the next begin,
/// let it run `delay` more, SIGKILL it. Returns the repeats it reported committed.
fn kill_writer_mid_run(path: &std::path::Path, commits: usize, delay: Duration) -> BTreeSet<u32> {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            WRITER_TEST,
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(WRITER_ENV, path)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut committed = BTreeSet::new();
    // Enough commits, then the next `begin`: the writer is entering a
    // transaction, and `delay` picks a point inside it (one takes ~2 ms).
    loop {
        let line = lines
            .next()
            .expect("the writer exited before committing enough episodes")
            .unwrap();
        committed.extend(report(&line, "committed"));
        if committed.len() >= commits && report(&line, "begin").is_some() {
            break;
        }
    }
    std::thread::sleep(delay);
    assert!(
        child.try_wait().unwrap().is_none(),
        "the writer finished on its own instead of being killed"
    );
    child.kill().unwrap(); // SIGKILL on unix: no destructors, no rollback.
    let status = child.wait().unwrap();
    assert!(!status.success(), "{status}");
    // Lines the writer printed between our last read and the kill.
    committed.extend(
        lines
            .map_while(Result::ok)
            .filter_map(|line| report(&line, "committed")),
    );
    committed
}

/// The repeat in a `crash-writer {what} N` line (libtest may put its own
/// text before it on the line).
fn report(line: &str, what: &str) -> Option<u32> {
    let mark = format!("crash-writer {what} ");
    let at = line.find(&mark)?;
    Some(line[at + mark.len()..].trim().parse().unwrap())
}

#[test]
fn sigkill_mid_write_leaves_no_torn_episode() {
    let dir = t::ScratchDir::new("crash");
    let path = dir.join("run.db");
    let mut reported = BTreeSet::new();
    // Three kills at different points; each writer resumes the last one's run.
    for (round, delay_us) in [0u64, 700, 1500].into_iter().enumerate() {
        let before = reported.len();
        reported.extend(kill_writer_mid_run(
            &path,
            3 + round,
            Duration::from_micros(delay_us),
        ));
        assert!(
            reported.len() >= before + 3 + round,
            "each writer added its own episodes"
        );

        let store = Store::open_existing(&path).unwrap();
        assert_eq!(store.integrity_problems().unwrap(), Vec::<String>::new());
        let episodes = store.episodes(RUN).unwrap();
        let present: BTreeSet<u32> = episodes.iter().map(|e| e.repeat).collect();
        // Durable across a process crash: every reported commit is there.
        let lost: Vec<_> = reported.difference(&present).collect();
        assert!(lost.is_empty(), "committed episodes lost: {lost:?}");
        // At most one commit per kill so far is unreported: the one that
        // returned just before its kill, whose line never reached the pipe
        // (seen under load: 16 present, 14 reported after the third kill).
        assert!(
            present.len() <= reported.len() + round + 1,
            "{present:?} vs {reported:?}"
        );
        // Whole episodes only: each present episode has every step, in order.
        for episode in &episodes {
            let steps = store.steps(RUN, "wifi_on", "base", episode.repeat).unwrap();
            let indexes: Vec<u32> = steps.iter().map(|step| step.index).collect();
            assert_eq!(
                indexes,
                (0..STEPS).collect::<Vec<_>>(),
                "repeat {}",
                episode.repeat
            );
            assert!(steps
                .iter()
                .all(|s| s.screenshot.as_ref().map(Vec::len) == Some(SCREENSHOT_BYTES)));
        }
        // No steps without their episode (the foreign key is also checked above).
        let orphan_steps: i64 = store
            .conn
            .query_row(
                "SELECT count(*) FROM steps s WHERE NOT EXISTS (SELECT 1 FROM episodes e
                 WHERE (e.run_id, e.task, e.variant, e.repeat) = (s.run_id, s.task, s.variant, s.repeat))",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(orphan_steps, 0);
        assert_eq!(store.finished(RUN).unwrap().len(), present.len());
    }
}
