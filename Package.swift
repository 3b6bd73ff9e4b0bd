// swift-tools-version:6.0
import Foundation
import PackageDescription

/// The analysis's and the fitter's hot loops (eight-lane sums, the trees' walk, the resampler) compiled for AVX2 where the machine that
/// builds has it (every x86-64 processor since 2013-2015 but some low-power Atoms and Celerons): about 7% less CPU time
/// on an 8-hour night and 10% on a 44.1 kHz stereo CAF, with the same output bit for bit, as Swift never fuses a
/// multiplication and an addition on its own (docs/performance.md). `SOMNIQ_PORTABLE=1` builds for any x86-64, for a
/// binary to be copied to other machines.
let hostProcessorSettings: [SwiftSetting] = {
    #if os(Linux) && arch(x86_64)
    // As /proc/cpuinfo names them; the same list is ProcessorSupport.required.
    let haswell: Set<Substring> = ["avx", "avx2", "fma", "bmi1", "bmi2", "f16c", "movbe", "popcnt", "sse4_2", "abm", "xsave",
                                   "pclmulqdq", "rdrand", "fsgsbase", "cx16", "lahf_lm"]
    guard ProcessInfo.processInfo.environment["SOMNIQ_PORTABLE"] == nil,
          let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
          let flags = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("flags") }),
          haswell.isSubset(of: flags.split(separator: " ")) else { return [] }
    return [.unsafeFlags(["-target-cpu", "haswell"])]
    #else
    return []
    #endif
}()
/// Tells SomniqFiles (compiled for any x86-64) that the rest was compiled for AVX2, so that the executable can check
/// the processor before it runs any of it (`ProcessorSupport`).
let hostProcessorDefines: [SwiftSetting] = hostProcessorSettings.isEmpty ? [] : [.define("SOMNIQ_NEEDS_HASWELL")]

