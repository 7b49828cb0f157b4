//! The synthetic C3v(M) symmetric top of tests/support/symmetric_top.rs proves its own symmetry:
//! - the group data: the E matrices and the actions on the Wang functions, the vibrational
//!   functions and the primitive functions are representations with one multiplication table;
//!   the Wang action is TROVE's (Wigner D route of `MLrotsymmetry_generate`) and gives TROVE's
//!   rotational species table (`ML_rotsymmetry_XY3`);
//! - TROVE's rotational factor f (atomgpu::linestrength::rotation) is a vector operator under that
//!   action, with the matrix A(g) of the model, and the dipole matrix transforms with B(g);
//! - the unfoldings T_d are orthonormal, complete, and their columns transform as their species;
//!   the levels are orthonormal eigenvectors;
//! - brute force in the primitive basis (`direct_half_linestrength` per component, for every lower
//!   level, every pair of blocks with |J - J'| <= 1, J + J' >= 1 and every pair of levels): the
//!   C3v(M) selection rules, the E <-> E amplitude structure, the component sum rules, the
//!   exchange antisymmetry, and TROVE's REDUCED line strength against the full one (also through
//!   the transcription of TROVE's loop, tests/support/trove_degenerate.rs).
//!
//! Run with `-- --nocapture` to see the numbers.

#[path = "support/molecule.rs"]
mod molecule;
#[path = "support/symmetric_top.rs"]
mod symmetric_top;
#[path = "support/trove_degenerate.rs"]
mod trove;

use atomgpu::linestrength::cpu::direct_half_linestrength;
use atomgpu::linestrength::rotation::wang_factor;
use molecule::wang_labels;
use num_complex::Complex64;
use std::collections::HashMap;
use std::sync::OnceLock;
use symmetric_top::*;

fn model() -> &'static Model {
    static MODEL: OnceLock<Model> = OnceLock::new();
    MODEL.get_or_init(|| c3v_model(ModelParams::default()))
}

/// Column-major `a^T b` (a: rows x m, b: rows x n) -> m x n.
fn at_b(a: &[f64], b: &[f64], rows: usize) -> Vec<f64> {
    let (m, n) = (a.len() / rows.max(1), b.len() / rows.max(1));
    let mut c = vec![0.0; m * n];
    for j in 0..n {
        for i in 0..m {
            c[i + m * j] = (0..rows).map(|r| a[r + rows * i] * b[r + rows * j]).sum();
        }
    }
    c
}

/// Column-major `a b` (a: rows x k, b: k x n).
fn ab(a: &[f64], b: &[f64], rows: usize, k: usize) -> Vec<f64> {
    let n = b.len() / k.max(1);
    let mut c = vec![0.0; rows * n];
    for j in 0..n {
        for l in 0..k {
            let x = b[l + k * j];
            if x != 0.0 {
                for i in 0..rows {
                    c[i + rows * j] += a[i + rows * l] * x;
                }
            }
        }
    }
    c
}

fn identity_error(c: &[f64], n: usize) -> f64 {
    let mut e = 0.0f64;
    for j in 0..n {
        for i in 0..n {
            e = e.max((c[i + n * j] - if i == j { 1.0 } else { 0.0 }).abs());
        }
    }
    e
}

fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
}

/// The operation k with D^E(k) = D^E(g) D^E(h) (D^E is faithful).
fn product(ops: &[Operation], g: usize, h: usize) -> usize {
    let (a, b) = (&ops[g].e, &ops[h].e);
    let c: Vec<f64> = (0..4).map(|x| (0..2).map(|l| a[x / 2][l] * b[l][x % 2]).sum()).collect();
    ops.iter()
        .position(|o| (0..4).all(|x| (o.e[x / 2][x % 2] - c[x]).abs() < 1e-12))
        .expect("the E matrices close under products")
}

