//! `grail elle` and the `elle-cli` binary: elle-cli's command line, answered by grail.
//!
//! The interface is elle-cli's (`ligurio/elle-cli`, `src/elle_cli/cli.clj`): as of 0.1.9
//! (commit 0e3fd6ea923f8c2f1ee89f153e0e413530b1fa43, where `-v/--verbose` prints Elle's result
//! map) and as it stands now (commit 040d9dc46af0e625fcfa22b383cd8aa7aefbbf3f: `-v/--output
//! text|json`, `--verbose` meaning `--output json`, `--version`, and a history whose operations
//! do not fit the model refused with exit 1 and a hint). Both spellings are accepted: `-v` takes
//! `text` or `json` when one follows, and is the old flag otherwise.
//!
//! Output: one line per file, `path \t valid` exactly as elle-cli's `(println filepath "\t"
//! validness)` prints it (a space on each side of the tab), or Elle's result map as JSON.
//! Exit codes as elle-cli: 1 when a file is invalid (`false`), 0 otherwise (`unknown`
//! included), 1 on a usage error, 255 on any other error. `--strict-exit` (grail's addition,
//! the safer choice in CI) also exits 1 on `unknown`.
//!
//! Several files: `-v json` prints each result map in turn without paths, as elle-cli's `-main`
//! (`json/pprint` per file); grail's `-v jsonl` one line per file with its path; `-d` one
//! subfolder per file (elle-cli writes every file's into the one directory, over each other).
//! rw-register: Elle's `:wfr-keys?`, `:sequential-keys?`, `:linearizable-keys?` as
//! `--wfr-keys` and so on (`jepsen-io/elle`, `src/elle/rw_register.clj` at 05fd530), and
//! `--version-order elle|complete` (default `elle`: Elle's verdict; see `docs/elle.md`).
//!
//! The meaning of the model names is Elle's (`grail_core::elle`, `docs/elle.md`).

use grail_core::api::{ReadRequest, Session};
use grail_core::elle::versions::VersionSources;
use grail_core::elle::{self, Checked, ElleOptions, Valid, VersionOrder};
use grail_core::{Format, History};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The elle-cli version whose interface this follows.
const ELLE_CLI_VERSION: &str = "0.1.10";

/// Every model elle-cli accepts; grail checks the two of Elle.
const ELLE_CLI_MODELS: [&str; 11] = [
    "bank",
    "cas-register",
    "comments",
    "counter",
    "list-append",
    "long-fork",
    "mutex",
    "rw-register",
    "sequential",
    "set",
    "set-full",
];

/// Names of elle-cli before 0.1.3 (#38) and 0.1.8 (prefixes removed), and `register`.
const OLD_NAMES: [(&str, &str); 13] = [
    ("elle-list-append", "list-append"),
    ("elle-rw-register", "rw-register"),
    ("knossos-cas-register", "cas-register"),
    ("knossos-mutex", "mutex"),
    ("knossos-register", "register"),
    ("jepsen-bank", "bank"),
    ("jepsen-counter", "counter"),
    ("jepsen-set", "set"),
    ("jepsen-set-full", "set-full"),
    ("jepsen-long-fork", "long-fork"),
    ("register", "register"),
    ("elle-cli-comments", "comments"),
    ("elle-cli-sequential", "sequential"),
];

/// The options, as elle-cli's `opts` (with grail's `--strict-exit`).
#[derive(Debug)]
struct Opts {
    model: Option<String>,
    format: Option<String>,
    output: Output,
    help: bool,
    version: bool,
    consistency_models: Vec<String>,
    anomalies: Vec<String>,
    cycle_search_timeout: u64,
    directory: Option<PathBuf>,
    plot_format: String,
    plot_timeout: u64,
    max_plot_bytes: usize,
    strict_exit: bool,
    versions: VersionSources,
    version_order: VersionOrder,
    files: Vec<String>,
}

/// What is printed per file: elle-cli's line or result map, or (grail's addition) one line of
/// JSON per file with its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Output {
    Text,
    Json,
    JsonLines,
}

impl Default for Opts {
    fn default() -> Self {
        Opts {
            model: None,
            format: None,
            output: Output::Text,
            help: false,
            version: false,
            consistency_models: vec!["strict-serializable".into()],
            anomalies: vec!["G0".into()],
            cycle_search_timeout: 1000,
            directory: None,
            plot_format: "svg".into(),
            plot_timeout: 5000,
            max_plot_bytes: 65536,
            strict_exit: false,
            versions: VersionSources::default(),
            version_order: VersionOrder::Elle,
            files: Vec::new(),
        }
    }
}

