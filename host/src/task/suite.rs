//! Where a command's tasks come from: the suite built into the binary (the
//! repository's `tasks/` when it was built, so an installed `droidscore`
//! works from any directory) or a directory named by `--suite DIR`. Either
//! way the suite hash is computed over the same bytes, so a run of the
//! embedded suite and a run of the `tasks/` it was built from hash alike,
//! and a run records which of the two it used.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::{load, Task, TaskError};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/suite.rs"));
}

/// A task suite: the embedded one, or the `*.toml` files of a directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Suite {
    /// The repository's `tasks/`, built into the binary.
    Embedded,
    /// Every `*.toml` file of this directory.
    Dir(PathBuf),
}

/// The name an embedded suite is recorded under (run config, messages).
pub(crate) const EMBEDDED: &str = "embedded";

impl Suite {
    /// `--suite DIR` if given, else the embedded suite.
    pub(crate) fn from_arg(dir: Option<&Path>) -> Suite {
        dir.map_or(Suite::Embedded, |d| Suite::Dir(d.to_path_buf()))
    }

    /// Every task, sorted by file name; ids must be unique.
    pub fn load(&self) -> Result<Vec<Task>, TaskError> {
        match self {
            Suite::Dir(dir) => load::load_dir(dir),
            Suite::Embedded => load::load_texts(
                embedded::FILES
                    .iter()
                    .map(|(name, text)| (embedded_path(name), *text)),
            ),
        }
    }

    /// sha256 over the suite's `*.toml` files: each file's name, a NUL, its
    /// bytes, a NUL, in name order. Any edit to any task changes it.
    pub fn hash(&self) -> std::io::Result<String> {
        match self {
            Suite::Embedded => {
                Ok(hash_files(embedded::FILES.iter().map(|(name, text)| {
                    (name.to_string(), text.as_bytes().to_vec())
                })))
            }
            Suite::Dir(dir) => {
                let mut files = Vec::new();
                for path in load::toml_files(dir)? {
                    let name = path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    files.push((name, std::fs::read(&path)?));
                }
                Ok(hash_files(files))
            }
        }
    }
}

impl std::fmt::Display for Suite {
    /// `embedded`, or the directory as given.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Suite::Embedded => f.write_str(EMBEDDED),
            Suite::Dir(dir) => write!(f, "{}", dir.display()),
        }
    }
}

/// An embedded task's path: says where it came from, and its file stem is
/// the task id, as a file's is.
fn embedded_path(name: &str) -> PathBuf {
    PathBuf::from(format!("{EMBEDDED}:tasks/{name}"))
}

fn hash_files(files: impl IntoIterator<Item = (String, Vec<u8>)>) -> String {
    let mut hasher = Sha256::new();
    for (name, bytes) in files {
        hasher.update(name.as_bytes());
        hasher.update([0]);
        hasher.update(bytes);
        hasher.update([0]);
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo_tasks() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tasks")
    }

    #[test]
    fn the_suite_hash_changes_with_any_task_byte() {
        let env = droidscore_testenv::TestEnv::new("suite-hash");
        let dir = env.path().to_path_buf();
        let suite = Suite::Dir(dir.clone());
        std::fs::write(dir.join("a.toml"), "id = \"a\"").unwrap();
        std::fs::write(dir.join("notes.txt"), "not a task").unwrap();
        let first = suite.hash().unwrap();
        assert_eq!(first.len(), 64);
        std::fs::write(dir.join("notes.txt"), "still not a task").unwrap();
        assert_eq!(suite.hash().unwrap(), first, "only task files count");
        std::fs::write(dir.join("a.toml"), "id = \"b\"").unwrap();
        assert_ne!(suite.hash().unwrap(), first);
    }

    #[test]
    fn the_embedded_suite_is_the_repositorys_tasks_byte_for_byte() {
        let on_disk = Suite::Dir(repo_tasks());
        assert_eq!(Suite::Embedded.hash().unwrap(), on_disk.hash().unwrap());
        let embedded = Suite::Embedded.load().unwrap();
        let files = on_disk.load().unwrap();
        let ids = |tasks: &[Task]| tasks.iter().map(|t| t.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&embedded), ids(&files));
        let variants = |tasks: &[Task]| tasks.iter().map(|t| t.variants.len()).sum::<usize>();
        assert_eq!(variants(&embedded), variants(&files));
    }

    #[test]
    fn an_embedded_task_says_it_is_embedded() {
        let tasks = Suite::Embedded.load().unwrap();
        let wifi = tasks.iter().find(|t| t.id == "wifi_on").unwrap();
        assert_eq!(wifi.path, Path::new("embedded:tasks/wifi_on.toml"));
        assert_eq!(Suite::Embedded.to_string(), "embedded");
        assert_eq!(Suite::from_arg(Some(Path::new("x"))).to_string(), "x");
    }
}
