//! Each data-defined app's main flows, driven as an agent would: taps on
//! nodes found in the dump, `input text`, Back; then the records checked.

use crate::apps::{InitialRecord, PhoneSetup, Variant};
use crate::records::{Record, Table};
use crate::sim::SimPhone;
use crate::uiautomator::{Hierarchy, Selector};
use crate::{DeviceAction, Key, Phone};

const CONTACTS: &str = "com.google.android.contacts";
const DIALER: &str = "com.google.android.dialer";
const MESSAGES: &str = "com.google.android.apps.messaging";
const CALENDAR: &str = "com.google.android.calendar";
const FILES: &str = "com.google.android.documentsui";

fn phone_with(variant: Variant, records: Vec<InitialRecord>) -> SimPhone {
    SimPhone::new(PhoneSetup {
        variant,
        records,
        episode_seed: 1,
        ..PhoneSetup::default()
    })
    .unwrap()
}

fn phone() -> SimPhone {
    phone_with(Variant::default(), vec![])
}

fn launch(p: &mut SimPhone, package: &str) {
    p.act(&DeviceAction::Launch {
        package: package.into(),
    })
    .unwrap();
}

fn dump(p: &mut SimPhone) -> Hierarchy {
    p.observe(false).unwrap().hierarchy
}

fn tap(p: &mut SimPhone, selector: &Selector) {
    let h = dump(p);
    let node = selector.find_first(&h).unwrap_or_else(|| {
        panic!(
            "no node matches {selector} in\n{}",
            crate::uiautomator::render(&crate::uiautomator::elements(&h))
        )
    });
    let (x, y) = node.bounds.center();
    p.act(&DeviceAction::Tap { x, y }).unwrap();
}

fn long_press(p: &mut SimPhone, selector: &Selector) {
    let h = dump(p);
    let (x, y) = selector.find_first(&h).unwrap().bounds.center();
    p.act(&DeviceAction::LongPress { x, y }).unwrap();
}

fn type_text(p: &mut SimPhone, text: &str) {
    p.act(&DeviceAction::Text { text: text.into() }).unwrap();
}

fn shows(p: &mut SimPhone, selector: &Selector) -> bool {
    selector.find_first(&dump(p)).is_some()
}

fn texts(p: &mut SimPhone, id: &str) -> Vec<String> {
    Selector::resource_id(id)
        .find_all(&dump(p))
        .iter()
        .map(|n| n.text.to_string())
        .collect()
}

fn rows(p: &SimPhone, table: Table) -> Vec<Record> {
    p.state().records().rows(table).to_vec()
}

fn find<'a>(records: &'a [Record], column: &str, value: &str) -> Option<&'a Record> {
    records.iter().find(|r| r.text(column) == value)
}

#[test]
fn contacts_lists_favourites_first_then_by_name() {
    let mut p = phone();
    launch(&mut p, CONTACTS);
    let names = texts(&mut p, "com.google.android.contacts:id/cliv_name_textview");
    assert_eq!(names[..3], ["Alex Moreno", "Mum", "Bianca Ruiz"]);
    assert!(shows(&mut p, &Selector::text("Favorites")));
    // Search filters as you type; the clear icon empties the field.
    tap(&mut p, &Selector::text("Search contacts"));
    type_text(&mut p, "pri");
    let names = texts(&mut p, "com.google.android.contacts:id/cliv_name_textview");
    assert_eq!(names, ["Priya Natarajan"]);
    tap(&mut p, &Selector::desc("Clear text"));
    assert!(texts(&mut p, "com.google.android.contacts:id/cliv_name_textview").len() > 5);
}

#[test]
fn contacts_create_then_edit_writes_only_what_changed() {
    let mut p = phone();
    launch(&mut p, CONTACTS);
    tap(&mut p, &Selector::desc("Create contact"));
    type_text(&mut p, "Zoe");
    tap(&mut p, &Selector::text("Last name"));
    type_text(&mut p, "Quinn ");
    tap(&mut p, &Selector::text("Phone"));
    type_text(&mut p, "+1 650-555-0142");
    tap(&mut p, &Selector::text("Save"));
    let contacts = rows(&p, Table::Contacts);
    let zoe = find(&contacts, "display_name", "Zoe Quinn").expect("the contact was saved");
    assert_eq!(zoe.text("number"), "+1 650-555-0142");
    assert_eq!(zoe.get("email"), None, "an empty field is not a column");
    // The detail page shows it; Edit prefills the form.
    assert!(shows(&mut p, &Selector::text("Zoe Quinn")));
    assert!(shows(&mut p, &Selector::text("Mobile")));
    tap(&mut p, &Selector::desc("Edit"));
    tap(&mut p, &Selector::text("Email"));
    type_text(&mut p, "zoe@example.com");
    let flips = p.state().flips().len();
    tap(&mut p, &Selector::text("Save"));
    let new_flips = &p.state().flips()[flips..];
    assert_eq!(new_flips.len(), 1, "{new_flips:?}");
    assert!(new_flips[0].key.ends_with("/email"), "{new_flips:?}");
    assert!(shows(&mut p, &Selector::text("zoe@example.com")));
}

