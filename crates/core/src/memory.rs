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
    // Below 64 MiB the check is skipped: it reads /proc, and such sizes are never the problem.
    if bytes < 64 << 20 {
        return Ok(());
    }
    let limit = available_bytes();
    if bytes > limit as u128 {
        return Err(CoreError::TooLarge { what: what.to_string(), bytes, limit });
    }
    Ok(())
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
}
