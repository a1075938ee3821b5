//! Two adb client libraries from PyPI against the virtual phone, each call
//! their READMEs show: `adbutils` (openatx/adbutils) through a private adb
//! server, and `adb-shell` (JeffLIrion/adb_shell, `AdbDeviceTcp`) straight
//! to `sim serve`'s adbd port, with no adb server between. The scripts beside
//! this file (py/) print one line per call, `PASS name: detail` or `FAIL
//! name: error`; each test prints them all and fails naming every FAIL.
//! Needs python3 with adbutils==2.12.0 and adb-shell==0.4.4
//! (scripts/install-pyclients.sh, which scripts/test.sh runs): without them
//! the tests fail saying so.

use std::path::PathBuf;
use std::process::Command;

use super::rig::{phone, sim_serve};
use crate::support::{python3, TestEnv};

/// The pinned versions scripts/install-pyclients.sh installs.
const PINS: [(&str, &str); 2] = [("adbutils", "2.12.0"), ("adb_shell", "0.4.4")];

fn script(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/integration/adb/py")
        .join(name)
}

/// python3 with both packages at their pinned versions, or a failure saying
/// how to install them.
fn python_with_clients() -> &'static str {
    let python = python3();
    for (module, version) in PINS {
        let out = Command::new(python)
            .args(["-c", &format!("import importlib.metadata as m; print(m.version({module:?}.replace('_', '-')))")])
            .output()
            .expect("python3 runs");
        let found = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        assert!(
            out.status.success() && found == version,
            "these tests need the PyPI package {module}=={version} (found {:?}): run scripts/install-pyclients.sh\n{}",
            found,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    python
}

/// Run `script` with `args` (and `vars` in its environment: the adb
/// server's port and HOME), print its lines, and fail naming every FAIL,
/// or a script that printed nothing or crashed.
fn run_calls(env: &TestEnv, script_name: &str, args: &[&str], vars: &[(&str, String)]) {
    let python = python_with_clients();
    let out = Command::new(python)
        .arg(script(script_name))
        .args(args)
        .envs(vars.iter().map(|(k, v)| (*k, v.as_str())))
        .current_dir(env.path())
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("== {script_name}\n{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    let passed = lines.iter().filter(|l| l.starts_with("PASS ")).count();
    let failed: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("FAIL "))
        .collect();
    println!("{script_name}: {passed} passed, {} failed", failed.len());
    assert!(
        passed > 0,
        "{script_name} printed no PASS line; stderr:\n{stderr}"
    );
    assert!(
        failed.is_empty(),
        "{script_name}: {} calls failed:\n{}\nstderr:\n{stderr}",
        failed.len(),
        failed.join("\n")
    );
    assert!(
        lines
            .iter()
            .all(|l| l.starts_with("PASS ") || l.starts_with("FAIL ")),
        "{script_name}: a line that is neither PASS nor FAIL:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(
        out.status.success(),
        "{script_name} exited {:?}; stderr:\n{stderr}",
        out.status
    );
}

#[test]
fn adbutils_readme_calls_through_the_adb_server() {
    let env = TestEnv::new("pyclients-adbutils");
    let (adb, phone) = phone(&env);
    let port = adb.port().to_string();
    let work = env.join("work");
    std::fs::create_dir_all(&work).unwrap();
    run_calls(
        &env,
        "adbutils_calls.py",
        &[&port, &phone.addr, work.to_str().unwrap()],
        &adb.env(),
    );
}

#[test]
fn adb_shell_readme_calls_straight_to_the_adbd_port() {
    let env = TestEnv::new("pyclients-adb-shell");
    let phone = sim_serve(&env);
    let (host, port) = phone.addr.rsplit_once(':').unwrap();
    let work = env.join("work");
    std::fs::create_dir_all(&work).unwrap();
    run_calls(
        &env,
        "adb_shell_calls.py",
        &[host, port, work.to_str().unwrap()],
        &[],
    );
}
