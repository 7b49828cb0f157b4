! linelist_synthetic.f90: a TROVE-style line list of a small synthetic molecule through the
! line-strength family of module atomgpu, written in ExoMol format.
!
! The molecule (made up, but shaped like a real one):
! - vibrational basis: the n_vib = 240 lowest states of three anharmonic oscillators,
!   E(n) = sum_i omega_i (n_i + 1/2) + x_i (n_i + 1/2)^2;
! - vibrational dipole matrix dipole(v, v', m) [Debye], reproducible pseudo-random (a
!   Park-Miller generator with a fixed seed): x and z symmetric in (v, v'), y = 0 (a planar
!   molecule in its xz plane); a permanent dipole of about 1 D along z on the diagonal,
!   off-diagonal elements decaying as exp(-|v - v'| / 4) (z) and exp(-|v - v'| / 6) (x);
! - rotation: a prolate symmetric-top-like E_rot = B J(J+1) + (A - B) K^2, J = 0..10, one
!   symmetry species with g_ns = 1; the basis of block J holds the primitive functions
!   |v>|J, K, tau> (Wang, K = 0 with tau = mod(J, 2)) up to basis_cut above the ground level;
! - eigenstates: the primitive functions, ordered by energy, mixed in consecutive pairs by small
!   Givens rotations (angles below 0.1 rad), so the vectors are exactly orthonormal; the state
!   energies are the primitive energies (the vectors are then the exact eigenvectors of the
!   Hamiltonian R diag(E) R^T that this pairwise mixing R defines). Per J only the states below
!   state_cut are kept (at most ~310 per block).
!
! The line list at T = 296 K, with Q(T) summed over these states and TROVE-like thresholds,
! goes to <dir>/linelist.states (ID, E - ZPE [cm^-1], g_tot = g_ns (2J+1), J) and
! <dir>/linelist.trans (upper ID, lower ID, A [s^-1], nu [cm^-1]), ExoMol's formats
! (Tennyson et al., J. Mol. Spectrosc. 327 (2016) 73); <dir> is the first command-line argument
! (default out/; it is created when missing, with the C library's mkdir: no shell is involved,
! so any directory name is safe). Each file is written as <name>.partial and renamed to <name>
! only once it is complete, so a run that is killed leaves the earlier files intact and never a
! truncated one under the final name.
!
! Build and run from the repository root (scripts/linelist-demo.sh does both):
!     gfortran -O2 fortran/atomgpu.f90 examples/fortran/linelist_synthetic.f90 -o linelist_synthetic \
!         -Ltarget/release -latomgpu -Wl,-rpath,$PWD/target/release
!     ./linelist_synthetic out/linelist
! A few seconds on two CPU cores; ATOMGPU_BACKEND=cuda runs the products on a GPU.
program linelist_synthetic
    use, intrinsic :: iso_c_binding, only: c_double, c_int64_t, c_int, c_char, c_null_char
    use atomgpu
    implicit none

    ! The C library's mkdir and rename (POSIX), for directories and files without a shell.
    interface
        function c_mkdir(path, mode) bind(C, name="mkdir") result(status)
            import :: c_char, c_int
            character(kind=c_char), intent(in) :: path(*)
            integer(c_int), value :: mode
            integer(c_int) :: status
        end function
        function c_rename(old, new) bind(C, name="rename") result(status)
            import :: c_char, c_int
            character(kind=c_char), intent(in) :: old(*), new(*)
            integer(c_int) :: status
        end function
    end interface

    integer, parameter :: dp = c_double, i8 = c_int64_t

    ! ---- the molecule ----
    integer, parameter :: n_vib = 240                     ! vibrational basis size
    integer, parameter :: j_max = 10
    real(dp), parameter :: omega(3) = [1100.0_dp, 650.0_dp, 1400.0_dp]   ! harmonic wavenumbers [cm^-1]
    real(dp), parameter :: anharmonicity(3) = [-6.0_dp, -3.0_dp, -8.0_dp]  ! x_i [cm^-1]
    real(dp), parameter :: a_rot = 2.8_dp, b_rot = 0.42_dp  ! rotational constants [cm^-1]
    real(dp), parameter :: gns = 1.0_dp                     ! nuclear-spin weight of the one species
    real(dp), parameter :: basis_cut = 6000.0_dp            ! primitive basis: E - E_ground below it [cm^-1]
    real(dp), parameter :: state_cut = 3000.0_dp            ! states kept: E - E_ground below it [cm^-1]
    real(dp), parameter :: max_angle = 0.1_dp               ! largest Givens mixing angle [rad]
    integer(i8), parameter :: seed = 20170216_i8            ! of the Park-Miller generator

    ! ---- the line list (TROVE's INTENSITY block) ----
    real(dp), parameter :: temperature = 296.0_dp           ! [K]
    real(dp), parameter :: thresh_coeff = 1e-14_dp          ! THRESH_COEFF
    real(dp), parameter :: thresh_line = 1e-12_dp           ! THRESH_LINE [Debye^2]
    real(dp), parameter :: thresh_intens = 1e-30_dp         ! THRESH_INTES [cm/molecule]
    integer(i8), parameter :: batch = 128_i8                ! lower states per batch
    ! c2 = hc/k [cm K] with TROVE's constants (as the library uses them).
    real(dp), parameter :: c2 = 6.62606957e-27_dp * 2.99792458e10_dp / 1.3806488e-16_dp

    type(atomgpu_linestrength_t) :: h
    type(atomgpu_intensity_params_t) :: params
    real(dp) :: e_vib(n_vib), dipole(n_vib, n_vib, 3), zpe, q, e_ground
    integer :: n_quanta(3, n_vib)
    integer :: block(0:j_max), j, jl, n_upper
    integer(i8) :: n_states(0:j_max), first_id(0:j_max), s, id
    integer(i8) :: n_lines, total_lines, capacity, line, rng
    integer :: uppers(3)
    real(dp), allocatable :: energies(:, :)               ! (max states, 0:j_max)
    integer(i8), allocatable :: upper_id(:), lower_id(:)
    real(dp), allocatable :: einstein_a(:), wavenumber(:), linestrength(:), intensity(:)
    ! The strongest line (by intensity).
    real(dp) :: best_intensity, best_nu, best_a, best_s
    integer(i8) :: best_upper, best_lower
    integer :: best_jl
    integer(i8) :: clock_start, clock_rate, clock_mid, clock_end
    character(len=:), allocatable :: dir
    character(len=512) :: arg
    integer :: states_unit, trans_unit, backend
    character(len=:), allocatable :: device

    call system_clock(clock_start, clock_rate)
    dir = "out/"
    if (command_argument_count() >= 1) then
        call get_command_argument(1, arg)
        dir = trim(arg)
    end if
    if (dir(len(dir):len(dir)) /= "/") dir = dir // "/"
    call make_directories(dir)

    ! ---- vibrational basis and dipole matrix ----
    call vibrational_basis(e_vib, n_quanta)
    e_ground = e_vib(1)
    rng = seed
    call make_dipole(dipole, rng)
    call atomgpu_linestrength_create(h, dipole)

    ! ---- blocks J = 0..j_max with their states ----
    allocate (energies(0, 0:j_max))
    do j = 0, j_max
        call make_block(j, rng)
    end do
    ! ExoMol IDs run over the blocks in order: the first of block J, then s - 1 more.
    do j = 0, j_max
        call atomgpu_linestrength_state_id(h, block(j), 1_i8, first_id(j))
    end do
    zpe = minval(energies(1:n_states(0), 0))            ! the J = 0 ground state
    q = 0
    do j = 0, j_max
        q = q + gns * (2 * j + 1) * sum(exp(-c2 * (energies(1:n_states(j), j) - zpe) / temperature))
    end do

    ! ---- .states ----
    call open_partial(dir // "linelist.states", states_unit)
    do j = 0, j_max
        do s = 1, n_states(j)
            call atomgpu_linestrength_state_id(h, block(j), s, id)
            write (states_unit, '(i12, 1x, f12.6, 1x, i6, 1x, i7)') id, energies(s, j) - zpe, &
                nint(gns * (2 * j + 1)), j
        end do
    end do
    call close_complete(dir // "linelist.states", states_unit)
    call system_clock(clock_mid)

    ! ---- the line list: every lower block into its J - 1, J, J + 1 partners ----
    params%temperature = temperature
    params%partition_function = q
    params%zpe = zpe
    params%freq_window = [1e-6_dp, 1e5_dp]
    params%lower_energy = [0.0_dp, state_cut]
    params%upper_energy = [0.0_dp, 1e5_dp]
    params%thresh_coeff = thresh_coeff
    params%thresh_line = thresh_line
    params%thresh_intens = thresh_intens
    params%batch = batch
    call open_partial(dir // "linelist.trans", trans_unit)
    total_lines = 0
    best_intensity = -1
    do jl = 0, j_max
        n_upper = 0
        do j = max(jl - 1, 0), min(jl + 1, j_max)
            if (j + jl == 0) cycle                          ! J' = J'' = 0 has no lines
            n_upper = n_upper + 1
            uppers(n_upper) = block(j)
        end do
        ! Enough room for every pair (atomgpu_linestrength_count_lines gives the exact count, at
        ! the price of computing the list twice).
        capacity = n_states(jl) * sum(n_states(max(jl - 1, 0):min(jl + 1, j_max)))
        allocate (upper_id(capacity), lower_id(capacity), einstein_a(capacity), wavenumber(capacity), &
            linestrength(capacity), intensity(capacity))
        call atomgpu_linestrength_line_list(h, block(jl), uppers(1:n_upper), params, n_lines, upper_id, lower_id, &
            einstein_a, wavenumber, linestrength, intensity)
        do line = 1, n_lines
            write (trans_unit, '(i12, 1x, i12, 1x, es10.4, 1x, f15.6)') upper_id(line), lower_id(line), &
                einstein_a(line), wavenumber(line)
        end do
        if (n_lines > 0) then
            line = maxloc(intensity(1:n_lines), dim=1, kind=i8)
            if (intensity(line) > best_intensity) then
                best_intensity = intensity(line)
                best_nu = wavenumber(line)
                best_a = einstein_a(line)
                best_s = linestrength(line)
                best_upper = upper_id(line)
                best_lower = lower_id(line)
                best_jl = jl
            end if
        end if
        total_lines = total_lines + n_lines
        deallocate (upper_id, lower_id, einstein_a, wavenumber, linestrength, intensity)
    end do
    call close_complete(dir // "linelist.trans", trans_unit)
    call atomgpu_linestrength_destroy(h)
    call system_clock(clock_end)

    ! ---- summary ----
    call atomgpu_device_info(backend, device)
    print '(a, a, a)', "backend: ", merge("cuda", "cpu ", backend == ATOMGPU_BACKEND_CUDA), " " // device
    print '(a, i0, a, i0, a, i0, a, i0, a)', "molecule: ", n_vib, " vibrational functions, J = 0..", j_max, &
        ", ", sum(n_states), " states (", maxval(n_states), " at most per J)"
    print '(a, f0.3, a, f0.6, a)', "Q(296 K) = ", q, ", ZPE = ", zpe, " cm^-1"
    print '(a, i0, a)', "lines: ", total_lines, " (S >= THRESH_LINE, I >= THRESH_INTES)"
    if (best_intensity > 0) then
        print '(a, i0, a, i0, a, f0.6, a, es10.4, a, es10.4, a, es10.4, a)', "strongest line: ", best_upper, " <- ", &
            best_lower, ", nu = ", best_nu, " cm^-1, A = ", best_a, " s^-1, S = ", best_s, " D^2, I = ", &
            best_intensity, " cm/molecule"
        print '(a, i0, a, i0)', "    J'' = ", best_jl, ", J' = ", j_of(best_upper)
    end if
    print '(a, a, a, a)', "wrote ", dir // "linelist.states", " and ", dir // "linelist.trans"
    print '(a, f0.2, a, f0.2, a)', "time: ", real(clock_mid - clock_start, dp) / clock_rate, &
        " s model and states, ", real(clock_end - clock_mid, dp) / clock_rate, " s line list"

contains

    ! Creates directory `path` and every missing parent (as mkdir -p), with the C library's mkdir;
    ! a component that already exists is fine, and a real failure shows when a file is opened.
    subroutine make_directories(path)
        character(len=*), intent(in) :: path
        integer :: i, ignored
        do i = 2, len(path)
            if (path(i:i) == "/" .and. path(i - 1:i - 1) /= "/") then
                ignored = c_mkdir(path(1:i - 1) // c_null_char, int(o'755', c_int))
            end if
        end do
    end subroutine

    ! Opens <file>.partial for writing (replacing an earlier partial file).
    subroutine open_partial(file, unit)
        character(len=*), intent(in) :: file
        integer, intent(out) :: unit
        integer :: ios
        character(len=256) :: message
        open (newunit=unit, file=file // ".partial", status="replace", action="write", iostat=ios, iomsg=message)
        if (ios /= 0) error stop "linelist_synthetic: cannot write " // file // ".partial: " // trim(message)
    end subroutine

    ! Closes the complete <file>.partial and renames it to <file> (replacing an earlier one).
    subroutine close_complete(file, unit)
        character(len=*), intent(in) :: file
        integer, intent(in) :: unit
        close (unit)
        if (c_rename(file // ".partial" // c_null_char, file // c_null_char) /= 0) then
            error stop "linelist_synthetic: cannot rename " // file // ".partial to " // file
        end if
    end subroutine

    ! Uniform pseudo-random number in (0, 1): Park-Miller minimal standard (no overflow in 64 bits).
    real(dp) function uniform(state)
        integer(i8), intent(inout) :: state
        state = mod(16807_i8 * state, 2147483647_i8)
        uniform = real(state, dp) / 2147483647.0_dp
    end function

    ! The n_vib lowest levels of the three anharmonic oscillators, ascending.
    subroutine vibrational_basis(e, quanta)
        real(dp), intent(out) :: e(n_vib)
        integer, intent(out) :: quanta(3, n_vib)
        integer, parameter :: n_max = 20
        real(dp), allocatable :: all_e(:)
        integer, allocatable :: all_n(:, :)
        logical, allocatable :: taken(:)
        integer :: i, n1, n2, n3, m
        allocate (all_e((n_max + 1)**3), all_n(3, (n_max + 1)**3), taken((n_max + 1)**3))
        m = 0
        do n1 = 0, n_max
            do n2 = 0, n_max
                do n3 = 0, n_max
                    m = m + 1
                    all_n(:, m) = [n1, n2, n3]
                    all_e(m) = sum(omega * (all_n(:, m) + 0.5_dp) + anharmonicity * (all_n(:, m) + 0.5_dp)**2)
                end do
            end do
        end do
        taken = .false.
        do i = 1, n_vib
            m = minloc(all_e, dim=1, mask=.not. taken)
            taken(m) = .true.
            e(i) = all_e(m)
            quanta(:, i) = all_n(:, m)
        end do
    end subroutine

    ! dipole(v, v', m) [Debye]: z with a ~1 D diagonal, x off-diagonal only, y = 0.
    subroutine make_dipole(d, state)
        real(dp), intent(out) :: d(n_vib, n_vib, 3)
        integer(i8), intent(inout) :: state
        integer :: v, w
        real(dp) :: gap, rz, rx
        d = 0
        do w = 1, n_vib
            do v = 1, w
                rz = 2 * uniform(state) - 1
                rx = 2 * uniform(state) - 1
                gap = abs(v - w)
                if (v == w) then
                    d(v, v, 3) = 1.0_dp + 0.03_dp * (n_quanta(1, v) - n_quanta(2, v) + n_quanta(3, v)) + 0.01_dp * rz
                else
                    d(v, w, 3) = 0.08_dp * exp(-gap / 4) * rz
                    d(w, v, 3) = d(v, w, 3)
                    d(v, w, 1) = 0.05_dp * exp(-gap / 6) * rx
                    d(w, v, 1) = d(v, w, 1)
                end if
            end do
        end do
    end subroutine

    ! Block J: its primitive basis, states from pairwise Givens mixing, the ones below
    ! state_cut kept (ordered by energy); registered with the handle.
    subroutine make_block(j, state)
        integer, intent(in) :: j
        integer(i8), intent(inout) :: state
        integer(i8), allocatable :: v(:)
        integer, allocatable :: k(:), tau(:), order(:), keep(:)
        real(dp), allocatable :: e_prim(:), e_state(:), vectors(:, :), kept(:, :), grown(:, :)
        integer :: n, m, kk, t, p, a, b, i, n_keep
        real(dp) :: e, theta, c, s
        ! The primitive functions below basis_cut (v outer, K, tau inner).
        n = 0
        do m = 1, n_vib
            do kk = 0, j
                e = e_vib(m) + b_rot * j * (j + 1) + (a_rot - b_rot) * kk**2
                if (e - e_ground >= basis_cut) cycle
                n = n + merge(1, 2, kk == 0)
            end do
        end do
        allocate (v(n), k(n), tau(n), e_prim(n))
        n = 0
        do m = 1, n_vib
            do kk = 0, j
                e = e_vib(m) + b_rot * j * (j + 1) + (a_rot - b_rot) * kk**2
                if (e - e_ground >= basis_cut) cycle
                do t = 0, 1
                    if (kk == 0 .and. t /= mod(j, 2)) cycle
                    n = n + 1
                    v(n) = m
                    k(n) = kk
                    tau(n) = t
                    e_prim(n) = e
                end do
            end do
        end do
        ! Pair the functions in energy order and rotate each pair by a small angle.
        order = sort_index(e_prim)
        allocate (vectors(n, n), e_state(n))
        vectors = 0
        do i = 1, n - 1, 2
            a = order(i)
            b = order(i + 1)
            theta = max_angle * (2 * uniform(state) - 1)
            c = cos(theta)
            s = sin(theta)
            vectors(a, i) = c
            vectors(b, i) = s
            vectors(a, i + 1) = -s
            vectors(b, i + 1) = c
            e_state(i) = e_prim(a)
            e_state(i + 1) = e_prim(b)
        end do
        if (mod(n, 2) == 1) then
            vectors(order(n), n) = 1
            e_state(n) = e_prim(order(n))
        end if
        ! Keep the states below state_cut, ordered by energy.
        order = sort_index(e_state)
        keep = pack(order, e_state(order) - e_ground < state_cut)
        n_keep = size(keep)
        allocate (kept(n, n_keep))
        do p = 1, n_keep
            kept(:, p) = vectors(:, keep(p))
        end do
        if (n_keep > size(energies, 1)) then
            allocate (grown(n_keep, 0:j_max))
            grown = 0
            grown(1:size(energies, 1), :) = energies
            call move_alloc(grown, energies)
        end if
        n_states(j) = n_keep
        energies(1:n_keep, j) = e_state(keep)
        call atomgpu_linestrength_add_block(h, j, gns, v, k, tau, block(j))
        call atomgpu_linestrength_set_states(h, block(j), energies(1:n_keep, j), kept)
    end subroutine

    ! The permutation that sorts x ascending (insertion sort: a few thousand elements at most).
    function sort_index(x) result(idx)
        real(dp), intent(in) :: x(:)
        integer, allocatable :: idx(:)
        integer :: i, m, t
        idx = [(i, i = 1, size(x))]
        do i = 2, size(x)
            t = idx(i)
            m = i - 1
            do while (m >= 1)
                if (x(idx(m)) <= x(t)) exit
                idx(m + 1) = idx(m)
                m = m - 1
            end do
            idx(m + 1) = t
        end do
    end function

    ! J of the state with ExoMol ID `state_id`.
    integer function j_of(state_id)
        integer(i8), intent(in) :: state_id
        integer :: jj
        j_of = -1
        do jj = 0, j_max
            if (state_id >= first_id(jj) .and. state_id < first_id(jj) + n_states(jj)) j_of = jj
        end do
    end function

end program linelist_synthetic
