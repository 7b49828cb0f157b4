//! A synthetic C3v(M) symmetric top (a non-inverting XY3: PH3-like, or CH3F-like) in TROVE's
//! representation, with the symmetry built in rather than assumed: symmetry-adapted vibrational
//! functions, a dipole matrix made to transform as the molecule-fixed dipole does, (J, Gamma)
//! blocks whose unfolding matrices T_d come from projection operators, and random "Hamiltonians"
//! in the symmetrised bases. Plain owned data only (no library type but the existing [`BlockSpec`]).
//!
//! # The group and its operations
//!
//! C3v(M) = {E, (123), (132), (23)*, (13)*, (12)*}, species A1, A2, E (0-based 0, 1, 2: TROVE's
//! `sym%label` order for C3V(M), symmetry.f90). The operations are numbered as TROVE numbers them
//! and carry TROVE's data: the Euler angles (phi, theta, chi) of the equivalent rotation
//! (`sym%euler`) and the matrices of E (`sym%irr(3, ioper)%repres`). TROVE does not name its C3V(M)
//! operations; the names are those of TROVE's D3H(M) list for the same Euler angles and E
//! matrices. The generators are (123) and (23)* ([`GENERATORS`]).
//!
//! | op | name  | (phi, theta, chi) | equivalent rotation       | D^E (rows)              |
//! |----|-------|-------------------|---------------------------|-------------------------|
//! | 0  | E     | (0, 0, 0)         | R^0                       | [1 0; 0 1]              |
//! | 1  | (123) | (4pi/3, 0, 0)     | R_z^{4pi/3}               | [-1/2 r; -r -1/2]       |
//! | 2  | (132) | (2pi/3, 0, 0)     | R_z^{2pi/3}               | [-1/2 -r; r -1/2]       |
//! | 3  | (23)* | (0, pi, 0)        | R_{pi/2}^pi  (about y)    | [1 0; 0 -1]             |
//! | 4  | (13)* | (2pi/3, pi, 0)    | R_{5pi/6}^pi              | [-1/2 r; r 1/2]         |
//! | 5  | (12)* | (4pi/3, pi, 0)    | R_{pi/6}^pi               | [-1/2 -r; -r 1/2]       |
//!
//! (r = sqrt(3)/2.) The rotation with Euler angles (phi, theta, chi) is Rz(phi) Ry(theta) Rz(chi);
//! with theta = 0 it is R_z^beta, beta = phi + chi, and with theta = pi it is R_alpha^pi, the
//! rotation by pi about the axis in the xy plane at the angle alpha = pi/2 + (phi - chi)/2 from x.
//! Characters: A1 = 1, A2 = det D^E (-1 for the starred operations), E = trace D^E.
//!
//! # Action on the Euler angles and on |J, K, tau>
//!
//! Bunker & Jensen, *Molecular Symmetry and Spectroscopy*, 2nd ed. (NRC, 1998), ch. 12: an
//! operation whose equivalent rotation is R_z^beta takes (theta, phi, chi) to
//! (theta, phi, chi + beta); one whose equivalent rotation is R_alpha^pi takes them to
//! (pi - theta, phi + pi, 2 pi - 2 alpha - chi). On the symmetric-top functions this gives
//!
//! ```text
//!   R_z^beta    |J, k> = exp(i k beta) |J, k>
//!   R_alpha^pi  |J, k> = (-1)^J exp(-2 i k alpha) |J, -k>
//! ```
//!
//! TROVE's Wang functions (molecules.f90, `MLrotsymmetry_generate`, the matrix R), K > 0,
//! sigma = K mod 3:
//!
//! ```text
//!   |J, K, 0> = (|J, K> + (-1)^(J+K) |J, -K>) / sqrt 2
//!   |J, K, 1> = -i (-1)^sigma (|J, K> - (-1)^(J+K) |J, -K>) / sqrt 2
//!   |J, 0, tau = J mod 2> = |J, 0> (J even),  -i |J, 0> (J odd)
//! ```
//!
//! so that (all real; c = cos(K beta), s = sin(K beta), C = cos(2 K alpha), S = sin(2 K alpha)):
//!
//! ```text
//!   R_z^beta:   |K,0> -> c |K,0> - (-1)^sigma s |K,1>          |K,1> -> c |K,1> + (-1)^sigma s |K,0>
//!               |0,tau> -> |0,tau>
//!   R_alpha^pi: |K,0> -> (-1)^K (C |K,0> - (-1)^sigma S |K,1>)  |K,1> -> -(-1)^K (C |K,1> + (-1)^sigma S |K,0>)
//!               |0,tau> -> (-1)^J |0,tau>
//! ```
//!
//! ([`wang_action`]; a function-transformation matrix: column = image of a Wang function.) This is
//! the matrix TROVE builds numerically, `Re(R^+ T R)` with `T(n2, n1) = ddlmn_conj(J, n2, n1, phi,
//! theta, chi) = exp(i (n2 phi + n1 chi)) d^J_{n1 n2}(theta)` (checked by the tests against a
//! Wigner-d evaluation). Consequences, checked by the tests: K = 3n functions are A1 (tau = 0) or
//! A2 (tau = 1) and every pair (|J,K,0>, |J,K,1>) with K != 3n transforms exactly as TROVE's E
//! components (1, 2), as in TROVE's `ML_rotsymmetry_XY3` table; the sign (-1)^sigma of TROVE's Wang
//! functions is what makes the K = 3n + 2 pairs transform with the same matrices as K = 3n + 1.
//!
//! # Action on the dipole components (TROVE's real mu_y)
//!
//! The rotational factor f of `atomgpu::linestrength::rotation` (TROVE's, with the i of mu_y
//! absorbed) makes the three matrices F_m(J K tau; J' K' tau') = f (m its component) a vector
//! operator under the action above, for every (J, J'):
//!
//! ```text
//!   W_J(g)^T F_m W_J'(g) = sum_n F_n A_nm(g),     A(g) = S R(g)^T S,   S = diag(1, -1, 1),
//! ```
//! R(g) the 3x3 equivalent rotation ([`Operation::factor_transformation`]; the transpose is the
//! passive reading, the y flip is the real-mu_y convention). The vibronic amplitude
//! `sum_m F_m dipole(., ., m)` must then change as the space-fixed dipole does, by the character
//! of A2 (the species of mu_Z in C3v(M)), which fixes the transformation of the stored dipole:
//!
//! ```text
//!   V(g)^T dipole(:, :, m) V(g) = sum_n B_mn(g) dipole(:, :, n),   B(g) = chi_A2(g) A(g)^T
//! ```
//! ([`Operation::dipole_transformation`]): z is A1, and (x, -y) transform exactly as TROVE's E
//! components (1, 2) (B restricted to x, y is S D^E S). The dipole matrix is a random real
//! symmetric matrix per component (real vibrational functions; with TROVE's f this makes every
//! amplitude change sign under exchange of the lower and upper state) averaged over the group with
//! this action, so that it is exactly invariant.
//!
//! # Vibrational basis, blocks, unfolding, levels
//!
//! Vibrational functions are symmetry-adapted (as TROVE's J = 0 contracted basis): A1, A2, or one
//! component of an E pair (consecutive indices, component 0 then 1), sorted by energy, the ground
//! state A1 at 0. V(g) is 1, chi_A2(g), or D^E(g) on the pair ([`Model::vib_action`]).
//!
//! The (J, Gamma) block has every primitive function |v>|J,K,tau> of that J, in the order of
//! `full_block` (p = v + Nvib slot, slots in `wang_labels` order). The primitive action is
//! U_J(g) = W_J(g) (x) V(g); it leaves invariant each small space spanned by one K and one
//! vibrational multiplet (dimension <= 4), where the projection operators
//! P^Gamma_{d d'} = (ndeg / 6) sum_g D^Gamma_{d d'}(g) U(g) give the symmetrised functions: for A1,
//! A2 the projections P of the primitive functions, orthonormalised (Gram-Schmidt); for E, the
//! orthonormalised P_00 projections as component 0 and their images under P_10 as component 1
//! (so that U(g) T_d = sum_d' T_d' D^E_{d'd}(g) holds exactly, component by component). T_d, the
//! columns of component d, is stored as one stacked CSR (rows d n_primitive + p). The Hamiltonian
//! of a block is `T_0^T diag(E_vib + B J(J+1) + (C - B) K^2) T_0` (the same for both components of
//! E, as any invariant operator) plus a random symmetric coupling; its eigenvectors (faer) are the
//! levels, one vector per E level, and energies are shifted so that the lowest J = 0 level is 0.

