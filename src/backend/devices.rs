//! Device sets: the engines (GPUs, or CPU engines) one handle spreads its work over.
//!
//! One rule for every family (line strengths, Sturmian Hamiltonians, TDSE teams), given either
//! as a count or as explicit GPU ordinals (as cuSOLVER-Mg takes them):
//!
//! - **explicit ordinals** `[d_0, ..., d_(n-1)]`: distinct, each in `[0, visible)`; the first is
//!   the handle's own GPU (the one its single-GPU calls run on);
//! - **a count n** (the shorthand): GPUs `(first + k) mod visible`, k = 0..n-1, with
//!   `first = ATOMGPU_DEVICE` when set, else `first = (r n) mod visible` where r is the node-local
//!   MPI rank (`OMPI_COMM_WORLD_LOCAL_RANK`, `SLURM_LOCALID`, `MPI_LOCALRANKID`; 0 without MPI).
//!   Ranks of one node therefore get disjoint sets whenever ranks x n <= visible (two ranks with
//!   n = 2 on four GPUs: {0, 1} and {2, 3}); n = 1 is the GPU of [`super::cuda_device`]. With
//!   more ranks x n than GPUs the sets wrap around and share GPUs (`ATOMGPU_LOG=1` says so).
//!
//! n is in [1, [`MAX_DEVICES`]] and at most the number of visible GPUs. On the CPU backend a set
//! of n (or of n explicit ordinals, which are then only checked for being distinct and >= 0) is
//! n CPU engines, each on its own thread: the same program runs on a CPU-only node.

use super::{cuda_device, cuda_device_at, cuda_device_count, log_enabled, Backend};
use crate::error::{Error, Result};

/// Most devices (GPUs or CPU engines) one handle spreads over.
pub const MAX_DEVICES: usize = 64;

/// The engines of one handle: GPUs by ordinal, or CPU engines; never empty.
#[derive(Clone)]
pub struct DeviceSet {
    members: Vec<Backend>,
}

/// How the caller names a device set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceRequest<'a> {
    /// n devices by the module's rule.
    Count(usize),
    /// These GPU ordinals, the first being the handle's own.
    Ordinals(&'a [usize]),
}

impl DeviceSet {
    /// One engine on `backend`.
    pub fn single(backend: Backend) -> Self {
        DeviceSet { members: vec![backend] }
    }

    /// The set of the given engines (Rust callers that opened their devices themselves): 1 to
    /// [`MAX_DEVICES`] of them, all CPU or all GPUs, no GPU twice; errors name `arg`.
    pub fn of(members: Vec<Backend>, arg: &'static str) -> Result<Self> {
        if !(1..=MAX_DEVICES).contains(&members.len()) {
            return Err(Error::invalid(arg, format!("must name 1 to {MAX_DEVICES} devices, got {}", members.len())));
        }
        let set = DeviceSet { members };
        let ordinals = set.ordinals();
        if ordinals.contains(&-1) && ordinals.iter().any(|&d| d >= 0) {
            return Err(Error::invalid(arg, "mixes CPU engines and GPUs"));
        }
        if let Some((k, d)) = ordinals.iter().enumerate().find(|(k, d)| **d >= 0 && ordinals[..*k].contains(d)) {
            return Err(Error::invalid_at(arg, k, format!("lists GPU {d} twice (the devices must be distinct)")));
        }
        Ok(set)
    }

    /// `n` devices by the module's rule on `backend`'s kind ([`DeviceSet::resolve`] with a count).
    pub fn count(backend: Backend, n: usize) -> Result<Self> {
        Self::resolve(backend, DeviceRequest::Count(n), "devices")
    }

