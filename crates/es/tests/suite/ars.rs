//! ARS (Mania et al. 2018, Alg. 1): one step equals the formula with the top-b directions, and
//! the search descends a quadratic.

use gradfree_core::AskTell;
use gradfree_es::random_search::{Ars, ArsParams};

#[test]
fn one_step_follows_the_kept_directions() {
    let (d, nu, lr) = (3, 0.2, 0.05);
    let f = |x: &[f64]| (x[0] - 1.0).powi(2) + 3.0 * x[1] * x[1] + x[2].abs();
    for top in [1, 2, 4] {
        let params = ArsParams { popsize: Some(8), top_directions: Some(top), learning_rate: Some(lr), ..Default::default() };
        let mut a = Ars::new(vec![0.5, -0.3, 0.2], nu, &params, 7).unwrap();
        let mu0 = a.mean().to_vec();
        let pop = a.ask().unwrap();
        let rows: Vec<Vec<f64>> = pop.rows().map(|r| r.to_vec()).collect();
        let v: Vec<f64> = rows.iter().map(|x| f(x)).collect();
        // Brute force: directions from the pairs, ranked by min of the pair.
        let mut k: Vec<usize> = (0..4).collect();
        k.sort_by(|&i, &j| v[2 * i].min(v[2 * i + 1]).total_cmp(&v[2 * j].min(v[2 * j + 1])));
        let kept = &k[..top];
        let used: Vec<f64> = kept.iter().flat_map(|&i| [v[2 * i], v[2 * i + 1]]).collect();
        let m = used.iter().sum::<f64>() / used.len() as f64;
        let sd = (used.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / used.len() as f64).sqrt();
        let mut expect = mu0.clone();
        for &i in kept {
            for j in 0..d {
                let delta = (rows[2 * i][j] - mu0[j]) / nu;
                assert!((rows[2 * i + 1][j] - (mu0[j] - nu * delta)).abs() < 1e-12, "pairs are antithetic");
                expect[j] -= lr / (top as f64 * sd) * (v[2 * i] - v[2 * i + 1]) * delta;
            }
        }
        a.tell(&pop, &v).unwrap();
        for j in 0..d {
            assert!((a.mean()[j] - expect[j]).abs() < 1e-12, "top {top}: {:?} vs {expect:?}", a.mean());
        }
    }
}

#[test]
fn descends_a_quadratic() {
    let d = 20;
    let f = |x: &[f64]| x.iter().enumerate().map(|(i, v)| (1.0 + i as f64 / 4.0) * v * v).sum::<f64>();
    let params = ArsParams { popsize: Some(16), top_directions: Some(4), learning_rate: Some(0.05), ..Default::default() };
    let mut a = Ars::new(vec![1.0; d], 0.05, &params, 1).unwrap();
    let f0 = f(a.mean());
    for _ in 0..400 {
        let pop = a.ask().unwrap();
        let v: Vec<f64> = pop.rows().map(f).collect();
        a.tell(&pop, &v).unwrap();
    }
    assert!(f(a.mean()) < 0.05 * f0, "{f0} -> {}", f(a.mean()));
}
