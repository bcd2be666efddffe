//! Sobol: published values, net properties, scrambling, streaming.

use gradfree_qmc::{Scramble, Sequence, Sobol};

/// scipy.stats.qmc.Sobol(d=6, scramble=False).random(16) (scipy 1.17.1), which uses the same
/// Joe–Kuo direction numbers.
const SCIPY_D6: [[f64; 6]; 16] = [
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.5, 0.5, 0.5, 0.5, 0.5, 0.5],
    [0.75, 0.25, 0.25, 0.25, 0.75, 0.75],
    [0.25, 0.75, 0.75, 0.75, 0.25, 0.25],
    [0.375, 0.375, 0.625, 0.875, 0.375, 0.125],
    [0.875, 0.875, 0.125, 0.375, 0.875, 0.625],
    [0.625, 0.125, 0.875, 0.625, 0.625, 0.875],
    [0.125, 0.625, 0.375, 0.125, 0.125, 0.375],
    [0.1875, 0.3125, 0.9375, 0.4375, 0.5625, 0.3125],
    [0.6875, 0.8125, 0.4375, 0.9375, 0.0625, 0.8125],
    [0.9375, 0.0625, 0.6875, 0.1875, 0.3125, 0.5625],
    [0.4375, 0.5625, 0.1875, 0.6875, 0.8125, 0.0625],
    [0.3125, 0.1875, 0.3125, 0.5625, 0.9375, 0.4375],
    [0.8125, 0.6875, 0.8125, 0.0625, 0.4375, 0.9375],
    [0.5625, 0.4375, 0.0625, 0.8125, 0.1875, 0.6875],
    [0.0625, 0.9375, 0.5625, 0.3125, 0.6875, 0.1875],
];

/// The last three of 21201 coordinates of points 0..8 (scipy, same source): checks the end of
/// the shipped direction-number file.
const SCIPY_LAST3: [[f64; 3]; 9] = [
    [0.0, 0.0, 0.0],
    [0.5, 0.5, 0.5],
    [0.25, 0.75, 0.75],
    [0.75, 0.25, 0.25],
    [0.375, 0.875, 0.625],
    [0.875, 0.375, 0.125],
    [0.125, 0.125, 0.375],
    [0.625, 0.625, 0.875],
    [0.9375, 0.6875, 0.3125],
];

#[test]
fn unscrambled_points_equal_the_published_sequence() {
    let mut s = Sobol::new(6, Scramble::None).unwrap();
    let pts = s.take(16).unwrap();
    for (i, row) in SCIPY_D6.iter().enumerate() {
        assert_eq!(&pts[i * 6..(i + 1) * 6], row, "point {i}");
    }
    let s = Sobol::new(21201, Scramble::None).unwrap();
    let mut p = vec![0.0; 21201];
    for (i, want) in SCIPY_LAST3.iter().enumerate() {
        s.point_into(i as u64, &mut p).unwrap();
        assert_eq!(&p[21198..], want, "point {i}");
    }
}

/// Counts points per elementary box of side 2^-a x 2^-b in coordinates (j, k).
fn boxes(pts: &[f64], d: usize, j: usize, k: usize, a: u32, b: u32) -> Vec<usize> {
    let mut c = vec![0usize; 1 << (a + b)];
    for row in pts.chunks_exact(d) {
        let u = (row[j] * f64::from(1u32 << a)) as usize;
        let v = (row[k] * f64::from(1u32 << b)) as usize;
        c[(u << b) | v] += 1;
    }
    c
}

/// Each coordinate's first 2^m points hit every interval [k/2^m, (k+1)/2^m) once, and the first
/// two coordinates form a (0, m, 2)-net — for the plain and both scrambled sequences (scrambling
/// preserves the net structure).
#[test]
fn net_properties_hold_with_and_without_scrambling() {
    let m = 10;
    let n = 1usize << m;
    for scramble in [Scramble::None, Scramble::LmsShift { seed: 7 }, Scramble::Owen { seed: 7 }] {
        let d = 8;
        let pts = Sobol::new(d, scramble).unwrap().take(n).unwrap();
        for j in 0..d {
            assert!(boxes(&pts, d, j, j, m, 0).iter().all(|&c| c == 1), "{scramble:?}: coordinate {j}");
        }
        for a in 0..=m {
            assert!(boxes(&pts, d, 0, 1, a, m - a).iter().all(|&c| c == 1), "{scramble:?}: (0,{m},2)-net, a = {a}");
        }
        assert!(pts.iter().all(|v| (0.0..1.0).contains(v)));
    }
}

