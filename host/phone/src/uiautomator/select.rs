//! Selectors: which node(s) of a dump a task file or a test means.
//!
//! A [`Selector`] is a set of constraints that must all hold. Task files give it
//! as TOML (`text_regex = "Wi-Fi|WLAN"`, `row = true`); unknown keys are refused.
//! Regexes are compiled once, when the selector is built, and match the whole
//! value (`^(?:…)$`). Strings compare exactly (case included).
//!
//! `resource_id` accepts the full form (`com.android.settings:id/switch_widget`)
//! or the short form without `pkg:id/` (`switch_widget`), which matches that
//! name under any package: Settings moves ids between `android:id/` and
//! `com.android.settings:id/` across versions. A value containing `:` or `/`
//! is compared exactly.
//!
//! `row = true` maps every match to its nearest clickable ancestor-or-self, the
//! node a tap must land on (a Settings title TextView is not clickable, its row
//! LinearLayout is); a match with no clickable ancestor stays itself. Results are
//! deduplicated and in document order. `row` is only meaningful at the top
//! level and is refused inside `has`/`inside`.

use std::fmt;

use regex::Regex;

use super::node::{Hierarchy, Node};

/// A regex kept with its source, compiled to match the whole value.
#[derive(Debug, Clone)]
pub struct FullMatch {
    source: String,
    regex: Regex,
}

impl FullMatch {
    pub fn new(source: &str) -> Result<Self, regex::Error> {
        let regex = Regex::new(&format!("^(?:{source})$"))?;
        Ok(Self {
            source: source.to_owned(),
            regex,
        })
    }
    pub fn source(&self) -> &str {
        &self.source
    }
    pub(crate) fn is_match(&self, value: &str) -> bool {
        self.regex.is_match(value)
    }
}

impl PartialEq for FullMatch {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl Eq for FullMatch {}

/// A selector that failed validation: which field, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    #[error("bad regex in {field} {pattern:?}: {message}")]
    BadRegex {
        field: String,
        pattern: String,
        message: String,
    },
    #[error("{field} only applies to the top-level selector")]
    NestedRow { field: String },
}

/// The selector as written in a task file, before validation.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSelector {
    text: Option<String>,
    text_regex: Option<String>,
    resource_id: Option<String>,
    desc: Option<String>,
    desc_regex: Option<String>,
    class: Option<String>,
    checked: Option<bool>,
    checkable: Option<bool>,
    clickable: Option<bool>,
    enabled: Option<bool>,
    selected: Option<bool>,
    focused: Option<bool>,
    scrollable: Option<bool>,
    has: Option<Box<RawSelector>>,
    #[serde(default)]
    has_all: Vec<RawSelector>,
    inside: Option<Box<RawSelector>>,
    #[serde(default)]
    row: bool,
}

/// Constraints on a node; every one given must hold. See the module docs.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(try_from = "RawSelector")]
pub struct Selector {
    pub text: Option<String>,
    pub text_regex: Option<FullMatch>,
    pub resource_id: Option<String>,
    pub desc: Option<String>,
    pub desc_regex: Option<FullMatch>,
    pub class: Option<String>,
    pub checked: Option<bool>,
    pub checkable: Option<bool>,
    pub clickable: Option<bool>,
    pub enabled: Option<bool>,
    pub selected: Option<bool>,
    pub focused: Option<bool>,
    pub scrollable: Option<bool>,
    /// Some descendant matches this.
    pub has: Option<Box<Selector>>,
    /// Each of these matches some descendant (one card holding a time, a
    /// label and a checked switch).
    pub has_all: Vec<Selector>,
    /// Some ancestor matches this.
    pub inside: Option<Box<Selector>>,
    /// Map each match to its nearest clickable ancestor-or-self.
    pub row: bool,
}

impl TryFrom<RawSelector> for Selector {
    type Error = SelectorError;
    fn try_from(raw: RawSelector) -> Result<Self, SelectorError> {
        validate(raw, "")
    }
}

