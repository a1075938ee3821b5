//! What the data-defined apps do: opening a screen (its fields prefilled,
//! its `on_open` actions run), typing into fields, and running a tapped
//! action against the records. Every write goes through `State`'s record
//! methods, so each one is a flip. Navigation is returned as a [`Nav`] for
//! `SimPhone` to apply to its back stack.

use std::collections::BTreeMap;

use super::cmd::{AppCmd, AppDialog, AppScreen, Dialog, Target};
use super::query::{with_part, Scope};
use super::state::State;
use crate::apps::defs::{self, Action, AppDef, WidgetKind, Write};
use crate::apps::Variant;

/// What the back stack does after a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Nav {
    Stay,
    Push(AppScreen),
    Replace(AppScreen),
    Back,
}

fn app_of(screen: &AppScreen) -> &'static AppDef {
    defs::app_named(&screen.app).expect("an app screen names a bundled app")
}

/// A fresh screen `spec` (`"screen"` of `app`, or `"other_app:screen"`)
/// about `record`, with `params`: fields prefilled, `on_open` run.
pub fn enter(
    app: &str,
    spec: &str,
    record: Target,
    params: BTreeMap<String, String>,
    state: &mut State,
    variant: &Variant,
) -> AppScreen {
    let (app, id) = spec.split_once(':').unwrap_or((app, spec));
    let def = defs::app_named(app).expect("validated: the app exists");
    let mut screen = AppScreen {
        app: app.to_string(),
        screen: id.to_string(),
        record,
        params,
        ..AppScreen::default()
    };
    let Some(screen_def) = def.screen(id) else {
        return screen;
    };
    let fields: BTreeMap<String, String> = {
        let scope = Scope::screen(def, state, variant, &screen);
        screen_def
            .widgets
            .iter()
            .filter(|w| w.kind == WidgetKind::Field)
            .filter_map(|w| {
                let id = w.id.clone()?;
                let value = w.value.as_deref().map(|t| scope.fill_raw(t));
                Some((id, value.unwrap_or_default()))
            })
            .collect()
    };
    screen.fields = fields;
    screen.focus = screen_def
        .widgets
        .iter()
        .find(|w| w.kind == WidgetKind::Field && w.autofocus)
        .and_then(|w| w.id.clone());
    let mut dialog = None;
    for action in &screen_def.on_open {
        let target = screen.record;
        run_action(action, target, "", state, variant, &mut screen, &mut dialog);
    }
    screen
}

/// Text typed with the input method goes to the focused field.
pub fn type_text(screen: &mut AppScreen, text: &str) {
    let Some(focus) = screen.focus.clone() else {
        return;
    };
    let dial = app_of(screen)
        .screen(&screen.screen)
        .and_then(|s| s.widgets.iter().find(|w| w.id.as_ref() == Some(&focus)))
        .is_some_and(|w| w.dial);
    let field = screen.fields.entry(focus).or_default();
    if dial {
        field.extend(
            text.chars()
                .filter(|c| c.is_ascii_digit() || "+*#".contains(*c)),
        );
    } else {
        field.push_str(text);
    }
    screen.error = None;
}

/// Tab: focus moves to the screen's next text field, in layout order;
/// from the last one (or with none focused) it stays.
pub(crate) fn focus_next_field(screen: &mut AppScreen) {
    let Some(def) = app_of(screen).screen(&screen.screen) else {
        return;
    };
    let fields: Vec<&String> = def
        .widgets
        .iter()
        .filter(|w| w.kind == WidgetKind::Field)
        .filter_map(|w| w.id.as_ref())
        .collect();
    let next = fields
        .iter()
        .position(|id| Some(*id) == screen.focus.as_ref())
        .and_then(|i| fields.get(i + 1));
    if let Some(next) = next {
        screen.focus = Some((*next).clone());
    }
}

/// Enter with a field focused: the field's `on_enter`, if any.
pub(crate) fn enter_key(
    state: &mut State,
    variant: &Variant,
    screen: &mut AppScreen,
    dialog: &mut Option<Dialog>,
) -> Nav {
    let Some(focus) = screen.focus.clone() else {
        return Nav::Stay;
    };
    let action = app_of(screen)
        .screen(&screen.screen)
        .and_then(|s| s.widgets.iter().find(|w| w.id.as_ref() == Some(&focus)))
        .and_then(|w| w.on_enter.clone());
    match action {
        Some(action) => {
            let target = screen.record;
            run_action(&action, target, &focus, state, variant, screen, dialog)
        }
        None => Nav::Stay,
    }
}

