//! ExoMol `.states` and `.trans` files (Tennyson et al., J. Mol. Spectrosc. 327 (2016) 73).
//!
//! `.states`: one line per stored state, `ID  E  g_tot  J  block  state`, with ID the running
//! number of [`LineStrength::state_id`], E = energy - ZPE in cm^-1 (`%12.6f`), g_tot =
//! g_ns (2J+1), then the block index and the state's index in it (0-based, as atomgpu labels).
//! `.trans`: one line per line, `upper_ID  lower_ID  A`, with A in s^-1 (`%10.4E`) and the
//! wavenumber nu in cm^-1 (`%15.6f`) as the optional fourth column, as TROVE writes it.
//!
//! Write the files with [`write_file_atomically`], so that a run that is killed leaves no
//! truncated file under the final name:
//!
//! ```no_run
//! # use atomgpu::linestrength::{exomol, LineStrength, Line};
//! # fn save(handle: &LineStrength, lines: &[Line], zpe: f64) -> std::io::Result<()> {
//! exomol::write_file_atomically("out/molecule.states".as_ref(), |w| exomol::write_states(handle, zpe, w))?;
//! exomol::write_file_atomically("out/molecule.trans".as_ref(), |w| exomol::write_trans(lines, w))?;
//! # Ok(())
//! # }
//! ```

use super::{IntensityParams, Line, LineCounts, LineFilters, LineStrength};
use crate::error::{Error, Result};
use crate::memory;
use rayon::prelude::*;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Writes the file `path` through `write` so that no reader ever sees it half written: the text
/// goes to `<path>.partial` (created or replaced), which is flushed, synced to disk and then
/// renamed over `path` (atomic on POSIX file systems). On any error the partial file is removed
/// and an earlier `path` is left as it was.
pub fn write_file_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    let mut partial = PathBuf::from(path);
    partial.as_mut_os_string().push(".partial");
    let written = File::create(&partial).and_then(|file| {
        let mut out = BufWriter::new(file);
        write(&mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()
    });
    match written.and_then(|()| std::fs::rename(&partial, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            Err(e)
        }
    }
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

/// Lines formatted per task when [`write_trans`] formats on all cores.
const TRANS_CHUNK: usize = 4096;

/// Bytes of one `.trans` line (12 + 1 + 12 + 1 + 10 + 1 + 15 + newline).
const TRANS_LINE_BYTES: usize = 53;

/// Bytes of `.trans` text [`write_line_list`] lets accumulate before syncing them to disk.
const SYNC_BYTES: usize = 8 << 20;

/// Writes the `.trans` lines of `lines`. Formatting the numbers is the costly part, so chunks of
/// lines are formatted on all cores (rayon) and then written in order.
pub fn write_trans(lines: &[Line], out: &mut impl Write) -> io::Result<()> {
    let texts: Vec<String> = lines
        .par_chunks(TRANS_CHUNK)
        .map(|chunk| {
            let mut text = String::with_capacity(chunk.len() * TRANS_LINE_BYTES);
            for line in chunk {
                let a = fortran_e(line.einstein_a, 4);
                // Writing into a String cannot fail.
                let _ =
                    writeln!(text, "{:>12} {:>12} {:>10} {:>15.6}", line.upper_id, line.lower_id, a, line.wavenumber);
            }
            text
        })
        .collect();
    for text in texts {
        out.write_all(text.as_bytes())?;
    }
    Ok(())
}

/// The whole line list of `handle` ([`LineStrength::line_list_stream`]: every block with states
/// as the lower block, judged by `params` and `filters` where the amplitudes are) written as
/// `<stem>.states` and `<stem>.trans`, each atomically ([`write_file_atomically`]). The lines go
/// to the `.trans` file batch by batch as they are judged, so the list is never held in memory.
/// Returns the counts of the pairs judged. On any error neither file is left half written (an
/// earlier `.states` file may already have been replaced by the new one).
pub fn write_line_list(
    handle: &mut LineStrength,
    stem: &Path,
    params: &IntensityParams,
    filters: &LineFilters,
) -> Result<LineCounts> {
    let path = |extension: &str| {
        let mut p = stem.as_os_str().to_owned();
        p.push(extension);
        PathBuf::from(p)
    };
    let io = |what: &Path, e: io::Error| Error::Io(format!("{}: {e}", what.display()));
    // Arguments refused before any file is touched.
    super::intensity::check_params(params)?;
    filters.check(handle.blocks(), handle.group().is_some())?;
    let states = path(".states");
    write_file_atomically(&states, |w| write_states(handle, params.zpe, w)).map_err(|e| io(&states, e))?;
    let trans = path(".trans");
    let mut failure = None;
    let mut counts = LineCounts::default();
    // A writer thread formats, writes and syncs each batch while the next one is computed.
    let written = write_file_atomically(&trans, |w| {
        std::thread::scope(|scope| {
            let (batches, received) = std::sync::mpsc::sync_channel::<Vec<Line>>(2);
            let writer = scope.spawn(move || -> io::Result<()> {
                // The text goes to disk while the next batches are computed (every SYNC_BYTES),
                // so that the final sync of write_file_atomically has little left to wait for.
                let mut unsynced = 0;
                for batch in received {
                    write_trans(&batch, w)?;
                    unsynced += batch.len() * TRANS_LINE_BYTES;
                    if unsynced >= SYNC_BYTES {
                        w.flush()?;
                        w.get_ref().sync_data()?;
                        unsynced = 0;
                    }
                }
                Ok(())
            });
            let streamed = handle.line_list_stream(params, filters, &mut |lines| {
                let batch = memory::copy_of("a batch of lines", lines)?;
                batches.send(batch).map_err(|_| Error::Io(format!("{}: the writer stopped", trans.display())))
            });
            drop(batches);
            let wrote = writer.join().unwrap_or_else(|_| Err(io::Error::other("the writer thread panicked")));
            match (streamed, wrote) {
                (_, Err(e)) => Err(e),
                (Ok(c), Ok(())) => {
                    counts = c;
                    Ok(())
                }
                (Err(e), Ok(())) => {
                    failure = Some(e);
                    Err(io::Error::other("the line list failed"))
                }
            }
        })
    });
    match (failure, written) {
        (Some(e), _) => Err(e),
        (None, Err(e)) => Err(io(&trans, e)),
        (None, Ok(())) => Ok(counts),
    }
}

/// `x` as Fortran's `ES` edit descriptor writes it: `digits` decimals and a signed two-digit
/// exponent (`3.1362E-07`), the form ExoMol files use.
pub fn fortran_e(x: f64, digits: usize) -> String {
    let text = format!("{x:.digits$E}");
    match text.split_once('E') {
        Some((mantissa, exponent)) => {
            let e: i32 = exponent.parse().unwrap_or(0);
            format!("{mantissa}E{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
        }
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::write_file_atomically;
    use std::io::{Error, Write};

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
        assert!(!dir.join("lines.trans.partial").exists());
        write_file_atomically(&path, |w| writeln!(w, "third")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "third\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn exponents_have_a_sign_and_two_digits() {
        assert_eq!(super::fortran_e(3.13618e-7, 4), "3.1362E-07");
        assert_eq!(super::fortran_e(12345.0, 4), "1.2345E+04");
    }
}
