//! Device sets in the C ABI: the arguments of the `_create_on_devices` (a count) and
//! `_create_on_device_list` (GPU ordinals) entry points of every family that spreads over
//! several GPUs, which devices a count resolves to, and which devices a handle uses.
//!
//! One rule for all (Rust: `backend::DeviceSet`): n devices are the GPUs `(first + k) mod
//! visible`, k = 0..n-1, first = `ATOMGPU_DEVICE` when set, else (node-local rank x n) mod
//! visible, so that the ranks of one node get disjoint sets; a list names its GPUs, the first
//! being the handle's own. On the CPU backend either gives that many CPU engines.

use super::common::{guard, input, output, write_output};
use super::handles;
use crate::backend::{self, DeviceRequest, DeviceSet, MAX_DEVICES};
use crate::error::{Error, Result};
use std::ffi::c_void;

/// The number of devices asked for in `n_devices` (the argument `name`), in [1, MAX_DEVICES].
fn device_count(name: &'static str, n_devices: i32) -> Result<usize> {
    usize::try_from(n_devices)
        .ok()
        .filter(|n| (1..=MAX_DEVICES).contains(n))
        .ok_or_else(|| Error::invalid(name, format!("must be in [1, {MAX_DEVICES}], got {n_devices}")))
}

/// The set of `n_devices` devices by the one rule, on the current backend.
pub fn devices_by_count(name: &'static str, n_devices: i32) -> Result<DeviceSet> {
    let n = device_count(name, n_devices)?;
    DeviceSet::resolve(backend::current()?, DeviceRequest::Count(n), name)
}

/// The set of the `n_devices` GPU ordinals at `ids` (the arguments `n_name`, `ids_name`), on the
/// current backend.
///
/// # Safety
/// `ids` must be NULL or valid for `n_devices` elements.
pub unsafe fn devices_by_list(
    n_name: &'static str,
    n_devices: i32,
    ids_name: &'static str,
    ids: *const i32,
) -> Result<DeviceSet> {
    let n = device_count(n_name, n_devices)?;
    let given = input(ids_name, ids, n)?;
    let mut ordinals = Vec::with_capacity(n);
    for (k, &d) in given.iter().enumerate() {
        let d = usize::try_from(d).map_err(|_| Error::invalid_at(ids_name, k, format!("must be >= 0, got {d}")))?;
        ordinals.push(d);
    }
    DeviceSet::resolve(backend::current()?, DeviceRequest::Ordinals(&ordinals), ids_name)
}

/// Writes a set's ordinals (-1 for a CPU engine) into `ordinals` (`capacity` entries, NULL for a
/// count query) and their number into the output `n_name`.
///
/// # Safety
/// `ordinals` must be NULL or valid for `capacity` elements, `n_devices` NULL or writable.
unsafe fn write_set(
    set: &DeviceSet,
    capacity: i32,
    (n_name, n_devices): (&'static str, *mut i32),
    ordinals: *mut i32,
) -> Result<()> {
    let n_out = output(n_name, n_devices)?;
    let values = set.ordinals();
    if !ordinals.is_null() {
        let room = usize::try_from(capacity).unwrap_or(0);
        if room < values.len() {
            return Err(Error::invalid(
                "capacity",
                format!("must be >= the number of devices, {}, got {capacity}", values.len()),
            ));
        }
        write_output(ordinals, &values);
    }
    *n_out = values.len() as i32;
    Ok(())
}

/// Which devices `n_devices` (in [1, 64]) resolve to for this process under the one rule (module
/// docs), as a `_create_on_devices` call made now would take them: GPU ordinals, or -1 for each
/// CPU engine on the CPU backend. More GPUs than this process sees is `ATOMGPU_ERR_INVALID_ARGUMENT`.
///
/// - `n_devices`: the count.
/// - `capacity`: entries `ordinals` holds (>= n_devices unless `ordinals` is NULL).
/// - `n_resolved` (output): the number of devices (= n_devices).
/// - `ordinals` (output, may be NULL): the ordinals, the handle's own first.
///
/// # Safety
/// `ordinals` must be NULL or valid for `capacity` elements; `n_resolved` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_resolve_devices(
    n_devices: i32,
    capacity: i32,
    n_resolved: *mut i32,
    ordinals: *mut i32,
) -> i32 {
    guard(&["n_devices", "capacity", "n_resolved", "ordinals"], || {
        let set = devices_by_count("n_devices", n_devices)?;
        write_set(&set, capacity, ("n_resolved", n_resolved), ordinals)
    })
}

/// Which devices a handle of any family uses: its GPU ordinals (its own first; in x order for a
/// TDSE team), or -1 for each CPU engine. A CR model is not bound to a device: it reports the
/// backend in force now (one entry: that GPU, or -1), on which its next call runs.
///
/// - `handle`: a live handle of any family (`atomgpu_linestrength *`, `atomgpu_sturmian *`, ...).
/// - `capacity`: entries `ordinals` holds (>= the number of devices unless `ordinals` is NULL).
/// - `n_devices` (output): the number of devices.
/// - `ordinals` (output, may be NULL: a count query): the ordinals.
///
/// # Safety
/// `ordinals` must be NULL or valid for `capacity` elements; `n_devices` NULL or writable;
/// `handle` may be any value (it is looked up in the registry of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_handle_devices(
    handle: *const c_void,
    capacity: i32,
    n_devices: *mut i32,
    ordinals: *mut i32,
) -> i32 {
    guard(&["handle", "capacity", "n_devices", "ordinals"], || {
        let set = match handles::devices_of("handle", handle)? {
            Some(set) => set,
            None => DeviceSet::single(backend::current()?),
        };
        write_set(&set, capacity, ("n_devices", n_devices), ordinals)
    })
}

/// The number of GPUs this process sees (0 without a driver or device, and in a child forked
/// after CUDA was opened), whatever the backend in use: the `visible` of the device rule.
///
/// # Safety
/// `n_visible` must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn atomgpu_device_count(n_visible: *mut i32) -> i32 {
    guard(&["n_visible"], || {
        let out = output("n_visible", n_visible)?;
        *out = backend::cuda_device_count().min(i32::MAX as usize) as i32;
        Ok(())
    })
}
