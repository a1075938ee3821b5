//! AgentCPM-GUI's format (OpenBMB/AgentCPM-GUI at acbaf50: `README.md`,
//! `eval/run_predict_minicpm.py`, `eval/utils/schema/schema.json`,
//! `eval/utils/evaluator.py`).
//!
//! Prompt: a system prompt in Chinese, as the model was trained with, in the
//! authors' four sections (role, task, rules, the answer's JSON schema; the
//! sentences are ours), with `thought` required, and a user turn
//! `<Question>{goal}</Question>` then the screenshot. The authors' scripts
//! send one screen and no history, and so do we: the model decides from the
//! current screen alone. (They also shrink the screenshot to 1120 pixels on
//! its long side first; the coordinates are relative, so we send it as taken.)
//!
//! Answer: one compact JSON object, keys `thought`, `POINT` (`[x, y]` on a
//! 0..1000 grid), `to` (`up`/`down`/`left`/`right`, the way the finger
//! moves, or a point), `duration` (ms, default 200), `PRESS`
//! (`HOME`/`BACK`/`ENTER`), `TYPE` and `STATUS`. Read as the authors'
//! evaluator reads it: a stopping `STATUS` ends the episode (`finish` and
//! `satisfied` as done, `impossible`, `interrupt` and `need_feedback` as
//! infeasible); else `TYPE` types; `POINT` with `to` swipes, with a
//! `duration` over 200 long-presses, alone taps; `PRESS` presses the key; a
//! lone `duration` waits. Any other key is an error, as the schema allows
//! none.

use serde_json::{json, Map, Value};

use super::common::{
    key, shown, snippet, swipe, towards, type_text, FormatError, Geometry, Parsed, Space,
};
use super::Turn;
use crate::agent::prompt::data_url;
use crate::agent::Decision;
use crate::phone::{DeviceAction, Key};

pub const SPACE: Space = Space::Relative(1000);

/// The schema the system prompt shows (`thought` required), compact.
fn schema() -> Value {
    let point = json!({"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 1000}, "minItems": 2, "maxItems": 2});
    json!({
        "type": "object",
        "description": "执行操作并决定当前任务状态",
        "additionalProperties": false,
        "required": ["thought"],
        "properties": {
            "thought": {"type": "string", "description": "推理过程"},
            "POINT": {"$ref": "#/$defs/Location", "description": "点击屏幕上的指定位置"},
            "to": {"description": "移动，组合手势参数", "oneOf": [
                {"enum": ["up", "down", "left", "right"], "description": "从当前点（POINT）出发，执行滑动手势操作，方向包括向上、向下、向左、向右"},
                {"$ref": "#/$defs/Location", "description": "移动到某个位置"}
            ]},
            "duration": {"type": "integer", "description": "动作执行的时间或等待时间，毫秒", "minimum": 0, "default": 200},
            "PRESS": {"type": "string", "description": "触发特殊按键，HOME为回到主页按钮，BACK为返回按钮，ENTER为回车按钮", "enum": ["HOME", "BACK", "ENTER"]},
            "TYPE": {"type": "string", "description": "输入文本"},
            "STATUS": {"type": "string", "description": "当前任务的状态", "enum": ["continue", "finish", "satisfied", "impossible", "interrupt", "need_feedback"], "default": "continue"}
        },
        "$defs": {"Location": point}
    })
}

pub fn system_prompt() -> String {
    format!(
        "# Role\n\
         你是一个熟练操作安卓手机触屏界面的智能体：看当前屏幕截图，按用户的任务决定下一步操作。\n\
         \n\
         # Task\n\
         根据用户的任务和当前屏幕截图，输出下一步要执行的操作。\n\
         \n\
         # Rule\n\
         - 以紧凑JSON格式输出\n\
         - 输出操作必须遵循Schema约束\n\
         \n\
         # Schema\n\
         {}",
        schema()
    )
}

/// The request's messages: the system prompt, then the goal and the current
/// screen (no history, as the authors' scripts).
pub fn messages(goal: &str, _turns: &[Turn], screenshot: &[u8]) -> Vec<Value> {
    vec![
        json!({"role": "system", "content": system_prompt()}),
        json!({"role": "user", "content": [
            {"type": "text", "text": format!("<Question>{goal}</Question>\n当前屏幕截图：")},
            {"type": "image_url", "image_url": {"url": data_url(screenshot)}},
        ]}),
    ]
}

const KEYS: &[&str] = &[
    "thought", "POINT", "to", "duration", "PRESS", "TYPE", "STATUS",
];

/// The one JSON object in the answer (code fences and text around ignored).
fn object(raw: &str) -> Result<Map<String, Value>, FormatError> {
    let (start, end) = match (raw.find('{'), raw.rfind('}')) {
        (Some(s), Some(e)) if s < e => (s, e + 1),
        _ => {
            return Err(FormatError::NoCall {
                expected: "JSON object",
            })
        }
    };
    let text = &raw[start..end];
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(FormatError::NoCall {
            expected: "JSON object",
        }),
        Err(e) => Err(FormatError::BadCall {
            snippet: snippet(text),
            error: e.to_string(),
        }),
    }
}

fn location(v: &Value, field: &'static str, g: Geometry) -> Result<(i32, i32), FormatError> {
    let wrong = || FormatError::WrongType {
        field: field.into(),
        expected: "[x, y] on the 0..1000 grid",
        got: shown(v),
    };
    match v.as_array().map(Vec::as_slice) {
        Some([x, y]) => g.to_screen(x.as_f64().ok_or_else(wrong)?, y.as_f64().ok_or_else(wrong)?),
        _ => Err(wrong()),
    }
}

fn text_key<'a>(
    map: &'a Map<String, Value>,
    field: &'static str,
) -> Result<Option<&'a str>, FormatError> {
    match map.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(v) => Err(FormatError::WrongType {
            field: field.into(),
            expected: "a string",
            got: shown(v),
        }),
    }
}

