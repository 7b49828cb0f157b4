//! TROVE's own line-list files, `<stem>.states` and `<stem>.trans`, as TROVE's intensity step
//! writes them in its ExoMol format (TROVE's `EXOMOL` keyword; its file names are
//! `<linelist>_<J1>_<J2>.states` / `.trans`), so that a TROVE user who hands the intensity loop
//! to atomgpu gets the files TROVE would have written, digit for digit.
//!
//! - `.trans` (dipole.f90, `dm_intensity_symmvec`): one line per line of the list,
//!   `(i12,1x,i12,1x,1x,es16.8,1x,f16.6)` = upper ID, lower ID, Einstein A (s^-1), wavenumber
//!   nu (cm^-1), lines sorted by the lower state's order key, then the upper state's
//!   ([`super::LineStrength::set_state_labels`]: TROVE's position of each level in its
//!   energy-sorted list, so that the lines come per lower level as TROVE's loop writes them).
//!   IDs are the caller's (TROVE: `ilevel + nsize_base(gamma)`).
//! - `.states` (tran.f90, `read_eigenval`): one line per state of the caller's [`StatesTable`],
//!   in its order, `(i12,1x,f12.6,1x,i6,1x,i7,` + the caller's columns: ID, E - ZPE (cm^-1), the
//!   total degeneracy `int(g_ns) (2J+1)` and J, then the text the caller formats for the state
//!   (TROVE: symmetry label, vibrational quanta, class labels, K, tau, rotational label, largest
//!   coefficient, the `::`/`:;` marker, ilevel, normal-mode quanta, ...). TROVE lists there every
//!   state of its eigenvalue files (not only those the line list uses), so the table is the
//!   caller's, not the handle's.
//!
//! Numbers are written as Fortran's edit descriptors write them ([`fortran_format`]). The pair is
//! written as [`exomol::write_line_list`] writes its pair: both files go to temporaries in the
//! target folder and are renamed into place together only when everything succeeded; any failure
//! (an argument, a cancellation, the time limit, a full disk) removes the temporaries and leaves
//! an existing pair as it was.
//!
//! Two ways in: [`write_line_list`] for a handle that stores every state (the lines of the whole
//! list are sorted in memory: about 100 bytes per kept line), and [`TroveFiles`], to which a caller
//! that streams its lower states batch by batch appends the lines of each batch in TROVE's order.

use super::exomol::{self, commit_pair, flush_and_sync, Temporary};
use super::{fortran_format, IntensityParams, Line, LineCounts, LineFilters, LineStrength, MAX_ENERGY_CM, MAX_J};
use crate::error::{require_in_range, Error, Result};
use crate::memory;
use crate::progress::Tracker;
use rayon::slice::ParallelSliceMut;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The states of TROVE's `.states` file, one entry per line, in the file's order.
#[derive(Clone, Copy, Debug)]
pub struct StatesTable<'a> {
    /// State IDs (>= 1).
    pub ids: &'a [i64],
    /// Energies in cm^-1, absolute (the file holds E - ZPE).
    pub energies: &'a [f64],
    /// Total degeneracy of each state (>= 0; TROVE: `int(g_ns) (2J+1)`, g_ns of the state's
    /// symmetry truncated as Fortran's `int` does).
    pub g_total: &'a [i64],
    /// J of each state, in [0, MAX_J].
    pub j: &'a [u32],
    /// The text of each line after J (TROVE's columns from the symmetry label on, with their
    /// leading blanks), printable ASCII without line breaks.
    pub columns: &'a [&'a str],
}

impl StatesTable<'_> {
    /// Number of states.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True when the table has no state.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Checks every entry; the errors name the array and the state.
    pub fn check(&self) -> Result<()> {
        let n = self.ids.len();
        for (name, len) in [
            ("energies", self.energies.len()),
            ("g_total", self.g_total.len()),
            ("j", self.j.len()),
            ("columns", self.columns.len()),
        ] {
            if len != n {
                return Err(Error::invalid(name, format!("must have one entry per state ({n}), got {len}")));
            }
        }
        for i in 0..n {
            if self.ids[i] < 1 {
                return Err(Error::invalid_at("ids", i, format!("must be >= 1, got {}", self.ids[i])));
            }
            require_in_range("energies", Some(i), self.energies[i], -MAX_ENERGY_CM, MAX_ENERGY_CM, "cm^-1")?;
            if self.g_total[i] < 0 {
                return Err(Error::invalid_at("g_total", i, format!("must be >= 0, got {}", self.g_total[i])));
            }
            if self.j[i] > MAX_J {
                return Err(Error::invalid_at("j", i, format!("must be in [0, {MAX_J}], got {}", self.j[i])));
            }
            if let Some(c) = self.columns[i].chars().find(|c| !(c.is_ascii_graphic() || *c == ' ')) {
                return Err(Error::invalid_at(
                    "columns",
                    i,
                    format!("must be printable ASCII on one line, found {:?}", c),
                ));
            }
        }
        Ok(())
    }

    /// Writes the `.states` lines, E relative to `zpe` (cm^-1).
    fn write(&self, zpe: f64, out: &mut impl Write) -> io::Result<()> {
        for i in 0..self.len() {
            writeln!(
                out,
                "{} {} {} {}{}",
                fortran_format::int(self.ids[i], 12),
                fortran_format::fixed(self.energies[i] - zpe, 12, 6),
                fortran_format::int(self.g_total[i], 6),
                fortran_format::int(self.j[i] as i64, 7),
                self.columns[i]
            )?;
        }
        Ok(())
    }
}

