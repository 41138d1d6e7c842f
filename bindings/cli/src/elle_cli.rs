//! The `elle-cli` binary: grail answering elle-cli's command line (see `elle.rs`).

mod elle;
mod pipe;

use std::process::ExitCode;

fn main() -> ExitCode {
    pipe::quiet_on_closed_stdout();
    let args: Vec<String> = std::env::args().skip(1).collect();
    ExitCode::from(elle::run("elle-cli", &args))
}
