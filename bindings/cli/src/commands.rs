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
        "grail: wrote {} ({}, {}) to {}",
        grail_core::words::counted(files.len() as u64, "file"),
        grail_core::words::count(inf.graph.vertex_count() as u64, "vertex", "vertices"),
        grail_core::words::counted(inf.graph.edges.len() as u64, "edge"),
        out.display()
    );
    Ok(0)
}

/// `grail generate`: a history from the simulated database.
pub fn generate(g: &GenArgs) -> Result<u8, String> {
    use std::io::Write;
    let o = g.options()?;
    if g.wal_out.is_some() && !o.has_wal() {
        return Err("--wal-out: only a register history in EDN has a write-ahead log (--model rw-register --output edn); a native document carries its version order itself".into());
    }
    let gen = if g.output == "cobra" {
        let Some(dir) = &g.out else {
            return Err("--output cobra writes a folder of logs: give --out".into());
        };
        let gen = grail_core::generate::generate(&o);
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for (i, log) in gen.logs.iter().enumerate() {
            let p = dir.join(format!("{i:05}.log"));
            std::fs::write(&p, log).map_err(|e| format!("{}: {e}", p.display()))?;
        }
        gen
    } else {
        // Written as it is made: a history of any length, piped into `grail online -`, is
        // never held whole.
        let (mut w, name): (Box<dyn Write>, String) = match &g.out {
            Some(p) => {
                let f = std::fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()))?;
                (Box::new(std::io::BufWriter::new(f)), p.display().to_string())
            }
            None => (Box::new(std::io::BufWriter::new(std::io::stdout().lock())), "standard output".into()),
        };
        let mut failed = None;
        let gen = grail_core::generate::generate_streaming(&o, &mut |piece| {
            if failed.is_none() {
                failed = w.write_all(piece.as_bytes()).err();
            }
        });
        failed.map_or(Ok(()), Err).and_then(|()| w.flush()).map_err(|e| format!("{name}: {e}"))?;
        gen
    };
    if let (Some(p), Some(wal)) = (&g.wal_out, &gen.wal) {
        std::fs::write(p, wal).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    eprintln!("grail: generated {} committed and {} aborted transactions", gen.committed, gen.aborted);
    Ok(0)
}
