import GRDB

/// The database schema, as named migrations. A migration that has shipped is never edited:
/// changes go in a new one.
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-core") { db in
            try db.create(table: "recordings") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("path", .text).notNull()
                table.column("file_name", .text).notNull()
                table.column("status", .text).notNull()  // complete | failed
                table.column("error_code", .text)
                table.column("error_message", .text)
                table.column("container", .text)
                table.column("encoding", .text)
                table.column("sample_rate", .integer)
                table.column("channels", .integer)
                table.column("frame_count", .integer)
                table.column("duration_s", .double)
                table.column("start_utc", .text)
                table.column("start_source", .text)
                table.column("window_count", .integer)
                table.column("model_name", .text)
                table.column("model_version", .text)
                table.column("profiles_version", .text)
                table.column("class_ids", .text)  // JSON array, the column order of `windows.confidences`
                table.column("feature_ids", .text)  // JSON array, the column order of `windows.features`
                table.column("analyzed_at", .text).notNull()
            }
            try db.create(index: "recordings_on_path", on: "recordings", columns: ["path"])

            try db.create(table: "windows") { table in
                table.column("recording_id", .integer).notNull().references("recordings", onDelete: .cascade)
                table.column("window_index", .integer).notNull()
                table.column("start_offset_s", .double).notNull()
                table.column("end_offset_s", .double).notNull()
                table.column("start_utc", .text).notNull()
                table.column("rms_dbfs", .double).notNull()
                table.column("snr_db", .double).notNull()
                table.column("top_class", .text).notNull()
                table.column("top_confidence", .double).notNull()
                table.column("features", .blob).notNull()  // float32 little-endian, feature_ids order
                table.column("confidences", .blob).notNull()  // float32 little-endian, class_ids order
                table.primaryKey(["recording_id", "window_index"])
            }

            try db.create(table: "detections") { table in
                table.column("recording_id", .integer).notNull().references("recordings", onDelete: .cascade)
                table.column("window_index", .integer).notNull()
                table.column("class_id", .text).notNull()
                table.column("confidence", .double).notNull()
                table.column("start_offset_s", .double).notNull()
                table.column("start_utc", .text).notNull()
                table.primaryKey(["recording_id", "window_index", "class_id"])
            }
            try db.create(index: "detections_on_class", on: "detections", columns: ["recording_id", "class_id"])

            try db.create(table: "profile_runs") { table in
                table.column("recording_id", .integer).notNull().references("recordings", onDelete: .cascade)
                table.column("profile", .text).notNull()
                table.column("rules", .text).notNull()  // JSON: the expanded alert rule of every class
                table.column("alert_count", .integer).notNull()
                table.column("episode_count", .integer).notNull()
                table.primaryKey(["recording_id", "profile"])
            }

            try db.create(table: "episodes") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("recording_id", .integer).notNull().references("recordings", onDelete: .cascade)
                table.column("profile", .text).notNull()
                table.column("class_id", .text).notNull()
                table.column("tier", .text).notNull()
                table.column("severity", .text).notNull()
                table.column("start_offset_s", .double).notNull()
                table.column("end_offset_s", .double).notNull()
                table.column("start_utc", .text).notNull()
                table.column("end_utc", .text).notNull()
                table.column("duration_s", .double).notNull()
                table.column("peak_confidence", .double).notNull()
                table.column("alert_count", .integer).notNull()
                table.column("suppressed_count", .integer).notNull()
                table.column("activation_count", .integer).notNull()
            }
            try db.create(index: "episodes_on_recording", on: "episodes", columns: ["recording_id", "profile"])

            try db.create(table: "alerts") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("recording_id", .integer).notNull().references("recordings", onDelete: .cascade)
                table.column("profile", .text).notNull()
                table.column("class_id", .text).notNull()
                table.column("tier", .text).notNull()
                table.column("kind", .text).notNull()  // onset | continuing
                table.column("offset_s", .double).notNull()  // when the user is notified: end of the deciding window
                table.column("utc", .text).notNull()
                table.column("window_index", .integer).notNull()
                table.column("confidence", .double).notNull()  // smoothed confidence at the alert
                table.column("episode_id", .integer).notNull().references("episodes", onDelete: .cascade)
            }
            try db.create(index: "alerts_on_recording", on: "alerts", columns: ["recording_id", "profile"])
        }
        migrator.registerMigration("v2-content-identity") { db in
            try db.alter(table: "recordings") { table in
                table.add(column: "content_sha256", .text)  // SHA-256 of the decoded audio: the recording's identity
                table.add(column: "file_size", .integer)
                table.add(column: "file_mtime", .double)  // seconds since the epoch
            }
            try db.execute(sql: """
                CREATE UNIQUE INDEX recordings_on_content ON recordings(content_sha256) WHERE status = 'complete'
                """)
        }
        migrator.registerMigration("v3-undetectable-classes") { db in
            try db.alter(table: "recordings") { table in
                // JSON array of the classes the recording's band cannot hear (their confidences are 0, not guesses).
                table.add(column: "undetectable_classes", .text)
            }
        }
        migrator.registerMigration("v4-sound-timing") { db in
            // The loudest 10 ms of an episode (dBFS over the analysis band), now that episodes are timed to the sound.
            try db.alter(table: "episodes") { table in table.add(column: "peak_dbfs", .double) }
            // The recording's level every 10 ms: one byte each, dBFS = level / 2 - 127.5, an hour (360,000 values) a
            // row so that no write or read holds a whole night's in one piece. Profiles added later time their
            // episodes from it without decoding the audio again.
            try db.create(table: "recording_envelopes") { table in
                table.column("recording_id", .integer).notNull().references("recordings", onDelete: .cascade)
                table.column("chunk", .integer).notNull()  // hour of the recording, from 0
                table.column("rate_hz", .integer).notNull()
                table.column("levels", .blob).notNull()
                table.primaryKey(["recording_id", "chunk"])
            }
            // Separate, recurring sounds of the classes that come that way (snores, coughs, sobs), and their bouts.
            try db.create(table: "sound_events") { table in
                table.column("recording_id", .integer).notNull().references("recordings", onDelete: .cascade)
                table.column("class_id", .text).notNull()
                table.column("event_index", .integer).notNull()
                table.column("onset_s", .double).notNull()
                table.column("offset_s", .double).notNull()
                table.column("duration_s", .double).notNull()
                table.column("onset_utc", .text).notNull()
                table.column("peak_dbfs", .double).notNull()
                table.column("confidence", .double).notNull()
                table.column("bout_index", .integer)  // NULL: an event on its own
                table.primaryKey(["recording_id", "class_id", "event_index"])
            }
            try db.create(table: "bouts") { table in
                table.column("recording_id", .integer).notNull().references("recordings", onDelete: .cascade)
                table.column("class_id", .text).notNull()
                table.column("bout_index", .integer).notNull()
                table.column("onset_s", .double).notNull()
                table.column("offset_s", .double).notNull()
                table.column("duration_s", .double).notNull()
                table.column("onset_utc", .text).notNull()
                table.column("event_count", .integer).notNull()
                table.primaryKey(["recording_id", "class_id", "bout_index"])
            }
            try db.execute(sql: """
                CREATE VIEW snores AS
                SELECT recording_id, event_index AS snore_index, onset_s, offset_s, duration_s, onset_utc, peak_dbfs,
                       confidence, bout_index
                FROM sound_events WHERE class_id = 'snoring';
                CREATE VIEW snoring_summary AS
                SELECT r.id AS recording_id,
                       (SELECT COUNT(*) FROM snores s WHERE s.recording_id = r.id) AS snores,
                       (SELECT COUNT(*) FROM snores s WHERE s.recording_id = r.id) * 3600.0 / r.duration_s AS snores_per_hour,
                       (SELECT COUNT(*) FROM bouts b WHERE b.recording_id = r.id AND b.class_id = 'snoring') AS bouts,
                       COALESCE((SELECT SUM(duration_s) FROM bouts b WHERE b.recording_id = r.id AND b.class_id = 'snoring'), 0)
                           / 60.0 AS bout_minutes,
                       COALESCE((SELECT MAX(duration_s) FROM bouts b WHERE b.recording_id = r.id AND b.class_id = 'snoring'), 0)
                           AS longest_bout_s,
                       (SELECT MAX(peak_dbfs) FROM snores s WHERE s.recording_id = r.id) AS loudest_snore_dbfs
                FROM recordings r WHERE r.status = 'complete' AND r.duration_s > 0;
                """)
        }
        migrator.registerMigration("v5-locations") { db in
            // Every file found to hold a recording's audio (a copy, a FLAC of a WAV), each with its own container
            // and format: the recording row keeps the first; none of them stops being findable.
            try db.create(table: "recording_locations") { table in
                table.column("path", .text).notNull().primaryKey()
                table.column("recording_id", .integer).notNull().references("recordings", onDelete: .cascade)
                table.column("file_name", .text).notNull()
                table.column("container", .text)
                table.column("encoding", .text)
                table.column("file_size", .integer)
                table.column("file_mtime", .double)
            }
            try db.create(index: "recording_locations_on_recording", on: "recording_locations", columns: ["recording_id"])
            try db.execute(sql: """
                INSERT INTO recording_locations (path, recording_id, file_name, container, encoding, file_size, file_mtime)
                SELECT path, id, file_name, container, encoding, file_size, file_mtime FROM recordings WHERE status = 'complete'
                """)
        }
        migrator.registerMigration("v6-cut-short-and-levels") { db in
            try db.alter(table: "recordings") { table in
                // A recording cut short (its header promised more audio than it held) is analysed as far as it goes:
                // truncated = 1, declared_frames what the header promised, frame_count what was read and analysed.
                table.add(column: "truncated", .integer).notNull().defaults(to: 0)
                table.add(column: "declared_frames", .integer)
            }
            try db.alter(table: "episodes") { table in
                table.add(column: "mean_dbfs", .double)  // the power mean of its 10 ms levels
                table.add(column: "peak_over_background_db", .double)  // its loudest 10 ms over the room's background
            }
            // Minutes per class and recording: the class on top of each window, a window a hop (0.5 s) of time.
            try db.execute(sql: """
                CREATE VIEW class_minutes AS
                SELECT recording_id, top_class AS class_id, COUNT(*) * 0.5 / 60.0 AS minutes
                FROM windows GROUP BY recording_id, top_class;
                """)
        }
        migrator.registerMigration("v7-night-tags") { db in
            // What the sleeper tried that night (a mouthguard, no alcohol), by the audio's identity rather than the
            // recording's row, so that a tag outlives a reanalysis and travels with a merge.
            try db.create(table: "night_tags", options: [.withoutRowID]) { table in
                table.column("content_sha256", .text).notNull()
                table.column("tag", .text).notNull()
                table.primaryKey(["content_sha256", "tag"])
            }
        }
        migrator.registerMigration("v8-night-summaries") { db in
            // The snorer's figures of each night (`NightSummary`: the formula and the bands are documented there and in
            // docs/database.md), one row a complete recording.
            try db.create(table: "night_summaries") { table in
                table.column("recording_id", .integer).notNull().primaryKey().references("recordings", onDelete: .cascade)
                table.column("snore_score", .double).notNull()
                table.column("snores", .integer).notNull()  // snores within bouts
                table.column("snores_per_hour", .double).notNull()
                table.column("snoring_minutes", .double).notNull()  // time in snoring bouts
                table.column("snoring_share", .double).notNull()  // of the recording, 0-1
                table.column("quiet_minutes", .double).notNull()  // snoring under 10 dB over the room
                table.column("light_minutes", .double).notNull()  // 10-20 dB over it
                table.column("loud_minutes", .double).notNull()  // 20-30 dB
                table.column("very_loud_minutes", .double).notNull()  // 30 dB and more
                table.column("loudest_snore_over_room_db", .double)
                // Breaths a minute from the intervals between the snores of bouts: median, 10th and 90th percentile.
                table.column("breaths_per_minute", .double)
                table.column("breaths_per_minute_low", .double)
                table.column("breaths_per_minute_high", .double)
                table.column("breaths_counted", .integer).notNull()
                // The same from the rhythm of breathing heard outside snoring bouts, and how many windows it rests on.
                table.column("quiet_breaths_per_minute", .double)
                table.column("quiet_breaths_per_minute_low", .double)
                table.column("quiet_breaths_per_minute_high", .double)
                table.column("quiet_breathing_windows", .integer).notNull()
            }
            // Each snoring bout's breathing pace (NULL for other classes' bouts and bouts too short to read one).
            try db.alter(table: "bouts") { table in
                table.add(column: "breaths_per_minute", .double)
                table.add(column: "breaths_per_minute_low", .double)
                table.add(column: "breaths_per_minute_high", .double)
            }
            try AnalysisStore.fillNightSummaries(db)
        }
        migrator.registerMigration("v9-partial-nights") { db in
            // A night followed live is stored as it is heard: a `recordings` row of status `partial` (no content hash
            // yet) with the windows heard so far, committed a minute at a time, replaced by the complete analysis when
            // the recording ends (or when it is analysed later). The alerts a follow has raised, so that a follow
            // resumed after a crash or a power cut does not raise them a second time.
            try db.create(table: "raised_alerts") { table in
                table.column("recording_id", .integer).notNull().references("recordings", onDelete: .cascade)
                table.column("profile", .text).notNull()
                table.column("class_id", .text).notNull()
                table.column("kind", .text).notNull()  // onset | continuing
                table.column("window_index", .integer).notNull()
                table.column("tier", .text).notNull()
                table.column("offset_s", .double).notNull()
                table.column("utc", .text).notNull()
                table.column("confidence", .double).notNull()
                table.column("raised_at", .text).notNull()  // when it was printed, UTC
                table.primaryKey(["recording_id", "profile", "class_id", "kind", "window_index"])
            }
        }
        migrator.registerMigration("v10-recording-faults") { db in
            // What decoding measured of how the recording was made (`RecordingFaults`), so that the report can say it was
            // clipped or its channels cancel: NULL in recordings analysed before, and where nothing was measured.
            try db.alter(table: "recordings") { table in
                table.add(column: "full_scale_share", .double)  // of the measured samples, 0-1
                table.add(column: "full_scale_reads", .integer)  // reads measured that held a sample at full scale
                table.add(column: "mix_below_channels_db", .double)  // several channels: the mono mix's level below theirs
            }
        }
        migrator.registerMigration("v11-channel") { db in
            // The one channel analysed (from 1; `analyze --channel`), NULL where the channels were mixed to mono, as
            // every recording analysed before was.
            try db.alter(table: "recordings") { table in table.add(column: "channel", .integer) }
        }
        migrator.registerMigration("v12-content-hash") { db in
            // The audio's identity is XXH3-128 since this step (32 hex digits; `ContentHashKind`): the column is named for
            // what it holds, not for one algorithm. Recordings stored before keep their SHA-256 (64 digits) until their
            // file is met again (`AnalysisStore.adoptIdentity`). SQLite renames the column in the indexes and keys too.
            try db.alter(table: "recordings") { table in table.rename(column: "content_sha256", to: "content_hash") }
            try db.alter(table: "night_tags") { table in table.rename(column: "content_sha256", to: "content_hash") }
        }
        return migrator
    }
}
