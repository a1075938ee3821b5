//! The providers' URIs over the record tables: what `content query --uri U`
//! lists on the virtual phone, and how rows read from a real phone's
//! provider become records again. Columns are the providers' own
//! (`ContactsContract`, `Telephony.Sms`, `CallLog.Calls`,
//! `CalendarContract.Events`), listed in `../shared/DESIGN.md`.

use std::collections::BTreeMap;

use super::content::{Cell, Row};
use super::{Record, Records, Table};

const PHONE_V2: &str = "vnd.android.cursor.item/phone_v2";
const EMAIL_V2: &str = "vnd.android.cursor.item/email_v2";
const NAME: &str = "vnd.android.cursor.item/name";
const ORGANIZATION: &str = "vnd.android.cursor.item/organization";

/// One provider URI the simulator answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// `content://com.android.contacts/contacts`: one row per contact.
    Contacts,
    /// `content://com.android.contacts/data`: one row per datum, by mimetype.
    ContactData,
    /// `content://com.android.contacts/data/phones`.
    ContactPhones,
    /// `content://contacts/phones`: the legacy API AndroidWorld reads.
    LegacyPhones,
    /// `content://sms`, `/inbox` (type 1), `/sent` (type 2).
    Sms(Option<u8>),
    /// `content://call_log/calls`.
    Calls,
    /// `content://com.android.calendar/events`.
    Events,
    /// `content://droidscore.sim/records/notifications`: notifications
    /// posted by apps that keep no other record of them. No real phone has
    /// this provider (a phone's shell lists its own only through `dumpsys
    /// notification`); the records the apps keep in their own databases
    /// are read from those files (`appdb`), not through a provider.
    Private(Table),
}

/// The virtual phone's URIs for what a phone keeps no provider of.
const PRIVATE: [(&str, Table); 1] = [(
    "content://droidscore.sim/records/notifications",
    Table::Notifications,
)];

/// The view a `--uri` names, if the simulator has it. A trailing `/` is
/// ignored, as providers match their paths.
pub(crate) fn view_for_uri(uri: &str) -> Option<View> {
    Some(match uri.trim_end_matches('/') {
        "content://com.android.contacts/contacts" => View::Contacts,
        "content://com.android.contacts/data" => View::ContactData,
        "content://com.android.contacts/data/phones" => View::ContactPhones,
        "content://contacts/phones" => View::LegacyPhones,
        "content://sms" => View::Sms(None),
        "content://sms/inbox" => View::Sms(Some(1)),
        "content://sms/sent" => View::Sms(Some(2)),
        "content://call_log/calls" => View::Calls,
        "content://com.android.calendar/events" => View::Events,
        other => {
            let (_, table) = PRIVATE.iter().find(|(u, _)| *u == other)?;
            View::Private(*table)
        }
    })
}

impl View {
    /// The table behind the view.
    pub fn table(self) -> Table {
        match self {
            View::Contacts | View::ContactData | View::ContactPhones | View::LegacyPhones => {
                Table::Contacts
            }
            View::Sms(_) => Table::Sms,
            View::Calls => Table::Calls,
            View::Events => Table::Events,
            View::Private(table) => table,
        }
    }

