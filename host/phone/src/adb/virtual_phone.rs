//! What the adb backend knows a virtual phone by, and where it reads app
//! data: the maker `getprop ro.product.manufacturer` names and the content
//! provider holding `app/…` keys. The virtual phone (`vphone`) answers to
//! these; the backend never looks into it.

/// `ro.product.manufacturer` of a virtual phone, which can be put in any
/// task variant's state.
pub(crate) const VIRTUAL_PHONE_MANUFACTURER: &str = "droidscore";

/// The content provider serving the simulator's app data.
pub(crate) const APP_DATA_URI: &str = "content://droidscore.sim/app";
