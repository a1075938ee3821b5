//! Apps as data (`fixtures/sim/apps/<app>.toml`): an app's package and
//! activity, its screens, the widgets they hold and what each widget does,
//! over the phone's records. Definitions are validated once at first use;
//! an error names the file, the screen and the widget. `sim::engine` runs
//! the actions, `sim::layout::app` draws the screens.
//!
//! Texts are templates: `{column}` reads the screen's (or the row's)
//! record, `{column:format}` formats it (see [`FORMATS`] and the app's
//! `[maps]`), `{a|b}` takes the first non-empty, `{@field}` is a text field
//! on the screen, `{now}` the phone's time in ms. Literal text goes through
//! the variant's renames before the values are filled in.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use crate::records::{Filter, Table};

/// Formats a template may apply: `{dtstart:time}`.
pub(crate) const FORMATS: &[&str] = &[
    "time",
    "date",
    "day",
    "size",
    "basename",
    "dir",
    "contact",
    "contact_name",
    "first",
    "rest",
    "initial",
    "short_date",
    "stamp",
];

/// One app definition that is wrong; `at` names the file, screen and widget.
#[derive(Debug, thiserror::Error)]
pub enum AppDefError {
    #[error("{file}: {source}")]
    Toml {
        file: String,
        #[source]
        source: toml::de::Error,
    },
    #[error("{at}: {problem}")]
    Invalid { at: String, problem: String },
}

/// An app the simulator runs from its definition.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppDef {
    /// The file's stem (`contacts`); filled in when loaded.
    #[serde(skip)]
    pub name: String,
    pub label: String,
    pub package: String,
    /// The activity `dumpsys window` names while the app is in front.
    pub activity: String,
    /// The screen a launch opens.
    pub root: String,
    /// Value → label tables for `{column:map}` (`"*"` matches any value,
    /// `{}` in it is the value).
    #[serde(default)]
    pub maps: BTreeMap<String, BTreeMap<String, String>>,
    pub screen: Vec<ScreenDef>,
}

#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScreenDef {
    pub id: String,
    /// The toolbar title (a template over the screen's record).
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub title_id: Option<String>,
    /// A "Navigate up" button at the toolbar's start.
    #[serde(default)]
    pub up: bool,
    /// Actions run when the screen is opened (marking a thread read).
    #[serde(default)]
    pub on_open: Vec<Action>,
    #[serde(default)]
    pub widgets: Vec<WidgetDef>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WidgetKind {
    /// A line of text (with an optional secondary line); skipped when empty.
    Text,
    /// A text field (`EditText`); `{@id}` reads it.
    Field,
    /// A row of buttons (`items`), each with a label, content-desc and action.
    Buttons,
    /// A full-width button.
    Button,
    /// The floating action button.
    Fab,
    /// The toolbar's "More options" overflow button; `items` are its menu.
    Menu,
    /// Tabs (`items`, each `on_tap = { tab = "screen" }`).
    Tabs,
    /// Rows bound to a record table.
    List,
    /// Tappable rows, one per item (a drawer's roots).
    Links,
    /// A dial pad writing into `field`.
    Keypad,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dock {
    /// In the screen's column, top to bottom.
    #[default]
    Flow,
    /// Docked above the navigation bar (tabs, a compose bar).
    Bottom,
    /// In the toolbar, at its end (action icons, the overflow menu).
    Toolbar,
}

#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WidgetDef {
    pub kind: WidgetKind,
    /// Resource id: `name` becomes `<package>:id/name`; one with `:` is kept.
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub secondary: Option<String>,
    #[serde(default)]
    pub secondary_id: Option<String>,
    #[serde(default)]
    pub desc: Option<String>,
    /// A field's hint (what an empty field shows, and its dump text).
    #[serde(default)]
    pub hint: Option<String>,
    /// A field's starting text (a template: an edit form prefills from it).
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub autofocus: bool,
    /// A field that takes only phone-number characters (digits, `+*#`).
    #[serde(default)]
    pub dial: bool,
    #[serde(default)]
    pub dock: Dock,
    #[serde(default)]
    pub on_tap: Option<Action>,
    /// What Enter does while this field has focus.
    #[serde(default)]
    pub on_enter: Option<Action>,
    /// A button at a field's end (a send button).
    #[serde(default)]
    pub button: Option<ItemDef>,
    #[serde(default)]
    pub items: Vec<ItemDef>,
    /// The field a keypad types into.
    #[serde(default)]
    pub field: Option<String>,
    // Lists.
    #[serde(default)]
    pub table: Option<Table>,
    /// Which records (values are templates over the screen's record).
    #[serde(default, rename = "where")]
    pub filter: Option<Filter>,
    /// Column → the text its value must start with (a template).
    #[serde(default)]
    pub prefix: BTreeMap<String, String>,
    /// Only records whose column is at or after today's midnight.
    #[serde(default)]
    pub since_today: Option<String>,
    #[serde(default)]
    pub sort: Vec<SortKey>,
    /// One row per value of this column (the first after sorting).
    #[serde(default)]
    pub distinct: Option<String>,
    /// Name → the records of a distinct row's group to count (`{name}` in its templates).
    #[serde(default)]
    pub count: BTreeMap<String, Filter>,
    /// The field whose text filters the rows (case-folded substring, or digits).
    #[serde(default)]
    pub search: Option<String>,
    #[serde(default)]
    pub search_columns: Vec<String>,
    /// With `search`: no rows until something is typed (suggestions).
    #[serde(default)]
    pub only_searched: bool,
    /// Section header templates, first non-empty wins; a header shows where it changes.
    #[serde(default)]
    pub section: Vec<String>,
    #[serde(default)]
    pub row: Option<RowDef>,
    /// What an empty list shows.
    #[serde(default)]
    pub empty: Option<String>,
}