    /// Every column, in the order a query without `--projection` prints them.
    pub fn columns(self) -> &'static [&'static str] {
        match self {
            View::Contacts => &["_id", "display_name", "starred", "has_phone_number"],
            View::ContactData => &[
                "_id",
                "contact_id",
                "raw_contact_id",
                "mimetype",
                "display_name",
                "starred",
                "data1",
                "data2",
            ],
            View::ContactPhones => &["_id", "contact_id", "display_name", "data1", "data2"],
            View::LegacyPhones => &["_id", "person", "name", "display_name", "number", "type"],
            View::Sms(_) => &[
                "_id",
                "thread_id",
                "address",
                "date",
                "read",
                "seen",
                "type",
                "body",
            ],
            View::Calls => &["_id", "number", "date", "duration", "type", "name"],
            View::Events => Table::Events.columns(),
            View::Private(table) => table.columns(),
        }
    }

    /// The view's rows over `records`, every column (see [`View::columns`]),
    /// `_id` ascending.
    pub fn rows(self, records: &Records) -> Vec<BTreeMap<String, Option<String>>> {
        let rows = records.rows(self.table());
        let mut out = Vec::new();
        for r in rows {
            match self {
                View::Contacts => out.push(map(&[
                    ("_id", Some(r.id.to_string())),
                    ("display_name", r.get("display_name")),
                    ("starred", Some(r.text("starred"))),
                    (
                        "has_phone_number",
                        Some(if r.get("number").is_some() { "1" } else { "0" }.into()),
                    ),
                ])),
                View::ContactData => {
                    // Data ids: contact id × 10 + the datum's slot, stable per contact.
                    let data = [
                        (1, NAME, r.get("display_name"), None),
                        (2, PHONE_V2, r.get("number"), r.get("type")),
                        (3, EMAIL_V2, r.get("email"), None),
                        (4, ORGANIZATION, r.get("company"), None),
                    ];
                    for (slot, mimetype, value, kind) in data {
                        if value.is_none() {
                            continue;
                        }
                        out.push(map(&[
                            ("_id", Some((r.id * 10 + slot).to_string())),
                            ("contact_id", Some(r.id.to_string())),
                            ("raw_contact_id", Some(r.id.to_string())),
                            ("mimetype", Some(mimetype.into())),
                            ("display_name", r.get("display_name")),
                            ("starred", Some(r.text("starred"))),
                            ("data1", value),
                            ("data2", kind),
                        ]));
                    }
                }
                View::ContactPhones => {
                    if r.get("number").is_some() {
                        out.push(map(&[
                            ("_id", Some((r.id * 10 + 2).to_string())),
                            ("contact_id", Some(r.id.to_string())),
                            ("display_name", r.get("display_name")),
                            ("data1", r.get("number")),
                            ("data2", r.get("type")),
                        ]));
                    }
                }
                View::LegacyPhones => {
                    if r.get("number").is_some() {
                        out.push(map(&[
                            ("_id", Some((r.id * 10 + 2).to_string())),
                            ("person", Some(r.id.to_string())),
                            ("name", r.get("display_name")),
                            ("display_name", r.get("display_name")),
                            ("number", r.get("number")),
                            ("type", r.get("type")),
                        ]));
                    }
                }
                View::Sms(kind) => {
                    if kind.is_some_and(|k| r.text("type") != k.to_string()) {
                        continue;
                    }
                    let mut row = plain(r, self.columns());
                    row.insert("seen".into(), Some("1".into()));
                    out.push(row);
                }
                View::Calls | View::Events | View::Private(_) => out.push(plain(r, self.columns())),
            }
        }
        out.sort_by_key(|row| {
            row.get("_id")
                .cloned()
                .flatten()
                .and_then(|id| id.parse::<u64>().ok())
        });
        out
    }
}

fn map(pairs: &[(&str, Option<String>)]) -> BTreeMap<String, Option<String>> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

fn plain(r: &Record, columns: &[&str]) -> BTreeMap<String, Option<String>> {
    columns.iter().map(|c| (c.to_string(), r.get(c))).collect()
}

/// How an oracle reads a table from a phone that has only its providers:
/// the URI and projection to query, and how the rows become records.
#[derive(Debug, Clone, Copy)]
pub struct Source {
    pub uri: &'static str,
    pub projection: &'static [&'static str],
}

impl Table {
    /// The provider query that reads this table on a real phone; `None` for
    /// files, which are listed with `find` and `stat`, and for the tables
    /// an app keeps in its own database (`appdb::AppDb::for_table`), which
    /// are read from that file on a rooted phone.
    pub fn source(self) -> Option<Source> {
        Some(match self {
            Table::Contacts => Source {
                uri: "content://com.android.contacts/data",
                projection: &[
                    "contact_id",
                    "mimetype",
                    "display_name",
                    "starred",
                    "data1",
                    "data2",
                ],
            },
            Table::Sms => Source {
                uri: "content://sms",
                projection: Table::Sms.columns(),
            },
            Table::Calls => Source {
                uri: "content://call_log/calls",
                projection: Table::Calls.columns(),
            },
            Table::Events => Source {
                uri: "content://com.android.calendar/events",
                projection: Table::Events.columns(),
            },
            Table::Files | Table::Notes | Table::Tasks | Table::Expenses | Table::SimpleEvents => {
                return None
            }
            table @ Table::Notifications => {
                let (uri, _) = PRIVATE.iter().find(|(_, t)| *t == table)?;
                Source {
                    uri,
                    projection: table.columns(),
                }
            }
        })
    }