/// Run one command of the app in front.
pub fn run(
    cmd: AppCmd,
    state: &mut State,
    variant: &Variant,
    screen: &mut AppScreen,
    dialog: &mut Option<Dialog>,
) -> Nav {
    match cmd {
        AppCmd::Run {
            action,
            target,
            control,
        } => run_action(&action, target, &control, state, variant, screen, dialog),
        AppCmd::Focus(field) => {
            screen.focus = Some(field);
            Nav::Stay
        }
        AppCmd::Clear(field) => {
            if let Some(dialog_text) = prompt_text(dialog) {
                dialog_text.clear();
            } else {
                screen.fields.insert(field.clone(), String::new());
                screen.focus = Some(field);
            }
            Nav::Stay
        }
        AppCmd::Key { field, key } => {
            screen.fields.entry(field.clone()).or_default().push(key);
            screen.focus = Some(field);
            Nav::Stay
        }
        AppCmd::Backspace(field) => {
            screen.fields.entry(field).or_default().pop();
            Nav::Stay
        }
        AppCmd::Menu { items, target } => {
            *dialog = Some(Dialog::App(AppDialog::Menu { items, target }));
            Nav::Stay
        }
        AppCmd::MenuPick(i) => match dialog.take() {
            Some(Dialog::App(AppDialog::Menu { items, target })) => match items.get(i) {
                Some(item) => {
                    let label = item.label.clone();
                    run_action(&item.on_tap, target, &label, state, variant, screen, dialog)
                }
                None => Nav::Stay,
            },
            other => {
                *dialog = other;
                Nav::Stay
            }
        },
        AppCmd::Choose(option) => {
            if let Some(Dialog::App(AppDialog::Choose {
                column,
                part,
                target: Some((table, id)),
                ..
            })) = dialog.take()
            {
                let old = state
                    .records()
                    .get(table, id)
                    .map(|r| r.text(&column))
                    .unwrap_or_default();
                let new = match part {
                    Some(part) => with_part(&old, part, &option),
                    None => option.clone(),
                };
                state.update_record(table, id, &column, Some(&new), &option);
            }
            Nav::Stay
        }
        AppCmd::DialogOk => match dialog.take() {
            Some(Dialog::App(AppDialog::Confirm {
                then, target, ok, ..
            })) => run_action(&then, target, &ok, state, variant, screen, dialog),
            Some(Dialog::App(AppDialog::Prompt {
                text,
                column,
                part,
                target: Some((table, id)),
                ok,
                ..
            })) => {
                let old = state
                    .records()
                    .get(table, id)
                    .map(|r| r.text(&column))
                    .unwrap_or_default();
                let text = text.trim();
                if !text.is_empty() {
                    let new = match part {
                        Some(part) => with_part(&old, part, text),
                        None => text.to_string(),
                    };
                    state.update_record(table, id, &column, Some(&new), &ok);
                }
                Nav::Stay
            }
            other => {
                *dialog = other;
                Nav::Stay
            }
        },
    }
}

/// The text of an open prompt dialog, which typing and its clear icon edit.
pub fn prompt_text(dialog: &mut Option<Dialog>) -> Option<&mut String> {
    match dialog {
        Some(Dialog::App(AppDialog::Prompt { text, .. })) => Some(text),
        _ => None,
    }
}

