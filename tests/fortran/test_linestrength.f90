! test_linestrength.f90: calls every line-strength wrapper of module atomgpu and checks the
! numbers against closed forms (the Fortran layer numbers v, CSR offsets, blocks and states
! from 1):
!   (a) a rigid diatomic (one vibrational function, permanent dipole mu along z, K = 0):
!       J = 1 <- 0: L = mu^2/3, A = A_coef mu^2 nu^3 / 3; every R-branch line
!       J''+1 <- J'': A = A_coef mu^2 nu^3 (J''+1)/(2J''+3), S = g_ns mu^2 (J''+1) and
!       I = I_coef S nu exp(-c2 E''/T)(1 - exp(-c2 nu/T))/Q; the Q and P partners
!       (nu = 0 and nu < 0) are filtered out; ExoMol IDs, block sizes, count_lines;
!   (b) Hoenl-London factors of a parallel band (transition dipole along z only, v = 1 -> 2):
!       lower state J'' = 4, K = 2 (tau = 0 and 1), upper blocks full Wang sets J' = 3, 4, 5 with
!       identity eigenvectors: (2J'+1)(2J''+1) sum_f a^2 / mu^2 = (J''^2-K^2)/J'' = 3.0 (P),
!       (2J''+1)K^2/(J''(J''+1)) = 1.8 (Q), ((J''+1)^2-K^2)/(J''+1) = 4.2 (R); half = amplitudes
!       (identity eigenvectors); the line list's S summed per branch gives the same factors;
!   (c) a symmetrised upper block (CSR unfolding with 1-based offsets, an empty row): the
!       half-linestrengths are dipole(1, v', z)/sqrt(3) up to one sign and the amplitudes are
!       T^T half;
!   (d) bad input through stat (K > J, a NaN temperature, 1-based indices out of range, shapes,
!       a handle never created, too small a capacity, ...): stat = ATOMGPU_ERR_INVALID_ARGUMENT,
!       the argument's position in the C function, its name in the message, untouched outputs;
!   (e) degenerate species (issue 13), a rigid symmetric top in C3v(M) with mu along z: the
!       K = 1 Wang pairs of J'' = 1 and J' = 2 as E levels (1-based components = tau + 1), K = 0
!       as A2 (J'' = 1) and A1 (J' = 2): S(E) = mu^2 ((J''+1)^2 - K^2)/(J''+1) = 1.5 mu^2 (the sum
!       over component pairs / ndeg'' = 2), the same with REDUCED, S(A2 -> A1) = 2 mu^2; the
!       component amplitudes a^2 = 1.5 mu^2 / 15 for opposite tau (mu_z flips tau from J'' to
!       J'' + 1), 0 otherwise; the species rule (gamma_pair, 1-based) drops E -> A1 and the counts
!       add up; write_exomol writes the kept lines; with two engines and host-held states the same;
!       a species whose component count is wrong is refused naming ndeg;
!   (f) degenerate blocks against the same blocks split by hand (tests/linestrength_degenerate.rs
!       does it in Rust, tests/c/test_linestrength.c through C): in Td(M), E (J'' = 1) into F2
!       (J' = 2) and F1 (J'' = 2) into A2 (J' = 1), full Wang sets over two vibrational
!       functions, a random dipole, random sparse unfoldings T_d (1-based stacked CSR) and random
!       levels; the reference is a second handle without a group holding one non-degenerate block
!       per component d (unfolding T_d alone, atomgpu_linestrength_add_block, the path (a)-(c)
!       check against closed forms): the component amplitudes and half-linestrengths in the
!       documented 1-based column order, S and A of the line list from TROVE's sum over the
!       component pairs / ndeg'' (REDUCED: d' = 1 only, no division), count_lines and counts;
!   (g) bad input to the species wrappers (set_group, add_block_species, block_ndeg, the shapes of
!       half and amplitudes for a degenerate batch, filters with 1-based species, write_exomol):
!       stat, position, name, untouched outputs; a file that cannot be written is ATOMGPU_ERR_IO.
!
! Build (from the repository root, after `cargo build --release`):
!   gfortran -std=f2018 -Wall -fcheck=all fortran/atomgpu.f90 tests/fortran/support/checks.f90 \
!       tests/fortran/test_linestrength.f90 -o test_linestrength -Ltarget/release -latomgpu \
!       -Wl,-rpath,$PWD/target/release
! Exit status 0 when every check passes (error stop 1 otherwise).
program test_linestrength
    use, intrinsic :: iso_c_binding, only: c_double, c_int64_t
    use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
    use atomgpu
    use atomgpu_test_checks
    implicit none

    integer, parameter :: dp = c_double, i8 = c_int64_t
    real(dp), parameter :: sentinel = -12345.0_dp
    ! TROVE's constants (src/linestrength/intensity.rs).
    ! 64 pi^4 1e-36/(3h), 8 pi^3 1e-36/(3hc) and hc/k with the exact CODATA 2018 h, c, k (the
    ! documented convention), evaluated with mpmath at 300 bits: 3.13618866338954369e-7,
    ! 4.16237896357627952e-19, 1.43877687750393380 cm K.
    real(dp), parameter :: a_coef = 3.1361886633895437e-7_dp, i_coef = 4.1623789635762795e-19_dp
    real(dp), parameter :: c2 = 1.4387768775039338_dp   ! hc/k [cm K]
    real(dp), parameter :: tol = 1e-12_dp

    ! Outputs of the bad-input calls (d): checked to stay untouched.
    integer :: bad_block
    integer(i8) :: bad_n_lines, bad_id, bad_np, bad_nc, bad_ns
    real(dp) :: bad_half(11, 2), bad_amp(11, 2), bad_amp_row(1, 2)
    integer(i8) :: bad_upper_id(4), bad_lower_id(4), bad_counts(5)
    real(dp) :: bad_a(4), bad_nu(4), bad_s(4), bad_i(4)
    integer :: stat
    integer(i8) :: clock_start
    integer(i8) :: rng_state = 20261124   ! the generator of (f)

    ! (f) A block of one species: its Wang functions, its unfoldings t(p, s, d) and its levels.
    type :: split_block_t
        integer :: j, gamma, ndeg, n_prim, n_sym
        real(dp) :: gns
        integer(i8), allocatable :: v(:)
        integer, allocatable :: k(:), tau(:)
        real(dp), allocatable :: t(:, :, :), vectors(:, :), energies(:)
    end type

    call system_clock(clock_start)
    call test_rigid_rotor()
    call test_hoenl_london()
    call test_unfolding()
    call test_bad_input()
    call test_degenerate(1, .false.)
    call test_degenerate(2, .true.)
    call test_split_by_hand()
    call test_species_bad_input()
    call test_streamed_default_integers()
    call test_trove_mode_and_moments()

    print '(a, i0, a, i0, a, f0.2, a)', "test_linestrength (Fortran): ", checks, " checks, ", failures, &
        " failures (", elapsed_seconds(clock_start), " s)"
    if (failures /= 0) error stop 1

contains

    ! Parameters with every filter open and every threshold 0.
    function open_params(temperature, q, zpe) result(p)
        real(dp), intent(in) :: temperature, q, zpe
        type(atomgpu_intensity_params_t) :: p
        p%temperature = temperature
        p%partition_function = q
        p%zpe = zpe
        p%freq_window = [0.0_dp, 1e6_dp]
        p%lower_energy = [-1e6_dp, 1e6_dp]
        p%upper_energy = [-1e6_dp, 1e6_dp]
        p%thresh_coeff = 0
        p%thresh_line = 0
        p%thresh_intens = 0
        p%batch = 3
    end function

    ! The full Wang set of J on vibrational function v: K = 0 (tau = mod(J, 2)), then K = 1..J
    ! with tau = 0, 1 (2J + 1 functions).
    subroutine wang_set(j, v, vv, kk, tt)
        integer, intent(in) :: j
        integer(i8), intent(in) :: v
        integer(i8), allocatable, intent(out) :: vv(:)
        integer, allocatable, intent(out) :: kk(:), tt(:)
        integer :: k, n
        allocate (vv(2 * j + 1), kk(2 * j + 1), tt(2 * j + 1))
        vv = v
        kk(1) = 0
        tt(1) = mod(j, 2)
        n = 1
        do k = 1, j
            kk(n + 1:n + 2) = k
            tt(n + 1:n + 2) = [0, 1]
            n = n + 2
        end do
    end subroutine

    ! The identity matrix of order n.
    function identity(n) result(m)
        integer, intent(in) :: n
        real(dp) :: m(n, n)
        integer :: i
        m = 0
        do i = 1, n
            m(i, i) = 1
        end do
    end function

    ! (a) Rigid diatomic: one vibrational function, blocks J = 0..j_max of one function each.
    ! (h) Streamed lower levels and default-kind (32-bit) index arrays: the rigid rotor of (a)
    ! registered with default-integer v, k, tau (the 32-bit specific of the generic add_block,
    ! arrays passed as they are), its J'' = 0..3 levels handed over as one batch with order keys
    ! -J'' (so the lines come from J'' = 3 down to 0) through the pending buffer; closed forms as
    ! in (a): one R line per J'', S = g_ns mu^2 (J''+1), A = c mu^2 nu^3 (J''+1)/(2J''+3).
    subroutine test_streamed_default_integers()
        integer, parameter :: j_max = 4
        real(dp), parameter :: mu = 1.3_dp, b_rot = 7.0_dp, zpe = 100.0_dp, gns = 3.0_dp, t = 500.0_dp
        type(atomgpu_linestrength_t) :: h
        type(atomgpu_intensity_params_t) :: p
        type(atomgpu_line_t) :: lines(3), all_lines(4)
        real(dp) :: dipole(1, 1, 3), e(0:j_max), q, vectors(1, 4), nu
        integer :: blocks(0:j_max), j, i
        integer(i8) :: pending, taken, counts(5), got
        dipole = 0
        dipole(1, 1, 3) = mu
        call atomgpu_linestrength_create(h, dipole, stat=stat)
        if (.not. succeeded("streamed: create", stat)) return
        q = 0
        do j = 0, j_max
            e(j) = zpe + b_rot * j * (j + 1)
            q = q + gns * (2 * j + 1) * exp(-c2 * (e(j) - zpe) / t)
            blocks(j) = -1
            call atomgpu_linestrength_add_block(h, j, gns, [1], [0], [mod(j, 2)], blocks(j), stat=stat)
            if (.not. succeeded("streamed: add_block with default integers", stat)) return
            call check("streamed: blocks numbered from 1", blocks(j) == j + 1)
            call atomgpu_linestrength_set_states(h, blocks(j), [e(j)], identity(1), stat)
            if (.not. succeeded("streamed: set_states", stat)) return
        end do
        ! A v out of range through the 32-bit form: refused at C's position of v (6).
        i = -1
        call atomgpu_linestrength_add_block(h, 1, gns, [2], [0], [1], i, stat=stat)
        call check("streamed: default-integer v out of range refused at v", &
            stat == ATOMGPU_ERR_INVALID_ARGUMENT .and. atomgpu_last_error_arg() == 6 .and. i == -1)
        p = open_params(t, q, zpe)
        vectors = 1
        call atomgpu_linestrength_lines_of_lower_batch(h, blocks(0:3), vectors, e(0:3), [(100_i8 + j, j = 0, 3)], &
            [(-int(j, i8), j = 0, 3)], p, counts=counts, stat=stat)
        if (.not. succeeded("streamed: lines_of_lower_batch", stat)) return
        call check("streamed: counts add up, 4 kept", counts(1) == sum(counts(2:5)) .and. counts(5) == 4)
        pending = -1
        call atomgpu_linestrength_lines_pending(h, pending, stat)
        if (succeeded("streamed: lines_pending", stat)) call check("streamed: 4 lines pending", pending == 4)
        got = 0
        do i = 1, 3
            taken = -1
            call atomgpu_linestrength_take_lines(h, lines, taken, stat)
            if (.not. succeeded("streamed: take_lines", stat)) return
            if (taken == 0) exit
            all_lines(got + 1:got + taken) = lines(1:taken)
            got = got + taken
        end do
        call check("streamed: 4 lines taken in 3 + 1", got == 4)
        if (got /= 4) return
        do i = 1, 4
            j = 4 - i
            nu = e(j + 1) - e(j)
            call check("streamed: lines by order key (J'' = 3 .. 0), 1-based labels", &
                all_lines(i)%lower_id == 100 + j .and. all_lines(i)%upper_id == j + 2 .and. &
                all_lines(i)%lower_block == j + 1 .and. all_lines(i)%upper_block == j + 2 .and. &
                all_lines(i)%upper_state == 1 .and. all_lines(i)%lower_level == j + 1)
            call check_rel("streamed: wavenumber", all_lines(i)%wavenumber, nu, tol)
            call check_rel("streamed: S = g_ns mu^2 (J''+1)", all_lines(i)%linestrength, gns * mu**2 * (j + 1), tol)
            call check_rel("streamed: A = c mu^2 nu^3 (J''+1)/(2J''+3)", all_lines(i)%einstein_a, &
                a_coef * mu**2 * nu**3 * (j + 1) / (2 * j + 3), tol)
        end do
        call atomgpu_linestrength_destroy(h, stat)
    end subroutine

    subroutine test_rigid_rotor()
        integer, parameter :: j_max = 6
        real(dp), parameter :: mu = 1.7_dp, b_rot = 10.0_dp, zpe = 500.0_dp, gns = 2.0_dp, t = 296.0_dp
        type(atomgpu_linestrength_t) :: h
        real(dp) :: dipole(1, 1, 3), amp(1, 1), half(1, 1), e(0:j_max), q, nu, s_want, i_want, e_low
        integer :: blocks(0:j_max), j
        integer(i8) :: np, nc, ns, id, n_lines, count
        integer(i8) :: upper_id(3), lower_id(3)
        real(dp) :: a(3), wn(3), s(3), inten(3)
        type(atomgpu_intensity_params_t) :: p
        character(len=24) :: tag

        dipole = 0
        dipole(1, 1, 3) = mu
        call atomgpu_linestrength_create(h, dipole, stat=stat)
        if (.not. succeeded("rigid rotor: create", stat)) return
        q = 0
        do j = 0, j_max
            e(j) = zpe + b_rot * j * (j + 1)
            q = q + gns * (2 * j + 1) * exp(-c2 * (e(j) - zpe) / t)
            blocks(j) = -1
            call atomgpu_linestrength_add_block(h, j, gns, [1_i8], [0], [mod(j, 2)], blocks(j), stat=stat)
            if (.not. succeeded("rigid rotor: add_block", stat)) return
            call check("rigid rotor: blocks numbered from 1", blocks(j) == j + 1)
            call atomgpu_linestrength_set_states(h, blocks(j), [e(j)], identity(1), stat)
            if (.not. succeeded("rigid rotor: set_states", stat)) return
        end do
        do j = 0, j_max
            np = -1
            nc = -1
            ns = -1
            call atomgpu_linestrength_block_size(h, blocks(j), np, nc, ns, stat)
            if (succeeded("rigid rotor: block_size", stat)) then
                call check("rigid rotor: block_size = (1, 1, 1)", np == 1 .and. nc == 1 .and. ns == 1)
            end if
            id = -1
            call atomgpu_linestrength_state_id(h, blocks(j), 1_i8, id, stat)
            if (succeeded("rigid rotor: state_id", stat)) call check("rigid rotor: ExoMol ID = J + 1", id == j + 1)
        end do

        ! J = 1 <- 0 through load_lower, half and amplitudes.
        call atomgpu_linestrength_load_lower(h, blocks(0), identity(1), 0.0_dp, stat)
        if (succeeded("rigid rotor: load_lower", stat)) then
            amp = sentinel
            half = sentinel
            call atomgpu_linestrength_amplitudes(h, blocks(1), 0.0_dp, amp, stat)
            if (succeeded("rigid rotor: amplitudes", stat)) then
                call check_rel("J=1<-0: L = mu^2/3", amp(1, 1)**2, mu**2 / 3, tol)
            end if
            call atomgpu_linestrength_half(h, blocks(1), 0.0_dp, half, stat)
            if (succeeded("rigid rotor: half", stat)) then
                call check_rel("J=1<-0: half = amplitude (identity vectors)", half(1, 1), amp(1, 1), tol)
            end if
        end if

        ! R-branch lines J''+1 <- J'' from the line list; the Q (nu = 0) and P (nu < 0) partners
        ! are filtered out.
        p = open_params(t, q, zpe)
        do j = 0, j_max - 1
            write (tag, '(a, i0, a, i0)') "R(", j, ") J'=", j + 1
            count = -1
            if (j == 0) then
                call atomgpu_linestrength_count_lines(h, blocks(0), [blocks(1)], p, count, stat)
            else
                call atomgpu_linestrength_count_lines(h, blocks(j), [blocks(j + 1), blocks(j), blocks(j - 1)], p, &
                    count, stat)
            end if
            if (.not. succeeded(trim(tag) // ": count_lines", stat)) cycle
            call check(trim(tag) // ": count_lines = 1", count == 1)
            n_lines = -1
            upper_id = -1
            a = sentinel
            if (j == 0) then
                call atomgpu_linestrength_line_list(h, blocks(0), [blocks(1)], p, n_lines, upper_id, lower_id, a, wn, &
                    s, inten, stat)
            else
                call atomgpu_linestrength_line_list(h, blocks(j), [blocks(j + 1), blocks(j), blocks(j - 1)], p, &
                    n_lines, upper_id, lower_id, a, wn, s, inten, stat)
            end if
            if (.not. succeeded(trim(tag) // ": line_list", stat)) cycle
            call check(trim(tag) // ": one line", n_lines == 1)
            call check(trim(tag) // ": entries past n_lines untouched", all(upper_id(2:) == -1) .and. all(a(2:) == sentinel))
            call check(trim(tag) // ": IDs", upper_id(1) == j + 2 .and. lower_id(1) == j + 1)
            nu = e(j + 1) - e(j)
            e_low = e(j) - zpe
            call check_rel(trim(tag) // ": wavenumber", wn(1), nu, tol)
            call check_rel(trim(tag) // ": A = c mu^2 nu^3 (J''+1)/(2J''+3)", a(1), &
                a_coef * mu**2 * nu**3 * (j + 1) / (2 * j + 3), tol)
            if (j == 0) call check_rel("J=1<-0: A = c mu^2 nu^3 / 3", a(1), a_coef * mu**2 * nu**3 / 3, tol)
            s_want = gns * mu**2 * (j + 1)
            call check_rel(trim(tag) // ": S = g_ns mu^2 (J''+1)", s(1), s_want, tol)
            i_want = i_coef * s_want * nu * exp(-c2 * e_low / t) * (1 - exp(-c2 * nu / t)) / q
            call check_rel(trim(tag) // ": intensity", inten(1), i_want, tol)
        end do

        ! line_list replaced the loaded batch: half needs a new load_lower.
        call atomgpu_linestrength_half(h, blocks(1), 0.0_dp, half, stat)
        call expect_bad_only("rigid rotor: half after line_list", 1, "handle")

        call atomgpu_linestrength_destroy(h)
        call atomgpu_linestrength_destroy(h)   ! twice is fine
        call check("rigid rotor: destroy resets the handle", atomgpu_linestrength_block_size_fails(h))
    end subroutine

    logical function atomgpu_linestrength_block_size_fails(h) result(fails)
        type(atomgpu_linestrength_t), intent(in) :: h
        integer(i8) :: np, nc, ns
        integer :: stat
        call atomgpu_linestrength_block_size(h, 1, np, nc, ns, stat)
        fails = stat == ATOMGPU_ERR_INVALID_ARGUMENT .and. atomgpu_last_error_arg() == 1
    end function

    ! (b) Hoenl-London factors of a parallel band.
    subroutine test_hoenl_london()
        integer, parameter :: j_low = 4, k_low = 2
        real(dp), parameter :: mu_t = 0.3_dp, e_band = 2000.0_dp
        real(dp), parameter :: hl(3) = [3.0_dp, 1.8_dp, 4.2_dp]   ! P (J' = 3), Q (4), R (5)
        character(len=1), parameter :: branch(3) = ["P", "Q", "R"]
        type(atomgpu_linestrength_t) :: h
        real(dp) :: dipole(2, 2, 3), lower_vectors(9, 2), sum_s(3, 2)
        real(dp), allocatable :: amp(:, :), half(:, :), e(:), a(:), wn(:), s(:), inten(:)
        integer(i8), allocatable :: vv(:), upper_id(:), lower_id(:)
        integer, allocatable :: kk(:), tt(:)
        integer :: lower, upper(3), b, i, jp, n, col(2)
        integer(i8) :: first_id(3), n_states(3), lower_id_of(2), count, n_lines, line, np, nc
        type(atomgpu_intensity_params_t) :: p

        dipole = 0
        dipole(1, 2, 3) = mu_t
        dipole(2, 1, 3) = mu_t
        call atomgpu_linestrength_create(h, dipole, 0_i8, stat)
        if (.not. succeeded("Hoenl-London: create", stat)) return
        ! Lower block: J'' = 4 on v = 1, full Wang set, identity eigenvectors.
        call wang_set(j_low, 1_i8, vv, kk, tt)
        lower = -1
        call atomgpu_linestrength_add_block(h, j_low, 1.0_dp, vv, kk, tt, lower, stat=stat)
        if (.not. succeeded("Hoenl-London: add lower block", stat)) return
        n = size(vv)
        e = [(100.0_dp + i, i = 1, n)]
        call atomgpu_linestrength_set_states(h, lower, e, identity(n), stat)
        if (.not. succeeded("Hoenl-London: set lower states", stat)) return
        ! Its functions K = 2, tau = 0 and 1 (columns of the identity).
        do i = 1, n
            if (kk(i) == k_low) col(tt(i) + 1) = i
        end do
        lower_vectors = 0
        lower_vectors(col(1), 1) = 1
        lower_vectors(col(2), 2) = 1
        ! Upper blocks J' = 3, 4, 5 on v = 2.
        do b = 1, 3
            jp = j_low - 2 + b
            call wang_set(jp, 2_i8, vv, kk, tt)
            call atomgpu_linestrength_add_block(h, jp, 1.0_dp, vv, kk, tt, upper(b), stat=stat)
            if (.not. succeeded("Hoenl-London: add upper block", stat)) return
            e = [(e_band + 10.0_dp * b + i, i = 1, size(vv))]
            call atomgpu_linestrength_set_states(h, upper(b), e, identity(size(vv)), stat)
            if (.not. succeeded("Hoenl-London: set upper states", stat)) return
        end do
        call check("Hoenl-London: blocks 1..4", lower == 1 .and. all(upper == [2, 3, 4]))

        call atomgpu_linestrength_load_lower(h, lower, lower_vectors, 0.0_dp, stat)
        if (.not. succeeded("Hoenl-London: load_lower", stat)) return
        do b = 1, 3
            jp = j_low - 2 + b
            allocate (amp(2 * jp + 1, 2), half(2 * jp + 1, 2))
            amp = sentinel
            half = sentinel
            call atomgpu_linestrength_amplitudes(h, upper(b), 0.0_dp, amp, stat)
            if (succeeded("Hoenl-London: amplitudes", stat)) then
                do i = 1, 2
                    call check_rel("Hoenl-London " // branch(b) // " branch, tau'' = " // achar(iachar("0") + i - 1), &
                        (2 * jp + 1) * (2 * j_low + 1) * sum(amp(:, i)**2) / mu_t**2, hl(b), tol)
                end do
            end if
            call atomgpu_linestrength_half(h, upper(b), 0.0_dp, half, stat)
            if (succeeded("Hoenl-London: half", stat)) then
                call check("Hoenl-London " // branch(b) // ": half = amplitudes (identity vectors)", &
                    maxval(abs(half - amp)) <= 1e-15_dp)
            end if
            deallocate (amp, half)
        end do

        ! The same factors from the line list: S summed over the lines of each branch from each of
        ! the two lower states (g_ns = 1).
        do b = 1, 3
            call atomgpu_linestrength_state_id(h, upper(b), 1_i8, first_id(b), stat)
            if (.not. succeeded("Hoenl-London: state_id", stat)) return
            call atomgpu_linestrength_block_size(h, upper(b), np, nc, n_states(b), stat)
            if (.not. succeeded("Hoenl-London: block_size", stat)) return
        end do
        do i = 1, 2
            call atomgpu_linestrength_state_id(h, lower, int(col(i), i8), lower_id_of(i), stat)
            if (.not. succeeded("Hoenl-London: state_id", stat)) return
        end do
        call check("Hoenl-London: IDs run over the blocks in order", lower_id_of(1) == col(1) .and. &
            first_id(1) == 10 .and. first_id(2) == 17 .and. first_id(3) == 26)
        p = open_params(296.0_dp, 1.0_dp, 0.0_dp)
        count = -1
        call atomgpu_linestrength_count_lines(h, lower, upper, p, count, stat)
        if (.not. succeeded("Hoenl-London: count_lines", stat)) return
        call check("Hoenl-London: every pair is a line (thresholds 0)", count == 9 * sum(n_states))
        allocate (upper_id(count), lower_id(count), a(count), wn(count), s(count), inten(count))
        call atomgpu_linestrength_line_list(h, lower, upper, p, n_lines, upper_id, lower_id, a, wn, s, inten, stat)
        if (.not. succeeded("Hoenl-London: line_list", stat)) return
        call check("Hoenl-London: line_list count = count_lines", n_lines == count)
        sum_s = 0
        do line = 1, n_lines
            do i = 1, 2
                if (lower_id(line) /= lower_id_of(i)) cycle
                do b = 1, 3
                    if (upper_id(line) >= first_id(b) .and. upper_id(line) < first_id(b) + n_states(b)) then
                        sum_s(b, i) = sum_s(b, i) + s(line)
                    end if
                end do
            end do
        end do
        do b = 1, 3
            do i = 1, 2
                call check_rel("Hoenl-London " // branch(b) // " from the line list", sum_s(b, i) / mu_t**2, hl(b), tol)
            end do
        end do
        ! Too small a capacity: nothing written.
        call reset_bad_outputs()
        call atomgpu_linestrength_line_list(h, lower, upper, p, bad_n_lines, bad_upper_id, bad_lower_id, bad_a, &
            bad_nu, bad_s, bad_i, stat)
        call expect_bad("line_list: capacity below the count", 6, "capacity", "got 4")
        call atomgpu_linestrength_destroy(h)
    end subroutine

    ! (c) A symmetrised upper block: T (3 x 2) in CSR with 1-based offsets, row 2 empty.
    subroutine test_unfolding()
        real(dp), parameter :: theta = 0.3_dp, d(3) = [1.1_dp, 0.4_dp, -0.25_dp]
        type(atomgpu_linestrength_t) :: h
        real(dp) :: dipole(3, 3, 3), half(3, 1), amp(2, 1), c, s, sign
        integer :: lower, upper, p
        integer(i8) :: np, nc, ns, id

        c = cos(theta)
        s = sin(theta)
        dipole = 0
        dipole(1, :, 3) = d
        dipole(:, 1, 3) = d
        call atomgpu_linestrength_create(h, dipole, stat=stat)
        if (.not. succeeded("unfolding: create", stat)) return
        call atomgpu_linestrength_add_block(h, 0, 1.0_dp, [1_i8], [0], [0], lower, stat=stat)
        if (.not. succeeded("unfolding: add lower block", stat)) return
        call atomgpu_linestrength_add_block(h, 1, 1.0_dp, [1_i8, 2_i8, 3_i8], [0, 0, 0], [1, 1, 1], upper, &
            row_start=[1_i8, 3_i8, 3_i8, 5_i8], col=[1_i8, 2_i8, 1_i8, 2_i8], value=[c, -s, s, c], n_sym=2_i8, stat=stat)
        if (.not. succeeded("unfolding: add symmetrised block", stat)) return
        call atomgpu_linestrength_block_size(h, upper, np, nc, ns, stat)
        if (succeeded("unfolding: block_size", stat)) then
            call check("unfolding: n_primitive 3, n_coefficients 2, no states yet", np == 3 .and. nc == 2 .and. ns == 0)
        end if
        call atomgpu_linestrength_set_states(h, lower, [0.0_dp], identity(1), stat)
        if (.not. succeeded("unfolding: set lower states", stat)) return
        call atomgpu_linestrength_set_states(h, upper, [20.0_dp, 30.0_dp], identity(2), stat)
        if (.not. succeeded("unfolding: set upper states", stat)) return
        call atomgpu_linestrength_state_id(h, upper, 2_i8, id, stat)
        if (succeeded("unfolding: state_id", stat)) call check("unfolding: ID of upper state 2 is 3", id == 3)
        call atomgpu_linestrength_load_lower(h, lower, identity(1), 0.0_dp, stat)
        if (.not. succeeded("unfolding: load_lower", stat)) return
        call atomgpu_linestrength_half(h, upper, 0.0_dp, half, stat)
        if (.not. succeeded("unfolding: half", stat)) return
        sign = merge(1.0_dp, -1.0_dp, half(1, 1) * d(1) > 0)
        do p = 1, 3
            call check_rel("unfolding: half = +-dipole(1, v', z)/sqrt(3)", half(p, 1), sign * d(p) / sqrt(3.0_dp), tol)
        end do
        call atomgpu_linestrength_amplitudes(h, upper, 0.0_dp, amp, stat)
        if (.not. succeeded("unfolding: amplitudes", stat)) return
        call check_rel("unfolding: a(1) = T(:, 1) . half", amp(1, 1), c * half(1, 1) + s * half(3, 1), tol)
        call check_rel("unfolding: a(2) = T(:, 2) . half", amp(2, 1), -s * half(1, 1) + c * half(3, 1), tol)
        call check_rel("unfolding: L(1) = (c d1 + s d3)^2 / 3", amp(1, 1)**2, (c * d(1) + s * d(3))**2 / 3, tol)
        call atomgpu_linestrength_destroy(h)
    end subroutine

    ! (e) Degenerate species: see the header. n_devices engines; on_host: two blocks keep their
    ! states on the host.
    subroutine test_degenerate(n_devices, on_host)
        integer, intent(in) :: n_devices
        logical, intent(in) :: on_host
        real(dp), parameter :: mu = 1.7_dp, b = 5.0_dp
        type(atomgpu_linestrength_t) :: h
        type(atomgpu_intensity_params_t) :: p
        type(atomgpu_line_filters_t) :: f
        real(dp) :: dipole(1, 1, 3), amp(1, 4), half(2, 2), ea(2), wn(2), st(2), in(2)
        integer(i8) :: up(2), lo(2), n_lines, counts(5), lines
        integer :: e1, a2, e2, a1, ndeg, reduced, unit, ios, refused
        character(len=80) :: text
        dipole = 0
        dipole(1, 1, 3) = mu
        call atomgpu_linestrength_create(h, dipole, stat=stat, n_devices=n_devices)
        if (stat == ATOMGPU_ERR_INVALID_ARGUMENT .and. atomgpu_last_error_arg() == 5 .and. n_devices > 1) then
            print '(a, i0, a)', "note: ", n_devices, " GPUs asked for, fewer visible: the degenerate case runs on one"
            call atomgpu_linestrength_create(h, dipole, stat=stat)
        end if
        if (.not. succeeded("degenerate: create", stat)) return
        call atomgpu_linestrength_set_group(h, "C3v(M)", stat)
        if (.not. succeeded("degenerate: set_group", stat)) return
        e1 = species_block(h, 1, 3, [1, 1], [0, 1], 4 * b, on_host)
        a2 = species_block(h, 1, 2, [0], [1], 2 * b, .false.)
        e2 = species_block(h, 2, 3, [1, 1], [0, 1], 8 * b, .false.)
        a1 = species_block(h, 2, 1, [0], [0], 6 * b, on_host)
        call atomgpu_linestrength_block_ndeg(h, e1, ndeg, stat)
        if (succeeded("degenerate: block_ndeg", stat)) call check("degenerate: E has 2 components", ndeg == 2)
        call atomgpu_linestrength_add_block_species(h, 1, 3, 1.0_dp, [1_i8], [0], [1], 1, refused, row_start=[1_i8, 2_i8], &
            col=[1_i8], value=[1.0_dp], n_sym=1_i8, stat=stat)
        call expect_bad_only("degenerate: E with one component", 9, "ndeg")

        ! Amplitudes of the component pairs, column d'' + 2 (i - 1 + (d' - 1)).
        call atomgpu_linestrength_load_lower(h, e1, reshape([1.0_dp], [1, 1]), 0.0_dp, stat)
        if (.not. succeeded("degenerate: load_lower", stat)) return
        call atomgpu_linestrength_amplitudes(h, e2, 0.0_dp, amp, stat)
        if (succeeded("degenerate: amplitudes", stat)) then
            call check_rel("degenerate: a(d''=2, d'=1)^2 = 1.5 mu^2 / 15", amp(1, 2)**2, 1.5_dp * mu**2 / 15, tol)
            call check_rel("degenerate: a(d''=1, d'=2)^2 = 1.5 mu^2 / 15", amp(1, 3)**2, 1.5_dp * mu**2 / 15, tol)
            call check("degenerate: a(1, 1) = a(2, 2) = 0", abs(amp(1, 1)) < 1e-15_dp .and. abs(amp(1, 4)) < 1e-15_dp)
        end if
        call atomgpu_linestrength_half(h, e2, 0.0_dp, half, stat)
        if (succeeded("degenerate: half", stat)) then
            call check_rel("degenerate: half of component 1 on tau 1", half(2, 1)**2, 1.5_dp * mu**2 / 15, tol)
            call check_rel("degenerate: half of component 2 on tau 0", half(1, 2)**2, 1.5_dp * mu**2 / 15, tol)
        end if

        p = open_params(296.0_dp, 10.0_dp, 0.0_dp)
        f%j_max = 10
        f%n_gamma_pair = 3
        f%gamma_pair(1:3) = [2, 1, 3]
        do reduced = 0, 1
            f%reduced = reduced
            call atomgpu_linestrength_line_list(h, e1, [e2, a1], p, n_lines, up, lo, ea, wn, st, in, stat, &
                filters=f, counts=counts)
            if (.not. succeeded("degenerate: line_list with filters", stat)) cycle
            call check("degenerate: E -> {E, A1}: one line", n_lines == 1)
            call check_rel("degenerate: S(E) = mu^2 ((J''+1)^2 - K^2)/(J''+1)", st(1), 1.5_dp * mu**2, tol)
            call check("degenerate: counts 2 pairs, 1 by the species rule, 1 kept", &
                all(counts == [2_i8, 1_i8, 0_i8, 0_i8, 1_i8]))
        end do
        f%reduced = 0
        call atomgpu_linestrength_count_lines(h, a2, [a1], p, n_lines, stat, counts=counts)
        if (succeeded("degenerate: count_lines", stat)) call check("degenerate: A2 -> A1 one line", &
            n_lines == 1 .and. counts(5) == 1)
        call atomgpu_linestrength_line_list(h, a2, [a1], p, n_lines, up, lo, ea, wn, st, in, stat)
        if (succeeded("degenerate: line_list A2 -> A1", stat)) then
            call check_rel("degenerate: S(A2 -> A1) = 2 mu^2", st(1), 2 * mu**2, tol)
        end if

        call atomgpu_linestrength_write_exomol(h, "test_linestrength_f_c3v", p, f, counts, stat)
        if (succeeded("degenerate: write_exomol", stat)) then
            call check("degenerate: write_exomol counts add up", counts(1) == sum(counts(2:5)) .and. counts(5) == 2)
            lines = 0
            open (newunit=unit, file="test_linestrength_f_c3v.trans", status="old", action="read", iostat=ios)
            do while (ios == 0)
                read (unit, '(a)', iostat=ios) text
                if (ios == 0) lines = lines + 1
            end do
            close (unit, status="delete")
            call check("degenerate: .trans holds the 2 kept lines", lines == 2)
            open (newunit=unit, file="test_linestrength_f_c3v.states", status="old", iostat=ios)
            if (ios == 0) close (unit, status="delete")
        end if
        call atomgpu_linestrength_destroy(h)
    end subroutine

    ! Adds a block of J with the given Wang functions (v = 1) of the 1-based species gamma: two
    ! functions are the two components of one E level (T_1 = e_1, T_2 = e_2), one function is a
    ! non-degenerate level; one state of energy `energy`.
    integer function species_block(h, j, gamma, k, tau, energy, on_host) result(block)
        type(atomgpu_linestrength_t), intent(inout) :: h
        integer, intent(in) :: j, gamma
        integer, intent(in), contiguous :: k(:), tau(:)
        real(dp), intent(in) :: energy
        logical, intent(in) :: on_host
        integer(i8) :: v(size(k))
        v = 1
        block = -1
        if (size(k) == 2) then
            call atomgpu_linestrength_add_block_species(h, j, gamma, 1.0_dp, v, k, tau, 2, block, &
                row_start=[1_i8, 2_i8, 2_i8, 2_i8, 3_i8], col=[1_i8, 1_i8], value=[1.0_dp, 1.0_dp], n_sym=1_i8, stat=stat)
        else
            call atomgpu_linestrength_add_block_species(h, j, gamma, 1.0_dp, v, k, tau, 1, block, stat=stat)
        end if
        if (.not. succeeded("degenerate: add_block_species", stat)) return
        if (on_host) then
            call atomgpu_linestrength_set_states_on_host(h, block, [energy], reshape([1.0_dp], [1, 1]), stat)
        else
            call atomgpu_linestrength_set_states(h, block, [energy], reshape([1.0_dp], [1, 1]), stat)
        end if
        if (.not. succeeded("degenerate: set_states", stat)) block = -1
    end function

    ! (f) A deterministic generator (Park & Miller's minimal standard) for the random test data.
    real(dp) function uniform(lo, hi)
        real(dp), intent(in) :: lo, hi
        rng_state = mod(16807_i8 * rng_state, 2147483647_i8)
        uniform = lo + (hi - lo) * real(rng_state, dp) / 2147483647.0_dp
    end function

    ! A block of 1-based species `gamma` with ndeg components: the full Wang sets of J on
    ! vibrational functions 1 and 2, one random sparse unfolding T_d (n_primitive x n_sym) per
    ! component, n_states random levels with energies in [e_lo, e_hi).
    function random_species_block(j, gamma, ndeg, n_states, e_lo, e_hi) result(b)
        integer, intent(in) :: j, gamma, ndeg, n_states
        real(dp), intent(in) :: e_lo, e_hi
        type(split_block_t) :: b
        integer(i8), allocatable :: vv(:)
        integer, allocatable :: kk(:), tt(:)
        integer :: d, p, c, s, m
        b%j = j
        b%gamma = gamma
        b%ndeg = ndeg
        b%gns = uniform(0.5_dp, 3.0_dp)
        call wang_set(j, 1_i8, vv, kk, tt)
        m = size(vv)
        b%n_prim = 2 * m
        allocate (b%v(b%n_prim), b%k(b%n_prim), b%tau(b%n_prim))
        b%v(1:m) = vv
        b%v(m + 1:) = vv + 1
        b%k(1:m) = kk
        b%k(m + 1:) = kk
        b%tau(1:m) = tt
        b%tau(m + 1:) = tt
        b%n_sym = b%n_prim / ndeg
        allocate (b%t(b%n_prim, b%n_sym, ndeg), b%vectors(b%n_sym, n_states), b%energies(n_states))
        do d = 1, ndeg
            do c = 1, b%n_sym
                do p = 1, b%n_prim
                    b%t(p, c, d) = 0
                    if (uniform(0.0_dp, 1.0_dp) < 0.4_dp) b%t(p, c, d) = uniform(-1.0_dp, 1.0_dp)
                end do
            end do
            b%t(d, 1, d) = 1 + 0.5_dp * (d - 1)   ! no component left empty
        end do
        do s = 1, n_states
            do c = 1, b%n_sym
                b%vectors(c, s) = uniform(-1.0_dp, 1.0_dp)
            end do
            b%energies(s) = uniform(e_lo, e_hi)
        end do
    end function

    ! Registers block b with all its components stacked (d = 0: add_block_species) or component d
    ! alone as a non-degenerate block (add_block with T_d), 1-based CSR; stores its levels.
    integer function register_split_block(h, b, d) result(block)
        type(atomgpu_linestrength_t), intent(inout) :: h
        type(split_block_t), intent(in) :: b
        integer, intent(in) :: d
        integer(i8), allocatable :: row_start(:), col(:)
        real(dp), allocatable :: value(:)
        integer :: c, p, s, first, last, e, r
        first = merge(1, d, d == 0)
        last = merge(b%ndeg, d, d == 0)
        allocate (row_start((last - first + 1) * b%n_prim + 1), col(count(b%t(:, :, first:last) /= 0)))
        allocate (value(size(col)))
        row_start(1) = 1
        e = 0
        r = 1
        do c = first, last
            do p = 1, b%n_prim
                do s = 1, b%n_sym
                    if (b%t(p, s, c) /= 0) then
                        e = e + 1
                        col(e) = s
                        value(e) = b%t(p, s, c)
                    end if
                end do
                r = r + 1
                row_start(r) = e + 1
            end do
        end do
        block = -1
        if (d == 0) then
            call atomgpu_linestrength_add_block_species(h, b%j, b%gamma, b%gns, b%v, b%k, b%tau, b%ndeg, block, &
                row_start, col, value, int(b%n_sym, i8), stat)
        else
            call atomgpu_linestrength_add_block(h, b%j, b%gns, b%v, b%k, b%tau, block, row_start, col, value, &
                int(b%n_sym, i8), stat)
        end if
        if (.not. succeeded("split: add the block", stat)) return
        call atomgpu_linestrength_set_states(h, block, b%energies, b%vectors, stat)
        if (.not. succeeded("split: set_states", stat)) block = -1
    end function

    ! One (lower, upper) pair of degenerate blocks against their components split by hand.
    subroutine check_split_pair(dipole, group, lo, up)
        real(dp), intent(in) :: dipole(2, 2, 3)
        character(len=*), intent(in) :: group
        type(split_block_t), intent(in) :: lo, up
        type(atomgpu_linestrength_t) :: dg, sp
        type(atomgpu_intensity_params_t) :: p
        type(atomgpu_line_filters_t) :: f
        integer :: lower, upper, lower_d(3), upper_d(3), di, df, i, fu, n, nf, np, ndi, ndf, reduced, ndeg_lo, ndeg_up
        real(dp), allocatable :: a_sp(:, :, :, :), h_sp(:, :, :), a_dg(:, :), h_dg(:, :), amp(:, :), half(:, :)
        real(dp), allocatable :: ea(:), wn(:), st(:), in(:)
        integer(i8), allocatable :: up_id(:), lo_id(:)
        integer(i8) :: n_lines, counted, counts(5)
        real(dp) :: worst_a, largest_a, worst_h, largest_h, worst_s, worst_e, l, nu, s_want, a_want
        n = size(lo%energies)
        nf = size(up%energies)
        np = up%n_prim
        ndi = lo%ndeg
        ndf = up%ndeg
        call atomgpu_linestrength_create(dg, dipole, stat=stat)
        if (.not. succeeded("split: create degenerate", stat)) return
        call atomgpu_linestrength_create(sp, dipole, stat=stat)
        if (.not. succeeded("split: create split", stat)) return
        call atomgpu_linestrength_set_group(dg, group, stat)
        if (.not. succeeded("split: set_group", stat)) return
        lower = register_split_block(dg, lo, 0)
        upper = register_split_block(dg, up, 0)
        do di = 1, ndi
            lower_d(di) = register_split_block(sp, lo, di)
        end do
        do df = 1, ndf
            upper_d(df) = register_split_block(sp, up, df)
        end do
        call atomgpu_linestrength_block_ndeg(dg, lower, ndeg_lo, stat)
        if (succeeded("split: block_ndeg", stat)) call atomgpu_linestrength_block_ndeg(dg, upper, ndeg_up, stat)
        if (succeeded("split: block_ndeg", stat)) call check("split " // group // ": block_ndeg", &
            ndeg_lo == ndi .and. ndeg_up == ndf)

        ! The split blocks' amplitudes a_sp(f, i, d'', d') and half-linestrengths h_sp(p, i, d'')
        ! (on upper component 1's block: they live on the primitive functions).
        allocate (a_sp(nf, n, ndi, ndf), h_sp(np, n, ndi), a_dg(nf, ndi * n * ndf), h_dg(np, ndi * n))
        allocate (amp(nf, n), half(np, n))
        do di = 1, ndi
            call atomgpu_linestrength_load_lower(sp, lower_d(di), lo%vectors, 0.0_dp, stat)
            if (.not. succeeded("split: load_lower component", stat)) return
            do df = 1, ndf
                call atomgpu_linestrength_amplitudes(sp, upper_d(df), 0.0_dp, amp, stat)
                if (.not. succeeded("split: amplitudes component", stat)) return
                a_sp(:, :, di, df) = amp
            end do
            call atomgpu_linestrength_half(sp, upper_d(1), 0.0_dp, half, stat)
            if (.not. succeeded("split: half component", stat)) return
            h_sp(:, :, di) = half
        end do
        call atomgpu_linestrength_load_lower(dg, lower, lo%vectors, 0.0_dp, stat)
        if (.not. succeeded("split: load_lower degenerate", stat)) return
        call atomgpu_linestrength_amplitudes(dg, upper, 0.0_dp, a_dg, stat)
        if (.not. succeeded("split: amplitudes degenerate", stat)) return
        call atomgpu_linestrength_half(dg, upper, 0.0_dp, h_dg, stat)
        if (.not. succeeded("split: half degenerate", stat)) return
        worst_a = 0
        worst_h = 0
        do i = 1, n
            do di = 1, ndi
                do df = 1, ndf
                    ! Column d'' + ndeg'' (i - 1 + n (d' - 1)).
                    worst_a = max(worst_a, maxval(abs(a_dg(:, di + ndi * (i - 1 + n * (df - 1))) - a_sp(:, i, di, df))))
                end do
                worst_h = max(worst_h, maxval(abs(h_dg(:, di + ndi * (i - 1)) - h_sp(:, i, di))))   ! d'' + ndeg'' (i - 1)
            end do
        end do
        largest_a = maxval(abs(a_sp))
        largest_h = maxval(abs(h_sp))
        call check("split " // group // ": amplitudes of every component pair = the split blocks'", &
            largest_a > 0.1_dp .and. worst_a <= 1e-13_dp * largest_a)
        call check("split " // group // ": half-linestrengths of every component = the split blocks'", &
            largest_h > 0.1_dp .and. worst_h <= 1e-13_dp * largest_h)

        ! The line list: every pair a line (open windows, no thresholds), by lower then upper state.
        p = open_params(296.0_dp, 250.0_dp, 0.0_dp)
        f%j_max = 10
        allocate (up_id(n * nf), lo_id(n * nf), ea(n * nf), wn(n * nf), st(n * nf), in(n * nf))
        do reduced = 0, 1
            f%reduced = reduced
            call atomgpu_linestrength_count_lines(dg, lower, [upper], p, counted, stat, filters=f)
            if (succeeded("split: count_lines", stat)) call check("split " // group // ": count_lines", counted == n * nf)
            call atomgpu_linestrength_line_list(dg, lower, [upper], p, n_lines, up_id, lo_id, ea, wn, st, in, stat, &
                filters=f, counts=counts)
            if (.not. succeeded("split: line_list with filters", stat)) cycle
            call check("split " // group // ": every pair a line, counts add up", n_lines == n * nf .and. &
                counts(1) == n * nf .and. counts(5) == n * nf .and. counts(1) == sum(counts(2:5)))
            worst_s = 0
            worst_e = 0
            do i = 1, n
                do fu = 1, nf
                    ! TROVE: L = sum over the component pairs of a^2 / ndeg''; REDUCED: d' = 1 only, no division.
                    if (reduced == 1) then
                        l = sum(a_sp(fu, i, :, 1)**2)
                    else
                        l = sum(a_sp(fu, i, :, :)**2) / ndi
                    end if
                    nu = up%energies(fu) - lo%energies(i)
                    s_want = lo%gns * (2 * up%j + 1) * (2 * lo%j + 1) * l
                    a_want = a_coef * (2 * lo%j + 1) * l * nu**3
                    worst_s = max(worst_s, abs(st(fu + nf * (i - 1)) - s_want) / s_want)
                    worst_e = max(worst_e, abs(ea(fu + nf * (i - 1)) - a_want) / a_want)
                end do
            end do
            call check("split " // group // ": S = g_ns (2J'+1)(2J''+1) sum a^2 / ndeg'' of the split blocks", &
                worst_s <= tol)
            call check("split " // group // ": A = A_coef (2J''+1) L nu^3", worst_e <= tol)
        end do
        call atomgpu_linestrength_destroy(dg)
        call atomgpu_linestrength_destroy(sp)
    end subroutine

    ! (f) Degenerate blocks against the same blocks split by hand: see the header.
    subroutine test_split_by_hand()
        real(dp) :: dipole(2, 2, 3)
        integer :: v, w, m
        do m = 1, 3
            do w = 1, 2
                do v = 1, 2
                    dipole(v, w, m) = uniform(-1.0_dp, 1.0_dp)
                end do
            end do
        end do
        ! Td(M): A1, A2, E, F1, F2 = 1..5 (TROVE's igamma).
        call check_split_pair(dipole, "Td(M)", random_species_block(1, 3, 2, 3, 100.0_dp, 1500.0_dp), &
            random_species_block(2, 5, 3, 2, 2000.0_dp, 3500.0_dp))
        call check_split_pair(dipole, "Td(M)", random_species_block(2, 4, 3, 4, 100.0_dp, 1500.0_dp), &
            random_species_block(1, 2, 1, 3, 2000.0_dp, 3500.0_dp))
    end subroutine

    ! (g) Bad input to the species wrappers: see the header.
    subroutine test_species_bad_input()
        type(atomgpu_linestrength_t) :: g, never
        type(atomgpu_intensity_params_t) :: p
        type(atomgpu_line_filters_t) :: f, bad
        real(dp) :: dipole(2, 2, 3)
        integer :: e1, e2, a2, unit, ios
        integer(i8), parameter :: rs_e(5) = [1_i8, 2_i8, 2_i8, 2_i8, 3_i8], col_e(2) = [1_i8, 1_i8]
        real(dp), parameter :: val_e(2) = [1.0_dp, 1.0_dp]

        dipole = 0
        dipole(1, 1, 3) = 1.3_dp
        p = open_params(296.0_dp, 1.0_dp, 0.0_dp)
        call reset_bad_outputs()
        call atomgpu_linestrength_set_group(never, "C3v(M)", stat)
        call expect_bad("set_group: handle never created", 1, "handle")
        call atomgpu_linestrength_block_ndeg(never, 1, bad_block, stat)
        call expect_bad("block_ndeg: handle never created", 1, "handle")
        call atomgpu_linestrength_write_exomol(never, "unused", p, counts=bad_counts, stat=stat)
        call expect_bad("write_exomol: handle never created", 1, "handle")

        call atomgpu_linestrength_create(g, dipole, stat=stat)
        if (.not. succeeded("species bad input: create", stat)) return
        call atomgpu_linestrength_set_group(g, "D6h(M)", stat)
        call expect_bad("set_group: unknown group", 2, "group", "C3v(M)")
        call atomgpu_linestrength_set_group(g, "C3v(M)", stat)
        if (.not. succeeded("species bad input: set_group", stat)) return

        ! add_block_species (C positions: j 2, gamma 3, v 6, k 7, tau 8, ndeg 9, n_sym 10,
        ! row_start 11, col 12, value 13); an E pair of J = 1 on v = 1: T_1 = e_1, T_2 = e_2.
        call atomgpu_linestrength_add_block_species(g, 1, 0, 1.0_dp, [1_i8, 1_i8], [1, 1], [0, 1], 2, bad_block, &
            rs_e, col_e, val_e, 1_i8, stat)
        call expect_bad("add_block_species: gamma 0 (1-based)", 3, "gamma", "numbered from 1")
        call atomgpu_linestrength_add_block_species(g, 1, 4, 1.0_dp, [1_i8, 1_i8], [1, 1], [0, 1], 2, bad_block, &
            rs_e, col_e, val_e, 1_i8, stat)
        call expect_bad("add_block_species: species 4 of C3v(M)", 3, "gamma")
        call atomgpu_linestrength_add_block_species(g, 1, 3, 1.0_dp, [1_i8, 1_i8], [1, 1], [0, 1], 4, bad_block, &
            rs_e, col_e, val_e, 1_i8, stat)
        call expect_bad("add_block_species: ndeg 4", 9, "ndeg")
        call atomgpu_linestrength_add_block_species(g, 1, 1, 1.0_dp, [1_i8, 1_i8], [1, 1], [0, 1], 2, bad_block, &
            rs_e, col_e, val_e, 1_i8, stat)
        call expect_bad("add_block_species: A1 with two components", 9, "ndeg")
        call atomgpu_linestrength_add_block_species(g, 1, 3, 1.0_dp, [1_i8, 1_i8], [1, 1], [0, 1], 2, bad_block, stat=stat)
        call expect_bad("add_block_species: E without its unfolding", 10, "n_sym")
        call atomgpu_linestrength_add_block_species(g, 1, 3, 1.0_dp, [1_i8, 1_i8], [1, 1], [0, 1], 2, bad_block, &
            rs_e(1:3), col_e, val_e, 1_i8, stat)
        call expect_bad("add_block_species: row_start of one component", 11, "row_start", "ndeg n_primitive + 1")
        call atomgpu_linestrength_add_block_species(g, 1, 3, 1.0_dp, [1_i8, 1_i8], [1, 1], [0, 1], 2, bad_block, &
            [1_i8, 2_i8, 2_i8, 2_i8, 2_i8], col_e(1:1), val_e(1:1), 1_i8, stat)
        call expect_bad("add_block_species: E without its second component", 11, "row_start", "component")
        call atomgpu_linestrength_add_block_species(g, 1, 3, 1.0_dp, [1_i8, 1_i8], [1, 1], [0, 1], 2, bad_block, &
            rs_e, [1_i8, 2_i8], val_e, 1_i8, stat)
        call expect_bad("add_block_species: col beyond n_sym", 12, "col", "numbered 1..1")
        call atomgpu_linestrength_add_block_species(g, 1, 3, 1.0_dp, [1_i8, 1_i8], [1, 1], [0], 2, bad_block, &
            rs_e, col_e, val_e, 1_i8, stat)
        call expect_bad("add_block_species: size(tau)", 8, "tau")
        call atomgpu_linestrength_add_block_species(g, 1, 3, 1.0_dp, [1_i8, 3_i8], [1, 1], [0, 1], 2, bad_block, &
            rs_e, col_e, val_e, 1_i8, stat)
        call expect_bad("add_block_species: v beyond n_vib", 6, "v")

        ! Good blocks: E J'' = 1, A2 J'' = 1, E J' = 2 (one level each).
        call atomgpu_linestrength_add_block_species(g, 1, 3, 1.0_dp, [1_i8, 1_i8], [1, 1], [0, 1], 2, e1, rs_e, col_e, &
            val_e, 1_i8, stat)
        if (.not. succeeded("species bad input: add E", stat)) return
        call atomgpu_linestrength_add_block_species(g, 1, 2, 1.0_dp, [1_i8], [0], [1], 1, a2, stat=stat)
        if (.not. succeeded("species bad input: add A2", stat)) return
        call atomgpu_linestrength_add_block_species(g, 2, 3, 1.0_dp, [1_i8, 1_i8], [1, 1], [0, 1], 2, e2, rs_e, col_e, &
            val_e, 1_i8, stat)
        if (.not. succeeded("species bad input: add E'", stat)) return
        call atomgpu_linestrength_set_states(g, e1, [20.0_dp], identity(1), stat)
        if (succeeded("species bad input: states", stat)) call atomgpu_linestrength_set_states(g, a2, [10.0_dp], &
            identity(1), stat)
        if (succeeded("species bad input: states", stat)) call atomgpu_linestrength_set_states(g, e2, [40.0_dp], &
            identity(1), stat)
        if (.not. succeeded("species bad input: states", stat)) return
        call reset_bad_outputs()
        call atomgpu_linestrength_set_group(g, "C3v(M)", stat)
        call expect_bad("set_group: after the blocks", 2, "group", "before")
        call atomgpu_linestrength_block_ndeg(g, 0, bad_block, stat)
        call expect_bad("block_ndeg: block 0", 2, "block", "numbered from 1")
        call atomgpu_linestrength_block_ndeg(g, 4, bad_block, stat)
        call expect_bad("block_ndeg: block 4 of 3", 2, "block", "no such block")

        ! half and amplitudes of a degenerate lower batch: columns ndeg'' n_lower (ndeg'').
        call atomgpu_linestrength_load_lower(g, e1, identity(1), 0.0_dp, stat)
        if (.not. succeeded("species bad input: load_lower E", stat)) return
        ! The library checks the column counts (C's cols_half, cols_amplitudes: size(a, 2)).
        call atomgpu_linestrength_half(g, e2, 0.0_dp, bad_half(1:2, 1:1), stat)
        call expect_bad("half: one column for the two components of one E level", 6, "cols_half", "column count 2")
        call atomgpu_linestrength_amplitudes(g, e2, 0.0_dp, bad_amp_row, stat)
        call expect_bad("amplitudes: two columns for the four E x E component pairs", 6, "cols_amplitudes", &
            "column count 4")

        ! Filters (C position 6 of line_list_filtered, 4 of write_exomol).
        f%j_max = 10
        bad = f
        bad%degeneracy_filter = 2
        call atomgpu_linestrength_line_list(g, e1, [e2], p, bad_n_lines, bad_upper_id, bad_lower_id, bad_a, bad_nu, &
            bad_s, bad_i, stat, filters=bad, counts=bad_counts)
        call expect_bad("line_list: degeneracy_filter 2", 6, "filters", "degeneracy_filter")
        bad = f
        bad%n_gamma_pair = 3
        bad%gamma_pair(1:3) = [2, 0, 3]
        call atomgpu_linestrength_line_list(g, e1, [e2], p, bad_n_lines, bad_upper_id, bad_lower_id, bad_a, bad_nu, &
            bad_s, bad_i, stat, filters=bad, counts=bad_counts)
        call expect_bad("line_list: species pair 0 (1-based)", 6, "filters", "gamma_pair(2)")
        call atomgpu_linestrength_write_exomol(g, "unused", p, bad, bad_counts, stat)
        call expect_bad("write_exomol: species pair 0 (1-based)", 4, "filters", "gamma_pair(2)")
        bad = f
        bad%n_gamma_pair = 17
        call atomgpu_linestrength_count_lines(g, e1, [e2], p, bad_n_lines, stat, filters=bad, counts=bad_counts)
        call expect_bad("count_lines: 17 species pairs", 6, "filters", "n_gamma_pair")
        bad = f
        bad%j_min = 3
        bad%j_max = 1
        call atomgpu_linestrength_count_lines(g, e1, [e2], p, bad_n_lines, stat, filters=bad, counts=bad_counts)
        call expect_bad("count_lines: j_min > j_max", 6, "filters", "j_range")
        call atomgpu_linestrength_write_exomol(g, "unused", p, bad, bad_counts, stat)
        call expect_bad("write_exomol: j_min > j_max", 4, "filters", "j_range")
        open (newunit=unit, file="unused.states", status="old", iostat=ios)
        call check("write_exomol refused: no .states written", ios /= 0)
        if (ios == 0) close (unit, status="delete")
        call atomgpu_linestrength_write_exomol(g, "", p, f, bad_counts, stat)
        call expect_bad("write_exomol: empty stem", 2, "stem")
        ! A folder that does not exist: a file error, counts untouched.
        call atomgpu_linestrength_write_exomol(g, "no-such-folder/lines", p, f, bad_counts, stat)
        call check("write_exomol into a missing folder: ATOMGPU_ERR_IO, counts untouched", &
            stat == ATOMGPU_ERR_IO .and. all(bad_counts == -7))
        call atomgpu_linestrength_destroy(g)
    end subroutine

    ! (d) Bad input through stat.
    subroutine test_bad_input()
        type(atomgpu_linestrength_t) :: h, never, copy
        real(dp) :: dipole(2, 2, 3), dipole_2x1(2, 1, 3), nan, v9(9, 1), v9nan(9, 1)
        integer(i8), allocatable :: vv(:)
        integer, allocatable :: kk(:), tt(:)
        integer :: b0, b1, b4, b5, i
        type(atomgpu_intensity_params_t) :: p

        nan = ieee_value(nan, ieee_quiet_nan)
        dipole = 0
        dipole(1, 2, :) = [0.2_dp, 0.0_dp, 0.5_dp]
        dipole(2, 1, :) = [0.2_dp, 0.0_dp, 0.5_dp]
        dipole(1, 1, 3) = 1.0_dp

        ! A handle never created.
        call reset_bad_outputs()
        call atomgpu_linestrength_block_size(never, 1, bad_np, bad_nc, bad_ns, stat)
        call expect_bad("block_size: handle never created", 1, "handle")
        call reset_bad_outputs()
        call atomgpu_linestrength_add_block(never, 0, 1.0_dp, [1_i8], [0], [0], bad_block, stat=stat)
        call expect_bad("add_block: handle never created", 1, "handle")

        ! create: the dipole's shape, a handle already held.
        call atomgpu_linestrength_create(h, dipole(:, :, 1:2), stat=stat)
        call expect_bad_only("create: 2 dipole components", 2, "dipole")
        dipole_2x1 = 0
        call atomgpu_linestrength_create(h, dipole_2x1, stat=stat)
        call expect_bad_only("create: dipole not square", 2, "dipole")
        call atomgpu_linestrength_create(h, dipole, -1_i8, stat)
        call expect_bad_only("create: negative max_device_bytes", 4, "max_device_bytes")
        call atomgpu_linestrength_create(h, dipole, stat=stat)
        if (.not. succeeded("bad input: create", stat)) return
        call atomgpu_linestrength_create(h, dipole, stat=stat)
        call expect_bad_only("create: handle already held", 5, "handle")

        ! add_block.
        call reset_bad_outputs()
        call atomgpu_linestrength_add_block(h, 1, 1.0_dp, [1_i8, 1_i8], [1, 2], [0, 1], bad_block, stat=stat)
        call expect_bad("add_block: K > J", 7, "k", "got 2")
        call reset_bad_outputs()
        call atomgpu_linestrength_add_block(h, 1, 1.0_dp, [0_i8], [1], [0], bad_block, stat=stat)
        call expect_bad("add_block: v = 0 (1-based)", 6, "v", "numbered 1..2")
        call reset_bad_outputs()
        call atomgpu_linestrength_add_block(h, 1, 1.0_dp, [3_i8], [1], [0], bad_block, stat=stat)
        call expect_bad("add_block: v > n_vib", 6, "v")
        call reset_bad_outputs()
        call atomgpu_linestrength_add_block(h, 1, 1.0_dp, [1_i8, 2_i8], [1], [0, 0], bad_block, stat=stat)
        call expect_bad("add_block: size(k)", 7, "k")
        call reset_bad_outputs()
        call atomgpu_linestrength_add_block(h, 1, 1.0_dp, [1_i8], [1], [2], bad_block, stat=stat)
        call expect_bad("add_block: tau = 2", 8, "tau")
        call reset_bad_outputs()
        call atomgpu_linestrength_add_block(h, 1, nan, [1_i8], [1], [0], bad_block, stat=stat)
        call expect_bad("add_block: NaN gns", 4, "gns")
        call reset_bad_outputs()
        call atomgpu_linestrength_add_block(h, 1, 1.0_dp, [1_i8], [1], [0], bad_block, row_start=[1_i8, 2_i8], &
            col=[1_i8], value=[1.0_dp], stat=stat)
        call expect_bad("add_block: unfolding without n_sym", 10, "n_sym")
        call reset_bad_outputs()
        call atomgpu_linestrength_add_block(h, 1, 1.0_dp, [1_i8], [1], [0], bad_block, row_start=[0_i8, 1_i8], &
            col=[1_i8], value=[1.0_dp], n_sym=1_i8, stat=stat)
        call expect_bad("add_block: 0-based row_start", 11, "row_start")
        call reset_bad_outputs()
        call atomgpu_linestrength_add_block(h, 1, 1.0_dp, [1_i8], [1], [0], bad_block, row_start=[1_i8, 2_i8], &
            col=[2_i8], value=[1.0_dp], n_sym=1_i8, stat=stat)
        call expect_bad("add_block: col > n_sym", 12, "col")
        call reset_bad_outputs()
        call atomgpu_linestrength_add_block(h, 1, 1.0_dp, [1_i8], [1], [0], bad_block, row_start=[1_i8, 2_i8], &
            col=[1_i8], value=[1.0_dp, 2.0_dp], n_sym=1_i8, stat=stat)
        call expect_bad("add_block: size(value)", 13, "value")

        ! Good blocks: J = 0 (one function), J = 4 and 5 (full Wang sets on v = 1), J = 1.
        call atomgpu_linestrength_add_block(h, 0, 1.0_dp, [1_i8], [0], [0], b0, stat=stat)
        if (.not. succeeded("bad input: add J = 0", stat)) return
        call wang_set(4, 1_i8, vv, kk, tt)
        call atomgpu_linestrength_add_block(h, 4, 1.0_dp, vv, kk, tt, b4, stat=stat)
        if (.not. succeeded("bad input: add J = 4", stat)) return
        call wang_set(5, 2_i8, vv, kk, tt)
        call atomgpu_linestrength_add_block(h, 5, 1.0_dp, vv, kk, tt, b5, stat=stat)
        if (.not. succeeded("bad input: add J = 5", stat)) return
        call atomgpu_linestrength_add_block(h, 1, 1.0_dp, [1_i8], [0], [1], b1, stat=stat)
        if (.not. succeeded("bad input: add J = 1", stat)) return

        ! set_states.
        call atomgpu_linestrength_set_states(h, 0, [1.0_dp], identity(1), stat)
        call expect_bad_only("set_states: block 0", 2, "block", "numbered from 1")
        call atomgpu_linestrength_set_states(h, 9, [1.0_dp], identity(1), stat)
        call expect_bad_only("set_states: block 9 of 4", 2, "block", "no such block")
        call atomgpu_linestrength_set_states(h, b4, [1.0_dp], identity(1), stat)
        call expect_bad_only("set_states: rows of vectors", 6, "ld_vectors", "row count 9")
        call atomgpu_linestrength_set_states(h, b4, [1.0_dp, 2.0_dp], identity(9), stat)
        call expect_bad_only("set_states: columns of vectors", 5, "vectors")
        call atomgpu_linestrength_set_states(h, b4, [(real(i, dp), i = 1, 8), nan], identity(9), stat)
        call expect_bad_only("set_states: NaN energy", 4, "energies", "[8]")
        call atomgpu_linestrength_set_states(h, b4, [(100.0_dp + i, i = 1, 9)], identity(9), stat)
        if (.not. succeeded("bad input: set J = 4 states", stat)) return
        call atomgpu_linestrength_set_states(h, b5, [(3000.0_dp + i, i = 1, 11)], identity(11), stat)
        if (.not. succeeded("bad input: set J = 5 states", stat)) return
        ! set_state_labels: size(ids) is C's n_states, which the library holds to the stored 9.
        call atomgpu_linestrength_set_state_labels(h, b4, [(int(i, i8), i = 1, 8)], [(int(i, i8), i = 1, 8)], stat)
        call expect_bad_only("set_state_labels: 8 IDs for 9 stored states", 3, "n_states", "(9)")
        call atomgpu_linestrength_set_state_labels(h, b4, [(int(i, i8), i = 1, 9)], [(int(i, i8), i = 1, 8)], stat)
        call expect_bad_only("set_state_labels: size(order) /= size(ids)", 5, "order")

        ! state_id, block_size.
        call reset_bad_outputs()
        call atomgpu_linestrength_state_id(h, b4, 10_i8, bad_id, stat)
        call expect_bad("state_id: state 10 of 9", 3, "state", "9 stored states")
        call reset_bad_outputs()
        call atomgpu_linestrength_state_id(h, b4, 0_i8, bad_id, stat)
        call expect_bad("state_id: state 0", 3, "state")
        call reset_bad_outputs()
        call atomgpu_linestrength_state_id(h, 5, 1_i8, bad_id, stat)
        call expect_bad("state_id: block 5 of 4", 2, "block")
        call reset_bad_outputs()
        call atomgpu_linestrength_block_size(h, -1, bad_np, bad_nc, bad_ns, stat)
        call expect_bad("block_size: block -1", 2, "block")

        ! load_lower, half, amplitudes.
        call reset_bad_outputs()
        call atomgpu_linestrength_half(h, b5, 0.0_dp, bad_half(1:1, 1:1), stat)
        call expect_bad("half: no batch loaded", 1, "handle", "load_lower")
        v9 = 0
        v9(5, 1) = 1
        v9nan = v9
        v9nan(3, 1) = nan
        call atomgpu_linestrength_load_lower(h, b4, v9(1:8, 1:1), 0.0_dp, stat)
        call expect_bad_only("load_lower: rows of vectors", 5, "ld_vectors", "row count 9")
        call atomgpu_linestrength_load_lower(h, b4, v9, 0.0_dp, stat)
        if (.not. succeeded("bad input: load_lower", stat)) return
        ! A rejected load keeps the batch loaded (the handle is unchanged on bad input).
        call atomgpu_linestrength_load_lower(h, b4, v9nan, 0.0_dp, stat)
        call expect_bad_only("load_lower: NaN coefficient", 4, "vectors", "[2]")
        call atomgpu_linestrength_load_lower(h, b4, v9, -1.0_dp, stat)
        call expect_bad_only("load_lower: negative thresh_coeff", 6, "thresh_coeff")
        call reset_bad_outputs()
        call atomgpu_linestrength_half(h, b5, 0.0_dp, bad_half(1:9, 1:1), stat)
        call expect_bad("half: 9 rows for 11 primitive functions", 5, "ld_half", "row count 11")
        call reset_bad_outputs()
        call atomgpu_linestrength_amplitudes(h, b5, 0.0_dp, bad_amp(1:10, :), stat)
        call expect_bad("amplitudes: 10 rows for 11 states", 5, "ld_amplitudes", "row count 11")
        ! An array larger than needed (LAPACK's rule): 2 columns for a batch of 1; the library
        ! writes column 1 and leaves column 2 as it was.
        block
            real(dp) :: wide(11, 2)
            wide = sentinel
            call atomgpu_linestrength_amplitudes(h, b5, 0.0_dp, wide, stat)
            if (succeeded("amplitudes: 2 columns for a batch of 1", stat)) call check( &
                "amplitudes: column 1 written, column 2 untouched", all(wide(:, 1) /= sentinel) .and. &
                all(wide(:, 2) == sentinel))
        end block
        call reset_bad_outputs()
        call atomgpu_linestrength_amplitudes(h, b1, 0.0_dp, bad_amp(1:0, 1:1), stat)
        call expect_bad("amplitudes: upper block without states", 2, "upper_block", "no states")
        call reset_bad_outputs()
        call atomgpu_linestrength_half(h, b0, 0.0_dp, bad_half(1:1, 1:1), stat)
        call expect_bad("half: J' = 0 from J'' = 4", 2, "upper_block")
        call reset_bad_outputs()
        call atomgpu_linestrength_half(h, b5, nan, bad_half(:, 1:1), stat)
        call expect_bad("half: NaN thresh_coeff", 3, "thresh_coeff")
        block
            real(dp) :: half(11, 1)
            call atomgpu_linestrength_half(h, b5, 0.0_dp, half, stat)
            if (succeeded("half after rejected loads (batch kept)", stat)) then
                call check("half after rejected loads: finite", all(abs(half) < 10))
            end if
        end block

        ! line_list and count_lines: NaN temperature (a field of params), blocks out of range.
        p = open_params(296.0_dp, 1.0_dp, 0.0_dp)
        p%temperature = nan
        call reset_bad_outputs()
        call atomgpu_linestrength_line_list(h, b4, [b5], p, bad_n_lines, bad_upper_id, bad_lower_id, bad_a, bad_nu, &
            bad_s, bad_i, stat)
        call expect_bad("line_list: NaN temperature", 5, "params", "temperature")
        call reset_bad_outputs()
        call atomgpu_linestrength_count_lines(h, b4, [b5], p, bad_n_lines, stat)
        call expect_bad("count_lines: NaN temperature", 5, "params", "temperature")
        p = open_params(296.0_dp, 1.0_dp, 0.0_dp)
        p%batch = 0
        call reset_bad_outputs()
        call atomgpu_linestrength_count_lines(h, b4, [b5], p, bad_n_lines, stat)
        call expect_bad("count_lines: batch 0", 5, "params", "batch")
        p = open_params(296.0_dp, 1.0_dp, 0.0_dp)
        call reset_bad_outputs()
        call atomgpu_linestrength_line_list(h, b4, [b5, 7], p, bad_n_lines, bad_upper_id, bad_lower_id, bad_a, &
            bad_nu, bad_s, bad_i, stat)
        call expect_bad("line_list: upper block 7 of 4", 4, "upper_blocks", "element 2")
        call reset_bad_outputs()
        call atomgpu_linestrength_line_list(h, b4, [b5, b0], p, bad_n_lines, bad_upper_id, bad_lower_id, bad_a, &
            bad_nu, bad_s, bad_i, stat)
        call expect_bad("line_list: J' = 0 from J'' = 4", 4, "upper_blocks")
        call reset_bad_outputs()
        call atomgpu_linestrength_line_list(h, b4, [b5], p, bad_n_lines, bad_upper_id, bad_lower_id, bad_a(1:3), &
            bad_nu, bad_s, bad_i, stat)
        call expect_bad("line_list: size(einstein_a)", 6, "einstein_a")
        ! With filters the call is line_list_filtered, whose `lines` is argument 7.
        call reset_bad_outputs()
        call atomgpu_linestrength_line_list(h, b4, [b5], p, bad_n_lines, bad_upper_id, bad_lower_id, bad_a, &
            bad_nu, bad_s(1:3), bad_i, stat, filters=atomgpu_line_filters_t())
        call expect_bad("line_list_filtered: size(linestrength)", 7, "linestrength")
        call reset_bad_outputs()
        call atomgpu_linestrength_count_lines(h, 0, [b5], p, bad_n_lines, stat)
        call expect_bad("count_lines: lower block 0", 2, "lower_block")
        call reset_bad_outputs()
        call atomgpu_linestrength_count_lines(h, b4, [integer ::], p, bad_n_lines, stat)
        call expect_bad("count_lines: no upper blocks", 3, "n_upper_blocks")

        ! A copy of the variable outlives the handle it names: the library refuses it.
        copy = h
        call atomgpu_linestrength_destroy(h)
        call reset_bad_outputs()
        call atomgpu_linestrength_state_id(h, 1, 1_i8, bad_id, stat)
        call expect_bad("state_id: destroyed handle", 1, "handle")
        call reset_bad_outputs()
        call atomgpu_linestrength_state_id(copy, 1, 1_i8, bad_id, stat)
        call expect_bad("state_id: handle destroyed through another copy", 1, "handle", "destroyed")
        call atomgpu_linestrength_destroy(copy, stat)
        call expect_bad("second destroy through the copy", 1, "handle", "destroyed")
    end subroutine

    subroutine reset_bad_outputs()
        bad_block = -7
        bad_n_lines = -7
        bad_id = -7
        bad_np = -7
        bad_nc = -7
        bad_ns = -7
        bad_half = sentinel
        bad_amp = sentinel
        bad_amp_row = sentinel
        bad_upper_id = -7
        bad_lower_id = -7
        bad_counts = -7
        bad_a = sentinel
        bad_nu = sentinel
        bad_s = sentinel
        bad_i = sentinel
    end subroutine

    ! stat, argument position and name (and fragment) as invalid_argument_reported checks them,
    ! and every bad_* output untouched.
    subroutine expect_bad(what, position, name, fragment)
        character(len=*), intent(in) :: what, name
        integer, intent(in) :: position
        character(len=*), intent(in), optional :: fragment
        logical :: ok
        checks = checks + 1
        ok = invalid_argument_reported(what, stat, position, name, fragment)
        if (bad_block /= -7 .or. bad_n_lines /= -7 .or. bad_id /= -7 .or. bad_np /= -7 .or. bad_nc /= -7 &
            .or. bad_ns /= -7 .or. any(bad_half /= sentinel) .or. any(bad_amp /= sentinel) .or. any(bad_amp_row /= sentinel) &
            .or. any(bad_upper_id /= -7) .or. any(bad_lower_id /= -7) .or. any(bad_counts /= -7) &
            .or. any(bad_a /= sentinel) &
            .or. any(bad_nu /= sentinel) .or. any(bad_s /= sentinel) .or. any(bad_i /= sentinel)) then
            print '(a, a, a)', "FAIL ", what, ": an output was written on error"
            ok = .false.
        end if
        if (.not. ok) failures = failures + 1
    end subroutine

    ! As expect_bad, for calls whose outputs are not bad_* (or that have none).
    subroutine expect_bad_only(what, position, name, fragment)
        character(len=*), intent(in) :: what, name
        integer, intent(in) :: position
        character(len=*), intent(in), optional :: fragment
        checks = checks + 1
        if (.not. invalid_argument_reported(what, stat, position, name, fragment)) failures = failures + 1
    end subroutine

    ! (g) The ABI 5 fields: TROVE's THRESH_LINE on the raw sum R = mu^2/3 of a J = 1 <- 0 line with
    ! g_ns = 3 (S = 9 R; a threshold of 5 R keeps S, not R); emission from J = 1 into J = 0 with
    ! A(1 -> 0) = a_coef mu^2 nu^3 / 3 (the constant above, from mpmath); TM between the J = 0
    ! states of a two-function model with unit vectors, where TROVE's formula gives
    ! tm(m, 1, 1) = dipole(I, F, m), |TM| its norm, and the pairs with nu >= 0.
    subroutine test_trove_mode_and_moments()
        real(dp), parameter :: mu = 1.2_dp, raw = mu**2 / 3
        type(atomgpu_linestrength_t) :: h, hv
        type(atomgpu_intensity_params_t) :: p
        real(dp) :: dipole(1, 1, 3), dv(2, 2, 3)
        integer :: b0, b1, bv, e
        integer(i8) :: n_lines, counts(5), upper_id(1), lower_id(1), n_moments, ids(4, 2)
        real(dp) :: a(1), wn(1), s(1), inten(1), nu(4), tm(4), av(4), iv(4), comp(3, 3, 3, 4)
        integer(i8), parameter :: want_lower(3) = [1, 1, 2], want_upper(3) = [1, 2, 2]

        dipole = 0
        dipole(1, 1, 3) = mu
        call atomgpu_linestrength_create(h, dipole, stat=stat)
        if (.not. succeeded("ABI 5: create", stat)) return
        b0 = -1
        b1 = -1
        call atomgpu_linestrength_add_block(h, 0, 3.0_dp, [1_i8], [0], [0], b0, stat=stat)
        call atomgpu_linestrength_add_block(h, 1, 3.0_dp, [1_i8], [0], [1], b1, stat=stat)
        call atomgpu_linestrength_set_states(h, b0, [0.0_dp], identity(1), stat)
        call atomgpu_linestrength_set_states(h, b1, [5.0_dp], identity(1), stat)
        p = open_params(296.0_dp, 10.0_dp, 0.0_dp)
        call check("ABI 5: convention and action default to documented absorption", &
            p%convention == ATOMGPU_CONVENTION_DOCUMENTED .and. p%action == ATOMGPU_ACTION_ABSORPTION)
        p%thresh_line = 5 * raw
        call atomgpu_linestrength_count_lines(h, b0, [b1], p, n_lines, stat, counts=counts)
        if (succeeded("ABI 5: documented count", stat)) call check("documented: S = 9 R >= 5 R kept", n_lines == 1)
        p%convention = ATOMGPU_CONVENTION_TROVE
        call atomgpu_linestrength_count_lines(h, b0, [b1], p, n_lines, stat, counts=counts)
        if (succeeded("ABI 5: TROVE count", stat)) then
            call check("TROVE: R < 5 R dropped by THRESH_LINE", n_lines == 0 .and. counts(4) == 1)
        end if
        p%convention = ATOMGPU_CONVENTION_DOCUMENTED
        p%thresh_line = 0
        p%action = ATOMGPU_ACTION_EMISSION
        call atomgpu_linestrength_line_list(h, b1, [b0], p, n_lines, upper_id, lower_id, a, wn, s, inten, stat)
        if (succeeded("ABI 5: emission", stat)) then
            call check("emission: one line, nu = E_I - E_F = 5", n_lines == 1 .and. abs(wn(1) - 5) < 1e-14_dp)
            call check_rel("emission: A(1 -> 0) = a_coef mu^2 nu^3 / 3", a(1), a_coef * mu**2 * 125 / 3, tol)
        end if
        p%action = ATOMGPU_ACTION_TM
        call atomgpu_linestrength_line_list(h, b1, [b0], p, n_lines, upper_id, lower_id, a, wn, s, inten, stat)
        call check("ABI 5: line_list refuses TM", stat == ATOMGPU_ERR_INVALID_ARGUMENT)
        call atomgpu_linestrength_destroy(h)

        dv(:, :, 1) = reshape([0.5_dp, 0.2_dp, 0.2_dp, -0.3_dp], [2, 2])
        dv(:, :, 2) = reshape([0.0_dp, 0.4_dp, -0.4_dp, 0.0_dp], [2, 2])
        dv(:, :, 3) = reshape([1.1_dp, 0.7_dp, 0.7_dp, 0.9_dp], [2, 2])
        call atomgpu_linestrength_create(hv, dv, stat=stat)
        if (.not. succeeded("TM: create", stat)) return
        bv = -1
        call atomgpu_linestrength_add_block(hv, 0, 0.0_dp, [1_i8, 2_i8], [0, 0], [0, 0], bv, stat=stat)
        call atomgpu_linestrength_set_states(hv, bv, [0.0_dp, 100.0_dp], identity(2), stat)
        p%convention = ATOMGPU_CONVENTION_TROVE
        comp = sentinel
        call atomgpu_linestrength_transition_moments(hv, bv, [bv], p, n_moments, ids(:, 1), ids(:, 2), nu, tm, av, &
            iv, comp, stat, counts)
        if (succeeded("TM: transition_moments", stat)) then
            call check("TM: 3 pairs with nu >= 0 (1->1, 1->2, 2->2), 1 below", n_moments == 3 .and. counts(3) == 1)
            do e = 1, 3
                call check("TM: IDs in order", ids(e, 2) == want_lower(e) .and. ids(e, 1) == want_upper(e))
                call check_rel("TM: tm(m, 1, 1) = dipole(I, F, m)", norm2(comp(:, 1, 1, e) - &
                    dv(want_lower(e), want_upper(e), :)) + 1, 1.0_dp, tol)
                call check_rel("TM: |TM| = norm", tm(e), norm2(dv(want_lower(e), want_upper(e), :)), tol)
                call check("TM: only the (1, 1) component pair is non-zero", all(comp(:, 2:, :, e) == 0) .and. &
                    all(comp(:, 1, 2:, e) == 0))
            end do
            call check_rel("TM: A_vib = A_coef |TM|^2 nu^3 (TROVE's A_coef 3.136189321927909e-7)", av(2), &
                3.136189321927909e-7_dp * tm(2)**2 * 100.0_dp**3, tol)
        end if
        n_moments = -1
        call atomgpu_linestrength_transition_moments(hv, bv, [bv], p, n_moments, ids(:0, 1), ids(:0, 2), nu(:0), &
            tm(:0), av(:0), iv(:0), comp(:, :, :, :0), stat)
        if (succeeded("TM: count", stat)) call check("TM: capacity 0 counts", n_moments == 3)
        call atomgpu_linestrength_destroy(hv)
    end subroutine

end program test_linestrength