fn validate(raw: RawSelector, path: &str) -> Result<Selector, SelectorError> {
    let regex = |field: &str, source: Option<String>| -> Result<Option<FullMatch>, SelectorError> {
        source
            .map(|s| {
                FullMatch::new(&s).map_err(|e| SelectorError::BadRegex {
                    field: format!("{path}{field}"),
                    message: e
                        .to_string()
                        .lines()
                        .last()
                        .unwrap_or("")
                        .trim()
                        .to_lowercase(),
                    pattern: s,
                })
            })
            .transpose()
    };
    if raw.row && !path.is_empty() {
        return Err(SelectorError::NestedRow {
            field: format!("{path}row"),
        });
    }
    let nested = |field: &str,
                  sel: Option<Box<RawSelector>>|
     -> Result<Option<Box<Selector>>, SelectorError> {
        sel.map(|s| validate(*s, &format!("{path}{field}.")).map(Box::new))
            .transpose()
    };
    Ok(Selector {
        text_regex: regex("text_regex", raw.text_regex)?,
        desc_regex: regex("desc_regex", raw.desc_regex)?,
        has: nested("has", raw.has)?,
        has_all: raw
            .has_all
            .into_iter()
            .enumerate()
            .map(|(i, r)| validate(r, &format!("{path}has_all[{i}].")))
            .collect::<Result<_, _>>()?,
        inside: nested("inside", raw.inside)?,
        text: raw.text,
        resource_id: raw.resource_id,
        desc: raw.desc,
        class: raw.class,
        checked: raw.checked,
        checkable: raw.checkable,
        clickable: raw.clickable,
        enabled: raw.enabled,
        selected: raw.selected,
        focused: raw.focused,
        scrollable: raw.scrollable,
        row: raw.row,
    })
}

/// Builders for Rust callers and tests: `Selector::text("Wi-Fi").row()`.
impl Selector {
    /// Matches every node.
    pub fn any() -> Self {
        Self::default()
    }
    pub fn text(text: &str) -> Self {
        Self {
            text: Some(text.to_owned()),
            ..Self::default()
        }
    }
    pub fn text_regex(source: &str) -> Result<Self, SelectorError> {
        Self::any().with_text_regex(source)
    }
    pub fn resource_id(id: &str) -> Self {
        Self {
            resource_id: Some(id.to_owned()),
            ..Self::default()
        }
    }
    pub fn desc(desc: &str) -> Self {
        Self {
            desc: Some(desc.to_owned()),
            ..Self::default()
        }
    }
    pub fn class(class: &str) -> Self {
        Self {
            class: Some(class.to_owned()),
            ..Self::default()
        }
    }
    /// A selector written as inline TOML, e.g. `text_regex = "Wi-Fi|WLAN"`.
    #[cfg(test)]
    pub(crate) fn from_toml(source: &str) -> Result<Self, toml::de::Error> {
        toml::from_str(source)
    }

    pub fn with_text(mut self, text: &str) -> Self {
        self.text = Some(text.to_owned());
        self
    }
    pub(crate) fn with_text_regex(mut self, source: &str) -> Result<Self, SelectorError> {
        self.text_regex = validate(
            RawSelector {
                text_regex: Some(source.to_owned()),
                ..RawSelector::default()
            },
            "",
        )?
        .text_regex;
        Ok(self)
    }
    pub fn checked(mut self, value: bool) -> Self {
        self.checked = Some(value);
        self
    }
    pub fn checkable(mut self, value: bool) -> Self {
        self.checkable = Some(value);
        self
    }
    pub fn clickable(mut self, value: bool) -> Self {
        self.clickable = Some(value);
        self
    }
    pub fn enabled(mut self, value: bool) -> Self {
        self.enabled = Some(value);
        self
    }
    pub fn selected(mut self, value: bool) -> Self {
        self.selected = Some(value);
        self
    }
    pub fn focused(mut self, value: bool) -> Self {
        self.focused = Some(value);
        self
    }
    pub fn scrollable(mut self, value: bool) -> Self {
        self.scrollable = Some(value);
        self
    }

    /// Add a descendant every match must also have (see `has_all`).
    #[cfg(test)]
    pub(crate) fn has_also(mut self, descendant: Selector) -> Self {
        self.has_all.push(descendant);
        self
    }

    pub fn has(mut self, descendant: Selector) -> Self {
        self.has = Some(Box::new(descendant));
        self
    }
    pub fn inside(mut self, ancestor: Selector) -> Self {
        self.inside = Some(Box::new(ancestor));
        self
    }
    pub fn row(mut self) -> Self {
        self.row = true;
        self
    }
}

