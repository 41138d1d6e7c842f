//! The JSON reader (and format detection) on arbitrary bytes: no panic; a placed error is placed
//! at line and column ≥ 1.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for format in [grail_core::Format::Json, grail_core::Format::Auto] {
        if let Err(e) = grail_core::read(data, format) {
            assert!(e.line.is_none_or(|l| l >= 1), "error at line 0: {e:?}");
            assert!(e.column.is_none_or(|c| c >= 1), "error at column 0: {e:?}");
        }
    }
});
