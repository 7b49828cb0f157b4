! cr_aluminium.f90: the collisional-radiative demonstration of section 4 of the paper
! (degenerate-rates-quadrature-gpu): near-solid-density aluminium, charge states Al3+ to Al6+
! (15 levels, 14 collisional excitations, 14 collisional ionizations with photoionization),
! irradiated by a black body at Tr = 250 eV, run with Fermi-Dirac (FD) and with Maxwell-Boltzmann
! (MB) free electrons, as in the paper's Figure 3.
!
! A third run, "FD-authors", is Fermi-Dirac with the two parts of the rate equations that the
! paper's authors' published code (Fermi-Dirac-GPU, Rate_Functions_CPU.c) computes differently
! from the paper, taken as that code computes them (own_rates below):
!  1. three-body recombination (h_create_rate_matrices): the library's K_down divided once more
!     by n_e [cm^-3, numerically], which the Maxwell-Boltzmann path of that code does not do;
!  2. inverse bremsstrahlung (h_ib_gauss_integration, replacing the library's, authors_ib below):
!     the prefactor 2.29908947e9 eV^-1 s^-1 (3.973 times the Kramers normalisation the library
!     uses), the lower limit 3.71075e-13 sqrt(n_e) eV (hbar omega_p / 100: 0.19 eV instead of
!     19.3 eV at 2.7e23 cm^-3), the upper limit (T_r/T_e)(y + z mu/T_e) of the paper's eq. 21
!     (y, z for p = 5; 38 eV at T_e = 75 eV, where the 250 eV black body has hardly begun), the
!     integrand set to zero above 500 T_e (their overflow guard) and one panel of 32
!     Gauss-Legendre nodes.
! Not taken from that code: its Pade approximations of mu and of the heat capacity (the example
! uses the library's exact Fermi-Dirac T(u) and mu), the single-panel quadratures with fixed
! upper limits of the other rates (the library's graded quadrature is used), its fixed-step RK4
! (dt = 1e-19 s; its fourth stage takes the energy increment at the second stage's populations)
! in place of the example's integrator, and an uninitialised sum in its h_ib_gauss_integration
! (taken as starting from 0). The library computes K_down and the inverse bremsstrahlung as the
! paper defines them, so the example integrates this variant itself (see integrate_own below).
! With the library's rates FD and MB end within a percent of each other; only with the extra
! 1/n_e (three-body recombination all but switched off at n_e ~ 3e23 cm^-3) does FD ionize more
! and end cooler, as in Figure 3; the inverse-bremsstrahlung differences change little, because
! photoionization, not inverse bremsstrahlung, heats the electrons (README).
!
! Conditions (examples/data/aluminium-cr-model.md): total ion density 9e22 cm^-3, all of it in
! level 1 (the ground state of Al3+, so n_e = 2.7e23 cm^-3), Te = 1 eV at t = 0, to 0.5 ps;
! no statistical weights in the data, so every level has weight 1.
!
! Run from the repository root (`make demo` builds and runs it, then plots the result):
!     gfortran -O2 fortran/atomgpu.f90 examples/fortran/cr_aluminium.f90 -o cr_aluminium \
!         -Ltarget/release -latomgpu -Wl,-rpath,$PWD/target/release
!     ./cr_aluminium            the library's adaptive stiff integrator for FD and MB, then the
!                               FD-authors variant with the example's own integrator (and a
!                               check of that integrator against the library's FD run); about
!                               7 s on 2 idle CPU cores (FD 4 s, MB 1 s, the check 1 s,
!                               FD-authors about twice the check)
!     ./cr_aluminium rk4 [N]    FD and MB only, with the paper's fixed-step RK4, dt = 1e-19 s, N
!                               steps (default 5e6, to 0.5 ps), sampled every 50000 steps. Meant
!                               for a GPU (ATOMGPU_BACKEND=cuda): on a CPU, 5e6 steps x 4
!                               right-hand sides (a few ms each with Fermi-Dirac rates) take more
!                               than a day.
! It writes out/cr_aluminium.csv: statistics (FD, MB or FD-authors), time_s, te_ev, ne_cm3,
! N1..N15 [cm^-3]; plot it with
!     python3 examples/plot_cr.py out/cr_aluminium.csv out/cr_aluminium.png
program cr_aluminium
    use, intrinsic :: iso_c_binding, only: c_double, c_int64_t
    use atomgpu
    implicit none

    integer, parameter :: dp = c_double, i8 = c_int64_t
    character(len=*), parameter :: data_dir = "examples/data/"
    character(len=*), parameter :: out_file = "out/cr_aluminium.csv"

    ! The paper's conditions.
    real(dp), parameter :: ion_density = 9e22_dp  ! total ion density [cm^-3]
    real(dp), parameter :: te0 = 1.0_dp           ! initial electron temperature [eV]
    real(dp), parameter :: tr = 250.0_dp          ! black-body radiation temperature [eV]
    real(dp), parameter :: t_end = 5e-13_dp       ! end of the run [s] (0.5 ps)
    ! Quadrature of every rate: truncation at relative 1e-5 (p = 5) with 8 Gauss-Legendre nodes
    ! per graded panel; measured within 4e-8 of p = 10 with 64 nodes on these transitions.
    real(dp), parameter :: accuracy_p = 5.0_dp
    integer, parameter :: nodes = 8
    ! The library's stiff integrator: tolerances.
    real(dp), parameter :: rtol = 1e-5_dp, atol_fraction = 1e-10_dp
    ! The example's own integrator (integrate_own): a geometric grid of own_steps steps from
    ! own_t_first to t_end (t_(j+1) = q t_j), cut at every sample time, after a first step from
    ! 0 to own_t_first [s].
    real(dp), parameter :: own_t_first = 1e-18_dp
    integer, parameter :: own_steps = 120
    ! The paper's fixed-step RK4.
    real(dp), parameter :: rk4_dt = 1e-19_dp
    integer(i8), parameter :: rk4_default_steps = 5000000_i8

    ! The atomic model (levels numbered from 1, as the Fortran layer expects).
    real(dp), allocatable :: charges(:)
    integer(i8), allocatable :: x_lower(:), x_upper(:), i_lower(:), i_upper(:)
    real(dp), allocatable :: x_energy(:), x_omega(:, :), i_energy(:), i_beli(:, :), i_d0(:), i_d1(:)

    ! The runs: FD and MB with the library's integrators, then (stiff mode only) FD-authors with
    ! the example's own.
    integer, parameter :: fd = 1, mb = 2, fd_authors = 3
    character(len=10), parameter :: run_name(3) = [character(len=10) :: "FD", "MB", "FD-authors"]
    integer, parameter :: run_stats(2) = [ATOMGPU_STATS_FERMI_DIRAC, ATOMGPU_STATS_MAXWELL_BOLTZMANN]
    real(dp) :: final_te(3), final_ne(3), wall(3)
    real(dp), allocatable :: times(:), fd_te(:), fd_ne(:), own_te(:), own_ne(:), own_pops(:, :)
    real(dp) :: check_wall
    logical :: use_rk4
    integer(i8) :: rk4_steps, demo_start, demo_finish, clock_rate
    integer :: run, n_runs, unit, backend, i
    character(len=:), allocatable :: device
    character(len=64) :: arg

    call system_clock(demo_start, clock_rate)

    ! ---- command line ----
    use_rk4 = .false.
    rk4_steps = rk4_default_steps
    if (command_argument_count() >= 1) then
        call get_command_argument(1, arg)
        select case (trim(arg))
        case ("rk4")
            use_rk4 = .true.
        case ("stiff")
        case default
            error stop "usage: cr_aluminium [stiff | rk4 [n_steps]]"
        end select
    end if
    if (use_rk4 .and. command_argument_count() >= 2) then
        call get_command_argument(2, arg)
        read (arg, *) rk4_steps
        if (rk4_steps < 1) error stop "cr_aluminium: n_steps must be >= 1"
    end if
    n_runs = merge(2, 3, use_rk4)

    ! ---- the model ----
    call read_model()
    call atomgpu_device_info(backend, device)
    print '(a, i0, a, i0, a, i0, a)', "aluminium CR model: ", size(charges), " levels, ", size(x_energy), &
        " excitations, ", size(i_energy), " ionizations (with photoionization)"
    if (backend == ATOMGPU_BACKEND_CUDA) then
        print '(a, a, a)', "backend: CUDA (", device, ")"
    else
        print '(a, a)', "backend: ", device
    end if
    if (use_rk4) then
        print '(a, es8.1, a, i0, a, es9.2, a)', "integrator: fixed-step RK4, dt = ", rk4_dt, " s, ", rk4_steps, &
            " steps (to ", rk4_steps * rk4_dt, " s)"
        if (backend /= ATOMGPU_BACKEND_CUDA .and. rk4_steps > 100000) then
            print '(a)', "warning: RK4 with this many steps is meant for a GPU; on a CPU the full run (2e7 " // &
                "Fermi-Dirac right-hand sides at a few ms each) takes more than a day " // &
                "(run without arguments for the adaptive stiff integrator)"
        end if
    else
        print '(a, es8.1, a, es8.1)', "integrator: the library's adaptive stiff one, rtol = ", rtol, &
            ", atol_fraction = ", atol_fraction
    end if

    call execute_command_line("mkdir -p out")
    open (newunit=unit, file=out_file, status="replace", action="write")
    write (unit, '(a)', advance="no") "statistics,time_s,te_ev,ne_cm3"
    do run = 1, size(charges)
        write (unit, '(a, i0)', advance="no") ",N", run
    end do
    write (unit, '(a)') ""

    if (.not. use_rk4) call sample_times(times)
    call simulate(run_stats(fd), trim(run_name(fd)), unit, final_te(fd), final_ne(fd), wall(fd), fd_te, fd_ne)
    call simulate(run_stats(mb), trim(run_name(mb)), unit, final_te(mb), final_ne(mb), wall(mb))

    if (.not. use_rk4) then
        print '(a)', ""
        print '(a, i0, a)', "the example's own integrator (ROS2 with the Jacobian of the populations' and " // &
            "u's feedback on the rates, ", own_steps, " geometric steps):"
        ! The check: the same scheme without the factor, against the library's FD run.
        allocate (own_te(size(times)), own_ne(size(times)), own_pops(size(charges), size(times)))
        call integrate_own(.false., own_te, own_ne, own_pops, check_wall)
        print '(a, es8.1, a, es8.1, a, f4.1, a)', "check: the example's integrator without the factor follows " // &
            "the library's FD run within ", maxval(abs(own_te / fd_te - 1)), " in Te, ", &
            maxval(abs(own_ne / fd_ne - 1)), " in ne (relative, at every sample time; ", check_wall, " s)"
        ! FD-authors, written to the CSV.
        call integrate_own(.true., own_te, own_ne, own_pops, wall(fd_authors))
        final_te(fd_authors) = own_te(size(times))
        final_ne(fd_authors) = own_ne(size(times))
        call write_row(unit, trim(run_name(fd_authors)), 0.0_dp, te0, dot_product(charges, initial_populations()), &
            initial_populations())
        do i = 1, size(times)
            call write_row(unit, trim(run_name(fd_authors)), times(i), own_te(i), own_ne(i), own_pops(:, i))
        end do
    end if
    close (unit)

    print '(a)', ""
    print '(a, es9.2, a)', "summary at t = ", merge(rk4_steps * rk4_dt, t_end, use_rk4), " s:"
    do run = 1, n_runs
        print '(2x, a, a, f8.3, a, es10.4, a, f6.2, a)', run_name(run), ": Te = ", final_te(run), " eV, ne = ", &
            final_ne(run), " cm^-3  (wall time ", wall(run), " s)"
    end do
    print '(a, f6.3, a, f6.3)', "  FD/MB:         ne ratio ", final_ne(fd) / final_ne(mb), ", Te ratio ", &
        final_te(fd) / final_te(mb)
    if (.not. use_rk4) then
        print '(a, f6.3, a, f6.3)', "  FD-authors/MB: ne ratio ", final_ne(fd_authors) / final_ne(mb), &
            ", Te ratio ", final_te(fd_authors) / final_te(mb)
        print '(a)', "  The paper's Fig. 3 difference (FD ionizes more and ends cooler) appears only with " // &
            "the authors' code's rates (chiefly its extra 1/n_e on three-body recombination)."
    end if
    print '(a, a)', "wrote ", out_file
    call system_clock(demo_finish)
    print '(a, f6.2, a)', "total wall time ", real(demo_finish - demo_start, dp) / real(clock_rate, dp), " s"

contains

    ! Runs the model with statistics `stats` from the paper's initial state with the library's
    ! integrator, writing every sample to `unit`; returns the final Te, ne and the wall time, and
    ! in the stiff mode (optional te_at, ne_at) Te [eV] and ne [cm^-3] at each of `times`.
    subroutine simulate(stats, name, unit, te_last, ne_last, seconds, te_at, ne_at)
        integer, intent(in) :: stats, unit
        character(len=*), intent(in) :: name
        real(dp), intent(out) :: te_last, ne_last, seconds
        real(dp), allocatable, intent(out), optional :: te_at(:), ne_at(:)
        type(atomgpu_cr_model) :: model
        real(dp), allocatable :: y(:), cond(:), dydt(:)
        real(dp), allocatable :: te(:), ne(:), pops(:, :), rk4_times(:)
        real(dp) :: t_start
        integer(i8) :: nl, start, finish, rate, n_samples, chunk_steps, done_steps, every
        integer :: chunk, first, last, n_chunks

        call atomgpu_cr_create(model, charges, x_lower, x_upper, x_energy, x_omega, i_lower, i_upper, i_energy, &
            i_beli, i_d0, i_d1, stats, accuracy_p, nodes, tr)  ! no weights: all levels non-degenerate
        nl = atomgpu_cr_n_levels(model)
        allocate (y(nl + 1), dydt(nl + 1), cond(3))
        call atomgpu_cr_initial_state(model, initial_populations(), te0, y)
        call atomgpu_cr_derivatives(model, y, dydt, cond)
        print '(a)', ""
        print '(a, a, f6.3, a, es10.4, a, f8.3, a)', name, ": t = 0: Te = ", cond(1), " eV, ne = ", cond(3), &
            " cm^-3, mu = ", cond(2), " eV"
        call write_row(unit, name, 0.0_dp, cond(1), cond(3), y(1:nl))

        call system_clock(start, rate)
        if (.not. use_rk4) then
            ! The sample times, integrated in 10 calls so that progress shows. Each call starts
            ! its clock at 0 from the state y it is given, so it takes the times since its start.
            allocate (te(size(times)), ne(size(times)), pops(nl, size(times)))
            n_chunks = 10
            t_start = 0
            do chunk = 1, n_chunks
                first = (chunk - 1) * size(times) / n_chunks + 1
                last = chunk * size(times) / n_chunks
                call atomgpu_cr_run_stiff(model, y, times(first:last) - t_start, rtol, atol_fraction, &
                    te(first:last), ne(first:last), pops(:, first:last))
                t_start = times(last)
                call progress(name, times(last), te(last), ne(last), start, rate)
            end do
            do chunk = 1, size(times)
                call write_row(unit, name, times(chunk), te(chunk), ne(chunk), pops(:, chunk))
            end do
            te_last = te(size(times))
            ne_last = ne(size(times))
            if (present(te_at)) te_at = te
            if (present(ne_at)) ne_at = ne
        else
            ! 100 calls (or fewer for short runs), each recording its start and its end.
            chunk_steps = max(1_i8, rk4_steps / 100)
            allocate (rk4_times(2), te(2), ne(2), pops(nl, 2))
            done_steps = 0
            do while (done_steps < rk4_steps)
                every = min(chunk_steps, rk4_steps - done_steps)
                call atomgpu_cr_run_rk4(model, y, rk4_dt, every, every, n_samples, rk4_times, te, ne, pops)
                done_steps = done_steps + every
                call write_row(unit, name, done_steps * rk4_dt, te(2), ne(2), pops(:, 2))
                if (mod(done_steps, 10 * chunk_steps) == 0 .or. done_steps == rk4_steps) then
                    call progress(name, done_steps * rk4_dt, te(2), ne(2), start, rate)
                end if
            end do
            te_last = te(2)
            ne_last = ne(2)
        end if
        call system_clock(finish)
        seconds = real(finish - start, dp) / real(rate, dp)
        call atomgpu_cr_destroy(model)
    end subroutine

    subroutine progress(name, t, te, ne, start, rate)
        character(len=*), intent(in) :: name
        real(dp), intent(in) :: t, te, ne
        integer(i8), intent(in) :: start, rate
        integer(i8) :: now
        call system_clock(now)
        print '(a, a, es9.3, a, f8.3, a, es10.4, a, f7.1, a)', name, ": t = ", t, " s: Te = ", te, " eV, ne = ", &
            ne, " cm^-3  (", real(now - start, dp) / real(rate, dp), " s)"
    end subroutine

    ! The paper's initial populations [cm^-3]: every ion in level 1.
    function initial_populations() result(populations)
        real(dp) :: populations(size(charges))
        populations = 0
        populations(1) = ion_density
    end function

    ! ---- the example's own integrator, for the FD-authors variant ----

    ! Integrates the Fermi-Dirac model from the paper's initial state to each of `times` [s] with
    ! the example's own integrator; with `authors`, three-body recombination and inverse
    ! bremsstrahlung as the authors' code computes them (own_rates). te_at [eV], ne_at [cm^-3],
    ! pops_at [cm^-3] receive the state at each time, seconds the wall time.
    !
    ! The system: y = (N_1..N_n, u), u the electron energy density [eV cm^-3], dy/dt = f(y) =
    ! R y with R = [M 0; M'^T 0] at the electron state that y implies (n_e = sum_l Z_l N_l, T_e
    ! from u and n_e). Steps: the second-order L-stable Rosenbrock method ROS2 (Verwer, Spee,
    ! Blom & Hundsdorfer, SIAM J. Sci. Comput. 20 (1999) 1456), gamma = 1 + 1/sqrt(2):
    !   (I - gamma h J) k1 = f(y),   (I - gamma h J) k2 = f(y + h k1) - 2 k1,
    !   y_new = y + h (3 k1 + k2) / 2,
    ! on a fixed geometric time grid (own_steps steps from own_t_first to t_end, cut at every
    ! sample time). J (jacobian) holds the feedback of the populations and of u on the rates
    ! through T_e and n_e: without it (backward Euler with the rates frozen over each step,
    ! Richardson-extrapolated) the run went unstable near 0.15 ps with 400 and with 1000 steps,
    ! and with 2000 steps it followed the library's FD run only within 0.6 in T_e.
    !
    ! Measured on 2 CPU cores, without the factor against the library's FD run (rtol = 1e-5, the
    ! same at 1e-6), largest relative difference over the 99 sample times: 120 steps (own_steps;
    ! 177 with the cuts), 3.5e-4 in T_e and 3.2e-4 in n_e, 0.8 s (FD-authors takes twice as
    ! long: own_rates adds atomgpu_rates_ionization, _inverse_bremsstrahlung and
    ! _chemical_potential calls to every rate evaluation); 100 steps 1.1e-3 and 4.6e-4; 300 steps
    ! 1.8e-4 and 4.8e-5. FD-authors at 0.5 ps moves by 1e-4 from 120 to 300 steps (T_e 29.410 ->
    ! 29.412 eV, n_e 5.3124e23 -> 5.3125e23 cm^-3).
    subroutine integrate_own(authors, te_at, ne_at, pops_at, seconds)
        logical, intent(in) :: authors
        real(dp), intent(out) :: te_at(:), ne_at(:), pops_at(:, :), seconds
        real(dp), parameter :: gamma = 1 + 1 / sqrt(2.0_dp)
        type(atomgpu_cr_model) :: model
        real(dp), allocatable :: y(:), f(:), k1(:), k2(:), jac(:, :), a(:, :)
        integer, allocatable :: pivots(:)
        real(dp) :: t, t_next, h, q, te, ne
        integer(i8) :: start, finish, rate
        integer :: i, j, nl

        call system_clock(start, rate)
        call atomgpu_cr_create(model, charges, x_lower, x_upper, x_energy, x_omega, i_lower, i_upper, i_energy, &
            i_beli, i_d0, i_d1, ATOMGPU_STATS_FERMI_DIRAC, accuracy_p, nodes, tr)
        nl = size(charges)
        allocate (y(nl + 1), f(nl + 1), k1(nl + 1), k2(nl + 1), jac(nl + 1, nl + 1), a(nl + 1, nl + 1), &
            pivots(nl + 1))
        call atomgpu_cr_initial_state(model, initial_populations(), te0, y)
        q = (t_end / own_t_first)**(1.0_dp / own_steps)
        t = 0
        do i = 1, size(times)
            do while (t < times(i))
                t_next = min(merge(q * t, own_t_first, t > 0), times(i))
                h = t_next - t
                call derivatives(model, authors, y, k1, jac)
                a = -gamma * h * jac
                do j = 1, nl + 1
                    a(j, j) = a(j, j) + 1
                end do
                call lu_factor(a, pivots)
                call lu_solve(a, pivots, k1)
                call derivatives(model, authors, y + h * k1, f)
                k2 = f - 2 * k1
                call lu_solve(a, pivots, k2)
                y = y + h * (3 * k1 + k2) / 2
                t = t_next
            end do
            ne = dot_product(charges, y(1:nl))
            te = temperature(y(nl + 1), ne)
            te_at(i) = te
            ne_at(i) = ne
            pops_at(:, i) = y(1:nl)
            if (authors .and. (mod(i, 10) == 0 .or. i == size(times))) then
                call progress("FD-authors", times(i), te, ne, start, rate)
            end if
        end do
        call atomgpu_cr_destroy(model)
        call system_clock(finish)
        seconds = real(finish - start, dp) / real(rate, dp)
    end subroutine

    ! f = dy/dt [cm^-3 s^-1, then eV cm^-3 s^-1] at y = (N [cm^-3], u [eV cm^-3]): f = R y at the
    ! electron state y implies, ne = sum_l Z_l N_l [cm^-3] and the temperature of u at ne. With
    ! `jacobian`, also df/dy: R plus the rates' dependence on ne and u, as one-sided differences
    ! (ne decreased, u increased, so that u stays above the Fermi ground state):
    !   J = R + (dR/dne y) Z^T + (dR/du y) e_u^T,  Z = (Z_1..Z_n, 0), e_u = (0..0, 1).
    subroutine derivatives(model, authors, y, f, jacobian)
        type(atomgpu_cr_model), intent(in) :: model
        logical, intent(in) :: authors
        real(dp), intent(in) :: y(:)
        real(dp), intent(out) :: f(:)
        real(dp), intent(out), optional :: jacobian(:, :)
        real(dp), parameter :: eps = 1e-6_dp  ! relative difference step
        real(dp) :: r(size(y), size(y)), r_shifted(size(y), size(y)), column(size(y)), ne, u
        integer :: n, l

        n = size(charges)
        ne = dot_product(charges, y(1:n))
        u = y(n + 1)
        call system_matrix(model, authors, temperature(u, ne), ne, r)
        f = matmul(r, y)
        if (.not. present(jacobian)) return
        jacobian = r
        call system_matrix(model, authors, temperature(u, ne * (1 - eps)), ne * (1 - eps), r_shifted)
        column = matmul(r_shifted - r, y) / (-eps * ne)
        do l = 1, n
            jacobian(:, l) = jacobian(:, l) + column * charges(l)
        end do
        call system_matrix(model, authors, temperature(u * (1 + eps), ne), ne, r_shifted)
        jacobian(:, n + 1) = jacobian(:, n + 1) + matmul(r_shifted - r, y) / (eps * u)
    end subroutine

    ! The Fermi-Dirac electron temperature [eV] of energy density u [eV cm^-3] at density ne
    ! [cm^-3].
    real(dp) function temperature(u, ne) result(te)
        real(dp), intent(in) :: u, ne
        real(dp) :: te_1(1), mu_1(1)

        te_1 = 0
        mu_1 = 0
        call atomgpu_rates_temperature(ATOMGPU_STATS_FERMI_DIRAC, [u], [ne], te_1, mu_1)
        te = te_1(1)
    end function

    ! The system matrix R ((n+1) x (n+1)) at te [eV], ne [cm^-3]: R(1:n, 1:n) = M [s^-1],
    ! R(n+1, 1:n) = M' [eV s^-1] (own_rates), R(:, n+1) = 0.
    subroutine system_matrix(model, authors, te, ne, r)
        type(atomgpu_cr_model), intent(in) :: model
        logical, intent(in) :: authors
        real(dp), intent(in) :: te, ne
        real(dp), intent(out) :: r(:, :)
        integer :: n

        n = size(charges)
        r = 0
        call own_rates(model, authors, te, ne, r(1:n, 1:n), r(n + 1, 1:n))
    end subroutine

    ! M (n x n) [s^-1] and M' (n) [eV s^-1] of `model` (Fermi-Dirac) at te [eV], ne [cm^-3], as
    ! atomgpu_cr_rate_matrix gives them: dN/dt = M N, du/dt = sum_l M'_l N_l. With `authors`, as
    ! the authors' code computes them:
    ! - each three-body recombination rate K_down (ionization i from level l to level k of the
    !   next ion, energy E_i) becomes K_down / n_e: with d = K_down (1 - 1/ne),
    !     M(l, k) -= d    (the flow k -> l, K_down N_k),
    !     M(k, k) += d    (the total rate out of k),
    !     M'(k) -= E_i d  (the energy E_i K_down per ion of k that recombination gives the electrons);
    ! - the inverse-bremsstrahlung heating per unit sum_Z Z^2 N_Z, which M' holds as Z_l^2 times it
    !   on every level l, becomes authors_ib's: M'(l) += Z_l^2 (authors_ib - the library's).
    subroutine own_rates(model, authors, te, ne, m, m_energy)
        type(atomgpu_cr_model), intent(in) :: model
        logical, intent(in) :: authors
        real(dp), intent(in) :: te, ne
        real(dp), intent(out) :: m(:, :), m_energy(:)
        real(dp) :: k_up(size(i_energy), 1), k_down(size(i_energy), 1), d, ib(1), mu(1)
        integer(i8) :: l, k
        integer :: i

        call atomgpu_cr_rate_matrix(model, te, ne, m, m_energy)
        if (authors) then
            ! The library's inverse bremsstrahlung per unit Z^2 N (what M' holds), replaced by the
            ! authors'.
            call atomgpu_rates_inverse_bremsstrahlung(ATOMGPU_STATS_FERMI_DIRAC, accuracy_p, nodes, [te], [ne], &
                [tr], [1.0_dp], ib)
            call atomgpu_rates_chemical_potential(ATOMGPU_STATS_FERMI_DIRAC, [te], [ne], mu)
            m_energy = m_energy + charges**2 * (authors_ib(te, ne, mu(1)) - ib(1))
            ! Collisional ionization (k_up) and three-body recombination (k_down, per ion of the
            ! upper level) [s^-1] at the same state, statistics and quadrature as the model; no
            ! weights (all 1), as in the model.
            call atomgpu_rates_ionization(ATOMGPU_STATS_FERMI_DIRAC, accuracy_p, nodes, [te], [ne], i_energy, &
                i_beli, k_up, k_down)
            do i = 1, size(i_energy)
                l = i_lower(i)
                k = i_upper(i)
                ! M(l, k) is this recombination alone (nothing else leads from k to l): a check
                ! that k_down is the rate that the model uses.
                if (abs(m(l, k) - k_down(i, 1)) > 1e-6_dp * m(l, k)) then
                    error stop "cr_aluminium: the model's rate k -> l is not the three-body recombination rate"
                end if
                d = k_down(i, 1) * (1 - 1 / ne)
                m(l, k) = m(l, k) - d
                m(k, k) = m(k, k) + d
                m_energy(k) = m_energy(k) - i_energy(i) * d
            end do
        end if
    end subroutine

    ! Inverse-bremsstrahlung heating per unit sum_Z Z^2 N_Z [eV s^-1] at te [eV], ne [cm^-3] and
    ! chemical potential mu [eV], as the authors' h_ib_gauss_integration computes it:
    !   K int_a^b te [ln(1 + e^eta) - ln(1 + e^(eta - w/te))] / (e^(w/tr) - 1) dw,  eta = mu/te,
    ! (their integrand w - te ln((e^(w/te) e^-eta + 1)/(e^-eta + 1)), written without overflow),
    ! K = 2.29908947e9 eV^-1 s^-1, a = 3.71075e-13 sqrt(ne) eV, b = (tr/te)(y + z mu/te) with
    ! (y, z) = (11.97, 0.0053961) for te <= 3 eV and (11.66, 0.066357) above (paper eq. 21, p = 5),
    ! the integrand zero above w = 500 te, and one panel of the 32 Gauss-Legendre nodes.
    real(dp) function authors_ib(te, ne, mu) result(heating)
        real(dp), intent(in) :: te, ne, mu
        real(dp), parameter :: k_authors = 2.29908947e9_dp
        real(dp) :: x(32), w(32), a, b, photon, eta
        integer :: j

        call gauss_legendre(x, w)
        a = 3.71075e-13_dp * sqrt(ne)
        if (te > 3) then
            b = (tr / te) * (11.66_dp + 0.066357_dp * mu / te)
        else
            b = (tr / te) * (11.97_dp + 0.0053961_dp * mu / te)
        end if
        eta = mu / te
        heating = 0
        do j = 1, size(x)
            photon = a + (b - a) * x(j)
            if (photon / te <= 500) then
                heating = heating + w(j) * te * (softplus(eta) - softplus(eta - photon / te)) / (exp(photon / tr) - 1)
            end if
        end do
        heating = k_authors * (b - a) * heating
    end function

    ! ln(1 + e^x) without overflow.
    real(dp) function softplus(x)
        real(dp), intent(in) :: x
        softplus = max(x, 0.0_dp) + log(1 + exp(-abs(x)))
    end function

    ! The Gauss-Legendre nodes x and weights w of size(x) points on [0, 1]: the roots of the
    ! Legendre polynomial P_n by Newton's method from the Chebyshev-like guess cos(pi (i - 1/4) /
    ! (n + 1/2)), w = 2 / ((1 - t^2) P_n'(t)^2) on [-1, 1], both mapped to [0, 1].
    subroutine gauss_legendre(x, w)
        real(dp), intent(out) :: x(:), w(:)
        real(dp), parameter :: pi = 3.14159265358979323846_dp
        real(dp) :: t, p0, p1, p2, dp_dt, step
        integer :: n, i, j, iteration

        n = size(x)
        do i = 1, n
            t = cos(pi * (i - 0.25_dp) / (n + 0.5_dp))
            do iteration = 1, 100
                p0 = 1
                p1 = t
                do j = 2, n
                    p2 = ((2 * j - 1) * t * p1 - (j - 1) * p0) / j
                    p0 = p1
                    p1 = p2
                end do
                dp_dt = n * (t * p1 - p0) / (t * t - 1)
                step = p1 / dp_dt
                t = t - step
                if (abs(step) < 1e-15_dp) exit
            end do
            x(i) = (1 - t) / 2
            w(i) = 1 / ((1 - t * t) * dp_dt * dp_dt)
        end do
    end subroutine

    ! LU factorization with partial pivoting, in place: P a = L U (L unit lower, below the
    ! diagonal of a; U on and above it); pivots(j) the row swapped with row j at step j.
    subroutine lu_factor(a, pivots)
        real(dp), intent(inout) :: a(:, :)
        integer, intent(out) :: pivots(:)
        real(dp) :: row(size(a, 2))
        integer :: n, i, j, p

        n = size(a, 1)
        do j = 1, n
            p = j - 1 + maxloc(abs(a(j:n, j)), 1)
            pivots(j) = p
            if (p /= j) then
                row = a(j, :)
                a(j, :) = a(p, :)
                a(p, :) = row
            end if
            do i = j + 1, n
                a(i, j) = a(i, j) / a(j, j)
                a(i, j + 1:n) = a(i, j + 1:n) - a(i, j) * a(j, j + 1:n)
            end do
        end do
    end subroutine

    ! Solves a x = b with the factorization of lu_factor; b is overwritten with x.
    subroutine lu_solve(a, pivots, b)
        real(dp), intent(in) :: a(:, :)
        integer, intent(in) :: pivots(:)
        real(dp), intent(inout) :: b(:)
        real(dp) :: swap
        integer :: n, i

        n = size(b)
        do i = 1, n
            swap = b(i)
            b(i) = b(pivots(i))
            b(pivots(i)) = swap
        end do
        do i = 2, n
            b(i) = b(i) - dot_product(a(i, 1:i - 1), b(1:i - 1))
        end do
        do i = n, 1, -1
            b(i) = (b(i) - dot_product(a(i, i + 1:n), b(i + 1:n))) / a(i, i)
        end do
    end subroutine

    ! About 100 sample times: 50 spaced logarithmically from 1e-16 s to t_end (the early
    ! evolution) and 51 linearly from 0 to t_end (the paper's Figure 3 has a linear axis to
    ! 0.5 ps), merged in ascending order without duplicates.
    subroutine sample_times(times)
        real(dp), allocatable, intent(out) :: times(:)
        integer, parameter :: n_log = 50, n_lin = 50
        real(dp) :: all_t(n_log + n_lin), keep(n_log + n_lin), t
        integer :: i, j, n
        do i = 1, n_log
            all_t(i) = 1e-16_dp * (t_end / 1e-16_dp)**(real(i - 1, dp) / real(n_log - 1, dp))
        end do
        do i = 1, n_lin
            all_t(n_log + i) = t_end * real(i, dp) / real(n_lin, dp)
        end do
        do i = 2, size(all_t)  ! insertion sort
            t = all_t(i)
            j = i - 1
            do while (j >= 1)
                if (all_t(j) <= t) exit
                all_t(j + 1) = all_t(j)
                j = j - 1
            end do
            all_t(j + 1) = t
        end do
        n = 1
        keep(1) = all_t(1)
        do i = 2, size(all_t)
            if (all_t(i) > keep(n) * (1 + 1e-9_dp)) then
                n = n + 1
                keep(n) = all_t(i)
            end if
        end do
        times = keep(1:n)
    end subroutine

    subroutine write_row(unit, name, t, te, ne, pops)
        integer, intent(in) :: unit
        character(len=*), intent(in) :: name
        real(dp), intent(in) :: t, te, ne, pops(:)
        integer :: i
        write (unit, '(a)', advance="no") name
        call write_value(unit, t)
        call write_value(unit, te)
        call write_value(unit, ne)
        do i = 1, size(pops)
            call write_value(unit, pops(i))
        end do
        write (unit, '(a)') ""
    end subroutine

    ! Writes "," and x (full precision, no blanks) to the current line of `unit`.
    subroutine write_value(unit, x)
        integer, intent(in) :: unit
        real(dp), intent(in) :: x
        character(len=32) :: text
        write (text, '(es23.15e3)') x
        write (unit, '(a, a)', advance="no") ",", trim(adjustl(text))
    end subroutine

    ! ---- reading the model (CSV files with one header line) ----

    ! Number of data lines (after the header) of a CSV file, left open at its first data line.
    integer function open_csv(path, unit) result(n)
        character(len=*), intent(in) :: path
        integer, intent(out) :: unit
        character(len=512) :: line
        integer :: ios
        logical :: exists
        inquire (file=path, exist=exists)
        if (.not. exists) then
            error stop "cr_aluminium: cannot find " // path // " (run from the repository root)"
        end if
        open (newunit=unit, file=path, status="old", action="read")
        read (unit, '(a)') line  ! header
        n = 0
        do
            read (unit, '(a)', iostat=ios) line
            if (ios /= 0) exit
            if (len_trim(line) > 0) n = n + 1
        end do
        rewind (unit)
        read (unit, '(a)') line
    end function

    subroutine read_model()
        integer :: u, n, i
        integer(i8) :: level, lower, upper
        real(dp) :: b(4), c(5)

        ! Levels: level (0-based), charge.
        n = open_csv(data_dir // "aluminium-cr-levels.csv", u)
        allocate (charges(n))
        do i = 1, n
            read (u, *) level, charges(i)
            if (level /= i - 1) error stop "cr_aluminium: levels must be listed in order 0, 1, 2, ..."
        end do
        close (u)

        ! Excitations: lower, upper (0-based), Ej [eV], B0..B3 (dimensionless collision strength
        ! Omega(x) = B0 ln x + B1 + B2/x + B3/x^2: the library's omega(1:4), with B4 = B5 = 0; the
        ! library folds in the unit constant itself).
        n = open_csv(data_dir // "aluminium-cr-excitations.csv", u)
        allocate (x_lower(n), x_upper(n), x_energy(n), x_omega(6, n))
        do i = 1, n
            read (u, *) lower, upper, x_energy(i), b
            x_lower(i) = lower + 1
            x_upper(i) = upper + 1
            x_omega(1:4, i) = b
            x_omega(5:6, i) = 0
        end do
        close (u)

        ! Ionizations: lower, upper (0-based), Ei [eV], C0..C4 (the BELI coefficients A, B1..B4 in
        ! 1e-13 cm^2 eV^2, as the library takes them), D0, D1 [cm^2] (photoionization
        ! sigma = D0 (Ei/E)^2 + D1 (Ei/E)^3).
        n = open_csv(data_dir // "aluminium-cr-ionizations.csv", u)
        allocate (i_lower(n), i_upper(n), i_energy(n), i_beli(5, n), i_d0(n), i_d1(n))
        do i = 1, n
            read (u, *) lower, upper, i_energy(i), c, i_d0(i), i_d1(i)
            i_lower(i) = lower + 1
            i_upper(i) = upper + 1
            i_beli(:, i) = c
        end do
        close (u)
    end subroutine

end program cr_aluminium
