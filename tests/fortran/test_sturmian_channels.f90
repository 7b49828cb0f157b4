! test_sturmian_channels.f90: what a Sturmian channel carries (issue 28), through module atomgpu,
! against closed forms (the C test tests/c/test_sturmian_channels.c, in short):
!   (a) atomgpu_sturmian_add_gsf keeps the channel's -Z/r and energy: Coulomb Sturmians generated
!       for Z = 0 at E = -1/2 hartree (Yukawa range 1e12 bohr; lambda = 1) used for hydrogen
!       (params Z = 1, two electrons that do not interact, pair (0, 0)) give the levels
!       2 e_1 = -1 and e_1 + e_2 = -5/8, e_n = -1/(2 n^2), whatever params' energies say;
!   (b) atomgpu_sturmian_channel_values reads it back: S_0 = 2 r e^-r (hydrogen's 1s),
!       beta_n = n + 1, U = 0, E = -0.5;
!   (c) the functions read back, added again with energy= (params' energies nonsense) or
!       without it (params' energies -0.5), give the same Hamiltonian (1e-13);
!   (d) refusals through stat: the energy of a channel without one, a central of the wrong
!       size, a channel never added, values of too few columns and beta of too few elements (the
!       library's cols_values and len_beta), a NaN energy.
!
! Build (from the repository root, after `cargo build --release`):
!   gfortran -std=f2018 -Wall -fcheck=all fortran/atomgpu.f90 tests/fortran/support/checks.f90 \
!       tests/fortran/test_sturmian_channels.f90 -o test_sturmian_channels -Ltarget/release -latomgpu \
!       -Wl,-rpath,$PWD/target/release
! Exit status 0 when every check passes (error stop 1 otherwise).
program test_sturmian_channels
    use, intrinsic :: iso_c_binding, only: c_double, c_int64_t
    use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
    use atomgpu
    use atomgpu_test_checks
    implicit none

    integer, parameter :: dp = c_double, i8 = c_int64_t
    real(dp), parameter :: sentinel = -12345.0_dp, rmax = 60.0_dp
    integer, parameter :: nq = 120, ns = 3, n = 16
    real(dp) :: abscissas(nq), weights(nq)
    real(dp), allocatable :: points(:), values(:, :), h_gsf(:, :), s_gsf(:, :)
    real(dp) :: beta(n), generating(nq), central(nq), energy
    integer(i8) :: clock_start
    type(atomgpu_sturmian_params_t) :: nonsense, at_half

    call system_clock(clock_start)
    allocate (points(atomgpu_sturmian_n_points(nq, ns)), values(atomgpu_sturmian_n_points(nq, ns), n))
    allocate (h_gsf(n * n, n * n), s_gsf(n * n, n * n))
    nonsense = atomgpu_sturmian_params_t(l_total=0, m=0, energy_a=3.0_dp, energy_b=-40.0_dp, nuclear_charge=1.0_dp, &
        interaction_charge=0.0_dp)
    at_half = nonsense
    at_half%energy_a = -0.5_dp
    at_half%energy_b = -0.5_dp
    call generated()
    call given_again()

    print '(a, i0, a, i0, a, f0.2, a)', "test_sturmian_channels (Fortran): ", checks, " checks, ", failures, &
        " failures (", elapsed_seconds(clock_start), " s)"
    if (failures /= 0) error stop 1

contains

    ! (a), (b)
    subroutine generated()
        type(atomgpu_sturmian_basis) :: b
        type(atomgpu_gsf_params_t) :: gsf
        real(dp) :: energies(3), beta_b(n)
        integer :: stat, k
        gsf = atomgpu_gsf_params_t(nuclear_charge=0.0_dp, energy=-0.5_dp, yukawa_strength=1.0_dp, &
            yukawa_range=1e12_dp, n_parent=n + 10, lambda=1.0_dp)
        call atomgpu_sturmian_grid(rmax, ns, abscissas, weights, points, stat=stat)
        if (.not. succeeded("grid", stat)) return
        call atomgpu_sturmian_create(b, rmax, nq, ns, stat=stat)
        if (.not. succeeded("create", stat)) return
        call atomgpu_sturmian_add_gsf(b, ATOMGPU_ELECTRON_A, 0, n, gsf, stat=stat)
        if (succeeded("add_gsf a", stat)) call atomgpu_sturmian_add_gsf(b, ATOMGPU_ELECTRON_B, 0, n, gsf, stat=stat)
        if (succeeded("add_gsf b", stat)) &
            call atomgpu_sturmian_hamiltonian(b, nonsense, [0], [0], ATOMGPU_ORDER_A_FASTEST, h_gsf, s_gsf, stat=stat)
        if (succeeded("hamiltonian", stat)) call atomgpu_sturmian_solve(h_gsf, s_gsf, energies, stat=stat)
        if (succeeded("solve", stat)) then
            print '(a, 3f16.12)', "hydrogen from Z = 0 Coulomb Sturmians:", energies
            call check_abs("(a) 1s^2 = -1", energies(1), -1.0_dp, 1e-9_dp)
            call check_abs("(a) 1s2s = -5/8", energies(2), -0.625_dp, 1e-9_dp)
        end if
        values = sentinel
        energy = sentinel
        call atomgpu_sturmian_channel_values(b, ATOMGPU_ELECTRON_A, 0, values, beta, generating, central, energy, &
            stat=stat)
        if (succeeded("channel_values", stat)) then
            call check("(b) S_0 = 2 r e^-r", maxval(abs(sign(1.0_dp, values(ns + 2, 1)) * values(:, 1) - &
                2 * points * exp(-points))) <= 1e-10_dp)
            call check("(b) beta_n = n + 1", maxval(abs(beta - [(real(k, dp), k = 1, n)]) / [(real(k, dp), k = 1, n)]) &
                <= 1e-9_dp)
            call check("(b) generating = -e^(-r/a)/r", maxval(abs(generating * abscissas + exp(-abscissas / 1e12_dp))) &
                <= 1e-15_dp)
            call check("(b) central = 0 (Z = 0)", all(central == 0))
            call check("(b) energy = -0.5", energy == -0.5_dp)
        end if
        beta_b = sentinel
        call atomgpu_sturmian_channel_values(b, ATOMGPU_ELECTRON_B, 0, beta=beta_b, stat=stat)
        if (succeeded("channel_values: beta only", stat)) call check("(b) beta only: the same", all(beta_b == beta))
        call atomgpu_sturmian_destroy(b)
    end subroutine

    ! (c), (d)
    subroutine given_again()
        type(atomgpu_sturmian_basis) :: b
        real(dp), allocatable :: h(:, :), s(:, :)
        real(dp) :: u(nq), e, nan
        integer :: stat, electron
        allocate (h(n * n, n * n), s(n * n, n * n))
        call atomgpu_sturmian_create(b, rmax, nq, ns, stat=stat)
        if (.not. succeeded("create (energy=)", stat)) return
        do electron = ATOMGPU_ELECTRON_A, ATOMGPU_ELECTRON_B
            call atomgpu_sturmian_add_channel(b, electron, 0, values, beta, generating, central, stat=stat, &
                energy=-0.5_dp)
            if (.not. succeeded("add_channel with energy=", stat)) return
        end do
        call atomgpu_sturmian_hamiltonian(b, nonsense, [0], [0], ATOMGPU_ORDER_A_FASTEST, h, s, stat=stat)
        if (succeeded("hamiltonian (energy=)", stat)) &
            call check("(c) energy=: the generated channel's H", maxval(abs(h - h_gsf)) <= 1e-13_dp * maxval(abs(h_gsf)))
        call atomgpu_sturmian_destroy(b)
        call atomgpu_sturmian_create(b, rmax, nq, ns, stat=stat)
        if (.not. succeeded("create (no energy)", stat)) return
        do electron = ATOMGPU_ELECTRON_A, ATOMGPU_ELECTRON_B
            call atomgpu_sturmian_add_channel(b, electron, 0, values, beta, generating, central, stat=stat)
            if (.not. succeeded("add_channel", stat)) return
        end do
        call atomgpu_sturmian_hamiltonian(b, at_half, [0], [0], ATOMGPU_ORDER_A_FASTEST, h, s, stat=stat)
        if (succeeded("hamiltonian (no energy)", stat)) call check("(c) params' energies: the generated channel's H", &
            maxval(abs(h - h_gsf)) <= 1e-13_dp * maxval(abs(h_gsf)))
        e = sentinel
        u = sentinel
        call atomgpu_sturmian_channel_values(b, ATOMGPU_ELECTRON_A, 0, central=u, energy=e, stat=stat)
        call expect_invalid("(d) channel_values: energy of a channel without one", stat, 11, "energy", &
            e == sentinel .and. all(u == sentinel))
        call atomgpu_sturmian_channel_values(b, ATOMGPU_ELECTRON_A, 0, central=u(:nq - 1), stat=stat)
        call expect_invalid("(d) channel_values: central of nq - 1", stat, 10, "central", all(u == sentinel))
        call atomgpu_sturmian_channel_values(b, ATOMGPU_ELECTRON_A, 1, central=u, stat=stat)
        call expect_invalid("(d) channel_values: no channel l = 1", stat, 3, "l", all(u == sentinel))
        call atomgpu_sturmian_channel_values(b, ATOMGPU_ELECTRON_A, 0, values(:, :n - 1), stat=stat)
        call expect_invalid("(d) channel_values: values of N - 1 columns", stat, 6, "cols_values", .true.)
        call atomgpu_sturmian_channel_values(b, ATOMGPU_ELECTRON_A, 0, beta=beta(:n - 1), stat=stat)
        call expect_invalid("(d) channel_values: beta of N - 1 elements", stat, 8, "len_beta", .true.)
        nan = ieee_value(nan, ieee_quiet_nan)
        call atomgpu_sturmian_add_channel(b, ATOMGPU_ELECTRON_A, 2, values, beta, generating, stat=stat, energy=nan)
        call expect_invalid("(d) add_channel: NaN energy", stat, 10, "energy", .true.)
        call atomgpu_sturmian_destroy(b)
    end subroutine
end program test_sturmian_channels
