//! Line strengths on the CPU reference, against closed forms and exact identities:
//! - Hoenl-London factors of a parallel band of a symmetric top (Bunker & Jensen, Table 14-5 /
//!   Herzberg: R (J+1)^2-K^2)/(J+1), Q K^2(2J+1)/(J(J+1)), P (J^2-K^2)/J; for J''=4, K=2: 4.2, 1.8, 3.0);
//! - the Einstein A of a diatomic J=1 <- 0 line, A_coef mu^2 nu^3 / 3 s^-1, and of a rigid
//!   rotor's R branch, A_coef mu^2 nu^3 (J''+1)/(2J''+3);
//! - the sum rule sum_f (2J'+1)(2J''+1) s^2 = (2J''+1) sum_m |mu_m^T C|^2 for complete upper sets
//!   (orthogonality of the rotation matrices), to 1e-13;
//! - the GEMM formulation against the direct transcription of TROVE's eq. 14 loop, to 1e-13, with
//!   and without coefficient thresholds and a symmetrised basis with a sparse unfolding.
//!
//! A_coef, I_coef and c2 are the CODATA 2018 values computed independently with mpmath (below).

#[path = "support/molecule.rs"]
mod molecule;

use atomgpu::backend::Backend;
use atomgpu::linestrength::cpu::direct_half_linestrength;
use atomgpu::linestrength::{exomol, Action, BlockSpec, Convention, IntensityParams, LineStrength, Options, Unfolding};

/// 64 pi^4 1e-36 / (3h) with CODATA 2018 h = 6.62607015e-27 erg s (exact): mpmath at 300 bits,
/// 3.13618866338954369161142535951e-7 s^-1 D^-2 cm^3 (A = A_COEF (2J''+1) L nu^3).
const A_COEF: f64 = 3.1361886633895437e-7;
/// 8 pi^3 1e-36 / (3hc), CODATA 2018 h and c = 2.99792458e10 cm/s: mpmath, 4.16237896357627952144125383928e-19.
const I_COEF: f64 = 4.1623789635762795e-19;
/// c2 = hc/k, CODATA 2018 (k = 1.380649e-16 erg/K): mpmath, 1.43877687750393380214667160154 cm K.
const C2: f64 = 1.4387768775039338;
use molecule::*;

fn cpu_handle(n_vib: usize, dipole: &[f64]) -> LineStrength {
    LineStrength::new_on(Backend::Cpu, n_vib, dipole, n_vib, Options::default()).unwrap()
}

/// A one-vibrational-function molecule whose only dipole is mu_z = `mu` Debye.
fn parallel_dipole(mu: f64) -> Vec<f64> {
    vec![0.0, 0.0, mu]
}

fn identity(n: usize) -> Vec<f64> {
    let mut m = vec![0.0; n * n];
    for i in 0..n {
        m[i + n * i] = 1.0;
    }
    m
}

fn params(temperature: f64) -> IntensityParams {
    IntensityParams {
        temperature,
        partition_function: 1.0,
        zpe: 0.0,
        freq_window: [0.0, 1e6],
        lower_energy: [-1e6, 1e6],
        upper_energy: [-1e6, 1e6],
        thresh_coeff: 0.0,
        thresh_line: 0.0,
        thresh_intens: 0.0,
        batch: 3,
        convention: Convention::Documented,
        action: Action::Absorption,
    }
}

