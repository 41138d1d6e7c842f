//! Read (format detected), infer, then check every level (the weak ones, session and real-time
//! order, the polygraph for registers) with the cycle analysis, under small budgets: no panic
//! anywhere, and a report for every history that reads.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(h) = grail_core::read(data, grail_core::Format::Auto) else { return };
    let inf = grail_core::infer(&h);
    let analyze = grail_core::AnalyzeOptions { max_length: 5, max_cycles: 50, max_steps: Some(20_000), examples: 2 };
    let opts = grail_core::CheckOptions {
        levels: grail_core::Level::ALL.to_vec(),
        max_steps: Some(20_000),
        max_cycles: 2,
        analyze: Some(analyze),
        register_mode: grail_core::report::RegisterMode::Polygraph,
        ..Default::default()
    };
    let report = grail_core::check_inferred(&h, &inf, &opts, None);
    assert_eq!(report.levels.0.len(), grail_core::Level::ALL.len(), "a verdict for each level");
});