/// (short, long, argument name or "" for a flag, help).
const SPECS: [(&str, &str, &str, &str); 22] = [
    ("-m", "--model", "MODEL", "(General) A name of consistency model for checking."),
    ("-f", "--format", "FORMAT", "(General) Format of file with history. Either 'edn' or 'json'."),
    ("-v", "--output", "OUTPUT", "(General) Output format. Either 'text' or 'json'. Defaults to 'text'. A bare -v (elle-cli 0.1.9's --verbose) means json. (grail) 'jsonl': one line of JSON per file, with its path."),
    ("", "--verbose", "", "(General) Deprecated: --output json."),
    ("-h", "--help", "", "(General) Print usage."),
    ("", "--version", "", "(General) Print version and exit."),
    ("-c", "--consistency-models", "CONSISTENCY-MODELS", "(Elle) A collection of consistency models we expect this history to obey."),
    ("-a", "--anomalies", "ANOMALIES", "(Elle) A collection of specific anomalies you'd like to look for."),
    ("-s", "--cycle-search-timeout", "CYCLE-SEARCH-TIMEOUT", "(Elle) Number of ms for searching a single SCC for a cycle."),
    ("-d", "--directory", "DIRECTORY", "(Elle) Where to output files, if desired."),
    ("-p", "--plot-format", "PLOT-FORMAT", "(Elle) Either 'png' or 'svg' (grail draws SVG only)."),
    ("-t", "--plot-timeout", "PLOT-TIMEOUT", "(Elle) How many milliseconds will we wait to render a SCC plot?"),
    ("-b", "--max-plot-bytes", "MAX-PLOT-BYTES", "(Elle) Maximum size of a cycle graph (in bytes of DOT)."),
    ("-g", "--group-size", "GROUP-SIZE", "(Jepsen) A group size (long-fork; not used by grail)."),
    ("-n", "--allow-negative-balances", "", "(Bank) Allow negative balances (bank; not used by grail)."),
    ("", "--max-transfer", "MAX-TRANSFER", "(Bank) The largest transfer (bank; not used by grail)."),
    ("-o", "--total-amount", "TOTAL-AMOUNT", "(Bank) Total amount to allocate (bank; not used by grail)."),
    ("", "--strict-exit", "", "(grail) Exit 1 when a verdict is unknown too (the safer choice in CI)."),
    ("", "--version-order", "VERSION-ORDER", "(grail, rw-register) 'elle' (default): only the version order Elle infers, Elle's verdict; 'complete': every version order that extends what Elle's --wfr-keys, --sequential-keys and --linearizable-keys assume (finds the cycles Elle cannot see; steps resting on an assumption name it)."),
    ("", "--wfr-keys", "", "(Elle, rw-register) Assume that within each transaction, writes follow reads (:wfr-keys?)."),
    ("", "--sequential-keys", "", "(Elle, rw-register) Assume each key is sequentially consistent: process order orders versions (:sequential-keys?)."),
    ("", "--linearizable-keys", "", "(Elle, rw-register) Assume each key is linearizable: real-time order orders versions (:linearizable-keys?)."),
];

fn usage(prog: &str) -> String {
    let mut s = format!(
        "{prog} - command-line transactional safety checker (grail {}, elle-cli {ELLE_CLI_VERSION}'s interface).\n\nUsage: {prog} -m model [options] files\n\nSupported models:\n  rw-register - an checker for write-read registers.\n  list-append - an checker for append and read histories.\n  (elle-cli's bank, counter, set, set-full, long-fork, cas-register, mutex, comments and\n  sequential are not supported by grail.)\n\nOptions:\n",
        env!("CARGO_PKG_VERSION")
    );
    for (short, long, arg, help) in SPECS {
        let names = if short.is_empty() { format!("    {long}") } else { format!("{short}, {long}") };
        let _ = writeln!(s, "  {:<45} {help}", format!("{names} {arg}"));
    }
    s.push_str(
        "\nExit codes: 0 every file valid or unknown, 1 a file invalid (or unknown, with --strict-exit) or a\nusage error, 255 any other error.\n",
    );
    s
}

use std::fmt::Write as _;

fn spec_of(name: &str) -> Option<(&'static str, &'static str, &'static str)> {
    SPECS.iter().find(|(s, l, _, _)| (!s.is_empty() && *s == name) || *l == name).map(|(s, l, a, _)| (*s, *l, *a))
}