    /// The set `request` names on `backend`'s kind (the module's rule), refusing a bad count or
    /// list with an error naming `arg`.
    pub fn resolve(backend: Backend, request: DeviceRequest<'_>, arg: &'static str) -> Result<Self> {
        let n = match request {
            DeviceRequest::Count(n) => n,
            DeviceRequest::Ordinals(ids) => ids.len(),
        };
        if !(1..=MAX_DEVICES).contains(&n) {
            return Err(Error::invalid(arg, format!("must name 1 to {MAX_DEVICES} devices, got {n}")));
        }
        if let DeviceRequest::Ordinals(ids) = request {
            if let Some((k, d)) = ids.iter().enumerate().find(|(k, d)| ids[..*k].contains(d)) {
                return Err(Error::invalid_at(arg, k, format!("lists GPU {d} twice (the devices must be distinct)")));
            }
        }
        match backend {
            Backend::Cpu => Ok(DeviceSet { members: vec![Backend::Cpu; n] }),
            Backend::Cuda(_) => {
                let ordinals = match request {
                    DeviceRequest::Count(n) => rule_ordinals(n, cuda_device_count(), arg)?,
                    DeviceRequest::Ordinals(ids) => {
                        let visible = cuda_device_count();
                        if let Some((k, d)) = ids.iter().enumerate().find(|(_, &d)| d >= visible) {
                            return Err(Error::invalid_at(
                                arg,
                                k,
                                format!(
                                    "names GPU {d} but this process sees {visible} (ordinals 0 to {})",
                                    visible.max(1) - 1
                                ),
                            ));
                        }
                        ids.to_vec()
                    }
                };
                let members =
                    ordinals.into_iter().map(|d| cuda_device_at(d).map(Backend::Cuda)).collect::<Result<_>>()?;
                Ok(DeviceSet { members })
            }
        }
    }

    /// The engines, the handle's own first.
    pub fn members(&self) -> &[Backend] {
        &self.members
    }

    /// The handle's own engine (the first).
    pub fn first(&self) -> &Backend {
        &self.members[0]
    }

    /// Number of engines (>= 1).
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Always false: a set has at least one engine.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Each engine's GPU ordinal, -1 for a CPU engine.
    pub fn ordinals(&self) -> Vec<i32> {
        self.members
            .iter()
            .map(|b| match b {
                Backend::Cpu => -1,
                Backend::Cuda(d) => d.ordinal() as i32,
            })
            .collect()
    }
}

/// The node-local rank from the MPI launcher's or Slurm's environment (None without one).
pub(super) fn node_local_rank() -> Option<usize> {
    ["OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID"]
        .iter()
        .find_map(|var| std::env::var(var).ok()?.trim().parse::<usize>().ok())
}

/// `ATOMGPU_DEVICE` when set: Ok(None) when unset, an error when not a number.
pub(super) fn device_variable() -> std::result::Result<Option<usize>, String> {
    match std::env::var("ATOMGPU_DEVICE") {
        Ok(v) => v.trim().parse().map(Some).map_err(|_| format!("ATOMGPU_DEVICE must be a device number, got `{v}`")),
        Err(_) => Ok(None),
    }
}

/// The first GPU of a set of `n` out of `visible`: `ATOMGPU_DEVICE`, else (rank n) mod visible.
pub(super) fn first_ordinal(n: usize, visible: usize) -> std::result::Result<usize, String> {
    let fixed = device_variable()?;
    if let Some(d) = fixed.filter(|&d| d >= visible) {
        return Err(format!("ATOMGPU_DEVICE={d} but only {visible} CUDA device(s) are visible"));
    }
    Ok(rule(n, visible, node_local_rank(), fixed)[0])
}

/// The module's rule: `n` GPUs out of `visible` (n <= visible) for node-local rank `rank`, or from
/// `fixed` (`ATOMGPU_DEVICE`) on: `(first + k) mod visible`, first = fixed or (rank n) mod visible.
pub fn rule(n: usize, visible: usize, rank: Option<usize>, fixed: Option<usize>) -> Vec<usize> {
    let visible = visible.max(1);
    let first = fixed.unwrap_or_else(|| rank.unwrap_or(0).wrapping_mul(n) % visible);
    (0..n).map(|k| (first + k) % visible).collect()
}

