! test_cr.f90: calls every collisional-radiative (CR) wrapper of module atomgpu on a small
! three-level model and checks the numbers against closed forms (the same checks as
! tests/c/test_cr.c, with the Fortran layer's 1-based level numbering; the rate matrices are
! checked against conservation and against the right-hand side):
!   (a) RK4 keeps the linear invariants of the radiation-free system (total ion density and total
!       energy u + sum_l E_l N_l) to rounding;
!   (b) the right-hand side moves no ions in or out (sum_l dN_l/dt = 0), conserves energy without
!       radiation, and reports n_e = sum_l Z_l N_l and the temperature the state was made at;
!   (c) the initial energy density is 3/2 n_e T_e (Maxwell-Boltzmann) and the Sommerfeld
!       expansion (3/5) n_e E_F (1 + 5 pi^2/12 (T/E_F)^2) of a degenerate gas (Fermi-Dirac);
!   (d) without radiation the stiff integrator relaxes the system to local thermodynamic
!       equilibrium: Boltzmann N2/N1 = (g2/g1) e^{-5/T} and Saha N3/N1 = (g3/g1) e^{-(20+mu)/T};
!   (e) bad input (a model never created, negative n_steps, too few samples, a level index out of
!       range, unsorted sample times, inconsistent array sizes): stat =
!       ATOMGPU_ERR_INVALID_ARGUMENT, the argument's position in the C function, untouched outputs;
!   (f) a model destroyed through a copy of its variable is refused (use and second destroy), a
!       progress callback sees the run and stops it on its third call, and the time limit stops
!       a run of 2^50 steps: stat = ATOMGPU_ERR_CANCELLED, y untouched.
!
! The model: level 1 (Z = 1, 0 eV, g = 2), level 2 (Z = 1, 5 eV, g = 6), level 3 (Z = 2, 20 eV,
! g = 1); excitation 1 -> 2 (5 eV), ionizations 1 -> 3 (20 eV) and 2 -> 3 (15 eV). Quadrature
! p = 5 with 8 nodes per panel.
!
! Build (from the repository root, after `cargo build --release`):
!   gfortran -std=f2018 -Wall -fcheck=all fortran/atomgpu.f90 tests/fortran/support/checks.f90 \
!       tests/fortran/test_cr.f90 -o test_cr -Ltarget/release -latomgpu -Wl,-rpath,$PWD/target/release
! Exit status 0 when every check passes (error stop 1 otherwise).

! The progress callback of (f): counts its calls in the integer user_data points to, keeps the
! last task name and progress, and asks to stop on the third call.
module test_cr_progress
    use, intrinsic :: iso_c_binding, only: c_ptr, c_double, c_int32_t, c_f_pointer
    use atomgpu, only: atomgpu_task_name
    implicit none
    character(len=:), allocatable :: last_task
    real(c_double) :: last_done = -1, last_total = -1
contains
    function stop_at_third(user_data, task, done, total) bind(C) result(stop)
        type(c_ptr), value :: user_data, task
        real(c_double), value :: done, total
        integer(c_int32_t) :: stop
        integer, pointer :: calls
        call c_f_pointer(user_data, calls)
        calls = calls + 1
        last_task = atomgpu_task_name(task)
        last_done = done
        last_total = total
        stop = merge(1_c_int32_t, 0_c_int32_t, calls == 3)
    end function
end module test_cr_progress

program test_cr
    use, intrinsic :: iso_c_binding, only: c_double, c_int64_t, c_loc
    use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
    use atomgpu
    use atomgpu_test_checks
    use test_cr_progress
    implicit none

    integer, parameter :: dp = c_double, i8 = c_int64_t
    integer, parameter :: fd = ATOMGPU_STATS_FERMI_DIRAC, mb = ATOMGPU_STATS_MAXWELL_BOLTZMANN
    real(dp), parameter :: sentinel = -12345.0_dp
    integer, parameter :: nl = 3

    ! The model's data (levels numbered from 1).
    real(dp), parameter :: charges(nl) = [1.0_dp, 1.0_dp, 2.0_dp]
    real(dp), parameter :: weights(nl) = [2.0_dp, 6.0_dp, 1.0_dp]
    real(dp), parameter :: level_energy(nl) = [0.0_dp, 5.0_dp, 20.0_dp]
    integer(i8), parameter :: x_lower(1) = [1_i8], x_upper(1) = [2_i8]
    real(dp), parameter :: x_energy(1) = [5.0_dp]
    real(dp), parameter :: x_omega(6, 1) = reshape([0.5_dp, 1.0_dp, 0.3_dp, -0.1_dp, 0.0_dp, 0.0_dp], [6, 1])
    integer(i8), parameter :: i_lower(2) = [1_i8, 2_i8], i_upper(2) = [3_i8, 3_i8]
    real(dp), parameter :: i_energy(2) = [20.0_dp, 15.0_dp]
    real(dp), parameter :: i_beli(5, 2) = reshape([3.0_dp, -0.2_dp, 2.0_dp, -0.5_dp, 0.0_dp, &
        3.0_dp, -0.2_dp, 2.0_dp, -0.5_dp, 0.0_dp], [5, 2])
    real(dp), parameter :: i_d0(2) = [5e-18_dp, 5e-18_dp], i_d1(2) = [4e-19_dp, 4e-19_dp]

    ! Inputs and outputs of the bad-input calls (e): outputs are checked to stay untouched.
    real(dp) :: bad_y0(nl + 1), bad_y(nl + 1), bad_d(nl + 1), bad_c(3)
    real(dp) :: bad_times(8), bad_te(8), bad_ne(8), bad_pop(nl, 8)
    integer(i8) :: bad_n_samples
    integer :: bad_stat
    integer(i8) :: clock_start

    call system_clock(clock_start)
    call test_rk4_invariants(fd)
    call test_rk4_invariants(mb)
    call test_derivatives(fd)
    call test_derivatives(mb)
    call test_initial_state()
    call test_stiff_lte(mb, 1e-8_dp, 1e-13_dp)
    call test_stiff_lte(fd, 1e-6_dp, 1e-10_dp)
    call test_stiff_systems(mb)
    call test_stiff_systems(fd)
    call test_bad_input()
    call test_handles_and_progress()

    print '(a, i0, a, i0, a, f0.1, a)', "test_cr (Fortran): ", checks, " checks, ", failures, " failures (", &
        elapsed_seconds(clock_start), " s)"
    if (failures /= 0) error stop 1