#![allow(dead_code, clippy::needless_range_loop)]

use super::molecule::{full_block, wang_labels, Labels, Rng};
use atomgpu::linestrength::BlockSpec;
use std::f64::consts::{FRAC_PI_2, PI};

pub const A1: usize = 0;
pub const A2: usize = 1;
pub const E: usize = 2;
/// Species labels, TROVE's `sym%label` order for C3V(M).
pub const SPECIES: [&str; 3] = ["A1", "A2", "E"];
/// Degeneracy of each species (TROVE's `sym%degen`).
pub const NDEG: [usize; 3] = [1, 1, 2];
/// Number of operations of C3v(M).
pub const N_OPERATIONS: usize = 6;
/// Operations generating the group: (123) and (23)*.
pub const GENERATORS: [usize; 2] = [1, 3];

const ROOT3_2: f64 = 0.866_025_403_784_438_6;

/// The equivalent rotation of an operation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EquivalentRotation {
    /// R_z^beta: rotation by beta about z.
    Z { beta: f64 },
    /// R_alpha^pi: rotation by pi about the axis in the xy plane at angle alpha from x.
    Pi { alpha: f64 },
}

/// One operation of C3v(M), with TROVE's data.
#[derive(Clone, Debug)]
pub struct Operation {
    pub name: &'static str,
    /// (phi, theta, chi), TROVE's `sym%euler(ioper, :)`.
    pub euler: [f64; 3],
    pub rotation: EquivalentRotation,
    /// D^E(g), `e[row][col]`, TROVE's `sym%irr(3, ioper)%repres`.
    pub e: [[f64; 2]; 2],
}

