//! `grail online`: the history's transactions streamed through core's online checkers, each
//! anomaly printed when the transaction that closes it arrives.

use crate::load::Progress;
use grail_core::History;
use std::time::Instant;

/// `grail online`: stream the history's transactions, in completion order, through the checker.
pub fn online(
    progress: &Progress,
    h: &History,
    window: usize,
    max_length: usize,
    json: bool,
    quiet: bool,
) -> Result<u8, String> {
    use grail_core::online::cycles::{OnlineChecker, OnlineOptions, OnlineTxn};
    use std::io::Write;
    let mut checker = OnlineChecker::new(OnlineOptions { window, max_length, ..Default::default() });
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let t0 = Instant::now();
    for t in 0..h.txns.len() as u32 {
        for a in checker.push(&OnlineTxn::from_history(h, t)) {
            if quiet {
                continue;
            }
            let line = if json {
                serde_json::to_string(&a).unwrap_or_default()
            } else {
                grail_core::online::cycles::render_anomaly(&a)
            };
            writeln!(out, "{line}").map_err(|e| e.to_string())?;
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    let summary = checker.summary();
    if json {
        writeln!(out, "{}", serde_json::to_string(&summary).unwrap_or_default()).map_err(|e| e.to_string())?;
    } else {
        write!(out, "{}", grail_core::online::cycles::render_summary(&summary)).map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())?;
    let peak = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).map(|l| l.trim_start_matches("VmHWM:").trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    progress.say(format_args!(
        "online: {} transactions in {secs:.3} s ({:.0} transactions/s); window {window}; peak resident memory {peak}",
        h.txns.len(),
        h.txns.len() as f64 / secs.max(1e-9)
    ));
    Ok(if summary.stats.cycles == 0 { 0 } else { 1 })
}

/// `grail online` with timestamps: committed transactions through the windowed checker (Aion),
/// in input order; each violation printed when it is final.
pub fn online_timestamps(
    progress: &Progress,
    h: &History,
    window: usize,
    level: &str,
    json: bool,
    quiet: bool,
) -> Result<u8, String> {
    use grail_core::online::timestamps::{
        render_stats, render_violation, TsLevel, TsOnlineChecker, TsOnlineOptions, TsTxn,
    };
    use std::io::Write;
    let level = if level == "SER" { TsLevel::Ser } else { TsLevel::Si };
    let mut checker = TsOnlineChecker::new(TsOnlineOptions { window, level, ..Default::default() });
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let t0 = Instant::now();
    let mut untimed = 0usize;
    let print = |out: &mut std::io::BufWriter<std::io::StdoutLock>,
                 vs: Vec<grail_core::online::timestamps::TsViolation>| {
        for v in vs {
            if quiet {
                continue;
            }
            let line = if json { serde_json::to_string(&v).unwrap_or_default() } else { render_violation(&v) };
            writeln!(out, "{line}").map_err(|e| e.to_string())?;
        }
        Ok::<(), String>(())
    };
    for t in 0..h.txns.len() as u32 {
        match TsTxn::from_history(h, t) {
            Some(txn) => {
                let vs = checker.push(&txn);
                print(&mut out, vs)?;
            }
            None if h.txns[t as usize].status == grail_core::Status::Committed => untimed += 1,
            None => {}
        }
    }
    let vs = checker.finish();
    print(&mut out, vs)?;
    let secs = t0.elapsed().as_secs_f64();
    let stats = checker.stats();
    if json {
        writeln!(out, "{}", serde_json::json!({"stats": stats, "untimed": untimed})).map_err(|e| e.to_string())?;
    } else {
        write!(out, "{}", render_stats(&stats)).map_err(|e| e.to_string())?;
        if untimed > 0 {
            writeln!(out, "note: {untimed} committed transactions carry no start and commit timestamps: not checked")
                .map_err(|e| e.to_string())?;
        }
    }
    out.flush().map_err(|e| e.to_string())?;
    progress.say(format_args!("online (timestamps): {} transactions in {secs:.3} s; window {window}", h.txns.len()));
    Ok(if stats.violations == 0 { 0 } else { 1 })
}
