//! Wigner 3j symbols for integer angular momenta (and, through [`three_j_doubled`], half-integer
//! ones), and 6j symbols for integer ones.
//!
//! **Conventions.** Condon-Shortley phases, as in A. R. Edmonds, *Angular Momentum in Quantum
//! Mechanics* (Princeton, 1957), §3.7. The 3j symbol is related to the Clebsch-Gordan coefficient
//! by (Edmonds eq. 3.7.3)
//!
//! ```text
//! ( j1 j2 j3 )   (-1)^(j1 - j2 - m3)
//! ( m1 m2 m3 ) = ------------------ <j1 m1 j2 m2 | j3 -m3>,
//!                  sqrt(2 j3 + 1)
//! ```
//!
//! and is zero unless `m1 + m2 + m3 = 0`, `|m_i| <= j_i` and `|j1 - j2| <= j3 <= j1 + j2`
//! (triangle rule). Angular momenta are dimensionless (units of ħ): integers for [`three_j`],
//! integers or half-integers, passed doubled, for [`three_j_doubled`]. The symbols are real.
//!
//! The functions:
//!
//! * [`three_j`]: any symbol, from Racah's single-sum formula evaluated with an exact integer sum
//!   (see below); the result is the exact value rounded to double precision (within 1 ulp).
//! * [`six_j`]: the 6j symbol (Edmonds §6.2), from Racah's sum for it in the same exact way.
//! * [`three_j_rank1`]: the symbols `(j 1 j'; k, k'-k, -k')` of dipole line strengths, from the
//!   closed forms of Edmonds' Table 2 (square roots of ratios of small integers, ≤ 1 ulp).
//!
//! **Why exact integers.** Racah's sum alternates in sign, and for large j its terms cancel
//! massively: with j ≈ 150 and small m the sum of the magnitudes of the terms exceeds the
//! sum itself by up to ~1e25 (1e50 at j ≈ 300). No fixed-precision evaluation survives that
//! (double-double, ~1e-32, would keep only ~7 digits), and ln-factorial tables add their own
//! error: ln(450!) ≈ 2.3e3 carries an absolute rounding of ~2e-13, which `exp` turns into a
//! relative error. So the sum is done in exact integer arithmetic (a small unsigned big
//! integer below) and only the square-root prefactor, a ratio of factorials, in double-double.

use std::cmp::Ordering;

/// The Wigner 3j symbol `(j1 j2 j3; m1 m2 m3)` for integer angular momenta, Condon-Shortley
/// convention (Edmonds 1957, eq. 3.7.3).
///
/// Returns `0.0` when any selection rule fails: a negative `j`, `m1 + m2 + m3 != 0`,
/// `|m_i| > j_i`, or the triangle rule `|j1 - j2| <= j3 <= j1 + j2`; also exactly `0.0` for the
/// symbols whose Racah sum vanishes (e.g. all `m = 0` with `j1 + j2 + j3` odd).
///
/// Racah's formula (Edmonds eq. 3.7.3), written with binomial coefficients:
///
/// ```text
/// (j1 j2 j3; m1 m2 m3) = (-1)^(j1 - j2 - m3) sqrt(F) Σ_k (-1)^k C(a, k) C(b, j1 - m1 - k) C(c, j2 + m2 - k),
///
/// a = j1 + j2 - j3,   b = j1 - j2 + j3,   c = -j1 + j2 + j3,
/// F = (j1+m1)! (j1-m1)! (j2+m2)! (j2-m2)! (j3+m3)! (j3-m3)! / ((j1+j2+j3+1)! a! b! c!),
/// ```
///
/// C(n, r) = n! / (r! (n-r)!), the sum over every k where all three binomials are nonzero. (Each
/// term equals a! b! c! times Racah's `1 / [k! (a-k)! (j1-m1-k)! (j2+m2-k)! (j3-j2+m1+k)! (j3-j1-m2+k)!]`.)
///
/// **Accuracy.** The integer sum is exact; F is a product of integers and their reciprocals
/// accumulated in double-double (relative error ~1e-30); so the returned value is the exact
/// symbol correctly rounded, except within ~1e-29 relative of a rounding tie. Measured: all 647
/// exact values of `tests/wigner3j.rs` (j up to 199) are reproduced to the last bit (0 ulp), as
/// were 1544 random symbols with j up to 1000 in a one-off check against the same exact script.
///
/// **Cost.** The sum has at most `min(a, b, c) + 1` terms of about `log2((j1+j2+j3)!)` bits, so
/// the time grows like j²: measured about 1 µs at j = 10, 30 µs at j = 150, 1 ms at j = 1000.
/// Use [`three_j_rank1`] (about 10 ns) where it applies. Intended for j1 + j2 + j3 below ~10^5
/// (the integer steps are exact up to ~2·10^6, far beyond any practical running time).
pub fn three_j(j1: i32, j2: i32, j3: i32, m1: i32, m2: i32, m3: i32) -> f64 {
    three_j_precise(j1, j2, j3, m1, m2, m3).to_f64()
}

