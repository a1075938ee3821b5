//! Files in shared storage as a phone lists them to the shell: one
//! `find` over the standard directories with `stat` for each file, the way
//! AndroidWorld reads files without root.

use std::collections::BTreeMap;

use super::Record;

/// Shared storage, as `find` and `stat` name its files.
pub(crate) const STORAGE: &str = "/storage/emulated/0";

/// The directories a files check reads.
pub(crate) const DIRS: [&str; 5] = [
    "Documents",
    "Download",
    "Pictures",
    "DCIM",
    "Android/data/com.dimowner.audiorecorder/files/Music/records",
];

/// The command that lists them: size, mtime (s) and path per line.
pub(crate) fn list_command() -> String {
    let dirs: Vec<String> = DIRS.iter().map(|d| format!("{STORAGE}/{d}")).collect();
    format!(
        "find {} -type f -exec stat -c '%s %Y %n' {{}} +",
        dirs.join(" ")
    )
}

/// Records from [`list_command`]'s output (ids in listing order: files
/// have none of their own, so a check on files never names `_id`).
pub(crate) fn files_from_stat(stdout: &str) -> Vec<Record> {
    stdout
        .lines()
        .filter_map(|line| {
            let mut parts = line.splitn(3, ' ');
            let (size, mtime, path) = (parts.next()?, parts.next()?, parts.next()?);
            let relative = path.strip_prefix(&format!("{STORAGE}/"))?;
            let mtime = mtime.parse::<i64>().ok()? * 1000;
            Some((size.to_string(), mtime, relative.to_string()))
        })
        .enumerate()
        .map(|(i, (size, mtime, path))| Record {
            id: i as u64 + 1,
            fields: BTreeMap::from([
                ("path".to_string(), path),
                ("size".to_string(), size),
                ("mtime".to_string(), mtime.to_string()),
            ]),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_become_file_records_relative_to_storage() {
        let out = "482133 1795564800 /storage/emulated/0/Documents/lease 2026.pdf\n\
                   garbage\n";
        let files = files_from_stat(out);
        assert_eq!(files.len(), 1);
        assert_eq!(
            files[0].text("path"),
            "Documents/lease 2026.pdf",
            "spaces kept"
        );
        assert_eq!(files[0].text("mtime"), "1795564800000");
        assert!(list_command().ends_with("-type f -exec stat -c '%s %Y %n' {} +"));
    }
}
