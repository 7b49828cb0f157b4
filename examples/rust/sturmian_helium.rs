//! Helium ¹S ground state in a Generalized Sturmian basis (paper §3.3), end to end in Rust:
//! a GSF basis per l (Yukawa generating potential, eq. 9), the L = 0 Hamiltonian with the
//! (l, l) pairs l = 0 … lmax (eq. 12) in the exchange-symmetric (singlet) basis, N(N+1)/2
//! functions per pair instead of N², and its lowest eigenvalue, as a table over the number
//! of functions per electron and lmax. Energies in hartree; the exact nonrelativistic value is
//! −2.903724377 (Pekeris; Drake). Run: `cargo run --release --example sturmian_helium`.

use atomgpu::backend;
use atomgpu::sturmian::gsf::{generate, GsfSpec};
use atomgpu::sturmian::solve::lowest_eigenpairs;
use atomgpu::sturmian::{Electron, Exchange, Grid, HamiltonianSpec, Order, Pair, Sturmian, Target};

/// Radial grid and basis parameters (bohr, hartree).
const RMAX: f64 = 40.0;
const NQ: usize = 160;
const NS: usize = 9;
const ENERGY: f64 = -2.2;

fn ground_state(n: usize, lmax: u32) -> Result<f64, atomgpu::error::Error> {
    let grid = Grid::gauss_legendre(RMAX, NQ, NS)?;
    let mut basis = Sturmian::<f64>::new(grid.clone())?;
    for l in 0..=lmax {
        let spec = GsfSpec {
            l,
            nuclear_charge: 2.0,
            energy: ENERGY,
            yukawa_strength: 2.0,
            yukawa_range: 1.0,
            n_parent: n + 10,
            lambda: 2.0,
            n,
        };
        let gsf = generate(&grid, &spec)?;
        for electron in [Electron::A, Electron::B] {
            // The channel carries the functions' U = -Z/r and E (what eq. 9 holds with).
            basis.add_channel(&gsf.channel(electron))?;
        }
    }
    let spec = HamiltonianSpec {
        l_total: 0,
        m: 0,
        pairs: (0..=lmax).map(|l| Pair { la: l, lb: l }).collect(),
        energies: [ENERGY, ENERGY],
        nuclear_charge: 2.0,
        interaction_charge: 1.0,
        exchange: Exchange::Symmetric,
    };
    let size = basis.hamiltonian_size(&spec)?;
    let (mut h, mut s) = (vec![0.0; size * size], vec![0.0; size * size]);
    basis.hamiltonian(
        &spec,
        Order::AFastest,
        Target::Host { data: &mut h, ld: size },
        Target::Host { data: &mut s, ld: size },
    )?;
    let (energies, _) = lowest_eigenpairs(&backend::current()?, size, &h, size, &s, size, 1)?;
    Ok(energies[0])
}

fn main() {
    println!("# helium 1S ground state, GSF basis (Yukawa), E in hartree; exact -2.903724377");
    println!("# {:>3} {:>5} {:>14}", "N", "lmax", "E");
    for lmax in 0..=2 {
        for n in [6, 10, 14] {
            match ground_state(n, lmax) {
                Ok(e) => println!("  {n:>3} {lmax:>5} {e:>14.8}"),
                Err(err) => println!("  {n:>3} {lmax:>5} error: {err}"),
            }
        }
    }
}