/// [`three_j`] before its rounding to double precision (a [`Precise`]: ~106 bits).
pub(crate) fn three_j_precise(j1: i32, j2: i32, j3: i32, m1: i32, m2: i32, m3: i32) -> Precise {
    three_j_precise_doubled(2 * j1, 2 * j2, 2 * j3, 2 * m1, 2 * m2, 2 * m3)
}

/// The 3j symbol for integer or half-integer angular momenta, given as twice their values
/// (`tj1` = 2 j1, …), by the same exact Racah sum as [`three_j`] (every quantity the sum uses,
/// j1 + j2 - j3, j1 - m1, j1 + m1, …, is an integer for a valid symbol). Zero when a selection
/// rule fails or when j_i and m_i are not both integers or both half-integers.
pub fn three_j_doubled(tj1: i32, tj2: i32, tj3: i32, tm1: i32, tm2: i32, tm3: i32) -> f64 {
    three_j_precise_doubled(tj1, tj2, tj3, tm1, tm2, tm3).to_f64()
}

/// [`three_j_doubled`] before its rounding to double precision (a [`Precise`]: ~106 bits).
pub(crate) fn three_j_precise_doubled(tj1: i32, tj2: i32, tj3: i32, tm1: i32, tm2: i32, tm3: i32) -> Precise {
    let (tj1, tj2, tj3, tm1, tm2, tm3) = (tj1 as i64, tj2 as i64, tj3 as i64, tm1 as i64, tm2 as i64, tm3 as i64);
    if tj1 < 0 || tj2 < 0 || tj3 < 0 || tm1 + tm2 + tm3 != 0 {
        return Precise::ZERO;
    }
    if (tj1 + tm1) % 2 != 0 || (tj2 + tm2) % 2 != 0 || (tj3 + tm3) % 2 != 0 || (tj1 + tj2 + tj3) % 2 != 0 {
        return Precise::ZERO;
    }
    if tm1.abs() > tj1 || tm2.abs() > tj2 || tm3.abs() > tj3 || tj3 < (tj1 - tj2).abs() || tj3 > tj1 + tj2 {
        return Precise::ZERO;
    }
    // (j1 j2 j3; 0 0 0) vanishes for odd j1 + j2 + j3 (the symbol changes sign under m -> -m).
    if tm1 == 0 && tm2 == 0 && ((tj1 + tj2 + tj3) / 2) % 2 == 1 {
        return Precise::ZERO;
    }
    // Integer combinations: a, b, c, r2 = j1 - m1, r3 = j2 + m2, and j_i ± m_i.
    let (a, b, c) = ((tj1 + tj2 - tj3) / 2, (tj1 - tj2 + tj3) / 2, (-tj1 + tj2 + tj3) / 2);
    let (r2, r3) = ((tj1 - tm1) / 2, (tj2 + tm2) / 2);
    let (j1m1p, j1m1m, j2m2p, j2m2m, j3m3p, j3m3m) =
        ((tj1 + tm1) / 2, (tj1 - tm1) / 2, (tj2 + tm2) / 2, (tj2 - tm2) / 2, (tj3 + tm3) / 2, (tj3 - tm3) / 2);
    let jsum1 = (tj1 + tj2 + tj3) / 2 + 1;
    let phase = (tj1 - tj2 - tm3) / 2;
    // Range where C(a, k), C(b, r2 - k) and C(c, r3 - k) are all nonzero.
    let k_min = 0.max(r2 - b).max(r3 - c);
    let k_max = a.min(r2).min(r3);

    // Exact sum: positive and negative terms accumulated separately.
    let mut term = BigUint::one();
    term.mul_binomial(a, k_min);
    term.mul_binomial(b, r2 - k_min);
    term.mul_binomial(c, r3 - k_min);
    let mut sum = SignedSum::new();
    for k in k_min..=k_max {
        sum.add(&term, k % 2 == 1);
        if k < k_max {
            // T(k+1)/T(k) = (a-k)(r2-k)(r3-k) / ((k+1)(b-r2+k+1)(c-r3+k+1)); T(k+1) is an integer.
            term.mul_all(&[a - k, r2 - k, r3 - k]);
            term.div_all_exact(&[k + 1, b - r2 + k + 1, c - r3 + k + 1]);
        }
    }
    let prefactor = Scaled::factorial_ratio(&[j1m1p, j1m1m, j2m2p, j2m2m, j3m3p, j3m3m], &[jsum1, a, b, c]);
    let value = sum.times_sqrt(prefactor);
    if phase.rem_euclid(2) == 1 {
        -value
    } else {
        value
    }
}

