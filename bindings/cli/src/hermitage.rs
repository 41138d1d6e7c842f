//! `grail hermitage`: Hermitage's tests run on a live database, each recorded and checked by
//! grail, printed as Hermitage's table. The tests, the cells and the published rows are core's
//! (`grail_core::record::hermitage`); this module runs the scripts (`script`) and prints.

use crate::script;
use grail_core::api::Session;
use grail_core::record::hermitage::{self, Cell, Column};
use grail_core::record::{Database, Isolation, Workload};
use serde_json::json;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

pub struct Options {
    pub url: String,
    pub levels: Vec<Isolation>,
    pub columns: Vec<Column>,
    pub json: bool,
    pub out: Option<PathBuf>,
    pub block_after: Duration,
}

struct Row {
    level: Isolation,
    cells: Vec<(Column, Cell)>,
}

pub fn run(o: &Options) -> Result<u8, String> {
    let db = Database::of_url(&o.url).map_err(|e| e.message)?;
    let levels = if o.levels.is_empty() { db.levels().to_vec() } else { o.levels.clone() };
    for l in &levels {
        l.check_offered(db).map_err(|e| e.message)?;
    }
    let version = crate::db::connect(&o.url)?.version();
    let progress = std::io::stderr().is_terminal() && !o.json;
    let mut rows = Vec::new();
    for &level in &levels {
        if progress {
            eprint!("hermitage: {}:", level.sql());
        }
        let mut cells = Vec::new();
        for &column in &o.columns {
            let mut ran = Vec::new();
            for test in hermitage::tests(column, level) {
                let run = script::run(&o.url, hermitage::TABLE, Workload::RwRegister, &test, o.block_after)
                    .map_err(|e| format!("{}, {}{}: {e}", level.sql(), column.name(), test.variant.suffix()))?;
                let session = Session::new(run.history);
                let report = session.check(&hermitage::check_options(), &mut ());
                ran.push((test.variant, session, report, run.transcript, run.undecided, run.unsupported));
            }
            let outcomes: Vec<hermitage::TestOutcome> = ran
                .iter()
                .map(|(variant, _, report, _, undecided, unsupported)| hermitage::TestOutcome {
                    variant: *variant,
                    report,
                    undecided,
                    unsupported,
                })
                .collect();
            let cell = hermitage::cell(column, &outcomes);
            if let Some(dir) = &o.out {
                for (variant, session, report, transcript, _, _) in &ran {
                    let name = format!("{}{}", column.name(), variant.suffix());
                    save(dir, level, &name, session, transcript, &cell, report)?;
                }
            }
            if progress {
                eprint!(" {} {}", column.name(), cell.mark());
            }
            cells.push((column, cell));
        }
        if progress {
            eprintln!();
        }
        rows.push(Row { level, cells });
    }
    if o.json {
        println!("{}", serde_json::to_string_pretty(&json_doc(db, &version, &o.url, &rows)).unwrap_or_default());
    } else {
        print!("{}", text(db, &version, &o.url, &rows));
    }
    Ok(0)
}

fn slug(level: Isolation) -> String {
    level.sql().replace(' ', "-")
}

/// The test's history (native JSON, which holds predicate reads; EDN too when it has none),
/// the transcript and the cell with grail's report.
fn save(
    dir: &std::path::Path,
    level: Isolation,
    name: &str,
    session: &Session,
    transcript: &[String],
    cell: &Cell,
    report: &grail_core::Report,
) -> Result<(), String> {
    let dir = dir.join(slug(level));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let h = session.history();
    let base = dir.join(name);
    let write = |ext: &str, text: &str| {
        let p = base.with_extension(ext);
        std::fs::write(&p, text).map_err(|e| format!("{}: {e}", p.display()))
    };
    write("json", &grail_core::export::native::history(h))?;
    if h.predicate_reads.is_empty() {
        let all: Vec<u32> = (0..h.txns.len() as u32).collect();
        let comment = format!("Hermitage {name} at {}", level.sql());
        write("edn", &grail_core::export::edn::sub_history_events(h, &all, Some(&comment)))?;
    }
    let mut log = transcript.join("\n");
    log.push_str(&format!("\n\ncell: {}\n", serde_json::to_string(cell).unwrap_or_default()));
    write("log", &log)?;
    write("report.json", &report.to_json())
}

