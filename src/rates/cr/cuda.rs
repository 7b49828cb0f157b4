//! CR RK4 on the device (being written; temporary: host loop with device rates).
use super::{CrModel, CrSample, CrSettings};
use crate::backend::CudaDevice;
use crate::error::Result;
pub(super) fn run_rk4(_d: &CudaDevice, model: &CrModel, settings: &CrSettings, y0: &[f64], dt: f64, n: u64, every: u64) -> Result<Vec<CrSample>> {
    super::host::run_rk4(model, settings, y0, dt, n, every)
}
