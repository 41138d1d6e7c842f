//! Certificates (issue 36): every level a check finds to hold gets a witness that the
//! independent verifier accepts, or is listed as not certified for a documented reason; and the
//! verifier rejects witnesses that are wrong (mutations), and every witness of a violated level
//! (brute force over small histories).

mod common;

use grail_core::certify::certificate;
use grail_core::generate::{DataModel, GenOptions, Injection, Isolation, Output, Shape};
use grail_core::verify::format::{Certificate, Respect, Witness, WitnessKind, FORMAT, VERSION};
use grail_core::verify::{parse, verify};
use grail_core::{check, infer, read, CheckOptions, Format, History, Level, Report};
use proptest::prelude::*;

/// A counterexample of one cycle, as the certificate writes it.
fn cycle(level: &str, steps: &[(u64, u64, &str, serde_json::Value)]) -> Certificate {
    use grail_core::verify::format::{Counterexample, CycleStep};
    let steps = steps
        .iter()
        .map(|(a, b, t, k)| CycleStep { from: *a, to: *b, ty: t.to_string(), key: k.clone(), ..Default::default() })
        .collect();
    Certificate {
        counterexamples: vec![Counterexample {
            level: level.into(),
            anomaly: String::new(),
            steps,
            ..Default::default()
        }],
        witnesses: Vec::new(),
        ..one(WitnessKind::Serial, &[], &[], &[])
    }
}

fn all_levels() -> CheckOptions {
    CheckOptions { levels: Level::ALL.to_vec(), ..CheckOptions::default() }
}

/// The report of every level and its certificate.
fn certified(h: &History) -> (Report, Certificate) {
    let report = check(h, &all_levels());
    let cert = certificate(h, &infer(h), &report);
    (report, cert)
}

/// Why a level that holds may go without a witness: PSI without SI (no PSI witness yet), and a
/// level whose verdict set aside a broken assumption other than reads no execution has.
fn allowed(report: &Report, level: &str, reason: &str) -> bool {
    let lr = &report.levels[level];
    let si_holds = report.levels.0.iter().any(|(l, r)| l.name() == "SI" && r.valid == Some(true));
    let other = lr.set_aside.iter().any(|k| k != "internal" && k != "garbage-read");
    (level == "PSI" && !si_holds) || (other && reason.contains("set aside"))
}

/// The certificate's witnesses verify, prove exactly levels that hold, and every level that
/// holds is proved or not certified for an allowed reason. Returns how many levels holding
/// were certified and how many not.
fn assert_certified(what: &str, h: &History) -> (usize, usize) {
    let (report, cert) = certified(h);
    let text = serde_json::to_string(&cert).unwrap();
    let v = verify(h, &parse(text.as_bytes()).unwrap());
    assert!(v.ok(), "{what}: {:?}", v.first_failure());
    // A level that holds with reads set aside is proved of the history without them.
    for l in &v.proved_with_set_aside {
        assert!(!report.levels[l.as_str()].set_aside.is_empty(), "{what}: {l} proved with reads set aside");
    }
    let proved: Vec<String> = v.proved().into_iter().chain(v.proved_with_set_aside.iter().cloned()).collect();
    let holds: Vec<&str> =
        report.levels.0.iter().filter(|(_, r)| r.valid == Some(true)).map(|(l, _)| l.name()).collect();
    for l in &proved {
        assert!(holds.contains(&l.as_str()), "{what}: a witness proves {l}, which the check does not say holds");
    }
    for n in &cert.not_certified {
        assert!(!n.reason.contains("bug"), "{what}: {}: {}", n.level, n.reason);
        assert!(allowed(&report, &n.level, &n.reason), "{what}: {} not certified: {}", n.level, n.reason);
    }
    for l in &holds {
        let listed = cert.not_certified.iter().any(|n| n.level == *l);
        assert!(proved.iter().any(|p| p == l) || listed, "{what}: {l} holds, and is neither proved nor listed");
    }
    // Every violated level whose cycle the history shows step by step has its counterexample.
    let disproved = v.disproved();
    for (l, r) in &report.levels.0 {
        assert!(!(r.valid != Some(false) && disproved.contains(&l.name().to_string())), "{what}: {l:?} disproved");
        let shown =
            r.cycles.iter().any(|c| c.steps.iter().all(|s| s.certain != Some(false) && s.claimed != Some(true)));
        if r.valid == Some(false) && shown && report.broken_assumptions.is_empty() {
            assert!(
                disproved.contains(&l.name().to_string()),
                "{what}: {} violated by a shown cycle, no counterexample",
                l.name()
            );
        }
        // Every violated level is disproved, or listed with the reason.
        if r.valid == Some(false) && !disproved.contains(&l.name().to_string()) {
            let n = cert.violations_not_certified.iter().find(|n| n.level == l.name());
            assert!(n.is_some_and(|n| !n.reason.contains("bug")), "{what}: {} violated: {n:?}", l.name());
        }
    }
    (proved.len() + disproved.len(), cert.not_certified.len())
}

#[test]
fn corpus_and_peers_levels_that_hold_are_certified() {
    let Some(dir) = common::corpus() else { return };
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for sub in ["grail/tiny-register", "grail/tiny-list", "elle", "elle/elle-cli-histories/elle", "peers/awdit/plume"] {
        let Ok(rd) = std::fs::read_dir(dir.join(sub)) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            let name = p.to_string_lossy().to_string();
            if p.is_file() && (name.ends_with(".edn") || name.ends_with(".json") || name.ends_with("2000.txt.gz")) {
                files.push(p);
            }
        }
    }
    // The conformance cases every front end reads.
    let cases = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/cases");
    for e in std::fs::read_dir(&cases).unwrap().flatten().filter(|e| e.path().is_dir()) {
        for f in std::fs::read_dir(e.path()).unwrap().flatten() {
            let name = f.path().to_string_lossy().to_string();
            if name.ends_with(".edn") || (name.ends_with(".json") && !name.ends_with(".expected.json")) {
                files.push(f.path());
            }
        }
    }
    for set in ["list-histories-30s", "list-rate-nemesis"] {
        for e in std::fs::read_dir(dir.join("grail/list").join(set)).unwrap().flatten().take(8) {
            files.push(e.path());
        }
    }
    files.sort();
    let (mut proved, mut left) = (0, 0);
    for f in &files {
        let name = f.to_string_lossy().to_string();
        let wal =
            name.strip_suffix(".edn").map(|s| std::path::PathBuf::from(format!("{s}.log"))).filter(|w| w.exists());
        let h = common::load(f, wal.as_deref());
        let (p, l) = assert_certified(&name, &h);
        proved += p;
        left += l;
    }
    for n in [1, 7] {
        let f = dir.join(format!("grail/reg-max-write/{n}.edn.gz"));
        let h = common::load(&f, Some(&dir.join(format!("grail/reg-max-write/{n}.log.gz"))));
        let (p, l) = assert_certified(&f.to_string_lossy(), &h);
        proved += p;
        left += l;
    }
    eprintln!("{} histories: {proved} levels proved, {left} holding but not certified", files.len() + 2);
    assert!(files.len() >= 40 && proved > 10 * left);
}

