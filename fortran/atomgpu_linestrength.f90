! atomgpu_linestrength: the Fortran interface of the line-strength family (paper:
! gain-half-linestrength-gpu, Al-Refaie, Yurchenko & Tennyson, CPC 2017): half-linestrengths,
! line strengths, Einstein A coefficients, intensities and ExoMol state IDs of TROVE-style line
! lists. Programs `use atomgpu` (fortran/atomgpu.f90, which INCLUDEs this file and re-exports
! everything public here).
!
! The state lives in type(atomgpu_linestrength_t). Vibrational indices v, the unfolding matrix's
! row_start and col, block indices and state indices are NUMBERED FROM 1 here (the wrappers
! convert to the C interface's 0-based numbers, or pass index_base 1 where C takes one). Energies in cm^-1 (|E| <= 1e8), dipoles in
! Debye, line strengths in Debye^2, Einstein A in s^-1, intensities in cm/molecule, temperatures
! in K ([1e-3, 1e6]).
module atomgpu_linestrength
    use, intrinsic :: iso_c_binding, only: c_int32_t, c_int64_t, c_double, c_char, c_null_char, c_ptr, c_null_ptr, &
        c_loc, c_associated
    use atomgpu_core
    implicit none
    private

    public :: atomgpu_handle_devices
    interface atomgpu_handle_devices
        module procedure atomgpu_linestrength_devices
    end interface
    public :: atomgpu_linestrength_create, atomgpu_linestrength_destroy, atomgpu_linestrength_add_block
    public :: atomgpu_linestrength_set_states, atomgpu_linestrength_load_lower, atomgpu_linestrength_half
    public :: atomgpu_linestrength_amplitudes, atomgpu_linestrength_line_list, atomgpu_linestrength_count_lines
    public :: atomgpu_linestrength_state_id, atomgpu_linestrength_block_size
    public :: atomgpu_linestrength_set_group, atomgpu_linestrength_add_block_species, atomgpu_linestrength_block_ndeg
    public :: atomgpu_linestrength_set_states_on_host, atomgpu_linestrength_write_exomol
    public :: atomgpu_linestrength_set_state_labels, atomgpu_linestrength_write_trove
    public :: atomgpu_linestrength_lines_of_lower_batch, atomgpu_linestrength_lines_pending
    public :: atomgpu_linestrength_take_lines

    ! Blocks from 64-bit (integer(c_int64_t)) or default-kind 32-bit (integer(c_int32_t)) index
    ! arrays v, row_start, col (and n_sym): both pass the caller's 1-based arrays to the library as
    ! they are (C atomgpu_linestrength_add_block_species_i64 / _i32 with index_base 1), no copy;
    ! the library checks every value and names it as the caller numbered it.
    interface atomgpu_linestrength_add_block
        module procedure add_block_i64, add_block_i32
    end interface
    interface atomgpu_linestrength_add_block_species
        module procedure add_block_species_i64, add_block_species_i32
    end interface
    public :: atomgpu_linestrength_transition_moments

    ! atomgpu_intensity_params_t%convention: CODATA 2018 and atomgpu's rules, or TROVE's constants
    ! and rules (see the type).
    integer(c_int32_t), parameter, public :: ATOMGPU_CONVENTION_DOCUMENTED = 0, ATOMGPU_CONVENTION_TROVE = 1
    ! atomgpu_intensity_params_t%action: TROVE's ABSORPTION, EMISSION and TM.
    integer(c_int32_t), parameter, public :: ATOMGPU_ACTION_ABSORPTION = 0, ATOMGPU_ACTION_EMISSION = 1, &
        ATOMGPU_ACTION_TM = 2
    public :: atomgpu_linestrength_set_rotational_basis, atomgpu_linestrength_add_block_rotsym

    ! A line-strength engine (paper: gain-half-linestrength-gpu, Al-Refaie, Yurchenko & Tennyson,
    ! CPC 2017) held by the library: the vibrational dipole matrix, the (J, Gamma) blocks with
    ! their eigenstates and the products of the last lower batch. Made by
    ! atomgpu_linestrength_create, released by atomgpu_linestrength_destroy (no finalizer). Not
    ! thread-safe: one handle per thread. Pass the variable itself to procedures, do not copy it
    ! with `=`: besides the C handle it keeps n_vib (size(dipole, 1): the range of the 1-based v
    ! of add_block), which a destroy through another copy would not reset.
    type, public :: atomgpu_linestrength_t
        private
        type(c_ptr) :: ptr = c_null_ptr
        integer(c_int64_t) :: n_vib = 0     ! size of the vibrational basis (size(dipole, 1))
    end type

    ! Conditions and filters of a line list (C struct atomgpu_intensity_params, TROVE's INTENSITY
    ! block). No field but convention and action has a default: set every other one before
    ! atomgpu_linestrength_line_list.
    ! convention = ATOMGPU_CONVENTION_DOCUMENTED (default): CODATA 2018 h, k, c (exact) with
    ! A_coef = 64 pi^4 1e-36/(3h), I_coef = 8 pi^3 1e-36/(3hc) computed from them; nu > 0;
    ! THRESH_LINE compared with S; the J range of `filters` holds both J.
    ! convention = ATOMGPU_CONVENTION_TROVE: TROVE's accuracy.f90 constants as TROVE holds them
    ! (single-precision literals: h = 6.626068758654977e-27, k = 1.3806580130218952e-16,
    ! c = 29979246592), and TROVE's rules: nu >= -small_ (2.220446049250313e-16); THRESH_LINE
    ! compared with the raw sum of squared amplitudes (before / ndeg'' and g_ns (2J'+1)(2J''+1));
    ! lines with A <= small_ dropped; lower g_ns < small_ dropped; TROVE's J rule (J'' >= j_min,
    ! J' in {0} U [max(j_min,1), j_max], not J'' = J' = j_min); the degeneracy filter iff REDUCED.
    ! action = ATOMGPU_ACTION_EMISSION: lower_block holds the emitting states I, the upper blocks
    ! the final states F; nu = E_I - E_F, lower_energy applies to E_I, upper_energy to E_F;
    ! A = A(I -> F) = A_coef (2J_F+1) L nu^3 and `intensity` is the emissivity
    ! A h c nu g_ns (2J_I+1) exp(-c2 (E_I-zpe)/T)/(4 pi Q) [erg s^-1 sr^-1 per molecule] (ExoCross,
    ! Yurchenko et al., A&A 614, A131 (2018)). TROVE itself writes no EMISSION line list.
    ! action = ATOMGPU_ACTION_TM: only for atomgpu_linestrength_transition_moments.
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
        integer(c_int32_t) :: convention = 0   ! ATOMGPU_CONVENTION_DOCUMENTED or _TROVE
        integer(c_int32_t) :: action = 0       ! ATOMGPU_ACTION_ABSORPTION, _EMISSION or _TM
    end type

    ! TROVE's line-list rules beyond the windows and thresholds (C struct atomgpu_line_filters), for
    ! the optional `filters` argument of atomgpu_linestrength_line_list, _count_lines and
    ! _write_exomol. The defaults are no rule. SPECIES ARE NUMBERED FROM 1 here (TROVE's igamma;
    ! the wrappers convert to C's 0-based numbers).
    type, bind(C), public :: atomgpu_line_filters_t
        integer(c_int32_t) :: j_min = 0               ! J range: both J in [j_min, j_max] (documented
                                                      ! convention) or TROVE's J rule (TROVE convention)
        integer(c_int32_t) :: j_max = 32767
        integer(c_int32_t) :: reduced = 0             ! 1: TROVE's REDUCED (only d' = 1 summed, no 1/ndeg'')
        integer(c_int32_t) :: degeneracy_filter = 0   ! 1: TROVE's degeneracy filter (needs set_group)
        integer(c_int32_t) :: n_gamma_pair = 0        ! 0: every species pair; else one entry per species the blocks use
        integer(c_int32_t) :: gamma_pair(16) = 0      ! gamma_pair(g'') = the upper species g' that g'' reaches
                                                      ! (TROVE's isym_pairs), 1-based
    end type

    ! One line of a streamed list (C struct atomgpu_line), as atomgpu_linestrength_take_lines gives
    ! it: BLOCKS, THE UPPER STATE AND THE LOWER LEVEL ARE NUMBERED FROM 1 here.
    type, bind(C), public :: atomgpu_line_t
        integer(c_int64_t) :: upper_id = 0       ! ID of the upper state (caller's label or running ID)
        integer(c_int64_t) :: lower_id = 0       ! the caller's ID of the lower level (its entry of ids)
        integer(c_int32_t) :: upper_block = 0    ! block of the upper state
        integer(c_int32_t) :: lower_block = 0    ! block of the lower level
        integer(c_int64_t) :: upper_state = 0    ! the upper state in its block
        integer(c_int64_t) :: lower_level = 0    ! position of the lower level in its batch
        real(c_double) :: wavenumber = 0         ! nu = E' - E'' [cm^-1]
        real(c_double) :: linestrength = 0       ! S [Debye^2]
        real(c_double) :: einstein_a = 0         ! A [s^-1]
        real(c_double) :: intensity = 0          ! I [cm/molecule]
    end type

    ! C structs atomgpu_line_arrays and atomgpu_moment_arrays, filled by the line-list wrappers
    ! from their output arrays (the capacity and the arrays' addresses).
    type, bind(C) :: line_arrays
        integer(c_int64_t) :: capacity
        type(c_ptr) :: upper_id, lower_id, einstein_a, wavenumber, linestrength, intensity
    end type
    type, bind(C) :: moment_arrays
        integer(c_int64_t) :: capacity
        type(c_ptr) :: upper_id, lower_id, wavenumber, moment, einstein_a, intensity, components
    end type

    interface
        function c_atomgpu_linestrength_create(n_vib, dipole, ld_dipole, max_device_bytes, handle) &
                bind(C, name="atomgpu_linestrength_create") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            integer(c_int64_t), value :: n_vib
            real(c_double), intent(in) :: dipole(*)
            integer(c_int64_t), value :: ld_dipole, max_device_bytes
            type(c_ptr), intent(inout) :: handle
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_create_on_devices(n_vib, dipole, ld_dipole, max_device_bytes, n_devices, &
                handle) bind(C, name="atomgpu_linestrength_create_on_devices") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            integer(c_int64_t), value :: n_vib
            real(c_double), intent(in) :: dipole(*)
            integer(c_int64_t), value :: ld_dipole, max_device_bytes
            integer(c_int32_t), value :: n_devices
            type(c_ptr), intent(inout) :: handle
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_create_on_device_list(n_vib, dipole, ld_dipole, max_device_bytes, n_devices, &
                device_ids, handle) bind(C, name="atomgpu_linestrength_create_on_device_list") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            integer(c_int64_t), value :: n_vib
            real(c_double), intent(in) :: dipole(*)
            integer(c_int64_t), value :: ld_dipole, max_device_bytes
            integer(c_int32_t), value :: n_devices
            integer(c_int32_t), intent(in) :: device_ids(*)
            type(c_ptr), intent(inout) :: handle
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_set_group(handle, group) bind(C, name="atomgpu_linestrength_set_group") &
                result(status)
            import :: c_int32_t, c_char, c_ptr
            type(c_ptr), value :: handle
            character(kind=c_char), intent(in) :: group(*)
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_add_block_rotsym_i64(handle, j, gamma, gns, n_primitive, v, level, deg, &
                ndeg, n_sym, row_start, col, val, index_base, block) &
                bind(C, name="atomgpu_linestrength_add_block_rotsym_i64") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: j, gamma
            real(c_double), value :: gns
            integer(c_int64_t), value :: n_primitive
            integer(c_int64_t), intent(in) :: v(*)
            integer(c_int32_t), intent(in) :: level(*), deg(*)
            integer(c_int32_t), value :: ndeg
            integer(c_int64_t), value :: n_sym
            type(c_ptr), value :: row_start, col, val
            integer(c_int32_t), value :: index_base
            integer(c_int32_t), intent(inout) :: block
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_set_rotational_basis(handle, j, e, level, deg) &
                bind(C, name="atomgpu_linestrength_set_rotational_basis") result(status)
            import :: c_int32_t, c_double, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: j
            real(c_double), intent(in) :: e(*)
            integer(c_int32_t), intent(in) :: level(*), deg(*)
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_add_block_species_i64(handle, j, gamma, gns, n_primitive, v, k, tau, &
                ndeg, n_sym, row_start, col, val, index_base, block) &
                bind(C, name="atomgpu_linestrength_add_block_species_i64") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: j, gamma
            real(c_double), value :: gns
            integer(c_int64_t), value :: n_primitive
            integer(c_int64_t), intent(in) :: v(*)
            integer(c_int32_t), intent(in) :: k(*), tau(*)
            integer(c_int32_t), value :: ndeg
            integer(c_int64_t), value :: n_sym
            type(c_ptr), value :: row_start, col, val
            integer(c_int32_t), value :: index_base
            integer(c_int32_t), intent(inout) :: block
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_set_states_on_host(handle, block, n_states, energies, vectors, ld_vectors) &
                bind(C, name="atomgpu_linestrength_set_states_on_host") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: block
            integer(c_int64_t), value :: n_states
            real(c_double), intent(in) :: energies(*), vectors(*)
            integer(c_int64_t), value :: ld_vectors
            integer(c_int32_t) :: status
        end function

        ! lines: C NULL for a count query, else the address of a line_arrays.
        function c_atomgpu_linestrength_line_list_filtered(handle, lower_block, n_upper_blocks, upper_blocks, &
                params, filters, lines, n_lines, counts) bind(C, name="atomgpu_linestrength_line_list_filtered") &
                result(status)
            import :: c_int32_t, c_int64_t, c_ptr, atomgpu_intensity_params_t, atomgpu_line_filters_t
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: lower_block, n_upper_blocks
            integer(c_int32_t), intent(in) :: upper_blocks(*)
            type(atomgpu_intensity_params_t), intent(in) :: params
            type(atomgpu_line_filters_t), intent(in) :: filters
            type(c_ptr), value :: lines
            integer(c_int64_t), intent(inout) :: n_lines
            integer(c_int64_t), intent(inout) :: counts(5)
            integer(c_int32_t) :: status
        end function

        ! moments: C NULL for a count query, else the address of a moment_arrays.
        function c_atomgpu_linestrength_transition_moments(handle, lower_block, n_upper_blocks, upper_blocks, &
                params, moments, n_moments, counts) bind(C, name="atomgpu_linestrength_transition_moments") &
                result(status)
            import :: c_int32_t, c_int64_t, c_ptr, atomgpu_intensity_params_t
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: lower_block, n_upper_blocks
            integer(c_int32_t), intent(in) :: upper_blocks(*)
            type(atomgpu_intensity_params_t), intent(in) :: params
            type(c_ptr), value :: moments
            integer(c_int64_t), intent(inout) :: n_moments
            integer(c_int64_t), intent(inout) :: counts(5)
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_write_exomol(handle, stem, params, filters, counts) &
                bind(C, name="atomgpu_linestrength_write_exomol") result(status)
            import :: c_int32_t, c_int64_t, c_char, c_ptr, atomgpu_intensity_params_t, atomgpu_line_filters_t
            type(c_ptr), value :: handle
            character(kind=c_char), intent(in) :: stem(*)
            type(atomgpu_intensity_params_t), intent(in) :: params
            type(atomgpu_line_filters_t), intent(in) :: filters
            integer(c_int64_t), intent(inout) :: counts(5)
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_set_state_labels(handle, block, n_states, ids, order) &
                bind(C, name="atomgpu_linestrength_set_state_labels") result(status)
            import :: c_int32_t, c_int64_t, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: block
            integer(c_int64_t), value :: n_states
            integer(c_int64_t), intent(in) :: ids(*), order(*)
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_write_trove(handle, stem, n_states, ids, energies, g_total, j, columns, &
                column_width, params, filters, counts) bind(C, name="atomgpu_linestrength_write_trove") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_char, c_ptr, atomgpu_intensity_params_t, atomgpu_line_filters_t
            type(c_ptr), value :: handle
            character(kind=c_char), intent(in) :: stem(*)
            integer(c_int64_t), value :: n_states
            integer(c_int64_t), intent(in) :: ids(*), g_total(*)
            real(c_double), intent(in) :: energies(*)
            integer(c_int32_t), intent(in) :: j(*)
            character(kind=c_char), intent(in) :: columns(*)
            integer(c_int64_t), value :: column_width
            type(atomgpu_intensity_params_t), intent(in) :: params
            type(atomgpu_line_filters_t), intent(in) :: filters
            integer(c_int64_t), intent(inout) :: counts(5)
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_block_ndeg(handle, block, ndeg) &
                bind(C, name="atomgpu_linestrength_block_ndeg") result(status)
            import :: c_int32_t, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: block
            integer(c_int32_t), intent(inout) :: ndeg
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_destroy(handle) bind(C, name="atomgpu_linestrength_destroy") result(status)
            import :: c_ptr, c_int32_t
            type(c_ptr), value :: handle
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_set_states(handle, block, n_states, energies, vectors, ld_vectors) &
                bind(C, name="atomgpu_linestrength_set_states") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: block
            integer(c_int64_t), value :: n_states
            real(c_double), intent(in) :: energies(*), vectors(*)
            integer(c_int64_t), value :: ld_vectors
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_load_lower(handle, block, n_lower, vectors, ld_vectors, thresh_coeff) &
                bind(C, name="atomgpu_linestrength_load_lower") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: block
            integer(c_int64_t), value :: n_lower
            real(c_double), intent(in) :: vectors(*)
            integer(c_int64_t), value :: ld_vectors
            real(c_double), value :: thresh_coeff
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_half(handle, upper_block, thresh_coeff, half, ld_half, cols_half) &
                bind(C, name="atomgpu_linestrength_half") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: upper_block
            real(c_double), value :: thresh_coeff
            real(c_double), intent(inout) :: half(*)
            integer(c_int64_t), value :: ld_half, cols_half
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_amplitudes(handle, upper_block, thresh_coeff, amplitudes, ld_amplitudes, &
                cols_amplitudes) bind(C, name="atomgpu_linestrength_amplitudes") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: upper_block
            real(c_double), value :: thresh_coeff
            real(c_double), intent(inout) :: amplitudes(*)
            integer(c_int64_t), value :: ld_amplitudes, cols_amplitudes
            integer(c_int32_t) :: status
        end function

        ! lines: C NULL for a count query (only n_lines written), else the address of a line_arrays.
        function c_atomgpu_linestrength_line_list(handle, lower_block, n_upper_blocks, upper_blocks, params, &
                lines, n_lines) bind(C, name="atomgpu_linestrength_line_list") result(status)
            import :: c_int32_t, c_int64_t, c_ptr, atomgpu_intensity_params_t
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: lower_block, n_upper_blocks
            integer(c_int32_t), intent(in) :: upper_blocks(*)
            type(atomgpu_intensity_params_t), intent(in) :: params
            type(c_ptr), value :: lines
            integer(c_int64_t), intent(inout) :: n_lines
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

        function c_atomgpu_linestrength_block_size(handle, block, n_primitive, n_coefficients, n_states) &
                bind(C, name="atomgpu_linestrength_block_size") result(status)
            import :: c_int32_t, c_int64_t, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: block
            integer(c_int64_t), intent(inout) :: n_primitive, n_coefficients, n_states
            integer(c_int32_t) :: status
        end function
        function c_atomgpu_linestrength_add_block_species_i32(handle, j, gamma, gns, n_primitive, v, k, tau, ndeg, &
                n_sym, row_start, col, value, index_base, block) &
                bind(C, name="atomgpu_linestrength_add_block_species_i32") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: j, gamma
            real(c_double), value :: gns
            integer(c_int64_t), value :: n_primitive
            integer(c_int32_t), intent(in) :: v(*), k(*), tau(*)
            integer(c_int32_t), value :: ndeg
            integer(c_int64_t), value :: n_sym
            type(c_ptr), value :: row_start, col, value
            integer(c_int32_t), value :: index_base
            integer(c_int32_t), intent(inout) :: block
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_lines_of_lower_batch_buffered(handle, n, block, vectors, ld_vectors, energies, &
                ids, order, params, filters, counts) &
                bind(C, name="atomgpu_linestrength_lines_of_lower_batch_buffered") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr, atomgpu_intensity_params_t, atomgpu_line_filters_t
            type(c_ptr), value :: handle
            integer(c_int64_t), value :: n
            integer(c_int32_t), intent(in) :: block(*)
            real(c_double), intent(in) :: vectors(*)
            integer(c_int64_t), value :: ld_vectors
            real(c_double), intent(in) :: energies(*)
            integer(c_int64_t), intent(in) :: ids(*), order(*)
            type(atomgpu_intensity_params_t), intent(in) :: params
            type(atomgpu_line_filters_t), intent(in) :: filters
            integer(c_int64_t), intent(inout) :: counts(5)
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_lines_pending(handle, n_lines) &
                bind(C, name="atomgpu_linestrength_lines_pending") result(status)
            import :: c_int32_t, c_int64_t, c_ptr
            type(c_ptr), value :: handle
            integer(c_int64_t), intent(inout) :: n_lines
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_linestrength_take_lines(handle, lines, capacity, taken) &
                bind(C, name="atomgpu_linestrength_take_lines") result(status)
            import :: c_int32_t, c_int64_t, c_ptr, atomgpu_line_t
            type(c_ptr), value :: handle
            type(atomgpu_line_t), intent(inout) :: lines(*)
            integer(c_int64_t), value :: capacity
            integer(c_int64_t), intent(inout) :: taken
            integer(c_int32_t) :: status
        end function
    end interface

contains

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
    !   A = A_coef (2J''+1) L nu^3                                         [s^-1]
    !   I = I_coef S nu exp(-c2 (E''-zpe)/T) (1 - exp(-c2 nu/T))/Q        [cm/molecule]
    ! A_coef = 64 pi^4 1e-36/(3h), I_coef = 8 pi^3 1e-36/(3hc), c2 = hc/k from CODATA 2018 (or
    ! TROVE's constants with convention = ATOMGPU_CONVENTION_TROVE; see atomgpu_intensity_params_t).
    ! with nu = E' - E'' [cm^-1] and g_ns the lower block's nuclear-spin weight.
    ! IN FORTRAN v, row_start, col, block indices and state indices are numbered from 1 (the
    ! wrappers convert to the C interface's 0-based numbers); ExoMol state IDs (line lists,
    ! atomgpu_linestrength_state_id) are the 1-based running numbers of the stored states, blocks
    ! in the order they were added. Indices are integer(c_int64_t) except block indices and the
    ! rotational labels j, k, tau (default integer).
    ! Matrices go to the library as the arrays are: size(a, 1) is the leading dimension, size(a, 2)
    ! the columns (C's ld_<a> and cols_<a>); the library checks them (size(a, 1) >= the rows
    ! needed, size(a, 2) >= the columns needed; the rows and columns beyond are neither read nor
    ! written) and its message, naming ld_<a> or cols_<a>, is the one stat and error stop give.

    ! Checks that a line-strength handle was made (C argument position 1 of every function).
    subroutine check_linestrength(h, status)
        type(atomgpu_linestrength_t), intent(in) :: h
        integer(c_int32_t), intent(inout) :: status
        call reject(c_associated(h%ptr), 1, "argument `handle`: was not created by " // &
            "atomgpu_linestrength_create (or was destroyed)", status)
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
            if (atomgpu_last_error_arg() == 1) then
                status = found   ! the library refused the handle itself (destroyed through a copy)
            else
                call reject(.false., position, what // ", the handle has no such block (blocks are numbered " // &
                    "from 1 in Fortran, in the order atomgpu_linestrength_add_block made them)", status)
            end if
        end if
    end subroutine

    ! Makes a line-strength handle (into `h`, which must not hold one already) from the
    ! vibrational dipole matrix dipole(n_vib, n_vib, 3) [Debye]: dipole(v, v', m) = <v|mu_m|v'>,
    ! lower vibrational index first, m = 1, 2, 3 the molecule-fixed x, y, z. On the CUDA backend
    ! the matrix is kept on the GPU when it fits in max_device_bytes (bytes; 0 or absent: 80% of
    ! the free memory), else streamed from the host in column blocks at every lower batch.
    ! n_devices (1 when absent; pass it by keyword): GPUs the line lists spread their batches over
    ! (by the one rule of README "Several GPUs": from ATOMGPU_DEVICE, else from GPU node-local rank
    ! x n_devices, so the ranks of a node get disjoint sets; each GPU with its own copy of the
    ! data; the batches are cut evenly over them, the lines come back in the order one GPU gives,
    ! equal to its values but for the last bits); on the CPU backend, engines on as many threads.
    ! device_ids (by keyword, instead of n_devices): the GPUs by ordinal (0-based, as CUDA numbers
    ! them, distinct; the first is the handle's own), as atomgpu_linestrength_create_on_device_list.
    subroutine atomgpu_linestrength_create(h, dipole, max_device_bytes, stat, n_devices, device_ids)
        type(atomgpu_linestrength_t), intent(inout) :: h
        real(c_double), intent(in), contiguous :: dipole(:, :, :)
        integer(c_int64_t), intent(in), optional :: max_device_bytes
        integer, intent(out), optional :: stat
        integer, intent(in), optional :: n_devices
        integer, intent(in), optional :: device_ids(:)
        integer(c_int32_t) :: status
        integer(c_int64_t) :: nv, bytes
        type(c_ptr) :: handle
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        nv = size(dipole, 1, kind=c_int64_t)
        call reject(.not. (present(n_devices) .and. present(device_ids)), 5, "argument `n_devices`: give " // &
            "n_devices or device_ids, not both", status)
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
            if (present(device_ids)) then
                status = c_atomgpu_linestrength_create_on_device_list(nv, dipole, max(nv, 1_c_int64_t), bytes, &
                    int(size(device_ids), c_int32_t), int(device_ids, c_int32_t), handle)
            else if (present(n_devices)) then
                status = c_atomgpu_linestrength_create_on_devices(nv, dipole, max(nv, 1_c_int64_t), bytes, &
                    int(n_devices, c_int32_t), handle)
            else
                status = c_atomgpu_linestrength_create(nv, dipole, max(nv, 1_c_int64_t), bytes, handle)
            end if
            if (status == int(ATOMGPU_OK, c_int32_t)) then
                h%ptr = handle
                h%n_vib = nv
            end if
        end if
        call finish(status, stat, "atomgpu_linestrength_create")
    end subroutine

    ! Releases a handle and resets the variable (one never created is fine). A handle already
    ! released through another copy of the variable is ATOMGPU_ERR_INVALID_ARGUMENT (nothing is
    ! released twice).
    subroutine atomgpu_linestrength_destroy(h, stat)
        type(atomgpu_linestrength_t), intent(inout) :: h
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        if (c_associated(h%ptr)) status = c_atomgpu_linestrength_destroy(h%ptr)
        h%ptr = c_null_ptr
        h%n_vib = 0
        call finish(status, stat, "atomgpu_linestrength_destroy")
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
    subroutine add_block_i64(h, j, gns, v, k, tau, block, row_start, col, value, n_sym, stat)
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
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call add_block_of(h, j, 0, 1, gns, v, k, tau, block, status, .false., row_start, col, value, n_sym)
        call finish(status, stat, "atomgpu_linestrength_add_block")
    end subroutine

    ! Adds a (J, Gamma) block of symmetry species `gamma` (1-based in the order of the handle's
    ! group, TROVE's igamma: C3v(M) A1, A2, E; Td(M) A1, A2, E, F1, F2; ...; set the group first
    ! with atomgpu_linestrength_set_group) with ndeg components (1, 2 for E, 3 for F: the
    ! species' degeneracy), as atomgpu_linestrength_add_block does, with the unfolding of every
    ! component stacked (TROVE's repres(:, ideg, :)): rows (d - 1) n_primitive + p, d = 1..ndeg, of
    ! the CSR matrix are component d of primitive function p, so size(row_start) =
    ! ndeg n_primitive + 1 (1-based offsets, columns 1..n_sym). A degenerate block needs them.
    subroutine add_block_species_i64(h, j, gamma, gns, v, k, tau, ndeg, block, row_start, col, &
            value, n_sym, stat)
        type(atomgpu_linestrength_t), intent(inout) :: h
        integer, intent(in) :: j, gamma, ndeg
        real(c_double), intent(in) :: gns
        integer(c_int64_t), intent(in), contiguous :: v(:)
        integer, intent(in), contiguous :: k(:), tau(:)
        integer, intent(inout) :: block
        integer(c_int64_t), intent(in), contiguous, optional :: row_start(:), col(:)
        real(c_double), intent(in), contiguous, optional :: value(:)
        integer(c_int64_t), intent(in), optional :: n_sym
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call reject(gamma >= 1, 3, "argument `gamma`: is " // itoa(int(gamma, c_int64_t)) // &
            ", species are numbered from 1 in Fortran (TROVE's igamma)", status)
        call add_block_of(h, j, gamma - 1, ndeg, gns, v, k, tau, block, status, .false., row_start, col, value, n_sym)
        call finish(status, stat, "atomgpu_linestrength_add_block_species")
    end subroutine

    ! Sets the symmetrised rotational basis of J = j for TROVE's proper-rotational-symmetry route
    ! (job%rotsym_do, the route TROVE needs for Td(M) spectra), as TROVE's
    ! MLrotsymmetry_generate(j, verbose, count_index, eigenvects, Ncount, Ntotal) returns it:
    ! e = eigenvects (2J+1 x 2J+1, real, orthogonal to 1e-10; rows the Wang functions in TROVE's
    ! order K = 0 (tau = mod(J, 2)), then K = 1 tau = 0, K = 1 tau = 1, K = 2 tau = 0, ...), and
    ! column c is component deg(c) of rotational level level(c), both numbered from 1: for every
    ! level icount and component ideg (1..sym%degen of the level's species),
    ! level(count_index(icount, ideg)) = icount and deg(count_index(icount, ideg)) = ideg.
    ! Set it for every J before adding that J's blocks with atomgpu_linestrength_add_block_rotsym.
    ! The route's factors are W_m = [E_J^T M_m E_J'](count_index, count_index') (TROVE's
    ! wigner%rot, 3j symbols cut at small_ = 2.2e-16) and h(v', level', deg') = sum over lower
    ! functions with |c| > THRESH_COEFF of c sum_m W_m dipole_me(v, v', m) (Debye).
    subroutine atomgpu_linestrength_set_rotational_basis(h, j, e, level, deg, stat)
        type(atomgpu_linestrength_t), intent(inout) :: h
        integer, intent(in) :: j
        real(c_double), intent(in), contiguous :: e(:, :)
        integer, intent(in), contiguous :: level(:), deg(:)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: n, c
        integer(c_int32_t), allocatable :: level0(:), deg0(:)
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_linestrength(h, status)
        call reject(j >= 0 .and. j <= 32767, 2, "argument `j`: is " // itoa(int(j, c_int64_t)) // &
            ", must be in [0, 32767]", status)
        n = 2 * int(max(j, 0), c_int64_t) + 1
        call reject(size(e, 1, kind=c_int64_t) == n, 3, size_message("e", size(e, 1, kind=c_int64_t), "rows", n, &
            "2J+1"), status)
        call reject(size(e, 2, kind=c_int64_t) == n, 3, size_message("e", size(e, 2, kind=c_int64_t), "columns", n, &
            "2J+1"), status)
        call reject(size(level, kind=c_int64_t) == n, 4, size_message("level", size(level, kind=c_int64_t), &
            "elements", n, "2J+1"), status)
        call reject(size(deg, kind=c_int64_t) == n, 5, size_message("deg", size(deg, kind=c_int64_t), &
            "elements", n, "2J+1"), status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            do c = 1, n
                call reject(level(c) >= 1, 4, "argument `level`: element " // itoa(c) // " is " // &
                    itoa(int(level(c), c_int64_t)) // ", levels are numbered from 1 in Fortran", status)
                call reject(deg(c) >= 1, 5, "argument `deg`: element " // itoa(c) // " is " // &
                    itoa(int(deg(c), c_int64_t)) // ", components are numbered from 1 in Fortran", status)
            end do
        end if
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            allocate (level0(n), deg0(n))
            level0 = int(level - 1, c_int32_t)
            deg0 = int(deg - 1, c_int32_t)
            status = c_atomgpu_linestrength_set_rotational_basis(h%ptr, int(j, c_int32_t), e, level0, deg0)
        end if
        call finish(status, stat, "atomgpu_linestrength_set_rotational_basis")
    end subroutine

    ! Adds a (J, Gamma) block of TROVE's rotsym route, as atomgpu_linestrength_add_block_species
    ! does, with the labels of J's rotational basis (atomgpu_linestrength_set_rotational_basis
    ! first) in place of (K, tau): level(p) = bset_contr(jind)%ktau(p) and deg(p) =
    ! bset_contr(jind)%k(p) under rotsym_do (TROVE's irlevel, irdeg, numbered from 1), no
    ! (v, level, deg) twice. A handle's blocks are all of this route or all Wang blocks.
    subroutine atomgpu_linestrength_add_block_rotsym(h, j, gamma, gns, v, level, deg, ndeg, block, row_start, col, &
            value, n_sym, stat)
        type(atomgpu_linestrength_t), intent(inout) :: h
        integer, intent(in) :: j, gamma, ndeg
        real(c_double), intent(in) :: gns
        integer(c_int64_t), intent(in), contiguous :: v(:)
        integer, intent(in), contiguous :: level(:), deg(:)
        integer, intent(inout) :: block
        integer(c_int64_t), intent(in), contiguous, optional :: row_start(:), col(:)
        real(c_double), intent(in), contiguous, optional :: value(:)
        integer(c_int64_t), intent(in), optional :: n_sym
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call reject(gamma >= 1, 3, "argument `gamma`: is " // itoa(int(gamma, c_int64_t)) // &
            ", species are numbered from 1 in Fortran (TROVE's igamma)", status)
        call add_block_of(h, j, gamma - 1, ndeg, gns, v, level, deg, block, status, .true., row_start, col, value, &
            n_sym)
        call finish(status, stat, "atomgpu_linestrength_add_block_rotsym")
    end subroutine

    ! The size checks and the C call of add_block (gamma0 = 0, ndeg = 1) and add_block_species
    ! (C atomgpu_linestrength_add_block_species_i64 with index_base 1) or, with rotsym .true.,
    ! add_block_rotsym (k, tau are then the 1-based level and deg; C
    ! atomgpu_linestrength_add_block_rotsym_i64): error positions are those of the C forms, which
    ! check every value and name it as the caller numbered it; gamma0 is 0-based.
    subroutine add_block_of(h, j, gamma0, ndeg, gns, v, k, tau, block, status, rotsym, row_start, col, value, n_sym)
        type(atomgpu_linestrength_t), intent(inout) :: h
        integer, intent(in) :: j, gamma0, ndeg
        real(c_double), intent(in) :: gns
        integer(c_int64_t), intent(in), contiguous :: v(:)
        integer, intent(in), contiguous :: k(:), tau(:)
        integer, intent(inout) :: block
        integer(c_int32_t), intent(inout) :: status
        logical, intent(in) :: rotsym
        integer(c_int64_t), intent(in), contiguous, optional, target :: row_start(:), col(:)
        real(c_double), intent(in), contiguous, optional, target :: value(:)
        integer(c_int64_t), intent(in), optional :: n_sym
        integer(c_int32_t) :: b
        integer(c_int64_t) :: n, ns
        integer(c_int32_t), allocatable :: k32(:), tau32(:)
        type(c_ptr) :: prs, pcol, pval
        call check_linestrength(h, status)
        n = size(v, kind=c_int64_t)
        call check_block_sizes(n, size(k, kind=c_int64_t), size(tau, kind=c_int64_t), rotsym, &
            [present(n_sym), present(row_start), present(col), present(value)], status)
        ns = 0
        prs = c_null_ptr
        pcol = c_null_ptr
        pval = c_null_ptr
        if (present(n_sym) .and. status == int(ATOMGPU_OK, c_int32_t)) then
            ns = n_sym
            call check_unfolding_sizes(ndeg, n, ns, size(row_start, kind=c_int64_t), status)
            if (status == int(ATOMGPU_OK, c_int32_t) .and. ndeg >= 1 .and. ndeg <= 3) then
                call check_entry_sizes(row_start(1), row_start(ndeg * n + 1) - 1, size(col, kind=c_int64_t), &
                    size(value, kind=c_int64_t), status)
                prs = c_loc(row_start)
                if (size(col) > 0) pcol = c_loc(col)
                if (size(value) > 0) pval = c_loc(value)
            end if
        end if
        if (status /= int(ATOMGPU_OK, c_int32_t)) return
        ! The label arrays as C's int32_t (at least one element, so that no zero-size array is passed).
        allocate (k32(max(n, 1_c_int64_t)), tau32(max(n, 1_c_int64_t)))
        k32 = 0
        tau32 = 0
        k32(1:n) = int(k, c_int32_t)
        tau32(1:n) = int(tau, c_int32_t)
        b = -1
        if (rotsym) then
            status = c_atomgpu_linestrength_add_block_rotsym_i64(h%ptr, int(j, c_int32_t), int(gamma0, c_int32_t), &
                gns, n, v, k32, tau32, int(ndeg, c_int32_t), ns, prs, pcol, pval, 1_c_int32_t, b)
        else
            status = c_atomgpu_linestrength_add_block_species_i64(h%ptr, int(j, c_int32_t), int(gamma0, c_int32_t), &
                gns, n, v, k32, tau32, int(ndeg, c_int32_t), ns, prs, pcol, pval, 1_c_int32_t, b)
        end if
        if (status == int(ATOMGPU_OK, c_int32_t)) block = int(b) + 1
    end subroutine

    ! The size checks of a block's arrays that C cannot see, for both integer kinds (positions of
    ! C's numbered add_block forms): one label pair (k, tau or, for the rotsym route, level, deg)
    ! per vibrational index; the unfolding's four arguments together (`given`: n_sym, row_start,
    ! col, value) or not at all.
    subroutine check_block_sizes(n, n_first, n_second, rotsym, given, status)
        integer(c_int64_t), intent(in) :: n, n_first, n_second
        logical, intent(in) :: rotsym, given(4)
        integer(c_int32_t), intent(inout) :: status
        call reject(n_first == n, 7, size_message(trim(merge("level", "k    ", rotsym)), n_first, "elements", n, &
            "size(v) = n_primitive"), status)
        call reject(n_second == n, 8, size_message(trim(merge("deg", "tau", rotsym)), n_second, "elements", n, &
            "size(v) = n_primitive"), status)
        call reject(all(given) .or. .not. any(given), 10, "argument `n_sym`: row_start, col, value and n_sym " // &
            "come together (a symmetrised block) or not at all (primitive vectors)", status)
    end subroutine

    ! An unfolding's n_sym >= 1 and size(row_start) = ndeg n_primitive + 1 (unless ndeg is out of
    ! range, which C refuses first).
    subroutine check_unfolding_sizes(ndeg, n, n_sym, n_row_start, status)
        integer, intent(in) :: ndeg
        integer(c_int64_t), intent(in) :: n, n_sym, n_row_start
        integer(c_int32_t), intent(inout) :: status
        call reject(n_sym >= 1, 10, "argument `n_sym`: must be >= 1 with an unfolding, got " // itoa(n_sym), status)
        if (ndeg < 1 .or. ndeg > 3) return
        call reject(n_row_start == ndeg * n + 1, 11, size_message("row_start", n_row_start, "elements", &
            ndeg * n + 1, "ndeg n_primitive + 1"), status)
    end subroutine

    ! The offsets start at 1 (first = row_start(1)), and size(col) = size(value) = nnz =
    ! row_start(ndeg n_primitive + 1) - 1.
    subroutine check_entry_sizes(first, nnz, n_col, n_value, status)
        integer(c_int64_t), intent(in) :: first, nnz, n_col, n_value
        integer(c_int32_t), intent(inout) :: status
        call reject(first == 1, 11, "argument `row_start`: element 1 is " // itoa(first) // &
            ", must be 1 (offsets are numbered from 1 in Fortran)", status)
        call reject(n_col == nnz, 12, size_message("col", n_col, "elements", nnz, &
            "row_start(ndeg n_primitive + 1) - 1"), status)
        call reject(n_value == nnz, 13, size_message("value", n_value, "elements", nnz, &
            "row_start(ndeg n_primitive + 1) - 1"), status)
    end subroutine

    ! atomgpu_linestrength_add_block with default-kind (32-bit) index arrays, passed on as they are
    ! (1-based, as in the 64-bit form); error positions are those of C's
    ! atomgpu_linestrength_add_block_species_i32, whose messages name the 1-based values.
    subroutine add_block_i32(h, j, gns, v, k, tau, block, row_start, col, value, n_sym, stat)
        type(atomgpu_linestrength_t), intent(inout) :: h
        integer, intent(in) :: j
        real(c_double), intent(in) :: gns
        integer(c_int32_t), intent(in), contiguous :: v(:), k(:), tau(:)
        integer, intent(inout) :: block
        integer(c_int32_t), intent(in), contiguous, optional, target :: row_start(:), col(:)
        real(c_double), intent(in), contiguous, optional, target :: value(:)
        integer(c_int32_t), intent(in), optional :: n_sym
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call add_block_of_i32(h, j, 0, 1, gns, v, k, tau, block, status, row_start, col, value, n_sym)
        call finish(status, stat, "atomgpu_linestrength_add_block")
    end subroutine

    ! atomgpu_linestrength_add_block_species with default-kind (32-bit) index arrays, passed on as
    ! they are (see add_block_i32).
    subroutine add_block_species_i32(h, j, gamma, gns, v, k, tau, ndeg, block, row_start, col, value, n_sym, stat)
        type(atomgpu_linestrength_t), intent(inout) :: h
        integer, intent(in) :: j, gamma, ndeg
        real(c_double), intent(in) :: gns
        integer(c_int32_t), intent(in), contiguous :: v(:), k(:), tau(:)
        integer, intent(inout) :: block
        integer(c_int32_t), intent(in), contiguous, optional, target :: row_start(:), col(:)
        real(c_double), intent(in), contiguous, optional, target :: value(:)
        integer(c_int32_t), intent(in), optional :: n_sym
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call reject(gamma >= 1, 3, "argument `gamma`: is " // itoa(int(gamma, c_int64_t)) // &
            ", species are numbered from 1 in Fortran (TROVE's igamma)", status)
        call add_block_of_i32(h, j, gamma - 1, ndeg, gns, v, k, tau, block, status, row_start, col, value, n_sym)
        call finish(status, stat, "atomgpu_linestrength_add_block_species")
    end subroutine

    ! The size checks and the C call of the 32-bit forms (C atomgpu_linestrength_add_block_species_i32
    ! with index_base 1, whose positions the errors carry); the library checks every value.
    subroutine add_block_of_i32(h, j, gamma0, ndeg, gns, v, k, tau, block, status, row_start, col, value, n_sym)
        type(atomgpu_linestrength_t), intent(inout) :: h
        integer, intent(in) :: j, gamma0, ndeg
        real(c_double), intent(in) :: gns
        integer(c_int32_t), intent(in), contiguous :: v(:), k(:), tau(:)
        integer, intent(inout) :: block
        integer(c_int32_t), intent(inout) :: status
        integer(c_int32_t), intent(in), contiguous, optional, target :: row_start(:), col(:)
        real(c_double), intent(in), contiguous, optional, target :: value(:)
        integer(c_int32_t), intent(in), optional :: n_sym
        integer(c_int64_t) :: n, ns
        integer(c_int32_t) :: b
        type(c_ptr) :: prs, pcol, pval
        call check_linestrength(h, status)
        n = size(v, kind=c_int64_t)
        call check_block_sizes(n, size(k, kind=c_int64_t), size(tau, kind=c_int64_t), .false., &
            [present(n_sym), present(row_start), present(col), present(value)], status)
        ns = 0
        prs = c_null_ptr
        pcol = c_null_ptr
        pval = c_null_ptr
        if (present(n_sym) .and. status == int(ATOMGPU_OK, c_int32_t)) then
            ns = n_sym
            call check_unfolding_sizes(ndeg, n, ns, size(row_start, kind=c_int64_t), status)
            if (status == int(ATOMGPU_OK, c_int32_t) .and. ndeg >= 1 .and. ndeg <= 3) then
                call check_entry_sizes(int(row_start(1), c_int64_t), int(row_start(ndeg * n + 1), c_int64_t) - 1, &
                    size(col, kind=c_int64_t), size(value, kind=c_int64_t), status)
                prs = c_loc(row_start)
                if (size(col) > 0) pcol = c_loc(col)
                if (size(value) > 0) pval = c_loc(value)
            end if
        end if
        if (status /= int(ATOMGPU_OK, c_int32_t)) return
        b = -1
        status = c_atomgpu_linestrength_add_block_species_i32(h%ptr, int(j, c_int32_t), int(gamma0, c_int32_t), gns, &
            n, v, k, tau, int(ndeg, c_int32_t), ns, prs, pcol, pval, 1_c_int32_t, b)
        if (status == int(ATOMGPU_OK, c_int32_t)) block = int(b) + 1
    end subroutine

    ! The lines of one batch of lower levels read by the caller (from its own eigenvector files),
    ! appended to the handle's pending buffer (C atomgpu_linestrength_lines_of_lower_batch_buffered;
    ! read them with atomgpu_linestrength_take_lines): level i has block block(i) (1-based), vector
    ! vectors(:, i) (its first n_coefficients(block(i)) entries; size(vectors, 1) >= the largest
    ! of the batch's blocks), energy energies(i) [cm^-1], ID ids(i) (the lines' lower_id) and
    ! order key order(i). The lines go into every block with stored states that the J rule and
    ! `filters` allow, in (lower order, upper ID) order within the call; counts(5) (optional) as
    ! for atomgpu_linestrength_line_list. No count pass is needed. A failed call appends nothing.
    subroutine atomgpu_linestrength_lines_of_lower_batch(h, block, vectors, energies, ids, order, params, filters, &
            counts, stat)
        type(atomgpu_linestrength_t), intent(inout) :: h
        integer, intent(in) :: block(:)
        real(c_double), intent(in), contiguous :: vectors(:, :)
        real(c_double), intent(in) :: energies(:)
        integer(c_int64_t), intent(in) :: ids(:), order(:)
        type(atomgpu_intensity_params_t), intent(in) :: params
        type(atomgpu_line_filters_t), intent(in), optional :: filters
        integer(c_int64_t), intent(inout), optional :: counts(5)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: n, counted(5)
        integer(c_int32_t), allocatable :: block0(:)
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_linestrength(h, status)
        n = size(block, kind=c_int64_t)
        call reject(size(vectors, 2, kind=c_int64_t) == n, 4, size_message("vectors", size(vectors, 2, &
            kind=c_int64_t), "columns", n, "size(block)"), status)
        call reject(size(energies, kind=c_int64_t) == n, 6, size_message("energies", size(energies, &
            kind=c_int64_t), "elements", n, "size(block)"), status)
        call reject(size(ids, kind=c_int64_t) == n, 7, size_message("ids", size(ids, kind=c_int64_t), "elements", &
            n, "size(block)"), status)
        call reject(size(order, kind=c_int64_t) == n, 8, size_message("order", size(order, kind=c_int64_t), &
            "elements", n, "size(block)"), status)
        call check_filters(filters, 10, status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            allocate (block0(max(n, 1_c_int64_t)))
            block0 = 0
            block0(1:n) = int(block - 1, c_int32_t)
            status = c_atomgpu_linestrength_lines_of_lower_batch_buffered(h%ptr, n, block0, vectors, &
                size(vectors, 1, kind=c_int64_t), energies, ids, order, params, filters0(filters), counted)
            if (status == int(ATOMGPU_OK, c_int32_t) .and. present(counts)) counts = counted
        end if
        call finish(status, stat, "atomgpu_linestrength_lines_of_lower_batch")
    end subroutine

    ! Number of lines in the handle's pending buffer (atomgpu_linestrength_lines_of_lower_batch).
    subroutine atomgpu_linestrength_lines_pending(h, n_lines, stat)
        type(atomgpu_linestrength_t), intent(in) :: h
        integer(c_int64_t), intent(inout) :: n_lines
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_linestrength(h, status)
        if (status == int(ATOMGPU_OK, c_int32_t)) status = c_atomgpu_linestrength_lines_pending(h%ptr, n_lines)
        call finish(status, stat, "atomgpu_linestrength_lines_pending")
    end subroutine

    ! Takes the first min(size(lines), pending) lines out of the pending buffer into lines(1:taken),
    ! in the order they were appended (blocks, upper state and lower level numbered from 1).
    subroutine atomgpu_linestrength_take_lines(h, lines, taken, stat)
        type(atomgpu_linestrength_t), intent(inout) :: h
        type(atomgpu_line_t), intent(inout) :: lines(:)
        integer(c_int64_t), intent(inout) :: taken
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: got
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_linestrength(h, status)
        call reject(size(lines) >= 1, 3, "argument `lines`: must hold at least one line", status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            got = 0
            status = c_atomgpu_linestrength_take_lines(h%ptr, lines, size(lines, kind=c_int64_t), got)
            if (status == int(ATOMGPU_OK, c_int32_t)) then
                lines(1:got)%upper_block = lines(1:got)%upper_block + 1
                lines(1:got)%lower_block = lines(1:got)%lower_block + 1
                lines(1:got)%upper_state = lines(1:got)%upper_state + 1
                lines(1:got)%lower_level = lines(1:got)%lower_level + 1
                taken = got
            end if
        end if
        call finish(status, stat, "atomgpu_linestrength_take_lines")
    end subroutine

    ! Sets the molecule's symmetry group (TROVE's sym%group: "C1", "Cs(M)", "C2v(M)", "C3v(M)",
    ! "D3h(M)", "Td(M)"; case and the "(M)" optional) before any block is added; then blocks are
    ! added with atomgpu_linestrength_add_block_species.
    subroutine atomgpu_linestrength_set_group(h, group, stat)
        type(atomgpu_linestrength_t), intent(inout) :: h
        character(len=*), intent(in) :: group
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_linestrength(h, status)
        if (status == int(ATOMGPU_OK, c_int32_t)) status = c_atomgpu_linestrength_set_group(h%ptr, c_text(group))
        call finish(status, stat, "atomgpu_linestrength_set_group")
    end subroutine

    ! `text` (trailing blanks dropped) as a NUL-terminated C string.
    function c_text(text) result(chars)
        character(len=*), intent(in) :: text
        character(kind=c_char) :: chars(len_trim(text) + 1)
        integer :: i
        do i = 1, len_trim(text)
            chars(i) = text(i:i)
        end do
        chars(len_trim(text) + 1) = c_null_char
    end function

    ! The degeneracy (number of components) of block `block`'s species, into ndeg: 1, 2 or 3.
    subroutine atomgpu_linestrength_block_ndeg(h, block, ndeg, stat)
        type(atomgpu_linestrength_t), intent(in) :: h
        integer, intent(in) :: block
        integer, intent(inout) :: ndeg
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status, d
        integer(c_int64_t) :: np, nc, ns
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_linestrength(h, status)
        call check_block(h, "block", block, 2, status, np, nc, ns)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_linestrength_block_ndeg(h%ptr, int(block - 1, c_int32_t), d)
            if (status == int(ATOMGPU_OK, c_int32_t)) ndeg = int(d)
        end if
        call finish(status, stat, "atomgpu_linestrength_block_ndeg")
    end subroutine

    ! Stores the eigenstates of block `block` (replacing earlier ones): energies(n_states)
    ! [cm^-1, absolute] and the eigenvectors as the columns of vectors(>= n_coefficients, n_states)
    ! (n_coefficients: n_sym for a symmetrised block, n_primitive otherwise; rows beyond are not
    ! read). Stored states get the ExoMol IDs of atomgpu_linestrength_state_id.
    subroutine atomgpu_linestrength_set_states(h, block, energies, vectors, stat)
        type(atomgpu_linestrength_t), intent(inout) :: h
        integer, intent(in) :: block
        real(c_double), intent(in), contiguous :: energies(:), vectors(:, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call store_states(h, block, energies, vectors, .false., status)
        call finish(status, stat, "atomgpu_linestrength_set_states")
    end subroutine

    ! As atomgpu_linestrength_set_states, with the vectors kept in host memory (a copy held by the
    ! library) instead of on the GPU, for blocks that do not fit there beside the others: as the
    ! lower block of a line list they go to the GPU a batch at a time, each batch's upload overlapped
    ! with the previous batch's products; as an upper block they are uploaded for the line list
    ! that needs them. Same numbers; on the CPU backend it is set_states.
    subroutine atomgpu_linestrength_set_states_on_host(h, block, energies, vectors, stat)
        type(atomgpu_linestrength_t), intent(inout) :: h
        integer, intent(in) :: block
        real(c_double), intent(in), contiguous :: energies(:), vectors(:, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call store_states(h, block, energies, vectors, .true., status)
        call finish(status, stat, "atomgpu_linestrength_set_states_on_host")
    end subroutine

    ! The checks and the C call of the two set_states wrappers: C takes one n_states for energies
    ! and the columns of vectors.
    subroutine store_states(h, block, energies, vectors, on_host, status)
        type(atomgpu_linestrength_t), intent(inout) :: h
        integer, intent(in) :: block
        real(c_double), intent(in), contiguous :: energies(:), vectors(:, :)
        logical, intent(in) :: on_host
        integer(c_int32_t), intent(inout) :: status
        integer(c_int64_t) :: np, nc, ns
        call check_linestrength(h, status)
        call check_block(h, "block", block, 2, status, np, nc, ns)
        call reject(size(vectors, 2, kind=c_int64_t) == size(energies, kind=c_int64_t), 5, size_message("vectors", &
            size(vectors, 2, kind=c_int64_t), "columns", size(energies, kind=c_int64_t), "size(energies) = n_states"), &
            status)
        if (status /= int(ATOMGPU_OK, c_int32_t)) return
        if (on_host) then
            status = c_atomgpu_linestrength_set_states_on_host(h%ptr, int(block - 1, c_int32_t), &
                size(energies, kind=c_int64_t), energies, vectors, size(vectors, 1, kind=c_int64_t))
        else
            status = c_atomgpu_linestrength_set_states(h%ptr, int(block - 1, c_int32_t), &
                size(energies, kind=c_int64_t), energies, vectors, size(vectors, 1, kind=c_int64_t))
        end if
    end subroutine

    ! Loads a batch of lower states of block `block`, the columns of vectors(>= n_coefficients,
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
        integer(c_int64_t) :: np, nc, ns
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_linestrength(h, status)
        call check_block(h, "block", block, 2, status, np, nc, ns)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_linestrength_load_lower(h%ptr, int(block - 1, c_int32_t), size(vectors, 2, &
                kind=c_int64_t), vectors, size(vectors, 1, kind=c_int64_t), thresh_coeff)
        end if
        call finish(status, stat, "atomgpu_linestrength_load_lower")
    end subroutine

    ! Half-linestrengths (eq. 14, Debye) of the loaded lower batch into block upper_block:
    ! half(>= n_primitive of upper_block, >= ndeg'' n_lower), on the upper block's primitive functions,
    ! column d + ndeg'' (i - 1) for component d (1-based) of lower state i (ndeg'': the lower
    ! block's degeneracy, 1 for non-degenerate species: column i). 3j symbols below thresh_coeff
    ! are skipped. |J' - J''| <= 1 and J' + J'' >= 1.
    subroutine atomgpu_linestrength_half(h, upper_block, thresh_coeff, half, stat)
        type(atomgpu_linestrength_t), intent(in) :: h
        integer, intent(in) :: upper_block
        real(c_double), intent(in) :: thresh_coeff
        real(c_double), intent(inout), contiguous :: half(:, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: np, nc, ns
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_linestrength(h, status)
        call check_block(h, "upper_block", upper_block, 2, status, np, nc, ns)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_linestrength_half(h%ptr, int(upper_block - 1, c_int32_t), thresh_coeff, half, &
                size(half, 1, kind=c_int64_t), size(half, 2, kind=c_int64_t))
        end if
        call finish(status, stat, "atomgpu_linestrength_half")
    end subroutine

    ! Transition amplitudes a(f, i) = sum_p c^f_p h_p(i) (eq. 15 before squaring, Debye) of the
    ! stored states f of block upper_block with the states i of the loaded lower batch:
    ! amplitudes(>= n_states of upper_block, >= n_lower); L = a^2. For degenerate species one amplitude
    ! per component pair (TROVE's linestr_deg(d'', d')): amplitudes(>= n_states, >= ndeg'' n_lower ndeg'),
    ! column d'' + ndeg'' (i - 1 + n_lower (d' - 1)) (1-based components), L = sum a^2 / ndeg''.
    subroutine atomgpu_linestrength_amplitudes(h, upper_block, thresh_coeff, amplitudes, stat)
        type(atomgpu_linestrength_t), intent(in) :: h
        integer, intent(in) :: upper_block
        real(c_double), intent(in) :: thresh_coeff
        real(c_double), intent(inout), contiguous :: amplitudes(:, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: np, nc, ns
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_linestrength(h, status)
        call check_block(h, "upper_block", upper_block, 2, status, np, nc, ns)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_linestrength_amplitudes(h%ptr, int(upper_block - 1, c_int32_t), thresh_coeff, &
                amplitudes, size(amplitudes, 1, kind=c_int64_t), size(amplitudes, 2, kind=c_int64_t))
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
    ! Optional, by keyword: `filters`, TROVE's further rules (J range, species pairs, REDUCED,
    ! degeneracy filter; type atomgpu_line_filters_t), and `counts(5)`, which receives the pairs
    ! of states judged, and of them those dropped by the J range and species rules, by the energy
    ! and frequency windows, by the thresholds, and those kept (the four parts sum to the first).
    subroutine atomgpu_linestrength_line_list(h, lower_block, upper_blocks, params, n_lines, upper_id, lower_id, &
            einstein_a, wavenumber, linestrength, intensity, stat, filters, counts)
        type(atomgpu_linestrength_t), intent(inout) :: h
        integer, intent(in) :: lower_block
        integer, intent(in), contiguous :: upper_blocks(:)
        type(atomgpu_intensity_params_t), intent(in) :: params
        integer(c_int64_t), intent(inout) :: n_lines
        integer(c_int64_t), intent(inout), contiguous, target :: upper_id(:), lower_id(:)
        real(c_double), intent(inout), contiguous, target :: einstein_a(:), wavenumber(:), linestrength(:), &
            intensity(:)
        integer, intent(out), optional :: stat
        type(atomgpu_line_filters_t), intent(in), optional :: filters
        integer(c_int64_t), intent(inout), optional :: counts(5)
        integer(c_int32_t) :: status
        integer(c_int32_t), allocatable :: uppers0(:)
        integer(c_int64_t) :: capacity, counted(5)
        integer :: position
        ! Stand-ins for zero-size output arrays (NULL arrays would be refused; NULL `lines` would ask
        ! for the count only).
        integer(c_int64_t), target :: no_id(1, 2)
        real(c_double), target :: no_value(1, 4)
        type(line_arrays), target :: arrays
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_line_list(h, lower_block, upper_blocks, status, uppers0)
        call check_filters(filters, 6, status)
        ! C position of `lines`: one further on in _line_list_filtered (its `filters`).
        position = merge(7, 6, present(filters) .or. present(counts))
        capacity = size(upper_id, kind=c_int64_t)
        call check_capacity("lines", "lower_id", size(lower_id, kind=c_int64_t), capacity, position, status)
        call check_capacity("lines", "einstein_a", size(einstein_a, kind=c_int64_t), capacity, position, status)
        call check_capacity("lines", "wavenumber", size(wavenumber, kind=c_int64_t), capacity, position, status)
        call check_capacity("lines", "linestrength", size(linestrength, kind=c_int64_t), capacity, position, status)
        call check_capacity("lines", "intensity", size(intensity, kind=c_int64_t), capacity, position, status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            if (capacity > 0) then
                arrays = line_arrays(capacity, c_loc(upper_id), c_loc(lower_id), c_loc(einstein_a), &
                    c_loc(wavenumber), c_loc(linestrength), c_loc(intensity))
            else
                arrays = line_arrays(0_c_int64_t, c_loc(no_id(1, 1)), c_loc(no_id(1, 2)), c_loc(no_value(1, 1)), &
                    c_loc(no_value(1, 2)), c_loc(no_value(1, 3)), c_loc(no_value(1, 4)))
            end if
            if (position == 7) then
                status = c_atomgpu_linestrength_line_list_filtered(h%ptr, int(lower_block - 1, c_int32_t), &
                    int(size(upper_blocks), c_int32_t), uppers0, params, filters0(filters), c_loc(arrays), n_lines, &
                    counted)
                if (status == int(ATOMGPU_OK, c_int32_t) .and. present(counts)) counts = counted
            else
                status = c_atomgpu_linestrength_line_list(h%ptr, int(lower_block - 1, c_int32_t), &
                    int(size(upper_blocks), c_int32_t), uppers0, params, c_loc(arrays), n_lines)
            end if
        end if
        call finish(status, stat, "atomgpu_linestrength_line_list")
    end subroutine

    ! The number of lines atomgpu_linestrength_line_list would give (same arguments, `filters` and
    ! `counts` as there), into n_lines (the whole list is computed to count it). Replaces the
    ! loaded lower batch, as atomgpu_linestrength_line_list does.
    subroutine atomgpu_linestrength_count_lines(h, lower_block, upper_blocks, params, n_lines, stat, filters, counts)
        type(atomgpu_linestrength_t), intent(inout) :: h
        integer, intent(in) :: lower_block
        integer, intent(in), contiguous :: upper_blocks(:)
        type(atomgpu_intensity_params_t), intent(in) :: params
        integer(c_int64_t), intent(inout) :: n_lines
        integer, intent(out), optional :: stat
        type(atomgpu_line_filters_t), intent(in), optional :: filters
        integer(c_int64_t), intent(inout), optional :: counts(5)
        integer(c_int32_t) :: status
        integer(c_int32_t), allocatable :: uppers0(:)
        integer(c_int64_t) :: counted(5)
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_line_list(h, lower_block, upper_blocks, status, uppers0)
        call check_filters(filters, 6, status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            if (present(filters) .or. present(counts)) then
                status = c_atomgpu_linestrength_line_list_filtered(h%ptr, int(lower_block - 1, c_int32_t), &
                    int(size(upper_blocks), c_int32_t), uppers0, params, filters0(filters), c_null_ptr, n_lines, counted)
                if (status == int(ATOMGPU_OK, c_int32_t) .and. present(counts)) counts = counted
            else
                status = c_atomgpu_linestrength_line_list(h%ptr, int(lower_block - 1, c_int32_t), &
                    int(size(upper_blocks), c_int32_t), uppers0, params, c_null_ptr, n_lines)
            end if
        end if
        call finish(status, stat, "atomgpu_linestrength_count_lines")
    end subroutine

    ! Transition moments between J = 0 states (TROVE's TM action; params%action must be
    ! ATOMGPU_ACTION_TM; lower_block and upper_blocks J = 0 blocks with states): for each kept pair
    ! (ordered by lower state, upper block, upper state), upper_id, lower_id (ExoMol IDs),
    ! wavenumber nu = E_F - E_I [cm^-1], moment |TM| [Debye], einstein_a A_vib = A_coef |TM|^2 nu^3
    ! [s^-1], intensity |TM|^2 I_coef nu exp(-c2 (E_I-zpe)/T)(1 - exp(-c2 nu/T))/Q [cm/molecule] and
    ! components(m, d_I, d_F, e) = tm(m, d_I, d_F) [Debye] (TROVE's tm_deg(imu, idegI, idegF); zero
    ! beyond the levels' components), with
    !   tm(m, d_I, d_F) = sum_q u_F(q) sum_p u_I(p) dipole(v_p, v_q, m)
    ! (u the primitive coefficients of the components). As TROVE: every species pair, no g_ns,
    ! no THRESH_COEFF or THRESH_LINE, nu >= -small_ (the permanent moments, I = F, included) and
    ! kept when |TM| >= thresh_intens (TROVE compares the moment with THRESH_INTES). All arrays have
    ! one size, the capacity (components: shape (3, 3, 3, capacity)); with capacity 0 only n_moments
    ! (and counts) are written: the count. More moments than the capacity:
    ! ATOMGPU_ERR_INVALID_ARGUMENT, nothing written. counts(5) as for atomgpu_linestrength_line_list.
    subroutine atomgpu_linestrength_transition_moments(h, lower_block, upper_blocks, params, n_moments, upper_id, &
            lower_id, wavenumber, moment, einstein_a, intensity, components, stat, counts)
        type(atomgpu_linestrength_t), intent(inout) :: h
        integer, intent(in) :: lower_block
        integer, intent(in), contiguous :: upper_blocks(:)
        type(atomgpu_intensity_params_t), intent(in) :: params
        integer(c_int64_t), intent(inout) :: n_moments
        integer(c_int64_t), intent(inout), contiguous, target :: upper_id(:), lower_id(:)
        real(c_double), intent(inout), contiguous, target :: wavenumber(:), moment(:), einstein_a(:), intensity(:)
        real(c_double), intent(inout), contiguous, target :: components(:, :, :, :)
        integer, intent(out), optional :: stat
        integer(c_int64_t), intent(inout), optional :: counts(5)
        integer(c_int32_t) :: status
        integer(c_int32_t), allocatable :: uppers0(:)
        integer(c_int64_t) :: capacity, counted(5)
        type(moment_arrays), target :: arrays
        type(c_ptr) :: moments
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_line_list(h, lower_block, upper_blocks, status, uppers0)
        capacity = size(upper_id, kind=c_int64_t)
        call check_capacity("moments", "lower_id", size(lower_id, kind=c_int64_t), capacity, 6, status)
        call check_capacity("moments", "wavenumber", size(wavenumber, kind=c_int64_t), capacity, 6, status)
        call check_capacity("moments", "moment", size(moment, kind=c_int64_t), capacity, 6, status)
        call check_capacity("moments", "einstein_a", size(einstein_a, kind=c_int64_t), capacity, 6, status)
        call check_capacity("moments", "intensity", size(intensity, kind=c_int64_t), capacity, 6, status)
        call reject(all(shape(components, kind=c_int64_t) == [3_c_int64_t, 3_c_int64_t, 3_c_int64_t, capacity]), &
            6, "argument `moments`: field `components` must have shape (3, 3, 3, capacity), capacity = " // &
            "size(upper_id) = " // itoa(capacity), status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            ! Capacity 0: a count query (C NULL `moments`).
            moments = c_null_ptr
            if (capacity > 0) then
                arrays = moment_arrays(capacity, c_loc(upper_id), c_loc(lower_id), c_loc(wavenumber), c_loc(moment), &
                    c_loc(einstein_a), c_loc(intensity), c_loc(components))
                moments = c_loc(arrays)
            end if
            status = c_atomgpu_linestrength_transition_moments(h%ptr, int(lower_block - 1, c_int32_t), &
                int(size(upper_blocks), c_int32_t), uppers0, params, moments, n_moments, counted)
            if (status == int(ATOMGPU_OK, c_int32_t) .and. present(counts)) counts = counted
        end if
        call finish(status, stat, "atomgpu_linestrength_transition_moments")
    end subroutine

    ! The output array `field` of a line list has `got` elements, which must be `capacity`
    ! (= size(upper_id)): it fills field `field` of the C struct argument `parameter` (`lines`,
    ! `moments`) at C position `position`.
    subroutine check_capacity(parameter, field, got, capacity, position, status)
        character(len=*), intent(in) :: parameter, field
        integer(c_int64_t), intent(in) :: got, capacity
        integer, intent(in) :: position
        integer(c_int32_t), intent(inout) :: status
        call reject(got == capacity, position, field_size_message(parameter, field, got, "elements", capacity, &
            "size(upper_id) = capacity"), status)
    end subroutine

    ! Checks the 1-based species of the optional `filters` (C argument position `position`); the
    ! other fields, and n_gamma_pair, are checked by the library.
    subroutine check_filters(filters, position, status)
        type(atomgpu_line_filters_t), intent(in), optional :: filters
        integer, intent(in) :: position
        integer(c_int32_t), intent(inout) :: status
        integer :: i
        if (.not. present(filters)) return
        if (filters%n_gamma_pair < 0 .or. filters%n_gamma_pair > size(filters%gamma_pair)) return
        do i = 1, int(filters%n_gamma_pair)
            call reject(filters%gamma_pair(i) >= 1, position, "argument `filters`: field `gamma_pair(" // &
                itoa(int(i, c_int64_t)) // ")` is " // itoa(int(filters%gamma_pair(i), c_int64_t)) // &
                ", species are numbered from 1 in Fortran (TROVE's isym_pairs)", status)
        end do
    end subroutine

    ! The C filters of an optional Fortran one: species 0-based; absent: no rule.
    function filters0(filters) result(f)
        type(atomgpu_line_filters_t), intent(in), optional :: filters
        type(atomgpu_line_filters_t) :: f
        integer :: n
        if (.not. present(filters)) return
        f = filters
        n = min(max(int(f%n_gamma_pair), 0), size(f%gamma_pair))
        f%gamma_pair(1:n) = f%gamma_pair(1:n) - 1
    end function

    ! The whole line list of the handle written as the ExoMol files <stem>.states and <stem>.trans
    ! (every block with states as the lower block, in the order added, into every block with states
    ! that J' = J'' or J'' +- 1 reaches), judged by `params` and the optional `filters`, batch by
    ! batch as the lines are judged (the list is never held in memory). The pair changes together
    ! or not at all: both files are written to temporaries in the same folder and renamed into
    ! place only when everything succeeded; a failed, cancelled (progress callback, time limit) or
    ! full-disk call leaves an existing pair as it was (C: atomgpu_linestrength_write_exomol says
    ! more). `.states`: ID, E - zpe [cm^-1], g_tot = g_ns (2J+1), J, block and state (0-based);
    ! `.trans`: upper ID, lower ID, A [s^-1], nu [cm^-1]. `counts(5)` (optional) as for
    ! atomgpu_linestrength_line_list, over the whole list. A file that cannot be written is
    ! ATOMGPU_ERR_IO.
    subroutine atomgpu_linestrength_write_exomol(h, stem, params, filters, counts, stat)
        type(atomgpu_linestrength_t), intent(inout) :: h
        character(len=*), intent(in) :: stem
        type(atomgpu_intensity_params_t), intent(in) :: params
        type(atomgpu_line_filters_t), intent(in), optional :: filters
        integer(c_int64_t), intent(inout), optional :: counts(5)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: counted(5)
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_linestrength(h, status)
        call check_filters(filters, 4, status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_linestrength_write_exomol(h%ptr, c_text(stem), params, filters0(filters), counted)
            if (status == int(ATOMGPU_OK, c_int32_t) .and. present(counts)) counts = counted
        end if
        call finish(status, stat, "atomgpu_linestrength_write_exomol")
    end subroutine

    ! Gives the stored states of block `block` (1-based) the caller's IDs (each >= 1, distinct
    ! within the block; written in the .states/.trans files and carried by every line; TROVE:
    ! ilevel + nsize_base(gamma)) and order keys (TROVE's .trans is sorted by the lower state's
    ! key, then the upper's; TROVE: the level's position in its energy-sorted list): one of each
    ! per stored state (size(ids) is C's n_states, which the library checks against the block's
    ! stored states). The next set_states of the block drops them.
    subroutine atomgpu_linestrength_set_state_labels(h, block, ids, order, stat)
        type(atomgpu_linestrength_t), intent(inout) :: h
        integer, intent(in) :: block
        integer(c_int64_t), intent(in) :: ids(:), order(:)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: np, nc, ns
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_linestrength(h, status)
        call check_block(h, "block", block, 2, status, np, nc, ns)
        call reject(size(order) == size(ids), 5, "argument `order`: has " // itoa(size(order, kind=c_int64_t)) // &
            " entries, `ids` " // itoa(size(ids, kind=c_int64_t)), status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_linestrength_set_state_labels(h%ptr, int(block - 1, c_int32_t), &
                size(ids, kind=c_int64_t), ids, order)
        end if
        call finish(status, stat, "atomgpu_linestrength_set_state_labels")
    end subroutine

    ! The whole line list of the stored states written as TROVE's own `<stem>.states` and
    ! `<stem>.trans`, digit for digit as TROVE's intensity step writes them (C:
    ! atomgpu_linestrength_write_trove): .trans lines `ID_f ID_i A nu` sorted by the lower state's
    ! order key, then the upper's; .states one line per entry of ids/energies/gns/j/columns:
    ! ID, E - ZPE (cm^-1, energies absolute), g_total (TROVE: int(gns)*(2J+1)), J, then columns(i) (the text after
    ! J, as TROVE's read_eigenval formats it; trailing blanks are not written). Set
    ! params%convention = 1 for TROVE's rules and constants. The pair changes together or not at
    ! all, as with atomgpu_linestrength_write_exomol.
    subroutine atomgpu_linestrength_write_trove(h, stem, ids, energies, g_total, j, columns, params, filters, counts, &
            stat)
        type(atomgpu_linestrength_t), intent(inout) :: h
        character(len=*), intent(in) :: stem
        integer(c_int64_t), intent(in) :: ids(:), g_total(:)
        real(c_double), intent(in) :: energies(:)
        integer(c_int32_t), intent(in) :: j(:)
        character(len=*), intent(in) :: columns(:)
        type(atomgpu_intensity_params_t), intent(in) :: params
        type(atomgpu_line_filters_t), intent(in), optional :: filters
        integer(c_int64_t), intent(inout), optional :: counts(5)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: counted(5), n
        character(kind=c_char), allocatable :: text(:)
        integer(c_int64_t) :: i, c, width
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_linestrength(h, status)
        n = size(ids, kind=c_int64_t)
        call reject(size(energies, kind=c_int64_t) == n, 4, "argument `energies`: has " // &
            itoa(size(energies, kind=c_int64_t)) // " entries, `ids` " // itoa(n), status)
        call reject(size(g_total, kind=c_int64_t) == n, 5, "argument `g_total`: has " // &
            itoa(size(g_total, kind=c_int64_t)) // &
            " entries, `ids` " // itoa(n), status)
        call reject(size(j, kind=c_int64_t) == n, 6, "argument `j`: has " // itoa(size(j, kind=c_int64_t)) // &
            " entries, `ids` " // itoa(n), status)
        call reject(size(columns, kind=c_int64_t) == n, 7, "argument `columns`: has " // &
            itoa(size(columns, kind=c_int64_t)) // " entries, `ids` " // itoa(n), status)
        call check_filters(filters, 9, status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            width = len(columns, kind=c_int64_t)
            allocate(text(max(1_c_int64_t, n * width)))
            do i = 1, n
                do c = 1, width
                    text((i - 1) * width + c) = columns(i)(c:c)
                end do
            end do
            status = c_atomgpu_linestrength_write_trove(h%ptr, c_text(stem), n, ids, energies, g_total, j, text, width, &
                params, filters0(filters), counted)
            if (status == int(ATOMGPU_OK, c_int32_t) .and. present(counts)) counts = counted
        end if
        call finish(status, stat, "atomgpu_linestrength_write_trove")
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

    ! The devices a line-strength handle uses: ordinals(n) receives their GPU ordinals (0-based, as CUDA numbers
    ! them; the handle's own first), or -1 for each CPU engine (README "Several GPUs").
    subroutine atomgpu_linestrength_devices(h, ordinals, stat)
        type(atomgpu_linestrength_t), intent(in) :: h
        integer, allocatable, intent(out) :: ordinals(:)
        integer, intent(out), optional :: stat
        call devices_of(h%ptr, ordinals, stat)
    end subroutine

end module atomgpu_linestrength
