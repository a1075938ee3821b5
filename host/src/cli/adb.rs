//! The adb subcommands and the phones `run --phone adb` drives: choosing
//! devices (`--serial`, `ANDROID_SERIAL`, `--serial all`), serving the
//! virtual phone, and timing observations through the adb server.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{CliError, DeviceArgs, LatencyArgs, ServeArgs};
use crate::report::stats::{spread, Spread};
use crate::task;
use droidscore_phone::adb::{self, AdbOptions, AdbPhone, Deadlines, ServerTransport};
use droidscore_phone::adbd::{faults::Faults, Server};
use droidscore_phone::vphone::VirtualPhone;
use droidscore_phone::{ObserveTiming, Phone};

/// The serials to drive: the one named, every attached device for `all`, or
/// the only one attached.
pub fn serials(device: &DeviceArgs) -> Result<Vec<String>, CliError> {
    if let Some(serial) = device.serial.as_deref().filter(|s| *s != "all") {
        return Ok(vec![serial.to_string()]);
    }
    let server = adb::server_address();
    let listed = adb::devices(server).map_err(|e| {
        CliError::Phone(droidscore_phone::PhoneError::Device(format!(
            "{e} (is the adb server running? `adb start-server`)"
        )))
    })?;
    let ready: Vec<String> = listed
        .iter()
        .filter(|d| d.state == "device")
        .map(|d| d.serial.clone())
        .collect();
    let described = || {
        listed
            .iter()
            .map(|d| format!("{} ({})", d.serial, d.state))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match (device.serial.as_deref(), ready.len()) {
        (_, 0) => Err(CliError::Phone(droidscore_phone::PhoneError::Device(format!(
            "no adb device in state `device`{}",
            if listed.is_empty() {
                String::new()
            } else {
                format!(": {}", described())
            }
        )))),
        (Some("all"), _) | (None, 1) => Ok(ready),
        (None, _) => Err(CliError::BadInput(format!(
            "more than one adb device ({}): pass --serial SERIAL, --serial all, or set ANDROID_SERIAL",
            described()
        ))),
        (Some(_), _) => unreachable!("a named serial returned above"),
    }
}

/// Connect to each chosen phone through the adb server.
pub fn phones(device: &DeviceArgs) -> Result<Vec<AdbPhone>, CliError> {
    let server = adb::server_address();
    serials(device)?
        .into_iter()
        .map(|serial| {
            AdbPhone::new(
                Box::new(ServerTransport::with_deadlines(
                    server,
                    &serial,
                    deadlines(device),
                )),
                AdbOptions::default(),
            )
            .map_err(|e| {
                CliError::Phone(droidscore_phone::PhoneError::Device(format!(
                    "{serial}: {e}"
                )))
            })
        })
        .collect()
}

/// `--phone-timeout`: every command, and transfers 20 times as long.
pub fn deadlines(device: &DeviceArgs) -> Deadlines {
    let command = Duration::from_secs(device.phone_timeout);
    Deadlines {
        shell: command,
        transfer: command * 20,
    }
}

pub fn device_wait(device: &DeviceArgs) -> Duration {
    Duration::from_secs(device.device_wait)
}

/// `droidscore sim serve`: until killed.
pub fn serve(args: ServeArgs) -> Result<(), CliError> {
    let tasks = task::Suite::from_arg(args.suite.as_deref()).load()?;
    let phone = VirtualPhone::new(task::SuiteSetups(tasks))?;
    if let Some(task) = &args.task {
        phone.load(task, &args.variant, args.seed)?;
    }
    let server = Server::bind(&args.listen)
        .map_err(|e| CliError::io(format!("failed to listen on {}", args.listen), e))?;
    let addr = server.local_addr();
    if (5555..=5585).contains(&addr.port()) {
        tracing::warn!(
            "port {} is in the adb server's emulator scan range (5555–5585): `adb devices` will also list it as emulator-{}; always pass -s",
            addr.port(),
            addr.port() - 1
        );
    }
    // The address on stdout, so a script can wait for it and read the port.
    println!("{addr}");
    eprintln!("virtual phone listening; `adb connect {addr}`");
    let faults = Faults {
        drop_after: args.drop_after,
        refuse_for: args.refuse_for.map(Duration::from_secs).unwrap_or_default(),
        stall_after: args.stall_after,
    };
    let served = if faults.any() {
        eprintln!("with faults: {faults:?}");
        droidscore_phone::adbd::faults::serve(server, Arc::new(phone), faults)
    } else {
        server.serve(Arc::new(phone))
    };
    served.map_err(|e| CliError::io(format!("virtual phone on {addr}"), e))
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
pub fn latency(args: LatencyArgs) -> Result<(), CliError> {
    let mut phones = phones(&args.device)?;
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
        return super::shared::json(&result);
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
    super::shared::out(&text)
}
