//! What a data-defined app's screen shows from the records: templates
//! filled from a record, a screen's fields and parameters (see
//! `crate::apps::defs` for the syntax), and the rows a list widget holds
//! (filtered, searched, sorted, one per group).

use std::collections::BTreeMap;

use super::cmd::AppScreen;
use super::state::State;
use crate::apps::defs::{AppDef, Part, WidgetDef};
use crate::apps::Variant;
use crate::records::{civil, day_label, digits, fold, Filter, Match, Record, Table};

/// What a template can read.
#[derive(Debug, Clone, Copy)]
pub struct Scope<'a> {
    pub app: &'a AppDef,
    pub state: &'a State,
    pub variant: &'a Variant,
    /// Records searched in order (a row's, then the screen's).
    pub records: [Option<&'a Record>; 2],
    pub params: &'a BTreeMap<String, String>,
    pub fields: &'a BTreeMap<String, String>,
    /// A list row's counts.
    pub extra: Option<&'a BTreeMap<String, String>>,
}

impl<'a> Scope<'a> {
    /// The scope of a screen: its record, parameters and fields.
    pub fn screen(
        app: &'a AppDef,
        state: &'a State,
        variant: &'a Variant,
        screen: &'a AppScreen,
    ) -> Scope<'a> {
        let record = screen
            .record
            .and_then(|(table, id)| state.records().get(table, id));
        Scope {
            app,
            state,
            variant,
            records: [record, None],
            params: &screen.params,
            fields: &screen.fields,
            extra: None,
        }
    }

    /// The same scope reading `row` first.
    pub fn row(self, row: &'a Record, extra: &'a BTreeMap<String, String>) -> Scope<'a> {
        Scope {
            records: [Some(row), self.records[0]],
            extra: Some(extra),
            ..self
        }
    }

    fn value(&self, name: &str) -> String {
        if let Some(field) = name.strip_prefix('@') {
            return self.fields.get(field).cloned().unwrap_or_default();
        }
        if name == "now" {
            return self.state.clock.now_ms.to_string();
        }
        if let Some(v) = self.extra.and_then(|e| e.get(name)) {
            return v.clone();
        }
        if let Some(v) = self.params.get(name) {
            return v.clone();
        }
        self.records
            .iter()
            .flatten()
            .find_map(|r| r.get(name))
            .unwrap_or_default()
    }

    /// A template filled in, as the variant renames it: the template's
    /// literal text, and the whole result (a rename applies to every text
    /// and content-desc whose whole value equals the label).
    pub fn fill(&self, template: &str) -> String {
        let filled = self.fill_template(self.variant.label(template));
        match self.variant.rename.get(&filled) {
            Some(shown) => shown.clone(),
            None => filled,
        }
    }

    fn fill_template(&self, template: &str) -> String {
        let mut out = String::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let Some(close) = rest[open..].find('}') else {
                out.push_str(&rest[open..]);
                return out;
            };
            let hole = &rest[open + 1..open + close];
            out.push_str(&self.hole(hole));
            rest = &rest[open + close + 1..];
        }
        out.push_str(rest);
        out
    }

    /// A template filled in without renames (values written to records).
    pub(crate) fn fill_raw(&self, template: &str) -> String {
        Scope {
            variant: &NO_VARIANT,
            ..*self
        }
        .fill(template)
    }

    fn hole(&self, hole: &str) -> String {
        let (names, format) = match hole.split_once(':') {
            Some((n, f)) => (n, Some(f)),
            None => (hole, None),
        };
        let value = names
            .split('|')
            .map(|n| self.value(n.trim()))
            .find(|v| !v.is_empty())
            .unwrap_or_default();
        match format {
            Some(f) => self.format(&value, f),
            None => value,
        }
    }

    fn format(&self, value: &str, format: &str) -> String {
        let ms = || value.parse::<i64>().ok();
        match format {
            "time" => ms().map(|ms| civil(ms).1).unwrap_or_default(),
            "date" => ms().map(|ms| civil(ms).0).unwrap_or_default(),
            "day" => ms().map(day_label).unwrap_or_default(),
            "short_date" => ms()
                .map(|ms| {
                    let label = day_label(ms);
                    label
                        .split_once(", ")
                        .map_or(label.clone(), |(_, d)| d.to_string())
                })
                .unwrap_or_default(),
            // A file name's moment, as camera and recorder apps name files.
            "stamp" => ms()
                .map(|ms| {
                    let (date, time, _) = civil(ms);
                    let seconds = ms.div_euclid(1000).rem_euclid(60);
                    format!(
                        "{}_{}{seconds:02}",
                        date.replace('-', ""),
                        time.replace(':', "")
                    )
                })
                .unwrap_or_default(),
            "size" => value.parse::<u64>().map(file_size).unwrap_or_default(),
            "basename" => part(value, Part::Basename).to_string(),
            "dir" => part(value, Part::Dir).to_string(),
            "contact" => contact_name(self.state, value).unwrap_or_else(|| value.to_string()),
            "contact_name" => contact_name(self.state, value).unwrap_or_default(),
            "first" => value.split_whitespace().next().unwrap_or("").to_string(),
            "rest" => value
                .trim()
                .split_once(char::is_whitespace)
                .map(|(_, r)| r.trim().to_string())
                .unwrap_or_default(),
            "initial" => value
                .chars()
                .next()
                .map(|c| c.to_uppercase().to_string())
                .unwrap_or_default(),
            map => {
                let Some(map) = self.app.maps.get(map) else {
                    return value.to_string();
                };
                match map.get(value) {
                    Some(label) => self.variant.label(label).to_string(),
                    None => map
                        .get("*")
                        .map(|l| self.variant.label(l).replace("{}", value))
                        .unwrap_or_default(),
                }
            }
        }
    }

    /// A filter whose values are templates, filled in.
    pub fn filter(&self, filter: &Filter) -> Filter {
        filter.map_values(|s| self.fill_raw(s))
    }
}

