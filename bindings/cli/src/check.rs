//! `grail check`: the arguments made a request to core's session, and its report printed.

use crate::args::Input;
use crate::load::load;
use grail_core::render::text;
use grail_core::strategy::Strategy;
use grail_core::{CheckOptions, Level, Report};
use std::path::{Path, PathBuf};

/// What `grail check` writes besides the report on standard output.
pub struct Outputs {
    pub json: bool,
    pub dot: Option<PathBuf>,
    pub html: Option<PathBuf>,
    pub certificate: Option<PathBuf>,
}

/// Check with the default engine: exit 0 only when every level asked for holds.
pub fn check(mut input: Input, opts: &CheckOptions, timeout: Option<f64>, out: &Outputs) -> Result<u8, String> {
    input.spans = out.json;
    let (session, mut progress) = load(&input, out.html.is_some())?;
    progress.set_timeout(timeout);
    let report = session.check(opts, &mut progress);
    if let Some(dir) = &out.dot {
        write_dot(&report, dir)?;
    }
    if let Some(path) = &out.html {
        let title = input.history.file_name().map_or("history".to_string(), |f| f.to_string_lossy().into_owned());
        std::fs::write(path, session.html(&report, &title)).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if let Some(path) = &out.certificate {
        let cert = session.certificate(&report);
        let failed = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
        let file = std::fs::File::create(path).map_err(|e| failed(&e))?;
        let mut out = std::io::BufWriter::new(file);
        serde_json::to_writer(&mut out, &cert).map_err(|e| failed(&e))?;
        std::io::Write::flush(&mut out).map_err(|e| failed(&e))?;
        eprint!("{}", text::certificate_summary(&cert, &path.display().to_string()));
    }
    if out.json {
        println!("{}", report.to_json());
    } else {
        print!("{}", text::render_capped(&report, text::TERMINAL_PER_KIND));
        if let Some(a) = &report.analysis {
            print!("\n{}", grail_core::analysis::render(a));
        }
    }
    let code = if report.valid == Some(true) { 0 } else { 1 };
    // The process ends next, and the kernel takes its memory back whole: freeing a million
    // transactions' allocations one by one first cost 35-40 ms at 1M.
    std::mem::forget((report, session));
    Ok(code)
}

/// `grail verify`: the certificate's witnesses checked against the history; exit 0 when all
/// hold, 1 when one fails.
pub fn verify(input: &Input, certificate: &Path, json: bool) -> Result<u8, String> {
    let text = std::fs::read(certificate).map_err(|e| format!("{}: {e}", certificate.display()))?;
    let (session, _progress) = load(input, false)?;
    let v = session.verify(&text).map_err(|e| format!("{}: {e}", certificate.display()))?;
    if json {
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else {
        print!("{}", text::verification(&v));
    }
    Ok(if v.ok() { 0 } else { 1 })
}

/// Each level's counterexample cycles as DOT files in `dir`.
fn write_dot(report: &Report, dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (l, lr) in &report.levels.0 {
        for (i, c) in lr.cycles.iter().enumerate() {
            let path = dir.join(format!("{}-{}.dot", l.name(), i));
            std::fs::write(&path, grail_core::render::dot::cycle_dot(c))
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(())
}

/// `grail check --strategy dfs|shortest-path|gabow`: the verdict table of one of GRAIL's checkers,
/// with its work counters. Exit 0 only when every level holds for certain.
pub fn check_with_strategy(input: &Input, levels: &[Level], strategy: Strategy, json: bool) -> Result<u8, String> {
    use grail_core::strategy::Answer;
    let levels = strategy.levels(levels).map_err(|e| e.to_string())?;
    let (session, progress) = load(input, false)?;
    session.inference();
    let t0 = std::time::Instant::now();
    let r = session.check_strategy(strategy, &levels).map_err(|e| e.to_string())?;
    progress.say(format_args!("checked with {} in {:.3} s", r.strategy, t0.elapsed().as_secs_f64()));
    if json {
        println!("{}", serde_json::to_string_pretty(&r).unwrap_or_default());
    } else {
        match r.max_depth {
            Some(d) => println!("strategy {} (max depth {d})", r.strategy),
            None => println!("strategy {}", r.strategy),
        }
        println!("{:<6} {:<13} {:>10} {:>14}  cycle", "level", "verdict", "traversals", "edges visited");
        for o in &r.levels {
            println!(
                "{:<6} {:<13} {:>10} {:>14}  {}",
                o.level.name(),
                o.verdict.as_str(),
                o.counters.traversals,
                o.counters.edges_visited,
                o.cycle.as_ref().map(|c| c.text()).unwrap_or_default()
            );
        }
        for n in &r.notes {
            println!("\nnote: {n}");
        }
    }
    Ok(if r.levels.iter().all(|o| o.verdict == Answer::Holds) { 0 } else { 1 })
}