#[test]
fn parallel_band_gives_the_hoenl_london_factors() {
    let mut h = cpu_handle(1, &parallel_dipole(1.0));
    // Lower state |J''=4, K=2, tau=0>: one function of a block.
    let lower = Labels { j: 4, v: vec![0], k: vec![2], tau: vec![0] };
    let lower_id = h.add_block(&lower.spec()).unwrap();
    h.load_lower(lower_id, 1, &[1.0], 1, 0.0).unwrap();
    let expected = [(3u32, 3.0), (4, 1.8), (5, 4.2)];
    let mut total = 0.0;
    for (jp, hoenl_london) in expected {
        let upper = full_block(jp, 1);
        let id = h.add_block(&upper.spec()).unwrap();
        let n = upper.len();
        h.set_states(id, &vec![1.0; n], &identity(n), n).unwrap();
        let a = h.amplitudes(id, 0.0).unwrap();
        let factor: f64 = a.iter().map(|x| ((2 * jp + 1) * 9) as f64 * x * x).sum();
        assert!((factor - hoenl_london).abs() < 1e-14, "J'={jp}: {factor} vs {hoenl_london}");
        total += factor;
    }
    assert!((total - 9.0).abs() < 1e-13, "sum {total} vs 2J''+1 = 9");
}

#[test]
fn diatomic_j1_from_j0_has_the_closed_form_einstein_a() {
    let (mu, b) = (1.7, 10.3);
    let mut h = cpu_handle(1, &parallel_dipole(mu));
    let lower = h.add_block(&full_block(0, 1).spec()).unwrap();
    // A diatomic (Lambda = 0) has only K = 0: the J = 1 state is |1, 0, tau = 1>.
    let upper_labels = Labels { j: 1, v: vec![0], k: vec![0], tau: vec![1] };
    let upper = h.add_block(&upper_labels.spec()).unwrap();
    h.set_states(lower, &[0.0], &[1.0], 1).unwrap();
    h.set_states(upper, &[2.0 * b], &[1.0], 1).unwrap();
    let lines = h.line_list(lower, &[upper], &params(296.0)).unwrap();
    assert_eq!(lines.len(), 1);
    let nu = 2.0 * b;
    let expect = A_COEF * mu * mu * nu.powi(3) / 3.0;
    assert!((lines[0].einstein_a / expect - 1.0).abs() < 1e-14, "{} vs {expect}", lines[0].einstein_a);
    assert!((lines[0].linestrength / (mu * mu) - 1.0).abs() < 1e-14, "S = 3 * mu^2/3");
}

#[test]
fn rigid_rotor_line_list_matches_the_closed_forms() {
    // States J = 0..6 of a rigid rotor E = B J(J+1), dipole mu; R-branch lines J''+1 <- J''.
    let (mu, b, t, q) = (0.8, 1.9, 300.0, 123.0);
    let mut h = cpu_handle(1, &parallel_dipole(mu));
    let ids: Vec<usize> = (0..=6u32)
        .map(|j| {
            let l = Labels { j, v: vec![0], k: vec![0], tau: vec![(j % 2) as i32] };
            let id = h.add_block(&l.spec()).unwrap();
            h.set_states(id, &[b * (j * (j + 1)) as f64], &[1.0], 1).unwrap();
            id
        })
        .collect();
    let p = IntensityParams { partition_function: q, ..params(t) };
    let beta = C2 / t;
    for j in 0..6u32 {
        let uppers: Vec<usize> = ids.iter().copied().filter(|&u| u.abs_diff(ids[j as usize]) == 1).collect();
        let lines = h.line_list(ids[j as usize], &uppers, &p).unwrap();
        assert_eq!(lines.len(), 1, "only the R line absorbs from J''={j}");
        let nu = 2.0 * b * (j + 1) as f64;
        let jf = j as f64;
        let a = A_COEF * mu * mu * nu.powi(3) * (jf + 1.0) / (2.0 * jf + 3.0);
        let s = mu * mu * (jf + 1.0);
        let e = b * jf * (jf + 1.0);
        let i = I_COEF * s * nu * (-beta * e).exp() * (1.0 - (-beta * nu).exp()) / q;
        let l = lines[0];
        assert!((l.wavenumber - nu).abs() < 1e-12);
        assert!((l.einstein_a / a - 1.0).abs() < 1e-13, "A: {} vs {a}", l.einstein_a);
        assert!((l.linestrength / s - 1.0).abs() < 1e-13, "S: {} vs {s}", l.linestrength);
        assert!((l.intensity / i - 1.0).abs() < 1e-13, "I: {} vs {i}", l.intensity);
        assert_eq!(l.lower_id, h.state_id(ids[j as usize], 0));
    }
}