#[test]
fn contacts_star_and_delete_from_the_detail_page() {
    let mut p = phone();
    launch(&mut p, CONTACTS);
    tap(&mut p, &Selector::text("Chen Wei"));
    tap(&mut p, &Selector::desc("Add to favorites"));
    let chen = |p: &SimPhone| find(&rows(p, Table::Contacts), "display_name", "Chen Wei").cloned();
    assert_eq!(chen(&p).unwrap().text("starred"), "1");
    assert!(shows(&mut p, &Selector::desc("Remove from favorites")));
    tap(&mut p, &Selector::desc("More options"));
    tap(&mut p, &Selector::text("Delete"));
    assert!(chen(&p).is_some(), "not before the confirmation");
    tap(&mut p, &Selector::resource_id("android:id/button1"));
    assert!(chen(&p).is_none());
    // Back on the list, which no longer has it.
    assert!(shows(&mut p, &Selector::desc("Create contact")));
    assert!(!shows(&mut p, &Selector::text("Chen Wei")));
}

#[test]
fn dialer_keypad_call_logs_an_outgoing_call() {
    let mut p = phone();
    launch(&mut p, DIALER);
    // Recents: newest first, with the type and time.
    let names = texts(&mut p, "com.google.android.dialer:id/call_log_name");
    assert_eq!(names[..2], ["+1 800-555-0199", "Tomás Silva"]);
    assert!(
        shows(&mut p, &Selector::text("Missed · 01:01")),
        "the type and the time"
    );
    tap(&mut p, &Selector::desc("Keypad"));
    for key in ["five", "five", "five"] {
        tap(
            &mut p,
            &Selector::resource_id(&format!("{DIALER}:id/{key}")),
        );
    }
    type_text(&mut p, "0101");
    tap(
        &mut p,
        &Selector::resource_id(&format!("{DIALER}:id/dialpad_voice_call_button")),
    );
    let calls = rows(&p, Table::Calls);
    let call = calls.last().unwrap();
    assert_eq!(call.text("number"), "5550101");
    assert_eq!(call.text("type"), "2");
    assert_eq!(call.text("duration"), "0");
    assert_eq!(call.text("name"), "Alex Moreno", "named from the contacts");
    assert_eq!(call.text("date"), p.state().clock.now_ms.to_string());
    // Recents' call-back button calls the missed number.
    tap(&mut p, &Selector::desc("Recents"));
    tap(&mut p, &Selector::desc("Call +1 800-555-0199"));
    let last = rows(&p, Table::Calls).last().unwrap().clone();
    assert_eq!(
        (last.text("number").as_str(), last.text("type").as_str()),
        ("+1 800-555-0199", "2")
    );
    assert_eq!(last.get("name"), None, "no contact has the number");
}

#[test]
fn messages_opening_a_thread_marks_it_read_and_send_adds_a_sent_message() {
    let mut p = phone();
    launch(&mut p, MESSAGES);
    let unread = Selector::desc("Tomás Silva, 2 unread messages");
    assert!(
        shows(&mut p, &unread),
        "the unread count is in the row's content-desc"
    );
    let names = texts(&mut p, &format!("{MESSAGES}:id/conversation_name"));
    assert_eq!(names[0], "Tomás Silva", "newest first");
    assert_eq!(
        names.len(),
        names
            .iter()
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    );
    tap(&mut p, &unread);
    let sms = rows(&p, Table::Sms);
    assert!(sms
        .iter()
        .filter(|r| r.text("address") == "+1 650-555-0108")
        .all(|r| r.text("read") == "1"));
    tap(
        &mut p,
        &Selector::resource_id(&format!("{MESSAGES}:id/compose_message_text")),
    );
    type_text(&mut p, "On my way");
    tap(
        &mut p,
        &Selector::resource_id(&format!("{MESSAGES}:id/send_message_button_icon")),
    );
    let sms = rows(&p, Table::Sms);
    let sent = sms.last().unwrap();
    assert_eq!(
        (
            sent.text("body").as_str(),
            sent.text("type").as_str(),
            sent.text("read").as_str()
        ),
        ("On my way", "2", "1")
    );
    assert_eq!(sent.text("address"), "+1 650-555-0108");
    assert!(shows(&mut p, &Selector::text("On my way")));
    assert!(texts(&mut p, &format!("{MESSAGES}:id/compose_message_text")) == ["Text message"]);
}

