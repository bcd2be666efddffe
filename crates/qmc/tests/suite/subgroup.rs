//! The subgroup rank-1 lattice against the theorems of thesis ch. 5 and brute force.

use std::collections::BTreeMap;

use gradfree_core::rng_from_seed;
use gradfree_qmc::numtheory::is_prime;
use gradfree_qmc::quality::{Norm, difference_norms, min_distance, min_distance_brute_force};
use gradfree_qmc::{QmcError, Rank1Lattice, admissible_sizes, subgroup};
use rand::RngExt;

/// Theorem 13, in its exact form: the distance of a difference `x_i` depends only on the coset
/// `i H` of the subgroup `H = {z, -z}` (order 2d), so there are at most (n - 1)/(2d) distinct
/// pairwise distances and each is taken a multiple of 2d times. (The thesis says "exactly":
/// values of different cosets can coincide, e.g. d = 2, n = 29 has 6 distinct l2 distances, not 7.)
/// Checked on the exact integer norms of all n - 1 differences, for both norms.
#[test]
fn theorem_13_distances_are_constant_on_cosets() {
    let mut exact_count_cases = 0;
    for d in [1usize, 2, 3, 5, 8, 10, 16] {
        for n in admissible_sizes(d, 2, 4) {
            let lat = subgroup(d, n).unwrap();
            let h: Vec<u64> = lat.z().iter().flat_map(|&v| [v, n - v]).collect();
            for norm in [Norm::L1, Norm::L2] {
                let norms = difference_norms(&lat, norm);
                // norms[i - 1] is the norm of x_i; every i * h (h in H) has the same norm.
                for i in 1..n {
                    for &hv in &h {
                        let j = i * hv % n;
                        assert_eq!(norms[(i - 1) as usize], norms[(j - 1) as usize], "d = {d}, n = {n}, i = {i}, j = {j}");
                    }
                }
                let mut counts: BTreeMap<u128, usize> = BTreeMap::new();
                for v in norms {
                    *counts.entry(v).or_default() += 1;
                }
                let cosets = ((n - 1) / (2 * d as u64)) as usize;
                assert!(counts.len() <= cosets, "d = {d}, n = {n}, {norm:?}");
                assert_eq!(gradfree_qmc::quality::distinct_distances(&lat, norm), counts.len());
                assert!(counts.values().all(|&c| c % (2 * d) == 0), "d = {d}, n = {n}: multiplicities {counts:?}");
                exact_count_cases += usize::from(counts.len() == cosets);
            }
        }
    }
    // Coincidences are the exception: most cases have exactly (n - 1)/(2d) values.
    assert!(exact_count_cases >= 40, "{exact_count_cases} of 56");
}

/// Corollary 3: with n = 2d + 1 prime every pairwise distance equals the upper bound
/// (5.17)-(5.18) of Theorem 14.
#[test]
fn corollary_3_attains_the_upper_bound() {
    for d in [1usize, 2, 3, 5, 6, 8, 9, 11, 14, 15, 18, 20, 23, 26, 29, 30, 33, 35] {
        let n = 2 * d as u64 + 1;
        if !is_prime(n) {
            continue;
        }
        let lat = subgroup(d, n).unwrap();
        let nf = n as f64;
        let l1 = (nf + 1.0) * d as f64 / (4.0 * nf);
        let l2 = ((nf + 1.0) * d as f64 / (12.0 * nf)).sqrt();
        let pts = lat.points();
        let mut diff = vec![0.0; d];
        for i in 0..n as usize {
            for j in 0..i {
                for k in 0..d {
                    diff[k] = pts[i * d + k] - pts[j * d + k];
                }
                let t1 = gradfree_qmc::quality::toroidal_norm(&diff, Norm::L1);
                let t2 = gradfree_qmc::quality::toroidal_norm(&diff, Norm::L2);
                assert!((t1 - l1).abs() < 1e-12 && (t2 - l2).abs() < 1e-12, "d = {d}: {t1} {t2} vs {l1} {l2}");
            }
        }
    }
}