/// Randomized QMC is unbiased: the mean over independent scramblings of the estimate of
/// prod_j (1 + (x_j - 1/2) c_j) (exact integral 1) is 1, and its spread is far below Monte Carlo's.
#[test]
fn scrambled_estimates_are_unbiased_with_small_variance() {
    let (d, n, reps) = (5, 256, 200);
    let c = [1.0, 0.8, 0.6, 0.4, 0.2];
    let f = |x: &[f64]| x.iter().zip(&c).map(|(xi, ci)| 1.0 + (xi - 0.5) * ci).product::<f64>();
    // Monte Carlo variance of one estimate: (prod (1 + c^2/12) - 1) / n.
    let mc_var = (c.iter().map(|ci| 1.0 + ci * ci / 12.0).product::<f64>() - 1.0) / n as f64;
    for kind in 0..2 {
        let est: Vec<f64> = (0..reps)
            .map(|r| {
                let s = if kind == 0 { Scramble::LmsShift { seed: r } } else { Scramble::Owen { seed: r } };
                let pts = Sobol::new(d, s).unwrap().take(n).unwrap();
                pts.chunks_exact(d).map(f).sum::<f64>() / n as f64
            })
            .collect();
        let mean = est.iter().sum::<f64>() / reps as f64;
        let var = est.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / (reps - 1) as f64;
        assert!((mean - 1.0).abs() < 4.0 * (var / reps as f64).sqrt() + 1e-12, "kind {kind}: mean {mean}, sd {}", var.sqrt());
        assert!(var < mc_var / 20.0, "kind {kind}: var {var} vs MC {mc_var}");
    }
}

#[test]
fn streaming_random_access_and_parallel_fill_agree() {
    for scramble in [Scramble::None, Scramble::LmsShift { seed: 3 }, Scramble::Owen { seed: 3 }] {
        let d = 20;
        let mut a = Sobol::new(d, scramble).unwrap();
        // Large enough for the parallel path.
        let big = a.take(20_000).unwrap();
        let mut b = Sobol::new(d, scramble).unwrap();
        let first = b.take(7).unwrap();
        b.fast_forward(100).unwrap();
        let later = b.take(5).unwrap();
        assert_eq!(&big[..7 * d], &first[..]);
        assert_eq!(&big[107 * d..112 * d], &later[..]);
        assert_eq!(b.position(), 112);
        let mut p = vec![0.0; d];
        for i in [0u64, 1, 2, 1023, 1024, 16_383, 16_384, 19_999] {
            a.point_into(i, &mut p).unwrap();
            assert_eq!(&big[i as usize * d..(i as usize + 1) * d], &p[..], "{scramble:?} point {i}");
        }
        b.reset();
        assert_eq!(b.take(7).unwrap(), first);
        let after = a.take(3).unwrap();
        a.point_into(20_000, &mut p).unwrap();
        assert_eq!(&after[..d], &p[..], "the stream continues after a parallel fill");
    }
}

#[test]
fn seeds_reproduce_and_differ_and_errors_are_named() {
    let x = |s: Scramble| Sobol::new(4, s).unwrap().take(8).unwrap();
    assert_eq!(x(Scramble::LmsShift { seed: 1 }), x(Scramble::LmsShift { seed: 1 }));
    assert_ne!(x(Scramble::LmsShift { seed: 1 }), x(Scramble::LmsShift { seed: 2 }));
    assert_ne!(x(Scramble::Owen { seed: 1 }), x(Scramble::LmsShift { seed: 1 }));
    // Value stability: pinned first coordinates for seed 1.
    let lms = x(Scramble::LmsShift { seed: 1 });
    let owen = x(Scramble::Owen { seed: 1 });
    assert_eq!(&lms[..2], &[0.5073096000123769, 0.8703412697650492]);
    assert_eq!(&owen[..2], &[0.4217843811493367, 0.15269295847974718]);
    assert!(Sobol::new(0, Scramble::None).unwrap_err().to_string().contains("in 1..=21201"));
    assert!(Sobol::new(21202, Scramble::None).is_err());
    let mut s = Sobol::new(2, Scramble::None).unwrap();
    assert!(s.fast_forward(1 << 32).is_ok());
    assert!(s.take(1).unwrap_err().to_string().contains("2^32"));
    let mut out = vec![0.0; 3];
    assert!(s.fill(2, &mut out).unwrap_err().to_string().contains("count * d"));
}

