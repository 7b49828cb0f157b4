# Spack package of atomgpu (Spack 1.x, package API v2; README "Installing on a cluster").
#
#   scripts/make-source-tarball.sh .        # atomgpu-0.8.0.tar.gz, every crate vendored, cargo offline
#   spack repo add packaging/spack/spack_repo/atomgpu
#   spack install --no-checksum atomgpu     # from the folder that holds the tarball (or a mirror)

import os

from spack_repo.builtin.build_systems.cargo import CargoPackage

from spack.package import *


class Atomgpu(CargoPackage):
    """GPU offload of the hot loops of atomic and molecular physics codes (collisional-radiative
    rates, line strengths, Sturmian three-body Hamiltonians, atomic Hartree-Fock and Dirac-Fock,
    3D TDSE): a shared library with a stable C ABI (atomgpu.h) and a Fortran iso_c_binding module
    shipped as source. Every routine runs on the CPU or, when a CUDA driver is found at run time,
    on the GPU: nothing CUDA is needed to build."""

    # No release is published for download: the tarball is made from a checkout by
    # scripts/make-source-tarball.sh, and Spack takes it from the current folder or a source
    # mirror (atomgpu/atomgpu-<version>.tar.gz), as for any manual download.
    url = f"file://{os.getcwd()}/atomgpu-0.8.0.tar.gz"
    manual_download = True

    license("MIT OR Apache-2.0")

    # No checksum: the tarball is made by each site from its checkout (reproducibly: the script
    # prints its sha256, which a site that pins one release adds here), so Spack needs
    # `spack install --no-checksum`.
    version("0.8.0")

    # Rust >= 1.88 (libloading, pinned in Cargo.lock, needs it); rustc links through the C
    # compiler. Nothing else at build time: CUDA (driver, NVRTC, cuBLAS, cuSOLVER) is opened at
    # run time when present, so there is no depends_on("cuda"); the Fortran module is installed as
    # source, compiled later by the user's compiler, so Fortran is needed only by the install test.
    depends_on("rust@1.88:", type="build")
    depends_on("c", type="build")
    depends_on("fortran", type="test")
    depends_on("pkgconfig", type="test")

    # CargoPackage's install-time test is the whole `cargo test` suite (the project's `make test`
    # runs it, with much more, in about 30 minutes); check_install below is this package's test.
    install_time_test_callbacks = []

    def setup_build_environment(self, env):
        # cargo sees only the tarball's .cargo/config.toml (vendor/, offline) and its own home in
        # the stage; a CARGO_TARGET_DIR of the builder's environment would send the build elsewhere.
        env.set("CARGO_HOME", join_path(self.stage.path, "cargo-home"))
        env.unset("CARGO_TARGET_DIR")

    def build(self, spec, prefix):
        """cargo build --release of the C ABI library (CargoPackage's `cargo install` installs
        binaries only): target/release/libatomgpu.so and libatomgpu.a."""
        with working_dir(self.stage.source_path):
            cargo("build", "--release", "--locked", "-j", str(make_jobs))

    def install(self, spec, prefix):
        """The project's `make install`: lib/libatomgpu.so and .a, include/atomgpu.h,
        share/atomgpu/fortran/*.f90, lib/pkgconfig/atomgpu.pc, lib/cmake/atomgpu/."""
        with working_dir(self.stage.source_path):
            make("install", f"PREFIX={prefix}")

    @run_after("install")
    @on_package_attributes(run_tests=True)
    def check_install(self):
        """`spack install --test=root`: the smoke programs of the source (tests/packaging) built
        against the installed files through pkg-config, each printing the library's version."""
        source = join_path(self.stage.source_path, "tests", "packaging")
        pkg_config = which("pkg-config", required=True)
        env = {"PKG_CONFIG_PATH": self.prefix.lib.pkgconfig, "LD_LIBRARY_PATH": self.prefix.lib}
        cflags = pkg_config("--cflags", "atomgpu", output=str, extra_env=env).split()
        libs = pkg_config("--libs", "atomgpu", output=str, extra_env=env).split()
        fortrandir = pkg_config("--variable=fortrandir", "atomgpu", output=str, extra_env=env).strip()
        with working_dir(join_path(self.stage.path, "smoke"), create=True):
            Executable(spack_cc)(join_path(source, "smoke.c"), *cflags, *libs, "-o", "smoke")
            Executable("./smoke")(extra_env=env)
            Executable(spack_fc)(
                join_path(fortrandir, "atomgpu.f90"), join_path(source, "smoke.f90"), *libs,
                "-o", "smoke_f",
            )
            Executable("./smoke_f")(extra_env=env)
