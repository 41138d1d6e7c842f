//! Hash maps with one hasher everywhere: foldhash (hashbrown's own default) with a fixed seed,
//! fast and deterministic from run to run. For joins over millions of entries a hash map costs a
//! cache miss per insert whatever the hasher (about 250 ns here, measured with FxHash and
//! foldhash alike); those sort instead (`infer::Writes`).

pub type Map<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;
pub type Set<K> = std::collections::HashSet<K, foldhash::fast::FixedState>;
