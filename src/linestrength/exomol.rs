//! ExoMol `.states` and `.trans` files (Tennyson et al., J. Mol. Spectrosc. 327 (2016) 73).
//!
//! `.states`: one line per stored state, `ID  E  g_tot  J  block  state`, with ID the running
//! number of [`LineStrength::state_id`], E = energy - ZPE in cm^-1 (`%12.6f`), g_tot =
//! g_ns (2J+1), then the block index and the state's index in it (0-based, as atomgpu labels).
//! `.trans`: one line per line, `upper_ID  lower_ID  A`, with A in s^-1 (`%10.4E`) and the
//! wavenumber nu in cm^-1 (`%15.6f`) as the optional fourth column, as TROVE writes it.
//!
//! [`write_line_list`] writes the pair so that it changes together or not at all (as far as a
//! POSIX file system allows: see there); a single file is written with
//! [`write_file_atomically`], so that a run that is killed leaves no truncated file under the
//! final name:
//!
//! ```no_run
//! # use atomgpu::linestrength::{exomol, LineStrength, Line};
//! # fn save(handle: &LineStrength, lines: &[Line], zpe: f64) -> std::io::Result<()> {
//! exomol::write_file_atomically("out/molecule.states".as_ref(), |w| exomol::write_states(handle, zpe, w))?;
//! exomol::write_file_atomically("out/sub-list.trans".as_ref(), |w| exomol::write_trans(lines, w))?;
//! # Ok(())
//! # }
//! ```

use super::{fortran_format, IntensityParams, Line, LineCounts, LineFilters, LineStrength};
use crate::error::{Error, Result};
use crate::memory;
use crate::progress::Tracker;
use rayon::prelude::*;
use std::fmt::Write as _;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// `path` with `suffix` appended to its last component (`a/b.states` + `.x` = `a/b.states.x`).
pub(super) fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

/// A suffix no other write of this process uses and no other process's does either:
/// `.<pid>-<n>` (n counts the writes of this process).
fn unique_suffix() -> String {
    static WRITES: AtomicU64 = AtomicU64::new(0);
    format!(".{}-{}", std::process::id(), WRITES.fetch_add(1, Ordering::Relaxed))
}

/// A file under a temporary name in its target's folder, removed when dropped unless it was
/// renamed into place ([`Temporary::rename_to`]) or given up to stay ([`Temporary::keep`]).
pub(super) struct Temporary {
    path: PathBuf,
    armed: bool,
}

impl Temporary {
    /// Creates `<target><unique>.partial` (never an existing file: `create_new`).
    pub(super) fn create(target: &Path) -> io::Result<(Temporary, File)> {
        let path = with_suffix(target, &format!("{}.partial", unique_suffix()));
        let file = OpenOptions::new().write(true).create_new(true).open(&path)?;
        Ok((Temporary { path, armed: true }, file))
    }

