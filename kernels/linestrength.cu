// Line-strength kernels (src/linestrength/cuda.rs): everything around the cuBLAS DGEMMs of
// eqs. 14-15 that is not a matrix product. Each is a line-by-line counterpart of a function of
// src/linestrength/cpu.rs. Column-major, 0-based; sizes and offsets are 64-bit (GAIN's 32-bit
// index arithmetic overflowed at large Nvib). One thread per output element, grid-stride loops.

#define BLOCK 256

// X[v_p + n_vib (slot_p + slots (d + ndeg i))] = c_pd(i) where |c_pd(i)| > thresh
// (cpu::scatter_lower), with c_pd(i) = sum_e T[d n_primitive + p, e] vectors[col_e + ld column_i]
// when the block has an unfolding (t_start non-null: the stacked component matrices; cpu::unfold),
// else vectors[p + ld column_i] (ndeg = 1). column_i = columns[i] (stored states) or i.
// X must be zero on entry.
extern "C" __global__ void ls_scatter_lower(long long n_primitive, long long ndeg, long long n, const double* vectors,
                                            long long ld, const long long* columns, const long long* t_start,
                                            const long long* t_col, const double* t_value, const unsigned* v,
                                            const unsigned* slot, long long n_vib, long long slots, double thresh,
                                            double* x) {
    long long rows = ndeg * n_primitive;
    long long total = rows * n;
    for (long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x; idx < total;
         idx += (long long)gridDim.x * blockDim.x) {
        long long row = idx % rows;
        long long i = idx / rows;
        long long p = row % n_primitive;
        long long d = row / n_primitive;
        long long column = columns ? columns[i] : i;
        const double* vec = vectors + ld * column;
        double c;
        if (t_start) {
            c = 0.0;
            for (long long e = t_start[row]; e < t_start[row + 1]; ++e) c += t_value[e] * vec[t_col[e]];
        } else {
            c = vec[p];
        }
        if (fabs(c) > thresh) x[v[p] + n_vib * (slot[p] + slots * (d + ndeg * i))] = c;
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

// The constants of one (lower block, upper block) pair (filters::LineRule, same layout).
struct LineRule {
    long long n_upper, n_levels, ndeg_lower, ndeg_upper;
    unsigned long long kept_mask;  // bit d_i + 3 d_f: component pair kept
    unsigned long long mode;       // bit 0: TROVE's rules, bit 1: emission
    double divisor;                // ndeg_lower, or 1 (REDUCED)
    double gns;                    // g_ns of the lower block
    double rotational;             // (2J'+1)(2J''+1)
    double einstein_factor;        // A_coef (2J_A+1)
    double intensity_coefficient;  // I_coef
    double emission_factor;        // h c g_ns (2J''+1) / (4 pi)
    double zpe, beta, partition_function;
    double freq_window[2], lower_energy[2], upper_energy[2];
    double thresh_line, thresh_intens;
};

// TROVE's small_ = epsilon(1d0) (filters::SMALL).
#define TROVE_SMALL 2.220446049250313e-16

// A kept line (filters::RawLine, same layout).
struct RawLine {
    long long upper_state, level;
    double wavenumber, linestrength, einstein_a, intensity;
};

// counters[0]: lines kept (their slots in `lines`), [1]: pairs outside the windows, [2]: pairs
// below the thresholds, [3]: smallest index i n_upper + f of a pair whose S, A or I is not finite
// (ULLONG_MAX on entry). One thread per pair (upper level f, batch level i); the same verdict as
// filters::LineRule::judge (same operations in the same order), with the amplitudes at
// f + n_upper (d_i + ndeg_lower (i + n_levels d_f)).
extern "C" __global__ void ls_lines(LineRule rule, const double* amplitudes, const double* lower_energies,
                                    const double* upper_energies, RawLine* lines,
                                    unsigned long long* counters) {
    long long total = rule.n_upper * rule.n_levels;
    bool trove = (rule.mode & 1ULL) != 0;
    bool emission = (rule.mode & 2ULL) != 0;
    for (long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x; idx < total;
         idx += (long long)gridDim.x * blockDim.x) {
        long long f = idx % rule.n_upper;
        long long i = idx / rule.n_upper;
        double e_lower = lower_energies[i];
        double e_upper = upper_energies[f];
        double nu = emission ? e_lower - e_upper : e_upper - e_lower;
        bool direction = trove ? nu >= -TROVE_SMALL : nu > 0.0;
        bool inside = direction && nu >= rule.freq_window[0] && nu <= rule.freq_window[1] &&
                      e_lower - rule.zpe >= rule.lower_energy[0] && e_lower - rule.zpe <= rule.lower_energy[1] &&
                      e_upper - rule.zpe >= rule.upper_energy[0] && e_upper - rule.zpe <= rule.upper_energy[1];
        if (!inside) {
            atomicAdd(&counters[1], 1ULL);
            continue;
        }
        double sum = 0.0;
        for (long long d_f = 0; d_f < rule.ndeg_upper; ++d_f) {
            for (long long d_i = 0; d_i < rule.ndeg_lower; ++d_i) {
                if ((rule.kept_mask >> (d_i + 3 * d_f)) & 1ULL) {
                    double a = amplitudes[f + rule.n_upper * (d_i + rule.ndeg_lower * (i + rule.n_levels * d_f))];
                    sum += a * a;
                }
            }
        }
        double squared = sum / rule.divisor;
        double anu = fabs(nu);
        double linestrength = squared * rule.gns * rule.rotational;
        double einstein_a = rule.einstein_factor * squared * (anu * anu * anu);
        double intensity;
        if (emission) {
            intensity = einstein_a * rule.emission_factor * anu * exp(-(e_lower - rule.zpe) * rule.beta) /
                        rule.partition_function;
        } else {
            // intensity::boltzmann_factor.
            double boltzmann = anu * exp(-(e_lower - rule.zpe) * rule.beta) * (1.0 - exp(-anu * rule.beta)) /
                               rule.partition_function;
            intensity = linestrength * rule.intensity_coefficient * boltzmann;
        }
        if (!isfinite(linestrength) || !isfinite(einstein_a) || !isfinite(intensity)) {
            atomicMin(&counters[3], (unsigned long long)idx);
            continue;
        }
        double line_quantity = trove ? sum : linestrength;
        if (line_quantity >= rule.thresh_line && intensity >= rule.thresh_intens &&
            (!trove || einstein_a > TROVE_SMALL)) {
            unsigned long long slot = atomicAdd(&counters[0], 1ULL);
            RawLine line = {f, i, nu, linestrength, einstein_a, intensity};
            lines[slot] = line;
        } else {
            atomicAdd(&counters[2], 1ULL);
        }
    }
}
