//! One Hamiltonian over all the engines of a basis ([`Basis::new_on_devices`]), for host targets:
//! one thread per engine takes the next pair block (bra, ket) not yet taken, computes its H and S
//! blocks into its own work memory (device memory on a GPU: the same kernels and GEMM as one
//! engine) and lands them in their place in the caller's matrices (a strided copy; on a GPU from
//! its own PCIe link, so the landings of several GPUs run at once). The blocks are the same
//! numbers one engine writes; only who computes them changes. The calling thread reports
//! progress and honours cancellation ([`crate::progress`]); the first error stops every engine
//! at its next block.

use super::{Basis, Engine, HamiltonianSpec, Member, Order, Plan, Scalar, Work};
use crate::error::{Error, Result};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Duration;

/// Assembles `plan`'s H and S into `outputs` = [(h, ld_h), (s, ld_s)] (checked by the caller to
/// hold `plan.size()` square matrices).
pub(super) fn hamiltonian<T: Scalar>(
    basis: &Basis<T>,
    spec: &HamiltonianSpec,
    order: Order,
    plan: &Plan,
    outputs: [(&mut [T], usize); 2],
) -> Result<()> {
    let [(h, ld_h), (s, ld_s)] = outputs;
    let outputs = [HostMatrix::new(h, ld_h), HostMatrix::new(s, ld_s)];
    let blocks: Vec<(usize, usize)> = plan.blocks().collect();
    let largest = blocks.iter().map(|&(pp, p)| plan.extent(pp).1 * plan.extent(p).1).max().unwrap_or(0).max(1);
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let running = AtomicUsize::new(basis.n_devices());
    let stop = AtomicBool::new(false);
    let first_error = Mutex::new(None);
    let fail = |e: Error| {
        stop.store(true, Relaxed);
        first_error.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(e);
    };
    std::thread::scope(|scope| {
        for member in basis.members() {
            let (blocks, outputs, next, done, running, stop, fail) =
                (&blocks, &outputs, &next, &done, &running, &stop, &fail);
            scope.spawn(move || {
                let work = || -> Result<()> {
                    let mut h_work = member.work_matrix(largest)?;
                    let mut s_work = member.work_matrix(largest)?;
                    while !stop.load(Relaxed) {
                        let Some(&(pp, p)) = blocks.get(next.fetch_add(1, Relaxed)) else { break };
                        let ((r0, rows), (c0, cols)) = (plan.extent(pp), plan.extent(p));
                        if rows > 0 && cols > 0 {
                            member.pair_block(spec, order, plan, pp, p, h_work.target(rows), s_work.target(rows))?;
                            for (w, out) in [&h_work, &s_work].into_iter().zip(outputs) {
                                // SAFETY: block (pp, p) is this thread's alone (taken from `next`),
                                // and the blocks of a plan do not overlap.
                                unsafe { member.land(w, rows, cols, out, r0, c0)? };
                            }
                        }
                        done.fetch_add(1, Relaxed);
                    }
                    Ok(())
                };
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
                    .unwrap_or_else(|_| Err(Error::Internal("an engine's thread panicked".into())));
                if let Err(e) = outcome {
                    fail(e);
                }
                running.fetch_sub(1, Relaxed);
            });
        }
        let mut tracker = crate::progress::Tracker::start(c"atomgpu_sturmian_hamiltonian");
        let total = blocks.len() as f64;
        while running.load(Relaxed) > 0 {
            if let Err(e) = tracker.update(done.load(Relaxed) as f64, total) {
                fail(e);
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        if !stop.load(Relaxed) {
            if let Err(e) = tracker.finish(total) {
                fail(e);
            }
        }
    });
    match first_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some(e) => Err(e),
        None => Ok(()),
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

impl<T: Scalar> Member<'_, T> {
    /// A work matrix of `len` elements on this engine.
    fn work_matrix(&self, len: usize) -> Result<Work<T>> {
        self.work(len, 1)
    }

    /// Copies the `rows x cols` matrix in `work` (leading dimension `rows`) to block (r0, c0) of
    /// `out`, and waits.
    ///
    /// # Safety
    /// No other thread may read or write that block during the call.
    unsafe fn land(
        &self,
        work: &Work<T>,
        rows: usize,
        cols: usize,
        out: &HostMatrix<'_, T>,
        r0: usize,
        c0: usize,
    ) -> Result<()> {
        let dst = out.block(r0, c0, rows, cols);
        match (self.engine, work) {
            (_, Work::Host(values)) => {
                for (c, column) in values.chunks_exact(rows).take(cols).enumerate() {
                    // SAFETY: column c of the block lies inside `out` (checked by `block`) and is
                    // this thread's alone (the caller's contract).
                    unsafe { std::ptr::copy_nonoverlapping(column.as_ptr(), dst.add(c * out.ld), rows) };
                }
                Ok(())
            }
            // SAFETY: as above, for the whole block.
            (Engine::Cuda(engine), Work::Device { ptr, .. }) => unsafe {
                engine.land_ptr(*ptr, rows, cols, dst, out.ld)
            },
            (Engine::Cpu, Work::Device { .. }) => Err(Error::Internal("a device work block on the CPU".into())),
        }
    }
}