/// The Wigner 6j symbol `{j1 j2 j3; j4 j5 j6}` for integer angular momenta (Edmonds 1957, §6.2),
/// the exact value correctly rounded to double precision (as [`three_j`]).
///
/// Zero unless all four triads (j1 j2 j3), (j1 j5 j6), (j4 j2 j6), (j4 j5 j3) satisfy the
/// triangle rule (and every j >= 0); also exactly `0.0` where Racah's sum vanishes. Racah's
/// formula (Edmonds eq. 6.3.7):
///
/// ```text
/// {j1 j2 j3; j4 j5 j6} = Δ(j1 j2 j3) Δ(j1 j5 j6) Δ(j4 j2 j6) Δ(j4 j5 j3)
///     Σ_t (-1)^t (t+1)! / [(t-a1)! (t-a2)! (t-a3)! (t-a4)! (b1-t)! (b2-t)! (b3-t)!],
///
/// Δ(a b c) = sqrt((a+b-c)! (a-b+c)! (-a+b+c)! / (a+b+c+1)!),
/// a1 = j1+j2+j3, a2 = j1+j5+j6, a3 = j4+j2+j6, a4 = j4+j5+j3,
/// b1 = j1+j2+j4+j5, b2 = j2+j3+j5+j6, b3 = j3+j1+j6+j4,   max(a) <= t <= min(b).
/// ```
///
/// **Exact sum.** With t0 = max(a), t1 = min(b) and
/// X = Π_j (t1-a_j)! Π_i (b_i-t0)! / (t0+1)!, every term times X is an integer,
/// U(t) = [(t+1)!/(t0+1)!] Π_j [(t1-a_j)!/(t-a_j)!] Π_i [(b_i-t0)!/(b_i-t)!], reached from
/// U(t0) = Π_j (t1-a_j)!/(t0-a_j)! by the exact steps U(t+1) = U(t) (t+2) Π_i (b_i-t) / Π_j (t+1-a_j).
/// The alternating sum of the U(t) is done in exact integers (it cancels massively at large j, as
/// Racah's 3j sum does); the prefactor sqrt(Π Δ²) / X is a ratio of factorials in double-double.
///
/// **Accuracy.** The sum is exact and the prefactor kept to ~1e-28 relative, so the result is the
/// exact symbol correctly rounded (tests/wigner3j.rs: exact sympy values to the last bit).
///
/// **Cost.** At most min(b) - max(a) + 1 terms of about log2(max(b)!) bits: measured 0.06 ms with
/// every j = 100 and 0.25 ms with every j = 200 (release build). Intended, as [`three_j`], for
/// j1 + ... + j6 below ~10^5.
pub fn six_j(j1: i32, j2: i32, j3: i32, j4: i32, j5: i32, j6: i32) -> f64 {
    six_j_precise(j1, j2, j3, j4, j5, j6).to_f64()
}

