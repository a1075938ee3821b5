//! Pathname expansion: an unquoted `*` or `?` in a word (POSIX 2.13, as
//! mksh does it) matched against the phone's files and directories. `*`
//! and `?` never match `/`, nor a leading `.` unless the pattern's last
//! part starts with one; the matches come sorted; a directory the shell's
//! user may not read yields none. No match leaves the word as written, so
//! `rm DIR/*` in an empty directory fails on the `*` itself, as on a phone.

use std::collections::BTreeSet;

use super::state::Inner;
use super::user;

/// The paths `pattern` (a full-match regex, from `Word::glob`) matches,
/// sorted. `text` is the word as written: a relative one is matched
/// against `cwd` and its matches given back relative, as written.
pub(super) fn matches(inner: &Inner, cwd: &str, text: &str, pattern: &str) -> Vec<String> {
    let Ok(re) = regex::Regex::new(pattern) else {
        return Vec::new();
    };
    let prefix = if text.starts_with('/') {
        String::new()
    } else if cwd.ends_with('/') {
        cwd.to_string()
    } else {
        format!("{cwd}/")
    };
    let hidden_ok = text
        .rsplit('/')
        .next()
        .is_some_and(|last| last.starts_with('.'));
    paths(inner)
        .into_iter()
        .filter_map(|path| {
            let candidate = path.strip_prefix(&prefix)?;
            let (parent, name) = path.rsplit_once('/')?;
            let parent = if parent.is_empty() { "/" } else { parent };
            let visible = hidden_ok || !name.starts_with('.');
            (visible && re.is_match(candidate) && !user::unlistable(inner, parent))
                .then(|| candidate.to_string())
        })
        .collect()
}

/// Every file and directory the phone has, as absolute paths.
fn paths(inner: &Inner) -> BTreeSet<String> {
    let mut all = BTreeSet::new();
    for path in inner.files.keys().chain(inner.dirs.iter()) {
        let mut at = path.as_str();
        while !at.is_empty() && all.insert(at.to_string()) {
            at = at.rsplit_once('/').map_or("", |(up, _)| up);
        }
    }
    for dir in super::state::FIXED_DIRS {
        if !dir.is_empty() {
            all.insert(dir.to_string());
        }
    }
    all
}
