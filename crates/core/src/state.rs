//! Validation of restored optimizer states.
//!
//! A state read from a checkpoint or a pickle went through `serde`, which checks types but not
//! invariants: vector lengths that agree with the dimension and population size, finite numbers,
//! positive scales, positive-definite factors. [`StateCheck::check_state`] checks them once, after
//! loading and before anything runs, so a corrupt or foreign state is an error instead of a panic
//! (an index out of bounds) or a silent NaN later.
//!
//! The helpers below return `Err(String)` naming the field and what was expected; the loader wraps
//! the message in a [`crate::CoreError::Format`] naming the file.

/// An optimizer state that can check its own invariants after deserialization.
pub trait StateCheck {
    /// `Ok(())` if every invariant the methods rely on holds; otherwise one sentence naming the
    /// field and the accepted values.
    fn check_state(&self) -> Result<(), String>;
}

impl<T: StateCheck + ?Sized> StateCheck for Box<T> {
    fn check_state(&self) -> Result<(), String> {
        (**self).check_state()
    }
}

/// `a * b`, or an error naming `what` if the product overflows `usize`.
pub fn checked_len(what: &str, a: usize, b: usize) -> Result<usize, String> {
    a.checked_mul(b).ok_or_else(|| format!("{what}: {a} x {b} overflows"))
}

/// `v.len() == expected`.
pub fn len(name: &str, v: &[f64], expected: usize) -> Result<(), String> {
    if v.len() != expected {
        return Err(format!("{name} has {} values, expected {expected}", v.len()));
    }
    Ok(())
}

/// Every value is finite.
pub fn finite(name: &str, v: &[f64]) -> Result<(), String> {
    match v.iter().position(|x| !x.is_finite()) {
        Some(i) => Err(format!("{name}[{i}] = {} is not finite", v[i])),
        None => Ok(()),
    }
}

/// `v.len() == expected` and every value is finite.
pub fn finite_len(name: &str, v: &[f64], expected: usize) -> Result<(), String> {
    len(name, v, expected)?;
    finite(name, v)
}

/// `x` is finite and `> 0`.
pub fn positive(name: &str, x: f64) -> Result<(), String> {
    if !(x.is_finite() && x > 0.0) {
        return Err(format!("{name} = {x}: must be finite and > 0"));
    }
    Ok(())
}

/// `x` is finite and `>= 0`.
pub fn non_negative(name: &str, x: f64) -> Result<(), String> {
    if !(x.is_finite() && x >= 0.0) {
        return Err(format!("{name} = {x}: must be finite and >= 0"));
    }
    Ok(())
}

/// `lo <= x <= hi` (both inclusive), `x` not NaN.
pub fn in_range(name: &str, x: f64, lo: f64, hi: f64) -> Result<(), String> {
    if !(x >= lo && x <= hi) {
        return Err(format!("{name} = {x}: must be in [{lo}, {hi}]"));
    }
    Ok(())
}

/// `lo <= n <= hi` for a count.
pub fn count(name: &str, n: usize, lo: usize, hi: usize) -> Result<(), String> {
    if n < lo || n > hi {
        return Err(format!("{name} = {n}: must be in [{lo}, {hi}]"));
    }
    Ok(())
}

/// Every value is finite and `> 0`.
pub fn all_positive(name: &str, v: &[f64]) -> Result<(), String> {
    match v.iter().position(|x| !(x.is_finite() && *x > 0.0)) {
        Some(i) => Err(format!("{name}[{i}] = {}: must be finite and > 0", v[i])),
        None => Ok(()),
    }
}

/// A `d x d` column-major lower-triangular factor with finite entries, a positive diagonal and
/// zeros above the diagonal (a valid Cholesky factor of a positive-definite matrix).
pub fn lower_factor(name: &str, l: &[f64], d: usize) -> Result<(), String> {
    finite_len(name, l, checked_len(name, d, d)?)?;
    for j in 0..d {
        let diag = l[j * d + j];
        if diag <= 0.0 {
            return Err(format!("{name}: diagonal entry {j} = {diag} must be > 0 (not a Cholesky factor)"));
        }
        if let Some(i) = (0..j).find(|&i| l[j * d + i] != 0.0) {
            return Err(format!("{name}: entry ({i}, {j}) above the diagonal is {} (not lower triangular)", l[j * d + i]));
        }
    }
    Ok(())
}

