//! Degenerate symmetry species (E, F) and the line filters, on the CPU backend (the GPU is checked
//! against this path in tests/linestrength_gpu.rs). Independent references:
//! - TROVE's degenerate-species loop transcribed (tests/support/trove_degenerate.rs: component
//!   loops, repres contraction, linestr_deg, sum / ndegI, REDUCED, degeneracy_filter), built on
//!   the line-by-line eq. 14 loop `direct_half_linestrength`;
//! - a closure sum rule: with a complete orthonormal set of upper levels, the sum over upper levels
//!   of a(f, d_F; i, d_I)^2 equals |T_(d_F)^T h(T_(d_I) c_i)|^2, h from the direct loop;
//! - the same blocks split by hand into one non-degenerate block per component;
//! - the filters' rules written out again here and applied to the full amplitude list.

#[path = "support/degenerate.rs"]
mod degenerate;
#[path = "support/molecule.rs"]
mod molecule;
#[path = "support/trove_degenerate.rs"]
mod trove;

use atomgpu::backend::Backend;
use atomgpu::linestrength::cpu::direct_half_linestrength;
use atomgpu::linestrength::{
    Action, BlockSpec, Convention, IntensityParams, LineFilters, LineStrength, Options, SymmetryGroup, Unfolding,
};

/// 8 pi^3 1e-36 / (3hc), CODATA 2018 h and c = 2.99792458e10 cm/s: mpmath, 4.16237896357627952144125383928e-19.
const I_COEF: f64 = 4.1623789635762795e-19;
/// c2 = hc/k, CODATA 2018 (k = 1.380649e-16 erg/K): mpmath, 1.43877687750393380214667160154 cm K.
const C2: f64 = 1.4387768775039338;
use degenerate::{random_block, DegenerateBlock};
use molecule::*;

const N_VIB: usize = 5;

fn params(batch: usize) -> IntensityParams {
    IntensityParams {
        temperature: 296.0,
        partition_function: 250.0,
        zpe: 0.0,
        freq_window: [-1e9, 1e9],
        lower_energy: [-1e9, 1e9],
        upper_energy: [-1e9, 1e9],
        thresh_coeff: 0.0,
        thresh_line: 0.0,
        thresh_intens: 0.0,
        batch,
        convention: Convention::Documented,
        action: Action::Absorption,
    }
}

/// The Td(M) test molecule: lower blocks below 1500 cm^-1, upper ones above 2000.
/// 0: A1 J=1, 1: E J=1, 2: F1 J=2 (lower); 3: A2 J=2, 4: E J=2, 5: F2 J=1, 6: F2 J=3, 7: F1 J=1 (upper).
fn td_blocks(rng: &mut Rng, orthonormal_uppers: bool) -> Vec<DegenerateBlock> {
    let low = [100.0, 1500.0];
    let high = [2000.0, 3500.0];
    vec![
        random_block(rng, 1, N_VIB, 0, 1, 6, low, false),
        random_block(rng, 1, N_VIB, 2, 2, 7, low, false),
        random_block(rng, 2, N_VIB, 3, 3, 8, low, false),
        random_block(rng, 2, N_VIB, 1, 1, 6, high, orthonormal_uppers),
        random_block(rng, 2, N_VIB, 2, 2, 4, high, orthonormal_uppers),
        random_block(rng, 1, N_VIB, 4, 3, 5, high, orthonormal_uppers),
        random_block(rng, 3, N_VIB, 4, 3, 3, high, orthonormal_uppers),
        random_block(rng, 1, N_VIB, 3, 3, 2, high, orthonormal_uppers),
    ]
}

/// (lower, upper) block pairs that Td(M)'s dipole rules allow (A1-A2, E-E, F1-F2).
const PAIRS: [(usize, usize); 5] = [(0, 3), (1, 4), (2, 5), (2, 6), (2, 7)];

fn handle(dipole: &[f64], blocks: &[DegenerateBlock], group: Option<&str>) -> LineStrength {
    let mut h = LineStrength::new_on(Backend::Cpu, N_VIB, dipole, N_VIB, Options::default()).unwrap();
    if let Some(g) = group {
        h.set_group(SymmetryGroup::named(g).unwrap()).unwrap();
    }
    for b in blocks {
        h.add_block(&b.spec()).unwrap();
        h.set_states(h.n_blocks() - 1, &b.energies, &b.vectors, b.n_sym).unwrap();
    }
    h
}

