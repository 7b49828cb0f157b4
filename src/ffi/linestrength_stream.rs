//! C ABI of the streamed line lists ([`crate::linestrength::stream`]): lower levels handed over
//! by the caller batch by batch (the upper states stored in the handle), their lines given to a
//! callback or kept in the handle's pending buffer.
//! Conventions as in the rest of the line-strength family (src/ffi/linestrength.rs).

use super::common::{count, guard, input, matrix, output, Columns, Extent};
use super::linestrength::{
    atomgpu_intensity_params, atomgpu_line_filters, atomgpu_linestrength, run_list_call, with_handle,
};
use crate::error::{Error, Result};
use crate::linestrength::{Line, LineCounts, LineStrength, LowerBatch};
use crate::memory;
use std::ffi::c_void;

/// One line of a streamed list (`atomgpu_linestrength_lines_of_lower_batch`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct atomgpu_line {
    /// ID of the upper state (ExoMol running ID, 1-based).
    pub upper_id: i64,
    /// The caller's ID of the lower level (its entry of `ids`).
    pub lower_id: i64,
    /// Block of the upper state (0-based).
    pub upper_block: i32,
    /// Block of the lower level (0-based).
    pub lower_block: i32,
    /// Index of the upper state in its block (0-based).
    pub upper_state: i64,
    /// Position of the lower level in the batch it came in (0-based).
    pub lower_level: i64,
    /// Wavenumber nu = E' - E'' in cm^-1.
    pub wavenumber: f64,
    /// Line strength S in Debye^2.
    pub linestrength: f64,
    /// Einstein A in s^-1.
    pub einstein_a: f64,
    /// Absorption intensity in cm/molecule.
    pub intensity: f64,
}

impl From<&Line> for atomgpu_line {
    fn from(l: &Line) -> Self {
        atomgpu_line {
            upper_id: l.upper_id,
            lower_id: l.lower_id,
            upper_block: l.upper_block as i32,
            lower_block: l.lower_block as i32,
            upper_state: l.upper_state as i64,
            lower_level: l.lower_state as i64,
            wavenumber: l.wavenumber,
            linestrength: l.linestrength,
            einstein_a: l.einstein_a,
            intensity: l.intensity,
        }
    }
}

/// The receiver of a streamed list's lines: `stop = sink(user_data, lines, n_lines)` with the
/// lines of one lower level (`n_lines` >= 1 entries, valid only during the call); nonzero stops
/// the list.
#[allow(non_camel_case_types)]
pub type atomgpu_line_sink =
    Option<unsafe extern "C" fn(user_data: *mut c_void, lines: *const atomgpu_line, n_lines: i64) -> i32>;

/// The C arguments that describe a lower batch.
struct BatchArguments {
    n: i64,
    block: *const i32,
    vectors: *const f64,
    ld_vectors: i64,
    energies: *const f64,
    ids: *const i64,
    order: *const i64,
}

/// Runs `body` on the handle with the batch, params and filters of the C arguments, checked
/// (errors naming the C arguments; [`run_list_call`]); `counts` (may be NULL) gets the counts when
/// `body` succeeds.
unsafe fn with_batch(
    handle: *mut atomgpu_linestrength,
    b: BatchArguments,
    params: *const atomgpu_intensity_params,
    filters: *const atomgpu_line_filters,
    counts: *mut i64,
    body: impl FnOnce(
        &mut LineStrength,
        &LowerBatch<'_>,
        &crate::linestrength::IntensityParams,
        &crate::linestrength::LineFilters,
    ) -> Result<LineCounts>,
) -> Result<()> {
    let n = count("n", b.n)?;
    let block = input("block", b.block, n)?;
    let energies = input("energies", b.energies, n)?;
    let ids = input("ids", b.ids, n)?;
    let order = input("order", b.order, n)?;
    run_list_call(handle, params, filters, counts, |h, p, f| {
        let mut blocks = memory::with_capacity("block", n)?;
        let mut rows = 0;
        for (i, &x) in block.iter().enumerate() {
            let b = usize::try_from(x).ok().filter(|&b| b < h.n_blocks()).ok_or_else(|| {
                Error::invalid_at("block", i, format!("must be a block index in [0, {}), got {x}", h.n_blocks()))
            })?;
            rows = rows.max(h.n_coefficients(b)?);
            blocks.push(b);
        }
        let need =
            Extent { rows, rows_are: "the largest coefficient count of the batch's blocks", cols: n, cols_are: "n" };
        let m = matrix("ld_vectors", b.ld_vectors, Columns::Counted("n"), need)?;
        let vectors = input("vectors", b.vectors, m.len)?;
        let batch = LowerBatch { blocks: &blocks, vectors, ld: m.ld, energies, ids, order };
        body(h, &batch, p, f)
    })
}

