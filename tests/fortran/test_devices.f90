! test_devices.f90: the device sets of README "Several GPUs" through module atomgpu, on whatever
! backend is in use. The reference is the rule as the README states it:
!   (a) atomgpu_resolve_devices(n) gives n devices: on the CPU backend n CPU engines (-1 each), on
!       GPUs (r n + k) mod visible from the node-local rank r (0 without MPI; ATOMGPU_DEVICE
!       unset), k = 0 .. n-1, as far as the process sees GPUs;
!   (b) a line-strength handle, a Sturmian basis and a TDSE team made with n_devices= report that
!       set (atomgpu_handle_devices); made with device_ids= they report the list as given (on the
!       CPU backend: as many CPU engines);
!   (c) bad input through stat: n_devices and device_ids together (C position 5, `n_devices`), a
!       list naming one device twice (C position 6, `device_ids`).
!
! Build (from the repository root, after `cargo build --release`):
!   gfortran -std=f2018 -Wall -fcheck=all fortran/atomgpu.f90 tests/fortran/support/checks.f90 \
!       tests/fortran/test_devices.f90 -o test_devices -Ltarget/release -latomgpu -Wl,-rpath,$PWD/target/release
! Exit status 0 when every check passes (error stop 1 otherwise).
program test_devices
    use, intrinsic :: iso_c_binding, only: c_double
    use atomgpu
    use atomgpu_test_checks
    implicit none
    integer, parameter :: dp = c_double
    integer :: backend, visible, n, k, stat
    integer, allocatable :: set(:), got(:), list(:)
    real(dp) :: dipole(3, 3, 3)
    type(atomgpu_linestrength_t) :: lines
    type(atomgpu_sturmian_basis) :: basis
    type(atomgpu_tdse_t) :: tdse
    type(atomgpu_tdse_grid_t) :: grid
    type(atomgpu_tdse_params_t) :: params

    call atomgpu_device_info(backend)
    call atomgpu_device_count(visible)
    dipole = reshape([(0.01_dp * k, k = 1, 27)], shape(dipole))
    grid%geometry = ATOMGPU_TDSE_CYLINDRICAL
    grid%nx = 12
    grid%n2 = 6
    grid%n3 = 4
    grid%dx = 0.4_dp
    grid%d2 = 0.4_dp
    grid%x0 = -2.2_dp
    grid%nx_local = 12

    do n = 1, 2
        if (backend == ATOMGPU_BACKEND_CUDA .and. n > visible) exit
        call atomgpu_resolve_devices(n, set)
        call check("resolve gives n devices", size(set) == n)
        do k = 1, size(set)
            if (backend == ATOMGPU_BACKEND_CUDA) then
                call check("the set follows the rule", set(k) == mod(k - 1, visible))
            else
                call check("CPU engines", set(k) == -1)
            end if
        end do
        params%n_devices = n
        call every_family("by count", set, n=n)
    end do

    ! Explicit lists: reversed on GPUs, any distinct ordinals on the CPU (then CPU engines).
    if (backend == ATOMGPU_BACKEND_CUDA .and. visible >= 2) then
        list = [1, 0]
        set = list
    else if (backend == ATOMGPU_BACKEND_CUDA) then
        list = [0]
        set = list
    else
        list = [4, 0, 2]
        set = [-1, -1, -1]
    end if
    call every_family("by list", set, ids=list)

    call atomgpu_linestrength_create(lines, dipole, stat=stat, n_devices=1, device_ids=[0])
    call check("n_devices and device_ids together", invalid_argument_reported("both", stat, 5, "n_devices"))
    call atomgpu_linestrength_create(lines, dipole, stat=stat, device_ids=[0, 0])
    call check("a repeated device", invalid_argument_reported("twice", stat, 6, "device_ids", "twice"))

    print '(a, i0, a, i0, a)', "test_devices: ", checks - failures, " of ", checks, " checks passed"
    if (failures > 0) error stop 1
contains
    ! A handle of each family on the devices n (count, the TDSE's from params) or ids (list):
    ! each must report `want`.
    subroutine every_family(how, want, n, ids)
        character(len=*), intent(in) :: how
        integer, intent(in) :: want(:)
        integer, intent(in), optional :: n
        integer, intent(in), optional :: ids(:)
        call atomgpu_linestrength_create(lines, dipole, n_devices=n, device_ids=ids)
        call atomgpu_handle_devices(lines, got)
        call check("line strengths " // how, same(got, want))
        call atomgpu_linestrength_destroy(lines)
        call atomgpu_sturmian_create(basis, 10.0_dp, 16, 3, n_devices=n, device_ids=ids)
        call atomgpu_handle_devices(basis, got)
        call check("Sturmian basis " // how, same(got, want))
        call atomgpu_sturmian_destroy(basis)
        call atomgpu_tdse_create(grid, params, tdse, device_ids=ids)
        call atomgpu_handle_devices(tdse, got)
        call check("TDSE team " // how, same(got, want))
        call atomgpu_tdse_destroy(tdse)
    end subroutine

    logical function same(a, b)
        integer, intent(in) :: a(:), b(:)
        same = size(a) == size(b)
        if (same) same = all(a == b)
    end function
end program test_devices
