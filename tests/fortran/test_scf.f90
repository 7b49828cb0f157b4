! test_scf.f90: calls every SCF wrapper of module atomgpu and checks the numbers against values
! known independently of the library:
!   (a) WTBS exponents: the recursion zeta_1 = alpha, zeta_k = zeta_(k-1) beta (1 + gamma (k/K)^delta)
!       evaluated here, wtbspara in DFRATOM's order (alpha, beta, delta, gamma);
!   (b) one normalised s Gaussian of exponent a: overlap 1, kinetic 3a/2, point-nucleus
!       attraction -2Z sqrt(2a/pi); the Fermi nucleus of Xe against mpmath; the Dirac blocks
!       (free_hamiltonian): small-small -2c^2, coupling
!       c sqrt(3a);
!   (c) the supermatrix and Fock build of that function: G_11 = R^0/2, G(D = 2) = R^0 = 2 sqrt(a/pi)
!       (the self-repulsion of a Gaussian charge);
!   (d) whole SCFs in one s Gaussian: hydrogen (one open s electron) -4/(3 pi) at a = 8/(9 pi),
!       helium -k^2/12 at a = (k/6)^2, k = (8 sqrt 2 - 2)/sqrt(pi); the WTBS optimisation of the
!       one helium exponent finds (k/6)^2;
!   (e) a non-converged SCF: ATOMGPU_ERR_NOT_CONVERGED with its last cycle written;
!   (f) bad input through stat: shapes, a negative exponent, an occupation that does not fit,
!       a destroyed handle: ATOMGPU_ERR_INVALID_ARGUMENT at the argument's C position, its name
!       in the message, untouched outputs.
!
! Build (from the repository root, after `cargo build --release`):
!   gfortran -std=f2018 -Wall -fcheck=all fortran/atomgpu.f90 tests/fortran/support/checks.f90 \
!       tests/fortran/test_scf.f90 -o test_scf -Ltarget/release -latomgpu -Wl,-rpath,$PWD/target/release
! Exit status 0 when every check passes (error stop 1 otherwise).
program test_scf
    use, intrinsic :: iso_c_binding, only: c_double, c_int64_t
    use atomgpu
    use atomgpu_test_checks
    implicit none

    integer, parameter :: dp = c_double, i8 = c_int64_t
    real(dp), parameter :: sentinel = -12345.0_dp
    real(dp) :: k_he
    integer(i8) :: clock_start
    integer :: stat

    call system_clock(clock_start)
    k_he = (8 * sqrt(2.0_dp) - 2) / sqrt(pi)
    call test_wtbs()
    call test_one_electron()
    call test_integrals()
    call test_scf_runs()
    call test_optimisation()
    call test_bad_input()

    print '(a, i0, a, i0, a, f0.2, a)', "test_scf (Fortran): ", checks, " checks, ", failures, &
        " failures (", elapsed_seconds(clock_start), " s)"
    if (failures /= 0) error stop 1