/// [`six_j`] before its rounding to double precision (a [`Precise`]: ~106 bits).
pub(crate) fn six_j_precise(j1: i32, j2: i32, j3: i32, j4: i32, j5: i32, j6: i32) -> Precise {
    let [j1, j2, j3, j4, j5, j6] = [j1, j2, j3, j4, j5, j6].map(i64::from);
    let triads = [(j1, j2, j3), (j1, j5, j6), (j4, j2, j6), (j4, j5, j3)];
    if [j1, j2, j3, j4, j5, j6].iter().any(|&j| j < 0) || triads.iter().any(|&(x, y, z)| z < (x - y).abs() || z > x + y)
    {
        return Precise::ZERO;
    }
    let a = triads.map(|(x, y, z)| x + y + z);
    let b = [j1 + j2 + j4 + j5, j2 + j3 + j5 + j6, j3 + j1 + j6 + j4];
    // The triangle rules give b_i >= a_j for every i, j, so the range is never empty.
    let (t0, t1) = (*a.iter().max().unwrap(), *b.iter().min().unwrap());

    let mut term = BigUint::one();
    for &aj in &a {
        term.mul_all(&((t0 - aj + 1)..=(t1 - aj)).collect::<Vec<_>>());
    }
    let mut sum = SignedSum::new();
    for t in t0..=t1 {
        sum.add(&term, t % 2 == 1);
        if t < t1 {
            term.mul_all(&[t + 2, b[0] - t, b[1] - t, b[2] - t]);
            term.div_all_exact(&a.map(|aj| t + 1 - aj));
        }
    }
    // sqrt(Π Δ² / X²): Δ's factorials, and X's twice.
    let mut num: Vec<i64> = triads.iter().flat_map(|&(x, y, z)| [x + y - z, x - y + z, -x + y + z]).collect();
    num.extend([t0 + 1, t0 + 1]);
    let mut den: Vec<i64> = a.iter().map(|aj| aj + 1).collect();
    den.extend(a.iter().chain(&a).map(|aj| t1 - aj));
    den.extend(b.iter().chain(&b).map(|bi| bi - t0));
    sum.times_sqrt(Scaled::factorial_ratio(&num, &den))
}

/// The rank-1 symbol `(j 1 jp; k, kp-k, -kp)` of dipole line strengths (j, k: lower level;
/// jp, kp: upper level), from the closed forms of Edmonds (1957) Table 2.
///
/// Returns `0.0` unless `|jp - j| <= 1`, `|kp - k| <= 1`, `|k| <= j`, `|kp| <= jp` and
/// `j + jp >= 1` (with `j, jp >= 0`); negative k and kp are allowed.
///
/// With q = kp - k and σ = (-1)^(j - 1 + kp), the symbol is σ sqrt(N / D) times the sign shown
/// (Edmonds Table 2, rewritten for this column order through the Clebsch-Gordan relation
/// `(j 1 jp; k q -kp) = (-1)^(j-1+kp) <j k 1 q | jp kp> / sqrt(2jp+1)`):
///
/// ```text
/// jp = j+1:  q = +1:  +  N = (j+kp)(j+kp+1)      D = (2j+1)(2j+2)(2j+3)
///            q =  0:  +  N = (j-kp+1)(j+kp+1)    D = (2j+1)(j+1)(2j+3)
///            q = -1:  +  N = (j-kp)(j-kp+1)      D = (2j+1)(2j+2)(2j+3)
/// jp = j:    q = +1:  -  N = (j+kp)(j-kp+1)      D = 2j(j+1)(2j+1)
///            q =  0:  sign(kp)  N = kp²          D = j(j+1)(2j+1)
///            q = -1:  +  N = (j-kp)(j+kp+1)      D = 2j(j+1)(2j+1)
/// jp = j-1:  q = +1:  +  N = (j-kp)(j-kp+1)      D = 2j(2j-1)(2j+1)
///            q =  0:  -  N = (j-kp)(j+kp)        D = j(2j-1)(2j+1)
///            q = -1:  +  N = (j+kp)(j+kp+1)      D = 2j(2j-1)(2j+1)
/// ```
///
/// N and D are exact in double precision (for j below ~10^5), so the result is one division and
/// one square root away from the exact value: within 1 ulp.
pub fn three_j_rank1(j: i32, k: i32, jp: i32, kp: i32) -> f64 {
    // i128: the products below cannot overflow for any i32 input
    let (j, k, jp, kp) = (j as i128, k as i128, jp as i128, kp as i128);
    if j < 0 || jp < 0 || j + jp < 1 || (jp - j).abs() > 1 || (kp - k).abs() > 1 || k.abs() > j || kp.abs() > jp {
        return 0.0;
    }
    let q = kp - k;
    // (sign relative to σ, N, D)
    let (sign, n, d) = match (jp - j, q) {
        (1, 1) => (1, (j + kp) * (j + kp + 1), (2 * j + 1) * (2 * j + 2) * (2 * j + 3)),
        (1, 0) => (1, (j - kp + 1) * (j + kp + 1), (2 * j + 1) * (j + 1) * (2 * j + 3)),
        (1, _) => (1, (j - kp) * (j - kp + 1), (2 * j + 1) * (2 * j + 2) * (2 * j + 3)),
        (0, 1) => (-1, (j + kp) * (j - kp + 1), 2 * j * (j + 1) * (2 * j + 1)),
        (0, 0) => (kp.signum(), kp * kp, j * (j + 1) * (2 * j + 1)),
        (0, _) => (1, (j - kp) * (j + kp + 1), 2 * j * (j + 1) * (2 * j + 1)),
        (_, 1) => (1, (j - kp) * (j - kp + 1), 2 * j * (2 * j - 1) * (2 * j + 1)),
        (_, 0) => (-1, (j - kp) * (j + kp), j * (2 * j - 1) * (2 * j + 1)),
        (_, _) => (1, (j + kp) * (j + kp + 1), 2 * j * (2 * j - 1) * (2 * j + 1)),
    };
    let magnitude = (n as f64 / d as f64).sqrt();
    let sigma = if (j - 1 + kp).rem_euclid(2) == 0 { 1 } else { -1 };
    if sign * sigma < 0 {
        -magnitude
    } else {
        magnitude
    }
}

