//! C ABI of blocks whose index arrays are numbered the caller's way: from `index_base` (0 as in
//! C, 1 as in Fortran and TROVE) and of the caller's integer width (32-bit default integers or
//! 64-bit). The arrays are checked in the caller's numbering, so that every message names the
//! element and the value as the caller wrote them ("element 4 is 0, vibrational functions are
//! numbered 1..37"), then read once into the library's own 0-based 64-bit copy of the block (as
//! the 0-based entry points of src/ffi/linestrength.rs do); nothing is kept pointing at them.
//! The Fortran wrappers pass their arrays through these, with index_base 1, and check only what
//! C cannot see (the sizes of assumed-shape arrays).

use super::common::{count, guard, input, MAX_ELEMENTS};
use super::linestrength::{add_block, atomgpu_linestrength, with_handle, Route, Species};
use crate::error::{Error, Result};
use crate::memory;

/// The C parameter names of the numbered `add_block_species` forms, in order.
const SPECIES_ARGUMENTS: &[&str] = &[
    "handle",
    "j",
    "gamma",
    "gns",
    "n_primitive",
    "v",
    "k",
    "tau",
    "ndeg",
    "n_sym",
    "row_start",
    "col",
    "value",
    "index_base",
    "block",
];

/// The caller's numbering: indices count from `base` (0 or 1).
#[derive(Clone, Copy)]
struct Numbering {
    base: i64,
}

impl Numbering {
    /// `index_base`, checked.
    fn checked(index_base: i32) -> Result<Self> {
        match index_base {
            0 | 1 => Ok(Numbering { base: i64::from(index_base) }),
            _ => Err(Error::invalid("index_base", format!("must be 0 or 1, got {index_base}"))),
        }
    }

    /// `values`, each in [base, base + size) (from base when `size` is None, the library
    /// checking the upper end), as 0-based values; `what` names the indexed objects in the
    /// message.
    fn zero_based<I: Copy + Into<i64>>(
        self,
        name: &'static str,
        values: &[I],
        size: Option<i64>,
        what: &str,
    ) -> Result<Vec<i64>> {
        let base = self.base;
        let end = size.map_or(i64::MAX, |size| size + base);
        if let Some((e, x)) = values.iter().map(|&x| x.into()).enumerate().find(|&(_, x)| x < base || x >= end) {
            let range = match size {
                Some(size) if size > 0 => format!("{base}..{}", size - 1 + base),
                Some(_) => "none".to_string(),
                None => format!("from {base}"),
            };
            return Err(Error::invalid(
                name,
                format!("element {} is {x}, {what} are numbered {range} (index_base {base})", e as i64 + base),
            ));
        }
        memory::collect(name, values.iter().map(|&x| x.into() - base))
    }

    /// The CSR offsets `row_start` (`rows` + 1 of them) in the caller's numbering, as 0-based
    /// offsets: the first is `base`, none decreases.
    fn offsets<I: Copy + Into<i64>>(self, starts: &[I]) -> Result<Vec<i64>> {
        let base = self.base;
        let first: i64 = starts[0].into();
        if first != base {
            return Err(Error::invalid(
                "row_start",
                format!("element {base} is {first}, must be {base} (offsets are numbered from index_base {base})"),
            ));
        }
        if let Some(e) = starts.windows(2).position(|w| w[1].into() < w[0].into()) {
            return Err(Error::invalid(
                "row_start",
                format!(
                    "element {} is {}, below element {} (must not decrease)",
                    e as i64 + 1 + base,
                    starts[e + 1].into(),
                    e as i64 + base
                ),
            ));
        }
        memory::collect("row_start", starts.iter().map(|&x| x.into() - base))
    }
}

/// The body of the numbered entry points: the species and the numbering checked, the arrays
/// checked in the caller's numbering, read into 0-based copies and registered by [`add_block`].
/// For the rotsym route `first`, `second` (level, deg) are indices too and are shifted; for Wang
/// blocks (K, tau) are values.
#[allow(clippy::too_many_arguments)]
unsafe fn add_numbered_block<I: Copy + Into<i64>>(
    handle: *mut atomgpu_linestrength,
    j: i32,
    gamma: i32,
    gns: f64,
    n_primitive: i64,
    v: *const I,
    route: Route,
    first: *const i32,
    second: *const i32,
    ndeg: i32,
    n_sym: i64,
    row_start: *const I,
    col: *const I,
    value: *const f64,
    index_base: i32,
    block: *mut i32,
) -> Result<()> {
    let species = Species::checked(gamma, ndeg, n_sym)?;
    let numbering = Numbering::checked(index_base)?;
    let n = count("n_primitive", n_primitive)?;
    if n >= MAX_ELEMENTS {
        return Err(Error::invalid("n_primitive", format!("is too large ({n_primitive})")));
    }
    let n_vib = with_handle(handle, |h| Ok(h.n_vib()))? as i64;
    let v0 = numbering.zero_based("v", input("v", v, n)?, Some(n_vib), "vibrational functions (rows of the dipole)")?;
    let labels = match route {
        Route::Wang => None,
        Route::Rotsym => {
            // Values of i32 minus a base of 0 or 1 stay in i32 range.
            let shift = |name, x: *const i32, what| -> Result<Vec<i32>> {
                let zero_based = numbering.zero_based(name, input(name, x, n)?, None, what)?;
                Ok(zero_based.into_iter().map(|x| x as i32).collect())
            };
            Some((
                shift("level", first, "levels of J's rotational basis")?,
                shift("deg", second, "components of a level")?,
            ))
        }
    };
    let (first, second) = labels.as_ref().map_or((first, second), |(level, deg)| (level.as_ptr(), deg.as_ptr()));
    let (starts, cols) = if n_sym > 0 {
        let rows = species.ndeg() * n;
        let starts = numbering.offsets(input("row_start", row_start, rows + 1)?)?;
        let nnz = usize::try_from(starts[rows])
            .ok()
            .filter(|&x| x <= MAX_ELEMENTS)
            .ok_or_else(|| Error::invalid("row_start", format!("the last offset is too large ({})", starts[rows])))?;
        (starts, numbering.zero_based("col", input("col", col, nnz)?, Some(n_sym), "symmetrised functions (columns)")?)
    } else {
        (Vec::new(), Vec::new())
    };
    let (rs, cl) = if n_sym > 0 { (starts.as_ptr(), cols.as_ptr()) } else { (std::ptr::null(), std::ptr::null()) };
    add_block(handle, j, species, gns, n_primitive, v0.as_ptr(), route, first, second, n_sym, rs, cl, value, block)
}

