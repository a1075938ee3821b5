//! Arms that could share a cache keyed on their configuration: two arms
//! that differ in command or environment but would read and write the same
//! cache directory, so the second can reuse what the first built (a
//! compiled kernel, a converted model) and look faster for it.
//!
//! A variable is cache-like when its name ends in `CACHE`, `CACHE_DIR` or
//! `_HOME`, or is `CARGO_TARGET_DIR`. Two arms share it when both set it to
//! the same value, or — for the well-known ones below — neither sets it, so
//! both inherit the harness's value (or the program's default).

use std::collections::BTreeSet;

use super::spec::Arm;

/// Checked even when no arm sets them.
pub const WELL_KNOWN: [&str; 4] = [
    "DROIDSCORE_CACHE",
    "HF_HOME",
    "XDG_CACHE_HOME",
    "CARGO_TARGET_DIR",
];

pub fn cache_like(name: &str) -> bool {
    name.ends_with("CACHE")
        || name.ends_with("CACHE_DIR")
        || name.ends_with("_HOME")
        || name == "CARGO_TARGET_DIR"
}

/// The arm's command and environment without its cache-like variables.
fn config(arm: &Arm) -> (Vec<String>, Vec<(String, String)>) {
    (
        arm.command.clone(),
        arm.env
            .iter()
            .filter(|(k, _)| !cache_like(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    )
}

/// One warning per pair of arms that differ but share a cache location.
pub fn warnings(arms: &[Arm]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, a) in arms.iter().enumerate() {
        for b in &arms[i + 1..] {
            if config(a) == config(b) {
                continue; // the same configuration: sharing is harmless
            }
            let names: BTreeSet<&str> = a
                .env
                .keys()
                .chain(b.env.keys())
                .map(String::as_str)
                .filter(|k| cache_like(k))
                .chain(WELL_KNOWN)
                .collect();
            let shared: Vec<String> = names
                .into_iter()
                .filter_map(|name| match (a.env.get(name), b.env.get(name)) {
                    (Some(x), Some(y)) if x == y => Some(format!("{name}={x}")),
                    (None, None) => Some(format!("{name} (unset in both)")),
                    _ => None,
                })
                .collect();
            if !shared.is_empty() {
                out.push(format!(
                    "arms {:?} and {:?} differ but could share a cache keyed on their configuration: {}; \
                     give each arm its own",
                    a.tag,
                    b.tag,
                    shared.join(", ")
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arm(tag: &str, cmd: &str, env: &[(&str, &str)]) -> Arm {
        Arm {
            tag: tag.into(),
            command: vec![cmd.into()],
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            output: Default::default(),
        }
    }

    const OWN: [(&str, &str); 0] = [];

    fn all_own(tag: &str) -> Vec<(String, String)> {
        WELL_KNOWN
            .iter()
            .map(|n| (n.to_string(), format!("/c/{tag}")))
            .collect()
    }

    fn with_own(tag: &str, cmd: &str, extra: &[(&str, &str)]) -> Arm {
        let mut a = arm(tag, cmd, extra);
        a.env.extend(all_own(tag));
        a
    }

    #[test]
    fn different_arms_sharing_a_cache_value_are_warned_about() {
        let mut a = with_own("a", "serve", &[("THREADS", "1")]);
        let mut b = with_own("b", "serve", &[("THREADS", "2")]);
        a.env.insert("DROIDSCORE_CACHE".into(), "/c".into());
        b.env.insert("DROIDSCORE_CACHE".into(), "/c".into());
        let w = warnings(&[a, b]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("DROIDSCORE_CACHE=/c"), "{w:?}");
    }

    #[test]
    fn a_well_known_variable_unset_in_both_is_shared() {
        let a = arm("a", "one", &OWN);
        let b = arm("b", "two", &OWN);
        let w = warnings(&[a, b]);
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("HF_HOME (unset in both)"), "{w:?}");
    }

    #[test]
    fn own_caches_or_identical_arms_are_not_warned_about() {
        let a = with_own("a", "serve", &[("THREADS", "1")]);
        let b = with_own("b", "serve", &[("THREADS", "2")]);
        assert!(warnings(&[a, b]).is_empty());
        // A/A: same configuration, differing only in tag.
        let a = arm("a", "serve", &OWN);
        let b = arm("b", "serve", &OWN);
        assert!(warnings(&[a, b]).is_empty());
        // Differing only in the cache directory is not "otherwise differ".
        let a = with_own("a", "serve", &OWN);
        let b = with_own("b", "serve", &OWN);
        assert!(warnings(&[a, b]).is_empty());
    }

    #[test]
    fn cache_like_names() {
        for n in [
            "DROIDSCORE_CACHE",
            "MY_CACHE_DIR",
            "HF_HOME",
            "CARGO_TARGET_DIR",
        ] {
            assert!(cache_like(n), "{n}");
        }
        assert!(!cache_like("HOME") && !cache_like("THREADS"));
    }
}
