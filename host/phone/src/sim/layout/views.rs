//! What every screen's layout is built from: the screen's geometry, the
//! layout context, the view builders, clipping to visible bounds, the app
//! window every dump starts with, and the blank screen of an app the
//! simulator does not model.

use crate::apps::{SettingsApp, Variant};
use crate::sim::cmd::Cmd;
use crate::sim::state::State;
use crate::sim::view::{Style, View};
use crate::uiautomator::{Bounds, Node};

pub(crate) const WIDTH: i32 = 1080;
pub(crate) const HEIGHT: i32 = 2400;
pub(crate) const STATUS_BAR: i32 = 118;
pub(crate) const NAV_BAR_TOP: i32 = 2274;

/// Everything needed to lay out one frame.
#[derive(Debug)]
pub struct Ctx<'a> {
    pub app: &'a SettingsApp,
    pub variant: &'a Variant,
    pub state: &'a State,
    pub scroll: i32,
    pub expanded: Option<u32>,
    /// The status bar clock, `HH:MM`.
    pub clock: String,
}

impl Ctx<'_> {
    pub(super) fn t<'s>(&'s self, label: &'s str) -> String {
        self.variant.label(label).to_string()
    }

    pub(super) fn value(&self, key: &str) -> &str {
        self.state.get(key).unwrap_or("")
    }
}

/// Builder shorthand for a view.
pub(super) fn v(class: &str, package: &str, b: Bounds) -> View {
    View {
        node: Node {
            class: class.into(),
            package: package.into(),
            enabled: true,
            bounds: b,
            ..Node::default()
        },
        ..View::default()
    }
}

impl View {
    pub(super) fn id(mut self, id: &str) -> Self {
        self.node.resource_id = id.into();
        self
    }
    pub(super) fn text(mut self, text: impl Into<String>) -> Self {
        self.node.text = text.into().into();
        self
    }
    pub(super) fn desc(mut self, desc: impl Into<String>) -> Self {
        self.node.content_desc = desc.into().into();
        self
    }
    pub(super) fn style(mut self, style: Style) -> Self {
        self.style = style;
        self
    }
    pub(super) fn tap(mut self, cmd: Cmd) -> Self {
        self.node.clickable = true;
        self.node.focusable = true;
        self.on_tap = Some(cmd);
        self
    }
    pub(super) fn checkable(mut self, checked: bool) -> Self {
        self.node.checkable = true;
        self.node.checked = checked;
        self
    }
    pub(super) fn child(mut self, child: View) -> Self {
        self.children.push(child);
        self
    }
    pub(super) fn scrollable(mut self) -> Self {
        self.node.scrollable = true;
        self.node.focusable = true;
        self
    }
}

/// Clip every view to its parent's visible bounds (and the screen), as
/// uiautomator reports visible bounds; views wholly outside end up empty.
pub(super) fn clip(view: &mut View, to: Bounds) {
    view.node.bounds = view.node.bounds.intersect(&to);
    let inner = view.node.bounds;
    for child in &mut view.children {
        clip(child, inner);
    }
}

/// The app window's root and content frame, as every app's dump starts.
pub(super) fn window(package: &str, content: Vec<View>) -> View {
    let mut frame = v(
        "android.widget.FrameLayout",
        package,
        Bounds::new(0, 0, WIDTH, HEIGHT),
    )
    .id("android:id/content");
    frame.children = content;
    v(
        "android.widget.FrameLayout",
        package,
        Bounds::new(0, 0, WIDTH, HEIGHT),
    )
    .style(Style::Screen)
    .child(
        v(
            "android.widget.LinearLayout",
            package,
            Bounds::new(0, 0, WIDTH, HEIGHT),
        )
        .child(frame),
    )
}

pub(super) fn blank(ctx: &Ctx, title: &str, package: &str) -> View {
    let p = package;
    window(
        p,
        vec![
            v(
                "android.widget.ImageButton",
                p,
                Bounds::new(0, STATUS_BAR, 147, 265),
            )
            .desc("Navigate up")
            .style(Style::Icon)
            .tap(Cmd::Back),
            v(
                "android.widget.TextView",
                p,
                Bounds::new(63, 300, 1017, 480),
            )
            .text(ctx.t(title))
            .style(Style::Heading),
        ],
    )
}
