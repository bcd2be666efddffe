//! The properties chapter 8 proves, checked on random inputs: Algorithm 13 against brute force
//! (Theorem 31, Proposition 2), the bounds of Theorems 29-30 and Corollaries 4-5, the hinge
//! ordering of app. 10.37, and the label-noise generators against their transition matrices.

use gradfree_core::rng_from_seed;
use gradfree_robust::hinge::{hard_hinge, margin, mixed_hinge, soft_hinge};
use gradfree_robust::{
    LabelNoise, Selector, Threshold, TrainOn, curriculum_value, curriculum_value_batched, flip_labels, partial_objective, select, zero_one,
};
use rand::RngExt;

/// Losses with zeros and ties: from {0, 0.5, 1, 1.5, 2} or continuous.
fn random_losses(rng: &mut gradfree_core::GfRng, n: usize) -> Vec<f64> {
    let discrete = rng.random::<bool>();
    (0..n).map(|_| if discrete { f64::from(rng.random_range(0u32..5)) * 0.5 } else { rng.random::<f64>() * 2.0 }).collect()
}

#[test]
fn algorithm_13_equals_brute_force_and_selects_a_prefix() {
    let mut rng = rng_from_seed(13);
    let mut sel = Selector::new();
    for _ in 0..4000 {
        let n = rng.random_range(1..=8usize);
        let losses = random_losses(&mut rng, n);
        let c = rng.random::<f64>() * 2.0 * n as f64;
        let mut best = f64::INFINITY;
        for bits in 0u32..(1 << n) {
            let v: Vec<bool> = (0..n).map(|i| bits >> i & 1 == 1).collect();
            best = best.min(partial_objective(&losses, &v, c));
        }
        let mut mask = vec![false; n];
        let s = sel.select(&losses, c, TrainOn::Selected, &mut mask).unwrap();
        // Optimal (Theorem 31) with the value of Proposition 2 (8.17).
        assert!((partial_objective(&losses, &mask, c) - best).abs() < 1e-12, "{losses:?} C={c}");
        assert!((s.value - best).abs() < 1e-12);
        // A prefix of the sorted order: every selected loss <= every unselected one.
        let max_in = losses.iter().zip(&mask).filter(|(_, m)| **m).map(|(l, _)| *l).fold(f64::NEG_INFINITY, f64::max);
        let min_out = losses.iter().zip(&mask).filter(|(_, m)| !**m).map(|(l, _)| *l).fold(f64::INFINITY, f64::min);
        assert!(max_in <= min_out);
        assert_eq!(mask.iter().filter(|m| **m).count(), s.count);
        // Proposition 2, (8.14)-(8.16), with the losses sorted.
        let mut sorted = losses.clone();
        sorted.sort_by(f64::total_cmp);
        let t = s.count;
        let l_t: f64 = sorted[..t].iter().sum();
        assert!(l_t <= c + 1.0 - t as f64 + 1e-12);
        if t < n {
            let l_t1 = l_t + sorted[t];
            assert!(l_t1 > c - t as f64);
            assert!(l_t1 > l_t.max(c - t as f64) - 1e-12);
        }
    }
}

#[test]
fn the_bounds_of_theorems_29_and_30_hold() {
    let mut rng = rng_from_seed(29);
    for _ in 0..3000 {
        let m = rng.random_range(1..=12usize);
        let b = rng.random_range(1..=5usize);
        let n = m * b;
        let u: Vec<f64> = (0..n).map(|_| rng.random::<f64>() * 4.0 - 1.5).collect();
        let l: Vec<f64> = u.iter().map(|u| (1.0 - u).max(0.0)).collect(); // hinge >= 1(u < 0)
        let j = zero_one(&u) as f64;
        let j_hat: f64 = l.iter().sum();
        let q = curriculum_value(&l, &u, Threshold::Curriculum).unwrap();
        let e = curriculum_value(&l, &u, Threshold::Scaled).unwrap();
        let q_hat = curriculum_value_batched(&l, &u, m, Threshold::Curriculum).unwrap();
        let e_hat = curriculum_value_batched(&l, &u, m, Threshold::Scaled).unwrap();
        let tol = 1e-9;
        // Theorem 29 and Corollary 4: J <= Q <= Q-hat <= J-hat.
        assert!(j <= q + tol && q <= q_hat + tol && q_hat <= j_hat + tol, "J {j} Q {q} Qh {q_hat} Jh {j_hat}");
        // Theorem 30 and Corollary 5: J <= 2E <= 2E-hat <= 2J-hat; and E <= Q.
        assert!(j <= 2.0 * e + tol && e <= e_hat + tol && e_hat <= j_hat + tol);
        assert!(e <= q + tol);
    }
}

