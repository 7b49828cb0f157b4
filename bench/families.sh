# What each device run needs, in one place: sourced by bench/pack.sh (which packs only that into
# .device/, so that the pack stays under the 64 MiB a device call carries) and by bench/device.sh
# (which runs it). FAMILY: rates, linestrength, sturmian, scf, tdse, all (every family's tests,
# the rates and line-strength benchmarks), tests (every family's tests, no benchmark) or scaling
# (what bench/scaling.sh runs).

# The Rust test binaries (by target name) of FAMILY's GPU run.
family_tests() {
    case $1 in
        rates) echo rates_gpu cr_gpu cr_jacobian ffi_rates ffi_hardening ;;
        linestrength)
            echo linestrength_gpu linestrength linestrength_exomol ffi_linestrength ffi_hardening trove_files \
                linestrength_stream linestrength_trove_mode linestrength_rotsym
            ;;
        sturmian) echo sturmian_gpu sturmian ffi_sturmian ffi_hardening ;;
        scf) echo scf_gpu scf ffi_scf ffi_hardening ;;
        tdse) echo tdse_gpu tdse_cpu tdse_float ffi_hardening ;;
        scaling) echo sturmian_gpu linestrength_gpu tdse_gpu rates_gpu cr_gpu scf_gpu ffi_sturmian ffi_scf ffi_linestrength ;;
        all | tests)
            echo rates_gpu cr_gpu ffi_rates linestrength_gpu linestrength linestrength_exomol ffi_linestrength \
                sturmian_gpu ffi_sturmian scf_gpu ffi_scf tdse_gpu ffi_hardening
            ;;
        *) return 1 ;;
    esac
}

# The benchmarks (examples built from bench/*.rs) of FAMILY's run.
family_benches() {
    case $1 in
        rates | linestrength | sturmian | scf | tdse) echo "$1_bench" ;;
        scaling) echo tdse_bench sturmian_bench linestrength_bench ;;
        all) echo rates_bench linestrength_bench ;;
        tests) ;;
        *) return 1 ;;
    esac
}

# True when the C or Fortran test program or example NAME (tests/c, tests/fortran with an `_f`
# suffix, examples/fortran) belongs to FAMILY's run; the reliability suite belongs to every run.
family_program() {
    case "$1:$2" in
        all:* | tests:* | scaling:* | *:*reliability* | linestrength:*linestrength* | sturmian:*sturmian*) return 0 ;;
        rates:*rates* | rates:*cr* | rates:*bad_input* | scf:*scf* | tdse:*tdse*) return 0 ;;
        *) return 1 ;;
    esac
}
