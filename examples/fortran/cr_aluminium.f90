! cr_aluminium.f90: the collisional-radiative demonstration of section 4 of the paper
! (degenerate-rates-quadrature-gpu): near-solid-density aluminium, charge states Al3+ to Al6+
! (15 levels, 14 collisional excitations, 14 collisional ionizations with photoionization),
! irradiated by a black body at Tr = 250 eV, run with Fermi-Dirac (FD) and with Maxwell-Boltzmann
! (MB) free electrons, as in the paper's Figure 3.
!
! Conditions (examples/data/aluminium-cr-model.md): total ion density 9e22 cm^-3, all of it in
! level 1 (the ground state of Al3+, so n_e = 2.7e23 cm^-3), Te = 1 eV at t = 0, to 0.5 ps;
! no statistical weights in the data, so every level has weight 1.
!
! Run from the repository root (`make demo` builds and runs it, then plots the result):
!     gfortran -O2 fortran/atomgpu.f90 examples/fortran/cr_aluminium.f90 -o cr_aluminium \
!         -Ltarget/release -latomgpu -Wl,-rpath,$PWD/target/release
!     ./cr_aluminium            adaptive stiff integrator (ROS2), a few minutes on a CPU
!     ./cr_aluminium rk4 [N]    the paper's fixed-step RK4, dt = 1e-19 s, N steps (default
!                               5e6, to 0.5 ps), sampled every 50000 steps. Meant for a GPU
!                               (ATOMGPU_BACKEND=cuda): on a CPU, 5e6 steps x 4 right-hand sides
!                               (a few ms each with Fermi-Dirac rates) take more than a day.
! It writes out/cr_aluminium.csv: statistics (FD/MB), time_s, te_ev, ne_cm3, N1..N15 [cm^-3];
! plot it with  python3 examples/plot_cr.py out/cr_aluminium.csv out/cr_aluminium.png
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
    ! Stiff integrator tolerances.
    real(dp), parameter :: rtol = 1e-6_dp, atol_fraction = 1e-10_dp
    ! The paper's fixed-step RK4.
    real(dp), parameter :: rk4_dt = 1e-19_dp
    integer(i8), parameter :: rk4_default_steps = 5000000_i8

    ! The atomic model (levels numbered from 1, as the Fortran layer expects).
    real(dp), allocatable :: charges(:)
    integer(i8), allocatable :: x_lower(:), x_upper(:), i_lower(:), i_upper(:)
    real(dp), allocatable :: x_energy(:), x_omega(:, :), i_energy(:), i_beli(:, :), i_d0(:), i_d1(:)

    integer, parameter :: n_runs = 2
    integer, parameter :: run_stats(n_runs) = [ATOMGPU_STATS_FERMI_DIRAC, ATOMGPU_STATS_MAXWELL_BOLTZMANN]
    character(len=2), parameter :: run_name(n_runs) = ["FD", "MB"]
    real(dp) :: final_te(n_runs), final_ne(n_runs), wall(n_runs)
    logical :: use_rk4
    integer(i8) :: rk4_steps
    integer :: run, unit, backend
    character(len=:), allocatable :: device
    character(len=64) :: arg

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
        print '(a, es8.1, a, es8.1)', "integrator: adaptive stiff (ROS2), rtol = ", rtol, ", atol_fraction = ", &
            atol_fraction
    end if

    call execute_command_line("mkdir -p out")
    open (newunit=unit, file=out_file, status="replace", action="write")
    write (unit, '(a)', advance="no") "statistics,time_s,te_ev,ne_cm3"
    do run = 1, size(charges)
        write (unit, '(a, i0)', advance="no") ",N", run
    end do
    write (unit, '(a)') ""

    do run = 1, n_runs
        call simulate(run_stats(run), run_name(run), unit, final_te(run), final_ne(run), wall(run))
    end do
    close (unit)

    print '(a)', ""
    print '(a, es9.2, a)', "summary at t = ", merge(rk4_steps * rk4_dt, t_end, use_rk4), " s:"
    do run = 1, n_runs
        print '(2x, a, a, f8.3, a, es10.4, a, f8.1, a)', run_name(run), ": Te = ", final_te(run), " eV, ne = ", &
            final_ne(run), " cm^-3  (wall time ", wall(run), " s)"
    end do
    print '(a, f6.3, a, f6.3, a)', "  FD/MB: ne ratio ", final_ne(1) / final_ne(2), ", Te ratio ", &
        final_te(1) / final_te(2), " (the paper: FD ionizes more and stays cooler)"
    print '(a, a)', "wrote ", out_file

contains

    ! Runs the model with statistics `stats` from the paper's initial state, writing every sample
    ! to `unit`; returns the final Te, ne and the wall time.
    subroutine simulate(stats, name, unit, te_last, ne_last, seconds)
        integer, intent(in) :: stats, unit
        character(len=*), intent(in) :: name
        real(dp), intent(out) :: te_last, ne_last, seconds
        type(atomgpu_cr_model) :: model
        real(dp), allocatable :: populations(:), y(:), cond(:), dydt(:)
        real(dp), allocatable :: times(:), te(:), ne(:), pops(:, :)
        real(dp) :: t_start
        integer(i8) :: nl, start, finish, rate, n_samples, chunk_steps, done_steps, every
        integer :: chunk, first, last, n_chunks

        call atomgpu_cr_create(model, charges, x_lower, x_upper, x_energy, x_omega, i_lower, i_upper, i_energy, &
            i_beli, i_d0, i_d1, stats, accuracy_p, nodes, tr)  ! no weights: all levels non-degenerate
        nl = atomgpu_cr_n_levels(model)
        allocate (populations(nl), y(nl + 1), dydt(nl + 1), cond(3))
        populations = 0
        populations(1) = ion_density
        call atomgpu_cr_initial_state(model, populations, te0, y)
        call atomgpu_cr_derivatives(model, y, dydt, cond)
        print '(a)', ""
        print '(a, a, f6.3, a, es10.4, a, f8.3, a)', name, ": t = 0: Te = ", cond(1), " eV, ne = ", cond(3), &
            " cm^-3, mu = ", cond(2), " eV"
        call write_row(unit, name, 0.0_dp, cond(1), cond(3), y(1:nl))

        call system_clock(start, rate)
        if (.not. use_rk4) then
            ! The sample times, integrated in 10 calls so that progress shows. Each call starts
            ! its clock at 0 from the state y it is given, so it takes the times since its start.
            call sample_times(times)
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
        else
            ! 100 calls (or fewer for short runs), each recording its start and its end.
            chunk_steps = max(1_i8, rk4_steps / 100)
            allocate (times(2), te(2), ne(2), pops(nl, 2))
            done_steps = 0
            do while (done_steps < rk4_steps)
                every = min(chunk_steps, rk4_steps - done_steps)
                call atomgpu_cr_run_rk4(model, y, rk4_dt, every, every, n_samples, times, te, ne, pops)
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
