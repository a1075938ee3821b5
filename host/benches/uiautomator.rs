//! Throughput of uiautomator dump parsing and serialisation: the largest recorded
//! dump in `fixtures/dumps/`, and a synthetic ~200 KB one-line dump made by
//! repeating Settings-style rows (a long, scrolled list on a big screen).

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use droidscore_phone::uiautomator::{elements, parse, parse_xml, to_xml};

fn largest_fixture() -> (String, Vec<u8>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/dumps");
    let mut best: Option<(String, Vec<u8>)> = None;
    for entry in std::fs::read_dir(&dir)
        .expect("fixtures/dumps exists")
        .flatten()
    {
        let path = entry.path();
        if path.extension().is_some_and(|x| x == "xml")
            && !path.to_string_lossy().contains("handwritten")
        {
            let bytes = std::fs::read(&path).expect("fixture readable");
            if best.as_ref().is_none_or(|(_, b)| bytes.len() > b.len()) {
                best = Some((
                    path.file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into_owned(),
                    bytes,
                ));
            }
        }
    }
    best.expect("at least one recorded dump")
}

const HEAD: &str = r#"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.android.settings" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,2400]"><node index="0" text="" resource-id="com.android.settings:id/recycler_view" class="androidx.recyclerview.widget.RecyclerView" package="com.android.settings" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="true" focused="false" scrollable="true" long-clickable="false" password="false" selected="false" bounds="[0,200][1080,2400]">"#;
const TAIL: &str = "</node></node></hierarchy>";

/// One Settings row: clickable LinearLayout, icon, title + summary, switch.
fn row(i: usize) -> String {
    let top = 200 + (i % 10) * 220;
    let attrs = |index: usize, text: &str, id: &str, class: &str, flags: &str, bounds: String| {
        format!(
            r#"<node index="{index}" text="{text}" resource-id="{id}" class="{class}" package="com.android.settings" content-desc="" {flags} bounds="{bounds}""#
        )
    };
    let plain = r#"checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false""#;
    let clickable = r#"checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false""#;
    let switch = r#"checkable="true" checked="false" clickable="false" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false""#;
    format!(
        "{}>{} />{}>{} />{} /></node>{} /></node>",
        attrs(
            i,
            "",
            "",
            "android.widget.LinearLayout",
            clickable,
            format!("[0,{top}][1080,{}]", top + 220)
        ),
        attrs(
            0,
            "",
            "android:id/icon",
            "android.widget.ImageView",
            plain,
            format!("[63,{}][151,{}]", top + 66, top + 154)
        ),
        attrs(
            1,
            "",
            "",
            "android.widget.RelativeLayout",
            plain,
            format!("[198,{top}][900,{}]", top + 220)
        ),
        attrs(
            0,
            &format!("Setting number {i} &amp; more"),
            "android:id/title",
            "android.widget.TextView",
            plain,
            format!("[198,{}][700,{}]", top + 40, top + 100)
        ),
        attrs(
            1,
            "Off · tap to change this option",
            "android:id/summary",
            "android.widget.TextView",
            plain,
            format!("[198,{}][900,{}]", top + 100, top + 160)
        ),
        attrs(
            2,
            "",
            "com.android.settings:id/switch_widget",
            "android.widget.Switch",
            switch,
            format!("[920,{}][1040,{}]", top + 70, top + 150)
        ),
    )
}

fn synthetic(min_bytes: usize) -> Vec<u8> {
    let mut xml = String::from(HEAD);
    let mut i = 0;
    while xml.len() + TAIL.len() < min_bytes {
        xml.push_str(&row(i));
        i += 1;
    }
    xml.push_str(TAIL);
    xml.into_bytes()
}

fn bench(c: &mut Criterion) {
    let (name, real) = largest_fixture();
    let big = synthetic(200 * 1024);
    assert!(parse(&big).is_ok(), "synthetic dump parses");

    let mut group = c.benchmark_group("parse");
    for (label, bytes) in [(name.as_str(), &real), ("synthetic-200KB", &big)] {
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(label, |b| b.iter(|| parse(black_box(bytes))));
    }
    group.finish();

    let mut group = c.benchmark_group("floor");
    group.throughput(Throughput::Bytes(big.len() as u64));
    group.bench_function("quick-xml-events-only", |b| {
        b.iter(|| {
            let text = std::str::from_utf8(black_box(&big)).unwrap();
            let mut r = quick_xml::Reader::from_str(text);
            let mut n = 0usize;
            loop {
                match r.read_event().unwrap() {
                    quick_xml::events::Event::Eof => break,
                    _ => n += 1,
                }
            }
            n
        })
    });
    group.finish();

    let mut group = c.benchmark_group("serialize");
    for (label, bytes) in [(name.as_str(), &real), ("synthetic-200KB", &big)] {
        let h = parse_xml(bytes).expect("bench input parses");
        group.throughput(Throughput::Bytes(to_xml(&h).len() as u64));
        group.bench_function(label, |b| b.iter(|| to_xml(black_box(&h))));
    }
    group.finish();

    let mut group = c.benchmark_group("elements");
    let h = parse_xml(&big).expect("bench input parses");
    group.throughput(Throughput::Bytes(big.len() as u64));
    group.bench_function("synthetic-200KB", |b| b.iter(|| elements(black_box(&h))));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
