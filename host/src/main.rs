//! The `droidscore` binary: parse arguments, call the library, map the error to
//! a documented exit code (see `cli::CliError::exit_code`).

use clap::Parser;

fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("DROIDSCORE_LOG"))
        .with_writer(std::io::stderr)
        .init();
    // Before any HTTP client is built (here or in droidscore-harness).
    droidscore::agent::http_client::install_crypto_provider();
    let cli = droidscore::cli::Cli::parse();
    if let Err(e) = droidscore::cli::run(cli) {
        eprintln!("error: {e}");
        std::process::exit(e.exit_code());
    }
}