#[test]
fn messages_start_chat_suggests_contacts() {
    let mut p = phone();
    launch(&mut p, MESSAGES);
    tap(&mut p, &Selector::desc("Start chat"));
    type_text(&mut p, "Kenji");
    tap(&mut p, &Selector::text("Kenji Sato"));
    assert!(shows(
        &mut p,
        &Selector::resource_id(&format!("{MESSAGES}:id/conversation_title"))
            .with_text("Kenji Sato")
    ));
    type_text(&mut p, "Hello");
    tap(&mut p, &Selector::desc("Send SMS"));
    let sms = rows(&p, Table::Sms);
    assert_eq!(sms.last().unwrap().text("address"), "+1 650-555-0109");
    // Back goes to the conversation list, which now has Kenji's thread first.
    p.act(&DeviceAction::Key { key: Key::Back }).unwrap();
    let names = texts(&mut p, &format!("{MESSAGES}:id/conversation_name"));
    assert_eq!(names[0], "Kenji Sato");
}

#[test]
fn calendar_create_an_event_then_delete_it() {
    let mut p = phone();
    launch(&mut p, CALENDAR);
    assert!(shows(&mut p, &Selector::text("Tue, Dec 1")));
    assert!(
        !shows(&mut p, &Selector::text("Quarterly planning")),
        "past days are not shown"
    );
    tap(&mut p, &Selector::desc("Create new event"));
    type_text(&mut p, "Haircut");
    tap(
        &mut p,
        &Selector::resource_id(&format!("{CALENDAR}:id/date")),
    );
    tap(&mut p, &Selector::desc("Clear text"));
    type_text(&mut p, "2026-12-01");
    tap(&mut p, &Selector::text("Start time"));
    type_text(&mut p, "09:30");
    tap(&mut p, &Selector::text("End time"));
    type_text(&mut p, "10:00");
    tap(&mut p, &Selector::text("Add location"));
    type_text(&mut p, "Main St");
    tap(&mut p, &Selector::text("Save"));
    let events = rows(&p, Table::Events);
    let e = find(&events, "title", "Haircut").expect("saved");
    let start = crate::records::NOW_MS + 86_400_000 + (9 * 60 + 30) * 60_000;
    assert_eq!(e.text("dtstart"), start.to_string());
    assert_eq!(e.text("dtend"), (start + 30 * 60_000).to_string());
    assert_eq!(e.text("eventLocation"), "Main St");
    assert!(shows(&mut p, &Selector::text("09:30 – 10:00")));
    tap(&mut p, &Selector::desc("More options"));
    tap(&mut p, &Selector::text("Delete"));
    tap(&mut p, &Selector::text("Delete"));
    assert!(find(&rows(&p, Table::Events), "title", "Haircut").is_none());
}

#[test]
fn files_rename_move_and_delete_from_the_row_menu() {
    let mut p = phone();
    launch(&mut p, FILES);
    tap(&mut p, &Selector::text("Download"));
    assert_eq!(texts(&mut p, "android:id/title").len(), 6);
    long_press(&mut p, &Selector::text("menu.pdf"));
    tap(&mut p, &Selector::text("Rename"));
    tap(&mut p, &Selector::desc("Clear text"));
    type_text(&mut p, "takeaway_menu.pdf");
    tap(&mut p, &Selector::text("OK"));
    let files = rows(&p, Table::Files);
    assert!(find(&files, "path", "Download/takeaway_menu.pdf").is_some());
    assert!(find(&files, "path", "Download/menu.pdf").is_none());
    // Move to: the per-row "More options" button.
    let row = Selector::any()
        .clickable(true)
        .has(Selector::text("invoice_4471.pdf"));
    tap(&mut p, &Selector::desc("More options").inside(row));
    tap(&mut p, &Selector::text("Move to"));
    tap(&mut p, &Selector::text("Documents"));
    assert!(find(
        &rows(&p, Table::Files),
        "path",
        "Documents/invoice_4471.pdf"
    )
    .is_some());
    assert!(!shows(&mut p, &Selector::text("invoice_4471.pdf")));
    long_press(&mut p, &Selector::text("wallpaper.png"));
    tap(&mut p, &Selector::text("Delete"));
    tap(&mut p, &Selector::resource_id("android:id/button1"));
    assert!(find(&rows(&p, Table::Files), "path", "Download/wallpaper.png").is_none());
}