/// Histories of every shape the generator makes: both data models, with and without a version
/// order, with timestamps, at each isolation level, with and without injected anomalies.
#[test]
fn generated_histories_of_every_shape_are_certified() {
    let mut cases: Vec<(String, GenOptions)> = Vec::new();
    let isolations = [
        Isolation::Serializable,
        Isolation::SnapshotIsolation,
        Isolation::ParallelSnapshotIsolation,
        Isolation::Causal,
        Isolation::ReadCommitted,
    ];
    for model in [DataModel::ListAppend, DataModel::RwRegister] {
        for output in [Output::Edn, Output::Polysi, Output::Native] {
            if output == Output::Polysi && model == DataModel::ListAppend {
                continue;
            }
            for isolation in isolations {
                for (seed, inject) in [(1, vec![]), (2, vec![(Injection::LostUpdate, 1), (Injection::WriteSkew, 1)])] {
                    let o = GenOptions {
                        transactions: 300,
                        sessions: 6,
                        keys: 12,
                        model,
                        output,
                        isolation,
                        inject,
                        seed,
                        timestamps: output == Output::Native,
                        ..GenOptions::default()
                    };
                    cases.push((format!("{model:?} {output:?} {isolation:?} seed {seed}"), o));
                }
            }
        }
    }
    for shape in [Shape::Tpcc, Shape::Rubis] {
        let o = GenOptions {
            transactions: 300,
            shape,
            model: DataModel::RwRegister,
            output: Output::Polysi,
            ..GenOptions::default()
        };
        cases.push((format!("{shape:?}"), o));
    }
    let (mut proved, mut left) = (0, 0);
    for (what, o) in &cases {
        let h = common::generated(o);
        let (p, l) = assert_certified(what, &h);
        proved += p;
        left += l;
    }
    eprintln!("{} generated histories: {proved} levels proved, {left} holding but not certified", cases.len());
    assert!(proved > 20 * left.max(1));
}

fn edn(text: &str) -> History {
    read(text.as_bytes(), Format::Auto).unwrap()
}

fn one(kind: WitnessKind, respects: &[Respect], levels: &[&str], order: &[u64]) -> Certificate {
    Certificate {
        format: FORMAT.into(),
        version: VERSION,
        transactions: 0,
        witnesses: vec![Witness {
            kind,
            respects: respects.to_vec(),
            levels: levels.iter().map(|s| s.to_string()).collect(),
            order: order.to_vec(),
            set_aside: Vec::new(),
        }],
        not_certified: Vec::new(),
        counterexamples: Vec::new(),
        violations_not_certified: Vec::new(),
    }
}

fn failure(h: &History, c: &Certificate) -> Option<String> {
    verify(h, c).first_failure().map(str::to_string)
}

const CHAIN: &str = "{:index 0, :type :ok, :process 0, :value [[:append :x 1]]}
{:index 1, :type :ok, :process 1, :value [[:r :x [1]] [:append :x 2]]}
{:index 2, :type :ok, :process 2, :value [[:r :x [1 2]]]}";

#[test]
fn mutated_serial_witnesses_are_rejected() {
    let h = edn(CHAIN);
    let (_, cert) = certified(&h);
    assert_eq!(cert.witnesses[0].kind, WitnessKind::Serial);
    assert_eq!(cert.witnesses[0].order, vec![0, 1, 2]);
    assert!(verify(&h, &cert).ok());
    // Two conflicting transactions swapped.
    let mut swapped = cert.clone();
    swapped.witnesses[0].order.swap(1, 2);
    assert_eq!(failure(&h, &swapped).unwrap(), "T2 read x = [1 2] but the replay has [1]");
    // One read value changed in the history, under the old certificate.
    let changed = edn(&CHAIN.replace("[:r :x [1 2]]", "[:r :x [2 1]]"));
    assert_eq!(failure(&changed, &cert).unwrap(), "T2 read x = [2 1] but the replay has [1 2]");
}

