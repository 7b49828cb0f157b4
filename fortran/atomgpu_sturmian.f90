! atomgpu_sturmian: the Fortran interface of the Sturmian family (paper: Mitnik et al., Comput.
! Phys. Commun. 2014, sturmian-hamiltonian-gpu): Generalized Sturmian overlaps, Kronecker
! products, repulsion integrals, angular coefficients and Hamiltonian blocks of three-body Coulomb
! problems. Programs `use atomgpu` (fortran/atomgpu.f90, which INCLUDEs this file and re-exports
! everything public here).
!
! The state lives in type(atomgpu_sturmian_basis): the radial grid and the channels (one radial
! set per electron and l). Nothing here is numbered from 1 that is not a Fortran array index:
! angular momenta (l, la, lb, lpa, lpb, L, M) are the physical values in [0, 200], electrons are
! ATOMGPU_ELECTRON_A (r1) and ATOMGPU_ELECTRON_B (r2), and the two-electron index inside a pair
! block follows `order` (ATOMGPU_ORDER_A_FASTEST: (n'a, n'b) -> n'a + N'a n'b, electron a's index
! running fastest, as the rows of a Fortran array(Na, Nb) reshaped; ATOMGPU_ORDER_B_FASTEST: the
! other way). Radii in bohr, energies and potentials in hartree, functions in bohr^-1/2.
!
! A basis is real or complex (is_complex at creation): its values, beta and every matrix result
! are then real(c_double) or complex(c_double_complex) arrays (the generic procedures take
! either; the kind must match the basis). Products are bilinear (no conjugation). Matrices go to
! the library as the arrays are: size(a, 1) is the leading dimension, size(a, 2) the columns (C's
! ld_<a> and cols_<a>; an output vector's size is C's len_<a>). The library checks them
! (size(a, 1) >= the rows needed, size(a, 2) >= the columns needed; the rows and columns beyond
! are neither read nor written), and its message, naming ld_<a>, cols_<a> or len_<a>, is the one
! stat and error stop give.
module atomgpu_sturmian
    use, intrinsic :: iso_c_binding, only: c_int32_t, c_int64_t, c_double, c_double_complex, c_ptr, &
        c_null_ptr, c_associated
    use atomgpu_core
    implicit none
    private

    ! Electrons (the C interface's ATOMGPU_ELECTRON_A/B).
    integer, parameter, public :: ATOMGPU_ELECTRON_A = 0   ! coordinate r1
    integer, parameter, public :: ATOMGPU_ELECTRON_B = 1   ! coordinate r2
    ! Two-electron index orders (ATOMGPU_ORDER_A_FASTEST/B_FASTEST).
    integer, parameter, public :: ATOMGPU_ORDER_A_FASTEST = 0   ! (n'a, n'b) -> n'a + N'a n'b
    integer, parameter, public :: ATOMGPU_ORDER_B_FASTEST = 1   ! (n'a, n'b) -> n'b + N'b n'a
    ! Exchange symmetry of the two-electron basis (ATOMGPU_EXCHANGE_*; params%exchange).
    integer(c_int32_t), parameter, public :: ATOMGPU_EXCHANGE_NONE = 0            ! product functions
    integer(c_int32_t), parameter, public :: ATOMGPU_EXCHANGE_SYMMETRIC = 1       ! (1 + P12)/sqrt(2): singlet
    integer(c_int32_t), parameter, public :: ATOMGPU_EXCHANGE_ANTISYMMETRIC = 2   ! (1 - P12)/sqrt(2): triplet

    public :: atomgpu_handle_devices
    interface atomgpu_handle_devices
        module procedure atomgpu_sturmian_devices
    end interface
    public :: atomgpu_sturmian_grid, atomgpu_sturmian_n_points, atomgpu_sturmian_create, atomgpu_sturmian_destroy
    public :: atomgpu_sturmian_add_channel, atomgpu_sturmian_add_gsf, atomgpu_sturmian_one_electron
    public :: atomgpu_sturmian_one_electron_block, atomgpu_sturmian_repulsion, atomgpu_sturmian_repulsion_dev
    public :: atomgpu_sturmian_angular, atomgpu_sturmian_hamiltonian_size, atomgpu_sturmian_hamiltonian
    public :: atomgpu_sturmian_solve
    public :: atomgpu_sturmian_channel_values

    ! A Sturmian basis held by the library (grid and channels, on the GPU on the CUDA backend).
    ! Made by atomgpu_sturmian_create, released by atomgpu_sturmian_destroy (no finalizer). The
    ! library locks the handle during each call, so one basis may be shared between threads. Pass
    ! the variable itself to procedures, do not copy it with `=`: besides the C handle it keeps
    ! what it was created with (real or complex, the grid's nq: the kind and size of the potential
    ! arrays, which the C interface takes by address alone), which a copy would not follow after a
    ! destroy.
    type, public :: atomgpu_sturmian_basis
        private
        type(c_ptr) :: ptr = c_null_ptr
        logical :: is_complex = .false.
        integer(c_int64_t) :: nq = 0
    end type

    ! What a Hamiltonian is assembled for (eq. 12; C struct atomgpu_sturmian_params). Set every
    ! field but `exchange`, which defaults to ATOMGPU_EXCHANGE_NONE. A symmetrised basis needs the
    ! same channel for both electrons at every l of the pairs and pairs given as la <= lb; for a
    ! pair (l, l) it keeps the functions with na <= nb (na < nb where the na = nb combination
    ! vanishes), in the block's order.
    ! energy_a, energy_b are the energies of the channels that carry none of their own (added by
    ! atomgpu_sturmian_add_channel without energy=); a channel from atomgpu_sturmian_add_gsf or
    ! added with energy= uses its own (eq. 9 holds at that energy only).
    type, bind(C), public :: atomgpu_sturmian_params_t
        integer(c_int32_t) :: l_total             ! total angular momentum L, in [0, 200]
        integer(c_int32_t) :: m                   ! its projection M, |M| <= L
        real(c_double) :: energy_a, energy_b      ! E_a, E_b of eq. 8 for channels without one [hartree]
        real(c_double) :: nuclear_charge          ! Z of -Z/r (W = I[-Z/r - U] for channels whose U differs)
        real(c_double) :: interaction_charge      ! product of the two particles' charges (+1: two electrons)
        integer(c_int32_t) :: exchange = ATOMGPU_EXCHANGE_NONE   ! ATOMGPU_EXCHANGE_*
    end type

    ! A generated bound-state GSF channel (C struct atomgpu_gsf_params, see
    ! atomgpu_sturmian_add_gsf). No field has a default: set every one. The channel keeps its
    ! -Z/r and E: an assembly for another nuclear charge adds I[(Z_gsf - Z)/r].
    type, bind(C), public :: atomgpu_gsf_params_t
        real(c_double) :: nuclear_charge          ! Z of the central potential -Z/r (>= 0)
        real(c_double) :: energy                  ! E [hartree], below -Z^2 / (2 (l+1)^2)
        real(c_double) :: yukawa_strength         ! v0 of -v0 exp(-r/a)/r [hartree bohr], > 0
        real(c_double) :: yukawa_range            ! a [bohr], > 0
        integer(c_int64_t) :: n_parent            ! Laguerre functions of the Galerkin solve, in [n, 400]
        real(c_double) :: lambda                  ! their exponent [1/bohr], > 0
    end type

    ! Real (real(c_double)) or complex (complex(c_double_complex)) arrays, as the basis is.
    interface atomgpu_sturmian_add_channel
        module procedure add_channel_real, add_channel_complex
    end interface
    interface atomgpu_sturmian_one_electron
        module procedure one_electron_real, one_electron_complex
    end interface
    interface atomgpu_sturmian_channel_values
        module procedure channel_values_real, channel_values_complex
    end interface
    interface atomgpu_sturmian_one_electron_block
        module procedure one_electron_block_real, one_electron_block_complex
    end interface
    interface atomgpu_sturmian_repulsion
        module procedure repulsion_real, repulsion_complex
    end interface
    interface atomgpu_sturmian_hamiltonian
        module procedure hamiltonian_real, hamiltonian_complex
    end interface

    ! The C functions. Arrays of basis values and results are assumed-type (type(*)): the
    ! address of the first element of a real or a complex array; NULL-able inputs are optional
    ! (an absent one is passed as NULL).
    interface
        function c_atomgpu_sturmian_grid(rmax, nq, ns, abscissas, weights, points) &
                bind(C, name="atomgpu_sturmian_grid") result(status)
            import :: c_int32_t, c_int64_t, c_double
            real(c_double), value :: rmax
            integer(c_int64_t), value :: nq, ns
            real(c_double), intent(inout) :: abscissas(*)
            real(c_double), intent(inout), optional :: weights(*), points(*)
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_sturmian_create_on_devices(rmax, nq, ns, abscissas, weights, is_complex, n_devices, &
                handle) bind(C, name="atomgpu_sturmian_create_on_devices") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            real(c_double), value :: rmax
            integer(c_int64_t), value :: nq, ns
            real(c_double), intent(in), optional :: abscissas(*), weights(*)
            integer(c_int32_t), value :: is_complex, n_devices
            type(c_ptr), intent(inout) :: handle
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_sturmian_create_on_device_list(rmax, nq, ns, abscissas, weights, is_complex, n_devices, &
                device_ids, handle) bind(C, name="atomgpu_sturmian_create_on_device_list") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            real(c_double), value :: rmax
            integer(c_int64_t), value :: nq, ns
            real(c_double), intent(in), optional :: abscissas(*), weights(*)
            integer(c_int32_t), value :: is_complex, n_devices
            integer(c_int32_t), intent(in) :: device_ids(*)
            type(c_ptr), intent(inout) :: handle
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_sturmian_destroy(handle) bind(C, name="atomgpu_sturmian_destroy") result(status)
            import :: c_int32_t, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_sturmian_add_channel(handle, electron, l, n, values, ld_values, beta, generating, central) &
                bind(C, name="atomgpu_sturmian_add_channel") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: electron, l
            integer(c_int64_t), value :: n
            type(*), intent(in) :: values(*)
            integer(c_int64_t), value :: ld_values
            type(*), intent(in) :: beta(*)
            real(c_double), intent(in) :: generating(*)
            real(c_double), intent(in), optional :: central(*)
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_sturmian_add_channel_at_energy(handle, electron, l, n, values, ld_values, beta, &
                generating, central, energy) bind(C, name="atomgpu_sturmian_add_channel_at_energy") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: electron, l
            integer(c_int64_t), value :: n
            type(*), intent(in) :: values(*)
            integer(c_int64_t), value :: ld_values
            type(*), intent(in) :: beta(*)
            real(c_double), intent(in) :: generating(*)
            real(c_double), intent(in), optional :: central(*)
            real(c_double), value :: energy
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_sturmian_channel_values(handle, electron, l, values, ld_values, cols_values, beta, &
                len_beta, generating, central, energy) bind(C, name="atomgpu_sturmian_channel_values") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: electron, l
            type(*), intent(inout), optional :: values(*)
            integer(c_int64_t), value :: ld_values, cols_values
            type(*), intent(inout), optional :: beta(*)
            integer(c_int64_t), value :: len_beta
            real(c_double), intent(inout), optional :: generating(*), central(*)
            real(c_double), intent(inout), optional :: energy
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_sturmian_add_gsf(handle, electron, l, n, params, beta) &
                bind(C, name="atomgpu_sturmian_add_gsf") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr, atomgpu_gsf_params_t
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: electron, l
            integer(c_int64_t), value :: n
            type(atomgpu_gsf_params_t), intent(in) :: params
            real(c_double), intent(inout), optional :: beta(*)
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_sturmian_one_electron(handle, electron, l, overlap, ld_overlap, cols_overlap, generating, &
                ld_generating, cols_generating) bind(C, name="atomgpu_sturmian_one_electron") result(status)
            import :: c_int32_t, c_int64_t, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: electron, l
            type(*), intent(inout) :: overlap(*)
            integer(c_int64_t), value :: ld_overlap, cols_overlap
            type(*), intent(inout) :: generating(*)
            integer(c_int64_t), value :: ld_generating, cols_generating
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_sturmian_one_electron_block(handle, params, la, lb, order, h, ld_h, cols_h, s, ld_s, &
                cols_s) bind(C, name="atomgpu_sturmian_one_electron_block") result(status)
            import :: c_int32_t, c_int64_t, c_ptr, atomgpu_sturmian_params_t
            type(c_ptr), value :: handle
            type(atomgpu_sturmian_params_t), intent(in) :: params
            integer(c_int32_t), value :: la, lb, order
            type(*), intent(inout) :: h(*)
            integer(c_int64_t), value :: ld_h, cols_h
            type(*), intent(inout) :: s(*)
            integer(c_int64_t), value :: ld_s, cols_s
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_sturmian_repulsion(handle, lpa, lpb, la, lb, l, order, out, ld_out, cols_out) &
                bind(C, name="atomgpu_sturmian_repulsion") result(status)
            import :: c_int32_t, c_int64_t, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: lpa, lpb, la, lb, l, order
            type(*), intent(inout) :: out(*)
            integer(c_int64_t), value :: ld_out, cols_out
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_sturmian_repulsion_dev(handle, lpa, lpb, la, lb, l, order, out_dev, len_out_dev, &
                ld_out_dev) bind(C, name="atomgpu_sturmian_repulsion_dev") result(status)
            import :: c_int32_t, c_int64_t, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: lpa, lpb, la, lb, l, order
            type(c_ptr), value :: out_dev
            integer(c_int64_t), value :: len_out_dev, ld_out_dev
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_sturmian_angular(l_total, m, lpa, lpb, la, lb, l, value) &
                bind(C, name="atomgpu_sturmian_angular") result(status)
            import :: c_int32_t, c_double
            integer(c_int32_t), value :: l_total, m, lpa, lpb, la, lb, l
            real(c_double), intent(inout) :: value
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_sturmian_hamiltonian_size(handle, params, n_pairs, la, lb, size) &
                bind(C, name="atomgpu_sturmian_hamiltonian_size") result(status)
            import :: c_int32_t, c_int64_t, c_ptr, atomgpu_sturmian_params_t
            type(c_ptr), value :: handle
            type(atomgpu_sturmian_params_t), intent(in) :: params
            integer(c_int64_t), value :: n_pairs
            integer(c_int32_t), intent(in) :: la(*), lb(*)
            integer(c_int64_t), intent(inout) :: size
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_sturmian_hamiltonian(handle, params, n_pairs, la, lb, order, h, ld_h, cols_h, s, ld_s, &
                cols_s) bind(C, name="atomgpu_sturmian_hamiltonian") result(status)
            import :: c_int32_t, c_int64_t, c_ptr, atomgpu_sturmian_params_t
            type(c_ptr), value :: handle
            type(atomgpu_sturmian_params_t), intent(in) :: params
            integer(c_int64_t), value :: n_pairs
            integer(c_int32_t), intent(in) :: la(*), lb(*)
            integer(c_int32_t), value :: order
            type(*), intent(inout) :: h(*)
            integer(c_int64_t), value :: ld_h, cols_h
            type(*), intent(inout) :: s(*)
            integer(c_int64_t), value :: ld_s, cols_s
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_sturmian_solve(n, h, ld_h, s, ld_s, k, energies, vectors, ld_vectors, cols_vectors) &
                bind(C, name="atomgpu_sturmian_solve") result(status)
            import :: c_int32_t, c_int64_t, c_double
            integer(c_int64_t), value :: n
            real(c_double), intent(in) :: h(*)
            integer(c_int64_t), value :: ld_h
            real(c_double), intent(in) :: s(*)
            integer(c_int64_t), value :: ld_s, k
            real(c_double), intent(inout) :: energies(*)
            real(c_double), intent(inout), optional :: vectors(*)
            integer(c_int64_t), value :: ld_vectors, cols_vectors
            integer(c_int32_t) :: status
        end function
    end interface

contains

    ! ============================================================================================
    ! Internal helpers.

    ! Checks that a basis was made (C argument position 1 of every function on a handle).
    subroutine check_basis(b, status)
        type(atomgpu_sturmian_basis), intent(in) :: b
        integer(c_int32_t), intent(inout) :: status
        call reject(c_associated(b%ptr), 1, "argument `handle`: was not created by " // &
            "atomgpu_sturmian_create (or was destroyed)", status)
    end subroutine

    ! Checks that the kind of the arrays (complex or not) is the basis's.
    subroutine check_kind(b, complex_arrays, position, name, status)
        type(atomgpu_sturmian_basis), intent(in) :: b
        logical, intent(in) :: complex_arrays
        integer, intent(in) :: position
        character(len=*), intent(in) :: name
        integer(c_int32_t), intent(inout) :: status
        if (status /= int(ATOMGPU_OK, c_int32_t) .or. .not. c_associated(b%ptr)) return
        if (b%is_complex) then
            call reject(complex_arrays, position, "argument `" // name // "`: is real, the basis is complex " // &
                "(created with is_complex = .true.): pass complex(c_double_complex) arrays", status)
        else
            call reject(.not. complex_arrays, position, "argument `" // name // "`: is complex, the basis is " // &
                "real: pass real(c_double) arrays (or create the basis with is_complex = .true.)", status)
        end if
    end subroutine

    ! ============================================================================================
    ! Grid and basis.

    ! The number of points on which channel values are given for a grid of nq Gauss points and
    ! ns points per interval: nq + 1 + nq ns.
    pure function atomgpu_sturmian_n_points(nq, ns) result(n)
        integer, intent(in) :: nq, ns
        integer(c_int64_t) :: n
        n = int(nq, c_int64_t) + 1 + int(nq, c_int64_t) * int(ns, c_int64_t)
    end function

    ! The Gauss-Legendre grid of [0, rmax] (paper §3.1-3.2): the nq = size(abscissas) abscissas
    ! and, when present, their weights [bohr] and all the points [bohr] on which channel values are
    ! given, radially ascending: size(points) = atomgpu_sturmian_n_points(nq, ns) (Gauss point j at
    ! points(1 + (j - 1) (ns + 1)), ns equally spaced points inside each interval, rmax last).
    ! rmax > 0, nq in [1, 1024], ns odd in [1, 1023].
    subroutine atomgpu_sturmian_grid(rmax, ns, abscissas, weights, points, stat)
        real(c_double), intent(in) :: rmax
        integer, intent(in) :: ns
        real(c_double), intent(inout), contiguous :: abscissas(:)
        real(c_double), intent(inout), contiguous, optional :: weights(:), points(:)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: nq
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        nq = size(abscissas, kind=c_int64_t)
        if (present(weights)) then
            call reject(size(weights, kind=c_int64_t) == nq, 5, size_message("weights", size(weights, kind=c_int64_t), &
                "elements", nq, "size(abscissas) = nq"), status)
        end if
        if (present(points) .and. nq >= 1 .and. ns >= 1) then
            call reject(size(points, kind=c_int64_t) == atomgpu_sturmian_n_points(int(nq), ns), 6, &
                size_message("points", size(points, kind=c_int64_t), "elements", &
                atomgpu_sturmian_n_points(int(nq), ns), "nq + 1 + nq ns"), status)
        end if
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_sturmian_grid(rmax, nq, int(ns, c_int64_t), abscissas, weights, points)
        end if
        call finish(status, stat, "atomgpu_sturmian_grid")
    end subroutine

    ! Creates an empty basis on the current backend for the grid (rmax, nq, ns): the
    ! Gauss-Legendre one of atomgpu_sturmian_grid, or the caller's when abscissas(nq) (strictly
    ! increasing inside (0, rmax)) and weights(nq) (> 0) are given (both or neither).
    ! is_complex (default .false.) chooses real or complex values. n_devices (1 when absent; pass it
    ! by keyword): GPUs atomgpu_sturmian_hamiltonian spreads its pair blocks over when H and S are
    ! host arrays (by the one rule of README "Several GPUs": from ATOMGPU_DEVICE, else from GPU
    ! node-local rank x n_devices; each with a copy of the channels; the matrices equal one
    ! GPU's), as atomgpu_sturmian_create_on_devices in C; on the CPU backend, engines on as many
    ! threads. device_ids (by keyword, instead of n_devices): the GPUs by ordinal (0-based,
    ! distinct; the first runs every other call), as atomgpu_sturmian_create_on_device_list.
    subroutine atomgpu_sturmian_create(b, rmax, nq, ns, is_complex, abscissas, weights, stat, n_devices, device_ids)
        type(atomgpu_sturmian_basis), intent(inout) :: b
        real(c_double), intent(in) :: rmax
        integer, intent(in) :: nq, ns
        logical, intent(in), optional :: is_complex
        real(c_double), intent(in), contiguous, optional :: abscissas(:), weights(:)
        integer, intent(out), optional :: stat
        integer, intent(in), optional :: n_devices
        integer, intent(in), optional :: device_ids(:)
        integer(c_int32_t) :: status, complex_flag, devices
        integer :: handle_arg
        type(c_ptr) :: handle
        logical :: want_complex
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        ! The argument numbers of C's atomgpu_sturmian_create, of _create_on_devices with n_devices,
        ! or of _create_on_device_list with device_ids.
        handle_arg = 7
        devices = 1
        if (present(n_devices)) then
            handle_arg = 8
            devices = int(n_devices, c_int32_t)
        end if
        if (present(device_ids)) handle_arg = 9
        call reject(.not. (present(n_devices) .and. present(device_ids)), 7, "argument `n_devices`: give " // &
            "n_devices or device_ids, not both", status)
        call reject(.not. c_associated(b%ptr), handle_arg, "argument `handle`: already holds a handle " // &
            "(call atomgpu_sturmian_destroy on it first)", status)
        call reject(present(abscissas) .or. .not. present(weights), 4, "argument `abscissas`: missing; " // &
            "abscissas and weights come together (the caller's grid) or not at all (Gauss-Legendre)", status)
        call reject(present(weights) .or. .not. present(abscissas), 5, "argument `weights`: missing; " // &
            "abscissas and weights come together (the caller's grid) or not at all (Gauss-Legendre)", status)
        if (present(abscissas)) then
            call reject(size(abscissas) == nq, 4, size_message("abscissas", size(abscissas, kind=c_int64_t), &
                "elements", int(nq, c_int64_t), "nq"), status)
        end if
        if (present(weights)) then
            call reject(size(weights) == nq, 5, size_message("weights", size(weights, kind=c_int64_t), &
                "elements", int(nq, c_int64_t), "nq"), status)
        end if
        want_complex = .false.
        if (present(is_complex)) want_complex = is_complex
        complex_flag = 0
        if (want_complex) complex_flag = 1
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            handle = c_null_ptr
            if (present(abscissas) .and. nq >= 1) then
                status = create_c(abscissas, weights)
            else if (present(abscissas)) then
                ! nq < 1 (empty arrays): the library refuses nq before reading any array.
                status = create_c([0.0_c_double], [0.0_c_double])
            else
                status = create_c()
            end if
            if (status == int(ATOMGPU_OK, c_int32_t)) then
                b%ptr = handle
                b%is_complex = want_complex
                b%nq = nq
            end if
        end if
        call finish(status, stat, "atomgpu_sturmian_create")
    contains
        ! The C create call with the grid arrays x, w (absent: Gauss-Legendre) on the devices asked.
        function create_c(x, w) result(code)
            real(c_double), intent(in), optional :: x(:), w(:)
            integer(c_int32_t) :: code
            if (present(device_ids)) then
                code = c_atomgpu_sturmian_create_on_device_list(rmax, int(nq, c_int64_t), int(ns, c_int64_t), x, w, &
                    complex_flag, int(size(device_ids), c_int32_t), int(device_ids, c_int32_t), handle)
            else
                code = c_atomgpu_sturmian_create_on_devices(rmax, int(nq, c_int64_t), int(ns, c_int64_t), x, w, &
                    complex_flag, devices, handle)
            end if
        end function
    end subroutine

    ! Releases a basis and resets the variable (one never created is fine). A handle already
    ! released through another copy of the variable is ATOMGPU_ERR_INVALID_ARGUMENT (nothing is
    ! released twice).
    subroutine atomgpu_sturmian_destroy(b, stat)
        type(atomgpu_sturmian_basis), intent(inout) :: b
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        if (c_associated(b%ptr)) status = c_atomgpu_sturmian_destroy(b%ptr)
        b%ptr = c_null_ptr
        b%is_complex = .false.
        b%nq = 0
        call finish(status, stat, "atomgpu_sturmian_destroy")
    end subroutine

    ! Checks shared by the two add_channel variants.
    subroutine check_add_channel(b, complex_arrays, n, n_beta, n_generating, central_given, n_central, status)
        type(atomgpu_sturmian_basis), intent(in) :: b
        logical, intent(in) :: complex_arrays, central_given
        integer(c_int64_t), intent(in) :: n, n_beta, n_generating, n_central
        integer(c_int32_t), intent(inout) :: status
        call check_basis(b, status)
        call check_kind(b, complex_arrays, 5, "values", status)
        call reject(n_beta == n, 7, size_message("beta", n_beta, "elements", n, "size(values, 2) = n"), status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            call reject(n_generating == b%nq, 8, size_message("generating", n_generating, "elements", b%nq, &
                "nq, the grid's abscissas"), status)
            if (central_given) then
                call reject(n_central == b%nq, 9, size_message("central", n_central, "elements", b%nq, &
                    "nq, the grid's abscissas"), status)
            end if
        end if
    end subroutine

    ! Adds (or replaces) the channel (electron, l): the n = size(values, 2) functions given by
    ! their values on the grid's points, values(1:n_points, j) for function j (size(values, 1)
    ! >= n_points = atomgpu_sturmian_n_points(nq, ns), the grid's point order), their eigenvalues
    ! beta(n) of eq. 9, the generating potential at the abscissas generating(nq) [hartree, real]
    ! and optionally the central potential U at the abscissas central(nq) [hartree, real]; absent:
    ! U = -Z/r with the Z given to the assembly. energy (pass it by keyword) [hartree]: the energy
    ! E_i of eq. 8-9 the functions were generated at, which the assembly then uses for this
    ! channel (C: atomgpu_sturmian_add_channel_at_energy); absent: params%energy_a or _b.
    subroutine add_channel_real(b, electron, l, values, beta, generating, central, stat, energy)
        type(atomgpu_sturmian_basis), intent(inout) :: b
        integer, intent(in) :: electron, l
        real(c_double), intent(in), contiguous :: values(:, :), beta(:), generating(:)
        real(c_double), intent(in), contiguous, optional :: central(:)
        integer, intent(out), optional :: stat
        real(c_double), intent(in), optional :: energy
        integer(c_int32_t) :: status
        integer(c_int64_t) :: n, n_central
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        n = size(values, 2, kind=c_int64_t)
        n_central = 0
        if (present(central)) n_central = size(central, kind=c_int64_t)
        call check_add_channel(b, .false., n, size(beta, kind=c_int64_t), size(generating, kind=c_int64_t), &
            present(central), n_central, status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            if (present(energy)) then
                status = c_atomgpu_sturmian_add_channel_at_energy(b%ptr, int(electron, c_int32_t), int(l, c_int32_t), &
                    n, values, size(values, 1, kind=c_int64_t), beta, generating, central, energy)
            else
                status = c_atomgpu_sturmian_add_channel(b%ptr, int(electron, c_int32_t), int(l, c_int32_t), n, &
                    values, size(values, 1, kind=c_int64_t), beta, generating, central)
            end if
        end if
        call finish(status, stat, add_channel_name(present(energy)))
    end subroutine

    ! As add_channel_real, for a complex basis (values and beta complex; the potentials real).
    subroutine add_channel_complex(b, electron, l, values, beta, generating, central, stat, energy)
        type(atomgpu_sturmian_basis), intent(inout) :: b
        integer, intent(in) :: electron, l
        complex(c_double_complex), intent(in), contiguous :: values(:, :), beta(:)
        real(c_double), intent(in), contiguous :: generating(:)
        real(c_double), intent(in), contiguous, optional :: central(:)
        integer, intent(out), optional :: stat
        real(c_double), intent(in), optional :: energy
        integer(c_int32_t) :: status
        integer(c_int64_t) :: n, n_central
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        n = size(values, 2, kind=c_int64_t)
        n_central = 0
        if (present(central)) n_central = size(central, kind=c_int64_t)
        call check_add_channel(b, .true., n, size(beta, kind=c_int64_t), size(generating, kind=c_int64_t), &
            present(central), n_central, status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            if (present(energy)) then
                status = c_atomgpu_sturmian_add_channel_at_energy(b%ptr, int(electron, c_int32_t), int(l, c_int32_t), &
                    n, values, size(values, 1, kind=c_int64_t), beta, generating, central, energy)
            else
                status = c_atomgpu_sturmian_add_channel(b%ptr, int(electron, c_int32_t), int(l, c_int32_t), n, &
                    values, size(values, 1, kind=c_int64_t), beta, generating, central)
            end if
        end if
        call finish(status, stat, add_channel_name(present(energy)))
    end subroutine

    ! The C function an add_channel call reaches (for its error messages).
    function add_channel_name(with_energy) result(name)
        logical, intent(in) :: with_energy
        character(len=:), allocatable :: name
        name = "atomgpu_sturmian_add_channel"
        if (with_energy) name = "atomgpu_sturmian_add_channel_at_energy"
    end function

    ! Generates a bound-state GSF channel (Yukawa generating potential, Laguerre Galerkin solve of
    ! eq. 9 on [0, rmax]) of n functions on the basis's grid and adds it as the channel
    ! (electron, l), l in [0, 40]; beta(n), when present, receives the eigenvalues (ascending). A
    ! real or a complex basis (the values are real). The channel keeps params' -Z/r and energy
    ! (an assembly uses them whatever its own Z and energies); atomgpu_sturmian_channel_values
    ! reads the functions back.
    subroutine atomgpu_sturmian_add_gsf(b, electron, l, n, params, beta, stat)
        type(atomgpu_sturmian_basis), intent(inout) :: b
        integer, intent(in) :: electron, l, n
        type(atomgpu_gsf_params_t), intent(in) :: params
        real(c_double), intent(inout), contiguous, optional :: beta(:)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_basis(b, status)
        if (present(beta)) then
            call reject(size(beta) == n, 6, size_message("beta", size(beta, kind=c_int64_t), "elements", &
                int(n, c_int64_t), "n"), status)
        end if
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            if (present(beta) .and. n >= 1) then
                status = c_atomgpu_sturmian_add_gsf(b%ptr, int(electron, c_int32_t), int(l, c_int32_t), &
                    int(n, c_int64_t), params, beta)
            else
                status = c_atomgpu_sturmian_add_gsf(b%ptr, int(electron, c_int32_t), int(l, c_int32_t), &
                    int(n, c_int64_t), params)
            end if
        end if
        call finish(status, stat, "atomgpu_sturmian_add_gsf")
    end subroutine

    ! Checks shared by the channel_values variants: the kind of values and beta, and the sizes of
    ! generating and central, which C takes by address alone (C positions: values 4, beta 7,
    ! generating 9, central 10).
    subroutine check_channel_values(b, complex_arrays, values_given, beta_given, generating_given, n_generating, &
            central_given, n_central, status)
        type(atomgpu_sturmian_basis), intent(in) :: b
        logical, intent(in) :: complex_arrays, values_given, beta_given, generating_given, central_given
        integer(c_int64_t), intent(in) :: n_generating, n_central
        integer(c_int32_t), intent(inout) :: status
        call check_basis(b, status)
        if (values_given) call check_kind(b, complex_arrays, 4, "values", status)
        if (beta_given) call check_kind(b, complex_arrays, 7, "beta", status)
        if (status /= int(ATOMGPU_OK, c_int32_t)) return
        if (generating_given) call reject(n_generating == b%nq, 9, size_message("generating", n_generating, &
            "elements", b%nq, "nq, the grid's abscissas"), status)
        if (central_given) call reject(n_central == b%nq, 10, size_message("central", n_central, "elements", b%nq, &
            "nq, the grid's abscissas"), status)
    end subroutine

    ! Channel (electron, l) as the basis holds it (e.g. generated by atomgpu_sturmian_add_gsf);
    ! every output is optional: values(>= n_points, >= N) the functions at the grid's points
    ! [bohr^-1/2], beta(>= N) their eigenvalues of eq. 9, generating(nq) and central(nq) the
    ! generating and central potentials at the abscissas [hartree], energy the energy they were
    ! generated at [hartree]. central and energy are refused (stat, naming them) for a channel
    ! that has none of its own (added without central, or without energy).
    subroutine channel_values_real(b, electron, l, values, beta, generating, central, energy, stat)
        type(atomgpu_sturmian_basis), intent(in) :: b
        integer, intent(in) :: electron, l
        real(c_double), intent(inout), contiguous, optional :: values(:, :), beta(:), generating(:), central(:)
        real(c_double), intent(inout), optional :: energy
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: shape_values(2)
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        shape_values = 0
        if (present(values)) shape_values = shape(values, kind=c_int64_t)
        call check_channel_values(b, .false., present(values), present(beta), present(generating), elements(generating), &
            present(central), elements(central), status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_sturmian_channel_values(b%ptr, int(electron, c_int32_t), int(l, c_int32_t), values, &
                shape_values(1), shape_values(2), beta, elements(beta), generating, central, energy)
        end if
        call finish(status, stat, "atomgpu_sturmian_channel_values")
    end subroutine

    ! As channel_values_real, for a complex basis: values and beta complex, and required (they
    ! tell the two procedures apart); the potentials real and optional.
    subroutine channel_values_complex(b, electron, l, values, beta, generating, central, energy, stat)
        type(atomgpu_sturmian_basis), intent(in) :: b
        integer, intent(in) :: electron, l
        complex(c_double_complex), intent(inout), contiguous :: values(:, :), beta(:)
        real(c_double), intent(inout), contiguous, optional :: generating(:), central(:)
        real(c_double), intent(inout), optional :: energy
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_channel_values(b, .true., .true., .true., present(generating), elements(generating), &
            present(central), elements(central), status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_sturmian_channel_values(b%ptr, int(electron, c_int32_t), int(l, c_int32_t), values, &
                size(values, 1, kind=c_int64_t), size(values, 2, kind=c_int64_t), beta, size(beta, kind=c_int64_t), &
                generating, central, energy)
        end if
        call finish(status, stat, "atomgpu_sturmian_channel_values")
    end subroutine

    ! size(a) of an optional array, 0 when absent.
    integer(c_int64_t) function elements(a)
        real(c_double), intent(in), optional :: a(:)
        elements = 0
        if (present(a)) elements = size(a, kind=c_int64_t)
    end function

    ! The one-electron matrices of channel (electron, l) (eq. 19), N x N: overlap = I[1] (eq. 13)
    ! and generating = I[V] (eq. 14, hartree). Arrays (>= N, >= N).
    subroutine one_electron_real(b, electron, l, overlap, generating, stat)
        type(atomgpu_sturmian_basis), intent(in) :: b
        integer, intent(in) :: electron, l
        real(c_double), intent(inout), contiguous :: overlap(:, :), generating(:, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_basis(b, status)
        call check_kind(b, .false., 4, "overlap", status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_sturmian_one_electron(b%ptr, int(electron, c_int32_t), int(l, c_int32_t), overlap, &
                size(overlap, 1, kind=c_int64_t), size(overlap, 2, kind=c_int64_t), generating, &
                size(generating, 1, kind=c_int64_t), size(generating, 2, kind=c_int64_t))
        end if
        call finish(status, stat, "atomgpu_sturmian_one_electron")
    end subroutine

    subroutine one_electron_complex(b, electron, l, overlap, generating, stat)
        type(atomgpu_sturmian_basis), intent(in) :: b
        integer, intent(in) :: electron, l
        complex(c_double_complex), intent(inout), contiguous :: overlap(:, :), generating(:, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_basis(b, status)
        call check_kind(b, .true., 4, "overlap", status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_sturmian_one_electron(b%ptr, int(electron, c_int32_t), int(l, c_int32_t), overlap, &
                size(overlap, 1, kind=c_int64_t), size(overlap, 2, kind=c_int64_t), generating, &
                size(generating, 1, kind=c_int64_t), size(generating, 2, kind=c_int64_t))
        end if
        call finish(status, stat, "atomgpu_sturmian_one_electron")
    end subroutine

    ! The one-electron part of the diagonal block of pair (la, lb) (the bracket of eq. 12, with
    ! the energies and charges of params) into h, and its overlap Oa x Ob (eq. 20) into s, each
    ! Na Nb x Na Nb (arrays (>= Na Nb, >= Na Nb)), in `order`.
    subroutine one_electron_block_real(b, params, la, lb, order, h, s, stat)
        type(atomgpu_sturmian_basis), intent(in) :: b
        type(atomgpu_sturmian_params_t), intent(in) :: params
        integer, intent(in) :: la, lb, order
        real(c_double), intent(inout), contiguous :: h(:, :), s(:, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_basis(b, status)
        call check_kind(b, .false., 6, "h", status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_sturmian_one_electron_block(b%ptr, params, int(la, c_int32_t), int(lb, c_int32_t), &
                int(order, c_int32_t), h, size(h, 1, kind=c_int64_t), size(h, 2, kind=c_int64_t), s, &
                size(s, 1, kind=c_int64_t), size(s, 2, kind=c_int64_t))
        end if
        call finish(status, stat, "atomgpu_sturmian_one_electron_block")
    end subroutine

    subroutine one_electron_block_complex(b, params, la, lb, order, h, s, stat)
        type(atomgpu_sturmian_basis), intent(in) :: b
        type(atomgpu_sturmian_params_t), intent(in) :: params
        integer, intent(in) :: la, lb, order
        complex(c_double_complex), intent(inout), contiguous :: h(:, :), s(:, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_basis(b, status)
        call check_kind(b, .true., 6, "h", status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_sturmian_one_electron_block(b%ptr, params, int(la, c_int32_t), int(lb, c_int32_t), &
                int(order, c_int32_t), h, size(h, 1, kind=c_int64_t), size(h, 2, kind=c_int64_t), s, &
                size(s, 1, kind=c_int64_t), size(s, 2, kind=c_int64_t))
        end if
        call finish(status, stat, "atomgpu_sturmian_one_electron_block")
    end subroutine

    ! The radial repulsion block R^{l'a l'b la lb l} (eq. 15) of bra channels (lpa, lpb), ket
    ! channels (la, lb) and multipole l [hartree]: out(>= N'a N'b, >= Na Nb), in `order`.
    subroutine repulsion_real(b, lpa, lpb, la, lb, l, order, out, stat)
        type(atomgpu_sturmian_basis), intent(in) :: b
        integer, intent(in) :: lpa, lpb, la, lb, l, order
        real(c_double), intent(inout), contiguous :: out(:, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_basis(b, status)
        call check_kind(b, .false., 8, "out", status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_sturmian_repulsion(b%ptr, int(lpa, c_int32_t), int(lpb, c_int32_t), &
                int(la, c_int32_t), int(lb, c_int32_t), int(l, c_int32_t), int(order, c_int32_t), out, &
                size(out, 1, kind=c_int64_t), size(out, 2, kind=c_int64_t))
        end if
        call finish(status, stat, "atomgpu_sturmian_repulsion")
    end subroutine

    subroutine repulsion_complex(b, lpa, lpb, la, lb, l, order, out, stat)
        type(atomgpu_sturmian_basis), intent(in) :: b
        integer, intent(in) :: lpa, lpb, la, lb, l, order
        complex(c_double_complex), intent(inout), contiguous :: out(:, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_basis(b, status)
        call check_kind(b, .true., 8, "out", status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_sturmian_repulsion(b%ptr, int(lpa, c_int32_t), int(lpb, c_int32_t), &
                int(la, c_int32_t), int(lb, c_int32_t), int(l, c_int32_t), int(order, c_int32_t), out, &
                size(out, 1, kind=c_int64_t), size(out, 2, kind=c_int64_t))
        end if
        call finish(status, stat, "atomgpu_sturmian_repulsion")
    end subroutine

    ! As atomgpu_sturmian_repulsion, into device memory out_dev (a device pointer of the basis's
    ! GPU, CUDA backend only, e.g. from CUDA Fortran or OpenACC's acc_deviceptr) of len elements
    ! (doubles, or complex pairs), leading dimension ld (>= N'a N'b); C's len_out_dev, ld_out_dev.
    subroutine atomgpu_sturmian_repulsion_dev(b, lpa, lpb, la, lb, l, order, out_dev, len, ld, stat)
        type(atomgpu_sturmian_basis), intent(in) :: b
        integer, intent(in) :: lpa, lpb, la, lb, l, order
        type(c_ptr), intent(in) :: out_dev
        integer(c_int64_t), intent(in) :: len, ld
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_basis(b, status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_sturmian_repulsion_dev(b%ptr, int(lpa, c_int32_t), int(lpb, c_int32_t), &
                int(la, c_int32_t), int(lb, c_int32_t), int(l, c_int32_t), int(order, c_int32_t), out_dev, len, ld)
        end if
        call finish(status, stat, "atomgpu_sturmian_repulsion_dev")
    end subroutine

    ! The angular coefficient A^{LM}_{l'a l'b la lb l} of eq. 16 (dimensionless; 0 when a
    ! selection rule fails) into value; the Hamiltonian uses 4 pi / (2l + 1) A. The exact value
    ! correctly rounded (exact 3j and 6j sums), about 0.1 ms at l = 200.
    subroutine atomgpu_sturmian_angular(l_total, m, lpa, lpb, la, lb, l, value, stat)
        integer, intent(in) :: l_total, m, lpa, lpb, la, lb, l
        real(c_double), intent(inout) :: value
        integer, intent(out), optional :: stat
        call enter()
        call finish(c_atomgpu_sturmian_angular(int(l_total, c_int32_t), int(m, c_int32_t), int(lpa, c_int32_t), &
            int(lpb, c_int32_t), int(la, c_int32_t), int(lb, c_int32_t), int(l, c_int32_t), value), stat, &
            "atomgpu_sturmian_angular")
    end subroutine

    ! The size n of the Hamiltonian of params and the pairs (la(p), lb(p)), p = 1..size(la), into
    ! `size`: sum_p Na(la(p)) Nb(lb(p)), or with an exchange symmetry the symmetrised count (Na Nb
    ! for la < lb, N(N+1)/2 or N(N-1)/2 for la = lb).
    subroutine atomgpu_sturmian_hamiltonian_size(b, params, la, lb, size, stat)
        type(atomgpu_sturmian_basis), intent(in) :: b
        type(atomgpu_sturmian_params_t), intent(in) :: params
        integer, intent(in), contiguous :: la(:), lb(:)
        integer(c_int64_t), intent(inout) :: size
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int32_t), allocatable :: la32(:), lb32(:)
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_basis(b, status)
        call reject(sizeof_int(lb) == sizeof_int(la), 5, size_message("lb", sizeof_int(lb), "elements", &
            sizeof_int(la), "size(la) = n_pairs"), status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            call pairs32(la, lb, la32, lb32)
            status = c_atomgpu_sturmian_hamiltonian_size(b%ptr, params, sizeof_int(la), la32, lb32, size)
        end if
        call finish(status, stat, "atomgpu_sturmian_hamiltonian_size")
    end subroutine

    ! size(a) as integer(c_int64_t) (the dummy `size` of hamiltonian_size hides the intrinsic).
    integer(c_int64_t) function sizeof_int(a)
        integer, intent(in) :: a(:)
        sizeof_int = size(a, kind=c_int64_t)
    end function

    ! int32 copies of the pair arrays (at least one element, so that no zero-size array is passed).
    subroutine pairs32(la, lb, la32, lb32)
        integer, intent(in) :: la(:), lb(:)
        integer(c_int32_t), allocatable, intent(out) :: la32(:), lb32(:)
        allocate (la32(max(size(la), 1)), lb32(max(size(la), 1)))
        la32 = 0
        lb32 = 0
        la32(1:size(la)) = int(la, c_int32_t)
        lb32(1:size(la)) = int(lb, c_int32_t)
    end subroutine

    ! Checks shared by the hamiltonian variants: the kind of h and s, and one size for la and lb
    ! (C's n_pairs).
    subroutine check_hamiltonian(b, complex_arrays, la, lb, status)
        type(atomgpu_sturmian_basis), intent(in) :: b
        logical, intent(in) :: complex_arrays
        integer, intent(in) :: la(:), lb(:)
        integer(c_int32_t), intent(inout) :: status
        call check_basis(b, status)
        call check_kind(b, complex_arrays, 7, "h", status)
        call reject(size(lb) == size(la), 5, size_message("lb", size(lb, kind=c_int64_t), "elements", &
            size(la, kind=c_int64_t), "size(la) = n_pairs"), status)
    end subroutine

    ! Assembles the Hamiltonian H and overlap S of eq. 12 for params (L, M, energies, charges,
    ! exchange symmetry) and the pairs (la(p), lb(p)) into h and s, each n x n (atomgpu_sturmian_hamiltonian_size;
    ! arrays (>= n, >= n)), pair blocks in the order given, each block in `order`: the generalised
    ! eigenproblem H c = E S c.
    subroutine hamiltonian_real(b, params, la, lb, order, h, s, stat)
        type(atomgpu_sturmian_basis), intent(in) :: b
        type(atomgpu_sturmian_params_t), intent(in) :: params
        integer, intent(in), contiguous :: la(:), lb(:)
        integer, intent(in) :: order
        real(c_double), intent(inout), contiguous :: h(:, :), s(:, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int32_t), allocatable :: la32(:), lb32(:)
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_hamiltonian(b, .false., la, lb, status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            call pairs32(la, lb, la32, lb32)
            status = c_atomgpu_sturmian_hamiltonian(b%ptr, params, size(la, kind=c_int64_t), la32, lb32, &
                int(order, c_int32_t), h, size(h, 1, kind=c_int64_t), size(h, 2, kind=c_int64_t), s, &
                size(s, 1, kind=c_int64_t), size(s, 2, kind=c_int64_t))
        end if
        call finish(status, stat, "atomgpu_sturmian_hamiltonian")
    end subroutine

    subroutine hamiltonian_complex(b, params, la, lb, order, h, s, stat)
        type(atomgpu_sturmian_basis), intent(in) :: b
        type(atomgpu_sturmian_params_t), intent(in) :: params
        integer, intent(in), contiguous :: la(:), lb(:)
        integer, intent(in) :: order
        complex(c_double_complex), intent(inout), contiguous :: h(:, :), s(:, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int32_t), allocatable :: la32(:), lb32(:)
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_hamiltonian(b, .true., la, lb, status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            call pairs32(la, lb, la32, lb32)
            status = c_atomgpu_sturmian_hamiltonian(b%ptr, params, size(la, kind=c_int64_t), la32, lb32, &
                int(order, c_int32_t), h, size(h, 1, kind=c_int64_t), size(h, 2, kind=c_int64_t), s, &
                size(s, 1, kind=c_int64_t), size(s, 2, kind=c_int64_t))
        end if
        call finish(status, stat, "atomgpu_sturmian_hamiltonian")
    end subroutine

    ! The k = size(energies) lowest eigenpairs of the real symmetric-definite problem H c = E S c
    ! (n = size(h, 2); h and s (>= n, n), lower triangles read; e.g. from
    ! atomgpu_sturmian_hamiltonian on a real basis): energies(k) ascending [hartree] and, when
    ! present, vectors(>= n, >= k) (S-normalised), on the current backend. Without vectors only the
    ! energies are computed (no eigenvector is formed). H and S of any finite scale are taken
    ! (scaled by powers of two before the solve); an eigenvalue beyond double precision is
    ! ATOMGPU_ERR_NOT_FINITE.
    subroutine atomgpu_sturmian_solve(h, s, energies, vectors, stat)
        real(c_double), intent(in), contiguous :: h(:, :), s(:, :)
        real(c_double), intent(inout), contiguous :: energies(:)
        real(c_double), intent(inout), contiguous, optional :: vectors(:, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: n, shape_vectors(2)
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        n = size(h, 2, kind=c_int64_t)
        ! C's n is the columns of h and of s alike.
        call reject(size(s, 2, kind=c_int64_t) == n, 4, size_message("s", size(s, 2, kind=c_int64_t), "columns", n, &
            "size(h, 2) = n"), status)
        shape_vectors = 0
        if (present(vectors)) shape_vectors = shape(vectors, kind=c_int64_t)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_sturmian_solve(n, h, size(h, 1, kind=c_int64_t), s, size(s, 1, kind=c_int64_t), &
                size(energies, kind=c_int64_t), energies, vectors, shape_vectors(1), shape_vectors(2))
        end if
        call finish(status, stat, "atomgpu_sturmian_solve")
    end subroutine

    ! The devices a Sturmian basis uses: ordinals(n) receives their GPU ordinals (0-based, as CUDA numbers
    ! them; the handle's own first), or -1 for each CPU engine (README "Several GPUs").
    subroutine atomgpu_sturmian_devices(h, ordinals, stat)
        type(atomgpu_sturmian_basis), intent(in) :: h
        integer, allocatable, intent(out) :: ordinals(:)
        integer, intent(out), optional :: stat
        call devices_of(h%ptr, ordinals, stat)
    end subroutine

end module atomgpu_sturmian