/// Variants keep working: a rename applies to the apps' labels, and a decoy
/// record takes its place in the list by the data's order.
#[test]
fn a_variant_renames_labels_and_decoy_records_sort_in() {
    let variant = Variant {
        id: "v".into(),
        rename: [
            ("Create contact".to_string(), "New contact".to_string()),
            ("Call Mum".to_string(), "Ring Mum".to_string()),
        ]
        .into(),
        ..Variant::default()
    };
    let decoy = InitialRecord {
        table: Table::Contacts,
        fields: [("display_name".to_string(), "Chen Wen".to_string())].into(),
    };
    let mut p = phone_with(variant, vec![decoy]);
    launch(&mut p, DIALER);
    assert!(
        shows(&mut p, &Selector::desc("Ring Mum")),
        "a filled-in text, renamed whole"
    );
    launch(&mut p, CONTACTS);
    assert!(shows(&mut p, &Selector::desc("New contact")));
    let names = texts(&mut p, "com.google.android.contacts:id/cliv_name_textview");
    let at = |n: &str| names.iter().position(|x| x == n).unwrap();
    assert_eq!(at("Chen Wen"), at("Chen Wei") + 1);
}

#[test]
fn relaunch_resumes_and_force_stop_forgets_the_new_apps() {
    let mut p = phone();
    launch(&mut p, FILES);
    tap(&mut p, &Selector::text("Pictures"));
    assert_eq!(
        p.focused_activity().1,
        "com.android.documentsui.files.FilesActivity"
    );
    p.act(&DeviceAction::Key { key: Key::Home }).unwrap();
    launch(&mut p, CONTACTS);
    launch(&mut p, FILES);
    assert!(
        shows(&mut p, &Selector::text("beach.jpg")),
        "resumed in Pictures"
    );
    tap(&mut p, &Selector::desc("Navigate up"));
    assert!(shows(&mut p, &Selector::text("Browse")));
    assert!(p.force_stop(FILES));
    launch(&mut p, FILES);
    assert!(shows(&mut p, &Selector::text("Browse")));
}

/// Only rows in sight are dumped, as a RecyclerView holds them; a swipe
/// scrolls the rest in.
#[test]
fn a_long_list_scrolls_its_rows_into_the_dump() {
    let mut p = phone();
    launch(&mut p, CONTACTS);
    let last = Selector::text("Tomás Silva");
    assert!(!shows(&mut p, &last));
    for _ in 0..3 {
        p.act(&DeviceAction::Swipe {
            x1: 540,
            y1: 2000,
            x2: 540,
            y2: 800,
            duration_ms: 300,
        })
        .unwrap();
    }
    assert!(shows(&mut p, &last));
    assert!(!shows(&mut p, &Selector::text("Alex Moreno")));
    tap(&mut p, &last);
    assert!(shows(
        &mut p,
        &Selector::resource_id(&format!("{CONTACTS}:id/large_title")).with_text("Tomás Silva")
    ));
}

#[test]
fn calendar_edit_writes_only_the_changed_column() {
    let mut p = phone();
    launch(&mut p, CALENDAR);
    tap(&mut p, &Selector::text("Dentist"));
    tap(&mut p, &Selector::desc("Edit event"));
    tap(
        &mut p,
        &Selector::resource_id(&format!("{CALENDAR}:id/start_time")),
    );
    tap(&mut p, &Selector::desc("Clear text"));
    type_text(&mut p, "08:45");
    let flips = p.state().flips().len();
    tap(&mut p, &Selector::text("Save"));
    let new_flips = &p.state().flips()[flips..];
    assert_eq!(new_flips.len(), 1, "{new_flips:?}");
    assert!(new_flips[0].key.ends_with("/dtstart"), "{new_flips:?}");
    assert!(shows(&mut p, &Selector::text("08:45 – 09:15")));
    // A bad time keeps the form open with an error.
    tap(&mut p, &Selector::desc("Edit event"));
    tap(
        &mut p,
        &Selector::resource_id(&format!("{CALENDAR}:id/end_time")),
    );
    type_text(&mut p, "x");
    tap(&mut p, &Selector::text("Save"));
    assert!(shows(
        &mut p,
        &Selector::text("Enter a valid date and time")
    ));
}

#[test]
fn contacts_text_opens_the_messages_thread_of_the_number() {
    let mut p = phone();
    launch(&mut p, CONTACTS);
    tap(&mut p, &Selector::text("Bianca Ruiz"));
    assert!(shows(&mut p, &Selector::text("Work")), "the number's type");
    tap(&mut p, &Selector::text("Text"));
    assert_eq!(p.observe(false).unwrap().foreground, MESSAGES);
    type_text(&mut p, "See you at 6");
    tap(&mut p, &Selector::desc("Send SMS"));
    let sms = rows(&p, Table::Sms);
    let sent = sms.last().unwrap();
    assert_eq!(
        (sent.text("address").as_str(), sent.text("body").as_str()),
        ("+1 650-555-0102", "See you at 6")
    );
    p.act(&DeviceAction::Key { key: Key::Back }).unwrap();
    assert!(
        shows(&mut p, &Selector::text("Bianca Ruiz")),
        "back on the contact"
    );
}
