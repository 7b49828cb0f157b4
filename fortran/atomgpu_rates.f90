! atomgpu_rates: the Fortran interface of the rates family (paper: degenerate-rates-quadrature-gpu,
! Aslanyan, Aslanyan & Tallents, CPC 2017): Fermi-Dirac and Maxwell-Boltzmann rate coefficients
! by quadrature and the collisional-radiative (CR) driver they serve. Programs `use atomgpu`
! (fortran/atomgpu.f90, which INCLUDEs this file and re-exports everything public here).
!
! Units: energies and temperatures in eV, densities in cm^-3, cross-sections in cm^2, rates in
! s^-1 per ion; batched outputs are up(n_transitions, n_states). The domain of the inputs, inside
! which every result is a finite double: temperatures T_e, T_r in [1e-4, 1e6] eV, densities n_e
! in [1e-10, 1e30] cm^-3, transition energies in [1e-6, 1e6] eV; outside it a call fails with
! ATOMGPU_ERR_INVALID_ARGUMENT, and a result that still overflows (absurd coefficients) with
! ATOMGPU_ERR_NOT_FINITE. CR level indices are integer(c_int64_t) and NUMBERED FROM 1, as
! Fortran arrays are; the wrappers subtract 1 for the C interface, which numbers them from 0.
module atomgpu_rates
    use, intrinsic :: iso_c_binding, only: c_int32_t, c_int64_t, c_double, c_ptr, c_null_ptr, c_loc, c_associated
    use atomgpu_core
    implicit none
    private

    ! Electron statistics of the rates family.
    integer, parameter, public :: ATOMGPU_STATS_FERMI_DIRAC = 0
    integer, parameter, public :: ATOMGPU_STATS_MAXWELL_BOLTZMANN = 1
    ! Arithmetic of the GPU rate integrands (atomgpu_rates_set_precision).
    integer, parameter, public :: ATOMGPU_PRECISION_DOUBLE = 0
    integer, parameter, public :: ATOMGPU_PRECISION_SINGLE = 1

    public :: atomgpu_rates_chemical_potential, atomgpu_rates_energy_density
    public :: atomgpu_rates_temperature, atomgpu_rates_excitation, atomgpu_rates_ionization
    public :: atomgpu_rates_photoionization, atomgpu_rates_inverse_bremsstrahlung, atomgpu_rates_set_precision
    public :: atomgpu_cr_create, atomgpu_cr_destroy, atomgpu_cr_n_levels, atomgpu_cr_initial_state
    public :: atomgpu_cr_derivatives, atomgpu_cr_run_rk4, atomgpu_cr_run_stiff, atomgpu_cr_rate_matrix
    public :: atomgpu_cr_run_stiff_systems

    ! A collisional-radiative model (atomic levels, transitions and physics settings) held by the
    ! library: made by atomgpu_cr_create, released by atomgpu_cr_destroy (no finalizer: destroy
    ! it explicitly; a model is never released behind the caller's back). Immutable once made:
    ! every call that takes it may run concurrently from several threads.
    type, public :: atomgpu_cr_model
        private
        type(c_ptr) :: ptr = c_null_ptr
    end type

    ! C struct atomgpu_cr_model_desc, filled by atomgpu_cr_create from its arguments (C level
    ! indices 0-based; the arrays' addresses, C NULL for a zero-size one).
    type, bind(C) :: cr_model_desc
        integer(c_int64_t) :: n_levels
        type(c_ptr) :: charges, weights
        integer(c_int64_t) :: n_excitations
        type(c_ptr) :: excitation_lower, excitation_upper, excitation_energy_ev, excitation_omega
        integer(c_int64_t) :: n_ionizations
        type(c_ptr) :: ionization_lower, ionization_upper, ionization_energy_ev, ionization_beli
        type(c_ptr) :: ionization_d0_cm2, ionization_d1_cm2
        integer(c_int32_t) :: stats, nodes
        real(c_double) :: accuracy_p, tr_ev
    end type

    interface
        function c_atomgpu_rates_set_precision(precision) bind(C, name="atomgpu_rates_set_precision") result(status)
            import :: c_int32_t
            integer(c_int32_t), value :: precision
            integer(c_int32_t) :: status
        end function

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

        function c_atomgpu_cr_create(desc, model) bind(C, name="atomgpu_cr_create") result(status)
            import :: c_int32_t, c_ptr, cr_model_desc
            type(cr_model_desc), intent(in) :: desc
            type(c_ptr), intent(inout) :: model
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_cr_destroy(model) bind(C, name="atomgpu_cr_destroy") result(status)
            import :: c_ptr, c_int32_t
            type(c_ptr), value :: model
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_cr_n_levels(model, n_levels) bind(C, name="atomgpu_cr_n_levels") result(status)
            import :: c_ptr, c_int64_t, c_int32_t
            type(c_ptr), value :: model
            integer(c_int64_t), intent(out) :: n_levels
            integer(c_int32_t) :: status
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
        function c_atomgpu_cr_run_stiff_systems(model, n_systems, y, n_times, sample_times_s, rtol, &
                atol_fraction, te_ev, ne_cm3, populations) bind(C, name="atomgpu_cr_run_stiff_systems") &
                result(status)
            import :: c_ptr, c_double, c_int32_t, c_int64_t
            type(c_ptr), value :: model
            integer(c_int64_t), value :: n_systems
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
    end interface

contains

    ! ============================================================================================
    ! Rates family. stats: ATOMGPU_STATS_FERMI_DIRAC or ATOMGPU_STATS_MAXWELL_BOLTZMANN.
    ! Plasma states: te_ev(n_states) [eV], ne_cm3(n_states) [cm^-3] (, tr_ev(n_states) [eV]).
    ! accuracy_p in [1, 15]: ranges truncated at relative 10^-p (paper default 5); nodes in
    ! [2, 256]: Gauss-Legendre nodes per panel (paper default 32).
    ! Outputs are intent(inout) because they are left untouched when the call fails.

    ! Chooses the arithmetic of the GPU rate integrands for the rest of the process:
    ! ATOMGPU_PRECISION_DOUBLE (the default; GPU = CPU to 1e-12) or ATOMGPU_PRECISION_SINGLE (FP32
    ! integrands with FP64 sums, within 1e-6 relative of double, largest difference measured
    ! 6.2e-7) for atomgpu_rates_excitation, _ionization and
    ! _photoionization on a GPU, for each (transition, state) with |mu|/T_e <= 30, (E + |mu|)/T_e <= 60
    ! and every fit coefficient 0 or of magnitude in [1e-30, 1e30] (other pairs run in double).
    ! Overrides the environment variable ATOMGPU_RATES_PRECISION. The CPU path and the CR runs are
    ! always double.
    subroutine atomgpu_rates_set_precision(precision, stat)
        integer, intent(in) :: precision
        integer, intent(out), optional :: stat
        call enter()
        call finish(c_atomgpu_rates_set_precision(int(precision, c_int32_t)), stat, "atomgpu_rates_set_precision")
    end subroutine

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

    ! Checks a model handle (C argument position 1 of every CR function) and gives its number of
    ! levels (0 when the check fails or an earlier one did): the library itself reports a handle
    ! destroyed through a copy of the variable.
    subroutine check_model(model, status, n_levels)
        type(atomgpu_cr_model), intent(in) :: model
        integer(c_int32_t), intent(inout) :: status
        integer(c_int64_t), intent(out) :: n_levels
        n_levels = 0
        call reject(c_associated(model%ptr), 1, &
            "argument `model`: was not created by atomgpu_cr_create (or was destroyed)", status)
        if (status /= int(ATOMGPU_OK, c_int32_t)) return
        status = c_atomgpu_cr_n_levels(model%ptr, n_levels)
        if (status /= int(ATOMGPU_OK, c_int32_t)) n_levels = 0
    end subroutine

    ! Checks 1-based level indices `levels` against 1..n_levels (field `name` of the C argument
    ! `desc`, position 1).
    subroutine check_levels(name, levels, n_levels, status)
        character(len=*), intent(in) :: name
        integer(c_int64_t), intent(in) :: levels(:)
        integer(c_int64_t), intent(in) :: n_levels
        integer(c_int32_t), intent(inout) :: status
        integer :: i
        do i = 1, size(levels)
            call reject(levels(i) >= 1 .and. levels(i) <= n_levels, 1, &
                "argument `desc`: field `" // name // "`: element " // itoa(int(i, c_int64_t)) // " is " // &
                itoa(levels(i)) // ", levels are numbered 1.." // itoa(n_levels) // &
                " (size(charges)) in Fortran", status)
        end do
    end subroutine

    ! The size `got` of the array that fills field `field` of atomgpu_cr_model_desc must be `expected`.
    subroutine check_size(field, got, what, expected, why, status)
        character(len=*), intent(in) :: field, what, why
        integer(c_int64_t), intent(in) :: got, expected
        integer(c_int32_t), intent(inout) :: status
        call reject(got == expected, 1, field_size_message("desc", field, got, what, expected, why), status)
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
    ! [eV]. Level indices are integer(c_int64_t). The wrapper fills the C descriptor
    ! atomgpu_cr_model_desc: a bad array or setting is reported at its C position 1 (`desc`), the
    ! message naming the field (the argument's name here); `model` at position 2.
    subroutine atomgpu_cr_create(model, charges, excitation_lower, excitation_upper, &
            excitation_energy_ev, excitation_omega, ionization_lower, ionization_upper, &
            ionization_energy_ev, ionization_beli, ionization_d0_cm2, ionization_d1_cm2, &
            stats, accuracy_p, nodes, tr_ev, weights, stat)
        type(atomgpu_cr_model), intent(inout) :: model
        real(c_double), intent(in), contiguous, target :: charges(:)
        integer(c_int64_t), intent(in), contiguous :: excitation_lower(:), excitation_upper(:)
        real(c_double), intent(in), contiguous, target :: excitation_energy_ev(:), excitation_omega(:, :)
        integer(c_int64_t), intent(in), contiguous :: ionization_lower(:), ionization_upper(:)
        real(c_double), intent(in), contiguous, target :: ionization_energy_ev(:), ionization_beli(:, :)
        real(c_double), intent(in), contiguous, target :: ionization_d0_cm2(:), ionization_d1_cm2(:)
        integer, intent(in) :: stats
        real(c_double), intent(in) :: accuracy_p
        integer, intent(in) :: nodes
        real(c_double), intent(in) :: tr_ev
        real(c_double), intent(in), contiguous, optional, target :: weights(:)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: nl, nx, ni
        integer(c_int64_t), allocatable, target :: xl(:), xu(:), il(:), iu(:)
        type(cr_model_desc) :: desc
        type(c_ptr) :: handle
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        nl = size(charges, kind=c_int64_t)
        nx = size(excitation_lower, kind=c_int64_t)
        ni = size(ionization_lower, kind=c_int64_t)
        call reject(.not. c_associated(model%ptr), 2, "argument `model`: already holds a model " // &
            "(call atomgpu_cr_destroy on it first)", status)
        if (present(weights)) then
            call reject(size(weights, kind=c_int64_t) == nl, 1, field_size_message("desc", "weights", &
                size(weights, kind=c_int64_t), "elements", nl, "size(charges)"), status)
        end if
        call check_size("excitation_upper", size(excitation_upper, kind=c_int64_t), "elements", nx, &
            "size(excitation_lower)", status)
        call check_size("excitation_energy_ev", size(excitation_energy_ev, kind=c_int64_t), "elements", nx, &
            "size(excitation_lower)", status)
        call check_size("excitation_omega", size(excitation_omega, 1, kind=c_int64_t), "rows", 6_c_int64_t, &
            "B0..B5 per excitation", status)
        call check_size("excitation_omega", size(excitation_omega, 2, kind=c_int64_t), "columns", nx, &
            "size(excitation_lower)", status)
        call check_size("ionization_upper", size(ionization_upper, kind=c_int64_t), "elements", ni, &
            "size(ionization_lower)", status)
        call check_size("ionization_energy_ev", size(ionization_energy_ev, kind=c_int64_t), "elements", ni, &
            "size(ionization_lower)", status)
        call check_size("ionization_beli", size(ionization_beli, 1, kind=c_int64_t), "rows", 5_c_int64_t, &
            "A, B1..B4 per ionization", status)
        call check_size("ionization_beli", size(ionization_beli, 2, kind=c_int64_t), "columns", ni, &
            "size(ionization_lower)", status)
        call check_size("ionization_d0_cm2", size(ionization_d0_cm2, kind=c_int64_t), "elements", ni, &
            "size(ionization_lower)", status)
        call check_size("ionization_d1_cm2", size(ionization_d1_cm2, kind=c_int64_t), "elements", ni, &
            "size(ionization_lower)", status)
        if (nl >= 1) then
            ! (with no levels at all the library reports n_levels itself)
            call check_levels("excitation_lower", excitation_lower, nl, status)
            call check_levels("excitation_upper", excitation_upper, nl, status)
            call check_levels("ionization_lower", ionization_lower, nl, status)
            call check_levels("ionization_upper", ionization_upper, nl, status)
        end if
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            ! 0-based copies for C.
            xl = excitation_lower - 1
            xu = excitation_upper - 1
            il = ionization_lower - 1
            iu = ionization_upper - 1
            desc = cr_model_desc(nl, address_of(charges), c_null_ptr, nx, address_of(xl), address_of(xu), &
                address_of(excitation_energy_ev), address_of(excitation_omega), ni, address_of(il), &
                address_of(iu), address_of(ionization_energy_ev), address_of(ionization_beli), &
                address_of(ionization_d0_cm2), address_of(ionization_d1_cm2), int(stats, c_int32_t), &
                int(nodes, c_int32_t), accuracy_p, tr_ev)
            if (present(weights)) desc%weights = address_of(weights)
            handle = c_null_ptr
            status = c_atomgpu_cr_create(desc, handle)
            if (status == int(ATOMGPU_OK, c_int32_t)) model%ptr = handle
        end if
        call finish(status, stat, "atomgpu_cr_create")
    end subroutine

    ! Releases a model and resets the variable (one never created is fine). A model already
    ! released through another copy of the variable is ATOMGPU_ERR_INVALID_ARGUMENT (nothing is
    ! released twice).
    subroutine atomgpu_cr_destroy(model, stat)
        type(atomgpu_cr_model), intent(inout) :: model
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        if (c_associated(model%ptr)) status = c_atomgpu_cr_destroy(model%ptr)
        model%ptr = c_null_ptr
        call finish(status, stat, "atomgpu_cr_destroy")
    end subroutine

    ! Number of levels of a model (0 when it was not created, or was destroyed).
    function atomgpu_cr_n_levels(model) result(n)
        type(atomgpu_cr_model), intent(in) :: model
        integer(c_int64_t) :: n
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_model(model, status, n)
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
        call check_model(model, status, nl)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
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
        call check_model(model, status, nl)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
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
        call check_model(model, status, nl)
        ms = size(times, kind=c_int64_t)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
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

    ! Adaptive stiff integration (ROS4, L-stable, with the structural Jacobian of the CR system)
    ! from state y(n_levels + 1) (overwritten with the state at the last time) to each of the ascending times sample_times_s(n_times) [s] (> 0),
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
        call check_model(model, status, nl)
        nt = size(sample_times_s, kind=c_int64_t)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
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

    ! atomgpu_cr_run_stiff for many independent systems of the model at once (the cells of a
    ! hydrodynamic code), each from its own state with its own steps, all to the same times:
    ! y(n_levels + 1, n_systems) (overwritten with each system's state at the last time),
    ! te_ev(n_times, n_systems) [eV], ne_cm3(n_times, n_systems) [cm^-3] and
    ! populations(n_levels, n_times, n_systems) [cm^-3]. Each stage's rates of all systems are
    ! evaluated together (on a GPU, one launch): many systems fill a GPU that one cannot.
    subroutine atomgpu_cr_run_stiff_systems(model, y, sample_times_s, rtol, atol_fraction, te_ev, ne_cm3, &
            populations, stat)
        type(atomgpu_cr_model), intent(in) :: model
        real(c_double), intent(inout), contiguous :: y(:, :)
        real(c_double), intent(in), contiguous :: sample_times_s(:)
        real(c_double), intent(in) :: rtol, atol_fraction
        real(c_double), intent(inout), contiguous :: te_ev(:, :), ne_cm3(:, :), populations(:, :, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        integer(c_int64_t) :: nl, nt, ns
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_model(model, status, nl)
        nt = size(sample_times_s, kind=c_int64_t)
        ns = size(y, 2, kind=c_int64_t)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            call reject(size(y, 1, kind=c_int64_t) == nl + 1, 3, size_message("y", &
                size(y, 1, kind=c_int64_t), "rows", nl + 1, "n_levels + 1"), status)
            call reject(size(te_ev, 1, kind=c_int64_t) == nt .and. size(te_ev, 2, kind=c_int64_t) == ns, 8, &
                size_message("te_ev", size(te_ev, kind=c_int64_t), "elements", nt * ns, &
                "size(sample_times_s) x size(y, 2)"), status)
            call reject(size(ne_cm3, 1, kind=c_int64_t) == nt .and. size(ne_cm3, 2, kind=c_int64_t) == ns, 9, &
                size_message("ne_cm3", size(ne_cm3, kind=c_int64_t), "elements", nt * ns, &
                "size(sample_times_s) x size(y, 2)"), status)
            call reject(size(populations, 1, kind=c_int64_t) == nl .and. size(populations, 2, kind=c_int64_t) == nt &
                .and. size(populations, 3, kind=c_int64_t) == ns, 10, size_message("populations", &
                size(populations, kind=c_int64_t), "elements", nl * nt * ns, &
                "n_levels x size(sample_times_s) x size(y, 2)"), status)
        end if
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            status = c_atomgpu_cr_run_stiff_systems(model%ptr, ns, y, nt, sample_times_s, rtol, atol_fraction, &
                te_ev, ne_cm3, populations)
        end if
        call finish(status, stat, "atomgpu_cr_run_stiff_systems")
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
        call check_model(model, status, nl)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
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
end module atomgpu_rates
