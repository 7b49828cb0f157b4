//! Line lists spread over several engines (`Options::devices`; here CPU engines on threads, the
//! same scheduling code as several GPUs) give the lines of one engine, in the same order, with the
//! same counts; an error in any batch, or from the caller's sink, stops the list and is returned.
//!
//! Reference: the one-engine line list, itself checked against TROVE's degenerate-species loop
//! transcribed and against the filter rules written out again (tests/linestrength_degenerate.rs).
//! The lists must agree exactly (each state's numbers come from the same arithmetic whichever
//! engine runs it, and the CPU's GEMM sums in an order that does not depend on how the states are
//! cut into batches), so any misordering, lost or doubled batch shows.

#[path = "support/degenerate.rs"]
mod degenerate;
#[path = "support/molecule.rs"]
mod molecule;

use atomgpu::backend::{Backend, DeviceSet};
use atomgpu::error::Error;
use atomgpu::linestrength::{
    even_batches, Action, Convention, IntensityParams, Line, LineFilters, LineStrength, Options, SymmetryGroup,
};
use degenerate::{random_block, DegenerateBlock};
use molecule::*;

const N_VIB: usize = 6;

/// A Td(M) molecule with many levels per block, so that small batches make many of them.
fn blocks(rng: &mut Rng) -> Vec<DegenerateBlock> {
    let low = [100.0, 1500.0];
    let high = [1600.0, 3500.0];
    vec![
        random_block(rng, 1, N_VIB, 0, 1, 23, low, false),
        random_block(rng, 1, N_VIB, 2, 2, 17, low, false),
        random_block(rng, 2, N_VIB, 3, 3, 19, low, false),
        random_block(rng, 2, N_VIB, 1, 1, 21, high, false),
        random_block(rng, 2, N_VIB, 2, 2, 13, high, false),
        random_block(rng, 1, N_VIB, 4, 3, 11, high, false),
        random_block(rng, 3, N_VIB, 4, 3, 9, high, false),
    ]
}

fn handle(dipole: &[f64], blocks: &[DegenerateBlock], devices: usize) -> LineStrength {
    let engines = DeviceSet::count(Backend::Cpu, devices.max(1)).unwrap();
    let mut h = LineStrength::new_on_devices(&engines, N_VIB, dipole, N_VIB, Options::default()).unwrap();
    h.set_group(SymmetryGroup::named("Td(M)").unwrap()).unwrap();
    for b in blocks {
        let id = h.add_block(&b.spec()).unwrap();
        h.set_states(id, &b.energies, &b.vectors, b.n_sym).unwrap();
    }
    assert_eq!(h.n_devices(), devices.max(1));
    h
}

fn params(batch: usize) -> IntensityParams {
    IntensityParams {
        temperature: 900.0,
        partition_function: 400.0,
        zpe: 30.0,
        freq_window: [200.0, 3300.0],
        lower_energy: [0.0, 1400.0],
        upper_energy: [1500.0, 3400.0],
        thresh_coeff: 0.0,
        thresh_line: 0.0,
        thresh_intens: 1e-32,
        batch,
        convention: Convention::Documented,
        action: Action::Absorption,
    }
}

fn streamed(h: &mut LineStrength, p: &IntensityParams, filters: &LineFilters) -> (Vec<Line>, Vec<usize>) {
    let (mut lines, mut sizes) = (Vec::new(), Vec::new());
    let counts = h
        .line_list_stream(p, filters, &mut |batch| {
            lines.extend_from_slice(batch);
            sizes.push(batch.len());
            Ok(())
        })
        .unwrap();
    assert_eq!(counts.kept as usize, lines.len());
    (lines, sizes)
}

