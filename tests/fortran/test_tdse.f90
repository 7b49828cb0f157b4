! test_tdse.f90: calls every TDSE wrapper of module atomgpu and checks the numbers against values
! known independently of the library:
!   (a) a free Gaussian psi0 = (2 pi s^2)^(-3/4) exp(-r^2/(4 s^2)), s = 1.2 bohr, on a Cartesian
!       grid of 40^3 points (h = 0.3, the origin between points): after 100 steps of 0.005 a.u.
!       the survival amplitude <psi0|psi(t)>/<psi0|psi0> equals the closed form
!       (1 + i t/(4 s^2))^(-3/2) within 3e-3 (the scheme's O(h^2) dispersion) and the norm is
!       conserved to 1e-6; the time is 0.5 after 100 steps; the same run stored as complex float
!       (params%storage = ATOMGPU_TDSE_COMPLEX_FLOAT) within 1e-5 of the double run's amplitude;
!   (b) hydrogen by imaginary time on a cylindrical grid (h = 0.3, psi as psi(n3, n2, nx)):
!       E within 0.025 below -1/2 hartree (the grid's error there is -0.0185, tests/tdse_cpu.rs),
!       the population within 6 bohr of the nucleus above 0.99 (exact 1s: 1 - 61 e^(-12) =
!       0.99963), and the x-plane slice (1-based plane index) equal to |psi|^2 of that plane of
!       the wavefunction read back;
!   (c) an ion leaving a jellium surface (U0 = 0.5, lambda = 1): the wavefunction set, the
!       reference set, 50 steps, the survival probability |<phi|psi>|^2 in (0, 1];
!   (e) atomgpu_tdse_potential_slice on a Chulkov Cu(111) surface given in eV (Chulkov, Silkin,
!       Echenique, Surf. Sci. 437 (1999) 330, Table 1): the x plane through the reference plane
!       and the bulk plane one a_s deeper both read (A10 + A1)/27.211386245988 hartree at every
!       point (1e-13); a slice array of the wrong shape is refused (C position 5);
!   (d) bad input through stat: a psi of the wrong shape (checked here, C position 2), odd
!       N_theta, a trajectory shorter than the run: ATOMGPU_ERR_INVALID_ARGUMENT at the
!       argument's C position with its name in the message.
!
! Build (from the repository root, after `cargo build --release`):
!   gfortran -std=f2018 -Wall -fcheck=all fortran/atomgpu.f90 tests/fortran/support/checks.f90 \
!       tests/fortran/test_tdse.f90 -o test_tdse -Ltarget/release -latomgpu -Wl,-rpath,$PWD/target/release
! Exit status 0 when every check passes (error stop 1 otherwise).
program test_tdse
    use, intrinsic :: iso_c_binding, only: c_double, c_double_complex, c_int32_t
    use atomgpu
    use atomgpu_test_checks
    implicit none

    integer, parameter :: dp = c_double, cp = c_double_complex
    complex(cp) :: amplitude_double, amplitude_float

    call free_gaussian(ATOMGPU_TDSE_COMPLEX_DOUBLE, amplitude_double)
    call free_gaussian(ATOMGPU_TDSE_COMPLEX_FLOAT, amplitude_float)
    print '(a, es9.2)', "complex float storage: |amplitude(double) - amplitude(float)| = ", &
        abs(amplitude_double - amplitude_float)
    call check("complex float storage within 1e-5 of complex double", abs(amplitude_double - amplitude_float) < 1.0e-5_dp)
    call hydrogen()
    call jellium()
    call chulkov()
    call bad_input()
    print '(i0, a, i0, a)', checks, " checks, ", failures, " failed"
    if (failures > 0) error stop 1

contains

    ! A Gaussian of width s centred at the origin, on the grid's points (psi(n3, n2, nx)).
    subroutine gaussian(grid, s, psi)
        type(atomgpu_tdse_grid_t), intent(in) :: grid
        real(dp), intent(in) :: s
        complex(cp), intent(out) :: psi(:, :, :)
        integer :: k, l, m
        real(dp) :: x, a, b, c, r2
        do k = 1, int(grid%nx)
            x = grid%x0 + (k - 1) * grid%dx
            do l = 1, int(grid%n2)
                do m = 1, int(grid%n3)
                    if (grid%geometry == ATOMGPU_TDSE_CARTESIAN) then
                        b = grid%y0 + (l - 1) * grid%d2
                        c = grid%z0 + (m - 1) * grid%d3
                        r2 = x * x + b * b + c * c
                    else
                        a = (l - 0.5_dp) * grid%d2
                        r2 = x * x + a * a
                    end if
                    psi(m, l, k) = cmplx((2 * pi * s * s)**(-0.75_dp) * exp(-r2 / (4 * s * s)), 0.0_dp, cp)
                end do
            end do
        end do
    end subroutine

    subroutine free_gaussian(storage, amplitude)
        integer(c_int32_t), intent(in) :: storage
        complex(cp), intent(out) :: amplitude
        type(atomgpu_tdse_grid_t) :: grid
        type(atomgpu_tdse_params_t) :: params
        type(atomgpu_tdse_t) :: tdse
        complex(cp), allocatable :: psi(:, :, :)
        complex(cp) :: s, exact
        real(dp) :: norm0, norm, time, rho0
        integer :: stat, steps, rings
        grid%geometry = ATOMGPU_TDSE_CARTESIAN
        grid%nx = 40
        grid%n2 = 40
        grid%n3 = 40
        grid%dx = 0.3_dp
        grid%d2 = 0.3_dp
        grid%d3 = 0.3_dp
        grid%x0 = -5.85_dp
        grid%y0 = -5.85_dp
        grid%z0 = -5.85_dp
        grid%nx_local = 40
        allocate (psi(40, 40, 40))
        call gaussian(grid, 1.2_dp, psi)
        params%storage = storage
        amplitude = cmplx(huge(1.0_dp), 0.0_dp, cp)
        call atomgpu_tdse_create(grid, params, tdse, stat)
        if (.not. succeeded("create (Cartesian)", stat)) return
        call atomgpu_tdse_set_reference(tdse, psi, stat)
        if (.not. succeeded("set_reference", stat)) return
        call atomgpu_tdse_set_wavefunction(tdse, psi, 0.0_dp, stat)
        if (.not. succeeded("set_wavefunction", stat)) return
        call atomgpu_tdse_norm(tdse, norm0)
        call atomgpu_tdse_step(tdse, 100, stat)
        if (.not. succeeded("step", stat)) return
        call atomgpu_tdse_overlap(tdse, s)
        call atomgpu_tdse_norm(tdse, norm)
        call atomgpu_tdse_state(tdse, time, steps, rho0, rings)
        exact = (1 + cmplx(0.0_dp, 0.5_dp / (4 * 1.2_dp**2), cp))**(-1.5_dp)
        amplitude = s / norm0
        print '(a, 2f10.6, a, 2f10.6, a)', "Cartesian free Gaussian: amplitude ", s / norm0, " (closed form ", exact, ")"
        call check("survival amplitude within 3e-3 of the closed form", abs(s / norm0 - exact) < 3.0e-3_dp)
        call check("norm conserved to 1e-6", abs(norm - norm0) < 1.0e-6_dp * norm0)
        call check("t = 0.5 after 100 steps", abs(time - 0.5_dp) < 1.0e-12_dp .and. steps == 100)
        call check("no implicit rings on a Cartesian grid", rings == 0)
        call atomgpu_tdse_destroy(tdse)
    end subroutine

    function cylinder(nx, n_rho, n_theta, h) result(grid)
        integer, intent(in) :: nx, n_rho, n_theta
        real(dp), intent(in) :: h
        type(atomgpu_tdse_grid_t) :: grid
        grid%nx = nx
        grid%n2 = n_rho
        grid%n3 = n_theta
        grid%dx = h
        grid%d2 = h
        grid%x0 = -(nx - 1) * h / 2
        grid%nx_local = nx
    end function

    subroutine hydrogen()
        type(atomgpu_tdse_grid_t) :: grid
        type(atomgpu_tdse_params_t) :: params
        type(atomgpu_tdse_t) :: tdse
        type(atomgpu_tdse_ion_t) :: ion
        complex(cp), allocatable :: psi(:, :, :)
        real(dp), allocatable :: plane(:, :)
        real(dp) :: energy, norm, population
        integer :: stat, steps
        logical :: converged
        grid = cylinder(60, 30, 8, 0.3_dp)
        params%dtau = 0.0225_dp
        allocate (psi(8, 30, 60))
        call gaussian(grid, 1.0_dp, psi)
        call atomgpu_tdse_create(grid, params, tdse, stat)
        if (.not. succeeded("create (hydrogen)", stat)) return
        call atomgpu_tdse_set_potential(tdse, ion=ion, times=[0.0_dp], positions=reshape([0.0_dp, 0.0_dp, 0.0_dp], &
            [3, 1]), stat=stat)
        if (.not. succeeded("set_potential", stat)) return
        call atomgpu_tdse_set_wavefunction(tdse, psi, 0.0_dp)
        call atomgpu_tdse_relax(tdse, 40000, 1.0e-9_dp, energy, steps, converged, stat)
        if (.not. succeeded("relax", stat)) return
        call atomgpu_tdse_norm(tdse, norm)
        call atomgpu_tdse_population(tdse, 6.0_dp, population)
        print '(a, f12.8, a, i0, a, f10.6)', "hydrogen 1s at h = 0.3: E = ", energy, " after ", steps, &
            " steps; population within 6 bohr ", population
        call check("relaxation converged", converged)
        call check("E within 0.025 below -1/2", energy < -0.5_dp .and. energy > -0.525_dp)
        call check("normalised", abs(norm - 1) < 1.0e-12_dp)
        call check("population within 6 bohr above 0.99", population > 0.99_dp .and. population <= 1.0_dp + 1e-12_dp)
        call atomgpu_tdse_get_wavefunction(tdse, psi)
        allocate (plane(8, 30))
        call check("slice shape (n3, n2)", all(atomgpu_tdse_slice_shape(tdse, ATOMGPU_TDSE_SLICE_X) == [8, 30]))
        call atomgpu_tdse_density_slice(tdse, ATOMGPU_TDSE_SLICE_X, 31, plane, stat)
        if (succeeded("density_slice", stat)) then
            call check("plane 31 of the slice is |psi(:, :, 31)|^2", &
                maxval(abs(plane - abs(psi(:, :, 31))**2)) <= 1.0e-15_dp * maxval(plane))
        end if
        call atomgpu_tdse_destroy(tdse)
    end subroutine

    subroutine jellium()
        type(atomgpu_tdse_grid_t) :: grid
        type(atomgpu_tdse_params_t) :: params
        type(atomgpu_tdse_t) :: tdse
        type(atomgpu_tdse_ion_t) :: ion
        type(atomgpu_tdse_surface_t) :: surface
        complex(cp), allocatable :: psi(:, :, :)
        complex(cp) :: s
        integer :: stat
        grid = cylinder(50, 20, 8, 0.3_dp)
        params%absorber_width = 2.0_dp
        params%absorber_strength = 0.5_dp
        surface%kind = ATOMGPU_TDSE_SURFACE_JELLIUM
        surface%x_surface = -4.0_dp
        surface%depth = 0.5_dp
        surface%lambda = 1.0_dp
        surface%image_plane = 0.5_dp
        allocate (psi(8, 20, 50))
        call gaussian(grid, 1.0_dp, psi)
        call atomgpu_tdse_create(grid, params, tdse, stat)
        if (.not. succeeded("create (jellium)", stat)) return
        call atomgpu_tdse_set_potential(tdse, ion, surface, times=[0.0_dp, 10.0_dp], &
            positions=reshape([0.0_dp, 0.0_dp, 0.0_dp, 1.0_dp, 0.0_dp, 0.0_dp], [3, 2]), stat=stat)
        if (.not. succeeded("set_potential (jellium)", stat)) return
        call atomgpu_tdse_set_reference(tdse, psi)
        call atomgpu_tdse_set_wavefunction(tdse, psi, 0.0_dp)
        call atomgpu_tdse_step(tdse, 50, stat)
        if (.not. succeeded("step (jellium)", stat)) return
        call atomgpu_tdse_overlap(tdse, s)
        call check("survival probability in (0, 1]", abs(s)**2 > 0 .and. abs(s)**2 <= 1.0_dp + 1.0e-12_dp)
        call atomgpu_tdse_destroy(tdse)
    end subroutine

    subroutine chulkov()
        type(atomgpu_tdse_grid_t) :: grid
        type(atomgpu_tdse_params_t) :: params
        type(atomgpu_tdse_t) :: tdse
        type(atomgpu_tdse_surface_t) :: surface
        real(dp), allocatable :: plane(:, :), wrong(:, :)
        real(dp), parameter :: expected = (-11.895_dp + 5.14_dp) / 27.211386245988_dp
        integer :: stat
        ! dx = a_s / 4 = 0.985 bohr: plane 9 (1-based) is the reference plane, plane 5 one a_s deeper.
        grid = cylinder(12, 4, 8, 0.985_dp)
        grid%x0 = 0.0_dp
        surface%kind = ATOMGPU_TDSE_SURFACE_CHULKOV
        surface%x_surface = 8 * 0.985_dp
        surface%spacing = 3.94_dp
        surface%a10 = -11.895_dp
        surface%a1 = 5.14_dp
        surface%a2 = 4.3279_dp
        surface%beta = 2.9416_dp
        call atomgpu_tdse_create(grid, params, tdse, stat)
        if (.not. succeeded("create (Chulkov)", stat)) return
        call atomgpu_tdse_set_potential(tdse, surface=surface, stat=stat)
        if (.not. succeeded("set_potential (Chulkov)", stat)) return
        allocate (plane(8, 4))
        call atomgpu_tdse_potential_slice(tdse, ATOMGPU_TDSE_SLICE_X, 9, 0.0_dp, plane, stat)
        if (succeeded("potential_slice (reference plane)", stat)) then
            print '(a, f14.10, a)', "Cu(111) at its reference plane: U = ", plane(1, 1), " hartree"
            call check("U = (A10 + A1)/Eh at the reference plane", maxval(abs(plane - expected)) < 1.0e-13_dp)
        end if
        call atomgpu_tdse_potential_slice(tdse, ATOMGPU_TDSE_SLICE_X, 5, 0.0_dp, plane, stat)
        if (succeeded("potential_slice (one a_s deeper)", stat)) then
            call check("the bulk cosine repeats after a_s", maxval(abs(plane - expected)) < 1.0e-13_dp)
        end if
        allocate (wrong(4, 8))
        call atomgpu_tdse_potential_slice(tdse, ATOMGPU_TDSE_SLICE_X, 5, 0.0_dp, wrong, stat)
        call expect_invalid("potential slice of the wrong shape", stat, 5, "potential", .true.)
        call atomgpu_tdse_destroy(tdse)
    end subroutine

    subroutine bad_input()
        type(atomgpu_tdse_grid_t) :: grid
        type(atomgpu_tdse_params_t) :: params
        type(atomgpu_tdse_t) :: tdse
        type(atomgpu_tdse_ion_t) :: ion
        complex(cp), allocatable :: psi(:, :, :)
        integer :: stat
        grid = cylinder(10, 6, 7, 0.2_dp)
        call atomgpu_tdse_create(grid, params, tdse, stat)
        call expect_invalid("odd N_theta", stat, 1, "grid", .true.)
        grid = cylinder(10, 6, 8, 0.2_dp)
        call atomgpu_tdse_create(grid, params, tdse)
        allocate (psi(8, 6, 9))
        psi = (1.0_dp, 0.0_dp)
        call atomgpu_tdse_set_wavefunction(tdse, psi, 0.0_dp, stat)
        call expect_invalid("psi of the wrong shape", stat, 2, "psi", .true.)
        deallocate (psi)
        allocate (psi(8, 6, 10))
        psi = (1.0_dp, 0.0_dp)
        call atomgpu_tdse_set_potential(tdse, ion, times=[0.0_dp, 0.05_dp], &
            positions=reshape([0.0_dp, 0.0_dp, 0.0_dp, 0.1_dp, 0.0_dp, 0.0_dp], [3, 2]))
        call atomgpu_tdse_set_wavefunction(tdse, psi, 0.0_dp)
        call atomgpu_tdse_step(tdse, 100, stat)
        call expect_invalid("a trajectory shorter than the run", stat, 2, "n_steps", .true.)
        call atomgpu_tdse_destroy(tdse)
        call atomgpu_tdse_step(tdse, 1, stat)
        call expect_invalid("use after destroy", stat, 1, "handle", .true.)
    end subroutine
end program test_tdse