fn level<'a>(b: &'a DegenerateBlock, s: usize) -> trove::Level<'a> {
    trove::Level { spec: b.labels.spec(), repres: &b.dense, vec: b.level(s) }
}

/// a(f, d_F; i, d_I) from the handle's amplitude layout.
#[allow(clippy::too_many_arguments)]
fn amplitude(
    a: &[f64],
    lower: &DegenerateBlock,
    upper: &DegenerateBlock,
    n: usize,
    f: usize,
    i: usize,
    di: usize,
    df: usize,
) -> f64 {
    a[f + upper.n_states() * (di + lower.ndeg * (i + n * df))]
}

#[test]
fn batched_amplitudes_equal_troves_component_loop() {
    let mut rng = Rng::new(131);
    let dipole = random_dipole(&mut rng, N_VIB);
    let blocks = td_blocks(&mut rng, false);
    let mut h = handle(&dipole, &blocks, Some("Td(M)"));
    for thresh in [0.0, 0.3] {
        for (l, u) in PAIRS {
            let (lb, ub) = (&blocks[l], &blocks[u]);
            let n = lb.n_states();
            h.load_lower_states(l, &(0..n).collect::<Vec<_>>(), thresh).unwrap();
            let a = h.amplitudes(u, thresh).unwrap();
            assert_eq!(a.len(), ub.n_states() * lb.ndeg * n * ub.ndeg);
            let mut worst = 0.0f64;
            let mut largest = 0.0f64;
            for i in 0..n {
                for f in 0..ub.n_states() {
                    let (deg, _) = trove::trove_linestrength(
                        &dipole,
                        N_VIB,
                        &level(lb, i),
                        &level(ub, f),
                        thresh,
                        false,
                        |_, _| true,
                    );
                    for di in 0..lb.ndeg {
                        for df in 0..ub.ndeg {
                            let reference = deg[di + lb.ndeg * df];
                            largest = largest.max(reference.abs());
                            worst = worst.max((amplitude(&a, lb, ub, n, f, i, di, df) - reference).abs());
                        }
                    }
                }
            }
            assert!(largest > 0.1, "pair ({l}, {u}): amplitudes too small to test ({largest})");
            assert!(worst <= 1e-12 * largest, "pair ({l}, {u}), thresh {thresh}: {worst} of {largest}");
        }
    }
}

#[test]
fn line_strengths_follow_troves_sum_reduced_option_and_degeneracy_filter() {
    let mut rng = Rng::new(17);
    let dipole = random_dipole(&mut rng, N_VIB);
    let blocks = td_blocks(&mut rng, false);
    let mut h = handle(&dipole, &blocks, Some("Td(M)"));
    let td = SymmetryGroup::named("Td(M)").unwrap();
    let degen = td.degeneracy;
    for (reduced, degeneracy_filter) in [(false, false), (true, false), (false, true), (true, true)] {
        let filters = LineFilters { reduced, degeneracy_filter, ..LineFilters::default() };
        for (l, u) in PAIRS {
            let (lb, ub) = (&blocks[l], &blocks[u]);
            let list = h.line_list_filtered(l, &[u], &params(2), &filters).unwrap();
            assert_eq!(list.lines.len(), lb.n_states() * ub.n_states(), "every pair kept at zero thresholds");
            let factor = lb.gns * ((2 * lb.labels.j + 1) * (2 * ub.labels.j + 1)) as f64;
            for line in &list.lines {
                let (i, f) = (line.lower_state, line.upper_state);
                let (gi, gf) = (lb.gamma as usize + 1, ub.gamma as usize + 1);
                let filter = |di: usize, df: usize| {
                    !degeneracy_filter || trove::degeneracy_filter("TD(M)", degen, reduced, gi, gf, di, df)
                };
                let (_, linestr) =
                    trove::trove_linestrength(&dipole, N_VIB, &level(lb, i), &level(ub, f), 0.0, reduced, filter);
                let s = factor * linestr;
                assert!(
                    (line.linestrength - s).abs() <= 1e-12 * s.abs().max(1e-3),
                    "pair ({l}, {u}) reduced {reduced} filter {degeneracy_filter}: S {} vs TROVE {s}",
                    line.linestrength
                );
            }
        }
    }
}

