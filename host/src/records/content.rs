//! PLACEHOLDER until the s19-content branch lands (replaced by it at merge).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    Null,
    Text(String),
    Blob,
}
pub type Row = Vec<(String, Cell)>;

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ContentError(String);

pub fn render(rows: &[Row]) -> String {
    if rows.is_empty() {
        return "No result found.\n".into();
    }
    let mut out = String::new();
    for (i, row) in rows.iter().enumerate() {
        let cols: Vec<String> = row
            .iter()
            .map(|(c, v)| match v {
                Cell::Null => format!("{c}=NULL"),
                Cell::Blob => format!("{c}=BLOB"),
                Cell::Text(t) => format!("{c}={t}"),
            })
            .collect();
        out += &format!("Row: {i} {}\n", cols.join(", "));
    }
    out
}

pub fn parse(output: &str, projection: &[&str]) -> Result<Vec<Row>, ContentError> {
    if output.trim() == "No result found." {
        return Ok(vec![]);
    }
    let mut rows = Vec::new();
    for line in output.split("\nRow: ") {
        let line = line.trim_start_matches("Row: ").trim_end_matches('\n');
        let (_, mut rest) = line.split_once(' ').ok_or_else(|| ContentError(line.into()))?;
        let mut row = Vec::new();
        for (i, col) in projection.iter().enumerate() {
            rest = rest
                .strip_prefix(&format!("{col}="))
                .ok_or_else(|| ContentError(format!("expected {col}=")))?;
            let end = match projection.get(i + 1) {
                Some(next) => rest
                    .find(&format!(", {next}="))
                    .ok_or_else(|| ContentError(format!("expected , {next}=")))?,
                None => rest.len(),
            };
            let v = &rest[..end];
            row.push((
                col.to_string(),
                match v {
                    "NULL" => Cell::Null,
                    "BLOB" => Cell::Blob,
                    t => Cell::Text(t.into()),
                },
            ));
            rest = rest.get(end + 2..).unwrap_or("");
        }
        rows.push(row);
    }
    Ok(rows)
}
