/* The install smoke program in C (scripts/test-all.sh's install, EasyBuild and Spack stages, the
 * easyconfig's sanity check, the Spack package's install test): compiled with the flags
 * `pkg-config --cflags --libs atomgpu` gives for an installed atomgpu, it must print the version
 * of the library it loaded, equal to the version of the header it was compiled with. */
#include <atomgpu.h>
#include <stdio.h>

int main(void) {
    int32_t major = -1, minor = -1, patch = -1;
    int32_t status = atomgpu_version(&major, &minor, &patch);
    if (status != ATOMGPU_OK) {
        fprintf(stderr, "atomgpu_version returned %d\n", (int)status);
        return 1;
    }
    if (major != ATOMGPU_VERSION_MAJOR || minor != ATOMGPU_VERSION_MINOR
        || patch != ATOMGPU_VERSION_PATCH) {
        fprintf(stderr, "library %d.%d.%d, header %d.%d.%d\n", (int)major, (int)minor,
                (int)patch, ATOMGPU_VERSION_MAJOR, ATOMGPU_VERSION_MINOR, ATOMGPU_VERSION_PATCH);
        return 1;
    }
    printf("atomgpu %d.%d.%d: the installed library and header agree\n", (int)major, (int)minor,
           (int)patch);
    return 0;
}
