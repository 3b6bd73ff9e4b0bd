/*
 * The plain C reference the analysis is timed against (scripts/bench/run builds it with -O3; issue #44).
 *
 *     reference <audio file>
 *
 * What a careful engineer writes in an afternoon with the same two libraries: libsndfile streaming in blocks,
 * a mono mix, an FFTW real FFT (FFTW_MEASURE) of the largest power of two within 32 ms with a Hann window and
 * a 10 ms hop at the file's own rate; per frame the spectral centroid, flatness, 85% rolloff, crest and six
 * band energies (0-250, 250-500, 500-1000, 1000-2000, 2000-4000 Hz and above), averaged over each 1 s window
 * with a 0.5 s hop; per window the RMS level, zero-crossing rate and crest factor. Prints one line per window
 * (tab-separated) to stdout when given --print, else a checksum of all of them, so that nothing is optimised away.
 */
#include <fftw3.h>
#include <math.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BANDS = 6, FRAME_FEATURES = 4 + BANDS };
static const double band_edges[BANDS] = {0, 250, 500, 1000, 2000, 4000};

/* Energy, peak and zero crossings of `count` samples (crossings within them only). */
struct half {
    double energy, peak;
    long crossings;
};

static void half_stats(const float *x, int count, struct half *out) {
    double energy = 0;
    float peak = 0;
    long crossings = 0;
    for (int i = 0; i < count; i++) {
        energy += (double)x[i] * x[i];
        peak = fabsf(x[i]) > peak ? fabsf(x[i]) : peak;
        crossings += i > 0 && (x[i] >= 0) != (x[i - 1] >= 0);
    }
    out->energy = energy;
    out->peak = peak;
    out->crossings = crossings;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: reference <audio file> [--print]\n");
        return 64;
    }
    int print = argc > 2 && strcmp(argv[2], "--print") == 0;
    SF_INFO info;
    memset(&info, 0, sizeof info);
    SNDFILE *file = sf_open(argv[1], SFM_READ, &info);
    if (!file) {
        fprintf(stderr, "%s: %s\n", argv[1], sf_strerror(NULL));
        return 66;
    }
    const int rate = info.samplerate, channels = info.channels;
    int fft_size = 1;
    while (fft_size * 2 <= (int)(0.032 * rate)) fft_size *= 2;
    const int hop = rate / 100, window = rate, window_hop = rate / 2;
    const int bins = fft_size / 2 + 1;

    float *fft_in = fftwf_alloc_real(fft_size);
    fftwf_complex *fft_out = fftwf_alloc_complex(bins);
    fftwf_plan plan = fftwf_plan_dft_r2c_1d(fft_size, fft_in, fft_out, FFTW_MEASURE);
    float *hann = malloc(sizeof(float) * fft_size);
    for (int i = 0; i < fft_size; i++) hann[i] = 0.5f - 0.5f * cosf(2 * (float)M_PI * i / fft_size);
    /* Bin k's frequency, and each band's first bin (band b is bins band_first[b] ..< band_first[b + 1]). */
    float *bin_hz = malloc(sizeof(float) * bins);
    int band_first[BANDS + 1];
    for (int k = 0; k < bins; k++) bin_hz[k] = (float)k * rate / fft_size;
    for (int b = 0; b < BANDS; b++) {
        band_first[b] = 0;
        while (band_first[b] < bins && bin_hz[band_first[b]] < band_edges[b]) band_first[b]++;
    }
    band_first[BANDS] = bins;
    float *power = malloc(sizeof(float) * bins);

    /* Frames are computed once each, as soon as their samples are in, and kept in a ring; a window averages
       the frames that lie within it. `mono` holds the window's samples, absolute positions base ..< base + filled. */
    enum { RING = 256 };
    static double frame_features[RING][FRAME_FEATURES];  /* RING frames: more than a 1 s window holds at 10 ms */
    float *mono = malloc(sizeof(float) * (size_t)window);
    float *block = malloc(sizeof(float) * 4096 * (size_t)channels);
    long base = 0, next_frame = 0, windows = 0;
    struct half halves[2];
    int filled = 0;
    double checksum = 0;
    for (;;) {
        sf_count_t got = sf_readf_float(file, block, 4096);
        if (got <= 0) break;
        for (sf_count_t f = 0; f < got; f++) {
            float sum = 0;
            for (int c = 0; c < channels; c++) sum += block[f * channels + c];
            mono[filled++] = sum / channels;
            while (next_frame * hop + fft_size <= base + filled) {
                const float *x = mono + (next_frame * hop - base);
                for (int i = 0; i < fft_size; i++) fft_in[i] = x[i] * hann[i];
                fftwf_execute(plan);
                /* One pass per quantity, each a plain loop the compiler vectorises; the logarithms apart. */
                for (int k = 0; k < bins; k++) power[k] = fft_out[k][0] * fft_out[k][0] + fft_out[k][1] * fft_out[k][1];
                float total = 0, weighted = 0, log_sum = 0, peak = 0, band[BANDS] = {0};
                for (int k = 0; k < bins; k++) {
                    total += power[k];
                    weighted += power[k] * bin_hz[k];
                    peak = power[k] > peak ? power[k] : peak;
                }
                for (int k = 0; k < bins; k++) log_sum += logf(power[k] + 1e-12f);
                for (int b = 0; b < BANDS; b++)
                    for (int k = band_first[b]; k < band_first[b + 1]; k++) band[b] += power[k];
                double mean = total / bins, cumulative = 0;
                int rolloff = bins - 1;
                for (int k = 0; k < bins; k++) {
                    cumulative += power[k];
                    if (cumulative >= 0.85 * total) { rolloff = k; break; }
                }
                double *out = frame_features[next_frame % RING];
                out[0] = total > 0 ? weighted / total : 0;
                out[1] = mean > 0 ? exp(log_sum / bins) / mean : 0;
                out[2] = (double)rolloff * rate / fft_size;
                out[3] = mean > 0 ? peak / mean : 0;
                for (int b = 0; b < BANDS; b++) out[4 + b] = 10 * log10(band[b] + 1e-12);
                next_frame++;
            }
            if (filled < window) continue;
            if (windows == 0) half_stats(mono, window_hop, &halves[0]);
            /* One window: the frames that start within it and end by its end, averaged; then its own level. */
            long first = (base + hop - 1) / hop, last = (base + window - fft_size) / hop;
            double averages[FRAME_FEATURES] = {0};
            for (long frame = first; frame <= last; frame++)
                for (int j = 0; j < FRAME_FEATURES; j++) averages[j] += frame_features[frame % RING][j];
            const double count = (double)(last - first + 1);
            /* The window's level from its two halves' sums (each half summed once, as the hop is half a window). */
            half_stats(mono + window_hop, window - window_hop, &halves[1]);
            double energy = halves[0].energy + halves[1].energy;
            double sample_peak = halves[0].peak > halves[1].peak ? halves[0].peak : halves[1].peak;
            long crossings = halves[0].crossings + halves[1].crossings +
                             ((mono[window_hop] >= 0) != (mono[window_hop - 1] >= 0));
            double rms = sqrt(energy / window);
            double zcr = (double)crossings / window, crest = rms > 0 ? sample_peak / rms : 0;
            if (print) {
                printf("%.2f\t%.6g\t%.6g\t%.6g", windows * 0.5, 20 * log10(rms + 1e-12), zcr, crest);
                for (int j = 0; j < FRAME_FEATURES; j++) printf("\t%.6g", averages[j] / count);
                printf("\n");
            }
            checksum += rms + zcr + crest;
            for (int j = 0; j < FRAME_FEATURES; j++) checksum += averages[j] / count;
            windows++;
            memmove(mono, mono + window_hop, sizeof(float) * (size_t)(window - window_hop));
            filled = window - window_hop;
            base += window_hop;
            halves[0] = halves[1];
        }
    }
    if (!print) printf("%ld windows, checksum %.6e\n", windows, checksum);
    sf_close(file);
    fftwf_destroy_plan(plan);
    fftwf_free(fft_in);
    fftwf_free(fft_out);
    free(hann);
    free(power);
    free(bin_hz);
    free(mono);
    free(block);
    return 0;
}