#[test]
fn mutated_snapshot_witnesses_are_rejected() {
    // Write skew: SI holds, SER does not; the witness is a snapshot.
    let h = edn("{:index 0, :type :ok, :process 0, :value [[:r :x []] [:r :y []] [:append :x 1]]}
{:index 1, :type :ok, :process 1, :value [[:r :x []] [:r :y []] [:append :y 1]]}
{:index 2, :type :ok, :process 2, :value [[:r :x [1]] [:r :y [1]]]}");
    let (report, cert) = certified(&h);
    assert_eq!(report.levels["SER"].valid, Some(false));
    let w = cert.witnesses.iter().find(|w| w.kind == WitnessKind::Snapshot).expect("a snapshot witness");
    let good = Certificate { witnesses: vec![w.clone()], ..cert.clone() };
    assert!(verify(&h, &good).ok());
    // A start moved before the commit it must follow: T2 starts before T0 commits.
    let mut early = good.clone();
    let order = &mut early.witnesses[0].order;
    let s2 = order.iter().position(|&t| t == 2).unwrap();
    let id = order.remove(s2);
    order.insert(0, id);
    let f = failure(&h, &early).unwrap();
    assert!(f.starts_with("T2 read x = [1] but the replay has []"), "{f}");
    // The same transactions as a serial witness: no serial order explains a write skew.
    for order in [[0, 1, 2], [1, 0, 2]] {
        let serial = one(WitnessKind::Serial, &[], &["SER"], &order);
        assert!(failure(&h, &serial).unwrap().contains("but the replay has"));
    }
    // Overlapping writers of one key.
    let lost = edn("{:index 0, :type :ok, :process 0, :value [[:r :x []] [:append :x 1]]}
{:index 1, :type :ok, :process 1, :value [[:r :x []] [:append :x 2]]}");
    let both = one(WitnessKind::Snapshot, &[], &["SI"], &[0, 1, 0, 1]);
    assert!(failure(&lost, &both).unwrap().contains("both write x while both are running"));
}

#[test]
fn mutated_commit_order_and_versions_witnesses_are_rejected() {
    // A lost update: SI fails, causal consistency and PL-2 hold.
    let h = edn("{:index 0, :type :ok, :process 0, :value [[:r :x []] [:append :x 1]]}
{:index 1, :type :ok, :process 1, :value [[:r :x []] [:append :x 2]]}
{:index 2, :type :ok, :process 1, :value [[:r :x [1 2]]]}");
    let (report, cert) = certified(&h);
    assert_eq!(report.levels["SI"].valid, Some(false));
    let w = cert.witnesses.iter().find(|w| w.kind == WitnessKind::CommitOrder).expect("a commit-order witness");
    assert!(w.levels.contains(&"CC".to_string()));
    assert!(verify(&h, &Certificate { witnesses: vec![w.clone()], ..cert.clone() }).ok());
    // Reversing the two appends: the list read is no version of that order.
    let rev = one(WitnessKind::CommitOrder, &[], &["CC"], &[1, 0, 2]);
    assert!(failure(&h, &rev).unwrap().contains("not a version the commit order installs"));
    // A reader before its writer.
    let early = one(WitnessKind::CommitOrder, &[], &["RC"], &[0, 2, 1]);
    assert!(failure(&h, &early).is_some());
    // A fractured read: T2 reads x from T0 and y from T1, which read T0's x and overwrote it.
    // Read committed holds (T2 read x first), read atomic does not.
    let fr = edn("{:index 0, :type :ok, :process 0, :value [[:w :x 1]]}
{:index 1, :type :ok, :process 1, :value [[:r :x 1] [:w :x 2] [:w :y 2]]}
{:index 2, :type :ok, :process 2, :value [[:r :x 1] [:r :y 2]]}");
    let r = check(&fr, &all_levels());
    assert_eq!((r.levels["RA"].valid, r.levels["RC"].valid), (Some(false), Some(true)));
    let ok = |order: &[u64], l: &str| failure(&fr, &one(WitnessKind::CommitOrder, &[], &[l], order)).is_none();
    assert!(ok(&[0, 1, 2], "RC") && !ok(&[0, 1, 2], "RA"));
    assert!(!ok(&[1, 0, 2], "RC") && !ok(&[1, 0, 2], "RA"));
    // Versions: a read of an intermediate append is no version.
    let g1b = edn("{:index 0, :type :ok, :process 0, :value [[:append :x 1] [:append :x 2]]}
{:index 1, :type :ok, :process 1, :value [[:r :x [1]]]}");
    let v = one(WitnessKind::Versions, &[], &["PL-2"], &[0, 1]);
    assert!(failure(&g1b, &v).unwrap().contains("no version installed before it"));
    let pl1 = one(WitnessKind::Versions, &[], &["PL-1"], &[0, 1]);
    assert_eq!(failure(&g1b, &pl1), None);
    // A value written twice: a read of it names no one writer.
    let twice = edn("{:index 0, :type :ok, :process 0, :value [[:w :x 1]]}
{:index 1, :type :ok, :process 1, :value [[:w :x 1]]}
{:index 2, :type :ok, :process 2, :value [[:r :x 1]]}");
    for kind in [WitnessKind::Versions, WitnessKind::CommitOrder] {
        let f = failure(&twice, &one(kind, &[], &["PL-2"], &[0, 1, 2])).unwrap();
        assert!(f.contains("T0 and T1 both write x = 1"), "{f}");
    }
}

#[test]
fn counterexamples_are_re_derived_from_the_history() {
    let lost = "{:index 0, :type :ok, :process 0, :value [[:r :x []] [:append :x 1]]}
{:index 1, :type :ok, :process 1, :value [[:r :x []] [:append :x 2]]}
{:index 2, :type :ok, :process 2, :value [[:r :x [1 2]]]}";
    let h = edn(lost);
    let (_, cert) = certified(&h);
    let ser = cert.counterexamples.iter().find(|c| c.level == "SER").expect("a counterexample of SER");
    assert_eq!(ser.anomaly, "G-single");
    let only = |c: &grail_core::verify::format::Counterexample| Certificate {
        counterexamples: vec![c.clone()],
        ..cert.clone()
    };
    assert!(verify(&h, &only(ser)).ok());
    // The same cycle where T1 read T0's append: no lost update, no rw step from T1 to T0.
    let fixed = edn(&lost.replace(":process 1, :value [[:r :x []]", ":process 1, :value [[:r :x [1]]"));
    let f = verify(&fixed, &only(ser)).first_failure().map(str::to_string).unwrap();
    assert!(f.contains("the history does not show T1 -rw-> T0") || f.contains("the history does not show"), "{f}");
    // A cycle the level allows: SI allows two adjacent rw steps (write skew).
    let x = serde_json::json!("x");
    let skew = cycle("SI", &[(0, 1, "rw", x.clone()), (1, 0, "rw", x.clone())]);
    let f = verify(&h, &skew).first_failure().unwrap().to_string();
    assert!(f.contains("SI allows a cycle of rw rw"), "{f}");
    // Steps that do not close.
    let open = cycle("SER", &[(0, 1, "rw", x.clone()), (2, 0, "rw", x.clone())]);
    assert!(verify(&h, &open).first_failure().unwrap().contains("ends at T1"));
    // A weak level's cycle is of its commit order, which holds no rw step.
    let weak = cycle("CC", &[(0, 1, "rw", x.clone()), (1, 0, "rw", x)]);
    let f = verify(&h, &weak).first_failure().unwrap().to_string();
    assert!(f.contains("a rw step is not an order CC's commit order contains"), "{f}");
}

#[test]
fn a_reversed_log_order_is_rejected() {
    let Some(dir) = common::corpus() else { return };
    // A key written twice, so that the log orders two versions.
    let edn_path = dir.join("grail/tiny-register/lost-update.edn");
    let log_path = dir.join("grail/tiny-register/lost-update.log");
    let log = String::from_utf8(common::slurp(&log_path)).unwrap();
    let h = common::load(&edn_path, Some(&log_path));
    let (_, cert) = certified(&h);
    assert!(!cert.witnesses.is_empty() && verify(&h, &cert).ok());
    // The log's writes of one key in the opposite order.
    let mut h2 = read(&common::slurp(&edn_path), Format::Auto).unwrap();
    let mut reversed: Vec<&str> = log.lines().collect();
    reversed.reverse();
    grail_core::read_wal(&mut h2, reversed.join("\n").as_bytes()).unwrap();
    let f = failure(&h2, &cert);
    assert!(f.as_ref().is_some_and(|f| f.contains("the log installs")), "{f:?}");
}

// ---- brute force: no witness of a violated level verifies ----

/// A small history: per transaction a process and ops (write: key, value; read: key, writer's
/// index + 1 or 0 for the initial value).
#[derive(Debug, Clone)]
struct Small(Vec<(u8, Vec<SmallOp>)>);

/// (write?, key, value or pick).
type SmallOp = (bool, u8, usize);

fn small() -> impl Strategy<Value = (Small, bool)> {
    let txn = (0u8..2, prop::collection::vec((any::<bool>(), 0u8..2, 0usize..5), 1..4));
    (prop::collection::vec(txn, 2..5), any::<bool>()).prop_map(|(t, lists)| (Small(t), lists))
}

impl Small {
    /// As EDN: register writes of unique values `10 * (t + 1) + k`, reads of some writer's
    /// value; or list appends of those values, reads of the list some order of writers gives.
    fn edn(&self, lists: bool) -> String {
        let n = self.0.len();
        let writes = |t: usize, k: u8| self.0[t].1.iter().any(|&(w, kk, _)| w && kk == k);
        let mut s = String::new();
        for (t, (p, ops)) in self.0.iter().enumerate() {
            let mut out = Vec::new();
            let mut wrote: Vec<u8> = Vec::new();
            for &(w, k, pick) in ops {
                let v = 10 * (t + 1) + k as usize;
                if w && wrote.contains(&k) {
                    continue;
                }
                if w {
                    wrote.push(k);
                    out.push(if lists { format!("[:append {k} {v}]") } else { format!("[:w {k} {v}]") });
                    continue;
                }
                // The writers of k among the first `pick` transactions (in index order).
                let src: Vec<usize> = (0..n.min(pick)).filter(|&u| u != t && writes(u, k)).collect();
                if lists {
                    let l: Vec<String> = src.iter().map(|u| format!("{}", 10 * (u + 1) + k as usize)).collect();
                    out.push(format!("[:r {k} [{}]]", l.join(" ")));
                } else {
                    match src.last() {
                        Some(u) => out.push(format!("[:r {k} {}]", 10 * (u + 1) + k as usize)),
                        None => out.push(format!("[:r {k} nil]")),
                    }
                }
            }
            s.push_str(&format!("{{:index {t}, :type :ok, :process {p}, :value [{}]}}\n", out.join(" ")));
        }
        s
    }
}

/// Every order of `0..n`.
fn permutations(n: usize) -> Vec<Vec<u64>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, (n - 1) as u64);
            out.push(q);
        }
    }
    out
}

/// Every sequence naming each of `0..n` twice.
fn interleavings(n: usize) -> Vec<Vec<u64>> {
    fn go(left: &mut Vec<u8>, cur: &mut Vec<u64>, out: &mut Vec<Vec<u64>>) {
        if left.iter().all(|&c| c == 0) {
            out.push(cur.clone());
            return;
        }
        for t in 0..left.len() {
            if left[t] > 0 {
                left[t] -= 1;
                cur.push(t as u64);
                go(left, cur, out);
                cur.pop();
                left[t] += 1;
            }
        }
    }
    let mut out = Vec::new();
    go(&mut vec![2; n], &mut Vec::new(), &mut out);
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// The engine and the verifier agree: a level that holds is certified (or not certified for
    /// an allowed reason), and a level some brute-forced witness proves is never violated.
    #[test]
    fn engine_and_verifier_agree_on_small_histories((s, lists) in small()) {
        let text = s.edn(lists);
        let h = edn(&text);
        let (report, cert) = certified(&h);
        prop_assert!(verify(&h, &cert).ok(), "{text}\n{:?}", verify(&h, &cert).first_failure());
        for n in &cert.not_certified {
            prop_assert!(allowed(&report, &n.level, &n.reason), "{text}\n{}: {}", n.level, n.reason);
        }
        let n = h.txns.len();
        let violated = |l: &str| report.levels[l].valid == Some(false);
        let disproved = verify(&h, &cert).disproved();
        type Try<'a> = (WitnessKind, &'a [Respect], &'a [&'a str], Vec<Vec<u64>>);
        let tries: Vec<Try> = vec![
            (WitnessKind::Serial, &[Respect::Session], &["strong-session-SER", "SER"], permutations(n)),
            (WitnessKind::CommitOrder, &[], &["CC", "RA", "RC", "PL-2"], permutations(n)),
            (WitnessKind::Versions, &[], &["PL-2", "PL-1"], permutations(n)),
            (WitnessKind::Snapshot, &[Respect::Session], &["strong-session-SI", "SI"], if n <= 4 { interleavings(n) } else { vec![] }),
        ];
        // Every cycle of two or three steps (ww, wr, rw on either key): one the verifier accepts
        // shows a level violated that the engine says is violated.
        let keys = [serde_json::json!(0), serde_json::json!(1)];
        let mut kinds: Vec<(&str, serde_json::Value)> = Vec::new();
        for t in ["ww", "wr", "rw"] {
            for k in &keys {
                kinds.push((t, k.clone()));
            }
        }
        let ids: Vec<u64> = (0..n as u64).collect();
        let mut cycles: Vec<Vec<(u64, u64, &str, serde_json::Value)>> = Vec::new();
        for &a in &ids {
            for &b in ids.iter().filter(|&&b| b > a) {
                for s1 in &kinds {
                    for s2 in &kinds {
                        cycles.push(vec![(a, b, s1.0, s1.1.clone()), (b, a, s2.0, s2.1.clone())]);
                    }
                }
                for &c in ids.iter().filter(|&&c| c != a && c != b && n <= 3) {
                    for s1 in &kinds {
                        for s2 in &kinds {
                            for s3 in &kinds {
                                cycles.push(vec![(a, b, s1.0, s1.1.clone()), (b, c, s2.0, s2.1.clone()), (c, a, s3.0, s3.1.clone())]);
                            }
                        }
                    }
                }
            }
        }
        // Every read claimed aborted, intermediate, garbage or internal: one the verifier accepts
        // shows a level violated that the engine says is violated (or holds with it set aside).
        for t in 0..n as u64 {
            for i in 0..4u32 {
                for anomaly in ["G1a", "G1b", "garbage-read", "internal"] {
                    for level in ["SER", "SI", "CC", "RA", "RC", "PL-2", "PL-1"] {
                        if verify(&h, &read_cx(level, anomaly, t, i)).ok() && report.levels[level].set_aside.is_empty() {
                            prop_assert!(violated(level), "{text}\nT{t}'s op {i} shown {anomaly}, {level} not violated");
                        }
                    }
                }
            }
        }
        for steps in &cycles {
            for level in ["SER", "SI", "PSI", "PL-2", "PL-1"] {
                // A verdict with a broken assumption set aside (an incompatible list order) is
                // the verdict of the reads that keep the assumption: a cycle through the others
                // may still be there.
                if verify(&h, &cycle(level, steps)).ok() && report.levels[level].set_aside.is_empty() {
                    prop_assert!(violated(level), "{text}\n{steps:?} shows {level} violated, which the engine says is not");
                }
            }
        }
        for (kind, respects, levels, orders) in tries {
            for level in levels {
                // Each level alone: a witness proving it must not exist when it is violated.
                for order in &orders {
                    let c = one(kind, respects, &[level], order);
                    if verify(&h, &c).ok() {
                        prop_assert!(!violated(level), "{text}\n{kind:?} {order:?} proves {level}, which the engine says is violated");
                        // And no counterexample of the certificate (a weak level's `co` steps
                        // included) shows it violated.
                        prop_assert!(!disproved.iter().any(|d| d == level), "{text}\n{kind:?} {order:?} proves {level}, a counterexample disproves it");
                    }
                }
            }
        }
    }
}