contains

    function params_for(method, z) result(p)
        integer, intent(in) :: method
        real(dp), intent(in) :: z
        type(atomgpu_scf_params_t) :: p
        p%method = method
        p%nuclear_charge = z
        p%threshold_large = 1.0e-10_dp
        p%threshold_small = 1.0e-10_dp
        p%max_iterations = 200
    end function

    subroutine test_wtbs()
        real(dp) :: exponents(7), pool(5), want(7)
        integer :: k
        ! One group (alpha, beta, delta, gamma) = (0.05, 2.1, 3, 0.4); symmetry 1 takes 5 from
        ! position 1, symmetry 2 takes 2 from position 4 (pool K = 5).
        call atomgpu_scf_wtbs_exponents([0.05_dp, 2.1_dp, 3.0_dp, 0.4_dp], [5, 2], [1, 4], [1, 1], exponents, stat)
        if (.not. succeeded("wtbs_exponents", stat)) return
        pool(1) = 0.05_dp
        do k = 2, 5
            pool(k) = pool(k - 1) * 2.1_dp * (1 + 0.4_dp * (real(k, dp) / 5) ** 3)
        end do
        want = [pool, pool(4:5)]
        do k = 1, 7
            call check_rel("wtbs exponent", exponents(k), want(k), 1e-15_dp)
        end do
    end subroutine

    subroutine test_one_electron()
        type(atomgpu_scf_params_t) :: p
        real(dp) :: s(1, 1), t(1, 1), v(1, 1), sd(2, 2), td(2, 2), vd(2, 2)
        real(dp), parameter :: a = 0.7_dp, z = 3.0_dp
        p = params_for(ATOMGPU_SCF_HARTREE_FOCK, z)
        call atomgpu_scf_one_electron(p, 0, [a], s, t, v, stat)
        if (.not. succeeded("one_electron (s)", stat)) return
        call check_rel("one Gaussian: overlap 1", s(1, 1), 1.0_dp, 1e-14_dp)
        call check_rel("one Gaussian: kinetic 3a/2", t(1, 1), 1.5_dp * a, 1e-14_dp)
        call check_rel("one Gaussian: -2Z sqrt(2a/pi)", v(1, 1), -2 * z * sqrt(2 * a / pi), 1e-13_dp)
        p = params_for(ATOMGPU_SCF_DIRAC_FOCK, z)
        call atomgpu_scf_one_electron(p, -1, [a], sd, td, vd, stat)
        if (.not. succeeded("one_electron (s1/2)", stat)) return
        call check_rel("Dirac: small-small -2c^2", td(2, 2), -2 * p%speed_of_light ** 2, 1e-13_dp)
        call check_rel("Dirac: coupling c sqrt(3a)", td(2, 1), p%speed_of_light * sqrt(3 * a), 1e-12_dp)
        call check_rel("Dirac: small overlap 1", sd(2, 2), 1.0_dp, 1e-14_dp)
        ! The Fermi nucleus of Xe (A = 132, GRASP's defaults) against mpmath
        ! (tests/reference/fermi_nucleus_mpmath.py): c, a, and V_12 of s Gaussians 1e9, 2e9, Z = 54.
        block
            real(dp) :: c_fm, a_fm, s2(2, 2), t2(2, 2), v2(2, 2)
            call atomgpu_scf_fermi_nucleus(132.0_dp, 0.0_dp, 2.30_dp, c_fm, a_fm, stat)
            if (.not. succeeded("fermi_nucleus (Xe)", stat)) return
            call check_rel("Fermi: c of Xe [fm]", c_fm, 5.7025034344302989854_dp, 1e-14_dp)
            call check_rel("Fermi: a = 2.30/(4 ln 3) fm", a_fm, 0.52338755531043150133_dp, 1e-15_dp)
            p = params_for(ATOMGPU_SCF_HARTREE_FOCK, 54.0_dp)
            p%nucleus_model = ATOMGPU_SCF_NUCLEUS_FERMI
            p%nucleus_mass_number = 132.0_dp
            call atomgpu_scf_one_electron(p, 0, [1e9_dp, 2e9_dp], s2, t2, v2, stat)
            if (.not. succeeded("one_electron (Fermi)", stat)) return
            call check_rel("Fermi: V_12 of Xe", v2(1, 2), -643777.9097150988953708_dp, 1e-13_dp)
            c_fm = -1
            call atomgpu_scf_fermi_nucleus(0.0_dp, 1.0_dp, 2.30_dp, c_fm, a_fm, stat)
            call expect_invalid("fermi_nucleus: r_rms 1 fm", stat, 2, "rms_radius", c_fm == -1)
        end block
    end subroutine

    subroutine test_integrals()
        type(atomgpu_scf_integrals_t) :: h
        integer(i8) :: n_pairs, n_sets
        real(dp) :: packed(1), g(1)
        real(dp), parameter :: a = 1.3_dp
        call atomgpu_scf_integrals_create(h, params_for(ATOMGPU_SCF_HARTREE_FOCK, 2.0_dp), [0], [1], [a], stat)
        if (.not. succeeded("integrals_create", stat)) return
        call atomgpu_scf_integrals_sizes(h, n_pairs, n_sets, stat)
        if (succeeded("integrals_sizes", stat)) call check("one function: 1 pair, 1 set", n_pairs == 1 .and. n_sets == 1)
        call atomgpu_scf_integrals_supermatrix(h, packed, stat)
        if (succeeded("integrals_supermatrix", stat)) &
            call check_rel("G_11 = R^0 / 2 = sqrt(a/pi)", packed(1), sqrt(a / pi), 1e-14_dp)
        call atomgpu_scf_integrals_two_electron(h, [2.0_dp], g, stat)
        if (succeeded("integrals_two_electron", stat)) &
            call check_rel("G(D = 2) = R^0 = 2 sqrt(a/pi)", g(1), 2 * sqrt(a / pi), 1e-14_dp)
        call atomgpu_scf_integrals_destroy(h, stat)
        call check("integrals_destroy", stat == ATOMGPU_OK)
    end subroutine

    subroutine test_scf_runs()
        real(dp) :: e(4), eps(1), a, c(1), d(1), convergence(2)
        integer :: iterations
        a = 8 / (9 * pi)
        call atomgpu_scf_run(params_for(ATOMGPU_SCF_HARTREE_FOCK, 1.0_dp), [0], [1], [a], [0], [1.0_dp], e, eps, &
            iterations, stat)
        if (succeeded("run (H, one Gaussian)", stat)) then
            call check_rel("H in one Gaussian: -4/(3 pi)", e(1), -4 / (3 * pi), 1e-14_dp)
            call check_rel("H: orbital energy = E", eps(1), -4 / (3 * pi), 1e-13_dp)
        end if
        a = (k_he / 6) ** 2
        call atomgpu_scf_run(params_for(ATOMGPU_SCF_HARTREE_FOCK, 2.0_dp), [0], [1], [a], [1], [0.0_dp], e, eps, &
            iterations, stat)
        if (succeeded("run (He, one Gaussian)", stat)) &
            call check_rel("He in one Gaussian: -k^2/12", e(1), -k_he ** 2 / 12, 1e-14_dp)
        ! The orbital and density of that run (one normalised Gaussian: c = +-1, D = 2 exactly).
        call atomgpu_scf_run(params_for(ATOMGPU_SCF_HARTREE_FOCK, 2.0_dp), [0], [1], [a], [1], [0.0_dp], e, eps, &
            iterations, stat, coefficients=c, densities=d, convergence=convergence)
        if (succeeded("run with coefficients= (He)", stat)) then
            call check_rel("He: |c| = 1", abs(c(1)), 1.0_dp, 1e-14_dp)
            call check_rel("He: D = 2", d(1), 2.0_dp, 1e-14_dp)
            call check("He: the last energy change below 1e-10", abs(convergence(1)) < 1e-10_dp)
        end if
        call not_converged()
    end subroutine

    ! Ne in 10 s and 6 p functions stopped after 2 cycles: the status says so, the last cycle is
    ! written.
    subroutine not_converged()
        type(atomgpu_scf_params_t) :: p
        real(dp) :: e(4), eps(3), exponents(16)
        integer :: iterations, k
        p = params_for(ATOMGPU_SCF_HARTREE_FOCK, 10.0_dp)
        p%max_iterations = 2
        exponents(1:10) = [(0.1_dp * 2.5_dp ** k, k = 0, 9)]
        exponents(11:16) = [(0.2_dp * 2.5_dp ** k, k = 0, 5)]
        e = sentinel
        iterations = -1
        call atomgpu_scf_run(p, [0, 1], [10, 6], exponents, [2, 1], [0.0_dp, 0.0_dp], e, eps, iterations, stat)
        call check("not converged: ATOMGPU_ERR_NOT_CONVERGED", stat == ATOMGPU_ERR_NOT_CONVERGED)
        call check("not converged: the last cycle written", iterations == 2 .and. e(1) < -100 .and. e(1) > -140)
        call check("not converged: the message says so", index(atomgpu_last_error_message(), "did not reach") > 0)
    end subroutine

    subroutine test_optimisation()
        real(dp) :: optimised(4), exponents(1), e(4)
        integer :: evaluations
        logical :: converged
        call atomgpu_scf_optimise_wtbs(params_for(ATOMGPU_SCF_HARTREE_FOCK, 2.0_dp), [0], [1], [0.0_dp], &
            [0.4_dp, 2.0_dp, 1.0_dp, 0.5_dp], [1], [1], [1], 0.2_dp, 1.0e-7_dp, 200, optimised, exponents, e, &
            evaluations, converged, stat)
        if (.not. succeeded("optimise_wtbs (He, one Gaussian)", stat)) return
        call check("optimise: converged", converged)
        call check_rel("optimise: alpha = (k/6)^2", exponents(1), (k_he / 6) ** 2, 1e-5_dp)
        call check_abs("optimise: E = -k^2/12", e(1), -k_he ** 2 / 12, 1e-10_dp)
        ! The settings (C struct atomgpu_scf_wtbs_settings, position 6) refused naming the field:
        ! a layout of the wrong size (checked here) and rho_end above rho_begin (by the library).
        optimised = -7
        call atomgpu_scf_optimise_wtbs(params_for(ATOMGPU_SCF_HARTREE_FOCK, 2.0_dp), [0], [1], [0.0_dp], &
            [0.4_dp, 2.0_dp, 1.0_dp, 0.5_dp], [1, 1], [1], [1], 0.2_dp, 1.0e-7_dp, 200, optimised, exponents, e, &
            evaluations, converged, stat)
        call expect_invalid("optimise: two nbs for one symmetry", stat, 6, "nbs", all(optimised == -7))
        call atomgpu_scf_optimise_wtbs(params_for(ATOMGPU_SCF_HARTREE_FOCK, 2.0_dp), [0], [1], [0.0_dp], &
            [0.4_dp, 2.0_dp, 1.0_dp, 0.5_dp], [1], [1], [1], 0.2_dp, 0.3_dp, 200, optimised, exponents, e, &
            evaluations, converged, stat)
        call expect_invalid("optimise: rho_end above rho_begin", stat, 6, "rho_end", all(optimised == -7))
    end subroutine

    subroutine test_bad_input()
        type(atomgpu_scf_params_t) :: p
        type(atomgpu_scf_integrals_t) :: h, copy
        real(dp) :: e(4), eps(1), s(2, 2), t(2, 2), v(2, 2), g(1), exponents(3)
        integer :: iterations
        p = params_for(ATOMGPU_SCF_HARTREE_FOCK, 2.0_dp)
        e = sentinel
        call atomgpu_scf_run(p, [0], [2], [1.0_dp, -2.0_dp], [1], [0.0_dp], e, eps, iterations, stat)
        call expect_invalid("run: a negative exponent", stat, 5, "exponents", all(e == sentinel))
        call atomgpu_scf_run(p, [0], [2], [1.0_dp, 2.0_dp], [3], [0.0_dp], e, eps, iterations, stat)
        call expect_invalid("run: an occupation that does not fit", stat, 6, "closed", all(e == sentinel))
        call atomgpu_scf_run(p, [0], [2, 1], [1.0_dp, 2.0_dp], [1], [0.0_dp], e, eps, iterations, stat)
        call expect_invalid("run: n_functions of another size", stat, 4, "n_functions", all(e == sentinel))
        s = sentinel
        call atomgpu_scf_one_electron(p, 0, [1.0_dp], s, t, v, stat)
        call expect_invalid("one_electron: 2 x 2 for one Hartree-Fock function", stat, 5, "overlap", all(s == sentinel))
        exponents = sentinel
        call atomgpu_scf_wtbs_exponents([0.1_dp, 2.0_dp, 1.0_dp], [3], [1], [1], exponents, stat)
        call expect_invalid("wtbs_exponents: 3 parameters", stat, 2, "wtbspara", all(exponents == sentinel))
        call atomgpu_scf_wtbs_exponents([0.1_dp, 2.0_dp, 1.0_dp, 0.0_dp], [3], [1], [2], exponents, stat)
        call expect_invalid("wtbs_exponents: group 2 of 1", stat, 6, "groups", all(exponents == sentinel))
        call atomgpu_scf_integrals_create(h, p, [0], [1], [1.0_dp], stat)
        if (.not. succeeded("integrals_create", stat)) return
        copy = h
        call atomgpu_scf_integrals_destroy(h, stat)
        g = sentinel
        call atomgpu_scf_integrals_two_electron(copy, [2.0_dp], g, stat)
        call expect_invalid("two_electron: a destroyed handle", stat, 1, "handle", all(g == sentinel))
    end subroutine
end program test_scf