/// sum over J' and upper functions of (2J'+1) h^2 against sum_m |mu_m^T C|^2 for a lower vector C
/// of the full J'' block.
fn sum_rule_residual(j: u32, n_vib: usize, rng: &mut Rng) -> f64 {
    let dipole = random_dipole(rng, n_vib);
    let mut h = cpu_handle(n_vib, &dipole);
    let lower = full_block(j, n_vib);
    let lower_id = h.add_block(&lower.spec()).unwrap();
    let n = 2;
    let vectors = random_values(rng, lower.len() * n);
    h.load_lower(lower_id, n, &vectors, lower.len(), 0.0).unwrap();
    let mut lhs = vec![0.0; n];
    for jp in j.saturating_sub(1)..=j + 1 {
        if j + jp == 0 {
            continue;
        }
        let upper = full_block(jp, n_vib);
        let id = h.add_block(&upper.spec()).unwrap();
        let rows = upper.len();
        let mut half = vec![0.0; rows * n];
        h.half_linestrength(id, 0.0, &mut half, rows).unwrap();
        for i in 0..n {
            lhs[i] += (2 * jp + 1) as f64 * half[i * rows..(i + 1) * rows].iter().map(|x| x * x).sum::<f64>();
        }
    }
    // sum_m |mu_m^T C|^2 with C the n_vib x (2J+1) matrix of the lower vector.
    let mut worst = 0.0f64;
    for i in 0..n {
        let c = &vectors[i * lower.len()..(i + 1) * lower.len()];
        let mut rhs = 0.0;
        for m in 0..3 {
            for r in 0..(2 * j + 1) as usize {
                for vp in 0..n_vib {
                    let y: f64 = (0..n_vib).map(|v| dipole[v + n_vib * (vp + n_vib * m)] * c[v + n_vib * r]).sum();
                    rhs += y * y;
                }
            }
        }
        worst = worst.max((lhs[i] - rhs).abs() / rhs);
    }
    worst
}

#[test]
fn sum_rule_holds_for_complete_upper_sets() {
    let mut rng = Rng::new(11);
    for j in [0u32, 1, 3, 7] {
        let residual = sum_rule_residual(j, 13, &mut rng);
        assert!(residual < 1e-13, "J''={j}: relative residual {residual:e}");
    }
}

/// A random symmetrised basis for a primitive block: each symmetrised function is a normalised
/// combination of 1 or 2 primitive ones, T (primitive x symmetrised) in CSR.
struct RandomUnfolding {
    n_sym: usize,
    row_start: Vec<i64>,
    col: Vec<i64>,
    value: Vec<f64>,
}

fn random_unfolding(n_primitive: usize, rng: &mut Rng) -> RandomUnfolding {
    // Pair primitive functions (2p, 2p+1) into (+) and (-) combinations; an odd last one alone.
    let mut u = RandomUnfolding { n_sym: 0, row_start: vec![0], col: vec![], value: vec![] };
    let mut p = 0;
    while p < n_primitive {
        if p + 1 < n_primitive && rng.unit() < 0.7 {
            let (s, c) = rng.uniform(0.1, 1.4).sin_cos();
            let (a, b) = (u.n_sym as i64, u.n_sym as i64 + 1);
            u.col.extend([a, b]);
            u.value.extend([c, -s]);
            u.row_start.push(u.col.len() as i64);
            u.col.extend([a, b]);
            u.value.extend([s, c]);
            u.row_start.push(u.col.len() as i64);
            u.n_sym += 2;
            p += 2;
        } else {
            u.col.push(u.n_sym as i64);
            u.value.push(1.0);
            u.row_start.push(u.col.len() as i64);
            u.n_sym += 1;
            p += 1;
        }
    }
    u
}