fn json_doc(db: Database, version: &str, url: &str, rows: &[Row]) -> serde_json::Value {
    let rows: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            let cells: serde_json::Map<String, serde_json::Value> = r
                .cells
                .iter()
                .map(|(c, cell)| (c.name().to_string(), serde_json::to_value(cell).unwrap_or_default()))
                .collect();
            let published = hermitage::published(db, r.level).map(|p| {
                Column::ALL
                    .iter()
                    .zip(p)
                    .map(|(c, m)| (c.name().to_string(), json!(m)))
                    .collect::<serde_json::Map<_, _>>()
            });
            json!({"level": r.level.sql(), "cells": cells, "published": published})
        })
        .collect();
    json!({"database": db.name(), "version": version, "url": crate::db::redact(url), "rows": rows})
}

fn text(db: Database, version: &str, url: &str, rows: &[Row]) -> String {
    let mut out = format!("Hermitage on {version} ({})\n\n", crate::db::redact(url));
    let cols: Vec<Column> = rows.first().map(|r| r.cells.iter().map(|c| c.0).collect()).unwrap_or_default();
    out.push_str("| level |");
    for c in &cols {
        out.push_str(&format!(" {} |", c.name()));
    }
    out.push_str("\n|:--|");
    out.push_str(&":-:|".repeat(cols.len()));
    out.push('\n');
    for r in rows {
        out.push_str(&format!("| {} |", r.level.sql()));
        for (_, cell) in &r.cells {
            out.push_str(&format!(" {} |", cell.mark()));
        }
        out.push('\n');
    }
    out.push_str(
        "\n✓ prevented: grail checked the test's history at every level and found none of the anomaly; \
— occurs: grail found it (below); R/O prevented read-only, occurs with a write's predicate (below); ? unknown (below).\n",
    );
    let mut diffs = Vec::new();
    for r in rows {
        let Some(published) = hermitage::published(db, r.level) else { continue };
        for (c, cell) in &r.cells {
            let i = Column::ALL.iter().position(|x| x == c).unwrap_or(0);
            if published[i] != cell.mark() {
                let why = if published[i] == "R/O" {
                    " (Hermitage's write-predicate test is run for G-single only)"
                } else {
                    ""
                };
                diffs.push(format!(
                    "  {}, {}: Hermitage has {}, grail {}{why}",
                    r.level.sql(),
                    c.name(),
                    published[i],
                    cell.mark()
                ));
            }
        }
    }
    if hermitage::published(db, rows.first().map_or(Isolation::Serializable, |r| r.level)).is_some() {
        if diffs.is_empty() {
            out.push_str("\nEvery cell equals Hermitage's published row.\n");
        } else {
            out.push_str("\nWhere this differs from Hermitage's published table:\n");
            for d in diffs {
                out.push_str(&d);
                out.push('\n');
            }
        }
    }
    let mut details = String::new();
    for r in rows {
        for (c, cell) in &r.cells {
            let (head, body) = match cell {
                Cell::Occurs { anomaly, explanation } => (format!("occurs: {anomaly}"), explanation.as_str()),
                Cell::ReadOnly { anomaly, explanation } => (
                    format!(
                        "prevented read-only; with a write's predicate (the write-predicate test) it occurs: {anomaly}"
                    ),
                    explanation.as_str(),
                ),
                Cell::Unknown { reason } => ("unknown".to_string(), reason.as_str()),
                Cell::Prevented => continue,
            };
            details.push_str(&format!("\n{}, {} ({}): {head}\n", r.level.sql(), c.name(), c.title()));
            for line in body.lines() {
                details.push_str(&format!("    {line}\n"));
            }
        }
    }
    out.push_str(&details);
    out
}