#[test]
fn group_data_is_c3v() {
    let ops = operations();
    // Orthogonality of the characters, class sizes 1, 2, 3, and the A2 character: +1 on E and the
    // 3-cycles, -1 on the starred operations.
    for g1 in 0..3 {
        for g2 in 0..3 {
            let s: f64 = ops.iter().map(|o| o.character(g1) * o.character(g2)).sum::<f64>() / 6.0;
            assert!((s - if g1 == g2 { 1.0 } else { 0.0 }).abs() < 1e-14, "{g1} {g2} {s}");
        }
    }
    let a2: Vec<f64> = ops.iter().map(|o| o.character(A2)).collect();
    assert_eq!(a2, vec![1.0, 1.0, 1.0, -1.0, -1.0, -1.0]);
    // Every product stays in the group, the generators generate it.
    let mut reached = vec![0usize];
    while let Some(new) = reached
        .iter()
        .flat_map(|&g| GENERATORS.iter().map(move |&h| (g, h)))
        .map(|(g, h)| product(&ops, g, h))
        .find(|k| !reached.contains(k))
    {
        reached.push(new);
    }
    assert_eq!(reached.len(), N_OPERATIONS);
    // The 3x3 equivalent rotations follow the same table.
    for g in 0..6 {
        for h in 0..6 {
            let k = product(&ops, g, h);
            let (rg, rh, rk) = (ops[g].rotation_matrix(), ops[h].rotation_matrix(), ops[k].rotation_matrix());
            for i in 0..3 {
                for l in 0..3 {
                    let x: f64 = (0..3).map(|m| rg[i][m] * rh[m][l]).sum();
                    assert!((x - rk[i][l]).abs() < 1e-12, "R({g}) R({h}) != R({k})");
                }
            }
        }
    }
}

/// Wigner's d^J_{m'm}(beta) (Edmonds eq. 4.1.23).
fn wigner_d(j: i32, mp: i32, m: i32, beta: f64) -> f64 {
    let f = |x: i32| (1..=x).map(|v| v as f64).product::<f64>();
    let (c, s) = ((beta / 2.0).cos(), (beta / 2.0).sin());
    let mut sum = 0.0;
    for k in 0..=2 * j {
        if j + m - k < 0 || mp - m + k < 0 || j - mp - k < 0 {
            continue;
        }
        let sign = if (mp - m + k) % 2 == 0 { 1.0 } else { -1.0 };
        sum += sign * c.powi(2 * j + m - mp - 2 * k) * s.powi(mp - m + 2 * k)
            / (f(j + m - k) * f(k) * f(mp - m + k) * f(j - mp - k));
    }
    (f(j + mp) * f(j - mp) * f(j + m) * f(j - m)).sqrt() * sum
}

#[test]
fn wang_action_is_troves_and_a_representation() {
    let ops = operations();
    let mut worst = 0.0f64;
    for j in 0..=6u32 {
        let r = 2 * j as usize + 1;
        let labels = wang_labels(j);
        // The Wang functions in |J, k> (TROVE's matrix R): column = Wang function, row = k.
        let ks: Vec<i32> = labels.iter().map(|&(k, tau)| if tau == 0 || k == 0 { k } else { -k }).collect();
        let mut wang = vec![Complex64::new(0.0, 0.0); r * r];
        let i = Complex64::new(0.0, 1.0);
        let h = std::f64::consts::FRAC_1_SQRT_2;
        for (c, &(k, tau)) in labels.iter().enumerate() {
            let row = |kk: i32| ks.iter().position(|&x| x == kk).unwrap();
            if k == 0 {
                wang[row(0) + r * c] = if j % 2 == 0 { Complex64::new(1.0, 0.0) } else { -i };
                continue;
            }
            let p = if (j as i32 + k) % 2 == 0 { 1.0 } else { -1.0 };
            let sig = if (k % 3) % 2 == 0 { 1.0 } else { -1.0 };
            if tau == 0 {
                wang[row(k) + r * c] = Complex64::new(h, 0.0);
                wang[row(-k) + r * c] = Complex64::new(p * h, 0.0);
            } else {
                wang[row(k) + r * c] = -i * sig * h;
                wang[row(-k) + r * c] = i * sig * p * h;
            }
        }
        for (g, op) in ops.iter().enumerate() {
            let [phi, theta, chi] = op.euler;
            // T(n2, n1) = ddlmn_conj(J, n2, n1, phi, theta, chi) = exp(i (n2 phi + n1 chi)) d^J_{n1 n2}(theta).
            let mut t = vec![Complex64::new(0.0, 0.0); r * r];
            for (c, &n1) in ks.iter().enumerate() {
                for (row, &n2) in ks.iter().enumerate() {
                    t[row + r * c] = Complex64::from_polar(1.0, n2 as f64 * phi + n1 as f64 * chi)
                        * wigner_d(j as i32, n1, n2, theta);
                }
            }
            let w = wang_action(j, op);
            for a in 0..r {
                for b in 0..r {
                    let q: Complex64 = (0..r)
                        .flat_map(|x| (0..r).map(move |y| (x, y)))
                        .map(|(x, y)| wang[x + r * a].conj() * t[x + r * y] * wang[y + r * b])
                        .sum();
                    worst = worst.max((q - w[a + r * b]).norm());
                }
            }
            // Representation with the table of the E matrices.
            for (h2, op2) in ops.iter().enumerate() {
                let k = product(&ops, g, h2);
                let lhs = ab(&w, &wang_action(j, op2), r, r);
                assert!(max_abs_diff(&lhs, &wang_action(j, &ops[k])) < 1e-12, "J={j}: W({g}) W({h2}) != W({k})");
            }
        }
        // TROVE's species table (ML_rotsymmetry_XY3, C3V): K = 3n: tau 0 -> A1, tau 1 -> A2;
        // otherwise (K, 0), (K, 1) are the E components 1, 2 with TROVE's matrices exactly.
        for (c, &(k, tau)) in labels.iter().enumerate() {
            for op in &ops {
                let w = wang_action(j, op);
                if k % 3 == 0 {
                    let species = if tau == 0 { A1 } else { A2 };
                    for row in 0..r {
                        let expected = if row == c { op.character(species) } else { 0.0 };
                        assert!((w[row + r * c] - expected).abs() < 1e-14, "J={j} K={k} tau={tau} {}", op.name);
                    }
                } else {
                    let pair = [c - tau as usize, c - tau as usize + 1];
                    for (d2, &row) in pair.iter().enumerate() {
                        assert!((w[row + r * c] - op.e[d2][tau as usize]).abs() < 1e-14);
                    }
                }
            }
        }
    }
    println!("Wang action vs TROVE's Re(R^+ T R) route, J <= 6: max |difference| = {worst:.2e}");
    assert!(worst < 1e-12);
}

