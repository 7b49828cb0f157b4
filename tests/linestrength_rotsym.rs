//! TROVE's rotational-symmetry route (`rotsym_do`, src/linestrength/rotsym.rs) on the CPU
//! reference, against independent references:
//! - (a) a literal transcription of TROVE's loops (dipole.f90 `contraced_rotational_dipole`:
//!   mat(3, dimenI, dimenF) with TROVE's phases, 3j symbols from the general Racah formula
//!   `math::wigner::three_j` cut at small_, W = E_I^T mat E_F looked up through count_index;
//!   `do_1st_half_linestrength_rotsym_symmvec`: the double loop over upper functions and the
//!   packed lower ones with |c| > THRESH_COEFF), written here, against atomgpu's
//!   half-linestrengths, amplitudes and line strengths on random models (1e-13);
//! - (b) E_J = identity with one level per Wang function: the Wang route's numbers (1e-13);
//! - (c) physics the route must keep whatever the symmetrised basis: line strengths invariant
//!   under any orthogonal change of the rotational basis (a Wang model re-expressed in random
//!   E_J, 1e-12), the total over the components of degenerate (F) levels invariant under
//!   orthogonal mixing of the components, and the sum rule sum_J' (2J'+1) sum_f a^2 =
//!   sum_m |mu_m^T C|^2 for complete upper sets (orthogonality of the rotation matrices; the
//!   right side has no rotational factor at all), 1e-13;
//! - the validation of bases and blocks (errors name the argument).

#[path = "support/molecule.rs"]
mod molecule;
#[path = "support/rotsym.rs"]
mod rotsym;

use atomgpu::backend::Backend;
use atomgpu::linestrength::rotsym::RotsymBlockSpec;
use atomgpu::linestrength::{IntensityParams, Line, LineStrength, Options, Unfolding};
use atomgpu::math::wigner::three_j;
use molecule::*;
use rotsym::*;

const SMALL: f64 = f64::EPSILON;

fn cpu_handle(n_vib: usize, dipole: &[f64]) -> LineStrength {
    LineStrength::new_on(Backend::Cpu, n_vib, dipole, n_vib, Options::default()).unwrap()
}

fn set_basis(h: &mut LineStrength, b: &Basis) {
    h.set_rotational_basis(b.j, &b.e, &b.level, &b.deg).unwrap();
}

fn params(thresh_coeff: f64) -> IntensityParams {
    IntensityParams {
        temperature: 296.0,
        partition_function: 1.0,
        zpe: 0.0,
        freq_window: [-1e6, 1e6],
        lower_energy: [-1e6, 1e6],
        upper_energy: [-1e6, 1e6],
        thresh_coeff,
        thresh_line: 0.0,
        thresh_intens: 0.0,
        batch: 3,
        convention: atomgpu::linestrength::Convention::Documented,
        action: atomgpu::linestrength::Action::Absorption,
    }
}

