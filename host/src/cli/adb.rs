//! `droidscore adb latency`: what an observation of a phone costs through
//! the adb server, part by part (dump, read-back, screenshot, PNG encode,
//! foreground) beside a bare `echo` round trip for the transport alone.

use std::time::Instant;

use clap::{Args, Subcommand};

use super::error::CliError;
use super::shared::{json, out, DeviceArgs};
use crate::report::stats::{spread, Spread};
use crate::run::AdbDevices;
use droidscore_phone::adb;
use droidscore_phone::{ObserveTiming, Phone};

#[derive(Debug, Subcommand)]
pub enum AdbCommand {
    /// Time observations through the adb server: dump, read-back, screenshot,
    /// foreground, and a bare `echo` round trip for the transport itself.
    Latency(LatencyArgs),
}

#[derive(Debug, Args)]
pub struct LatencyArgs {
    #[command(flatten)]
    pub device: DeviceArgs,
    /// Observations to time (after one warm-up).
    #[arg(short = 'n', long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(3..))]
    pub count: u32,
    /// Print the figures as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn adb(command: AdbCommand) -> Result<(), CliError> {
    match command {
        AdbCommand::Latency(args) => latency(args),
    }
}

/// Timings of one part of an observation, across the sample.
#[derive(Debug, serde::Serialize)]
pub struct Part {
    pub part: &'static str,
    pub ms: Spread,
    /// Median of this part over the median total.
    pub share: f64,
}

#[derive(Debug, serde::Serialize)]
pub struct Latency {
    pub serial: String,
    pub virtual_phone: bool,
    pub observations: u32,
    pub parts: Vec<Part>,
}

/// `droidscore adb latency`: observe `count` times (with a screenshot) after
/// one warm-up, and time a bare `echo` beside each for the transport alone.
fn latency(args: LatencyArgs) -> Result<(), CliError> {
    let mut phones = AdbDevices::from(&args.device).phones()?;
    if phones.len() != 1 {
        return Err(CliError::BadInput(
            "adb latency times one phone: pass --serial SERIAL".into(),
        ));
    }
    let mut phone = phones.remove(0);
    phone.observe(true)?;
    let mut timings = Vec::new();
    let mut echo = Vec::new();
    for _ in 0..args.count {
        let t = Instant::now();
        phone.shell_ok("echo")?;
        echo.push(t.elapsed().as_secs_f64() * 1e3);
        let obs = phone.observe(true)?;
        timings.push(obs.timing.expect("adb observations are timed"));
    }
    let total = spread(&timings.iter().map(|t| t.total_ms).collect::<Vec<_>>());
    let part = |name: &'static str, values: Vec<f64>| {
        let ms = spread(&values);
        Part {
            part: name,
            share: ms.median / total.median,
            ms,
        }
    };
    let of = |field: fn(&ObserveTiming) -> f64| timings.iter().map(field).collect::<Vec<_>>();
    let parts = vec![
        part("dump (uiautomator dump)", of(|t| t.dump_ms)),
        part("read back (cat)", of(|t| t.read_ms)),
        part("screencap (raw, over the wire)", of(|t| t.screencap_ms)),
        part("png encode (host)", of(|t| t.png_ms)),
        part("foreground (dumpsys window)", of(|t| t.foreground_ms)),
        part("transport: one `echo` round trip", echo),
        Part {
            part: "total observation",
            share: 1.0,
            ms: total,
        },
    ];
    let result = Latency {
        serial: phone.serial().to_string(),
        virtual_phone: phone.is_virtual(),
        observations: args.count,
        parts,
    };
    if args.json {
        return json(&result);
    }
    let rows: Vec<Vec<String>> = result
        .parts
        .iter()
        .map(|p| {
            vec![
                p.part.to_string(),
                format!("{:.2}", p.ms.median),
                format!("{:.2}", p.ms.mad),
                format!("{:.2}–{:.2}", p.ms.min, p.ms.max),
                format!("{:.0}%", p.share * 100.0),
            ]
        })
        .collect();
    let mut text = format!(
        "{} observations with a screenshot of {}{} through the adb server at {}\n",
        result.observations,
        result.serial,
        if result.virtual_phone {
            " (virtual phone)"
        } else {
            ""
        },
        adb::server_address()
    );
    text.push_str(&crate::report::table(
        &[
            "part",
            "median ms",
            "MAD ms",
            "range ms",
            "share of median total",
        ],
        &rows,
    ));
    text.push_str("Each part is one or more adb shell round trips; the `echo` line is the round trip alone.\n");
    out(&text)
}