// ---- shapes a review found the verifier accepted for levels the check says are violated ----

/// The verifier rejects `cert` for `level`, which the check says is violated.
fn refused(hist: &str, kind: WitnessKind, respects: &[Respect], level: &str, order: &[u64]) {
    let h = read(hist.as_bytes(), Format::Auto).unwrap();
    let r = check(&h, &all_levels());
    assert_eq!(r.levels[level].valid, Some(false), "{hist}: the check says {level} is not violated");
    let f = failure(&h, &one(kind, respects, &[level], order));
    assert!(f.is_some(), "{hist}: a {kind:?} witness {order:?} proves {level}");
}

/// A TimeKiller history of committed transactions, one session each (no initial value given:
/// the keys' initial value is open).
fn timekiller(ops: &[&str]) -> String {
    let txns: Vec<String> = ops
        .iter()
        .enumerate()
        .map(|(i, o)| {
            format!(
                r#"{{"tid": {i}, "sid": {i}, "sts": {{"p": {}, "l": 0}}, "cts": {{"p": {}, "l": 0}}, "ops": [{o}]}}"#,
                10 * i + 1,
                10 * i + 2
            )
        })
        .collect();
    format!("[{}]", txns.join(","))
}

#[test]
fn list_reads_after_own_appends_are_checked() {
    // T1's read [1 2] puts its 2 right after T0's 1, before T0's 3: G0.
    let g0 = "{:index 0, :type :ok, :process 0, :value [[:append :x 1] [:append :x 3]]}
{:index 1, :type :ok, :process 1, :value [[:append :x 2] [:r :x [1 2]]]}";
    refused(g0, WitnessKind::Versions, &[], "PL-1", &[0, 1]);
    // x: T1's 2 before T0's 1; y: T1 read T0's: G1c.
    let g1c = "{:index 0, :type :ok, :process 0, :value [[:append :x 1] [:append :y 1]]}
{:index 1, :type :ok, :process 1, :value [[:append :x 2] [:r :x [2]] [:r :y [1]]]}";
    refused(g1c, WitnessKind::Versions, &[], "PL-2", &[0, 1]);
    refused(g1c, WitnessKind::CommitOrder, &[], "CC", &[0, 1]);
    // Its session predecessor's append missed.
    let so = "{:index 0, :type :ok, :process 0, :value [[:append :x 1]]}
{:index 1, :type :ok, :process 0, :value [[:append :x 2] [:r :x [2]]]}";
    refused(so, WitnessKind::CommitOrder, &[], "CC", &[0, 1]);
    // Non-monotonic reads, and a list no order makes.
    let nm = "{:index 0, :type :ok, :process 0, :value [[:append :x 2]]}
{:index 1, :type :ok, :process 1, :value [[:append :x 1] [:r :x [2 1]] [:r :x [1]]]}";
    refused(nm, WitnessKind::CommitOrder, &[], "RC", &[0, 1]);
    let garbage = "{:index 0, :type :ok, :process 0, :value [[:append :x 1]]}
{:index 1, :type :ok, :process 1, :value [[:append :x 5] [:r :x [5 1 5]]]}";
    refused(garbage, WitnessKind::CommitOrder, &[], "PL-2", &[1, 0]);
}

