//! Parameters drawn from a seed. A task file's `[params]` value is either
//! fixed text (`time = "07:30"`, which may name other params: `"{first}
//! {last}"`) or a draw:
//!
//! - `{ pick = "first_name" }`: one of a pool in `fixtures/sim/pools.toml`
//!   (names, companies, places, event titles, message bodies, file stems);
//!   the pools avoid every name the simulated world already holds.
//! - `{ one_of = ["a", "b"] }`: one of these.
//! - `{ int = [lo, hi] }`, optionally `pad = 2` (at most [`MAX_PAD`]): an integer, inclusive.
//! - `{ phone = true }`: a fresh fictional number, `+1 650-555-01NN`, never
//!   one of the world's.
//!
//! A param's value, once the params it names are filled in, is at most
//! [`MAX_EXPANDED_LEN`] bytes, and so is every string of the file.
//!
//! Any draw may say `distinct = ["other"]`: drawn again until it differs
//! from those params. Instance seed `s` of task `t` seeds ChaCha8 with
//! sha256(`"{t}/{s}"`), so an instance is the same on every machine and does
//! not depend on the variant: variants stay orthogonal to parameters.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sha2::{Digest, Sha256};

/// A `[params]` value as a task file writes it.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(untagged)]
pub enum ParamSpec {
    Fixed(String),
    Draw(Draw),
}

#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Draw {
    #[serde(default)]
    pub pick: Option<String>,
    #[serde(default)]
    pub one_of: Option<Vec<String>>,
    #[serde(default)]
    pub int: Option<[i64; 2]>,
    #[serde(default)]
    pub pad: Option<usize>,
    #[serde(default)]
    pub phone: bool,
    #[serde(default)]
    pub distinct: Vec<String>,
}

/// A `[params]` entry that cannot be drawn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DrawError {
    #[error("params.{0}: give exactly one of pick, one_of, int, phone")]
    Kinds(String),
    #[error("params.{name}: no pool {pool:?} (pools: {known})")]
    Pool {
        name: String,
        pool: String,
        known: String,
    },
    #[error("params.{0}: int range low end above high end, or one_of empty")]
    Empty(String),
    #[error("params.{name}.distinct: {other:?} is not a param")]
    Distinct { name: String, other: String },
    #[error("params.{0}: cannot draw a value distinct from the others")]
    NotDistinct(String),
    #[error("params.{0}: names itself through other params")]
    Cycle(String),
    #[error("params.{name}.pad: {pad} digits is more than an int can need ({MAX_PAD})")]
    PadTooWide { name: String, pad: usize },
    #[error(
        "params.{0}: longer than {MAX_EXPANDED_LEN} bytes once the params it names are filled in"
    )]
    TooLong(String),
}

/// The longest a param's value may be once the params it names are filled
/// in, and the longest any string of a task file may grow when they are
/// (in bytes). Params that compose params grow geometrically (`a1 =
/// "{a0}{a0}"`, `a2 = "{a1}{a1}"`, …: 2^n); checked while filling in, so
/// nothing longer is ever allocated. 16 KiB is far above any goal, name or
/// message body a phone is asked to type.
pub const MAX_EXPANDED_LEN: usize = 16 * 1024;

/// `text` grew past [`MAX_EXPANDED_LEN`] while its params were filled in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooLong;

/// `text` with each `{name}` that `values` knows replaced by its value;
/// `unknown` decides what a `{name}` it does not know is (`Ok(())` leaves it
/// as written). Refused as [`TooLong`] before the result would pass
/// [`MAX_EXPANDED_LEN`] bytes.
pub(crate) fn fill<E: From<TooLong>>(
    text: &str,
    values: &BTreeMap<String, String>,
    mut unknown: impl FnMut(&str) -> Result<(), E>,
) -> Result<String, E> {
    let mut out = String::new();
    let push = |out: &mut String, piece: &str| {
        if out.len() + piece.len() > MAX_EXPANDED_LEN {
            return Err(TooLong);
        }
        out.push_str(piece);
        Ok(())
    };
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        push(&mut out, &rest[..open])?;
        let after = &rest[open + 1..];
        let name = after.find('}').map(|close| &after[..close]);
        match name.and_then(|n| values.get_key_value(n)) {
            Some((name, value)) => {
                push(&mut out, value)?;
                rest = &after[name.len() + 1..];
            }
            None => {
                if let Some(name) = name {
                    unknown(name)?;
                }
                push(&mut out, "{")?;
                rest = after;
            }
        }
    }
    push(&mut out, rest)?;
    Ok(out)
}