fn decide(map: &Map<String, Value>, g: Geometry) -> Result<Decision, FormatError> {
    if let Some(k) = map.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(FormatError::UnknownAction {
            got: k.clone(),
            expected: "the keys thought, POINT, to, duration, PRESS, TYPE, STATUS",
        });
    }
    let duration = match map.get("duration") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_u64().ok_or_else(|| FormatError::WrongType {
            field: "duration".into(),
            expected: "a whole number of milliseconds",
            got: shown(v),
        })?),
    };
    match text_key(map, "STATUS")? {
        None | Some("continue") => {}
        Some("finish" | "satisfied") => return Ok(Decision::Complete),
        Some(stop @ ("impossible" | "interrupt" | "need_feedback")) => {
            return Ok(Decision::Infeasible(format!(
                "the agent said STATUS {stop}"
            )))
        }
        Some(other) => {
            return Err(FormatError::BadValue {
                field: "STATUS",
                allowed: "continue, finish, satisfied, impossible, interrupt, need_feedback",
                got: other.to_owned(),
            })
        }
    }
    if let Some(text) = text_key(map, "TYPE")? {
        return Ok(type_text(text, false));
    }
    if let Some(p) = map.get("POINT") {
        let from = location(p, "POINT", g)?;
        return Ok(match (map.get("to"), duration) {
            (Some(Value::String(dir)), _) => {
                let to = towards(from, dir, g.screen).ok_or_else(|| FormatError::BadValue {
                    field: "to",
                    allowed: "up, down, left, right, or [x, y]",
                    got: dir.clone(),
                })?;
                swipe(from, to, 300)
            }
            (Some(to), _) => swipe(from, location(to, "to", g)?, 300),
            (None, Some(ms)) if ms > 200 => Decision::Act(DeviceAction::LongPress {
                x: from.0,
                y: from.1,
            }),
            (None, _) => Decision::Act(DeviceAction::Tap {
                x: from.0,
                y: from.1,
            }),
        });
    }
    if let Some(press) = text_key(map, "PRESS")? {
        return match press {
            "HOME" => Ok(key(Key::Home)),
            "BACK" => Ok(key(Key::Back)),
            "ENTER" => Ok(key(Key::Enter)),
            other => Err(FormatError::BadValue {
                field: "PRESS",
                allowed: "HOME, BACK, ENTER",
                got: other.to_owned(),
            }),
        };
    }
    if duration.is_some() || map.contains_key("STATUS") {
        return Ok(Decision::Idle);
    }
    Err(FormatError::NoCall {
        expected: "action (POINT, PRESS, TYPE, duration or STATUS)",
    })
}

/// Read an AgentCPM-GUI answer against the screen it answered.
pub fn parse(raw: &str, g: Geometry) -> Result<Parsed, FormatError> {
    let map = object(raw)?;
    let decision = decide(&map, g)?;
    Ok(Parsed::new(Value::Object(map), decision))
}
