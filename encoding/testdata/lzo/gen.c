/*
 * gen.c writes the LZO1X golden vectors of encoding/compress_lzo_test.go.
 * It is a test harness of tsarrow's own, not part of the build.
 *
 * Each input is built from the xorshift32 generator below, which
 * lzoVectorInput in compress_lzo_test.go reproduces byte for byte, and is
 * compressed with liblzo2's lzo1x_1_compress and lzo1x_999_compress and,
 * when built with -DWITH_LZOKAY, with lzokay::compress, the LZO1X
 * compressor that the C++ TsFile writer (apache/tsfile
 * cpp/src/compress/lzo_compressor.cc) calls. Every vector is checked to
 * decompress to its input with liblzo2's lzo1x_decompress_safe before it
 * is written. Output: <dir>/<name>.<method>.lzo, the raw LZO1X block, and
 * <dir>/manifest.txt, one line "name length crc32" per input.
 *
 * Vectors were made on Debian 12 with liblzo2-dev 2.10-2 and lzokay from
 * apache/tsfile cpp/third_party/lzokay at a9f54614bd20:
 *
 *   printf '#include "lzokay.hpp"\nextern "C" int lzokay_compress_c(const unsigned char *s,\n'\
 *     'unsigned long n, unsigned char *d, unsigned long cap, unsigned long *out) {\n'\
 *     'std::size_t o = 0; int r = (int)lzokay::compress(s, n, d, cap, o); *out = o; return r; }\n' > shim.cpp
 *   g++ -O2 -c -I<lzokay dir> shim.cpp <lzokay dir>/lzokay.cpp
 *   gcc -O2 -DWITH_LZOKAY gen.c shim.o lzokay.o -llzo2 -lz -lstdc++ -o gen
 *   ./gen encoding/testdata/lzo
 */
#include <lzo/lzo1x.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#ifdef WITH_LZOKAY
int lzokay_compress_c(const unsigned char *s, unsigned long n, unsigned char *d,
                      unsigned long cap, unsigned long *out);
#endif

static unsigned int rng;

static unsigned int next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static void put(unsigned char *b, size_t *n, const void *p, size_t k) {
    memcpy(b + *n, p, k);
    *n += k;
}

static void randbytes(unsigned char *b, size_t *n, size_t k, unsigned int seed) {
    rng = seed;
    for (size_t i = 0; i < k; i++) b[(*n)++] = (unsigned char)next();
}

static const char *words[] = {"time", "series", "root", "sg1", "device", "temperature",
                              "humidity", "tsfile", "page", "chunk", "the", "of",
                              "a", "value", "north", "south", "sensor", "42", "3.14", "\n"};

static void text(unsigned char *b, size_t *n, size_t k, unsigned int seed, int mutate) {
    size_t start = *n;
    rng = seed;
    while (*n - start < k) {
        const char *w = words[next() % 20];
        size_t l = strlen(w);
        if (*n - start + l + 1 > k) break;
        put(b, n, w, l);
        b[(*n)++] = ' ';
        if (mutate && next() % 4 == 0) {
            size_t at = *n - 1 - next() % (l + 1);
            b[at] = (unsigned char)next();
        }
    }
    while (*n - start < k) b[(*n)++] = '.';
}