/// The Clebsch-Gordan coefficient `<j1 m1 j2 m2 | J M>` for integer angular momenta,
/// Condon-Shortley phases, from the 3j symbol (Edmonds eq. 3.7.3):
///
/// ```text
/// <j1 m1 j2 m2 | J M> = (-1)^(j1 - j2 + M) sqrt(2J + 1) (j1 j2 J; m1 m2 -M).
/// ```
///
/// Zero when a selection rule fails (`m1 + m2 != M`, `|m| > j`, triangle rule). Exact to within
/// 1 ulp as [`three_j`] is (the square root adds at most one more rounding).
pub fn clebsch_gordan(j1: i32, m1: i32, j2: i32, m2: i32, j: i32, m: i32) -> f64 {
    let value = (2.0 * j as f64 + 1.0).sqrt() * three_j(j1, j2, j, m1, m2, -m);
    if (j1 as i64 - j2 as i64 + m as i64).rem_euclid(2) == 0 {
        value
    } else {
        -value
    }
}

/// Unsigned big integer, little-endian base-2^32 digits, no leading zero digits (zero = empty).
/// Only what the Racah sum needs: multiplication and exact division by a small integer,
/// addition, comparison, subtraction of a smaller number, and rounding to a [`Scaled`].
#[derive(Clone, Debug)]
struct BigUint(Vec<u32>);

impl BigUint {
    fn zero() -> Self {
        BigUint(Vec::new())
    }

    fn one() -> Self {
        BigUint(vec![1])
    }

    /// `self *= m`, m > 0.
    fn mul_small(&mut self, m: u64) {
        let mut carry: u128 = 0;
        for digit in self.0.iter_mut() {
            let t = *digit as u128 * m as u128 + carry;
            *digit = t as u32;
            carry = t >> 32;
        }
        while carry > 0 {
            self.0.push(carry as u32);
            carry >>= 32;
        }
    }

    /// `self /= d` where d > 0 divides self exactly.
    fn div_small_exact(&mut self, d: u64) {
        let mut remainder = 0u64;
        if d <= u32::MAX as u64 {
            // remainder < d < 2^32: every partial dividend fits in 64 bits (hardware division)
            for digit in self.0.iter_mut().rev() {
                let t = (remainder << 32) | *digit as u64;
                *digit = (t / d) as u32;
                remainder = t % d;
            }
        } else {
            for digit in self.0.iter_mut().rev() {
                let t = ((remainder as u128) << 32) | *digit as u128;
                *digit = (t / d as u128) as u32;
                remainder = (t % d as u128) as u64;
            }
        }
        debug_assert_eq!(remainder, 0, "inexact division in the Racah sum");
        self.trim();
    }

