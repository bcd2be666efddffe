//! Exact integer arithmetic for lattice constructions: modular powers, deterministic primality for
//! all `u64`, factorization by trial division, primitive roots.

/// Greatest common divisor (Euclid).
pub fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `a * b mod m` without overflow.
pub fn mul_mod(a: u64, b: u64, m: u64) -> u64 {
    ((a as u128 * b as u128) % m as u128) as u64
}

/// `base^exp mod m` by square-and-multiply.
pub fn pow_mod(mut base: u64, mut exp: u64, m: u64) -> u64 {
    if m == 1 {
        return 0;
    }
    let mut acc = 1u64;
    base %= m;
    while exp > 0 {
        if exp & 1 == 1 {
            acc = mul_mod(acc, base, m);
        }
        base = mul_mod(base, base, m);
        exp >>= 1;
    }
    acc
}

/// Deterministic Miller–Rabin: exact for every `u64` with the first twelve prime bases.
pub fn is_prime(n: u64) -> bool {
    const BASES: [u64; 12] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37];
    if n < 2 {
        return false;
    }
    for p in BASES {
        if n.is_multiple_of(p) {
            return n == p;
        }
    }
    let (mut d, mut s) = (n - 1, 0);
    while d % 2 == 0 {
        d /= 2;
        s += 1;
    }
    'bases: for a in BASES {
        let mut x = pow_mod(a, d, n);
        if x == 1 || x == n - 1 {
            continue;
        }
        for _ in 1..s {
            x = mul_mod(x, x, n);
            if x == n - 1 {
                continue 'bases;
            }
        }
        return false;
    }
    true
}

/// Distinct prime factors of `n >= 1`, ascending (trial division; fine for lattice sizes).
pub fn prime_factors(mut n: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut p = 2u64;
    while p * p <= n {
        if n.is_multiple_of(p) {
            out.push(p);
            while n.is_multiple_of(p) {
                n /= p;
            }
        }
        p += if p == 2 { 1 } else { 2 };
    }
    if n > 1 {
        out.push(n);
    }
    out
}

/// The smallest primitive root of the prime `n`: the `g` whose powers `g^0..g^{n-2}` run through
/// every residue `1..n-1`. `None` if `n` is not prime.
pub fn primitive_root(n: u64) -> Option<u64> {
    if !is_prime(n) {
        return None;
    }
    if n == 2 {
        return Some(1);
    }
    let factors = prime_factors(n - 1);
    (2..n).find(|&g| factors.iter().all(|&q| pow_mod(g, (n - 1) / q, n) != 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primality_agrees_with_a_sieve() {
        let limit = 20_000usize;
        let mut sieve = vec![true; limit];
        sieve[0] = false;
        sieve[1] = false;
        for i in 2..limit {
            if sieve[i] {
                for j in (i * i..limit).step_by(i) {
                    sieve[j] = false;
                }
            }
        }
        for (n, &p) in sieve.iter().enumerate() {
            assert_eq!(is_prime(n as u64), p, "{n}");
        }
        // Large known primes and a Carmichael number / strong pseudoprimes to small bases.
        assert!(is_prime(786_433));
        assert!(is_prime(18_446_744_073_709_551_557));
        assert!(!is_prime(561));
        assert!(!is_prime(3_215_031_751));
        assert!(!is_prime(3_825_123_056_546_413_051));
    }

    #[test]
    fn primitive_roots_generate_the_group() {
        for n in [3u64, 5, 7, 11, 13, 101, 1009, 96_001, 786_433] {
            if !is_prime(n) {
                continue;
            }
            let g = primitive_root(n).unwrap();
            // Order of g is exactly n - 1.
            let mut x = 1u64;
            for k in 1..n - 1 {
                x = mul_mod(x, g, n);
                assert_ne!(x, 1, "g = {g} has order {k} < n - 1 = {}", n - 1);
            }
            assert_eq!(mul_mod(x, g, n), 1);
        }
        assert_eq!(primitive_root(7), Some(3));
        assert_eq!(primitive_root(41), Some(6));
        assert_eq!(primitive_root(15), None);
    }
}
