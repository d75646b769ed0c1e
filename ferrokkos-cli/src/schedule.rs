//! The order in which a benchmark's implementations take turns (`stream`, `spmv`): each repetition
//! runs every implementation once, cycling through every order of them, so that all see the same
//! machine conditions and each follows each other equally often (a peer's threads still spinning
//! after its run slow whoever comes next).

/// Every order of `0..n`.
pub fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for shorter in permutations(n - 1) {
        for at in 0..n {
            let mut p = shorter.clone();
            p.insert(at, n - 1);
            out.push(p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_order_appears_once() {
        let mut p = permutations(4);
        assert_eq!(p.len(), 24);
        p.sort();
        p.dedup();
        assert_eq!(p.len(), 24);
        assert!(p.iter().all(|o| {
            let mut s = o.clone();
            s.sort();
            s == [0, 1, 2, 3]
        }));
        assert_eq!(permutations(1), vec![vec![0]]);
    }
}
