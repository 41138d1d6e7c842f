//! Sorting millions of records whose key starts with a small integer (a transaction, a key):
//! a counting sort by that integer, then each bucket's few records by the whole key. Linear
//! where a comparison sort of 7M edges took a second.
//!
//! The records are first split in place into ranges of buckets of about [`RANGE_BYTES`] (one
//! pass: the records arrive nearly in order, so few move); each range is then scattered through
//! a copy of its own size, on the pool with the `parallel` feature. The copy, not the whole
//! vector's, keeps the peak; and moving records in place within a range, as an American flag
//! sort does, follows one record to the next with a cache miss each (38 ns per edge at 1M
//! transactions; through the copy, 19 for the whole sort, each bucket's included).

/// Bytes of records per range: a range's scatter stays in cache (0.5, 1, 2, 8 and 32 MB
/// measured: 0.5 to 2 alike, larger slower).
const RANGE_BYTES: usize = 2 << 20;

/// Sort `v` by `key`, where `bucket(x)` is the key's leading part: `bucket` must not decrease as
/// `key` grows. Buckets at or past `n` share the last one (still in order: they are the largest).
/// `key` must differ for different elements (the sorts under it are unstable: crate::par::sort).
pub fn sort_by_bucket<T: Send + Copy, K: Ord>(
    v: &mut [T],
    n: usize,
    bucket: impl Fn(&T) -> usize + Sync + Copy,
    key: impl Fn(&T) -> K + Sync + Copy,
) {
    if v.len() < 2 {
        return;
    }
    if n < 2 {
        return crate::par::sort::sort_unstable_by_key(v, key);
    }
    let bucket = move |x: &T| bucket(x).min(n - 1);
    // With threads, more ranges than threads, so that a dense range does not hold up the rest.
    let ranges = std::mem::size_of_val(v).div_ceil(RANGE_BYTES).max(4 * threads()).min(n);
    // A bucket's range by a multiplication, not a division (twice per record); range r holds
    // buckets lo(r)..lo(r + 1).
    #[cfg(target_pointer_width = "64")]
    let range_of = range_by_u128(ranges, n);
    #[cfg(not(target_pointer_width = "64"))]
    let range_of = range_by_u64(ranges, n);
    let mut lo: Vec<usize> = (0..=ranges).map(|r| (r * n).div_ceil(ranges).min(n)).collect();
    for (r, l) in lo.iter_mut().enumerate().take(ranges).skip(1) {
        while *l > 0 && range_of(*l - 1) >= r {
            *l -= 1;
        }
        while *l < n && range_of(*l) < r {
            *l += 1;
        }
    }
    #[cfg(feature = "parallel")]
    let v_len = v.len();
    let ends = partition(v, ranges, move |x| range_of(bucket(x)));
    let mut parts: Vec<(usize, &mut [T])> = Vec::with_capacity(ranges);
    let mut rest = v;
    for r in 0..ranges {
        let (head, tail) = rest.split_at_mut(ends[r + 1] - ends[r]);
        parts.push((r, head));
        rest = tail;
    }
    let sort = |scratch: &mut Vec<T>, (r, part): (usize, &mut [T])| {
        let first = lo[r];
        scatter_sort(part, lo[r + 1] - first, move |x| bucket(x) - first, key, scratch);
    };
    // Below PARALLEL_MIN records the pool's start costs more than the sort.
    #[cfg(feature = "parallel")]
    if threads() >= 2 && parts.len() >= 2 && v_len >= crate::par::PARALLEL_MIN {
        use rayon::prelude::*;
        return parts.into_par_iter().for_each_init(Vec::new, sort);
    }
    let mut scratch = Vec::new();
    for p in parts {
        sort(&mut scratch, p);
    }
}

/// Bucket → range for `ranges` ranges of `n` buckets: rising, and below `ranges` for every
/// bucket below `n` (all the split needs), with a 64-bit fraction.
#[cfg_attr(not(target_pointer_width = "64"), allow(dead_code))]
fn range_by_u128(ranges: usize, n: usize) -> impl Fn(usize) -> usize + Copy {
    let scale = ((ranges as u128) << 64) / n as u128;
    move |b| ((b as u128 * scale) >> 64) as usize
}

/// The same with a 32-bit fraction, for `n` below 2^32: a u128 multiply is a call to
/// `__multi3` on wasm32, where buckets always fit in 32 bits.
#[cfg_attr(target_pointer_width = "64", allow(dead_code))]
fn range_by_u64(ranges: usize, n: usize) -> impl Fn(usize) -> usize + Copy {
    let scale = ((ranges as u64) << 32) / n as u64;
    move |b| ((b as u64 * scale) >> 32) as usize
}

/// Threads to sort on.
fn threads() -> usize {
    #[cfg(feature = "parallel")]
    return rayon::current_num_threads();
    #[cfg(not(feature = "parallel"))]
    1
}

/// Bucket `b`'s positions in a vector sorted by bucket, given its [`starts`] (empty past the end).
pub fn range(starts: &[u32], b: usize) -> std::ops::Range<usize> {
    match (starts.get(b), starts.get(b.wrapping_add(1))) {
        (Some(&x), Some(&y)) => x as usize..y as usize,
        _ => 0..0,
    }
}

/// Bucket `b`'s records in `v`, sorted by bucket with these [`starts`].
pub fn bucket<'v, T>(v: &'v [T], starts: &[u32], b: usize) -> &'v [T] {
    v.get(range(starts, b)).unwrap_or(&[])
}

/// Where each bucket's records start in a vector sorted by bucket, from `counts[b + 1]` holding
/// bucket b's count (and `counts[0]` zero): bucket b is then `counts[b]..counts[b + 1]`. Callers
/// count in the pass that makes the records.
pub fn starts_from_counts(counts: &mut [u32]) {
    for i in 1..counts.len() {
        counts[i] += counts[i - 1];
    }
}