/// The six operations, in TROVE's order.
pub fn operations() -> Vec<Operation> {
    let (a, r) = (0.5, ROOT3_2);
    type Row = (&'static str, [f64; 3], [[f64; 2]; 2]);
    let table: [Row; N_OPERATIONS] = [
        ("E", [0.0, 0.0, 0.0], [[1.0, 0.0], [0.0, 1.0]]),
        ("(123)", [4.0 * PI / 3.0, 0.0, 0.0], [[-a, r], [-r, -a]]),
        ("(132)", [2.0 * PI / 3.0, 0.0, 0.0], [[-a, -r], [r, -a]]),
        ("(23)*", [0.0, PI, 0.0], [[1.0, 0.0], [0.0, -1.0]]),
        ("(13)*", [2.0 * PI / 3.0, PI, 0.0], [[-a, r], [r, a]]),
        ("(12)*", [4.0 * PI / 3.0, PI, 0.0], [[-a, -r], [-r, a]]),
    ];
    table
        .iter()
        .map(|&(name, euler, e)| {
            let [phi, theta, chi] = euler;
            let rotation = if theta == 0.0 {
                EquivalentRotation::Z { beta: phi + chi }
            } else {
                assert_eq!(theta, PI);
                EquivalentRotation::Pi { alpha: FRAC_PI_2 + 0.5 * (phi - chi) }
            };
            Operation { name, euler, rotation, e }
        })
        .collect()
}

/// Rounds x to the nearest of 0, +-1/2, +-sqrt(3)/2, +-1 when within 1e-12 (the entries of every
/// matrix of this group), so that exact zeros stay zeros.
fn snap(x: f64) -> f64 {
    for exact in [0.0, 0.5, ROOT3_2, 1.0] {
        if (x.abs() - exact).abs() < 1e-12 {
            return exact.copysign(x);
        }
    }
    x
}

type M3 = [[f64; 3]; 3];

fn mul3(a: &M3, b: &M3) -> M3 {
    let mut c = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            c[i][j] = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    c
}

fn transpose3(a: &M3) -> M3 {
    let mut t = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            t[i][j] = a[j][i];
        }
    }
    t
}

impl Operation {
    /// The character of species `gamma`.
    pub fn character(&self, gamma: usize) -> f64 {
        match gamma {
            A1 => 1.0,
            A2 => snap(self.e[0][0] * self.e[1][1] - self.e[0][1] * self.e[1][0]),
            _ => self.e[0][0] + self.e[1][1],
        }
    }

    /// D^gamma(g)_{row, col}.
    pub fn irrep(&self, gamma: usize, row: usize, col: usize) -> f64 {
        match gamma {
            E => self.e[row][col],
            _ => self.character(gamma),
        }
    }

    /// The 3x3 matrix of the equivalent rotation, Rz(phi) Ry(theta) Rz(chi).
    pub fn rotation_matrix(&self) -> M3 {
        let rz = |a: f64| [[a.cos(), -a.sin(), 0.0], [a.sin(), a.cos(), 0.0], [0.0, 0.0, 1.0]];
        let ry = |a: f64| [[a.cos(), 0.0, a.sin()], [0.0, 1.0, 0.0], [-a.sin(), 0.0, a.cos()]];
        let [phi, theta, chi] = self.euler;
        let r = mul3(&mul3(&rz(phi), &ry(theta)), &rz(chi));
        r.map(|row| row.map(snap))
    }

