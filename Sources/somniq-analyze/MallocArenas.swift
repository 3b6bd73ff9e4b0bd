/// glibc gives each thread that allocates while another holds the heap an arena of its own, whose freed memory it
/// keeps. An analysis runs two or three threads (decoding, features, the trees), and their arenas held about 1.5 MB
/// more at a 12-hour night's peak, which had crept to scripts/memory-check's 64 MB limit (64.0 MB; 62.5 MB with one
/// arena). The hot loops do not allocate, so one arena costs no time: the 8-hour 16 kHz night's CPU 0.995x, the
/// one-hour 44.1 kHz stereo CAF's 1.03x, two 8-hour nights under `--jobs 2` alike (docs/performance.md). `fit`, whose
/// classes are fitted on every core at once and allocate as they go, keeps glibc's default.
enum MallocArenas {
    static func useOne() {
        #if os(Linux)
        _ = setMallocOption(mallocArenaMax, 1)
        #endif
    }
}

#if os(Linux)
/// `M_ARENA_MAX` of glibc's malloc.h.
private let mallocArenaMax: Int32 = -8

/// glibc's `mallopt` (malloc.h, which the Glibc module does not bring in).
@_silgen_name("mallopt")
private func setMallocOption(_ parameter: Int32, _ value: Int32) -> Int32
#endif