#[test]
fn several_engines_give_the_lines_of_one_in_the_same_order() {
    let mut rng = Rng::new(401);
    let dipole = random_dipole(&mut rng, N_VIB);
    let blocks = blocks(&mut rng);
    let filters = LineFilters { gamma_pair: Some(vec![1, 0, 2, 4, 3]), ..LineFilters::default() };
    let mut one = handle(&dipole, &blocks, 1);
    for batch in [1usize, 2, 5] {
        let p = params(batch);
        let (reference, sizes) = streamed(&mut one, &p, &filters);
        assert!(reference.len() > 100 && sizes.len() > 10, "{} lines in {} batches", reference.len(), sizes.len());
        let direct = one.line_list_filtered(2, &[5, 6], &p, &filters).unwrap();
        for devices in [2usize, 3, 4] {
            let mut many = handle(&dipole, &blocks, devices);
            let (lines, spread_sizes) = streamed(&mut many, &p, &filters);
            assert!(
                spread_sizes.len() >= sizes.len(),
                "batch {batch}, {devices} engines: fewer batches than one engine's"
            );
            assert_eq!(lines, reference, "batch {batch}, {devices} engines");
            let list = many.line_list_filtered(2, &[5, 6], &p, &filters).unwrap();
            assert_eq!(list.counts, direct.counts);
            assert_eq!(list.lines, direct.lines);
            // The handle's other calls still work on its first engine afterwards.
            many.load_lower_states(1, &[0, 3], 0.0).unwrap();
            one.load_lower_states(1, &[0, 3], 0.0).unwrap();
            assert_eq!(many.amplitudes(4, 0.0).unwrap(), one.amplitudes(4, 0.0).unwrap());
        }
    }
}

#[test]
fn an_error_in_a_batch_or_in_the_sink_stops_the_list_of_several_engines() {
    let mut rng = Rng::new(409);
    let dipole = random_dipole(&mut rng, N_VIB);
    let blocks = blocks(&mut rng);
    let mut h = handle(&dipole, &blocks, 3);
    let filters = LineFilters::default();
    // Q so small that every intensity overflows: the judge's error, from whichever engine.
    let mut p = params(2);
    p.partition_function = 5e-324;
    match h.line_list_filtered(2, &[5, 6], &p, &filters).unwrap_err() {
        Error::NotFinite { name, .. } => assert_eq!(name, "intensity"),
        other => panic!("{other}"),
    }
    // The sink refuses the third batch: that error comes back and no batch is handed over after it.
    let p = params(1);
    let mut calls = 0;
    let refused = h.line_list_stream(&p, &filters, &mut |_| {
        calls += 1;
        if calls == 3 {
            Err(Error::Cancelled("the caller stopped the list".into()))
        } else {
            Ok(())
        }
    });
    assert!(matches!(refused, Err(Error::Cancelled(_))), "{refused:?}");
    assert_eq!(calls, 3);
    // The handle is usable afterwards.
    let (lines, _) = streamed(&mut h, &p, &filters);
    assert!(!lines.is_empty());
}

#[test]
fn more_engines_than_allowed_is_refused_naming_devices() {
    match DeviceSet::count(Backend::Cpu, 65) {
        Err(Error::InvalidArgument { name, .. }) => assert_eq!(name, "devices"),
        other => panic!("{:?}", other.err().map(|e| e.to_string())),
    }
}

/// The batches of a spread list: every state once, in order, at most `batch` each, sizes within
/// one of each other and a multiple of the engine count in number (one state each when there are
/// fewer states than that); one engine keeps plain chunks of `batch`. Reference: those rules
/// written out, and the example of the docs (853 states, batches of 64, 4 engines: 16 of 53-54).
#[test]
fn even_batches_give_every_engine_the_same_work() {
    let sizes = |n: usize, batch: usize, engines: usize| {
        let states: Vec<usize> = (0..n).collect();
        let cut = even_batches(&states, batch, engines);
        assert_eq!(cut.concat(), states, "{n} states, batch {batch}, {engines} engines: every state once, in order");
        cut.iter().map(|b| b.len()).collect::<Vec<_>>()
    };
    let example = sizes(853, 64, 4);
    assert_eq!(example.len(), 16);
    assert!(example.iter().all(|&s| s == 53 || s == 54));
    assert_eq!(sizes(853, 64, 1), [vec![64; 13], vec![21]].concat());
    for n in [0usize, 1, 3, 7, 64, 65, 100, 853, 1024] {
        for batch in [1usize, 5, 64] {
            for engines in [2usize, 3, 4, 8] {
                let s = sizes(n, batch, engines);
                assert!(s.iter().all(|&x| (1..=batch).contains(&x)), "{n} {batch} {engines}: {s:?}");
                let (lo, hi) = (s.iter().min().copied().unwrap_or(0), s.iter().max().copied().unwrap_or(0));
                assert!(hi - lo <= 1, "{n} {batch} {engines}: {s:?}");
                assert!(s.len() % engines == 0 || s.len() == n, "{n} {batch} {engines}: {} batches", s.len());
                assert!(s.len() < n.div_ceil(batch) + engines || n == 0, "{n} {batch} {engines}: too many batches");
            }
        }
    }
}
