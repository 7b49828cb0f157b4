! linelist_c3v.f90: a line list of a molecule with a degenerate symmetry species through the
! line-strength family of module atomgpu, end to end from Fortran: states, transitions, ExoMol
! files, a stick spectrum, and the same lines computed with the degenerate species split by hand.
!
! The molecule is the synthetic C3v(M) symmetric top of tests/support/symmetric_top.rs (a
! PH3-like non-inverting XY3; species A1, A2, E in TROVE's order, nuclear-spin weights 8, 8, 8),
! written by the Rust program examples/rust/c3v_model.rs, which stands in for TROVE writing its
! dipole matrix and eigenvectors: 120 vibrational functions (A1, A2 and E pairs), J = 0..10, one
! (J, Gamma) block per J and species with its symmetrised basis and, for E, one unfolding matrix
! per component (TROVE's repres(:, ideg, :)), the levels below 6000 cm^-1 (file layout in
! c3v_model.rs). The symmetry is real: the tests prove the operations, the unfoldings, the dipole's
! transformation and the selection rules.
!
! What it does, at T = 296 K with the partition function summed over the levels:
! 1. registers every block with its species (atomgpu_linestrength_set_group "C3v(M)",
!    atomgpu_linestrength_add_block_species) and stores the levels;
! 2. writes <dir>/c3v.states and <dir>/c3v.trans through atomgpu_linestrength_write_exomol with
!    TROVE's symmetry pairs A1 <-> A2, E <-> E (gamma_pair = 2, 1, 3), the windows and
!    THRESH_INTES = 1e-22 cm/molecule, and prints the counts (pairs judged, dropped by the rules, by the windows,
!    by the threshold, kept; the first is the sum of the others);
! 3. writes <dir>/c3v_sticks.txt (nu [cm^-1], I [cm/molecule], J'', J', species'' species') for
!    examples/plot_c3v.py, which draws the stick spectrum;
! 4. splits every E block by hand into two non-degenerate blocks (one per component, its rows of
!    the stacked unfolding), on a second handle without a group, and checks for several block
!    pairs (E -> E, A1 -> A2, A2 -> A1, E -> E with J' = J'') that the line strengths of the first
!    handle's lines equal g_ns (2J'+1)(2J''+1) sum_(d'', d') a_split^2 / ndeg'' from the split
!    handle's amplitudes (TROVE's rule for degenerate species), to 1e-12 relative; the program
!    stops with a non-zero code if they do not.
!
! Build and run from the repository root (scripts/linelist-c3v-demo.sh, `make linelist-c3v`):
!     cargo run --release --example c3v_model -- out/linelist-c3v/c3v_model.bin
!     gfortran -O2 fortran/atomgpu.f90 examples/fortran/linelist_c3v.f90 -o linelist_c3v \
!         -Ltarget/release -latomgpu -Wl,-rpath,$PWD/target/release
!     ./linelist_c3v out/linelist-c3v/c3v_model.bin out/linelist-c3v
!     python3 examples/plot_c3v.py out/linelist-c3v/c3v_sticks.txt out/linelist-c3v/c3v_sticks.png
! ATOMGPU_BACKEND=cuda runs the line strengths on a GPU.
program linelist_c3v
    use, intrinsic :: iso_c_binding, only: c_double, c_int64_t
    use atomgpu
    implicit none

    integer, parameter :: dp = c_double, i8 = c_int64_t
    ! TROVE's second radiation constant c2 = hc/k [cm K] (CODATA 2010, as the library).
    real(dp), parameter :: c2 = 6.62606957e-27_dp * 2.99792458e10_dp / 1.3806488e-16_dp
    real(dp), parameter :: temperature = 296.0_dp
    character(len=2), parameter :: species_name(3) = ["A1", "A2", "E "]

    ! One (J, Gamma) block as the model file holds it (indices converted to 1-based on reading).
    type :: block_t
        integer :: j, gamma, ndeg
        real(dp) :: gns
        integer(i8) :: n_sym
        integer(i8), allocatable :: v(:), row_start(:), col(:)
        integer, allocatable :: k(:), tau(:)
        real(dp), allocatable :: value(:), energies(:), vectors(:, :)
    end type

    type(block_t), allocatable :: blocks(:)
    real(dp), allocatable :: dipole(:, :, :)
    type(atomgpu_linestrength_t) :: whole, split
    type(atomgpu_intensity_params_t) :: params
    type(atomgpu_line_filters_t) :: filters
    integer, allocatable :: split_id(:, :)
    integer(i8) :: counts(5)
    character(len=512) :: model_file, dir
    real(dp) :: q, worst
    integer :: b, id, count_start, count_end, count_rate

    call system_clock(count_start, count_rate)
    if (command_argument_count() < 1) error stop "usage: linelist_c3v MODEL_FILE [OUT_DIR]"
    call get_command_argument(1, model_file)
    dir = "out/linelist-c3v"
    if (command_argument_count() >= 2) call get_command_argument(2, dir)
    call read_model(trim(model_file))
    print '(a, i0, a, i0, a, i0, a)', "model: ", size(dipole, 1), " vibrational functions, ", size(blocks), &
        " blocks, ", sum([(size(blocks(b)%energies), b = 1, size(blocks))]), " levels"

    ! 1. The handle: group, species blocks, levels.
    call atomgpu_linestrength_create(whole, dipole)
    call atomgpu_linestrength_set_group(whole, "C3v(M)")
    do b = 1, size(blocks)
        associate (bl => blocks(b))
            call atomgpu_linestrength_add_block_species(whole, bl%j, bl%gamma, bl%gns, bl%v, bl%k, bl%tau, bl%ndeg, &
                id, row_start=bl%row_start, col=bl%col, value=bl%value, n_sym=bl%n_sym)
            if (size(bl%energies) > 0) call atomgpu_linestrength_set_states(whole, id, bl%energies, bl%vectors)
        end associate
    end do

    ! Q(T) = sum over the levels of g_ns (2J+1) exp(-c2 E / T) (energies above the ZPE).
    q = 0
    do b = 1, size(blocks)
        q = q + sum(blocks(b)%gns * (2 * blocks(b)%j + 1) * exp(-c2 * blocks(b)%energies / temperature))
    end do
    params%temperature = temperature
    params%partition_function = q
    params%zpe = 0
    params%freq_window = [1e-6_dp, 1e4_dp]
    params%lower_energy = [0.0_dp, 3000.0_dp]
    params%upper_energy = [0.0_dp, 6000.0_dp]
    params%thresh_coeff = 0
    params%thresh_line = 0
    params%thresh_intens = 1e-22_dp
    params%batch = 32
    filters%n_gamma_pair = 3
    filters%gamma_pair(1:3) = [2, 1, 3]   ! A1 <-> A2, E <-> E (TROVE's isym_pairs), 1-based

    ! 2. ExoMol files.
    call make_directory(trim(dir))
    call atomgpu_linestrength_write_exomol(whole, trim(dir) // "/c3v", params, filters, counts)
    print '(a, f0.2, a)', "Q(296 K) = ", q, " (levels below 6000 cm^-1)"
    print '(a, i0, a, i0, a, i0, a, i0, a, i0)', "pairs judged ", counts(1), ": dropped by the J and species rules ", &
        counts(2), ", by the windows ", counts(3), ", by THRESH_INTES ", counts(4), "; kept ", counts(5)
    if (counts(1) /= sum(counts(2:5))) error stop "the counts do not add up"
    print '(a)', "wrote " // trim(dir) // "/c3v.states and " // trim(dir) // "/c3v.trans"

    ! 3. The stick spectrum.
    call write_sticks(trim(dir) // "/c3v_sticks.txt")

    ! 4. The degenerate species split by hand into components.
    call atomgpu_linestrength_create(split, dipole)
    allocate (split_id(size(blocks), 2))
    split_id = 0
    do b = 1, size(blocks)
        call add_components(b)
    end do
    worst = 0
    call compare_split(block_of(1, 3), block_of(2, 3))   ! E(J''=1) -> E(J'=2)
    call compare_split(block_of(1, 1), block_of(2, 2))   ! A1 -> A2
    call compare_split(block_of(2, 2), block_of(3, 1))   ! A2 -> A1
    call compare_split(block_of(3, 3), block_of(3, 3))   ! E -> E, J' = J''
    call compare_split(block_of(4, 3), block_of(5, 3))   ! E(J''=4) -> E(J'=5)
    print '(a, es9.2)', "split by hand into components: the line strengths agree to ", worst
    if (worst > 1e-12_dp) error stop "the split-by-hand line strengths differ"

    call atomgpu_linestrength_destroy(split)
    call atomgpu_linestrength_destroy(whole)
    call system_clock(count_end)
    print '(a, f0.2, a)', "done in ", real(count_end - count_start, dp) / count_rate, " s"

contains

    ! The index of the block of J and the 1-based species gamma (the model writes 3 J + gamma - 1).
    integer function block_of(j, gamma)
        integer, intent(in) :: j, gamma
        block_of = 3 * j + gamma
    end function

    ! Reads the file of examples/rust/c3v_model.rs (0-based indices made 1-based).
    subroutine read_model(path)
        character(len=*), intent(in) :: path
        integer :: unit
        integer(i8) :: n_vib, n_blocks, head(7), n_primitive, n_states, nnz
        integer(i8), allocatable :: labels(:)
        open (newunit=unit, file=path, access="stream", form="unformatted", status="old", action="read")
        read (unit) n_vib, n_blocks
        allocate (dipole(n_vib, n_vib, 3), blocks(n_blocks))
        read (unit) dipole
        do b = 1, int(n_blocks)
            associate (bl => blocks(b))
                read (unit) head
                bl%j = int(head(1))
                bl%gamma = int(head(2)) + 1
                bl%ndeg = int(head(3))
                n_primitive = head(4)
                bl%n_sym = head(5)
                n_states = head(6)
                nnz = head(7)
                read (unit) bl%gns
                allocate (bl%v(n_primitive), labels(n_primitive), bl%row_start(bl%ndeg * n_primitive + 1), bl%col(nnz))
                read (unit) bl%v
                bl%v = bl%v + 1
                read (unit) labels
                bl%k = int(labels)
                read (unit) labels
                bl%tau = int(labels)
                deallocate (labels)
                read (unit) bl%row_start
                bl%row_start = bl%row_start + 1
                read (unit) bl%col
                bl%col = bl%col + 1
                allocate (bl%value(nnz), bl%energies(n_states), bl%vectors(bl%n_sym, n_states))
                read (unit) bl%value, bl%energies, bl%vectors
            end associate
        end do
        close (unit)
    end subroutine

    ! Block b on the split handle: one non-degenerate block per component d, whose unfolding is
    ! rows (d - 1) n_primitive + 1 .. d n_primitive of the stacked one, with the same levels.
    subroutine add_components(b)
        integer, intent(in) :: b
        integer :: d
        integer(i8) :: np, first, last
        associate (bl => blocks(b))
            np = size(bl%v, kind=i8)
            do d = 1, bl%ndeg
                first = bl%row_start((d - 1) * np + 1)
                last = bl%row_start(d * np + 1) - 1
                call atomgpu_linestrength_add_block(split, bl%j, bl%gns, bl%v, bl%k, bl%tau, split_id(b, d), &
                    row_start=bl%row_start((d - 1) * np + 1:d * np + 1) - first + 1, col=bl%col(first:last), &
                    value=bl%value(first:last), n_sym=bl%n_sym)
                if (size(bl%energies) > 0) call atomgpu_linestrength_set_states(split, split_id(b, d), bl%energies, &
                    bl%vectors)
            end do
        end associate
    end subroutine

    ! The lines of block `lower` into block `upper` on the whole handle (open windows, no
    ! threshold) against g_ns (2J'+1)(2J''+1) sum a_split^2 / ndeg'' from the split handle.
    subroutine compare_split(lower, upper)
        integer, intent(in) :: lower, upper
        type(atomgpu_intensity_params_t) :: open_params
        integer(i8) :: n_lines, e, i, f, first_lower, first_upper
        integer(i8), allocatable :: up(:), lo(:)
        real(dp), allocatable :: a(:), nu(:), s(:), intens(:), s_split(:, :), amp(:, :)
        integer :: dl, du, n_lower, n_upper
        associate (lb => blocks(lower), ub => blocks(upper))
            n_lower = size(lb%energies)
            n_upper = size(ub%energies)
            if (n_lower == 0 .or. n_upper == 0) return
            ! S from the components: every pair (f, i), summed over the component pairs.
            allocate (s_split(n_upper, n_lower), amp(n_upper, n_lower))
            s_split = 0
            do dl = 1, lb%ndeg
                call atomgpu_linestrength_load_lower(split, split_id(lower, dl), lb%vectors, 0.0_dp)
                do du = 1, ub%ndeg
                    call atomgpu_linestrength_amplitudes(split, split_id(upper, du), 0.0_dp, amp)
                    s_split = s_split + amp**2
                end do
            end do
            s_split = s_split * lb%gns * (2 * ub%j + 1) * (2 * lb%j + 1) / lb%ndeg
            ! The whole handle's lines of the pair.
            open_params = params
            open_params%lower_energy = [-1e9_dp, 1e9_dp]
            open_params%upper_energy = [-1e9_dp, 1e9_dp]
            open_params%thresh_intens = 0
            call atomgpu_linestrength_count_lines(whole, lower, [upper], open_params, n_lines)
            allocate (up(n_lines), lo(n_lines), a(n_lines), nu(n_lines), s(n_lines), intens(n_lines))
            call atomgpu_linestrength_line_list(whole, lower, [upper], open_params, n_lines, up, lo, a, nu, s, intens)
            call atomgpu_linestrength_state_id(whole, lower, 1_i8, first_lower)
            call atomgpu_linestrength_state_id(whole, upper, 1_i8, first_upper)
            do e = 1, n_lines
                i = lo(e) - first_lower + 1
                f = up(e) - first_upper + 1
                worst = max(worst, abs(s(e) - s_split(f, i)) / max(s_split(f, i), tiny(1.0_dp)))
            end do
            print '(a, a, a, i0, a, a, a, i0, a, i0, a)', "  ", trim(species_name(lb%gamma)), "(J''=", lb%j, ") -> ", &
                trim(species_name(ub%gamma)), "(J'=", ub%j, "): ", n_lines, " lines compared"
        end associate
    end subroutine

    ! Every line of the list (the pairs the species rule allows, J' = J'' - 1 .. J'' + 1) with its
    ! intensity, one line per transition: nu, I, J'', J', species'', species'.
    subroutine write_sticks(path)
        character(len=*), intent(in) :: path
        integer :: unit, lower, upper, ju
        integer(i8) :: n_lines, e, total
        integer(i8), allocatable :: up(:), lo(:)
        real(dp), allocatable :: a(:), nu(:), s(:), intens(:)
        open (newunit=unit, file=path, status="replace", action="write")
        write (unit, '(a)') "# nu [cm^-1]   I [cm/molecule]   J''  J'  species''  species'  (T = 296 K)"
        total = 0
        do lower = 1, size(blocks)
            if (size(blocks(lower)%energies) == 0) cycle
            do upper = 1, size(blocks)
                ju = blocks(upper)%j
                if (abs(ju - blocks(lower)%j) > 1 .or. ju + blocks(lower)%j == 0) cycle
                if (filters%gamma_pair(blocks(lower)%gamma) /= blocks(upper)%gamma) cycle
                if (size(blocks(upper)%energies) == 0) cycle
                call atomgpu_linestrength_count_lines(whole, lower, [upper], params, n_lines)
                if (n_lines == 0) cycle
                allocate (up(n_lines), lo(n_lines), a(n_lines), nu(n_lines), s(n_lines), intens(n_lines))
                call atomgpu_linestrength_line_list(whole, lower, [upper], params, n_lines, up, lo, a, nu, s, intens)
                do e = 1, n_lines
                    write (unit, '(f14.6, es14.5, 2i5, 2(3x, a))') nu(e), intens(e), blocks(lower)%j, ju, &
                        species_name(blocks(lower)%gamma), species_name(blocks(upper)%gamma)
                end do
                total = total + n_lines
                deallocate (up, lo, a, nu, s, intens)
            end do
        end do
        close (unit)
        print '(a, i0, a)', "wrote " // path // " (", total, " lines, the stick spectrum)"
    end subroutine

    ! Creates the directory `path` (its parent must exist) unless it is there, with the C library's
    ! mkdir (no shell involved).
    subroutine make_directory(path)
        use, intrinsic :: iso_c_binding, only: c_char, c_int, c_null_char
        character(len=*), intent(in) :: path
        interface
            function c_mkdir(name, mode) bind(C, name="mkdir") result(status)
                import :: c_char, c_int
                character(kind=c_char), intent(in) :: name(*)
                integer(c_int), value :: mode
                integer(c_int) :: status
            end function
        end interface
        integer(c_int) :: status
        status = c_mkdir(path // c_null_char, int(o'755', c_int))
    end subroutine

end program linelist_c3v
