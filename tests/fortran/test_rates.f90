! test_rates.f90: calls every public procedure of module atomgpu (fortran/atomgpu.f90) and checks
! the numbers against independent references computed here from physical constants (CODATA
! 2018): closed forms of the Maxwell-Boltzmann limits, the Sommerfeld expansion of a degenerate
! Fermi gas, and detailed balance (the same references as tests/c/test_rates.c).
!
! Build (from the repository root, after `cargo build --release`):
!   gfortran -std=f2018 -Wall -fcheck=all fortran/atomgpu.f90 tests/fortran/support/checks.f90 \
!       tests/fortran/test_rates.f90 -o test_rates -Ltarget/release -latomgpu -Wl,-rpath,$PWD/target/release
! Exit status 0 when every check passes (error stop 1 otherwise).
program test_rates
    use, intrinsic :: iso_c_binding, only: c_double, c_int64_t
    use atomgpu
    use atomgpu_test_checks
    implicit none

    integer, parameter :: dp = c_double
    ! pi, hc [eV cm] and mec2 [eV] come from module atomgpu_test_checks.
    real(dp), parameter :: c_cm_s = 2.99792458e10_dp       ! c [cm/s]
    real(dp), parameter :: a0_cm = 5.29177210903e-9_dp     ! Bohr radius [cm]
    real(dp), parameter :: ry_ev = 13.605693122994_dp      ! Rydberg [eV]
    real(dp), parameter :: alpha = 7.2973525693e-3_dp      ! fine-structure constant
    real(dp), parameter :: euler_gamma = 0.57721566490153286061_dp

    integer, parameter :: ns = 3, nt = 2
    real(dp), parameter :: te(ns) = [0.5_dp, 10.0_dp, 30.0_dp]
    real(dp), parameter :: ne(ns) = [1e18_dp, 1e21_dp, 1e22_dp]
    real(dp), parameter :: tr(ns) = [5.0_dp, 20.0_dp, 100.0_dp]
    ! A non-degenerate state (ne lambda^3 / 2 ~ 5e-6) where Fermi-Dirac tends to Maxwell-Boltzmann.
    real(dp), parameter :: te_low(1) = [10.0_dp], ne_low(1) = [1e18_dp], tr_low(1) = [20.0_dp]

    call test_common()
    call test_electron_gas()
    call test_excitation()
    call test_ionization()
    call test_photoionization()
    call test_inverse_bremsstrahlung()
    call test_single_precision()

    print '(a, i0, a, i0, a)', "test_rates (Fortran): ", checks, " checks, ", failures, " failures"
    if (failures /= 0) error stop 1

