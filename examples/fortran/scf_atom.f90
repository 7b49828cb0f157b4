! scf_atom: a DFRATOM-style atomic SCF driver on atomgpu. It reads a DFRATOM-like namelist input
! (paper dfratom-cudaprophet-scf, section 2.4), runs one Dirac-Fock or Hartree-Fock SCF (jobtype
! 'energy') or a well-tempered basis optimisation (jobtype 'bsopt') through the atomgpu SCF
! family, and prints the energies and the orbital eigenvalues in a table.
!
!     scf_atom input.inp [> output]        (the input file must end in .inp, as DFRATOM's)
!
! Samples: examples/data/scf/*.inp (He, Be, Ne, Ar, Kr, Xe). The backend follows ATOMGPU_BACKEND
! (auto: the GPU when there is one).
!
! Input, in this order (namelist groups may be written $name ... $end or &name ... /):
!   line 1     a title (at most 200 characters)
!   $contrl    jobtype = 'energy' | 'bsopt';  c = speed of light [au] (137.03599976);
!              relativistic = .true. (Dirac-Fock, DFRATOM's only method) | .false. (Hartree-Fock,
!              atomgpu's addition)
!   $nuc       znuc = Z;  nucmdl = 1 (point, default) | 3 (Gaussian; 2, the finite sphere, is not
!              supported, as in DFRATOM) | 4 (Fermi, GRASP's and DBSR's default nucleus: atomgpu's
!              addition, a value DFRATOM does not use);  alpha = the Gaussian exponent [bohr^-2],
!              or amass = the mass number A, from which Visscher and Dyall's exponent is computed
!              (DFRATOM takes its default from a table; here one of the two must be given);
!              Fermi: rrms = the root-mean-square radius [fm] (e.g. Angeli and Marinova 2013), or
!              amass, from which GRASP's r_rms = 0.836 A^(1/3) + 0.570 fm; skin = the skin
!              thickness t [fm] (2.30, GRASP's)
!   $bas       nsym = number of symmetries (Dirac: s1/2, p1/2, p3/2, d3/2, d5/2, f5/2, f7/2 in this
!              order; Hartree-Fock: s, p, d, f); bastype = 'wtbs' | 'rdin'; ngroup (1)
!   rdin       per symmetry: its number of functions, then its exponents one per line
!   $wtbs      wtbspara = alpha, beta, delta, gamma per group; nbs, start (1), groups (1) per symmetry
!   $newuoa    (bsopt only) rhobeg (0.1), rhoend (1e-4), iprint (0), maxfun (500)
!   $econfig   nclose, nopen (0 or 1), freel per symmetry (atomgpu reads freel as the electrons in
!              that symmetry's open shell, averaged over its configurations); maxitr (50),
!              dfctr (0.3), thdll (1e-5), thdsl (1e-7; atomgpu applies it to the small-small
!              elements too, thdss is read and not used), ixtrp (0; Fock extrapolation is not
!              available), autogen and nconf (several configurations: not available); atomgpu's
!              own: ndiis (8: Pulay DIIS over 8 cycles, converged at a relative energy change
!              thden (1e-12) and an orbital gradient thdgr (1e-6); 0: DFRATOM's damped iteration,
!              converged by dfctr, thdll and thdsl as DFRATOM is)
program scf_atom
    use, intrinsic :: iso_c_binding, only: c_double, c_int64_t
    use atomgpu
    implicit none
    integer, parameter :: dp = c_double, max_sym = 7, max_group = 7, max_functions = 400
    character(len=*), parameter :: dirac_labels(max_sym) = ['s1/2', 'p1/2', 'p3/2', 'd3/2', 'd5/2', 'f5/2', 'f7/2']
    character(len=*), parameter :: letters = 'spdf'
    integer, parameter :: dirac_kappa(max_sym) = [-1, 1, -2, 2, -3, 3, -4]

    character(len=16) :: jobtype
    real(dp) :: c
    logical :: relativistic
    real(dp) :: znuc, rnuc, alpha, amass, rrms, skin
    integer :: nucmdl
    integer :: nsym, ngroup
    character(len=8) :: bastype
    real(dp) :: wtbspara(4 * max_group)
    integer :: nbs(max_sym), start(max_sym), groups(max_sym)
    real(dp) :: rhobeg, rhoend
    integer :: iprint, maxfun
    integer :: nclose(max_sym), nopen(max_sym), nconf, maxitr, ixtrp, ndiis
    real(dp) :: freel(max_sym), dfctr, thdll, thdsl, thdss, thden, thdgr
    logical :: autogen
    namelist /contrl/ jobtype, c, relativistic
    namelist /nuc/ znuc, nucmdl, rnuc, alpha, amass, rrms, skin
    namelist /bas/ nsym, bastype, ngroup
    namelist /wtbs/ wtbspara, nbs, start, groups
    namelist /newuoa/ rhobeg, rhoend, iprint, maxfun
    namelist /econfig/ nclose, nopen, freel, autogen, nconf, maxitr, ixtrp, dfctr, thdll, thdsl, thdss, ndiis, thden, &
        thdgr

    character(len=1024) :: path
    character(len=200) :: title
    character(len=256) :: message
    integer :: unit, ios, i, n_functions(max_sym), angular(max_sym), stat
    real(dp), allocatable :: exponents(:)
    type(atomgpu_scf_params_t) :: params

    jobtype = 'energy'
    c = 137.03599976_dp
    relativistic = .true.
    znuc = 0
    nucmdl = 1
    rnuc = 0
    alpha = 0
    amass = 0
    rrms = 0
    skin = 2.30_dp
    nsym = 0
    ngroup = 1
    bastype = 'wtbs'
    wtbspara = -1
    nbs = 0
    start = 1
    groups = 1
    rhobeg = 0.1_dp
    rhoend = 1.0e-4_dp
    iprint = 0
    maxfun = 500
    nclose = 0
    nopen = 0
    freel = 0
    autogen = .false.
    nconf = 0
    maxitr = 50
    ixtrp = 0
    dfctr = 0.3_dp
    thdll = 1.0e-5_dp
    thdsl = 1.0e-7_dp
    thdss = 1.0e-9_dp
    ndiis = 8
    thden = 1.0e-12_dp
    thdgr = 1.0e-6_dp

    if (command_argument_count() /= 1) call fail('usage: scf_atom input.inp')
    call get_command_argument(1, path)
    if (len_trim(path) < 5) call fail('the input file must end in .inp: ' // trim(path))
    if (path(len_trim(path) - 3:len_trim(path)) /= '.inp') call fail('the input file must end in .inp: ' // trim(path))
    open (newunit=unit, file=trim(path), status='old', action='read', iostat=ios, iomsg=message)
    if (ios /= 0) call fail('cannot open ' // trim(path) // ': ' // trim(message))

    read (unit, '(a)', iostat=ios) title
    if (ios /= 0) call fail('line 1: the title is missing')
    call read_group('contrl')
    call read_group('nuc')
    call read_group('bas')
    if (jobtype /= 'energy' .and. jobtype /= 'bsopt') &
        call fail("$contrl: jobtype must be 'energy' or 'bsopt', got '" // trim(jobtype) // "'")
    if (nsym < 1 .or. nsym > max_sym) call fail('$bas: nsym must be in [1, ' // itoa(max_sym) // '], got ' // itoa(nsym))
    if (.not. relativistic .and. nsym > len(letters)) call fail('$bas: nsym must be <= 4 for Hartree-Fock (s to f)')
    if (ngroup < 1 .or. ngroup > max_group) call fail('$bas: ngroup must be in [1, ' // itoa(max_group) // ']')
    if (bastype == 'rdin') then
        if (jobtype == 'bsopt') call fail("jobtype 'bsopt' needs bastype 'wtbs'")
        call read_explicit_basis()
    else if (bastype == 'wtbs') then
        call read_group('wtbs')
        if (any(wtbspara(1:4 * ngroup) == -1)) &
            call fail('$wtbs: wtbspara must give alpha, beta, delta, gamma for each of the ' // itoa(ngroup) // ' groups')
        n_functions(1:nsym) = nbs(1:nsym)
        allocate (exponents(sum(nbs(1:nsym))))
        call atomgpu_scf_wtbs_exponents(wtbspara(1:4 * ngroup), nbs(1:nsym), start(1:nsym), groups(1:nsym), &
            exponents, stat)
        if (stat /= ATOMGPU_OK) call fail('$wtbs: ' // atomgpu_last_error_message())
    else
        call fail("$bas: bastype must be 'wtbs' or 'rdin', got '" // trim(bastype) // "'")
    end if
    if (jobtype == 'bsopt') call read_group('newuoa')
    call read_group('econfig')
    close (unit)

    call check_configuration()
    call set_params()
    do i = 1, nsym
        if (relativistic) then
            angular(i) = dirac_kappa(i)
        else
            angular(i) = i - 1
        end if
    end do

    write (*, '(a)') ' atomgpu scf_atom: ' // trim(title)
    call describe()
    if (jobtype == 'bsopt') call optimise()
    call energy()

contains

    subroutine fail(text)
        character(len=*), intent(in) :: text
        write (*, '(a)') ' scf_atom: error: ' // text
        error stop 1
    end subroutine

    function itoa(value) result(text)
        integer, intent(in) :: value
        character(len=:), allocatable :: text
        character(len=24) :: buffer
        write (buffer, '(i0)') value
        text = trim(buffer)
    end function

    ! Reads namelist group `name` (the next one in the file), naming it when it is missing or bad.
    subroutine read_group(name)
        character(len=*), intent(in) :: name
        select case (name)
        case ('contrl')
            read (unit, nml=contrl, iostat=ios, iomsg=message)
        case ('nuc')
            read (unit, nml=nuc, iostat=ios, iomsg=message)
        case ('bas')
            read (unit, nml=bas, iostat=ios, iomsg=message)
        case ('wtbs')
            read (unit, nml=wtbs, iostat=ios, iomsg=message)
        case ('newuoa')
            read (unit, nml=newuoa, iostat=ios, iomsg=message)
        case ('econfig')
            read (unit, nml=econfig, iostat=ios, iomsg=message)
        end select
        if (ios < 0) call fail('the $' // name // ' group is missing (groups must come in the documented order)')
        if (ios > 0) call fail('the $' // name // ' group cannot be read: ' // trim(message))
    end subroutine

    ! bastype 'rdin': per symmetry its count, then its exponents one per line.
    subroutine read_explicit_basis()
        real(dp) :: buffer(max_sym * max_functions)
        integer :: n, total, k
        total = 0
        do i = 1, nsym
            read (unit, *, iostat=ios) n
            if (ios /= 0) call fail('rdin: the number of functions of symmetry ' // itoa(i) // ' is missing')
            if (n < 1 .or. n > max_functions) &
                call fail('rdin: symmetry ' // itoa(i) // ' must have 1 to 400 functions, got ' // itoa(n))
            do k = 1, n
                read (unit, *, iostat=ios) buffer(total + k)
                if (ios /= 0) call fail('rdin: exponent ' // itoa(k) // ' of symmetry ' // itoa(i) // ' is missing')
            end do
            n_functions(i) = n
            total = total + n
        end do
        exponents = buffer(1:total)
    end subroutine

    ! $econfig as atomgpu runs it: one open shell per symmetry, one configuration.
    subroutine check_configuration()
        if (autogen .or. nconf > 0) &
            call fail('$econfig: several configurations (autogen, nconf) are not available: give freel per symmetry')
        if (ixtrp /= 0) call fail('$econfig: Fock extrapolation (ixtrp = 1) is not available: use ixtrp = 0')
        do i = 1, nsym
            if (nopen(i) < 0 .or. nopen(i) > 1) &
                call fail('$econfig: nopen(' // itoa(i) // ') must be 0 or 1 (one open shell per symmetry)')
            if (nopen(i) == 1 .and. freel(i) <= 0) &
                call fail('$econfig: nopen(' // itoa(i) // ') = 1 needs freel(' // itoa(i) // ') > 0 electrons')
            if (nopen(i) == 0 .and. freel(i) /= 0) &
                call fail('$econfig: freel(' // itoa(i) // ') is set but nopen(' // itoa(i) // ') = 0')
        end do
        if (nucmdl == 2) &
            call fail('$nuc: nucmdl = 2 (finite sphere) is not supported; use 1 (point), 3 (Gaussian) or 4 (Fermi)')
        if (nucmdl /= 1 .and. nucmdl /= 3 .and. nucmdl /= 4) &
            call fail('$nuc: nucmdl must be 1 (point), 3 (Gaussian) or 4 (Fermi)')
        if (nucmdl == 3 .and. alpha <= 0 .and. amass <= 0) &
            call fail('$nuc: nucmdl = 3 needs alpha (the exponent) or amass (the mass number)')
        if (nucmdl == 4 .and. rrms <= 0 .and. amass <= 0) &
            call fail('$nuc: nucmdl = 4 needs rrms (the r.m.s. radius, fm) or amass (the mass number)')
    end subroutine

    subroutine set_params()
        if (relativistic) params%method = ATOMGPU_SCF_DIRAC_FOCK
        params%speed_of_light = c
        params%nuclear_charge = znuc
        params%damping = dfctr
        params%threshold_large = thdll
        params%threshold_small = thdsl
        params%max_iterations = maxitr
        params%diis_size = ndiis
        params%threshold_energy = thden
        params%threshold_gradient = thdgr
        if (nucmdl == 4) then
            params%nucleus_model = ATOMGPU_SCF_NUCLEUS_FERMI
            params%nucleus_mass_number = amass
            params%nucleus_rms_radius = rrms
            params%nucleus_skin_thickness = skin
        end if
        if (nucmdl == 3) then
            params%nucleus_model = ATOMGPU_SCF_NUCLEUS_GAUSSIAN
            if (alpha > 0) then
                params%nucleus_exponent = alpha
            else
                call atomgpu_scf_gaussian_nucleus_exponent(amass, params%nucleus_exponent, stat)
                if (stat /= ATOMGPU_OK) call fail('$nuc: ' // atomgpu_last_error_message())
            end if
        end if
    end subroutine

    function label(i) result(text)
        integer, intent(in) :: i
        character(len=4) :: text
        if (relativistic) then
            text = dirac_labels(i)
        else
            text = letters(i:i)
        end if
    end function

    subroutine describe()
        character(len=:), allocatable :: name
        integer :: backend
        if (relativistic) then
            write (*, '(a, f14.8, a)') ' method      Dirac-Fock (Dirac-Coulomb, no pair), c = ', c, ' au'
        else
            write (*, '(a)') ' method      Hartree-Fock'
        end if
        if (params%nucleus_model == ATOMGPU_SCF_NUCLEUS_GAUSSIAN) then
            write (*, '(a, f8.3, a, es16.9, a)') ' nucleus     Z = ', znuc, ', Gaussian, xi = ', params%nucleus_exponent, &
                ' bohr^-2'
        else if (params%nucleus_model == ATOMGPU_SCF_NUCLEUS_FERMI) then
            block
                real(dp) :: c_fm, a_fm
                call atomgpu_scf_fermi_nucleus(amass, rrms, skin, c_fm, a_fm, stat)
                if (stat /= ATOMGPU_OK) call fail('$nuc: ' // atomgpu_last_error_message())
                write (*, '(a, f8.3, a, f10.6, a, f10.6, a)') ' nucleus     Z = ', znuc, ', Fermi, c = ', c_fm, &
                    ' fm, a = ', a_fm, ' fm'
            end block
        else
            write (*, '(a, f8.3, a)') ' nucleus     Z = ', znuc, ', point'
        end if
        write (*, '(a, 7(1x, a, "x", i0))') ' basis       ' // trim(bastype) // ':', &
            (trim(label(i)), n_functions(i), i = 1, nsym)
        call atomgpu_device_info(backend, name, stat=stat)
        if (stat == ATOMGPU_OK) then
            if (backend == ATOMGPU_BACKEND_CUDA) then
                write (*, '(a)') ' backend     CUDA, ' // trim(name)
            else
                write (*, '(a)') ' backend     CPU'
            end if
        end if
    end subroutine

    ! jobtype 'bsopt': optimise, print the parameters, and continue with their exponents.
    subroutine optimise()
        real(dp) :: optimised(4 * ngroup), e(4), t
        integer :: evaluations, g
        logical :: converged
        integer(c_int64_t) :: t0, t1, rate
        call system_clock(t0, rate)
        call atomgpu_scf_optimise_wtbs(params, angular(1:nsym), nclose(1:nsym), freel(1:nsym), wtbspara(1:4 * ngroup), &
            nbs(1:nsym), start(1:nsym), groups(1:nsym), rhobeg, rhoend, maxfun, optimised, exponents, e, &
            evaluations, converged, stat)
        call system_clock(t1)
        t = real(t1 - t0, dp) / real(rate, dp)
        if (stat /= ATOMGPU_OK) call fail('basis optimisation: ' // atomgpu_last_error_message())
        write (*, '(/, a, i0, a, f10.3, a)') ' basis optimisation: ', evaluations, ' SCFs in ', t, ' s'
        if (.not. converged) write (*, '(a)') ' NOTE: maxfun SCFs ran before the trust radius reached rhoend; ' // &
            'the parameters are the best found'
        write (*, '(a)') '   group        alpha              beta              delta              gamma'
        do g = 1, ngroup
            write (*, '(i8, 4es19.11)') g, optimised(4 * g - 3:4 * g)
        end do
        wtbspara(1:4 * ngroup) = optimised
    end subroutine

    subroutine energy()
        real(dp) :: e(4), t
        real(dp), allocatable :: eps(:)
        integer :: iterations, k, offset, n_orbitals
        integer(c_int64_t) :: t0, t1, rate
        character(len=8) :: name
        real(dp) :: occupation, last_cycle(2)
        n_orbitals = sum(nclose(1:nsym)) + count(freel(1:nsym) > 0)
        allocate (eps(n_orbitals))
        call system_clock(t0, rate)
        call atomgpu_scf_run(params, angular(1:nsym), n_functions(1:nsym), exponents, nclose(1:nsym), freel(1:nsym), &
            e, eps, iterations, stat, convergence=last_cycle)
        call system_clock(t1)
        t = real(t1 - t0, dp) / real(rate, dp)
        if (stat /= ATOMGPU_OK .and. stat /= ATOMGPU_ERR_NOT_CONVERGED) call fail(atomgpu_last_error_message())
        write (*, '(/, a, i0, a, f10.3, a)') ' SCF: ', iterations, ' iterations in ', t, ' s'
        write (*, '(a, es10.2, a, es10.2)') ' last cycle: energy change ', last_cycle(1), ' hartree, orbital gradient ', &
            last_cycle(2)
        if (stat == ATOMGPU_ERR_NOT_CONVERGED) write (*, '(a)') ' NOT CONVERGED: the numbers below are the last cycle''s'
        write (*, '(a, f22.10, a)') '   total energy       ', e(1), ' hartree'
        if (relativistic) then
            write (*, '(a, f22.10)') '   Dirac kinetic      ', e(2)
            write (*, '(a)') '     (c alpha.p + (beta - 1) c^2: the kinetic energy without the rest energy)'
        else
            write (*, '(a, f22.10)') '   kinetic            ', e(2)
        end if
        write (*, '(a, f22.10)') '   nuclear attraction ', e(3)
        write (*, '(a, f22.10)') '   two-electron       ', e(4)
        if (.not. relativistic) write (*, '(a, f22.12)') '   virial ratio -V/T  ', -(e(3) + e(4)) / e(2)
        write (*, '(/, a)') '   orbital   symmetry   occupation        energy (hartree)'
        offset = 0
        do i = 1, nsym
            do k = 1, nclose(i) + nopen(i)
                ! GRASP's names: j = l - 1/2 (kappa > 0) is written 2p-, 3d-, ...; j = l + 1/2 2p, 3d.
                write (name, '(i0, a)') k + l_of(i), letters(l_of(i) + 1:l_of(i) + 1)
                if (relativistic) then
                    if (dirac_kappa(i) > 0) name = trim(name) // '-'
                end if
                if (k <= nclose(i)) then
                    occupation = capacity(i)
                else
                    occupation = freel(i)
                end if
                write (*, '(3x, a8, 3x, a4, 5x, f8.3, 5x, f22.10)') name, label(i), occupation, eps(offset + k)
            end do
            offset = offset + nclose(i) + nopen(i)
        end do
        if (stat == ATOMGPU_ERR_NOT_CONVERGED) then
            write (*, '(a)') ' scf_atom: ' // atomgpu_last_error_message()
            error stop 2
        end if
    end subroutine

    ! l of symmetry i.
    function l_of(i) result(l)
        integer, intent(in) :: i
        integer :: l
        if (relativistic) then
            l = max(dirac_kappa(i), -dirac_kappa(i) - 1)
        else
            l = i - 1
        end if
    end function

    ! Electrons in a closed orbital of symmetry i: 2|kappa| or 2(2l + 1).
    function capacity(i) result(n)
        integer, intent(in) :: i
        real(dp) :: n
        if (relativistic) then
            n = 2 * abs(dirac_kappa(i))
        else
            n = 2 * (2 * (i - 1) + 1)
        end if
    end function
end program scf_atom
