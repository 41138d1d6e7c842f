//! PolySI's formats (PolySI/Plume text, dbcop JSON and bincode, Cobra logs) on arbitrary bytes: no panic; a
//! placed error is placed at line and column >= 1; what reads is checked in the polygraph mode
//! under a small budget without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for format in [
        grail_core::Format::Plume,
        grail_core::Format::Dbcop,
        grail_core::Format::DbcopBin,
        grail_core::Format::Cobra,
    ] {
        match grail_core::read(data, format) {
            Err(e) => {
                assert!(e.line.is_none_or(|l| l >= 1), "error at line 0: {e:?}");
                assert!(e.column.is_none_or(|c| c >= 1), "error at column 0: {e:?}");
            }
            Ok(h) => {
                let opts = grail_core::CheckOptions { max_steps: Some(20_000), ..Default::default() };
                let _ = grail_core::check(&h, &opts);
            }
        }
    }
});