/// F_m (rows: lower Wang functions of J, columns: upper of J'), column-major, per component.
fn factor_tensor(j: u32, jp: u32) -> [Vec<f64>; 3] {
    let (l, u) = (wang_labels(j), wang_labels(jp));
    let mut f = [vec![0.0; l.len() * u.len()], vec![0.0; l.len() * u.len()], vec![0.0; l.len() * u.len()]];
    for (a, &(k, tau)) in l.iter().enumerate() {
        for (b, &(kp, taup)) in u.iter().enumerate() {
            if let Some((m, x)) = wang_factor(j, k as u32, tau as u8, jp, kp as u32, taup as u8, 0.0) {
                f[m][a + l.len() * b] = x;
            }
        }
    }
    f
}

#[test]
#[allow(clippy::needless_range_loop)]
fn rotational_factor_and_dipole_transform_as_vectors() {
    let ops = operations();
    let model = model();
    // W_J^T F_m W_J' = sum_n F_n A_nm for every (J, J') and operation.
    let mut worst_f = 0.0f64;
    for j in 0..=6u32 {
        for jp in j.saturating_sub(1)..=j + 1 {
            if j + jp == 0 {
                continue;
            }
            let f = factor_tensor(j, jp);
            let (r, rp) = (2 * j as usize + 1, 2 * jp as usize + 1);
            for op in &ops {
                let (w, wp) = (wang_action(j, op), wang_action(jp, op));
                let a = op.factor_transformation();
                for m in 0..3 {
                    let lhs = at_b(&w, &ab(&f[m], &wp, r, rp), r);
                    let rhs: Vec<f64> = (0..r * rp).map(|x| (0..3).map(|nn| f[nn][x] * a[nn][m]).sum()).collect();
                    worst_f = worst_f.max(max_abs_diff(&lhs, &rhs));
                }
            }
        }
    }
    // V^T dipole_m V = sum_n B_mn dipole_n, z A1 and (x, -y) as TROVE's E components.
    let n = model.n_vib;
    let mut worst_mu = 0.0f64;
    let scale = model.dipole.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    for (g, op) in ops.iter().enumerate() {
        let v = &model.vib_action[g];
        let b = op.dipole_transformation();
        for m in 0..3 {
            let mu = &model.dipole[n * n * m..n * n * (m + 1)];
            let lhs = at_b(v, &ab(mu, v, n, n), n);
            let rhs: Vec<f64> =
                (0..n * n).map(|x| (0..3).map(|nn| b[m][nn] * model.dipole[n * n * nn + x]).sum()).collect();
            worst_mu = worst_mu.max(max_abs_diff(&lhs, &rhs) / scale);
        }
        assert!((b[2][2] - 1.0).abs() < 1e-14 && b[2][0] == 0.0 && b[2][1] == 0.0 && b[0][2] == 0.0);
        let s = [1.0, -1.0];
        for d in 0..2 {
            for d2 in 0..2 {
                assert!((b[d][d2] - s[d] * op.e[d][d2] * s[d2]).abs() < 1e-14, "{}", op.name);
            }
        }
    }
    // Vibrational selection rules of the stored dipole: z between equal species only, x and y
    // only when one side is E; everything symmetric in (v, v').
    let mut forbidden = 0.0f64;
    let mut asym = 0.0f64;
    for m in 0..3 {
        for b in 0..n {
            for a in 0..n {
                let x = model.dipole[a + n * (b + n * m)];
                asym = asym.max((x - model.dipole[b + n * (a + n * m)]).abs());
                let (sa, sb) = (model.vib_species[a], model.vib_species[b]);
                let allowed = if m == 2 { sa == sb } else { sa == E || sb == E };
                if !allowed {
                    forbidden = forbidden.max(x.abs() / scale);
                }
            }
        }
    }
    println!(
        "f is a vector operator (J <= 6): max residual {worst_f:.2e}; dipole invariance residual {worst_mu:.2e}, \
         forbidden vibrational elements {forbidden:.2e}, asymmetry {asym:.2e} (relative to max |dipole| {scale:.3})"
    );
    assert!(worst_f < 1e-13 && worst_mu < 1e-13 && forbidden < 1e-13 && asym == 0.0);
}