/// The lines of one batch of lower levels supplied by the caller (read from its own eigenvector
/// files: no block's lower vectors need to be held whole), into every block with stored states
/// (`atomgpu_linestrength_set_states`) that J' = J'' or J'' +- 1 reaches (J' + J'' >= 1) and
/// `filters` allow, judged by `params` and `filters` as `atomgpu_linestrength_line_list_filtered`
/// judges, with the values of the stored list for the same vectors. The batch's levels are
/// grouped by block and computed in internal batches of at most `params.batch` levels. No count
/// pass is needed: `sink` gets the lines as they are, in (lower order, upper order) order within
/// the call, the lines of one lower level per call of `sink` (the upper order: the upper state's
/// order key, `atomgpu_linestrength_set_state_labels`, or its running ID without labels). README,
/// "Streamed line lists", gives the handle's memory.
///
/// - `handle`: the handle.
/// - `n` (>= 1): levels in the batch.
/// - `block[n]`: block of each level (0-based), any registered block (stored states not needed).
/// - `vectors`: level i's vector (symmetrised coefficients when its block has an unfolding,
///   primitive ones otherwise) at `vectors[i * ld_vectors ..]`, finite: a matrix of `n` columns.
/// - `ld_vectors` (>= the largest coefficient count of the batch's blocks): its leading dimension.
/// - `energies[n]`: energies E'' in cm^-1 (absolute), finite, |E| <= 1e8.
/// - `ids[n]`: the caller's ID of each level, given back as the lines' `lower_id`.
/// - `order[n]`: order keys of the levels: lines come by lower order key, then upper order.
/// - `params`, `filters` (NULL: no rule): as for `atomgpu_linestrength_line_list_filtered`.
/// - `sink`: receives the lines (not NULL); a nonzero return stops the call with
///   `ATOMGPU_ERR_CANCELLED` and nothing more is delivered (the lines delivered are a prefix of
///   the call's list).
/// - `user_data`: passed to `sink` as it is.
/// - `counts` (output, 5 entries, may be NULL): as `atomgpu_linestrength_line_list_filtered`'s,
///   over the batch; written when the call succeeds.
///
/// Progress: levels done of the batch's `n`, task "atomgpu_linestrength_lines_of_lower_batch";
/// the progress callback or time limit stops it with `ATOMGPU_ERR_CANCELLED` (then `sink` may have
/// received a prefix of the lines). A refused argument delivers nothing.
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; `handle`
/// may be any value (it is looked up in the registry of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_lines_of_lower_batch(
    handle: *mut atomgpu_linestrength,
    n: i64,
    block: *const i32,
    vectors: *const f64,
    ld_vectors: i64,
    energies: *const f64,
    ids: *const i64,
    order: *const i64,
    params: *const atomgpu_intensity_params,
    filters: *const atomgpu_line_filters,
    sink: atomgpu_line_sink,
    user_data: *mut c_void,
    counts: *mut i64,
) -> i32 {
    guard(
        &[
            "handle",
            "n",
            "block",
            "vectors",
            "ld_vectors",
            "energies",
            "ids",
            "order",
            "params",
            "filters",
            "sink",
            "user_data",
            "counts",
        ],
        || {
            let sink = sink.ok_or_else(|| Error::invalid("sink", "must not be NULL"))?;
            let arguments = BatchArguments { n, block, vectors, ld_vectors, energies, ids, order };
            with_batch(handle, arguments, params, filters, counts, |h, batch, p, f| {
                let mut delivered = 0u64;
                let mut converted = Vec::new();
                h.lines_of_lower_batch(batch, p, f, &mut |level| {
                    converted.clear();
                    memory::reserve("the lines of a lower level", &mut converted, level.len())?;
                    converted.extend(level.iter().map(atomgpu_line::from));
                    if sink(user_data, converted.as_ptr(), converted.len() as i64) != 0 {
                        return Err(Error::Cancelled(format!("the sink stopped the list after {delivered} lines")));
                    }
                    delivered += level.len() as u64;
                    Ok(())
                })
            })
        },
    )
}

