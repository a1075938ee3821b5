//! uiautomator dumps: the node tree, parsing real `uiautomator dump` output,
//! serialising back in uiautomator's exact form, selectors, and the element list
//! an agent reads.

mod node;

pub use node::{Bounds, ExtraAttr, Hierarchy, Node};
