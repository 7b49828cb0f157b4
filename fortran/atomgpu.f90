! atomgpu: the Fortran interface (module atomgpu), what programs `use`.
!
! Compile this file with your own compiler together with your program and link the library:
!     gfortran atomgpu.f90 prog.f90 -latomgpu
! (a .mod file is tied to one compiler version, so the source is shipped, not the .mod). This
! file INCLUDEs the modules it re-exports, which sit beside it, one per file:
!     atomgpu_core.f90          status codes, version, backend, errors, progress and time limits
!     atomgpu_rates.f90         the rates family: Fermi-Dirac rate coefficients, the CR driver
!     atomgpu_linestrength.f90  the line-strength family: TROVE-style line lists
!     atomgpu_sturmian.f90      the Sturmian family: Generalized Sturmian three-body Hamiltonians
!     atomgpu_scf.f90           the SCF family: atomic Hartree-Fock and Dirac-Fock in Gaussian bases
!     atomgpu_tdse.f90          the TDSE family: 3D Schroedinger propagation, ion-surface charge transfer
! (compilers look for an INCLUDEd file in the directory of the file that includes it first).
! The conventions every wrapper follows are in atomgpu_core.f90; units, ranges and index bases
! of each family at the top of its file; include/atomgpu.h documents the C functions called.
include 'atomgpu_core.f90'
include 'atomgpu_rates.f90'
include 'atomgpu_linestrength.f90'
include 'atomgpu_sturmian.f90'
include 'atomgpu_scf.f90'
include 'atomgpu_tdse.f90'

module atomgpu
    use atomgpu_core, only: ATOMGPU_OK, ATOMGPU_ERR_INVALID_ARGUMENT, ATOMGPU_ERR_NO_DEVICE, &
        ATOMGPU_ERR_OUT_OF_MEMORY, ATOMGPU_ERR_DEVICE_OUT_OF_MEMORY, ATOMGPU_ERR_CUDA, ATOMGPU_ERR_NOT_CONVERGED, &
        ATOMGPU_ERR_INTERNAL, ATOMGPU_ERR_NOT_FINITE, ATOMGPU_ERR_CANCELLED, ATOMGPU_ERR_IO, &
        ATOMGPU_BACKEND_AUTO, ATOMGPU_BACKEND_CPU, &
        ATOMGPU_BACKEND_CUDA, ATOMGPU_ABI_VERSION, atomgpu_version, atomgpu_version_string, atomgpu_set_backend, &
        atomgpu_device_info, atomgpu_last_error_message, atomgpu_last_error_arg, atomgpu_status_string, &
        atomgpu_set_progress, atomgpu_set_time_limit, atomgpu_task_name, atomgpu_progress_callback, &
        atomgpu_host_alloc, atomgpu_host_free, atomgpu_device_count, atomgpu_resolve_devices
    use atomgpu_rates
    use atomgpu_linestrength
    use atomgpu_sturmian
    use atomgpu_scf
    use atomgpu_tdse
    implicit none
    public
end module atomgpu