/// The widest `pad` an `int` draw takes: an i64 has at most 19 digits and
/// a sign. A wider one is a typo, and formatting it would panic (Rust's
/// format width stops at 65,535).
pub const MAX_PAD: usize = 20;

const POOLS_TOML: &str = include_str!("../../../fixtures/sim/pools.toml");

/// The pools, by name. A broken file fails this module's tests.
pub(crate) fn pools() -> &'static BTreeMap<String, Vec<String>> {
    static POOLS: OnceLock<BTreeMap<String, Vec<String>>> = OnceLock::new();
    POOLS.get_or_init(|| match toml::from_str(POOLS_TOML) {
        Ok(pools) => pools,
        Err(e) => panic!("fixtures/sim/pools.toml is invalid: {e}"),
    })
}

/// True when some param is drawn: the task is a template with instances.
pub(crate) fn has_draws(specs: &BTreeMap<String, ParamSpec>) -> bool {
    specs.values().any(|s| matches!(s, ParamSpec::Draw(_)))
}

/// Check every draw without drawing (names, pools, ranges).
pub fn check(specs: &BTreeMap<String, ParamSpec>) -> Result<(), DrawError> {
    for (name, spec) in specs {
        let ParamSpec::Draw(d) = spec else { continue };
        let kinds = [
            d.pick.is_some(),
            d.one_of.is_some(),
            d.int.is_some(),
            d.phone,
        ]
        .into_iter()
        .filter(|k| *k)
        .count();
        if kinds != 1 {
            return Err(DrawError::Kinds(name.clone()));
        }
        if let Some(pool) = &d.pick {
            if !pools().contains_key(pool) {
                return Err(DrawError::Pool {
                    name: name.clone(),
                    pool: pool.clone(),
                    known: pools().keys().cloned().collect::<Vec<_>>().join(", "),
                });
            }
        }
        if d.one_of.as_ref().is_some_and(Vec::is_empty) || d.int.is_some_and(|[lo, hi]| lo > hi) {
            return Err(DrawError::Empty(name.clone()));
        }
        if let Some(pad) = d.pad.filter(|pad| *pad > MAX_PAD) {
            return Err(DrawError::PadTooWide {
                name: name.clone(),
                pad,
            });
        }
        if let Some(other) = d.distinct.iter().find(|o| !specs.contains_key(*o)) {
            return Err(DrawError::Distinct {
                name: name.clone(),
                other: other.clone(),
            });
        }
    }
    Ok(())
}

