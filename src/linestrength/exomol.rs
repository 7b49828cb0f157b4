//! ExoMol `.states` and `.trans` files (Tennyson et al., J. Mol. Spectrosc. 327 (2016) 73).
//!
//! `.states`: one line per stored state, `ID  E  g_tot  J  block  state`, with ID the running
//! number of [`LineStrength::state_id`], E = energy - ZPE in cm^-1 (`%12.6f`), g_tot =
//! g_ns (2J+1), then the block index and the state's index in it (0-based, as atomgpu labels).
//! `.trans`: one line per line, `upper_ID  lower_ID  A`, with A in s^-1 (`%10.4E`) and the
//! wavenumber nu in cm^-1 (`%15.6f`) as the optional fourth column, as TROVE writes it.

use super::{Line, LineStrength};
use std::io::{self, Write};

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

/// Writes the `.trans` lines of `lines`.
pub fn write_trans(lines: &[Line], out: &mut impl Write) -> io::Result<()> {
    for line in lines {
        let a = fortran_e(line.einstein_a, 4);
        writeln!(out, "{:>12} {:>12} {:>10} {:>15.6}", line.upper_id, line.lower_id, a, line.wavenumber)?;
    }
    Ok(())
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
    #[test]
    fn exponents_have_a_sign_and_two_digits() {
        assert_eq!(super::fortran_e(3.13618e-7, 4), "3.1362E-07");
        assert_eq!(super::fortran_e(12345.0, 4), "1.2345E+04");
    }
}
