//! The units the apps that keep their own databases hold a value in, and
//! the records' words for them (`appdb` writes and reads the files): Pro
//! Expense's amounts in integer cents and categories by id, Tasks.org's
//! priority 0–3 and completion time, Simple Calendar Pro's times in whole
//! seconds. A value the app cannot hold is an error saying why. Pure
//! functions of text, so the records, the simulator's screens and the
//! databases' codecs share one reading.

/// Pro Expense's categories by id, 1 first, as the app names them
/// (arduia/ProExpense `ExpenseCategory`; AndroidWorld's
/// `Expense.category_id_to_name` is the same).
pub const CATEGORIES: [&str; 11] = [
    "Others",
    "Income",
    "Food",
    "Housing",
    "Social",
    "Entertainment",
    "Transportation",
    "Clothes",
    "Health Care",
    "Education",
    "Donation",
];

/// Tasks.org's priorities by the app's number (0 high … 3 none).
pub const IMPORTANCE: [&str; 4] = ["high", "medium", "low", "none"];

/// `12.50`, `$12.5`, `12` in cents. More than two decimals, a sign or
/// anything but digits and one point is not an amount the app takes.
pub fn cents(text: &str) -> Result<i64, String> {
    let t = text.trim();
    let t = t.strip_prefix('$').unwrap_or(t);
    let bad =
        || format!("{text:?} is not an amount in dollars and cents (the app keeps integer cents)");
    let (whole, fraction) = t.split_once('.').unwrap_or((t, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && fraction.is_empty())
        || !digits(whole)
        || !digits(fraction)
        || fraction.len() > 2
        || whole.len() > 12
    {
        return Err(bad());
    }
    let whole: i64 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| bad())?
    };
    let fraction: i64 = format!("{fraction:0<2}").parse().map_err(|_| bad())?;
    Ok(whole * 100 + fraction)
}

/// Cents as the records write an amount: `12.50`.
pub fn dollars(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    format!("{sign}{}.{:02}", cents.abs() / 100, cents.abs() % 100)
}

/// A category's id, its name matched without regard to case.
pub fn category_id(name: &str) -> Result<i64, String> {
    CATEGORIES
        .iter()
        .position(|c| c.eq_ignore_ascii_case(name.trim()))
        .map(|i| i as i64 + 1)
        .ok_or_else(|| {
            format!(
                "{name:?} is not a Pro Expense category (one of {})",
                CATEGORIES.join(", ")
            )
        })
}

/// The category of an id, or the id itself where the app has no such one.
pub fn category_name(id: i64) -> String {
    usize::try_from(id - 1)
        .ok()
        .and_then(|i| CATEGORIES.get(i))
        .map_or_else(|| id.to_string(), |c| c.to_string())
}

/// A priority's number, its name matched without regard to case.
pub fn importance(text: &str) -> Result<i64, String> {
    IMPORTANCE
        .iter()
        .position(|i| i.eq_ignore_ascii_case(text.trim()))
        .map(|i| i as i64)
        .ok_or_else(|| {
            format!(
                "{text:?} is not a Tasks.org priority (one of {})",
                IMPORTANCE.join(", ")
            )
        })
}

/// The name of a priority number, or the number where the app has no such one.
pub fn importance_name(number: i64) -> String {
    usize::try_from(number)
        .ok()
        .and_then(|i| IMPORTANCE.get(i))
        .map_or_else(|| number.to_string(), |i| i.to_string())
}

/// `1` done, `0` open.
pub fn completed(text: &str) -> Result<bool, String> {
    match text.trim() {
        "1" => Ok(true),
        "0" => Ok(false),
        _ => Err(format!("{text:?} is not 1 (done) or 0 (open)")),
    }
}

/// A time in ms as whole seconds.
pub fn seconds(ms: &str) -> Result<i64, String> {
    let at: i64 = ms
        .parse()
        .map_err(|_| format!("{ms:?} is not a time in ms"))?;
    if at % 1000 != 0 {
        return Err(format!(
            "{ms} ms is not a whole second (the app keeps seconds)"
        ));
    }
    Ok(at / 1000)
}
