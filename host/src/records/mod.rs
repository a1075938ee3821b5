//! Records read from a phone's content providers (SMS, contacts, call log, calendar).
pub mod content;