let package = Package(
    name: "somniq-analyze",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "somniq-analyze", targets: ["somniq-analyze"]),
        .executable(name: "somniq-synth", targets: ["somniq-synth"]),
        .executable(name: "somniq-fuzz", targets: ["somniq-fuzz"]),
        .executable(name: "somniq-bench", targets: ["somniq-bench"]),
        .library(name: "SomniqPipeline", targets: ["SomniqPipeline"]),
        .library(name: "SomniqNightReport", targets: ["SomniqNightReport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/yaslab/CSV.swift", from: "2.5.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        // C libraries, found by pkg-config and installed from Debian.
        .systemLibrary(name: "CSndfile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CFFTW", pkgConfig: "fftw3f", providers: [.apt(["libfftw3-dev"])]),
        .systemLibrary(name: "CXXHash", pkgConfig: "libxxhash", providers: [.apt(["libxxhash-dev"])]),
        // The boosted trees walked for eight windows at once with AVX2 (chosen at run time): Swift's SIMD comparisons
        // are made lane by lane, which made the same walk in Swift eight times slower than one window at a time.
        .target(name: "CTreeWalk"),
        // Square roots four at a time, as sqrtf rounds them (a power spectrum's magnitudes, every sub-frame).
        .target(name: "CVectorMath"),

        // Stages, one direction: audio -> features -> model -> detection -> store -> pipeline -> CLI.
        // The small files a command is given (models, manifests, labels): checked and read one way, with plain errors.
        .target(name: "SomniqFiles", swiftSettings: hostProcessorDefines),
        .target(name: "SomniqAudio", dependencies: ["CSndfile", "CXXHash", "SomniqFiles", .product(name: "Crypto", package: "swift-crypto")],
                swiftSettings: hostProcessorSettings),
        // The feature extractor's hot loops touch its scratch arrays a few hundred million times a night; dynamic
        // exclusivity checks on those class properties cost a third of its time (scripts/bench/run). One extractor
        // is only ever used by one thread, with no overlapping access, so the checks are off here alone.
        .target(name: "SomniqFeatures", dependencies: ["CFFTW", "CVectorMath"], swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"])] + hostProcessorSettings),
        .target(name: "SomniqModel", dependencies: ["SomniqFeatures", "SomniqFiles", "CTreeWalk"], swiftSettings: hostProcessorSettings),
        .target(name: "SomniqDetection", dependencies: ["SomniqFeatures", "SomniqModel"], swiftSettings: hostProcessorSettings),
        .target(name: "SomniqStore", dependencies: [
            "SomniqFeatures", "SomniqModel", "SomniqDetection", .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "GRDBSQLite", package: "GRDB.swift"),
        ]),
        .target(name: "SomniqEvaluation", dependencies: ["SomniqFiles"]),
        .target(name: "SomniqFit", dependencies: ["SomniqFeatures", "SomniqModel", "SomniqFiles"], swiftSettings: hostProcessorSettings),
        // Exports and the byte-level writers they share with the reports (CSV, streamed JSON, label tables).
        .target(name: "SomniqReports", dependencies: ["SomniqFeatures", "SomniqStore", "SomniqEvaluation", "SomniqFiles"]),
        // Analysis of recordings: one file, a batch into the store, the profiles compared, clips cut.
        .target(name: "SomniqPipeline", dependencies: [
            "SomniqAudio", "SomniqFeatures", "SomniqModel", "SomniqDetection", "SomniqStore", "SomniqFit", "SomniqReports", "SomniqFiles",
            .product(name: "CSV", package: "CSV.swift"),
        ]),
        .target(name: "SomniqSynth", dependencies: ["CSndfile", "SomniqAudio", "SomniqFeatures"]),
        // Labelled audio: the clips of a labelled set, the fitting data made from them, scoring against labels.
        .target(name: "SomniqLabelledAudio", dependencies: [
            "SomniqPipeline", "SomniqAudio", "SomniqFeatures", "SomniqModel", "SomniqDetection", "SomniqStore", "SomniqEvaluation",
            "SomniqFit", "SomniqSynth", "SomniqReports", "SomniqFiles",
        ]),
        // The regression goldens: every fixture under every profile against its committed expectation.
        .target(name: "SomniqRegression", dependencies: [
            "SomniqPipeline", "SomniqAudio", "SomniqFeatures", "SomniqModel", "SomniqDetection", "SomniqStore",
        ]),
        // Studies on a cluster: manifests, shards of the inputs, merging shard databases.
        .target(name: "SomniqCluster", dependencies: [
            "SomniqStore", "SomniqAudio", "SomniqFiles", .product(name: "Crypto", package: "swift-crypto"), .product(name: "CSV", package: "CSV.swift"),
        ]),
        // The morning report: HTML pages of a night and of several, from the database.
        .target(name: "SomniqNightReport", dependencies: ["SomniqPipeline", "SomniqStore", "SomniqModel", "SomniqFiles", "SomniqReports"]),

        .executableTarget(name: "somniq-analyze", dependencies: [
            "SomniqPipeline", "SomniqReports", "SomniqNightReport", "SomniqCluster", "SomniqRegression", "SomniqLabelledAudio", "SomniqFiles", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "somniq-fuzz", dependencies: ["SomniqAudio", "SomniqFeatures", "SomniqModel", "SomniqDetection"]),
        .executableTarget(name: "somniq-bench", dependencies: ["CFFTW", "SomniqAudio", "SomniqFeatures", "SomniqDetection", "SomniqModel", "SomniqPipeline", "SomniqStore"]),
        .executableTarget(name: "somniq-synth", dependencies: [
            "SomniqSynth", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        .testTarget(name: "SomniqFilesTests", dependencies: ["SomniqFiles"]),
        .testTarget(name: "SomniqAudioTests", dependencies: ["SomniqAudio", "SomniqSynth"]),
        .testTarget(name: "SomniqFeaturesTests", dependencies: ["SomniqFeatures", "SomniqSynth", "CVectorMath"]),
        .testTarget(name: "SomniqSynthTests", dependencies: ["SomniqSynth"]),
        .testTarget(name: "SomniqModelTests", dependencies: ["SomniqModel", "SomniqSynth"]),
        .testTarget(name: "SomniqDetectionTests", dependencies: ["SomniqDetection", "SomniqSynth"]),
        .testTarget(name: "SomniqStoreTests", dependencies: ["SomniqStore", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "SomniqEvaluationTests", dependencies: ["SomniqEvaluation"]),
        .testTarget(name: "SomniqFitTests", dependencies: ["SomniqFit", "SomniqSynth"]),
        .testTarget(name: "SomniqPipelineTests", dependencies: [
            "SomniqPipeline", "SomniqSynth", "SomniqLabelledAudio", "SomniqAudio", "SomniqStore", .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .testTarget(name: "SomniqNightReportTests", dependencies: ["SomniqNightReport", "SomniqPipeline", "SomniqStore", "SomniqModel", "SomniqDetection"]),
        .testTarget(name: "SomniqClusterTests", dependencies: ["SomniqCluster"]),
        .testTarget(name: "SomniqRegressionTests", dependencies: ["SomniqRegression", "SomniqPipeline"]),
        .testTarget(name: "SomniqReportsTests", dependencies: ["SomniqReports", .product(name: "CSV", package: "CSV.swift")]),
        .testTarget(name: "EndToEndTests", dependencies: [
            "somniq-analyze", "somniq-synth", "somniq-fuzz", "SomniqSynth", "SomniqEvaluation", "SomniqAudio", "SomniqModel",
            .product(name: "GRDB", package: "GRDB.swift"), .product(name: "CSV", package: "CSV.swift"),
        ]),
    ]
)