#[test]
fn reduced_line_strength_scales_as_troves() {
    // With REDUCED, TROVE sums a(d_I, 1)^2 over d_I only and does not divide by ndegI: for a
    // pair of degenerate levels, S(reduced) = ndegI S(d_F = 1 part) / ... checked here exactly
    // against the amplitudes: S_reduced = factor sum_dI a(dI, 0)^2, S = factor sum a^2 / ndegI.
    let mut rng = Rng::new(23);
    let dipole = random_dipole(&mut rng, N_VIB);
    let blocks = td_blocks(&mut rng, false);
    let mut h = handle(&dipole, &blocks, Some("Td(M)"));
    let (l, u) = (1, 4);
    let (lb, ub) = (&blocks[l], &blocks[u]);
    let n = lb.n_states();
    h.load_lower_states(l, &(0..n).collect::<Vec<_>>(), 0.0).unwrap();
    let a = h.amplitudes(u, 0.0).unwrap();
    let plain = h.line_list_filtered(l, &[u], &params(3), &LineFilters::default()).unwrap();
    let reduced =
        h.line_list_filtered(l, &[u], &params(3), &LineFilters { reduced: true, ..LineFilters::default() }).unwrap();
    let factor = lb.gns * 15.0;
    for (p, r) in plain.lines.iter().zip(&reduced.lines) {
        let (i, f) = (p.lower_state, p.upper_state);
        let all: f64 = (0..2)
            .flat_map(|di| (0..2).map(move |df| (di, df)))
            .map(|(di, df)| amplitude(&a, lb, ub, n, f, i, di, df).powi(2))
            .sum();
        let first: f64 = (0..2).map(|di| amplitude(&a, lb, ub, n, f, i, di, 0).powi(2)).sum();
        assert!((p.linestrength - factor * all / 2.0).abs() <= 1e-12 * p.linestrength);
        assert!((r.linestrength - factor * first).abs() <= 1e-12 * r.linestrength.max(1e-300));
    }
}

#[test]
fn closure_sum_rule_over_a_complete_set_of_upper_levels() {
    let mut rng = Rng::new(41);
    let dipole = random_dipole(&mut rng, N_VIB);
    let blocks = td_blocks(&mut rng, true);
    let mut h = handle(&dipole, &blocks, Some("Td(M)"));
    for (l, u) in PAIRS {
        let (lb, ub) = (&blocks[l], &blocks[u]);
        let n = lb.n_states();
        h.load_lower_states(l, &(0..n).collect::<Vec<_>>(), 0.0).unwrap();
        let a = h.amplitudes(u, 0.0).unwrap();
        for i in 0..n {
            for di in 0..lb.ndeg {
                let p_lower = lb.labels.len();
                let x: Vec<f64> = (0..p_lower)
                    .map(|p| (0..lb.n_sym).map(|s| lb.dense[di][p + p_lower * s] * lb.level(i)[s]).sum())
                    .collect();
                let half = direct_half_linestrength(&dipole, N_VIB, &lb.labels.spec(), &x, &ub.labels.spec(), 0.0);
                for df in 0..ub.ndeg {
                    let p_upper = ub.labels.len();
                    let projected: f64 = (0..ub.n_sym)
                        .map(|s| (0..p_upper).map(|p| ub.dense[df][p + p_upper * s] * half[p]).sum::<f64>().powi(2))
                        .sum();
                    let summed: f64 = (0..ub.n_states()).map(|f| amplitude(&a, lb, ub, n, f, i, di, df).powi(2)).sum();
                    assert!(
                        (summed - projected).abs() <= 1e-12 * projected,
                        "pair ({l}, {u}) level {i} components ({di}, {df}): {summed} vs {projected}"
                    );
                }
            }
        }
    }
}