/// A `d x d` matrix with finite entries (positive definiteness, where needed, is judged by the
/// method's own factorization).
pub fn square(name: &str, a: &[f64], d: usize) -> Result<(), String> {
    finite_len(name, a, checked_len(name, d, d)?)
}

/// `ok`, or an error `"{name}: {why}"` (for invariants between fields).
pub fn require(name: &str, ok: bool, why: &str) -> Result<(), String> {
    if !ok {
        return Err(format!("{name}: {why}"));
    }
    Ok(())
}

/// Serde for a `Vec<f64>` that may hold infinities or NaN (e.g. objective values ranked last
/// under the treat-as-inf policy): finite values as JSON numbers, the others as the strings
/// `"inf"`, `"-inf"` and `"nan"` (JSON has no such numbers; `serde_json` would write `null` and
/// refuse to read it back). Use with `#[serde(with = "gradfree_core::state::nonfinite_vec")]`.
pub mod nonfinite_vec {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum Num {
        Finite(f64),
        Special(String),
    }

    /// Writes `v` with non-finite values as strings.
    pub fn serialize<S: Serializer>(v: &[f64], s: S) -> Result<S::Ok, S::Error> {
        let conv = |x: &f64| match *x {
            x if x.is_finite() => Num::Finite(x),
            x if x.is_nan() => Num::Special("nan".into()),
            x if x > 0.0 => Num::Special("inf".into()),
            _ => Num::Special("-inf".into()),
        };
        s.collect_seq(v.iter().map(conv))
    }

    /// Reads numbers and the strings `"inf"`, `"-inf"`, `"nan"`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
        let raw = Vec::<Num>::deserialize(d)?;
        raw.into_iter()
            .map(|n| match n {
                Num::Finite(x) => Ok(x),
                Num::Special(s) => match s.as_str() {
                    "inf" => Ok(f64::INFINITY),
                    "-inf" => Ok(f64::NEG_INFINITY),
                    "nan" => Ok(f64::NAN),
                    other => Err(serde::de::Error::custom(format!("expected a number, \"inf\", \"-inf\" or \"nan\", got {other:?}"))),
                },
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_name_the_field() {
        assert!(len("mu", &[1.0, 2.0], 2).is_ok());
        assert_eq!(len("mu", &[1.0], 2).unwrap_err(), "mu has 1 values, expected 2");
        assert!(finite("mu", &[1.0, f64::NAN]).unwrap_err().starts_with("mu[1] = NaN"));
        assert!(positive("sigma", 0.0).is_err());
        assert!(positive("sigma", f64::INFINITY).is_err());
        assert!(positive("sigma", 1e-300).is_ok());
        assert!(non_negative("x", 0.0).is_ok());
        assert!(in_range("p", f64::NAN, 0.0, 1.0).is_err());
        assert!(count("n", 1, 2, 10).is_err());
        assert!(checked_len("z", usize::MAX, 2).is_err());
        assert!(all_positive("lam", &[1.0, -1.0]).unwrap_err().contains("lam[1]"));
    }

    #[test]
    fn non_finite_values_round_trip() {
        #[derive(serde::Serialize, serde::Deserialize, Debug)]
        struct S {
            #[serde(with = "nonfinite_vec")]
            v: Vec<f64>,
        }
        let s = S { v: vec![1.5, f64::INFINITY, f64::NEG_INFINITY, f64::NAN] };
        let text = serde_json::to_string(&s).unwrap();
        assert_eq!(text, r#"{"v":[1.5,"inf","-inf","nan"]}"#);
        let back: S = serde_json::from_str(&text).unwrap();
        assert_eq!(back.v[..3], s.v[..3]);
        assert!(back.v[3].is_nan());
        assert!(serde_json::from_str::<S>(r#"{"v":["x"]}"#).is_err());
        assert!(serde_json::from_str::<S>(r#"{"v":[null]}"#).is_err());
    }

    #[test]
    fn lower_factor_rules() {
        assert!(lower_factor("l", &[1.0, 0.5, 0.0, 2.0], 2).is_ok());
        assert!(lower_factor("l", &[1.0, 0.5, 0.1, 2.0], 2).unwrap_err().contains("above the diagonal"));
        assert!(lower_factor("l", &[1.0, 0.5, 0.0, -2.0], 2).unwrap_err().contains("diagonal entry 1"));
        assert!(lower_factor("l", &[1.0, 0.5, 0.0], 2).is_err());
        assert!(lower_factor("l", &[1.0, f64::NAN, 0.0, 1.0], 2).is_err());
    }
}
