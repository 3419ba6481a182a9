//! Small helpers that turn numbers and lists into the words of a message.

/// `1 replica`, `3 replicas`, `0 replicas`.
pub fn count(n: i64, noun: &str) -> String {
    if n == 1 {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `noun` or its plural, for a count printed elsewhere.
pub fn noun(n: i64, noun: &str) -> String {
    if n == 1 {
        noun.to_string()
    } else {
        format!("{noun}s")
    }
}

/// `a`, `a and b`, `a, b and c`; long lists end in `and 3 more`.
pub fn list<S: AsRef<str>>(items: &[S]) -> String {
    const SHOWN: usize = 3;
    let items: Vec<&str> = items.iter().map(AsRef::as_ref).collect();
    match items.len() {
        0 => String::new(),
        1 => items[0].to_string(),
        n if n <= SHOWN => format!("{} and {}", items[..n - 1].join(", "), items[n - 1]),
        n => format!("{} and {} more", items[..SHOWN].join(", "), n - SHOWN),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_lists_read_naturally() {
        assert_eq!(count(1, "replica"), "1 replica");
        assert_eq!(count(0, "replica"), "0 replicas");
        assert_eq!(noun(2, "pod"), "pods");
        assert_eq!(list(&["a"]), "a");
        assert_eq!(list(&["a", "b", "c"]), "a, b and c");
        assert_eq!(list(&["a", "b", "c", "d", "e"]), "a, b, c and 2 more");
    }
}