/// Sort `v` by bucket (below `n`) through `scratch`: each record written once to its bucket's
/// place there and back (these writes do not wait on each other), then each bucket by `key`. A
/// range too large to copy (few buckets: `n` bounds the ranges) is partitioned in place.
fn scatter_sort<T: Copy, K: Ord>(
    v: &mut [T],
    n: usize,
    bucket: impl Fn(&T) -> usize,
    key: impl Fn(&T) -> K,
    scratch: &mut Vec<T>,
) {
    let Some(&fill) = v.first() else { return };
    let ends = if std::mem::size_of_val(v) > 4 * RANGE_BYTES {
        partition(v, n, bucket)
    } else {
        let mut next = vec![0usize; n + 1];
        for x in v.iter() {
            next[bucket(x) + 1] += 1;
        }
        for b in 0..n {
            next[b + 1] += next[b];
        }
        let ends = next.clone();
        scratch.clear();
        scratch.resize(v.len(), fill);
        for x in v.iter() {
            let b = bucket(x);
            scratch[next[b]] = *x;
            next[b] += 1;
        }
        v.copy_from_slice(scratch);
        ends
    };
    for b in 0..n {
        let bucket = &mut v[ends[b]..ends[b + 1]];
        if bucket.len() > 1 {
            crate::par::sort::sort_unstable_by_key(bucket, &key);
        }
    }
}

/// Order `v` by `bucket` (below `n`) in place; bucket b ends up in `ends[b]..ends[b + 1]`.
fn partition<T>(v: &mut [T], n: usize, bucket: impl Fn(&T) -> usize) -> Vec<usize> {
    let mut ends = vec![0usize; n + 1];
    for x in v.iter() {
        ends[bucket(x) + 1] += 1;
    }
    for b in 0..n {
        ends[b + 1] += ends[b];
    }
    // `next[b]`: the first place of bucket b not yet holding one of its records.
    let mut next = ends[..n].to_vec();
    for b in 0..n {
        while next[b] < ends[b + 1] {
            let to = bucket(&v[next[b]]);
            if to == b {
                next[b] += 1;
            } else {
                v.swap(next[b], next[to]);
                next[to] += 1;
            }
        }
    }
    ends
}

#[cfg(test)]
mod tests {
    use super::sort_by_bucket;

    #[test]
    fn both_range_maps_rise_and_stay_below_the_ranges() {
        for (ranges, n) in [(4, 4), (4, 5), (7, 1000), (96, 1_000_000), (1000, 10_000_019), (3, u32::MAX as usize)] {
            let (wide, narrow) = (super::range_by_u128(ranges, n), super::range_by_u64(ranges, n));
            let maps: [&dyn Fn(usize) -> usize; 2] = [&wide, &narrow];
            for map in maps {
                let head = n.min(100_000);
                let probe = (0..head).chain((head.max(n.saturating_sub(100_000))..n).step_by(7)).chain([n - 1]);
                let mut last = 0;
                for b in probe {
                    let r = map(b);
                    assert!(r < ranges && r >= last, "ranges {ranges}, n {n}: bucket {b} maps to {r} after {last}");
                    last = r;
                }
                assert_eq!(map(0), 0);
            }
        }
    }

    #[test]
    fn a_bucket_is_its_records_and_nothing_past_the_end() {
        let v = [(0, 'a'), (0, 'b'), (2, 'c')];
        let mut starts = vec![0, 2, 0, 1, 0];
        super::starts_from_counts(&mut starts);
        assert_eq!(starts, [0, 2, 2, 3, 3]);
        assert_eq!(super::bucket(&v, &starts, 0), &v[..2]);
        assert!(super::bucket(&v, &starts, 1).is_empty());
        assert_eq!(super::bucket(&v, &starts, 2), &v[2..]);
        assert!(super::bucket(&v, &starts, 3).is_empty());
        assert!(super::bucket(&v, &starts, 4).is_empty(), "past the last bucket");
        assert!(super::bucket(&v, &starts, usize::MAX).is_empty());
        assert!(super::bucket(&v[..1], &starts, 2).is_empty(), "starts past the records");
    }

    #[test]
    fn sorts_as_a_comparison_sort_does() {
        // A small linear congruential sequence: pairs with many ties, and buckets past `n`.
        let mut x: u64 = 12345;
        let mut v: Vec<(u32, u32)> = (0..5000)
            .map(|_| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((x >> 33) as u32 % 120, (x >> 13) as u32 % 50)
            })
            .collect();
        let mut expected = v.clone();
        expected.sort_unstable();
        sort_by_bucket(&mut v, 100, |p| p.0 as usize, |p| *p);
        assert_eq!(v, expected);
    }

    #[test]
    fn large_inputs_sort_as_a_comparison_sort_does() {
        let mut x: u64 = 987;
        let mut next = |m: u32| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) as u32 % m
        };
        // Many ranges, buckets past n, n = 1 to 3, and ranges too large to copy (24 MB in 2).
        for (len, n, buckets) in
            [(200_000, 1000, 1200), (70_000, 3, 3), (70_000, 2, 5), (70_000, 1, 5), (100, 50, 60), (3_000_000, 2, 2)]
        {
            let mut v: Vec<(u32, u32)> = (0..len).map(|_| (next(buckets), next(40))).collect();
            let key = |p: &(u32, u32)| (p.0.min(n as u32 - 1), *p);
            let mut expected = v.clone();
            expected.sort_unstable_by_key(key);
            sort_by_bucket(&mut v, n, |p| p.0 as usize, key);
            assert_eq!(v, expected, "len {len} n {n}");
        }
    }
}
