//! `grail elle --version-order complete` with Elle's version-order options: the order they
//! assume is known order to the polygraph. More assumed order, fewer version orders to choose
//! from: on generated register histories (every isolation, injected anomalies), a model that
//! holds with an assumption holds without it, and one that Elle's own inference with the same
//! options violates is violated. Every step that rests on an assumed order names it; no other
//! does.

use grail_core::elle::versions::VersionSources;
use grail_core::elle::{check, ElleOptions, Valid, VersionOrder};
use grail_core::generate::{generate, DataModel, GenOptions, Injection, Isolation, Output};
use grail_core::{infer, Format};

fn sources() -> [VersionSources; 3] {
    [
        VersionSources { linearizable_keys: true, ..Default::default() },
        VersionSources { sequential_keys: true, wfr_keys: true, ..Default::default() },
        VersionSources { wfr_keys: true, sequential_keys: true, linearizable_keys: true },
    ]
}

#[test]
fn assumed_order_only_adds_violations() {
    let isolations =
        [Isolation::Serializable, Isolation::SnapshotIsolation, Isolation::Causal, Isolation::ReadCommitted];
    let injections = [None, Some(Injection::WriteSkew), Some(Injection::LostUpdate), Some(Injection::ReadSkew)];
    let (mut histories, mut stronger, mut assumed_steps) = (0, 0, 0);
    for seed in 0..6u64 {
        for &isolation in &isolations {
            for inject in injections {
                let g = generate(&GenOptions {
                    transactions: 120,
                    sessions: 6,
                    keys: 6,
                    model: DataModel::RwRegister,
                    output: Output::Edn,
                    isolation,
                    inject: inject.map(|i| vec![(i, 1)]).unwrap_or_default(),
                    seed,
                    ..Default::default()
                });
                let h = grail_core::read(g.history.as_bytes(), Format::Auto).unwrap();
                let inf = infer(&h);
                histories += 1;
                for model in ["serializable", "snapshot-isolation", "strict-serializable"] {
                    let run = |versions: VersionSources, version_order: VersionOrder| {
                        let opts = ElleOptions {
                            consistency_models: vec![model.into()],
                            versions,
                            version_order,
                            ..Default::default()
                        };
                        check(&h, &inf, &opts, None).unwrap()
                    };
                    let plain = run(VersionSources::default(), VersionOrder::Complete).valid;
                    for s in sources() {
                        let with = run(s, VersionOrder::Complete);
                        let elle = run(s, VersionOrder::Elle).valid;
                        let at = format!("seed {seed} {isolation:?} {inject:?} {model} {s:?}");
                        assert_ne!(with.valid, Valid::Unknown, "{at}");
                        if with.valid == Valid::True {
                            assert_eq!(plain, Valid::True, "{at}: holds with an assumption, not without");
                            assert_eq!(
                                elle,
                                Valid::True,
                                "{at}: Elle's inference finds a cycle, the complete check none"
                            );
                        }
                        stronger += usize::from(plain == Valid::True && with.valid == Valid::False);
                        let steps = with.cycles.iter().flat_map(|c| &c.steps);
                        for st in steps.clone().filter(|st| st.assumed.is_some()) {
                            assumed_steps += 1;
                            assert_eq!(st.certain, Some(false), "{at}: an assumed step is not certain");
                            assert!(st.why.contains("assumes"), "{at}: {}", st.why);
                            assert!(matches!(st.ty.as_str(), "ww" | "rw"), "{at}");
                        }
                        for st in steps.filter(|st| st.assumed.is_none()) {
                            assert!(!st.why.contains("assumes"), "{at}: {}", st.why);
                        }
                    }
                }
            }
        }
    }
    eprintln!(
        "{histories} histories: {stronger} checks violated only with an assumed order, {assumed_steps} assumed steps"
    );
    assert!(stronger > 0, "no history where an assumption adds a violation: the test shows nothing");
    assert!(assumed_steps > 0);
}