/// TROVE's `mat(n, irootI, irootF)` of `contraced_rotational_dipole`, transcribed: index
/// `n + 3 (irootI + dimenI irootF)` (0-based), Wang functions rot_k/rot_tau in TROVE's order.
fn trove_mat(ji: u32, jf: u32) -> Vec<f64> {
    let rot = |j: u32| {
        let mut k = vec![0i32];
        let mut tau = vec![(j % 2) as i32];
        for k0 in 1..=j as i32 {
            for tau0 in 0..2 {
                k.push(k0);
                tau.push(tau0);
            }
        }
        (k, tau)
    };
    let ((rot_ki, rot_taui), (rot_kf, rot_tauf)) = (rot(ji), rot(jf));
    let (dimen_i, dimen_f) = (rot_ki.len(), rot_kf.len());
    let mut mat = vec![0.0; 3 * dimen_i * dimen_f];
    let sign = |p: i32| if p % 2 == 0 { 1.0 } else { -1.0 };
    for iroot_i in 0..dimen_i {
        let (ki, taui) = (rot_ki[iroot_i], rot_taui[iroot_i]);
        let f_i = sign((ki % 3) * taui + ki);
        for iroot_f in 0..dimen_f {
            let (kf, tauf) = (rot_kf[iroot_f], rot_tauf[iroot_f]);
            let f_if = f_i * sign((kf % 3) * tauf);
            if (ki - kf).abs() > 1 {
                continue;
            }
            let f3j = three_j(ji as i32, 1, jf as i32, ki, kf - ki, -kf);
            if f3j.abs() < SMALL {
                continue;
            }
            let at = |n: usize| n + 3 * (iroot_i + dimen_i * iroot_f);
            if kf == ki {
                mat[at(2)] = (tauf - taui) as f64 * f3j * f_if;
            } else if tauf != taui {
                mat[at(0)] = ((kf - ki) * (tauf - taui)) as f64 * f3j * f_if;
                if ki * kf != 0 {
                    mat[at(0)] /= 2f64.sqrt();
                }
            } else {
                mat[at(1)] = -f3j * f_if;
                if ki * kf != 0 {
                    mat[at(1)] /= 2f64.sqrt();
                }
            }
        }
    }
    mat
}

/// TROVE's `wigner(indI, dJ)%rot(n, icountI, icountF, idegI, idegF)` = mat_(count_indexI,
/// count_indexF) with mat_ = E_I^T mat(n) E_F, as a function of the labels.
struct TroveRot {
    mat_: Vec<Vec<f64>>,
    lower: Basis,
    upper: Basis,
}

impl TroveRot {
    fn new(lower: &Basis, upper: &Basis) -> TroveRot {
        let mat = trove_mat(lower.j, upper.j);
        let (ni, nf) = (lower.n(), upper.n());
        let mat_ = (0..3)
            .map(|n| {
                let mut out = vec![0.0; ni * nf];
                for a in 0..ni {
                    for b in 0..nf {
                        let mut s = 0.0;
                        for r in 0..ni {
                            for q in 0..nf {
                                s += lower.e[r + ni * a] * mat[n + 3 * (r + ni * q)] * upper.e[q + nf * b];
                            }
                        }
                        out[a + ni * b] = s;
                    }
                }
                out
            })
            .collect();
        TroveRot { mat_, lower: lower.clone(), upper: upper.clone() }
    }

    fn rot(&self, n: usize, level_i: i32, level_f: i32, deg_i: i32, deg_f: i32) -> f64 {
        let (a, b) = (self.lower.count_index(level_i, deg_i), self.upper.count_index(level_f, deg_f));
        self.mat_[n][a + self.lower.n() * b]
    }
}

/// `do_1st_half_linestrength_rotsym_symmvec` with the packing of `dm_intensity_symmvec` before
/// it (|c| > THRESH_COEFF), transcribed. `dipole` is `dipole_me(icontrI, icontrF, imu)`, 0-based.
fn trove_half(
    dipole: &[f64],
    n_vib: usize,
    rot: &TroveRot,
    lower: &RotsymLabels,
    vector: &[f64],
    upper: &RotsymLabels,
    thresh_coeff: f64,
) -> Vec<f64> {
    let packed: Vec<usize> = (0..lower.len()).filter(|&p| vector[p].abs() > thresh_coeff).collect();
    (0..upper.len())
        .map(|iroot_f| {
            let (icontr_f, irlevel_f, irdeg_f) = (upper.v[iroot_f] as usize, upper.level[iroot_f], upper.deg[iroot_f]);
            let mut f_t = 0.0;
            for &p in &packed {
                let (icontr_i, irlevel_i, irdeg_i) = (lower.v[p] as usize, lower.level[p], lower.deg[p]);
                let dip: f64 = (0..3)
                    .map(|n| {
                        dipole[icontr_i + n_vib * (icontr_f + n_vib * n)]
                            * rot.rot(n, irlevel_i, irlevel_f, irdeg_i, irdeg_f)
                    })
                    .sum();
                f_t += vector[p] * dip;
            }
            f_t
        })
        .collect()
}

