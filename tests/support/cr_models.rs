//! CR models shared by the CR tests.

use atomgpu::rates::cr::{Cr, CrExcitation, CrIonization};

/// Al3+ levels 0-4 and Al4+ level 5 of the paper's model (shared/data/aluminium-cr-*.csv rows),
/// charges 3 and 4.
pub fn aluminium_subset() -> Cr {
    let exc = |lower, upper, energy_ev, b: [f64; 4]| CrExcitation {
        lower,
        upper,
        energy_ev,
        omega: [b[0], b[1], b[2], b[3], 0.0, 0.0],
    };
    let beli = [3.71, -0.236, 2.35, -0.66, 0.0];
    let ion = |lower, energy_ev| CrIonization {
        lower,
        upper: 5,
        energy_ev,
        beli,
        d0_cm2: 5.682286e-18,
        d1_cm2: 3.941713e-19,
    };
    Cr::new(
        vec![3.0, 3.0, 3.0, 3.0, 3.0, 4.0],
        vec![1.0; 6],
        vec![
            exc(0, 1, 77.4, [1.393e-01, -7.979e-02, 1.057e-01, 2.63e-03]),
            exc(1, 2, 8.08, [7.078345e+01, 3.952529e+01, 9.925136e+01, -2.871901e+01]),
            exc(2, 3, 9.89, [1.687015e+02, 5.317823e+01, 2.015390e+02, -4.346805e+01]),
            exc(2, 4, 14.9, [1.582396e+01, -1.274900e+01, 2.527637e+01, -6.928126e+00]),
        ],
        vec![ion(0, 120.0), ion(1, 42.5752), ion(2, 34.4987), ion(3, 24.936), ion(4, 20.926)],
    )
    .unwrap()
}
