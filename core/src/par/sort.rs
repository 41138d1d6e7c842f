//! Comparison sorts the core calls instead of the slice methods, so that the web demo's
//! WebAssembly module can have one copy of a sort for every element type and order.
//!
//! Without the feature `compact-sort` (the CLI, Python, the JS package) each function is the
//! slice method of its name. With it (bindings/wasm's feature `small`, the web demo's module),
//! all of them are one merge sort of positions (`order`, not generic: the order reaches it as a
//! `dyn` comparison of two positions), after which the elements are moved into place: the
//! standard library's sorts are about 3 kB of code for each element type and order, some 45
//! times over in that module (issue 37).
//!
//! The same orders either way: the merge sort is stable, so [`sort`], [`sort_by`],
//! [`sort_by_key`] and [`sort_by_cached_key`] give the slice methods' order exactly. The
//! `unstable` ones may order equal elements differently than the slice methods do, so they are
//! only for orders under which equal elements are the same (a type's own `Ord`, where no two
//! different values compare equal; a key that differs for different elements).

use std::cmp::Ordering;

/// `v.sort()`.
#[inline]
pub fn sort<T: Ord>(v: &mut [T]) {
    #[cfg(feature = "compact-sort")]
    compact(v, &mut |a: &T, b: &T| a < b);
    #[cfg(not(feature = "compact-sort"))]
    v.sort();
}

/// `v.sort_by(cmp)`.
#[inline]
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    #[cfg(feature = "compact-sort")]
    compact(v, &mut |a: &T, b: &T| cmp(a, b) == Ordering::Less);
    #[cfg(not(feature = "compact-sort"))]
    v.sort_by(|a, b| cmp(a, b));
}

/// `v.sort_by_key(key)`.
#[inline]
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    #[cfg(feature = "compact-sort")]
    compact(v, &mut |a: &T, b: &T| key(a) < key(b));
    #[cfg(not(feature = "compact-sort"))]
    v.sort_by_key(|x| key(x));
}

/// `v.sort_by_cached_key(key)`: `key` once per element.
#[inline]
pub fn sort_by_cached_key<T, K: Ord>(v: &mut [T], key: impl FnMut(&T) -> K) {
    #[cfg(feature = "compact-sort")]
    if v.len() > 1 {
        let keys: Vec<K> = v.iter().map(key).collect();
        let mut positions = order(v.len(), &mut |a, b| keys[a] < keys[b]);
        permute(v, &mut positions);
    }
    #[cfg(not(feature = "compact-sort"))]
    v.sort_by_cached_key(key);
}

/// `v.sort_unstable()`, for a type whose equal values are the same.
#[inline]
pub fn sort_unstable<T: Ord>(v: &mut [T]) {
    #[cfg(feature = "compact-sort")]
    compact(v, &mut |a: &T, b: &T| a < b);
    #[cfg(not(feature = "compact-sort"))]
    v.sort_unstable();
}

/// `v.sort_unstable_by_key(key)`, for a key that differs for different elements.
#[inline]
pub fn sort_unstable_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    #[cfg(feature = "compact-sort")]
    compact(v, &mut |a: &T, b: &T| key(a) < key(b));
    #[cfg(not(feature = "compact-sort"))]
    v.sort_unstable_by_key(|x| key(x));
}

/// Sort `v` stably by `less`: its positions sorted (up to [`RUN`] of them on the stack, no
/// allocation: many of the core's sorts are of a few elements; more through [`order`]), then
/// the elements moved. Only [`permute`] is per element type: an insertion sort of the elements
/// themselves was one more loop a type (the web demo's module is 548 bytes less gzipped
/// without; issue 37).
#[cfg(feature = "compact-sort")]
fn compact<T>(v: &mut [T], less: &mut dyn FnMut(&T, &T) -> bool) {
    let n = v.len();
    if n < 2 {
        return;
    }
    let by = &mut |a: usize, b: usize| less(&v[a], &v[b]);
    let (mut small, mut large): ([usize; RUN], Vec<usize>);
    let positions: &mut [usize] = if n <= RUN {
        small = std::array::from_fn(|i| i);
        insertion(&mut small[..n], by);
        &mut small[..n]
    } else {
        large = order(n, by);
        &mut large
    };
    permute(v, positions);
}