/// A random rotsym model: bases of J = 1, 2, 3, random parts of their blocks, random states.
struct Model {
    n_vib: usize,
    dipole: Vec<f64>,
    bases: Vec<Basis>,
    blocks: Vec<RotsymLabels>,
    energies: Vec<Vec<f64>>,
    states: Vec<Vec<f64>>,
}

impl Model {
    fn random(rng: &mut Rng, n_vib: usize) -> Model {
        let dipole = random_dipole(rng, n_vib);
        let bases: Vec<Basis> = (1..=3).map(|j| Basis::random(rng, j)).collect();
        let blocks: Vec<RotsymLabels> = bases.iter().map(|b| RotsymLabels::random_part(rng, b, n_vib, 0.8)).collect();
        let energies =
            blocks.iter().map(|b| (0..6).map(|s| 500.0 * b.j as f64 + 31.0 * s as f64).collect()).collect::<Vec<_>>();
        let states = blocks.iter().map(|b| random_values(rng, b.len() * 6)).collect();
        Model { n_vib, dipole, bases, blocks, energies, states }
    }

    fn handle(&self, backend: Backend) -> LineStrength {
        let mut h = LineStrength::new_on(backend, self.n_vib, &self.dipole, self.n_vib, Options::default()).unwrap();
        for b in &self.bases {
            set_basis(&mut h, b);
        }
        for (i, l) in self.blocks.iter().enumerate() {
            let id = h.add_rotsym_block(&l.spec()).unwrap();
            h.set_states(id, &self.energies[i], &self.states[i], l.len()).unwrap();
        }
        h
    }
}

#[test]
fn half_linestrengths_amplitudes_and_lines_equal_the_transcribed_trove_loop() {
    let mut rng = Rng::new(29);
    for (n_vib, thresh) in [(5usize, 0.0), (7, 0.3)] {
        let m = Model::random(&mut rng, n_vib);
        let mut h = m.handle(Backend::Cpu);
        let lower = 1; // J = 2
        let n = 4;
        let lower_labels = &m.blocks[lower];
        let vectors = random_values(&mut rng, lower_labels.len() * n);
        h.load_lower(lower, n, &vectors, lower_labels.len(), thresh).unwrap();
        for upper in 0..3 {
            let ul = &m.blocks[upper];
            let rot = TroveRot::new(&m.bases[lower], &m.bases[upper]);
            let rows = ul.len();
            let mut half = vec![0.0; rows * n];
            h.half_linestrength(upper, thresh, &mut half, rows).unwrap();
            let amplitudes = h.amplitudes(upper, thresh).unwrap();
            let n_states = m.energies[upper].len();
            for i in 0..n {
                let c = &vectors[i * lower_labels.len()..(i + 1) * lower_labels.len()];
                let expect = trove_half(&m.dipole, n_vib, &rot, lower_labels, c, ul, thresh);
                let d = relative_difference(&half[i * rows..(i + 1) * rows], &expect);
                assert!(d < 1e-13, "Nvib {n_vib} thresh {thresh} upper {upper} state {i}: half differs by {d:e}");
                // Completion (TROVE's linestr = sum_p vecF(p) half_ls(p)).
                let a: Vec<f64> =
                    (0..n_states).map(|f| (0..rows).map(|p| m.states[upper][p + rows * f] * expect[p]).sum()).collect();
                let d = relative_difference(&amplitudes[i * n_states..(i + 1) * n_states], &a);
                assert!(d < 1e-13, "upper {upper} state {i}: amplitudes differ by {d:e}");
            }
        }
        // The line list: S = g_ns (2J'+1)(2J''+1) a^2 of the transcription for every pair.
        let lines = h.line_list(lower, &[0, 1, 2], &params(thresh)).unwrap();
        // Absorption pairs (E' > E''): none into J = 1 (lower energies), 15 within J = 2, 36 into J = 3.
        assert_eq!(lines.len(), 15 + 36);
        for l in &lines {
            let rot = TroveRot::new(&m.bases[lower], &m.bases[l.upper_block]);
            let c = &m.states[lower][l.lower_state * lower_labels.len()..(l.lower_state + 1) * lower_labels.len()];
            let ul = &m.blocks[l.upper_block];
            let half = trove_half(&m.dipole, n_vib, &rot, lower_labels, c, ul, thresh);
            let a: f64 = (0..ul.len()).map(|p| m.states[l.upper_block][p + ul.len() * l.upper_state] * half[p]).sum();
            let s = ((2 * ul.j + 1) * 5) as f64 * a * a;
            assert!((l.linestrength - s).abs() <= 1e-13 * s.max(1e-300), "{l:?}: S {} vs {s}", l.linestrength);
        }
    }
}

