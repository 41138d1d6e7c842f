//! Sorting and splitting work on several threads when the `parallel` feature is on (rayon), on
//! one otherwise (WebAssembly). Unstable sorts by a total key give the same order either way;
//! [`map_ranges`] gives its results in range order either way.

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

/// `f` over consecutive ranges covering `0..n`, results in range order: several ranges on the
/// pool when there are threads and `n` is at least `min`, one range (`0..n`) otherwise.
pub fn map_ranges<T: Send>(n: usize, min: usize, f: impl Fn(std::ops::Range<usize>) -> T + Sync) -> Vec<T> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        let threads = rayon::current_num_threads();
        if threads >= 2 && n >= min.max(2) {
            // More ranges than threads: a range of heavy items does not hold up the rest.
            let ranges = (4 * threads).min(n);
            return (0..ranges).into_par_iter().map(|i| f(i * n / ranges..(i + 1) * n / ranges)).collect();
        }
    }
    let _ = min;
    vec![f(0..n)]
}

/// `f` over each of `items` (the pool's share of work already cut, e.g. disjoint slices of one
/// output), results in order: on the pool with the `parallel` feature.
pub fn map_slots<I: Send, T: Send>(items: Vec<I>, f: impl Fn(I) -> T + Sync) -> Vec<T> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        if items.len() > 1 {
            return items.into_par_iter().map(&f).collect();
        }
    }
    items.into_iter().map(f).collect()
}