    /// Records from the rows of [`Table::source`]'s query.
    pub(crate) fn records_from(self, rows: &[Row]) -> Vec<Record> {
        let text = |row: &Row, column: &str| -> Option<String> {
            row.iter()
                .find(|(c, _)| c == column)
                .and_then(|(_, v)| match v {
                    Cell::Text(t) => Some(t.clone()),
                    Cell::Null | Cell::Blob => None,
                })
        };
        if self != Table::Contacts {
            return rows
                .iter()
                .map(|row| {
                    let id = text(row, "_id").and_then(|i| i.parse().ok()).unwrap_or(0);
                    let fields = row
                        .iter()
                        .filter(|(c, _)| c != "_id")
                        .filter_map(|(c, _)| text(row, c).map(|v| (c.clone(), v)))
                        .collect();
                    Record { id, fields }
                })
                .collect();
        }
        // Contacts: one record per contact_id, its data rows folded in.
        let mut contacts: BTreeMap<u64, Record> = BTreeMap::new();
        for row in rows {
            let Some(id) = text(row, "contact_id").and_then(|i| i.parse().ok()) else {
                continue;
            };
            let record = contacts.entry(id).or_insert_with(|| Record {
                id,
                fields: BTreeMap::new(),
            });
            for column in ["display_name", "starred"] {
                if let Some(v) = text(row, column) {
                    record.fields.insert(column.into(), v);
                }
            }
            let value = text(row, "data1");
            let (column, kind) = match text(row, "mimetype").as_deref() {
                Some(PHONE_V2) => ("number", text(row, "data2")),
                Some(EMAIL_V2) => ("email", None),
                Some(ORGANIZATION) => ("company", None),
                _ => continue,
            };
            if let Some(v) = value {
                record.fields.entry(column.into()).or_insert(v);
            }
            if let Some(k) = kind {
                record.fields.entry("type".into()).or_insert(k);
            }
        }
        contacts.into_values().collect()
    }
}

/// Rows of a view as `content query` prints them for `projection` (every
/// column when empty).
pub(crate) fn project(rows: &[BTreeMap<String, Option<String>>], projection: &[&str]) -> Vec<Row> {
    rows.iter()
        .map(|row| {
            projection
                .iter()
                .map(|c| {
                    let cell = match row.get(*c).cloned().flatten() {
                        Some(v) => Cell::Text(v),
                        None => Cell::Null,
                    };
                    (c.to_string(), cell)
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::content;

    fn contact(records: &mut Records, name: &str, number: Option<&str>) -> u64 {
        let mut fields = BTreeMap::from([("display_name".to_string(), name.to_string())]);
        if let Some(n) = number {
            fields.insert("number".into(), n.into());
            fields.insert("type".into(), "2".into());
        }
        fields.insert("starred".into(), "0".into());
        records.insert(Table::Contacts, fields)
    }

    /// The adb path reads contacts from `data` and folds them back: what it
    /// gets is what the simulator holds.
    #[test]
    fn contacts_survive_the_round_trip_through_the_data_provider() {
        let mut records = Records::default();
        contact(&mut records, "Dana Whit, Jr.", Some("+1 650-555-0142"));
        contact(&mut records, "No Number", None);
        let source = Table::Contacts.source().unwrap();
        let view = view_for_uri(source.uri).unwrap();
        let printed = content::render(&project(&view.rows(&records), source.projection));
        let rows = content::parse(&printed, source.projection).unwrap();
        let back = Table::Contacts.records_from(&rows);
        assert_eq!(back.len(), 2);
        assert_eq!(back[0].fields, records.rows(Table::Contacts)[0].fields);
        assert_eq!(back[1].get("number"), None);
    }

    #[test]
    fn the_inbox_and_sent_uris_split_by_type() {
        let mut records = Records::default();
        for kind in ["1", "2", "1"] {
            records.insert(
                Table::Sms,
                BTreeMap::from([("type".to_string(), kind.to_string())]),
            );
        }
        let inbox = view_for_uri("content://sms/inbox/").unwrap().rows(&records);
        assert_eq!(inbox.len(), 2);
        assert_eq!(
            view_for_uri("content://sms").unwrap().rows(&records).len(),
            3
        );
        assert_eq!(view_for_uri("content://mms"), None);
    }
}
