//! The simulated phone's clock and the times a task file may give records:
//! `today 09:30`, `tomorrow 14:00`, `-2h`, `+3d 08:00`, an RFC 3339 time
//! (`2026-12-01T09:30:00Z`), a date (`2026-12-03`, its midnight) or milliseconds since the epoch. The simulator's
//! day is Monday 30 November 2026 (what its launcher shows), in UTC; its
//! time of day comes from the episode's seed, as the status-bar clock does.

use std::time::{Duration, UNIX_EPOCH};

/// 2026-11-30T00:00:00Z in milliseconds since the epoch (`date -u -d
/// 2026-11-30T00:00:00Z +%s` prints 1795996800).
pub(crate) const NOW_MS: i64 = 1_795_996_800_000;

const MINUTE: i64 = 60_000;
const HOUR: i64 = 60 * MINUTE;
const DAY: i64 = 24 * HOUR;

/// A time a task file gave that is none of the forms above.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a time: give ms since the epoch, `today 09:30`, `tomorrow 14:00`, `-2h`, `+3d 08:00`, `-45m`, a date (`2026-12-03`) or RFC 3339")]
pub struct WhenError(pub String);

/// The phone's "now", in ms since the epoch (UTC).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    pub now_ms: i64,
}

impl Default for Clock {
    /// Midday on the simulator's day.
    fn default() -> Self {
        Clock {
            now_ms: NOW_MS + 12 * HOUR,
        }
    }
}

impl Clock {
    /// The simulator's day at `minutes` past midnight.
    pub(crate) fn at_minutes(minutes: u32) -> Clock {
        Clock {
            now_ms: NOW_MS + i64::from(minutes) * MINUTE,
        }
    }

    /// Midnight (UTC) of the day `now` falls in.
    pub(crate) fn midnight(&self) -> i64 {
        self.now_ms.div_euclid(DAY) * DAY
    }

    /// A task file's time, resolved against this clock.
    pub fn resolve(&self, text: &str) -> Result<i64, WhenError> {
        parse_when(text, self)
    }
}

/// See the module docs for the forms.
pub(crate) fn parse_when(text: &str, clock: &Clock) -> Result<i64, WhenError> {
    let bad = || WhenError(text.to_string());
    let t = text.trim();
    if let Ok(ms) = t.parse::<i64>() {
        return Ok(ms);
    }
    if t == "now" {
        return Ok(clock.now_ms);
    }
    // A bare date (`2026-12-03`, as a date field takes it) is its midnight.
    let at_midnight = (t.len() == 10 && t.as_bytes()[4] == b'-' && t.as_bytes()[7] == b'-')
        .then(|| format!("{t}T00:00:00Z"));
    if let Ok(time) = humantime::parse_rfc3339(at_midnight.as_deref().unwrap_or(t)) {
        let ms = time
            .duration_since(UNIX_EPOCH)
            .map_err(|_| bad())?
            .as_millis();
        return i64::try_from(ms).map_err(|_| bad());
    }
    let (day, clock_time) = match t.split_once(' ') {
        Some((d, c)) => (d, Some(c)),
        None => (t, None),
    };
    let days = match day {
        "today" => Some(0),
        "tomorrow" => Some(1),
        "yesterday" => Some(-1),
        d if d.ends_with('d') && d.starts_with(['+', '-']) && clock_time.is_some() => {
            Some(d[..d.len() - 1].parse::<i64>().map_err(|_| bad())?)
        }
        _ => None,
    };
    if let Some(days) = days {
        let of_day = match clock_time {
            Some(c) => hh_mm(c).ok_or_else(bad)?,
            None => return Err(bad()),
        };
        return Ok(clock.midnight() + days * DAY + of_day);
    }
    // A relative offset: `-2h`, `+45m`, `-3d`, `+30s`.
    if t.starts_with(['+', '-']) && clock_time.is_none() {
        let unit = match t.chars().last() {
            Some('d') => DAY,
            Some('h') => HOUR,
            Some('m') => MINUTE,
            Some('s') => 1000,
            _ => return Err(bad()),
        };
        let n: i64 = t[..t.len() - 1].parse().map_err(|_| bad())?;
        return Ok(clock.now_ms + n * unit);
    }
    Err(bad())
}

/// `HH:MM` as ms past midnight.
fn hh_mm(text: &str) -> Option<i64> {
    let (h, m) = text.split_once(':')?;
    let (h, m): (i64, i64) = (h.parse().ok()?, m.parse().ok()?);
    ((0..24).contains(&h) && (0..60).contains(&m)).then_some(h * HOUR + m * MINUTE)
}

/// The parts of a time the apps show: (`2026-12-01`, `09:30`, weekday 0 = Monday).
pub(crate) fn civil(ms: i64) -> (String, String, u32) {
    let secs = u64::try_from(ms.div_euclid(1000)).unwrap_or(0);
    let text =
        humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_secs(secs)).to_string();
    let date = text.get(..10).unwrap_or_default().to_string();
    let time = text.get(11..16).unwrap_or_default().to_string();
    // 1970-01-01 was a Thursday (weekday 3 counting Monday as 0).
    let weekday = ((ms.div_euclid(DAY) + 3).rem_euclid(7)) as u32;
    (date, time, weekday)
}

/// `Tue, Dec 1` for a time, as the Calendar and Messages apps label days.
pub(crate) fn day_label(ms: i64) -> String {
    const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let (date, _, weekday) = civil(ms);
    let month: usize = date.get(5..7).and_then(|m| m.parse().ok()).unwrap_or(1);
    let day: u32 = date.get(8..10).and_then(|d| d.parse().ok()).unwrap_or(1);
    format!(
        "{}, {} {day}",
        DAYS[weekday as usize],
        MONTHS[(month + 11) % 12]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_simulators_day_is_monday_30_november_2026() {
        assert_eq!(civil(NOW_MS), ("2026-11-30".into(), "00:00".into(), 0));
        assert_eq!(day_label(NOW_MS + DAY), "Tue, Dec 1");
    }

    #[test]
    fn every_form_resolves_against_the_clock() {
        let clock = Clock::at_minutes(15 * 60 + 34);
        let at = |t: &str| parse_when(t, &clock).unwrap();
        assert_eq!(at("today 09:30"), NOW_MS + 9 * HOUR + 30 * MINUTE);
        assert_eq!(at("tomorrow 14:00"), NOW_MS + DAY + 14 * HOUR);
        assert_eq!(at("-2d 08:00"), NOW_MS - 2 * DAY + 8 * HOUR);
        assert_eq!(at("-2h"), clock.now_ms - 2 * HOUR);
        assert_eq!(at("+45m"), clock.now_ms + 45 * MINUTE);
        assert_eq!(
            at("2026-12-01T09:30:00Z"),
            NOW_MS + DAY + 9 * HOUR + 30 * MINUTE
        );
        assert_eq!(at("1795996800000"), NOW_MS);
        assert_eq!(at("2026-12-03"), NOW_MS + 3 * DAY, "a date is its midnight");
        for bad in [
            "someday",
            "today",
            "today 25:00",
            "+3x",
            "tomorrow 9",
            "2026-13-03",
            "2026-12-3",
        ] {
            assert!(parse_when(bad, &clock).is_err(), "{bad}");
        }
    }
}