/// The params of instance `seed` of `task`: every draw first, in name
/// order, the same whatever the variant; then fixed values — the file's,
/// with `overrides` (a variant's own params) over them, replacing a draw of
/// the same name — with other params substituted. So a variant that sets
/// `start` changes every fixed param built from `{start}`, and never the
/// other draws.
pub fn draw(
    task: &str,
    seed: u64,
    specs: &BTreeMap<String, ParamSpec>,
    overrides: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>, DrawError> {
    check(specs)?;
    let digest = Sha256::digest(format!("{task}/{seed}").as_bytes());
    let mut rng = ChaCha8Rng::from_seed(digest.into());
    let mut out = BTreeMap::new();
    // `distinct` binds both ways: a draw differs from every param it names
    // and every param that names it, whichever is drawn first.
    let apart = |name: &str, other: &str| {
        let names = |a: &str, b: &str| match specs.get(a) {
            Some(ParamSpec::Draw(d)) => d.distinct.iter().any(|o| o == b),
            _ => false,
        };
        names(name, other) || names(other, name)
    };
    for (name, spec) in specs {
        let ParamSpec::Draw(d) = spec else { continue };
        let mut value = None;
        for _ in 0..64 {
            let v = one(d, &mut rng);
            let clashes = out
                .iter()
                .any(|(o, x): (&String, &String)| x == &v && apart(name, o));
            if !clashes {
                value = Some(v);
                break;
            }
        }
        out.insert(
            name.clone(),
            value.ok_or_else(|| DrawError::NotDistinct(name.clone()))?,
        );
    }
    // Fixed values may name params (drawn or fixed): substitute until none
    // is left; a cycle never settles.
    let mut fixed: BTreeMap<String, String> = specs
        .iter()
        .filter_map(|(n, s)| match s {
            ParamSpec::Fixed(v) => Some((n.clone(), v.clone())),
            ParamSpec::Draw(_) => None,
        })
        .collect();
    for (name, value) in overrides {
        out.remove(name);
        fixed.insert(name.clone(), value.clone());
    }
    let names: Vec<String> = specs.keys().chain(overrides.keys()).cloned().collect();
    let names_a_param = |value: &str| names.iter().any(|k| value.contains(&format!("{{{k}}}")));
    // A drawn option may itself name params (`one_of = ["{last}s", …]`):
    // it is filled in like a fixed value.
    let composed: Vec<String> = out
        .iter()
        .filter(|(_, v)| names_a_param(v))
        .map(|(k, _)| k.clone())
        .collect();
    for name in composed {
        if let Some(v) = out.remove(&name) {
            fixed.insert(name, v);
        }
    }
    for _ in 0..=names.len() {
        let mut settled = true;
        for (name, value) in fixed.iter_mut() {
            let next = fill(value, &out, |_| Ok(()))
                .map_err(|TooLong| DrawError::TooLong(name.clone()))?;
            if next != *value {
                *value = next;
                settled = false;
            }
            if !names_a_param(value) {
                out.insert(name.clone(), value.clone());
            }
        }
        if settled && fixed.keys().all(|n| out.contains_key(n)) {
            // A draw's option, or a fixed value naming no param, was never
            // filled in: its length is checked here.
            if let Some((name, _)) = out.iter().find(|(_, v)| v.len() > MAX_EXPANDED_LEN) {
                return Err(DrawError::TooLong(name.clone()));
            }
            return Ok(out);
        }
    }
    let stuck = fixed
        .keys()
        .find(|n| !out.contains_key(*n))
        .cloned()
        .unwrap_or_default();
    Err(DrawError::Cycle(stuck))
}

fn below(rng: &mut ChaCha8Rng, n: u64) -> u64 {
    // n is small (pool sizes, ranges): modulo bias is below 2^-50.
    rng.next_u64() % n.max(1)
}

fn one(d: &Draw, rng: &mut ChaCha8Rng) -> String {
    if let Some(pool) = &d.pick {
        let items = &pools()[pool];
        return items[below(rng, items.len() as u64) as usize].clone();
    }
    if let Some(items) = &d.one_of {
        return items[below(rng, items.len() as u64) as usize].clone();
    }
    if let Some([lo, hi]) = d.int {
        // In i128: `hi - lo + 1` overflows an i64 for a range wider than
        // half of it, and the whole range is 2^64 values, one more than a u64.
        let span = i128::from(hi) - i128::from(lo) + 1;
        let offset = match u64::try_from(span) {
            Ok(span) => below(rng, span),
            Err(_) => rng.next_u64(),
        };
        let n = (i128::from(lo) + i128::from(offset)) as i64;
        return match d.pad {
            Some(width) => format!("{n:0width$}"),
            None => n.to_string(),
        };
    }
    // 0110–0198: the world's numbers are 0101–0108 and 0199.
    let n = 110 + below(rng, 89);
    let area = ["650", "415", "408"][below(rng, 3) as usize];
    format!("+1 {area}-555-0{n}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use droidscore_phone::records::Table;

    fn none() -> BTreeMap<String, String> {
        BTreeMap::new()
    }

    fn specs(text: &str) -> BTreeMap<String, ParamSpec> {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn a_pad_wider_than_an_int_is_refused_at_load_not_a_panic_at_draw() {
        let s = specs(r#"n = { int = [1, 9], pad = 100000000000 }"#);
        assert_eq!(
            check(&s),
            Err(DrawError::PadTooWide {
                name: "n".into(),
                pad: 100_000_000_000
            })
        );
        let widest = specs(&format!("n = {{ int = [-1, -1], pad = {MAX_PAD} }}"));
        check(&widest).unwrap();
        assert_eq!(draw("t", 0, &widest, &none()).unwrap()["n"].len(), MAX_PAD);
    }

    /// A composed param is bounded while it is filled in: at the bound it
    /// loads, one byte past it is refused naming the param.
    #[test]
    fn a_composed_param_is_bounded_at_max_expanded_len() {
        let half = "x".repeat(MAX_EXPANDED_LEN / 2);
        let at = specs(&format!("a0 = \"{half}\"\na1 = \"{{a0}}{{a0}}\""));
        assert_eq!(
            draw("t", 0, &at, &none()).unwrap()["a1"].len(),
            MAX_EXPANDED_LEN
        );
        let past = specs(&format!("a0 = \"{half}\"\na1 = \"{{a0}}y{{a0}}\""));
        assert_eq!(
            draw("t", 0, &past, &none()),
            Err(DrawError::TooLong("a1".into()))
        );
        // A value naming no param, and a drawn option, are bounded too.
        let long = "x".repeat(MAX_EXPANDED_LEN + 1);
        let fixed = specs(&format!("a = \"{long}\""));
        assert_eq!(
            draw("t", 0, &fixed, &none()),
            Err(DrawError::TooLong("a".into()))
        );
        let drawn = specs(&format!("a = {{ one_of = [\"{long}\"] }}"));
        assert_eq!(
            draw("t", 0, &drawn, &none()),
            Err(DrawError::TooLong("a".into()))
        );
    }

    /// Issue 30 item 8: `a1 = "{a0}"` x16 up to `a8` (16^8 copies) made
    /// loading allocate 20 GB; it is refused at the first param past the bound.
    #[test]
    fn params_composing_params_16_times_over_are_refused_not_expanded() {
        let mut text = "a0 = \"xxxxxxxxxxxxxxxx\"\n".to_string();
        for i in 1..=8 {
            text += &format!("a{i} = \"{}\"\n", format!("{{a{}}}", i - 1).repeat(16));
        }
        let started = std::time::Instant::now();
        assert_eq!(
            draw("t", 0, &specs(&text), &none()),
            Err(DrawError::TooLong("a3".into()))
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    /// Found by the fuzzer: `int = [lo, hi]` over more than half the i64
    /// range panicked on `hi - lo + 1` (overflow) in a debug build and drew
    /// from a wrapped range in a release one.
    #[test]
    fn an_int_draw_over_the_whole_i64_range_stays_in_range() {
        for (lo, hi) in [
            (i64::MIN, i64::MAX),
            (-575_211_477_093_861_104, 8_648_160_559_760_914_703),
            (i64::MAX, i64::MAX),
            (i64::MIN, i64::MIN),
        ] {
            let s = specs(&format!("n = {{ int = [{lo}, {hi}] }}"));
            for seed in 0..50 {
                let n: i64 = draw("t", seed, &s, &none()).unwrap()["n"].parse().unwrap();
                assert!((lo..=hi).contains(&n), "{n} not in [{lo}, {hi}]");
            }
        }
    }

    #[test]
    fn the_same_seed_draws_the_same_values_and_others_differ() {
        let s = specs(
            r#"first = { pick = "first_name" }
               last = { pick = "last_name" }
               name = "{first} {last}"
               hour = { int = [6, 11], pad = 2 }
               number = { phone = true }
               goal = "Call {name} at {hour}:00""#,
        );
        let a = draw("t", 3, &s, &none()).unwrap();
        assert_eq!(a, draw("t", 3, &s, &none()).unwrap());
        assert_eq!(a["name"], format!("{} {}", a["first"], a["last"]));
        assert_eq!(a["goal"], format!("Call {} at {}:00", a["name"], a["hour"]));
        assert_eq!(a["hour"].len(), 2);
        let distinct: std::collections::BTreeSet<String> = (0..8)
            .map(|seed| draw("t", seed, &s, &none()).unwrap()["name"].clone())
            .collect();
        assert!(distinct.len() >= 5, "{distinct:?}");
        assert_ne!(
            draw("u", 3, &s, &none()).unwrap(),
            a,
            "the task id is in the seed"
        );
    }

    #[test]
    fn distinct_draws_differ_and_errors_name_the_param() {
        // `b` is drawn after `a` and names it; `c` is drawn after `b` and
        // `b` names it: both directions hold.
        let s = specs(
            r#"a = { one_of = ["x", "y"] }
               b = { one_of = ["x", "y"], distinct = ["a", "c"] }
               c = { one_of = ["x", "y"] }"#,
        );
        for seed in 0..20 {
            let v = draw("t", seed, &s, &none()).unwrap();
            assert_ne!(v["a"], v["b"]);
            assert_ne!(v["b"], v["c"]);
        }
        let bad = specs(r#"a = { pick = "nope" }"#);
        assert!(draw("t", 0, &bad, &none())
            .unwrap_err()
            .to_string()
            .starts_with("params.a: no pool"));
        let cycle = specs(
            r#"a = "{b}"
                             b = "{a}""#,
        );
        assert!(matches!(
            draw("t", 0, &cycle, &none()),
            Err(DrawError::Cycle(_))
        ));
    }

    /// A variant's fixed params reach the fixed params built from them,
    /// and leave every other draw as it was.
    #[test]
    fn a_variants_override_flows_into_composed_params_only() {
        let s = specs(
            r#"start = "10:00"
               body = "See you at {start}, {who}"
               who = { pick = "first_name" }
               other = { pick = "last_name" }"#,
        );
        let base = draw("t", 1, &s, &none()).unwrap();
        let over = BTreeMap::from([("start".to_string(), "15:30".to_string())]);
        let v = draw("t", 1, &s, &over).unwrap();
        assert_eq!(v["body"], format!("See you at 15:30, {}", base["who"]));
        assert_eq!((&v["who"], &v["other"]), (&base["who"], &base["other"]));
    }

    #[test]
    fn a_drawn_option_naming_params_is_filled_in() {
        let s = specs(
            r#"last = { pick = "last_name" }
               typo = { one_of = ["{last}s", "{last}n"] }"#,
        );
        let v = draw("t", 2, &s, &none()).unwrap();
        assert!(
            v["typo"].starts_with(&v["last"]) && !v["typo"].contains('{'),
            "{v:?}"
        );
    }

    /// Drawn values are typed by reference solutions and agents: `input
    /// text` on a phone without ADBKeyBoard types ASCII only (the adb run of
    /// the suite found "Café Lumen").
    #[test]
    fn every_pool_item_is_ascii() {
        for (pool, items) in pools() {
            for item in items {
                assert!(item.is_ascii(), "{pool} {item:?}");
            }
        }
    }

    /// A drawn name must never be one the world already holds, or a task's
    /// target could be a world contact and a do-nothing agent pass.
    #[test]
    fn the_pools_avoid_the_worlds_names_and_numbers() {
        let world = droidscore_phone::apps::PhoneSetup::default()
            .records()
            .unwrap();
        let names: Vec<String> = world
            .rows(Table::Contacts)
            .iter()
            .map(|r| r.text("display_name"))
            .collect();
        for pool in ["first_name", "last_name"] {
            for item in &pools()[pool] {
                assert!(
                    !names
                        .iter()
                        .any(|n| n.split_whitespace().any(|w| w == item)),
                    "{pool} {item:?} is in the world"
                );
            }
        }
        for seed in 0..200 {
            let number = one(
                &Draw {
                    pick: None,
                    one_of: None,
                    int: None,
                    pad: None,
                    phone: true,
                    distinct: vec![],
                },
                &mut ChaCha8Rng::seed_from_u64(seed),
            );
            assert!(world
                .rows(Table::Contacts)
                .iter()
                .all(|r| !droidscore_phone::records::same_number(&r.text("number"), &number)));
        }
    }
}