    /// A(g) = S R(g)^T S: `W_J^T F_m W_J' = sum_n F_n A[n][m]` for the rotational factors F_m.
    pub fn factor_transformation(&self) -> M3 {
        let mut a = transpose3(&self.rotation_matrix());
        for i in 0..3 {
            for j in 0..3 {
                if (i == 1) != (j == 1) {
                    a[i][j] = -a[i][j];
                }
            }
        }
        a
    }

    /// B(g) = chi_A2(g) A(g)^T: `V^T dipole_m V = sum_n B[m][n] dipole_n` for an invariant dipole.
    pub fn dipole_transformation(&self) -> M3 {
        let chi = self.character(A2);
        transpose3(&self.factor_transformation()).map(|row| row.map(|x| chi * x))
    }
}

/// W_J(g): the action of `op` on the Wang functions of J (`wang_labels` order), column-major
/// `n x n` (n = 2J+1), column = image of a function (module documentation).
pub fn wang_action(j: u32, op: &Operation) -> Vec<f64> {
    let labels = wang_labels(j);
    let n = labels.len();
    let index = |k: i32, tau: i32| labels.iter().position(|&l| l == (k, tau)).expect("a Wang label");
    let mut w = vec![0.0; n * n];
    for &(k, tau) in &labels {
        let col = index(k, tau);
        if k == 0 {
            w[col + n * col] = match op.rotation {
                EquivalentRotation::Z { .. } => 1.0,
                EquivalentRotation::Pi { .. } => {
                    if j.is_multiple_of(2) {
                        1.0
                    } else {
                        -1.0
                    }
                }
            };
            continue;
        }
        let sign_sigma = if (k % 3) % 2 == 0 { 1.0 } else { -1.0 };
        let (angle, overall) = match op.rotation {
            EquivalentRotation::Z { beta } => (k as f64 * beta, 1.0),
            EquivalentRotation::Pi { alpha } => (2.0 * k as f64 * alpha, if k % 2 == 0 { 1.0 } else { -1.0 }),
        };
        let (c, s) = (snap(angle.cos()), snap(angle.sin()));
        let (i0, i1) = (index(k, 0), index(k, 1));
        let flip = if matches!(op.rotation, EquivalentRotation::Pi { .. }) && tau == 1 { -1.0 } else { 1.0 };
        if tau == 0 {
            w[i0 + n * col] = overall * c;
            w[i1 + n * col] = -overall * sign_sigma * s;
        } else {
            w[i1 + n * col] = flip * overall * c;
            w[i0 + n * col] = flip * overall * sign_sigma * s;
        }
    }
    w
}

/// Model sizes and constants.
#[derive(Clone, Debug)]
pub struct ModelParams {
    /// Vibrational functions of species A1 (the first is the ground state), A2, and E pairs.
    pub n_a1: usize,
    pub n_a2: usize,
    pub n_e: usize,
    pub j_max: u32,
    pub seed: u64,
    /// Rotational constants B and C (cm^-1) of the oblate top (NH3/PH3-like).
    pub b: f64,
    pub c: f64,
    /// Scale (cm^-1) of the random coupling added to each block's Hamiltonian.
    pub coupling: f64,
    /// Nuclear spins, doubled, of the three Y nuclei and of X (for the g_ns of the blocks).
    pub two_i_y: u32,
    pub two_i_x: u32,
}

impl Default for ModelParams {
    /// 20 vibrational functions (5 A1, 3 A2, 6 E pairs), J <= 6; PH3-like rotational constants
    /// and spins (g_ns 8, 8, 8).
    fn default() -> Self {
        ModelParams {
            n_a1: 5,
            n_a2: 3,
            n_e: 6,
            j_max: 6,
            seed: 31,
            b: 4.45,
            c: 3.92,
            coupling: 2.0,
            two_i_y: 1,
            two_i_x: 1,
        }
    }
}

/// One (J, Gamma) block: every primitive function of J, the stacked unfolding, the levels.
#[derive(Clone, Debug)]
pub struct SymBlock {
    pub j: u32,
    pub gamma: usize,
    pub ndeg: usize,
    pub gns: f64,
    /// The primitive functions: all (2J+1) Nvib of J, `full_block` order.
    pub labels: Labels,
    pub n_sym: usize,
    /// Stacked CSR of T_0, .., T_(ndeg-1): row d n_primitive + p, columns the n_sym symmetrised
    /// functions, 0-based; `row_start` has ndeg n_primitive + 1 entries.
    pub row_start: Vec<i64>,
    pub col: Vec<i64>,
    pub value: Vec<f64>,
    /// The symmetrised Hamiltonian (`n_sym x n_sym`, cm^-1), its eigenvectors (`n_sym x n_states`,
    /// column-major, orthonormal) and eigenvalues (cm^-1, ascending, shifted: lowest J=0 at 0).
    pub hamiltonian: Vec<f64>,
    pub vectors: Vec<f64>,
    pub energies: Vec<f64>,
}