/// Theorem 14's bounds hold for random non-degenerate generating vectors. Non-degenerate must mean
/// `z_i != +-z_j (mod n)`, not only `z_i != z_j` as stated: `z = (1, 2, 30)` with n = 31 has
/// `x_1` at l1 distance 4/31 below the bound d(d+1)/(2n) = 6/31.
#[test]
fn theorem_14_bounds_hold_for_random_vectors() {
    let mut rng = rng_from_seed(14);
    for &(d, n) in &[(3usize, 31u64), (5, 101), (8, 257), (10, 1009), (20, 2003)] {
        assert!(is_prime(n));
        let (nf, df) = (n as f64, d as f64);
        let (lo1, hi1) = (df * (df + 1.0) / (2.0 * nf), (nf + 1.0) * df / (4.0 * nf));
        let (lo2, hi2) = ((6.0 * df * (df + 1.0) * (2.0 * df + 1.0)).sqrt() / (6.0 * nf), ((nf + 1.0) * df / (12.0 * nf)).sqrt());
        for _ in 0..30 {
            let mut z: Vec<u64> = Vec::new();
            while z.len() < d {
                let v = rng.random_range(1..n);
                if !z.contains(&v) && !z.contains(&(n - v)) {
                    z.push(v);
                }
            }
            let lat = Rank1Lattice::new(n, z).unwrap();
            let t1 = min_distance(&lat, Norm::L1);
            let t2 = min_distance(&lat, Norm::L2);
            assert!(lo1 - 1e-12 <= t1 && t1 <= hi1 + 1e-12, "l1 {lo1} <= {t1} <= {hi1}");
            assert!(lo2 - 1e-12 <= t2 && t2 <= hi2 + 1e-12, "l2 {lo2} <= {t2} <= {hi2}");
        }
    }
}

/// The O(n d) lattice formula equals the O(n^2 d) all-pairs minimum, also with a random shift.
#[test]
fn lattice_min_distance_equals_brute_force() {
    let mut rng = rng_from_seed(3);
    for &(d, n) in &[(4usize, 97u64), (6, 61), (10, 421)] {
        let lat = subgroup(d, n).unwrap().random_shift(&mut rng);
        let pts = lat.points();
        for norm in [Norm::L1, Norm::L2] {
            let a = min_distance(&lat, norm);
            let b = min_distance_brute_force(&pts, d, norm);
            assert!((a - b).abs() < 1e-12, "d = {d}, n = {n}, {norm:?}: {a} vs {b}");
        }
    }
}

/// The subgroup vector is of Korobov form (1, h, h^2, ...), so the exhaustive Korobov optimum is
/// at least as good; at n = 2d + 1 (Corollary 3) and in small cases they coincide.
#[test]
fn subgroup_versus_exhaustive_korobov_search() {
    let korobov_best = |d: usize, n: u64, norm: Norm| -> f64 {
        (1..n)
            .filter_map(|a| {
                let mut z = Vec::with_capacity(d);
                let mut x = 1u64;
                for _ in 0..d {
                    z.push(x);
                    x = x * a % n;
                }
                Rank1Lattice::new(n, z).ok().map(|l| min_distance(&l, norm))
            })
            .fold(0.0, f64::max)
    };
    for &(d, n) in &[(3usize, 7u64), (5, 11), (6, 13), (8, 17), (4, 41), (5, 61), (10, 101)] {
        let lat = subgroup(d, n).unwrap();
        for norm in [Norm::L1, Norm::L2] {
            let s = min_distance(&lat, norm);
            let k = korobov_best(d, n, norm);
            assert!(s <= k + 1e-12, "subgroup beats the exhaustive optimum?");
            if n == 2 * d as u64 + 1 {
                assert!((s - k).abs() < 1e-12, "d = {d}, n = {n}: {s} vs {k}");
            }
        }
    }
}