/// The ordinals of `n` GPUs by the module's rule, out of `visible`.
fn rule_ordinals(n: usize, visible: usize, arg: &'static str) -> Result<Vec<usize>> {
    if n > visible {
        return Err(Error::invalid(arg, format!("asks for {n} GPUs but this process sees {visible}")));
    }
    // The one-GPU set is the process's default device (opened first, so that its ordinal never
    // gets a second context).
    if n == 1 {
        return Ok(vec![cuda_device()?.ordinal()]);
    }
    let first = first_ordinal(n, visible).map_err(Error::NoDevice)?;
    if log_enabled() {
        if let Some(r) = node_local_rank().filter(|r| (r + 1) * n > visible) {
            if device_variable().ok().flatten().is_none() {
                eprintln!("atomgpu: node-local rank {r} with {n} GPUs each: this node has {visible}, ranks share GPUs");
            }
        }
    }
    Ok(rule(n, visible, None, Some(first)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_sets_have_the_asked_size_and_refuse_bad_requests() {
        let set = DeviceSet::resolve(Backend::Cpu, DeviceRequest::Count(3), "n").unwrap();
        assert_eq!(set.ordinals(), vec![-1, -1, -1]);
        let set = DeviceSet::resolve(Backend::Cpu, DeviceRequest::Ordinals(&[2, 0]), "ids").unwrap();
        assert_eq!(set.len(), 2);
        for bad in [0, MAX_DEVICES + 1] {
            let e = DeviceSet::resolve(Backend::Cpu, DeviceRequest::Count(bad), "n").err().unwrap();
            assert!(e.to_string().contains("`n`") && e.to_string().contains("1 to 64"), "{e}");
        }
        let e = DeviceSet::resolve(Backend::Cpu, DeviceRequest::Ordinals(&[1, 3, 1]), "ids").err().unwrap();
        assert!(e.to_string().contains("GPU 1 twice"), "{e}");
        assert!(DeviceSet::resolve(Backend::Cpu, DeviceRequest::Ordinals(&[]), "ids").is_err());
        assert_eq!(DeviceSet::of(vec![Backend::Cpu; 2], "m").unwrap().len(), 2);
        assert!(DeviceSet::of(Vec::new(), "m").is_err());
    }

    /// The layouts a cluster uses, against the sets written out by hand from the rule.
    #[test]
    fn ranks_of_a_node_get_disjoint_sets() {
        // Two ranks, two GPUs each, four GPUs: {0, 1} and {2, 3}.
        assert_eq!(rule(2, 4, Some(0), None), vec![0, 1]);
        assert_eq!(rule(2, 4, Some(1), None), vec![2, 3]);
        // Four ranks, one GPU each (the old one-GPU rule, rank mod visible).
        for r in 0..8 {
            assert_eq!(rule(1, 4, Some(r), None), vec![r % 4]);
        }
        // Two ranks, four GPUs each, eight GPUs.
        assert_eq!(rule(4, 8, Some(1), None), vec![4, 5, 6, 7]);
        // More ranks x n than GPUs: the sets wrap around.
        assert_eq!(rule(2, 4, Some(2), None), vec![0, 1]);
        assert_eq!(rule(3, 4, Some(1), None), vec![3, 0, 1]);
        // No MPI: from GPU 0; ATOMGPU_DEVICE: from that GPU, for every rank.
        assert_eq!(rule(3, 4, None, None), vec![0, 1, 2]);
        assert_eq!(rule(2, 4, Some(1), Some(3)), vec![3, 0]);
        for ranks in 1..=4usize {
            let n = 4 / ranks;
            let mut used: Vec<usize> = (0..ranks).flat_map(|r| rule(n, 4, Some(r), None)).collect();
            used.sort_unstable();
            used.dedup();
            assert_eq!(used.len(), ranks * n, "{ranks} ranks with {n} GPUs each share a GPU");
        }
    }
}
