//! `droidscore ui FILE`: a uiautomator dump captured from any phone, as the
//! numbered element list an agent sees, the parsed tree as JSON, or
//! re-serialised in uiautomator's exact form.

use std::path::PathBuf;

use clap::Args;

use super::error::CliError;
use super::shared::{json, out};
use droidscore_phone::uiautomator;

#[derive(Debug, Args)]
pub struct UiArgs {
    /// A uiautomator dump (`uiautomator dump` output, or its file).
    pub file: PathBuf,
    /// Print the numbered element list an agent sees (the default).
    #[arg(long, group = "format")]
    pub elements: bool,
    /// Print the parsed tree as JSON.
    #[arg(long, group = "format")]
    pub json: bool,
    /// Re-serialise in uiautomator's exact form.
    #[arg(long, group = "format")]
    pub xml: bool,
}

pub fn ui(args: UiArgs) -> Result<(), CliError> {
    let bytes = std::fs::read(&args.file)
        .map_err(|e| CliError::invalid(format!("failed to read {}", args.file.display()), e))?;
    let hierarchy = match uiautomator::parse(&bytes) {
        Ok(uiautomator::Dump::Hierarchy { hierarchy, .. }) => hierarchy,
        Ok(uiautomator::Dump::DumpedTo(path)) => {
            return Err(CliError::BadInput(format!(
                "{}: holds only \"dumped to {path}\": read that file from the phone",
                args.file.display()
            )))
        }
        Ok(uiautomator::Dump::Failed(failure)) => {
            return Err(CliError::BadInput(format!(
                "{}: the phone's dump failed: {failure:?}",
                args.file.display()
            )))
        }
        Err(e) => return Err(CliError::invalid(args.file.display().to_string(), e)),
    };
    if args.json {
        json(&hierarchy)
    } else if args.xml {
        out(&(uiautomator::to_xml(&hierarchy) + "\n"))
    } else {
        out(&uiautomator::render(&uiautomator::elements(&hierarchy)))
    }
}
