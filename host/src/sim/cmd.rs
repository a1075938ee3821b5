//! What a tap on a simulator view does.

/// A command bound to a view; the simulator executes it when the view is tapped.
#[derive(Debug, Clone, PartialEq)]
pub enum Cmd {
    /// Placeholder until the simulator lands.
    Nothing,
}
