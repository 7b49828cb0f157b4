"""Runs the Spack package packaging/spack/spack_repo/atomgpu/packages/atomgpu/package.py without
Spack (scripts/test-all.sh's Spack stage):

    python3 tests/packaging/spack_harness.py PACKAGE_PY TARBALL PREFIX

A minimal stand-in for the part of Spack's package API the recipe uses (spack.package's
directives and helpers, the CargoPackage base of spack_repo.builtin.build_systems.cargo, the
module globals Spack injects at build time: cargo, make, make_jobs, spack_cc, spack_fc) is put in
sys.modules; the recipe is imported, its directives are checked (its version is the tarball's,
Rust is a build dependency, CUDA is none), and then its phases are run as Spack runs them: the
tarball unpacked into a stage, setup_build_environment applied, build(), install() into PREFIX,
and the run_after("install") methods with run_tests on (the install test: the smoke programs of
tests/packaging built through pkg-config against PREFIX).

What this proves: the recipe's Python loads, and its own commands (cargo build --release
--locked in the unpacked tarball, offline, with an empty CARGO_HOME; make install
PREFIX=...; its install test) build and install a working atomgpu. What only a real Spack shows:
the concretisation of its dependencies (rust, c, fortran, pkgconfig), that the directives and
helpers behave as these stand-ins do, the fetch of the tarball from the current folder or a mirror,
the compiler wrappers, and the module files Spack generates.
"""

import functools
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import types


