//! One Hamiltonian over all the engines of a basis ([`Sturmian::new_on_devices`]), for host targets:
//! one thread per engine takes the next pair block (bra, ket) not yet taken, computes its H and S
//! blocks into its own work memory (device memory on a GPU: the same kernels and GEMM as one
//! engine) and lands them in their place in the caller's matrices (a strided copy; on a GPU from
//! its own PCIe link, so the landings of several GPUs run at once). A GPU has two such work
//! slots and lands from one on a second stream while it computes the next block into the other,
//! so that its copy engine and its SMs both stay busy. The blocks are the same numbers one engine
//! writes; only who computes them changes. The calling thread reports progress and honours
//! cancellation ([`crate::progress`]); the first error stops every engine at its next block, and
//! no landing is still running when the call returns ([`backend::fan_out_watched`]).

use super::{Engine, HamiltonianSpec, Member, Order, Plan, Scalar, Sturmian, Work};
use crate::backend::{self, FanOut};
use crate::error::{Error, Result};
use cudarc::driver::{CudaEvent, CudaStream};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

/// Whether `plan` goes this way on `basis`: on GPUs, when each has room for its four work blocks
/// (two slots of H and S, the largest pair block each) in half its free memory, leaving the rest
/// to the block's operands and GEMM tiles; on the CPU, when there are several engines (one engine
/// writes straight into the targets).
pub(super) fn suits<T: Scalar>(basis: &Sturmian<T>, plan: &Plan) -> Result<bool> {
    let need = 4 * plan.largest_block() as u128 * std::mem::size_of::<T>() as u128;
    let mut on_gpus = false;
    for member in basis.members() {
        if let Engine::Cuda(engine) = member.engine {
            if 2 * need > engine.memory()?.0 as u128 {
                return Ok(false);
            }
            on_gpus = true;
        }
    }
    Ok(on_gpus || basis.n_devices() > 1)
}

/// Assembles `plan`'s H and S into `outputs` = [(h, ld_h), (s, ld_s)] (checked by the caller to
/// hold `plan.size()` square matrices).
pub(super) fn hamiltonian<T: Scalar>(
    basis: &Sturmian<T>,
    spec: &HamiltonianSpec,
    order: Order,
    plan: &Plan,
    outputs: [(&mut [T], usize); 2],
) -> Result<()> {
    let [(h, ld_h), (s, ld_s)] = outputs;
    let outputs = [HostMatrix::new(h, ld_h), HostMatrix::new(s, ld_s)];
    let blocks: Vec<(usize, usize)> = plan.blocks().collect();
    let largest = plan.largest_block().max(1);
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let members: Vec<Member<'_, T>> = basis.members().collect();
    let engine_work = |_k: usize, member: Member<'_, T>, fan: &FanOut<'_>| -> Result<()> {
        // Made first, and drained on every way out (a panic included: `Drained`), so that no
        // landing into the caller's matrices outlives the call.
        let copier = member.copy_stream()?;
        let drained = Drained(copier.as_deref());
        let mut slots = [Slot::new(&member, largest)?, Slot::new(&member, largest)?];
        for turn in 0.. {
            if fan.stopped() {
                return Err(backend::stopped_by_another());
            }
            let Some(&(pp, p)) = blocks.get(next.fetch_add(1, Relaxed)) else { break };
            let ((r0, rows), (c0, cols)) = (plan.extent(pp), plan.extent(p));
            if rows > 0 && cols > 0 {
                let slot = &mut slots[turn % 2];
                slot.wait()?;
                member.pair_block(spec, order, plan, pp, p, slot.h.target(rows), slot.s.target(rows))?;
                for (w, out) in [&slot.h, &slot.s].into_iter().zip(&outputs) {
                    // SAFETY: block (pp, p) is this thread's alone (taken from `next`), the blocks
                    // of a plan do not overlap, and the slot is not written again before this
                    // landing has completed (`wait`).
                    unsafe { member.land(w, rows, cols, out, r0, c0, copier.as_deref())? };
                }
                slot.landed = copier.as_ref().map(|c| c.record_event(None)).transpose()?;
            }
            done.fetch_add(1, Relaxed);
            fan.notify();
        }
        slots.iter_mut().try_for_each(Slot::wait)?;
        drained.finish()
    };
    let watch = |fan: &FanOut<'_>| {
        let mut tracker = crate::progress::Tracker::start(c"atomgpu_sturmian_hamiltonian");
        let total = blocks.len() as f64;
        while fan.wait(Duration::from_millis(5)) {
            if let Err(e) = tracker.update(done.load(Relaxed) as f64, total) {
                fan.fail(e);
            }
        }
        if !fan.stopped() {
            if let Err(e) = tracker.finish(total) {
                fan.fail(e);
            }
        }
    };
    backend::fan_out_watched(&stop, members, engine_work, watch).map(drop)
}

