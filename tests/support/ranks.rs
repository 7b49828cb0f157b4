//! Ranks as threads for the split-domain tests of the TDSE family: the library's in-process
//! communicator ([`atomgpu::tdse::local`]), one per rank, driven by the test's own threads.

use atomgpu::tdse::local::{communicators, LocalComm};

pub fn thread_comms(size: usize) -> Vec<LocalComm> {
    communicators(size).0
}