/// The Wang function index of (K, tau) in TROVE's order.
fn wang_index(k: i32, tau: i32) -> i32 {
    if k == 0 {
        0
    } else {
        2 * k - 1 + tau
    }
}

#[test]
fn identity_bases_give_the_wang_routes_numbers() {
    let mut rng = Rng::new(7);
    let n_vib = 6;
    let dipole = random_dipole(&mut rng, n_vib);
    let mut wang = cpu_handle(n_vib, &dipole);
    let mut rotsym = cpu_handle(n_vib, &dipole);
    let mut blocks = vec![];
    for j in 1..=3u32 {
        set_basis(&mut rotsym, &Basis::identity(j));
        // A random part of the full block, in a random order.
        let full = full_block(j, n_vib);
        let keep: Vec<usize> = permutation(&mut rng, full.len()).into_iter().filter(|_| rng.unit() < 0.85).collect();
        let labels = Labels {
            j,
            v: keep.iter().map(|&p| full.v[p]).collect(),
            k: keep.iter().map(|&p| full.k[p]).collect(),
            tau: keep.iter().map(|&p| full.tau[p]).collect(),
        };
        let level: Vec<i32> = labels.k.iter().zip(&labels.tau).map(|(&k, &t)| wang_index(k, t)).collect();
        let deg = vec![0; labels.len()];
        let spec = RotsymBlockSpec { j, gamma: 0, gns: 1.0, v: &labels.v, level: &level, deg: &deg, unfolding: None };
        let (a, b) = (wang.add_block(&labels.spec()).unwrap(), rotsym.add_rotsym_block(&spec).unwrap());
        let energies: Vec<f64> = (0..5).map(|s| 700.0 * j as f64 + 13.0 * s as f64).collect();
        let states = random_values(&mut rng, labels.len() * 5);
        wang.set_states(a, &energies, &states, labels.len()).unwrap();
        rotsym.set_states(b, &energies, &states, labels.len()).unwrap();
        blocks.push(labels);
    }
    // The Wang route cuts 3j symbols at THRESH_COEFF, the rotsym route at small_ (as TROVE does);
    // with a THRESH_COEFF below every 3j symbol of these J the two must agree.
    let smallest_3j = (1..=3i32)
        .flat_map(|j| {
            (j - 1..=j + 1).flat_map(move |jp| (0..=j).flat_map(move |k| (k - 1..=k + 1).map(move |kp| (j, jp, k, kp))))
        })
        .map(|(j, jp, k, kp)| three_j(j, 1, jp, k, kp - k, -kp).abs())
        .filter(|&x| x > 0.0)
        .fold(f64::INFINITY, f64::min);
    assert!(smallest_3j > 0.05, "{smallest_3j}");
    for thresh in [0.0, 0.05] {
        let n = 3;
        let vectors = random_values(&mut rng, blocks[1].len() * n);
        wang.load_lower(1, n, &vectors, blocks[1].len(), thresh).unwrap();
        rotsym.load_lower(1, n, &vectors, blocks[1].len(), thresh).unwrap();
        for (upper, labels) in blocks.iter().enumerate() {
            let rows = labels.len();
            let (mut hw, mut hr) = (vec![0.0; rows * n], vec![0.0; rows * n]);
            wang.half_linestrength(upper, thresh, &mut hw, rows).unwrap();
            rotsym.half_linestrength(upper, thresh, &mut hr, rows).unwrap();
            let d = relative_difference(&hr, &hw);
            assert!(d < 1e-13, "thresh {thresh} upper {upper}: {d:e}");
        }
        let lw = wang.line_list(1, &[0, 1, 2], &params(thresh)).unwrap();
        let lr = rotsym.line_list(1, &[0, 1, 2], &params(thresh)).unwrap();
        assert_same_lines(&lr, &lw, 1e-13);
    }
}