#[test]
#[allow(clippy::needless_range_loop)]
fn unfoldings_are_orthonormal_complete_and_symmetry_adapted() {
    let model = model();
    let ops = operations();
    let (mut orth, mut complete, mut adapted) = (0.0f64, 0.0f64, 0.0f64);
    for j in 0..=model.params.j_max {
        let p_count = model.block(j, A1).n_primitive();
        let mut all = Vec::new();
        let mut count = 0;
        let actions: Vec<Vec<f64>> = ops.iter().map(|op| model.primitive_action(j, op)).collect();
        for gamma in 0..3 {
            let b = model.block(j, gamma);
            assert_eq!(b.row_start.len(), b.ndeg * p_count + 1);
            let t: Vec<Vec<f64>> = (0..b.ndeg).map(|d| b.unfolding_dense(d)).collect();
            for d in 0..b.ndeg {
                orth = orth.max(identity_error(&at_b(&t[d], &t[d], p_count), b.n_sym));
                all.extend_from_slice(&t[d]);
                count += b.n_sym;
            }
            // U(g) T_d = sum_d' T_d' D_{d'd}(g): the columns transform as their species.
            for (g, op) in ops.iter().enumerate() {
                for d in 0..b.ndeg {
                    let lhs = ab(&actions[g], &t[d], p_count, p_count);
                    let rhs: Vec<f64> = (0..p_count * b.n_sym)
                        .map(|x| (0..b.ndeg).map(|d2| t[d2][x] * op.irrep(gamma, d2, d)).sum())
                        .collect();
                    adapted = adapted.max(max_abs_diff(&lhs, &rhs));
                }
            }
            // Representation: U(g) U(h) = U(gh).
            if gamma == 0 && j <= 2 {
                for g in 0..6 {
                    for h in 0..6 {
                        let k = product(&ops, g, h);
                        let uu = ab(&actions[g], &actions[h], p_count, p_count);
                        assert!(max_abs_diff(&uu, &actions[k]) < 1e-12);
                    }
                }
            }
        }
        assert_eq!(count, p_count, "J={j}: the symmetrised functions must number the primitive ones");
        complete = complete.max(identity_error(&at_b(&all, &all, p_count), p_count));
        let sizes: Vec<usize> = (0..3).map(|g| model.block(j, g).n_sym).collect();
        println!("J={j}: n_primitive {p_count}, n_sym (A1, A2, E) = {sizes:?}");
    }
    println!(
        "unfoldings: max |T_d^T T_d - 1| {orth:.2e}, max |Q^T Q - 1| over all columns {complete:.2e}, \
         max |U T_d - sum T_d' D_d'd| {adapted:.2e}"
    );
    assert!(orth < 1e-13 && complete < 1e-13 && adapted < 1e-13);
}

