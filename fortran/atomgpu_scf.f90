! atomgpu_scf: the Fortran interface of the SCF family (paper: dfratom-cudaprophet-scf, DFRATOM
! and its CUDA port): atomic Hartree-Fock and Dirac-Fock in spherical Gaussian basis sets, at
! three levels (integrals; the Fock build from a density; the whole SCF and the WTBS
! optimisation). Programs `use atomgpu` (fortran/atomgpu.f90, which INCLUDEs this file).
!
! A basis is a list of symmetries: symmetry i has the angular label angular(i) (l >= 0 for
! Hartree-Fock; kappa for Dirac-Fock, DFRATOM's order s1/2 -1, p1/2 1, p3/2 -2, d3/2 2, d5/2 -3,
! f5/2 3, f7/2 -4) and n_functions(i) exponents (bohr^-2, distinct, > 0, at most 400), stored one
! symmetry after another in exponents(:). A symmetry's matrices are m x m with m = n_functions
! (Hartree-Fock) or 2 n_functions (Dirac-Fock: large, then normalised kinetically balanced small
! functions). Energies in hartree (Dirac: without the rest energy c^2). Occupations per
! symmetry: closed(i) full orbitals and open_electrons(i) electrons in one open orbital (0: none;
! average of configuration, DFRATOM's $econfig). WTBS layouts (nbs, start, groups) are 1-based as
! in DFRATOM's $wtbs, and wtbspara holds (alpha, beta, delta, gamma) per group in $wtbs order.
! Exponents may be any finite positive numbers: every integral is formed in a scaled (logarithmic)
! form, and one that overflows double precision is ATOMGPU_ERR_NOT_FINITE naming the output and
! element. atomgpu_scf_integrals_create, atomgpu_scf_run and atomgpu_scf_optimise_wtbs honour the
! calling thread's progress callback and time limit (atomgpu_set_progress, atomgpu_set_time_limit):
! stopped, they return ATOMGPU_ERR_CANCELLED and write nothing. Their reports' done of total: the
! fraction of the supermatrix computed of 1; SCF cycles of max_iterations (the supermatrix as
! the fraction before the first); SCFs completed of max_evaluations + 2.
module atomgpu_scf
    use, intrinsic :: iso_c_binding, only: c_int32_t, c_int64_t, c_double, c_ptr, c_null_ptr, c_associated
    use atomgpu_core
    implicit none
    private

    ! Methods (params%method).
    integer(c_int32_t), parameter, public :: ATOMGPU_SCF_HARTREE_FOCK = 0   ! angular labels are l
    integer(c_int32_t), parameter, public :: ATOMGPU_SCF_DIRAC_FOCK = 1     ! angular labels are kappa
    ! Nuclear models (params%nucleus_model).
    integer(c_int32_t), parameter, public :: ATOMGPU_SCF_NUCLEUS_POINT = 0     ! V = -Z/r
    integer(c_int32_t), parameter, public :: ATOMGPU_SCF_NUCLEUS_GAUSSIAN = 1  ! nucleus_exponent
    integer(c_int32_t), parameter, public :: ATOMGPU_SCF_NUCLEUS_FERMI = 2     ! GRASP's Fermi nucleus

    public :: atomgpu_scf_gaussian_nucleus_exponent, atomgpu_scf_fermi_nucleus, atomgpu_scf_wtbs_exponents
    public :: atomgpu_scf_one_electron
    public :: atomgpu_scf_integrals_create, atomgpu_scf_integrals_destroy, atomgpu_scf_integrals_sizes
    public :: atomgpu_scf_integrals_supermatrix, atomgpu_scf_integrals_two_electron
    public :: atomgpu_scf_run, atomgpu_scf_optimise_wtbs

    ! The Hamiltonian and SCF settings (C struct atomgpu_scf_params), with DFRATOM's settings and
    ! DIIS: set nuclear_charge, and method for Dirac-Fock; diis_size = 0 for DFRATOM's damped
    ! iteration (damping, threshold_large and threshold_small apply only then).
    type, bind(C), public :: atomgpu_scf_params_t
        integer(c_int32_t) :: method = ATOMGPU_SCF_HARTREE_FOCK
        ! ATOMGPU_SCF_NUCLEUS_POINT, _GAUSSIAN (nucleus_exponent) or _FERMI (nucleus_rms_radius or
        ! nucleus_mass_number, and nucleus_skin_thickness)
        integer(c_int32_t) :: nucleus_model = ATOMGPU_SCF_NUCLEUS_POINT
        real(c_double) :: speed_of_light = 137.03599976_c_double   ! c [au], Dirac-Fock only, in [1, 1e5]
        ! Z > 0 (znuc); Dirac-Fock with a point nucleus: Z < c; a Gaussian or Fermi nucleus holds Z
        ! up to the critical charge (about 170 for c = 137.036), beyond which atomgpu_scf_run
        ! refuses it.
        real(c_double) :: nuclear_charge = 1.0_c_double
        real(c_double) :: nucleus_exponent = 0.0_c_double          ! Gaussian xi [bohr^-2] (> 0); else 0
        real(c_double) :: damping = 0.3_c_double                   ! dfctr, in [0, 1)
        real(c_double) :: threshold_large = 1.0e-5_c_double        ! thdll
        real(c_double) :: threshold_small = 1.0e-7_c_double        ! thdsl (small-large and small-small)
        integer(c_int64_t) :: max_iterations = 50                  ! maxitr, in [1, 1000000]
        integer(c_int64_t) :: diis_size = 8                        ! Pulay DIIS cycles, in [0, 100]
        real(c_double) :: threshold_energy = 1.0e-12_c_double      ! DIIS: |dE| / max(1, |E|)
        real(c_double) :: threshold_gradient = 1.0e-6_c_double     ! DIIS: max |R_ij| / max(1, gap)
        ! Fermi nucleus: A (>= 1), read when nucleus_rms_radius = 0: r_rms = 0.836 A^(1/3) + 0.570 fm
        real(c_double) :: nucleus_mass_number = 0.0_c_double
        ! Fermi nucleus: r_rms [fm] (e.g. Angeli and Marinova's table), or 0: from the mass number
        real(c_double) :: nucleus_rms_radius = 0.0_c_double
        real(c_double) :: nucleus_skin_thickness = 2.30_c_double  ! Fermi nucleus: t [fm], a = t/(4 ln 3)
    end type

    ! The two-electron supermatrix of one basis, held by the library (on the GPU on the CUDA
    ! backend). Made by atomgpu_scf_integrals_create, released by atomgpu_scf_integrals_destroy.
    type, public :: atomgpu_scf_integrals_t
        private
        type(c_ptr) :: ptr = c_null_ptr
    end type

    ! C struct atomgpu_scf_wtbs_settings, filled by atomgpu_scf_optimise_wtbs from its arguments
    ! (the arrays' addresses, C NULL for a zero-size one).
    type, bind(C) :: wtbs_settings
        integer(c_int64_t) :: n_groups
        type(c_ptr) :: wtbspara, nbs, start, groups
        real(c_double) :: rho_begin, rho_end
        integer(c_int64_t) :: max_evaluations
    end type

    interface
        function c_gaussian_nucleus_exponent(mass_number, exponent) &
                bind(C, name="atomgpu_scf_gaussian_nucleus_exponent") result(status)
            import :: c_int32_t, c_double
            real(c_double), value :: mass_number
            real(c_double), intent(out) :: exponent
            integer(c_int32_t) :: status
        end function

        function c_fermi_nucleus(mass_number, rms_radius, skin_thickness, half_density_radius, diffuseness) &
                bind(C, name="atomgpu_scf_fermi_nucleus") result(status)
            import :: c_int32_t, c_double
            real(c_double), value :: mass_number, rms_radius, skin_thickness
            real(c_double), intent(out) :: half_density_radius, diffuseness
            integer(c_int32_t) :: status
        end function

        function c_wtbs_exponents(n_groups, wtbspara, n_symmetries, nbs, start, groups, n_exponents, exponents) &
                bind(C, name="atomgpu_scf_wtbs_exponents") result(status)
            import :: c_int32_t, c_int64_t, c_double
            integer(c_int64_t), value :: n_groups, n_symmetries, n_exponents
            real(c_double), intent(in) :: wtbspara(*)
            integer(c_int64_t), intent(in) :: nbs(*), start(*), groups(*)
            real(c_double), intent(inout) :: exponents(*)
            integer(c_int32_t) :: status
        end function

        function c_one_electron(params, angular, n_functions, exponents, overlap, free_hamiltonian, nuclear) &
                bind(C, name="atomgpu_scf_one_electron") result(status)
            import :: c_int32_t, c_int64_t, c_double, atomgpu_scf_params_t
            type(atomgpu_scf_params_t), intent(in) :: params
            integer(c_int32_t), value :: angular
            integer(c_int64_t), value :: n_functions
            real(c_double), intent(in) :: exponents(*)
            real(c_double), intent(inout) :: overlap(*), free_hamiltonian(*), nuclear(*)
            integer(c_int32_t) :: status
        end function

        function c_integrals_create(params, n_symmetries, angular, n_functions, exponents, handle) &
                bind(C, name="atomgpu_scf_integrals_create") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr, atomgpu_scf_params_t
            type(atomgpu_scf_params_t), intent(in) :: params
            integer(c_int64_t), value :: n_symmetries
            integer(c_int32_t), intent(in) :: angular(*)
            integer(c_int64_t), intent(in) :: n_functions(*)
            real(c_double), intent(in) :: exponents(*)
            type(c_ptr), intent(inout) :: handle
            integer(c_int32_t) :: status
        end function

        function c_integrals_destroy(handle) bind(C, name="atomgpu_scf_integrals_destroy") result(status)
            import :: c_int32_t, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t) :: status
        end function

        function c_integrals_sizes(handle, n_pairs, n_sets) bind(C, name="atomgpu_scf_integrals_sizes") result(status)
            import :: c_int32_t, c_int64_t, c_ptr
            type(c_ptr), value :: handle
            integer(c_int64_t), intent(inout) :: n_pairs, n_sets
            integer(c_int32_t) :: status
        end function

        function c_integrals_supermatrix(handle, n_sets, packed) &
                bind(C, name="atomgpu_scf_integrals_supermatrix") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            type(c_ptr), value :: handle
            integer(c_int64_t), value :: n_sets
            real(c_double), intent(inout) :: packed(*)
            integer(c_int32_t) :: status
        end function

        function c_integrals_two_electron(handle, n_values, densities, g) &
                bind(C, name="atomgpu_scf_integrals_two_electron") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            type(c_ptr), value :: handle
            integer(c_int64_t), value :: n_values
            real(c_double), intent(in) :: densities(*)
            real(c_double), intent(inout) :: g(*)
            integer(c_int32_t) :: status
        end function

        function c_run_orbitals(params, n_symmetries, angular, n_functions, exponents, closed, open_electrons, &
                energies, n_orbitals, orbital_energies, iterations, coefficients, len_coefficients, densities, &
                len_densities, convergence) bind(C, name="atomgpu_scf_run_orbitals") result(status)
            import :: c_int32_t, c_int64_t, c_double, atomgpu_scf_params_t
            type(atomgpu_scf_params_t), intent(in) :: params
            integer(c_int64_t), value :: n_symmetries, n_orbitals, len_coefficients, len_densities
            integer(c_int32_t), intent(in) :: angular(*)
            integer(c_int64_t), intent(in) :: n_functions(*), closed(*)
            real(c_double), intent(in) :: exponents(*), open_electrons(*)
            real(c_double), intent(inout) :: energies(*), orbital_energies(*), coefficients(*), densities(*)
            real(c_double), intent(inout) :: convergence(*)
            integer(c_int64_t), intent(inout) :: iterations
            integer(c_int32_t) :: status
        end function

        function c_run(params, n_symmetries, angular, n_functions, exponents, closed, open_electrons, energies, &
                n_orbitals, orbital_energies, iterations) bind(C, name="atomgpu_scf_run") result(status)
            import :: c_int32_t, c_int64_t, c_double, atomgpu_scf_params_t
            type(atomgpu_scf_params_t), intent(in) :: params
            integer(c_int64_t), value :: n_symmetries, n_orbitals
            integer(c_int32_t), intent(in) :: angular(*)
            integer(c_int64_t), intent(in) :: n_functions(*), closed(*)
            real(c_double), intent(in) :: exponents(*), open_electrons(*)
            real(c_double), intent(inout) :: energies(*), orbital_energies(*)
            integer(c_int64_t), intent(inout) :: iterations
            integer(c_int32_t) :: status
        end function

        function c_optimise_wtbs(params, n_symmetries, angular, closed, open_electrons, settings, wtbs_optimised, &
                n_exponents, exponents, energies, evaluations, converged) bind(C, name="atomgpu_scf_optimise_wtbs") &
                result(status)
            import :: c_int32_t, c_int64_t, c_double, atomgpu_scf_params_t, wtbs_settings
            type(atomgpu_scf_params_t), intent(in) :: params
            integer(c_int64_t), value :: n_symmetries, n_exponents
            integer(c_int32_t), intent(in) :: angular(*)
            integer(c_int64_t), intent(in) :: closed(*)
            real(c_double), intent(in) :: open_electrons(*)
            type(wtbs_settings), intent(in) :: settings
            real(c_double), intent(inout) :: wtbs_optimised(*), exponents(*), energies(*)
            integer(c_int64_t), intent(inout) :: evaluations
            integer(c_int32_t), intent(inout) :: converged
            integer(c_int32_t) :: status
        end function
    end interface

contains

    ! A Fortran array of at least one element for a possibly empty one (the library refuses the
    ! count before it reads any array).
    function at_least_one(x) result(y)
        real(c_double), intent(in) :: x(:)
        real(c_double), allocatable :: y(:)
        if (size(x) > 0) then
            y = x
        else
            y = [0.0_c_double]
        end if
    end function

    ! Integers as int64_t (at least one element).
    function int64s(x) result(y)
        integer, intent(in) :: x(:)
        integer(c_int64_t), allocatable :: y(:)
        if (size(x) > 0) then
            y = int(x, c_int64_t)
        else
            y = [0_c_int64_t]
        end if
    end function

    ! Integers as int32_t (at least one element).
    function int32s(x) result(y)
        integer, intent(in) :: x(:)
        integer(c_int32_t), allocatable :: y(:)
        if (size(x) > 0) then
            y = int(x, c_int32_t)
        else
            y = [0_c_int32_t]
        end if
    end function

    ! The exponent xi [bohr^-2] of the Gaussian nuclear model for mass number A (Visscher and
    ! Dyall 1997: xi = 3 / (2 r_rms^2), r_rms = (0.836 A^(1/3) + 0.570) fm).
    subroutine atomgpu_scf_gaussian_nucleus_exponent(mass_number, exponent, stat)
        real(c_double), intent(in) :: mass_number
        real(c_double), intent(inout) :: exponent
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        real(c_double) :: xi
        call enter()
        status = c_gaussian_nucleus_exponent(mass_number, xi)
        if (status == int(ATOMGPU_OK, c_int32_t)) exponent = xi
        call finish(status, stat, "atomgpu_scf_gaussian_nucleus_exponent")
    end subroutine

    ! The Fermi nucleus's half-density radius c and diffuseness a [fm] (GRASP's isodata values):
    ! a = skin_thickness / (4 ln 3) (GRASP: 2.30 fm), c from the root-mean-square radius rms_radius
    ! [fm], or from GRASP's 0.836 A^(1/3) + 0.570 fm of mass_number when rms_radius = 0.
    subroutine atomgpu_scf_fermi_nucleus(mass_number, rms_radius, skin_thickness, half_density_radius, &
            diffuseness, stat)
        real(c_double), intent(in) :: mass_number, rms_radius, skin_thickness
        real(c_double), intent(inout) :: half_density_radius, diffuseness
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        real(c_double) :: c, a
        call enter()
        status = c_fermi_nucleus(mass_number, rms_radius, skin_thickness, c, a)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            half_density_radius = c
            diffuseness = a
        end if
        call finish(status, stat, "atomgpu_scf_fermi_nucleus")
    end subroutine

    ! Well-tempered exponents of DFRATOM's $wtbs: wtbspara(4 * n_groups) = (alpha, beta, delta,
    ! gamma) per group; nbs, start, groups per symmetry (1-based); exponents(sum(nbs)) receives
    ! them symmetry after symmetry. Pool of group g (K exponents): zeta_1 = alpha,
    ! zeta_k = zeta_(k-1) beta (1 + gamma (k/K)^delta).
    subroutine atomgpu_scf_wtbs_exponents(wtbspara, nbs, start, groups, exponents, stat)
        real(c_double), intent(in), contiguous :: wtbspara(:)
        integer, intent(in) :: nbs(:), start(:), groups(:)
        real(c_double), intent(inout), contiguous :: exponents(:)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        real(c_double), allocatable :: out(:)
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call reject(mod(size(wtbspara), 4) == 0, 2, "argument `wtbspara`: has " // &
            itoa(size(wtbspara, kind=c_int64_t)) // " elements, expected 4 per group", status)
        call reject(size(start) == size(nbs), 5, size_message("start", size(start, kind=c_int64_t), "elements", &
            size(nbs, kind=c_int64_t), "one per symmetry, as nbs"), status)
        call reject(size(groups) == size(nbs), 6, size_message("groups", size(groups, kind=c_int64_t), "elements", &
            size(nbs, kind=c_int64_t), "one per symmetry, as nbs"), status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            allocate (out(max(size(exponents), 1)))
            status = c_wtbs_exponents(int(size(wtbspara) / 4, c_int64_t), at_least_one(wtbspara), &
                size(nbs, kind=c_int64_t), int64s(nbs), int64s(start), int64s(groups), &
                size(exponents, kind=c_int64_t), out)
            if (status == int(ATOMGPU_OK, c_int32_t)) exponents = out(1:size(exponents))
        end if
        call finish(status, stat, "atomgpu_scf_wtbs_exponents")
    end subroutine

    ! The one-electron matrices of one symmetry: overlap, free_hamiltonian (the free-particle
    ! Hamiltonian: Hartree-Fock T; Dirac-Fock c alpha.p + (beta - 1) c^2, the c sigma.p and
    ! -2c^2 S^SS blocks, not a kinetic energy; ABI 7 named this argument kinetic) and nuclear
    ! attraction, each m x m (m = size(exponents), or twice that for Dirac-Fock) [hartree];
    ! h = free_hamiltonian + nuclear. An element that overflows (T of exponents near 1e308, V of a
    ! charge near 1e308) is ATOMGPU_ERR_NOT_FINITE.
    subroutine atomgpu_scf_one_electron(params, angular, exponents, overlap, free_hamiltonian, nuclear, stat)
        type(atomgpu_scf_params_t), intent(in) :: params
        integer, intent(in) :: angular
        real(c_double), intent(in), contiguous :: exponents(:)
        real(c_double), intent(inout), contiguous :: overlap(:, :), free_hamiltonian(:, :), nuclear(:, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: m
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        m = size(exponents, kind=c_int64_t)
        if (params%method == ATOMGPU_SCF_DIRAC_FOCK) m = 2 * m
        call reject(size(overlap, kind=c_int64_t) == m * m .and. size(overlap, 1, kind=c_int64_t) == m, 5, &
            size_message("overlap", size(overlap, 1, kind=c_int64_t), "rows", m, "an m x m matrix"), status)
        call reject(size(free_hamiltonian, kind=c_int64_t) == m * m .and. &
            size(free_hamiltonian, 1, kind=c_int64_t) == m, 6, &
            size_message("free_hamiltonian", size(free_hamiltonian, 1, kind=c_int64_t), "rows", m, "an m x m matrix"), &
            status)
        call reject(size(nuclear, kind=c_int64_t) == m * m .and. size(nuclear, 1, kind=c_int64_t) == m, 7, &
            size_message("nuclear", size(nuclear, 1, kind=c_int64_t), "rows", m, "an m x m matrix"), status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            block
                real(c_double) :: s(max(m * m, 1_c_int64_t)), t(max(m * m, 1_c_int64_t)), v(max(m * m, 1_c_int64_t))
                status = c_one_electron(params, int(angular, c_int32_t), size(exponents, kind=c_int64_t), &
                    at_least_one(exponents), s, t, v)
                if (status == int(ATOMGPU_OK, c_int32_t)) then
                    overlap = reshape(s(1:m * m), [m, m])
                    free_hamiltonian = reshape(t(1:m * m), [m, m])
                    nuclear = reshape(v(1:m * m), [m, m])
                end if
            end block
        end if
        call finish(status, stat, "atomgpu_scf_one_electron")
    end subroutine

    ! Computes the two-electron supermatrix of a basis into a new handle (on the GPU on the CUDA
    ! backend; 8 bytes per integral set).
    subroutine atomgpu_scf_integrals_create(h, params, angular, n_functions, exponents, stat)
        type(atomgpu_scf_integrals_t), intent(inout) :: h
        type(atomgpu_scf_params_t), intent(in) :: params
        integer, intent(in) :: angular(:), n_functions(:)
        real(c_double), intent(in), contiguous :: exponents(:)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        type(c_ptr) :: handle
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call reject(.not. c_associated(h%ptr), 6, "argument `handle`: already holds a handle " // &
            "(call atomgpu_scf_integrals_destroy on it first)", status)
        call reject(size(n_functions) == size(angular), 4, size_message("n_functions", &
            size(n_functions, kind=c_int64_t), "elements", size(angular, kind=c_int64_t), "one per symmetry"), status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            call reject(size(exponents, kind=c_int64_t) == sum(int(n_functions, c_int64_t)), 5, &
                size_message("exponents", size(exponents, kind=c_int64_t), "elements", &
                sum(int(n_functions, c_int64_t)), "sum(n_functions)"), status)
        end if
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            handle = c_null_ptr
            status = c_integrals_create(params, size(angular, kind=c_int64_t), int32s(angular), int64s(n_functions), &
                at_least_one(exponents), handle)
            if (status == int(ATOMGPU_OK, c_int32_t)) h%ptr = handle
        end if
        call finish(status, stat, "atomgpu_scf_integrals_create")
    end subroutine

    ! Releases the handle (one never created: nothing).
    subroutine atomgpu_scf_integrals_destroy(h, stat)
        type(atomgpu_scf_integrals_t), intent(inout) :: h
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = c_integrals_destroy(h%ptr)
        if (status == int(ATOMGPU_OK, c_int32_t)) h%ptr = c_null_ptr
        call finish(status, stat, "atomgpu_scf_integrals_destroy")
    end subroutine

    ! n_pairs = T (function pairs p >= q of every symmetry), n_sets = T (T + 1) / 2.
    subroutine atomgpu_scf_integrals_sizes(h, n_pairs, n_sets, stat)
        type(atomgpu_scf_integrals_t), intent(in) :: h
        integer(c_int64_t), intent(inout) :: n_pairs, n_sets
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: t, s
        call enter()
        status = c_integrals_sizes(h%ptr, t, s)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            n_pairs = t
            n_sets = s
        end if
        call finish(status, stat, "atomgpu_scf_integrals_sizes")
    end subroutine

    ! The packed supermatrix (n_sets values; upper triangle column by column, element x <= y at
    ! x + y (y + 1) / 2 + 1 in Fortran numbering) [hartree].
    subroutine atomgpu_scf_integrals_supermatrix(h, packed, stat)
        type(atomgpu_scf_integrals_t), intent(in) :: h
        real(c_double), intent(inout), contiguous :: packed(:)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        real(c_double), allocatable :: out(:)
        call enter()
        allocate (out(max(size(packed), 1)))
        status = c_integrals_supermatrix(h%ptr, size(packed, kind=c_int64_t), out)
        if (status == int(ATOMGPU_OK, c_int32_t)) packed = out(1:size(packed))
        call finish(status, stat, "atomgpu_scf_integrals_supermatrix")
    end subroutine

    ! The Fock build: g = G(D) of every symmetry from the densities D = sum_occ n_i c_i c_i^T
    ! (m x m matrices of the symmetries one after another, flattened column-major; F = h + G(D),
    ! E_2 = (1/2) sum tr(D G(D))) [hartree].
    subroutine atomgpu_scf_integrals_two_electron(h, densities, g, stat)
        type(atomgpu_scf_integrals_t), intent(in) :: h
        real(c_double), intent(in), contiguous :: densities(:)
        real(c_double), intent(inout), contiguous :: g(:)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        real(c_double), allocatable :: out(:)
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call reject(size(g) == size(densities), 4, size_message("g", size(g, kind=c_int64_t), "elements", &
            size(densities, kind=c_int64_t), "as densities"), status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            allocate (out(max(size(g), 1)))
            status = c_integrals_two_electron(h%ptr, size(densities, kind=c_int64_t), at_least_one(densities), out)
            if (status == int(ATOMGPU_OK, c_int32_t)) g = out(1:size(g))
        end if
        call finish(status, stat, "atomgpu_scf_integrals_two_electron")
    end subroutine

    ! One SCF: energies(4) = total, kinetic (free-particle: Dirac <c alpha.p + (beta - 1) c^2>),
    ! nuclear attraction, two-electron; orbital_energies
    ! (sum(closed) + the number of open shells) = the occupied orbital energies per symmetry
    ! (closed ascending, then the open one); iterations. A non-converged SCF returns
    ! ATOMGPU_ERR_NOT_CONVERGED and still writes its last cycle; non-finite energies are
    ! ATOMGPU_ERR_NOT_FINITE, a stopped SCF ATOMGPU_ERR_CANCELLED (nothing written).
    ! With coefficients, densities or convergence (any of them): also the occupied orbitals, the
    ! total densities and (energy change, gradient) of the last cycle, as atomgpu_scf_run_orbitals
    ! writes them: per symmetry s, m_s = n_functions(s) (Hartree-Fock) or 2 n_functions(s)
    ! (Dirac-Fock); coefficients holds the m_s x occupied_s blocks (column-major) one after another,
    ! densities the m_s x m_s blocks (at least those sizes; the rest untouched).
    subroutine atomgpu_scf_run(params, angular, n_functions, exponents, closed, open_electrons, energies, &
            orbital_energies, iterations, stat, coefficients, densities, convergence)
        type(atomgpu_scf_params_t), intent(in) :: params
        integer, intent(in) :: angular(:), n_functions(:), closed(:)
        real(c_double), intent(in), contiguous :: exponents(:), open_electrons(:)
        real(c_double), intent(inout) :: energies(4)
        real(c_double), intent(inout), contiguous :: orbital_energies(:)
        integer, intent(inout) :: iterations
        integer, intent(out), optional :: stat
        real(c_double), intent(inout), contiguous, optional :: coefficients(:), densities(:)
        real(c_double), intent(inout), optional :: convergence(2)
        integer(c_int32_t) :: status
        integer(c_int64_t) :: n_sym, cycles, need_c, need_d, m
        real(c_double) :: e(4), conv(2)
        real(c_double), allocatable :: eps(:), c_buf(:), d_buf(:)
        integer :: i
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        n_sym = size(angular, kind=c_int64_t)
        call reject(size(n_functions, kind=c_int64_t) == n_sym, 4, size_message("n_functions", &
            size(n_functions, kind=c_int64_t), "elements", n_sym, "one per symmetry"), status)
        call reject(size(closed, kind=c_int64_t) == n_sym, 6, size_message("closed", &
            size(closed, kind=c_int64_t), "elements", n_sym, "one per symmetry"), status)
        call reject(size(open_electrons, kind=c_int64_t) == n_sym, 7, size_message("open_electrons", &
            size(open_electrons, kind=c_int64_t), "elements", n_sym, "one per symmetry"), status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            call reject(size(exponents, kind=c_int64_t) == sum(int(n_functions, c_int64_t)), 5, &
                size_message("exponents", size(exponents, kind=c_int64_t), "elements", &
                sum(int(n_functions, c_int64_t)), "sum(n_functions)"), status)
        end if
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            allocate (eps(max(size(orbital_energies), 1)))
            if (present(coefficients) .or. present(densities) .or. present(convergence)) then
                need_c = 0
                need_d = 0
                do i = 1, size(n_functions)
                    m = n_functions(i)
                    if (params%method == ATOMGPU_SCF_DIRAC_FOCK) m = 2 * m
                    need_c = need_c + m * (closed(i) + merge(1, 0, open_electrons(i) > 0))
                    need_d = need_d + m * m
                end do
                if (present(coefficients)) need_c = max(need_c, size(coefficients, kind=c_int64_t))
                if (present(densities)) need_d = max(need_d, size(densities, kind=c_int64_t))
                allocate (c_buf(max(need_c, 1_c_int64_t)), d_buf(max(need_d, 1_c_int64_t)))
                if (present(coefficients)) need_c = size(coefficients, kind=c_int64_t)
                if (present(densities)) need_d = size(densities, kind=c_int64_t)
                status = c_run_orbitals(params, n_sym, int32s(angular), int64s(n_functions), at_least_one(exponents), &
                    int64s(closed), at_least_one(open_electrons), e, size(orbital_energies, kind=c_int64_t), eps, &
                    cycles, c_buf, need_c, d_buf, need_d, conv)
            else
                status = c_run(params, n_sym, int32s(angular), int64s(n_functions), at_least_one(exponents), &
                    int64s(closed), at_least_one(open_electrons), e, size(orbital_energies, kind=c_int64_t), eps, cycles)
            end if
            if (status == int(ATOMGPU_OK, c_int32_t) .or. status == int(ATOMGPU_ERR_NOT_CONVERGED, c_int32_t)) then
                energies = e
                orbital_energies = eps(1:size(orbital_energies))
                iterations = int(cycles)
                if (present(coefficients)) coefficients = c_buf(1:size(coefficients))
                if (present(densities)) densities = d_buf(1:size(densities))
                if (present(convergence)) convergence = conv
            end if
        end if
        call finish(status, stat, "atomgpu_scf_run")
    end subroutine

    ! The WTBS optimisation (DFRATOM's bsopt): BOBYQA over (ln alpha, ln beta, gamma, delta) of
    ! every group from wtbspara (alpha, beta, delta, gamma per group), trust radius rho_begin down
    ! to rho_end, at most max_evaluations SCFs (> 8 n_groups + 1, <= 1000000). Writes the optimised
    ! parameters, their exponents (sum(nbs)), the energies of their SCF (as atomgpu_scf_run), the
    ! SCFs run and converged (.true. when the trust radius reached rho_end). The wrapper fills the
    ! C struct atomgpu_scf_wtbs_settings (wtbspara, nbs, start, groups, rho_begin, rho_end,
    ! max_evaluations): a bad one is reported at its C position 6 (`settings`), the message naming
    ! it.
    subroutine atomgpu_scf_optimise_wtbs(params, angular, closed, open_electrons, wtbspara, nbs, start, groups, &
            rho_begin, rho_end, max_evaluations, wtbs_optimised, exponents, energies, evaluations, converged, stat)
        type(atomgpu_scf_params_t), intent(in) :: params
        integer, intent(in) :: angular(:), closed(:), nbs(:), start(:), groups(:)
        real(c_double), intent(in), contiguous :: open_electrons(:), wtbspara(:)
        real(c_double), intent(in) :: rho_begin, rho_end
        integer, intent(in) :: max_evaluations
        real(c_double), intent(inout), contiguous :: wtbs_optimised(:), exponents(:)
        real(c_double), intent(inout) :: energies(4)
        integer, intent(inout) :: evaluations
        logical, intent(inout) :: converged
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status, done
        integer(c_int64_t) :: n_sym, runs
        real(c_double) :: e(4)
        real(c_double), allocatable :: para(:), out(:)
        real(c_double), allocatable, target :: start_para(:)
        integer(c_int64_t), allocatable, target :: nbs64(:), start64(:), groups64(:)
        type(wtbs_settings) :: settings
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        n_sym = size(angular, kind=c_int64_t)
        call reject(size(closed, kind=c_int64_t) == n_sym, 4, size_message("closed", &
            size(closed, kind=c_int64_t), "elements", n_sym, "one per symmetry"), status)
        call reject(size(open_electrons, kind=c_int64_t) == n_sym, 5, size_message("open_electrons", &
            size(open_electrons, kind=c_int64_t), "elements", n_sym, "one per symmetry"), status)
        call reject(mod(size(wtbspara), 4) == 0, 6, "argument `settings`: field `wtbspara` has " // &
            itoa(size(wtbspara, kind=c_int64_t)) // " elements, expected 4 per group", status)
        call reject(size(nbs, kind=c_int64_t) == n_sym, 6, field_size_message("settings", "nbs", &
            size(nbs, kind=c_int64_t), "elements", n_sym, "one per symmetry"), status)
        call reject(size(start, kind=c_int64_t) == n_sym, 6, field_size_message("settings", "start", &
            size(start, kind=c_int64_t), "elements", n_sym, "one per symmetry"), status)
        call reject(size(groups, kind=c_int64_t) == n_sym, 6, field_size_message("settings", "groups", &
            size(groups, kind=c_int64_t), "elements", n_sym, "one per symmetry"), status)
        call reject(size(wtbs_optimised) == size(wtbspara), 7, size_message("wtbs_optimised", &
            size(wtbs_optimised, kind=c_int64_t), "elements", size(wtbspara, kind=c_int64_t), "as wtbspara"), status)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            allocate (para(max(size(wtbspara), 1)), out(max(size(exponents), 1)))
            start_para = wtbspara
            nbs64 = nbs
            start64 = start
            groups64 = groups
            settings = wtbs_settings(int(size(wtbspara) / 4, c_int64_t), address_of(start_para), address_of(nbs64), &
                address_of(start64), address_of(groups64), rho_begin, rho_end, int(max_evaluations, c_int64_t))
            status = c_optimise_wtbs(params, n_sym, int32s(angular), int64s(closed), at_least_one(open_electrons), &
                settings, para, size(exponents, kind=c_int64_t), out, e, runs, done)
            if (status == int(ATOMGPU_OK, c_int32_t)) then
                wtbs_optimised = para(1:size(wtbspara))
                exponents = out(1:size(exponents))
                energies = e
                evaluations = int(runs)
                converged = done /= 0
            end if
        end if
        call finish(status, stat, "atomgpu_scf_optimise_wtbs")
    end subroutine
end module atomgpu_scf