#[test]
fn gemm_path_equals_the_direct_eq14_loop() {
    let mut rng = Rng::new(5);
    for (n_vib, j, n, thresh) in [(37usize, 3u32, 5usize, 0.0), (29, 1, 3, 0.35), (17, 6, 1, 0.0), (50, 0, 2, 0.1)] {
        let dipole = random_dipole(&mut rng, n_vib);
        let mut h = cpu_handle(n_vib, &dipole);
        let lower = full_block(j, n_vib);
        let lower_id = h.add_block(&lower.spec()).unwrap();
        let vectors = random_values(&mut rng, lower.len() * n);
        h.load_lower(lower_id, n, &vectors, lower.len(), thresh).unwrap();
        for jp in j.saturating_sub(1)..=j + 1 {
            if j + jp == 0 {
                continue;
            }
            let upper = full_block(jp, n_vib);
            let id = h.add_block(&upper.spec()).unwrap();
            let rows = upper.len();
            let mut half = vec![0.0; rows * n];
            h.half_linestrength(id, thresh, &mut half, rows).unwrap();
            for i in 0..n {
                let c = &vectors[i * lower.len()..(i + 1) * lower.len()];
                let direct = direct_half_linestrength(&dipole, n_vib, &lower.spec(), c, &upper.spec(), thresh);
                let diff = relative_difference(&half[i * rows..(i + 1) * rows], &direct);
                assert!(diff < 1e-13, "Nvib={n_vib} J={j} J'={jp} state {i}: {diff:e}");
            }
        }
    }
}

#[test]
fn symmetrised_vectors_give_the_amplitudes_of_their_unfolded_primitive_vectors() {
    let mut rng = Rng::new(8);
    let (n_vib, j, n) = (23usize, 2u32, 4usize);
    let dipole = random_dipole(&mut rng, n_vib);
    let mut h = cpu_handle(n_vib, &dipole);
    let lower = full_block(j, n_vib);
    let upper = full_block(j + 1, n_vib);
    let (lu, uu) = (random_unfolding(lower.len(), &mut rng), random_unfolding(upper.len(), &mut rng));
    let spec = |l: &'_ Labels, u: &'_ RandomUnfolding| -> (Vec<i64>, Vec<i64>, Vec<f64>, usize) {
        let _ = l;
        (u.row_start.clone(), u.col.clone(), u.value.clone(), u.n_sym)
    };
    let (lr, lc, lv, ln) = spec(&lower, &lu);
    let (ur, uc, uv, un) = spec(&upper, &uu);
    let lower_spec = BlockSpec {
        unfolding: Some(Unfolding { ndeg: 1, n_sym: ln, row_start: &lr, col: &lc, value: &lv }),
        ..lower.spec()
    };
    let upper_spec = BlockSpec {
        unfolding: Some(Unfolding { ndeg: 1, n_sym: un, row_start: &ur, col: &uc, value: &uv }),
        ..upper.spec()
    };
    let lower_id = h.add_block(&lower_spec).unwrap();
    let upper_id = h.add_block(&upper_spec).unwrap();
    let lower_sym = random_values(&mut rng, ln * n);
    let n_states = 7;
    let upper_sym = random_values(&mut rng, un * n_states);
    h.set_states(upper_id, &vec![1.0; n_states], &upper_sym, un).unwrap();
    h.load_lower(lower_id, n, &lower_sym, ln, 0.0).unwrap();
    let amplitudes = h.amplitudes(upper_id, 0.0).unwrap();
    // Reference: unfold by hand (T c), direct eq. 14 loop, then the dot product of eq. 15.
    let unfold = |u: &RandomUnfolding, c: &[f64]| -> Vec<f64> {
        (0..u.row_start.len() - 1)
            .map(|p| {
                (u.row_start[p] as usize..u.row_start[p + 1] as usize).map(|e| u.value[e] * c[u.col[e] as usize]).sum()
            })
            .collect()
    };
    for i in 0..n {
        let c = unfold(&lu, &lower_sym[i * ln..(i + 1) * ln]);
        let half = direct_half_linestrength(&dipole, n_vib, &lower.spec(), &c, &upper.spec(), 0.0);
        for f in 0..n_states {
            let cf = unfold(&uu, &upper_sym[f * un..(f + 1) * un]);
            let expect: f64 = cf.iter().zip(&half).map(|(a, b)| a * b).sum();
            let got = amplitudes[f + n_states * i];
            assert!((got - expect).abs() <= 1e-13 * max_abs(&half) * 4.0, "state {i}->{f}: {got} vs {expect}");
        }
    }
}

