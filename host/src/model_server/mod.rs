//! The model server droidscore starts itself, and its lifecycle: on this
//! machine for one run (`local`: `droidscore-device serve` as a child,
//! killed when the run ends), or on an adb phone (`on_phone`: deployed over
//! adb, forwarded, kept alive during a run and left running after it, or
//! stopped by `droidscore device stop`, and requiring the bearer token of
//! `token`). Either is a [`Served`] to the run that uses it. A server is deployed here and decides nothing: the agent
//! that talks to it only gets its base URL and model name.

pub mod local;
pub mod on_phone;
mod served;
pub mod token;

pub use served::Served;