/// How a list row looks and what it does; templates read the row's record.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RowDef {
    pub text: String,
    #[serde(default)]
    pub text_id: Option<String>,
    #[serde(default)]
    pub secondary: Option<String>,
    #[serde(default)]
    pub secondary_id: Option<String>,
    #[serde(default)]
    pub desc: Option<String>,
    #[serde(default)]
    pub id: Option<String>,
    /// A round avatar with the text's first letter.
    #[serde(default)]
    pub icon: bool,
    /// Sent messages sit at the end, received at the start (`column=value` marks sent).
    #[serde(default)]
    pub bubble_end_when: Option<String>,
    #[serde(default)]
    pub on_tap: Option<Action>,
    /// A button at the row's end (call back).
    #[serde(default)]
    pub button: Option<ItemDef>,
    /// A per-row "More options" menu, also opened by a long press.
    #[serde(default)]
    pub menu: Vec<ItemDef>,
}

/// A menu item, tab, button or link: its label and what it does.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemDef {
    #[serde(default)]
    pub label: String,
    #[serde(default)]
    pub desc: Option<String>,
    #[serde(default)]
    pub id: Option<String>,
    pub on_tap: Action,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SortKey {
    pub column: String,
    #[serde(default)]
    pub desc: bool,
    /// Compare as numbers (dates, ids), else case-folded text.
    #[serde(default)]
    pub numeric: bool,
}

