//! Sorting and splitting work on several threads when the `parallel` feature is on (rayon), on
//! one otherwise (WebAssembly). Unstable sorts by a total key give the same order either way;
//! [`map_ranges`] gives its results in range order either way.

pub mod sort;

/// Below this many elements the threads' start costs more than the sort.
#[cfg(feature = "parallel")]
pub(crate) const PARALLEL_MIN: usize = 1 << 16;

pub fn sort_unstable<T: Ord + Send>(v: &mut [T]) {
    #[cfg(feature = "parallel")]
    if v.len() >= PARALLEL_MIN {
        use rayon::slice::ParallelSliceMut;
        return v.par_sort_unstable();
    }
    sort::sort_unstable(v);
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

/// Records of consecutive ranges of `0..n` in one vector, each range writing its own slice
/// (on the pool as [`map_ranges`] splits them): `count(range)` records, written by
/// `fill(range, slice)`, whose results come in range order. Gathering a vector per range into
/// one made a second copy in fresh pages, which cost more than counting.
pub fn fill_ranges<T: Clone + Default + Send, R: Send>(
    n: usize,
    min: usize,
    count: impl Fn(std::ops::Range<usize>) -> usize + Sync,
    fill: impl Fn(std::ops::Range<usize>, &mut [T]) -> R + Sync,
) -> (Vec<T>, Vec<R>) {
    let counted = map_ranges(n, min, |r| (r.clone(), count(r)));
    let mut all = defaults(counted.iter().map(|c| c.1).sum());
    let mut slots = Vec::with_capacity(counted.len());
    let mut rest = &mut all[..];
    for (r, len) in counted {
        let (head, tail) = rest.split_at_mut(len);
        slots.push((r, head));
        rest = tail;
    }
    #[cfg(feature = "parallel")]
    let results = {
        use rayon::prelude::*;
        slots.into_par_iter().map(|(r, slot)| fill(r, slot)).collect()
    };
    #[cfg(not(feature = "parallel"))]
    let results = slots.into_iter().map(|(r, slot)| fill(r, slot)).collect();
    (all, results)
}

/// `n` default values: written on the pool when there are many, since writing fresh memory is
/// mostly its page faults, which the kernel takes on every core (96 MB of writes found at 1M
/// transactions took 30 ms on one thread).
fn defaults<T: Clone + Default + Send>(n: usize) -> Vec<T> {
    #[cfg(feature = "parallel")]
    if n >= PARALLEL_MIN && rayon::current_num_threads() >= 2 {
        use rayon::prelude::*;
        let mut v = Vec::with_capacity(n);
        v.par_extend(rayon::iter::repeat_n(T::default(), n));
        return v;
    }
    vec![T::default(); n]
}

#[cfg(test)]
mod tests {
    #[test]
    fn fill_ranges_gives_what_one_pass_gives() {
        // Item i makes i % 3 records (i, j): ranges of all sizes, some empty; 100k items make
        // enough records for the defaults to be written on the pool.
        for n in [10_000, 100_000] {
            check_fill_ranges(n);
        }
    }

    fn check_fill_ranges(n: usize) {
        let (all, sums) = super::fill_ranges(
            n,
            2,
            |r| r.map(|i| i % 3).sum(),
            |r, out: &mut [(usize, usize)]| {
                let pairs = r.flat_map(|i| (0..i % 3).map(move |j| (i, j)));
                out.iter_mut().zip(pairs).map(|(slot, p)| *slot = p).count()
            },
        );
        let expected: Vec<(usize, usize)> = (0..n).flat_map(|i| (0..i % 3).map(move |j| (i, j))).collect();
        assert_eq!(all, expected);
        assert_eq!(sums.iter().sum::<usize>(), expected.len());
    }
}