static NO_VARIANT: std::sync::LazyLock<Variant> = std::sync::LazyLock::new(Variant::default);

/// `Formatter.formatFileSize` style: `482 kB`, `2.31 MB`.
fn file_size(bytes: u64) -> String {
    let b = bytes as f64;
    if bytes < 1000 {
        format!("{bytes} B")
    } else if bytes < 1_000_000 {
        format!("{:.0} kB", b / 1e3)
    } else if bytes < 1_000_000_000 {
        format!("{:.2} MB", b / 1e6)
    } else {
        format!("{:.2} GB", b / 1e9)
    }
}

/// The part of a `/`-separated path.
pub fn part(path: &str, part: Part) -> &str {
    match (path.rsplit_once('/'), part) {
        (Some((_, name)), Part::Basename) => name,
        (Some((dir, _)), Part::Dir) => dir,
        (None, Part::Basename) => path,
        (None, Part::Dir) => "",
    }
}

/// The path with one part replaced.
pub(crate) fn with_part(path: &str, which: Part, value: &str) -> String {
    let (dir, name) = (part(path, Part::Dir), part(path, Part::Basename));
    let (dir, name) = match which {
        Part::Basename => (dir, value),
        Part::Dir => (value, name),
    };
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

/// The contact whose number is `number`, by name.
pub(crate) fn contact_name(state: &State, number: &str) -> Option<String> {
    state
        .records()
        .rows(Table::Contacts)
        .iter()
        .find(|c| {
            Match::Digits {
                digits: number.to_string(),
            }
            .holds(Some(&c.text("number")))
        })
        .map(|c| c.text("display_name"))
        .filter(|n| !n.is_empty())
}

/// One row of a list widget: its record and its group counts.
#[derive(Debug, Clone)]
pub struct ListRow<'a> {
    pub record: &'a Record,
    pub extra: BTreeMap<String, String>,
}

/// The rows a list widget shows in `scope` (the screen's).
pub(crate) fn list_rows<'a>(w: &WidgetDef, scope: &Scope<'a>) -> Vec<ListRow<'a>> {
    let Some(table) = w.table else {
        return vec![];
    };
    let records = scope.state.records();
    let filter = w.filter.as_ref().map(|f| scope.filter(f));
    let prefixes: Vec<(&String, String)> = w
        .prefix
        .iter()
        .map(|(c, t)| (c, scope.fill_raw(t)))
        .collect();
    let midnight = scope.state.clock.midnight();
    let query = w
        .search
        .as_ref()
        .map(|f| scope.fields.get(f).cloned().unwrap_or_default())
        .unwrap_or_default();
    if w.only_searched && query.trim().is_empty() {
        return vec![];
    }
    let mut rows: Vec<&Record> = records
        .rows(table)
        .iter()
        .filter(|r| filter.as_ref().is_none_or(|f| f.accepts(r)))
        .filter(|r| {
            prefixes
                .iter()
                .all(|(c, p)| r.text(c).starts_with(p.as_str()))
        })
        .filter(|r| {
            w.since_today
                .as_ref()
                .is_none_or(|c| r.text(c).parse::<i64>().is_ok_and(|ms| ms >= midnight))
        })
        .filter(|r| query.trim().is_empty() || searched(r, &w.search_columns, &query))
        .collect();
    rows.sort_by(|a, b| {
        for key in &w.sort {
            let (x, y) = (a.text(&key.column), b.text(&key.column));
            let order = if key.numeric {
                let n = |s: &str| s.parse::<i64>().unwrap_or(i64::MIN);
                n(&x).cmp(&n(&y))
            } else {
                x.to_lowercase().cmp(&y.to_lowercase())
            };
            let order = if key.desc { order.reverse() } else { order };
            if order.is_ne() {
                return order;
            }
        }
        a.id.cmp(&b.id)
    });
    let Some(distinct) = &w.distinct else {
        return rows
            .into_iter()
            .map(|record| ListRow {
                record,
                extra: BTreeMap::new(),
            })
            .collect();
    };
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for record in rows {
        let key = record.text(distinct);
        if !seen.insert(key.clone()) {
            continue;
        }
        let group: Vec<&Record> = records
            .rows(table)
            .iter()
            .filter(|r| r.text(distinct) == key)
            .collect();
        let extra = w
            .count
            .iter()
            .map(|(name, f)| {
                let n = group.iter().filter(|r| f.accepts(r)).count();
                (name.clone(), n.to_string())
            })
            .collect();
        out.push(ListRow { record, extra });
    }
    out
}

/// Whether a record matches what was typed into a search field: a
/// case-folded substring of a column, or (typing digits) of its digits.
fn searched(record: &Record, columns: &[String], query: &str) -> bool {
    let q = fold(query);
    let qd = digits(query);
    let digits_only = query
        .chars()
        .all(|c| c.is_ascii_digit() || " +-()".contains(c));
    columns.iter().any(|c| {
        let v = record.text(c);
        fold(&v).contains(&q) || (digits_only && !qd.is_empty() && digits(&v).contains(&qd))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_part_is_replaced_in_place() {
        assert_eq!(part("Download/a.pdf", Part::Basename), "a.pdf");
        assert_eq!(
            with_part("Download/a.pdf", Part::Basename, "b.pdf"),
            "Download/b.pdf"
        );
        assert_eq!(
            with_part("Download/a.pdf", Part::Dir, "Documents"),
            "Documents/a.pdf"
        );
        assert_eq!(file_size(2_310_448), "2.31 MB");
        assert_eq!(file_size(91_022), "91 kB");
    }
}