contains

    character(len=2) function tag(stats)
        integer, intent(in) :: stats
        tag = merge("FD", "MB", stats == fd)
    end function

    subroutine make_model(model, stats, tr_ev)
        type(atomgpu_cr_model), intent(inout) :: model
        integer, intent(in) :: stats
        real(dp), intent(in) :: tr_ev
        integer :: stat
        call atomgpu_cr_create(model, charges, x_lower, x_upper, x_energy, x_omega, i_lower, i_upper, i_energy, &
            i_beli, i_d0, i_d1, stats, 5.0_dp, 8, tr_ev, weights=weights, stat=stat)
        if (succeeded("atomgpu_cr_create (" // tag(stats) // ")", stat)) then
            call check("atomgpu_cr_n_levels = 3", atomgpu_cr_n_levels(model) == nl)
        end if
    end subroutine

    real(dp) function total_energy(y)
        real(dp), intent(in) :: y(nl + 1)
        total_energy = y(nl + 1) + sum(level_energy * y(1:nl))
    end function

    ! (a) RK4 conserves the ion density and the total energy (T_r -> 0: no radiation).
    subroutine test_rk4_invariants(stats)
        integer, intent(in) :: stats
        type(atomgpu_cr_model) :: model
        real(dp) :: y(nl + 1), y0(nl + 1), times(8), te(8), ne(8), pop(nl, 8), t_check(1), mu_check(1)
        integer(i8) :: n_samples
        integer :: stat, s
        character(len=2) :: t
        t = tag(stats)
        call make_model(model, stats, 1e-3_dp)
        times = sentinel
        te = sentinel
        ne = sentinel
        pop = sentinel
        n_samples = -7
        call atomgpu_cr_initial_state(model, [1e21_dp, 0.0_dp, 0.0_dp], 3.0_dp, y, stat)
        if (succeeded(t // ": atomgpu_cr_initial_state", stat)) then
            y0 = y
            call atomgpu_cr_run_rk4(model, y, 2e-15_dp, 50_i8, 10_i8, n_samples, times, te, ne, pop, stat)
            if (succeeded(t // ": atomgpu_cr_run_rk4", stat)) then
                call check(t // ": rk4 gives 1 + 50/10 samples", n_samples == 6)
                call check(t // ": samples beyond n_samples untouched", all(times(7:8) == sentinel) &
                    .and. all(te(7:8) == sentinel) .and. all(pop(:, 7:8) == sentinel))
                call check(t // ": first sample is the initial state", times(1) == 0 .and. all(pop(:, 1) == y0(1:nl)))
                call check_rel(t // ": first sample's Te", te(1), 3.0_dp, 1e-12_dp)
                do s = 2, 6
                    call check_rel(t // ": rk4 sample time", times(s), (s - 1) * 10 * 2e-15_dp, 1e-14_dp)
                end do
                call check(t // ": y holds the last sample", all(y(1:nl) == pop(:, 6)))
                call check(t // ": something happened (N_2, N_3 > 1e-6 N)", y(2) > 1e15_dp .and. y(3) > 1e15_dp)
                call check_rel(t // ": rk4 conserves sum N", sum(y(1:nl)), sum(y0(1:nl)), 1e-12_dp)
                call check_rel(t // ": rk4 conserves u + sum E_l N_l", total_energy(y), total_energy(y0), 1e-12_dp)
                call check_rel(t // ": last n_e = sum Z N", ne(6), sum(charges * y(1:nl)), 1e-15_dp)
                call atomgpu_rates_temperature(stats, y(nl + 1:nl + 1), ne(6:6), t_check, mu_check, stat)
                if (succeeded(t // ": rates_temperature", stat)) then
                    call check_rel(t // ": last Te = T(u, n_e)", te(6), t_check(1), 1e-12_dp)
                end if
                call check(t // ": electrons cooled", te(6) < 3.0_dp)
            end if
        end if
        call atomgpu_cr_destroy(model)
    end subroutine

    ! (b) the right-hand side: sum dN = 0, energy conservation without radiation, the conditions;
    ! with radiation (T_r = 100 eV) it differs from the radiation-free one by exactly the
    ! photoionization terms L N and heating H N + IB of the rates family at the same conditions.
    subroutine test_derivatives(stats)
        integer, intent(in) :: stats
        type(atomgpu_cr_model) :: dark, lit
        real(dp), parameter :: pops(nl) = [6e20_dp, 3e20_dp, 1e20_dp], te0 = 2.5_dp
        real(dp) :: y(nl + 1), d(nl + 1, 2), cond(3, 2), mu(1), rate(2, 1), heat(2, 1), ib(1, 2), z2n(1), de, scale
        real(dp) :: m(nl, nl), me(nl)
        integer :: stat, k
        character(len=2) :: t
        t = tag(stats)
        call make_model(dark, stats, 1e-3_dp)
        call make_model(lit, stats, 100.0_dp)
        body: block
            z2n = sum(charges**2 * pops)
            call atomgpu_cr_initial_state(dark, pops, te0, y, stat)
            if (.not. succeeded("atomgpu_cr_initial_state", stat)) exit body
            call atomgpu_cr_derivatives(dark, y, d(:, 1), cond(:, 1), stat)
            if (.not. succeeded(t // ": atomgpu_cr_derivatives (no radiation)", stat)) exit body
            call atomgpu_cr_derivatives(lit, y, d(:, 2), cond(:, 2), stat)
            if (.not. succeeded(t // ": atomgpu_cr_derivatives (Tr = 100 eV)", stat)) exit body
            do k = 1, 2
                call check(t // ": sum dN/dt = 0", abs(sum(d(1:nl, k))) <= 1e-14_dp * sum(abs(d(1:nl, k))) &
                    .and. sum(abs(d(1:nl, k))) > 0)
                call check_rel(t // ": conditions Te = Te of the initial state", cond(1, k), te0, 1e-12_dp)
                call check_rel(t // ": conditions n_e = sum Z N", cond(3, k), sum(charges * pops), 1e-15_dp)
            end do
            de = d(nl + 1, 1) + sum(level_energy * d(1:nl, 1))
            scale = abs(d(nl + 1, 1)) + sum(level_energy * abs(d(1:nl, 1)))
            call check(t // ": d/dt (u + sum E N) = 0 without radiation", scale > 0 .and. abs(de) <= 1e-13_dp * scale)
            ! The rate matrices at the same conditions: columns conserve ions (and, without
            ! radiation, energy), and matmul(M, N), sum(m_energy * N) reproduce the right-hand side.
            do k = 1, 2
                if (k == 1) call atomgpu_cr_rate_matrix(dark, cond(1, k), cond(3, k), m, me, stat)
                if (k == 2) call atomgpu_cr_rate_matrix(lit, cond(1, k), cond(3, k), m, me, stat)
                if (.not. succeeded(t // ": atomgpu_cr_rate_matrix", stat)) exit body
                call check(t // ": columns of M sum to 0", all(abs(sum(m, 1)) <= 1e-14_dp * sum(abs(m), 1)))
                if (k == 1) then
                    call check(t // ": m_energy + sum_k E_k M(k, :) = 0 without radiation", &
                        all(abs(me + matmul(level_energy, m)) <= 1e-13_dp * (abs(me) + matmul(level_energy, abs(m)))))
                end if
                call check(t // ": matmul(M, N) = dN/dt", &
                    all(abs(matmul(m, pops) - d(1:nl, k)) <= 1e-12_dp * matmul(abs(m), pops)))
                call check(t // ": sum(m_energy N) = du/dt", &
                    abs(sum(me * pops) - d(nl + 1, k)) <= 1e-12_dp * sum(abs(me) * pops))
            end do
            call atomgpu_rates_chemical_potential(stats, [te0], cond(3:3, 1), mu, stat)
            if (succeeded("rates_chemical_potential", stat)) then
                call check(t // ": conditions mu = mu(Te, n_e)", abs(cond(2, 1) - mu(1)) <= 1e-12_dp * (abs(mu(1)) + te0))
            end if
            call atomgpu_rates_photoionization(stats, 5.0_dp, 8, cond(1:1, 2), cond(3:3, 2), [100.0_dp], i_energy, &
                i_d0, i_d1, rate, heat, stat)
            if (.not. succeeded("rates_photoionization", stat)) exit body
            call atomgpu_rates_inverse_bremsstrahlung(stats, 5.0_dp, 8, cond(1:1, 2), cond(3:3, 2), [100.0_dp], z2n, &
                ib(:, 2), stat)
            if (.not. succeeded("rates_inverse_bremsstrahlung", stat)) exit body
            call atomgpu_rates_inverse_bremsstrahlung(stats, 5.0_dp, 8, cond(1:1, 1), cond(3:3, 1), [1e-3_dp], z2n, &
                ib(:, 1), stat)
            if (.not. succeeded("rates_inverse_bremsstrahlung", stat)) exit body
            call check_rel(t // ": radiation adds L_1 N_1 + L_2 N_2 to dN_3/dt", d(3, 2) - d(3, 1), &
                rate(1, 1) * pops(1) + rate(2, 1) * pops(2), 1e-9_dp)
            call check_rel(t // ": radiation takes L_1 N_1 from dN_1/dt", d(1, 2) - d(1, 1), -rate(1, 1) * pops(1), 1e-9_dp)
            call check_rel(t // ": radiation adds H N + IB to du/dt", d(nl + 1, 2) - d(nl + 1, 1), &
                heat(1, 1) * pops(1) + heat(2, 1) * pops(2) + ib(1, 2) - ib(1, 1), 1e-9_dp)
        end block body
        call atomgpu_cr_destroy(dark)
        call atomgpu_cr_destroy(lit)
    end subroutine

    ! (c) the initial state's energy density against closed forms.
    subroutine test_initial_state()
        type(atomgpu_cr_model) :: mbm, fdm
        real(dp), parameter :: pops(nl) = [2e20_dp, 1e20_dp, 3e20_dp], deg(nl) = [1e23_dp, 0.0_dp, 0.0_dp]
        real(dp) :: y(nl + 1), ef, r
        integer :: stat
        call make_model(mbm, mb, 1e-3_dp)
        call make_model(fdm, fd, 1e-3_dp)
        call atomgpu_cr_initial_state(mbm, pops, 7.5_dp, y, stat)
        if (succeeded("MB atomgpu_cr_initial_state", stat)) then
            call check("initial_state copies the populations", all(y(1:nl) == pops))
            call check_rel("MB initial u = 3/2 n_e T_e", y(nl + 1), 1.5_dp * sum(charges * pops) * 7.5_dp, 1e-13_dp)
        end if
        ! Degenerate gas: n_e = 1e23 cm^-3 (E_F = 7.9 eV) at T = 0.1 eV; the next Sommerfeld term,
        ! -(pi^4/16) (T/E_F)^4, is 1.6e-7 of u.
        ef = hc**2 / (2 * mec2) * (3 * deg(1) / (8 * pi))**(2.0_dp / 3.0_dp)
        r = 0.1_dp / ef
        call atomgpu_cr_initial_state(fdm, deg, 0.1_dp, y, stat)
        if (succeeded("FD atomgpu_cr_initial_state", stat)) then
            call check_rel("FD initial u = (3/5) n_e E_F (1 + 5 pi^2/12 (T/E_F)^2)", y(nl + 1), &
                0.6_dp * deg(1) * ef * (1 + 5 * pi**2 / 12 * r**2), 1e-6_dp)
        end if
        call atomgpu_cr_destroy(mbm)
        call atomgpu_cr_destroy(fdm)
    end subroutine

    ! (d) the stiff integrator relaxes the radiation-free system to LTE (a fixed point of the
    ! ROS4 step, so the tolerances only set how many steps the way there takes).
    subroutine test_stiff_lte(stats, rtol, atol_fraction)
        integer, intent(in) :: stats
        real(dp), intent(in) :: rtol, atol_fraction
        type(atomgpu_cr_model) :: model
        real(dp) :: y(nl + 1), te(3), ne(3), pop(nl, 3), mu(1), t
        integer(i8) :: start
        integer :: stat
        character(len=2) :: g
        g = tag(stats)
        call make_model(model, stats, 1e-3_dp)
        call atomgpu_cr_initial_state(model, [4e20_dp, 0.0_dp, 1e20_dp], 4.0_dp, y, stat)
        if (succeeded("atomgpu_cr_initial_state", stat)) then
            call system_clock(start)
            call atomgpu_cr_run_stiff(model, y, [1e-13_dp, 1e-12_dp, 1e-11_dp], rtol, atol_fraction, te, ne, pop, stat)
            if (succeeded(g // ": atomgpu_cr_run_stiff to 1e-11 s", stat)) then
                print '(2x, a, a, es8.1, a, es8.1, a, f0.2, a)', g, " stiff run to LTE (rtol ", rtol, &
                    ", atol_fraction ", atol_fraction, "): ", elapsed_seconds(start), " s"
                t = te(3)
                call check(g // ": y holds the state at the last time", all(y(1:nl) == pop(:, 3)))
                call check_rel(g // ": last n_e = sum Z N", ne(3), sum(charges * pop(:, 3)), 1e-15_dp)
                call check_rel(g // ": ions conserved", sum(pop(:, 3)), 5e20_dp, 1e-10_dp)
                call check_rel(g // ": LTE Boltzmann N2/N1 = 3 exp(-5/T)", pop(2, 3) / pop(1, 3), 3 * exp(-5 / t), 1e-5_dp)
                call atomgpu_rates_chemical_potential(stats, te(3:3), ne(3:3), mu, stat)
                if (succeeded("rates_chemical_potential", stat)) then
                    call check_rel(g // ": LTE Saha N3/N1 = 0.5 exp(-(20 + mu)/T)", pop(3, 3) / pop(1, 3), &
                        0.5_dp * exp(-(20 + mu(1)) / t), 1e-5_dp)
                end if
            end if
        end if
        call atomgpu_cr_destroy(model)
    end subroutine

    ! (d') two systems in one call (atomgpu_cr_run_stiff_systems): each relaxes to LTE (Boltzmann
    ! ratio, closed form) and follows the run it makes alone (atomgpu_cr_run_stiff) exactly; a
    ! te_ev of the wrong shape is refused by name, nothing written.
    subroutine test_stiff_systems(stats)
        integer, intent(in) :: stats
        type(atomgpu_cr_model) :: model
        real(dp) :: y(nl + 1, 2), alone_y(nl + 1), te(3, 2), ne(3, 2), pop(nl, 3, 2)
        real(dp) :: alone_te(3), alone_ne(3), alone_pop(nl, 3), bad_te(3, 1)
        real(dp), parameter :: times(3) = [1e-13_dp, 1e-12_dp, 1e-11_dp]
        integer :: stat, s
        character(len=2) :: g
        g = tag(stats)
        call make_model(model, stats, 1e-3_dp)
        call atomgpu_cr_initial_state(model, [4e20_dp, 0.0_dp, 1e20_dp], 4.0_dp, y(:, 1), stat)
        call atomgpu_cr_initial_state(model, [1e21_dp, 2e20_dp, 0.0_dp], 9.0_dp, y(:, 2), stat)
        alone_y = y(:, 2)
        bad_te = -7
        call atomgpu_cr_run_stiff_systems(model, y, times, 1e-7_dp, 1e-12_dp, bad_te, ne, pop, stat)
        call check(g // ": run_stiff_systems refuses te_ev(3, 1) for 2 systems", stat == ATOMGPU_ERR_INVALID_ARGUMENT &
            .and. all(bad_te == -7) .and. all(y(:, 2) == alone_y))
        call atomgpu_cr_run_stiff_systems(model, y, times, 1e-7_dp, 1e-12_dp, te, ne, pop, stat)
        if (succeeded(g // ": atomgpu_cr_run_stiff_systems, 2 systems", stat)) then
            do s = 1, 2
                call check(g // ": y holds each system's last state", all(y(1:nl, s) == pop(:, 3, s)))
                call check_rel(g // ": LTE Boltzmann N2/N1 = 3 exp(-5/T), each system", pop(2, 3, s) / pop(1, 3, s), &
                    3 * exp(-5 / te(3, s)), 1e-5_dp)
            end do
            call atomgpu_cr_run_stiff(model, alone_y, times, 1e-7_dp, 1e-12_dp, alone_te, alone_ne, alone_pop, stat)
            if (succeeded(g // ": atomgpu_cr_run_stiff, system 2 alone", stat)) then
                call check(g // ": system 2 in the batch follows its run alone", &
                    all(alone_te == te(:, 2)) .and. all(alone_pop == pop(:, :, 2)))
            end if
        end if
        call atomgpu_cr_destroy(model)
    end subroutine

    ! (e) bad input.
    subroutine test_bad_input()
        type(atomgpu_cr_model) :: model, never, made
        real(dp) :: nan, y4(nl + 2), pop_short(nl - 1, 8), x_omega5(5, 1)
        nan = ieee_value(nan, ieee_quiet_nan)
        x_omega5 = x_omega(1:5, :)
        call make_model(model, mb, 1e-3_dp)
        call atomgpu_cr_initial_state(model, [1e21_dp, 0.0_dp, 0.0_dp], 3.0_dp, bad_y0, bad_stat)
        if (.not. succeeded("atomgpu_cr_initial_state", bad_stat)) return

        ! A model never created (or destroyed): C position 1.
        call check("n_levels of a model never created = 0", atomgpu_cr_n_levels(never) == 0)
        call reset()
        call atomgpu_cr_initial_state(never, [1e21_dp, 0.0_dp, 0.0_dp], 3.0_dp, bad_d, bad_stat)
        call expect_bad("initial_state: model never created", 1, "model")
        call reset()
        call atomgpu_cr_derivatives(never, bad_y, bad_d, bad_c, bad_stat)
        call expect_bad("derivatives: model never created", 1, "model")
        call reset()
        call atomgpu_cr_run_rk4(never, bad_y, 1e-16_dp, 10_i8, 5_i8, bad_n_samples, bad_times, bad_te, bad_ne, bad_pop, bad_stat)
        call expect_bad("run_rk4: model never created", 1, "model")
        call reset()
        call atomgpu_cr_run_stiff(never, bad_y, [1e-15_dp], 1e-6_dp, 1e-10_dp, bad_te(1:1), bad_ne(1:1), bad_pop(:, 1:1), bad_stat)
        call expect_bad("run_stiff: model never created", 1, "model")

        ! run_rk4: C (model 1, bad_y 2, dt_s 3, n_steps 4, sample_every 5, max_samples 6, bad_n_samples 7,
        ! bad_times 8, te_ev 9, ne_cm3 10, populations 11).
        call reset()
        call atomgpu_cr_run_rk4(model, bad_y, 1e-16_dp, -10_i8, 5_i8, bad_n_samples, bad_times, bad_te, bad_ne, bad_pop, bad_stat)
        call expect_bad("run_rk4: negative n_steps", 4, "n_steps")
        call reset()
        call atomgpu_cr_run_rk4(model, bad_y, 1e-16_dp, 10_i8, 3_i8, bad_n_samples, bad_times(1:4), bad_te(1:4), bad_ne(1:4), &
            bad_pop(:, 1:4), bad_stat)
        call expect_bad("run_rk4: max_samples = size(times) too small", 6, "max_samples")
        call reset()
        call atomgpu_cr_run_rk4(model, bad_y, nan, 10_i8, 5_i8, bad_n_samples, bad_times, bad_te, bad_ne, bad_pop, bad_stat)
        call expect_bad("run_rk4: NaN dt_s", 3, "dt_s")
        call reset()
        call atomgpu_cr_run_rk4(model, bad_y, 1e-16_dp, 10_i8, 5_i8, bad_n_samples, bad_times, bad_te(1:7), &
            bad_ne, bad_pop, bad_stat)
        call expect_bad("run_rk4: size(te_ev) /= size(times)", 9, "te_ev")
        call reset()
        call atomgpu_cr_run_rk4(model, bad_y, 1e-16_dp, 10_i8, 5_i8, bad_n_samples, bad_times, bad_te, bad_ne, pop_short, bad_stat)
        call expect_bad("run_rk4: populations rows /= n_levels", 11, "populations")
        call reset()
        call atomgpu_cr_run_rk4(model, y4, 1e-16_dp, 10_i8, 5_i8, bad_n_samples, bad_times, bad_te, bad_ne, bad_pop, bad_stat)
        call expect_bad("run_rk4: size(y) /= n_levels + 1", 2, "y")

        ! run_stiff: C (model 1, bad_y 2, n_times 3, sample_times_s 4, rtol 5, atol_fraction 6,
        ! te_ev 7, ne_cm3 8, populations 9).
        call reset()
        call atomgpu_cr_run_stiff(model, bad_y, [1e-15_dp, 3e-15_dp, 2e-15_dp], 1e-6_dp, 1e-10_dp, bad_te(1:3), bad_ne(1:3), &
            bad_pop(:, 1:3), bad_stat)
        call expect_bad("run_stiff: unsorted sample times", 4, "sample_times_s")
        call reset()
        call atomgpu_cr_run_stiff(model, bad_y, [1e-15_dp, 2e-15_dp], 0.0_dp, 1e-10_dp, bad_te(1:2), &
            bad_ne(1:2), bad_pop(:, 1:2), bad_stat)
        call expect_bad("run_stiff: rtol = 0", 5, "rtol")
        call reset()
        call atomgpu_cr_run_stiff(model, bad_y, [1e-15_dp, 2e-15_dp], 1e-6_dp, 1e-10_dp, bad_te(1:2), &
            bad_ne(1:3), bad_pop(:, 1:2), bad_stat)
        call expect_bad("run_stiff: size(ne_cm3) /= size(sample_times_s)", 8, "ne_cm3")

        ! initial_state and derivatives.
        call reset()
        call atomgpu_cr_initial_state(model, [1e21_dp, -1.0_dp, 0.0_dp], 3.0_dp, bad_d, bad_stat)
        call expect_bad("initial_state: negative population", 2, "populations", "[1]")
        call reset()
        call atomgpu_cr_initial_state(model, [1e21_dp, 0.0_dp, 0.0_dp], nan, bad_d, bad_stat)
        call expect_bad("initial_state: NaN te_ev", 3, "te_ev")
        call reset()
        call atomgpu_cr_initial_state(model, [1e21_dp, 0.0_dp], 3.0_dp, bad_d, bad_stat)
        call expect_bad("initial_state: size(populations) /= n_levels", 2, "populations")
        call reset()
        call atomgpu_cr_derivatives(model, bad_y, bad_d(1:nl), bad_c, bad_stat)
        call expect_bad("derivatives: size(dydt) /= n_levels + 1", 3, "dydt")

        ! rate_matrix: C (model 1, te_ev 2, ne_cm3 3, m 4, m_energy 5).
        call reset()
        call atomgpu_cr_rate_matrix(never, 3.0_dp, 1e21_dp, bad_pop(:, 1:3), bad_d(1:3), bad_stat)
        call expect_bad("rate_matrix: model never created", 1, "model")
        call reset()
        call atomgpu_cr_rate_matrix(model, nan, 1e21_dp, bad_pop(:, 1:3), bad_d(1:3), bad_stat)
        call expect_bad("rate_matrix: NaN te_ev", 2, "te_ev")
        call reset()
        call atomgpu_cr_rate_matrix(model, 3.0_dp, -1e21_dp, bad_pop(:, 1:3), bad_d(1:3), bad_stat)
        call expect_bad("rate_matrix: negative ne_cm3", 3, "ne_cm3")
        call reset()
        call atomgpu_cr_rate_matrix(model, 3.0_dp, 1e21_dp, bad_pop(:, 1:2), bad_d(1:3), bad_stat)
        call expect_bad("rate_matrix: m columns /= n_levels", 4, "m")
        call reset()
        call atomgpu_cr_rate_matrix(model, 3.0_dp, 1e21_dp, bad_pop(:, 1:3), bad_d, bad_stat)
        call expect_bad("rate_matrix: size(m_energy) /= n_levels", 5, "m_energy")

        ! create: C (desc 1, whose fields are the arrays and settings, named in the message;
        ! model 2). Levels are 1-based here: 0 and 4 are out of range.
        call reset()
        call atomgpu_cr_create(made, charges, x_lower, [4_i8], x_energy, x_omega, i_lower, i_upper, i_energy, &
            i_beli, i_d0, i_d1, mb, 5.0_dp, 8, 1e-3_dp, stat=bad_stat)
        call expect_bad("create: excitation level 4 of 3", 1, "excitation_upper")
        call reset()
        call atomgpu_cr_create(made, charges, [0_i8], x_upper, x_energy, x_omega, i_lower, i_upper, i_energy, &
            i_beli, i_d0, i_d1, mb, 5.0_dp, 8, 1e-3_dp, stat=bad_stat)
        call expect_bad("create: excitation level 0 (levels are 1-based)", 1, "excitation_lower")
        call reset()
        call atomgpu_cr_create(made, charges, x_lower, x_upper, x_energy, x_omega, [1_i8, 4_i8], i_upper, i_energy, &
            i_beli, i_d0, i_d1, mb, 5.0_dp, 8, 1e-3_dp, stat=bad_stat)
        call expect_bad("create: ionization level out of range", 1, "ionization_lower", "element 2")
        call reset()
        call atomgpu_cr_create(made, charges, x_lower, x_upper, x_energy, x_omega, i_lower, i_upper, i_energy, &
            i_beli, i_d0, i_d1, mb, 5.0_dp, 8, 1e-3_dp, weights=weights(1:2), stat=bad_stat)
        call expect_bad("create: size(weights) /= size(charges)", 1, "weights")
        call reset()
        call atomgpu_cr_create(made, charges, x_lower, x_upper, x_energy, x_omega5, i_lower, i_upper, &
            i_energy, i_beli, i_d0, i_d1, mb, 5.0_dp, 8, 1e-3_dp, stat=bad_stat)
        call expect_bad("create: excitation_omega rows /= 6", 1, "excitation_omega")
        call reset()
        call atomgpu_cr_create(made, charges, x_lower, x_upper, x_energy, x_omega, i_lower, i_upper, i_energy, &
            i_beli, i_d0(1:1), i_d1, mb, 5.0_dp, 8, 1e-3_dp, stat=bad_stat)
        call expect_bad("create: size(ionization_d0_cm2)", 1, "ionization_d0_cm2")
        call reset()
        call atomgpu_cr_create(made, [1.0_dp, 1.0_dp, 3.0_dp], x_lower, x_upper, x_energy, x_omega, i_lower, &
            i_upper, i_energy, i_beli, i_d0, i_d1, mb, 5.0_dp, 8, 1e-3_dp, stat=bad_stat)
        call expect_bad("create: ionization must raise the charge by one (library check)", 1, "ionization_upper")
        call reset()
        call atomgpu_cr_create(made, charges, x_lower, x_upper, x_energy, x_omega, i_lower, i_upper, i_energy, &
            i_beli, i_d0, i_d1, 7, 5.0_dp, 8, 1e-3_dp, stat=bad_stat)
        call expect_bad("create: stats out of range", 1, "stats")
        call check("create: the model stays uncreated after failures", atomgpu_cr_n_levels(made) == 0)
        call reset()
        call atomgpu_cr_create(model, charges, x_lower, x_upper, x_energy, x_omega, i_lower, i_upper, i_energy, &
            i_beli, i_d0, i_d1, mb, 5.0_dp, 8, 1e-3_dp, stat=bad_stat)
        call expect_bad("create: model already holds a model", 2, "model")

        ! A model with no transitions (zero-size arrays) and no weights is valid.
        call atomgpu_cr_create(made, charges, [integer(i8) ::], [integer(i8) ::], [real(dp) ::], &
            reshape([real(dp) ::], [6, 0]), [integer(i8) ::], [integer(i8) ::], [real(dp) ::], &
            reshape([real(dp) ::], [5, 0]), [real(dp) ::], [real(dp) ::], fd, 5.0_dp, 8, 1.0_dp, stat=bad_stat)
        if (succeeded("create with no transitions", bad_stat)) then
            call check("n_levels of the bare model", atomgpu_cr_n_levels(made) == nl)
        end if
        ! destroy: a model never created, and twice, are fine.
        call atomgpu_cr_destroy(made)
        call atomgpu_cr_destroy(made)
        call atomgpu_cr_destroy(never)
        call check("destroyed model has 0 levels", atomgpu_cr_n_levels(made) == 0)
        call atomgpu_cr_destroy(model)
    end subroutine


    ! (f) Handles destroyed through a copy, the progress callback, the time limit.
    subroutine test_handles_and_progress()
        type(atomgpu_cr_model) :: model, copy
        integer, target :: calls
        call make_model(model, mb, 1.0_dp)
        call atomgpu_cr_initial_state(model, [6e20_dp, 3e20_dp, 1e20_dp], 3.0_dp, bad_y0, stat=bad_stat)
        if (.not. succeeded("(f) initial state", bad_stat)) return
        ! The callback stops the third report: cancelled, nothing written.
        calls = 0
        call atomgpu_set_progress(stop_at_third, interval_s=0.0_dp, user_data=c_loc(calls), stat=bad_stat)
        call check("(f) set_progress", bad_stat == ATOMGPU_OK)
        call reset()
        ! 200 steps: the CPU reports every step, a GPU every launch of at most 64 steps.
        call atomgpu_cr_run_rk4(model, bad_y, 1e-16_dp, 200_i8, 200_i8, bad_n_samples, bad_times, bad_te, bad_ne, &
            bad_pop, stat=bad_stat)
        call check("(f) the callback cancels the run", bad_stat == ATOMGPU_ERR_CANCELLED)
        call check("(f) y untouched when cancelled", all(bad_y == bad_y0) .and. bad_n_samples == -7)
        call check("(f) three calls", calls == 3)
        call check("(f) the task is atomgpu_cr_run_rk4", last_task == "atomgpu_cr_run_rk4")
        call check("(f) progress: 3 or more of 200 steps", last_done >= 3 .and. last_done < 200 .and. last_total == 200)
        call atomgpu_set_progress(stat=bad_stat)
        call check("(f) callback removed", bad_stat == ATOMGPU_OK)
        ! The time limit stops a run that would take for ever.
        call atomgpu_set_time_limit(0.2_dp)
        call reset()
        call atomgpu_cr_run_rk4(model, bad_y, 1e-16_dp, 2_i8**50, 2_i8**50, bad_n_samples, bad_times, bad_te, bad_ne, &
            bad_pop, stat=bad_stat)
        call atomgpu_set_time_limit(0.0_dp)
        call check("(f) the time limit cancels the run", bad_stat == ATOMGPU_ERR_CANCELLED)
        call check("(f) y untouched at the time limit", all(bad_y == bad_y0))
        ! A copy of the variable outlives the model it names: the library refuses it.
        copy = model
        call atomgpu_cr_destroy(model, stat=bad_stat)
        call check("(f) destroy", bad_stat == ATOMGPU_OK)
        call reset()
        call atomgpu_cr_derivatives(copy, bad_y, bad_d, bad_c, stat=bad_stat)
        call expect_bad("(f) derivatives of a destroyed model", 1, "model", "destroyed")
        call reset()
        call atomgpu_cr_destroy(copy, stat=bad_stat)
        call expect_bad("(f) second destroy through the copy", 1, "model", "destroyed")
    end subroutine

    subroutine reset()
        bad_y = bad_y0
        bad_d = sentinel
        bad_c = sentinel
        bad_times = sentinel
        bad_te = sentinel
        bad_ne = sentinel
        bad_pop = sentinel
        bad_n_samples = -7
        bad_stat = -99
    end subroutine

    ! After a call with bad_stat=bad_stat: status, argument position, message and untouched outputs.
    subroutine expect_bad(what, position, name, fragment)
        character(len=*), intent(in) :: what, name
        integer, intent(in) :: position
        character(len=*), intent(in), optional :: fragment
        logical :: ok
        checks = checks + 1
        ok = invalid_argument_reported(what, bad_stat, position, name, fragment)
        if (any(bad_y /= bad_y0) .or. any(bad_d /= sentinel) .or. any(bad_c /= sentinel) .or. any(bad_times /= sentinel) &
            .or. any(bad_te /= sentinel) .or. any(bad_ne /= sentinel) .or. any(bad_pop /= sentinel) .or. bad_n_samples /= -7) then
            print '(a, a, a)', "FAIL ", what, ": an output was written on error"
            ok = .false.
        end if
        if (.not. ok) failures = failures + 1
    end subroutine

end program test_cr