#[test]
fn thresholds_and_windows_select_lines_as_trove_does() {
    // Rigid rotor J = 0..3; lines with S below THRESH_LINE or outside the window are dropped.
    let (mu, b) = (1.0, 2.0);
    let mut h = cpu_handle(1, &parallel_dipole(mu));
    let ids: Vec<usize> = (0..=3u32)
        .map(|j| {
            let l = Labels { j, v: vec![0], k: vec![0], tau: vec![(j % 2) as i32] };
            let id = h.add_block(&l.spec()).unwrap();
            h.set_states(id, &[b * (j * (j + 1)) as f64], &[1.0], 1).unwrap();
            id
        })
        .collect();
    // S(1 <- 0) = mu^2, S(2 <- 1) = 2 mu^2: THRESH_LINE 1.5 keeps only the second.
    let p = IntensityParams { thresh_line: 1.5, ..params(300.0) };
    assert!(h.line_list(ids[0], &[ids[1]], &p).unwrap().is_empty());
    assert_eq!(h.line_list(ids[1], &[ids[0], ids[2]], &p).unwrap().len(), 1);
    // Window [0, 10] cm^-1 excludes the 3 <- 2 line at 12 cm^-1.
    let p = IntensityParams { freq_window: [0.0, 10.0], ..params(300.0) };
    assert!(h.line_list(ids[2], &[ids[1], ids[3]], &p).unwrap().is_empty());
}

#[test]
fn exomol_files_have_ids_energies_and_a_coefficients() {
    let mut h = cpu_handle(1, &parallel_dipole(1.0));
    let l0 = h.add_block(&full_block(0, 1).spec()).unwrap();
    let l1 = h.add_block(&Labels { j: 1, v: vec![0], k: vec![0], tau: vec![1] }.spec()).unwrap();
    h.set_states(l0, &[100.0], &[1.0], 1).unwrap();
    h.set_states(l1, &[104.0], &[1.0], 1).unwrap();
    let lines = h.line_list(l0, &[l1], &IntensityParams { zpe: 100.0, ..params(300.0) }).unwrap();
    let mut states = Vec::new();
    exomol::write_states(&h, 100.0, &mut states).unwrap();
    let mut trans = Vec::new();
    exomol::write_trans(&lines, &mut trans).unwrap();
    let states = String::from_utf8(states).unwrap();
    let trans = String::from_utf8(trans).unwrap();
    assert_eq!(states.lines().count(), 2);
    let second: Vec<&str> = states.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(&second[..4], &["2", "4.000000", "3", "1"]);
    let t: Vec<&str> = trans.split_whitespace().collect();
    let a = A_COEF * 64.0 / 3.0;
    assert_eq!(t[0], "2");
    assert_eq!(t[1], "1");
    assert!((t[2].parse::<f64>().unwrap() / a - 1.0).abs() < 1e-4);
    assert_eq!(t[3], "4.000000");
}

