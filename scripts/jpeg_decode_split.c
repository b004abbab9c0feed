/* Where a JPEG decode's time goes, on one thread: libjpeg-turbo's whole decode to RGBA
 * (jpeg_read_scanlines), its raw decode (entropy decoding + IDCT, jpeg_read_raw_data) and
 * PixelFlow's upsampling + color conversion of those planes (pf_jpeg_ycc_to_rgba8_row, AVX2;
 * NOAVX=1 for the baseline build). The best of N runs (N=40, or $N). The two-thread decode
 * (_JPEGRawPipeline) takes about max(raw, conversion), so full / raw bounds its speed-up.
 *
 *   clang -O2 -I Sources/CSIMD/include scripts/jpeg_decode_split.c Sources/CSIMD/CSIMDBytesJPEG.c \
 *       -ljpeg -o /tmp/jpeg_decode_split && /tmp/jpeg_decode_split .build-compare/A.jpg
 *
 * Handles 3-component files with 1x1 chroma (4:4:4, 4:2:2, 4:4:0, 4:2:0) only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jpeglib.h>
#include "CSIMDBytesJPEG.h"

int pf_csimd_uses_avx2(void) { return getenv("NOAVX") ? 0 : 1; }

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static unsigned char *data, *out;
static long size;
/* The raw planes of the whole image and their layout. */
static unsigned char *Y, *Cb, *Cr;
static int W, H, luma_stride, chroma_width, chroma_height, chroma_stride, half_width, half_height;

/* A decompressor over the file with its header read (error manager `e`); returns the time
 * before the source was set, where both timings start. */
static double start(struct jpeg_decompress_struct *c, struct jpeg_error_mgr *e) {
    c->err = jpeg_std_error(e);
    jpeg_create_decompress(c);
    double t0 = now();
    jpeg_mem_src(c, data, size);
    jpeg_read_header(c, TRUE);
    return t0;
}

/* libjpeg-turbo's whole decode to RGBA. */
static double full(void) {
    struct jpeg_decompress_struct c;
    struct jpeg_error_mgr e;
    double t0 = start(&c, &e);
    c.out_color_space = JCS_EXT_RGBA;
    jpeg_start_decompress(&c);
    while (c.output_scanline < c.output_height) {
        unsigned char *row = out + (size_t)c.output_scanline * c.output_width * 4;
        jpeg_read_scanlines(&c, &row, 1);
    }
    double t = now() - t0;
    jpeg_destroy_decompress(&c);
    return t;
}

/* Entropy decoding and IDCT only, into the planes. */
static double raw(void) {
    struct jpeg_decompress_struct c;
    struct jpeg_error_mgr e;
    double t0 = start(&c, &e);
    c.raw_data_out = TRUE;
    jpeg_start_decompress(&c);
    W = c.image_width;
    H = c.image_height;
    int v = c.comp_info[0].v_samp_factor, h = c.comp_info[0].h_samp_factor;
    half_height = v == 2;
    half_width = h == 2;
    luma_stride = c.MCUs_per_row * h * 8;
    chroma_stride = c.MCUs_per_row * 8;
    chroma_width = c.comp_info[1].downsampled_width;
    chroma_height = c.comp_info[1].downsampled_height;
    if (!Y) {
        Y = malloc((size_t)luma_stride * c.total_iMCU_rows * v * 8);
        Cb = malloc((size_t)chroma_stride * c.total_iMCU_rows * 8);
        Cr = malloc((size_t)chroma_stride * c.total_iMCU_rows * 8);
    }
    for (unsigned r = 0; r < c.total_iMCU_rows; r++) {
        JSAMPROW luma[16], blue[8], red[8];
        for (int i = 0; i < v * 8; i++) luma[i] = Y + (size_t)(r * v * 8 + i) * luma_stride;
        for (int i = 0; i < 8; i++) {
            blue[i] = Cb + (size_t)(r * 8 + i) * chroma_stride;
            red[i] = Cr + (size_t)(r * 8 + i) * chroma_stride;
        }
        JSAMPARRAY planes[3] = {luma, blue, red};
        jpeg_read_raw_data(&c, planes, v * 8);
    }
    double t = now() - t0;
    jpeg_abort_decompress(&c);
    jpeg_destroy_decompress(&c);
    return t;
}

/* PixelFlow's upsampling and color conversion of the planes. */
static double conversion(void) {
    unsigned char *scratch = malloc(4 * (W + 4));
    double t0 = now();
    for (int y = 0; y < H; y++) {
        int near = half_height ? y / 2 : y, far = near;
        if (half_height) far = (y & 1) == 0 ? (near > 0 ? near - 1 : 0) : (near + 1 < chroma_height ? near + 1 : near);
        pf_jpeg_ycc_to_rgba8_row(Y + (size_t)y * luma_stride, Cb + (size_t)near * chroma_stride,
                                 Cb + (size_t)far * chroma_stride, Cr + (size_t)near * chroma_stride,
                                 Cr + (size_t)far * chroma_stride, W, chroma_width, half_width, half_height, y & 1,
                                 scratch, out + (size_t)y * W * 4);
    }
    double t = now() - t0;
    free(scratch);
    return t;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    FILE *f = fopen(argv[1], "rb");
    if (!f) return 1;
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fseek(f, 0, SEEK_SET);
    data = malloc(size);
    if (fread(data, 1, size, f) != (size_t)size) return 1;
    fclose(f);
    out = malloc((size_t)120 << 20);
    int runs = getenv("N") ? atoi(getenv("N")) : 40;
    double best_full = 1e9, best_raw = 1e9, best_conversion = 1e9;
    for (int i = 0; i < runs; i++) {
        double a = full(), b = raw(), d = conversion();
        if (a < best_full) best_full = a;
        if (b < best_raw) best_raw = b;
        if (d < best_conversion) best_conversion = d;
    }
    printf("%dx%d full %.2f ms raw %.2f ms conversion %.2f ms (libjpeg's upsampling+color: full - raw = %.2f ms)\n", W,
           H, best_full * 1e3, best_raw * 1e3, best_conversion * 1e3, (best_full - best_raw) * 1e3);
    return 0;
}