/// Split a comma-separated list as elle-cli's `str->keywords` (empty for "").
fn keywords(s: &str) -> Vec<String> {
    if s.is_empty() {
        return Vec::new();
    }
    s.split(',').map(|x| x.trim_start_matches(':').to_string()).collect()
}

/// Parse the arguments as tools.cli does, collecting its error messages.
fn parse(args: &[String]) -> (Opts, Vec<String>) {
    let mut o = Opts::default();
    let mut errors = Vec::new();
    let mut i = 0;
    let mut only_files = false;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if only_files || a == "-" || !a.starts_with('-') {
            o.files.push(a.clone());
            continue;
        }
        if a == "--" {
            only_files = true;
            continue;
        }
        let (name, inline): (String, Option<String>) = if a.starts_with("--") {
            match a.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => (a.clone(), None),
            }
        } else {
            let n: String = a.chars().take(2).collect();
            let rest: String = a.chars().skip(2).collect();
            (n, (!rest.is_empty()).then_some(rest))
        };
        let Some((short, long, argname)) = spec_of(&name) else {
            errors.push(format!("Unknown option: \"{name}\""));
            continue;
        };
        let shown = |v: &str| format!("\"{} {v}\"", if name.starts_with("--") { long } else { short });
        if argname.is_empty() {
            match long {
                "--verbose" => o.output = Output::Json,
                "--wfr-keys" => o.versions.wfr_keys = true,
                "--sequential-keys" => o.versions.sequential_keys = true,
                "--linearizable-keys" => o.versions.linearizable_keys = true,
                "--help" => o.help = true,
                "--version" => o.version = true,
                "--strict-exit" => o.strict_exit = true,
                _ => {}
            }
            // Clumped short flags (`-hn`).
            if let Some(rest) = inline.filter(|_| !name.starts_with("--")) {
                let mut more: Vec<String> = rest.chars().map(|c| format!("-{c}")).collect();
                more.extend(args[i..].iter().cloned());
                let (o2, e2) = parse(&more);
                return merge(o, o2, errors, e2, long);
            }
            continue;
        }
        let value = match inline {
            Some(v) => v,
            None if short == "-v" && name == "-v" => {
                // elle-cli 0.1.9's `-v` is a flag; now it takes text or json.
                match args.get(i).map(String::as_str) {
                    Some("text") | Some("json") | Some("jsonl") => {
                        i += 1;
                        args[i - 1].clone()
                    }
                    _ => "json".to_string(),
                }
            }
            None => match args.get(i) {
                Some(v) => {
                    i += 1;
                    v.clone()
                }
                None => {
                    errors.push(format!("Missing required argument for \"{short} {argname}\""));
                    continue;
                }
            },
        };
        let int = |errors: &mut Vec<String>| -> Option<u64> {
            match value.parse::<u64>() {
                Ok(n) => Some(n),
                Err(_) => {
                    errors.push(format!(
                        "Error while parsing option {}: java.lang.NumberFormatException: For input string: \"{value}\"",
                        shown(&value)
                    ));
                    None
                }
            }
        };
        match long {
            "--model" => {
                let known = ELLE_CLI_MODELS.contains(&value.as_str()) || OLD_NAMES.iter().any(|(n, _)| *n == value);
                if known {
                    o.model = Some(value.clone());
                } else {
                    errors.push(format!(
                        "Failed to validate {}: Must be one of {}",
                        shown(&value),
                        ELLE_CLI_MODELS.join(", ")
                    ));
                }
            }
            "--format" => match value.as_str() {
                "edn" | "json" => o.format = Some(value.clone()),
                _ => errors.push(format!("Failed to validate {}: Must be one of edn, json", shown(&value))),
            },
            "--output" => match value.trim_start_matches(':') {
                "text" => o.output = Output::Text,
                "json" => o.output = Output::Json,
                "jsonl" => o.output = Output::JsonLines,
                _ => errors.push(format!("Failed to validate {}: Must be one of text, json, jsonl", shown(&value))),
            },
            "--version-order" => match VersionOrder::parse(&value) {
                Some(v) => o.version_order = v,
                None => errors.push(format!("Failed to validate {}: Must be one of elle, complete", shown(&value))),
            },
            "--consistency-models" => o.consistency_models = keywords(&value),
            "--anomalies" => o.anomalies = keywords(&value),
            "--cycle-search-timeout" => o.cycle_search_timeout = int(&mut errors).unwrap_or(o.cycle_search_timeout),
            "--directory" => o.directory = Some(PathBuf::from(value.clone())),
            "--plot-format" => o.plot_format = value.trim_start_matches(':').to_string(),
            "--plot-timeout" => o.plot_timeout = int(&mut errors).unwrap_or(o.plot_timeout),
            "--max-plot-bytes" => {
                o.max_plot_bytes = int(&mut errors).map_or(o.max_plot_bytes, |n| n.min(usize::MAX as u64) as usize)
            }
            _ => {
                let _ = int(&mut errors); // accepted for elle-cli's other models, unused
            }
        }
    }
    (o, errors)
}