#[test]
fn levels_are_orthonormal_eigenvectors() {
    let model = model();
    let (mut orth, mut residual) = (0.0f64, 0.0f64);
    let mut range = (f64::INFINITY, f64::NEG_INFINITY);
    for b in &model.blocks {
        let n = b.n_sym;
        orth = orth.max(identity_error(&at_b(&b.vectors, &b.vectors, n), n));
        let hc = ab(&b.hamiltonian, &b.vectors, n, n);
        for s in 0..n {
            for i in 0..n {
                let expected = b.vectors[i + n * s] * (b.energies[s] + model.zpe);
                residual = residual.max((hc[i + n * s] - expected).abs());
            }
        }
        for &e in &b.energies {
            range = (range.0.min(e), range.1.max(e));
        }
    }
    println!(
        "levels: max |C^T C - 1| {orth:.2e}, max |H c - (E + ZPE) c| {residual:.2e} cm^-1; \
         energies from {:.1} to {:.1} cm^-1 (ZPE {:.3})",
        range.0, range.1, model.zpe
    );
    for j in 0..=model.params.j_max {
        let lowest: Vec<String> = (0..3).map(|g| format!("{:.2}", model.block(j, g).energies[0])).collect();
        println!("  J={j}: lowest A1, A2, E levels {lowest:?}");
    }
    assert!(orth < 1e-12 && residual < 1e-9);
    assert!(range.0 == 0.0 && range.1 > 1000.0);
}

/// All amplitudes a(i, f; d_I, d_F) between blocks with |J - J'| <= 1, J + J' >= 1, by brute
/// force, and the closure norms of the lower components' half-linestrengths.
struct Sweep {
    /// (J, Gamma, J', Gamma') -> amplitudes at ((i n_f + f) ndeg_I + d_I) ndeg_F + d_F.
    amplitudes: HashMap<(u32, usize, u32, usize), Vec<f64>>,
    /// Max over lower E levels of | |h(T_0 c)|^2 - |h(T_1 c)|^2 | / max |h|^2.
    closure_e: f64,
    /// Max over lower levels of the weight of h outside the allowed upper species, relative.
    closure_species: f64,
    half_calls: usize,
    seconds: f64,
}

fn allowed(gi: usize, gf: usize) -> bool {
    matches!((gi, gf), (A1, A2) | (A2, A1) | (E, E))
}

fn sweep() -> &'static Sweep {
    static SWEEP: OnceLock<Sweep> = OnceLock::new();
    SWEEP.get_or_init(|| {
        let model = model();
        let start = std::time::Instant::now();
        let mut amplitudes = HashMap::new();
        let (mut closure_e, mut closure_species, mut half_calls) = (0.0f64, 0.0f64, 0usize);
        let jmax = model.params.j_max;
        for j in 0..=jmax {
            for gi in 0..3 {
                let lower = model.block(j, gi);
                for jp in j.saturating_sub(1)..=(j + 1).min(jmax) {
                    if j + jp == 0 {
                        continue;
                    }
                    let upper_spec = model.block(jp, A1).spec();
                    // h(i, d_I) into the whole primitive space of J'.
                    let mut halves = Vec::new();
                    for i in 0..lower.n_states() {
                        for d in 0..lower.ndeg {
                            let x = lower.unfold(lower.level(i), d);
                            halves.push(direct_half_linestrength(
                                &model.dipole,
                                model.n_vib,
                                &lower.spec(),
                                &x,
                                &upper_spec,
                                0.0,
                            ));
                            half_calls += 1;
                        }
                    }
                    // Closure: per lower level, |h|^2 per component, and its weight per upper species.
                    let norm2 = |h: &[f64]| h.iter().map(|x| x * x).sum::<f64>();
                    let top = halves.iter().map(|h| norm2(h)).fold(0.0f64, f64::max);
                    for i in 0..lower.n_states() {
                        if lower.ndeg == 2 {
                            let (a, b) = (norm2(&halves[2 * i]), norm2(&halves[2 * i + 1]));
                            closure_e = closure_e.max((a - b).abs() / top);
                        }
                        for d in 0..lower.ndeg {
                            let h = &halves[i * lower.ndeg + d];
                            for gf in 0..3 {
                                if allowed(gi, gf) {
                                    continue;
                                }
                                let upper = model.block(jp, gf);
                                let w: f64 = (0..upper.ndeg).map(|df| norm2(&upper.project(h, df))).sum();
                                closure_species = closure_species.max(w / top);
                            }
                        }
                    }
                    for gf in 0..3 {
                        let upper = model.block(jp, gf);
                        let (ni, nf, di, df) = (lower.n_states(), upper.n_states(), lower.ndeg, upper.ndeg);
                        let mut a = vec![0.0; ni * nf * di * df];
                        for i in 0..ni {
                            for x in 0..di {
                                let h = &halves[i * di + x];
                                for y in 0..df {
                                    let projected = upper.project(h, y);
                                    for f in 0..nf {
                                        let amp: f64 = upper.level(f).iter().zip(&projected).map(|(c, p)| c * p).sum();
                                        a[((i * nf + f) * di + x) * df + y] = amp;
                                    }
                                }
                            }
                        }
                        amplitudes.insert((j, gi, jp, gf), a);
                    }
                }
            }
        }
        Sweep { amplitudes, closure_e, closure_species, half_calls, seconds: start.elapsed().as_secs_f64() }
    })
}

