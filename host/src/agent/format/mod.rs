//! The models' own action formats (`--agent-format`): for each, the prompt
//! its authors send and the parser of the answer it was trained to give,
//! so a published model runs as its authors ran it.
//!
//! - `androidworld`: AndroidWorld's JSON action over the element list
//!   (`prompt`, `action`, `schema`); the default, and the only format that
//!   works without a screenshot or under `--constrain schema`.
//! - `ui-tars`: UI-TARS-1.5's mobile prompt and `click(start_box='(x,y)')`
//!   grammar (`ui_tars`).
//! - `qwen-mobile-use`: Qwen2.5-VL's `mobile_use` tool call, coordinates in
//!   the resized image's pixels (`qwen`).
//! - `qwen3-mobile-use`: Qwen3-VL's `mobile_use` tool call, coordinates on
//!   a 0..999 grid (`qwen`).
//! - `agentcpm-gui`: AgentCPM-GUI's compact JSON action, 0..1000 (`agentcpm`).
//!
//! The vision formats read only the screenshot: no element list, no
//! indexes. Their answers become device actions directly (`common`); the
//! store keeps the call as the format wrote it.

mod agentcpm;
mod call;
mod common;
mod qwen;
mod render;
#[cfg(test)]
mod render_tests;
mod ui_tars;

use std::fmt;
use std::str::FromStr;

use serde_json::Value;

use crate::agent::Decision;

pub use common::{smart_resize, FormatError, Geometry, Parsed, Space, Turn};

pub(crate) use common::data_url;
pub use render::{render, said, sentence};

/// `--agent-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AgentFormat {
    #[default]
    AndroidWorld,
    UiTars,
    QwenMobileUse,
    Qwen3MobileUse,
    AgentCpmGui,
}

impl AgentFormat {
    pub const ALL: [AgentFormat; 5] = [
        AgentFormat::AndroidWorld,
        AgentFormat::UiTars,
        AgentFormat::QwenMobileUse,
        AgentFormat::Qwen3MobileUse,
        AgentFormat::AgentCpmGui,
    ];

    pub fn name(self) -> &'static str {
        match self {
            AgentFormat::AndroidWorld => "androidworld",
            AgentFormat::UiTars => "ui-tars",
            AgentFormat::QwenMobileUse => "qwen-mobile-use",
            AgentFormat::Qwen3MobileUse => "qwen3-mobile-use",
            AgentFormat::AgentCpmGui => "agentcpm-gui",
        }
    }

    /// Whether the model reads the screenshot alone (every format but
    /// AndroidWorld's element list).
    pub fn is_vision(self) -> bool {
        self != AgentFormat::AndroidWorld
    }

    /// The space the format's coordinates live in (`None`: AndroidWorld's
    /// screen pixels and indexes).
    pub fn space(self) -> Option<Space> {
        match self {
            AgentFormat::AndroidWorld => None,
            AgentFormat::UiTars => Some(ui_tars::SPACE),
            AgentFormat::QwenMobileUse => Some(qwen::SPACE_2_5),
            AgentFormat::Qwen3MobileUse => Some(qwen::SPACE_3),
            AgentFormat::AgentCpmGui => Some(agentcpm::SPACE),
        }
    }
}

impl fmt::Display for AgentFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for AgentFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        AgentFormat::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                let known: Vec<&str> = AgentFormat::ALL.iter().map(|f| f.name()).collect();
                format!("unknown agent format {s:?}; known: {}", known.join(", "))
            })
    }
}

/// The most screenshots one request of `format` carries (the current one
/// included): what a server must be set to take (vLLM's
/// `--limit-mm-per-prompt`).
pub(crate) fn max_images(format: AgentFormat) -> usize {
    match format {
        AgentFormat::AndroidWorld | AgentFormat::QwenMobileUse | AgentFormat::Qwen3MobileUse => 1,
        AgentFormat::UiTars => ui_tars::MAX_IMAGES,
        AgentFormat::AgentCpmGui => agentcpm::MAX_IMAGES,
    }
}