/// Runs sorted by insertion before merging.
#[cfg(feature = "compact-sort")]
const RUN: usize = 16;

/// The positions `0..n` in the order `less` (on two positions) gives, stably: insertion sorts
/// of runs of [`RUN`], then merged bottom-up through a second buffer.
#[cfg(feature = "compact-sort")]
#[inline(never)]
fn order(n: usize, less: &mut dyn FnMut(usize, usize) -> bool) -> Vec<usize> {
    let mut a: Vec<usize> = (0..n).collect();
    for start in (0..n).step_by(RUN) {
        insertion(&mut a[start..(start + RUN).min(n)], less);
    }
    if n <= RUN {
        return a;
    }
    let mut b = vec![0; n];
    let mut width = RUN;
    while width < n {
        for lo in (0..n).step_by(2 * width) {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            let (left, right, out) = (&a[lo..mid], &a[mid..hi], &mut b[lo..hi]);
            if right.is_empty() || !less(right[0], left[left.len() - 1]) {
                // Already in order (often: the input is mostly sorted).
                out[..left.len()].copy_from_slice(left);
                out[left.len()..].copy_from_slice(right);
                continue;
            }
            let (mut i, mut j) = (0, 0);
            for o in out.iter_mut() {
                // The right one only when strictly less: equal elements keep their order.
                if j < right.len() && (i == left.len() || less(right[j], left[i])) {
                    *o = right[j];
                    j += 1;
                } else {
                    *o = left[i];
                    i += 1;
                }
            }
        }
        std::mem::swap(&mut a, &mut b);
        width *= 2;
    }
    a
}

/// Sort positions `a` stably by `less` (on two positions), by insertion.
#[cfg(feature = "compact-sort")]
#[inline(never)]
fn insertion(a: &mut [usize], less: &mut dyn FnMut(usize, usize) -> bool) {
    for i in 1..a.len() {
        let x = a[i];
        let mut j = i;
        while j > 0 && less(x, a[j - 1]) {
            a[j] = a[j - 1];
            j -= 1;
        }
        a[j] = x;
    }
}

/// Rearrange `v` so that `v[i]` is the element that was at `positions[i]` (a permutation),
/// following each cycle of it once (`positions` is left as `0..n`).
#[cfg(feature = "compact-sort")]
fn permute<T>(v: &mut [T], positions: &mut [usize]) {
    for i in 0..v.len() {
        if positions[i] == i {
            continue;
        }
        let mut j = i;
        loop {
            let k = positions[j];
            positions[j] = j;
            if k == i {
                break;
            }
            v.swap(j, k);
            j = k;
        }
    }
}

#[cfg(all(test, feature = "compact-sort"))]
mod tests {
    #[test]
    fn stable_like_the_slice_method() {
        let mut seed = 7u64;
        for n in [0, 1, 2, 15, 16, 17, 33, 100, 1000, 5000] {
            for modulo in [1u64, 3, 50, 1 << 40] {
                let v: Vec<(u64, usize)> = (0..n)
                    .map(|i| {
                        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        ((seed >> 20) % modulo, i)
                    })
                    .collect();
                let mut ours = v.clone();
                super::sort_by_key(&mut ours, |x| x.0);
                let mut std = v.clone();
                std.sort_by_key(|x| x.0);
                assert_eq!(ours, std);
                let mut cached = v.clone();
                super::sort_by_cached_key(&mut cached, |x| x.0);
                assert_eq!(cached, std);
                let mut all = v.clone();
                super::sort_unstable(&mut all);
                let mut std = v;
                std.sort_unstable();
                assert_eq!(all, std);
            }
        }
    }
}
