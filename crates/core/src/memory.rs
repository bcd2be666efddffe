//! Memory budgets checked before large allocations.
//!
//! Rust aborts the process when an allocation fails, and Linux may grant an allocation it cannot
//! back and kill the process later. Both would take a Python interpreter or a long run down with
//! them. So every constructor whose buffers grow with the dimension or population size first asks
//! [`check_elements`] whether the `f64` values it is about to allocate fit in the memory this
//! machine has, and fails with [`CoreError::TooLarge`] naming the size otherwise.

use crate::CoreError;

/// Bytes of memory this process may plan to use: the least of `MemAvailable` from
/// `/proc/meminfo` (plus free swap), the room left under the address-space limit (`ulimit -v`)
/// and under the cgroup's `memory.max` (containers), or 1 TiB where none of these can be read.
/// `GRADFREE_MEMORY_LIMIT` (bytes) lowers it.
pub fn available_bytes() -> u64 {
    let from_env = std::env::var("GRADFREE_MEMORY_LIMIT").ok().and_then(|s| s.trim().parse::<u64>().ok());
    [meminfo(), address_space_room(), cgroup_room(), from_env].into_iter().flatten().min().unwrap_or(1 << 40)
}

/// `RLIMIT_AS` minus the current virtual size, from `/proc/self/limits` and `/proc/self/status`.
fn address_space_room() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max address space"))?;
    let soft = line.split_whitespace().nth(3)?.parse::<u64>().ok()?; // "unlimited" -> None
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let vm = status.lines().find(|l| l.starts_with("VmSize:"))?.split_whitespace().nth(1)?.parse::<u64>().ok()?;
    Some(soft.saturating_sub(vm.saturating_mul(1024)))
}

/// cgroup v2 `memory.max - memory.current` of this process's cgroup.
fn cgroup_room() -> Option<u64> {
    let cg = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let rel = cg.lines().find_map(|l| l.strip_prefix("0::"))?.trim();
    let dir = std::path::Path::new("/sys/fs/cgroup").join(rel.trim_start_matches('/'));
    let max = std::fs::read_to_string(dir.join("memory.max")).ok()?.trim().parse::<u64>().ok()?; // "max" -> None
    let current = std::fs::read_to_string(dir.join("memory.current")).ok()?.trim().parse::<u64>().ok().unwrap_or(0);
    Some(max.saturating_sub(current))
}

fn meminfo() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with(name))?;
        line.split_whitespace().nth(1)?.parse::<u64>().ok().map(|kib| kib.saturating_mul(1024))
    };
    Some(field("MemAvailable:")?.saturating_add(field("SwapFree:").unwrap_or(0)))
}

/// The product of `factors` as a `u128`, saturating at `u128::MAX` (so a size check on it can
/// never wrap around to a small number).
pub fn product(factors: &[u128]) -> u128 {
    factors.iter().fold(1u128, |acc, &f| acc.saturating_mul(f))
}

/// `Ok` if `elements` values of `f64` (8 bytes each) fit in [`available_bytes`]; otherwise
/// [`CoreError::TooLarge`] naming `what`. `elements` is `u128` so that products of sizes cannot
/// overflow before the check.
pub fn check_elements(what: &str, elements: u128) -> Result<(), CoreError> {
    check_bytes(what, elements.saturating_mul(8))
}

/// [`check_elements`] for a size in bytes.
pub fn check_bytes(what: &str, bytes: u128) -> Result<(), CoreError> {
    check_bytes_of(None, what, bytes)
}

/// [`check_bytes`] for a size that the parameter `name` (set to `value`) asks for: the error
/// names the parameter, so front ends can show it as their flag or keyword.
pub fn check_param_bytes(name: &'static str, value: impl std::fmt::Display, what: &str, bytes: u128) -> Result<(), CoreError> {
    check_bytes_of(Some((name, value.to_string())), what, bytes)
}

/// Whether this process runs under a memory limit of its own (an address-space limit, a cgroup
/// `memory.max`, or `GRADFREE_MEMORY_LIMIT`), read once.
fn limited() -> bool {
    static LIMITED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *LIMITED
        .get_or_init(|| address_space_room().is_some() || cgroup_room().is_some() || std::env::var_os("GRADFREE_MEMORY_LIMIT").is_some())
}