/// A vision format's episode: what it sent and what came back, from which
/// each request is built as the format's authors build theirs.
#[derive(Debug, Clone)]
pub struct Session {
    format: AgentFormat,
    turns: Vec<Turn>,
    /// The screenshot of the request in flight, kept for its turn.
    pending: Option<Vec<u8>>,
}

impl Session {
    /// `None` for AndroidWorld, which has its own dialogue (`dialogue`).
    pub fn new(format: AgentFormat) -> Option<Session> {
        format.is_vision().then(|| Session {
            format,
            turns: Vec::new(),
            pending: None,
        })
    }

    pub fn format(&self) -> AgentFormat {
        self.format
    }

    pub fn reset(&mut self) {
        self.turns.clear();
        self.pending = None;
    }

    /// The request's messages for this screen (the LLM agent adds the
    /// model and sampling fields).
    pub fn messages(&mut self, goal: &str, screen: (i32, i32), screenshot: &[u8]) -> Vec<Value> {
        self.pending = Some(screenshot.to_vec());
        let geometry = self.geometry(screen);
        match self.format {
            AgentFormat::UiTars => ui_tars::messages(goal, &self.turns, screenshot),
            AgentFormat::QwenMobileUse => {
                qwen::messages(qwen::Version::V2_5, goal, &self.turns, screenshot, geometry)
            }
            AgentFormat::Qwen3MobileUse => {
                qwen::messages(qwen::Version::V3, goal, &self.turns, screenshot, geometry)
            }
            AgentFormat::AgentCpmGui => agentcpm::messages(goal, &self.turns, screenshot),
            AgentFormat::AndroidWorld => unreachable!("AndroidWorld has no session"),
        }
    }

    fn geometry(&self, screen: (i32, i32)) -> Geometry {
        Geometry::new(
            self.format.space().expect("a vision format has a space"),
            screen,
        )
    }

    /// Read `raw` in the format against the screen it answered.
    pub fn parse(&self, raw: &str, screen: (i32, i32)) -> Result<Parsed, FormatError> {
        if raw.trim().is_empty() {
            return Err(FormatError::Empty);
        }
        let geometry = self.geometry(screen);
        match self.format {
            AgentFormat::UiTars => ui_tars::parse(raw, geometry),
            AgentFormat::QwenMobileUse | AgentFormat::Qwen3MobileUse => qwen::parse(raw, geometry),
            AgentFormat::AgentCpmGui => agentcpm::parse(raw, geometry),
            AgentFormat::AndroidWorld => unreachable!("AndroidWorld has no session"),
        }
    }

    /// Teacher forcing (`droidscore steps`): `reference` was performed on
    /// the screen of size `screen`, not the model's answer. The turn of the
    /// request in flight (answered or not) recalls it as the format writes
    /// it ([`render`]), or says it in words where the format has no action
    /// for it ([`said`]); `target` is the label of the element it taps.
    pub fn follow(&mut self, reference: &Decision, screen: (i32, i32), target: Option<&str>) {
        let geometry = self.geometry(screen);
        let answer = render(self.format, reference, geometry, target)
            .unwrap_or_else(|| said(self.format, reference, target));
        match self.pending.take() {
            Some(screenshot) => self.turns.push(Turn { answer, screenshot }),
            None => {
                if let Some(turn) = self.turns.last_mut() {
                    turn.answer = answer;
                }
            }
        }
    }

    /// The turns so far (their answers as the next request recalls them).
    pub fn turns(&self) -> &[Turn] {
        &self.turns
    }

    /// The answer to the request in flight, performed or not: the formats'
    /// prompts have no place for why an answer was invalid, so the model
    /// sees only its own answer in the history.
    pub fn answered(&mut self, answer: &str) {
        self.turns.push(Turn {
            answer: answer.to_owned(),
            screenshot: self.pending.take().unwrap_or_default(),
        });
    }
}

/// The vision formats write a thought before the action: the
/// AndroidWorld default of 256 tokens cuts long thoughts off before their
/// call, so these formats default to this many.
pub(crate) const VISION_MAX_TOKENS: u32 = 512;

#[cfg(test)]
mod format_tests;