contains

    subroutine check_stat(what, stat)
        character(len=*), intent(in) :: what
        integer, intent(in) :: stat
        checks = checks + 1
        if (stat /= ATOMGPU_OK) then
            failures = failures + 1
            print '(a, a, a, i0, a, a)', "FAIL ", what, ": stat ", stat, ": ", atomgpu_last_error_message()
        end if
    end subroutine

    ! Thermal de Broglie wavelength h / sqrt(2 pi m_e k T) [cm], T in eV.
    pure function thermal_wavelength(t) result(l)
        real(dp), intent(in) :: t
        real(dp) :: l
        l = hc / sqrt(2 * pi * mec2 * t)
    end function

    ! Maxwell-Boltzmann chemical potential T ln(ne lambda^3 / 2) [eV].
    pure function mu_mb(t, n) result(mu)
        real(dp), intent(in) :: t, n
        real(dp) :: mu
        mu = t * log(n * thermal_wavelength(t)**3 / 2)
    end function

    ! Fermi energy (hc)^2 / (2 m_e c^2) (3 ne / 8 pi)^{2/3} [eV].
    pure function fermi_energy(n) result(ef)
        real(dp), intent(in) :: n
        real(dp) :: ef
        ef = hc**2 / (2 * mec2) * (3 * n / (8 * pi))**(2.0_dp / 3.0_dp)
    end function

    ! G sqrt(2/m): 4 pi (2 m_e / h^2)^{3/2} times c sqrt(2 / m_e c^2).
    pure function g_times_speed() result(k)
        real(dp) :: k
        k = 4 * pi * (2 * mec2 / hc**2)**1.5_dp * c_cm_s * sqrt(2 / mec2)
    end function

    ! Exponential integral E1(x), x > 0 (series for x <= 1, continued fraction otherwise).
    function expint_e1(x) result(e1)
        real(dp), intent(in) :: x
        real(dp) :: e1, total, term, add, b, c, d, h, an, del
        integer :: k
        if (x <= 1) then
            total = 0
            term = 1
            do k = 1, 100
                term = -term * x / k
                add = term / k
                total = total + add
                if (abs(add) < 1e-18_dp * abs(total)) exit
            end do
            e1 = -euler_gamma - log(x) - total
        else
            b = x + 1
            c = 1e300_dp
            d = 1 / b
            h = d
            do k = 1, 1000
                an = -real(k, dp)**2
                b = b + 2
                d = 1 / (an * d + b)
                c = b + an / c
                del = c * d
                h = h * del
                if (abs(del - 1) < 1e-16_dp) exit
            end do
            e1 = h * exp(-x)
        end if
    end function

    ! Dilogarithm Li2(z), 0 <= z < 1, by its series.
    function dilog(z) result(li2)
        real(dp), intent(in) :: z
        real(dp) :: li2, zk, add
        integer :: k
        li2 = 0
        zk = 1
        do k = 1, 100000
            zk = zk * z
            add = zk / real(k, dp)**2
            li2 = li2 + add
            if (add < 1e-18_dp * li2) exit
        end do
    end function

    ! ------------------------------------------------------------------------------------------

    subroutine test_common()
        integer :: major, minor, patch, stat, backend, cc_major, cc_minor, code
        integer(c_int64_t) :: total, free
        character(len=:), allocatable :: name, version
        character(len=64) :: expected
        character(len=16) :: env
        integer :: env_length, env_status, choice

        call atomgpu_version(major, minor, patch)
        call atomgpu_version(major, minor, patch, stat)
        call check_stat("atomgpu_version", stat)
        write (expected, '(i0, ".", i0, ".", i0)') major, minor, patch
        version = atomgpu_version_string()
        call check("atomgpu_version_string is major.minor.patch", version == trim(expected))
        call check("version is 0.x or later", major >= 0 .and. minor >= 0 .and. patch >= 0)

        do code = -1, 7
            call check("atomgpu_status_string non-empty", len(atomgpu_status_string(code)) > 0)
        end do
        call check("status strings differ", &
            atomgpu_status_string(ATOMGPU_OK) /= atomgpu_status_string(ATOMGPU_ERR_INVALID_ARGUMENT))

        ! Re-assert the backend the environment asks for.
        choice = ATOMGPU_BACKEND_AUTO
        call get_environment_variable("ATOMGPU_BACKEND", env, env_length, env_status)
        if (env_status == 0 .and. trim(env) == "cpu") choice = ATOMGPU_BACKEND_CPU
        if (env_status == 0 .and. (trim(env) == "cuda" .or. trim(env) == "gpu")) choice = ATOMGPU_BACKEND_CUDA
        call atomgpu_set_backend(choice, stat)
        call check_stat("atomgpu_set_backend", stat)
        call atomgpu_set_backend(9, stat)
        call check("atomgpu_set_backend(9) fails at argument 1", &
            stat == ATOMGPU_ERR_INVALID_ARGUMENT .and. atomgpu_last_error_arg() == 1 .and. &
            index(atomgpu_last_error_message(), "backend") > 0)
        call atomgpu_set_backend(choice)
        call check("a successful call clears the last error", &
            len(atomgpu_last_error_message()) == 0 .and. atomgpu_last_error_arg() == 0)

        call atomgpu_device_info(backend, name, total, free, cc_major, cc_minor, stat)
        call check_stat("atomgpu_device_info", stat)
        call check("device_info backend is CPU or CUDA", &
            backend == ATOMGPU_BACKEND_CPU .or. backend == ATOMGPU_BACKEND_CUDA)
        call check("device_info name non-empty", len(name) > 0)
        call check("device_info memory consistent", total >= 0 .and. free >= 0 .and. free <= total)
        if (backend == ATOMGPU_BACKEND_CUDA) call check("compute capability >= 1", cc_major >= 1)
        call atomgpu_device_info(backend)
        print '(a, a, a, i0, a, i0, a, i0)', "backend: ", name, ", bytes ", total, ", cc ", cc_major, ".", cc_minor
    end subroutine

    subroutine test_electron_gas()
        real(dp) :: mu(ns), u(ns), te_back(ns), mu_back(ns), y, ef, t, mu1(1), u1(1), t1(1), m1(1)
        integer :: s, stat

        ! (a) Maxwell-Boltzmann chemical potential.
        call atomgpu_rates_chemical_potential(ATOMGPU_STATS_MAXWELL_BOLTZMANN, te, ne, mu, stat)
        call check_stat("chemical_potential MB", stat)
        do s = 1, ns
            call check_rel("MB mu = T ln(ne lambda^3/2)", mu(s), mu_mb(te(s), ne(s)), 1e-13_dp)
        end do

        ! (c) Maxwell-Boltzmann energy density and inversion.
        call atomgpu_rates_energy_density(ATOMGPU_STATS_MAXWELL_BOLTZMANN, te, ne, u)
        do s = 1, ns
            call check_rel("MB u = 3/2 ne T", u(s), 1.5_dp * ne(s) * te(s), 1e-14_dp)
        end do
        call atomgpu_rates_temperature(ATOMGPU_STATS_MAXWELL_BOLTZMANN, u, ne, te_back, mu_back, stat)
        call check_stat("temperature MB", stat)
        do s = 1, ns
            call check_rel("MB temperature round trip", te_back(s), te(s), 1e-14_dp)
            call check_rel("MB temperature: mu", mu_back(s), mu_mb(te(s), ne(s)), 1e-13_dp)
        end do

        ! Fermi-Dirac at low density: eta = ln y + y / 2^{3/2} + O(y^2).
        call atomgpu_rates_chemical_potential(ATOMGPU_STATS_FERMI_DIRAC, te_low, ne_low, mu1)
        y = ne_low(1) * thermal_wavelength(te_low(1))**3 / 2
        call check_rel("FD mu -> T (ln y + y/sqrt 8)", mu1(1), te_low(1) * (log(y) + y / sqrt(8.0_dp)), 1e-12_dp)

        ! (b) Degenerate gas, T = 0.1 eV, ne = 1e24: Sommerfeld.
        t1 = 0.1_dp
        ef = fermi_energy(1e24_dp)
        t = t1(1) / ef
        call atomgpu_rates_chemical_potential(ATOMGPU_STATS_FERMI_DIRAC, t1, [1e24_dp], mu1, stat)
        call check_stat("chemical_potential FD degenerate", stat)
        call check_rel("FD mu ~ E_F", mu1(1), ef, 1e-3_dp)
        call check_rel("FD mu = E_F (1 - pi^2/12 (T/E_F)^2)", mu1(1), ef * (1 - pi**2 / 12 * t**2), 1e-6_dp)
        call check_rel("FD mu, Sommerfeld, tight", mu1(1), ef * (1 - pi**2 / 12 * t**2), 1e-9_dp)
        call atomgpu_rates_energy_density(ATOMGPU_STATS_FERMI_DIRAC, t1, [1e24_dp], u1, stat)
        call check_stat("energy_density FD degenerate", stat)
        call check_rel("FD u = 3/5 ne E_F (1 + 5 pi^2/12 (T/E_F)^2)", u1(1), &
            0.6_dp * 1e24_dp * ef * (1 + 5 * pi**2 / 12 * t**2), 1e-9_dp)
        call atomgpu_rates_temperature(ATOMGPU_STATS_FERMI_DIRAC, u1, [1e24_dp], t1, m1, stat)
        call check_stat("temperature FD degenerate", stat)
        call check_rel("FD temperature round trip (degenerate)", t1(1), 0.1_dp, 1e-8_dp)
        call check_rel("FD temperature: mu (degenerate)", m1(1), mu1(1), 1e-12_dp)

        ! Fermi-Dirac round trip.
        call atomgpu_rates_energy_density(ATOMGPU_STATS_FERMI_DIRAC, te, ne, u)
        call atomgpu_rates_chemical_potential(ATOMGPU_STATS_FERMI_DIRAC, te, ne, mu)
        call atomgpu_rates_temperature(ATOMGPU_STATS_FERMI_DIRAC, u, ne, te_back, mu_back)
        do s = 1, ns
            call check_rel("FD temperature round trip", te_back(s), te(s), 1e-12_dp)
            call check_rel("FD temperature round trip: mu", mu_back(s), mu(s), 1e-11_dp)
        end do
    end subroutine

    ! Single precision (atomgpu_rates_set_precision): FP32 integrands with FP64 sums on a GPU (the CPU
    ! ignores it). Reference: the MB closed form of a constant collision strength, to the documented
    ! single-precision bound 1e-6 (src/rates/precision.rs).
    subroutine test_single_precision()
        real(dp), parameter :: energy(nt) = [3.0_dp, 20.0_dp]
        real(dp), parameter :: omega(6, nt) = reshape([0.0_dp, 0.7_dp, 0.0_dp, 0.0_dp, 0.0_dp, 0.0_dp, &
            0.3_dp, 1.2_dp, -0.4_dp, 0.1_dp, 0.05_dp, 0.01_dp], [6, nt])
        real(dp) :: up(nt, ns), down(nt, ns), mu(ns), k, want
        integer :: s, stat

        call atomgpu_rates_set_precision(5, stat)
        call check("atomgpu_rates_set_precision(5) fails at argument 1", &
            stat == ATOMGPU_ERR_INVALID_ARGUMENT .and. atomgpu_last_error_arg() == 1)
        call atomgpu_rates_set_precision(ATOMGPU_PRECISION_SINGLE, stat)
        call check_stat("atomgpu_rates_set_precision(single)", stat)
        k = g_times_speed() * pi * a0_cm**2 * ry_ev
        call atomgpu_rates_excitation(ATOMGPU_STATS_MAXWELL_BOLTZMANN, 10.0_dp, 64, te, ne, energy, omega, up, down, &
            stat=stat)
        call check_stat("excitation, single precision", stat)
        call atomgpu_rates_chemical_potential(ATOMGPU_STATS_MAXWELL_BOLTZMANN, te, ne, mu)
        do s = 1, ns
            want = k * 0.7_dp * exp(mu(s) / te(s)) * te(s) * exp(-energy(1) / te(s))
            call check_rel("single-precision MB excitation, closed form", up(1, s), want, 1e-6_dp)
        end do
        call atomgpu_rates_set_precision(ATOMGPU_PRECISION_DOUBLE)
    end subroutine

    subroutine test_excitation()
        real(dp), parameter :: energy(nt) = [3.0_dp, 20.0_dp]
        real(dp), parameter :: omega(6, nt) = reshape([0.0_dp, 0.7_dp, 0.0_dp, 0.0_dp, 0.0_dp, 0.0_dp, &
            0.3_dp, 1.2_dp, -0.4_dp, 0.1_dp, 0.05_dp, 0.01_dp], [6, nt])
        real(dp), parameter :: gl(nt) = [2.0_dp, 6.0_dp], gu(nt) = [6.0_dp, 10.0_dp]
        real(dp) :: up(nt, ns), down(nt, ns), up1(nt, ns), down1(nt, ns), mu(ns), k, want
        real(dp) :: fd(nt, 1), fd_down(nt, 1), mb(nt, 1), mb_down(nt, 1)
        integer :: stats, s, t, stat

        k = g_times_speed() * pi * a0_cm**2 * ry_ev
        call check_rel("excitation prefactor ~ 4.831e14", k, 4.831e14_dp, 2e-3_dp)
        do stats = ATOMGPU_STATS_FERMI_DIRAC, ATOMGPU_STATS_MAXWELL_BOLTZMANN
            call atomgpu_rates_excitation(stats, 10.0_dp, 64, te, ne, energy, omega, up, down, gl, gu, stat)
            call check_stat("excitation", stat)
            call atomgpu_rates_chemical_potential(stats, te, ne, mu)
            do s = 1, ns
                do t = 1, nt
                    ! (d) detailed balance.
                    call check_rel("excitation detailed balance", down(t, s) / up(t, s), &
                        gl(t) / gu(t) * exp(energy(t) / te(s)), 1e-12_dp)
                end do
            end do
            if (stats == ATOMGPU_STATS_MAXWELL_BOLTZMANN) then
                ! (e) constant Omega = B1: J = K B1 e^{mu/T} T e^{-E/T}.
                do s = 1, ns
                    want = k * 0.7_dp * exp(mu(s) / te(s)) * te(s) * exp(-energy(1) / te(s))
                    call check_rel("MB excitation, constant Omega, closed form", up(1, s), want, 1e-8_dp)
                    want = gl(1) / gu(1) * k * 0.7_dp * exp(mu(s) / te(s)) * te(s)
                    call check_rel("MB de-excitation, constant Omega, closed form", down(1, s), want, 1e-8_dp)
                end do
                call atomgpu_rates_excitation(stats, 5.0_dp, 32, te, ne, energy, omega, up1, down1, gl, gu)
                do s = 1, ns
                    do t = 1, nt
                        call check_rel("excitation at p = 5, 32 nodes", up1(t, s), up(t, s), 1e-5_dp)
                    end do
                end do
            end if
        end do
        ! Absent weights mean all 1.
        call atomgpu_rates_excitation(ATOMGPU_STATS_FERMI_DIRAC, 10.0_dp, 64, te, ne, energy, omega, up1, down1)
        call atomgpu_rates_excitation(ATOMGPU_STATS_FERMI_DIRAC, 10.0_dp, 64, te, ne, energy, omega, up, down, &
            g_lower=gl, g_upper=gu)
        do s = 1, ns
            do t = 1, nt
                call check_rel("excitation without weights", up1(t, s), up(t, s), 1e-15_dp)
                call check_rel("de-excitation without weights", down1(t, s), down(t, s) * gu(t) / gl(t), 1e-14_dp)
            end do
        end do
        ! FD -> MB at low density.
        call atomgpu_rates_excitation(ATOMGPU_STATS_FERMI_DIRAC, 10.0_dp, 64, te_low, ne_low, energy, omega, &
            fd, fd_down, gl, gu)
        call atomgpu_rates_excitation(ATOMGPU_STATS_MAXWELL_BOLTZMANN, 10.0_dp, 64, te_low, ne_low, energy, omega, &
            mb, mb_down, gl, gu)
        do t = 1, nt
            call check_rel("FD excitation -> MB at low density", fd(t, 1), mb(t, 1), 1e-4_dp)
            call check_rel("FD de-excitation -> MB at low density", fd_down(t, 1), mb_down(t, 1), 1e-4_dp)
        end do
    end subroutine

    subroutine test_ionization()
        ! Transition 1: pure A; transition 2: pure B1 (see tests/c/test_rates.c for the closed forms).
        real(dp), parameter :: energy(nt) = [12.0_dp, 25.0_dp]
        real(dp), parameter :: beli(5, nt) = reshape([2.5_dp, 0.0_dp, 0.0_dp, 0.0_dp, 0.0_dp, &
            0.0_dp, 1.8_dp, 0.0_dp, 0.0_dp, 0.0_dp], [5, nt])
        real(dp), parameter :: gl(nt) = [1.0_dp, 2.0_dp], gu(nt) = [2.0_dp, 1.0_dp]
        real(dp) :: up(nt, ns), down(nt, ns), mu(ns), kion, f, x, want
        integer :: stats, s, t, stat

        kion = g_times_speed() * 1e-13_dp
        do stats = ATOMGPU_STATS_FERMI_DIRAC, ATOMGPU_STATS_MAXWELL_BOLTZMANN
            call atomgpu_rates_ionization(stats, 10.0_dp, 64, te, ne, energy, beli, up, down, gl, gu, stat)
            call check_stat("ionization", stat)
            call atomgpu_rates_chemical_potential(stats, te, ne, mu)
            do s = 1, ns
                do t = 1, nt
                    call check_rel("ionization detailed balance", down(t, s) / up(t, s), &
                        gl(t) / gu(t) * exp((energy(t) + mu(s)) / te(s)), 1e-11_dp)
                end do
            end do
            if (stats == ATOMGPU_STATS_MAXWELL_BOLTZMANN) then
                do s = 1, ns
                    f = exp(mu(s) / te(s))
                    x = energy(1) / te(s)
                    want = kion * 2.5_dp * f * (te(s) / energy(1)) * expint_e1(x)
                    call check_rel("MB ionization, BELI A term, closed form", up(1, s), want, 1e-8_dp)
                    x = energy(2) / te(s)
                    want = kion * 1.8_dp * f / energy(2) * (te(s) * exp(-x) - energy(2) * expint_e1(x))
                    call check_rel("MB ionization, BELI B1 term, closed form", up(2, s), want, 1e-8_dp)
                end do
            end if
        end do
        ! Without weights.
        call atomgpu_rates_ionization(ATOMGPU_STATS_FERMI_DIRAC, 5.0_dp, 32, te, ne, energy, beli, up, down)
        call check("ionization without weights", all(up > 0) .and. all(down > 0))
    end subroutine

    subroutine test_photoionization()
        real(dp), parameter :: energy(nt) = [30.0_dp, 80.0_dp]
        real(dp), parameter :: d0(nt) = [4e-18_dp, 0.0_dp], d1(nt) = [0.0_dp, 2.5e-18_dp]
        real(dp) :: rate(nt, ns), heating(nt, ns), rate_fd(nt, ns), heating_fd(nt, ns), phi, e, x, total, add
        real(dp) :: fd(nt, 1), fd_h(nt, 1), mb(nt, 1), mb_h(nt, 1)
        integer :: s, n, t, stat

        phi = 8 * pi * c_cm_s / hc**3
        call atomgpu_rates_photoionization(ATOMGPU_STATS_MAXWELL_BOLTZMANN, 10.0_dp, 64, te, ne, tr, energy, d0, d1, &
            rate, heating, stat)
        call check_stat("photoionization MB", stat)
        do s = 1, ns
            e = energy(1)
            x = e / tr(s)
            call check_rel("MB photoionization D0, closed form", rate(1, s), &
                d0(1) * e**2 * phi * tr(s) * (-log(1 - exp(-x))), 1e-8_dp)
            call check_rel("MB photoionization heating D0, closed form", heating(1, s), &
                d0(1) * e**2 * phi * tr(s)**2 * dilog(exp(-x)), 1e-8_dp)
            e = energy(2)
            x = e / tr(s)
            total = 0
            do n = 1, 100000
                add = expint_e1(n * x)
                total = total + add
                if (add < 1e-18_dp * total) exit
            end do
            call check_rel("MB photoionization D1, closed form", rate(2, s), d1(2) * e**3 * phi * total, 1e-8_dp)
            call check_rel("MB photoionization heating D1, closed form", heating(2, s), &
                d1(2) * e**3 * phi * (tr(s) * (-log(1 - exp(-x))) - e * total), 1e-8_dp)
        end do
        call atomgpu_rates_photoionization(ATOMGPU_STATS_FERMI_DIRAC, 10.0_dp, 64, te, ne, tr, energy, d0, d1, &
            rate_fd, heating_fd)
        call check("FD photoionization blocked: 0 < FD <= MB", all(rate_fd > 0 .and. rate_fd <= rate * (1 + 1e-14_dp)))
        call atomgpu_rates_photoionization(ATOMGPU_STATS_FERMI_DIRAC, 10.0_dp, 64, te_low, ne_low, tr_low, energy, &
            d0, d1, fd, fd_h)
        call atomgpu_rates_photoionization(ATOMGPU_STATS_MAXWELL_BOLTZMANN, 10.0_dp, 64, te_low, ne_low, tr_low, &
            energy, d0, d1, mb, mb_h)
        do t = 1, nt
            call check_rel("FD photoionization -> MB at low density", fd(t, 1), mb(t, 1), 1e-4_dp)
            call check_rel("FD photoionization heating -> MB at low density", fd_h(t, 1), mb_h(t, 1), 1e-4_dp)
        end do
    end subroutine

    subroutine test_inverse_bremsstrahlung()
        ! Kramers free-free absorption (Rybicki & Lightman 5.18a) in a black body; see the C test.
        real(dp), parameter :: z2n(ns) = [1e18_dp, 5e21_dp, 2e22_dp]
        real(dp) :: heating(ns), heating_fd(ns), hbarc, e2, a_ff, phi, wc, total, add, k, fd(1), mb(1)
        integer :: s, n, stat

        hbarc = hc / (2 * pi)
        e2 = alpha * hbarc
        a_ff = 4.0_dp / 3 * sqrt(2 * pi / 3) * e2**3 * hc**2 / mec2**1.5_dp
        phi = 8 * pi * c_cm_s / hc**3
        call atomgpu_rates_inverse_bremsstrahlung(ATOMGPU_STATS_MAXWELL_BOLTZMANN, 10.0_dp, 64, te, ne, tr, z2n, &
            heating, stat)
        call check_stat("inverse_bremsstrahlung MB", stat)
        do s = 1, ns
            wc = sqrt(4 * pi * ne(s) * alpha * hbarc**3 / mec2)
            total = 0
            do n = 1, 10000000
                k = n / tr(s) + 1 / te(s)
                add = tr(s) / n * exp(-n * wc / tr(s)) - exp(-wc * k) / k
                total = total + add
                if (abs(add) < 1e-17_dp * abs(total)) exit
            end do
            call check_rel("MB inverse bremsstrahlung, Kramers closed form", heating(s), &
                a_ff * z2n(s) * ne(s) / sqrt(te(s)) * phi * total, 1e-8_dp)
        end do
        call atomgpu_rates_inverse_bremsstrahlung(ATOMGPU_STATS_FERMI_DIRAC, 10.0_dp, 64, te, ne, tr, z2n, heating_fd)
        call check("FD inverse bremsstrahlung positive, <= MB", &
            all(heating_fd > 0 .and. heating_fd <= heating * (1 + 1e-12_dp)))
        call atomgpu_rates_inverse_bremsstrahlung(ATOMGPU_STATS_FERMI_DIRAC, 10.0_dp, 64, te_low, ne_low, tr_low, &
            [1e18_dp], fd)
        call atomgpu_rates_inverse_bremsstrahlung(ATOMGPU_STATS_MAXWELL_BOLTZMANN, 10.0_dp, 64, te_low, ne_low, &
            tr_low, [1e18_dp], mb)
        call check_rel("FD inverse bremsstrahlung -> MB at low density", fd(1), mb(1), 1e-4_dp)
    end subroutine

end program test_rates