#[test]
fn soft_hinge_dominates_hard_hinge_dominates_zero_one() {
    let mut rng = rng_from_seed(1037);
    for _ in 0..20000 {
        let k = rng.random_range(2..=10usize);
        let t: Vec<f64> = (0..k).map(|_| (rng.random::<f64>() - 0.5) * 8.0).collect();
        let y = rng.random_range(0..k);
        let (s, h) = (soft_hinge(&t, y), hard_hinge(&t, y));
        let zero_one = f64::from(u8::from(margin(&t, y) < 0.0));
        assert!(s >= h && h >= zero_one, "{t:?} {y}: S {s} H {h}");
        let beta = rng.random::<f64>();
        let f = mixed_hinge(&t, y, beta);
        assert!(f >= h - 1e-12 && f <= s + 1e-12);
    }
}

#[test]
fn npcl_prunes_eps_n_samples_with_the_fixed_threshold() {
    // Thesis footnote to (8.19): with C = (1 - eps) n, the eps n largest losses are pruned when the
    // first (1 - eps) n + 1 losses do not all vanish, eps n - 1 otherwise; the curriculum part of
    // (8.19) may then prune more among the rest (here the kept losses sum to 0.0316 <= 1).
    let n = 100;
    let losses: Vec<f64> = (0..n).map(|i| 1e-5 * i as f64).collect();
    let (mask, s) = select(&losses, 80.0).unwrap();
    assert_eq!(n - s.count, 20);
    assert!(mask[..80].iter().all(|m| *m) && mask[80..].iter().all(|m| !*m));
    let (_, s) = select(&[0.0; 100], 80.0).unwrap();
    assert_eq!(n - s.count, 19);
    // At least eps n - 1 pruned whatever the losses.
    let mut rng = rng_from_seed(19);
    for _ in 0..500 {
        let losses = random_losses(&mut rng, n);
        let eps = rng.random::<f64>() * 0.9;
        let c = (1.0 - eps) * n as f64;
        let (_, s) = select(&losses, c).unwrap();
        assert!(s.count as f64 <= c + 1.0, "{} selected with C = {c}", s.count);
    }
}

#[test]
fn noise_generators_hit_their_rate_and_matrix() {
    let k = 10usize;
    let n = 60_000usize;
    let clean: Vec<u32> = (0..n).map(|i| (i % k) as u32).collect();
    for spec in ["symmetric:0.2", "symmetric:0.5", "pair:0.35", "pair:0.45"] {
        let noise: LabelNoise = spec.parse().unwrap();
        let out = flip_labels(&clean, k, noise, 7).unwrap();
        // Rate within 4 standard errors.
        let se = (noise.rate * (1.0 - noise.rate) / n as f64).sqrt();
        assert!((out.actual_rate - noise.rate).abs() < 4.0 * se, "{spec}: {}", out.actual_rate);
        // Every entry of the empirical matrix within 4 standard errors of T (6000 per class).
        let per = (n / k) as f64;
        let mut counts = vec![vec![0.0; k]; k];
        for (c, y) in clean.iter().zip(&out.labels) {
            counts[*c as usize][*y as usize] += 1.0;
        }
        for (i, (row, t_row)) in counts.iter().zip(&out.transition).enumerate() {
            for (j, (c, p)) in row.iter().zip(t_row).enumerate() {
                let se = (p * (1.0 - p) / per).sqrt().max(1e-9);
                assert!((c / per - p).abs() <= 4.0 * se + 1e-12, "{spec} T[{i}][{j}]");
            }
        }
        assert_eq!(out.flipped.iter().filter(|f| **f).count() as f64 / n as f64, out.actual_rate);
        // Seeded.
        assert_eq!(flip_labels(&clean, k, noise, 7).unwrap().labels, out.labels);
        assert_ne!(flip_labels(&clean, k, noise, 8).unwrap().labels, out.labels);
    }
    let err = flip_labels(&[0, 10], 10, "symmetric:0.2".parse().unwrap(), 1).unwrap_err().to_string();
    assert!(err.contains("labels[1] = 10"), "{err}");
}
