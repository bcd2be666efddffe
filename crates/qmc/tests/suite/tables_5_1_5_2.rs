//! Thesis Tables 5.1 and 5.2: minimum l1 and l2 toroidal distances for d = 50, 100, 200, 500 and
//! the first ten admissible primes, to the printed precision. SubGroup rows in full, Korobov rows
//! for d = 50 and 100 (the larger ones run in `gradfree reproduce lattice-distances`).

use gradfree_qmc::quality::{Norm, min_distance};
use gradfree_qmc::reference::{TABLES_5_1_5_2, matches_printed};
use gradfree_qmc::{admissible_sizes, korobov_search, subgroup};

#[test]
fn the_first_ten_admissible_primes_are_the_tables_columns() {
    for b in &TABLES_5_1_5_2 {
        assert_eq!(admissible_sizes(b.d, 2, 10), b.n.to_vec(), "d = {}", b.d);
    }
}

#[test]
fn subgroup_rows_match_the_printed_values() {
    let mut bad = Vec::new();
    for b in &TABLES_5_1_5_2 {
        for (k, &n) in b.n.iter().enumerate() {
            let lat = subgroup(b.d, n).unwrap();
            let (l1, l2) = (min_distance(&lat, Norm::L1), min_distance(&lat, Norm::L2));
            if !matches_printed(l1, b.subgroup_l1[k]) || !matches_printed(l2, b.subgroup_l2[k]) {
                bad.push(format!("d = {}, n = {n}: l1 {l1:.5} (table {}), l2 {l2:.5} (table {})", b.d, b.subgroup_l1[k], b.subgroup_l2[k]));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn korobov_rows_match_the_printed_values() {
    let mut bad = Vec::new();
    for b in TABLES_5_1_5_2.iter().filter(|b| b.d <= 100) {
        for (k, &n) in b.n.iter().enumerate() {
            let l1 = korobov_search(b.d, n, Norm::L1, &|_, _| {}).unwrap().min_distance;
            let l2 = korobov_search(b.d, n, Norm::L2, &|_, _| {}).unwrap().min_distance;
            if !matches_printed(l1, b.korobov_l1[k]) || !matches_printed(l2, b.korobov_l2[k]) {
                bad.push(format!("d = {}, n = {n}: l1 {l1:.5} (table {}), l2 {l2:.5} (table {})", b.d, b.korobov_l1[k], b.korobov_l2[k]));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