impl SymBlock {
    pub fn n_primitive(&self) -> usize {
        self.labels.len()
    }

    pub fn n_states(&self) -> usize {
        self.energies.len()
    }

    /// The block's primitive spec (its vectors are given unfolded: `unfolding: None`).
    pub fn spec(&self) -> BlockSpec<'_> {
        BlockSpec { gamma: self.gamma as u32, gns: self.gns, ..self.labels.spec() }
    }

    /// Level s's symmetrised vector.
    pub fn level(&self, s: usize) -> &[f64] {
        &self.vectors[s * self.n_sym..(s + 1) * self.n_sym]
    }

    /// T_d as a dense column-major `n_primitive x n_sym` matrix.
    pub fn unfolding_dense(&self, d: usize) -> Vec<f64> {
        let p_count = self.n_primitive();
        let mut t = vec![0.0; p_count * self.n_sym];
        for p in 0..p_count {
            let row = d * p_count + p;
            for e in self.row_start[row] as usize..self.row_start[row + 1] as usize {
                t[p + p_count * self.col[e] as usize] = self.value[e];
            }
        }
        t
    }

    /// T_d c: the primitive coefficients of component d of the symmetrised vector c.
    pub fn unfold(&self, c: &[f64], d: usize) -> Vec<f64> {
        let p_count = self.n_primitive();
        (0..p_count)
            .map(|p| {
                let row = d * p_count + p;
                (self.row_start[row] as usize..self.row_start[row + 1] as usize)
                    .map(|e| self.value[e] * c[self.col[e] as usize])
                    .sum()
            })
            .collect()
    }

    /// T_d^T h: the projection of a primitive vector on the symmetrised functions of component d.
    pub fn project(&self, h: &[f64], d: usize) -> Vec<f64> {
        let p_count = self.n_primitive();
        let mut y = vec![0.0; self.n_sym];
        for p in 0..p_count {
            let row = d * p_count + p;
            for e in self.row_start[row] as usize..self.row_start[row + 1] as usize {
                y[self.col[e] as usize] += self.value[e] * h[p];
            }
        }
        y
    }
}

/// The model.
#[derive(Clone, Debug)]
pub struct Model {
    pub params: ModelParams,
    pub n_vib: usize,
    /// Per vibrational function: species, component (0 unless E), energy (cm^-1), and the index
    /// of its multiplet's first function.
    pub vib_species: Vec<usize>,
    pub vib_component: Vec<usize>,
    pub vib_energy: Vec<f64>,
    pub vib_multiplet: Vec<usize>,
    /// V(g) per operation (TROVE order), `Nvib x Nvib` column-major.
    pub vib_action: Vec<Vec<f64>>,
    /// dipole(v, v', m) at v + Nvib (v' + Nvib m), Debye.
    pub dipole: Vec<f64>,
    /// g_ns of A1, A2, E.
    pub gns: [f64; 3],
    /// The lowest J = 0 eigenvalue (cm^-1), subtracted from every energy.
    pub zpe: f64,
    /// Blocks, index 3 J + Gamma.
    pub blocks: Vec<SymBlock>,
}

impl Model {
    pub fn block(&self, j: u32, gamma: usize) -> &SymBlock {
        &self.blocks[3 * j as usize + gamma]
    }

    /// U_J(g) = W_J(g) (x) V(g) on the primitive functions of J (`full_block` order),
    /// column-major `n_primitive x n_primitive`.
    pub fn primitive_action(&self, j: u32, op: &Operation) -> Vec<f64> {
        let w = wang_action(j, op);
        let (n, r) = (self.n_vib, 2 * j as usize + 1);
        let v = &self.vib_action[operation_index(op)];
        let p_count = n * r;
        let mut u = vec![0.0; p_count * p_count];
        for s in 0..r {
            for s2 in 0..r {
                let ws = w[s2 + r * s];
                if ws == 0.0 {
                    continue;
                }
                for a in 0..n {
                    for a2 in 0..n {
                        u[(a2 + n * s2) + p_count * (a + n * s)] = ws * v[a2 + n * a];
                    }
                }
            }
        }
        u
    }
}

fn operation_index(op: &Operation) -> usize {
    operations().iter().position(|o| o.name == op.name).expect("an operation of C3v(M)")
}

