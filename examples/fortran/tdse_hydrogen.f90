! tdse_hydrogen.f90: the hydrogen ground state by imaginary-time propagation (the TDSE family's
! atomgpu_tdse_relax), on cylindrical grids of step h = 0.4, 0.3, 0.2, 0.15 bohr in a box of
! 24 x 12 bohr (x, rho), N_theta = 8, the nucleus between two x planes. Prints E(h), its error
! against the exact -1/2 hartree and the observed order of convergence between successive steps
! (about 1.3: the error is h^2 ln(1/h), E + 1/2 = -0.17 h^2 ln(1/h) within 2%, not h^2. The
! cylindrical scheme is a 2D finite difference in the (x, rho) half-plane with the weight rho, in
! which the Coulomb term rho psi^2/r is homogeneous of degree 0 near the nucleus; its 2D Laplacian
! falls as 1/r^2, so the h^2 term of the error expansion diverges logarithmically. On a Cartesian
! grid 1/r is harmonic, that term stays finite and the order is 2: the 1s cusp, which both grids
! share, is not the cause.)
!
! Build and run (from the repository root, after `cargo build --release`):
!   gfortran fortran/atomgpu.f90 examples/fortran/tdse_hydrogen.f90 -o tdse_hydrogen \
!       -Ltarget/release -latomgpu -Wl,-rpath,$PWD/target/release && ./tdse_hydrogen
! ATOMGPU_BACKEND=cpu|cuda chooses the backend.
program tdse_hydrogen
    use, intrinsic :: iso_c_binding, only: c_double, c_double_complex
    use atomgpu
    implicit none
    integer, parameter :: dp = c_double
    real(dp), parameter :: steps_h(4) = [0.4_dp, 0.3_dp, 0.2_dp, 0.15_dp]
    real(dp) :: energy(4)
    integer :: i

    print '(a)', "#   h [bohr]   E [hartree]       E + 1/2       order   steps"
    do i = 1, size(steps_h)
        call ground_state(steps_h(i), energy(i))
    end do

contains

    subroutine ground_state(h, e)
        real(dp), intent(in) :: h
        real(dp), intent(out) :: e
        type(atomgpu_tdse_grid_t) :: grid
        type(atomgpu_tdse_params_t) :: params
        type(atomgpu_tdse_ion_t) :: ion           ! hydrogen: the defaults
        type(atomgpu_tdse_t) :: tdse
        complex(c_double_complex), allocatable :: psi(:, :, :)
        integer :: k, l, steps
        real(dp) :: x, rho, order
        logical :: converged
        grid%nx = nint(24 / h)
        grid%n2 = nint(12 / h)
        grid%n3 = 8
        grid%dx = h
        grid%d2 = h
        grid%x0 = -(grid%nx - 1) * h / 2
        grid%nx_local = grid%nx
        params%dtau = 0.01_dp * (h / 0.2_dp)**2       ! within the forward-Euler limit of the grid
        allocate (psi(grid%n3, grid%n2, grid%nx))
        do k = 1, int(grid%nx)
            x = grid%x0 + (k - 1) * h
            do l = 1, int(grid%n2)
                rho = (l - 0.5_dp) * h
                psi(:, l, k) = cmplx(exp(-(x * x + rho * rho) / 2), 0.0_dp, c_double_complex)
            end do
        end do
        call atomgpu_tdse_create(grid, params, tdse)
        call atomgpu_tdse_set_potential(tdse, ion, times=[0.0_dp], positions=reshape([0.0_dp, 0.0_dp, 0.0_dp], [3, 1]))
        call atomgpu_tdse_set_wavefunction(tdse, psi, 0.0_dp)
        call atomgpu_tdse_relax(tdse, 100000, 1.0e-10_dp, e, steps, converged)
        if (.not. converged) print '(a)', "# not converged"
        order = 0
        if (i > 1) order = log((energy(i - 1) + 0.5_dp) / (e + 0.5_dp)) / log(steps_h(i - 1) / h)
        print '(f10.3, f14.8, es14.4, f9.2, i8)', h, e, e + 0.5_dp, order, steps
        call atomgpu_tdse_destroy(tdse)
    end subroutine
end program tdse_hydrogen
