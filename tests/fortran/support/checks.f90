! checks.f90: module atomgpu_test_checks, the helpers the Fortran test programs in
! tests/fortran share: the check counters, check_rel, check, succeeded (a stat= call's outcome),
! the common part of an expect_bad (status, argument position, message), elapsed_seconds and the
! CODATA constants they use. Each test program is
! its own executable, so the counters are that program's own.
!
! Build: compiled with fortran/atomgpu.f90 and each test program, e.g. (repository root)
!   gfortran -std=f2018 -Wall -fcheck=all fortran/atomgpu.f90 tests/fortran/support/checks.f90 \
!       tests/fortran/test_rates.f90 -o test_rates -Ltarget/release -latomgpu
module atomgpu_test_checks
    use, intrinsic :: iso_c_binding, only: c_double, c_int64_t
    use atomgpu, only: ATOMGPU_OK, ATOMGPU_ERR_INVALID_ARGUMENT, atomgpu_last_error_arg, atomgpu_last_error_message
    implicit none
    private
    public :: pi, hc, mec2, checks, failures, check_rel, check, succeeded, invalid_argument_reported, elapsed_seconds
    public :: check_abs, expect_invalid

    integer, parameter :: dp = c_double
    ! CODATA 2018, in eV and cm.
    real(dp), parameter :: pi = 3.14159265358979323846_dp
    real(dp), parameter :: hc = 1.2398419843320026e-4_dp   ! h c [eV cm]
    real(dp), parameter :: mec2 = 510998.95_dp             ! m_e c^2 [eV]

    integer :: checks = 0, failures = 0

contains

    ! Seconds since `since`, a count of system_clock with 64-bit integers.
    real(dp) function elapsed_seconds(since)
        integer(c_int64_t), intent(in) :: since
        integer(c_int64_t) :: now, rate
        call system_clock(now, rate)
        elapsed_seconds = real(now - since, dp) / real(rate, dp)
    end function

    ! After a call with stat=: true when it succeeded, else counts a failure and reports the
    ! library's message.
    logical function succeeded(what, stat)
        character(len=*), intent(in) :: what
        integer, intent(in) :: stat
        checks = checks + 1
        succeeded = stat == ATOMGPU_OK
        if (.not. succeeded) then
            failures = failures + 1
            print '(a, a, a, i0, a, a)', "FAIL ", what, ": stat = ", stat, ": ", atomgpu_last_error_message()
        end if
    end function

    subroutine check_rel(what, got, want, tol)
        character(len=*), intent(in) :: what
        real(dp), intent(in) :: got, want, tol
        real(dp) :: err
        checks = checks + 1
        err = abs(got - want) / abs(want)
        if (.not. (err <= tol)) then
            failures = failures + 1
            print '(a, a, a, es24.16, a, es24.16, a, es10.3)', "FAIL ", what, ": got ", got, ", want ", want, &
                ", relative error ", err
        end if
    end subroutine

    subroutine check(what, ok)
        character(len=*), intent(in) :: what
        logical, intent(in) :: ok
        checks = checks + 1
        if (.not. ok) then
            failures = failures + 1
            print '(a, a)', "FAIL ", what
        end if
    end subroutine

    ! The part of every expect_bad: `stat` is ATOMGPU_ERR_INVALID_ARGUMENT, atomgpu_last_error_arg()
    ! is `position`, and the last error message names the C parameter `name` in backquotes (and
    ! holds `fragment` when present). Prints one FAIL line per miss; true when all hold. Counts
    ! nothing: the caller adds its own checks and counts the call once.
    logical function invalid_argument_reported(what, stat, position, name, fragment) result(ok)
        character(len=*), intent(in) :: what, name
        integer, intent(in) :: stat, position
        character(len=*), intent(in), optional :: fragment
        character(len=:), allocatable :: message
        ok = .true.
        message = atomgpu_last_error_message()
        if (stat /= ATOMGPU_ERR_INVALID_ARGUMENT) then
            print '(a, a, a, i0)', "FAIL ", what, ": stat = ", stat
            ok = .false.
        end if
        if (atomgpu_last_error_arg() /= position) then
            print '(a, a, a, i0, a, i0, a, a)', "FAIL ", what, ": atomgpu_last_error_arg() = ", &
                atomgpu_last_error_arg(), ", want ", position, ": ", message
            ok = .false.
        end if
        if (index(message, "`" // name // "`") == 0) then
            print '(a, a, a, a, a, a)', "FAIL ", what, ": message '", message, "' does not name ", name
            ok = .false.
        end if
        if (present(fragment)) then
            if (index(message, fragment) == 0) then
                print '(a, a, a, a, a, a)', "FAIL ", what, ": message '", message, "' lacks ", fragment
                ok = .false.
            end if
        end if
    end function

    subroutine check_abs(what, got, want, tol)
        character(len=*), intent(in) :: what
        real(dp), intent(in) :: got, want, tol
        checks = checks + 1
        if (.not. (abs(got - want) <= tol)) then
            failures = failures + 1
            print '(a, a, a, es24.16, a, es24.16)', "FAIL ", what, ": got ", got, ", want ", want
        end if
    end subroutine

    ! Counts one check: stat is ATOMGPU_ERR_INVALID_ARGUMENT at `position` naming `name`, and
    ! `untouched` (the caller's test that no output was written) holds.
    subroutine expect_invalid(what, stat, position, name, untouched)
        character(len=*), intent(in) :: what, name
        integer, intent(in) :: stat, position
        logical, intent(in) :: untouched
        logical :: ok
        ok = invalid_argument_reported(what, stat, position, name)
        checks = checks + 1
        if (.not. untouched) then
            print '(a, a, a)', "FAIL ", what, ": an output was written on error"
            ok = .false.
        end if
        if (.not. ok) failures = failures + 1
    end subroutine

end module atomgpu_test_checks
