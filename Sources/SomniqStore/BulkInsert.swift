import GRDB
import GRDBSQLite

/// One INSERT statement prepared on the connection of a GRDB write, bound and stepped through SQLite's own C
/// API: for the tens of thousands of window and detection rows of a night, where GRDB's general argument
/// handling (an array of existentials and a nested binding closure per value) cost more than SQLite's work.
/// Lives only inside the write closure that made it; every failure is thrown as GRDB's `DatabaseError`.
final class BulkInsert {
    private let connection: OpaquePointer
    private let statement: OpaquePointer
    private let sql: String
    private var column: Int32 = 0

    init(_ db: Database, sql: String) throws {
        guard let connection = db.sqliteConnection else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "closed database") }
        var prepared: OpaquePointer?
        let code = sqlite3_prepare_v2(connection, sql, -1, &prepared, nil)
        guard code == SQLITE_OK, let prepared else {
            sqlite3_finalize(prepared)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
        self.connection = connection
        self.statement = prepared
        self.sql = sql
    }

    deinit { sqlite3_finalize(statement) }

    func bind(_ value: Int64) throws { try check(sqlite3_bind_int64(statement, next(), value)) }
    func bind(_ value: Int) throws { try bind(Int64(value)) }
    func bind(_ value: Double) throws { try check(sqlite3_bind_double(statement, next(), value)) }

    /// Binds a copy of `value` (SQLite copies it before this returns).
    func bind(_ value: String) throws {
        let index = next()
        let code = value.withCString { sqlite3_bind_text(statement, index, $0, -1, Self.transient) }
        try check(code)
    }

    /// Binds `values` as a float32 little-endian blob (see `FloatBlob`), copied by SQLite.
    func bind(floats values: UnsafeBufferPointer<Float>) throws {
        guard Int(littleEndian: 1) == 1 else {
            let data = FloatBlob.encode(values)
            let code = data.withUnsafeBytes { sqlite3_bind_blob(statement, next(), $0.baseAddress, Int32($0.count), Self.transient) }
            return try check(code)
        }
        guard let base = values.baseAddress, !values.isEmpty else { return try check(sqlite3_bind_zeroblob(statement, next(), 0)) }
        try check(sqlite3_bind_blob(statement, next(), base, Int32(values.count * 4), Self.transient))
    }

    /// Inserts the row bound since the last one.
    func step() throws {
        column = 0
        let code = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard code == SQLITE_DONE else { throw error(code) }
    }

    private func next() -> Int32 {
        column += 1
        return column
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else { throw error(code) }
    }

    private func error(_ code: Int32) -> DatabaseError {
        DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
    }

    /// SQLITE_TRANSIENT: SQLite makes its own copy of the bound bytes.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
