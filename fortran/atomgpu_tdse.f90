! atomgpu_tdse: the Fortran interface of the TDSE family (paper: tdse-cylindrical-gpu, Gainullin
! 2017): 3D time-dependent Schroedinger propagation of one active electron on a cylindrical
! (x, rho, theta) grid with the hybrid implicit theta-correction near the axis, or on a Cartesian
! grid; ion-surface potentials, imaginary-time relaxation, observables, several GPUs and MPI
! ranks. Programs `use atomgpu` (fortran/atomgpu.f90, which INCLUDEs this file).
!
! Atomic units: lengths in bohr, energies in hartree, times in a.u. (2.419e-17 s). A wavefunction
! (and a potential array) is a 3D array psi(n3, n2, nx_local): theta (or z) first, then rho (or y),
! then the owned x planes, which is the library's storage (eq. 17). Point psi(m, l, k) sits at
! x = x0 + (x_offset + k - 1) dx, rho = (l - 1/2) drho, theta = (m - 1) 2 pi / n3 (cylindrical).
! Indices given to the library (a slice's plane) are 1-based here, 0-based in C. Several ranks:
! give each rank's handle its slab (grid%x_offset, grid%nx_local) and connect it with
! atomgpu_tdse_set_communicator, passing c_funloc of two bind(C) procedures that call your MPI
! (the C header documents their contract); the run and the observables are then collective.
module atomgpu_tdse
    use, intrinsic :: iso_c_binding, only: c_int32_t, c_int64_t, c_double, c_double_complex, c_ptr, c_null_ptr, &
        c_funptr
    use atomgpu_core
    implicit none
    private

    integer(c_int32_t), parameter, public :: ATOMGPU_TDSE_CYLINDRICAL = 0
    integer(c_int32_t), parameter, public :: ATOMGPU_TDSE_CARTESIAN = 1
    ! Wavefunction storage (params%storage): complex double (default) or complex float, computed in
    ! double either way.
    integer(c_int32_t), parameter, public :: ATOMGPU_TDSE_COMPLEX_DOUBLE = 0, ATOMGPU_TDSE_COMPLEX_FLOAT = 1
    integer(c_int32_t), parameter, public :: ATOMGPU_TDSE_SURFACE_NONE = 0
    integer(c_int32_t), parameter, public :: ATOMGPU_TDSE_SURFACE_TABLE = 1
    integer(c_int32_t), parameter, public :: ATOMGPU_TDSE_SURFACE_JELLIUM = 2
    integer(c_int32_t), parameter, public :: ATOMGPU_TDSE_SURFACE_CHULKOV = 3
    ! Density slices: the x plane `index` (n3 x n2 values); the meridian plane through theta_index
    ! and theta_index + pi (2 n2 x nx_local, rho from -rho_max to rho_max) or the plane y = y_index
    ! (n3 x nx_local); the cylinder rho = rho_index (n3 x nx_local) or the plane z = z_index
    ! (n2 x nx_local).
    integer(c_int32_t), parameter, public :: ATOMGPU_TDSE_SLICE_X = 0
    integer(c_int32_t), parameter, public :: ATOMGPU_TDSE_SLICE_SECOND = 1
    integer(c_int32_t), parameter, public :: ATOMGPU_TDSE_SLICE_THIRD = 2

    public :: atomgpu_handle_devices
    interface atomgpu_handle_devices
        module procedure atomgpu_tdse_devices
    end interface
    public :: atomgpu_tdse_create, atomgpu_tdse_destroy, atomgpu_tdse_set_potential
    public :: atomgpu_tdse_set_potential_array, atomgpu_tdse_set_wavefunction, atomgpu_tdse_get_wavefunction
    public :: atomgpu_tdse_set_reference, atomgpu_tdse_step, atomgpu_tdse_relax, atomgpu_tdse_norm
    public :: atomgpu_tdse_energy, atomgpu_tdse_overlap, atomgpu_tdse_population, atomgpu_tdse_density_slice
    public :: atomgpu_tdse_state, atomgpu_tdse_set_communicator, atomgpu_tdse_slice_shape
    public :: atomgpu_tdse_potential_slice

    ! The grid and the planes a handle owns (C struct atomgpu_tdse_grid): n2, n3 are N_rho, N_theta
    ! (N_theta even, <= 1024) or Ny, Nz; d3 (dz) and y0, z0 are read on Cartesian grids only.
    type, bind(C), public :: atomgpu_tdse_grid_t
        integer(c_int32_t) :: geometry = ATOMGPU_TDSE_CYLINDRICAL
        integer(c_int64_t) :: nx = 0, n2 = 0, n3 = 0
        real(c_double) :: dx = 0.2_c_double, d2 = 0.2_c_double, d3 = 0.0_c_double    ! bohr
        real(c_double) :: x0 = 0.0_c_double, y0 = 0.0_c_double, z0 = 0.0_c_double    ! bohr
        integer(c_int64_t) :: x_offset = 0        ! 0-based first owned plane
        integer(c_int64_t) :: nx_local = 0        ! owned planes (the whole grid: nx)
    end type

    ! The scheme (C struct atomgpu_tdse_params) with the library's defaults.
    type, bind(C), public :: atomgpu_tdse_params_t
        real(c_double) :: dtau = 0.005_c_double              ! time step [a.u.]
        real(c_double) :: rho0 = -1.0_c_double                ! implicit below [bohr]; < 0 automatic
        real(c_double) :: alpha = 1.0_c_double, beta = 0.0_c_double, gamma = 1.0_c_double
        real(c_double) :: absorber_width = 0.0_c_double       ! bohr (0: none)
        real(c_double) :: absorber_strength = 0.0_c_double    ! hartree
        real(c_double) :: norm_growth_tolerance = 1.0e-4_c_double
        integer(c_int64_t) :: norm_check_interval = 1000
        integer(c_int32_t) :: check_stability = 1
        integer(c_int32_t) :: n_devices = 1                   ! GPUs of this process
        integer(c_int32_t) :: storage = ATOMGPU_TDSE_COMPLEX_DOUBLE  ! or ATOMGPU_TDSE_COMPLEX_FLOAT
    end type

    ! The ion (C struct atomgpu_tdse_ion): V = -[Zc + (Z - Zc) e^(-a1 r) + a2 r e^(-a3 r)]/r
    ! - alpha_d / (2 (r^2 + d^2)^2) + A e^(-b r^2), r soft-cored by rs. Hydrogen: the defaults.
    type, bind(C), public :: atomgpu_tdse_ion_t
        real(c_double) :: z = 1.0_c_double, z_core = 1.0_c_double
        real(c_double) :: a1 = 0.0_c_double, a2 = 0.0_c_double, a3 = 0.0_c_double
        real(c_double) :: polarisability = 0.0_c_double, polarisation_cutoff = 0.0_c_double
        real(c_double) :: core_amplitude = 0.0_c_double, core_exponent = 0.0_c_double
        real(c_double) :: soft_core = 0.0_c_double
    end type

    ! The surface (C struct atomgpu_tdse_surface), the metal at x < x_surface [bohr]: jellium
    ! (depth U0 [hartree], lambda [1/bohr], image_plane [bohr]) or Chulkov (spacing a_s [bohr];
    ! a10, a1, a2 in eV, as Chulkov, Silkin and Echenique's Table 1 prints them (hartree before
    ! issue 28); beta [1/bohr]; Cu(111): 3.94, -11.895, 5.14, 4.3279, 2.9416).
    type, bind(C), public :: atomgpu_tdse_surface_t
        integer(c_int32_t) :: kind = ATOMGPU_TDSE_SURFACE_NONE
        real(c_double) :: x_surface = 0.0_c_double
        real(c_double) :: depth = 0.0_c_double, lambda = 0.0_c_double, image_plane = 0.0_c_double
        real(c_double) :: spacing = 0.0_c_double, a10 = 0.0_c_double, a1 = 0.0_c_double, a2 = 0.0_c_double
        real(c_double) :: beta = 0.0_c_double
    end type

    ! A propagator held by the library, with the grid it was made for.
    type, public :: atomgpu_tdse_t
        private
        type(c_ptr) :: ptr = c_null_ptr
        type(atomgpu_tdse_grid_t) :: grid
    end type

    interface
        function c_create(grid, params, handle) bind(C, name="atomgpu_tdse_create") result(status)
            import :: c_int32_t, c_ptr, atomgpu_tdse_grid_t, atomgpu_tdse_params_t
            type(atomgpu_tdse_grid_t), intent(in) :: grid
            type(atomgpu_tdse_params_t), intent(in) :: params
            type(c_ptr), intent(inout) :: handle
            integer(c_int32_t) :: status
        end function

        function c_create_on_device_list(grid, params, n_devices, device_ids, handle) &
                bind(C, name="atomgpu_tdse_create_on_device_list") result(status)
            import :: c_int32_t, c_ptr, atomgpu_tdse_grid_t, atomgpu_tdse_params_t
            type(atomgpu_tdse_grid_t), intent(in) :: grid
            type(atomgpu_tdse_params_t), intent(in) :: params
            integer(c_int32_t), value :: n_devices
            integer(c_int32_t), intent(in) :: device_ids(*)
            type(c_ptr), intent(inout) :: handle
            integer(c_int32_t) :: status
        end function

        function c_destroy(handle) bind(C, name="atomgpu_tdse_destroy") result(status)
            import :: c_int32_t, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t) :: status
        end function

        function c_set_potential(handle, ion, surface, surface_table, n_times, times, positions) &
                bind(C, name="atomgpu_tdse_set_potential") result(status)
            import :: c_int32_t, c_int64_t, c_ptr
            type(c_ptr), value :: handle, ion, surface, surface_table, times, positions
            integer(c_int64_t), value :: n_times
            integer(c_int32_t) :: status
        end function

        function c_set_potential_array(handle, values, n_points) &
                bind(C, name="atomgpu_tdse_set_potential_array") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            type(c_ptr), value :: handle
            real(c_double), intent(in) :: values(*)
            integer(c_int64_t), value :: n_points
            integer(c_int32_t) :: status
        end function

        function c_set_wavefunction(handle, psi, n_points, time) bind(C, name="atomgpu_tdse_set_wavefunction") &
                result(status)
            import :: c_int32_t, c_int64_t, c_double, c_double_complex, c_ptr
            type(c_ptr), value :: handle
            complex(c_double_complex), intent(in) :: psi(*)
            integer(c_int64_t), value :: n_points
            real(c_double), value :: time
            integer(c_int32_t) :: status
        end function

        function c_get_wavefunction(handle, psi, n_points) bind(C, name="atomgpu_tdse_get_wavefunction") &
                result(status)
            import :: c_int32_t, c_int64_t, c_double_complex, c_ptr
            type(c_ptr), value :: handle
            complex(c_double_complex), intent(inout) :: psi(*)
            integer(c_int64_t), value :: n_points
            integer(c_int32_t) :: status
        end function

        function c_set_reference(handle, phi, n_points) bind(C, name="atomgpu_tdse_set_reference") result(status)
            import :: c_int32_t, c_int64_t, c_double_complex, c_ptr
            type(c_ptr), value :: handle
            complex(c_double_complex), intent(in) :: phi(*)
            integer(c_int64_t), value :: n_points
            integer(c_int32_t) :: status
        end function

        function c_step(handle, n_steps) bind(C, name="atomgpu_tdse_step") result(status)
            import :: c_int32_t, c_int64_t, c_ptr
            type(c_ptr), value :: handle
            integer(c_int64_t), value :: n_steps
            integer(c_int32_t) :: status
        end function

        function c_relax(handle, max_steps, energy_tolerance, energy, steps, converged) &
                bind(C, name="atomgpu_tdse_relax") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            type(c_ptr), value :: handle
            integer(c_int64_t), value :: max_steps
            real(c_double), value :: energy_tolerance
            real(c_double), intent(inout) :: energy
            integer(c_int64_t), intent(inout) :: steps
            integer(c_int32_t), intent(inout) :: converged
            integer(c_int32_t) :: status
        end function

        function c_norm(handle, norm) bind(C, name="atomgpu_tdse_norm") result(status)
            import :: c_int32_t, c_double, c_ptr
            type(c_ptr), value :: handle
            real(c_double), intent(inout) :: norm
            integer(c_int32_t) :: status
        end function

        function c_energy(handle, energy) bind(C, name="atomgpu_tdse_energy") result(status)
            import :: c_int32_t, c_double, c_ptr
            type(c_ptr), value :: handle
            real(c_double), intent(inout) :: energy
            integer(c_int32_t) :: status
        end function

        function c_overlap(handle, overlap) bind(C, name="atomgpu_tdse_overlap") result(status)
            import :: c_int32_t, c_double_complex, c_ptr
            type(c_ptr), value :: handle
            complex(c_double_complex), intent(inout) :: overlap
            integer(c_int32_t) :: status
        end function

        function c_population(handle, radius, population) bind(C, name="atomgpu_tdse_population") result(status)
            import :: c_int32_t, c_double, c_ptr
            type(c_ptr), value :: handle
            real(c_double), value :: radius
            real(c_double), intent(inout) :: population
            integer(c_int32_t) :: status
        end function

        function c_density_slice(handle, axis, index, density, n_values) bind(C, name="atomgpu_tdse_density_slice") &
                result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: axis
            integer(c_int64_t), value :: index, n_values
            real(c_double), intent(inout) :: density(*)
            integer(c_int32_t) :: status
        end function

        function c_potential_slice(handle, axis, index, time, potential, n_values) &
                bind(C, name="atomgpu_tdse_potential_slice") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: axis
            integer(c_int64_t), value :: index, n_values
            real(c_double), value :: time
            real(c_double), intent(inout) :: potential(*)
            integer(c_int32_t) :: status
        end function

        function c_state(handle, time, steps, rho0, implicit_rings) bind(C, name="atomgpu_tdse_state") result(status)
            import :: c_int32_t, c_int64_t, c_double, c_ptr
            type(c_ptr), value :: handle
            real(c_double), intent(inout) :: time, rho0
            integer(c_int64_t), intent(inout) :: steps, implicit_rings
            integer(c_int32_t) :: status
        end function

        function c_set_communicator(handle, exchange, sum, user_data) bind(C, name="atomgpu_tdse_set_communicator") &
                result(status)
            import :: c_int32_t, c_ptr, c_funptr
            type(c_ptr), value :: handle, user_data
            type(c_funptr), value :: exchange, sum
            integer(c_int32_t) :: status
        end function
    end interface