#[test]
fn selection_rules_come_out_of_the_numbers() {
    let model = model();
    let s = sweep();
    let global = s.amplitudes.values().flatten().fold(0.0f64, |m, x| m.max(x.abs()));
    let (mut forbidden, mut weakest_allowed) = (0.0f64, f64::INFINITY);
    let (mut n_forbidden, mut n_allowed) = (0usize, 0usize);
    for (&(j, gi, jp, gf), a) in &s.amplitudes {
        let top = a.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        if allowed(gi, gf) {
            n_allowed += a.len();
            weakest_allowed = weakest_allowed.min(top / global);
            assert!(top > 1e-3 * global, "allowed pair J={j} {} -> J'={jp} {} is all zero", SPECIES[gi], SPECIES[gf]);
        } else {
            n_forbidden += a.len();
            forbidden = forbidden.max(top / global);
        }
    }
    println!(
        "{} block pairs, {} half-linestrength calls in {:.2} s (Nvib {}, J <= {}); largest |a| {global:.4} D",
        s.amplitudes.len(),
        s.half_calls,
        s.seconds,
        model.n_vib,
        model.params.j_max
    );
    println!(
        "forbidden (A1-A1, A2-A2, A-E): {n_forbidden} amplitudes, largest {forbidden:.2e} relative; \
         allowed: {n_allowed} amplitudes, smallest per-pair maximum {weakest_allowed:.3} relative"
    );
    println!(
        "closure: lower E, | |h(T_0 c)|^2 - |h(T_1 c)|^2 | <= {:.2e}; weight of h in forbidden upper species <= {:.2e}",
        s.closure_e, s.closure_species
    );
    assert!(forbidden < 1e-12);
    assert!(s.closure_e < 1e-12 && s.closure_species < 1e-12);
}