#[test]
fn unsuitable_sizes_are_explained() {
    let e = subgroup(10, 1000).unwrap_err();
    let QmcError::UnsuitableSize { suggestions, .. } = &e else { panic!("{e}") };
    assert!(e.to_string().contains("not prime"), "{e}");
    for s in suggestions.split(", ") {
        let n: u64 = s.parse().unwrap();
        assert!(is_prime(n) && (n - 1).is_multiple_of(20), "{s}");
    }
    let e = subgroup(10, 1019).unwrap_err();
    assert!(e.to_string().contains("does not divide"), "{e}");
    assert!(subgroup(0, 11).is_err());
    assert_eq!(admissible_sizes(10, 1000, 3), vec![1021, 1061, 1181]);
}

/// Points: on demand, incrementally, and all at once agree; a shift moves every point by Delta
/// mod 1; d = 1000, n = 96001 (the size) builds.
#[test]
fn points_streaming_and_shift() {
    let lat = subgroup(16, 673).unwrap();
    let all = lat.points();
    let mut one = vec![0.0; 16];
    for i in [0u64, 1, 5, 200, 672] {
        lat.point_into(i, &mut one);
        assert_eq!(&all[i as usize * 16..(i as usize + 1) * 16], &one[..]);
    }
    let mut part = vec![0.0; 10 * 16];
    lat.fill(100, 10, &mut part);
    assert_eq!(&all[100 * 16..110 * 16], &part[..]);
    let shift: Vec<f64> = (0..16).map(|k| k as f64 / 17.0).collect();
    let shifted = lat.clone().with_shift(shift.clone()).unwrap();
    shifted.point_into(7, &mut one);
    for k in 0..16 {
        assert!((one[k] - (all[7 * 16 + k] + shift[k]).rem_euclid(1.0)).abs() < 1e-15);
    }
    assert!(lat.clone().with_shift(vec![1.0; 16]).is_err());
    // Thesis sec. 5.8's size: n = 12 d + 1 = 786433 points in d = 65536, point i on demand.
    let huge = subgroup(65_536, 786_433).unwrap();
    let mut p = vec![0.0; 65_536];
    huge.point_into(123_456, &mut p);
    for k in [0usize, 1, 65_535] {
        let want = ((123_456u128 * huge.z()[k] as u128) % 786_433) as f64 / 786_433.0;
        assert_eq!(p[k], want);
    }
    let big = subgroup(1000, 96_001).unwrap();
    assert_eq!(big.z()[0], 1);
    assert!(big.z().iter().all(|&v| v > 0 && v < 96_001));
}

/// The pruned, symmetry-reduced parallel search returns what the plain exhaustive loop over every
/// multiplier returns (value, and the smallest multiplier among ties), and reports progress.
#[test]
fn korobov_search_equals_the_plain_exhaustive_loop() {
    use gradfree_qmc::{korobov_search, korobov_vector};
    use std::sync::atomic::{AtomicU64, Ordering};
    for &(d, n) in &[(2usize, 13u64), (3, 31), (5, 61), (7, 97), (12, 211), (4, 100), (6, 143)] {
        for norm in [Norm::L1, Norm::L2] {
            let mut best = (f64::NEG_INFINITY, 0u64);
            for a in 1..n {
                if let Ok(l) = Rank1Lattice::new(n, korobov_vector(d, n, a)) {
                    let v = min_distance(&l, norm);
                    if v > best.0 + 1e-12 {
                        best = (v, a);
                    }
                }
            }
            let last = AtomicU64::new(0);
            let r = korobov_search(d, n, norm, &|done, total| {
                assert!(done <= total);
                last.fetch_max(done, Ordering::Relaxed);
            })
            .unwrap();
            assert!((r.min_distance - best.0).abs() < 1e-12, "d = {d}, n = {n}, {norm:?}: {} vs {}", r.min_distance, best.0);
            assert!((min_distance(&r.lattice, norm) - best.0).abs() < 1e-12);
            assert_eq!(last.load(Ordering::Relaxed), r.candidates, "progress reaches the total");
            assert!(r.candidates as f64 <= 0.55 * n as f64, "symmetry reduction: {} of {n}", r.candidates);
        }
    }
}

