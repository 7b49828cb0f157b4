! test_sturmian.f90: calls every Sturmian wrapper of module atomgpu and checks the numbers
! against values known independently of the library (the C test tests/c/test_sturmian.c, in
! short):
!   (a) the Gauss-Legendre grid of [0, 40] (nq 96, ns 9): weights summing to 40, abscissa j at
!       point 1 + (j - 1)(ns + 1), rmax last;
!   (b) hydrogenic channels (Z = 1, l = 0) for both electrons, P_1s = 2 r e^-r and
!       P_2s = r (1 - r/2) e^(-r/2) / sqrt(2) on the grid's points: overlap = identity (1e-10),
!       I[-1/r] diagonal -1 and -1/4, F0(1s,1s) = 5/8, F0(1s,2s) = 17/81, G0(1s,2s) = 16/729,
!       F0(2s,2s) = 77/512 (1e-8) in both index orders; the same channels times e^(i theta) in a
!       complex basis: bilinear products, overlap e^(2 i theta), F0 5/8 e^(4 i theta);
!   (c) angular coefficients: 4 pi A = 1 for all-s states at l = 0, 0 off the triangle rule;
!   (d) the helium s-limit with GSF channels (N = 8): E0 in (-2.8791, -2.87), above the
!       s-limit -2.879028767; H = one-electron block + R^0, S = Oa x Ob;
!   (e) bad input through stat (l = -1, n = 0, a NaN value, an unknown electron, shapes, a
!       real array for a complex basis, a destroyed handle, a basis never created, ...):
!       stat = ATOMGPU_ERR_INVALID_ARGUMENT, the argument's position in the C function, its name
!       in the message, untouched outputs.
!
! Build (from the repository root, after `cargo build --release`):
!   gfortran -std=f2018 -Wall -fcheck=all fortran/atomgpu.f90 tests/fortran/support/checks.f90 \
!       tests/fortran/test_sturmian.f90 -o test_sturmian -Ltarget/release -latomgpu \
!       -Wl,-rpath,$PWD/target/release
! Exit status 0 when every check passes (error stop 1 otherwise).
program test_sturmian
    use, intrinsic :: iso_c_binding, only: c_double, c_double_complex, c_int64_t, c_null_ptr, c_ptr, c_f_pointer, &
        c_associated
    use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
    use atomgpu
    use atomgpu_test_checks
    implicit none

    integer, parameter :: dp = c_double, i8 = c_int64_t
    real(dp), parameter :: sentinel = -12345.0_dp, rmax = 40.0_dp
    integer, parameter :: nq = 96, ns = 9
    integer :: np
    real(dp) :: abscissas(nq), weights(nq)
    real(dp), allocatable :: points(:), hyd(:, :)
    real(dp) :: minus_one_over_r(nq)
    integer(i8) :: clock_start

    call system_clock(clock_start)
    np = int(atomgpu_sturmian_n_points(nq, ns))
    call check("n_points = nq + 1 + nq ns", np == nq + 1 + nq * ns)
    allocate (points(np), hyd(np, 2))
    call test_grid()
    hyd(:, 1) = 2 * points * exp(-points)
    hyd(:, 2) = points * (1 - points / 2) * exp(-points / 2) / sqrt(2.0_dp)
    minus_one_over_r = -1 / abscissas
    call test_hydrogenic()
    call test_complex()
    call test_angular()
    call test_helium()
    call test_spread()
    call test_bad_input()

    print '(a, i0, a, i0, a, f0.2, a)', "test_sturmian (Fortran): ", checks, " checks, ", failures, &
        " failures (", elapsed_seconds(clock_start), " s)"
    if (failures /= 0) error stop 1