    /// `self *= C(n, r)`, 0 <= r <= n, as r steps `x -> x (n - r + i) / i`, each exact because
    /// after step i the factor is `C(n - r + i, i)`.
    fn mul_binomial(&mut self, n: i64, r: i64) {
        let r = r.min(n - r);
        for i in 1..=r {
            self.mul_small((n - r + i) as u64);
            self.div_small_exact(i as u64);
        }
    }

    /// `self *= Π factors` (each >= 1), the factors gathered into as few 64-bit products as fit.
    fn mul_all(&mut self, factors: &[i64]) {
        for product in packed(factors) {
            self.mul_small(product);
        }
    }

    /// `self /= Π divisors` (each >= 1) where the product divides self exactly (then so does
    /// every part of it, so the packed steps are exact too).
    fn div_all_exact(&mut self, divisors: &[i64]) {
        for product in packed(divisors) {
            self.div_small_exact(product);
        }
    }

    fn add_assign(&mut self, other: &BigUint) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        let mut carry = 0u64;
        for (i, digit) in self.0.iter_mut().enumerate() {
            let t = *digit as u64 + other.0.get(i).copied().unwrap_or(0) as u64 + carry;
            *digit = t as u32;
            carry = t >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    /// `self - other`, requires `self >= other`.
    fn sub(&self, other: &BigUint) -> BigUint {
        let mut out = self.0.clone();
        let mut borrow = 0i64;
        for (i, digit) in out.iter_mut().enumerate() {
            let t = *digit as i64 - other.0.get(i).copied().unwrap_or(0) as i64 - borrow;
            borrow = (t < 0) as i64;
            *digit = t.rem_euclid(1 << 32) as u32;
        }
        debug_assert_eq!(borrow, 0, "BigUint::sub: negative result");
        let mut out = BigUint(out);
        out.trim();
        out
    }

    fn cmp(&self, other: &BigUint) -> Ordering {
        self.0.len().cmp(&other.0.len()).then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    /// The value as `mantissa · 2^exponent` from its top four digits (≥ 97 significant bits,
    /// rounded to the 106 of a double-double).
    fn to_scaled(&self) -> Scaled {
        let top = self.0.len();
        let low = top.saturating_sub(4);
        let mut value = DoubleDouble::from(0.0);
        for &digit in self.0[low..].iter().rev() {
            value = value.mul_f64(4294967296.0).add_f64(digit as f64);
        }
        Scaled::new(value, 32 * low as i64)
    }
}

/// The products of consecutive runs of `factors` (each in [1, 2^63)), each run as long as its
/// product stays below 2^64.
fn packed(factors: &[i64]) -> impl Iterator<Item = u64> + '_ {
    let mut rest = factors.iter().map(|&f| {
        debug_assert!(f >= 1, "a factor of an exact step must be >= 1");
        f as u64
    });
    let mut pending = rest.next();
    std::iter::from_fn(move || {
        let mut product = pending.take()?;
        for f in rest.by_ref() {
            match product.checked_mul(f) {
                Some(p) => product = p,
                None => {
                    pending = Some(f);
                    break;
                }
            }
        }
        Some(product)
    })
}

/// An exact alternating sum of big integers: the positive and the negative terms apart.
struct SignedSum {
    plus: BigUint,
    minus: BigUint,
}

impl SignedSum {
    fn new() -> Self {
        SignedSum { plus: BigUint::zero(), minus: BigUint::zero() }
    }

    fn add(&mut self, term: &BigUint, negative: bool) {
        if negative {
            self.minus.add_assign(term);
        } else {
            self.plus.add_assign(term);
        }
    }

