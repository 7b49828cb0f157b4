//! Host allocations that fail with an error instead of aborting the process.
//!
//! Rust's standard collections abort the whole process when an allocation fails, and on Linux an
//! allocation larger than the memory that is really there may succeed (overcommit) and get the
//! host program killed later, when the pages are touched. Every buffer whose size a caller
//! controls is therefore made here:
//!
//! 1. its size in bytes is computed without overflow (`u128`);
//! 2. a buffer of more than [`CHECKED_BYTES`] is compared with the memory the process can still
//!    use: `MemAvailable + SwapFree` of `/proc/meminfo`, and the room left under a cgroup v2
//!    limit (`memory.max - memory.current`) when the process runs under one;
//! 3. the allocation is made with `try_reserve_exact`.
//!
//! A refusal at any step is [`Error::OutOfMemory`] (C status `ATOMGPU_ERR_OUT_OF_MEMORY`) naming
//! the buffer and the bytes asked for. Sizes that overflow a byte count altogether are refused
//! earlier, as invalid arguments, by the checks of the C layer ([`crate::ffi`]).

use crate::error::{describe_bytes, Error, Memory, Result};

/// Buffers above this size (64 MiB) are checked against the memory available before they are
/// allocated; smaller ones only through `try_reserve_exact`.
pub const CHECKED_BYTES: u128 = 64 << 20;

/// Size in bytes of `len` values of `T`, exact.
pub fn bytes_of<T>(len: usize) -> u128 {
    len as u128 * std::mem::size_of::<T>() as u128
}

fn out_of_memory(what: &str, bytes: u128, why: &str) -> Error {
    Error::OutOfMemory { memory: Memory::Host, what: format!("{what}{why}"), bytes: Some(bytes) }
}

/// A `/proc/meminfo`-style `Name: value kB` field, in bytes.
fn meminfo_field(text: &str, name: &str) -> Option<u128> {
    let line = text.lines().find(|l| l.starts_with(name) && l[name.len()..].starts_with(':'))?;
    let kib: u128 = line[name.len() + 1..].trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kib * 1024)
}

/// Bytes this process can still allocate without swapping itself to death or meeting the OOM
/// killer: MemAvailable + SwapFree, lowered to the room under a cgroup v2 memory limit. `None`
/// when the system does not say (not Linux).
pub fn available_bytes() -> Option<u128> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let system = meminfo_field(&text, "MemAvailable")? + meminfo_field(&text, "SwapFree").unwrap_or(0);
    Some(match cgroup_room() {
        Some(room) => system.min(room),
        None => system,
    })
}

/// `memory.max - memory.current` of this process's cgroup (v2), when it has a limit.
fn cgroup_room() -> Option<u128> {
    let membership = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = membership.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = std::path::Path::new("/sys/fs/cgroup").join(path.trim_start_matches('/'));
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).ok().and_then(|t| t.trim().parse::<u128>().ok());
    let (max, current) = (read("memory.max")?, read("memory.current")?);
    Some(max.saturating_sub(current))
}

/// Refuses a buffer of `bytes` for `what` when it is larger than the address space allows or,
/// above [`CHECKED_BYTES`], than the memory available.
fn check_size(what: &str, bytes: u128) -> Result<()> {
    if bytes > isize::MAX as u128 {
        return Err(out_of_memory(what, bytes, ", more than the address space holds"));
    }
    if bytes > CHECKED_BYTES {
        if let Some(available) = available_bytes() {
            if bytes > available {
                return Err(out_of_memory(what, bytes, &format!(", {} available", describe_bytes(available))));
            }
        }
    }
    Ok(())
}

/// The number of elements of a `rows x cols` buffer of `T` for `what`; an out-of-memory error when
/// the count overflows.
pub fn elements<T>(what: &str, rows: usize, cols: usize) -> Result<usize> {
    rows.checked_mul(cols).ok_or_else(|| {
        let bytes = rows as u128 * cols as u128 * std::mem::size_of::<T>() as u128;
        out_of_memory(what, bytes, ", more than the address space holds")
    })
}

/// An empty vector with room for `len` values: the one place every other function here allocates.
pub fn with_capacity<T>(what: &str, len: usize) -> Result<Vec<T>> {
    let bytes = bytes_of::<T>(len);
    check_size(what, bytes)?;
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| out_of_memory(what, bytes, ""))?;
    Ok(v)
}

/// Makes room in `v` for `additional` more values (growing it by at least half, as `Vec` does),
/// for lists whose length is not known in advance.
pub fn reserve<T>(what: &str, v: &mut Vec<T>, additional: usize) -> Result<()> {
    if v.capacity() - v.len() >= additional {
        return Ok(());
    }
    let wanted = v.len().saturating_add(additional.max(v.len() / 2).max(16));
    let bytes = bytes_of::<T>(wanted);
    check_size(what, bytes)?;
    v.try_reserve_exact(wanted - v.len()).map_err(|_| out_of_memory(what, bytes, ""))
}

/// A vector of `len` copies of `value`.
pub fn filled<T: Clone>(what: &str, len: usize, value: T) -> Result<Vec<T>> {
    let mut v = with_capacity(what, len)?;
    v.resize(len, value);
    Ok(v)
}

/// A copy of `values`.
pub fn copy_of<T: Clone>(what: &str, values: &[T]) -> Result<Vec<T>> {
    let mut v = with_capacity(what, values.len())?;
    v.extend_from_slice(values);
    Ok(v)
}

/// The values of an iterator of known length, allocated once up front.
pub fn collect<T>(what: &str, values: impl ExactSizeIterator<Item = T>) -> Result<Vec<T>> {
    let mut v = with_capacity(what, values.len())?;
    v.extend(values);
    Ok(v)
}

/// The values of a fallible iterator of known length, allocated once up front; the first error
/// is returned.
pub fn try_collect<T>(what: &str, values: impl ExactSizeIterator<Item = Result<T>>) -> Result<Vec<T>> {
    let mut v = with_capacity(what, values.len())?;
    for value in values {
        v.push(value?);
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_impossible_buffer_is_an_error_not_an_abort() {
        let e = with_capacity::<f64>("test buffer", 1 << 60).unwrap_err();
        assert!(matches!(e, Error::OutOfMemory { memory: Memory::Host, bytes: Some(b), .. } if b == 8 << 60), "{e}");
        assert!(e.to_string().contains("test buffer"), "{e}");
    }

    #[test]
    fn a_buffer_larger_than_the_memory_available_is_refused_before_allocating() {
        let available = available_bytes().expect("Linux reports MemAvailable");
        let len = usize::try_from(available / 8 + (1 << 20)).unwrap();
        let e = filled("oversized", len, 0.0f64).unwrap_err();
        assert!(e.to_string().contains("available"), "{e}");
    }

    #[test]
    fn reserve_grows_and_keeps_the_values() {
        let mut v = vec![1, 2, 3];
        reserve("growing list", &mut v, 100).unwrap();
        assert!(v.capacity() >= 103);
        assert_eq!(v, [1, 2, 3]);
    }
}
