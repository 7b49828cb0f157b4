! The install smoke program in Fortran (scripts/test-all.sh's install, EasyBuild and Spack stages,
! the easyconfig's sanity check, the Spack package's install test): compiled together with the
! installed module source share/atomgpu/fortran/atomgpu.f90 and linked with -latomgpu, it calls
! the library (the module's first call checks the library's C ABI against its own) and prints
! the version of the library it loaded.
program atomgpu_smoke
    use atomgpu
    implicit none
    integer :: major, minor, patch

    call atomgpu_version(major, minor, patch)
    print '(a, i0, ".", i0, ".", i0, a)', 'atomgpu ', major, minor, patch, &
        ': the installed Fortran module and library agree (' // atomgpu_version_string() // ')'
end program atomgpu_smoke
