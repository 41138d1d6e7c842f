//! Sorting on several threads when the `parallel` feature is on (rayon), on one otherwise
//! (WebAssembly). Unstable sorts by a total key give the same order either way.

/// Below this many elements the threads' start costs more than the sort.
#[cfg(feature = "parallel")]
const PARALLEL_MIN: usize = 1 << 16;

pub fn sort_unstable<T: Ord + Send>(v: &mut [T]) {
    #[cfg(feature = "parallel")]
    if v.len() >= PARALLEL_MIN {
        use rayon::slice::ParallelSliceMut;
        return v.par_sort_unstable();
    }
    v.sort_unstable();
}