/// As `atomgpu_linestrength_lines_of_lower_batch`, with the lines appended to the handle's
/// pending buffer instead of a callback (for callers without callbacks, e.g. Fortran): read them
/// with `atomgpu_linestrength_take_lines`, which removes what it returns; the buffer grows by 80
/// bytes a line until then. A failed call (argument, cancellation, memory) appends nothing.
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented at
/// `atomgpu_linestrength_lines_of_lower_batch`; `handle` may be any value (it is looked up in
/// the registry of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_lines_of_lower_batch_buffered(
    handle: *mut atomgpu_linestrength,
    n: i64,
    block: *const i32,
    vectors: *const f64,
    ld_vectors: i64,
    energies: *const f64,
    ids: *const i64,
    order: *const i64,
    params: *const atomgpu_intensity_params,
    filters: *const atomgpu_line_filters,
    counts: *mut i64,
) -> i32 {
    guard(
        &["handle", "n", "block", "vectors", "ld_vectors", "energies", "ids", "order", "params", "filters", "counts"],
        || {
            let arguments = BatchArguments { n, block, vectors, ld_vectors, energies, ids, order };
            with_batch(handle, arguments, params, filters, counts, |h, batch, p, f| {
                h.lines_of_lower_batch_buffered(batch, p, f)
            })
        },
    )
}

/// Number of lines in the handle's pending buffer
/// (`atomgpu_linestrength_lines_of_lower_batch_buffered`).
///
/// - `handle`: the handle.
/// - `n_lines` (output): the number.
///
/// # Safety
/// `n_lines` must be NULL or writable; `handle` may be any value (it is looked up in the registry
/// of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_lines_pending(
    handle: *mut atomgpu_linestrength,
    n_lines: *mut i64,
) -> i32 {
    guard(&["handle", "n_lines"], || {
        let out = output("n_lines", n_lines)?;
        with_handle(handle, |h| {
            *out = h.lines_pending() as i64;
            Ok(())
        })
    })
}

/// Takes the first min(`capacity`, pending) lines out of the handle's pending buffer, in the order
/// they were appended, into `lines`.
///
/// - `handle`: the handle.
/// - `lines` (output, `capacity` entries): the lines.
/// - `capacity` (>= 1): entries `lines` holds.
/// - `taken` (output): lines written (0 when none is pending).
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; `handle`
/// may be any value (it is looked up in the registry of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_take_lines(
    handle: *mut atomgpu_linestrength,
    lines: *mut atomgpu_line,
    capacity: i64,
    taken: *mut i64,
) -> i32 {
    guard(&["handle", "lines", "capacity", "taken"], || {
        let out = output("lines", lines)?;
        let capacity = count("capacity", capacity)?;
        let n_out = output("taken", taken)?;
        with_handle(handle, |h| {
            let got = h.take_lines(capacity);
            for (e, l) in got.iter().enumerate() {
                *out.add(e) = atomgpu_line::from(l);
            }
            *n_out = got.len() as i64;
            Ok(())
        })
    })
}
