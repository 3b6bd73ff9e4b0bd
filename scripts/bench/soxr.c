/*
 * libsoxr (the SoX resampler) converting a recording to the 8 kHz analysis rate, the way somniq-bench's `resample`
 * stage does with the project's own resampler: libsndfile reading half-second blocks, a mono mix, every output sample
 * summed into a checksum. For scripts/bench/resamplers (issue #44: take libsoxr where it is faster and keeps the
 * analysis deterministic).
 *
 *     soxr <audio file> <quality: quick|low|medium|high|very-high|none>
 *
 * `none` reads and mixes without resampling: what the others cost beyond it is libsoxr's.
 */
#include <sndfile.h>
#include <soxr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: soxr <audio file> quick|low|medium|high|very-high|none\n");
        return 64;
    }
    const char *names[] = {"quick", "low", "medium", "high", "very-high"};
    const unsigned long recipes[] = {SOXR_QQ, SOXR_LQ, SOXR_MQ, SOXR_HQ, SOXR_VHQ};
    int choice = -1;
    for (int i = 0; i < 5; i++) if (strcmp(argv[2], names[i]) == 0) choice = i;
    const int resample = strcmp(argv[2], "none") != 0;
    if (choice < 0 && resample) {
        fprintf(stderr, "%s: not a quality (quick, low, medium, high or very-high)\n", argv[2]);
        return 64;
    }
    SF_INFO info;
    memset(&info, 0, sizeof info);
    SNDFILE *file = sf_open(argv[1], SFM_READ, &info);
    if (!file) {
        fprintf(stderr, "%s: %s\n", argv[1], sf_strerror(NULL));
        return 66;
    }
    soxr_error_t error = NULL;
    soxr_quality_spec_t quality = soxr_quality_spec(recipes[resample ? choice : 0], 0);
    soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
    soxr_t soxr = soxr_create(info.samplerate, 8000, 1, &error, &io, &quality, NULL);
    if (error) {
        fprintf(stderr, "soxr: %s\n", error);
        return 70;
    }
    const size_t block = (size_t)info.samplerate / 2, room = block / 2 + 64;
    float *frames = malloc(sizeof(float) * block * (size_t)info.channels), *mono = malloc(sizeof(float) * block);
    float *out = malloc(sizeof(float) * room);
    double checksum = 0;
    size_t produced = 0;
    for (;;) {
        sf_count_t got = sf_readf_float(file, frames, (sf_count_t)block);
        for (sf_count_t f = 0; f < got; f++) {
            float sum = 0;
            for (int c = 0; c < info.channels; c++) sum += frames[f * info.channels + c];
            mono[f] = sum / info.channels;
        }
        if (!resample) {
            for (sf_count_t f = 0; f < got; f++) checksum += mono[f];
            if (got <= 0) break;
            continue;
        }
        size_t done_in = 0, done_out = 0;
        const float *in = mono;
        size_t left = (size_t)(got > 0 ? got : 0);
        do {  /* got == 0 flushes (a null input ends the stream) */
            soxr_process(soxr, got > 0 ? in : NULL, left, &done_in, out, room, &done_out);
            for (size_t i = 0; i < done_out; i++) checksum += out[i];
            produced += done_out;
            in += done_in;
            left -= done_in;
        } while (left > 0 || (got <= 0 && done_out > 0));
        if (got <= 0) break;
    }
    printf("%zu samples, checksum %.6e\n", produced, checksum);
    soxr_delete(soxr);
    sf_close(file);
    free(frames);
    free(mono);
    free(out);
    return 0;
}
