//! A history read once, its inferences built once each, and everything asked of it.

use super::observe::{Event, Observer};
use super::views::{self, GraphView, StatsView, TxnView};
use crate::error::{Error, ErrorKind};
use crate::history::{History, TxnId};
use crate::infer::{Inference, Needs};
use crate::level::Level;
use crate::read::nemesis::RawOp;
use crate::read::{self, Format, ReadOptions, TimeKillerOptions};
use crate::report::{CheckOptions, CycleReport, Report};
use crate::strategy::{Strategy, StrategyReport};
use std::sync::{Arc, OnceLock};

/// How to read a history. The defaults suit a front end that keeps the history to look at
/// (Python, JS): every span recorded, the nemesis operations kept.
#[derive(Debug, Clone, Copy)]
pub struct ReadRequest<'a> {
    /// `Auto` detects it from the text.
    pub format: Format,
    /// A write-ahead log giving a register history's version order (ArangoDB JSON lines).
    pub wal: Option<&'a [u8]>,
    /// TimeKiller's `--initial_value` (TimeKiller histories only; an error with another format).
    pub initial_value: Option<i64>,
    /// Record where each operation and transaction is in the input ([`ReadOptions::spans`]).
    pub spans: bool,
    /// Keep the nemesis operations of a Jepsen history for the HTML report's timeline.
    pub timeline: bool,
}

impl Default for ReadRequest<'_> {
    fn default() -> Self {
        ReadRequest { format: Format::Auto, wal: None, initial_value: None, spans: true, timeline: true }
    }
}

/// The text a history was read from, kept so that operations' spans are found there when a
/// report shows them (the CLI's file), instead of recorded for every operation.
pub type SharedInput = Arc<dyn read::InputText>;

/// A history, read once, with the inferences its checks and views needed (each built once).
pub struct Session {
    history: History,
    nemesis: Vec<RawOp>,
    /// By what they hold: [`Needs::Full`], [`Needs::WithoutRw`], [`Needs::WithoutReadsFrom`],
    /// [`Needs::Search`].
    inferences: [OnceLock<Inference>; 4],
}

impl Session {
    /// A history read already (a generated one, a test's).
    pub fn new(history: History) -> Session {
        Session { history, nemesis: Vec::new(), inferences: Default::default() }
    }

    /// Read a history from its bytes.
    pub fn read(text: &[u8], req: &ReadRequest, obs: &mut dyn Observer) -> Result<Session, Error> {
        Self::read_in(text, false, req, obs)
    }

    /// Read a history from `text`, which stays at hand as `later` (the same bytes, read by
    /// range: the CLI's file): operations' spans are found there when asked for, instead of
    /// recorded as the history is read.
    pub fn read_shared(
        text: &[u8],
        later: SharedInput,
        req: &ReadRequest,
        obs: &mut dyn Observer,
    ) -> Result<Session, Error> {
        let mut session = Self::read_in(text, true, req, obs)?;
        // Here rather than in read_in, so that a caller of `read` only (the WebAssembly module)
        // does not link attach_input's span finder (9 kB there).
        if req.spans {
            read::attach_input(&mut session.history, later);
        }
        Ok(session)
    }

    /// Read Cobra's client logs, one session a log, in this order.
    pub fn read_cobra_logs(logs: &[&[u8]], obs: &mut dyn Observer) -> Result<Session, Error> {
        obs.event(Event::Reading { bytes: logs.iter().map(|l| l.len()).sum() });
        let h = read::read_cobra(logs)?;
        obs.event(Event::Read { transactions: h.txns.len(), model: h.model });
        Ok(Session::new(h))
    }