/// g_ns of the C3v(M) species (A1, A2, E) of a non-inverting XY3 whose identical Y nuclei have
/// spin I_Y and whose X nucleus has spin I_X (both given doubled).
///
/// The three Y spins span n^3 functions (n = 2 I_Y + 1) whose characters in the permutation group
/// S3 are n^3 (E), n (3-cycles), n^2 (transpositions): N_A1 = (n^3 + 3n^2 + 2n)/6,
/// N_A2 = (n^3 - 3n^2 + 2n)/6, N_E = (n^3 - n)/3 spin species. C3v(M) is the feasible half of
/// S3 x {E, E*}; each of its levels is a parity doublet there (A1 -> A1+ + A2-, A2 -> A1- + A2+,
/// E -> E+ + E-; Bunker & Jensen, 2nd ed., ch. 8-9 on the CNPI group and spin statistics), and
/// whether the complete function must be A1 (bosons) or A2 (fermions) of S3, each A level pairs
/// with N_A1 + N_A2 spin functions and each E level with 2 N_E:
///
/// ```text
///   g_ns(A1) = g_ns(A2) = (n^3 + 2n)/3 (2 I_X + 1),     g_ns(E) = 2 (n^3 - n)/3 (2 I_X + 1).
/// ```
///
/// PH3 (I_P = I_H = 1/2): 8, 8, 8, TROVE's GNS for PH3 in C3V(M) (TROVE docs, linelist.rst and
/// quickstart.rst: `GNS 8.0 8.0 8.0`, `selection 1 1 2`); CH3F likewise; CD3H-type spin-1 Y with a
/// spinless X: 11, 11, 16. (The weights 0, 12, 6 of NH3 are D3h(M)'s, for A1', A2', E' and the
/// double-primed species, TROVE's 14N-1H3 input `GNS 0 12 6 0 12 6`: with inversion resolved.)
pub fn nuclear_spin_weights(two_i_y: u32, two_i_x: u32) -> [f64; 3] {
    let n = (two_i_y + 1) as f64;
    let x = (two_i_x + 1) as f64;
    let a = (n * n * n + 2.0 * n) / 3.0 * x;
    [a, a, 2.0 * (n * n * n - n) / 3.0 * x]
}

/// Builds the model.
pub fn c3v_model(params: ModelParams) -> Model {
    let ops = operations();
    let mut rng = Rng::new(params.seed);

    // Vibrational multiplets (species, energy), sorted by energy; the ground state A1 at 0.
    let mut multiplets: Vec<(usize, f64)> = vec![(A1, 0.0)];
    multiplets.extend((1..params.n_a1).map(|_| (A1, rng.uniform(600.0, 4500.0))));
    multiplets.extend((0..params.n_a2).map(|_| (A2, rng.uniform(1500.0, 5000.0))));
    multiplets.extend((0..params.n_e).map(|_| (E, rng.uniform(900.0, 4500.0))));
    multiplets.sort_by(|a, b| a.1.total_cmp(&b.1));
    let (mut vib_species, mut vib_component, mut vib_energy, mut vib_multiplet) = (vec![], vec![], vec![], vec![]);
    for &(gamma, energy) in &multiplets {
        let first = vib_species.len();
        for d in 0..NDEG[gamma] {
            vib_species.push(gamma);
            vib_component.push(d);
            vib_energy.push(energy);
            vib_multiplet.push(first);
        }
    }
    let n = vib_species.len();

    let vib_action: Vec<Vec<f64>> = ops
        .iter()
        .map(|op| {
            let mut v = vec![0.0; n * n];
            for a in 0..n {
                let first = vib_multiplet[a];
                for a2 in first..first + NDEG[vib_species[a]] {
                    v[a2 + n * a] = op.irrep(vib_species[a], vib_component[a2], vib_component[a]);
                }
            }
            v
        })
        .collect();

    let dipole = symmetric_dipole(&mut rng, n, &ops, &vib_action);
    let gns = nuclear_spin_weights(params.two_i_y, params.two_i_x);

    let mut blocks = Vec::new();
    for j in 0..=params.j_max {
        let unfoldings = symmetrise(j, n, &ops, &vib_action, &vib_multiplet, &vib_species);
        for (gamma, columns) in unfoldings.into_iter().enumerate() {
            blocks.push(block(j, gamma, gns[gamma], n, columns, &vib_energy, &params, &mut rng));
        }
    }
    let zpe = (0..3).flat_map(|g| blocks[g].energies.first().copied()).fold(f64::INFINITY, f64::min);
    for b in &mut blocks {
        for e in &mut b.energies {
            *e -= zpe;
        }
    }
    Model {
        params,
        n_vib: n,
        vib_species,
        vib_component,
        vib_energy,
        vib_multiplet,
        vib_action,
        dipole,
        gns,
        zpe,
        blocks,
    }
}