#[test]
fn an_open_initial_value_is_one_value_no_transaction_writes() {
    let h = timekiller(&[
        r#"{"t":"r","k":1,"v":1},{"t":"w","k":2,"v":1}"#,
        r#"{"t":"r","k":2,"v":1},{"t":"w","k":1,"v":1}"#,
    ]);
    refused(&h, WitnessKind::Serial, &[], "SER", &[0, 1]);
    refused(&h, WitnessKind::Snapshot, &[], "SI", &[0, 0, 1, 1]);
    let two = timekiller(&[r#"{"t":"r","k":1,"v":5}"#, r#"{"t":"r","k":1,"v":6}"#]);
    refused(&two, WitnessKind::Versions, &[], "PL-2", &[0, 1]);
    refused(&two, WitnessKind::CommitOrder, &[], "CC", &[0, 1]);
    let nil = timekiller(&[r#"{"t":"r","k":1,"v":null}"#, r#"{"t":"r","k":1,"v":6}"#]);
    refused(&nil, WitnessKind::Versions, &[], "PL-2", &[0, 1]);
}

#[test]
fn a_value_written_twice_names_no_writer() {
    let h = "{:index 0, :type :ok, :process 0, :value [[:w :x 1] [:w :x 2]]}
{:index 1, :type :ok, :process 1, :value [[:w :x 1]]}
{:index 2, :type :ok, :process 2, :value [[:r :x 1]]}";
    refused(h, WitnessKind::CommitOrder, &[], "RC", &[0, 1, 2]);
    refused(h, WitnessKind::Versions, &[], "PL-2", &[0, 1, 2]);
    // A replay names no writer: this serial execution is one, under a report that says the
    // history breaks the assumption of values written once (its verdicts rest on it).
    let hist = edn(h);
    let report = check(&hist, &all_levels());
    assert!(report.broken_assumptions.contains(&"duplicate-write".to_string()), "{:?}", report.broken_assumptions);
    let serial = one(WitnessKind::Serial, &[Respect::Session, Respect::RealTime], &["strict-SER"], &[0, 1, 2]);
    assert_eq!(failure(&hist, &serial), None);
}

#[test]
fn an_indeterminate_transactions_nil_reads_are_unknown_to_the_check_too() {
    // T3's read of y returned nothing the client saw: no anti-dependency on T1.
    let h = edn("{:index 0, :type :invoke, :process 1, :value [[:w :y 1]]}
{:index 1, :type :ok, :process 1, :value [[:w :y 1]]}
{:index 2, :type :invoke, :process 1, :value [[:r :y nil] [:w :x 2]]}
{:index 3, :type :info, :process 1, :value [[:r :y nil] [:w :x 2]]}
{:index 4, :type :invoke, :process 1, :value [[:r :x nil]]}
{:index 5, :type :ok, :process 1, :value [[:r :x 2]]}");
    let r = check(&h, &all_levels());
    for l in Level::ALL {
        assert_eq!(r.levels[l.name()].valid, Some(true), "{}", l.name());
    }
    let (_, cert) = certified(&h);
    assert!(verify(&h, &cert).ok() && verify(&h, &cert).proved().contains(&"strong-session-SER".to_string()));
}

#[test]
fn a_list_without_its_writers_earlier_append_is_no_version() {
    // The check said strict-SER holds here; no serial order replays it. Now an incompatible
    // order (a broken assumption), and no level is certified.
    let h = edn("{:index 0, :type :ok, :value [[:append :x 1] [:append :x 2]]}
{:index 1, :type :ok, :value [[:r :x [2]]]}");
    let (report, cert) = certified(&h);
    assert!(report.broken_assumptions.contains(&"incompatible-order".to_string()), "{:?}", report.broken_assumptions);
    assert!(cert.witnesses.is_empty());
    assert!(cert.not_certified.iter().all(|n| n.reason.contains("set aside")), "{:?}", cert.not_certified);
    let serial = one(WitnessKind::Serial, &[], &["SER"], &[0, 1]);
    assert_eq!(failure(&h, &serial).unwrap(), "T1 read x = [2] but the replay has [1 2]");
}

/// A counterexample that is one read: an aborted (`G1a`) or intermediate (`G1b`) read.
fn read_cx(level: &str, anomaly: &str, txn: u64, index: u32) -> Certificate {
    use grail_core::verify::format::{Counterexample, ReadRef};
    let cx = Counterexample {
        level: level.into(),
        anomaly: anomaly.into(),
        read: Some(ReadRef { txn, index }),
        ..Default::default()
    };
    Certificate { counterexamples: vec![cx], witnesses: Vec::new(), ..one(WitnessKind::Serial, &[], &[], &[]) }
}

#[test]
fn aborted_and_intermediate_reads_are_re_derived() {
    let g1a = edn("{:index 0, :type :fail, :value [[:append :x 1]]}
{:index 1, :type :ok, :value [[:r :x [1]]]}");
    let (_, cert) = certified(&g1a);
    let cx = cert.counterexamples.iter().find(|c| c.level == "PL-2").expect("PL-2's counterexample");
    assert_eq!((cx.anomaly.as_str(), cx.read.map(|r| (r.txn, r.index))), ("G1a", Some((1, 0))));
    assert!(verify(&g1a, &cert).ok());
    // The same read where the writer committed: no aborted read.
    let fine = edn("{:index 0, :type :ok, :value [[:append :x 1]]}
{:index 1, :type :ok, :value [[:r :x [1]]]}");
    assert!(verify(&fine, &read_cx("PL-2", "G1a", 1, 0)).first_failure().unwrap().contains("does not show"));
    // PL-1 allows it.
    assert!(verify(&g1a, &read_cx("PL-1", "G1a", 1, 0)).first_failure().unwrap().contains("allows"));
    let g1b = edn("{:index 0, :type :ok, :value [[:w :x 1] [:w :x 2]]}
{:index 1, :type :ok, :value [[:r :x 1]]}");
    let (_, cert) = certified(&g1b);
    assert!(cert.counterexamples.iter().any(|c| c.level == "PL-2" && c.anomaly == "G1b"), "{cert:?}");
    assert!(verify(&g1b, &cert).ok());
    assert!(verify(&g1b, &read_cx("PL-2", "G1b", 0, 0)).first_failure().unwrap().contains("not a read"));
}

/// The one counterexample of `level` in `cert`, alone in a certificate.
fn only_cx(cert: &Certificate, level: &str) -> Certificate {
    let cx = cert
        .counterexamples
        .iter()
        .find(|c| c.level == level)
        .unwrap_or_else(|| panic!("no counterexample of {level}"));
    Certificate { counterexamples: vec![cx.clone()], witnesses: Vec::new(), ..cert.clone() }
}

#[test]
fn weak_levels_counterexamples_name_the_read_and_how_its_reader_observed_the_writer() {
    // T2 read y from T1, then x from T0 though T1 wrote x after T0 (T3's read): RC's axiom puts
    // T1 before T0, the list order T0 before T1 (a non-monotonic read).
    let h = edn("{:index 0, :type :ok, :process 0, :value [[:append :x 1]]}
{:index 1, :type :ok, :process 1, :value [[:append :x 2] [:append :y 1]]}
{:index 2, :type :ok, :process 2, :value [[:r :y [1]] [:r :x [1]]]}
{:index 3, :type :ok, :process 3, :value [[:r :x [1 2]]]}");
    let (_, cert) = certified(&h);
    let rc = only_cx(&cert, "RC");
    assert!(verify(&h, &rc).ok(), "{:?}", verify(&h, &rc).first_failure());
    let co = rc.counterexamples[0].steps.iter().find(|s| s.ty == "co").expect("a co step").clone();
    assert_eq!((co.from, co.to, co.read.map(|r| (r.txn, r.index))), (1, 0, Some((2, 1))));
    assert_eq!(co.observed.len(), 1);
    assert_eq!((co.observed[0].ty.as_str(), co.observed[0].read.map(|r| r.index)), ("wr", Some(0)));
    let failure = |f: &dyn Fn(&mut grail_core::verify::format::CycleStep)| {
        let mut c = rc.clone();
        let s = c.counterexamples[0].steps.iter_mut().find(|s| s.ty == "co").unwrap();
        f(s);
        verify(&h, &c).first_failure().map(str::to_string).unwrap_or_default()
    };
    // No premise; a premise that is not an earlier read; a read that is not from `to`.
    assert!(failure(&|s| s.observed.clear()).contains("no steps show how the reader"));
    let later = failure(&|s| s.observed[0].read.as_mut().unwrap().index = 1);
    assert!(later.contains("RC's premise is an earlier read"), "{later}");
    let other = failure(&|s| s.read = Some(grail_core::verify::format::ReadRef { txn: 3, index: 0 }));
    assert!(other.contains("did not read key \"x\" from T0"), "{other}");
    // The same certificate under a history where T2 read y before T1 wrote it: no premise.
    let moved = edn("{:index 0, :type :ok, :process 0, :value [[:append :x 1]]}
{:index 1, :type :ok, :process 1, :value [[:append :x 2] [:append :y 1]]}
{:index 2, :type :ok, :process 2, :value [[:r :y []] [:r :x [1]]]}
{:index 3, :type :ok, :process 3, :value [[:r :x [1 2]]]}");
    let f = verify(&moved, &rc).first_failure().unwrap().to_string();
    assert!(f.contains("does not show T1 -wr-> T2"), "{f}");

    // T2 observed T0 only through session order after T1's read: CC is violated by T2's read of
    // the initial x, RA (one step) is not.
    let h = edn("{:index 0, :type :ok, :process 0, :value [[:append :x 1] [:append :y 1]]}
{:index 1, :type :ok, :process 1, :value [[:r :y [1]]]}
{:index 2, :type :ok, :process 1, :value [[:r :x []]]}");
    let (report, cert) = certified(&h);
    assert_eq!(report.levels["RA"].valid, Some(true));
    let cc = only_cx(&cert, "CC");
    assert!(verify(&h, &cc).ok(), "{:?}", verify(&h, &cc).first_failure());
    let cx = &cc.counterexamples[0];
    assert_eq!(cx.read.map(|r| (r.txn, r.index)), Some((2, 0)));
    let chain: Vec<(u64, u64, &str)> = cx.observed.iter().map(|s| (s.from, s.to, s.ty.as_str())).collect();
    assert_eq!(chain, [(0, 1, "wr"), (1, 2, "so")]);
    let mut ra = cc.clone();
    ra.counterexamples[0].level = "RA".into();
    let f = verify(&h, &ra).first_failure().unwrap().to_string();
    assert!(f.contains("RA's premise is one step"), "{f}");
    // A history where T2 read T0's x: no read of the initial value.
    let read = edn("{:index 0, :type :ok, :process 0, :value [[:append :x 1] [:append :y 1]]}
{:index 1, :type :ok, :process 1, :value [[:r :y [1]]]}
{:index 2, :type :ok, :process 1, :value [[:r :x [1]]]}");
    assert!(verify(&read, &cc).first_failure().unwrap().contains("did not read the initial value"));
}

#[test]
fn reads_no_execution_has_are_counterexamples_and_set_aside_by_witnesses() {
    // T1 read its own x = 2 as 1 (internal), and T2 read y = 9, which no one wrote (garbage).
    let text = "{:index 0, :type :ok, :value [[:w :x 1]]}
{:index 1, :type :ok, :value [[:w :x 2] [:r :x 1]]}
{:index 2, :type :ok, :value [[:r :x 2] [:r :y 9]]}";
    let h = edn(text);
    let (report, cert) = certified(&h);
    let v = verify(&h, &cert);
    assert!(v.ok(), "{:?}", v.first_failure());
    // Each violated level is disproved by one of the two reads.
    for (l, r) in &report.levels.0 {
        if r.valid == Some(false) {
            let cx = cert.counterexamples.iter().find(|c| c.level == l.name()).expect("a counterexample");
            assert!(["internal", "garbage-read"].contains(&cx.anomaly.as_str()), "{}: {}", l.name(), cx.anomaly);
        }
    }
    // The garbage read is no internal one.
    let f = verify(&h, &read_cx("SER", "internal", 2, 1)).first_failure().unwrap().to_string();
    assert!(f.contains("is a garbage-read read, not internal"), "{f}");

    // Without the garbage read, SER holds with the internal read set aside: the serial witness
    // names it.
    let h = edn(&text.replace(" [:r :y 9]", ""));
    let (report, cert) = certified(&h);
    assert_eq!(report.levels["SER"].set_aside, ["internal"]);
    let v = verify(&h, &cert);
    assert!(v.proved_with_set_aside.contains(&"SER".to_string()) && !v.proved().contains(&"SER".to_string()));
    let w = cert.witnesses.iter().find(|w| w.levels.iter().any(|l| l == "SER")).unwrap().clone();
    assert_eq!(w.set_aside, [grail_core::verify::format::ReadRef { txn: 1, index: 1 }]);
    let one_witness = |w: Witness| Certificate { witnesses: vec![w], counterexamples: Vec::new(), ..cert.clone() };
    // Without it the replay meets it; with a read that agrees with the rest set aside too, the
    // verifier refuses.
    let mut bare = w.clone();
    bare.set_aside.clear();
    let f = verify(&h, &one_witness(bare)).first_failure().unwrap().to_string();
    assert!(f.contains("T1 read x = 1 but the replay has 2"), "{f}");
    let mut fine = w.clone();
    fine.set_aside.push(grail_core::verify::format::ReadRef { txn: 2, index: 0 });
    let f = verify(&h, &one_witness(fine)).first_failure().unwrap().to_string();
    assert!(f.contains("sets aside a read an execution may have"), "{f}");

    // A read that only fails to repeat an earlier one: RA forbids it, RC allows it.
    let repeat = edn("{:index 0, :type :ok, :value [[:w :x 1]]}
{:index 1, :type :ok, :value [[:w :x 2]]}
{:index 2, :type :ok, :value [[:r :x 1] [:r :x 2]]}");
    assert!(verify(&repeat, &read_cx("RA", "internal", 2, 1)).ok());
    let f = verify(&repeat, &read_cx("RC", "internal", 2, 1)).first_failure().unwrap().to_string();
    assert!(f.contains("RC allows this read"), "{f}");
    assert!(!verify(&repeat, &read_cx("SER", "internal", 2, 0)).ok());
}

#[test]
fn causal_consistency_past_the_verifiers_clocks_leaves_the_weaker_levels_certified() {
    // 20,000 transactions without a process, each a session of its own: 4 × 10⁸ clock entries.
    let mut text = String::new();
    for t in 0..20_000 {
        text.push_str(&format!("{{:index {t}, :type :ok, :value [[:append {} {t}]]}}\n", t % 97));
    }
    let h = read(text.as_bytes(), Format::Edn).unwrap();
    let opts = CheckOptions {
        levels: ["RC", "RA", "CC"].iter().map(|l| Level::parse(l).unwrap()).collect(),
        ..CheckOptions::default()
    };
    let report = check(&h, &opts);
    assert_eq!(report.levels["CC"].valid, Some(true));
    let cert = certificate(&h, &infer(&h), &report);
    let v = verify(&h, &cert);
    assert!(v.ok(), "{:?}", v.first_failure());
    assert_eq!(v.proved(), ["RA", "RC"]);
    let cc = cert.not_certified.iter().find(|n| n.level == "CC").expect("CC not certified");
    assert!(cc.reason.contains("20000 × 20000: more than the verifier keeps"), "{}", cc.reason);
    assert!(!cc.reason.contains("bug"), "{}", cc.reason);
}

#[test]
fn a_cycle_needs_steps() {
    // Found by the review of the case splits: an empty cycle verified SER violated.
    let h = edn("{:index 0, :type :ok, :value [[:w :x 1]]}");
    let f = verify(&h, &cycle("SER", &[])).first_failure().unwrap().to_string();
    assert!(f.contains("a cycle needs two transactions"), "{f}");
    let x = serde_json::json!("x");
    assert!(!verify(&h, &cycle("SER", &[(0, 0, "ww", x.clone()), (0, 0, "ww", x)])).ok());
}

#[test]
fn case_splits_over_two_writes_are_re_derived_each_way() {
    // Registers without a version order, generated at causal consistency: SER is violated by
    // cycles through one order of two writes, whose other order closes another.
    let mut found = None;
    for seed in 1..40 {
        let o = GenOptions {
            transactions: 300,
            sessions: 6,
            keys: 12,
            model: DataModel::RwRegister,
            output: Output::Polysi,
            isolation: Isolation::Causal,
            seed,
            ..GenOptions::default()
        };
        let h = common::generated(&o);
        let (_, cert) = certified(&h);
        if let Some(cx) = cert.counterexamples.iter().find(|c| c.split.is_some()) {
            found = Some((h, cx.clone(), cert.clone()));
            break;
        }
    }
    let (h, cx, cert) = found.expect("a history with a case split");
    let alone = |cx: grail_core::verify::format::Counterexample| Certificate {
        counterexamples: vec![cx],
        witnesses: Vec::new(),
        ..cert.clone()
    };
    assert!(verify(&h, &alone(cx.clone())).ok(), "{:?}", verify(&h, &alone(cx.clone())).first_failure());
    // One order alone does not show the level violated.
    let mut half = cx.clone();
    half.split.as_mut().unwrap().other.clear();
    let f = verify(&h, &alone(half)).first_failure().unwrap().to_string();
    assert!(f.contains("a cycle needs two transactions"), "{f}");
    // The orders the wrong way round: each cycle's chosen step no longer follows.
    let mut swapped = cx.clone();
    let sp = swapped.split.as_mut().unwrap();
    (sp.first, sp.second) = (sp.second, sp.first);
    assert!(!verify(&h, &alone(swapped)).ok());
    // Without the split, the first cycle alone rests on a chosen order the history does not show.
    let mut bare = cx.clone();
    bare.split = None;
    assert!(!verify(&h, &alone(bare)).ok());
}

#[test]
fn a_witness_sets_aside_only_reads_its_levels_forbid() {
    // The review's forgery: RC is violated (T2 read x = 1 after T1 observed T0's y, then x = 2),
    // and a commit order setting T2's second read aside "proved" RC. A non-repeatable read is
    // one RC allows: it cannot be set aside for RC.
    let h = edn("{:index 0, :type :ok, :process 0, :value [[:w :y 2] [:w :x 2]]}
{:index 1, :type :ok, :process 1, :value [[:r :y 2] [:w :x 1]]}
{:index 2, :type :ok, :process 2, :value [[:r :x 1] [:r :x 2]]}");
    let (report, _) = certified(&h);
    assert_eq!(report.levels["RC"].valid, Some(false));
    let mut c = one(WitnessKind::CommitOrder, &[], &["RC", "PL-2", "PL-1"], &[0, 1, 2]);
    c.witnesses[0].set_aside = vec![grail_core::verify::format::ReadRef { txn: 2, index: 1 }];
    let f = verify(&h, &c).first_failure().unwrap().to_string();
    assert!(f.contains("a read RC allows (Repeat)"), "{f}");
    // PL-1 over registers: a garbage read is accounted for, or set aside.
    let g = edn("{:index 0, :type :ok, :process 0, :value [[:w :x 1]]}
{:index 1, :type :ok, :process 1, :value [[:r :x 9]]}");
    let pl1 = one(WitnessKind::Versions, &[], &["PL-1"], &[0, 1]);
    let f = verify(&g, &pl1).first_failure().unwrap().to_string();
    assert!(f.contains("T1's operation 0 is a read no execution has (Garbage)"), "{f}");
    let mut aside = pl1.clone();
    aside.witnesses[0].set_aside = vec![grail_core::verify::format::ReadRef { txn: 1, index: 0 }];
    let v = verify(&g, &aside);
    assert!(v.ok() && v.proved().is_empty() && v.proved_with_set_aside == ["PL-1"], "{v:?}");
}
