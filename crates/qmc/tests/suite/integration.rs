//! Halton, Monte Carlo, Latin hypercube, discrepancies and randomized-QMC integration.

use gradfree_problems::integrands::ExpWeighted;
use gradfree_qmc::integrate::{Rule, integrate};
use gradfree_qmc::quality::{Discrepancy, centered_l2, discrepancy, wrap_around_l2};
use gradfree_qmc::{Halton, Iid, LatticeSequence, Scramble, Sequence, Sobol, latin_hypercube, subgroup};

#[test]
fn halton_equals_scipy_and_permutations_keep_stratification() {
    // scipy.stats.qmc.Halton(d=4, scramble=False).random(6).
    let want = [
        [0.0, 0.0, 0.0, 0.0],
        [0.5, 1.0 / 3.0, 0.2, 1.0 / 7.0],
        [0.25, 2.0 / 3.0, 0.4, 2.0 / 7.0],
        [0.75, 1.0 / 9.0, 0.6, 3.0 / 7.0],
        [0.125, 4.0 / 9.0, 0.8, 4.0 / 7.0],
        [0.625, 7.0 / 9.0, 0.04, 5.0 / 7.0],
    ];
    let pts = Halton::new(4, None).unwrap().take(6).unwrap();
    for (i, row) in want.iter().enumerate() {
        for k in 0..4 {
            assert!((pts[i * 4 + k] - row[k]).abs() < 1e-15, "point {i}, coordinate {k}");
        }
    }
    // First b^2 points of coordinate j (base b): one per interval [k/b^2, (k+1)/b^2), also permuted.
    for seed in [None, Some(4)] {
        let h = Halton::new(3, seed).unwrap();
        for (j, b) in [(0usize, 2usize), (1, 3), (2, 5)] {
            let m = b * b;
            let mut hit = vec![0; m];
            let mut p = [0.0; 3];
            for i in 0..m as u64 {
                h.point_into(i, &mut p).unwrap();
                hit[(p[j] * m as f64) as usize] += 1;
            }
            assert!(hit.iter().all(|&c| c == 1), "{seed:?} coordinate {j}: {hit:?}");
        }
    }
    assert!(Halton::new(0, None).is_err());
}

#[test]
fn sampling_into_a_box() {
    let mut s = Sobol::new(2, Scramble::None).unwrap();
    let p = s.sample_in_box(4, &[-1.0, 10.0], &[1.0, 20.0]).unwrap();
    assert_eq!(p, vec![-1.0, 10.0, 0.0, 15.0, 0.5, 12.5, -0.5, 17.5]);
    assert!(s.sample_in_box(2, &[0.0], &[1.0]).is_err());
    assert!(s.sample_in_box(2, &[1.0, 0.0], &[0.0, 1.0]).unwrap_err().to_string().contains("lower < upper"));
}

#[test]
fn monte_carlo_stream_and_latin_hypercube() {
    let mut a = Iid::new(3, 9).unwrap();
    let all = a.take(50).unwrap();
    let mut p = [0.0; 3];
    a.point_into(17, &mut p).unwrap();
    assert_eq!(&all[51..54], &p);
    let lhs = latin_hypercube(40, 3, 2).unwrap();
    for j in 0..3 {
        let mut hit = [0; 40];
        for i in 0..40 {
            hit[(lhs[i * 3 + j] * 40.0) as usize] += 1;
        }
        assert!(hit.iter().all(|&c| c == 1));
    }
    assert!(latin_hypercube(0, 3, 1).is_err());
}

