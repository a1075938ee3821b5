//! The simulator's laid-out view tree: what a screen is made of after layout.
//! The uiautomator dump and the PNG screenshot are both derived from it, so what
//! the agent reads and what it sees cannot disagree.

use super::cmd::Cmd;
use crate::uiautomator::{Bounds, Node};

/// How the screenshot renderer draws a view. The dump does not show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Style {
    /// A plain container: nothing drawn of its own.
    #[default]
    Container,
    /// Screen background (the theme's surface).
    Screen,
    /// The status bar across the top (its children: the clock and status icons).
    StatusBar,
    /// The navigation bar across the bottom (Back, Home, Overview buttons).
    NavBar,
    /// A navigation bar button; its `content_desc` says which.
    NavButton,
    /// A large page title (collapsing toolbar).
    Heading,
    /// Body text of a given size.
    Text(TextSize),
    /// A tappable list row (a message's row draws its bubble).
    Row,
    /// An icon-only view: the Material Symbol its `content_desc` (or its row's
    /// title) names, a contact's avatar, or a launcher icon.
    Icon,
    /// An on/off switch; `checked` gives its state.
    Switch,
    /// A slider; `View::progress` gives its position in 0.0..=1.0.
    SeekBar,
    /// A radio button; `checked` gives its state.
    Radio,
    /// A filled text button.
    Button,
    /// A floating action button (round, filled).
    Fab,
    /// A text field; `focused` draws a caret line, empty text shows `hint`.
    EditText,
    /// A dialog panel over a dimmed screen.
    Dialog,
    /// A tab in a tab bar; `selected` highlights it.
    Tab,
    /// A large clock face time, e.g. an alarm's time.
    BigTime,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TextSize {
    Small,
    #[default]
    Body,
    Title,
}

/// One laid-out view. `node` carries every attribute the dump shows (its
/// `children` and `index` are filled in by [`View::to_node`]).
#[derive(Debug, Clone, Default)]
pub struct View {
    pub node: Node,
    pub style: Style,
    /// Slider position, 0.0..=1.0, for `Style::SeekBar`.
    pub progress: Option<f32>,
    /// Placeholder text drawn in an empty `Style::EditText`.
    pub hint: Option<String>,
    /// What a tap on this view does (the tap lands on the deepest clickable view).
    pub on_tap: Option<Cmd>,
    /// What a long press does; falls back to `on_tap` when absent.
    pub on_long_press: Option<Cmd>,
    /// Views that exist but are scrolled out of sight are not dumped (nor drawn).
    pub children: Vec<View>,
}

impl View {
    /// The uiautomator node for this view and its visible descendants: children
    /// with empty bounds are skipped, and `index` keeps the position in the parent,
    /// with gaps where skipped children were (as uiautomator does).
    pub(crate) fn to_node(&self) -> Node {
        let mut node = self.node.clone();
        node.children = self
            .children
            .iter()
            .enumerate()
            .filter(|(_, child)| !child.node.bounds.is_empty())
            .map(|(i, child)| {
                let mut n = child.to_node();
                n.index = i as u32;
                n
            })
            .collect();
        node
    }

    /// Depth-first, pre-order walk over visible views (those with non-empty bounds).
    pub fn walk(&self) -> impl Iterator<Item = &View> {
        let mut stack = vec![self];
        std::iter::from_fn(move || {
            let view = stack.pop()?;
            stack.extend(
                view.children
                    .iter()
                    .rev()
                    .filter(|c| !c.node.bounds.is_empty()),
            );
            Some(view)
        })
    }

    pub fn bounds(&self) -> Bounds {
        self.node.bounds
    }
}