#[test]
fn degenerate_blocks_equal_the_same_blocks_split_by_hand_into_components() {
    let mut rng = Rng::new(59);
    let dipole = random_dipole(&mut rng, N_VIB);
    let blocks = td_blocks(&mut rng, false);
    let mut whole = handle(&dipole, &blocks, Some("Td(M)"));
    // One non-degenerate block per component, no group: block index of (block b, component d).
    let mut split = LineStrength::new_on(Backend::Cpu, N_VIB, &dipole, N_VIB, Options::default()).unwrap();
    let mut index = vec![vec![]; blocks.len()];
    for (b, block) in blocks.iter().enumerate() {
        for d in 0..block.ndeg {
            let (row_start, col, value) = block.component_csr(d);
            let unfolding = Unfolding { ndeg: 1, n_sym: block.n_sym, row_start: &row_start, col: &col, value: &value };
            let id = split.add_block(&BlockSpec { unfolding: Some(unfolding), ..block.labels.spec() }).unwrap();
            split.set_states(id, &block.energies, &block.vectors, block.n_sym).unwrap();
            index[b].push(id);
        }
    }
    for (l, u) in PAIRS {
        let (lb, ub) = (&blocks[l], &blocks[u]);
        let n = lb.n_states();
        let all: Vec<usize> = (0..n).collect();
        whole.load_lower_states(l, &all, 0.0).unwrap();
        let a = whole.amplitudes(u, 0.0).unwrap();
        for di in 0..lb.ndeg {
            split.load_lower_states(index[l][di], &all, 0.0).unwrap();
            for (df, &upper_part) in index[u].iter().enumerate() {
                let part = split.amplitudes(upper_part, 0.0).unwrap();
                for i in 0..n {
                    for f in 0..ub.n_states() {
                        let x = amplitude(&a, lb, ub, n, f, i, di, df);
                        let y = part[f + ub.n_states() * i];
                        assert!((x - y).abs() <= 1e-13 * y.abs().max(1.0), "pair ({l}, {u}): {x} vs {y}");
                    }
                }
            }
        }
    }
}

/// The filters of module `filters`, written out again: judge every pair of the full amplitude list.
#[test]
fn filters_drop_exactly_the_lines_the_rules_drop_and_count_them() {
    let mut rng = Rng::new(71);
    let dipole = random_dipole(&mut rng, N_VIB);
    let blocks = td_blocks(&mut rng, false);
    let mut h = handle(&dipole, &blocks, Some("Td(M)"));
    let mut p = params(2);
    p.temperature = 1500.0;
    p.zpe = 50.0;
    p.lower_energy = [150.0, 1350.0];
    p.upper_energy = [2050.0, 3300.0];
    p.freq_window = [700.0, 3200.0];
    // Gamma pairs of Td(M) (A1-A2, E-E, F1-F2), J'' and J' in [1, 2]: block 6 (J = 3) drops by rule.
    let filters = LineFilters {
        j_range: [1, 2],
        reduced: false,
        degeneracy_filter: false,
        gamma_pair: Some(vec![1, 0, 2, 4, 3]),
    };
    let mut total = atomgpu::linestrength::LineCounts::default();
    for (lower, uppers) in [(2usize, vec![5usize, 6, 7, 3]), (1, vec![4, 3]), (0, vec![3, 4])] {
        // Thresholds at about the lower third of the S and I of this block's lines inside the
        // windows, midway between neighbouring values, so that no line sits on a threshold (where
        // the last bit of the test's own arithmetic would decide).
        p.thresh_line = 0.0;
        p.thresh_intens = 0.0;
        let unfiltered = h.line_list_filtered(lower, &uppers, &p, &filters).unwrap();
        let mut s: Vec<f64> = unfiltered.lines.iter().map(|l| l.linestrength).collect();
        let mut i: Vec<f64> = unfiltered.lines.iter().map(|l| l.intensity).collect();
        s.sort_by(f64::total_cmp);
        i.sort_by(f64::total_cmp);
        p.thresh_line = 0.5 * (s[s.len() / 3] + s[s.len() / 3 + 1]);
        p.thresh_intens = 0.5 * (i[i.len() / 3] + i[i.len() / 3 + 1]);
        let list = h.line_list_filtered(lower, &uppers, &p, &filters).unwrap();
        let lb = &blocks[lower];
        let (mut kept, mut by_rules, mut by_windows, mut by_thresholds, mut pairs) = (vec![], 0u64, 0u64, 0u64, 0u64);
        for &u in &uppers {
            let ub = &blocks[u];
            pairs += (lb.n_states() * ub.n_states()) as u64;
            let inside_j = |j: u32| (1..=2).contains(&j);
            let partner = [1u32, 0, 2, 4, 3][lb.gamma as usize] == ub.gamma;
            if !(inside_j(lb.labels.j) && inside_j(ub.labels.j) && partner) {
                by_rules += (lb.n_states() * ub.n_states()) as u64;
                continue;
            }
            let n = lb.n_states();
            h.load_lower_states(lower, &(0..n).collect::<Vec<_>>(), 0.0).unwrap();
            let a = h.amplitudes(u, 0.0).unwrap();
            let beta = C2 / p.temperature;
            for ii in 0..n {
                for f in 0..ub.n_states() {
                    let (el, eu) = (lb.energies[ii], ub.energies[f]);
                    let nu = eu - el;
                    let windows = nu > 0.0
                        && (p.freq_window[0]..=p.freq_window[1]).contains(&nu)
                        && (p.lower_energy[0]..=p.lower_energy[1]).contains(&(el - p.zpe))
                        && (p.upper_energy[0]..=p.upper_energy[1]).contains(&(eu - p.zpe));
                    if !windows {
                        by_windows += 1;
                        continue;
                    }
                    let mut sum = 0.0;
                    for di in 0..lb.ndeg {
                        for df in 0..ub.ndeg {
                            sum += amplitude(&a, lb, ub, n, f, ii, di, df).powi(2);
                        }
                    }
                    let s = lb.gns * ((2 * lb.labels.j + 1) * (2 * ub.labels.j + 1)) as f64 * sum / lb.ndeg as f64;
                    let intensity = I_COEF * s * nu * (-(el - p.zpe) * beta).exp() * (1.0 - (-nu * beta).exp())
                        / p.partition_function;
                    if s >= p.thresh_line && intensity >= p.thresh_intens {
                        kept.push((u, ii, f, s, intensity));
                    } else {
                        by_thresholds += 1;
                    }
                }
            }
        }
        let c = list.counts;
        assert_eq!(
            (c.pairs, c.dropped_by_rules, c.dropped_by_windows, c.dropped_by_thresholds, c.kept),
            (pairs, by_rules, by_windows, by_thresholds, kept.len() as u64),
            "lower block {lower}"
        );
        total.add(&c);
        kept.sort_by_key(|k| (k.1, uppers.iter().position(|&u| u == k.0), k.2));
        assert_eq!(list.lines.len(), kept.len());
        for (line, k) in list.lines.iter().zip(&kept) {
            assert_eq!((line.upper_block, line.lower_state, line.upper_state), (k.0, k.1, k.2));
            assert!((line.linestrength - k.3).abs() <= 1e-12 * k.3 && (line.intensity - k.4).abs() <= 1e-12 * k.4);
        }
    }
    // Intensities beyond the largest double: an error naming the intensity, not a dropped line.
    p.partition_function = 5e-324;
    match h.line_list_filtered(2, &[5], &p, &filters).unwrap_err() {
        atomgpu::error::Error::NotFinite { name, .. } => assert_eq!(name, "intensity"),
        other => panic!("{other}"),
    }
    assert!(
        total.dropped_by_rules > 0 && total.dropped_by_windows > 0 && total.dropped_by_thresholds > 0 && total.kept > 0,
        "every rule must have dropped something: {total:?}"
    );
}

