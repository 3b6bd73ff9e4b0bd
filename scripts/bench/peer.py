#!/usr/bin/env python3
"""The peer a user would otherwise reach for: numpy/scipy computing per-window features of a WAV file
(1 s windows, 0.5 s hop; each window's spectrum the mean of sixteen Hann-windowed sub-frame periodograms, as
somniq-analyze does): RMS, zero-crossing rate, spectral centroid, spread, flatness, 85% roll-off and six band
ratios. It loads the file whole, as such scripts do. Prints a checksum.

    python3 scripts/bench/peer.py FILE.wav
"""
import sys

import numpy as np
from scipy.io import wavfile


def main(path):
    rate, data = wavfile.read(path, mmap=False)
    audio = data.astype(np.float32)
    if data.dtype == np.int16:
        audio /= 32768.0
    if audio.ndim > 1:
        audio = audio.mean(axis=1)
    hop = rate // 2
    windows = max(1, len(audio) // hop - 1)
    sub = rate // 16
    n_fft = 1 << (2 * sub - 1).bit_length()
    hann = np.hanning(sub + 1)[:-1].astype(np.float32)
    freqs = np.fft.rfftfreq(n_fft, 1 / rate)
    edges = [50, 250, 500, 1000, 2000, 4000, rate / 2]
    checksum = 0.0
    chunk = 2048  # windows per batch, to bound the working set beyond the whole file
    for first in range(0, windows, chunk):
        count = min(chunk, windows - first)
        starts = (np.arange(count) + first) * hop
        frames = np.lib.stride_tricks.sliding_window_view(audio, rate)[starts[starts + rate <= len(audio)]]
        if len(frames) == 0:
            break
        rms = np.sqrt((frames ** 2).mean(axis=1))
        zcr = (np.diff(np.signbit(frames), axis=1) != 0).mean(axis=1)
        subframes = frames[:, : 16 * sub].reshape(len(frames), 16, sub) * hann
        power = (np.abs(np.fft.rfft(subframes, n=n_fft, axis=2)) ** 2).mean(axis=1)
        band = freqs >= 50
        p = power[:, band]
        f = freqs[band]
        total = p.sum(axis=1) + 1e-20
        centroid = (p * f).sum(axis=1) / total
        spread = np.sqrt((p * (f - centroid[:, None]) ** 2).sum(axis=1) / total)
        flatness = np.exp(np.log(p + 1e-20).mean(axis=1)) / (p.mean(axis=1) + 1e-20)
        rolloff = f[np.minimum((np.cumsum(p, axis=1) < 0.85 * total[:, None]).sum(axis=1), len(f) - 1)]
        ratios = [p[:, (f >= lo) & (f < hi)].sum(axis=1) / total for lo, hi in zip(edges, edges[1:])]
        checksum += float(rms.sum() + zcr.sum() + centroid.sum() + spread.sum() + flatness.sum() + rolloff.sum() + sum(r.sum() for r in ratios))
    print(checksum)


if __name__ == "__main__":
    main(sys.argv[1])
