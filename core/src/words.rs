//! Counts in words, so that no message says "1 transactions".

/// `n` and the noun, singular for 1: `counted(1, "round")` is "1 round", `counted(2, "guess")`
/// "2 guesses". Nouns whose plural is not `s` or `es` take [`count`].
pub fn counted(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    match (n, noun.ends_with('s')) {
        (1, _) => format!("1 {noun}"),
        (_, true) => format!("{n} {noun}es"),
        _ => format!("{n} {noun}s"),
    }
}

/// `n` and `one` or `many`: `count(1, "vertex", "vertices")`.
pub fn count(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    #[test]
    fn singular_for_one() {
        assert_eq!(super::counted(1u32, "transaction"), "1 transaction");
        assert_eq!(super::counted(0u32, "conflict"), "0 conflicts");
        assert_eq!(super::counted(2u32, "guess"), "2 guesses");
        assert_eq!(super::count(1u32, "vertex", "vertices"), "1 vertex");
        assert_eq!(super::count(3u32, "vertex", "vertices"), "3 vertices");
        assert_eq!(super::counted(6u32, "round"), "6 rounds");
        assert_eq!(super::counted(1u64, "guess"), "1 guess");
        assert_eq!(super::counted(2u64, "conflict"), "2 conflicts");
    }
}