#[test]
fn streamed_line_list_is_the_union_of_the_per_block_lists() {
    let mut rng = Rng::new(83);
    let dipole = random_dipole(&mut rng, N_VIB);
    let blocks = td_blocks(&mut rng, false);
    let mut h = handle(&dipole, &blocks, Some("Td(M)"));
    let mut p = params(3);
    p.thresh_intens = 1e-22;
    let filters = LineFilters { gamma_pair: Some(vec![1, 0, 2, 4, 3]), ..LineFilters::default() };
    let mut streamed = vec![];
    let counts = h
        .line_list_stream(&p, &filters, &mut |lines| {
            streamed.extend_from_slice(lines);
            Ok(())
        })
        .unwrap();
    let mut expected = vec![];
    let mut pairs = 0;
    for lower in 0..blocks.len() {
        let j = blocks[lower].labels.j;
        let uppers: Vec<usize> = (0..blocks.len()).filter(|&u| blocks[u].labels.j.abs_diff(j) <= 1).collect();
        let list = h.line_list_filtered(lower, &uppers, &p, &filters).unwrap();
        pairs += list.counts.pairs;
        expected.extend(list.lines);
    }
    assert_eq!(streamed, expected);
    assert_eq!(counts.pairs, pairs);
    assert_eq!(counts.kept, streamed.len() as u64);
    assert!(counts.dropped_by_rules > 0 && counts.kept > 0);
}

