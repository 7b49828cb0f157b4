! atomgpu_trove: the bridge through which TROVE's intensity step (dipole.f90,
! dm_intensity_symmvec) hands its line list to atomgpu and gets back TROVE's own
! <linelist>_<J1>_<J2>.states and .trans files (README "Using atomgpu from TROVE").
!
! The module uses no TROVE module: every quantity arrives as an explicit argument, so it compiles
! beside TROVE with no change to TROVE's sources but the few calls README lists (the glue in
! dipole.f90 and one call in tran.f90 read_eigenval). It is switched on by the environment
! variable ATOMGPU_TROVE=1; unset or 0, every entry point returns at once and TROVE runs its own
! loop.
!
! Order of calls (as TROVE's own program flow makes them):
!   atomgpu_trove_state   once per .states line, where tran.f90 read_eigenval writes it;
!   atomgpu_trove_model   once, in dm_intensity_symmvec before its intensity loop: the group,
!                         the INTENSITY options and dipole_me;
!   atomgpu_trove_block   once per (J, Gamma) block with states: the primitive labels, the
!                         unfolding (TROVE's irr(gamma)%repres through the ijterm offsets) and the
!                         block's levels, whose eigenvectors it reads from TROVE's own
!                         direct-access unit;
!   atomgpu_trove_write   the line list, written as TROVE writes it; the handle is released.
! atomgpu's TROVE convention is used throughout: TROVE's J rule, thresholds, constants and A cut.
! Units: energies cm^-1 (absolute), temperature K, dipole Debye, thresholds as TROVE's INTENSITY
! block (THRESH_LINE Debye^2 on TROVE's sum of squares, THRESH_INTES cm/molecule).
module atomgpu_trove
    use, intrinsic :: iso_c_binding, only : c_int32_t, c_int64_t, c_double
    use atomgpu
    implicit none
    private
    public :: atomgpu_trove_on, atomgpu_trove_model, atomgpu_trove_block, atomgpu_trove_state, atomgpu_trove_write

    integer, parameter :: r8 = c_double, i8 = c_int64_t

    type(atomgpu_linestrength_t), save :: handle
    type(atomgpu_intensity_params_t), save :: params
    type(atomgpu_line_filters_t), save :: filters
    real(r8), allocatable, save :: species_gns(:)

    ! The .states table, grown as read_eigenval reports its lines.
    integer(i8), allocatable, save :: table_id(:), table_g_total(:)
    real(r8), allocatable, save :: table_energy(:)
    integer(c_int32_t), allocatable, save :: table_j(:)
    integer, save :: table_size = 0

    ! Longest text after J of a .states line (TROVE's columns for up to ~60 modes and classes).
    integer, parameter :: column_width = 1024
    character(len=column_width), allocatable, save :: table_columns(:)

contains

    ! .true. when ATOMGPU_TROVE is set to anything but 0 or blanks.
    logical function atomgpu_trove_on()
        character(len=16) :: value
        integer :: n, st
        call get_environment_variable("ATOMGPU_TROVE", value, n, st)
        atomgpu_trove_on = st == 0 .and. n > 0 .and. trim(value) /= "0"
    end function

    ! One line of TROVE's .states file, with the values read_eigenval prints: the ID, the
    ! absolute energy (cm^-1), int(gns)*(2J+1), J, and the pieces of the columns after J, put
    ! together with read_eigenval's own edit descriptors.
    subroutine atomgpu_trove_state(id, energy, g_total, j, label, quanta, class_labels, krot, taurot, label0, &
            largest_coeff, grep, ilevel, normal, cnu)
        integer, intent(in) :: id, g_total, j, krot, taurot, ilevel
        real(r8), intent(in) :: energy, largest_coeff
        character(len=*), intent(in) :: label, label0, grep
        character(len=*), intent(in) :: class_labels(:)
        integer, intent(in) :: quanta(:), normal(:), cnu(:)
        character(len=400) :: edit
        character(len=column_width) :: text
        if (.not. atomgpu_trove_on()) return
        write(edit, '(a,i0,a,i0,a,i0,a,i0,a)') '(2x,a3,2x,', size(quanta), 'i3,1x,', size(class_labels), &
            '(1x,a3),2i4,1x,a3,2x,f5.2,a3,1x,i9,1x,', size(normal), 'i3,', size(cnu), 'i9)'
        write(text, edit) label, quanta, class_labels, krot, taurot, label0, largest_coeff, grep, ilevel, normal, cnu
        call grow_table()
        table_size = table_size + 1
        table_id(table_size) = id
        table_energy(table_size) = energy
        table_g_total(table_size) = g_total
        table_j(table_size) = int(j, c_int32_t)
        table_columns(table_size) = text
    end subroutine

    ! Room for one more .states line (doubling).
    subroutine grow_table()
        integer(i8), allocatable :: ids(:), g(:)
        real(r8), allocatable :: e(:)
        integer(c_int32_t), allocatable :: jj(:)
        character(len=column_width), allocatable :: c(:)
        integer :: n
        if (.not. allocated(table_id)) then
            allocate(table_id(1024), table_g_total(1024), table_energy(1024), table_j(1024), table_columns(1024))
            return
        end if
        if (table_size < size(table_id)) return
        n = 2 * size(table_id)
        allocate(ids(n), g(n), e(n), jj(n), c(n))
        ids(1:table_size) = table_id(1:table_size)
        g(1:table_size) = table_g_total(1:table_size)
        e(1:table_size) = table_energy(1:table_size)
        jj(1:table_size) = table_j(1:table_size)
        c(1:table_size) = table_columns(1:table_size)
        call move_alloc(ids, table_id)
        call move_alloc(g, table_g_total)
        call move_alloc(e, table_energy)
        call move_alloc(jj, table_j)
        call move_alloc(c, table_columns)
    end subroutine

    ! The group, TROVE's INTENSITY options and the vibrational dipole matrix dipole_me(N, N, 3)
    ! (Debye, lower contracted index first): makes the handle. action must be ABSORPTION.
    subroutine atomgpu_trove_model(group, gns, isym_pairs, action, j12, temperature, qstat, zpe, freq_window, &
            erange_low, erange_upp, thresh_intes, thresh_line, thresh_coeff, reduced, dipole_me)
        character(len=*), intent(in) :: group, action
        real(r8), intent(in) :: gns(:), temperature, qstat, zpe, freq_window(2), erange_low(2), erange_upp(2)
        real(r8), intent(in) :: thresh_intes, thresh_line, thresh_coeff
        integer, intent(in) :: isym_pairs(:), j12(2)
        logical, intent(in) :: reduced
        real(r8), intent(in), contiguous :: dipole_me(:, :, :)
        if (.not. atomgpu_trove_on()) return
        if (trim(action) /= "ABSORPTION") then
            write(*, '(a)') "atomgpu_trove: only ABSORPTION goes through atomgpu; TROVE runs its own loop for " // &
                trim(action)
            error stop "atomgpu_trove: unsupported action"
        end if
        if (size(isym_pairs) > size(filters%gamma_pair)) error stop "atomgpu_trove: more than 16 symmetry species"
        call atomgpu_linestrength_create(handle, dipole_me)
        call atomgpu_linestrength_set_group(handle, group)
        species_gns = gns
        params%temperature = temperature
        params%partition_function = qstat
        params%zpe = zpe
        params%freq_window = freq_window
        params%lower_energy = erange_low
        params%upper_energy = erange_upp
        params%thresh_coeff = thresh_coeff
        params%thresh_line = thresh_line
        params%thresh_intens = thresh_intes
        params%batch = 256
        params%convention = 1
        params%action = 0
        filters%j_min = int(minval(j12), c_int32_t)
        filters%j_max = int(maxval(j12), c_int32_t)
        filters%reduced = merge(1_c_int32_t, 0_c_int32_t, reduced)
        filters%degeneracy_filter = filters%reduced
        filters%n_gamma_pair = int(size(isym_pairs), c_int32_t)
        filters%gamma_pair(1:size(isym_pairs)) = int(isym_pairs, c_int32_t)
    end subroutine

    ! One (J, Gamma) block: per primitive (contracted rovibrational) function p = 1..nprim its J=0
    ! contracted index iroot_j0(p), K = k(p) and tau = mod(ktau(p), 2), and its row/column in
    ! TROVE's symmetrisation (icase_row, icase_ib, the row offsets kmat = ijterm(jind)%kmat(:,gamma),
    ! nelem = irr(gamma)%N, repres = irr(gamma)%repres); the block's levels (their ID,
    ! position in the energy-sorted eigen list, absolute energy in cm^-1, record irec) whose
    ! eigenvectors (nsym coefficients each) it reads from TROVE's direct-access unit vec_unit.
    subroutine atomgpu_trove_block(j, gamma, nprim, nsym, ndeg, iroot_j0, k, ktau, icase_row, icase_ib, kmat, nelem, &
            repres, nstates, id, pos, energy, irec, vec_unit)
        integer, intent(in) :: j, gamma, nprim, nsym, ndeg, nstates, vec_unit
        integer, intent(in) :: iroot_j0(:), k(:), ktau(:), icase_row(:), icase_ib(:), kmat(:), nelem(:)
        real(r8), intent(in) :: repres(:, :, :)
        integer, intent(in) :: id(:), pos(:), irec(:)
        real(r8), intent(in) :: energy(:)
        integer, allocatable :: row_start(:), col(:), tau(:)
        real(r8), allocatable :: value(:), vectors(:, :)
        integer :: p, d, irow, ie, nnz, r, s, block
        if (.not. atomgpu_trove_on()) return
        if (nstates == 0) return
        nnz = 0
        do p = 1, nprim
            nnz = nnz + nelem(icase_row(p))
        end do
        nnz = nnz * ndeg
        allocate(row_start(ndeg * nprim + 1), col(nnz), value(nnz))
        ! The unfolding in CSR, 1-based as the Fortran interface takes it: row (d-1)*nprim + p holds
        ! the symmetrised coefficients kmat(irow)+1 .. kmat(irow)+nelem(irow) of component d.
        r = 0
        row_start(1) = 1
        do d = 1, ndeg
            do p = 1, nprim
                irow = icase_row(p)
                do ie = 1, nelem(irow)
                    r = r + 1
                    col(r) = kmat(irow) + ie
                    value(r) = repres(kmat(irow) + ie, d, icase_ib(p))
                end do
                row_start((d - 1) * nprim + p + 1) = r + 1
            end do
        end do
        tau = mod(ktau(1:nprim), 2)
        ! TROVE's default-integer index arrays go to the library as they are (no copy).
        call atomgpu_linestrength_add_block_species(handle, j, gamma, species_gns(gamma), iroot_j0(1:nprim), k(1:nprim), &
            tau, ndeg, block, row_start, col, value, nsym)
        allocate(vectors(nsym, nstates))
        do s = 1, nstates
            read(vec_unit, rec=irec(s)) vectors(:, s)
        end do
        call atomgpu_linestrength_set_states(handle, block, energy(1:nstates), vectors)
        call atomgpu_linestrength_set_state_labels(handle, block, int(id(1:nstates), i8), int(pos(1:nstates), i8))
    end subroutine

    ! The line list written as TROVE's <stem>.states and <stem>.trans; prints the time it took.
    subroutine atomgpu_trove_write(stem)
        character(len=*), intent(in) :: stem
        integer(i8) :: counts(5), start, finish, rate
        if (.not. atomgpu_trove_on()) return
        call system_clock(start, rate)
        call atomgpu_linestrength_write_trove(handle, stem, table_id(1:table_size), table_energy(1:table_size), &
            table_g_total(1:table_size), table_j(1:table_size), table_columns(1:table_size), params, filters, counts)
        call system_clock(finish)
        write(*, '(a,f12.3,a,i0,a,i0,a)') "atomgpu: TROVE line list written in ", real(finish - start, r8) / rate, &
            " s (", counts(5), " lines of ", counts(1), " pairs)"
        call atomgpu_linestrength_destroy(handle)
    end subroutine

end module atomgpu_trove
