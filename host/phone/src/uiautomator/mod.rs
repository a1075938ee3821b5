//! uiautomator dumps: the node tree, parsing real `uiautomator dump` output,
//! serialising back in uiautomator's exact form, selectors, and the element list
//! an agent reads.

mod attrs;
#[cfg(test)]
mod bound_tests;
mod elements;
mod error;
mod node;
mod parse;
mod select;
mod serialize;

pub use elements::{elements, push_state, quote_into, render, Element};

pub use error::ParseError;
pub use node::{Bounds, ExtraAttr, Hierarchy, Node};
pub use parse::{parse, parse_xml, Dump, DumpFailure};
pub use select::{FullMatch, Selector, SelectorError};
pub use serialize::{to_xml, to_xml_styled, XmlStyle};

#[cfg(test)]
mod fixtures_tests;
#[cfg(test)]
mod fuzz_tests;
