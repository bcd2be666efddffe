//! Thesis Tables 5.1 and 5.2, SubGroup rows: minimum l1 and l2 toroidal distances of the subgroup
//! lattice for d = 50, 100, 200, 500 and the first ten admissible primes, to the printed precision.

use gradfree_qmc::quality::{Norm, min_distance};
use gradfree_qmc::{admissible_sizes, korobov_search, subgroup};

/// (d, n, Table 5.1 l1, Table 5.2 l2) as printed.
const TABLE: &[(usize, u64, f64, f64)] = &[
    (50, 101, 12.624, 2.0513),
    (50, 401, 11.419, 1.9075),
    (50, 601, 11.371, 1.9469),
    (50, 701, 11.354, 1.9196),
    (50, 1201, 11.029, 1.8754),
    (50, 1301, 10.988, 1.8019),
    (50, 1601, 10.541, 1.8008),
    (50, 1801, 10.501, 1.8709),
    (50, 1901, 10.454, 1.7844),
    (50, 2801, 10.748, 1.7603),
    (100, 401, 24.097, 2.8342),
    (100, 601, 23.760, 2.8143),
    (100, 1201, 22.887, 2.7077),
    (100, 1601, 23.342, 2.7645),
    (100, 1801, 22.711, 2.7514),
    (100, 2801, 23.324, 2.6497),
    (100, 3001, 22.233, 2.6337),
    (100, 4001, 22.437, 2.6410),
    (100, 4201, 22.573, 2.6195),
    (100, 4801, 21.190, 2.5678),
    (200, 401, 50.125, 4.0876),
    (200, 1201, 48.712, 3.9717),
    (200, 1601, 47.500, 3.9791),
    (200, 2801, 47.075, 3.8425),
    (200, 4001, 47.810, 3.9276),
    (200, 4801, 45.957, 3.8035),
    (200, 9601, 45.819, 3.7822),
    (200, 12401, 46.223, 3.8687),
    (200, 14401, 43.982, 3.6952),
    (200, 15601, 45.936, 3.8370),
    (500, 3001, 121.90, 6.3359),
    (500, 4001, 121.99, 6.3769),
    (500, 7001, 119.60, 6.3141),
    (500, 9001, 118.63, 6.2131),
    (500, 13001, 120.23, 6.2848),
    (500, 16001, 119.97, 6.2535),
    (500, 19001, 116.41, 6.0656),
    (500, 21001, 120.56, 6.2386),
    (500, 24001, 120.24, 6.2673),
    (500, 28001, 113.96, 6.1632),
];

/// Half a unit in the last printed digit (5 significant digits).
fn tol(v: f64) -> f64 {
    let digits = 5 - 1 - v.abs().log10().floor() as i32;
    0.5 * 10f64.powi(-digits) + 1e-12
}

#[test]
fn the_first_ten_admissible_primes_are_the_tables_columns() {
    for d in [50usize, 100, 200, 500] {
        let want: Vec<u64> = TABLE.iter().filter(|r| r.0 == d).map(|r| r.1).collect();
        assert_eq!(admissible_sizes(d, 2, 10), want, "d = {d}");
    }
}

#[test]
fn subgroup_rows_match_the_printed_values() {
    let mut bad = Vec::new();
    for &(d, n, l1, l2) in TABLE {
        let lat = subgroup(d, n).unwrap();
        let (a, b) = (min_distance(&lat, Norm::L1), min_distance(&lat, Norm::L2));
        if (a - l1).abs() > tol(l1) || (b - l2).abs() > tol(l2) {
            bad.push(format!("d = {d}, n = {n}: l1 {a:.5} (table {l1}), l2 {b:.5} (table {l2})"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// (d, n, Table 5.1 l1, Table 5.2 l2) of the "Korobov" rows (exhaustive search in Korobov form),
/// d = 50 and 100.
const KOROBOV: &[(usize, u64, f64, f64)] = &[
    (50, 101, 12.624, 2.0513),
    (50, 401, 11.419, 1.9075),
    (50, 601, 11.371, 1.9469),
    (50, 701, 11.354, 1.9196),
    (50, 1201, 11.029, 1.8754),
    (50, 1301, 10.988, 1.8390),
    (50, 1601, 10.665, 1.8356),
    (50, 1801, 10.561, 1.8709),
    (50, 1901, 10.701, 1.8171),
    (50, 2801, 10.748, 1.8327),
    (100, 401, 24.097, 2.8342),
    (100, 601, 23.760, 2.8143),
    (100, 1201, 23.167, 2.7409),
    (100, 1601, 23.342, 2.7645),
    (100, 1801, 22.893, 2.7514),
    (100, 2801, 23.324, 2.6956),
    (100, 3001, 22.464, 2.6709),
    (100, 4001, 22.437, 2.6562),
    (100, 4201, 22.573, 2.6667),
    (100, 4801, 22.188, 2.6858),
];

#[test]
fn korobov_rows_match_the_printed_values() {
    let mut bad = Vec::new();
    for &(d, n, l1, l2) in KOROBOV {
        let a = korobov_search(d, n, Norm::L1, &|_, _| {}).unwrap().min_distance;
        let b = korobov_search(d, n, Norm::L2, &|_, _| {}).unwrap().min_distance;
        if (a - l1).abs() > tol(l1) || (b - l2).abs() > tol(l2) {
            bad.push(format!("d = {d}, n = {n}: l1 {a:.5} (table {l1}), l2 {b:.5} (table {l2})"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
