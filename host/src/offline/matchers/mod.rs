//! Named, versioned step matchers: does the agent's answer at a step match
//! the reference's? The field's papers each use their own rule and their
//! numbers cannot be compared (QwenLM/Qwen3-VL#1155, InfiGUI-R1#7), so every
//! offline run is scored under each rule by name, and a rule's name carries
//! a version that changes whenever its behaviour does.
//!
//! - `aitw@2`: AndroidInTheWild's `action_matching.py` ([`aitw`]).
//! - `androidcontrol@2`: OS-Atlas's AndroidControl scorer ([`androidcontrol`]).
//! - `qwen-box@1`: the Qwen2.5-VL AndroidControl scorer ([`qwen_box`]).
//! - `gui-odyssey@2`: GUI-Odyssey's `GUIOdyssey_action_matching.py` as
//!   its evaluation loop feeds it ([`gui_odyssey`]).
//! - `droidscore@1`: droidscore's own exact rule ([`droidscore`]).
//!
//! A rule's earlier versions stay selectable by their full names
//! (`aitw@1`, `androidcontrol@1`, `gui-odyssey@1`: ports that differed from
//! the peers' code where each module's doc says), so verdicts a store holds
//! under them keep their meaning and can be recomputed; a bare name is the
//! current version.
//!
//! docs/offline.md has the rules side by side with their sources;
//! `matchers_tests.rs` pins each on the cases where they disagree, and
//! `peers_tests.rs` each version on the cases where a port and its peer
//! parted.

mod aitw;
mod androidcontrol;
mod droidscore;
mod gui_odyssey;
mod python;
mod qwen_box;
mod rule;

#[cfg(test)]
mod matchers_tests;
#[cfg(test)]
mod peers_tests;

pub use rule::{Matcher, Verdict};

/// Every matcher at its current version, in the order reports list them.
pub fn all() -> Vec<Box<dyn Matcher>> {
    vec![
        Box::new(droidscore::Droidscore),
        Box::new(aitw::Aitw2),
        Box::new(androidcontrol::AndroidControl2),
        Box::new(qwen_box::QwenBox),
        Box::new(gui_odyssey::GuiOdyssey2),
    ]
}

/// Every version of every matcher: [`all`], then the earlier versions.
pub fn every_version() -> Vec<Box<dyn Matcher>> {
    let mut out = all();
    out.push(Box::new(aitw::Aitw1));
    out.push(Box::new(androidcontrol::AndroidControl1));
    out.push(Box::new(gui_odyssey::GuiOdyssey1));
    out
}

/// The matcher of this exact versioned name (`aitw@1`), if there is one.
pub fn by_name(name: &str) -> Option<Box<dyn Matcher>> {
    every_version().into_iter().find(|m| m.name() == name)
}

/// The matchers `names` lists (comma-separated, each with its `@version`
/// or bare for the current one; `all` for every current one), or why one
/// is unknown.
pub fn by_names(names: &str) -> Result<Vec<Box<dyn Matcher>>, String> {
    if names.trim() == "all" {
        return Ok(all());
    }
    let mut out = Vec::new();
    for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let current = || {
            all()
                .into_iter()
                .find(|m| m.name().split('@').next() == Some(name))
        };
        match by_name(name).or_else(current) {
            Some(m) => out.push(m),
            None => {
                let known: Vec<&str> = every_version().iter().map(|m| m.name()).collect();
                return Err(format!(
                    "unknown matcher {name:?}; known: {}",
                    known.join(", ")
                ));
            }
        }
    }
    if out.is_empty() {
        return Err("no matcher named".into());
    }
    Ok(out)
}