    /// `sqrt(prefactor) · (plus - minus)`, exactly zero when the sum is.
    fn times_sqrt(&self, prefactor: Scaled) -> Precise {
        let (sum, negative) = match self.plus.cmp(&self.minus) {
            Ordering::Equal => return Precise::ZERO,
            Ordering::Greater => (self.plus.sub(&self.minus), false),
            Ordering::Less => (self.minus.sub(&self.plus), true),
        };
        Precise { negative, magnitude: Some(prefactor.sqrt().mul(sum.to_scaled())) }
    }
}

/// A real number to about 106 significant bits with an unbounded exponent: a sign and a
/// [`Scaled`] magnitude, or exactly zero. The value of a symbol before its rounding to double
/// precision, so that a product of symbols, square roots and constants (the angular coefficients
/// of `crate::sturmian::angular`) is rounded once: the result is the exact value correctly
/// rounded, except within ~1e-28 relative of a rounding tie.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Precise {
    negative: bool,
    /// `None`: exactly zero.
    magnitude: Option<Scaled>,
}

impl Precise {
    pub const ZERO: Precise = Precise { negative: false, magnitude: None };

    /// 1/π to 106 bits (hi = FRAC_1_PI, lo = 1/π - hi from a 50-digit mpmath value; their sum is
    /// within 3e-33 relative of 1/π).
    pub fn inverse_pi() -> Self {
        let dd = DoubleDouble { hi: std::f64::consts::FRAC_1_PI, lo: -1.9678676675182486e-17 };
        Precise { negative: false, magnitude: Some(Scaled::new(dd, 0)) }
    }

    /// The finite double `x`, exactly.
    pub fn from_f64(x: f64) -> Self {
        debug_assert!(x.is_finite());
        if x == 0.0 {
            return Precise::ZERO;
        }
        Precise { negative: x < 0.0, magnitude: Some(Scaled::new(DoubleDouble::from(x.abs()), 0)) }
    }

    /// The square root of a value >= 0.
    pub fn sqrt(self) -> Self {
        debug_assert!(!self.negative, "square root of a negative Precise");
        Precise { negative: false, magnitude: self.magnitude.map(Scaled::sqrt) }
    }

    /// Rounds to the nearest double.
    pub fn to_f64(self) -> f64 {
        let magnitude = self.magnitude.map_or(0.0, Scaled::to_f64);
        if self.negative {
            -magnitude
        } else {
            magnitude
        }
    }
}

impl std::ops::Mul for Precise {
    type Output = Precise;
    fn mul(self, other: Precise) -> Precise {
        match (self.magnitude, other.magnitude) {
            (Some(a), Some(b)) => Precise { negative: self.negative != other.negative, magnitude: Some(a.mul(b)) },
            _ => Precise::ZERO,
        }
    }
}

impl std::ops::Neg for Precise {
    type Output = Precise;
    fn neg(self) -> Precise {
        Precise { negative: !self.negative && self.magnitude.is_some(), magnitude: self.magnitude }
    }
}

/// Double-double number `hi + lo`, `|lo| <= ulp(hi)/2`: about 106 significant bits.
#[derive(Clone, Copy, Debug)]
struct DoubleDouble {
    hi: f64,
    lo: f64,
}

impl From<f64> for DoubleDouble {
    fn from(x: f64) -> Self {
        DoubleDouble { hi: x, lo: 0.0 }
    }
}

impl DoubleDouble {
    /// `a + b` exactly as `hi + lo`, for `|a| >= |b|` (Dekker).
    fn fast_two_sum(a: f64, b: f64) -> Self {
        let s = a + b;
        DoubleDouble { hi: s, lo: b - (s - a) }
    }

    /// `a + b` exactly as `hi + lo`, any magnitudes (Knuth).
    fn two_sum(a: f64, b: f64) -> Self {
        let s = a + b;
        let bv = s - a;
        DoubleDouble { hi: s, lo: (a - (s - bv)) + (b - bv) }
    }

    fn add_f64(self, b: f64) -> Self {
        let s = Self::two_sum(self.hi, b);
        Self::fast_two_sum(s.hi, s.lo + self.lo)
    }

    fn mul_f64(self, b: f64) -> Self {
        let p = self.hi * b;
        let e = self.hi.mul_add(b, -p);
        Self::fast_two_sum(p, self.lo.mul_add(b, e))
    }

    fn div_f64(self, b: f64) -> Self {
        let q = self.hi / b;
        let p = q * b;
        let e = q.mul_add(b, -p);
        let remainder = ((self.hi - p) - e) + self.lo;
        Self::fast_two_sum(q, remainder / b)
    }