contains

    ! The owned points of the handle's grid.
    function owned(tdse) result(n)
        type(atomgpu_tdse_t), intent(in) :: tdse
        integer(c_int64_t) :: n
        n = tdse%grid%n2 * tdse%grid%n3 * tdse%grid%nx_local
    end function

    ! Checks that a 3D array has the shape (n3, n2, nx_local) of the handle's owned points.
    subroutine check_shape(tdse, shape_got, position, name, status)
        type(atomgpu_tdse_t), intent(in) :: tdse
        integer, intent(in) :: shape_got(3), position
        character(len=*), intent(in) :: name
        integer(c_int32_t), intent(inout) :: status
        integer(c_int64_t) :: expected(3)
        expected = [tdse%grid%n3, tdse%grid%n2, tdse%grid%nx_local]
        call reject(all(int(shape_got, c_int64_t) == expected), position, "argument `" // name // "`: has shape (" // &
            itoa(int(shape_got(1), c_int64_t)) // ", " // itoa(int(shape_got(2), c_int64_t)) // ", " // &
            itoa(int(shape_got(3), c_int64_t)) // "), expected (n3, n2, nx_local) = (" // itoa(expected(1)) // ", " // &
            itoa(expected(2)) // ", " // itoa(expected(3)) // ")", status)
    end subroutine

    ! Creates a propagator for grid's owned planes (no potential, no wavefunction yet), on
    ! params%n_devices devices by the one rule of README "Several GPUs", or, with device_ids (by
    ! keyword), on those GPUs by ordinal (0-based, distinct, in x order; params%n_devices unread).
    subroutine atomgpu_tdse_create(grid, params, tdse, stat, device_ids)
        type(atomgpu_tdse_grid_t), intent(in) :: grid
        type(atomgpu_tdse_params_t), intent(in) :: params
        type(atomgpu_tdse_t), intent(inout) :: tdse
        integer, intent(out), optional :: stat
        integer, intent(in), optional :: device_ids(:)
        integer(c_int32_t) :: status
        type(c_ptr) :: handle
        call enter()
        handle = c_null_ptr
        if (present(device_ids)) then
            status = c_create_on_device_list(grid, params, int(size(device_ids), c_int32_t), &
                int(device_ids, c_int32_t), handle)
        else
            status = c_create(grid, params, handle)
        end if
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            tdse%ptr = handle
            tdse%grid = grid
        end if
        call finish(status, stat, "atomgpu_tdse_create")
    end subroutine

    ! Destroys the propagator (a never-created one is a no-op).
    subroutine atomgpu_tdse_destroy(tdse, stat)
        type(atomgpu_tdse_t), intent(inout) :: tdse
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = c_destroy(tdse%ptr)
        if (status == int(ATOMGPU_OK, c_int32_t)) tdse%ptr = c_null_ptr
        call finish(status, stat, "atomgpu_tdse_destroy")
    end subroutine

    ! Makes U analytic: the ion (absent: none) along the trajectory times(n) [a.u.], positions(3, n)
    ! [bohr] (absent with no ion: none), and the surface (absent: none; surface_table(nx) [hartree]
    ! for ATOMGPU_TDSE_SURFACE_TABLE).
    subroutine atomgpu_tdse_set_potential(tdse, ion, surface, surface_table, times, positions, stat)
        type(atomgpu_tdse_t), intent(in) :: tdse
        type(atomgpu_tdse_ion_t), intent(in), optional, target :: ion
        type(atomgpu_tdse_surface_t), intent(in), optional, target :: surface
        real(c_double), intent(in), optional, target, contiguous :: surface_table(:), times(:), positions(:, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        type(c_ptr) :: p_ion, p_surface, p_table, p_times, p_positions
        integer(c_int64_t) :: n_times
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        p_ion = c_null_ptr
        p_surface = c_null_ptr
        p_table = c_null_ptr
        p_times = c_null_ptr
        p_positions = c_null_ptr
        n_times = 0
        if (present(ion)) p_ion = c_loc_ion(ion)
        if (present(surface)) p_surface = c_loc_surface(surface)
        if (present(surface_table)) then
            call reject(size(surface_table, kind=c_int64_t) == tdse%grid%nx, 4, size_message("surface_table", &
                size(surface_table, kind=c_int64_t), "elements", tdse%grid%nx, "one per x plane of the grid"), status)
            if (size(surface_table) > 0) p_table = c_loc_real(surface_table)
        end if
        call reject(present(times) .eqv. present(positions), 6, &
            "argument `times`: times and positions come together", status)
        if (present(times) .and. present(positions)) then
            n_times = size(times, kind=c_int64_t)
            call reject(size(positions, 1) == 3 .and. size(positions, 2, kind=c_int64_t) == n_times, 7, &
                size_message("positions", size(positions, kind=c_int64_t), "elements", 3 * n_times, &
                "positions(3, size(times))"), status)
            if (n_times > 0) then
                p_times = c_loc_real(times)
                p_positions = c_loc_real2(positions)
            end if
        end if
        if (status == int(ATOMGPU_OK, c_int32_t)) &
            status = c_set_potential(tdse%ptr, p_ion, p_surface, p_table, n_times, p_times, p_positions)
        call finish(status, stat, "atomgpu_tdse_set_potential")
    end subroutine

    ! Makes U the caller's array values(n3, n2, nx_local) [hartree] until replaced.
    subroutine atomgpu_tdse_set_potential_array(tdse, values, stat)
        type(atomgpu_tdse_t), intent(in) :: tdse
        real(c_double), intent(in), contiguous :: values(:, :, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_shape(tdse, shape(values), 2, "values", status)
        if (status == int(ATOMGPU_OK, c_int32_t)) status = c_set_potential_array(tdse%ptr, values, owned(tdse))
        call finish(status, stat, "atomgpu_tdse_set_potential_array")
    end subroutine

    ! Sets psi^n = psi(n3, n2, nx_local) at time `time` [a.u.].
    subroutine atomgpu_tdse_set_wavefunction(tdse, psi, time, stat)
        type(atomgpu_tdse_t), intent(in) :: tdse
        complex(c_double_complex), intent(in), contiguous :: psi(:, :, :)
        real(c_double), intent(in) :: time
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_shape(tdse, shape(psi), 2, "psi", status)
        if (status == int(ATOMGPU_OK, c_int32_t)) status = c_set_wavefunction(tdse%ptr, psi, owned(tdse), time)
        call finish(status, stat, "atomgpu_tdse_set_wavefunction")
    end subroutine

    ! Copies psi^n into psi(n3, n2, nx_local).
    subroutine atomgpu_tdse_get_wavefunction(tdse, psi, stat)
        type(atomgpu_tdse_t), intent(in) :: tdse
        complex(c_double_complex), intent(inout), contiguous :: psi(:, :, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_shape(tdse, shape(psi), 2, "psi", status)
        if (status == int(ATOMGPU_OK, c_int32_t)) status = c_get_wavefunction(tdse%ptr, psi, owned(tdse))
        call finish(status, stat, "atomgpu_tdse_get_wavefunction")
    end subroutine

    ! Stores the reference state phi(n3, n2, nx_local) of atomgpu_tdse_overlap.
    subroutine atomgpu_tdse_set_reference(tdse, phi, stat)
        type(atomgpu_tdse_t), intent(in) :: tdse
        complex(c_double_complex), intent(in), contiguous :: phi(:, :, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_shape(tdse, shape(phi), 2, "phi", status)
        if (status == int(ATOMGPU_OK, c_int32_t)) status = c_set_reference(tdse%ptr, phi, owned(tdse))
        call finish(status, stat, "atomgpu_tdse_set_reference")
    end subroutine

    ! Advances n_steps time steps (the norm watchdog stops an unstable run: ATOMGPU_ERR_NOT_CONVERGED).
    ! The progress callback or time limit (atomgpu_set_progress, atomgpu_set_time_limit) may stop it
    ! between two steps (ATOMGPU_ERR_CANCELLED): the handle then holds the last completed step
    ! (atomgpu_tdse_state gives the count) and a further call continues the run.
    subroutine atomgpu_tdse_step(tdse, n_steps, stat)
        type(atomgpu_tdse_t), intent(in) :: tdse
        integer, intent(in) :: n_steps
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = c_step(tdse%ptr, int(n_steps, c_int64_t))
        call finish(status, stat, "atomgpu_tdse_step")
    end subroutine

    ! Imaginary-time relaxation: at most max_steps steps until the energy changes by less than
    ! energy_tolerance [hartree] between checks; energy [hartree], steps taken, converged. Stopped
    ! by the progress callback or time limit (ATOMGPU_ERR_CANCELLED), it leaves the outputs as they
    ! were and the handle with the normalised iterate of its last completed step.
    subroutine atomgpu_tdse_relax(tdse, max_steps, energy_tolerance, energy, steps, converged, stat)
        type(atomgpu_tdse_t), intent(in) :: tdse
        integer, intent(in) :: max_steps
        real(c_double), intent(in) :: energy_tolerance
        real(c_double), intent(inout) :: energy
        integer, intent(inout) :: steps
        logical, intent(inout) :: converged
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status, c_converged
        integer(c_int64_t) :: c_steps
        real(c_double) :: e
        call enter()
        status = c_relax(tdse%ptr, int(max_steps, c_int64_t), energy_tolerance, e, c_steps, c_converged)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            energy = e
            steps = int(c_steps)
            converged = c_converged == 1
        end if
        call finish(status, stat, "atomgpu_tdse_relax")
    end subroutine

    ! <psi|psi> over all ranks.
    subroutine atomgpu_tdse_norm(tdse, norm, stat)
        type(atomgpu_tdse_t), intent(in) :: tdse
        real(c_double), intent(inout) :: norm
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        real(c_double) :: value
        call enter()
        status = c_norm(tdse%ptr, value)
        if (status == int(ATOMGPU_OK, c_int32_t)) norm = value
        call finish(status, stat, "atomgpu_tdse_norm")
    end subroutine

    ! <psi|H|psi>/<psi|psi> [hartree] over all ranks.
    subroutine atomgpu_tdse_energy(tdse, energy, stat)
        type(atomgpu_tdse_t), intent(in) :: tdse
        real(c_double), intent(inout) :: energy
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        real(c_double) :: value
        call enter()
        status = c_energy(tdse%ptr, value)
        if (status == int(ATOMGPU_OK, c_int32_t)) energy = value
        call finish(status, stat, "atomgpu_tdse_energy")
    end subroutine

    ! <phi|psi> with the reference state (the survival amplitude when phi = psi(0)).
    subroutine atomgpu_tdse_overlap(tdse, overlap, stat)
        type(atomgpu_tdse_t), intent(in) :: tdse
        complex(c_double_complex), intent(inout) :: overlap
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        complex(c_double_complex) :: value
        call enter()
        status = c_overlap(tdse%ptr, value)
        if (status == int(ATOMGPU_OK, c_int32_t)) overlap = value
        call finish(status, stat, "atomgpu_tdse_overlap")
    end subroutine

    ! The probability within `radius` [bohr] of the ion's position at the current time.
    subroutine atomgpu_tdse_population(tdse, radius, population, stat)
        type(atomgpu_tdse_t), intent(in) :: tdse
        real(c_double), intent(in) :: radius
        real(c_double), intent(inout) :: population
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        real(c_double) :: value
        call enter()
        status = c_population(tdse%ptr, radius, value)
        if (status == int(ATOMGPU_OK, c_int32_t)) population = value
        call finish(status, stat, "atomgpu_tdse_population")
    end subroutine

    ! The shape of a density slice along `axis` (the constants' comments above).
    function atomgpu_tdse_slice_shape(tdse, axis) result(dims)
        type(atomgpu_tdse_t), intent(in) :: tdse
        integer, intent(in) :: axis
        integer :: dims(2)
        logical :: cylindrical
        cylindrical = tdse%grid%geometry == ATOMGPU_TDSE_CYLINDRICAL
        if (axis == ATOMGPU_TDSE_SLICE_X) then
            dims = int([tdse%grid%n3, tdse%grid%n2])
        else if (axis == ATOMGPU_TDSE_SLICE_SECOND .and. cylindrical) then
            dims = int([2 * tdse%grid%n2, tdse%grid%nx_local])
        else if (axis == ATOMGPU_TDSE_SLICE_THIRD .and. .not. cylindrical) then
            dims = int([tdse%grid%n2, tdse%grid%nx_local])
        else
            dims = int([tdse%grid%n3, tdse%grid%nx_local])
        end if
    end function

    ! Checks that a 2D array has the shape atomgpu_tdse_slice_shape(tdse, axis).
    subroutine check_slice_shape(tdse, axis, shape_got, position, name, status)
        type(atomgpu_tdse_t), intent(in) :: tdse
        integer, intent(in) :: axis, shape_got(2), position
        character(len=*), intent(in) :: name
        integer(c_int32_t), intent(inout) :: status
        integer :: dims(2)
        dims = atomgpu_tdse_slice_shape(tdse, axis)
        call reject(all(shape_got == dims), position, size_message(name, int(shape_got(1), c_int64_t) * shape_got(2), &
            "elements", int(dims(1), c_int64_t) * dims(2), "atomgpu_tdse_slice_shape(tdse, axis)"), status)
    end subroutine

    ! |psi|^2 [bohr^-3] on a slice: `index` is 1-based (a global x plane owned here, or an index of
    ! the second or third coordinate); density has atomgpu_tdse_slice_shape(tdse, axis).
    subroutine atomgpu_tdse_density_slice(tdse, axis, index, density, stat)
        type(atomgpu_tdse_t), intent(in) :: tdse
        integer, intent(in) :: axis, index
        real(c_double), intent(inout), contiguous :: density(:, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_slice_shape(tdse, axis, shape(density), 4, "density", status)
        if (status == int(ATOMGPU_OK, c_int32_t)) status = c_density_slice(tdse%ptr, int(axis, c_int32_t), &
            int(index, c_int64_t) - 1, density, size(density, kind=c_int64_t))
        call finish(status, stat, "atomgpu_tdse_density_slice")
    end subroutine

    ! The potential U [hartree] the stages use at `time` [a.u.] on a slice (the absorber's -iW
    ! not included): `index` and the shape as for atomgpu_tdse_density_slice (1-based index,
    ! shape atomgpu_tdse_slice_shape(tdse, axis)). Needs no wavefunction; a value that is not
    ! finite (a bare Coulomb ion exactly on a grid point) is ATOMGPU_ERR_NOT_FINITE.
    subroutine atomgpu_tdse_potential_slice(tdse, axis, index, time, potential, stat)
        type(atomgpu_tdse_t), intent(in) :: tdse
        integer, intent(in) :: axis, index
        real(c_double), intent(in) :: time
        real(c_double), intent(inout), contiguous :: potential(:, :)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = int(ATOMGPU_OK, c_int32_t)
        call check_slice_shape(tdse, axis, shape(potential), 5, "potential", status)
        if (status == int(ATOMGPU_OK, c_int32_t)) status = c_potential_slice(tdse%ptr, int(axis, c_int32_t), &
            int(index, c_int64_t) - 1, time, potential, size(potential, kind=c_int64_t))
        call finish(status, stat, "atomgpu_tdse_potential_slice")
    end subroutine

    ! Time of psi^n [a.u.], steps since it was set, the rho0 in use [bohr] and the implicit rings.
    subroutine atomgpu_tdse_state(tdse, time, steps, rho0, implicit_rings, stat)
        type(atomgpu_tdse_t), intent(in) :: tdse
        real(c_double), intent(inout) :: time, rho0
        integer, intent(inout) :: steps, implicit_rings
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        real(c_double) :: t, r
        integer(c_int64_t) :: s, rings
        call enter()
        status = c_state(tdse%ptr, t, s, r, rings)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            time = t
            steps = int(s)
            rho0 = r
            implicit_rings = int(rings)
        end if
        call finish(status, stat, "atomgpu_tdse_state")
    end subroutine

    ! Connects a slab's handle to the other ranks: exchange and sum are c_funloc of bind(C)
    ! functions with the C signatures atomgpu_tdse_exchange_callback and atomgpu_tdse_sum_callback;
    ! user_data is passed to them unchanged.
    subroutine atomgpu_tdse_set_communicator(tdse, exchange, sum, user_data, stat)
        type(atomgpu_tdse_t), intent(in) :: tdse
        type(c_funptr), intent(in) :: exchange, sum
        type(c_ptr), intent(in) :: user_data
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = c_set_communicator(tdse%ptr, exchange, sum, user_data)
        call finish(status, stat, "atomgpu_tdse_set_communicator")
    end subroutine

    ! C addresses of optional arguments (c_loc needs a target of interoperable type).
    function c_loc_ion(x) result(p)
        use, intrinsic :: iso_c_binding, only: c_loc
        type(atomgpu_tdse_ion_t), intent(in), target :: x
        type(c_ptr) :: p
        p = c_loc(x)
    end function

    function c_loc_surface(x) result(p)
        use, intrinsic :: iso_c_binding, only: c_loc
        type(atomgpu_tdse_surface_t), intent(in), target :: x
        type(c_ptr) :: p
        p = c_loc(x)
    end function

    function c_loc_real(x) result(p)
        use, intrinsic :: iso_c_binding, only: c_loc
        real(c_double), intent(in), target, contiguous :: x(:)
        type(c_ptr) :: p
        p = c_loc(x(1))
    end function

    function c_loc_real2(x) result(p)
        use, intrinsic :: iso_c_binding, only: c_loc
        real(c_double), intent(in), target, contiguous :: x(:, :)
        type(c_ptr) :: p
        p = c_loc(x(1, 1))
    end function

    ! The devices a TDSE propagator uses: ordinals(n) receives their GPU ordinals (0-based, as CUDA numbers
    ! them; the handle's own first), or -1 for each CPU engine (README "Several GPUs").
    subroutine atomgpu_tdse_devices(h, ordinals, stat)
        type(atomgpu_tdse_t), intent(in) :: h
        integer, allocatable, intent(out) :: ordinals(:)
        integer, intent(out), optional :: stat
        call devices_of(h%ptr, ordinals, stat)
    end subroutine

end module atomgpu_tdse
