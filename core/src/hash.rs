//! Hash maps with one hasher everywhere. foldhash (hashbrown's own default) with a fixed seed:
//! fast, and deterministic from run to run. FxHash was tried first and clustered badly on
//! (key, value) pairs of small integers: 2M inserts took 1.8 s.

pub type Map<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;
pub type Set<K> = std::collections::HashSet<K, foldhash::fast::FixedState>;

/// An empty map with room for `n` entries.
pub fn map_with_capacity<K, V>(n: usize) -> Map<K, V> {
    Map::with_capacity_and_hasher(n, Default::default())
}
