//! The CUDA device of the GPU tests, or `None` (the test then prints `skipped: no CUDA device`
//! and passes), unless `ATOMGPU_REQUIRE_GPU=1` (set on the device machine), where a missing
//! device fails the test.

use atomgpu::backend::{self, CudaDevice};
use std::sync::Arc;

pub fn cuda_device() -> Option<Arc<CudaDevice>> {
    match backend::cuda_device() {
        Ok(d) => Some(d),
        Err(e) => {
            assert!(!backend::gpu_required(), "ATOMGPU_REQUIRE_GPU=1 but there is no usable CUDA device: {e}");
            println!("skipped: no CUDA device ({e})");
            None
        }
    }
}