/// Matching.
impl Selector {
    /// Whether `node` satisfies every constraint. `ancestors` are the node's
    /// ancestors, outermost first (needed for `inside`; `&[]` for a root).
    /// `row` does not apply here: it maps matches in [`Selector::find_all`].
    pub(crate) fn matches_node(&self, node: &Node, ancestors: &[&Node]) -> bool {
        self.matches_local(node)
            && self.inside.as_ref().is_none_or(|sel| {
                (0..ancestors.len())
                    .rev()
                    .any(|i| sel.matches_node(ancestors[i], &ancestors[..i]))
            })
            && self
                .has
                .iter()
                .map(Box::as_ref)
                .chain(&self.has_all)
                .all(|sel| {
                    let mut chain = ancestors.to_vec();
                    chain.push(node);
                    node.children
                        .iter()
                        .any(|child| any_in_subtree(sel, child, &mut chain))
                })
    }

    fn matches_local(&self, n: &Node) -> bool {
        fn eq(want: &Option<String>, have: &str) -> bool {
            want.as_deref().is_none_or(|w| w == have)
        }
        fn re(want: &Option<FullMatch>, have: &str) -> bool {
            want.as_ref().is_none_or(|w| w.is_match(have))
        }
        fn flag(want: Option<bool>, have: bool) -> bool {
            want.is_none_or(|w| w == have)
        }
        eq(&self.text, &n.text)
            && re(&self.text_regex, &n.text)
            && self
                .resource_id
                .as_deref()
                .is_none_or(|id| resource_id_matches(id, &n.resource_id))
            && eq(&self.desc, &n.content_desc)
            && re(&self.desc_regex, &n.content_desc)
            && eq(&self.class, &n.class)
            && flag(self.checked, n.checked)
            && flag(self.checkable, n.checkable)
            && flag(self.clickable, n.clickable)
            && flag(self.enabled, n.enabled)
            && flag(self.selected, n.selected)
            && flag(self.focused, n.focused)
            && flag(self.scrollable, n.scrollable)
    }

    /// Every matching node in document order (after `row` mapping, deduplicated).
    pub fn find_all<'a>(&self, h: &'a Hierarchy) -> Vec<&'a Node> {
        let mut found: Vec<(usize, &'a Node)> = Vec::new();
        let mut counter = 0;
        let mut chain: Vec<(usize, &'a Node)> = Vec::new();
        for root in &h.nodes {
            self.collect(root, &mut chain, &mut counter, &mut found);
        }
        if self.row {
            found.sort_by_key(|(i, _)| *i);
            found.dedup_by_key(|(i, _)| *i);
        }
        found.into_iter().map(|(_, n)| n).collect()
    }

    /// The first match in document order.
    pub fn find_first<'a>(&self, h: &'a Hierarchy) -> Option<&'a Node> {
        self.find_all(h).into_iter().next()
    }

    fn collect<'a>(
        &self,
        node: &'a Node,
        chain: &mut Vec<(usize, &'a Node)>,
        counter: &mut usize,
        found: &mut Vec<(usize, &'a Node)>,
    ) {
        let order = *counter;
        *counter += 1;
        let ancestors: Vec<&Node> = chain.iter().map(|(_, n)| *n).collect();
        if self.matches_node(node, &ancestors) {
            let target = match self.row {
                true if !node.clickable => chain.iter().rev().find(|(_, a)| a.clickable).copied(),
                _ => None,
            };
            found.push(target.unwrap_or((order, node)));
        }
        chain.push((order, node));
        for child in &node.children {
            self.collect(child, chain, counter, found);
        }
        chain.pop();
    }
}

fn any_in_subtree<'a>(sel: &Selector, node: &'a Node, chain: &mut Vec<&'a Node>) -> bool {
    if sel.matches_node(node, chain) {
        return true;
    }
    chain.push(node);
    let hit = node.children.iter().any(|c| any_in_subtree(sel, c, chain));
    chain.pop();
    hit
}

/// Exact, or the short form (no `:` or `/`) against the name after `:id/`.
fn resource_id_matches(want: &str, have: &str) -> bool {
    if want == have {
        return true;
    }
    if want.contains([':', '/']) {
        return false;
    }
    have.split_once(":id/")
        .is_some_and(|(_, name)| name == want)
}