#[test]
fn discrepancies_match_scipy_and_rank_point_sets() {
    let x = [0.1, 0.7, 0.3, 0.9, 0.2, 0.5, 0.45, 0.55, 0.95, 0.3, 0.05, 0.6, 0.8, 0.85, 0.15];
    // scipy.stats.qmc.discrepancy(x, method="CD") and method="WD" (scipy 1.17.1).
    assert!((centered_l2(&x, 3).unwrap() - 0.03965527531828661).abs() < 1e-15);
    assert!((wrap_around_l2(&x, 3).unwrap() - 0.08823836712963029).abs() < 1e-15);
    // The same with method="MD" and "L2-star", and each with iterative=True (n + 1 in the
    // normalization).
    let no = std::sync::atomic::AtomicBool::new(false);
    for (name, plain, iterative) in [
        ("CD", 0.03965527531828661, 0.06265431893807838),
        ("WD", 0.08823836712963029, -0.6630031915509256),
        ("MD", 0.09579918594834869, 0.18120566091278256),
        ("L2-star", 0.08699152440489262, 0.08568725138076147),
    ] {
        let kind = Discrepancy::from_name(name).unwrap();
        assert!((discrepancy(&x, 3, kind, false, &no).unwrap() - plain).abs() < 1e-14, "{name}");
        assert!((discrepancy(&x, 3, kind, true, &no).unwrap() - iterative).abs() < 1e-14, "{name}, iterative");
    }
    assert!(Discrepancy::from_name("cd").unwrap_err().to_string().contains("method"));
    let d = 5;
    let sobol = Sobol::new(d, Scramble::LmsShift { seed: 1 }).unwrap().take(512).unwrap();
    let iid = Iid::new(d, 1).unwrap().take(512).unwrap();
    assert!(centered_l2(&sobol, d).unwrap() < 0.2 * centered_l2(&iid, d).unwrap());
    assert!(wrap_around_l2(&sobol, d).unwrap() < 0.5 * wrap_around_l2(&iid, d).unwrap());
    for kind in [Discrepancy::Mixture, Discrepancy::L2Star] {
        assert!(discrepancy(&sobol, d, kind, false, &no).unwrap() < 0.5 * discrepancy(&iid, d, kind, false, &no).unwrap(), "{kind:?}");
    }
    assert!(centered_l2(&[0.5, 1.5], 2).unwrap_err().to_string().contains("[0, 1]"));
}

/// Every randomized rule is unbiased on the thesis' test integrand (5.22) with the closed form
/// (5.23), and the QMC rules' standard errors are far below Monte Carlo's.
#[test]
fn randomized_qmc_is_unbiased_and_beats_monte_carlo() {
    let d = 20;
    let f = ExpWeighted::new(d, 2.0, 1.0).unwrap();
    let exact = f.exact();
    let n = gradfree_qmc::admissible_sizes(d, 1000, 1)[0];
    let lattice = subgroup(d, n).unwrap();
    let reps = 30;
    let mc = integrate(|x| f.eval(x), d, n, &Rule::MonteCarlo, reps, 7).unwrap();
    for rule in [
        Rule::ShiftedLattice { lattice: lattice.clone() },
        Rule::SobolLms,
        Rule::SobolOwen,
        Rule::Halton,
        Rule::SobolLmsRandomShift,
        Rule::HaltonRandomShift,
        Rule::MonteCarlo,
    ] {
        let e = integrate(|x| f.eval(x), d, n, &rule, reps, 7).unwrap();
        assert!((e.value - exact).abs() < 4.0 * e.std_error + 1e-12, "{rule:?}: {} vs {exact} (se {})", e.value, e.std_error);
        if rule != Rule::MonteCarlo {
            assert!(e.std_error < 0.2 * mc.std_error, "{rule:?}: se {} vs MC {}", e.std_error, mc.std_error);
        }
    }
    // Same seed, same estimate.
    let a = integrate(|x| f.eval(x), d, n, &Rule::SobolLms, 3, 1).unwrap();
    assert_eq!(a, integrate(|x| f.eval(x), d, n, &Rule::SobolLms, 3, 1).unwrap());
    // Errors: wrong n for a lattice, non-finite values, zero replicates, reading past a lattice.
    assert!(integrate(|x| f.eval(x), d, n + 1, &Rule::ShiftedLattice { lattice: lattice.clone() }, 2, 1).is_err());
    let e = integrate(|x| if x[0] > 0.9 { f64::NAN } else { 1.0 }, d, 64, &Rule::SobolLms, 1, 1).unwrap_err();
    assert!(e.to_string().contains("f(point"), "{e}");
    assert!(integrate(|_| 1.0, d, 64, &Rule::SobolLms, 0, 1).is_err());
    let mut s = LatticeSequence::new(lattice);
    assert!(s.take(n as usize + 1).unwrap_err().to_string().contains("at most the lattice's n"));
}
