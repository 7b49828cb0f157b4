# atomgpu: build, demo, tests and installation.
#
#   make            the library (target/release/libatomgpu.so and .a)
#   make demo       builds the library and the Fortran aluminium CR example, runs it (out/)
#   make linelist   builds the library and the Fortran line-list example, runs it (out/linelist/)
#   make linelist-c3v  the degenerate-species (C3v) line-list example, run into out/linelist-c3v/
#   make test       every test: cargo tests, header check, C and Fortran programs, kernel
#                   compile check, exported symbols, install check (scripts/test-all.sh)
#   make install    PREFIX=/usr/local (default), DESTDIR honoured
#   make header     regenerates include/atomgpu.h from src/ffi with cbindgen
#   make clean

PREFIX     ?= /usr/local
DESTDIR    ?=
CARGO      ?= cargo
INSTALL    ?= install

libdir      = $(PREFIX)/lib
includedir  = $(PREFIX)/include
datadir     = $(PREFIX)/share
pkgconfigdir = $(libdir)/pkgconfig
cmakedir    = $(libdir)/cmake/atomgpu
fortrandir  = $(datadir)/atomgpu/fortran

# The Fortran module sources: atomgpu.f90 INCLUDEs the others, so they are installed side by side;
# the TROVE bridge and its fixture dump (README "Using atomgpu from TROVE") beside them.
FORTRAN_SOURCES = fortran/atomgpu.f90 fortran/atomgpu_core.f90 fortran/atomgpu_rates.f90 fortran/atomgpu_linestrength.f90 \
                  fortran/atomgpu_sturmian.f90 fortran/atomgpu_scf.f90 fortran/atomgpu_tdse.f90 \
                  fortran/trove/atomgpu_trove.f90 fortran/trove/atomgpu_trove_dump.f90

# CARGO_TARGET_DIR honoured, as cargo does.
TARGET_DIR ?= $(if $(CARGO_TARGET_DIR),$(CARGO_TARGET_DIR),target)
RELEASE     = $(TARGET_DIR)/release

# The package version, from Cargo.toml's [package] section.
VERSION := $(shell sed -n '/^\[package\]/,/^\[/s/^version *= *"\([^"]*\)".*/\1/p' Cargo.toml)
VERSION_MAJOR := $(word 1,$(subst ., ,$(VERSION)))

.PHONY: all lib demo linelist linelist-c3v test install uninstall header clean

all: lib

lib:
	$(CARGO) build --release

demo:
	scripts/demo.sh

linelist:
	scripts/linelist-demo.sh

linelist-c3v:
	scripts/linelist-c3v-demo.sh

test:
	scripts/test-all.sh

header:
	ATOMGPU_WRITE_HEADER=1 $(CARGO) test --release --test header_current -- --nocapture

install: lib
	$(INSTALL) -d $(DESTDIR)$(libdir) $(DESTDIR)$(includedir) $(DESTDIR)$(fortrandir) \
	    $(DESTDIR)$(pkgconfigdir) $(DESTDIR)$(cmakedir)
	$(INSTALL) -m 755 $(RELEASE)/libatomgpu.so $(DESTDIR)$(libdir)/libatomgpu.so
	$(INSTALL) -m 644 $(RELEASE)/libatomgpu.a $(DESTDIR)$(libdir)/libatomgpu.a
	$(INSTALL) -m 644 include/atomgpu.h $(DESTDIR)$(includedir)/atomgpu.h
	$(INSTALL) -m 644 $(FORTRAN_SOURCES) $(DESTDIR)$(fortrandir)/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    packaging/atomgpu.pc.in > $(DESTDIR)$(pkgconfigdir)/atomgpu.pc
	@# A library without DT_SONAME must be linked by -l, not by path (CMake's IMPORTED_NO_SONAME).
	soname=$$(readelf -d $(RELEASE)/libatomgpu.so | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p'); \
	if [ -n "$$soname" ]; then no_soname=FALSE; else no_soname=TRUE; fi; \
	sed -e 's|@VERSION@|$(VERSION)|g' -e "s|@NO_SONAME@|$$no_soname|g" \
	    packaging/atomgpu-config.cmake.in > $(DESTDIR)$(cmakedir)/atomgpu-config.cmake
	sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@VERSION_MAJOR@|$(VERSION_MAJOR)|g' \
	    packaging/atomgpu-config-version.cmake.in > $(DESTDIR)$(cmakedir)/atomgpu-config-version.cmake

uninstall:
	rm -f $(DESTDIR)$(libdir)/libatomgpu.so $(DESTDIR)$(libdir)/libatomgpu.a \
	    $(DESTDIR)$(includedir)/atomgpu.h $(addprefix $(DESTDIR)$(fortrandir)/,$(notdir $(FORTRAN_SOURCES))) \
	    $(DESTDIR)$(pkgconfigdir)/atomgpu.pc \
	    $(DESTDIR)$(cmakedir)/atomgpu-config.cmake $(DESTDIR)$(cmakedir)/atomgpu-config-version.cmake
	-rmdir $(DESTDIR)$(fortrandir) $(DESTDIR)$(datadir)/atomgpu $(DESTDIR)$(cmakedir) 2>/dev/null

clean:
	$(CARGO) clean
	rm -rf build out
