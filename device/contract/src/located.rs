//! Reading a contract document from JSON, naming where it is wrong: the
//! path serde_path_to_error found (`model.threads`, `[1].avg_ts`), or the
//! document's own name when the root itself is wrong.

/// `T` from `de`, or the field that is wrong and why.
pub(crate) fn read<'de, D, T>(de: D, root: &str) -> Result<T, (String, serde_json::Error)>
where
    D: serde::Deserializer<'de, Error = serde_json::Error>,
    T: serde::Deserialize<'de>,
{
    serde_path_to_error::deserialize(de).map_err(|e| {
        let field = e.path().to_string();
        let field = if field == "." {
            root.to_string()
        } else {
            field
        };
        (field, e.into_inner())
    })
}