/// Algorithm 10 reproduces thesis Table 4.1 (n = 1000) and 4.3 (n = 3000, d = 10); SCS and
/// Algorithm 11 only improve on their starting points.
#[test]
fn lattice_searches_of_section_4_6() {
    use gradfree_qmc::lattice::search::{alg10, alg10_vector, alg11, scs};
    use gradfree_qmc::reference::matches_printed;
    for &(d, n, printed) in &[(10usize, 1000u64, 0.59632), (20, 1000, 1.0051), (10, 3000, 0.53359)] {
        let r = alg10(d, n, 50).unwrap();
        assert!(matches_printed(r.min_distance, printed), "d = {d}, n = {n}: {} vs {printed}", r.min_distance);
        assert!((min_distance(&r.lattice(n).unwrap(), Norm::L2) - r.min_distance).abs() < 1e-12);
        let a11 = alg11(d, n, 50, 3, 4).unwrap();
        assert!(a11.min_distance >= r.min_distance, "Algorithm 11 starts from Algorithm 10's best");
    }
    let start = alg10_vector(8, 500, 17, 3);
    let before = min_distance(&Rank1Lattice::new(500, start.clone()).unwrap(), Norm::L2);
    let after = scs(500, &start, 5).unwrap();
    assert!(after.min_distance >= before);
    assert_eq!(after.z[0], start[0], "the first coordinate stays");
    assert!((min_distance(&Rank1Lattice::new(500, after.z.clone()).unwrap(), Norm::L2) - after.min_distance).abs() < 1e-12);
    assert!(alg10(1, 100, 5).is_err());
}

/// Hua–Wang's lattice as implemented reproduces the thesis' d = 500 Hua entries of Tables 5.1-5.2
/// for n = 3001..21001; repeated points are rejected by the lattice constructor.
#[test]
fn hua_lattice_and_distinct_points() {
    use gradfree_qmc::hua;
    use gradfree_qmc::reference::{TABLES_5_1_5_2, matches_printed};
    let b = &TABLES_5_1_5_2[3];
    assert_eq!(b.d, 500);
    for k in 0..8 {
        let l = hua(500, b.n[k]).unwrap();
        assert!(matches_printed(min_distance(&l, Norm::L1), b.hua_l1[k]), "n = {}", b.n[k]);
        assert!(matches_printed(min_distance(&l, Norm::L2), b.hua_l2[k]), "n = {}", b.n[k]);
    }
    let e = Rank1Lattice::new(12, vec![2, 4, 6]).unwrap_err().to_string();
    assert!(e.contains("gcd(z, n) = 2"), "{e}");
    assert!(Rank1Lattice::new(12, vec![0, 5]).is_ok(), "a constant coordinate is allowed");
}

/// Dimensions whose `2d` overflows or exceeds `n - 1` are errors, and the size search stops at
/// `u64::MAX` instead of wrapping.
#[test]
fn huge_dimensions_are_errors() {
    let e = gradfree_qmc::lattice::subgroup_vector(1 << 63, 11).unwrap_err().to_string();
    assert!(e.contains("d = 9223372036854775808"), "{e}");
    assert!(gradfree_qmc::lattice::subgroup_vector(6, 11).is_err());
    assert!(gradfree_qmc::lattice::subgroup_vector(usize::MAX, 13).is_err());
    assert!(gradfree_qmc::admissible_sizes(1 << 63, 3, 5).is_empty());
    let top = gradfree_qmc::admissible_sizes(1, u64::MAX - 100, 10);
    assert!(top.len() < 10 && top.iter().all(|&n| n > u64::MAX - 100));
}