#[test]
fn bad_degenerate_input_is_refused_naming_the_argument() {
    let mut rng = Rng::new(3);
    let dipole = random_dipole(&mut rng, N_VIB);
    let e_block = random_block(&mut rng, 1, N_VIB, 2, 2, 3, [0.0, 1.0], false);
    let f_block = random_block(&mut rng, 1, N_VIB, 3, 3, 3, [0.0, 1.0], false);
    let name = |r: atomgpu::error::Result<usize>| match r.unwrap_err() {
        atomgpu::error::Error::InvalidArgument { name, .. } => name,
        other => panic!("{other}"),
    };
    let mut h = LineStrength::new_on(Backend::Cpu, N_VIB, &dipole, N_VIB, Options::default()).unwrap();
    h.set_group(SymmetryGroup::named("Td(M)").unwrap()).unwrap();
    // E (gamma 2) given the three components of an F block.
    assert_eq!(name(h.add_block(&BlockSpec { gamma: 2, ..f_block.spec() })), "ndeg");
    // E without an unfolding: a degenerate block without its components.
    assert_eq!(name(h.add_block(&BlockSpec { unfolding: None, ..e_block.spec() })), "n_sym");
    // A species the group does not have.
    assert_eq!(name(h.add_block(&BlockSpec { gamma: 5, ..e_block.spec() })), "gamma");
    // Unfolding rows for one component only, while ndeg says 2.
    let short = Unfolding { row_start: &e_block.row_start[..e_block.labels.len() + 1], ..e_block.unfolding() };
    assert_eq!(name(h.add_block(&BlockSpec { unfolding: Some(short), ..e_block.spec() })), "row_start");
    let four = Unfolding { ndeg: 4, ..e_block.unfolding() };
    assert_eq!(name(h.add_block(&BlockSpec { unfolding: Some(four), ..e_block.spec() })), "ndeg");
    assert_eq!(h.n_blocks(), 0, "nothing registered by refused calls");
    h.add_block(&e_block.spec()).unwrap();
    assert!(h.set_group(SymmetryGroup::named("C3v(M)").unwrap()).is_err(), "group after blocks");
    h.set_states(0, &e_block.energies, &e_block.vectors, e_block.n_sym).unwrap();
    let filters_name =
        |h: &mut LineStrength, f: LineFilters| match h.line_list_filtered(0, &[0], &params(1), &f).unwrap_err() {
            atomgpu::error::Error::InvalidArgument { name, .. } => name,
            other => panic!("{other}"),
        };
    assert_eq!(filters_name(&mut h, LineFilters { j_range: [3, 1], ..LineFilters::default() }), "j_range");
    assert_eq!(
        filters_name(&mut h, LineFilters { gamma_pair: Some(vec![1, 0]), ..LineFilters::default() }),
        "gamma_pair"
    );
    let mut no_group = LineStrength::new_on(Backend::Cpu, N_VIB, &dipole, N_VIB, Options::default()).unwrap();
    no_group.add_block(&e_block.spec()).unwrap();
    no_group.set_states(0, &e_block.energies, &e_block.vectors, e_block.n_sym).unwrap();
    assert_eq!(
        filters_name(&mut no_group, LineFilters { degeneracy_filter: true, ..LineFilters::default() }),
        "degeneracy_filter"
    );
}

#[test]
fn exomol_files_hold_the_streamed_list() {
    use atomgpu::linestrength::exomol;
    let mut rng = Rng::new(89);
    let dipole = random_dipole(&mut rng, N_VIB);
    let blocks = td_blocks(&mut rng, false);
    let mut h = handle(&dipole, &blocks, Some("Td(M)"));
    let mut p = params(4);
    p.thresh_intens = 1e-21;
    let filters = LineFilters { gamma_pair: Some(vec![1, 0, 2, 4, 3]), ..LineFilters::default() };
    let mut lines = vec![];
    h.line_list_stream(&p, &filters, &mut |batch| {
        lines.extend_from_slice(batch);
        Ok(())
    })
    .unwrap();
    let dir = std::env::temp_dir().join(format!("atomgpu-degenerate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let stem = dir.join("td");
    let counts = exomol::write_line_list(&mut h, &stem, &p, &filters).unwrap();
    let trans = std::fs::read_to_string(dir.join("td.trans")).unwrap();
    let mut expected = Vec::new();
    exomol::write_trans(&lines, &mut expected).unwrap();
    assert_eq!(trans, String::from_utf8(expected).unwrap());
    assert_eq!(counts.kept, lines.len() as u64);
    let states = std::fs::read_to_string(dir.join("td.states")).unwrap();
    assert_eq!(states.lines().count(), blocks.iter().map(|b| b.n_states()).sum::<usize>());
    // An unwritable place: a file error naming the file, no partial file left.
    let bad = dir.join("td.states").join("x");
    match exomol::write_line_list(&mut h, &bad, &p, &filters).unwrap_err() {
        atomgpu::error::Error::Io(message) => assert!(message.contains("x.states"), "{message}"),
        other => panic!("{other}"),
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
