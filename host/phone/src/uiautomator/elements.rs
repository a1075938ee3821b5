//! The numbered element list an agent reads and acts on.
//!
//! An element is a node a user can act on: clickable, long-clickable,
//! checkable, scrollable or an editable text field (class `…EditText` or
//! `…AutoCompleteTextView`, or `password="true"`), with non-empty bounds (a
//! zero-size node cannot be tapped). Elements are numbered from 0 in document
//! order; the agent names the number, the harness taps `center`.
//!
//! Labels: an element's own `text`; when it has neither text nor
//! `content-desc`, the texts (or, for a text-less node, the content-desc) of its
//! descendants joined with ` — `, stopping at descendants that are elements
//! themselves and skipping zero-size (invisible) subtrees. A Settings row
//! `LinearLayout` thus reads "Wi-Fi — Off" from its title and summary
//! TextViews. Scrollable containers get no merged label: their loose text is
//! not a name for the list.
//!
//! Folding: a checkable node that is not itself clickable (Settings'
//! `switch_widget`) inside a clickable row is not its own element; the row
//! takes its state (`checked`), its class name and, when the row has none, its
//! resource id. The row is the real tap target, and one line per setting keeps
//! prompts small. A checkable node that is clickable on its own (a switch with
//! its own click handler next to a row that opens a sub-page) stays separate.
//!
//! Parity with AndroidWorld's element description: we carry text,
//! content-desc, class, resource id, hint, checked, enabled, selected, focused,
//! scrollable, editable, bounds; we drop focusable/visible/package/tooltip,
//! which rarely change what an agent should do.

use std::collections::HashSet;
use std::fmt::Write as _;

use super::node::{Bounds, Hierarchy, Node};

/// Longest label kept, in characters; longer ones end in `…`.
pub(crate) const MAX_LABEL_CHARS: usize = 80;

/// One actionable thing on screen, as the agent sees it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Element {
    /// 0-based position in the list: what the agent names.
    pub index: usize,
    /// Class short name (`Switch`, `LinearLayout`).
    pub class: String,
    /// Own text, or the merged descendant texts (see the module docs).
    pub label: String,
    pub content_desc: String,
    /// Resource id after `:id/` (`switch_widget`), or the whole id if it has none.
    pub resource_id: String,
    /// androidx `hint` attribute when the dump has one.
    pub hint: String,
    /// `Some` for checkable elements (and rows holding a folded checkable).
    pub checked: Option<bool>,
    pub enabled: bool,
    pub selected: bool,
    pub focused: bool,
    pub scrollable: bool,
    pub editable: bool,
    pub bounds: Bounds,
    pub center: (i32, i32),
    /// For an element with no label or description of its own, the label of
    /// the element it sits in (an alarm's switch sits in the "07:30" card).
    pub context: String,
}

fn short_class(class: &str) -> &str {
    class.rsplit('.').next().unwrap_or(class)
}

fn short_id(id: &str) -> &str {
    id.split_once(":id/").map_or(id, |(_, name)| name)
}

fn is_editable(n: &Node) -> bool {
    let class = short_class(&n.class);
    n.password || class.ends_with("EditText") || class.ends_with("AutoCompleteTextView")
}

fn is_actionable(n: &Node) -> bool {
    !n.bounds.is_empty()
        && (n.clickable || n.long_clickable || n.checkable || n.scrollable || is_editable(n))
}

fn element_for(n: &Node) -> Element {
    Element {
        index: 0,
        class: short_class(&n.class).to_owned(),
        label: n.text.to_string(),
        content_desc: n.content_desc.to_string(),
        resource_id: short_id(&n.resource_id).to_owned(),
        hint: n.extra("hint").unwrap_or("").to_owned(),
        checked: n.checkable.then_some(n.checked),
        enabled: n.enabled,
        selected: n.selected,
        focused: n.focused,
        scrollable: n.scrollable,
        editable: is_editable(n),
        bounds: n.bounds,
        center: n.bounds.center(),
        context: String::new(),
    }
}

/// The actionable nodes of `h`, numbered, labelled and folded.
pub fn elements(h: &Hierarchy) -> Vec<Element> {
    let mut found: Vec<(&Node, Element)> = Vec::new();
    // The element each element sits in, by index in `found`.
    let mut parents: Vec<Option<usize>> = Vec::new();
    // Nodes whose text must not leak into an enclosing label: elements and folded checkables.
    let mut claimed: HashSet<*const Node> = HashSet::new();
    for root in &h.nodes {
        visit(root, None, &mut found, &mut parents, &mut claimed);
    }
    let mut out: Vec<Element> = found
        .into_iter()
        .enumerate()
        .map(|(index, (node, mut el))| {
            if node.text.is_empty() && node.content_desc.is_empty() && !node.scrollable {
                el.label = merged_label(node, &claimed);
            }
            el.label = clip_label(&el.label);
            el.index = index;
            el
        })
        .collect();
    for i in 0..out.len() {
        if out[i].label.is_empty() && out[i].content_desc.is_empty() {
            if let Some(parent) = parents[i] {
                out[i].context = out[parent].label.clone();
            }
        }
    }
    out
}