    fn read_in(text: &[u8], shared: bool, req: &ReadRequest, obs: &mut dyn Observer) -> Result<Session, Error> {
        obs.event(Event::Reading { bytes: text.len() });
        let format = match req.format {
            Format::Auto => read::detect(text),
            f => f,
        };
        let mut h = match (format, req.initial_value) {
            (Format::TimeKiller, initial_value) => {
                read::read_timekiller_with(text, TimeKillerOptions { initial_value, spans: req.spans })?
            }
            (f, Some(_)) => {
                return Err(Error::new(
                    ErrorKind::Usage,
                    format!("the initial value applies to TimeKiller histories (format timekiller), not {}", f.name()),
                ))
            }
            _ => {
                let opts = ReadOptions { spans: req.spans, locate_op_spans: req.spans && shared };
                read::read_releasing(text, format, opts, &mut |n| obs.consumed(n))?
            }
        };
        if let Some(wal) = req.wal {
            read::read_wal(&mut h, wal)?;
        }
        let jepsen = matches!(format, Format::Edn | Format::Json);
        let nemesis = if req.timeline && jepsen { crate::read::nemesis::nemesis(text) } else { Vec::new() };
        obs.event(Event::Read { transactions: h.txns.len(), model: h.model });
        Ok(Session { history: h, nemesis, inferences: Default::default() })
    }

    pub fn history(&self) -> &History {
        &self.history
    }

    /// The nemesis operations of a Jepsen history's text (with [`ReadRequest::timeline`]).
    pub fn nemesis(&self) -> &[RawOp] {
        &self.nemesis
    }

    /// An inference that holds what `needs` asks for: one built already if it does, else a new
    /// one, kept.
    fn inference_for(&self, needs: Needs, obs: &mut dyn Observer) -> &Inference {
        let have = |n: Needs| self.inferences[n as usize].get();
        if let Some(inf) = have(Needs::Full).or_else(|| match needs {
            Needs::WithoutRw | Needs::WithoutReadsFrom => have(needs),
            // A graph with its edges serves a search as well.
            Needs::Search => have(Needs::WithoutReadsFrom).or_else(|| have(needs)),
            Needs::Full => None,
        }) {
            return inf;
        }
        obs.event(Event::Inferring);
        let inf = self.inferences[needs as usize].get_or_init(|| needs.infer(&self.history));
        let s = inf.graph.stats(&self.history);
        obs.event(Event::Inferred { vertices: s.vertices, edges: s.edges });
        inf
    }

    /// The dependency graph with all its edges, built on first use (or the one a check built).
    pub fn inference(&self) -> &Inference {
        self.graph_inference(&mut ())
    }

    /// An inference with every edge of the graph: the full one, or the one without the list of
    /// reads-from (the graph is the same).
    fn graph_inference(&self, obs: &mut dyn Observer) -> &Inference {
        match self.inferences[Needs::WithoutReadsFrom as usize].get() {
            Some(inf) => inf,
            None => self.inference_for(Needs::Full, obs),
        }
    }

    /// Check the levels `opts` asks for: from the claimed orders alone when it says so, else on
    /// the inference the levels need.
    pub fn check(&self, opts: &CheckOptions, obs: &mut dyn Observer) -> Report {
        let h = &self.history;
        if !opts.needs_graph() {
            obs.event(Event::Checking);
            let report = crate::report::check(h, opts);
            obs.event(Event::Checked { valid: report.valid });
            return report;
        }
        let inf = self.inference_for(crate::report::needs(h, opts), obs);
        obs.event(Event::Checking);
        let report = {
            let mut interrupt = || obs.interrupted();
            crate::report::check_inferred(h, inf, opts, Some(&mut interrupt))
        };
        obs.event(Event::Checked { valid: report.valid });
        report
    }

    /// The certificate of the levels `report` (a check of this history) found to hold:
    /// witnesses that [`Session::verify`] checks from the history alone ([`crate::certify`]).
    pub fn certificate(&self, report: &Report) -> crate::verify::format::Certificate {
        // The reads-from list is needed to order a register's versions the history leaves open,
        // and for the weak levels' commit order and counterexamples; else the inference the check
        // built serves.
        let h = &self.history;
        let open_registers = h.model == crate::history::Model::RwRegister && h.version_order.is_none();
        let weak = report.levels.0.iter().any(|(l, r)| l.spec().weak.is_some() && r.valid.is_some());
        let inf = match open_registers || weak {
            true => self.inference_for(Needs::Full, &mut ()),
            // The other witnesses read the graph's adjacency, not its edges: a check's graph
            // without them serves.
            false => match self.inferences[Needs::Search as usize].get() {
                Some(inf) if self.inferences[Needs::WithoutReadsFrom as usize].get().is_none() => inf,
                _ => self.graph_inference(&mut ()),
            },
        };
        crate::certify::certificate(&self.history, inf, report)
    }

