//! Multithreaded double-precision matrix product on the CPU.
//!
//! C = A B with A (m x k) and B (k x n) given by strides (so transposes cost nothing) and C
//! column-major with leading dimension `ldc`. C is split into tiles of rows and columns computed
//! in parallel (rayon), each by `matrixmultiply`'s cache-blocked SIMD kernel, so that narrow
//! products (few columns) use every core too.

use rayon::prelude::*;

/// A strided operand: element (i, j) at `data[i * row_stride + j * col_stride]`.
#[derive(Clone, Copy, Debug)]
pub struct Strided<'a> {
    pub data: &'a [f64],
    pub row_stride: usize,
    pub col_stride: usize,
}

impl<'a> Strided<'a> {
    /// A column-major matrix with leading dimension `ld`.
    pub fn col_major(data: &'a [f64], ld: usize) -> Self {
        Strided { data, row_stride: 1, col_stride: ld }
    }

    /// The transpose of a column-major matrix with leading dimension `ld`.
    pub fn transposed(data: &'a [f64], ld: usize) -> Self {
        Strided { data, row_stride: ld, col_stride: 1 }
    }
}

/// Columns and rows of C per parallel task.
const COLUMNS_PER_TASK: usize = 64;
const ROWS_PER_TASK: usize = 512;

/// C (m x n, column-major, leading dimension `ldc`) = A (m x k) B (k x n); `c` is overwritten.
pub fn dgemm(m: usize, k: usize, n: usize, a: Strided<'_>, b: Strided<'_>, c: &mut [f64], ldc: usize) {
    if m == 0 || n == 0 {
        return;
    }
    assert!(ldc >= m && c.len() >= ldc * (n - 1) + m, "C too small for {m} x {n} with ldc {ldc}");
    assert!(k == 0 || a.data.len() > (m - 1) * a.row_stride + (k - 1) * a.col_stride, "A too small");
    assert!(k == 0 || b.data.len() > (k - 1) * b.row_stride + (n - 1) * b.col_stride, "B too small");
    let row_tasks = m.div_ceil(ROWS_PER_TASK);
    let tasks = n.div_ceil(COLUMNS_PER_TASK) * row_tasks;
    let c_ptr = SendPtr(c.as_mut_ptr());
    (0..tasks).into_par_iter().for_each(|t| {
        let (row_first, first) = ((t % row_tasks) * ROWS_PER_TASK, (t / row_tasks) * COLUMNS_PER_TASK);
        let (rows, cols) = (ROWS_PER_TASK.min(m - row_first), COLUMNS_PER_TASK.min(n - first));
        let c_ptr = &c_ptr;
        // SAFETY: task t writes only its tile (rows row_first.., columns first..) of C, disjoint
        // between tasks, and every read of A and B stays inside the slices checked above.
        unsafe {
            matrixmultiply::dgemm(
                rows,
                k,
                cols,
                1.0,
                a.data.as_ptr().add(row_first * a.row_stride),
                a.row_stride as isize,
                a.col_stride as isize,
                b.data.as_ptr().add(first * b.col_stride),
                b.row_stride as isize,
                b.col_stride as isize,
                0.0,
                c_ptr.0.add(row_first + first * ldc),
                1,
                ldc as isize,
            );
        }
    });
}

struct SendPtr(*mut f64);
// SAFETY: used only to hand disjoint column ranges of one buffer to rayon tasks.
unsafe impl Sync for SendPtr {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_triple_loop_on_integer_matrices() {
        // Reference: the textbook triple loop on small-integer matrices (exact in f64).
        let (m, k, n) = (1031, 5, 131);
        let a: Vec<f64> = (0..m * k).map(|i| ((i * 7) % 11) as f64 - 5.0).collect();
        let b: Vec<f64> = (0..k * n).map(|i| ((i * 3) % 13) as f64 - 6.0).collect();
        let mut c = vec![0.0; m * n];
        // A^T is stored: a holds a k x m column-major matrix whose transpose we multiply.
        dgemm(m, k, n, Strided::transposed(&a, k), Strided::col_major(&b, k), &mut c, m);
        for j in 0..n {
            for i in 0..m {
                let expect: f64 = (0..k).map(|l| a[l + k * i] * b[l + k * j]).sum();
                assert_eq!(c[i + m * j], expect);
            }
        }
    }
}