#[test]
fn bad_inputs_name_the_argument() {
    let mut h = cpu_handle(2, &random_dipole(&mut Rng::new(1), 2));
    let bad_k = Labels { j: 1, v: vec![0, 1], k: vec![0, 2], tau: vec![1, 0] };
    let e = h.add_block(&bad_k.spec()).unwrap_err();
    assert!(e.to_string().contains("`k`[1]"), "{e}");
    let repeated = Labels { j: 1, v: vec![0, 0], k: vec![1, 1], tau: vec![0, 0] };
    let e = h.add_block(&repeated.spec()).unwrap_err();
    assert!(e.to_string().contains("repeats"), "{e}");
    let id = h.add_block(&full_block(3, 2).spec()).unwrap();
    let far = h.add_block(&full_block(5, 2).spec()).unwrap();
    h.load_lower(id, 1, &[0.5; 14], 14, 0.0).unwrap();
    let mut out = vec![0.0; 22];
    let e = h.half_linestrength(far, 0.0, &mut out, 22).unwrap_err();
    assert!(e.to_string().contains("upper_block"), "{e}");
    assert!(out.iter().all(|&x| x == 0.0), "outputs untouched on error");
    let nan = vec![f64::NAN; 12];
    assert!(LineStrength::new_on(Backend::Cpu, 2, &nan, 2, Options::default()).is_err());
}

/// The finiteness checks of the dipole matrix, the stored states and a lower batch (made on all
/// cores) read only the `rows` values of each column, never the padding up to `ld`, and name the
/// first bad value in column-major order however many there are: its index, counted by hand, in
/// the caller's array. Padded matrices (copied column by column) give exactly the amplitudes of
/// the packed ones.
#[test]
fn non_finite_inputs_are_named_at_the_first_bad_value_and_padding_is_not_read() {
    let n_vib = 40;
    let ld = n_vib + 3;
    let mut rng = Rng::new(30);
    let dipole = random_dipole(&mut rng, n_vib);
    let columns = 3 * n_vib;
    let mut bad = padded(&dipole, n_vib, columns, ld);
    bad[7 + ld * 101] = f64::INFINITY;
    bad[3 + ld * 37] = f64::NAN;
    bad[39 + ld * 37] = f64::NAN;
    let Err(e) = LineStrength::new_on(Backend::Cpu, n_vib, &bad, ld, Options::default()) else {
        panic!("a dipole with NaN and Inf values was accepted")
    };
    assert!(e.to_string().contains(&format!("`dipole`[{}]: must be finite", 3 + 43 * 37)), "{e}");
    let mut padded_h =
        LineStrength::new_on(Backend::Cpu, n_vib, &padded(&dipole, n_vib, columns, ld), ld, Options::default())
            .unwrap();
    let mut packed_h = cpu_handle(n_vib, &dipole);

    let (lower, upper) = (full_block(2, n_vib), full_block(3, n_vib));
    let (rows, n_states) = (upper.len(), 70);
    let energies: Vec<f64> = (0..n_states).map(|s| 5000.0 + s as f64).collect();
    let states = random_values(&mut rng, rows * n_states);
    let ld_states = rows + 2;
    for h in [&mut padded_h, &mut packed_h] {
        h.add_block(&lower.spec()).unwrap();
        h.add_block(&upper.spec()).unwrap();
    }
    let mut bad = padded(&states, rows, n_states, ld_states);
    bad[5 + ld_states * 64] = f64::NAN;
    bad[rows - 1 + ld_states * 50] = f64::NEG_INFINITY;
    let e = padded_h.set_states(1, &energies, &bad, ld_states).unwrap_err();
    assert!(e.to_string().contains(&format!("`vectors`[{}]: must be finite", 279 + 282 * 50)), "{e}");
    padded_h.set_states(1, &energies, &padded(&states, rows, n_states, ld_states), ld_states).unwrap();
    packed_h.set_states(1, &energies, &states, rows).unwrap();

    let n_lower = 9;
    let vectors = random_values(&mut rng, lower.len() * n_lower);
    let ld_lower = lower.len() + 1;
    let mut bad = padded(&vectors, lower.len(), n_lower, ld_lower);
    bad[17 + ld_lower * 8] = f64::INFINITY;
    let e = padded_h.load_lower(0, n_lower, &bad, ld_lower, 0.0).unwrap_err();
    assert!(e.to_string().contains(&format!("`vectors`[{}]: must be finite, got inf", 17 + 201 * 8)), "{e}");
    padded_h.load_lower(0, n_lower, &padded(&vectors, lower.len(), n_lower, ld_lower), ld_lower, 0.0).unwrap();
    packed_h.load_lower(0, n_lower, &vectors, lower.len(), 0.0).unwrap();
    let amplitudes = packed_h.amplitudes(1, 0.0).unwrap();
    assert_eq!(padded_h.amplitudes(1, 0.0).unwrap(), amplitudes);
    assert!(max_abs(&amplitudes) > 0.0);
}