/// Bytes of one TROVE `.trans` line (12 + 1 + 12 + 2 + 16 + 1 + 16 + newline).
const TRANS_LINE_BYTES: usize = 61;

/// The TROVE `.trans` text of `lines`, in their order, formatted on all cores.
fn trans_text(lines: &[Line]) -> Vec<String> {
    exomol::formatted_in_parallel(lines, TRANS_LINE_BYTES, |text, line| {
        // Writing into a String cannot fail.
        let _ = writeln!(
            text,
            "{} {}  {} {}",
            fortran_format::int(line.upper_id, 12),
            fortran_format::int(line.lower_id, 12),
            fortran_format::scientific(line.einstein_a, 16, 8),
            fortran_format::fixed(line.wavenumber, 16, 6)
        );
    })
}

/// A TROVE `.states`/`.trans` pair being written: both go to temporaries beside their final
/// names and appear together at [`TroveFiles::commit`]; dropped without a commit (an error, a
/// cancellation), the temporaries are removed and an existing pair stays as it was.
pub struct TroveFiles {
    states: PathBuf,
    trans: PathBuf,
    states_partial: Temporary,
    states_out: Option<BufWriter<File>>,
    trans_partial: Temporary,
    trans_out: BufWriter<File>,
}

impl TroveFiles {
    /// Starts `<stem>.states` and `<stem>.trans` (nothing under those names changes yet).
    pub fn create(stem: &Path) -> Result<Self> {
        let states = exomol::with_suffix(stem, ".states");
        let trans = exomol::with_suffix(stem, ".trans");
        let (states_partial, states_file) = Temporary::create(&states).map_err(|e| io_error(&states, e))?;
        let (trans_partial, trans_file) = Temporary::create(&trans).map_err(|e| io_error(&trans, e))?;
        Ok(TroveFiles {
            states,
            trans,
            states_partial,
            states_out: Some(BufWriter::new(states_file)),
            trans_partial,
            trans_out: BufWriter::new(trans_file),
        })
    }

    /// Writes the `.states` file from `table` (checked first), E relative to `zpe` (cm^-1); once.
    pub fn write_states(&mut self, table: &StatesTable<'_>, zpe: f64) -> Result<()> {
        table.check()?;
        require_in_range("zpe", None, zpe, -MAX_ENERGY_CM, MAX_ENERGY_CM, "cm^-1")?;
        let Some(out) = self.states_out.as_mut() else {
            return Err(Error::invalid("states", "the .states file of this pair is already written"));
        };
        table.write(zpe, out).map_err(|e| io_error(&self.states, e))
    }

    /// Appends `lines` to the `.trans` file, in their order.
    pub fn append_lines(&mut self, lines: &[Line]) -> Result<()> {
        for text in trans_text(lines) {
            self.trans_out.write_all(text.as_bytes()).map_err(|e| io_error(&self.trans, e))?;
        }
        Ok(())
    }

    /// Syncs both files and renames them into place together (an empty `.states` when
    /// [`TroveFiles::write_states`] was never called).
    pub fn commit(self) -> Result<()> {
        self.commit_after(|| Ok(()))
    }

    /// [`TroveFiles::commit`], with `last` run once both files are synced and before they are
    /// renamed: its error (a cancellation) leaves everything as it was.
    pub(crate) fn commit_after(mut self, last: impl FnOnce() -> Result<()>) -> Result<()> {
        if let Some(out) = self.states_out.take() {
            flush_and_sync(out).map_err(|e| io_error(&self.states, e))?;
        }
        flush_and_sync(self.trans_out).map_err(|e| io_error(&self.trans, e))?;
        last()?;
        commit_pair(self.states_partial, self.trans_partial, &self.states, &self.trans)
    }
}

fn io_error(path: &Path, e: io::Error) -> Error {
    Error::Io(format!("{}: {e}", path.display()))
}

/// The whole line list of `handle` (every block with stored states as the lower block, judged
/// by `params` and `filters`) written as TROVE's `<stem>.states` (from `table`) and
/// `<stem>.trans` (lines sorted by the lower state's order key, then the upper state's), which
/// change together or not at all. Progress (lower states done of all stored states, task
/// `atomgpu_linestrength_write_trove`) goes to the calling thread's callback after each batch,
/// and its final report once the files are synced; the callback and the time limit can stop the
/// call at any of them. Returns the counts of the pairs judged.
pub fn write_line_list(
    handle: &mut LineStrength,
    stem: &Path,
    table: &StatesTable<'_>,
    params: &IntensityParams,
    filters: &LineFilters,
) -> Result<LineCounts> {
    // Arguments refused before any file is touched.
    super::intensity::check_line_params(params)?;
    filters.check(handle.blocks(), handle.group().is_some(), params.convention)?;
    table.check()?;
    let mut tracker = Tracker::start(c"atomgpu_linestrength_write_trove");
    let mut files = TroveFiles::create(stem)?;
    files.write_states(table, params.zpe)?;
    let mut lines: Vec<Line> = Vec::new();
    let counts = handle.stream_tracked(params, filters, &mut tracker, &mut |batch| {
        memory::reserve("the TROVE line list", &mut lines, batch.len())?;
        lines.extend_from_slice(batch);
        Ok(())
    })?;
    // Stable: lines of equal keys keep the order the list gave them.
    let order = handle.state_orders();
    lines.par_sort_by_key(|l| (order(l.lower_block, l.lower_state), order(l.upper_block, l.upper_state)));
    files.append_lines(&lines)?;
    let total = handle.blocks().iter().map(|b| b.energies.len() as f64).sum();
    files.commit_after(|| tracker.finish(total))?;
    Ok(counts)
}