/// The two lists have the same lines in the same order, S and A within `tolerance` (relative).
fn assert_same_lines(got: &[Line], expect: &[Line], tolerance: f64) {
    assert_eq!(got.len(), expect.len());
    let scale = expect.iter().fold(0.0f64, |m, l| m.max(l.linestrength));
    for (g, e) in got.iter().zip(expect) {
        assert_eq!((g.lower_state, g.upper_block, g.upper_state), (e.lower_state, e.upper_block, e.upper_state));
        assert!((g.linestrength - e.linestrength).abs() <= tolerance * scale, "{g:?} vs {e:?}");
        assert!((g.wavenumber - e.wavenumber).abs() == 0.0);
    }
}

/// c'_(v, c) = sum_a E(a, c) c_(v, a) for every column of `states` (`n_vib (2J+1) x n`, the
/// full Wang block's order, v fastest): the same states on the rotational basis E.
fn to_basis(states: &[f64], n_vib: usize, basis: &Basis) -> Vec<f64> {
    let n = basis.n();
    let per_state = n_vib * n;
    let mut out = vec![0.0; states.len()];
    for (s, o) in states.chunks(per_state).zip(out.chunks_mut(per_state)) {
        for c in 0..n {
            for v in 0..n_vib {
                o[v + n_vib * c] = (0..n).map(|a| basis.e[a + n * c] * s[v + n_vib * a]).sum();
            }
        }
    }
    out
}

#[test]
fn line_strengths_do_not_depend_on_the_rotational_basis() {
    let mut rng = Rng::new(101);
    let n_vib = 4;
    let dipole = random_dipole(&mut rng, n_vib);
    let mut wang = cpu_handle(n_vib, &dipole);
    let mut rotsym = cpu_handle(n_vib, &dipole);
    for j in 0..=3u32 {
        let full = full_block(j, n_vib);
        let n_states = full.len().min(7);
        let energies: Vec<f64> = (0..n_states).map(|s| 400.0 * j as f64 + 17.0 * s as f64).collect();
        let states = random_values(&mut rng, full.len() * n_states);
        let id = wang.add_block(&full.spec()).unwrap();
        wang.set_states(id, &energies, &states, full.len()).unwrap();
        let basis = Basis::random(&mut rng, j);
        set_basis(&mut rotsym, &basis);
        let labels = RotsymLabels::full(&basis, n_vib);
        let id = rotsym.add_rotsym_block(&labels.spec()).unwrap();
        rotsym.set_states(id, &energies, &to_basis(&states, n_vib, &basis), labels.len()).unwrap();
    }
    for lower in 0..4usize {
        let uppers: Vec<usize> = (0..4usize).filter(|&u| u.abs_diff(lower) <= 1 && u + lower > 0).collect();
        let lw = wang.line_list(lower, &uppers, &params(0.0)).unwrap();
        let lr = rotsym.line_list(lower, &uppers, &params(0.0)).unwrap();
        assert!(!lw.is_empty());
        assert_same_lines(&lr, &lw, 1e-12);
    }
}