/// A random real symmetric dipole (Nvib x Nvib x 3) averaged over the group with the action
/// `(T_g mu)_m = sum_n B_nm(g) V(g)^T mu_n V(g)`, whose fixed points are the invariant dipoles.
fn symmetric_dipole(rng: &mut Rng, n: usize, ops: &[Operation], vib_action: &[Vec<f64>]) -> Vec<f64> {
    let mut raw = vec![0.0; n * n * 3];
    for m in 0..3 {
        for b in 0..n {
            for a in 0..=b {
                let x = rng.uniform(-1.0, 1.0);
                raw[a + n * (b + n * m)] = x;
                raw[b + n * (a + n * m)] = x;
            }
        }
    }
    let mut out = vec![0.0; n * n * 3];
    for (op, v) in ops.iter().zip(vib_action) {
        let b = op.dipole_transformation();
        for nn in 0..3 {
            // V^T mu_n V
            let mu = &raw[n * n * nn..n * n * (nn + 1)];
            let mut tmp = vec![0.0; n * n];
            for col in 0..n {
                for row in 0..n {
                    tmp[row + n * col] = (0..n).map(|k| mu[row + n * k] * v[k + n * col]).sum();
                }
            }
            let mut conj = vec![0.0; n * n];
            for col in 0..n {
                for row in 0..n {
                    conj[row + n * col] = (0..n).map(|k| v[k + n * row] * tmp[k + n * col]).sum();
                }
            }
            for m in 0..3 {
                if b[nn][m] != 0.0 {
                    for (o, c) in out[n * n * m..n * n * (m + 1)].iter_mut().zip(&conj) {
                        *o += b[nn][m] * c / N_OPERATIONS as f64;
                    }
                }
            }
        }
    }
    // Exactly symmetric (the average is, up to rounding).
    for m in 0..3 {
        for b in 0..n {
            for a in 0..b {
                let x = 0.5 * (out[a + n * (b + n * m)] + out[b + n * (a + n * m)]);
                out[a + n * (b + n * m)] = x;
                out[b + n * (a + n * m)] = x;
            }
        }
    }
    out
}

/// The symmetrised functions of J, per species and component: `columns[gamma][d][s]` is the
/// sparse column s of T_d, (primitive index, value).
#[allow(clippy::type_complexity)]
fn symmetrise(
    j: u32,
    n: usize,
    ops: &[Operation],
    vib_action: &[Vec<f64>],
    vib_multiplet: &[usize],
    vib_species: &[usize],
) -> Vec<Vec<Vec<Vec<(usize, f64)>>>> {
    let labels = wang_labels(j);
    let r = labels.len();
    let w: Vec<Vec<f64>> = ops.iter().map(|op| wang_action(j, op)).collect();
    let mut columns: Vec<Vec<Vec<Vec<(usize, f64)>>>> = (0..3).map(|g| vec![vec![]; NDEG[g]]).collect();
    for k in 0..=j as i32 {
        let slots: Vec<usize> = (0..r).filter(|&s| labels[s].0 == k).collect();
        let firsts: Vec<usize> = (0..n).filter(|&a| vib_multiplet[a] == a).collect();
        for &first in &firsts {
            let vibs: Vec<usize> = (first..first + NDEG[vib_species[first]]).collect();
            // The invariant subspace: primitive indices and the action U(g) on it.
            let space: Vec<(usize, usize)> = slots.iter().flat_map(|&s| vibs.iter().map(move |&a| (s, a))).collect();
            let dim = space.len();
            let prim: Vec<usize> = space.iter().map(|&(s, a)| a + n * s).collect();
            let u: Vec<Vec<f64>> = (0..ops.len())
                .map(|g| {
                    let mut m = vec![0.0; dim * dim];
                    for (c, &(s, a)) in space.iter().enumerate() {
                        for (row, &(s2, a2)) in space.iter().enumerate() {
                            m[row + dim * c] = w[g][s2 + r * s] * vib_action[g][a2 + n * a];
                        }
                    }
                    m
                })
                .collect();
            let projector = |gamma: usize, d: usize, d2: usize| {
                let mut p = vec![0.0; dim * dim];
                for (g, op) in ops.iter().enumerate() {
                    let coefficient = NDEG[gamma] as f64 / N_OPERATIONS as f64 * op.irrep(gamma, d, d2);
                    for (x, y) in p.iter_mut().zip(&u[g]) {
                        *x += coefficient * y;
                    }
                }
                p
            };
            let apply = |p: &[f64], x: &[f64]| -> Vec<f64> {
                (0..dim).map(|row| (0..dim).map(|c| p[row + dim * c] * x[c]).sum()).collect()
            };
            for gamma in 0..3 {
                let p00 = projector(gamma, 0, 0);
                let mut accepted: Vec<Vec<f64>> = vec![];
                for i in 0..dim {
                    let mut x: Vec<f64> = (0..dim).map(|row| p00[row + dim * i]).collect();
                    for y in &accepted {
                        let dot: f64 = x.iter().zip(y).map(|(a, b)| a * b).sum();
                        for (a, b) in x.iter_mut().zip(y) {
                            *a -= dot * b;
                        }
                    }
                    let norm = x.iter().map(|a| a * a).sum::<f64>().sqrt();
                    if norm > 1e-8 {
                        accepted.push(x.iter().map(|a| a / norm).collect());
                    }
                }
                let p10 = if NDEG[gamma] == 2 { Some(projector(gamma, 1, 0)) } else { None };
                for x in &accepted {
                    let sparse = |x: &[f64]| -> Vec<(usize, f64)> {
                        let mut col: Vec<(usize, f64)> =
                            x.iter().zip(&prim).filter(|(v, _)| v.abs() > 1e-14).map(|(&v, &p)| (p, v)).collect();
                        col.sort_by_key(|e| e.0);
                        col
                    };
                    columns[gamma][0].push(sparse(x));
                    if let Some(p10) = &p10 {
                        columns[gamma][1].push(sparse(&apply(p10, x)));
                    }
                }
            }
        }
    }
    columns
}