#[test]
fn degenerate_amplitudes_have_the_a2_coupling_structure() {
    let model = model();
    let s = sweep();
    let global = s.amplitudes.values().flatten().fold(0.0f64, |m, x| m.max(x.abs()));
    let (mut diag, mut antisym, mut sum_rule, mut a_e) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let mut exchange = 0.0f64;
    let (mut reduced_vs_full, mut reduced_unfiltered_vs_full) = (0.0f64, 0.0f64);
    let mut lines = 0usize;
    for (&(j, gi, jp, gf), a) in &s.amplitudes {
        let (ni, nf) = (model.block(j, gi).n_states(), model.block(jp, gf).n_states());
        let (di, df) = (NDEG[gi], NDEG[gf]);
        let at = |i: usize, f: usize, x: usize, y: usize| a[((i * nf + f) * di + x) * df + y];
        // Exchange: a(F <- I)(d_I, d_F) = -a(I <- F)(d_F, d_I).
        if let Some(back) = s.amplitudes.get(&(jp, gf, j, gi)) {
            for i in 0..ni {
                for f in 0..nf {
                    for x in 0..di {
                        for y in 0..df {
                            let b = back[((f * ni + i) * df + y) * di + x];
                            exchange = exchange.max((at(i, f, x, y) + b).abs() / global);
                        }
                    }
                }
            }
        }
        for i in 0..ni {
            for f in 0..nf {
                if gi == E && gf == E {
                    lines += 1;
                    // a = alpha [[0, 1], [-1, 0]]: E (x) E -> A2 is the antisymmetric product.
                    diag = diag.max(at(i, f, 0, 0).abs().max(at(i, f, 1, 1).abs()) / global);
                    antisym = antisym.max((at(i, f, 0, 1) + at(i, f, 1, 0)).abs() / global);
                    let s0 = at(i, f, 0, 0).powi(2) + at(i, f, 0, 1).powi(2);
                    let s1 = at(i, f, 1, 0).powi(2) + at(i, f, 1, 1).powi(2);
                    sum_rule = sum_rule.max((s0 - s1).abs() / global.powi(2));
                    // TROVE: L = sum a^2 / ndegI; REDUCED with degeneracy_filter (C3V(M)): only
                    // (idegI, idegF) = (2, 1), no division; REDUCED without the filter: d_F = 1 only.
                    let full = (s0 + s1) / 2.0;
                    let reduced = at(i, f, 1, 0).powi(2);
                    let reduced_unfiltered = at(i, f, 0, 0).powi(2) + at(i, f, 1, 0).powi(2);
                    reduced_vs_full = reduced_vs_full.max((reduced - full).abs() / global.powi(2));
                    reduced_unfiltered_vs_full =
                        reduced_unfiltered_vs_full.max((reduced_unfiltered - full).abs() / global.powi(2));
                } else if gi == E || gf == E {
                    // Sum over the other side's components, per component of the E side.
                    let per: Vec<f64> = if gf == E {
                        (0..2).map(|y| at(i, f, 0, y).powi(2)).collect()
                    } else {
                        (0..2).map(|x| at(i, f, x, 0).powi(2)).collect()
                    };
                    a_e = a_e.max((per[0] - per[1]).abs() / global.powi(2));
                }
            }
        }
    }
    println!(
        "E<->E ({lines} level pairs): max |a00|,|a11| {diag:.2e}, max |a01 + a10| {antisym:.2e}, \
         sum rule |sum_dF a(0,dF)^2 - sum_dF a(1,dF)^2| {sum_rule:.2e} (relative to max a^2)"
    );
    println!("A<->E: per-component difference of a^2 {a_e:.2e}; exchange |a(F<-I) + a(I<-F)^T| {exchange:.2e}");
    println!(
        "REDUCED vs full L (E<->E): filtered (2,1) {reduced_vs_full:.2e}, unfiltered d_F=1 {reduced_unfiltered_vs_full:.2e} \
         (relative to max a^2): factor 1"
    );
    assert!(diag < 1e-12 && antisym < 1e-12 && sum_rule < 1e-12 && a_e < 1e-12 && exchange < 1e-12);
    assert!(reduced_vs_full < 1e-12 && reduced_unfiltered_vs_full < 1e-12);
}

#[test]
fn troves_loop_agrees_and_reduced_equals_full() {
    // TROVE's dm_intensity_symmvec loop (tests/support/trove_degenerate.rs) on some E <-> E and
    // A1 <-> A2 lines of the model: its linestr_deg equals the sweep's amplitudes, and its REDUCED
    // line strength (with C3V(M)'s degeneracy_filter) equals the full one.
    let model = model();
    let s = sweep();
    let degen = [1, 1, 2];
    let (mut worst_amp, mut worst_l) = (0.0f64, 0.0f64);
    let mut largest = 0.0f64;
    for (j, gi, jp, gf) in [(1, E, 2, E), (2, E, 2, E), (3, A1, 2, A2), (0, E, 1, E), (4, E, 3, E)] {
        let (lower, upper) = (model.block(j, gi), model.block(jp, gf));
        let repres_i: Vec<Vec<f64>> = (0..lower.ndeg).map(|d| lower.unfolding_dense(d)).collect();
        let repres_f: Vec<Vec<f64>> = (0..upper.ndeg).map(|d| upper.unfolding_dense(d)).collect();
        let a = &s.amplitudes[&(j, gi, jp, gf)];
        let nf = upper.n_states();
        for i in (0..lower.n_states()).step_by(7) {
            for f in (0..nf).step_by(5) {
                let li = trove::Level { spec: lower.spec(), repres: &repres_i, vec: lower.level(i) };
                let lf = trove::Level { spec: upper.spec(), repres: &repres_f, vec: upper.level(f) };
                let filter = |reduced: bool| {
                    move |x: usize, y: usize| trove::degeneracy_filter("C3V(M)", &degen, reduced, gi + 1, gf + 1, x, y)
                };
                let (deg, full) =
                    trove::trove_linestrength(&model.dipole, model.n_vib, &li, &lf, 0.0, false, filter(false));
                let (_, reduced) =
                    trove::trove_linestrength(&model.dipole, model.n_vib, &li, &lf, 0.0, true, filter(true));
                let (di, df) = (lower.ndeg, upper.ndeg);
                for x in 0..di {
                    for y in 0..df {
                        let mine = a[((i * nf + f) * di + x) * df + y];
                        worst_amp = worst_amp.max((deg[x + di * y] - mine).abs());
                    }
                }
                largest = largest.max(full);
                worst_l = worst_l.max((reduced - full).abs());
            }
        }
    }
    println!(
        "TROVE's loop: max |linestr_deg - a| {worst_amp:.2e} D; max |L_reduced - L| {worst_l:.2e} D^2 (largest L {largest:.3e})"
    );
    assert!(worst_amp < 1e-12 && worst_l < 1e-12 * largest.max(1e-300));
}