    /// Check a certificate's witnesses against this history ([`crate::verify`]); an error when
    /// the text is not a certificate.
    pub fn verify(&self, certificate: &[u8]) -> Result<crate::verify::Verification, Error> {
        let cert = crate::verify::parse(certificate)?;
        Ok(crate::verify::verify(&self.history, &cert))
    }

    /// Decide levels with one of GRAIL's checkers ([`crate::strategy`]); the five classic levels
    /// when `levels` is empty. They know the classic levels only: another is an error.
    pub fn check_strategy(&self, strategy: Strategy, levels: &[Level]) -> Result<StrategyReport, Error> {
        let levels = strategy.levels(levels)?;
        Ok(crate::strategy::run(&self.history, self.inference(), strategy, &levels))
    }

    /// The dependency graph as data.
    pub fn graph(&self) -> GraphView {
        views::graph_view(&self.history, self.inference())
    }

    /// Statistics and the anomalies found while building the graph, without a cycle search.
    pub fn stats(&self) -> StatsView {
        views::stats_view(&self.history, self.inference())
    }

    /// Every transaction, or those with these ids in the history's order (unknown ids skipped).
    pub fn transactions(&self, ids: Option<&[u64]>) -> Vec<TxnView<'_>> {
        let inf = self.inference();
        match ids {
            None => views::transactions(&self.history, inf),
            Some(ids) => {
                let mut ts = self.txn_indices(ids, false).unwrap_or_default();
                crate::par::sort::sort_unstable(&mut ts);
                ts.dedup();
                ts.into_iter().map(|t| views::transaction(&self.history, inf, t)).collect()
            }
        }
    }

    /// The transactions with these ids in the input's notation: Jepsen EDN, one completion map a
    /// line, after `comment` as `;` lines, or Plume's text (no comment); an id no transaction has
    /// is an error.
    pub fn sub_history(&self, ids: &[u64], comment: Option<&str>) -> Result<String, Error> {
        let ts = self.txn_indices(ids, true)?;
        Ok(crate::export::sub_history(&self.history, &ts, comment))
    }

    /// The smallest sub-history found in `max_checks` checks that shows `cycle` again under one
    /// of `levels` (those it was reported for), in the input's notation
    /// ([`crate::export::reproduce`]).
    pub fn reproducing_sub_history(
        &self,
        cycle: &CycleReport,
        levels: &[Level],
        max_checks: usize,
    ) -> crate::export::reproduce::SubHistory {
        crate::export::reproduce::reproducing_sub_history(
            &self.history,
            cycle,
            levels,
            &CheckOptions::default(),
            max_checks,
        )
    }

    /// A report of this history as one self-contained HTML page; `title` names the history.
    pub fn html(&self, report: &Report, title: &str) -> String {
        let opts = crate::render::html::HtmlOptions { title: title.to_string(), ..Default::default() };
        crate::render::html::report_html(report, &self.history, &self.nemesis, &opts)
    }

    /// A counterexample drawn as an SVG element: the HTML page's drawing of it.
    pub fn cycle_svg(&self, cycle: &CycleReport) -> String {
        crate::render::svg::cycle_svg(&self.history, &cycle.txns, &cycle.steps, None)
    }

    /// Indices of the transactions with these ids; unknown ids skipped, or an error if `strict`.
    fn txn_indices(&self, ids: &[u64], strict: bool) -> Result<Vec<TxnId>, Error> {
        let by_id: crate::hash::Map<u64, TxnId> =
            self.history.txns.iter().enumerate().map(|(t, txn)| (txn.id, t as TxnId)).collect();
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            match by_id.get(id) {
                Some(&t) => out.push(t),
                None if strict => return Err(Error::new(ErrorKind::Usage, format!("no transaction has id {id}"))),
                None => {}
            }
        }
        Ok(out)
    }
}