/// Combine the options parsed before a clump of short flags with those parsed from it.
fn merge(mut a: Opts, b: Opts, mut ea: Vec<String>, eb: Vec<String>, _flag: &str) -> (Opts, Vec<String>) {
    let d = Opts::default();
    a.model = b.model.or(a.model);
    a.format = b.format.or(a.format);
    if b.output != d.output {
        a.output = b.output;
    }
    a.versions.wfr_keys |= b.versions.wfr_keys;
    a.versions.sequential_keys |= b.versions.sequential_keys;
    a.versions.linearizable_keys |= b.versions.linearizable_keys;
    if b.version_order != d.version_order {
        a.version_order = b.version_order;
    }
    a.help |= b.help;
    a.version |= b.version;
    a.strict_exit |= b.strict_exit;
    if b.consistency_models != d.consistency_models {
        a.consistency_models = b.consistency_models;
    }
    if b.anomalies != d.anomalies {
        a.anomalies = b.anomalies;
    }
    if b.cycle_search_timeout != d.cycle_search_timeout {
        a.cycle_search_timeout = b.cycle_search_timeout;
    }
    a.directory = b.directory.or(a.directory);
    if b.plot_format != d.plot_format {
        a.plot_format = b.plot_format;
    }
    if b.max_plot_bytes != d.max_plot_bytes {
        a.max_plot_bytes = b.max_plot_bytes;
    }
    a.files.extend(b.files);
    ea.extend(eb);
    (a, ea)
}

/// Read a file, unzipping gzip.
fn slurp(path: &Path) -> Result<Vec<u8>, String> {
    let raw = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    gunzip(raw, path)
}

/// The bytes, unzipped when they are gzip (shared by both binaries).
pub(crate) fn gunzip(raw: Vec<u8>, path: &Path) -> Result<Vec<u8>, String> {
    if raw.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::with_capacity(raw.len() * 8);
        flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .map_err(|e| format!("{}: not a valid gzip file: {e}", path.display()))?;
        Ok(out)
    } else {
        Ok(raw)
    }
}

/// The format: `-f`, else the file's extension (`.edn`, `.json`, before any `.gz`), else
/// grail's detection from the first characters (elle-cli fails there).
fn format_of(opt: Option<&str>, path: &str) -> Format {
    let name = path.strip_suffix(".gz").unwrap_or(path);
    match opt.or_else(|| name.rsplit_once('.').map(|(_, e)| e)) {
        Some("edn") => Format::Edn,
        Some("json") => Format::Json,
        _ => Format::Auto,
    }
}

/// An error that ends the run as elle-cli's uncaught exceptions do (exit 255).
struct Fatal(String);