    fn mul(self, other: Self) -> Self {
        let p = self.hi * other.hi;
        let e = self.hi.mul_add(other.hi, -p);
        Self::fast_two_sum(p, e + (self.hi * other.lo + self.lo * other.hi))
    }

    /// One Newton step on the double square root: `x + (a - x²) / (2x)`.
    fn sqrt(self) -> Self {
        let x = self.hi.sqrt();
        let p = x * x;
        let e = x.mul_add(x, -p);
        let remainder = ((self.hi - p) - e) + self.lo;
        Self::fast_two_sum(x, remainder / (2.0 * x))
    }
}

/// `mantissa · 2^exponent`, with the mantissa kept in [1, 2) so that products of very large and
/// very small factors neither overflow nor underflow.
#[derive(Clone, Copy, Debug)]
struct Scaled {
    mantissa: DoubleDouble,
    exponent: i64,
}

impl Scaled {
    /// Normalizes `value · 2^exponent`, value > 0 and finite.
    fn new(value: DoubleDouble, exponent: i64) -> Self {
        let e = ((value.hi.to_bits() >> 52) & 0x7ff) as i64 - 1023;
        let scale = pow2(-e);
        Scaled { mantissa: DoubleDouble { hi: value.hi * scale, lo: value.lo * scale }, exponent: exponent + e }
    }

    /// `Π num_i! / Π den_i!` (all arguments >= 0). Each integer 2..=max appears with a net
    /// multiplicity (number of numerator factorials that contain it minus denominator ones);
    /// runs of factors are multiplied as exact integers below 2^53 before each double-double
    /// step, so the relative error is a few 1e-32 per step.
    fn factorial_ratio(num: &[i64], den: &[i64]) -> Self {
        let max = num.iter().chain(den).copied().max().unwrap_or(0).max(1) as usize;
        // multiplicity[i] = #{num >= i} - #{den >= i}, by a difference array
        let mut multiplicity = vec![0i64; max + 2];
        for &n in num {
            multiplicity[n as usize + 1] -= 1;
            multiplicity[0] += 1;
        }
        for &n in den {
            multiplicity[n as usize + 1] += 1;
            multiplicity[0] -= 1;
        }
        const EXACT: u128 = 1 << 53;
        let mut acc = Scaled::new(DoubleDouble::from(1.0), 0);
        let (mut up, mut down) = (1u64, 1u64);
        let mut running = 0i64;
        for (i, &step) in multiplicity.iter().enumerate().take(max + 1) {
            running += step;
            if i < 2 {
                continue;
            }
            let i = i as u64;
            for _ in 0..running.abs() {
                let run = if running > 0 { &mut up } else { &mut down };
                let next = *run as u128 * i as u128;
                if next <= EXACT {
                    *run = next as u64;
                    continue;
                }
                let flushed =
                    if running > 0 { acc.mantissa.mul_f64(*run as f64) } else { acc.mantissa.div_f64(*run as f64) };
                acc = Scaled::new(flushed, acc.exponent);
                *run = i;
            }
        }
        let mantissa = acc.mantissa.mul_f64(up as f64).div_f64(down as f64);
        Scaled::new(mantissa, acc.exponent)
    }

    fn mul(self, other: Scaled) -> Scaled {
        Scaled::new(self.mantissa.mul(other.mantissa), self.exponent + other.exponent)
    }

    fn sqrt(self) -> Scaled {
        // make the exponent even: mantissa in [1, 4)
        let odd = self.exponent.rem_euclid(2);
        let m = self.mantissa.mul_f64(pow2(odd));
        Scaled::new(m.sqrt(), (self.exponent - odd) / 2)
    }

    /// Rounds to the nearest double (exact power-of-two scaling unless the result is subnormal).
    fn to_f64(self) -> f64 {
        super::times_pow2(self.mantissa.hi + self.mantissa.lo, self.exponent)
    }
}

/// `2^e` for -1022 <= e <= 1023, exactly.
fn pow2(e: i64) -> f64 {
    debug_assert!((-1022..=1023).contains(&e));
    f64::from_bits(((e + 1023) as u64) << 52)
}