    /// A second name `<target><unique>.previous` for the existing file `target` (a hard link;
    /// where the file system has none, a synced copy), or `None` when there is no `target`.
    fn previous_of(target: &Path) -> io::Result<Option<Temporary>> {
        match fs::symlink_metadata(target) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
            Ok(_) => {}
        }
        let path = with_suffix(target, &format!("{}.previous", unique_suffix()));
        if fs::hard_link(target, &path).is_err() {
            // Removed again if the copy fails half way.
            let copy = Temporary { path, armed: true };
            fs::copy(target, &copy.path)?;
            File::open(&copy.path)?.sync_all()?;
            return Ok(Some(copy));
        }
        Ok(Some(Temporary { path, armed: true }))
    }

    /// Renames the file over `target` (atomic on POSIX file systems: `target` is the old file or
    /// the new one, never neither). On failure the temporary stays armed.
    fn rename_to(&mut self, target: &Path) -> io::Result<()> {
        fs::rename(&self.path, target)?;
        self.armed = false;
        Ok(())
    }

    /// Leaves the file where it is, for good.
    fn keep(mut self) -> PathBuf {
        self.armed = false;
        std::mem::take(&mut self.path)
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        if self.armed {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Flushes `out` and syncs its file's data and size to the disk.
pub(super) fn flush_and_sync(out: BufWriter<File>) -> io::Result<()> {
    out.into_inner().map_err(|e| e.into_error())?.sync_all()
}

/// Syncs the folder of `path`, so that renames in it survive a crash, where the file system can
/// (some cannot sync a folder; the renames are then as durable as it makes them).
pub(super) fn sync_folder(path: &Path) {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if let Ok(f) = File::open(folder) {
        let _ = f.sync_all();
    }
}

/// Writes the file `path` through `write` so that no reader ever sees it half written: the text
/// goes to `<path>.<pid>-<n>.partial` (a new file in the same folder), which is flushed, synced
/// to disk and then renamed over `path` (atomic on POSIX file systems). On any error the partial
/// file is removed and an earlier `path` is left as it was.
pub fn write_file_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    let (mut partial, file) = Temporary::create(path)?;
    let mut out = BufWriter::new(file);
    write(&mut out)?;
    flush_and_sync(out)?;
    partial.rename_to(path)?;
    sync_folder(path);
    Ok(())
}

/// Writes the `.states` lines of every stored state of every block.
pub fn write_states(handle: &LineStrength, zpe: f64, out: &mut impl Write) -> io::Result<()> {
    for (b, block) in handle.blocks().iter().enumerate() {
        let g_total = block.gns * (2 * block.j + 1) as f64;
        for (s, &energy) in block.energies.iter().enumerate() {
            writeln!(
                out,
                "{:>12} {:>12.6} {:>6} {:>7} {:>5} {:>7}",
                handle.state_id(b, s),
                energy - zpe,
                g_total.round() as i64,
                block.j,
                b,
                s
            )?;
        }
    }
    Ok(())
}

/// Lines formatted per task when [`formatted_in_parallel`] formats on all cores.
const TRANS_CHUNK: usize = 4096;

/// Bytes of one `.trans` line (12 + 1 + 12 + 1 + 10 + 1 + 15 + newline).
const TRANS_LINE_BYTES: usize = 53;

/// Bytes of `.trans` text [`write_line_list`] lets accumulate before syncing them to disk.
const SYNC_BYTES: usize = 8 << 20;

/// The text of `lines`, one line each as `format` writes it (about `line_bytes` bytes a line), in
/// their order: formatting the numbers is the costly part of a `.trans` file, so chunks of lines
/// are formatted on all cores (rayon). Used by this writer and TROVE's ([`super::trove`]).
pub(super) fn formatted_in_parallel(
    lines: &[Line],
    line_bytes: usize,
    format: impl Fn(&mut String, &Line) + Sync,
) -> Vec<String> {
    lines
        .par_chunks(TRANS_CHUNK)
        .map(|chunk| {
            let mut text = String::with_capacity(chunk.len() * line_bytes);
            for line in chunk {
                format(&mut text, line);
            }
            text
        })
        .collect()
}

/// Writes the `.trans` lines of `lines` ([`formatted_in_parallel`], then written in order).
pub fn write_trans(lines: &[Line], out: &mut impl Write) -> io::Result<()> {
    let texts = formatted_in_parallel(lines, TRANS_LINE_BYTES, |text, line| {
        let a = fortran_format::scientific(line.einstein_a, 10, 4);
        // Writing into a String cannot fail.
        let _ = writeln!(text, "{:>12} {:>12} {a} {:>15.6}", line.upper_id, line.lower_id, line.wavenumber);
    });
    for text in texts {
        out.write_all(text.as_bytes())?;
    }
    Ok(())
}

/// The whole line list of `handle` ([`LineStrength::line_list_stream`]: every block with states
/// as the lower block, judged by `params` and `filters` where the amplitudes are) written as
/// `<stem>.states` and `<stem>.trans`, which change together or not at all. Returns the counts of
/// the pairs judged.
///
/// Both files are written to temporaries in the target folder (`<stem>.states.<pid>-<n>.partial`
/// and `.trans.<pid>-<n>.partial`); the lines go to the `.trans` temporary batch by batch as
/// they are judged, so the list is never held in memory. Progress (lower states done of all
/// stored states, task `atomgpu_linestrength_write_exomol`) goes to the calling thread's callback
/// after each batch, and its final report comes once both temporaries are synced; the callback
/// and the time limit ([`crate::progress`]) can stop the call at any of them. Only when
/// everything succeeded is the pair committed (`commit_pair`): `.states` renamed into place
/// first, then `.trans`. On any failure before that (an argument, a cancellation, the time limit,
/// a full disk or any other I/O error) the temporaries are removed and an existing pair is left
/// as it was, byte for byte.
pub fn write_line_list(
    handle: &mut LineStrength,
    stem: &Path,
    params: &IntensityParams,
    filters: &LineFilters,
) -> Result<LineCounts> {
    let states = with_suffix(stem, ".states");
    let trans = with_suffix(stem, ".trans");
    let io = |what: &Path, e: io::Error| Error::Io(format!("{}: {e}", what.display()));
    // Arguments refused before any file is touched.
    super::intensity::check_line_params(params)?;
    filters.check(handle.blocks(), handle.group().is_some(), params.convention)?;
    let mut tracker = Tracker::start(c"atomgpu_linestrength_write_exomol");
    let (states_partial, states_file) = Temporary::create(&states).map_err(|e| io(&states, e))?;
    let mut out = BufWriter::new(states_file);
    write_states(handle, params.zpe, &mut out).and_then(|()| flush_and_sync(out)).map_err(|e| io(&states, e))?;
    let (trans_partial, trans_file) = Temporary::create(&trans).map_err(|e| io(&trans, e))?;
    let counts = stream_trans(handle, params, filters, &mut tracker, trans_file, &trans)?;
    tracker.finish(handle.blocks().iter().map(|b| b.energies.len() as f64).sum())?;
    commit_pair(states_partial, trans_partial, &states, &trans)?;
    Ok(counts)
}

/// The line list of `handle` streamed into `file` (the temporary of the `.trans` file `path`,
/// which errors name) and synced: a writer thread formats, writes and syncs each batch while the
/// next one is computed.
fn stream_trans(
    handle: &mut LineStrength,
    params: &IntensityParams,
    filters: &LineFilters,
    tracker: &mut Tracker,
    file: File,
    path: &Path,
) -> Result<LineCounts> {
    let io = |e: io::Error| Error::Io(format!("{}: {e}", path.display()));
    std::thread::scope(|scope| {
        let (batches, received) = std::sync::mpsc::sync_channel::<Vec<Line>>(2);
        let writer = scope.spawn(move || -> io::Result<()> {
            // The text goes to disk while the next batches are computed (every SYNC_BYTES), so
            // that the final sync has little left to wait for.
            let mut out = BufWriter::new(file);
            let mut unsynced = 0;
            for batch in received {
                write_trans(&batch, &mut out)?;
                unsynced += batch.len() * TRANS_LINE_BYTES;
                if unsynced >= SYNC_BYTES {
                    out.flush()?;
                    out.get_ref().sync_data()?;
                    unsynced = 0;
                }
            }
            flush_and_sync(out)
        });
        let streamed = handle.stream_tracked(params, filters, tracker, &mut |lines| {
            let batch = memory::copy_of("a batch of lines", lines)?;
            batches.send(batch).map_err(|_| Error::Io(format!("{}: the writer stopped", path.display())))
        });
        drop(batches);
        let wrote = writer.join().unwrap_or_else(|_| Err(io::Error::other("the writer thread panicked")));
        match (streamed, wrote) {
            // The writer's error is the cause when the stream saw only that the writer stopped.
            (Err(Error::Io(_)) | Ok(_), Err(e)) => Err(io(e)),
            (Err(e), _) => Err(e),
            (Ok(counts), Ok(())) => Ok(counts),
        }
    })
}

/// Renames the synced temporaries over `states` and `trans` so that the pair changes together.
///
/// `.states` goes first because it is the small file: before the renames an existing `states`
/// gets a second name, `<states>.<pid>-<n>.previous` (a hard link, or where the file system has
/// none a synced copy), so that it can be put back. Then `states` is replaced, then `trans`. If
/// replacing `trans` fails, the old `states` is renamed back over the new one (or, when there was
/// none, the new one is removed), so the old pair is what remains; the error says so. The
/// `.previous` name is removed once the pair is in place, and the folder is synced.
///
/// What POSIX does not allow: the two renames are not one atomic step. A process killed, or a
/// machine that stops, between them leaves the new `.states` beside the old `.trans`, with the
/// old `.states` kept as `<stem>.states.<pid>-<n>.previous` (rename it back over `<stem>.states`
/// to restore the old pair); a failure of the rename that puts the old `.states` back (after the
/// `.trans` rename failed) leaves the same, and the error names the `.previous` file. Readers
/// that open the two files while the pair is being replaced may see one of each.
pub(super) fn commit_pair(
    mut states_partial: Temporary,
    mut trans_partial: Temporary,
    states: &Path,
    trans: &Path,
) -> Result<()> {
    let io = |what: &Path, e: io::Error| Error::Io(format!("{}: {e}", what.display()));
    let previous = Temporary::previous_of(states).map_err(|e| io(states, e))?;
    states_partial.rename_to(states).map_err(|e| io(states, e))?;
    if let Err(e) = trans_partial.rename_to(trans) {
        let restored = match previous {
            Some(mut old) => old.rename_to(states).map_err(|e| {
                let kept = old.keep();
                format!(
                    "the earlier {} could not be put back ({e}): it is kept as {}",
                    states.display(),
                    kept.display()
                )
            }),
            None => {
                fs::remove_file(states).map_err(|e| format!("the new {} could not be removed ({e})", states.display()))
            }
        };
        return Err(Error::Io(match restored {
            Ok(()) => format!("{}: {e} (nothing was replaced: an earlier pair is kept as it was)", trans.display()),
            Err(left) => format!("{}: {e}; {left}", trans.display()),
        }));
    }
    drop(previous);
    sync_folder(states);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::write_file_atomically;
    use std::io::{Error, Write};

    /// The names in `dir`, sorted.
    fn names(dir: &std::path::Path) -> Vec<String> {
        let mut n: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        n.sort();
        n
    }

    #[test]
    fn a_failed_write_leaves_the_earlier_file_and_no_partial_one() {
        let dir = std::env::temp_dir().join(format!("atomgpu-exomol-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("lines.trans");
        write_file_atomically(&path, |w| writeln!(w, "first")).unwrap();
        let failed = write_file_atomically(&path, |w| {
            writeln!(w, "second, never finished")?;
            Err(Error::other("the run was stopped"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "first\n");
        assert_eq!(names(&dir), ["lines.trans"]);
        write_file_atomically(&path, |w| writeln!(w, "third")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "third\n");
        assert_eq!(names(&dir), ["lines.trans"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