/// `atomgpu_linestrength_add_block_species` with 32-bit index arrays (`v`, `row_start`, `col`)
/// numbered from `index_base` (0 as in C, or 1 as in Fortran and TROVE): a Fortran program passes
/// its default-integer arrays as they are. `atomgpu_linestrength_add_block` is this call with
/// `gamma` = 0 and `ndeg` = 1. The arguments are those of `add_block_species`, and
///
/// - `v[n_primitive]`: vibrational index of each function, in [index_base, n_vib + index_base);
/// - `row_start[ndeg n_primitive + 1]`: CSR offsets from `index_base` (the first is `index_base`,
///   none decreases);
/// - `col[row_start[ndeg n_primitive] - index_base]`: columns in [index_base, n_sym + index_base);
/// - `index_base`: 0 or 1.
///
/// A refused index is named in the caller's numbering (its element and value counted from
/// `index_base`). The library reads the arrays once into its own 64-bit copy of the block (as for
/// the 64-bit entry point); nothing is kept pointing at them.
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented above; `handle`
/// may be any value (it is looked up in the registry of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_add_block_species_i32(
    handle: *mut atomgpu_linestrength,
    j: i32,
    gamma: i32,
    gns: f64,
    n_primitive: i64,
    v: *const i32,
    k: *const i32,
    tau: *const i32,
    ndeg: i32,
    n_sym: i64,
    row_start: *const i32,
    col: *const i32,
    value: *const f64,
    index_base: i32,
    block: *mut i32,
) -> i32 {
    guard(SPECIES_ARGUMENTS, || {
        add_numbered_block(
            handle,
            j,
            gamma,
            gns,
            n_primitive,
            v,
            Route::Wang,
            k,
            tau,
            ndeg,
            n_sym,
            row_start,
            col,
            value,
            index_base,
            block,
        )
    })
}

/// `atomgpu_linestrength_add_block_species` with its 64-bit index arrays (`v`, `row_start`,
/// `col`) numbered from `index_base` (0 as there, or 1 as in Fortran and TROVE), with the rules
/// and messages of `atomgpu_linestrength_add_block_species_i32`.
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented for
/// `atomgpu_linestrength_add_block_species_i32`; `handle` may be any value (it is looked up in the
/// registry of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_add_block_species_i64(
    handle: *mut atomgpu_linestrength,
    j: i32,
    gamma: i32,
    gns: f64,
    n_primitive: i64,
    v: *const i64,
    k: *const i32,
    tau: *const i32,
    ndeg: i32,
    n_sym: i64,
    row_start: *const i64,
    col: *const i64,
    value: *const f64,
    index_base: i32,
    block: *mut i32,
) -> i32 {
    guard(SPECIES_ARGUMENTS, || {
        add_numbered_block(
            handle,
            j,
            gamma,
            gns,
            n_primitive,
            v,
            Route::Wang,
            k,
            tau,
            ndeg,
            n_sym,
            row_start,
            col,
            value,
            index_base,
            block,
        )
    })
}

/// `atomgpu_linestrength_add_block_rotsym` with every index numbered from `index_base` (0 as
/// there, or 1 as in Fortran and TROVE): `v`, `row_start` and `col` as in
/// `atomgpu_linestrength_add_block_species_i64`, and
///
/// - `level[n_primitive]`: the rotational level of each function, from `index_base` (TROVE's
///   `bset_contr(jind)%ktau` under rotsym_do, as it is with `index_base` 1);
/// - `deg[n_primitive]`: the component of that level, from `index_base` (TROVE's
///   `bset_contr(jind)%k`).
///
/// # Safety
/// Every pointer must be NULL or valid for the number of elements documented for
/// `atomgpu_linestrength_add_block_species_i32`; `handle` may be any value (it is looked up in the
/// registry of live handles, never dereferenced).
#[no_mangle]
pub unsafe extern "C" fn atomgpu_linestrength_add_block_rotsym_i64(
    handle: *mut atomgpu_linestrength,
    j: i32,
    gamma: i32,
    gns: f64,
    n_primitive: i64,
    v: *const i64,
    level: *const i32,
    deg: *const i32,
    ndeg: i32,
    n_sym: i64,
    row_start: *const i64,
    col: *const i64,
    value: *const f64,
    index_base: i32,
    block: *mut i32,
) -> i32 {
    guard(
        &[
            "handle",
            "j",
            "gamma",
            "gns",
            "n_primitive",
            "v",
            "level",
            "deg",
            "ndeg",
            "n_sym",
            "row_start",
            "col",
            "value",
            "index_base",
            "block",
        ],
        || {
            add_numbered_block(
                handle,
                j,
                gamma,
                gns,
                n_primitive,
                v,
                Route::Rotsym,
                level,
                deg,
                ndeg,
                n_sym,
                row_start,
                col,
                value,
                index_base,
                block,
            )
        },
    )
}
