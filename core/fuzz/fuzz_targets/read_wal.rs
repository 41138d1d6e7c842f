//! The write-ahead-log reader on arbitrary bytes, against a small register history whose keys
//! and values the log may name (`x`, `y`, 1, 2, "a"): no panic; errors at line and column ≥ 1.
#![no_main]

use libfuzzer_sys::fuzz_target;

const HISTORY: &str = "{:type :ok, :value [[:w x 1] [:w y \"a\"]]}\n{:type :ok, :value [[:w 1 2] [:r x 1]]}\n";

fuzz_target!(|data: &[u8]| {
    let Ok(mut h) = grail_core::read(HISTORY.as_bytes(), grail_core::Format::Edn) else {
        panic!("the fixed history must parse");
    };
    if let Err(e) = grail_core::read_wal(&mut h, data) {
        assert!(e.line.is_some_and(|l| l >= 1), "WAL error without a line: {e:?}");
        assert!(e.column.is_some_and(|c| c >= 1), "WAL error without a column: {e:?}");
    } else {
        // Whatever was read, checking with it must not panic either.
        let opts = grail_core::CheckOptions { max_steps: Some(10_000), ..Default::default() };
        let _ = grail_core::check(&h, &opts);
    }
});