/// What a tap does. Actions act on their target: the tapped row's record,
/// else the screen's.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Push a screen about the target record (`"messages:thread"` opens another app's).
    Open(String),
    /// Push a screen with parameters (templates), and no record.
    Go(Go),
    /// Replace the current screen by a sibling tab.
    Tab(String),
    Back(bool),
    /// Insert the fields into the table, or with a record update its changed columns.
    Save(Write),
    /// Always insert (a sent message, a call).
    Insert(Write),
    /// Flip a 0/1 column of the target record.
    Toggle(String),
    /// Delete the target record; `back = true` leaves the screen too.
    Delete(Delete),
    /// Update every record a filter picks.
    UpdateAll(UpdateAll),
    /// Ask first; `then` runs on OK.
    Confirm(Box<Confirm>),
    /// A dialog with one text field, prefilled from a column; OK writes it back.
    Prompt(Prompt),
    /// A dialog listing options; the one tapped is written to a column.
    Choose(Choose),
    Nothing(bool),
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Go {
    pub screen: String,
    #[serde(default)]
    pub with: BTreeMap<String, String>,
    /// Replace the current screen instead of pushing.
    #[serde(default)]
    pub replace: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Write {
    pub table: Table,
    /// Column → template; empty values are left out (or cleared on update).
    pub fields: BTreeMap<String, String>,
    /// Fields that must be non-empty, else the tap does nothing.
    #[serde(default)]
    pub requires: Vec<String>,
    /// Fields emptied afterwards.
    #[serde(default)]
    pub clear: Vec<String>,
    /// The screen to show a new record on (replacing this one). Without it
    /// `save` goes back and `insert` stays; an update always goes back.
    #[serde(default)]
    pub then: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Delete {
    #[serde(default)]
    pub back: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpdateAll {
    pub table: Table,
    #[serde(rename = "where")]
    pub filter: Filter,
    pub column: String,
    pub value: String,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Confirm {
    pub title: String,
    #[serde(default)]
    pub message: Option<String>,
    pub ok: String,
    pub then: Action,
}

/// Which part of a path column a dialog edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// The last path segment (a file's name).
    Basename,
    /// Everything before it (the folder).
    Dir,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prompt {
    pub title: String,
    pub column: String,
    #[serde(default)]
    pub part: Option<Part>,
    #[serde(default = "ok")]
    pub ok: String,
    /// The field's resource id.
    #[serde(default)]
    pub id: Option<String>,
}

fn ok() -> String {
    "OK".into()
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Choose {
    pub title: String,
    pub column: String,
    #[serde(default)]
    pub part: Option<Part>,
    pub options: Vec<String>,
}

/// The bundled definitions, one per file.
const BUNDLED: &[(&str, &str)] = &[
    (
        "contacts",
        include_str!("../../../../fixtures/sim/apps/contacts.toml"),
    ),
    (
        "phone",
        include_str!("../../../../fixtures/sim/apps/phone.toml"),
    ),
    (
        "messages",
        include_str!("../../../../fixtures/sim/apps/messages.toml"),
    ),
    (
        "calendar",
        include_str!("../../../../fixtures/sim/apps/calendar.toml"),
    ),
    (
        "files",
        include_str!("../../../../fixtures/sim/apps/files.toml"),
    ),
    (
        "notes",
        include_str!("../../../../fixtures/sim/apps/notes.toml"),
    ),
    (
        "tasks",
        include_str!("../../../../fixtures/sim/apps/tasks.toml"),
    ),
    (
        "expense",
        include_str!("../../../../fixtures/sim/apps/expense.toml"),
    ),
    (
        "gallery",
        include_str!("../../../../fixtures/sim/apps/gallery.toml"),
    ),
    (
        "recorder",
        include_str!("../../../../fixtures/sim/apps/recorder.toml"),
    ),
    (
        "simple_calendar",
        include_str!("../../../../fixtures/sim/apps/simple_calendar.toml"),
    ),
];

/// Every bundled app, validated (a broken fixture fails this module's test).
pub fn apps() -> &'static [AppDef] {
    static APPS: OnceLock<Vec<AppDef>> = OnceLock::new();
    APPS.get_or_init(|| {
        BUNDLED
            .iter()
            .map(|(name, text)| match AppDef::parse(name, text) {
                Ok(app) => app,
                Err(e) => panic!("{e}"),
            })
            .collect()
    })
}

/// The bundled app with this package, if any.
pub(crate) fn app_for_package(package: &str) -> Option<&'static AppDef> {
    apps().iter().find(|a| a.package == package)
}

/// The bundled app with this name (`contacts`), if any.
pub(crate) fn app_named(name: &str) -> Option<&'static AppDef> {
    apps().iter().find(|a| a.name == name)
}

impl AppDef {
    /// Parse and validate `fixtures/sim/apps/<name>.toml`.
    pub fn parse(name: &str, text: &str) -> Result<AppDef, AppDefError> {
        let file = format!("fixtures/sim/apps/{name}.toml");
        let mut app: AppDef = toml::from_str(text).map_err(|source| AppDefError::Toml {
            file: file.clone(),
            source,
        })?;
        app.name = name.to_string();
        app.validate(&file)?;
        Ok(app)
    }

    pub fn screen(&self, id: &str) -> Option<&ScreenDef> {
        self.screen.iter().find(|s| s.id == id)
    }

    /// A resource id as the dump shows it.
    pub fn resource_id(&self, id: &str) -> String {
        if id.contains(':') {
            id.to_string()
        } else {
            format!("{}:id/{id}", self.package)
        }
    }

    fn validate(&self, file: &str) -> Result<(), AppDefError> {
        let wrong = |at: String, problem: String| AppDefError::Invalid {
            at: format!("{file}: {at}"),
            problem,
        };
        if self.screen(&self.root).is_none() {
            return Err(wrong(
                "root".into(),
                format!("{:?} names no screen", self.root),
            ));
        }
        for screen in &self.screen {
            let at_screen = format!("screen {:?}", screen.id);
            let fields: Vec<&str> = screen
                .widgets
                .iter()
                .filter(|w| w.kind == WidgetKind::Field)
                .filter_map(|w| w.id.as_deref())
                .collect();
            for action in &screen.on_open {
                self.check_action(action, &fields)
                    .map_err(|p| wrong(format!("{at_screen} on_open"), p))?;
            }
            for (i, w) in screen.widgets.iter().enumerate() {
                let name = w.id.as_deref().or(w.text.as_deref()).unwrap_or("");
                let at = format!("{at_screen} widget {i} ({:?} {name:?})", w.kind);
                self.check_widget(w, &fields).map_err(|p| wrong(at, p))?;
            }
        }
        Ok(())
    }

    fn check_widget(&self, w: &WidgetDef, fields: &[&str]) -> Result<(), String> {
        let need = |what: &str, ok: bool| {
            if ok {
                Ok(())
            } else {
                Err(format!("a {:?} widget needs {what}", w.kind))
            }
        };
        match w.kind {
            WidgetKind::Field => need("an id", w.id.is_some())?,
            WidgetKind::List => {
                need("a table", w.table.is_some())?;
                need("a row", w.row.is_some())?;
            }
            WidgetKind::Keypad => {
                let field = w.field.as_deref().unwrap_or("");
                if !fields.contains(&field) {
                    return Err(format!("field = {field:?} names no field on this screen"));
                }
            }
            WidgetKind::Tabs | WidgetKind::Menu | WidgetKind::Links | WidgetKind::Buttons => {
                need("items", !w.items.is_empty())?
            }
            _ => {}
        }
        if let Some(search) = &w.search {
            if !fields.contains(&search.as_str()) {
                return Err(format!("search = {search:?} names no field on this screen"));
            }
        }
        if let (Some(table), Some(filter)) = (w.table, &w.filter) {
            check_filter(table, filter)?;
        }
        if let Some(table) = w.table {
            for column in w
                .sort
                .iter()
                .map(|s| &s.column)
                .chain(&w.search_columns)
                .chain(w.distinct.iter())
                .chain(w.prefix.keys())
                .chain(w.since_today.iter())
            {
                if !table.columns().contains(&column.as_str()) {
                    return Err(format!("{table} has no column {column:?}"));
                }
            }
        }
        let templates = [&w.text, &w.secondary, &w.desc, &w.value]
            .into_iter()
            .flatten()
            .chain(&w.section);
        for t in templates {
            self.check_template(t, fields)?;
        }
        if let Some(row) = &w.row {
            for t in [&row.secondary, &row.desc].into_iter().flatten() {
                self.check_template(t, fields)?;
            }
            self.check_template(&row.text, fields)?;
            let actions = row
                .on_tap
                .iter()
                .chain(row.button.iter().map(|b| &b.on_tap));
            for a in actions.chain(row.menu.iter().map(|i| &i.on_tap)) {
                self.check_action(a, fields)?;
            }
        }
        let actions = w
            .on_tap
            .iter()
            .chain(w.on_enter.iter())
            .chain(w.button.iter().map(|b| &b.on_tap))
            .chain(w.items.iter().map(|i| &i.on_tap));
        for a in actions {
            self.check_action(a, fields)?;
        }
        Ok(())
    }

    fn check_action(&self, action: &Action, fields: &[&str]) -> Result<(), String> {
        let screen = |id: &str| -> Result<(), String> {
            let found = match id.split_once(':') {
                Some((app, s)) => BUNDLED.iter().any(|(n, _)| *n == app) && !s.is_empty(),
                None => self.screen(id).is_some(),
            };
            if found {
                Ok(())
            } else {
                Err(format!("{id:?} names no screen"))
            }
        };
        match action {
            Action::Open(id) | Action::Tab(id) => screen(id),
            Action::Go(go) => {
                screen(&go.screen)?;
                go.with
                    .values()
                    .try_for_each(|t| self.check_template(t, fields))
            }
            Action::Save(w) | Action::Insert(w) => {
                for (column, t) in &w.fields {
                    if !w.table.columns().contains(&column.as_str()) || column == "_id" {
                        return Err(format!("{} has no column {column:?}", w.table));
                    }
                    self.check_template(t, fields)?;
                }
                for f in w.requires.iter().chain(&w.clear) {
                    if !fields.contains(&f.as_str()) {
                        return Err(format!("{f:?} names no field on this screen"));
                    }
                }
                w.then.as_deref().map_or(Ok(()), screen)
            }
            Action::UpdateAll(u) => check_filter(u.table, &u.filter),
            Action::Confirm(c) => self.check_action(&c.then, fields),
            Action::Choose(c) if c.options.is_empty() => Err("choose needs options".into()),
            _ => Ok(()),
        }
    }

    fn check_template(&self, template: &str, fields: &[&str]) -> Result<(), String> {
        for hole in holes(template) {
            let (names, format) = match hole.split_once(':') {
                Some((n, f)) => (n, Some(f)),
                None => (hole, None),
            };
            for name in names.split('|') {
                if let Some(field) = name.strip_prefix('@') {
                    if !fields.contains(&field) {
                        return Err(format!(
                            "template {template:?}: {{@{field}}} names no field on this screen"
                        ));
                    }
                }
            }
            if let Some(f) = format {
                if !FORMATS.contains(&f) && !self.maps.contains_key(f) {
                    return Err(format!(
                        "template {template:?}: {f:?} is neither a format ({}) nor a [maps] table",
                        FORMATS.join(", ")
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Every column a filter names is one of the table's (its values are
/// templates, so they are checked when filled in).
fn check_filter(table: Table, filter: &Filter) -> Result<(), String> {
    match filter
        .0
        .keys()
        .find(|c| !table.columns().contains(&c.as_str()))
    {
        Some(column) => Err(format!("where.{column}: {table} has no such column")),
        None => Ok(()),
    }
}

/// The `{…}` holes of a template, without braces.
pub(crate) fn holes(template: &str) -> impl Iterator<Item = &str> {
    template
        .split('{')
        .skip(1)
        .filter_map(|part| part.split_once('}').map(|(hole, _)| hole))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_app_is_valid() {
        let names: Vec<&str> = apps().iter().map(|a| a.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "contacts",
                "phone",
                "messages",
                "calendar",
                "files",
                "notes",
                "tasks",
                "expense",
                "gallery",
                "recorder",
                "simple_calendar"
            ]
        );
    }

    #[test]
    fn an_error_names_the_file_the_screen_and_the_widget() {
        let text = r#"
label = "X"
package = "com.example.x"
activity = ".Main"
root = "home"
[[screen]]
id = "home"
widgets = [
  { kind = "text", text = "Hi" },
  { kind = "button", id = "go", text = "Go", on_tap = { open = "nowhere" } },
]
"#;
        let err = AppDef::parse("x", text).unwrap_err().to_string();
        assert!(
            err.starts_with("fixtures/sim/apps/x.toml: screen \"home\" widget 1 (Button \"go\")"),
            "{err}"
        );
        assert!(err.contains("\"nowhere\" names no screen"), "{err}");
        let text = text
            .replace("open = \"nowhere\"", "back = true")
            .replace("text = \"Hi\"", "text = \"{@missing}\"");
        let err = AppDef::parse("x", &text).unwrap_err().to_string();
        assert!(
            err.contains("widget 0") && err.contains("{@missing}"),
            "{err}"
        );
        let err = AppDef::parse("y", "label = 1").unwrap_err().to_string();
        assert!(err.starts_with("fixtures/sim/apps/y.toml: "), "{err}");
    }
}
