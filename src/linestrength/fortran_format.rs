//! Numbers as Fortran's edit descriptors write them (Fortran 2018, 13.7.2), so that the files
//! atomgpu writes for a Fortran program (TROVE's `.states` and `.trans`, ExoMol's) carry the
//! program's own digits: `Iw`, `Fw.d` and `ESw.d`, right-justified in `w` characters and `w`
//! asterisks when the number does not fit, as gfortran and ifort write them. Rounding is to the
//! nearest decimal of the exact binary value (Rust's and gfortran's default alike).

/// `w` asterisks: what Fortran writes when a number does not fit its field.
fn overflow(w: usize) -> String {
    "*".repeat(w)
}

/// `text` right-justified in `w` characters, or `w` asterisks when longer.
fn justified(text: String, w: usize) -> String {
    if text.len() > w {
        overflow(w)
    } else {
        format!("{text:>w$}")
    }
}

/// `Iw`: the integer `n` right-justified in `w` characters.
pub fn int(n: i64, w: usize) -> String {
    justified(n.to_string(), w)
}

/// `Fw.d`: `x` with `d` decimals, right-justified in `w` characters (a leading `0` before the
/// point when it fits, as gfortran writes `0.500000`; a negative value that rounds to zero keeps
/// its sign, `-0.000000`).
pub fn fixed(x: f64, w: usize, d: usize) -> String {
    justified(format!("{x:.d$}"), w)
}

/// `ESw.d`: `x` in scientific form with one digit before the point and `d` after it, and the
/// exponent as Fortran writes it without an `Ee` part: `E+dd` for |exponent| <= 99, `+ddd`
/// (no letter) for 100 to 999; right-justified in `w` characters.
pub fn scientific(x: f64, w: usize, d: usize) -> String {
    let text = format!("{x:.d$E}");
    let Some((mantissa, exponent)) = text.split_once('E') else {
        return justified(text, w);
    };
    let e: i32 = exponent.parse().unwrap_or(0);
    let sign = if e < 0 { '-' } else { '+' };
    let exponent = if e.abs() <= 99 { format!("E{sign}{:02}", e.abs()) } else { format!("{sign}{:03}", e.abs()) };
    justified(format!("{mantissa}{exponent}"), w)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The expected texts are what gfortran 12 writes for the same values and descriptors
    // (program: write(*,'(es16.8)') x, and likewise for f12.6 and i6).

    #[test]
    fn scientific_as_es16_8() {
        assert_eq!(scientific(1.2345678912e-5, 16, 8), "  1.23456789E-05");
        assert_eq!(scientific(-3.0, 16, 8), " -3.00000000E+00");
        assert_eq!(scientific(0.0, 16, 8), "  0.00000000E+00");
        assert_eq!(scientific(2.5e-123, 16, 8), "  2.50000000-123");
        assert_eq!(scientific(3.13618e-7, 10, 4), "3.1362E-07");
        assert_eq!(scientific(-3.13618e-7, 10, 4), "**********");
    }

    #[test]
    fn fixed_as_f12_6() {
        assert_eq!(fixed(1234.5678901, 12, 6), " 1234.567890");
        assert_eq!(fixed(0.5, 12, 6), "    0.500000");
        assert_eq!(fixed(-1e-9, 12, 6), "   -0.000000");
        assert_eq!(fixed(99999.9999994, 12, 6), "99999.999999");
        assert_eq!(fixed(123456.0, 12, 6), "************");
        assert_eq!(fixed(-0.0, 12, 6), "   -0.000000");
        // An exact binary tie rounds to even, as gfortran does.
        assert_eq!(fixed(0.0078125, 12, 6), "    0.007812");
        assert_eq!(fixed(0.0078135, 12, 6), "    0.007813");
    }

    #[test]
    fn int_as_i6() {
        assert_eq!(int(42, 6), "    42");
        assert_eq!(int(-42, 6), "   -42");
        assert_eq!(int(1234567, 6), "******");
    }
}
