! atomgpu_core: the part of the Fortran interface every family shares (status codes, version,
! backend choice, error reporting, progress reports and time limits) and the helpers the family
! modules use. Programs `use atomgpu` (fortran/atomgpu.f90), which re-exports what is meant for
! them; this file is compiled as part of it (atomgpu.f90 INCLUDEs it).
!
! Conventions of every wrapper (see include/atomgpu.h for the C interface they call):
! - real arguments are real(c_double) (= double precision with gfortran); array sizes are taken
!   from the arrays (assumed shape, contiguous) and checked for consistency;
! - every wrapper takes an optional `integer, intent(out) :: stat`. With stat present, a failure
!   returns its status code (ATOMGPU_OK = 0 on success) and leaves the outputs untouched; the
!   detail comes from atomgpu_last_error_message() and atomgpu_last_error_arg() (the 1-based
!   position of the offending argument in the C function, as LAPACK's INFO = -i). With stat
!   absent, a failure stops the program (error stop) with the library's message, as an intrinsic
!   statement without stat= does;
! - the first call of any wrapper checks that the library loaded has the ABI version this module
!   was written for, and stops with a message when it differs;
! - state the library keeps (a CR model, a line-strength engine) is a derived type holding an
!   opaque handle, made by its _create wrapper and released by its _destroy wrapper (no
!   finalizer). The library checks every handle: one destroyed (through a copy of the variable,
!   say) or of another family is reported as ATOMGPU_ERR_INVALID_ARGUMENT, never a crash.
module atomgpu_core
    use, intrinsic :: iso_c_binding, only: c_int32_t, c_int64_t, c_size_t, c_double, c_char, &
        c_ptr, c_null_ptr, c_null_char, c_funptr, c_null_funptr, c_funloc, c_associated, c_f_pointer, c_loc
    implicit none
    private

    ! Status codes (int32_t in C).
    integer, parameter, public :: ATOMGPU_OK = 0
    integer, parameter, public :: ATOMGPU_ERR_INVALID_ARGUMENT = 1
    integer, parameter, public :: ATOMGPU_ERR_NO_DEVICE = 2
    integer, parameter, public :: ATOMGPU_ERR_OUT_OF_MEMORY = 3          ! host or device
    integer, parameter, public :: ATOMGPU_ERR_DEVICE_OUT_OF_MEMORY = 3   ! its former name
    integer, parameter, public :: ATOMGPU_ERR_CUDA = 4
    integer, parameter, public :: ATOMGPU_ERR_NOT_CONVERGED = 5
    integer, parameter, public :: ATOMGPU_ERR_INTERNAL = 6
    integer, parameter, public :: ATOMGPU_ERR_NOT_FINITE = 7            ! a result overflowed
    integer, parameter, public :: ATOMGPU_ERR_CANCELLED = 8             ! progress callback or time limit
    integer, parameter, public :: ATOMGPU_ERR_IO = 9                    ! a file could not be written

    ! Backend choices (atomgpu_set_backend) and backends in use (atomgpu_device_info).
    integer, parameter, public :: ATOMGPU_BACKEND_AUTO = 0
    integer, parameter, public :: ATOMGPU_BACKEND_CPU = 1
    integer, parameter, public :: ATOMGPU_BACKEND_CUDA = 2

    ! The C ABI version this module was written for (checked against the library on first use).
    integer, parameter, public :: ATOMGPU_ABI_VERSION = 8

    public :: atomgpu_version, atomgpu_version_string, atomgpu_set_backend, atomgpu_device_info
    public :: atomgpu_last_error_message, atomgpu_last_error_arg, atomgpu_status_string
    public :: atomgpu_set_progress, atomgpu_set_time_limit, atomgpu_task_name, atomgpu_progress_callback
    public :: atomgpu_host_alloc, atomgpu_host_free
    public :: atomgpu_device_count, atomgpu_resolve_devices
    ! For the family modules (not re-exported by module atomgpu).
    public :: enter, reject, finish, itoa, size_message, field_size_message, address_of, devices_of

    ! The C address of a contiguous array (of its first element), or C NULL for a zero-size one
    ! (c_loc needs a nonzero size): for the array fields of the C structs the wrappers fill. The
    ! array must have the TARGET attribute in the caller, which passes it on as it is.
    interface address_of
        module procedure address_real, address_real2, address_i64
    end interface

    ! A progress callback for atomgpu_set_progress, to be written with bind(C):
    !     function my_progress(user_data, task, done, total) bind(C) result(stop)
    ! user_data: what was given to atomgpu_set_progress; task: the running C function's name
    ! (atomgpu_task_name(task) gives it as a string); done of total: its progress (steps,
    ! simulated seconds or lower states, as the call documents). Return 0 to go on, anything else
    ! to stop the call (it then fails with ATOMGPU_ERR_CANCELLED and writes nothing).
    abstract interface
        function atomgpu_progress_callback(user_data, task, done, total) bind(C) result(stop)
            import :: c_ptr, c_double, c_int32_t
            type(c_ptr), value :: user_data, task
            real(c_double), value :: done, total
            integer(c_int32_t) :: stop
        end function
    end interface

    ! Longest static string (status description, version) read from the library.
    integer, parameter :: max_static_string = 4096

    ! Whether the library's ABI version has been checked.
    logical, save :: abi_checked = .false.
    ! An error found by this module itself (inconsistent array sizes) before calling the library:
    ! its message and argument position, reported by atomgpu_last_error_message/_arg until the
    ! next wrapper call.
    character(len=:), allocatable, save :: module_error
    integer, save :: module_error_arg = 0
    !$omp threadprivate(module_error, module_error_arg)

    interface
        function c_atomgpu_status_string(status) bind(C, name="atomgpu_status_string") result(text)
            import :: c_int32_t, c_ptr
            integer(c_int32_t), value :: status
            type(c_ptr) :: text
        end function

        function c_atomgpu_last_error_message(buffer, capacity) &
                bind(C, name="atomgpu_last_error_message") result(length)
            import :: c_char, c_size_t, c_int64_t
            character(kind=c_char), intent(inout) :: buffer(*)
            integer(c_size_t), value :: capacity
            integer(c_int64_t) :: length
        end function

        function c_atomgpu_last_error_arg() bind(C, name="atomgpu_last_error_arg") result(position)
            import :: c_int32_t
            integer(c_int32_t) :: position
        end function

        function c_atomgpu_version(major, minor, patch) bind(C, name="atomgpu_version") result(status)
            import :: c_int32_t
            integer(c_int32_t), intent(out) :: major, minor, patch
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_version_string() bind(C, name="atomgpu_version_string") result(text)
            import :: c_ptr
            type(c_ptr) :: text
        end function

        function c_atomgpu_abi_version() bind(C, name="atomgpu_abi_version") result(version)
            import :: c_int32_t
            integer(c_int32_t) :: version
        end function

        function c_atomgpu_set_backend(backend) bind(C, name="atomgpu_set_backend") result(status)
            import :: c_int32_t
            integer(c_int32_t), value :: backend
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_device_info(backend, name, name_capacity, total_memory_bytes, &
                free_memory_bytes, cc_major, cc_minor) bind(C, name="atomgpu_device_info") result(status)
            import :: c_int32_t, c_int64_t, c_char
            integer(c_int32_t), intent(out) :: backend
            character(kind=c_char), intent(inout) :: name(*)
            integer(c_int64_t), value :: name_capacity
            integer(c_int64_t), intent(out) :: total_memory_bytes, free_memory_bytes
            integer(c_int32_t), intent(out) :: cc_major, cc_minor
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_device_count(n_visible) bind(C, name="atomgpu_device_count") result(status)
            import :: c_int32_t
            integer(c_int32_t), intent(out) :: n_visible
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_resolve_devices(n_devices, capacity, n_resolved, ordinals) &
                bind(C, name="atomgpu_resolve_devices") result(status)
            import :: c_int32_t
            integer(c_int32_t), value :: n_devices, capacity
            integer(c_int32_t), intent(out) :: n_resolved
            integer(c_int32_t), intent(out) :: ordinals(*)
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_handle_devices(handle, capacity, n_devices, ordinals) &
                bind(C, name="atomgpu_handle_devices") result(status)
            import :: c_int32_t, c_ptr
            type(c_ptr), value :: handle
            integer(c_int32_t), value :: capacity
            integer(c_int32_t), intent(out) :: n_devices
            integer(c_int32_t), intent(out) :: ordinals(*)
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_set_progress(callback, user_data, interval_s) bind(C, name="atomgpu_set_progress") &
                result(status)
            import :: c_funptr, c_ptr, c_double, c_int32_t
            type(c_funptr), value :: callback
            type(c_ptr), value :: user_data
            real(c_double), value :: interval_s
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_set_time_limit(seconds) bind(C, name="atomgpu_set_time_limit") result(status)
            import :: c_double, c_int32_t
            real(c_double), value :: seconds
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_host_alloc(bytes, ptr) bind(C, name="atomgpu_host_alloc") result(status)
            import :: c_int64_t, c_int32_t, c_ptr
            integer(c_int64_t), value :: bytes
            type(c_ptr), intent(inout) :: ptr
            integer(c_int32_t) :: status
        end function

        function c_atomgpu_host_free(ptr) bind(C, name="atomgpu_host_free") result(status)
            import :: c_int32_t, c_ptr
            type(c_ptr), value :: ptr
            integer(c_int32_t) :: status
        end function
    end interface

contains

    ! ============================================================================================
    ! Internal helpers.

    ! Run at the start of every wrapper: checks the library's ABI version once, and clears the
    ! module's own error.
    subroutine enter()
        integer(c_int32_t) :: loaded
        character(len=12) :: loaded_text, expected_text
        if (.not. abi_checked) then
            loaded = c_atomgpu_abi_version()
            if (loaded /= int(ATOMGPU_ABI_VERSION, c_int32_t)) then
                write (loaded_text, '(i0)') loaded
                write (expected_text, '(i0)') ATOMGPU_ABI_VERSION
                error stop "atomgpu: the library loaded has C ABI version " // trim(loaded_text) // &
                    ", this Fortran module (atomgpu.f90) was written for version " // &
                    trim(expected_text) // ": compile atomgpu.f90 from the same atomgpu release"
            end if
            abi_checked = .true.
        end if
        if (allocated(module_error)) deallocate (module_error)
        module_error_arg = 0
    end subroutine

    ! Records an inconsistency found by this module (argument at C position `position`) unless an
    ! earlier one was recorded; `status` becomes ATOMGPU_ERR_INVALID_ARGUMENT.
    subroutine reject(ok, position, message, status)
        logical, intent(in) :: ok
        integer, intent(in) :: position
        character(len=*), intent(in) :: message
        integer(c_int32_t), intent(inout) :: status
        if (ok .or. status /= int(ATOMGPU_OK, c_int32_t)) return
        module_error = message
        module_error_arg = position
        status = int(ATOMGPU_ERR_INVALID_ARGUMENT, c_int32_t)
    end subroutine

    ! Hands a status to the caller: into `stat` when present, else `error stop` on failure.
    subroutine finish(status, stat, procedure_name)
        integer(c_int32_t), intent(in) :: status
        integer, intent(out), optional :: stat
        character(len=*), intent(in) :: procedure_name
        character(len=:), allocatable :: message
        if (present(stat)) then
            stat = int(status)
        else if (status /= int(ATOMGPU_OK, c_int32_t)) then
            message = "atomgpu: " // procedure_name // " failed (" // &
                atomgpu_status_string(int(status)) // "): " // atomgpu_last_error_message()
            error stop message
        end if
    end subroutine

    ! A Fortran string from a NUL-terminated static C string (empty for NULL).
    function c_string(text) result(string)
        type(c_ptr), intent(in) :: text
        character(len=:), allocatable :: string
        character(kind=c_char), pointer :: chars(:)
        integer :: n, i
        if (.not. c_associated(text)) then
            string = ""
            return
        end if
        call c_f_pointer(text, chars, [max_static_string])
        n = 0
        do while (n < max_static_string)
            if (chars(n + 1) == c_null_char) exit
            n = n + 1
        end do
        allocate (character(len=n) :: string)
        do i = 1, n
            string(i:i) = chars(i)
        end do
    end function

    ! An integer as text.
    function itoa(value) result(text)
        integer(c_int64_t), intent(in) :: value
        character(len=:), allocatable :: text
        character(len=24) :: buffer
        write (buffer, '(i0)') value
        text = trim(buffer)
    end function

    ! Shape check message: "<name> has <got> <what>, expected <expected> (<why>)".
    function size_message(name, got, what, expected, why) result(message)
        character(len=*), intent(in) :: name, what, why
        integer(c_int64_t), intent(in) :: got, expected
        character(len=:), allocatable :: message
        message = "argument `" // name // "`: has " // itoa(got) // " " // what // ", expected " // &
            itoa(expected) // " (" // why // ")"
    end function

    ! size_message for an array that fills field `field` of the C struct argument `parameter`:
    ! "argument `desc`: field `charges` has 2 elements, expected 3 (why)".
    function field_size_message(parameter, field, got, what, expected, why) result(message)
        character(len=*), intent(in) :: parameter, field, what, why
        integer(c_int64_t), intent(in) :: got, expected
        character(len=:), allocatable :: message
        message = "argument `" // parameter // "`: field `" // field // "` has " // itoa(got) // " " // what // &
            ", expected " // itoa(expected) // " (" // why // ")"
    end function

    function address_real(x) result(p)
        real(c_double), intent(in), contiguous, target :: x(:)
        type(c_ptr) :: p
        p = c_null_ptr
        if (size(x) > 0) p = c_loc(x)
    end function

    function address_real2(x) result(p)
        real(c_double), intent(in), contiguous, target :: x(:, :)
        type(c_ptr) :: p
        p = c_null_ptr
        if (size(x) > 0) p = c_loc(x)
    end function

    function address_i64(x) result(p)
        integer(c_int64_t), intent(in), contiguous, target :: x(:)
        type(c_ptr) :: p
        p = c_null_ptr
        if (size(x) > 0) p = c_loc(x)
    end function

    ! ============================================================================================
    ! Library-wide procedures.

    ! The library version (major, minor, patch).
    subroutine atomgpu_version(major, minor, patch, stat)
        integer, intent(out) :: major, minor, patch
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status, a, b, c
        call enter()
        status = c_atomgpu_version(a, b, c)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            major = int(a)
            minor = int(b)
            patch = int(c)
        end if
        call finish(status, stat, "atomgpu_version")
    end subroutine

    ! The library version as text, e.g. "0.3.0".
    function atomgpu_version_string() result(version)
        character(len=:), allocatable :: version
        call enter()
        version = c_string(c_atomgpu_version_string())
    end function

    ! Chooses the backend for the rest of the process: ATOMGPU_BACKEND_AUTO, _CPU or _CUDA
    ! (overrides the ATOMGPU_BACKEND environment variable).
    subroutine atomgpu_set_backend(choice, stat)
        integer, intent(in) :: choice
        integer, intent(out), optional :: stat
        call enter()
        call finish(c_atomgpu_set_backend(int(choice, c_int32_t)), stat, "atomgpu_set_backend")
    end subroutine

    ! The backend calls run on now (ATOMGPU_BACKEND_CPU or ATOMGPU_BACKEND_CUDA), the device name,
    ! its total and free memory in bytes (0 on the CPU) and its compute capability (0.0 on the CPU).
    subroutine atomgpu_device_info(backend, name, total_bytes, free_bytes, cc_major, cc_minor, stat)
        integer, intent(out) :: backend
        character(len=:), allocatable, intent(out), optional :: name
        integer(c_int64_t), intent(out), optional :: total_bytes, free_bytes
        integer, intent(out), optional :: cc_major, cc_minor
        integer, intent(out), optional :: stat
        integer(c_int64_t), parameter :: capacity = 512
        character(kind=c_char) :: buffer(capacity)
        integer(c_int32_t) :: status, b, major, minor
        integer(c_int64_t) :: total, free
        integer :: n, i
        call enter()
        buffer = c_null_char
        status = c_atomgpu_device_info(b, buffer, capacity, total, free, major, minor)
        if (status == int(ATOMGPU_OK, c_int32_t)) then
            backend = int(b)
            if (present(name)) then
                n = 0
                do while (n < int(capacity))
                    if (buffer(n + 1) == c_null_char) exit
                    n = n + 1
                end do
                allocate (character(len=n) :: name)
                do i = 1, n
                    name(i:i) = buffer(i)
                end do
            end if
            if (present(total_bytes)) total_bytes = total
            if (present(free_bytes)) free_bytes = free
            if (present(cc_major)) cc_major = int(major)
            if (present(cc_minor)) cc_minor = int(minor)
        end if
        call finish(status, stat, "atomgpu_device_info")
    end subroutine

    ! The number of GPUs this process sees (0 without a driver or device), whatever the backend:
    ! the "visible" of the device rule (README "Several GPUs").
    subroutine atomgpu_device_count(n_visible, stat)
        integer, intent(out) :: n_visible
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status, n
        call enter()
        status = c_atomgpu_device_count(n)
        if (status == int(ATOMGPU_OK, c_int32_t)) n_visible = int(n)
        call finish(status, stat, "atomgpu_device_count")
    end subroutine

    ! The devices n_devices (in [1, 64]) resolve to for this process under the one rule (README
    ! "Several GPUs"), as the create calls with n_devices= take them: ordinals(n_devices) receives
    ! the GPU ordinals (0-based, as CUDA numbers them), or -1 for each CPU engine.
    subroutine atomgpu_resolve_devices(n_devices, ordinals, stat)
        integer, intent(in) :: n_devices
        integer, allocatable, intent(out) :: ordinals(:)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status, n, got(64)
        call enter()
        status = c_atomgpu_resolve_devices(int(n_devices, c_int32_t), 64_c_int32_t, n, got)
        if (status == int(ATOMGPU_OK, c_int32_t)) ordinals = int(got(1:n))
        call finish(status, stat, "atomgpu_resolve_devices")
    end subroutine

    ! For the family modules' atomgpu_handle_devices: the devices of the handle `ptr`.
    subroutine devices_of(ptr, ordinals, stat)
        type(c_ptr), intent(in) :: ptr
        integer, allocatable, intent(out) :: ordinals(:)
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status, n, got(64)
        call enter()
        status = c_atomgpu_handle_devices(ptr, 64_c_int32_t, n, got)
        if (status == int(ATOMGPU_OK, c_int32_t)) ordinals = int(got(1:n))
        call finish(status, stat, "atomgpu_handle_devices")
    end subroutine

    ! The calling thread's last error sentence (empty when the last call succeeded): it names the
    ! argument and the rule it broke (array elements are numbered from 0, as in C).
    function atomgpu_last_error_message() result(message)
        character(len=:), allocatable :: message
        character(kind=c_char), allocatable :: buffer(:)
        integer(c_int64_t) :: length
        integer :: i, n
        if (allocated(module_error)) then
            message = module_error
            return
        end if
        allocate (buffer(1))
        length = c_atomgpu_last_error_message(buffer, 1_c_size_t)
        deallocate (buffer)
        n = int(max(length, 0_c_int64_t))
        allocate (buffer(n + 1))
        length = c_atomgpu_last_error_message(buffer, int(n + 1, c_size_t))
        allocate (character(len=n) :: message)
        do i = 1, n
            message(i:i) = buffer(i)
        end do
    end function

    ! The 1-based position, in the C function, of the argument that made the calling thread's last
    ! call fail with ATOMGPU_ERR_INVALID_ARGUMENT (as LAPACK's INFO = -i); 0 otherwise.
    function atomgpu_last_error_arg() result(position)
        integer :: position
        if (allocated(module_error)) then
            position = module_error_arg
        else
            position = int(c_atomgpu_last_error_arg())
        end if
    end function

    ! A static description of a status code.
    function atomgpu_status_string(code) result(text)
        integer, intent(in) :: code
        character(len=:), allocatable :: text
        text = c_string(c_atomgpu_status_string(int(code, c_int32_t)))
    end function

    ! Sets (callback present) or removes (callback absent) the calling thread's progress callback
    ! for long calls (whole CR runs, line lists): callback(user_data, task, done, total) is called
    ! from this thread at most every interval_s seconds of wall clock (default 1; 0 = at every
    ! step) and once when the call ends; a nonzero result stops the call (ATOMGPU_ERR_CANCELLED).
    ! user_data (default c_null_ptr) is handed to the callback unchanged.
    subroutine atomgpu_set_progress(callback, interval_s, user_data, stat)
        procedure(atomgpu_progress_callback), optional :: callback
        real(c_double), intent(in), optional :: interval_s
        type(c_ptr), intent(in), optional :: user_data
        integer, intent(out), optional :: stat
        type(c_funptr) :: f
        type(c_ptr) :: data
        real(c_double) :: interval
        call enter()
        f = c_null_funptr
        if (present(callback)) f = c_funloc(callback)
        data = c_null_ptr
        if (present(user_data)) data = user_data
        interval = 1.0_c_double
        if (present(interval_s)) interval = interval_s
        call finish(c_atomgpu_set_progress(f, data, interval), stat, "atomgpu_set_progress")
    end subroutine

    ! Sets the calling thread's time limit for each long call, in seconds of wall clock (0: none,
    ! the default): a call that runs past it stops with ATOMGPU_ERR_CANCELLED and writes nothing.
    subroutine atomgpu_set_time_limit(seconds, stat)
        real(c_double), intent(in) :: seconds
        integer, intent(out), optional :: stat
        call enter()
        call finish(c_atomgpu_set_time_limit(seconds), stat, "atomgpu_set_time_limit")
    end subroutine

    ! Allocates `bytes` (>= 1) of host memory into ptr: page-locked (pinned) on the CUDA backend,
    ! so that large results (e.g. atomgpu_sturmian_hamiltonian) land at the bus's full rate;
    ! ordinary 64-byte aligned memory on the CPU. Contents undefined. Map it onto an array with
    ! c_f_pointer(ptr, h, [n, n]); release it with atomgpu_host_free, never deallocate.
    subroutine atomgpu_host_alloc(bytes, ptr, stat)
        integer(c_int64_t), intent(in) :: bytes
        type(c_ptr), intent(inout) :: ptr
        integer, intent(out), optional :: stat
        call enter()
        call finish(c_atomgpu_host_alloc(bytes, ptr), stat, "atomgpu_host_alloc")
    end subroutine

    ! Releases a buffer of atomgpu_host_alloc and sets ptr to c_null_ptr (a null ptr: nothing
    ! happens; a pointer not from atomgpu_host_alloc, or released already: refused).
    subroutine atomgpu_host_free(ptr, stat)
        type(c_ptr), intent(inout) :: ptr
        integer, intent(out), optional :: stat
        integer(c_int32_t) :: status
        call enter()
        status = c_atomgpu_host_free(ptr)
        if (status == int(ATOMGPU_OK, c_int32_t)) ptr = c_null_ptr
        call finish(status, stat, "atomgpu_host_free")
    end subroutine

    ! The name of the running call, from the `task` argument of a progress callback.
    function atomgpu_task_name(task) result(name)
        type(c_ptr), intent(in) :: task
        character(len=:), allocatable :: name
        name = c_string(task)
    end function
end module atomgpu_core
