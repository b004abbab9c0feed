/* CPU time of decoding one PNG into rgba8 through PixelFlow's shims (pf_png_read_pixels),
 * with the direct path (mode 1) or libpng alone (mode 0): median over RUNS decodes of
 * CLOCK_PROCESS_CPUTIME_ID, each with a fresh output buffer, as PixelBuffer(encoded:) does.
 * Built and run by run.sh; CPU time, unlike wall time, holds still on a shared machine. */
#include "CCodecShims.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: decode_cpu FILE.png MODE(0 libpng, 1 direct) RUNS\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL) return 2;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    unsigned char *bytes = malloc((size_t)size);
    if (bytes == NULL || fread(bytes, 1, (size_t)size, f) != (size_t)size) return 2;
    fclose(f);
    int mode = atoi(argv[2]), runs = atoi(argv[3]);
    if (runs < 1 || runs > 1000) return 2;
    double *times = malloc(sizeof(double) * (size_t)runs);
    for (int r = 0; r < runs; r++) {
        double start = cpu_seconds();
        char message[PF_MESSAGE_CAPACITY];
        pf_png_header header;
        pf_png_decoder *decoder = pf_png_decoder_create(bytes, (size_t)size);
        pf_png_decoder_set_direct(decoder, mode);
        if (pf_png_read_header(decoder, &header, message) != PF_OK) return 1;
        size_t stride = (size_t)header.width * 4;
        unsigned char *pixels = malloc(stride * header.height);
        if (pf_png_read_pixels(decoder, PF_PNG_OUTPUT_RGBA8, pixels, stride, message) != PF_OK) {
            fprintf(stderr, "%s\n", message);
            return 1;
        }
        if (pf_png_decoder_decoded_directly(decoder) != mode) return 1;
        pf_png_decoder_destroy(decoder);
        free(pixels);
        times[r] = cpu_seconds() - start;
    }
    qsort(times, (size_t)runs, sizeof(double), compare);
    printf("pixelflow-%s cpu median %.2f ms\n", mode ? "direct" : "libpng", times[runs / 2] * 1e3);
    return 0;
}
