//! Checked identity of the C handles: one process-wide registry of the live ones.
//!
//! A handle given to C (`atomgpu_cr *`, `atomgpu_linestrength *`, ...) is a token, not an
//! address: a number that is never reused, placed in a range no allocation returns (on x86-64 a
//! non-canonical address, so a C program that dereferences it by mistake faults at once rather
//! than corrupting memory). The registry maps each live token to its object, held by an `Arc`,
//! and to its family. Every call looks its handle up first:
//!
//! - a token that is not live (destroyed, never created, garbage) is an invalid argument naming
//!   the handle parameter ("was destroyed or never created");
//! - a token of another family is an invalid argument saying which family it belongs to;
//! - destroy removes the entry (a second destroy is then "was destroyed ..."; NULL is a no-op).
//!   The object itself is freed when the last call that took it returns, so a destroy racing with
//!   a call on another thread never frees memory under that call.

use crate::backend::{Backend, DeviceSet};
use crate::error::{Error, Result};
use once_cell::sync::Lazy;
use std::any::Any;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// An object that C holds through a handle.
pub trait Family: Any + Send + Sync {
    /// What a handle of this family is, for messages ("CR model", "line-strength handle").
    const NAME: &'static str;

    /// The devices the handle was created on; None for a handle not bound to a device (its calls
    /// run on the backend in force at each call).
    fn devices(&self) -> Option<&DeviceSet>;
}

type AnyObject = dyn Any + Send + Sync;

struct Entry {
    family: &'static str,
    object: Arc<AnyObject>,
    /// [`Family::devices`] of `object`.
    devices: fn(&AnyObject) -> Option<DeviceSet>,
}

static LIVE: Lazy<Mutex<HashMap<usize, Entry>>> = Lazy::new(|| Mutex::new(HashMap::new()));
static NEXT: AtomicUsize = AtomicUsize::new(1);

/// High bits of every token: 0xA7 in the top byte (non-canonical on x86-64), the counter below,
/// in steps of 16 so that tokens look aligned to C code that checks.
const TOKEN_BASE: usize = 0xA7 << (usize::BITS - 8);

fn live() -> std::sync::MutexGuard<'static, HashMap<usize, Entry>> {
    // The map is consistent at every unlock (one insert or remove at a time), so a poisoned lock
    // (a panic elsewhere while it was held) leaves nothing half done.
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Registers `object` and returns its new handle.
pub fn register<T: Family>(object: T) -> Result<*mut T> {
    let serial = NEXT.fetch_add(1, Ordering::Relaxed);
    if serial >= (1 << (usize::BITS - 12)) {
        return Err(Error::Internal("the process has created more handles than tokens exist".into()));
    }
    let token = TOKEN_BASE | (serial << 4);
    let mut map = live();
    map.try_reserve(1).map_err(|_| Error::OutOfMemory {
        memory: crate::error::Memory::Host,
        what: "the handle registry".into(),
        bytes: None,
    })?;
    let devices: fn(&AnyObject) -> Option<DeviceSet> = |o| o.downcast_ref::<T>().and_then(|t| t.devices().cloned());
    map.insert(token, Entry { family: T::NAME, object: Arc::new(object), devices });
    Ok(token as *mut T)
}

/// The live entry of `handle` (the C parameter `name`), checked to be of family `T`.
fn entry<'a, T: Family>(map: &'a HashMap<usize, Entry>, name: &'static str, handle: *const T) -> Result<&'a Entry> {
    let entry = map.get(&(handle as usize)).ok_or_else(|| {
        Error::invalid(
            name,
            format!("is not a live {}: it was destroyed, or never created by its _create function", T::NAME),
        )
    })?;
    if entry.family != T::NAME {
        return Err(Error::invalid(name, format!("is a {}, not a {}", entry.family, T::NAME)));
    }
    Ok(entry)
}

/// The object behind `handle` (the C parameter `name`), if it is a live handle of family `T`.
pub fn get<T: Family>(name: &'static str, handle: *const T) -> Result<Arc<T>> {
    if handle.is_null() {
        return Err(Error::invalid(name, "must not be NULL"));
    }
    let object = entry(&live(), name, handle)?.object.clone();
    object.downcast::<T>().map_err(|_| Error::Internal(format!("the registry holds a {} of another type", T::NAME)))
}

/// The devices of `handle` (the C parameter `name`), a live handle of any family (None: not bound
/// to a device, [`Family::devices`]).
pub fn devices_of(name: &'static str, handle: *const std::ffi::c_void) -> Result<Option<DeviceSet>> {
    if handle.is_null() {
        return Err(Error::invalid(name, "must not be NULL"));
    }
    let (object, devices) = {
        let map = live();
        let entry = map.get(&(handle as usize)).ok_or_else(|| {
            Error::invalid(
                name,
                "is not a live atomgpu handle: it was destroyed, or never created by a _create function",
            )
        })?;
        (entry.object.clone(), entry.devices)
    };
    Ok(devices(&*object))
}

/// Destroys `handle` (the C parameter `name`): NULL is a no-op, a handle that is not a live one
/// of family `T` an invalid argument.
pub fn remove<T: Family>(name: &'static str, handle: *mut T) -> Result<()> {
    if handle.is_null() {
        return Ok(());
    }
    let removed = {
        let mut map = live();
        entry(&map, name, handle)?;
        map.remove(&(handle as usize))
    };
    let devices = removed.as_ref().and_then(|e| (e.devices)(&*e.object));
    // Dropped here, after the registry's lock is released (freeing device memory takes time),
    // unless a call on another thread still holds the object; then that call frees it.
    drop(removed);
    // Every GPU of the handle gives its freed memory back now, not at its next call.
    for member in devices.iter().flat_map(DeviceSet::members) {
        if let Backend::Cuda(device) = member {
            device.release_freed_memory()?;
        }
    }
    Ok(())
}

thread_local! {
    /// The handles whose lock this thread holds (a progress callback runs inside such a call).
    static HELD: std::cell::RefCell<Vec<usize>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `body` on the state behind a mutable handle, holding its lock (`lock` picks the handle's
/// `Mutex`): the handle must be live and of family `H`, not left unusable by an internal error
/// (a panic) in an earlier call, and not one whose call is running on this thread already (from
/// a progress callback: that would wait for ever). Each error names the argument `name`.
pub fn with_locked<H: Family, S, T>(
    name: &'static str,
    handle: *const H,
    lock: impl FnOnce(&H) -> &Mutex<S>,
    body: impl FnOnce(&mut S) -> Result<T>,
) -> Result<T> {
    let h = get(name, handle)?;
    let token = handle as usize;
    if HELD.with(|held| held.borrow().contains(&token)) {
        return Err(Error::invalid(
            name,
            "is in use by the call running on this thread (a progress callback may not call functions on its handle)",
        ));
    }
    let mut inner = lock(&h).lock().map_err(|_| {
        Error::invalid(name, "is unusable: an earlier call on it stopped with an internal error; destroy it")
    })?;
    HELD.with(|held| held.borrow_mut().push(token));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(&mut inner)));
    HELD.with(|held| held.borrow_mut().retain(|&t| t != token));
    result.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}