class Prefix(str):
    """Spack's Prefix: a path whose attributes are its subfolders (prefix.lib.pkgconfig)."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Prefix(os.path.join(self, name))


class ProcessError(Exception):
    pass


class Executable:
    """Spack's Executable: run with arguments; output=str returns stdout; extra_env adds to the
    environment; a non-zero exit raises ProcessError."""

    def __init__(self, name):
        self.name = name

    def __call__(self, *args, output=None, extra_env=None):
        env = dict(os.environ, **(extra_env or {}))
        command = [self.name, *map(str, args)]
        print("+", " ".join(command), flush=True)
        result = subprocess.run(
            command, env=env, stdout=subprocess.PIPE if output is str else None, text=True
        )
        if result.returncode != 0:
            raise ProcessError(f"{' '.join(command)} exited with status {result.returncode}")
        return result.stdout if output is str else None


def which(name, required=False):
    path = shutil.which(name)
    if path is None:
        if required:
            raise ProcessError(f"{name} not found on PATH")
        return None
    return Executable(path)


class working_dir:
    def __init__(self, path, create=False):
        self.path, self.create = path, create

    def __enter__(self):
        if self.create:
            os.makedirs(self.path, exist_ok=True)
        self.previous = os.getcwd()
        os.chdir(self.path)

    def __exit__(self, *exc):
        os.chdir(self.previous)


class EnvironmentModifications:
    """The env of setup_build_environment, applied to os.environ at once (the stage's environment)."""

    def set(self, name, value):
        os.environ[name] = str(value)

    def unset(self, name):
        os.environ.pop(name, None)


# The directives record what the class body declares.
declared = {"versions": [], "depends_on": [], "license": []}


def version(name, **kwargs):
    declared["versions"].append((name, kwargs))


def depends_on(spec, type=("build", "link")):
    declared["depends_on"].append((spec, (type,) if isinstance(type, str) else tuple(type)))


def license(text):
    declared["license"].append(text)


def run_after(phase):
    def mark(fn):
        fn.run_after = phase
        return fn

    return mark


def on_package_attributes(**attributes):
    """Runs the method only when the package has these attribute values (run_tests=True)."""

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(self):
            if all(getattr(self, k) == v for k, v in attributes.items()):
                return fn(self)
            return None

        return wrapper

    return decorate


class Stage:
    def __init__(self, path, source_path):
        self.path, self.source_path = path, source_path


class CargoPackage:
    """The part of Spack's PackageBase the recipe reads: stage, spec, prefix, run_tests."""

    def __init__(self, stage, prefix):
        self.stage, self.prefix, self.spec, self.run_tests = stage, Prefix(prefix), None, True


def install_stand_ins():
    package = types.ModuleType("spack.package")
    for name in ("Executable", "which", "working_dir", "version", "depends_on", "license",
                 "run_after", "on_package_attributes"):
        setattr(package, name, globals()[name])
    package.join_path = os.path.join
    package.__all__ = [n for n in vars(package) if not n.startswith("_")]
    cargo = types.ModuleType("spack_repo.builtin.build_systems.cargo")
    cargo.CargoPackage = CargoPackage
    for name, module in (("spack", types.ModuleType("spack")), ("spack.package", package),
                         ("spack_repo", types.ModuleType("spack_repo")),
                         ("spack_repo.builtin", types.ModuleType("spack_repo.builtin")),
                         ("spack_repo.builtin.build_systems",
                          types.ModuleType("spack_repo.builtin.build_systems")),
                         ("spack_repo.builtin.build_systems.cargo", cargo)):
        sys.modules[name] = module


def fail(message):
    sys.exit(f"spack harness: {message}")


def check_directives(recipe, tarball):
    """The recipe declares the tarball's version, Rust as a build dependency, no CUDA."""
    match = re.fullmatch(r"atomgpu-(.+)\.tar\.gz", os.path.basename(tarball))
    if not match:
        fail(f"{tarball} is not named atomgpu-<version>.tar.gz")
    versions = [v for v, _ in declared["versions"]]
    if versions != [match.group(1)]:
        fail(f"the recipe declares versions {versions}, the tarball is {match.group(1)}")
    if not recipe.url.endswith(f"/{os.path.basename(tarball)}"):
        fail(f"the recipe's url {recipe.url} does not name {os.path.basename(tarball)}")
    rust = [t for s, t in declared["depends_on"] if s.split("@")[0] == "rust"]
    if rust != [("build",)]:
        fail(f"rust must be one build dependency, found {rust}")
    cuda = [s for s, _ in declared["depends_on"] if s.split("@")[0].startswith("cuda")]
    if cuda:
        fail(f"CUDA is loaded at run time, not a dependency: {cuda}")
    print(f"recipe: version {versions[0]}, depends_on {declared['depends_on']}")


def main():
    if len(sys.argv) != 4:
        fail("usage: spack_harness.py PACKAGE_PY TARBALL PREFIX")
    package_py, tarball, prefix = (os.path.abspath(a) for a in sys.argv[1:])
    install_stand_ins()
    spec = importlib.util.spec_from_file_location("spack_repo.atomgpu.packages.atomgpu.package",
                                                  package_py)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    recipe = getattr(module, "Atomgpu", None)
    if not (isinstance(recipe, type) and issubclass(recipe, CargoPackage)):
        fail(f"{package_py} defines no class Atomgpu(CargoPackage)")
    check_directives(recipe, tarball)

    # Spack's stage: the tarball unpacked; its single top folder is the source path.
    stage_path = os.path.join(os.path.dirname(prefix), "stage")
    os.makedirs(stage_path)
    subprocess.run(["tar", "-xzf", tarball, "-C", stage_path], check=True)
    tops = [d for d in os.listdir(stage_path) if not d.startswith(".")]
    if len(tops) != 1:
        fail(f"the tarball should hold one top folder, it holds {tops}")
    pkg = recipe(Stage(stage_path, os.path.join(stage_path, tops[0])), prefix)

    # The globals Spack's build environment puts into the package's module.
    module.cargo = which("cargo", required=True)
    module.make = which("make", required=True)
    module.make_jobs = os.cpu_count()
    module.spack_cc = shutil.which("cc")
    module.spack_fc = shutil.which("gfortran")

    pkg.setup_build_environment(EnvironmentModifications())
    pkg.build(pkg.spec, pkg.prefix)
    pkg.install(pkg.spec, pkg.prefix)
    tests = [n for n, f in vars(recipe).items() if getattr(f, "run_after", None) == "install"]
    if not tests:
        fail("the recipe has no install test (a run_after(\"install\") method)")
    for name in tests:
        getattr(pkg, name)()
    print(f"spack harness: the recipe built and installed atomgpu into {prefix} and its install "
          f"test(s) {', '.join(tests)} passed")


if __name__ == "__main__":
    main()