/// One file: read, check, print (and write Elle's files into `dir`); the verdict.
fn check_file(prog: &str, o: &Opts, model: &str, path: &str, dir: Option<&Path>) -> Result<Result<Valid, u8>, Fatal> {
    if !Path::new(path).exists() {
        return Err(Fatal(format!("File not found: {path}")));
    }
    let text = slurp(Path::new(path)).map_err(Fatal)?;
    let req = ReadRequest { format: format_of(o.format.as_deref(), path), timeline: false, ..Default::default() };
    let session = Session::read(&text, &req, &mut ()).map_err(|e| Fatal(format!("{path}: {e}")))?;
    let h = session.history();
    if let Some(msg) = elle::mismatch(h, &text, model) {
        eprintln!("{msg}");
        return Ok(Err(1));
    }
    let inf = session.inference();
    let deadline = Instant::now() + Duration::from_millis(elle::search_timeout_ms(&inf.graph, o.cycle_search_timeout));
    let mut past = move || Instant::now() >= deadline;
    let eo = ElleOptions {
        consistency_models: o.consistency_models.clone(),
        anomalies: o.anomalies.clone(),
        versions: o.versions,
        version_order: o.version_order,
        ..Default::default()
    };
    let a = elle::check(h, inf, &eo, Some(&mut past)).map_err(Fatal)?;
    // Elle's verdict, said on standard output as Elle would; what it rests on, said beside it.
    if a.valid == Valid::True && elle::inferred_order_only(h, &eo) {
        eprintln!(
            "{prog}: {path}: valid on the version order Elle infers only; --version-order complete decides over every version order"
        );
    }
    if let Some(dir) = dir {
        write_artifacts(prog, dir, h, &a, o).map_err(Fatal)?;
    }
    let mut out = std::io::stdout().lock();
    let line = match (o.output, &a.result) {
        (Output::Text, _) => format!("{path} \t {}", a.valid.as_str()),
        (Output::Json, r) => r.to_pretty(),
        (Output::JsonLines, elle::json::J::Obj(kv)) => {
            let mut with_path = vec![("file".to_string(), elle::json::J::str(path))];
            with_path.extend(kv.iter().cloned());
            elle::json::J::Obj(with_path).to_compact()
        }
        (Output::JsonLines, r) => r.to_compact(),
    };
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
    Ok(Ok(a.valid))
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Elle's `--directory` files: `<TYPE>.txt` per reportable cycle type, `sccs/<i>.svg` per strongly
/// connected component and `<TYPE>/<i>.svg` per cycle (plots whose DOT would exceed
/// `--max-plot-bytes` are skipped, as Elle skips them), `incompatible-order/<key>.html`.
fn write_artifacts(prog: &str, dir: &Path, h: &History, a: &Checked, o: &Opts) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if o.plot_format != "svg" {
        eprintln!("{prog}: grail draws SVG only: writing .svg plots instead of .{}", o.plot_format);
    }
    let files = grail_core::render::elle_dir::elle_directory(h, a, o.max_plot_bytes);
    for (path, text) in &files.files {
        write(&dir.join(path), text)?;
    }
    if files.skipped > 0 {
        eprintln!(
            "{prog}: skipped {} plots larger than --max-plot-bytes {} (bytes of DOT, as Elle counts them)",
            files.skipped, o.max_plot_bytes
        );
    }
    Ok(())
}

/// Where each file's `--directory` files go: the directory itself for one file (as elle-cli);
/// for several, a subfolder per file named after the file (with its place in the list, from 1,
/// before the name when two files share one), where elle-cli would write them all into the one
/// directory, each history's files over the last one's.
fn directories(dir: Option<&Path>, files: &[String]) -> Vec<Option<PathBuf>> {
    let Some(dir) = dir else { return vec![None; files.len()] };
    if files.len() < 2 {
        return vec![Some(dir.to_path_buf()); files.len()];
    }
    // A path without a file name (`..`) is named "history"; names are never paths.
    let name =
        |f: &str| Path::new(f).file_name().map_or_else(|| "history".to_string(), |n| n.to_string_lossy().into_owned());
    let names: Vec<String> = files.iter().map(|f| name(f)).collect();
    let mut seen = std::collections::HashSet::new();
    let unique = names.iter().all(|n| seen.insert(n));
    // When two names are alike, every folder takes its place in the list first: `<i>-` with
    // distinct `i` cannot make two names alike again (a file named `1-h.edn` included).
    names
        .iter()
        .enumerate()
        .map(|(i, n)| Some(dir.join(if unique { n.clone() } else { format!("{}-{n}", i + 1) })))
        .collect()
}