fn check_bytes_of(param: Option<(&'static str, String)>, what: &str, bytes: u128) -> Result<(), CoreError> {
    // Small sizes are checked only under a memory limit of the process's own (`prlimit --as`, a
    // container): the check reads /proc, and without such a limit sizes below 64 MiB are never
    // the problem, while under one a few megabytes may be.
    if bytes < if limited() { 1 << 20 } else { 64 << 20 } {
        return Ok(());
    }
    let limit = available_bytes();
    if bytes > limit as u128 {
        return Err(CoreError::TooLarge { what: what.to_string(), bytes, limit, param: param.map(Box::new) });
    }
    Ok(())
}

/// The memory of a run as terms, each with the parameter that drives it: [`Footprint::check`]
/// adds them up and, when the sum does not fit, names the parameter of the largest term. The one
/// way every subsystem (inference chains, training, the NOK block, point sets) checks its sizes
/// before it allocates.
#[derive(Clone, Debug, Default)]
pub struct Footprint {
    terms: Vec<(&'static str, String, String, u128)>,
}

impl Footprint {
    /// An empty footprint.
    pub fn new() -> Self {
        Footprint::default()
    }

    /// Adds `bytes` for `what`, driven by the parameter `name` = `value`.
    pub fn bytes(&mut self, name: &'static str, value: impl std::fmt::Display, what: impl Into<String>, bytes: u128) -> &mut Self {
        self.terms.push((name, value.to_string(), what.into(), bytes));
        self
    }

    /// Adds `elements` values of `f64` (8 bytes each) ([`Footprint::bytes`]).
    pub fn f64s(&mut self, name: &'static str, value: impl std::fmt::Display, what: impl Into<String>, elements: u128) -> &mut Self {
        self.bytes(name, value, what, elements.saturating_mul(8))
    }

    /// The sum of the terms, saturating.
    pub fn total(&self) -> u128 {
        self.terms.iter().fold(0u128, |a, t| a.saturating_add(t.3))
    }

    /// `Ok` if the sum fits in [`available_bytes`]; otherwise [`CoreError::TooLarge`] naming the
    /// parameter of the largest term and what that term is.
    pub fn check(&self) -> Result<(), CoreError> {
        let total = self.total();
        let Some((name, value, what, _)) = self.terms.iter().max_by_key(|t| t.3) else { return Ok(()) };
        let what = if self.terms.len() > 1 { format!("the run (mostly {what})") } else { what.clone() };
        check_bytes_of(Some((name, value.clone())), &what, total)
    }
}

/// The message of an allocation of `bytes` that failed (the front ends' last net under the size
/// checks): the size, the memory this process may use, and the limits in force.
pub fn allocation_failed(bytes: u128) -> String {
    let mut limits = Vec::new();
    if let Some(room) = address_space_room() {
        limits.push(format!("{} left under the address-space limit (`ulimit -v`, `prlimit --as`)", human_bytes(room as u128)));
    }
    if let Some(room) = cgroup_room() {
        limits.push(format!("{} left under the cgroup's memory.max", human_bytes(room as u128)));
    }
    if let Some(free) = meminfo() {
        limits.push(format!("{} available on the machine", human_bytes(free as u128)));
    }
    let limits = if limits.is_empty() { String::new() } else { format!(" ({})", limits.join("; ")) };
    format!("out of memory: an allocation of {} failed{limits}; ask for a smaller size or raise the limit", human_bytes(bytes))
}

/// Formats a byte count for messages: `"1.5 GiB"`.
pub fn human_bytes(bytes: u128) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"];
    let mut x = bytes as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < units.len() {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 { format!("{bytes} B") } else { format!("{x:.1} {}", units[u]) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_sizes_are_errors_that_name_the_size() {
        assert!(check_elements("x", 1000).is_ok());
        let e = check_elements("covariance of dimension 200000", 200_000u128 * 200_000 * 6).unwrap_err().to_string();
        assert!(e.contains("covariance of dimension 200000") && e.contains("TiB"), "{e}");
        assert!(check_elements("x", u128::MAX).is_err());
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(12), "12 B");
    }

    #[test]
    fn a_footprint_names_the_parameter_of_its_largest_term() {
        let mut f = Footprint::new();
        f.f64s("chains", 100, "the chains' paths", 1000).f64s("batch_size", "10000000000", "100 batches of 10000000000 rows", u128::MAX);
        let e = f.check().unwrap_err();
        assert!(matches!(&e, CoreError::TooLarge { param: Some(p), .. } if p.0 == "batch_size" && p.1 == "10000000000"), "{e:?}");
        let text = e.to_string();
        assert!(text.starts_with("`batch_size` = 10000000000: the run (mostly 100 batches") && text.contains("memory available"), "{text}");
        assert!(Footprint::new().f64s("chains", 1, "x", 10).check().is_ok());
    }
}
