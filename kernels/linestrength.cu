// Line-strength kernels (src/linestrength/cuda.rs): everything around the cuBLAS DGEMMs of
// eqs. 14-15 that is not a matrix product. Each is a line-by-line counterpart of a function of
// src/linestrength/cpu.rs. Column-major, 0-based; sizes and offsets are 64-bit (GAIN's 32-bit
// index arithmetic overflowed at large Nvib). One thread per output element, grid-stride loops.

#define BLOCK 256

// X[v_p + n_vib (slot_p + slots i)] = c_p(i) where |c_p(i)| > thresh (cpu::scatter_lower), with
// c_p(i) = sum_e T[p, e] vectors[col_e + ld column_i] when the block has an unfolding T (t_start
// non-null; cpu::unfold), else vectors[p + ld column_i]. column_i = columns[i] (stored states) or i.
// X must be zero on entry.
extern "C" __global__ void ls_scatter_lower(long long n_primitive, long long n, const double* vectors, long long ld,
                                            const long long* columns, const long long* t_start,
                                            const long long* t_col, const double* t_value, const unsigned* v,
                                            const unsigned* slot, long long n_vib, long long slots, double thresh,
                                            double* x) {
    long long total = n_primitive * n;
    for (long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x; idx < total;
         idx += (long long)gridDim.x * blockDim.x) {
        long long p = idx % n_primitive;
        long long i = idx / n_primitive;
        long long column = columns ? columns[i] : i;
        const double* vec = vectors + ld * column;
        double c;
        if (t_start) {
            c = 0.0;
            for (long long e = t_start[p]; e < t_start[p + 1]; ++e) c += t_value[e] * vec[t_col[e]];
        } else {
            c = vec[p];
        }
        if (fabs(c) > thresh) x[v[p] + n_vib * (slot[p] + slots * i)] = c;
    }
}

// half[q + n_upper i] = sum_e factor_e Y[v_q + n_vib m_e + 3 n_vib (r_e + lower_slots i)] over the
// entries e = start[slot_q] .. start[slot_q + 1] (cpu::contract).
extern "C" __global__ void ls_contract(long long n_upper, long long n, const unsigned* v, const unsigned* slot,
                                       const unsigned* start, const unsigned* lower_slot, const unsigned* component,
                                       const double* factor, const double* y, long long n_vib, long long lower_slots,
                                       double* half) {
    long long total = n_upper * n;
    long long rows = 3 * n_vib;
    for (long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x; idx < total;
         idx += (long long)gridDim.x * blockDim.x) {
        long long q = idx % n_upper;
        long long i = idx / n_upper;
        unsigned s = slot[q];
        long long vq = v[q];
        double sum = 0.0;
        for (unsigned e = start[s]; e < start[s + 1]; ++e) {
            long long row = vq + n_vib * component[e];
            long long col = lower_slot[e] + lower_slots * i;
            sum += factor[e] * y[row + rows * col];
        }
        half[idx] = sum;
    }
}

// out[r + rows i] = sum_e a_value[e] b[a_col[e] + cols i], e in a_start[r] .. a_start[r + 1]
// (cpu::csr_times).
extern "C" __global__ void ls_csr_times(long long rows, long long cols, long long n, const long long* a_start,
                                        const long long* a_col, const double* a_value, const double* b,
                                        double* out) {
    long long total = rows * n;
    for (long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x; idx < total;
         idx += (long long)gridDim.x * blockDim.x) {
        long long r = idx % rows;
        long long i = idx / rows;
        const double* column = b + cols * i;
        double sum = 0.0;
        for (long long e = a_start[r]; e < a_start[r + 1]; ++e) sum += a_value[e] * column[a_col[e]];
        out[idx] = sum;
    }
}
