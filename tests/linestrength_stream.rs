//! Streamed lower states (`LineStrength::lines_of_lower_batch`): the caller hands the lower levels
//! over batch by batch, the upper states stay stored in the handle.
//!
//! Reference: the stored-states line list of the same handle (`line_list_stream`, itself checked
//! against TROVE's degenerate-species loop transcribed and against the filter rules written out
//! again in tests/linestrength_degenerate.rs). On the CPU the two must agree to the last bit (the
//! GEMMs sum each column in an order that does not depend on the other columns of the batch), as
//! lists in order when the levels come in the order of the stored list, and as sets when they come
//! shuffled, with the counts of the pairs summed over the batches equal to the stored list's.

#[path = "support/degenerate.rs"]
mod degenerate;
#[path = "support/molecule.rs"]
mod molecule;

use atomgpu::backend::Backend;
use atomgpu::error::Error;
use atomgpu::linestrength::{
    IntensityParams, Line, LineCounts, LineFilters, LineStrength, LowerBatch, Options, SymmetryGroup,
};
use degenerate::{random_block, DegenerateBlock};
use molecule::*;

const N_VIB: usize = 5;

/// A Td(M) molecule with J = 0..3, every species (A1, A2, E, F1, F2), energies overlapping so
/// that every block is lower and upper block of some lines.
fn blocks(rng: &mut Rng) -> Vec<DegenerateBlock> {
    let e = [0.0, 3000.0];
    vec![
        random_block(rng, 0, N_VIB, 0, 1, 6, e, false),
        random_block(rng, 1, N_VIB, 3, 3, 7, e, false),
        random_block(rng, 1, N_VIB, 4, 3, 5, e, false),
        random_block(rng, 1, N_VIB, 2, 2, 6, e, false),
        random_block(rng, 2, N_VIB, 0, 1, 8, e, false),
        random_block(rng, 2, N_VIB, 2, 2, 9, e, false),
        random_block(rng, 2, N_VIB, 4, 3, 6, e, false),
        random_block(rng, 3, N_VIB, 1, 1, 7, e, false),
        random_block(rng, 3, N_VIB, 3, 3, 5, e, false),
    ]
}

fn handle(dipole: &[f64], blocks: &[DegenerateBlock]) -> LineStrength {
    let mut h = LineStrength::new_on(Backend::Cpu, N_VIB, dipole, N_VIB, Options::default()).unwrap();
    h.set_group(SymmetryGroup::named("Td(M)").unwrap()).unwrap();
    for b in blocks {
        let id = h.add_block(&b.spec()).unwrap();
        h.set_states(id, &b.energies, &b.vectors, b.n_sym).unwrap();
    }
    h
}

fn params(batch: usize) -> IntensityParams {
    IntensityParams {
        temperature: 700.0,
        partition_function: 300.0,
        zpe: 10.0,
        freq_window: [50.0, 2800.0],
        lower_energy: [0.0, 2500.0],
        upper_energy: [100.0, 3000.0],
        thresh_coeff: 0.0,
        thresh_line: 0.0,
        thresh_intens: 1e-30,
        batch,
        convention: atomgpu::linestrength::Convention::Documented,
        action: atomgpu::linestrength::Action::Absorption,
    }
}

/// Every stored level of the handle as (block, state), in the order of the stored list.
fn all_levels(blocks: &[DegenerateBlock]) -> Vec<(usize, usize)> {
    blocks.iter().enumerate().flat_map(|(b, block)| (0..block.n_states()).map(move |s| (b, s))).collect()
}

/// The caller's side of a batch: its arrays, built from stored levels (b, s), with order keys
/// `order` and IDs the levels' running IDs.
struct Batch {
    blocks: Vec<usize>,
    vectors: Vec<f64>,
    ld: usize,
    energies: Vec<f64>,
    ids: Vec<i64>,
    order: Vec<i64>,
}

impl Batch {
    fn new(h: &LineStrength, blocks: &[DegenerateBlock], levels: &[(usize, usize)], order: &[i64]) -> Self {
        // One more row than the largest vector, filled with a value that must never be read.
        let ld = levels.iter().map(|&(b, _)| blocks[b].n_sym).max().unwrap() + 1;
        let mut vectors = vec![f64::NAN; ld * levels.len()];
        for (i, &(b, s)) in levels.iter().enumerate() {
            vectors[i * ld..i * ld + blocks[b].n_sym].copy_from_slice(blocks[b].level(s));
        }
        Batch {
            blocks: levels.iter().map(|&(b, _)| b).collect(),
            vectors,
            ld,
            energies: levels.iter().map(|&(b, s)| blocks[b].energies[s]).collect(),
            ids: levels.iter().map(|&(b, s)| h.state_id(b, s)).collect(),
            order: order.to_vec(),
        }
    }

    fn view(&self) -> LowerBatch<'_> {
        LowerBatch {
            blocks: &self.blocks,
            vectors: &self.vectors,
            ld: self.ld,
            energies: &self.energies,
            ids: &self.ids,
            order: &self.order,
        }
    }
}