fn visit<'a>(
    n: &'a Node,
    enclosing: Option<usize>,
    found: &mut Vec<(&'a Node, Element)>,
    parents: &mut Vec<Option<usize>>,
    claimed: &mut HashSet<*const Node>,
) {
    let mut enclosing = enclosing;
    if is_actionable(n) {
        let fold_into = enclosing.filter(|&e| {
            let (row, el) = &found[e];
            n.checkable && !n.clickable && row.clickable && !row.checkable && el.checked.is_none()
        });
        claimed.insert(n as *const Node);
        match fold_into {
            Some(e) => {
                let el = &mut found[e].1;
                el.checked = Some(n.checked);
                el.class = short_class(&n.class).to_owned();
                if el.resource_id.is_empty() {
                    el.resource_id = short_id(&n.resource_id).to_owned();
                }
            }
            None => {
                found.push((n, element_for(n)));
                parents.push(enclosing);
                enclosing = Some(found.len() - 1);
            }
        }
    }
    for child in &n.children {
        visit(child, enclosing, found, parents, claimed);
    }
}

fn merged_label(n: &Node, claimed: &HashSet<*const Node>) -> String {
    fn collect<'a>(n: &'a Node, claimed: &HashSet<*const Node>, parts: &mut Vec<&'a str>) {
        for child in &n.children {
            if claimed.contains(&(child as *const Node)) || child.bounds.is_empty() {
                continue;
            }
            let own = if child.text.is_empty() {
                &child.content_desc
            } else {
                &child.text
            };
            let own = own.trim();
            if !own.is_empty() && parts.last() != Some(&own) {
                parts.push(own);
            }
            collect(child, claimed, parts);
        }
    }
    let mut parts = Vec::new();
    collect(n, claimed, &mut parts);
    parts.join(" — ")
}

fn clip_label(label: &str) -> String {
    match label.char_indices().nth(MAX_LABEL_CHARS) {
        Some((i, _)) => format!("{}…", &label[..i]),
        None => label.to_owned(),
    }
}