/// A block from its symmetrised columns: the stacked CSR, the Hamiltonian and its eigenpairs.
#[allow(clippy::too_many_arguments)]
fn block(
    j: u32,
    gamma: usize,
    gns: f64,
    n: usize,
    columns: Vec<Vec<Vec<(usize, f64)>>>,
    vib_energy: &[f64],
    params: &ModelParams,
    rng: &mut Rng,
) -> SymBlock {
    let labels = full_block(j, n);
    let p_count = labels.len();
    let ndeg = NDEG[gamma];
    let n_sym = columns[0].len();
    let mut rows: Vec<Vec<(i64, f64)>> = vec![vec![]; ndeg * p_count];
    for (d, component) in columns.iter().enumerate() {
        for (s, col) in component.iter().enumerate() {
            for &(p, v) in col {
                rows[d * p_count + p].push((s as i64, v));
            }
        }
    }
    let (mut row_start, mut col, mut value) = (vec![0i64], vec![], vec![]);
    for row in rows {
        for (c, v) in row {
            col.push(c);
            value.push(v);
        }
        row_start.push(col.len() as i64);
    }

    // H = T_0^T diag(E_prim) T_0 + random symmetric coupling.
    let e_prim: Vec<f64> = (0..p_count)
        .map(|p| {
            let (a, k) = (labels.v[p] as usize, labels.k[p] as f64);
            let jj = j as f64 * (j as f64 + 1.0);
            vib_energy[a] + params.b * jj + (params.c - params.b) * k * k
        })
        .collect();
    let mut h = vec![0.0; n_sym * n_sym];
    for (s, cs) in columns[0].iter().enumerate() {
        for (t, ct) in columns[0].iter().enumerate() {
            let mut sum = 0.0;
            for &(p, v) in cs {
                if let Some(&(_, w)) = ct.iter().find(|e| e.0 == p) {
                    sum += v * w * e_prim[p];
                }
            }
            h[s + n_sym * t] = sum;
        }
    }
    for t in 0..n_sym {
        for s in 0..=t {
            let x = params.coupling * rng.uniform(-1.0, 1.0);
            h[s + n_sym * t] += x;
            if s != t {
                h[t + n_sym * s] += x;
            }
        }
    }
    let (energies, vectors) = eigen(&h, n_sym);
    SymBlock { j, gamma, ndeg, gns, labels, n_sym, row_start, col, value, hamiltonian: h, vectors, energies }
}

/// Eigenvalues (ascending) and orthonormal eigenvectors (column-major) of a symmetric matrix.
fn eigen(h: &[f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    if n == 0 {
        return (vec![], vec![]);
    }
    let m = faer::Mat::from_fn(n, n, |i, j| h[i + n * j]);
    let e = m.self_adjoint_eigen(faer::Side::Lower).expect("the symmetric eigensolver");
    let values = (0..n).map(|i| e.S().column_vector()[i]).collect();
    let u = e.U();
    let mut vectors = vec![0.0; n * n];
    for j in 0..n {
        for i in 0..n {
            vectors[i + n * j] = u[(i, j)];
        }
    }
    (values, vectors)
}
