//! Named, versioned step matchers: does the agent's answer at a step match
//! the reference's? The field's papers each use their own rule and their
//! numbers cannot be compared (QwenLM/Qwen3-VL#1155, InfiGUI-R1#7), so every
//! offline run is scored under each rule by name, and a rule's name carries
//! a version that changes whenever its behaviour does.
//!
//! - `aitw@1`: AndroidInTheWild's `action_matching.py` ([`aitw`]).
//! - `androidcontrol@1`: OS-Atlas's AndroidControl scorer ([`androidcontrol`]).
//! - `qwen-box@1`: the Qwen2.5-VL AndroidControl scorer ([`qwen_box`]).
//! - `gui-odyssey@1`: GUI-Odyssey's `GUIOdyssey_action_matching.py` ([`gui_odyssey`]).
//! - `droidscore@1`: droidscore's own exact rule ([`droidscore`]).
//!
//! docs/offline.md has the rules side by side with their sources;
//! `matchers_tests.rs` pins each on the cases where they disagree.

mod aitw;
mod androidcontrol;
mod droidscore;
mod gui_odyssey;
mod qwen_box;
mod rule;

#[cfg(test)]
mod matchers_tests;

pub use rule::{Matcher, Verdict};

/// Every matcher, in the order reports list them.
pub fn all() -> Vec<Box<dyn Matcher>> {
    vec![
        Box::new(droidscore::Droidscore),
        Box::new(aitw::Aitw),
        Box::new(androidcontrol::AndroidControl),
        Box::new(qwen_box::QwenBox),
        Box::new(gui_odyssey::GuiOdyssey),
    ]
}

/// The matchers `names` lists (comma-separated, each with or without its
/// `@version`; `all` for every one), or why one is unknown.
pub fn by_names(names: &str) -> Result<Vec<Box<dyn Matcher>>, String> {
    if names.trim() == "all" {
        return Ok(all());
    }
    let mut out = Vec::new();
    for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let found = all()
            .into_iter()
            .find(|m| m.name() == name || m.name().split('@').next() == Some(name));
        match found {
            Some(m) => out.push(m),
            None => {
                let known: Vec<&str> = all().iter().map(|m| m.name()).collect();
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
