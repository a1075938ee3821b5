//! What every screen's layout is built from: the screen's geometry, the
//! layout context, the view builders, clipping to visible bounds, the app
//! window every dump starts with, and the blank screen of an app the
//! simulator does not model.

use crate::apps::{SettingsApp, Variant};
use crate::sim::cmd::Cmd;
use crate::sim::state::State;
use crate::sim::view::{Style, TextSize, View};
use crate::sim::Display;
use crate::uiautomator::{Bounds, Node};

/// The system bars on the default display (1080×2400 at 420 dpi), in
/// pixels: the layout's lengths are written as pixels on that display and
/// scaled by [`Ctx::px`].
const STATUS_BAR: i32 = 118;
/// The navigation bar's height (its top is at 2274 of 2400).
pub(crate) const NAV_BAR: i32 = 126;
/// The density the layout's pixel lengths are written for.
const LAYOUT_DPI: i64 = 420;

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
    /// The display laid out for: its size, density and font scale.
    pub display: Display,
}

/// `value × num / den` rounded to the nearest pixel, halves away from zero:
/// the one rounding every scaled length in the layout uses.
fn scale(value: i32, num: i64, den: i64) -> i32 {
    let twice = 2 * value as i64 * num;
    let rounded = if twice >= 0 {
        (twice + den) / (2 * den)
    } else {
        (twice - den) / (2 * den)
    };
    rounded as i32
}

impl Ctx<'_> {
    /// The display's width in pixels.
    pub(crate) fn width(&self) -> i32 {
        self.display.width
    }

    /// The display's height in pixels.
    pub(crate) fn height(&self) -> i32 {
        self.display.height
    }

    /// A length written in pixels at 420 dpi (a dp length × 2.625), in
    /// pixels on this display: scaled by its dpi / 420. The identity on the
    /// default display, so its layout stays what it always was.
    pub(crate) fn px(&self, px420: i32) -> i32 {
        scale(px420, self.display.dpi as i64, LAYOUT_DPI)
    }

    /// A text length (a line's height) written in pixels at 420 dpi and
    /// font scale 1, on this display: scaled by density and font scale, as
    /// `sp` lengths are.
    pub(crate) fn sp_px(&self, px420: i32) -> i32 {
        scale(
            px420,
            self.display.dpi as i64 * self.display.font_scale_milli as i64,
            LAYOUT_DPI * 1000,
        )
    }

    /// An x written as its distance from the right edge at 420 dpi (1017 is
    /// `end(63)` on the default display), on this display.
    pub(crate) fn end(&self, from_right420: i32) -> i32 {
        self.width() - self.px(from_right420)
    }

    /// A y written as its distance from the bottom edge at 420 dpi.
    pub(crate) fn above_bottom(&self, above_bottom420: i32) -> i32 {
        self.height() - self.px(above_bottom420)
    }

    /// The bottom of the status bar.
    pub fn status_bar(&self) -> i32 {
        self.px(STATUS_BAR)
    }

    /// The top of the navigation bar (the app window's usable bottom).
    pub fn nav_bar_top(&self) -> i32 {
        self.above_bottom(NAV_BAR)
    }

    /// Whether the display is wider than tall (the phone on its side).
    pub(crate) fn landscape(&self) -> bool {
        self.width() > self.height()
    }

    /// The whole screen.
    pub(crate) fn screen(&self) -> Bounds {
        Bounds::new(0, 0, self.width(), self.height())
    }

    /// The box from `left420` to `end420` from the right edge (both at 420
    /// dpi) on this display, in pixels: its left and right.
    pub(crate) fn span(&self, left420: i32, end420: i32) -> (i32, i32) {
        (self.px(left420), self.end(end420))
    }

    /// How many more lines `text` takes at `size` in the box [`Ctx::span`]
    /// gives on this display than on the default phone. The default phone's
    /// layout is the reference its dumps keep (one title line and one
    /// summary line a row, whatever their length); a condition grows a row
    /// by the lines its text gains: a larger font, a narrower screen.
    pub(crate) fn extra_lines(&self, text: &str, size: TextSize, left420: i32, end420: i32) -> i32 {
        let default = Display::default();
        let (left, right) = self.span(left420, end420);
        let here = super::text::lines(
            text,
            super::text::size_px(size, &self.display),
            right - left,
        );
        let there = super::text::lines(
            text,
            super::text::size_px(size, &default),
            default.width - left420 - end420,
        );
        (here - there).max(0)
    }
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

/// A dialog panel, centred on the screen: its edges.
pub(super) struct Panel {
    pub(super) left: i32,
    pub(super) right: i32,
    pub(super) top: i32,
    pub(super) bottom: i32,
}

impl Panel {
    /// A panel as wide as on the default phone (954 px at 420 dpi) or the
    /// screen less its margins where that is narrower, centred.
    pub(super) fn centred(ctx: &Ctx, height: i32) -> Panel {
        let width = ctx.px(954).min(ctx.width() - 2 * ctx.px(63));
        let height = ctx.px(height);
        let (left, top) = ((ctx.width() - width) / 2, (ctx.height() - height) / 2);
        Panel {
            left,
            right: left + width,
            top,
            bottom: top + height,
        }
    }

    /// An x written on the default phone (the panel spans 63..1017 there)
    /// counted from the panel's left edge.
    pub(super) fn x(&self, ctx: &Ctx, x420: i32) -> i32 {
        self.left + ctx.px(x420 - 63)
    }

    /// An x written on the default phone counted from the panel's right edge.
    pub(super) fn x_end(&self, ctx: &Ctx, x420: i32) -> i32 {
        self.right - ctx.px(1017 - x420)
    }

    /// A y written as a distance below the panel's top at 420 dpi.
    pub(super) fn y(&self, ctx: &Ctx, dy420: i32) -> i32 {
        self.top + ctx.px(dy420)
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
pub(super) fn window(ctx: &Ctx, package: &str, content: Vec<View>) -> View {
    let screen = ctx.screen();
    let mut frame = v("android.widget.FrameLayout", package, screen).id("android:id/content");
    frame.children = content;
    v("android.widget.FrameLayout", package, screen)
        .style(Style::Screen)
        .child(v("android.widget.LinearLayout", package, screen).child(frame))
}

pub(super) fn blank(ctx: &Ctx, title: &str, package: &str) -> View {
    let p = package;
    window(
        ctx,
        p,
        vec![
            v(
                "android.widget.ImageButton",
                p,
                Bounds::new(0, ctx.status_bar(), ctx.px(147), ctx.px(265)),
            )
            .desc("Navigate up")
            .style(Style::Icon)
            .tap(Cmd::Back),
            v(
                "android.widget.TextView",
                p,
                Bounds::new(ctx.px(63), ctx.px(300), ctx.end(63), ctx.px(480)),
            )
            .text(ctx.t(title))
            .style(Style::Heading),
        ],
    )
}
