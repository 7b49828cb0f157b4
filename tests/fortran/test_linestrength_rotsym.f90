! The rotsym route (TROVE's rotsym_do) through the Fortran wrappers: the same states on a
! symmetrised rotational basis give the same transition amplitudes as on the Wang basis (the
! reference: the Wang route with the states unchanged; an orthogonal change of the rotational
! basis must not change a physical amplitude), and bad bases and labels are refused with the
! argument named (1-based labels).
program test_linestrength_rotsym
    use, intrinsic :: iso_c_binding, only: c_double, c_int64_t
    use atomgpu
    use atomgpu_test_checks
    implicit none

    integer, parameter :: dp = c_double, i8 = c_int64_t
    integer :: stat
    integer(i8) :: clock_start

    call system_clock(clock_start)
    call test_basis_invariance()
    call test_bad_input()
    print '(a, i0, a, i0, a, f0.2, a)', "test_linestrength_rotsym (Fortran): ", checks, " checks, ", failures, &
        " failures (", elapsed_seconds(clock_start), " s)"
    if (failures /= 0) error stop 1

contains

    ! A dipole 2 x 2 x 3 with every component non-zero.
    function model_dipole() result(d)
        real(dp) :: d(2, 2, 3)
        d(:, :, 1) = reshape([0.3_dp, 0.7_dp, 0.7_dp, -0.2_dp], [2, 2])
        d(:, :, 2) = reshape([0.0_dp, 0.5_dp, -0.5_dp, 0.0_dp], [2, 2])
        d(:, :, 3) = reshape([1.1_dp, -0.4_dp, -0.4_dp, 0.9_dp], [2, 2])
    end function

    ! E_1: Wang function 1 alone (level 1), functions 2 and 3 rotated by 0.4 rad (level 2,
    ! components 1 and 2).
    function basis_j1() result(e)
        real(dp) :: e(3, 3)
        e = 0
        e(1, 1) = 1
        e(2:3, 2) = [cos(0.4_dp), sin(0.4_dp)]
        e(2:3, 3) = [-sin(0.4_dp), cos(0.4_dp)]
    end function

    subroutine test_basis_invariance()
        type(atomgpu_linestrength_t) :: wang, rotsym
        real(dp) :: dipole(2, 2, 3), e1(3, 3), e2(5, 5), lower(6, 2), lower_rs(6, 2), upper(10, 3), amp_w(3, 2), amp_r(3, 2)
        integer(i8) :: v1(6), v2(10)
        integer :: k1(6), t1(6), k2(10), t2(10), level1(6), deg1(6), level2(10), deg2(10), bw(2), br(2), i, c, v
        dipole = model_dipole()
        e1 = basis_j1()
        e2 = 0
        do i = 1, 5
            e2(i, i) = 1
        end do
        ! J = 1 functions (v, Wang c), v fastest; J = 2 likewise.
        do c = 1, 3
            do v = 1, 2
                i = v + 2 * (c - 1)
                v1(i) = v
                k1(i) = c / 2
                t1(i) = merge(1, mod(c, 2), c == 1)
                level1(i) = merge(1, 2, c == 1)
                deg1(i) = merge(1, c - 1, c == 1)
            end do
        end do
        do c = 1, 5
            do v = 1, 2
                i = v + 2 * (c - 1)
                v2(i) = v
                k2(i) = c / 2
                t2(i) = merge(0, mod(c, 2), c == 1)
                level2(i) = c
                deg2(i) = 1
            end do
        end do
        lower = reshape([(0.1_dp * i - 0.55_dp, i = 1, 12)], [6, 2])
        upper = reshape([(sin(1.0_dp * i), i = 1, 30)], [10, 3])
        ! The lower states on E_1: c'(v, col) = sum_a E_1(a, col) c(v, a).
        do i = 1, 2
            lower_rs(:, i) = reshape(matmul(reshape(lower(:, i), [2, 3]), e1), [6])
        end do
        call atomgpu_linestrength_create(wang, dipole, 0_i8, stat)
        if (.not. succeeded("create (Wang)", stat)) return
        call atomgpu_linestrength_create(rotsym, dipole, 0_i8, stat)
        if (.not. succeeded("create (rotsym)", stat)) return
        call atomgpu_linestrength_add_block(wang, 1, 1.0_dp, v1, k1, t1, bw(1), stat=stat)
        if (.not. succeeded("Wang J = 1", stat)) return
        call atomgpu_linestrength_add_block(wang, 2, 1.0_dp, v2, k2, t2, bw(2), stat=stat)
        if (.not. succeeded("Wang J = 2", stat)) return
        call atomgpu_linestrength_set_rotational_basis(rotsym, 1, e1, [1, 2, 2], [1, 1, 2], stat)
        if (.not. succeeded("basis J = 1", stat)) return
        call atomgpu_linestrength_set_rotational_basis(rotsym, 2, e2, [1, 2, 3, 4, 5], [1, 1, 1, 1, 1], stat)
        if (.not. succeeded("basis J = 2", stat)) return
        call atomgpu_linestrength_add_block_rotsym(rotsym, 1, 1, 1.0_dp, v1, level1, deg1, 1, br(1), stat=stat)
        if (.not. succeeded("rotsym J = 1", stat)) return
        call atomgpu_linestrength_add_block_rotsym(rotsym, 2, 1, 1.0_dp, v2, level2, deg2, 1, br(2), stat=stat)
        if (.not. succeeded("rotsym J = 2", stat)) return
        call atomgpu_linestrength_set_states(wang, bw(2), [1.0_dp, 2.0_dp, 3.0_dp], upper, stat)
        call atomgpu_linestrength_set_states(rotsym, br(2), [1.0_dp, 2.0_dp, 3.0_dp], upper, stat)
        call atomgpu_linestrength_load_lower(wang, bw(1), lower, 0.0_dp, stat)
        call atomgpu_linestrength_load_lower(rotsym, br(1), lower_rs, 0.0_dp, stat)
        call atomgpu_linestrength_amplitudes(wang, bw(2), 0.0_dp, amp_w, stat)
        if (.not. succeeded("amplitudes (Wang)", stat)) return
        call atomgpu_linestrength_amplitudes(rotsym, br(2), 0.0_dp, amp_r, stat)
        if (.not. succeeded("amplitudes (rotsym)", stat)) return
        call check("amplitudes are not all zero", maxval(abs(amp_w)) > 0.1_dp)
        do i = 1, 2
            do c = 1, 3
                call check_abs("amplitude on the rotated basis", amp_r(c, i), amp_w(c, i), 1e-13_dp)
            end do
        end do
        call atomgpu_linestrength_destroy(wang)
        call atomgpu_linestrength_destroy(rotsym)
    end subroutine

    subroutine test_bad_input()
        type(atomgpu_linestrength_t) :: h
        real(dp) :: e1(3, 3), skew(3, 3)
        integer(i8) :: v(2)
        integer :: block
        call atomgpu_linestrength_create(h, model_dipole(), 0_i8, stat)
        if (.not. succeeded("create", stat)) return
        e1 = basis_j1()
        call atomgpu_linestrength_set_rotational_basis(h, 1, e1(:, 1:2), [1, 2, 2], [1, 1, 2], stat)
        call expect("e with 2 columns", 3, "e")
        skew = e1
        skew(1, 2) = 1e-6_dp
        call atomgpu_linestrength_set_rotational_basis(h, 1, skew, [1, 2, 2], [1, 1, 2], stat)
        call expect("e not orthogonal", 3, "e")
        call atomgpu_linestrength_set_rotational_basis(h, 1, e1, [0, 2, 2], [1, 1, 2], stat)
        call expect("level 0", 4, "level")
        call atomgpu_linestrength_set_rotational_basis(h, 1, e1, [1, 2, 2], [1, 1, 1], stat)
        call expect("component twice", 5, "deg_of_column")
        v = [1, 2]
        block = -7
        call atomgpu_linestrength_add_block_rotsym(h, 1, 1, 1.0_dp, v, [1, 1], [1, 1], 1, block, stat=stat)
        call expect("no basis yet", 2, "j")
        call atomgpu_linestrength_set_rotational_basis(h, 1, e1, [1, 2, 2], [1, 1, 2], stat)
        if (.not. succeeded("basis", stat)) return
        call atomgpu_linestrength_add_block_rotsym(h, 1, 1, 1.0_dp, v, [1, 3], [1, 1], 1, block, stat=stat)
        call expect("level beyond the basis", 7, "level")
        call atomgpu_linestrength_add_block_rotsym(h, 1, 1, 1.0_dp, v, [1, 1], [1, 2], 1, block, stat=stat)
        call expect("component beyond the level", 8, "deg")
        call check("block untouched", block == -7)
        call atomgpu_linestrength_destroy(h)
    end subroutine

    subroutine expect(what, position, name)
        character(len=*), intent(in) :: what, name
        integer, intent(in) :: position
        checks = checks + 1
        if (.not. invalid_argument_reported(what, stat, position, name)) failures = failures + 1
    end subroutine

end program test_linestrength_rotsym
