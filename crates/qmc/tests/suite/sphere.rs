//! Sphere point sets of thesis sec. 5.6 against Theorem 15, brute force and Table 5.3.

use gradfree_core::rng_from_seed;
use gradfree_qmc::sphere::{FourierSphere, gaussian_sphere, mutual_coherence, sphere_sizes};

#[test]
fn unit_norm_fft_projection_and_fast_coherence() {
    for &(d, n) in &[(4usize, 5u64), (6, 7), (10, 11), (10, 31), (50, 101), (20, 41)] {
        let s = FourierSphere::subgroup(d, n).unwrap();
        let pts = s.points();
        assert_eq!(pts.len(), 2 * n as usize * d);
        for row in pts.chunks_exact(d) {
            assert!((row.iter().map(|v| v * v).sum::<f64>() - 1.0).abs() < 1e-12);
        }
        // The FFT projection equals the dense product V^T x.
        let x: Vec<f64> = (0..d).map(|k| ((k * 7 + 3) as f64).sin()).collect();
        let mut fast = vec![0.0; 2 * n as usize];
        s.project(&x, &mut fast).unwrap();
        for (i, row) in pts.chunks_exact(d).enumerate() {
            let dense: f64 = row.iter().zip(&x).map(|(a, b)| a * b).sum();
            assert!((dense - fast[i]).abs() < 1e-10, "d = {d}, n = {n}, point {i}: {dense} vs {}", fast[i]);
        }
        // O(nm) coherence = all-pairs coherence, and Theorem 15's bound.
        let mu = s.mutual_coherence();
        let brute = mutual_coherence(&pts, d);
        assert!((mu - brute).abs() < 1e-10, "d = {d}, n = {n}: {mu} vs {brute}");
        let bound = (n as f64).sqrt() / (d / 2) as f64;
        assert!(mu <= bound + 1e-12, "Theorem 15: {mu} > sqrt(n)/m = {bound}");
    }
}

#[test]
fn bad_sizes_are_explained() {
    let e = FourierSphere::subgroup(50, 100).unwrap_err().to_string();
    assert!(e.contains("not prime") && e.contains("101"), "{e}");
    assert!(FourierSphere::subgroup(7, 29).unwrap_err().to_string().contains("even"));
    let e = FourierSphere::subgroup(50, 103).unwrap_err().to_string();
    assert!(e.contains("does not divide"), "{e}");
    let s = FourierSphere::subgroup(10, 11).unwrap();
    assert!(s.project(&[0.0; 3], &mut [0.0; 22]).is_err());
}

#[test]
fn gaussian_points_are_unit_and_less_coherent_than_nothing() {
    let mut rng = rng_from_seed(5);
    let g = gaussian_sphere(20, 200, &mut rng);
    assert!(g.chunks_exact(20).all(|r| (r.iter().map(|v| v * v).sum::<f64>() - 1.0).abs() < 1e-12));
    let mu_g = mutual_coherence(&g, 20);
    let mu_s = FourierSphere::subgroup(20, 101).unwrap().mutual_coherence();
    assert!(mu_s < mu_g, "structured {mu_s} vs Gaussian {mu_g}");
}

/// Thesis Table 5.3, SubGroup rows, all five dimensions: the first ten primes n with d/2 | n - 1
/// are the table's columns (N = 2n) and the coherences equal the printed ones to 4 decimals.
#[test]
fn table_5_3_subgroup_rows() {
    use gradfree_qmc::reference::{TABLE_5_3, matches_decimals};
    let mut bad = Vec::new();
    for b in &TABLE_5_3 {
        let sizes: Vec<u64> = sphere_sizes(b.d / 2, 2, 10).iter().map(|n| 2 * n).collect();
        assert_eq!(sizes, b.points.to_vec(), "d = {}", b.d);
        for (k, &big_n) in b.points.iter().enumerate() {
            let mu = FourierSphere::subgroup(b.d, big_n / 2).unwrap().mutual_coherence();
            if !matches_decimals(mu, b.subgroup[k], 4) {
                bad.push(format!("d = {}, N = {big_n}: {mu:.5} (table {})", b.d, b.subgroup[k]));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Algorithm 12's point set: arbitrary frequencies keep unit columns, the FFT projection and the
/// O(nm) coherence; and its coherence is near the thesis' "Lyu [117]" row of Table 5.3 (d = 50,
/// first four sizes: a local optimum from a random start, so not the printed digits) and well
/// below i.i.d. Gaussian points'.
#[test]
fn optimized_sphere_is_a_valid_point_set_near_table_5_3() {
    use gradfree_qmc::reference::TABLE_5_3;
    use gradfree_qmc::sphere::energy::AscentOptions;
    let b = &TABLE_5_3[0];
    assert_eq!(b.d, 50);
    for (k, &big_n) in b.points.iter().take(4).enumerate() {
        let n = big_n / 2;
        let (s, trace) = FourierSphere::optimized(b.d, n, &AscentOptions::default(), k as u64).unwrap();
        assert!(trace.converged && trace.objective.len() < 15, "{trace:?}");
        let pts = s.points();
        assert!(pts.chunks_exact(b.d).all(|r| (r.iter().map(|v| v * v).sum::<f64>() - 1.0).abs() < 1e-12));
        let x: Vec<f64> = (0..b.d).map(|i| ((i * 5 + 1) as f64).cos()).collect();
        let mut fast = vec![0.0; big_n as usize];
        s.project(&x, &mut fast).unwrap();
        for (i, row) in pts.chunks_exact(b.d).enumerate() {
            let dense: f64 = row.iter().zip(&x).map(|(a, c)| a * c).sum();
            assert!((dense - fast[i]).abs() < 1e-10);
        }
        let mu = s.mutual_coherence();
        assert!((mu - mutual_coherence(&pts, b.d)).abs() < 1e-10);
        assert!(
            mu < 1.5 * b.lyu[k] && mu < 0.7 * b.gaussian_mean[k],
            "N = {big_n}: {mu} vs Lyu {} / Gaussian {}",
            b.lyu[k],
            b.gaussian_mean[k]
        );
    }
    // Distinctness and range are checked.
    assert!(FourierSphere::new(4, 7, vec![1, 1]).is_err());
    assert!(FourierSphere::new(4, 7, vec![1, 7]).unwrap_err().to_string().contains("1..7"));
    assert!(FourierSphere::new(4, 2, vec![1, 2]).is_err());
}