/// A random stacked unfolding of `ndeg` dense components `n_primitive x n_sym`, and the same
/// with its components mixed by the orthogonal `o` (T'_d = sum_d' o(d, d') T_d').
fn unfoldings(rng: &mut Rng, ndeg: usize, n_primitive: usize, n_sym: usize, o: &[f64]) -> [Vec<f64>; 2] {
    let t = random_values(rng, ndeg * n_primitive * n_sym); // row d n_p + p, column s: (d n_p + p) n_sym + s
    let mut mixed = vec![0.0; t.len()];
    for d in 0..ndeg {
        for dp in 0..ndeg {
            for e in 0..n_primitive * n_sym {
                mixed[d * n_primitive * n_sym + e] += o[d + ndeg * dp] * t[dp * n_primitive * n_sym + e];
            }
        }
    }
    [t, mixed]
}

#[test]
fn degenerate_totals_do_not_depend_on_the_components() {
    // Td(M) F2 levels (3 components) of J = 1 and 2 on random bases: mixing the components of the
    // unfoldings by an orthogonal matrix leaves L = sum over component pairs a^2 / 3 unchanged.
    let mut rng = Rng::new(5);
    let (n_vib, n_sym) = (3, 4);
    let dipole = random_dipole(&mut rng, n_vib);
    let bases = [Basis::random(&mut rng, 1), Basis::random(&mut rng, 2)];
    let mut lists = vec![];
    let mut data = vec![];
    for basis in &bases {
        let labels = RotsymLabels::full(basis, n_vib);
        let o = random_orthogonal(&mut rng, 3);
        let [t, mixed] = unfoldings(&mut rng, 3, labels.len(), n_sym, &o);
        let states = random_values(&mut rng, n_sym * 3);
        data.push((labels, t, mixed, states));
    }
    for variant in 0..2 {
        let mut h = cpu_handle(n_vib, &dipole);
        h.set_group(atomgpu::linestrength::SymmetryGroup::named("Td(M)").unwrap()).unwrap();
        for (basis, (labels, t, mixed, states)) in bases.iter().zip(&data) {
            set_basis(&mut h, basis);
            let values = if variant == 0 { t } else { mixed };
            let rows = 3 * labels.len();
            let row_start: Vec<i64> = (0..=rows as i64).map(|r| r * n_sym as i64).collect();
            let col: Vec<i64> = (0..rows * n_sym).map(|e| (e % n_sym) as i64).collect();
            let unfolding = Unfolding { ndeg: 3, n_sym, row_start: &row_start, col: &col, value: values };
            let spec = RotsymBlockSpec { gamma: 4, unfolding: Some(unfolding), ..labels.spec() };
            let id = h.add_rotsym_block(&spec).unwrap();
            h.set_states(id, &[100.0 * basis.j as f64, 150.0 * basis.j as f64, 170.0], states, n_sym).unwrap();
        }
        lists.push(h.line_list(0, &[0, 1], &params(0.0)).unwrap());
    }
    // Absorption pairs (E' > E'') from the three J = 1 levels: 3 into J = 1, 8 into J = 2.
    assert_eq!(lists[0].len(), 3 + 8);
    assert_same_lines(&lists[1], &lists[0], 1e-13);
}