contains

    ! (a)
    subroutine test_grid()
        integer :: stat, j
        real(dp) :: a2(nq), w2(nq)
        call atomgpu_sturmian_grid(rmax, ns, abscissas, weights, points, stat=stat)
        if (.not. succeeded("grid (40, 96, 9)", stat)) error stop 1
        call check_rel("grid: the weights sum to rmax", sum(weights), rmax, 1e-13_dp)
        call check("grid: abscissa j at point 1 + (j - 1)(ns + 1)", &
            all([(points(1 + (j - 1) * (ns + 1)) == abscissas(j), j = 1, nq)]))
        call check("grid: points ascending", all(points(2:) > points(:np - 1)))
        call check("grid: rmax last", points(np) == rmax)
        ! weights and points are optional: the abscissas come out the same without them.
        a2 = sentinel
        call atomgpu_sturmian_grid(rmax, ns, a2, stat=stat)
        if (succeeded("grid without weights and points", stat)) call check("grid: abscissas alone the same", &
            all(a2 == abscissas))
        a2 = sentinel
        w2 = sentinel
        call atomgpu_sturmian_grid(rmax, ns, a2, w2, stat=stat)
        if (succeeded("grid without points", stat)) call check("grid: without points, the same abscissas and weights", &
            all(a2 == abscissas) .and. all(w2 == weights))
    end subroutine

    ! Row (or column) of the two-electron function (na, nb), 0-based functions, 2 x 2 channels.
    integer function pair_row(na, nb, order)
        integer, intent(in) :: na, nb, order
        if (order == ATOMGPU_ORDER_A_FASTEST) then
            pair_row = 1 + na + 2 * nb
        else
            pair_row = 1 + nb + 2 * na
        end if
    end function

    ! (b), real basis.
    subroutine test_hydrogenic()
        type(atomgpu_sturmian_basis) :: b
        real(dp) :: overlap(3, 2), potential(3, 2), r(5, 4)
        integer :: stat, e, order
        call atomgpu_sturmian_create(b, rmax, nq, ns, stat=stat)
        if (.not. succeeded("create (real)", stat)) return
        do e = ATOMGPU_ELECTRON_A, ATOMGPU_ELECTRON_B
            call atomgpu_sturmian_add_channel(b, e, 0, hyd, [1.0_dp, 2.0_dp], minus_one_over_r, stat=stat)
            if (.not. succeeded("add_channel hydrogenic", stat)) return
        end do
        do e = ATOMGPU_ELECTRON_A, ATOMGPU_ELECTRON_B
            overlap = sentinel
            potential = sentinel
            call atomgpu_sturmian_one_electron(b, e, 0, overlap, potential, stat=stat)
            if (.not. succeeded("one_electron (leading dimension 3)", stat)) cycle
            call check_abs("overlap <1s|1s> = 1", overlap(1, 1), 1.0_dp, 1e-10_dp)
            call check_abs("overlap <2s|1s> = 0", overlap(2, 1), 0.0_dp, 1e-10_dp)
            call check_abs("overlap <2s|2s> = 1", overlap(2, 2), 1.0_dp, 1e-10_dp)
            call check_abs("<1s|-1/r|1s> = -1", potential(1, 1), -1.0_dp, 1e-10_dp)
            call check_abs("<2s|-1/r|2s> = -1/4", potential(2, 2), -0.25_dp, 1e-10_dp)
            call check("one_electron: row 3 untouched", all(overlap(3, :) == sentinel))
        end do
        do order = ATOMGPU_ORDER_A_FASTEST, ATOMGPU_ORDER_B_FASTEST
            r = sentinel
            call atomgpu_sturmian_repulsion(b, 0, 0, 0, 0, 0, order, r, stat=stat)
            if (.not. succeeded("repulsion", stat)) cycle
            call check_abs("F0(1s,1s) = 5/8", r(pair_row(0, 0, order), pair_row(0, 0, order)), 5 / 8.0_dp, 1e-8_dp)
            call check_abs("F0(1s,2s) = 17/81", r(pair_row(0, 1, order), pair_row(0, 1, order)), 17 / 81.0_dp, 1e-8_dp)
            call check_abs("G0(1s,2s) = 16/729", r(pair_row(0, 1, order), pair_row(1, 0, order)), 16 / 729.0_dp, &
                1e-8_dp)
            call check_abs("F0(2s,2s) = 77/512", r(pair_row(1, 1, order), pair_row(1, 1, order)), 77 / 512.0_dp, &
                1e-8_dp)
            call check("repulsion: row 5 untouched", all(r(5, :) == sentinel))
        end do
        ! repulsion_dev: a NULL device pointer is refused on any backend.
        call atomgpu_sturmian_repulsion_dev(b, 0, 0, 0, 0, 0, 0, c_null_ptr, 16_i8, 4_i8, stat=stat)
        call expect_invalid("repulsion_dev: NULL out_dev", stat, 8, "out_dev", .true.)
        call atomgpu_sturmian_destroy(b)
    end subroutine

    ! (b), complex basis: the hydrogenic functions times c = e^(i theta); products are bilinear.
    subroutine test_complex()
        type(atomgpu_sturmian_basis) :: b
        complex(c_double_complex) :: c, overlap(2, 2), potential(2, 2), r(4, 4)
        integer :: stat, e
        c = exp(cmplx(0.0_dp, 0.3_dp, kind=dp))
        call atomgpu_sturmian_create(b, rmax, nq, ns, is_complex=.true., stat=stat)
        if (.not. succeeded("create (complex)", stat)) return
        do e = ATOMGPU_ELECTRON_A, ATOMGPU_ELECTRON_B
            call atomgpu_sturmian_add_channel(b, e, 0, c * hyd, cmplx([1.0_dp, 2.0_dp], 0.0_dp, kind=dp), &
                minus_one_over_r, stat=stat)
            if (.not. succeeded("add_channel (complex)", stat)) return
        end do
        call atomgpu_sturmian_one_electron(b, ATOMGPU_ELECTRON_B, 0, overlap, potential, stat=stat)
        if (succeeded("one_electron (complex)", stat)) then
            call check_abs("complex overlap <1s|1s> = c^2 (re)", real(overlap(1, 1)), real(c * c), 1e-10_dp)
            call check_abs("complex overlap <1s|1s> = c^2 (im)", aimag(overlap(1, 1)), aimag(c * c), 1e-10_dp)
            call check_abs("complex <2s|-1/r|2s> = -c^2/4 (im)", aimag(potential(2, 2)), -aimag(c * c) / 4, 1e-10_dp)
        end if
        call atomgpu_sturmian_repulsion(b, 0, 0, 0, 0, 0, ATOMGPU_ORDER_A_FASTEST, r, stat=stat)
        if (succeeded("repulsion (complex)", stat)) then
            call check_abs("complex F0(1s,1s) = 5/8 c^4 (re)", real(r(1, 1)), real(5 / 8.0_dp * c**4), 1e-8_dp)
            call check_abs("complex F0(1s,1s) = 5/8 c^4 (im)", aimag(r(1, 1)), aimag(5 / 8.0_dp * c**4), 1e-8_dp)
        end if
        call atomgpu_sturmian_destroy(b)
    end subroutine

    ! (c)
    subroutine test_angular()
        real(dp) :: a
        integer :: stat
        a = sentinel
        call atomgpu_sturmian_angular(0, 0, 0, 0, 0, 0, 0, a, stat=stat)
        if (succeeded("angular all s, l = 0", stat)) call check_rel("4 pi A = 1 (all s, l = 0)", 4 * pi * a, 1.0_dp, &
            1e-14_dp)
        call atomgpu_sturmian_angular(0, 0, 0, 0, 0, 0, 1, a, stat=stat)
        if (succeeded("angular all s, l = 1", stat)) call check("A = 0 off the triangle rule", a == 0)
        a = sentinel
        call atomgpu_sturmian_angular(0, 1, 0, 0, 0, 0, 0, a, stat=stat)
        call expect_invalid("angular: |m| > l_total", stat, 2, "m", a == sentinel)
    end subroutine

    ! (d)
    ! The singlet Hamiltonian assembled into buffers of atomgpu_host_alloc (pinned on the GPU),
    ! mapped with c_f_pointer, equals `reference` (the same call into allocatable arrays); the
    ! buffers are released, and a second release is refused.
    subroutine pinned_singlet(b, params, reference)
        type(atomgpu_sturmian_basis), intent(in) :: b
        type(atomgpu_sturmian_params_t), intent(in) :: params
        real(dp), intent(in) :: reference(:, :)
        type(c_ptr) :: ph, ps, stale
        real(dp), pointer :: h(:, :), s(:, :)
        integer(c_int64_t) :: n, bytes
        integer :: stat
        n = size(reference, 1, kind=c_int64_t)
        bytes = 8 * n * n
        ph = c_null_ptr
        ps = c_null_ptr
        call atomgpu_host_alloc(bytes, ph, stat=stat)
        if (.not. succeeded("host_alloc h", stat)) return
        call atomgpu_host_alloc(bytes, ps, stat=stat)
        if (succeeded("host_alloc s", stat)) then
            call c_f_pointer(ph, h, [n, n])
            call c_f_pointer(ps, s, [n, n])
            call atomgpu_sturmian_hamiltonian(b, params, [0], [0], ATOMGPU_ORDER_A_FASTEST, h, s, stat=stat)
            if (succeeded("hamiltonian into host_alloc buffers", stat)) &
                call check_abs("hamiltonian into host_alloc buffers = into allocatables", &
                    maxval(abs(h - reference)) / maxval(abs(reference)), 0.0_dp, 1e-14_dp)
            call atomgpu_host_free(ps, stat=stat)
            if (succeeded("host_free s", stat)) call check("host_free nulls the pointer", .not. c_associated(ps))
        end if
        stale = ph
        call atomgpu_host_free(ph, stat=stat)
        if (succeeded("host_free h", stat)) then
            call atomgpu_host_free(stale, stat=stat)
            call expect_invalid("host_free twice", stat, 1, "ptr", .true.)
        end if
    end subroutine

    subroutine test_helium()
        integer, parameter :: n = 8, m = n * (n + 1) / 2   ! m: the singlet basis's size
        type(atomgpu_sturmian_basis) :: b
        type(atomgpu_gsf_params_t) :: gsf
        type(atomgpu_sturmian_params_t) :: params, singlet
        real(dp), allocatable :: h(:, :), s(:, :), h1(:, :), s1(:, :), r0(:, :), vectors(:, :), s_short(:, :)
        real(dp), allocatable :: h_singlet(:, :), s_singlet(:, :)
        real(dp) :: e_singlet(1)
        real(dp) :: beta(n), energies(3)
        integer(i8) :: size_h
        integer :: stat
        gsf = atomgpu_gsf_params_t(nuclear_charge=2.0_dp, energy=-2.2_dp, yukawa_strength=2.0_dp, &
            yukawa_range=1.0_dp, n_parent=n + 10, lambda=2.0_dp)
        params = atomgpu_sturmian_params_t(l_total=0, m=0, energy_a=-2.2_dp, energy_b=-2.2_dp, &
            nuclear_charge=2.0_dp, interaction_charge=1.0_dp)
        singlet = params
        singlet%exchange = ATOMGPU_EXCHANGE_SYMMETRIC
        call atomgpu_sturmian_create(b, rmax, nq, ns, stat=stat)
        if (.not. succeeded("create (helium)", stat)) return
        beta = sentinel
        call atomgpu_sturmian_add_gsf(b, ATOMGPU_ELECTRON_A, 0, n, gsf, beta, stat=stat)
        if (.not. succeeded("add_gsf electron a", stat)) return
        call check("add_gsf: beta ascending", all(beta(2:) > beta(:n - 1)))
        call atomgpu_sturmian_add_gsf(b, ATOMGPU_ELECTRON_B, 0, n, gsf, stat=stat)
        if (.not. succeeded("add_gsf electron b (no beta)", stat)) return
        size_h = -1
        call atomgpu_sturmian_hamiltonian_size(b, params, [0], [0], size_h, stat=stat)
        if (.not. succeeded("hamiltonian_size", stat)) return
        call check("hamiltonian_size = N^2", size_h == n * n)
        call atomgpu_sturmian_hamiltonian_size(b, singlet, [0], [0], size_h, stat=stat)
        if (succeeded("hamiltonian_size (singlet)", stat)) &
            call check("hamiltonian_size (singlet) = N(N+1)/2", size_h == n * (n + 1) / 2)
        allocate (h(n * n, n * n), s(n * n, n * n), h1(n * n, n * n), s1(n * n, n * n), r0(n * n, n * n), &
            vectors(n * n, 3))
        call atomgpu_sturmian_hamiltonian(b, params, [0], [0], ATOMGPU_ORDER_A_FASTEST, h, s, stat=stat)
        if (.not. succeeded("hamiltonian", stat)) return
        call atomgpu_sturmian_one_electron_block(b, params, 0, 0, ATOMGPU_ORDER_A_FASTEST, h1, s1, stat=stat)
        if (succeeded("one_electron_block", stat)) then
            call atomgpu_sturmian_repulsion(b, 0, 0, 0, 0, 0, ATOMGPU_ORDER_A_FASTEST, r0, stat=stat)
            if (succeeded("repulsion (helium)", stat)) then
                call check_abs("H = one-electron block + R^0", maxval(abs(h - (h1 + r0))) / maxval(abs(h)), 0.0_dp, &
                    1e-12_dp)
                call check_abs("S = Oa x Ob", maxval(abs(s - s1)), 0.0_dp, 1e-14_dp)
            end if
        end if
        energies = sentinel
        call atomgpu_sturmian_solve(h, s, energies, vectors, stat=stat)
        if (succeeded("solve", stat)) then
            print '(a, i0, a, f14.10, a)', "helium s-limit, N = ", n, ": E0 = ", energies(1), &
                " (s-limit -2.879028767)"
            call check("helium s-limit E0 in (-2.8791, -2.87)", energies(1) > -2.8791_dp .and. energies(1) < -2.87_dp)
            call check("solve: energies ascending", energies(1) <= energies(2) .and. energies(2) <= energies(3))
            call check_abs("solve: c^T S c = 1", dot_product(vectors(:, 1), matmul(s, vectors(:, 1))), 1.0_dp, &
                1e-10_dp)
            ! The ground state is a singlet: the exchange-symmetric basis (N(N+1)/2 functions)
            ! gives the same lowest energy, since P12 commutes with H.
            allocate (h_singlet(n * (n + 1) / 2, n * (n + 1) / 2), s_singlet(n * (n + 1) / 2, n * (n + 1) / 2))
            call atomgpu_sturmian_hamiltonian(b, singlet, [0], [0], ATOMGPU_ORDER_A_FASTEST, h_singlet, s_singlet, &
                stat=stat)
            if (succeeded("hamiltonian (singlet)", stat)) then
                call atomgpu_sturmian_solve(h_singlet, s_singlet, e_singlet, stat=stat)
                if (succeeded("solve (singlet)", stat)) call check_abs("singlet E0 = direct E0", e_singlet(1), &
                    energies(1), 1e-10_dp)
            end if
            ! Arrays larger than needed (N^2 x N^2 for N(N+1)/2): the leading part is the result,
            ! the rest untouched (LAPACK's rule).
            h1 = sentinel
            s1 = sentinel
            call atomgpu_sturmian_hamiltonian(b, singlet, [0], [0], ATOMGPU_ORDER_A_FASTEST, h1, s1, stat=stat)
            if (succeeded("hamiltonian (singlet) into N^2 x N^2 arrays", stat)) then
                call check("hamiltonian (singlet) into larger arrays: the leading part is H and S", &
                    all(h1(:m, :m) == h_singlet) .and. all(s1(:m, :m) == s_singlet))
                call check("hamiltonian (singlet) into larger arrays: the rest untouched", &
                    all(h1(m + 1:, :) == sentinel) .and. all(h1(:, m + 1:) == sentinel) .and. &
                    all(s1(m + 1:, :) == sentinel) .and. all(s1(:, m + 1:) == sentinel))
            end if
            call pinned_singlet(b, singlet, h_singlet)
        end if
        energies = sentinel
        call atomgpu_sturmian_solve(h, s, energies, stat=stat)   ! vectors absent
        if (succeeded("solve without vectors", stat)) call check("solve without vectors: same E0", &
            abs(energies(1) - dot_product(vectors(:, 1), matmul(h, vectors(:, 1)))) < 1e-10_dp)
        ! Shape checks of the wrappers.
        energies = sentinel
        call atomgpu_sturmian_solve(h, s(:, :n), energies, vectors, stat=stat)
        call expect_invalid("solve: s of too few columns", stat, 4, "s", all(energies == sentinel))
        h1 = sentinel
        call atomgpu_sturmian_hamiltonian(b, params, [0], [0], ATOMGPU_ORDER_A_FASTEST, h1(:, :n), s1, stat=stat)
        call expect_invalid("hamiltonian: h of too few columns", stat, 9, "cols_h", all(h1 == sentinel))
        energies = sentinel
        call atomgpu_sturmian_solve(h, s, energies, vectors(:, :2), stat=stat)
        call expect_invalid("solve: vectors of 2 columns for 3 energies", stat, 10, "cols_vectors", &
            all(energies == sentinel))
        call atomgpu_sturmian_hamiltonian(b, params, [0], [0, 0], ATOMGPU_ORDER_A_FASTEST, h1, s1, stat=stat)
        call expect_invalid("hamiltonian: size(lb) /= size(la)", stat, 5, "lb", all(h1 == sentinel))
        call atomgpu_sturmian_hamiltonian(b, params, [0], [1], ATOMGPU_ORDER_A_FASTEST, h1, s1, stat=stat)
        call expect_invalid("hamiltonian: no channel lb = 1", stat, 5, "lb", all(h1 == sentinel))
        call atomgpu_sturmian_hamiltonian(b, params, [0], [0], 2, h1, s1, stat=stat)
        call expect_invalid("hamiltonian: order 2", stat, 6, "order", all(h1 == sentinel))
        allocate (s_short(n, n * n))   ! leading dimension n < Na Nb
        call atomgpu_sturmian_one_electron_block(b, params, 0, 0, ATOMGPU_ORDER_A_FASTEST, h1, s_short, stat=stat)
        call expect_invalid("one_electron_block: size(s, 1) < Na Nb", stat, 10, "ld_s", all(h1 == sentinel))
        call atomgpu_sturmian_repulsion(b, 0, 0, 0, 0, 0, ATOMGPU_ORDER_A_FASTEST, h1(:, :3), stat=stat)
        call expect_invalid("repulsion: out of too few columns", stat, 10, "cols_out", all(h1 == sentinel))
        params%m = 1
        call atomgpu_sturmian_hamiltonian(b, params, [0], [0], ATOMGPU_ORDER_A_FASTEST, h1, s1, stat=stat)
        call expect_invalid("hamiltonian: M = 1 > L = 0", stat, 2, "params", all(h1 == sentinel))
        gsf%n_parent = 401
        beta = sentinel
        call atomgpu_sturmian_add_gsf(b, ATOMGPU_ELECTRON_A, 1, n, gsf, beta, stat=stat)
        call expect_invalid("add_gsf: n_parent > 400", stat, 5, "params", all(beta == sentinel))
        call atomgpu_sturmian_add_gsf(b, ATOMGPU_ELECTRON_A, 1, n, gsf, beta(:3), stat=stat)
        call expect_invalid("add_gsf: size(beta) /= n", stat, 6, "beta", all(beta == sentinel))
        call atomgpu_sturmian_destroy(b)
    end subroutine

    ! (f) n_devices = 2 (two GPUs, or two CPU engines; one with a note when one GPU is visible):
    ! channels 1s, 2s (l = 0) and 2p (P = r^2 e^(-r/2) / (2 sqrt 6), l = 1) for both electrons, L = 0
    ! pairs (0, 0) and (1, 1): S = identity (orthonormal functions) to 1e-10 and H equal to one
    ! engine's within 1e-12 of its largest element; n_devices = 0 refused at argument 7.
    subroutine test_spread()
        type(atomgpu_sturmian_basis) :: spread, one, never
        type(atomgpu_sturmian_params_t) :: params
        real(dp) :: h(5, 5), s(5, 5), h1(5, 5), s1(5, 5), p2p(np, 1)
        real(dp), parameter :: identity(5, 5) = reshape([1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, &
            0, 0, 0, 1, 0, 0, 0, 0, 0, 1], [5, 5]) * 1.0_dp
        integer :: stat, e
        p2p(:, 1) = points**2 * exp(-points / 2) / (2 * sqrt(6.0_dp))
        params = atomgpu_sturmian_params_t(l_total=0, m=0, energy_a=-0.5_dp, energy_b=-0.5_dp, &
            nuclear_charge=1.0_dp, interaction_charge=1.0_dp)
        call atomgpu_sturmian_create(spread, rmax, nq, ns, stat=stat, n_devices=2)
        if (stat == ATOMGPU_ERR_INVALID_ARGUMENT .and. atomgpu_last_error_arg() == 7) then
            print '(a)', "note: 2 GPUs asked for, fewer visible: the spread case runs on one"
            call atomgpu_sturmian_create(spread, rmax, nq, ns, stat=stat, n_devices=1)
        end if
        if (.not. succeeded("create (n_devices = 2)", stat)) return
        call atomgpu_sturmian_create(one, rmax, nq, ns, stat=stat)
        if (.not. succeeded("create (one engine)", stat)) return
        do e = ATOMGPU_ELECTRON_A, ATOMGPU_ELECTRON_B
            call atomgpu_sturmian_add_channel(spread, e, 0, hyd, [1.0_dp, 2.0_dp], minus_one_over_r, stat=stat)
            if (succeeded("add_channel 1s, 2s (spread)", stat)) &
                call atomgpu_sturmian_add_channel(spread, e, 1, p2p, [2.0_dp], minus_one_over_r, stat=stat)
            if (succeeded("add_channel 2p (spread)", stat)) &
                call atomgpu_sturmian_add_channel(one, e, 0, hyd, [1.0_dp, 2.0_dp], minus_one_over_r, stat=stat)
            if (succeeded("add_channel 1s, 2s (one)", stat)) &
                call atomgpu_sturmian_add_channel(one, e, 1, p2p, [2.0_dp], minus_one_over_r, stat=stat)
            if (.not. succeeded("add_channel 2p (one)", stat)) return
        end do
        call atomgpu_sturmian_hamiltonian(spread, params, [0, 1], [0, 1], ATOMGPU_ORDER_A_FASTEST, h, s, stat=stat)
        if (succeeded("hamiltonian (spread)", stat)) &
            call atomgpu_sturmian_hamiltonian(one, params, [0, 1], [0, 1], ATOMGPU_ORDER_A_FASTEST, h1, s1, stat=stat)
        if (succeeded("hamiltonian (one engine)", stat)) then
            call check_abs("spread: S = identity", maxval(abs(s - identity)), 0.0_dp, 1e-10_dp)
            call check_abs("spread: H equals one engine's", maxval(abs(h - h1)) / maxval(abs(h1)), 0.0_dp, 1e-12_dp)
        end if
        call atomgpu_sturmian_destroy(spread)
        call atomgpu_sturmian_destroy(one)
        call atomgpu_sturmian_create(never, rmax, nq, ns, stat=stat, n_devices=0)
        call expect_invalid("create: n_devices = 0", stat, 7, "n_devices", .true.)
        call atomgpu_sturmian_destroy(never)
    end subroutine

    ! (e)
    subroutine test_bad_input()
        type(atomgpu_sturmian_basis) :: b, copy, never
        real(dp) :: overlap(2, 2), potential(2, 2), bad(np, 2), wrong_points(np - 1), short(np - 1, 2), one_row(1, 2)
        complex(c_double_complex) :: z(2, 2)
        integer :: stat
        wrong_points = sentinel
        call atomgpu_sturmian_grid(rmax, ns, abscissas, weights, wrong_points, stat=stat)
        call expect_invalid("grid: size(points) /= nq + 1 + nq ns", stat, 6, "points", all(wrong_points == sentinel))
        call atomgpu_sturmian_create(b, 0.0_dp, nq, ns, stat=stat)
        call expect_invalid("create: rmax = 0", stat, 1, "rmax", .true.)
        call atomgpu_sturmian_create(b, rmax, nq, ns, weights=weights, stat=stat)
        call expect_invalid("create: weights without abscissas", stat, 4, "abscissas", .true.)
        call atomgpu_sturmian_create(b, rmax, nq, 8, stat=stat)
        call expect_invalid("create: even ns", stat, 3, "ns", .true.)
        ! The caller's grid (the Gauss-Legendre one given explicitly).
        call atomgpu_sturmian_create(b, rmax, nq, ns, abscissas=abscissas, weights=weights, stat=stat)
        if (.not. succeeded("create (caller's grid)", stat)) return
        call atomgpu_sturmian_create(b, rmax, nq, ns, stat=stat)
        call expect_invalid("create: the variable holds a handle", stat, 7, "handle", .true.)
        bad = hyd
        bad(18, 2) = ieee_value(1.0_dp, ieee_quiet_nan)
        call atomgpu_sturmian_add_channel(b, 2, 0, hyd, [1.0_dp, 2.0_dp], minus_one_over_r, stat=stat)
        call expect_invalid("add_channel: unknown electron 2", stat, 2, "electron", .true.)
        call atomgpu_sturmian_add_channel(b, 0, -1, hyd, [1.0_dp, 2.0_dp], minus_one_over_r, stat=stat)
        call expect_invalid("add_channel: l = -1", stat, 3, "l", .true.)
        call atomgpu_sturmian_add_channel(b, 0, 0, hyd(:, :0), [real(dp) ::], minus_one_over_r, stat=stat)
        call expect_invalid("add_channel: n = 0", stat, 4, "n", .true.)
        call atomgpu_sturmian_add_channel(b, 0, 0, bad, [1.0_dp, 2.0_dp], minus_one_over_r, stat=stat)
        call expect_invalid("add_channel: NaN in values", stat, 5, "values", .true.)
        short = hyd(:np - 1, :)
        call atomgpu_sturmian_add_channel(b, 0, 0, short, [1.0_dp, 2.0_dp], minus_one_over_r, stat=stat)
        call expect_invalid("add_channel: size(values, 1) < n_points", stat, 6, "ld_values", .true.)
        call atomgpu_sturmian_add_channel(b, 0, 0, hyd, [1.0_dp], minus_one_over_r, stat=stat)
        call expect_invalid("add_channel: size(beta) /= n", stat, 7, "beta", .true.)
        call atomgpu_sturmian_add_channel(b, 0, 0, hyd, [1.0_dp, 2.0_dp], minus_one_over_r(:5), stat=stat)
        call expect_invalid("add_channel: size(generating) /= nq", stat, 8, "generating", .true.)
        call atomgpu_sturmian_add_channel(b, 0, 0, hyd, [1.0_dp, 2.0_dp], minus_one_over_r, minus_one_over_r(:5), &
            stat=stat)
        call expect_invalid("add_channel: size(central) /= nq", stat, 9, "central", .true.)
        call atomgpu_sturmian_add_channel(b, 0, 0, cmplx(hyd, 0.0_dp, kind=dp), cmplx([1.0_dp, 2.0_dp], 0.0_dp, &
            kind=dp), minus_one_over_r, stat=stat)
        call expect_invalid("add_channel: complex values for a real basis", stat, 5, "values", .true.)
        overlap = sentinel
        potential = sentinel
        call atomgpu_sturmian_one_electron(b, 0, 0, overlap, potential, stat=stat)
        call expect_invalid("one_electron: a channel never added", stat, 3, "l", all(overlap == sentinel))
        call atomgpu_sturmian_add_channel(b, 0, 0, hyd, [1.0_dp, 2.0_dp], minus_one_over_r, minus_one_over_r, &
            stat=stat)
        if (.not. succeeded("add_channel (central given)", stat)) return
        one_row = sentinel
        call atomgpu_sturmian_one_electron(b, 0, 0, one_row, one_row, stat=stat)
        call expect_invalid("one_electron: leading dimension < N", stat, 5, "ld_overlap", all(one_row == sentinel))
        call atomgpu_sturmian_one_electron(b, 0, 0, overlap, potential(:, :1), stat=stat)
        call expect_invalid("one_electron: generating of too few columns", stat, 9, "cols_generating", &
            all(overlap == sentinel))
        call atomgpu_sturmian_one_electron(b, 0, 0, z, z, stat=stat)
        call expect_invalid("one_electron: complex arrays for a real basis", stat, 4, "overlap", .true.)
        call atomgpu_sturmian_one_electron(b, 5, 0, overlap, potential, stat=stat)
        call expect_invalid("one_electron: unknown electron", stat, 2, "electron", all(overlap == sentinel))
        ! A destroyed handle (through a copy of the variable), and a variable never created.
        copy = b
        call atomgpu_sturmian_destroy(b, stat=stat)
        if (.not. succeeded("destroy", stat)) return
        call atomgpu_sturmian_one_electron(copy, 0, 0, overlap, potential, stat=stat)
        call expect_invalid("one_electron: a destroyed handle", stat, 1, "handle", all(overlap == sentinel))
        call atomgpu_sturmian_destroy(copy, stat=stat)
        call expect_invalid("destroy through a copy: destroyed already", stat, 1, "handle", .true.)
        call atomgpu_sturmian_one_electron(never, 0, 0, overlap, potential, stat=stat)
        call expect_invalid("one_electron: a basis never created", stat, 1, "handle", all(overlap == sentinel))
        call atomgpu_sturmian_destroy(never, stat=stat)
        call check("destroy of a basis never created is fine", stat == ATOMGPU_OK)
    end subroutine
end program test_sturmian
