//! The EDN reader on arbitrary bytes: no panic, and every error has a place (line, column ≥ 1);
//! a history read with its operations' spans found afterwards (`ReadOptions::locate_op_spans`)
//! has the spans, the operations and the transactions of one read recording every span.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match grail_core::read(data, grail_core::Format::Edn) {
        Err(e) => {
            assert!(e.line.is_some_and(|l| l >= 1), "EDN error without a line: {e:?}");
            assert!(e.column.is_some_and(|c| c >= 1), "EDN error without a column: {e:?}");
        }
        Ok(recorded) => {
            let opts = grail_core::ReadOptions { spans: true, locate_op_spans: true };
            let mut h = grail_core::read_with(data, grail_core::Format::Edn, opts).expect("read once, read twice");
            assert_eq!((h.ops.len(), h.txns.len()), (recorded.ops.len(), recorded.txns.len()));
            grail_core::read::attach_input(&mut h, std::sync::Arc::new(data.to_vec()));
            for o in 0..h.ops.len() as u32 {
                assert_eq!(h.op_span(o), recorded.op_span(o), "operation {o}");
            }
        }
    }
});