/// Compact, for messages: `{text_regex="Wi-Fi|WLAN", row}`.
impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        let mut s = |name: &str, v: &Option<String>| {
            if let Some(v) = v {
                parts.push(format!("{name}={v:?}"));
            }
        };
        s("text", &self.text);
        s(
            "text_regex",
            &self.text_regex.as_ref().map(|r| r.source.clone()),
        );
        s("resource_id", &self.resource_id);
        s("desc", &self.desc);
        s(
            "desc_regex",
            &self.desc_regex.as_ref().map(|r| r.source.clone()),
        );
        s("class", &self.class);
        for (name, v) in [
            ("checked", self.checked),
            ("checkable", self.checkable),
            ("clickable", self.clickable),
            ("enabled", self.enabled),
            ("selected", self.selected),
            ("focused", self.focused),
            ("scrollable", self.scrollable),
        ] {
            if let Some(v) = v {
                parts.push(format!("{name}={v}"));
            }
        }
        if let Some(has) = &self.has {
            parts.push(format!("has={has}"));
        }
        if !self.has_all.is_empty() {
            let all: Vec<String> = self.has_all.iter().map(|s| s.to_string()).collect();
            parts.push(format!("has_all=[{}]", all.join(", ")));
        }
        if let Some(inside) = &self.inside {
            parts.push(format!("inside={inside}"));
        }
        if self.row {
            parts.push("row".to_owned());
        }
        write!(f, "{{{}}}", parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::super::node::Bounds;
    use super::*;

    fn node(class: &str, text: &str, id: &str, clickable: bool, children: Vec<Node>) -> Node {
        Node {
            class: class.into(),
            text: text.into(),
            resource_id: id.into(),
            clickable,
            enabled: true,
            bounds: Bounds::new(0, 0, 10, 10),
            children,
            ..Node::default()
        }
    }

    /// A Settings list: two rows, each a clickable LinearLayout holding a title,
    /// a summary and (for the first) a Switch.
    fn settings() -> Hierarchy {
        let row = |title: &str, summary: &str, switch: Option<bool>| {
            let mut children = vec![node(
                "android.widget.RelativeLayout",
                "",
                "",
                false,
                vec![
                    node(
                        "android.widget.TextView",
                        title,
                        "android:id/title",
                        false,
                        vec![],
                    ),
                    node(
                        "android.widget.TextView",
                        summary,
                        "android:id/summary",
                        false,
                        vec![],
                    ),
                ],
            )];
            if let Some(on) = switch {
                children.push(Node {
                    checkable: true,
                    checked: on,
                    ..node(
                        "android.widget.Switch",
                        "",
                        "com.android.settings:id/switch_widget",
                        false,
                        vec![],
                    )
                });
            }
            node("android.widget.LinearLayout", "", "", true, children)
        };
        let list = Node {
            scrollable: true,
            ..node(
                "androidx.recyclerview.widget.RecyclerView",
                "",
                "com.android.settings:id/recycler_view",
                false,
                vec![
                    row("Wi-Fi", "Off", Some(false)),
                    row("Bluetooth", "On", None),
                ],
            )
        };
        Hierarchy {
            nodes: vec![node(
                "android.widget.FrameLayout",
                "",
                "",
                false,
                vec![list],
            )],
            ..Hierarchy::default()
        }
    }

    fn texts(found: &[&Node]) -> Vec<String> {
        found
            .iter()
            .map(|n| format!("{}:{}", n.class.rsplit('.').next().unwrap_or(""), n.text))
            .collect()
    }

    #[test]
    fn text_finds_the_title_and_row_maps_to_the_clickable_row() {
        let h = settings();
        assert_eq!(
            texts(&Selector::text("Wi-Fi").find_all(&h)),
            ["TextView:Wi-Fi"]
        );
        let rows = Selector::text("Wi-Fi").row().find_all(&h);
        assert_eq!(rows.len(), 1);
        assert!(rows[0].clickable && rows[0].class.ends_with("LinearLayout"));
    }

    #[test]
    fn row_dedupes_matches_in_the_same_row() {
        let h = settings();
        let sel = Selector::class("android.widget.TextView").row();
        let rows = sel.find_all(&h);
        assert_eq!(
            rows.len(),
            2,
            "title and summary of each row collapse into one row"
        );
        assert!(!std::ptr::eq(rows[0], rows[1]));
    }

    #[test]
    fn regex_is_a_full_match() {
        let h = settings();
        assert_eq!(
            texts(&Selector::text_regex("Wi-Fi|WLAN").unwrap().find_all(&h)),
            ["TextView:Wi-Fi"]
        );
        assert!(Selector::text_regex("Wi").unwrap().find_all(&h).is_empty());
    }

    #[test]
    fn short_resource_id_matches_any_package() {
        let h = settings();
        assert_eq!(Selector::resource_id("switch_widget").find_all(&h).len(), 1);
        assert_eq!(
            Selector::resource_id("com.android.settings:id/switch_widget")
                .find_all(&h)
                .len(),
            1
        );
        assert!(Selector::resource_id("android:id/switch_widget")
            .find_all(&h)
            .is_empty());
        assert!(Selector::resource_id("id/switch_widget")
            .find_all(&h)
            .is_empty());
        assert_eq!(Selector::resource_id("title").find_all(&h).len(), 2);
    }

    #[test]
    fn has_all_needs_every_descendant_in_one_node() {
        let h = settings();
        let row = Selector::class("android.widget.LinearLayout").has(Selector::text("Wi-Fi"));
        // The Wi-Fi row holds its title and an unchecked switch, not "Bluetooth".
        assert_eq!(
            row.clone()
                .has_also(Selector::class("android.widget.Switch").checked(false))
                .find_all(&h)
                .len(),
            1
        );
        assert!(row
            .clone()
            .has_also(Selector::text("Bluetooth"))
            .find_all(&h)
            .is_empty());
        let parsed =
            Selector::from_toml("has_all = [{ text = \"Wi-Fi\" }, { text = \"Bluetooth\" }]")
                .unwrap();
        assert_eq!(parsed.has_all.len(), 2);
        assert!(parsed.to_string().contains("has_all=["), "{parsed}");
        let bad = Selector::from_toml("has_all = [{ text_regex = \"(\" }]")
            .unwrap_err()
            .to_string();
        assert!(bad.contains("has_all[0].text_regex"), "{bad}");
    }

    #[test]
    fn has_and_inside() {
        let h = settings();
        let wifi_row = Selector::class("android.widget.LinearLayout").has(Selector::text("Wi-Fi"));
        let found = wifi_row.find_all(&h);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].children.len(), 2);
        let switch_in_wifi_row = Selector::class("android.widget.Switch")
            .inside(wifi_row)
            .checked(false);
        assert_eq!(switch_in_wifi_row.find_all(&h).len(), 1);
        // The list and the root also hold "Bluetooth", so `inside` an unconstrained
        // ancestor finds both summaries; naming the row class narrows it.
        let anywhere = Selector::resource_id("summary")
            .inside(Selector::any().has(Selector::text("Bluetooth")));
        assert_eq!(
            texts(&anywhere.find_all(&h)),
            ["TextView:Off", "TextView:On"]
        );
        let bt_row =
            Selector::class("android.widget.LinearLayout").has(Selector::text("Bluetooth"));
        let summary_of_bt = Selector::resource_id("summary").inside(bt_row);
        assert_eq!(texts(&summary_of_bt.find_all(&h)), ["TextView:On"]);
    }

    #[test]
    fn toml_task_selector_deserialises() {
        let sel = Selector::from_toml(
            "text_regex = \"Wi-Fi|WLAN\"\nrow = true\n[has]\nclass = \"android.widget.Switch\"\n",
        )
        .unwrap();
        assert!(sel.row);
        assert_eq!(
            sel.to_string(),
            r#"{text_regex="Wi-Fi|WLAN", has={class="android.widget.Switch"}, row}"#
        );
        assert_eq!(
            sel,
            Selector::text_regex("Wi-Fi|WLAN")
                .unwrap()
                .has(Selector::class("android.widget.Switch"))
                .row()
        );
    }

    #[test]
    fn toml_errors_name_the_field() {
        let unknown = Selector::from_toml("txet = \"Wi-Fi\"")
            .unwrap_err()
            .to_string();
        assert!(unknown.contains("unknown field `txet`"), "{unknown}");
        let bad = Selector::from_toml("[inside]\ndesc_regex = \"(unclosed\"")
            .unwrap_err()
            .to_string();
        assert!(
            bad.contains("bad regex in inside.desc_regex \"(unclosed\""),
            "{bad}"
        );
        let nested_row = Selector::from_toml("[has]\nrow = true")
            .unwrap_err()
            .to_string();
        assert!(
            nested_row.contains("has.row only applies to the top-level selector"),
            "{nested_row}"
        );
    }

    #[test]
    fn display_is_compact() {
        assert_eq!(Selector::any().to_string(), "{}");
        assert_eq!(
            Selector::text("Wi-Fi")
                .checked(true)
                .enabled(true)
                .to_string(),
            r#"{text="Wi-Fi", checked=true, enabled=true}"#
        );
    }

    #[test]
    fn find_first_is_document_order() {
        let h = settings();
        assert_eq!(
            Selector::resource_id("android:id/title")
                .find_first(&h)
                .map(|n| n.text.as_str()),
            Some("Wi-Fi")
        );
    }
}
