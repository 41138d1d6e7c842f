//! `grail stats`, `graph`, `export` and `generate`: one call to core each, printed.

use crate::args::{GenArgs, Input};
use crate::load::load;
use std::path::Path;

/// `grail stats`: exit 1 when an anomaly was found while building the graph.
pub fn stats(mut input: Input, json: bool) -> Result<u8, String> {
    input.spans = json;
    let (session, _) = load(&input, false)?;
    let report = session.stats();
    if json {
        println!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
    } else {
        let s = &report.stats;
        println!("model          {}", report.model.name());
        for (name, v) in [
            ("transactions", s.transactions),
            ("committed", s.committed),
            ("aborted", s.aborted),
            ("indeterminate", s.indeterminate),
            ("vertices", s.vertices),
            ("edges", s.edges),
            ("ww", s.ww),
            ("wr", s.wr),
            ("rw", s.rw),
        ] {
            println!("{name:<14} {v}");
        }
        println!("{:<14} {:.4}", "density", s.density);
        for a in &report.anomalies {
            println!("\n{}: {}", a.kind, a.explanation);
        }
        for n in &report.notes {
            println!("\nnote: {n}");
        }
    }
    Ok(if report.anomalies.is_empty() { 0 } else { 1 })
}

/// `grail graph --json`.
pub fn graph(mut input: Input) -> Result<u8, String> {
    input.spans = true;
    let (session, _) = load(&input, false)?;
    println!("{}", serde_json::to_string(&session.graph()).unwrap_or_default());
    Ok(0)
}

/// `grail export`: the dependency graph's files for a graph database or a drawing tool.
pub fn export(input: Input, format: &str, out: &Path, max_depth: usize) -> Result<u8, String> {
    let f = grail_core::export::ExportFormat::parse(format).map_err(|e| e.to_string())?;
    let (session, _) = load(&input, false)?;
    let inf = session.inference();
    let files = grail_core::export::export(session.history(), &inf.graph, f, max_depth.max(2));
    for (rel, text) in &files {
        let path = out.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    eprintln!(
        "grail: wrote {} files ({} vertices, {} edges) to {}",
        files.len(),
        inf.graph.vertex_count(),
        inf.graph.edges.len(),
        out.display()
    );
    Ok(0)
}

/// `grail generate`: a history from the simulated database.
pub fn generate(g: &GenArgs) -> Result<u8, String> {
    let gen = grail_core::generate::generate(&g.options()?);
    match &g.out {
        Some(dir) if g.output == "cobra" => {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            for (i, log) in gen.logs.iter().enumerate() {
                let p = dir.join(format!("{i:05}.log"));
                std::fs::write(&p, log).map_err(|e| format!("{}: {e}", p.display()))?;
            }
        }
        None if g.output == "cobra" => return Err("--output cobra writes a folder of logs: give --out".into()),
        Some(p) => std::fs::write(p, &gen.history).map_err(|e| format!("{}: {e}", p.display()))?,
        None => print!("{}", gen.history),
    }
    if let (Some(p), Some(wal)) = (&g.wal_out, &gen.wal) {
        std::fs::write(p, wal).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    eprintln!("grail: generated {} committed and {} aborted transactions", gen.committed, gen.aborted);
    Ok(0)
}
