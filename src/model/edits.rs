//! How far apart two names are, for "did you mean": the edit distance
//! (Levenshtein), computed only as far as the small limit a name is offered
//! within. Names come from the cluster (up to 253 characters, label keys
//! 317) and are compared with every name of a list, so the cost is
//! bounded by the limit, not by the product of the lengths.

/// The edit distance between `a` and `b` when it is at most `limit`;
/// `None` when it is more. Only the cells within `limit` of the diagonal
/// are computed: (2 × limit + 1) per character, not one per pair of
/// characters.
pub fn within(a: &str, b: &str, limit: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let (n, m) = (a.len(), b.len());
    if n.abs_diff(m) > limit {
        return None;
    }
    // Every distance past the limit is the same to the caller.
    let over = limit + 1;
    // Row 0: the cost of inserting the first j characters of b.
    let mut prev: Vec<usize> = (0..=m).map(|j| j.min(over)).collect();
    let mut cur = vec![over; m + 1];
    for i in 1..=n {
        let lo = i.saturating_sub(limit).max(1);
        let hi = (i + limit).min(m);
        // The cell left of the band: deleting the first i characters of a
        // (column 0), or past the limit.
        cur[lo - 1] = if lo == 1 { i.min(over) } else { over };
        let mut best = cur[lo - 1];
        for j in lo..=hi {
            let substitute = prev[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            let cell = substitute.min(prev[j] + 1).min(cur[j - 1] + 1).min(over);
            cur[j] = cell;
            best = best.min(cell);
        }
        // The cell right of the band is read by the next row as above it.
        if hi < m {
            cur[hi + 1] = over;
        }
        if best > limit {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    Some(prev[m]).filter(|d| *d <= limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_is_the_edit_distance_within_the_limit() {
        assert_eq!(within("payment", "payments", 2), Some(1));
        assert_eq!(within("web", "web", 0), Some(0));
        assert_eq!(within("", "ab", 2), Some(2));
        assert_eq!(within("", "abc", 2), None);
        assert_eq!(within("kitten", "sitting", 3), Some(3));
        assert_eq!(within("kitten", "sitting", 2), None);
        // A shift: one insertion at the front, one deletion at the end.
        assert_eq!(within("xabcdefgh", "abcdefghy", 2), Some(2));
        assert_eq!(within("café-db", "cafe-db", 1), Some(1));
    }

    #[test]
    fn it_agrees_with_the_full_comparison() {
        // Pairs drawn from a small alphabet, so that many are close.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let alphabet = ['a', 'b', 'c', '-', 'é'];
        let mut word = |len: usize| -> String {
            (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect()
        };
        for round in 0..20_000 {
            let (x, y) = (round % 9, (round / 9) % 9);
            let (a, b) = (word(x), word(y));
            let full = strsim::levenshtein(&a, &b);
            for limit in 0..4 {
                let want = (full <= limit).then_some(full);
                assert_eq!(within(&a, &b, limit), want, "{a:?} {b:?} within {limit}");
            }
        }
    }

    #[test]
    fn long_names_cost_the_band_not_the_square() {
        // Two names of 10,000 characters that differ everywhere: a full
        // comparison is 10^8 cells; this stops after the first rows.
        let a = "a".repeat(10_000);
        let b = "b".repeat(10_000);
        let started = std::time::Instant::now();
        for _ in 0..1_000 {
            assert_eq!(within(&a, &b, 3), None);
        }
        // Equal but for one character at the end: the whole band is read.
        let c = format!("{}x", "a".repeat(9_999));
        assert_eq!(within(&a, &c, 3), Some(1));
        // The square would take hours; the band, milliseconds (20 s leaves
        // room for a loaded machine).
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
    }
}