/// What a line says, but the lower end's index (a stored state there, a batch position here).
fn key(l: &Line) -> (i64, i64, usize, usize, usize, [u64; 4]) {
    let values = [l.wavenumber, l.linestrength, l.einstein_a, l.intensity].map(f64::to_bits);
    (l.upper_id, l.lower_id, l.upper_block, l.upper_state, l.lower_block, values)
}

fn stored_list(h: &mut LineStrength, p: &IntensityParams, filters: &LineFilters) -> (Vec<Line>, LineCounts) {
    let mut lines = Vec::new();
    let counts = h
        .line_list_stream(p, filters, &mut |batch| {
            lines.extend_from_slice(batch);
            Ok(())
        })
        .unwrap();
    (lines, counts)
}

/// The streamed list of `levels` cut into caller batches of `size`, with order keys `order`.
fn streamed_list(
    h: &mut LineStrength,
    blocks: &[DegenerateBlock],
    levels: &[(usize, usize)],
    order: &[i64],
    size: usize,
    p: &IntensityParams,
    filters: &LineFilters,
) -> (Vec<Vec<Line>>, LineCounts) {
    let (mut calls, mut counts) = (Vec::new(), LineCounts::default());
    for (chunk, keys) in levels.chunks(size).zip(order.chunks(size)) {
        let batch = Batch::new(h, blocks, chunk, keys);
        let mut lines: Vec<Line> = Vec::new();
        let mut deliveries = 0;
        let c = h
            .lines_of_lower_batch(&batch.view(), p, filters, &mut |level| {
                deliveries += 1;
                assert!(level.iter().all(|l| l.lower_state == level[0].lower_state), "one lower level per delivery");
                for l in level {
                    assert_eq!(l.lower_id, batch.ids[l.lower_state]);
                    assert_eq!(l.lower_block, batch.blocks[l.lower_state]);
                }
                lines.extend_from_slice(level);
                Ok(())
            })
            .unwrap();
        assert_eq!(c.kept as usize, lines.len());
        assert!(deliveries <= chunk.len());
        counts.add(&c);
        calls.push(lines);
    }
    (calls, counts)
}

#[test]
fn streamed_batches_give_the_stored_list_to_the_last_bit_in_its_order() {
    let mut rng = Rng::new(2901);
    let dipole = random_dipole(&mut rng, N_VIB);
    let blocks = blocks(&mut rng);
    let mut h = handle(&dipole, &blocks);
    let levels = all_levels(&blocks);
    let order: Vec<i64> = levels.iter().map(|&(b, s)| h.state_id(b, s)).collect();
    let filter_sets = [
        LineFilters::default(),
        LineFilters { gamma_pair: Some(vec![1, 0, 2, 4, 3]), j_range: [1, 3], ..LineFilters::default() },
        LineFilters { reduced: true, degeneracy_filter: true, ..LineFilters::default() },
    ];
    for filters in &filter_sets {
        for internal in [1usize, 4, 1000] {
            let p = params(internal);
            let (reference, reference_counts) = stored_list(&mut h, &p, filters);
            assert!(reference.len() > 200, "{} lines", reference.len());
            for size in [1usize, 7, levels.len()] {
                let (calls, counts) = streamed_list(&mut h, &blocks, &levels, &order, size, &p, filters);
                let lines: Vec<Line> = calls.concat();
                assert_eq!(counts, reference_counts, "filters {filters:?}, batch {internal}, caller batch {size}");
                assert_eq!(lines.len(), reference.len());
                for (a, b) in lines.iter().zip(&reference) {
                    assert_eq!(key(a), key(b), "filters {filters:?}, batch {internal}, caller batch {size}");
                }
            }
        }
    }
}

#[test]
fn shuffled_batches_give_the_stored_lines_as_a_set_each_call_in_its_order_keys() {
    let mut rng = Rng::new(2903);
    let dipole = random_dipole(&mut rng, N_VIB);
    let blocks = blocks(&mut rng);
    let mut h = handle(&dipole, &blocks);
    let p = params(3);
    let filters = LineFilters::default();
    let (reference, reference_counts) = stored_list(&mut h, &p, &filters);
    // Levels in a random order, each with a random order key (distinct).
    let mut levels = all_levels(&blocks);
    let mut keyed: Vec<(f64, (usize, usize))> = levels.iter().map(|&l| (rng.unit(), l)).collect();
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
    levels = keyed.iter().map(|&(_, l)| l).collect();
    let order: Vec<i64> = (0..levels.len()).map(|i| ((i * 7919) % levels.len()) as i64 - 20).collect();
    for size in [1usize, 7, levels.len()] {
        let (calls, counts) = streamed_list(&mut h, &blocks, &levels, &order, size, &p, &filters);
        assert_eq!(counts, reference_counts);
        for (lines, keys) in calls.iter().zip(order.chunks(size)) {
            // Within a call: by the lower level's order key, then the upper state's running ID.
            let sort_keys: Vec<(i64, i64)> = lines.iter().map(|l| (keys[l.lower_state], l.upper_id)).collect();
            assert!(sort_keys.windows(2).all(|w| w[0] < w[1]), "caller batch {size}: not in order");
        }
        let mut got: Vec<_> = calls.concat().iter().map(key).collect();
        let mut want: Vec<_> = reference.iter().map(key).collect();
        got.sort();
        want.sort();
        assert_eq!(got, want, "caller batch {size}");
    }
}

