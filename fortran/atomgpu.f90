! atomgpu: the Fortran interface (module atomgpu).
!
! Compile this file with your own compiler together with your program and link the library:
!     gfortran atomgpu.f90 prog.f90 -latomgpu
! (a .mod file is tied to one compiler version, so the source is shipped, not the .mod).
!
! Conventions (see include/atomgpu.h for the C interface these wrappers call):
! - energies and temperatures in eV, densities in cm^-3, cross-sections in cm^2, rates in s^-1
!   per ion; real arguments are real(c_double) (= double precision with gfortran);
! - array sizes are taken from the arrays (assumed shape, contiguous) and checked for
!   consistency; batched outputs are up(n_transitions, n_states);
! - every wrapper takes an optional `integer, intent(out) :: stat`. With stat present, a failure
!   returns its status code (ATOMGPU_OK = 0 on success) and leaves the outputs untouched; the
!   detail comes from atomgpu_last_error_message() and atomgpu_last_error_arg() (the 1-based
!   position of the offending argument in the C function, as LAPACK's INFO = -i). With stat
!   absent, a failure stops the program (error stop) with the library's message, as an intrinsic
!   statement without stat= does;
! - the first call of any wrapper checks that the library loaded has the ABI version this module
!   was written for, and stops with a message when it differs.
! - state the library keeps (a collisional-radiative model) is a derived type holding an opaque
!   handle (type(atomgpu_cr_model)): made by its _create wrapper, released by its _destroy
!   wrapper (no finalizer; destroying one never created, or twice, is fine);
! - level indices (the CR driver) are integer(c_int64_t) and numbered from 1, as Fortran arrays
!   are; the wrappers subtract 1 for the C interface, which numbers them from 0.
! - the line-strength family (TROVE-style line lists: half-linestrengths, Einstein A coefficients,
!   intensities, ExoMol state IDs) keeps its state in type(atomgpu_linestrength_t); there the
!   vibrational indices v, the unfolding matrix's row_start and col, block indices and state
!   indices are also numbered from 1 (see the section "Line strengths" below).
module atomgpu
    use, intrinsic :: iso_c_binding, only: c_int32_t, c_int64_t, c_size_t, c_double, c_char, &
        c_ptr, c_null_ptr, c_null_char, c_loc, c_associated, c_f_pointer
    implicit none
    private

    ! Status codes (int32_t in C).
    integer, parameter, public :: ATOMGPU_OK = 0
    integer, parameter, public :: ATOMGPU_ERR_INVALID_ARGUMENT = 1
    integer, parameter, public :: ATOMGPU_ERR_NO_DEVICE = 2
    integer, parameter, public :: ATOMGPU_ERR_DEVICE_OUT_OF_MEMORY = 3
    integer, parameter, public :: ATOMGPU_ERR_CUDA = 4
    integer, parameter, public :: ATOMGPU_ERR_NOT_CONVERGED = 5
    integer, parameter, public :: ATOMGPU_ERR_INTERNAL = 6

    ! Backend choices (atomgpu_set_backend) and backends in use (atomgpu_device_info).
    integer, parameter, public :: ATOMGPU_BACKEND_AUTO = 0
    integer, parameter, public :: ATOMGPU_BACKEND_CPU = 1
    integer, parameter, public :: ATOMGPU_BACKEND_CUDA = 2

    ! Electron statistics of the rates family.
    integer, parameter, public :: ATOMGPU_STATS_FERMI_DIRAC = 0
    integer, parameter, public :: ATOMGPU_STATS_MAXWELL_BOLTZMANN = 1

    ! The C ABI version this module was written for (checked against the library on first use).
    integer, parameter, public :: ATOMGPU_ABI_VERSION = 1

    public :: atomgpu_version, atomgpu_version_string, atomgpu_set_backend, atomgpu_device_info
    public :: atomgpu_last_error_message, atomgpu_last_error_arg, atomgpu_status_string
    public :: atomgpu_rates_chemical_potential, atomgpu_rates_energy_density
    public :: atomgpu_rates_temperature, atomgpu_rates_excitation, atomgpu_rates_ionization
    public :: atomgpu_rates_photoionization, atomgpu_rates_inverse_bremsstrahlung
    public :: atomgpu_cr_create, atomgpu_cr_destroy, atomgpu_cr_n_levels, atomgpu_cr_initial_state
    public :: atomgpu_cr_derivatives, atomgpu_cr_run_rk4, atomgpu_cr_run_stiff, atomgpu_cr_rate_matrix
    public :: atomgpu_linestrength_create, atomgpu_linestrength_destroy, atomgpu_linestrength_add_block
    public :: atomgpu_linestrength_set_states, atomgpu_linestrength_load_lower, atomgpu_linestrength_half
    public :: atomgpu_linestrength_amplitudes, atomgpu_linestrength_line_list, atomgpu_linestrength_count_lines
    public :: atomgpu_linestrength_state_id, atomgpu_linestrength_block_size

    ! A collisional-radiative model (atomic levels, transitions and physics settings) held by the
    ! library: made by atomgpu_cr_create, released by atomgpu_cr_destroy (no finalizer: destroy
    ! it explicitly; a model is never released behind the caller's back). Immutable once made:
    ! every call that takes it may run concurrently from several threads.
    type, public :: atomgpu_cr_model
        private
        type(c_ptr) :: ptr = c_null_ptr
    end type

    ! A line-strength engine (paper: gain-half-linestrength-gpu, Al-Refaie, Yurchenko & Tennyson,
    ! CPC 2017) held by the library: the vibrational dipole matrix, the (J, Gamma) blocks with
    ! their eigenstates and the products of the last lower batch. Made by
    ! atomgpu_linestrength_create, released by atomgpu_linestrength_destroy (no finalizer). Not
    ! thread-safe: one handle per thread. Pass the variable itself to procedures, do not copy it
    ! with `=`: besides the C handle it keeps private bookkeeping (the size of the loaded lower
    ! batch, used to check the shapes of half and amplitudes) that a copy would not follow.
    type, public :: atomgpu_linestrength_t
        private
        type(c_ptr) :: ptr = c_null_ptr
        integer(c_int64_t) :: n_vib = 0     ! size of the vibrational basis (size(dipole, 1))
    end type

    ! Conditions and filters of a line list (C struct atomgpu_intensity_params, TROVE's INTENSITY
    ! block). No field has a default: set every one before atomgpu_linestrength_line_list.
    ! Energies are absolute (as given to atomgpu_linestrength_set_states); the energy windows and
    ! the Boltzmann factor use E - zpe.
    type, bind(C), public :: atomgpu_intensity_params_t
        real(c_double) :: temperature          ! T [K], > 0
        real(c_double) :: partition_function   ! Q(T), > 0
        real(c_double) :: zpe                  ! zero-point energy [cm^-1]
        real(c_double) :: freq_window(2)       ! [min, max] of nu = E' - E'' [cm^-1]; only nu > 0 is kept
        real(c_double) :: lower_energy(2)      ! [min, max] of E'' - zpe [cm^-1]
        real(c_double) :: upper_energy(2)      ! [min, max] of E' - zpe [cm^-1]
        real(c_double) :: thresh_coeff         ! THRESH_COEFF: lower coefficients |c| <= it and 3j symbols
                                               ! below it are skipped
        real(c_double) :: thresh_line          ! THRESH_LINE: smallest line strength S kept [Debye^2]
        real(c_double) :: thresh_intens        ! THRESH_INTES: smallest intensity I kept [cm/molecule]
        integer(c_int64_t) :: batch            ! lower states per batch, >= 1 (TROVE's products per pass)
    end type

    ! Longest static string (status description, version) read from the library.
    integer, parameter :: max_static_string = 4096

    ! Whether the library's ABI version has been checked.
    logical, save :: abi_checked = .false.
    ! An error found by this module itself (inconsistent array sizes) before calling the library:
    ! its message and argument position, reported by atomgpu_last_error_message/_arg until the
    ! next wrapper call.
    character(len=:), allocatable, save :: module_error
    integer, save :: module_error_arg = 0
    !$omp threadprivate(module_error, module_error_arg)

    interface
        ! ---- common.rs ----
        function c_atomgpu_status_string(status) bind(C, name="atomgpu_status_string") result(text)
            import :: c_int32_t, c_ptr
            integer(c_int32_t), value :: status
            type(c_ptr) :: text
        end function

        function c_atomgpu_last_error_message(buffer, capacity) &
                bind(C, name="atomgpu_last_error_message") result(length)
            import :: c_char, c_size_t, c_int64_t
            character(kind=c_char), intent(inout) :: buffer(*)
            integer(c_size_t), value :: capacity
            integer(c_int64_t) :: length
        end function

        function c_atomgpu_last_error_arg() bind(C, name="atomgpu_last_error_arg") result(position)
            import :: c_int32_t
            integer(c_int32_t) :: position
        end function

        function c_atomgpu_version(major, minor, patch) bind(C, name="atomgpu_version") result(status)
            import :: c_int32_t
            integer(c_int32_t), intent(out) :: major, minor, patch
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_version_string() bind(C, name="atomgpu_version_string") result(text)
            import :: c_ptr
            type(c_ptr) :: text
        end function

        function c_atomgpu_abi_version() bind(C, name="atomgpu_abi_version") result(version)
            import :: c_int32_t
            integer(c_int32_t) :: version
        end function

        function c_atomgpu_set_backend(backend) bind(C, name="atomgpu_set_backend") result(status)
            import :: c_int32_t
            integer(c_int32_t), value :: backend
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_device_info(backend, name, name_capacity, total_memory_bytes, &
                free_memory_bytes, cc_major, cc_minor) bind(C, name="atomgpu_device_info") result(status)
            import :: c_int32_t, c_int64_t, c_char
            integer(c_int32_t), intent(out) :: backend
            character(kind=c_char), intent(inout) :: name(*)
            integer(c_int64_t), value :: name_capacity
            integer(c_int64_t), intent(out) :: total_memory_bytes, free_memory_bytes
            integer(c_int32_t), intent(out) :: cc_major, cc_minor
            integer(c_int32_t) :: status
        end function

        ! ---- rates.rs ----
        function c_atomgpu_rates_chemical_potential(stats, n_states, te_ev, ne_cm3, mu_ev) &
                bind(C, name="atomgpu_rates_chemical_potential") result(status)
            import :: c_int32_t, c_int64_t, c_double
            integer(c_int32_t), value :: stats
            integer(c_int64_t), value :: n_states
            real(c_double), intent(in) :: te_ev(*), ne_cm3(*)
            real(c_double), intent(inout) :: mu_ev(*)
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_rates_energy_density(stats, n_states, te_ev, ne_cm3, u_ev_cm3) &
                bind(C, name="atomgpu_rates_energy_density") result(status)
            import :: c_int32_t, c_int64_t, c_double
            integer(c_int32_t), value :: stats
            integer(c_int64_t), value :: n_states
            real(c_double), intent(in) :: te_ev(*), ne_cm3(*)
            real(c_double), intent(inout) :: u_ev_cm3(*)
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_rates_temperature(stats, n_states, u_ev_cm3, ne_cm3, te_ev, mu_ev) &
                bind(C, name="atomgpu_rates_temperature") result(status)
            import :: c_int32_t, c_int64_t, c_double
            integer(c_int32_t), value :: stats
            integer(c_int64_t), value :: n_states
            real(c_double), intent(in) :: u_ev_cm3(*), ne_cm3(*)
            real(c_double), intent(inout) :: te_ev(*), mu_ev(*)
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_rates_excitation(stats, accuracy_p, nodes, n_states, te_ev, ne_cm3, &
                n_transitions, energy_ev, omega, g_lower, g_upper, up, down) &
                bind(C, name="atomgpu_rates_excitation") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            integer(c_int32_t), value :: stats
            real(c_double), value :: accuracy_p
            integer(c_int32_t), value :: nodes
            integer(c_int64_t), value :: n_states
            real(c_double), intent(in) :: te_ev(*), ne_cm3(*)
            integer(c_int64_t), value :: n_transitions
            real(c_double), intent(in) :: energy_ev(*), omega(*)
            type(c_ptr), value :: g_lower, g_upper
            real(c_double), intent(inout) :: up(*), down(*)
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_rates_ionization(stats, accuracy_p, nodes, n_states, te_ev, ne_cm3, &
                n_transitions, energy_ev, beli, g_lower, g_upper, up, down) &
                bind(C, name="atomgpu_rates_ionization") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            integer(c_int32_t), value :: stats
            real(c_double), value :: accuracy_p
            integer(c_int32_t), value :: nodes
            integer(c_int64_t), value :: n_states
            real(c_double), intent(in) :: te_ev(*), ne_cm3(*)
            integer(c_int64_t), value :: n_transitions
            real(c_double), intent(in) :: energy_ev(*), beli(*)
            type(c_ptr), value :: g_lower, g_upper
            real(c_double), intent(inout) :: up(*), down(*)
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_rates_photoionization(stats, accuracy_p, nodes, n_states, te_ev, ne_cm3, &
                tr_ev, n_transitions, energy_ev, d0_cm2, d1_cm2, rate, heating) &
                bind(C, name="atomgpu_rates_photoionization") result(status)
            import :: c_int32_t, c_int64_t, c_double
            integer(c_int32_t), value :: stats
            real(c_double), value :: accuracy_p
            integer(c_int32_t), value :: nodes
            integer(c_int64_t), value :: n_states
            real(c_double), intent(in) :: te_ev(*), ne_cm3(*), tr_ev(*)
            integer(c_int64_t), value :: n_transitions
            real(c_double), intent(in) :: energy_ev(*), d0_cm2(*), d1_cm2(*)
            real(c_double), intent(inout) :: rate(*), heating(*)
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_rates_inverse_bremsstrahlung(stats, accuracy_p, nodes, n_states, te_ev, &
                ne_cm3, tr_ev, z2n_cm3, heating) &
                bind(C, name="atomgpu_rates_inverse_bremsstrahlung") result(status)
            import :: c_int32_t, c_int64_t, c_double
            integer(c_int32_t), value :: stats
            real(c_double), value :: accuracy_p
            integer(c_int32_t), value :: nodes
            integer(c_int64_t), value :: n_states
            real(c_double), intent(in) :: te_ev(*), ne_cm3(*), tr_ev(*), z2n_cm3(*)
            real(c_double), intent(inout) :: heating(*)
            integer(c_int32_t) :: status
        end function

        ! ---- cr.rs ----
        function c_atomgpu_cr_create(n_levels, charges, weights, n_excitations, excitation_lower, &
                excitation_upper, excitation_energy_ev, excitation_omega, n_ionizations, &
                ionization_lower, ionization_upper, ionization_energy_ev, ionization_beli, &
                ionization_d0_cm2, ionization_d1_cm2, stats, accuracy_p, nodes, tr_ev, model) &
                bind(C, name="atomgpu_cr_create") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            integer(c_int64_t), value :: n_levels
            real(c_double), intent(in) :: charges(*)
            type(c_ptr), value :: weights
            integer(c_int64_t), value :: n_excitations
            integer(c_int64_t), intent(in) :: excitation_lower(*), excitation_upper(*)
            real(c_double), intent(in) :: excitation_energy_ev(*), excitation_omega(*)
            integer(c_int64_t), value :: n_ionizations
            integer(c_int64_t), intent(in) :: ionization_lower(*), ionization_upper(*)
            real(c_double), intent(in) :: ionization_energy_ev(*), ionization_beli(*)
            real(c_double), intent(in) :: ionization_d0_cm2(*), ionization_d1_cm2(*)
            integer(c_int32_t), value :: stats
            real(c_double), value :: accuracy_p
            integer(c_int32_t), value :: nodes
            real(c_double), value :: tr_ev
            type(c_ptr), intent(inout) :: model
            integer(c_int32_t) :: status
        end function

        subroutine c_atomgpu_cr_destroy(model) bind(C, name="atomgpu_cr_destroy")
            import :: c_ptr
            type(c_ptr), value :: model
        end subroutine

        function c_atomgpu_cr_n_levels(model) bind(C, name="atomgpu_cr_n_levels") result(n)
            import :: c_ptr, c_int64_t
            type(c_ptr), value :: model
            integer(c_int64_t) :: n
        end function

        function c_atomgpu_cr_initial_state(model, populations, te_ev, y) &
                bind(C, name="atomgpu_cr_initial_state") result(status)
            import :: c_ptr, c_double, c_int32_t
            type(c_ptr), value :: model
            real(c_double), intent(in) :: populations(*)
            real(c_double), value :: te_ev
            real(c_double), intent(inout) :: y(*)
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_cr_derivatives(model, y, dydt, conditions) &
                bind(C, name="atomgpu_cr_derivatives") result(status)
            import :: c_ptr, c_double, c_int32_t
            type(c_ptr), value :: model
            real(c_double), intent(in) :: y(*)
            real(c_double), intent(inout) :: dydt(*), conditions(*)
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_cr_run_rk4(model, y, dt_s, n_steps, sample_every, max_samples, n_samples, &
                times, te_ev, ne_cm3, populations) bind(C, name="atomgpu_cr_run_rk4") result(status)
            import :: c_ptr, c_double, c_int32_t, c_int64_t
            type(c_ptr), value :: model
            real(c_double), intent(inout) :: y(*)
            real(c_double), value :: dt_s
            integer(c_int64_t), value :: n_steps, sample_every, max_samples
            integer(c_int64_t), intent(inout) :: n_samples
            real(c_double), intent(inout) :: times(*), te_ev(*), ne_cm3(*), populations(*)
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_cr_run_stiff(model, y, n_times, sample_times_s, rtol, atol_fraction, &
                te_ev, ne_cm3, populations) bind(C, name="atomgpu_cr_run_stiff") result(status)
            import :: c_ptr, c_double, c_int32_t, c_int64_t
            type(c_ptr), value :: model
            real(c_double), intent(inout) :: y(*)
            integer(c_int64_t), value :: n_times
            real(c_double), intent(in) :: sample_times_s(*)
            real(c_double), value :: rtol, atol_fraction
            real(c_double), intent(inout) :: te_ev(*), ne_cm3(*), populations(*)
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_cr_rate_matrix(model, te_ev, ne_cm3, m, m_energy) &
                bind(C, name="atomgpu_cr_rate_matrix") result(status)
            import :: c_ptr, c_double, c_int32_t
            type(c_ptr), value :: model
            real(c_double), value :: te_ev, ne_cm3
            real(c_double), intent(inout) :: m(*), m_energy(*)
            integer(c_int32_t) :: status
        end function

        ! ---- linestrength.rs ----
        function c_atomgpu_linestrength_create(n_vib, dipole, ld_dipole, max_device_bytes, handle) &
                bind(C, name="atomgpu_linestrength_create") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            integer(c_int64_t), value :: n_vib
            real(c_double), intent(in) :: dipole(*)
            integer(c_int64_t), value :: ld_dipole, max_device_bytes
            type(c_ptr), intent(inout) :: handle
            integer(c_int32_t) :: status
        end function

        subroutine c_atomgpu_linestrength_destroy(handle) bind(C, name="atomgpu_linestrength_destroy")
            import :: c_ptr
            type(c_ptr), value :: handle
        end subroutine

        function c_atomgpu_linestrength_add_block(handle, j, gns, n_primitive, v, k, tau, n_sym, row_start, &
                col, val, block) bind(C, name="atomgpu_linestrength_add_block") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: j
            real(c_double), value :: gns
            integer(c_int64_t), value :: n_primitive
            integer(c_int64_t), intent(in) :: v(*)
            integer(c_int32_t), intent(in) :: k(*), tau(*)
            integer(c_int64_t), value :: n_sym
            type(c_ptr), value :: row_start, col, val
            integer(c_int32_t), intent(inout) :: block
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_set_states(handle, block, n_states, energies, vectors, ld) &
                bind(C, name="atomgpu_linestrength_set_states") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: block
            integer(c_int64_t), value :: n_states
            real(c_double), intent(in) :: energies(*), vectors(*)
            integer(c_int64_t), value :: ld
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_load_lower(handle, block, n_lower, vectors, ld, thresh_coeff) &
                bind(C, name="atomgpu_linestrength_load_lower") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: block
            integer(c_int64_t), value :: n_lower
            real(c_double), intent(in) :: vectors(*)
            integer(c_int64_t), value :: ld
            real(c_double), value :: thresh_coeff
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_half(handle, upper_block, thresh_coeff, half, ld_half) &
                bind(C, name="atomgpu_linestrength_half") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: upper_block
            real(c_double), value :: thresh_coeff
            real(c_double), intent(inout) :: half(*)
            integer(c_int64_t), value :: ld_half
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_amplitudes(handle, upper_block, thresh_coeff, amplitudes, ld) &
                bind(C, name="atomgpu_linestrength_amplitudes") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: upper_block
            real(c_double), value :: thresh_coeff
            real(c_double), intent(inout) :: amplitudes(*)
            integer(c_int64_t), value :: ld
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_line_list(handle, lower_block, n_upper_blocks, upper_blocks, params, &
                capacity, n_lines, upper_id, lower_id, einstein_a, wavenumber, linestrength, intensity) &
                bind(C, name="atomgpu_linestrength_line_list") result(status)
            import :: c_int32_t, c_int64_t, c_ptr, atomgpu_intensity_params_t
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: lower_block, n_upper_blocks
            integer(c_int32_t), intent(in) :: upper_blocks(*)
            type(atomgpu_intensity_params_t), intent(in) :: params
            integer(c_int64_t), value :: capacity
            integer(c_int64_t), intent(inout) :: n_lines
            ! NULL upper_id: count query (only n_lines written).
            type(c_ptr), value :: upper_id, lower_id, einstein_a, wavenumber, linestrength, intensity
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_state_id(handle, block, state, id) &
                bind(C, name="atomgpu_linestrength_state_id") result(status)
            import :: c_int32_t, c_int64_t, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: block
            integer(c_int64_t), value :: state
            integer(c_int64_t), intent(inout) :: id
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_loaded_batch(handle, block, n_lower) &
                bind(C, name="atomgpu_linestrength_loaded_batch") result(status)
            import :: c_int32_t, c_int64_t, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), intent(inout) :: block
            integer(c_int64_t), intent(inout) :: n_lower
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_block_size(handle, block, n_primitive, n_coefficients, n_states) &
                bind(C, name="atomgpu_linestrength_block_size") result(status)
            import :: c_int32_t, c_int64_t, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: block
            integer(c_int64_t), intent(inout) :: n_primitive, n_coefficients, n_states
            integer(c_int32_t) :: status
        end function
    end interface

contains

    ! ============================================================================================
    ! Internal helpers.

    ! Run at the start of every wrapper: checks the library's ABI version once, and clears the
    ! module's own error.
    subroutine enter()
        integer(c_int32_t) :: loaded
        character(len=12) :: loaded_text, expected_text
        if (.not. abi_checked) then
            loaded = c_atomgpu_abi_version()
            if (loaded /= int(ATOMGPU_ABI_VERSION, c_int32_t)) then
                write (loaded_text, '(i0)') loaded
                write (expected_text, '(i0)') ATOMGPU_ABI_VERSION
                error stop "atomgpu: the library loaded has C ABI version " // trim(loaded_text) // &
                    ", this Fortran module (atomgpu.f90) was written for version " // &
                    trim(expected_text) // ": compile atomgpu.f90 from the same atomgpu release"
            end if
            abi_checked = .true.
        end if
        if (allocated(module_error)) deallocate (module_error)
        module_error_arg = 0
    end subroutine

    ! Records an inconsistency found by this module (argument at C position `position`) unless an
    ! earlier one was recorded; `status` becomes ATOMGPU_ERR_INVALID_ARGUMENT.
    subroutine reject(ok, position, message, status)
        logical, intent(in) :: ok
        integer, intent(in) :: position
        character(len=*), intent(in) :: message
        integer(c_int32_t), intent(inout) :: status
        if (ok .or. status /= int(ATOMGPU_OK, c_int32_t)) return
        module_error = message
        module_error_arg = position
        status = int(ATOMGPU_ERR_INVALID_ARGUMENT, c_int32_t)
    end subroutine

    ! Hands a status to the caller: into `stat` when present, else `error stop` on failure.
    subroutine finish(status, stat, procedure_name)
        integer(c_int32_t), intent(in) :: status
        integer, intent(out), optional :: stat
        character(len=*), intent(in) :: procedure_name
        character(len=:), allocatable :: message
        if (present(stat)) then
            stat = int(status)
        else if (status /= int(ATOMGPU_OK, c_int32_t)) then
            message = "atomgpu: " // procedure_name // " failed (" // &
                atomgpu_status_string(int(status)) // "): " // atomgpu_last_error_message()
            error stop message
        end if
    end subroutine

    ! A Fortran string from a NUL-terminated static C string (empty for NULL).
    function c_string(text) result(string)
        type(c_ptr), intent(in) :: text
        character(len=:), allocatable :: string
        character(kind=c_char), pointer :: chars(:)
        integer :: n, i
        if (.not. c_associated(text)) then
            string = ""
            return
        end if
        call c_f_pointer(text, chars, [max_static_string])
        n = 0
        do while (n < max_static_string)
            if (chars(n + 1) == c_null_char) exit
            n = n + 1
        end do
        allocate (character(len=n) :: string)
        do i = 1, n
            string(i:i) = chars(i)
        end do
    end function

    ! An integer as text.
    function itoa(value) result(text)
        integer(c_int64_t), intent(in) :: value
        character(len=:), allocatable :: text
        character(len=24) :: buffer
        write (buffer, '(i0)') value
        text = trim(buffer)
    end function

    ! Shape check message: "<name> has <got> <what>, expected <expected> (<why>)".
    function size_message(name, got, what, expected, why) result(message)
        character(len=*), intent(in) :: name, what, why
        integer(c_int64_t), intent(in) :: got, expected
        character(len=:), allocatable :: message
        message = "argument `" // name // "`: has " // itoa(got) // " " // what // ", expected " // &
            itoa(expected) // " (" // why // ")"
    end function

    ! ============================================================================================
    ! Library-wide procedures.

    ! The library version (major, minor, patch).
    subroutine atomgpu_version(major, minor, patch, stat)
        integer, intent(out) :: major, minor, patch
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status, a, b, c
        call enter()
        status = c_atomgpu_version(a, b, c)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            major = int(a)
            minor = int(b)
            patch = int(c)
        end if
        call finish(status, stat, "atomgpu_version")
    end subroutine

    ! The library version as text, e.g. "0.1.0".
    function atomgpu_version_string() result(version)
        character(len=:), allocatable :: version
        call enter()
        version = c_string(c_atomgpu_version_string())
    end function

    ! Chooses the backend for the rest of the process: ATOMGPU_BACKEND_AUTO, _CPU or _CUDA
    ! (overrides the ATOMGPU_BACKEND environment variable).
    subroutine atomgpu_set_backend(choice, stat)
        integer, intent(in) :: choice
        integer, intent(out), optional :: stat
        call enter()
        call finish(c_atomgpu_set_backend(int(choice, c_int32_t)), stat, "atomgpu_set_backend")
    end subroutine

    ! The backend calls run on now (ATOMGPU_BACKEND_CPU or ATOMGPU_BACKEND_CUDA), the device name,
    ! its total and free memory in bytes (0 on the CPU) and its compute capability (0.0 on the CPU).
    subroutine atomgpu_device_info(backend, name, total_bytes, free_bytes, cc_major, cc_minor, stat)
        integer, intent(out) :: backend
        character(len=:), allocatable, intent(out), optional :: name
        integer(c_int64_t), intent(out), optional :: total_bytes, free_bytes
        integer, intent(out), optional :: cc_major, cc_minor
        integer, intent(out), optional :: stat
        integer(c_int64_t), parameter :: capacity = 512
        character(kind=c_char) :: buffer(capacity)
        integer(c_int32_t) :: status, b, major, minor
        integer(c_int64_t) :: total, free
        integer :: n, i
        call enter()
        buffer = c_null_char
        status = c_atomgpu_device_info(b, buffer, capacity, total, free, major, minor)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            backend = int(b)
            if (present(name)) then
                n = 0
                do while (n < int(capacity))
                    if (buffer(n + 1) == c_null_char) exit
                    n = n + 1
                end do
                allocate (character(len=n) :: name)
                do i = 1, n
                    name(i:i) = buffer(i)
                end do
            end if
            if (present(total_bytes)) total_bytes = total
            if (present(free_bytes)) free_bytes = free
            if (present(cc_major)) cc_major = int(major)
            if (present(cc_minor)) cc_minor = int(minor)
        end if
        call finish(status, stat, "atomgpu_device_info")
    end subroutine

    ! The calling thread's last error sentence (empty when the last call succeeded): it names the
    ! argument and the rule it broke (array elements are numbered from 0, as in C).
    function atomgpu_last_error_message() result(message)
        character(len=:), allocatable :: message
        character(kind=c_char), allocatable :: buffer(:)
        integer(c_int64_t) :: length
        integer :: i, n
        if (allocated(module_error)) then
            message = module_error
            return
        end if
        allocate (buffer(1))
        length = c_atomgpu_last_error_message(buffer, 1_c_size_t)
        deallocate (buffer)
        n = int(max(length, 0_c_int64_t))
        allocate (buffer(n + 1))
        length = c_atomgpu_last_error_message(buffer, int(n + 1, c_size_t))
        allocate (character(len=n) :: message)
        do i = 1, n
            message(i:i) = buffer(i)
        end do
    end function

    ! The 1-based position, in the C function, of the argument that made the calling thread's last
    ! call fail with ATOMGPU_ERR_INVALID_ARGUMENT (as LAPACK's INFO = -i); 0 otherwise.
    function atomgpu_last_error_arg() result(position)
        integer :: position
        if (allocated(module_error)) then
            position = module_error_arg
        else
            position = int(c_atomgpu_last_error_arg())
        end if
    end function

    ! A static description of a status code.
    function atomgpu_status_string(code) result(text)
        integer, intent(in) :: code
        character(len=:), allocatable :: text
        text = c_string(c_atomgpu_status_string(int(code, c_int32_t)))
    end function

    ! ============================================================================================
    ! Rates family. stats: ATOMGPU_STATS_FERMI_DIRAC or ATOMGPU_STATS_MAXWELL_BOLTZMANN.
    ! Plasma states: te_ev(n_states) [eV], ne_cm3(n_states) [cm^-3] (, tr_ev(n_states) [eV]).
    ! accuracy_p in [1, 15]: ranges truncated at relative 10^-p (paper default 5); nodes in
    ! [2, 256]: Gauss-Legendre nodes per panel (paper default 32).
    ! Outputs are intent(inout) because they are left untouched when the call fails.

    ! Chemical potential mu_ev(n_states) [eV] of the free electrons (paper eq. 2).
    subroutine atomgpu_rates_chemical_potential(stats, te_ev, ne_cm3, mu_ev, stat)
        integer, intent(in) :: stats
        real(c_double), intent(in), contiguous :: te_ev(:), ne_cm3(:)
        real(c_double), intent(inout), contiguous :: mu_ev(:)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: ns
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        ns = size(te_ev, kind=c_int64_t)
        call reject(size(ne_cm3, kind=c_int64_t) == ns, 4, &
            size_message("ne_cm3", size(ne_cm3, kind=c_int64_t), "elements", ns, "size(te_ev)"), status)
        call reject(size(mu_ev, kind=c_int64_t) == ns, 5, &
            size_message("mu_ev", size(mu_ev, kind=c_int64_t), "elements", ns, "size(te_ev)"), status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_rates_chemical_potential(int(stats, c_int32_t), ns, te_ev, ne_cm3, mu_ev)
        end if
        call finish(status, stat, "atomgpu_rates_chemical_potential")
    end subroutine

    ! Kinetic energy density u_ev_cm3(n_states) [eV cm^-3] of the free electrons (paper eq. 4).
    subroutine atomgpu_rates_energy_density(stats, te_ev, ne_cm3, u_ev_cm3, stat)
        integer, intent(in) :: stats
        real(c_double), intent(in), contiguous :: te_ev(:), ne_cm3(:)
        real(c_double), intent(inout), contiguous :: u_ev_cm3(:)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: ns
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        ns = size(te_ev, kind=c_int64_t)
        call reject(size(ne_cm3, kind=c_int64_t) == ns, 4, &
            size_message("ne_cm3", size(ne_cm3, kind=c_int64_t), "elements", ns, "size(te_ev)"), status)
        call reject(size(u_ev_cm3, kind=c_int64_t) == ns, 5, &
            size_message("u_ev_cm3", size(u_ev_cm3, kind=c_int64_t), "elements", ns, "size(te_ev)"), status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_rates_energy_density(int(stats, c_int32_t), ns, te_ev, ne_cm3, u_ev_cm3)
        end if
        call finish(status, stat, "atomgpu_rates_energy_density")
    end subroutine

    ! Temperature te_ev(n_states) [eV] and chemical potential mu_ev(n_states) [eV] from the energy
    ! density u_ev_cm3 [eV cm^-3] and density ne_cm3 [cm^-3]: the inversion of
    ! atomgpu_rates_energy_density.
    subroutine atomgpu_rates_temperature(stats, u_ev_cm3, ne_cm3, te_ev, mu_ev, stat)
        integer, intent(in) :: stats
        real(c_double), intent(in), contiguous :: u_ev_cm3(:), ne_cm3(:)
        real(c_double), intent(inout), contiguous :: te_ev(:), mu_ev(:)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: ns
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        ns = size(u_ev_cm3, kind=c_int64_t)
        call reject(size(ne_cm3, kind=c_int64_t) == ns, 4, &
            size_message("ne_cm3", size(ne_cm3, kind=c_int64_t), "elements", ns, "size(u_ev_cm3)"), status)
        call reject(size(te_ev, kind=c_int64_t) == ns, 5, &
            size_message("te_ev", size(te_ev, kind=c_int64_t), "elements", ns, "size(u_ev_cm3)"), status)
        call reject(size(mu_ev, kind=c_int64_t) == ns, 6, &
            size_message("mu_ev", size(mu_ev, kind=c_int64_t), "elements", ns, "size(u_ev_cm3)"), status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_rates_temperature(int(stats, c_int32_t), ns, u_ev_cm3, ne_cm3, te_ev, mu_ev)
        end if
        call finish(status, stat, "atomgpu_rates_temperature")
    end subroutine

    ! Checks shared by the two collisional wrappers: positions of the C functions
    ! (stats, accuracy_p, nodes, n_states, te_ev 5, ne_cm3 6, n_transitions, energy_ev 8,
    ! coefficients 9, g_lower 10, g_upper 11, up 12, down 13).
    subroutine check_collisional(te_ev, ne_cm3, energy_ev, coefficients, coefficients_name, rows, &
            up, down, g_lower, g_upper, status)
        real(c_double), intent(in) :: te_ev(:), ne_cm3(:), energy_ev(:), coefficients(:, :)
        character(len=*), intent(in) :: coefficients_name
        integer(c_int64_t), intent(in) :: rows
        real(c_double), intent(in) :: up(:, :), down(:, :)
        real(c_double), intent(in), optional :: g_lower(:), g_upper(:)
        integer(c_int32_t), intent(inout) :: status
        integer(c_int64_t) :: ns, nt
        ns = size(te_ev, kind=c_int64_t)
        nt = size(energy_ev, kind=c_int64_t)
        call reject(size(ne_cm3, kind=c_int64_t) == ns, 6, &
            size_message("ne_cm3", size(ne_cm3, kind=c_int64_t), "elements", ns, "size(te_ev)"), status)
        call reject(size(coefficients, 1, kind=c_int64_t) == rows, 9, &
            size_message(coefficients_name, size(coefficients, 1, kind=c_int64_t), "rows", rows, &
            "one column of coefficients per transition"), status)
        call reject(size(coefficients, 2, kind=c_int64_t) == nt, 9, &
            size_message(coefficients_name, size(coefficients, 2, kind=c_int64_t), "columns", nt, &
            "size(energy_ev)"), status)
        if (present(g_lower)) then
            call reject(size(g_lower, kind=c_int64_t) == nt, 10, &
                size_message("g_lower", size(g_lower, kind=c_int64_t), "elements", nt, "size(energy_ev)"), status)
        end if
        if (present(g_upper)) then
            call reject(size(g_upper, kind=c_int64_t) == nt, 11, &
                size_message("g_upper", size(g_upper, kind=c_int64_t), "elements", nt, "size(energy_ev)"), status)
        end if
        call reject(size(up, 1, kind=c_int64_t) == nt, 12, &
            size_message("up", size(up, 1, kind=c_int64_t), "rows", nt, "size(energy_ev)"), status)
        call reject(size(up, 2, kind=c_int64_t) == ns, 12, &
            size_message("up", size(up, 2, kind=c_int64_t), "columns", ns, "size(te_ev)"), status)
        call reject(size(down, 1, kind=c_int64_t) == nt, 13, &
            size_message("down", size(down, 1, kind=c_int64_t), "rows", nt, "size(energy_ev)"), status)
        call reject(size(down, 2, kind=c_int64_t) == ns, 13, &
            size_message("down", size(down, 2, kind=c_int64_t), "columns", ns, "size(te_ev)"), status)
    end subroutine

    ! Collisional excitation up(n_transitions, n_states) [s^-1 per lower-level ion] and
    ! de-excitation down(n_transitions, n_states) [s^-1 per upper-level ion] (paper eqs. 5, 6, 9).
    ! energy_ev(n_transitions) [eV]; omega(6, n_transitions): B0..B5 of the collision strength
    ! Omega(x) = B0 ln x + B1 + B2/x + B3/x^2 + B4/x^3 + B5/x^4 (dimensionless);
    ! g_lower, g_upper(n_transitions): statistical weights (all 1 when absent).
    subroutine atomgpu_rates_excitation(stats, accuracy_p, nodes, te_ev, ne_cm3, energy_ev, omega, &
            up, down, g_lower, g_upper, stat)
        integer, intent(in) :: stats
        real(c_double), intent(in) :: accuracy_p
        integer, intent(in) :: nodes
        real(c_double), intent(in), contiguous :: te_ev(:), ne_cm3(:), energy_ev(:), omega(:, :)
        real(c_double), intent(inout), contiguous :: up(:, :), down(:, :)
        real(c_double), intent(in), contiguous, optional, target :: g_lower(:), g_upper(:)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        type(c_ptr) :: gl, gu
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_collisional(te_ev, ne_cm3, energy_ev, omega, "omega", 6_c_int64_t, up, down, &
            g_lower, g_upper, status)
        gl = c_null_ptr
        gu = c_null_ptr
        if (present(g_lower)) gl = c_loc(g_lower)
        if (present(g_upper)) gu = c_loc(g_upper)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_rates_excitation(int(stats, c_int32_t), accuracy_p, int(nodes, c_int32_t), &
                size(te_ev, kind=c_int64_t), te_ev, ne_cm3, size(energy_ev, kind=c_int64_t), energy_ev, &
                omega, gl, gu, up, down)
        end if
        call finish(status, stat, "atomgpu_rates_excitation")
    end subroutine

    ! Collisional ionization up(n_transitions, n_states) [s^-1 per ion of the lower stage] and
    ! three-body recombination down(n_transitions, n_states) [s^-1 per ion of the upper stage]
    ! (paper eqs. 7, 8, 10). energy_ev(n_transitions) [eV]; beli(5, n_transitions): BELI
    ! coefficients A, B1..B4 [1e-13 cm^2 eV^2]; g_lower, g_upper(n_transitions): statistical
    ! weights of the ionizing level and of the next ion's level (all 1 when absent).
    subroutine atomgpu_rates_ionization(stats, accuracy_p, nodes, te_ev, ne_cm3, energy_ev, beli, &
            up, down, g_lower, g_upper, stat)
        integer, intent(in) :: stats
        real(c_double), intent(in) :: accuracy_p
        integer, intent(in) :: nodes
        real(c_double), intent(in), contiguous :: te_ev(:), ne_cm3(:), energy_ev(:), beli(:, :)
        real(c_double), intent(inout), contiguous :: up(:, :), down(:, :)
        real(c_double), intent(in), contiguous, optional, target :: g_lower(:), g_upper(:)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        type(c_ptr) :: gl, gu
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_collisional(te_ev, ne_cm3, energy_ev, beli, "beli", 5_c_int64_t, up, down, &
            g_lower, g_upper, status)
        gl = c_null_ptr
        gu = c_null_ptr
        if (present(g_lower)) gl = c_loc(g_lower)
        if (present(g_upper)) gu = c_loc(g_upper)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_rates_ionization(int(stats, c_int32_t), accuracy_p, int(nodes, c_int32_t), &
                size(te_ev, kind=c_int64_t), te_ev, ne_cm3, size(energy_ev, kind=c_int64_t), energy_ev, &
                beli, gl, gu, up, down)
        end if
        call finish(status, stat, "atomgpu_rates_ionization")
    end subroutine

    ! Photoionization rate(n_transitions, n_states) [s^-1 per ion] and photoelectron
    ! heating(n_transitions, n_states) [eV s^-1 per ion] in a black-body field at tr_ev(n_states)
    ! [eV] (paper eqs. 11-13, 16). energy_ev(n_transitions) [eV]; cross-section
    ! sigma = d0_cm2 (E/eps)^2 + d1_cm2 (E/eps)^3 [cm^2].
    subroutine atomgpu_rates_photoionization(stats, accuracy_p, nodes, te_ev, ne_cm3, tr_ev, &
            energy_ev, d0_cm2, d1_cm2, rate, heating, stat)
        integer, intent(in) :: stats
        real(c_double), intent(in) :: accuracy_p
        integer, intent(in) :: nodes
        real(c_double), intent(in), contiguous :: te_ev(:), ne_cm3(:), tr_ev(:)
        real(c_double), intent(in), contiguous :: energy_ev(:), d0_cm2(:), d1_cm2(:)
        real(c_double), intent(inout), contiguous :: rate(:, :), heating(:, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: ns, nt
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        ns = size(te_ev, kind=c_int64_t)
        nt = size(energy_ev, kind=c_int64_t)
        call reject(size(ne_cm3, kind=c_int64_t) == ns, 6, &
            size_message("ne_cm3", size(ne_cm3, kind=c_int64_t), "elements", ns, "size(te_ev)"), status)
        call reject(size(tr_ev, kind=c_int64_t) == ns, 7, &
            size_message("tr_ev", size(tr_ev, kind=c_int64_t), "elements", ns, "size(te_ev)"), status)
        call reject(size(d0_cm2, kind=c_int64_t) == nt, 10, &
            size_message("d0_cm2", size(d0_cm2, kind=c_int64_t), "elements", nt, "size(energy_ev)"), status)
        call reject(size(d1_cm2, kind=c_int64_t) == nt, 11, &
            size_message("d1_cm2", size(d1_cm2, kind=c_int64_t), "elements", nt, "size(energy_ev)"), status)
        call reject(size(rate, 1, kind=c_int64_t) == nt, 12, &
            size_message("rate", size(rate, 1, kind=c_int64_t), "rows", nt, "size(energy_ev)"), status)
        call reject(size(rate, 2, kind=c_int64_t) == ns, 12, &
            size_message("rate", size(rate, 2, kind=c_int64_t), "columns", ns, "size(te_ev)"), status)
        call reject(size(heating, 1, kind=c_int64_t) == nt, 13, &
            size_message("heating", size(heating, 1, kind=c_int64_t), "rows", nt, "size(energy_ev)"), status)
        call reject(size(heating, 2, kind=c_int64_t) == ns, 13, &
            size_message("heating", size(heating, 2, kind=c_int64_t), "columns", ns, "size(te_ev)"), status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_rates_photoionization(int(stats, c_int32_t), accuracy_p, int(nodes, c_int32_t), &
                ns, te_ev, ne_cm3, tr_ev, nt, energy_ev, d0_cm2, d1_cm2, rate, heating)
        end if
        call finish(status, stat, "atomgpu_rates_photoionization")
    end subroutine

    ! Inverse-bremsstrahlung heating(n_states) [eV cm^-3 s^-1] of the free electrons in a
    ! black-body field at tr_ev(n_states) [eV] (paper eqs. 14-15); z2n_cm3(n_states) = sum over
    ! ion charges Z of Z^2 N_Z [cm^-3], >= 0.
    subroutine atomgpu_rates_inverse_bremsstrahlung(stats, accuracy_p, nodes, te_ev, ne_cm3, tr_ev, &
            z2n_cm3, heating, stat)
        integer, intent(in) :: stats
        real(c_double), intent(in) :: accuracy_p
        integer, intent(in) :: nodes
        real(c_double), intent(in), contiguous :: te_ev(:), ne_cm3(:), tr_ev(:), z2n_cm3(:)
        real(c_double), intent(inout), contiguous :: heating(:)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: ns
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        ns = size(te_ev, kind=c_int64_t)
        call reject(size(ne_cm3, kind=c_int64_t) == ns, 6, &
            size_message("ne_cm3", size(ne_cm3, kind=c_int64_t), "elements", ns, "size(te_ev)"), status)
        call reject(size(tr_ev, kind=c_int64_t) == ns, 7, &
            size_message("tr_ev", size(tr_ev, kind=c_int64_t), "elements", ns, "size(te_ev)"), status)
        call reject(size(z2n_cm3, kind=c_int64_t) == ns, 8, &
            size_message("z2n_cm3", size(z2n_cm3, kind=c_int64_t), "elements", ns, "size(te_ev)"), status)
        call reject(size(heating, kind=c_int64_t) == ns, 9, &
            size_message("heating", size(heating, kind=c_int64_t), "elements", ns, "size(te_ev)"), status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_rates_inverse_bremsstrahlung(int(stats, c_int32_t), accuracy_p, &
                int(nodes, c_int32_t), ns, te_ev, ne_cm3, tr_ev, z2n_cm3, heating)
        end if
        call finish(status, stat, "atomgpu_rates_inverse_bremsstrahlung")
    end subroutine

    ! ============================================================================================
    ! Collisional-radiative (CR) driver, paper section 4: level populations N(n_levels) [cm^-3]
    ! and the free-electron kinetic energy density u [eV cm^-3] advanced in time under the rates
    ! above (dN/dt = M N, du/dt = sum M' N + IB heating). The state vector y(n_levels + 1) holds
    ! N(1:n_levels) then u. LEVELS ARE NUMBERED FROM 1 here (the C interface numbers them from 0).

    ! Checks that a model handle was made (C argument position 1 of every CR function).
    subroutine check_model(model, status)
        type(atomgpu_cr_model), intent(in) :: model
        integer(c_int32_t), intent(inout) :: status
        call reject(c_associated(model%ptr), 1, &
            "argument `model`: was not created by atomgpu_cr_create (or was destroyed)", status)
    end subroutine

    ! Checks 1-based level indices `levels` against 1..n_levels (C argument `position`).
    subroutine check_levels(name, levels, n_levels, position, status)
        character(len=*), intent(in) :: name
        integer(c_int64_t), intent(in) :: levels(:)
        integer(c_int64_t), intent(in) :: n_levels
        integer, intent(in) :: position
        integer(c_int32_t), intent(inout) :: status
        integer :: i
        do i = 1, size(levels)
            call reject(levels(i) >= 1 .and. levels(i) <= n_levels, position, &
                "argument `" // name // "`: element " // itoa(int(i, c_int64_t)) // " is " // &
                itoa(levels(i)) // ", levels are numbered 1.." // itoa(n_levels) // &
                " (size(charges)) in Fortran", status)
        end do
    end subroutine

    ! Makes a CR model (the handle goes into `model`, which must not hold one already).
    ! Levels: charges(n_levels), the ion charge Z of each level; weights(n_levels), their
    ! statistical weights (all 1 when absent).
    ! Excitations i = 1..n_excitations: from level excitation_lower(i) to excitation_upper(i)
    ! (1-based, same ion), energy excitation_energy_ev(i) [eV], collision strength coefficients
    ! excitation_omega(1:6, i) = B0..B5 of Omega(x) = B0 ln x + B1 + B2/x + ... + B5/x^4
    ! (dimensionless, paper eq. 6).
    ! Ionizations i = 1..n_ionizations: from level ionization_lower(i) to ionization_upper(i) (a
    ! level of the next ion, 1-based), energy ionization_energy_ev(i) [eV], BELI coefficients
    ! ionization_beli(1:5, i) = A, B1..B4 of paper eq. 8 [1e-13 cm^2 eV^2], photoionization
    ! cross-section coefficients ionization_d0_cm2(i), ionization_d1_cm2(i) [cm^2] (eq. 12).
    ! Zero-size transition arrays are allowed. stats: ATOMGPU_STATS_*; accuracy_p and nodes: the
    ! quadrature of every rate (see the rates family); tr_ev: black-body radiation temperature
    ! [eV]. Level indices are integer(c_int64_t).
    subroutine atomgpu_cr_create(model, charges, excitation_lower, excitation_upper, &
            excitation_energy_ev, excitation_omega, ionization_lower, ionization_upper, &
            ionization_energy_ev, ionization_beli, ionization_d0_cm2, ionization_d1_cm2, &
            stats, accuracy_p, nodes, tr_ev, weights, stat)
        type(atomgpu_cr_model), intent(inout) :: model
        real(c_double), intent(in), contiguous :: charges(:)
        integer(c_int64_t), intent(in), contiguous :: excitation_lower(:), excitation_upper(:)
        real(c_double), intent(in), contiguous :: excitation_energy_ev(:), excitation_omega(:, :)
        integer(c_int64_t), intent(in), contiguous :: ionization_lower(:), ionization_upper(:)
        real(c_double), intent(in), contiguous :: ionization_energy_ev(:), ionization_beli(:, :)
        real(c_double), intent(in), contiguous :: ionization_d0_cm2(:), ionization_d1_cm2(:)
        integer, intent(in) :: stats
        real(c_double), intent(in) :: accuracy_p
        integer, intent(in) :: nodes
        real(c_double), intent(in) :: tr_ev
        real(c_double), intent(in), contiguous, optional, target :: weights(:)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: nl, nx, ni
        integer(c_int64_t), allocatable :: xl(:), xu(:), il(:), iu(:)
        type(c_ptr) :: w, handle
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        nl = size(charges, kind=c_int64_t)
        nx = size(excitation_lower, kind=c_int64_t)
        ni = size(ionization_lower, kind=c_int64_t)
        call reject(.not. c_associated(model%ptr), 20, "argument `model`: already holds a model " // &
            "(call atomgpu_cr_destroy on it first)", status)
        if (present(weights)) then
            call reject(size(weights, kind=c_int64_t) == nl, 3, &
                size_message("weights", size(weights, kind=c_int64_t), "elements", nl, "size(charges)"), status)
        end if
        call reject(size(excitation_upper, kind=c_int64_t) == nx, 6, size_message("excitation_upper", &
            size(excitation_upper, kind=c_int64_t), "elements", nx, "size(excitation_lower)"), status)
        call reject(size(excitation_energy_ev, kind=c_int64_t) == nx, 7, size_message("excitation_energy_ev", &
            size(excitation_energy_ev, kind=c_int64_t), "elements", nx, "size(excitation_lower)"), status)
        call reject(size(excitation_omega, 1, kind=c_int64_t) == 6, 8, size_message("excitation_omega", &
            size(excitation_omega, 1, kind=c_int64_t), "rows", 6_c_int64_t, "B0..B5 per excitation"), status)
        call reject(size(excitation_omega, 2, kind=c_int64_t) == nx, 8, size_message("excitation_omega", &
            size(excitation_omega, 2, kind=c_int64_t), "columns", nx, "size(excitation_lower)"), status)
        call reject(size(ionization_upper, kind=c_int64_t) == ni, 11, size_message("ionization_upper", &
            size(ionization_upper, kind=c_int64_t), "elements", ni, "size(ionization_lower)"), status)
        call reject(size(ionization_energy_ev, kind=c_int64_t) == ni, 12, size_message("ionization_energy_ev", &
            size(ionization_energy_ev, kind=c_int64_t), "elements", ni, "size(ionization_lower)"), status)
        call reject(size(ionization_beli, 1, kind=c_int64_t) == 5, 13, size_message("ionization_beli", &
            size(ionization_beli, 1, kind=c_int64_t), "rows", 5_c_int64_t, "A, B1..B4 per ionization"), status)
        call reject(size(ionization_beli, 2, kind=c_int64_t) == ni, 13, size_message("ionization_beli", &
            size(ionization_beli, 2, kind=c_int64_t), "columns", ni, "size(ionization_lower)"), status)
        call reject(size(ionization_d0_cm2, kind=c_int64_t) == ni, 14, size_message("ionization_d0_cm2", &
            size(ionization_d0_cm2, kind=c_int64_t), "elements", ni, "size(ionization_lower)"), status)
        call reject(size(ionization_d1_cm2, kind=c_int64_t) == ni, 15, size_message("ionization_d1_cm2", &
            size(ionization_d1_cm2, kind=c_int64_t), "elements", ni, "size(ionization_lower)"), status)
        if (nl >= 1) then
            ! (with no levels at all the library reports n_levels itself)
            call check_levels("excitation_lower", excitation_lower, nl, 5, status)
            call check_levels("excitation_upper", excitation_upper, nl, 6, status)
            call check_levels("ionization_lower", ionization_lower, nl, 10, status)
            call check_levels("ionization_upper", ionization_upper, nl, 11, status)
        end if
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            ! 0-based copies for C (at least one element, so that no zero-size array is passed).
            allocate (xl(max(nx, 1_c_int64_t)), xu(max(nx, 1_c_int64_t)))
            allocate (il(max(ni, 1_c_int64_t)), iu(max(ni, 1_c_int64_t)))
            xl = 0
            xu = 0
            il = 0
            iu = 0
            xl(1:nx) = excitation_lower - 1
            xu(1:nx) = excitation_upper - 1
            il(1:ni) = ionization_lower - 1
            iu(1:ni) = ionization_upper - 1
            w = c_null_ptr
            if (present(weights)) w = c_loc(weights)
            handle = c_null_ptr
            status = c_atomgpu_cr_create(nl, charges, w, nx, xl, xu, excitation_energy_ev, &
                excitation_omega, ni, il, iu, ionization_energy_ev, ionization_beli, ionization_d0_cm2, &
                ionization_d1_cm2, int(stats, c_int32_t), accuracy_p, int(nodes, c_int32_t), tr_ev, handle)
            if (status == int(ATOMGPU_OK, c_int32_t)) model%ptr = handle
        end if
        call finish(status, stat, "atomgpu_cr_create")
    end subroutine

    ! Releases a model (a model never created, or already destroyed, is fine) and resets it.
    subroutine atomgpu_cr_destroy(model)
        type(atomgpu_cr_model), intent(inout) :: model
        call enter()
        if (c_associated(model%ptr)) call c_atomgpu_cr_destroy(model%ptr)
        model%ptr = c_null_ptr
    end subroutine

    ! Number of levels of a model (0 when it was not created).
    function atomgpu_cr_n_levels(model) result(n)
        type(atomgpu_cr_model), intent(in) :: model
        integer(c_int64_t) :: n
        call enter()
        n = 0
        if (c_associated(model%ptr)) n = c_atomgpu_cr_n_levels(model%ptr)
    end function

    ! Initial state y(n_levels + 1) from populations(n_levels) [cm^-3] and the electron
    ! temperature te_ev [eV]: N = populations, u = the energy density of n_e = sum Z N electrons
    ! at te_ev under the model's statistics.
    subroutine atomgpu_cr_initial_state(model, populations, te_ev, y, stat)
        type(atomgpu_cr_model), intent(in) :: model
        real(c_double), intent(in), contiguous :: populations(:)
        real(c_double), intent(in) :: te_ev
        real(c_double), intent(inout), contiguous :: y(:)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: nl
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_model(model, status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            nl = c_atomgpu_cr_n_levels(model%ptr)
            call reject(size(populations, kind=c_int64_t) == nl, 2, size_message("populations", &
                size(populations, kind=c_int64_t), "elements", nl, "n_levels of the model"), status)
            call reject(size(y, kind=c_int64_t) == nl + 1, 4, size_message("y", &
                size(y, kind=c_int64_t), "elements", nl + 1, "n_levels + 1"), status)
        end if
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_cr_initial_state(model%ptr, populations, te_ev, y)
        end if
        call finish(status, stat, "atomgpu_cr_initial_state")
    end subroutine

    ! Right-hand side dydt(n_levels + 1) [cm^-3 s^-1, then eV cm^-3 s^-1] at state y(n_levels + 1),
    ! and the electron conditions it was evaluated at: conditions(3) = (T_e [eV], mu [eV],
    ! n_e [cm^-3]).
    subroutine atomgpu_cr_derivatives(model, y, dydt, conditions, stat)
        type(atomgpu_cr_model), intent(in) :: model
        real(c_double), intent(in), contiguous :: y(:)
        real(c_double), intent(inout), contiguous :: dydt(:)
        real(c_double), intent(inout) :: conditions(3)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: nl
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_model(model, status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            nl = c_atomgpu_cr_n_levels(model%ptr)
            call reject(size(y, kind=c_int64_t) == nl + 1, 2, size_message("y", &
                size(y, kind=c_int64_t), "elements", nl + 1, "n_levels + 1"), status)
            call reject(size(dydt, kind=c_int64_t) == nl + 1, 3, size_message("dydt", &
                size(dydt, kind=c_int64_t), "elements", nl + 1, "n_levels + 1"), status)
        end if
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_cr_derivatives(model%ptr, y, dydt, conditions)
        end if
        call finish(status, stat, "atomgpu_cr_derivatives")
    end subroutine

    ! Fixed-step classical RK4 from state y(n_levels + 1) (overwritten with the final state):
    ! n_steps steps of dt_s [s], recording the initial state and every sample_every-th step (and
    ! the last), 1 + ceil(n_steps / sample_every) samples, which must fit in size(times) (times
    ! counted from the start of this call, times(1) = 0). On
    ! success n_samples receives the count, times(1:n_samples) [s], te_ev(1:n_samples) [eV],
    ! ne_cm3(1:n_samples) [cm^-3] and populations(1:n_levels, 1:n_samples) [cm^-3] the samples.
    ! On a CUDA backend the whole run stays on the device.
    subroutine atomgpu_cr_run_rk4(model, y, dt_s, n_steps, sample_every, n_samples, times, te_ev, &
            ne_cm3, populations, stat)
        type(atomgpu_cr_model), intent(in) :: model
        real(c_double), intent(inout), contiguous :: y(:)
        real(c_double), intent(in) :: dt_s
        integer(c_int64_t), intent(in) :: n_steps, sample_every
        integer(c_int64_t), intent(inout) :: n_samples
        real(c_double), intent(inout), contiguous :: times(:), te_ev(:), ne_cm3(:), populations(:, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: nl, ms
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_model(model, status)
        ms = size(times, kind=c_int64_t)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            nl = c_atomgpu_cr_n_levels(model%ptr)
            call reject(size(y, kind=c_int64_t) == nl + 1, 2, size_message("y", &
                size(y, kind=c_int64_t), "elements", nl + 1, "n_levels + 1"), status)
            call reject(size(te_ev, kind=c_int64_t) == ms, 9, size_message("te_ev", &
                size(te_ev, kind=c_int64_t), "elements", ms, "size(times) = max_samples"), status)
            call reject(size(ne_cm3, kind=c_int64_t) == ms, 10, size_message("ne_cm3", &
                size(ne_cm3, kind=c_int64_t), "elements", ms, "size(times) = max_samples"), status)
            call reject(size(populations, 1, kind=c_int64_t) == nl, 11, size_message("populations", &
                size(populations, 1, kind=c_int64_t), "rows", nl, "n_levels of the model"), status)
            call reject(size(populations, 2, kind=c_int64_t) == ms, 11, size_message("populations", &
                size(populations, 2, kind=c_int64_t), "columns", ms, "size(times) = max_samples"), status)
        end if
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_cr_run_rk4(model%ptr, y, dt_s, n_steps, sample_every, ms, n_samples, &
                times, te_ev, ne_cm3, populations)
        end if
        call finish(status, stat, "atomgpu_cr_run_rk4")
    end subroutine

    ! Adaptive stiff integration (ROS2, L-stable) from state y(n_levels + 1) (overwritten with the
    ! state at the last time) to each of the ascending times sample_times_s(n_times) [s] (> 0),
    ! counted from the start of this call (y is the state at t = 0: to continue a run in several
    ! calls, pass the times since the end of the previous one);
    ! rtol is the relative tolerance, atol_fraction the absolute one as a fraction of the initial
    ! total population and energy density. te_ev(n_times) [eV], ne_cm3(n_times) [cm^-3] and
    ! populations(n_levels, n_times) [cm^-3] receive the state at each time.
    subroutine atomgpu_cr_run_stiff(model, y, sample_times_s, rtol, atol_fraction, te_ev, ne_cm3, &
            populations, stat)
        type(atomgpu_cr_model), intent(in) :: model
        real(c_double), intent(inout), contiguous :: y(:)
        real(c_double), intent(in), contiguous :: sample_times_s(:)
        real(c_double), intent(in) :: rtol, atol_fraction
        real(c_double), intent(inout), contiguous :: te_ev(:), ne_cm3(:), populations(:, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: nl, nt
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_model(model, status)
        nt = size(sample_times_s, kind=c_int64_t)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            nl = c_atomgpu_cr_n_levels(model%ptr)
            call reject(size(y, kind=c_int64_t) == nl + 1, 2, size_message("y", &
                size(y, kind=c_int64_t), "elements", nl + 1, "n_levels + 1"), status)
            call reject(size(te_ev, kind=c_int64_t) == nt, 7, size_message("te_ev", &
                size(te_ev, kind=c_int64_t), "elements", nt, "size(sample_times_s)"), status)
            call reject(size(ne_cm3, kind=c_int64_t) == nt, 8, size_message("ne_cm3", &
                size(ne_cm3, kind=c_int64_t), "elements", nt, "size(sample_times_s)"), status)
            call reject(size(populations, 1, kind=c_int64_t) == nl, 9, size_message("populations", &
                size(populations, 1, kind=c_int64_t), "rows", nl, "n_levels of the model"), status)
            call reject(size(populations, 2, kind=c_int64_t) == nt, 9, size_message("populations", &
                size(populations, 2, kind=c_int64_t), "columns", nt, "size(sample_times_s)"), status)
        end if
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_cr_run_stiff(model%ptr, y, nt, sample_times_s, rtol, atol_fraction, &
                te_ev, ne_cm3, populations)
        end if
        call finish(status, stat, "atomgpu_cr_run_stiff")
    end subroutine

    ! The rate matrices of paper eqs. 27-28 at electron temperature te_ev [eV] and density ne_cm3
    ! [cm^-3]: m(n_levels, n_levels) [s^-1], m(k, l) the rate from level l into level k and
    ! m(l, l) minus the total rate out of l, so dN/dt = matmul(m, N); m_energy(n_levels)
    ! [eV s^-1], du/dt = sum(m_energy * N) (inverse-bremsstrahlung heating included, in
    ! proportion to Z_l^2).
    subroutine atomgpu_cr_rate_matrix(model, te_ev, ne_cm3, m, m_energy, stat)
        type(atomgpu_cr_model), intent(in) :: model
        real(c_double), intent(in) :: te_ev, ne_cm3
        real(c_double), intent(inout), contiguous :: m(:, :), m_energy(:)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: nl
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_model(model, status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            nl = c_atomgpu_cr_n_levels(model%ptr)
            call reject(size(m, 1, kind=c_int64_t) == nl, 4, size_message("m", &
                size(m, 1, kind=c_int64_t), "rows", nl, "n_levels of the model"), status)
            call reject(size(m, 2, kind=c_int64_t) == nl, 4, size_message("m", &
                size(m, 2, kind=c_int64_t), "columns", nl, "n_levels of the model"), status)
            call reject(size(m_energy, kind=c_int64_t) == nl, 5, size_message("m_energy", &
                size(m_energy, kind=c_int64_t), "elements", nl, "n_levels of the model"), status)
        end if
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_cr_rate_matrix(model%ptr, te_ev, ne_cm3, m, m_energy)
        end if
        call finish(status, stat, "atomgpu_cr_rate_matrix")
    end subroutine

    ! ============================================================================================
    ! Line strengths: half-linestrengths, Einstein A coefficients and intensities of TROVE-style
    ! line lists (paper: gain-half-linestrength-gpu, Al-Refaie, Yurchenko & Tennyson, CPC 2017;
    ! see src/linestrength/mod.rs for the formulas).
    !
    ! Inputs as TROVE holds them: the vibrational (J = 0) dipole matrix dipole(n_vib, n_vib, 3)
    ! [Debye], lower vibrational index first, components x, y, z; for each (J, Gamma) block the
    ! primitive functions |v>|J, K, tau> (v in 1..n_vib, K in 0..J, tau in {0, 1}, Wang
    ! combinations; K = 0 has tau = mod(J, 2)), optionally the sparse unfolding matrix T from the
    ! symmetrised basis (vectors of n_sym coefficients) to the primitive one; eigenvectors as the
    ! columns of vectors(n_coefficients, n_states) with their energies [cm^-1].
    ! For a lower state i and an upper state f: L = a(f, i)^2 with a the amplitude (eq. 15),
    !   S = g_ns (2J'+1)(2J''+1) L                                        [Debye^2]
    !   A = 3.1361892e-7 (2J''+1) L nu^3                                   [s^-1]
    !   I = 4.1623797e-19 S nu exp(-c2 (E''-zpe)/T) (1 - exp(-c2 nu/T))/Q [cm/molecule]
    ! with nu = E' - E'' [cm^-1] and g_ns the lower block's nuclear-spin weight.
    ! IN FORTRAN v, row_start, col, block indices and state indices are numbered from 1 (the
    ! wrappers convert to the C interface's 0-based numbers); ExoMol state IDs (line lists,
    ! atomgpu_linestrength_state_id) are the 1-based running numbers of the stored states, blocks
    ! in the order they were added. Indices are integer(c_int64_t) except block indices and the
    ! rotational labels j, k, tau (default integer).

    ! Checks that a line-strength handle was made (C argument position 1 of every function).
    subroutine check_linestrength(h, status)
        type(atomgpu_linestrength_t), intent(in) :: h
        integer(c_int32_t), intent(inout) :: status
        call reject(c_associated(h%ptr), 1, "argument `handle`: was not created by " // &
            "atomgpu_linestrength_create (or was destroyed)", status)
    end subroutine

    ! Checks that a lower batch is loaded and gives its number of states (0 when the check fails
    ! or an earlier one did).
    subroutine check_lower_loaded(h, status, n_lower)
        type(atomgpu_linestrength_t), intent(in) :: h
        integer(c_int32_t), intent(inout) :: status
        integer(c_int64_t), intent(out) :: n_lower
        integer(c_int32_t) :: block
        n_lower = 0
        if (status /= int(ATOMGPU_OK, c_int32_t)) return
        if (c_atomgpu_linestrength_loaded_batch(h%ptr, block, n_lower) /= int(ATOMGPU_OK, c_int32_t)) n_lower = 0
        call reject(n_lower > 0, 1, "argument `handle`: no lower batch is loaded (call " // &
            "atomgpu_linestrength_load_lower first; line_list and count_lines replace the loaded batch)", status)
    end subroutine

    ! Checks the 1-based block index `block` (C argument `name`, at `position`; `element`: its
    ! 1-based element when the argument is an array) against the blocks of the handle, and gives
    ! the block's sizes (0 when the check fails or an earlier one did).
    subroutine check_block(h, name, block, position, status, n_primitive, n_coefficients, n_states, element)
        type(atomgpu_linestrength_t), intent(in) :: h
        character(len=*), intent(in) :: name
        integer, intent(in) :: block, position
        integer(c_int32_t), intent(inout) :: status
        integer(c_int64_t), intent(out) :: n_primitive, n_coefficients, n_states
        integer, intent(in), optional :: element
        character(len=:), allocatable :: what
        integer(c_int32_t) :: found
        n_primitive = 0
        n_coefficients = 0
        n_states = 0
        if (status /= int(ATOMGPU_OK, c_int32_t)) return
        what = "argument `" // name // "`: "
        if (present(element)) what = what // "element " // itoa(int(element, c_int64_t)) // " "
        what = what // "is " // itoa(int(block, c_int64_t))
        if (block < 1) then
            call reject(.false., position, what // ", blocks are numbered from 1 in Fortran", status)
            return
        end if
        found = c_atomgpu_linestrength_block_size(h%ptr, int(block - 1, c_int32_t), n_primitive, &
            n_coefficients, n_states)
        if (found /= int(ATOMGPU_OK, c_int32_t)) then
            n_primitive = 0
            n_coefficients = 0
            n_states = 0
            call reject(.false., position, what // ", the handle has no such block (blocks are numbered " // &
                "from 1 in Fortran, in the order atomgpu_linestrength_add_block made them)", status)
        end if
    end subroutine

    ! Makes a line-strength handle (into `h`, which must not hold one already) from the
    ! vibrational dipole matrix dipole(n_vib, n_vib, 3) [Debye]: dipole(v, v', m) = <v|mu_m|v'>,
    ! lower vibrational index first, m = 1, 2, 3 the molecule-fixed x, y, z. On the CUDA backend
    ! the matrix is kept on the GPU when it fits in max_device_bytes (bytes; 0 or absent: 80% of
    ! the free memory), else streamed from the host in column blocks at every lower batch.
    subroutine atomgpu_linestrength_create(h, dipole, max_device_bytes, stat)
        type(atomgpu_linestrength_t), intent(inout) :: h
        real(c_double), intent(in), contiguous :: dipole(:, :, :)
        integer(c_int64_t), intent(in), optional :: max_device_bytes
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: nv, bytes
        type(c_ptr) :: handle
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        nv = size(dipole, 1, kind=c_int64_t)
        call reject(.not. c_associated(h%ptr), 5, "argument `handle`: already holds a handle " // &
            "(call atomgpu_linestrength_destroy on it first)", status)
        call reject(size(dipole, 2, kind=c_int64_t) == nv, 2, size_message("dipole", &
            size(dipole, 2, kind=c_int64_t), "columns", nv, "size(dipole, 1) = n_vib"), status)
        call reject(size(dipole, 3, kind=c_int64_t) == 3, 2, size_message("dipole", &
            size(dipole, 3, kind=c_int64_t), "components (third extent)", 3_c_int64_t, "x, y, z"), status)
        bytes = 0
        if (present(max_device_bytes)) bytes = max_device_bytes
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            handle = c_null_ptr
            status = c_atomgpu_linestrength_create(nv, dipole, max(nv, 1_c_int64_t), bytes, handle)
            if (status == int(ATOMGPU_OK, c_int32_t)) then
                h%ptr = handle
                h%n_vib = nv
            end if
        end if
        call finish(status, stat, "atomgpu_linestrength_create")
    end subroutine

    ! Releases a handle (one never created, or already destroyed, is fine) and resets it.
    subroutine atomgpu_linestrength_destroy(h)
        type(atomgpu_linestrength_t), intent(inout) :: h
        call enter()
        if (c_associated(h%ptr)) call c_atomgpu_linestrength_destroy(h%ptr)
        h%ptr = c_null_ptr
        h%n_vib = 0
    end subroutine

    ! Adds a (J, Gamma) block and returns its index in `block` (1-based, in the order blocks are
    ! added). j: the block's J; gns: its nuclear-spin weight g_ns (>= 0). Its primitive functions
    ! p = 1..n_primitive: v(p) in 1..n_vib, k(p) in 0..J, tau(p) in {0, 1}, no (v, K, tau) twice.
    ! Without the unfolding arguments the block's vectors are given in this primitive basis.
    ! With them (all four together) they are given in a symmetrised basis of n_sym functions and
    ! T (n_primitive x n_sym) unfolds them, c_primitive = T c, T in compressed sparse rows with
    ! 1-BASED offsets: row p holds the entries e = row_start(p) .. row_start(p + 1) - 1, at columns
    ! col(e) in 1..n_sym with values value(e); size(row_start) = n_primitive + 1,
    ! row_start(1) = 1, size(col) = size(value) = row_start(n_primitive + 1) - 1.
    subroutine atomgpu_linestrength_add_block(h, j, gns, v, k, tau, block, row_start, col, value, n_sym, stat)
        type(atomgpu_linestrength_t), intent(inout) :: h
        integer, intent(in) :: j
        real(c_double), intent(in) :: gns
        integer(c_int64_t), intent(in), contiguous :: v(:)
        integer, intent(in), contiguous :: k(:), tau(:)
        integer, intent(inout) :: block
        integer(c_int64_t), intent(in), contiguous, optional :: row_start(:), col(:)
        real(c_double), intent(in), contiguous, optional :: value(:)
        integer(c_int64_t), intent(in), optional :: n_sym
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status, b
        integer(c_int64_t) :: n, nnz, ns, e
        integer(c_int64_t), allocatable :: v0(:)
        integer(c_int32_t), allocatable :: k32(:), tau32(:)
        integer(c_int64_t), allocatable, target :: rs0(:), col0(:)
        real(c_double), allocatable, target :: val(:)
        type(c_ptr) :: prs, pcol, pval
        logical :: given(4)
        integer :: i
        character(len=*), parameter :: names(4) = ["n_sym    ", "row_start", "col      ", "value    "]
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_linestrength(h, status)
        n = size(v, kind=c_int64_t)
        call reject(size(k, kind=c_int64_t) == n, 6, size_message("k", size(k, kind=c_int64_t), "elements", &
            n, "size(v) = n_primitive"), status)
        call reject(size(tau, kind=c_int64_t) == n, 7, size_message("tau", size(tau, kind=c_int64_t), "elements", &
            n, "size(v) = n_primitive"), status)
        do e = 1, n
            call reject(v(e) >= 1 .and. v(e) <= h%n_vib, 5, "argument `v`: element " // itoa(e) // " is " // &
                itoa(v(e)) // ", vibrational functions are numbered 1.." // itoa(h%n_vib) // &
                " (size(dipole, 1)) in Fortran", status)
        end do
        ! The unfolding: all four arguments or none.
        given = [present(n_sym), present(row_start), present(col), present(value)]
        if (any(given) .and. .not. all(given)) then
            do i = 1, 4
                call reject(given(i), 7 + i, "argument `" // trim(names(i)) // "`: missing; row_start, col, " // &
                    "value and n_sym come together (a symmetrised block) or not at all (primitive vectors)", status)
            end do
        end if
        ns = 0
        nnz = 0
        if (all(given)) then
            ns = n_sym
            call reject(ns >= 1, 8, "argument `n_sym`: must be >= 1, got " // itoa(ns), status)
            call reject(size(row_start, kind=c_int64_t) == n + 1, 9, size_message("row_start", &
                size(row_start, kind=c_int64_t), "elements", n + 1, "n_primitive + 1"), status)
            if (status == int(ATOMGPU_OK, c_int32_t)) then
                call reject(row_start(1) == 1, 9, "argument `row_start`: element 1 is " // itoa(row_start(1)) // &
                    ", must be 1 (offsets are 1-based in Fortran)", status)
                do e = 1, n
                    call reject(row_start(e + 1) >= row_start(e), 9, "argument `row_start`: element " // &
                        itoa(e + 1) // " is " // itoa(row_start(e + 1)) // ", below element " // itoa(e) // &
                        " (must not decrease)", status)
                end do
            end if
            if (status == int(ATOMGPU_OK, c_int32_t)) then
                nnz = row_start(n + 1) - 1
                call reject(size(col, kind=c_int64_t) == nnz, 10, size_message("col", size(col, kind=c_int64_t), &
                    "elements", nnz, "row_start(n_primitive + 1) - 1"), status)
                call reject(size(value, kind=c_int64_t) == nnz, 11, size_message("value", &
                    size(value, kind=c_int64_t), "elements", nnz, "row_start(n_primitive + 1) - 1"), status)
            end if
            if (status == int(ATOMGPU_OK, c_int32_t)) then
                do e = 1, nnz
                    call reject(col(e) >= 1 .and. col(e) <= ns, 10, "argument `col`: element " // itoa(e) // &
                        " is " // itoa(col(e)) // ", columns are numbered 1.." // itoa(ns) // " (n_sym) in Fortran", &
                        status)
                end do
            end if
        end if
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            ! 0-based copies for C (at least one element, so that no zero-size array is passed).
            allocate (v0(max(n, 1_c_int64_t)), k32(max(n, 1_c_int64_t)), tau32(max(n, 1_c_int64_t)))
            v0 = 0
            k32 = 0
            tau32 = 0
            v0(1:n) = v - 1
            k32(1:n) = int(k, c_int32_t)
            tau32(1:n) = int(tau, c_int32_t)
            prs = c_null_ptr
            pcol = c_null_ptr
            pval = c_null_ptr
            if (ns > 0) then
                allocate (rs0(n + 1), col0(max(nnz, 1_c_int64_t)), val(max(nnz, 1_c_int64_t)))
                col0 = 0
                val = 0
                rs0 = row_start - 1
                col0(1:nnz) = col - 1
                val(1:nnz) = value
                prs = c_loc(rs0)
                pcol = c_loc(col0)
                pval = c_loc(val)
            end if
            b = -1
            status = c_atomgpu_linestrength_add_block(h%ptr, int(j, c_int32_t), gns, n, v0, k32, tau32, ns, &
                prs, pcol, pval, b)
            if (status == int(ATOMGPU_OK, c_int32_t)) block = int(b) + 1
        end if
        call finish(status, stat, "atomgpu_linestrength_add_block")
    end subroutine

    ! Stores the eigenstates of block `block` (replacing earlier ones): energies(n_states)
    ! [cm^-1, absolute] and the eigenvectors as the columns of vectors(n_coefficients, n_states)
    ! (n_coefficients: n_sym for a symmetrised block, n_primitive otherwise). Stored states get
    ! the ExoMol IDs of atomgpu_linestrength_state_id.
    subroutine atomgpu_linestrength_set_states(h, block, energies, vectors, stat)
        type(atomgpu_linestrength_t), intent(inout) :: h
        integer, intent(in) :: block
        real(c_double), intent(in), contiguous :: energies(:), vectors(:, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: np, nc, ns
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_linestrength(h, status)
        call check_block(h, "block", block, 2, status, np, nc, ns)
        call reject(size(vectors, 1, kind=c_int64_t) == nc, 5, size_message("vectors", &
            size(vectors, 1, kind=c_int64_t), "rows", nc, "n_coefficients of block " // &
            itoa(int(block, c_int64_t))), status)
        call reject(size(vectors, 2, kind=c_int64_t) == size(energies, kind=c_int64_t), 5, size_message("vectors", &
            size(vectors, 2, kind=c_int64_t), "columns", size(energies, kind=c_int64_t), "size(energies) = n_states"), &
            status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_linestrength_set_states(h%ptr, int(block - 1, c_int32_t), &
                size(energies, kind=c_int64_t), energies, vectors, max(nc, 1_c_int64_t))
        end if
        call finish(status, stat, "atomgpu_linestrength_set_states")
    end subroutine

    ! Loads a batch of lower states of block `block`, the columns of vectors(n_coefficients,
    ! n_lower), and computes their dipole products (the first step of eq. 14); primitive
    ! coefficients with |c| <= thresh_coeff are skipped. atomgpu_linestrength_half and
    ! atomgpu_linestrength_amplitudes then work on this batch (line_list and count_lines replace it).
    ! A call rejected for bad input leaves the batch loaded before it in place.
    subroutine atomgpu_linestrength_load_lower(h, block, vectors, thresh_coeff, stat)
        type(atomgpu_linestrength_t), intent(inout) :: h
        integer, intent(in) :: block
        real(c_double), intent(in), contiguous :: vectors(:, :)
        real(c_double), intent(in) :: thresh_coeff
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: np, nc, ns, n
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_linestrength(h, status)
        call check_block(h, "block", block, 2, status, np, nc, ns)
        call reject(size(vectors, 1, kind=c_int64_t) == nc, 4, size_message("vectors", &
            size(vectors, 1, kind=c_int64_t), "rows", nc, "n_coefficients of block " // &
            itoa(int(block, c_int64_t))), status)
        n = size(vectors, 2, kind=c_int64_t)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_linestrength_load_lower(h%ptr, int(block - 1, c_int32_t), n, vectors, &
                max(nc, 1_c_int64_t), thresh_coeff)
        end if
        call finish(status, stat, "atomgpu_linestrength_load_lower")
    end subroutine

    ! Half-linestrengths (eq. 14, Debye) of the loaded lower batch into block upper_block:
    ! half(n_primitive of upper_block, n_lower), on the upper block's primitive functions. 3j
    ! symbols below thresh_coeff are skipped. |J' - J''| <= 1 and J' + J'' >= 1.
    subroutine atomgpu_linestrength_half(h, upper_block, thresh_coeff, half, stat)
        type(atomgpu_linestrength_t), intent(in) :: h
        integer, intent(in) :: upper_block
        real(c_double), intent(in) :: thresh_coeff
        real(c_double), intent(inout), contiguous :: half(:, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: np, nc, ns, n_lower
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_linestrength(h, status)
        call check_lower_loaded(h, status, n_lower)
        call check_block(h, "upper_block", upper_block, 2, status, np, nc, ns)
        call reject(size(half, 1, kind=c_int64_t) == np, 4, size_message("half", size(half, 1, kind=c_int64_t), &
            "rows", np, "n_primitive of upper_block"), status)
        call reject(size(half, 2, kind=c_int64_t) == n_lower, 4, size_message("half", &
            size(half, 2, kind=c_int64_t), "columns", n_lower, "the n_lower states of the loaded batch"), status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_linestrength_half(h%ptr, int(upper_block - 1, c_int32_t), thresh_coeff, half, &
                max(np, 1_c_int64_t))
        end if
        call finish(status, stat, "atomgpu_linestrength_half")
    end subroutine

    ! Transition amplitudes a(f, i) = sum_p c^f_p h_p(i) (eq. 15 before squaring, Debye) of the
    ! stored states f of block upper_block with the states i of the loaded lower batch:
    ! amplitudes(n_states of upper_block, n_lower); L = a^2.
    subroutine atomgpu_linestrength_amplitudes(h, upper_block, thresh_coeff, amplitudes, stat)
        type(atomgpu_linestrength_t), intent(in) :: h
        integer, intent(in) :: upper_block
        real(c_double), intent(in) :: thresh_coeff
        real(c_double), intent(inout), contiguous :: amplitudes(:, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: np, nc, ns, n_lower
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_linestrength(h, status)
        call check_lower_loaded(h, status, n_lower)
        call check_block(h, "upper_block", upper_block, 2, status, np, nc, ns)
        call reject(size(amplitudes, 1, kind=c_int64_t) == ns, 4, size_message("amplitudes", &
            size(amplitudes, 1, kind=c_int64_t), "rows", ns, "n_states of upper_block"), status)
        call reject(size(amplitudes, 2, kind=c_int64_t) == n_lower, 4, size_message("amplitudes", &
            size(amplitudes, 2, kind=c_int64_t), "columns", n_lower, "the n_lower states of the loaded batch"), &
            status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_linestrength_amplitudes(h%ptr, int(upper_block - 1, c_int32_t), thresh_coeff, &
                amplitudes, max(ns, 1_c_int64_t))
        end if
        call finish(status, stat, "atomgpu_linestrength_amplitudes")
    end subroutine

    ! Checks shared by line_list and count_lines; gives the 0-based block indices for C.
    subroutine check_line_list(h, lower_block, upper_blocks, status, uppers0)
        type(atomgpu_linestrength_t), intent(in) :: h
        integer, intent(in) :: lower_block
        integer, intent(in) :: upper_blocks(:)
        integer(c_int32_t), intent(inout) :: status
        integer(c_int32_t), allocatable, intent(out) :: uppers0(:)
        integer(c_int64_t) :: np, nc, ns
        integer :: i
        call check_linestrength(h, status)
        call check_block(h, "lower_block", lower_block, 2, status, np, nc, ns)
        do i = 1, size(upper_blocks)
            call check_block(h, "upper_blocks", upper_blocks(i), 4, status, np, nc, ns, element=i)
        end do
        allocate (uppers0(max(size(upper_blocks), 1)))
        uppers0 = 0
        uppers0(1:size(upper_blocks)) = int(upper_blocks - 1, c_int32_t)
    end subroutine

    ! The line list from the stored states of block lower_block into the stored states of the
    ! blocks upper_blocks(:) (the symmetry-allowed partners, J' within 1 of J''), with the filters
    ! and thresholds of `params`. n_lines receives the number of lines and, line by line (ordered
    ! by lower state, then upper block, then upper state): upper_id and lower_id (ExoMol IDs),
    ! einstein_a [s^-1], wavenumber [cm^-1], linestrength S [Debye^2] and intensity
    ! [cm/molecule], in elements 1..n_lines of the six arrays, all of one size, the capacity.
    ! More lines than the capacity: ATOMGPU_ERR_INVALID_ARGUMENT and nothing written (size the
    ! arrays with atomgpu_linestrength_count_lines). Replaces the loaded lower batch (after a
    ! call that reached the library, successful or not, load_lower again before half/amplitudes).
    subroutine atomgpu_linestrength_line_list(h, lower_block, upper_blocks, params, n_lines, upper_id, lower_id, &
            einstein_a, wavenumber, linestrength, intensity, stat)
        type(atomgpu_linestrength_t), intent(inout) :: h
        integer, intent(in) :: lower_block
        integer, intent(in), contiguous :: upper_blocks(:)
        type(atomgpu_intensity_params_t), intent(in) :: params
        integer(c_int64_t), intent(inout) :: n_lines
        integer(c_int64_t), intent(inout), contiguous, target :: upper_id(:), lower_id(:)
        real(c_double), intent(inout), contiguous, target :: einstein_a(:), wavenumber(:), linestrength(:), &
            intensity(:)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int32_t), allocatable :: uppers0(:)
        integer(c_int64_t) :: capacity
        ! Stand-ins for zero-size output arrays (a NULL upper_id would ask for the count only).
        integer(c_int64_t), target :: no_id(1, 2)
        real(c_double), target :: no_value(1, 4)
        type(c_ptr) :: p(6)
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_line_list(h, lower_block, upper_blocks, status, uppers0)
        capacity = size(upper_id, kind=c_int64_t)
        call reject(size(lower_id, kind=c_int64_t) == capacity, 9, size_message("lower_id", &
            size(lower_id, kind=c_int64_t), "elements", capacity, "size(upper_id) = capacity"), status)
        call reject(size(einstein_a, kind=c_int64_t) == capacity, 10, size_message("einstein_a", &
            size(einstein_a, kind=c_int64_t), "elements", capacity, "size(upper_id) = capacity"), status)
        call reject(size(wavenumber, kind=c_int64_t) == capacity, 11, size_message("wavenumber", &
            size(wavenumber, kind=c_int64_t), "elements", capacity, "size(upper_id) = capacity"), status)
        call reject(size(linestrength, kind=c_int64_t) == capacity, 12, size_message("linestrength", &
            size(linestrength, kind=c_int64_t), "elements", capacity, "size(upper_id) = capacity"), status)
        call reject(size(intensity, kind=c_int64_t) == capacity, 13, size_message("intensity", &
            size(intensity, kind=c_int64_t), "elements", capacity, "size(upper_id) = capacity"), status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            if (capacity > 0) then
                p = [c_loc(upper_id), c_loc(lower_id), c_loc(einstein_a), c_loc(wavenumber), c_loc(linestrength), &
                    c_loc(intensity)]
            else
                p = [c_loc(no_id(1, 1)), c_loc(no_id(1, 2)), c_loc(no_value(1, 1)), c_loc(no_value(1, 2)), &
                    c_loc(no_value(1, 3)), c_loc(no_value(1, 4))]
            end if
            status = c_atomgpu_linestrength_line_list(h%ptr, int(lower_block - 1, c_int32_t), &
                int(size(upper_blocks), c_int32_t), uppers0, params, capacity, n_lines, p(1), p(2), p(3), p(4), &
                p(5), p(6))
        end if
        call finish(status, stat, "atomgpu_linestrength_line_list")
    end subroutine

    ! The number of lines atomgpu_linestrength_line_list would give (same arguments), into
    ! n_lines (the whole list is computed to count it). Replaces the loaded lower batch, as
    ! atomgpu_linestrength_line_list does.
    subroutine atomgpu_linestrength_count_lines(h, lower_block, upper_blocks, params, n_lines, stat)
        type(atomgpu_linestrength_t), intent(inout) :: h
        integer, intent(in) :: lower_block
        integer, intent(in), contiguous :: upper_blocks(:)
        type(atomgpu_intensity_params_t), intent(in) :: params
        integer(c_int64_t), intent(inout) :: n_lines
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int32_t), allocatable :: uppers0(:)
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_line_list(h, lower_block, upper_blocks, status, uppers0)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_linestrength_line_list(h%ptr, int(lower_block - 1, c_int32_t), &
                int(size(upper_blocks), c_int32_t), uppers0, params, 0_c_int64_t, n_lines, c_null_ptr, c_null_ptr, &
                c_null_ptr, c_null_ptr, c_null_ptr, c_null_ptr)
        end if
        call finish(status, stat, "atomgpu_linestrength_count_lines")
    end subroutine

    ! The ExoMol ID (the 1-based running number over the stored states of all blocks, in the
    ! order the blocks were added) of state `state` (1-based) of block `block`, into `id`. IDs
    ! depend on the states stored in earlier blocks: take them once every block has its states.
    subroutine atomgpu_linestrength_state_id(h, block, state, id, stat)
        type(atomgpu_linestrength_t), intent(in) :: h
        integer, intent(in) :: block
        integer(c_int64_t), intent(in) :: state
        integer(c_int64_t), intent(inout) :: id
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: np, nc, ns
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_linestrength(h, status)
        call check_block(h, "block", block, 2, status, np, nc, ns)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            call reject(state >= 1 .and. state <= ns, 3, "argument `state`: is " // itoa(state) // ", block " // &
                itoa(int(block, c_int64_t)) // " has " // itoa(ns) // " stored states (numbered from 1 in Fortran)", &
                status)
        end if
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_linestrength_state_id(h%ptr, int(block - 1, c_int32_t), state - 1, id)
        end if
        call finish(status, stat, "atomgpu_linestrength_state_id")
    end subroutine

    ! Sizes of block `block`: its primitive functions, the length of its eigenvectors (n_sym for
    ! a symmetrised block, else n_primitive) and its stored states (0 before set_states).
    subroutine atomgpu_linestrength_block_size(h, block, n_primitive, n_coefficients, n_states, stat)
        type(atomgpu_linestrength_t), intent(in) :: h
        integer, intent(in) :: block
        integer(c_int64_t), intent(inout) :: n_primitive, n_coefficients, n_states
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: np, nc, ns
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_linestrength(h, status)
        call check_block(h, "block", block, 2, status, np, nc, ns)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            n_primitive = np
            n_coefficients = nc
            n_states = ns
        end if
        call finish(status, stat, "atomgpu_linestrength_block_size")
    end subroutine

end module atomgpu
