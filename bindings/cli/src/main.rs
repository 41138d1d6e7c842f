//! `grail`: check a transaction history for isolation anomalies.
//!
//! Exit codes: 0 all requested levels hold (or, for `stats`, no anomaly), 1 a level is violated
//! (or an anomaly was found; or a verdict is unknown), 2 bad input or usage.
//!
//! A thin front end: `args` parses the command line, `load` hands the file's bytes to core's
//! session, and each command prints what core's one door (`grail_core::api`) answers.

mod args;
mod bytes;
mod check;
mod commands;
mod db;
mod elle;
mod hermitage;
mod load;
mod online;
mod pipe;
mod record;
mod script;
mod source;

use args::{Cli, Cmd, Input};
use clap::Parser;
use grail_core::{CheckOptions, Level};
use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    pipe::quiet_on_closed_stdout();
    // Installed (or linked) under the name elle-cli, grail is elle-cli.
    let argv0 = std::env::args().next().unwrap_or_default();
    if Path::new(&argv0).file_stem().is_some_and(|s| s == "elle-cli") {
        let args: Vec<String> = std::env::args().skip(1).collect();
        return ExitCode::from(elle::run("elle-cli", &args));
    }
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(msg) => {
            eprintln!("grail: {msg}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<u8, String> {
    let usage = |e: grail_core::Error| e.to_string();
    match cli.cmd {
        Cmd::Check {
            input,
            levels,
            json,
            dot,
            html,
            certificate,
            max_steps,
            timeout,
            max_cycles,
            strategy,
            max_depth,
            analyze,
            max_length,
            max_counted,
            register_mode,
            white_box,
        } => {
            let levels = Level::parse_list(&levels).map_err(usage)?;
            let strategy = grail_core::strategy::Strategy::parse(&strategy, max_depth).map_err(usage)?;
            if strategy != grail_core::strategy::Strategy::Scc {
                // GRAIL's checkers have no budget and give no counterexample files.
                let unsupported = [
                    ("--dot", dot.is_some()),
                    ("--html", html.is_some()),
                    ("--certificate", certificate.is_some()),
                    ("--max-steps", max_steps.is_some()),
                    ("--timeout", timeout.is_some()),
                ];
                if let Some((flag, _)) = unsupported.iter().find(|(_, given)| *given) {
                    return Err(format!(
                        "{flag} works with the default strategy (scc) only, not with --strategy {}",
                        strategy.name()
                    ));
                }
                return check::check_with_strategy(&input, &levels, strategy, json);
            }
            let opts = CheckOptions {
                levels,
                max_steps,
                max_cycles,
                analyze: analyze.then(|| grail_core::AnalyzeOptions {
                    max_length,
                    max_cycles: max_counted,
                    ..Default::default()
                }),
                register_mode: grail_core::report::RegisterMode::parse(&register_mode).map_err(usage)?,
                white_box: grail_core::timestamps::WhiteBoxMode::parse(&white_box).map_err(usage)?,
                ..CheckOptions::default()
            };
            check::check(input, &opts, timeout, &check::Outputs { json, dot, html, certificate })
        }
        Cmd::Elle { args } => Ok(elle::run("grail elle", &args)),
        Cmd::Online { input, follow, window, max_length, json, quiet, timestamps, rounds, level } => {
            let o =
                online::Options { window, max_length, json, quiet, timestamps, rounds, level, wal: input.wal.clone() };
            if follow || input.history == Path::new("-") {
                return online::live(&input, follow, &o);
            }
            // The log goes to the checker (`set_wal`), not into the history read: a version
            // order in the history is one it claims, which core's online door refuses.
            let (session, progress) = load::load(&args::Input { wal: None, ..input.clone() }, false)?;
            online::whole(&session, &progress, &o)
        }
        Cmd::Verify { input, certificate, json } => check::verify(&input, &certificate, json),
        Cmd::Stats { input, json } => commands::stats(input, json),
        Cmd::Generate(g) => commands::generate(&g),
        Cmd::Export { history, wal, input_format, verbose, format, out, max_depth } => {
            let input = Input { history, wal, format: input_format, verbose, spans: false, initial_value: None };
            commands::export(input, &format, &out, max_depth)
        }
        Cmd::Graph { input, json: _ } => commands::graph(input),
        Cmd::Hermitage { db, isolation, tests, json, out, block_ms } => {
            let levels = isolation.iter().map(|l| grail_core::record::Isolation::parse(l)).collect::<Result<_, _>>();
            let columns = if tests.is_empty() {
                grail_core::record::hermitage::Column::ALL.to_vec()
            } else {
                let parse = |t: &String| {
                    grail_core::record::hermitage::Column::parse(t).ok_or_else(|| {
                        format!("unknown test {t:?}: expected G0, G1a, G1b, G1c, OTV, PMP, P4, G-single, G2-item or G2")
                    })
                };
                tests.iter().map(parse).collect::<Result<_, _>>()?
            };
            let block_after = std::time::Duration::from_millis(block_ms);
            let o = hermitage::Options { url: db, levels: levels.map_err(usage)?, columns, json, out, block_after };
            hermitage::run(&o)
        }
        Cmd::Record(r) => record::run(&r),
    }
}