/// Run elle-cli's command line; the exit code.
pub fn run(prog: &str, args: &[String]) -> u8 {
    let (o, errors) = parse(args);
    if !errors.is_empty() {
        for e in errors {
            println!("{e}");
        }
        return 1;
    }
    if o.version {
        println!("elle-cli {ELLE_CLI_VERSION} (grail {})", env!("CARGO_PKG_VERSION"));
        return 0;
    }
    let Some(model) = o.model.clone().filter(|_| !o.help) else {
        println!("{}", usage(prog));
        return 0;
    };
    let model = OLD_NAMES.iter().find(|(n, _)| *n == model).map_or(model.clone(), |(_, m)| m.to_string());
    if model != "list-append" && model != "rw-register" {
        eprintln!(
            "{prog}: model \"{model}\" is not supported by grail: grail checks Elle's list-append and rw-register histories (use elle-cli for {model})"
        );
        return 255;
    }
    let mut any_false = false;
    let mut any_unknown = false;
    let dirs = directories(o.directory.as_deref(), &o.files);
    for (path, dir) in o.files.iter().zip(&dirs) {
        match check_file(prog, &o, &model, path, dir.as_deref()) {
            Ok(Ok(Valid::False)) => any_false = true,
            Ok(Ok(Valid::Unknown)) => any_unknown = true,
            Ok(Ok(Valid::True)) => {}
            Ok(Err(code)) => return code,
            Err(Fatal(msg)) => {
                println!();
                eprintln!("{prog}: {msg}");
                return 255;
            }
        }
    }
    u8::from(any_false || (o.strict_exit && any_unknown))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn both_spellings_of_v_and_verbose_parse() {
        let (o, e) = parse(&args("-m list-append -v a.edn"));
        assert!(e.is_empty() && o.output == Output::Json && o.files == ["a.edn"]);
        let (o, e) = parse(&args("-m list-append -v text a.edn"));
        assert!(e.is_empty() && o.output == Output::Text && o.files == ["a.edn"]);
        let (o, e) = parse(&args("--model=rw-register --output json --verbose -c serializable,snapshot-isolation x y"));
        assert!(e.is_empty() && o.output == Output::Json);
        assert_eq!(o.consistency_models, ["serializable", "snapshot-isolation"]);
        assert_eq!(o.files, ["x", "y"]);
        let (o, e) = parse(&args("-mlist-append -s 50 -b 10 -d out -p png --strict-exit f"));
        assert!(e.is_empty(), "{e:?}");
        assert_eq!((o.model.as_deref(), o.cycle_search_timeout, o.max_plot_bytes), (Some("list-append"), 50, 10));
        assert!(o.strict_exit && o.plot_format == "png" && o.directory.is_some());
        let (_, e) = parse(&args("-m foo -s x --bogus -f xml --output yaml"));
        assert_eq!(e.len(), 5, "{e:?}");
        assert!(e[0].starts_with("Failed to validate \"-m foo\": Must be one of bank,"));
        assert!(e[1].contains("NumberFormatException"));
        assert_eq!(e[2], "Unknown option: \"--bogus\"");
        let (o, e) = parse(&args("-m elle-list-append -c  f"));
        assert!(e.is_empty());
        assert_eq!(o.model.as_deref(), Some("elle-list-append"));
        let (o, _) = parse(&["-c".to_string(), String::new(), "f".into()]);
        assert!(o.consistency_models.is_empty());
        let (o, e) = parse(&args("-m rw-register --wfr-keys --linearizable-keys --version-order complete -v jsonl f"));
        assert!(e.is_empty(), "{e:?}");
        assert!(o.versions.wfr_keys && o.versions.linearizable_keys && !o.versions.sequential_keys);
        assert_eq!((o.version_order, o.output), (VersionOrder::Complete, Output::JsonLines));
        assert_eq!(parse(&args("-m rw-register f")).0.version_order, VersionOrder::Elle);
        let (_, e) = parse(&args("-m rw-register --version-order some f"));
        assert_eq!(e, ["Failed to validate \"--version-order some\": Must be one of elle, complete"]);
    }

    #[test]
    fn several_files_get_a_folder_each() {
        let files = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let d = Path::new("out");
        assert_eq!(directories(Some(d), &files(&["a/h.edn"])), [Some(PathBuf::from("out"))]);
        assert_eq!(
            directories(Some(d), &files(&["a/h.edn", "b/h.edn", "c/g.json"])),
            [Some(d.join("1-h.edn")), Some(d.join("2-h.edn")), Some(d.join("3-g.json"))]
        );
        assert_eq!(
            directories(Some(d), &files(&["a/h.edn", "c/g.json"])),
            [Some(d.join("h.edn")), Some(d.join("g.json"))]
        );
        // A file already named like a numbered folder does not collide with one.
        assert_eq!(
            directories(Some(d), &files(&["a/h.edn", "1-h.edn", "b/h.edn"])),
            [Some(d.join("1-h.edn")), Some(d.join("2-1-h.edn")), Some(d.join("3-h.edn"))]
        );
        assert_eq!(directories(Some(d), &files(&["x/..", "h.edn"])), [Some(d.join("history")), Some(d.join("h.edn"))]);
        assert_eq!(directories(None, &files(&["a", "b"])), [None, None]);
    }
}