/// scipy's `bits`: a `b`-bit sequence's points are multiples of `2^-b`, its first 32 digits are
/// the 32-bit points (for `b > 32` the lower digits carry the finer scrambling, for `b < 32` the
/// points are the 32-bit ones rounded down), and it has `2^b` points.
#[test]
fn bits_refine_and_truncate_the_32_bit_points() {
    let d = 5;
    let n = 1usize << 9;
    for scramble in [Scramble::None, Scramble::LmsShift { seed: 11 }, Scramble::Owen { seed: 11 }] {
        let p32 = Sobol::new(d, scramble).unwrap().take(n).unwrap();
        for bits in [1u32, 7, 31, 33, 40, 53, 64] {
            let mut s = Sobol::with_bits(d, scramble, bits).unwrap();
            assert_eq!(s.bits(), bits);
            let p = s.take(if bits < 9 { 1 << bits } else { n }).unwrap();
            let grid = 2f64.powi(bits.min(53) as i32);
            let mut finer = 0;
            for (i, (a, b)) in p.iter().zip(&p32).enumerate() {
                assert!((0.0..1.0).contains(a), "{scramble:?} bits {bits}: entry {i} = {a}");
                assert_eq!((a * grid).floor(), a * grid, "{scramble:?} bits {bits}: entry {i} not on the 2^-{bits} grid");
                let keep = 2f64.powi(bits.min(32) as i32);
                assert_eq!((a * keep).floor() / keep, (b * keep).floor() / keep, "{scramble:?} bits {bits}: entry {i}");
                finer += usize::from(a * 2f64.powi(32) != (a * 2f64.powi(32)).floor());
            }
            // Scrambled 64-bit points use their lower digits (an unscrambled point i < 2^32 has none).
            if bits > 40 && scramble != Scramble::None {
                assert!(finer > p.len() * 9 / 10, "{scramble:?} bits {bits}: only {finer} entries finer than 2^-32");
            }
            if bits > 32 && scramble == Scramble::None {
                assert!(p == p32, "bits {bits}: the unscrambled points are the 32-bit ones");
            }
        }
    }
    let mut s = Sobol::with_bits(2, Scramble::None, 3).unwrap();
    assert_eq!(s.len(), 8);
    assert!(s.take(8).is_ok());
    assert!(s.take(1).unwrap_err().to_string().contains("at most 2^3 points"));
    for bad in [0, 65] {
        let e = Sobol::with_bits(2, Scramble::None, bad).unwrap_err().to_string();
        assert!(e.contains("bits") && e.contains("1..=64"), "{e}");
    }
}

/// The 64-bit nets: scrambling at 64 digits keeps the (0, m, 2)-net of the first two coordinates,
/// streaming and random access agree past 2^32 (where 32-bit sequences end), and points near the
/// end of the sequence stay below 1 (rounded down, not to nearest).
#[test]
fn sixty_four_bit_sequences_keep_nets_and_stream_past_2_to_the_32() {
    let m = 10;
    for scramble in [Scramble::LmsShift { seed: 5 }, Scramble::Owen { seed: 5 }] {
        let pts = Sobol::with_bits(2, scramble, 64).unwrap().take(1 << m).unwrap();
        for a in 0..=m {
            assert!(boxes(&pts, 2, 0, 1, a, m - a).iter().all(|&c| c == 1), "{scramble:?}: (0,{m},2)-net, a = {a}");
        }
        let mut s = Sobol::with_bits(3, scramble, 64).unwrap();
        s.seek((1 << 32) - 2).unwrap();
        let run = s.take(4).unwrap();
        let mut p = vec![0.0; 3];
        for r in 0..4u64 {
            s.point_into((1 << 32) - 2 + r, &mut p).unwrap();
            assert_eq!(&run[r as usize * 3..(r as usize + 1) * 3], &p[..], "{scramble:?}: point 2^32 - 2 + {r}");
        }
        s.seek(u64::MAX - 3).unwrap();
        assert!(s.take(2).unwrap().iter().all(|v| (0.0..1.0).contains(v)));
    }
    let mut s = Sobol::with_bits(1, Scramble::None, 64).unwrap();
    // The first coordinate is the bit reversal of the Gray code, all 64 ones at 0b1010...10:
    // 0.11...1 rounds to 1.0 to nearest; down it is 1 - 2^-53.
    s.seek(0xAAAA_AAAA_AAAA_AAAA).unwrap();
    let last = s.take(1).unwrap()[0];
    assert_eq!(last, 1.0 - 2f64.powi(-53));
}

