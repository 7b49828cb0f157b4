! test_bad_input.f90: every rates wrapper of module atomgpu given a NaN temperature, a negative
! density, an empty array (size 0), inconsistent array sizes, and (where they apply) a zero
! energy, nodes and stats out of range, must return stat = ATOMGPU_ERR_INVALID_ARGUMENT, report
! the offending argument's position in the C function (atomgpu_last_error_arg), name it in
! atomgpu_last_error_message(), and leave every output untouched.
!
! Build (from the repository root, after `cargo build --release`):
!   gfortran -std=f2018 -Wall -fcheck=all fortran/atomgpu.f90 tests/fortran/support/checks.f90 \
!       tests/fortran/test_bad_input.f90 -o test_bad_input -Ltarget/release -latomgpu -Wl,-rpath,$PWD/target/release
! Exit status 0 when every check passes (error stop 1 otherwise).
program test_bad_input
    use, intrinsic :: iso_c_binding, only: c_double
    use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
    use atomgpu
    use atomgpu_test_checks
    implicit none

    integer, parameter :: dp = c_double
    real(dp), parameter :: sentinel = -12345.0_dp
    integer, parameter :: fd = ATOMGPU_STATS_FERMI_DIRAC, mb = ATOMGPU_STATS_MAXWELL_BOLTZMANN

    integer :: stat
    real(dp) :: nan
    real(dp) :: te(2), ne(2), tr(2), te_nan(2), ne_neg(2), tr_nan(2), energy(2), energy_zero(2)
    real(dp) :: omega(6, 2), omega_nan(6, 2), beli(5, 2), g(2), g_zero(2), d0(2), d1(2), z2n(2), z2n_neg(2)
    real(dp) :: empty(0), empty2(2, 0), empty02(0, 2)
    ! Outputs (and spare outputs of wrong sizes).
    real(dp) :: a(2), b(2), up(2, 2), down(2, 2), a3(3), up3(3, 2)

    nan = ieee_value(nan, ieee_quiet_nan)
    te = [1.0_dp, 10.0_dp]
    ne = [1e21_dp, 1e22_dp]
    tr = [5.0_dp, 50.0_dp]
    te_nan = [1.0_dp, nan]
    ne_neg = [1e21_dp, -1e21_dp]
    tr_nan = [5.0_dp, nan]
    energy = [5.0_dp, 10.0_dp]
    energy_zero = [5.0_dp, 0.0_dp]
    omega = reshape([0.1_dp, 1.0_dp, 0.0_dp, 0.0_dp, 0.0_dp, 0.0_dp, 0.2_dp, 0.5_dp, 0.1_dp, 0.0_dp, 0.0_dp, 0.0_dp], [6, 2])
    omega_nan = omega
    omega_nan(2, 2) = nan
    beli = reshape([1.0_dp, 0.5_dp, 0.0_dp, 0.0_dp, 0.0_dp, 2.0_dp, -0.5_dp, 0.1_dp, 0.0_dp, 0.0_dp], [5, 2])
    g = [2.0_dp, 6.0_dp]
    g_zero = [2.0_dp, 0.0_dp]
    d0 = [1e-18_dp, 2e-18_dp]
    d1 = [0.0_dp, 1e-18_dp]
    z2n = [1e21_dp, 1e22_dp]
    z2n_neg = [1e21_dp, -1.0_dp]

    ! ---- library-wide ----
    call reset()
    call atomgpu_set_backend(42, stat)
    call expect_bad("set_backend: out of range", 1, "backend")

    ! ---- chemical potential: C (stats 1, n_states 2, te_ev 3, ne_cm3 4, mu_ev 5) ----
    call reset()
    call atomgpu_rates_chemical_potential(5, te, ne, a, stat)
    call expect_bad("chemical_potential: stats", 1, "stats")
    call reset()
    call atomgpu_rates_chemical_potential(fd, empty, empty, empty, stat)
    call expect_bad("chemical_potential: empty arrays", 2, "n_states")
    call reset()
    call atomgpu_rates_chemical_potential(fd, te_nan, ne, a, stat)
    call expect_bad("chemical_potential: NaN temperature", 3, "te_ev", "[1]")
    call reset()
    call atomgpu_rates_chemical_potential(mb, te, ne_neg, a, stat)
    call expect_bad("chemical_potential: negative density", 4, "ne_cm3", "[1]")
    call reset()
    call atomgpu_rates_chemical_potential(fd, te, ne(1:1), a, stat)
    call expect_bad("chemical_potential: size(ne_cm3)", 4, "ne_cm3")
    call reset()
    call atomgpu_rates_chemical_potential(fd, te, ne, a3, stat)
    call expect_bad("chemical_potential: size(mu_ev)", 5, "mu_ev")

    ! ---- energy density (same positions, output u_ev_cm3) ----
    call reset()
    call atomgpu_rates_energy_density(-1, te, ne, a, stat)
    call expect_bad("energy_density: stats", 1, "stats")
    call reset()
    call atomgpu_rates_energy_density(fd, te_nan, ne, a, stat)
    call expect_bad("energy_density: NaN temperature", 3, "te_ev", "[1]")
    call reset()
    call atomgpu_rates_energy_density(fd, te, ne_neg, a, stat)
    call expect_bad("energy_density: negative density", 4, "ne_cm3", "[1]")
    call reset()
    call atomgpu_rates_energy_density(fd, te, ne, a3, stat)
    call expect_bad("energy_density: size(u_ev_cm3)", 5, "u_ev_cm3")

    ! ---- temperature: C (stats 1, n_states 2, u_ev_cm3 3, ne_cm3 4, te_ev 5, mu_ev 6) ----
    call reset()
    call atomgpu_rates_temperature(2, [1e21_dp, 1e23_dp], ne, a, b, stat)
    call expect_bad("temperature: stats", 1, "stats")
    call reset()
    call atomgpu_rates_temperature(fd, [1e21_dp, nan], ne, a, b, stat)
    call expect_bad("temperature: NaN energy density", 3, "u_ev_cm3", "[1]")
    call reset()
    call atomgpu_rates_temperature(fd, [1e24_dp], [1e24_dp], a(1:1), b(1:1), stat)
    call expect_bad("temperature: below the Fermi ground state", 3, "u_ev_cm3")
    call reset()
    call atomgpu_rates_temperature(mb, [1e21_dp, 1e23_dp], ne_neg, a, b, stat)
    call expect_bad("temperature: negative density", 4, "ne_cm3", "[1]")
    call reset()
    call atomgpu_rates_temperature(mb, [1e21_dp, 1e23_dp], ne, a, a3, stat)
    call expect_bad("temperature: size(mu_ev)", 6, "mu_ev")

    ! ---- excitation: C (stats 1, accuracy_p 2, nodes 3, n_states 4, te_ev 5, ne_cm3 6,
    !      n_transitions 7, energy_ev 8, omega 9, g_lower 10, g_upper 11, up 12, down 13) ----
    call reset()
    call atomgpu_rates_excitation(3, 5.0_dp, 32, te, ne, energy, omega, up, down, stat=stat)
    call expect_bad("excitation: stats", 1, "stats")
    call reset()
    call atomgpu_rates_excitation(fd, 0.0_dp, 32, te, ne, energy, omega, up, down, stat=stat)
    call expect_bad("excitation: accuracy_p", 2, "accuracy_p")
    call reset()
    call atomgpu_rates_excitation(fd, 5.0_dp, 1, te, ne, energy, omega, up, down, stat=stat)
    call expect_bad("excitation: nodes too few", 3, "nodes")
    call reset()
    call atomgpu_rates_excitation(fd, 5.0_dp, 1000, te, ne, energy, omega, up, down, stat=stat)
    call expect_bad("excitation: nodes too many", 3, "nodes")
    call reset()
    call atomgpu_rates_excitation(fd, 5.0_dp, 32, empty, empty, energy, omega, empty2, empty2, stat=stat)
    call expect_bad("excitation: no states", 4, "n_states")
    call reset()
    call atomgpu_rates_excitation(fd, 5.0_dp, 32, te_nan, ne, energy, omega, up, down, stat=stat)
    call expect_bad("excitation: NaN temperature", 5, "te_ev", "[1]")
    call reset()
    call atomgpu_rates_excitation(fd, 5.0_dp, 32, te, ne_neg, energy, omega, up, down, stat=stat)
    call expect_bad("excitation: negative density", 6, "ne_cm3", "[1]")
    call reset()
    call atomgpu_rates_excitation(fd, 5.0_dp, 32, te, ne, energy_zero, omega, up, down, stat=stat)
    call expect_bad("excitation: zero energy", 8, "energy_ev", "[1]")
    call reset()
    call atomgpu_rates_excitation(fd, 5.0_dp, 32, te, ne, energy, omega_nan, up, down, stat=stat)
    call expect_bad("excitation: NaN collision strength", 9, "omega", "[7]")
    call reset()
    call atomgpu_rates_excitation(fd, 5.0_dp, 32, te, ne, energy, beli, up, down, stat=stat)
    call expect_bad("excitation: omega with 5 rows", 9, "omega")
    call reset()
    call atomgpu_rates_excitation(fd, 5.0_dp, 32, te, ne, energy, omega, up, down, g_zero, g, stat)
    call expect_bad("excitation: zero g_lower", 10, "g_lower", "[1]")
    call reset()
    call atomgpu_rates_excitation(fd, 5.0_dp, 32, te, ne, energy, omega, up, down, g_upper=g_zero, stat=stat)
    call expect_bad("excitation: zero g_upper", 11, "g_upper", "[1]")
    call reset()
    call atomgpu_rates_excitation(fd, 5.0_dp, 32, te, ne, energy, omega, up, down, g_lower=g(1:1), stat=stat)
    call expect_bad("excitation: size(g_lower)", 10, "g_lower")
    call reset()
    call atomgpu_rates_excitation(fd, 5.0_dp, 32, te, ne, energy, omega, up3, down, stat=stat)
    call expect_bad("excitation: shape(up)", 12, "up")
    call reset()
    call atomgpu_rates_excitation(fd, 5.0_dp, 32, te, ne, energy, omega, up, up3, stat=stat)
    call expect_bad("excitation: shape(down)", 13, "down")

    ! ---- ionization (same positions, coefficients beli) ----
    call reset()
    call atomgpu_rates_ionization(2, 5.0_dp, 32, te, ne, energy, beli, up, down, stat=stat)
    call expect_bad("ionization: stats", 1, "stats")
    call reset()
    call atomgpu_rates_ionization(fd, 5.0_dp, -4, te, ne, energy, beli, up, down, stat=stat)
    call expect_bad("ionization: nodes negative", 3, "nodes")
    call reset()
    call atomgpu_rates_ionization(fd, 5.0_dp, 32, te_nan, ne, energy, beli, up, down, stat=stat)
    call expect_bad("ionization: NaN temperature", 5, "te_ev", "[1]")
    call reset()
    call atomgpu_rates_ionization(fd, 5.0_dp, 32, te, ne_neg, energy, beli, up, down, stat=stat)
    call expect_bad("ionization: negative density", 6, "ne_cm3", "[1]")
    call reset()
    call atomgpu_rates_ionization(fd, 5.0_dp, 32, te, ne, energy_zero, beli, up, down, stat=stat)
    call expect_bad("ionization: zero energy", 8, "energy_ev", "[1]")
    call reset()
    call atomgpu_rates_ionization(fd, 5.0_dp, 32, te, ne, energy, omega, up, down, stat=stat)
    call expect_bad("ionization: beli with 6 rows", 9, "beli")
    call reset()
    call atomgpu_rates_ionization(fd, 5.0_dp, 32, te, ne, energy, beli, up, down, g, -g, stat)
    call expect_bad("ionization: negative g_upper", 11, "g_upper", "[0]")

    ! ---- photoionization: C (stats 1, accuracy_p 2, nodes 3, n_states 4, te_ev 5, ne_cm3 6,
    !      tr_ev 7, n_transitions 8, energy_ev 9, d0_cm2 10, d1_cm2 11, rate 12, heating 13) ----
    call reset()
    call atomgpu_rates_photoionization(9, 5.0_dp, 32, te, ne, tr, energy, d0, d1, up, down, stat)
    call expect_bad("photoionization: stats", 1, "stats")
    call reset()
    call atomgpu_rates_photoionization(fd, 5.0_dp, 300, te, ne, tr, energy, d0, d1, up, down, stat)
    call expect_bad("photoionization: nodes", 3, "nodes")
    call reset()
    call atomgpu_rates_photoionization(fd, 5.0_dp, 32, te_nan, ne, tr, energy, d0, d1, up, down, stat)
    call expect_bad("photoionization: NaN temperature", 5, "te_ev", "[1]")
    call reset()
    call atomgpu_rates_photoionization(fd, 5.0_dp, 32, te, ne_neg, tr, energy, d0, d1, up, down, stat)
    call expect_bad("photoionization: negative density", 6, "ne_cm3", "[1]")
    call reset()
    call atomgpu_rates_photoionization(fd, 5.0_dp, 32, te, ne, tr_nan, energy, d0, d1, up, down, stat)
    call expect_bad("photoionization: NaN radiation temperature", 7, "tr_ev", "[1]")
    call reset()
    call atomgpu_rates_photoionization(fd, 5.0_dp, 32, te, ne, tr, empty, empty, empty, empty02, empty02, stat)
    call expect_bad("photoionization: no transitions", 8, "n_transitions")
    call reset()
    call atomgpu_rates_photoionization(fd, 5.0_dp, 32, te, ne, tr, energy_zero, d0, d1, up, down, stat)
    call expect_bad("photoionization: zero energy", 9, "energy_ev", "[1]")
    call reset()
    call atomgpu_rates_photoionization(fd, 5.0_dp, 32, te, ne, tr, energy, d0, d1(1:1), up, down, stat)
    call expect_bad("photoionization: size(d1_cm2)", 11, "d1_cm2")
    call reset()
    call atomgpu_rates_photoionization(fd, 5.0_dp, 32, te, ne, tr, energy, d0, [0.0_dp, nan], up, down, stat)
    call expect_bad("photoionization: NaN d1_cm2", 11, "d1_cm2", "[1]")
    call reset()
    call atomgpu_rates_photoionization(fd, 5.0_dp, 32, te, ne, tr, energy, d0, d1, up, up3, stat)
    call expect_bad("photoionization: shape(heating)", 13, "heating")

    ! ---- inverse bremsstrahlung: C (stats 1, accuracy_p 2, nodes 3, n_states 4, te_ev 5,
    !      ne_cm3 6, tr_ev 7, z2n_cm3 8, heating 9) ----
    call reset()
    call atomgpu_rates_inverse_bremsstrahlung(4, 5.0_dp, 32, te, ne, tr, z2n, a, stat)
    call expect_bad("inverse_bremsstrahlung: stats", 1, "stats")
    call reset()
    call atomgpu_rates_inverse_bremsstrahlung(fd, 20.0_dp, 32, te, ne, tr, z2n, a, stat)
    call expect_bad("inverse_bremsstrahlung: accuracy_p", 2, "accuracy_p")
    call reset()
    call atomgpu_rates_inverse_bremsstrahlung(fd, 5.0_dp, 32, te_nan, ne, tr, z2n, a, stat)
    call expect_bad("inverse_bremsstrahlung: NaN temperature", 5, "te_ev", "[1]")
    call reset()
    call atomgpu_rates_inverse_bremsstrahlung(fd, 5.0_dp, 32, te, ne_neg, tr, z2n, a, stat)
    call expect_bad("inverse_bremsstrahlung: negative density", 6, "ne_cm3", "[1]")
    call reset()
    call atomgpu_rates_inverse_bremsstrahlung(fd, 5.0_dp, 32, te, ne, tr_nan, z2n, a, stat)
    call expect_bad("inverse_bremsstrahlung: NaN radiation temperature", 7, "tr_ev", "[1]")
    call reset()
    call atomgpu_rates_inverse_bremsstrahlung(fd, 5.0_dp, 32, te, ne, tr, z2n_neg, a, stat)
    call expect_bad("inverse_bremsstrahlung: negative z2n_cm3", 8, "z2n_cm3", "[1]")
    call reset()
    call atomgpu_rates_inverse_bremsstrahlung(fd, 5.0_dp, 32, te, ne, tr, z2n, a3, stat)
    call expect_bad("inverse_bremsstrahlung: size(heating)", 9, "heating")

    ! A valid call after all this succeeds and clears the error.
    call atomgpu_rates_inverse_bremsstrahlung(fd, 5.0_dp, 32, te, ne, tr, z2n, a, stat)
    checks = checks + 1
    if (stat /= ATOMGPU_OK .or. atomgpu_last_error_arg() /= 0 .or. len(atomgpu_last_error_message()) /= 0) then
        failures = failures + 1
        print '(a)', "FAIL valid call after errors"
    end if

    print '(a, i0, a, i0, a)', "test_bad_input (Fortran): ", checks, " checks, ", failures, " failures"
    if (failures /= 0) error stop 1

contains

    subroutine reset()
        a = sentinel
        b = sentinel
        up = sentinel
        down = sentinel
        a3 = sentinel
        up3 = sentinel
        stat = -99
    end subroutine

    ! After a call with stat=stat: the status, argument position, message and untouched outputs.
    subroutine expect_bad(what, position, name, fragment)
        character(len=*), intent(in) :: what, name
        integer, intent(in) :: position
        character(len=*), intent(in), optional :: fragment
        logical :: ok
        checks = checks + 1
        ok = invalid_argument_reported(what, stat, position, name, fragment)
        if (any(a /= sentinel) .or. any(b /= sentinel) .or. any(up /= sentinel) .or. any(down /= sentinel) &
            .or. any(a3 /= sentinel) .or. any(up3 /= sentinel)) then
            print '(a, a, a)', "FAIL ", what, ": an output was written on error"
            ok = .false.
        end if
        if (.not. ok) failures = failures + 1
    end subroutine

end program test_bad_input