/// A GPU engine's copy stream, synchronised when dropped (on every way out of an engine's work,
/// a panic included) so that no landing outlives the call; [`Drained::finish`] synchronises and
/// reports the error on the normal way out.
struct Drained<'a>(Option<&'a CudaStream>);

impl Drained<'_> {
    fn finish(self) -> Result<()> {
        let result = self.0.map_or(Ok(()), |c| c.synchronize().map_err(Error::from));
        std::mem::forget(self);
        result
    }
}

impl Drop for Drained<'_> {
    fn drop(&mut self) {
        if let Some(c) = self.0 {
            // An error here has a first error already on its way (or a panic): nothing to add.
            let _ = c.synchronize();
        }
    }
}

/// A caller's column-major host matrix that several threads write, each into blocks of its own.
struct HostMatrix<'a, T> {
    ptr: *mut T,
    len: usize,
    ld: usize,
    _data: PhantomData<&'a mut [T]>,
}

// SAFETY: the matrix is only written through `block`, whose callers write disjoint blocks.
unsafe impl<T: Send> Sync for HostMatrix<'_, T> {}

impl<'a, T> HostMatrix<'a, T> {
    fn new(data: &'a mut [T], ld: usize) -> Self {
        HostMatrix { ptr: data.as_mut_ptr(), len: data.len(), ld, _data: PhantomData }
    }

    /// The first element of the `rows x cols` block at (r0, c0), which must lie inside.
    fn block(&self, r0: usize, c0: usize, rows: usize, cols: usize) -> *mut T {
        assert!(
            rows > 0 && cols > 0 && r0 + rows <= self.ld && (c0 + cols - 1) * self.ld + r0 + rows <= self.len,
            "a block lies inside the checked target"
        );
        // SAFETY: inside the slice (asserted above).
        unsafe { self.ptr.add(r0 + c0 * self.ld) }
    }
}

/// A GPU's (or CPU engine's) work matrices for one block's H and S, and the event that marks
/// the end of their last landing.
struct Slot<T> {
    h: Work<T>,
    s: Work<T>,
    landed: Option<CudaEvent>,
}

impl<T: Scalar> Slot<T> {
    fn new(member: &Member<'_, T>, len: usize) -> Result<Self> {
        Ok(Slot { h: member.work(len, 1)?, s: member.work(len, 1)?, landed: None })
    }

    /// Waits until the slot's last landing has completed.
    fn wait(&mut self) -> Result<()> {
        match self.landed.take() {
            Some(event) => Ok(event.synchronize()?),
            None => Ok(()),
        }
    }
}

impl<T: Scalar> Member<'_, T> {
    /// A second stream on a GPU engine (None on the CPU).
    fn copy_stream(&self) -> Result<Option<Arc<CudaStream>>> {
        match self.engine {
            Engine::Cuda(engine) => engine.copy_stream().map(Some),
            Engine::Cpu => Ok(None),
        }
    }

    /// Copies the `rows x cols` matrix in `work` (leading dimension `rows`) to block (r0, c0) of
    /// `out`: on a GPU enqueued on `stream` (not waited for), else done before returning.
    ///
    /// # Safety
    /// No other thread may read or write that block, and `work` must not be written, until the
    /// copy has completed.
    #[allow(clippy::too_many_arguments)]
    unsafe fn land(
        &self,
        work: &Work<T>,
        rows: usize,
        cols: usize,
        out: &HostMatrix<'_, T>,
        r0: usize,
        c0: usize,
        stream: Option<&CudaStream>,
    ) -> Result<()> {
        let dst = out.block(r0, c0, rows, cols);
        match (self.engine, work, stream) {
            (_, Work::Host(values), _) => {
                for (c, column) in values.chunks_exact(rows).take(cols).enumerate() {
                    // SAFETY: column c of the block lies inside `out` (checked by `block`) and is
                    // this thread's alone (the caller's contract).
                    unsafe { std::ptr::copy_nonoverlapping(column.as_ptr(), dst.add(c * out.ld), rows) };
                }
                Ok(())
            }
            // SAFETY: as above, for the whole block (the caller's contract covers the wait).
            (Engine::Cuda(engine), Work::Device { ptr, .. }, Some(stream)) => unsafe {
                engine.land_async(stream, *ptr, rows, cols, dst, out.ld)
            },
            _ => Err(Error::Internal("a work block on the wrong backend".into())),
        }
    }
}
