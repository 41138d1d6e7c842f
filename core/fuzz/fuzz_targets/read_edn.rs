//! The EDN reader on arbitrary bytes: no panic, and every error has a place (line, column ≥ 1).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = grail_core::read(data, grail_core::Format::Edn) {
        assert!(e.line.is_some_and(|l| l >= 1), "EDN error without a line: {e:?}");
        assert!(e.column.is_some_and(|c| c >= 1), "EDN error without a column: {e:?}");
    }
});