/// Labels that describe no Wang function, and unfoldings larger than the basis they unfold to,
/// are refused before anything is allocated for them.
#[test]
fn impossible_blocks_are_refused() {
    let mut h = cpu_handle(2, &random_dipole(&mut Rng::new(1), 2));
    // K = 0 exists only with tau = J mod 2 (TROVE's Wang functions): J = 0 with tau = 1 does not.
    let j0_tau1 = Labels { j: 0, v: vec![0], k: vec![0], tau: vec![1] };
    let e = h.add_block(&j0_tau1.spec()).unwrap_err();
    assert!(e.to_string().contains("`tau`[0]"), "{e}");
    let j1_tau0 = Labels { j: 1, v: vec![0, 0], k: vec![0, 1], tau: vec![0, 1] };
    assert!(h.add_block(&j1_tau0.spec()).unwrap_err().to_string().contains("J mod 2"));
    // A symmetrised basis of 2^40 (or 2^31) functions cannot unfold to 2 primitive ones.
    let labels = Labels { j: 1, v: vec![0, 1], k: vec![0, 0], tau: vec![1, 1] };
    for n_sym in [1usize << 40, 1 << 31, 3] {
        let unfolding = Unfolding { ndeg: 1, n_sym, row_start: &[0, 1, 2], col: &[0, 1], value: &[1.0, 1.0] };
        let spec = BlockSpec { unfolding: Some(unfolding), ..labels.spec() };
        let e = h.add_block(&spec).unwrap_err();
        assert!(e.to_string().contains("n_sym"), "n_sym = {n_sym}: {e}");
    }
    let unfolding = Unfolding { ndeg: 1, n_sym: 2, row_start: &[0, 1, 2], col: &[0, 1], value: &[1.0, 1.0] };
    assert!(h.add_block(&BlockSpec { unfolding: Some(unfolding), ..labels.spec() }).is_ok());
}

/// A dipole of 1e300 Debye is finite, but its line strengths are not: an error naming the
/// result, never a NaN or Inf handed back.
#[test]
fn overflowing_results_are_errors() {
    let mut h = cpu_handle(1, &parallel_dipole(1e300));
    let lower = h.add_block(&Labels { j: 0, v: vec![0], k: vec![0], tau: vec![0] }.spec()).unwrap();
    let upper = h.add_block(&Labels { j: 1, v: vec![0], k: vec![0], tau: vec![1] }.spec()).unwrap();
    h.set_states(lower, &[0.0], &[1.0], 1).unwrap();
    h.set_states(upper, &[2.0], &[1.0], 1).unwrap();
    let e = h.line_list(lower, &[upper], &params(296.0)).unwrap_err();
    assert!(matches!(e, atomgpu::error::Error::NotFinite { .. }), "{e}");
    let e = h.set_states(lower, &[f64::MAX], &[1.0], 1).unwrap_err();
    assert!(e.to_string().contains("energies"), "{e}");
}