#[test]
fn sum_rule_holds_for_complete_upper_sets_on_random_bases() {
    let mut rng = Rng::new(17);
    for j in [0u32, 1, 2, 4] {
        let n_vib = 5;
        let dipole = random_dipole(&mut rng, n_vib);
        let mut h = cpu_handle(n_vib, &dipole);
        let lower_basis = Basis::random(&mut rng, j);
        set_basis(&mut h, &lower_basis);
        let lower = RotsymLabels::full(&lower_basis, n_vib);
        let lower_id = h.add_rotsym_block(&lower.spec()).unwrap();
        let n = 2;
        let vectors = random_values(&mut rng, lower.len() * n);
        h.load_lower(lower_id, n, &vectors, lower.len(), 0.0).unwrap();
        let mut lhs = vec![0.0; n];
        for jp in j.saturating_sub(1)..=j + 1 {
            if j + jp == 0 {
                continue;
            }
            let basis = if jp == j { lower_basis.clone() } else { Basis::random(&mut rng, jp) };
            if jp != j {
                set_basis(&mut h, &basis);
            }
            let upper = RotsymLabels::full(&basis, n_vib);
            let id = if jp == j { lower_id } else { h.add_rotsym_block(&upper.spec()).unwrap() };
            // A complete orthonormal set of upper states.
            let rows = upper.len();
            let energies = vec![1.0; rows];
            h.set_states(id, &energies, &random_orthogonal(&mut rng, rows), rows).unwrap();
            if jp != j {
                h.load_lower(lower_id, n, &vectors, lower.len(), 0.0).unwrap();
            }
            let a = h.amplitudes(id, 0.0).unwrap();
            for i in 0..n {
                lhs[i] += (2 * jp + 1) as f64 * a[i * rows..(i + 1) * rows].iter().map(|x| x * x).sum::<f64>();
            }
        }
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
            assert!((lhs[i] - rhs).abs() < 1e-13 * rhs, "J = {j}, state {i}: {} vs {rhs}", lhs[i]);
        }
    }
}

fn error_of(r: atomgpu::error::Result<impl std::fmt::Debug>) -> String {
    r.unwrap_err().to_string()
}

#[test]
fn bad_bases_and_blocks_name_the_argument() {
    let mut rng = Rng::new(3);
    let dipole = random_dipole(&mut rng, 2);
    let mut h = cpu_handle(2, &dipole);
    let b = Basis::random(&mut rng, 1);
    assert!(error_of(h.set_rotational_basis(1, &b.e[..8], &b.level, &b.deg)).contains("`e`"));
    let mut skew = b.e.clone();
    skew[4] += 1e-8;
    assert!(error_of(h.set_rotational_basis(1, &skew, &b.level, &b.deg)).contains("orthogonal"));
    let mut nan = b.e.clone();
    nan[2] = f64::NAN;
    assert!(error_of(h.set_rotational_basis(1, &nan, &b.level, &b.deg)).contains("`e`"));
    assert!(error_of(h.set_rotational_basis(1, &b.e, &[0, 1, 3], &[0, 0, 0])).contains("level_of_column"));
    assert!(error_of(h.set_rotational_basis(1, &b.e, &[0, 0, 0], &[0, 1, 3])).contains("deg_of_column"));
    let labels = RotsymLabels::full(&b, 2);
    assert!(error_of(h.add_rotsym_block(&labels.spec())).contains("set_rotational_basis first"));
    set_basis(&mut h, &b);
    let mut bad = labels.clone();
    bad.level[1] = 3;
    assert!(error_of(h.add_rotsym_block(&bad.spec())).contains("`level`"));
    let mut bad = labels.clone();
    bad.v[1] = bad.v[0];
    assert!(error_of(h.add_rotsym_block(&bad.spec())).contains("(v, level, deg) repeats"));
    let id = h.add_rotsym_block(&labels.spec()).unwrap();
    assert_eq!(id, 0);
    assert!(error_of(h.set_rotational_basis(1, &b.e, &b.level, &b.deg)).contains("in use by block 0"));
    let wang = full_block(1, 2);
    assert!(error_of(h.add_block(&wang.spec())).contains("rotsym"));
    let mut w = cpu_handle(2, &dipole);
    w.add_block(&wang.spec()).unwrap();
    set_basis(&mut w, &b);
    assert!(error_of(w.add_rotsym_block(&labels.spec())).contains("Wang blocks"));
}