#[test]
fn a_sink_that_stops_gets_a_prefix_and_the_call_is_cancelled() {
    let mut rng = Rng::new(2905);
    let dipole = random_dipole(&mut rng, N_VIB);
    let blocks = blocks(&mut rng);
    let mut h = handle(&dipole, &blocks);
    let p = params(4);
    let filters = LineFilters::default();
    let levels = all_levels(&blocks);
    let order: Vec<i64> = (0..levels.len() as i64).rev().collect();
    let batch = Batch::new(&h, &blocks, &levels, &order);
    let mut whole = Vec::new();
    h.lines_of_lower_batch(&batch.view(), &p, &filters, &mut |l| {
        whole.extend_from_slice(l);
        Ok(())
    })
    .unwrap();
    for stop_at in [1usize, 2, 5] {
        let (mut got, mut calls) = (Vec::new(), 0);
        let result = h.lines_of_lower_batch(&batch.view(), &p, &filters, &mut |l| {
            calls += 1;
            if calls == stop_at {
                return Err(Error::Cancelled("the caller stopped".into()));
            }
            got.extend_from_slice(l);
            Ok(())
        });
        assert!(matches!(result, Err(Error::Cancelled(_))), "{result:?}");
        assert_eq!(calls, stop_at, "no delivery after the stop");
        assert!(!got.is_empty() || stop_at == 1);
        assert_eq!(got[..], whole[..got.len()], "stop at delivery {stop_at}: not a prefix");
    }
    // The handle goes on afterwards, and the buffered variant holds the same lines.
    let counts = h.lines_of_lower_batch_buffered(&batch.view(), &p, &filters).unwrap();
    assert_eq!(counts.kept as usize, whole.len());
    assert_eq!(h.lines_pending(), whole.len());
    let mut taken = Vec::new();
    loop {
        let part = h.take_lines(13);
        if part.is_empty() {
            break;
        }
        taken.extend(part);
    }
    assert_eq!(taken, whole);
    assert_eq!(h.lines_pending(), 0);
}

#[test]
fn bad_batches_are_refused_naming_the_argument_and_append_nothing() {
    let mut rng = Rng::new(2907);
    let dipole = random_dipole(&mut rng, N_VIB);
    let blocks = blocks(&mut rng);
    let mut h = handle(&dipole, &blocks);
    let p = params(4);
    let filters = LineFilters::default();
    let levels = [(1usize, 0usize), (4, 2), (8, 1)];
    let good = Batch::new(&h, &blocks, &levels, &[3, 2, 1]);
    let name_of = |e: Error| match e {
        Error::InvalidArgument { name, .. } => name,
        other => panic!("{other}"),
    };
    let refuse = |h: &mut LineStrength, b: LowerBatch<'_>| {
        let e = h.lines_of_lower_batch_buffered(&b, &p, &filters).unwrap_err();
        assert_eq!(h.lines_pending(), 0);
        name_of(e)
    };
    let mut nan = good.energies.clone();
    nan[1] = f64::NAN;
    assert_eq!(refuse(&mut h, LowerBatch { energies: &nan, ..good.view() }), "energies");
    let mut inf = good.vectors.clone();
    inf[good.ld + 2] = f64::INFINITY;
    assert_eq!(refuse(&mut h, LowerBatch { vectors: &inf, ..good.view() }), "vectors");
    assert_eq!(refuse(&mut h, LowerBatch { blocks: &[1, 4, 9], ..good.view() }), "block");
    assert_eq!(refuse(&mut h, LowerBatch { ld: good.ld - 2, ..good.view() }), "ld");
    assert_eq!(refuse(&mut h, LowerBatch { ids: &good.ids[..2], ..good.view() }), "ids");
    assert_eq!(refuse(&mut h, LowerBatch { order: &[], ..good.view() }), "order");
    assert_eq!(refuse(&mut h, LowerBatch { vectors: &good.vectors[..good.ld * 2], ..good.view() }), "vectors");
    assert_eq!(refuse(&mut h, LowerBatch { blocks: &[], energies: &[], ids: &[], order: &[], ..good.view() }), "n");
    let mut bad = p;
    bad.batch = 0;
    assert_eq!(name_of(h.lines_of_lower_batch_buffered(&good.view(), &bad, &filters).unwrap_err()), "batch");
    assert!(h.lines_of_lower_batch_buffered(&good.view(), &p, &filters).unwrap().kept > 0);
}