/// Whitespace trimmed and collapsed, as the apps store a typed name.
fn tidy(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn run_action(
    action: &Action,
    target: Target,
    control: &str,
    state: &mut State,
    variant: &Variant,
    screen: &mut AppScreen,
    dialog: &mut Option<Dialog>,
) -> Nav {
    let app = app_of(screen);
    let target_record = target.and_then(|(t, id)| state.records().get(t, id).cloned());
    // Templates read the target record first, then the screen's.
    let fill = |state: &State, template: &str, raw: bool| -> String {
        let empty = BTreeMap::new();
        let base = Scope::screen(app, state, variant, screen);
        let scope = match &target_record {
            Some(r) => base.row(r, &empty),
            None => base,
        };
        if raw {
            scope.fill_raw(template)
        } else {
            scope.fill(template)
        }
    };
    match action {
        Action::Open(spec) => Nav::Push(enter(
            &screen.app,
            spec,
            target,
            BTreeMap::new(),
            state,
            variant,
        )),
        Action::Go(go) => {
            let params = go
                .with
                .iter()
                .map(|(k, t)| (k.clone(), fill(state, t, true)))
                .collect();
            let next = enter(&screen.app, &go.screen, None, params, state, variant);
            if go.replace {
                Nav::Replace(next)
            } else {
                Nav::Push(next)
            }
        }
        Action::Tab(spec) => Nav::Replace(enter(
            &screen.app,
            spec,
            None,
            BTreeMap::new(),
            state,
            variant,
        )),
        Action::Back(_) => Nav::Back,
        Action::Nothing(_) => Nav::Stay,
        Action::Save(w) | Action::Insert(w) => {
            let save = matches!(action, Action::Save(_));
            if w.requires
                .iter()
                .any(|f| screen.fields.get(f).is_none_or(|v| v.trim().is_empty()))
            {
                return Nav::Stay;
            }
            let values: BTreeMap<String, String> = w
                .fields
                .iter()
                .map(|(c, t)| (c.clone(), tidy(&fill(state, t, true))))
                .collect();
            let editing = screen.record.filter(|(t, _)| save && *t == w.table);
            let result = match editing {
                Some((table, id)) => update(state, table, id, values, control).map(|()| None),
                None => insert(state, w, values, control).map(Some),
            };
            match result {
                Err(message) => {
                    screen.error = Some(variant.label(&message).to_string());
                    Nav::Stay
                }
                Ok(new) => {
                    for f in &w.clear {
                        screen.fields.insert(f.clone(), String::new());
                    }
                    match (new, &w.then) {
                        (Some(id), Some(then)) => Nav::Replace(enter(
                            &screen.app,
                            then,
                            Some((w.table, id)),
                            BTreeMap::new(),
                            state,
                            variant,
                        )),
                        (Some(_), None) if !save => Nav::Stay,
                        _ => Nav::Back,
                    }
                }
            }
        }
        Action::Toggle(column) => {
            if let Some((table, id)) = target {
                let on = state
                    .records()
                    .get(table, id)
                    .is_some_and(|r| r.text(column) == "1");
                let value = if on { "0" } else { "1" };
                state.update_record(table, id, column, Some(value), control);
            }
            Nav::Stay
        }
        Action::Delete(d) => {
            if let Some((table, id)) = target {
                state.delete_record(table, id, control);
            }
            if d.back {
                Nav::Back
            } else {
                Nav::Stay
            }
        }
        Action::UpdateAll(u) => {
            let filter = {
                let base = Scope::screen(app, state, variant, screen);
                base.filter(&u.filter)
            };
            let value = fill(state, &u.value, true);
            let ids: Vec<u64> = state
                .records()
                .select(u.table, &filter)
                .map(|r| r.id)
                .collect();
            for id in ids {
                state.update_record(u.table, id, &u.column, Some(&value), control);
            }
            Nav::Stay
        }
        Action::Confirm(c) => {
            *dialog = Some(Dialog::App(AppDialog::Confirm {
                title: fill(state, &c.title, false),
                message: c.message.as_deref().map(|m| fill(state, m, false)),
                ok: variant.label(&c.ok).to_string(),
                then: c.then.clone(),
                target,
            }));
            Nav::Stay
        }
        Action::Prompt(p) => {
            let value = target_record
                .as_ref()
                .map(|r| r.text(&p.column))
                .unwrap_or_default();
            let text = match p.part {
                Some(part) => super::query::part(&value, part).to_string(),
                None => value,
            };
            *dialog = Some(Dialog::App(AppDialog::Prompt {
                title: variant.label(&p.title).to_string(),
                ok: variant.label(&p.ok).to_string(),
                id: p.id.clone(),
                text,
                column: p.column.clone(),
                part: p.part,
                target,
            }));
            Nav::Stay
        }
        Action::Choose(c) => {
            *dialog = Some(Dialog::App(AppDialog::Choose {
                title: variant.label(&c.title).to_string(),
                options: c.options.clone(),
                column: c.column.clone(),
                part: c.part,
                target,
            }));
            Nav::Stay
        }
    }
}

/// A time column's typed value (`2026-12-01T09:30:00Z`) in ms, else the value.
fn resolve(
    state: &State,
    table: crate::records::Table,
    column: &str,
    value: &str,
) -> Result<String, String> {
    if table.is_time(column) && !value.is_empty() {
        return state
            .clock
            .resolve(value)
            .map(|ms| ms.to_string())
            .map_err(|_| "Enter a valid date and time".to_string());
    }
    // What the app's own database keeps (an amount in cents reads back as
    // `12.50`); a value it cannot hold is refused on the screen.
    if value.is_empty() {
        return Ok(String::new());
    }
    table.keep(column, value)
}

fn insert(
    state: &mut State,
    w: &Write,
    values: BTreeMap<String, String>,
    control: &str,
) -> Result<u64, String> {
    let mut fields = BTreeMap::new();
    for (column, value) in values.into_iter().filter(|(_, v)| !v.is_empty()) {
        let value = resolve(state, w.table, &column, &value)?;
        fields.insert(column, value);
    }
    state
        .insert_record(w.table, fields, control)
        .map_err(|e| e.to_string())
}

/// Write only the columns whose value changed (an emptied one is cleared).
fn update(
    state: &mut State,
    table: crate::records::Table,
    id: u64,
    values: BTreeMap<String, String>,
    control: &str,
) -> Result<(), String> {
    let mut changes = Vec::new();
    for (column, value) in values {
        let value = resolve(state, table, &column, &value)?;
        let old = state.records().get(table, id).and_then(|r| r.get(&column));
        let new = (!value.is_empty()).then_some(value);
        if old != new {
            changes.push((column, new));
        }
    }
    for (column, new) in changes {
        state.update_record(table, id, &column, new.as_deref(), control);
    }
    Ok(())
}