/// Owen's scrambling is nested uniform (Owen 1995): over random seeds, two points whose digits
/// first differ at position `k` still first differ at `k` after scrambling, every digit is flipped
/// with probability 1/2, and the digits after the first difference agree with probability 1/2
/// (independent flips), including across the hash blocks of six digits.
#[test]
fn owen_scrambling_is_nested_uniform() {
    // Dimension 1 is the van der Corput sequence in Gray-code order: x(i) = reverse(gray(i)).
    let inv_gray = |g: u64| (0..6).fold(g, |i, s| i ^ (i >> (1 << s)));
    let digits = |s: &Sobol, i: u64| {
        let mut p = [0.0];
        s.point_into(i, &mut p).unwrap();
        (p[0] * 2f64.powi(32)) as u32
    };
    let plain = Sobol::new(1, Scramble::None).unwrap();
    let mut pairs = Vec::new();
    for k in 1..=24u32 {
        let g = 0x9E37_79B9u64 & ((1 << 32) - 1);
        let h = (g ^ (1 << (k - 1)) ^ ((0x5bd1_e995u64 << k) & ((1 << 32) - 1))) & ((1 << 32) - 1);
        let (i, j) = (inv_gray(g), inv_gray(h));
        assert_eq!((digits(&plain, i) ^ digits(&plain, j)).leading_zeros(), k - 1);
        pairs.push((k, i, j));
    }
    let seeds = 1500;
    let mut flips = [0u32; 32];
    let mut agree = vec![[0u32; 32]; pairs.len()];
    for seed in 0..seeds {
        let s = Sobol::new(1, Scramble::Owen { seed }).unwrap();
        for (n, &(k, i, j)) in pairs.iter().enumerate() {
            let (a, b) = (digits(&s, i), digits(&s, j));
            assert_eq!((a ^ b).leading_zeros(), k - 1, "seed {seed}: first difference moved for k = {k}");
            if n == 0 {
                let x = digits(&plain, i) ^ a;
                (0..32).for_each(|q| flips[q] += (x >> (31 - q)) & 1);
            }
            (0..32).for_each(|q| agree[n][q] += 1 - (((a ^ b) >> (31 - q)) & 1));
        }
    }
    let half = |c: u32| (f64::from(c) / f64::from(seeds as u32) - 0.5).abs() < 0.06;
    assert!(flips.iter().all(|&c| half(c)), "flip frequencies {flips:?}");
    for (n, &(k, ..)) in pairs.iter().enumerate() {
        for (q, &c) in agree[n].iter().enumerate().skip(k as usize) {
            assert!(half(c), "k = {k}, digit {}: agreement {c}", q + 1);
        }
    }
}

/// A serialized sequence reads back equal and continues with the same points, at any position
/// and for every scrambling and depth; a tampered one (another recipe's direction numbers, a
/// state that is not its position's, a position past the end, out-of-range `d` or `bits`) is an
/// error naming what is wrong, never a sequence that would give wrong points.
#[test]
fn serialized_sequences_read_back_and_tampered_ones_are_refused() {
    use serde_json::{Value, from_value, to_value};
    for scramble in [Scramble::None, Scramble::LmsShift { seed: 3 }, Scramble::Owen { seed: 3 }] {
        for bits in [5, 32, 64] {
            let mut a = Sobol::with_bits(3, scramble, bits).unwrap();
            for skip in [0usize, 7, 25] {
                if skip > 0 && a.position() + skip as u64 <= a.len() {
                    a.fill(skip, &mut vec![0.0; 3 * skip]).unwrap();
                }
                let mut b: Sobol = from_value(to_value(&a).unwrap()).unwrap();
                assert_eq!(a, b, "{scramble:?} bits {bits} at {}", a.position());
                let n = (a.len() - a.position()).min(4) as usize;
                let (mut pa, mut pb) = (vec![0.0; 3 * n], vec![0.0; 3 * n]);
                a.clone().fill(n, &mut pa).unwrap();
                b.fill(n, &mut pb).unwrap();
                assert_eq!(pa, pb);
            }
        }
    }
    // Exhausted (5 bits: 32 points) reads back too.
    let mut a = Sobol::with_bits(2, Scramble::LmsShift { seed: 1 }, 5).unwrap();
    a.fill(32, &mut [0.0; 64]).unwrap();
    let b: Sobol = from_value(to_value(&a).unwrap()).unwrap();
    assert_eq!(b.position(), 32);

    let mut a = Sobol::with_bits(3, Scramble::LmsShift { seed: 3 }, 32).unwrap();
    a.fill(5, &mut [0.0; 15]).unwrap();
    let good = to_value(&a).unwrap();
    let refused = |edit: &dyn Fn(&mut Value), needle: &str| {
        let mut v = good.clone();
        edit(&mut v);
        let e = from_value::<Sobol>(v).unwrap_err().to_string();
        assert!(e.contains(needle), "{needle}: {e}");
    };
    refused(&|v| v["bits"] = 65.into(), "bits");
    refused(&|v| v["d"] = 0.into(), "invalid d = 0");
    refused(&|v| v["v64"][4] = 12345.into(), "direction numbers");
    refused(&|v| v["shift64"][0] = 1.into(), "direction numbers, shift");
    refused(&|v| v["scramble"]["seed"] = 4.into(), "direction numbers");
    refused(&|v| v["x64"][1] = 7.into(), "state words at index 5");
    refused(&|v| v["x64"] = Value::Array(vec![0.into()]), "1 state words");
    refused(&|v| v["index"] = (1u64 << 33).into(), "index");
}
