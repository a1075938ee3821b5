//! The uiautomator node tree: one `Node` per `<node>` element of a dump, with every
//! attribute uiautomator writes held as a typed field and anything else kept verbatim.

use std::fmt;

/// Strings of up to 24 bytes are stored inline: most of a dump's class names,
/// packages, ids and texts, so parsing allocates little.
pub use compact_str::CompactString;

/// `bounds="[l,t][r,b]"`: visible bounds clipped to the display, in pixels.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub struct Bounds {
    pub left: i32,
    pub top: i32,
    pub right: i32,
    pub bottom: i32,
}

impl Bounds {
    pub const fn new(left: i32, top: i32, right: i32, bottom: i32) -> Self {
        Self {
            left,
            top,
            right,
            bottom,
        }
    }
    /// Saturating, so hostile bounds in a dump cannot overflow.
    pub fn width(&self) -> i32 {
        self.right.saturating_sub(self.left)
    }
    /// Saturating, so hostile bounds in a dump cannot overflow.
    pub fn height(&self) -> i32 {
        self.bottom.saturating_sub(self.top)
    }
    pub fn is_empty(&self) -> bool {
        self.width() <= 0 || self.height() <= 0
    }
    /// Centre point, rounded down as `UiObject.getVisibleBounds().centerX()` does.
    pub fn center(&self) -> (i32, i32) {
        let mid = |a: i32, b: i32| ((i64::from(a) + i64::from(b)) / 2) as i32;
        (mid(self.left, self.right), mid(self.top, self.bottom))
    }
    /// Half-open containment: a point on the right or bottom edge is outside.
    pub fn contains(&self, x: i32, y: i32) -> bool {
        x >= self.left && x < self.right && y >= self.top && y < self.bottom
    }
    /// The overlap of two rectangles, empty (zero size) when they do not meet.
    pub(crate) fn intersect(&self, other: &Bounds) -> Bounds {
        let left = self.left.max(other.left);
        let top = self.top.max(other.top);
        let right = self.right.min(other.right).max(left);
        let bottom = self.bottom.min(other.bottom).max(top);
        Bounds {
            left,
            top,
            right,
            bottom,
        }
    }
}

impl fmt::Display for Bounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{},{}][{},{}]",
            self.left, self.top, self.right, self.bottom
        )
    }
}

/// One `<node>` of a uiautomator dump.
///
/// Field order follows the attribute order of AOSP `AccessibilityNodeInfoDumper`.
/// `extra` holds attributes outside that set (androidx `visible-to-user`,
/// `drawing-order`, `hint`, `display-id`, or anything unknown) in document order,
/// each with the name of the attribute it followed so re-serialisation puts it back.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Node {
    /// `NAF="true"`: "not accessibility friendly", written first when present.
    pub naf: bool,
    pub index: u32,
    pub text: CompactString,
    pub resource_id: CompactString,
    pub class: CompactString,
    pub package: CompactString,
    pub content_desc: CompactString,
    pub checkable: bool,
    pub checked: bool,
    pub clickable: bool,
    pub enabled: bool,
    pub focusable: bool,
    pub focused: bool,
    pub scrollable: bool,
    pub long_clickable: bool,
    pub password: bool,
    pub selected: bool,
    pub bounds: Bounds,
    pub extra: Vec<ExtraAttr>,
    pub children: Vec<Node>,
}

/// An attribute outside AOSP uiautomator's fixed set, kept verbatim.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ExtraAttr {
    pub name: CompactString,
    pub value: CompactString,
    /// The attribute this one followed in the source (`None`: it came first).
    pub after: Option<CompactString>,
}

impl Node {
    /// Depth-first, pre-order walk over this node and all its descendants.
    pub fn walk(&self) -> impl Iterator<Item = &Node> {
        let mut stack = vec![self];
        std::iter::from_fn(move || {
            let node = stack.pop()?;
            stack.extend(node.children.iter().rev());
            Some(node)
        })
    }

    /// The value of an extra attribute by name.
    pub fn extra(&self, name: &str) -> Option<&str> {
        self.extra
            .iter()
            .find(|a| a.name == name)
            .map(|a| a.value.as_str())
    }
}

/// A whole dump: `<hierarchy rotation="…">` and its top-level nodes (one per window).
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Hierarchy {
    pub rotation: u32,
    /// Attributes of `<hierarchy>` other than `rotation`, in document order.
    pub extra: Vec<ExtraAttr>,
    pub nodes: Vec<Node>,
}

impl Hierarchy {
    /// The first scrollable node with a visible area, in document order.
    pub fn first_scrollable(&self) -> Option<&Node> {
        self.walk().find(|n| n.scrollable && !n.bounds.is_empty())
    }

    /// Every node of every window, depth-first, pre-order.
    pub fn walk(&self) -> impl Iterator<Item = &Node> {
        self.nodes.iter().flat_map(Node::walk)
    }
}
