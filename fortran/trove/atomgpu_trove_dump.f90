! atomgpu_trove_dump.f90 -- writes an atomgpu TROVE fixture (format "atomgpu-trove-fixture 1", read by
! tests/support/trove_fixture.rs; README "Using atomgpu from TROVE")
!
! Written for the atomgpu project (issue 29). It does not use any TROVE module: every
! quantity arrives as an explicit argument, so the file compiles on its own and the
! few lines that call it (in dipole.f90 and tran.f90) decide what is passed.
!
! Output directory: the environment variable ATOMGPU_TROVE_DUMP. When it is unset or empty,
! every entry point returns at once.
!
!   model.txt           key/value text, one line per key, then one "block" line per (J, gamma)
!   arrays.bin          stream, little endian: dipole_me(N,N,3), then per block
!                       v, k, ktau, row_start, col (integer(8)), value (real(8)),
!                       and per level: ilevel, id, position (integer(8)), energy, vector(nsym) (real(8))
!   states.txt          per TROVE .states line: id energy(absolute, es24.16) gtot J
!   states_columns.txt  per TROVE .states line: the text after J (from TROVE's "2x" before the label)
!
! Public entry points:
!   atomgpu_dump_on()          .true. when ATOMGPU_TROVE_DUMP names a directory
!   atomgpu_dump_model(...)    header + dipole matrix; call once, before the blocks
!   atomgpu_dump_block(...)    one (J, gamma) block; the last of nblocks closes the files
!   atomgpu_dump_state(...)    one .states line (called where TROVE writes it)
!
module atomgpu_trove_dump
  implicit none
  private
  public :: atomgpu_dump_on, atomgpu_dump_model, atomgpu_dump_block, atomgpu_dump_state

  integer, parameter :: i8 = selected_int_kind(18)
  integer, parameter :: r8 = selected_real_kind(15, 300)
  ! units come from newunit= (negative numbers); the flags say which are open
  integer, save :: u_model = 0, u_bin = 0, u_st = 0, u_col = 0
  logical, save :: model_open = .false., states_open = .false.
  integer, save :: nblocks_expected = 0, nblocks_done = 0

contains

  logical function atomgpu_dump_on()
    character(len=1024) :: dir
    call dump_dir(dir)
    atomgpu_dump_on = len_trim(dir) > 0
  end function atomgpu_dump_on

  subroutine dump_dir(dir)
    character(len=*), intent(out) :: dir
    integer :: n, st
    dir = ''
    call get_environment_variable('ATOMGPU_TROVE_DUMP', dir, n, st)
    if (st /= 0) dir = ''
  end subroutine dump_dir

  subroutine open_in_dir(name, stream, u)
    character(len=*), intent(in) :: name
    logical, intent(in) :: stream
    integer, intent(out) :: u
    character(len=1024) :: dir
    integer :: ios
    call dump_dir(dir)
    call execute_command_line('mkdir -p "'//trim(dir)//'"')
    if (stream) then
      open(newunit=u, file=trim(dir)//'/'//name, access='stream', form='unformatted', &
           status='replace', convert='little_endian', iostat=ios)
    else
      open(newunit=u, file=trim(dir)//'/'//name, form='formatted', status='replace', iostat=ios)
    end if
    if (ios /= 0) then
      write(*, '(a)') 'atomgpu_dump: cannot open '//trim(dir)//'/'//name
      stop 'atomgpu_dump: cannot open output file'
    end if
  end subroutine open_in_dir

  ! real in the fixture's text format
  function fr(x) result(s)
    real(r8), intent(in) :: x
    character(len=24) :: s
    write(s, '(es24.16e3)') x
    s = adjustl(s)
  end function fr

  function fi(i) result(s)
    integer, intent(in) :: i
    character(len=16) :: s
    write(s, '(i0)') i
  end function fi

  subroutine put_ints(u, key, a)
    integer, intent(in) :: u, a(:)
    character(len=*), intent(in) :: key
    integer :: i
    write(u, '(a)', advance='no') key
    do i = 1, size(a)
      write(u, '(1x,a)', advance='no') trim(fi(a(i)))
    end do
    write(u, '()')
  end subroutine put_ints

  subroutine put_reals(u, key, a)
    integer, intent(in) :: u
    real(r8), intent(in) :: a(:)
    character(len=*), intent(in) :: key
    integer :: i
    write(u, '(a)', advance='no') key
    do i = 1, size(a)
      write(u, '(1x,a)', advance='no') trim(fr(a(i)))
    end do
    write(u, '()')
  end subroutine put_reals

  ! strings are written without blanks (blanks removed)
  function noblank(s) result(r)
    character(len=*), intent(in) :: s
    character(len=len(s)) :: r
    integer :: i, j
    r = ''
    j = 0
    do i = 1, len_trim(s)
      if (s(i:i) /= ' ') then
        j = j + 1
        r(j:j) = s(i:i)
      end if
    end do
    if (j == 0) r = '-'
  end function noblank

  subroutine atomgpu_dump_model(molecule, group, degen, labels, gns, isym_pairs, isym_groups, &
                                action, j12, jval, temperature, qstat, zpe, freq_window, &
                                erange_low, erange_upp, thresh_intes, thresh_line, thresh_coeff, &
                                reduced, nvib, nlevels, nblocks, dipole_me)
    character(len=*), intent(in) :: molecule, group, action
    integer, intent(in)          :: degen(:), isym_pairs(:), isym_groups(:), j12(2), jval(:)
    character(len=*), intent(in) :: labels(:)
    real(r8), intent(in)         :: gns(:), temperature, qstat, zpe, freq_window(2), &
                                    erange_low(2), erange_upp(2), thresh_intes, thresh_line, thresh_coeff
    logical, intent(in)          :: reduced
    integer, intent(in)          :: nvib, nlevels, nblocks
    real(r8), intent(in)         :: dipole_me(:,:,:)
    integer :: u, i, n, st
    character(len=256) :: mol

    if (.not. atomgpu_dump_on()) return
    call open_in_dir('model.txt', .false., u_model)
    call open_in_dir('arrays.bin', .true., u_bin)
    model_open = .true.
    u = u_model
    write(u, '(a)') 'format atomgpu-trove-fixture 1'
    ! TROVE keeps no molecule name (MOLECULE is read and dropped): the caller passes its type
    ! (e.g. XY2); ATOMGPU_TROVE_MOLECULE overrides it.
    call get_environment_variable('ATOMGPU_TROVE_MOLECULE', mol, n, st)
    if (st /= 0 .or. n == 0) mol = molecule
    write(u, '(a)') 'molecule '//trim(noblank(mol))
    write(u, '(a)') 'group '//trim(noblank(group))
    write(u, '(a)') 'nrepresen '//trim(fi(size(degen)))
    call put_ints(u, 'degen', degen)
    write(u, '(a)', advance='no') 'labels'
    do i = 1, size(labels)
      write(u, '(1x,a)', advance='no') trim(noblank(labels(i)))
    end do
    write(u, '()')
    call put_reals(u, 'gns', gns)
    call put_ints(u, 'isym_pairs', isym_pairs)
    call put_ints(u, 'isym_groups', isym_groups)
    write(u, '(a)') 'action '//trim(noblank(action))
    call put_ints(u, 'j', j12)
    call put_ints(u, 'jval', jval)
    call put_reals(u, 'temperature', [temperature])
    call put_reals(u, 'qstat', [qstat])
    call put_reals(u, 'zpe', [zpe])
    call put_reals(u, 'freq_window', freq_window)
    call put_reals(u, 'erange_low', erange_low)
    call put_reals(u, 'erange_upp', erange_upp)
    call put_reals(u, 'thresh_intes', [thresh_intes])
    call put_reals(u, 'thresh_line', [thresh_line])
    call put_reals(u, 'thresh_coeff', [thresh_coeff])
    write(u, '(a,i0)') 'reduced ', merge(1, 0, reduced)
    write(u, '(a,i0)') 'nvib ', nvib
    write(u, '(a,i0)') 'nlevels ', nlevels
    write(u, '(a,i0)') 'nblocks ', nblocks
    if (size(dipole_me, 1) /= nvib .or. size(dipole_me, 2) /= nvib .or. size(dipole_me, 3) /= 3) &
      stop 'atomgpu_dump_model: dipole_me is not nvib x nvib x 3'
    write(u_bin) real(dipole_me, r8)
    nblocks_expected = nblocks
    nblocks_done = 0
    if (nblocks == 0) call finish()
  end subroutine atomgpu_dump_model

  ! One (J, gamma) block.
  !   iroot_j0, k, ktau, icase_row, icase_ib: per contracted rovibrational function (nprim)
  !   kmat(irow): offset of row irow in the symmetrized vector (TROVE's ijterm(jind)%kmat(:,gamma))
  !   nelem(irow): number of symmetrized functions of row irow (irr(gamma)%N)
  !   repres(isym, ideg, ib): irr(gamma)%repres
  !   ilevel, id, pos, energy, irec: the block's levels in TROVE's eigen list, increasing pos
  !   vec_unit: TROVE's direct-access unit that holds this block's eigenvectors (record irec)
  subroutine atomgpu_dump_block(j, gamma, nprim, nsym, ndeg, iroot_j0, k, ktau, icase_row, icase_ib, &
                                kmat, nelem, repres, nstates, ilevel, id, pos, energy, irec, vec_unit)
    integer, intent(in)  :: j, gamma, nprim, nsym, ndeg, nstates, vec_unit
    integer, intent(in)  :: iroot_j0(:), k(:), ktau(:), icase_row(:), icase_ib(:), kmat(:), nelem(:)
    real(r8), intent(in) :: repres(:,:,:)
    integer, intent(in)  :: ilevel(:), id(:), pos(:), irec(:)
    real(r8), intent(in) :: energy(:)
    integer(i8), allocatable :: row_start(:), col(:)
    real(r8), allocatable    :: val(:), vec(:)
    integer :: p, d, irow, ib, iterm, ie, nnz, r, s

    if (.not. atomgpu_dump_on()) return
    if (.not. model_open) stop 'atomgpu_dump_block: atomgpu_dump_model was not called'
    nnz = 0
    do p = 1, nprim
      nnz = nnz + nelem(icase_row(p))
    end do
    nnz = nnz*ndeg
    allocate(row_start(ndeg*nprim + 1), col(nnz), val(nnz), vec(max(nsym, 1)))
    r = 0
    row_start(1) = 0
    do d = 1, ndeg
      do p = 1, nprim
        irow  = icase_row(p)
        ib    = icase_ib(p)
        iterm = kmat(irow)
        do ie = 1, nelem(irow)
          r = r + 1
          col(r) = iterm + ie - 1
          val(r) = repres(iterm + ie, d, ib)
        end do
        row_start((d - 1)*nprim + p + 1) = r
      end do
    end do
    write(u_model, '(a,7(1x,i0))') 'block', j, gamma, nprim, nsym, ndeg, nnz, nstates
    write(u_bin) int(iroot_j0(1:nprim), i8), int(k(1:nprim), i8), int(ktau(1:nprim), i8)
    write(u_bin) row_start, col, val
    do s = 1, nstates
      read(vec_unit, rec=irec(s)) vec(1:nsym)
      write(u_bin) int(ilevel(s), i8), int(id(s), i8), int(pos(s), i8), energy(s), vec(1:nsym)
    end do
    deallocate(row_start, col, val, vec)
    nblocks_done = nblocks_done + 1
    if (nblocks_done == nblocks_expected) call finish()
  end subroutine atomgpu_dump_block

  subroutine finish()
    if (model_open) then
      close(u_model)
      close(u_bin)
    end if
    model_open = .false.
  end subroutine finish

  ! One line of TROVE's .states file (tran.f90, read_eigenval). The arguments are the
  ! pieces TROVE prints; the column text is built with TROVE's edit descriptors:
  ! "2x,a3,2x,<nmodes>i3,1x,<nclasses>(1x,a3),2i4,1x,a3,2x,f5.2,a3,1x,i9,1x,<nmodes>i3,<nclasses>i9".
  ! energy is absolute (TROVE prints energy - zpe in f12.6 before this text).
  subroutine atomgpu_dump_state(id, energy, gtot, j, label, quanta, class_labels, krot, taurot, &
                                label0, largest_coeff, grep, ilevel, normal, cnu)
    integer, intent(in)          :: id, gtot, j, krot, taurot, ilevel
    real(r8), intent(in)         :: energy, largest_coeff
    character(len=*), intent(in) :: label, label0, grep
    character(len=*), intent(in) :: class_labels(:)
    integer, intent(in)          :: quanta(:), normal(:), cnu(:)
    character(len=400) :: fmt
    character(len=4000) :: line

    if (.not. atomgpu_dump_on()) return
    if (.not. states_open) then
      call open_in_dir('states.txt', .false., u_st)
      call open_in_dir('states_columns.txt', .false., u_col)
      states_open = .true.
    end if
    write(fmt, '(a,i0,a,i0,a,i0,a,i0,a)') '(2x,a3,2x,', size(quanta), 'i3,1x,', size(class_labels), &
          '(1x,a3),2i4,1x,a3,2x,f5.2,a3,1x,i9,1x,', size(normal), 'i3,', size(cnu), 'i9)'
    write(line, fmt) label, quanta, class_labels, krot, taurot, label0, largest_coeff, grep, ilevel, normal, cnu
    write(u_col, '(a)') trim(line)
    write(u_st, '(i0,1x,es24.16e3,1x,i0,1x,i0)') id, energy, gtot, j
    flush(u_col)
    flush(u_st)
  end subroutine atomgpu_dump_state

end module atomgpu_trove_dump
