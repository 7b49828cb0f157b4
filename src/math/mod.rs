//! Shared numerics used by several routine families.

pub mod dense;
pub mod gauss_legendre;
pub mod gemm;
pub mod panels;
pub mod scalar;
pub mod wigner;

/// The factors whose product is 2^`e`, in the order to apply them: 2^±1000 while more than 1000
/// remain, then the rest (each a normal double). Multiplying by them one after another scales by
/// 2^e exactly whenever every partial product is a normal double, and gives Inf (or 0) where the
/// result leaves double precision.
pub fn pow2_steps(e: i64) -> impl Iterator<Item = f64> {
    let factor = |s: i64| f64::from_bits(((s + 1023) as u64) << 52);
    let big = e.unsigned_abs() / 1000;
    let step = if e < 0 { -1000 } else { 1000 };
    std::iter::repeat_n(factor(step), big as usize).chain(std::iter::once(factor(e - step * big as i64)))
}

/// x · 2^e for any e ([`pow2_steps`]): exact whenever the result is a normal double.
pub fn times_pow2(x: f64, e: i64) -> f64 {
    pow2_steps(e).fold(x, |x, f| x * f)
}