/* build fills b with input name and returns its length. */
static size_t build(const char *name, unsigned char *b) {
    size_t n = 0;
    int k;
    if (strcmp(name, "empty") == 0) return 0;
    if (strcmp(name, "one") == 0) { b[0] = 'A'; return 1; }
    if (strcmp(name, "hello") == 0) { put(b, &n, "hello, hello, hello, tsfile", 27); return n; }
    if (sscanf(name, "rand-%d", &k) == 1) { randbytes(b, &n, (size_t)k, (unsigned int)k); return n; }
    if (strcmp(name, "zeros-70000") == 0) { memset(b, 0, 70000); return 70000; }
    if (strcmp(name, "runs") == 0) {
        for (int i = 0; i < 1700; i++) put(b, &n, "abc", 3);
        b[n++] = 'x';
        for (int i = 0; i < 1500; i++) put(b, &n, "ab", 2);
        memset(b + n, 'z', 3000); n += 3000;
        return n;
    }
    if (strcmp(name, "text-8192") == 0) { text(b, &n, 8192, 5, 0); return n; }
    if (strcmp(name, "mutated-text-20000") == 0) { text(b, &n, 20000, 6, 1); return n; }
    if (strcmp(name, "far") == 0) {
        /* A random block repeated at distances of about 4 KiB, 24 KiB and 33 KiB, with text
           between: the second copy needs an M3 match, the others M4 matches, the last one
           with its 32 KiB bit set. */
        size_t a;
        randbytes(b, &n, 3000, 11);
        a = n;
        text(b, &n, 1000, 12, 1);
        put(b, &n, b, a);
        text(b, &n, 20000, 13, 1);
        put(b, &n, b, a);
        text(b, &n, 30000, 14, 1);
        put(b, &n, b, 2500);
        return n;
    }
    if (strcmp(name, "near3") == 0) {
        /* Random bytes, then rounds of 6 fresh random bytes, 3 bytes repeated from 2500 back
           and 16 from 64 back: a 3-byte match beyond M2's 2 KiB reach right after 4 or more
           literals, which LZO1X codes in 2 bytes (an M1 in state 4) and lzo1x_999 and
           lzokay choose. */
        randbytes(b, &n, 3000, 21);
        rng = 22;
        for (int i = 0; i < 300; i++) {
            for (int j = 0; j < 6; j++) b[n++] = (unsigned char)next();
            for (int j = 0; j < 3; j++, n++) b[n] = b[n - 2500];
            for (int j = 0; j < 16; j++, n++) b[n] = b[n - 64];
        }
        return n;
    }
    if (strcmp(name, "page-106496") == 0) {
        /* Little-endian int64 timestamps a second apart with some jitter, then int64 values
           of a slow random walk: about what an uncompressed TsFile page holds. */
        long long t = 1700000000000LL, v = 2000;
        rng = 7;
        for (int i = 0; i < 6656; i++) {
            t += 1000 + (next() % 8 == 0 ? next() % 3 : 0);
            for (int j = 0; j < 8; j++) b[n++] = (unsigned char)(t >> (8 * j));
        }
        for (int i = 0; i < 6656; i++) {
            if (next() % 4 == 0) v += (long long)(next() % 21) - 10;
            for (int j = 0; j < 8; j++) b[n++] = (unsigned char)(v >> (8 * j));
        }
        return n;
    }
    fprintf(stderr, "unknown input %s\n", name);
    exit(2);
}

static const char *names[] = {"empty", "one", "hello", "rand-2", "rand-3", "rand-4", "rand-5",
                              "rand-17", "rand-18", "rand-19", "rand-20", "rand-21", "rand-22",
                              "rand-238", "rand-239", "rand-240", "rand-300", "rand-4096",
                              "zeros-70000", "runs", "text-8192", "mutated-text-20000", "far",
                              "near3",
                              "page-106496"};

static void write_file(const char *dir, const char *name, const char *method,
                       const unsigned char *b, size_t n) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.%s.lzo", dir, name, method);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b, 1, n, f) != n || fclose(f) != 0) { perror(path); exit(1); }
}

static void check(const char *name, const char *method, const unsigned char *in, size_t n,
                  const unsigned char *z, size_t zn) {
    static unsigned char back[200000];
    lzo_uint bn = sizeof back;
    int r = lzo1x_decompress_safe(z, zn, back, &bn, NULL);
    if (r != LZO_E_OK || bn != n || memcmp(back, in, n) != 0) {
        fprintf(stderr, "%s.%s: liblzo2 does not decode it back (%d)\n", name, method, r);
        exit(1);
    }
}

int main(int argc, char **argv) {
    static unsigned char in[200000], z[300000];
    static unsigned char wrk[LZO1X_999_MEM_COMPRESS];
    char path[512];
    if (argc != 2 || lzo_init() != LZO_E_OK) { fprintf(stderr, "usage: gen DIR\n"); return 2; }
    snprintf(path, sizeof path, "%s/manifest.txt", argv[1]);
    FILE *m = fopen(path, "w");
    if (!m) { perror(path); return 1; }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t n = build(names[i], in);
        lzo_uint zn;
        fprintf(m, "%s %zu %08lx\n", names[i], n, crc32(0, in, (unsigned int)n));
        if (lzo1x_1_compress(in, n, z, &zn, wrk) != LZO_E_OK) return 1;
        check(names[i], "1", in, n, z, zn);
        write_file(argv[1], names[i], "1", z, zn);
        if (lzo1x_999_compress(in, n, z, &zn, wrk) != LZO_E_OK) return 1;
        check(names[i], "999", in, n, z, zn);
        write_file(argv[1], names[i], "999", z, zn);
#ifdef WITH_LZOKAY
        {
            unsigned long kn = 0;
            /* lzokay::compress turns empty input into 11 11 00 00, which no LZO1X decoder
               accepts (lzokay's own reports a lookbehind overrun); there is no vector. */
            if (n == 0) continue;
            if (lzokay_compress_c(in, n, z, sizeof z, &kn) != 0) return 1;
            check(names[i], "lzokay", in, n, z, kn);
            write_file(argv[1], names[i], "lzokay", z, kn);
        }
#endif
    }
    return fclose(m) == 0 ? 0 : 1;
}