/// `"…"` with only `"`, `\\` and line breaks escaped: other characters (non-breaking
/// spaces, CJK, emoji) stay as the user sees them.
pub fn quote_into(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// An element's state as its line shows it: ` on`/` off` for a checkable
/// one, then ` selected`, ` focused`, ` disabled`, ` scrollable`, ` editable`
/// where they hold.
pub fn push_state(out: &mut String, e: &Element) {
    match e.checked {
        Some(true) => out.push_str(" on"),
        Some(false) => out.push_str(" off"),
        None => {}
    }
    for (flag, name) in [
        (e.selected, " selected"),
        (e.focused, " focused"),
        (!e.enabled, " disabled"),
        (e.scrollable, " scrollable"),
        (e.editable, " editable"),
    ] {
        if flag {
            out.push_str(name);
        }
    }
}

/// One line per element, defaults omitted:
/// `3 Switch "Wi-Fi — Off" off id=switch_widget @960,853`, the centre last
/// (what a tap on the element hits).
pub fn render(elements: &[Element]) -> String {
    let mut out = String::with_capacity(elements.len() * 48);
    for e in elements {
        let _ = write!(out, "{} {}", e.index, e.class);
        if !e.label.is_empty() {
            out.push(' ');
            quote_into(&mut out, &e.label);
        }
        if !e.content_desc.is_empty() && e.content_desc != e.label {
            out.push_str(" desc=");
            quote_into(&mut out, &clip_label(&e.content_desc));
        }
        if !e.hint.is_empty() && e.hint != e.label {
            out.push_str(" hint=");
            quote_into(&mut out, &clip_label(&e.hint));
        }
        push_state(&mut out, e);
        if !e.context.is_empty() {
            out.push_str(" in ");
            quote_into(&mut out, &e.context);
        }
        if !e.resource_id.is_empty() {
            let _ = write!(out, " id={}", e.resource_id);
        }
        let _ = write!(out, " @{},{}", e.center.0, e.center.1);
        out.push('\n');
    }
    out
}

impl Element {
    /// A plain element (tests build element lists from these): enabled,
    /// unchecked, no id, hint or context, centred in its bounds.
    pub fn plain(index: usize, class: &str, label: &str, bounds: Bounds) -> Element {
        Element {
            index,
            class: class.into(),
            label: label.into(),
            content_desc: String::new(),
            resource_id: String::new(),
            hint: String::new(),
            checked: None,
            enabled: true,
            selected: false,
            focused: false,
            scrollable: false,
            editable: false,
            bounds,
            center: bounds.center(),
            context: String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(class: &str, text: &str, id: &str, children: Vec<Node>) -> Node {
        Node {
            class: class.into(),
            text: text.into(),
            resource_id: id.into(),
            enabled: true,
            bounds: Bounds::new(0, 100, 1080, 300),
            children,
            ..Node::default()
        }
    }

    fn settings_row(title: &str, summary: &str, switch: Option<(bool, bool)>) -> Node {
        let mut children = vec![node(
            "android.widget.RelativeLayout",
            "",
            "",
            vec![
                node("android.widget.TextView", title, "android:id/title", vec![]),
                node(
                    "android.widget.TextView",
                    summary,
                    "android:id/summary",
                    vec![],
                ),
            ],
        )];
        if let Some((checked, clickable)) = switch {
            children.push(Node {
                checkable: true,
                checked,
                clickable,
                text: if checked { "ON".into() } else { "OFF".into() },
                ..node(
                    "android.widget.Switch",
                    "",
                    "com.android.settings:id/switch_widget",
                    vec![],
                )
            });
        }
        Node {
            clickable: true,
            ..node("android.widget.LinearLayout", "", "", children)
        }
    }

    fn screen(rows: Vec<Node>) -> Hierarchy {
        let list = Node {
            scrollable: true,
            ..node(
                "androidx.recyclerview.widget.RecyclerView",
                "",
                "com.android.settings:id/recycler_view",
                rows,
            )
        };
        Hierarchy {
            nodes: vec![node("android.widget.FrameLayout", "", "", vec![list])],
            ..Hierarchy::default()
        }
    }

    #[test]
    fn a_switch_row_folds_into_one_element() {
        let h = screen(vec![
            settings_row("Wi-Fi", "Off", Some((false, false))),
            settings_row("Bluetooth", "On", None),
        ]);
        assert_eq!(
            render(&elements(&h)),
            "0 RecyclerView scrollable id=recycler_view @540,200\n1 Switch \"Wi-Fi — Off\" off id=switch_widget @540,200\n2 LinearLayout \"Bluetooth — On\" @540,200\n"
        );
    }

    #[test]
    fn a_switch_with_its_own_click_stays_separate() {
        let h = screen(vec![settings_row("Wi-Fi", "Connected", Some((true, true)))]);
        let els = elements(&h);
        assert_eq!(els.len(), 3);
        assert_eq!(
            els[1].label, "Wi-Fi — Connected",
            "the switch's ON text is not part of the row label"
        );
        assert_eq!(
            (els[2].class.as_str(), els[2].checked),
            ("Switch", Some(true))
        );
    }

    #[test]
    fn zero_size_and_inert_nodes_are_not_elements() {
        let mut hidden = settings_row("Hidden", "", None);
        hidden.bounds = Bounds::new(0, 0, 0, 0);
        let h = screen(vec![hidden]);
        assert_eq!(elements(&h).len(), 1, "only the list");
    }

    #[test]
    fn edit_fields_and_states_are_shown() {
        let field = Node {
            focused: true,
            extra: vec![super::super::node::ExtraAttr {
                name: "hint".into(),
                value: "Search".into(),
                after: None,
            }],
            ..node("android.widget.EditText", "", "com.example:id/q", vec![])
        };
        let button = Node {
            clickable: true,
            enabled: false,
            content_desc: "Send \"now\"".into(),
            ..node("android.widget.ImageButton", "", "", vec![])
        };
        let h = Hierarchy {
            nodes: vec![field, button],
            ..Hierarchy::default()
        };
        let els = elements(&h);
        assert_eq!(els[0].center, (540, 200));
        assert_eq!(render(&els), "0 EditText hint=\"Search\" focused editable id=q @540,200\n1 ImageButton desc=\"Send \\\"now\\\"\" disabled @540,200\n");
    }

    #[test]
    fn long_labels_are_clipped() {
        let long = "x".repeat(200);
        let h = Hierarchy {
            nodes: vec![Node {
                clickable: true,
                ..node("android.widget.Button", &long, "", vec![])
            }],
            ..Hierarchy::default()
        };
        assert_eq!(elements(&h)[0].label.chars().count(), MAX_LABEL_CHARS + 1);
    }
}