#[test]
fn nuclear_spin_weights_of_c3v() {
    assert_eq!(nuclear_spin_weights(1, 1), [8.0, 8.0, 8.0]); // PH3, TROVE's GNS 8 8 8
    assert_eq!(nuclear_spin_weights(1, 0), [4.0, 4.0, 4.0]); // 12CH3 with a spinless X
    assert_eq!(nuclear_spin_weights(2, 0), [11.0, 11.0, 16.0]); // three spin-1 Y
    assert_eq!(model().gns, [8.0, 8.0, 8.0]);
    assert!(model().blocks.iter().all(|b| b.gns == model().gns[b.gamma]));
}

/// The library's batched degenerate path on the model (group C3v(M), every block with its
/// stacked unfolding): the C3v(M) selection rules come out of its line strengths, and TROVE's
/// REDUCED line strength with TROVE's degeneracy filter equals the full sum / ndegI for every
/// allowed line (factor 1 for E <-> E, as the brute force above finds).
#[test]
fn batched_path_keeps_the_selection_rules_and_reduced_equals_full() {
    use atomgpu::backend::Backend;
    use atomgpu::linestrength::{
        Action, BlockSpec, Convention, IntensityParams, LineFilters, LineStrength, Options, SymmetryGroup, Unfolding,
    };
    let m = model();
    let mut h = LineStrength::new_on(Backend::Cpu, m.n_vib, &m.dipole, m.n_vib, Options::default()).unwrap();
    h.set_group(SymmetryGroup::named("C3v(M)").unwrap()).unwrap();
    for b in &m.blocks {
        let unfolding =
            Unfolding { ndeg: b.ndeg, n_sym: b.n_sym, row_start: &b.row_start, col: &b.col, value: &b.value };
        let id = h.add_block(&BlockSpec { unfolding: Some(unfolding), ..b.spec() }).unwrap();
        h.set_states(id, &b.energies, &b.vectors, b.n_sym).unwrap();
    }
    let params = IntensityParams {
        temperature: 296.0,
        partition_function: 1.0,
        zpe: 0.0,
        freq_window: [-1e9, 1e9],
        lower_energy: [-1e9, 1e9],
        upper_energy: [-1e9, 1e9],
        thresh_coeff: 0.0,
        thresh_line: 0.0,
        thresh_intens: 0.0,
        batch: 16,
        convention: Convention::Documented,
        action: Action::Absorption,
    };
    let full = LineFilters::default();
    let reduced = LineFilters { reduced: true, degeneracy_filter: true, ..LineFilters::default() };
    let (mut largest, mut forbidden, mut worst) = (0.0f64, 0.0f64, 0.0f64);
    for (l, lb) in m.blocks.iter().enumerate() {
        let uppers: Vec<usize> =
            (0..m.blocks.len()).filter(|&u| m.blocks[u].j.abs_diff(lb.j) <= 1 && m.blocks[u].j + lb.j >= 1).collect();
        let a = h.line_list_filtered(l, &uppers, &params, &full).unwrap();
        let b = h.line_list_filtered(l, &uppers, &params, &reduced).unwrap();
        assert_eq!(a.lines.len(), b.lines.len());
        for (x, y) in a.lines.iter().zip(&b.lines) {
            let gf = m.blocks[x.upper_block].gamma;
            if allowed(lb.gamma, gf) {
                largest = largest.max(x.linestrength);
                worst = worst.max((x.linestrength - y.linestrength).abs());
            } else {
                forbidden = forbidden.max(x.linestrength);
            }
        }
    }
    println!("batched path: largest S {largest:.3e}, forbidden S {forbidden:.2e}, |S_reduced - S| {worst:.2e}");
    assert!(largest > 0.0);
    assert!(forbidden <= 1e-24 * largest, "forbidden lines: {forbidden} of {largest}");
    assert!(worst <= 1e-12 * largest, "reduced vs full: {worst} of {largest}");
}
