//! Read (format detected), infer, then check with a small step budget: no panic anywhere, and a
//! report for every history that reads.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(h) = grail_core::read(data, grail_core::Format::Auto) else { return };
    let inf = grail_core::infer(&h);
    let opts = grail_core::CheckOptions { max_steps: Some(20_000), max_cycles: 2, ..Default::default() };
    let report = grail_core::check_inferred(&h, &inf, &opts, None);
    assert_eq!(report.levels.0.len(), 5, "a report gives a verdict for each of the five levels");
});
