import java.math.BigDecimal;
import java.sql.Array;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.Date;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Time;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * Drives a sqlext server through the PostgreSQL JDBC driver.
 * Usage: java -cp postgresql.jar:. JdbcCheck jdbc:postgresql://host:port/db
 * Prints "ok <check>" per passing check; exits 1 after the first failure.
 */
public class JdbcCheck {
    private static Connection connect(String url) throws SQLException {
        return DriverManager.getConnection(url, "postgres", "");
    }

    private static void check(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String suffix = args.length > 1 ? args[1] : "";
        try (Connection conn = connect(url)) {
            types(conn, suffix);
            System.out.println("ok types");
            binaryResults(conn, suffix);
            System.out.println("ok binary-results");
            batch(conn, suffix);
            System.out.println("ok batch");
            fetchSize(conn, suffix);
            System.out.println("ok fetch-size");
            metadata(conn, suffix);
            System.out.println("ok metadata");
            failingBatch(conn, suffix);
            System.out.println("ok failing-batch");
        }
    }

    static void types(Connection conn, String s) throws SQLException {
        try (Statement st = conn.createStatement()) {
            st.execute("CREATE TABLE jt" + s + " (i int, b bigint, sm smallint, d float8, r real,"
                + " n numeric(10,2), t text, v varchar(20), f boolean, dt date, tm time,"
                + " ts timestamp, tz timestamptz, by bytea, u uuid, j jsonb, ia int[], ta text[])");
        }
        OffsetDateTime zoned = OffsetDateTime.of(2024, 1, 2, 3, 4, 5, 123456000, ZoneOffset.UTC);
        String insert = "INSERT INTO jt" + s
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?)";
        try (PreparedStatement ps = conn.prepareStatement(insert)) {
            ps.setInt(1, -2147483648);
            ps.setLong(2, 9223372036854775807L);
            ps.setShort(3, (short) -32768);
            ps.setDouble(4, -1e300);
            ps.setFloat(5, 1.5f);
            ps.setBigDecimal(6, new BigDecimal("-12345678.90"));
            ps.setString(7, "it's \"q\" \u00fc\u20ac");
            ps.setString(8, "varchar");
            ps.setBoolean(9, true);
            ps.setDate(10, Date.valueOf("2024-02-29"));
            ps.setTime(11, Time.valueOf("13:14:15"));
            ps.setTimestamp(12, Timestamp.valueOf("2024-05-06 07:08:09.00001"));
            ps.setObject(13, zoned);
            ps.setBytes(14, new byte[] {0, 1, (byte) 0xff});
            ps.setObject(15, UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"));
            ps.setString(16, "{\"a\": [1, 2]}");
            ps.setArray(17, conn.createArrayOf("int4", new Integer[] {1, null, 3}));
            ps.setArray(18, conn.createArrayOf("text", new String[] {"a", "b c", null}));
            check(ps.executeUpdate() == 1, "insert count");
            for (int i = 1; i <= 18; i++) {
                ps.setNull(i, Types.NULL);
            }
            ps.setNull(1, Types.INTEGER);
            check(ps.executeUpdate() == 1, "insert nulls");
        }
        try (PreparedStatement ps = conn.prepareStatement(
                "SELECT * FROM jt" + s + " WHERE i = ?")) {
            ps.setInt(1, -2147483648);
            try (ResultSet rs = ps.executeQuery()) {
                check(rs.next(), "row present");
                check(rs.getInt(1) == -2147483648, "int");
                check(rs.getLong(2) == 9223372036854775807L, "bigint");
                check(rs.getShort(3) == -32768, "smallint");
                check(rs.getDouble(4) == -1e300, "float8");
                check(rs.getFloat(5) == 1.5f, "real");
                check(rs.getBigDecimal(6).equals(new BigDecimal("-12345678.90")),
                      "numeric " + rs.getBigDecimal(6));
                check(rs.getString(7).equals("it's \"q\" \u00fc\u20ac"), "text");
                check(rs.getString(8).equals("varchar"), "varchar");
                check(rs.getBoolean(9), "boolean");
                check(rs.getDate(10).equals(Date.valueOf("2024-02-29")), "date " + rs.getDate(10));
                check(rs.getTime(11).equals(Time.valueOf("13:14:15")), "time");
                check(rs.getTimestamp(12).equals(Timestamp.valueOf("2024-05-06 07:08:09.00001")),
                      "timestamp " + rs.getTimestamp(12));
                check(rs.getObject(13, OffsetDateTime.class).isEqual(zoned),
                      "timestamptz " + rs.getString(13));
                check(Arrays.equals(rs.getBytes(14), new byte[] {0, 1, (byte) 0xff}), "bytea");
                check(rs.getObject(15).equals(
                    UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")), "uuid");
                check(rs.getString(16).equals("{\"a\": [1, 2]}"), "jsonb " + rs.getString(16));
                Array ints = rs.getArray(17);
                check(Arrays.equals((Integer[]) ints.getArray(), new Integer[] {1, null, 3}),
                      "int[]");
                Array texts = rs.getArray(18);
                check(Arrays.equals((String[]) texts.getArray(), new String[] {"a", "b c", null}),
                      "text[]");
                check(!rs.next(), "one row");
            }
        }
        try (Statement st = conn.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM jt" + s + " WHERE i IS NULL")) {
            rs.next();
            check(rs.getLong(1) == 1, "null row");
        }
    }

    /** After prepareThreshold executions pgjdbc asks for binary results. */
    static void binaryResults(Connection conn, String s) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(
                "SELECT i, b, d, n, tz, dt, f FROM jt" + s + " WHERE i = ?")) {
            for (int round = 0; round < 8; round++) {
                ps.setInt(1, -2147483648);
                try (ResultSet rs = ps.executeQuery()) {
                    check(rs.next(), "binary row " + round);
                    check(rs.getInt(1) == -2147483648, "binary int");
                    check(rs.getLong(2) == 9223372036854775807L, "binary bigint");
                    check(rs.getDouble(3) == -1e300, "binary float8");
                    check(rs.getBigDecimal(4).compareTo(new BigDecimal("-12345678.90")) == 0,
                          "binary numeric " + rs.getBigDecimal(4));
                    check(rs.getObject(5, OffsetDateTime.class).getYear() == 2024,
                          "binary timestamptz");
                    check(rs.getDate(6).equals(Date.valueOf("2024-02-29")), "binary date");
                    check(rs.getBoolean(7), "binary bool");
                }
            }
        }
    }

    static void batch(Connection conn, String s) throws SQLException {
        try (Statement st = conn.createStatement()) {
            st.execute("CREATE TABLE jb" + s + " (id int PRIMARY KEY, name text, amount numeric(10,2))");
        }
        try (PreparedStatement ps = conn.prepareStatement(
                "INSERT INTO jb" + s + " (id, name, amount) VALUES (?, ?, ?)")) {
            for (int i = 0; i < 1000; i++) {
                ps.setInt(1, i);
                ps.setString(2, "name " + i);
                ps.setBigDecimal(3, new BigDecimal(i).movePointLeft(2));
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            check(counts.length == 1000, "batch result count");
            for (int c : counts) {
                check(c == 1, "batch row count");
            }
        }
        try (Statement st = conn.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*), sum(amount) FROM jb" + s)) {
            rs.next();
            check(rs.getLong(1) == 1000, "exactly 1000 rows, got " + rs.getLong(1));
            check(rs.getBigDecimal(2).compareTo(new BigDecimal("4995.00")) == 0,
                  "sum " + rs.getBigDecimal(2));
        }
    }

    static void fetchSize(Connection conn, String s) throws SQLException {
        try (Statement st = conn.createStatement()) {
            st.execute("CREATE TABLE jf" + s + " (id int)");
            st.execute("INSERT INTO jf" + s + " SELECT g FROM generate_series(1, 10000) g");
        }
        conn.setAutoCommit(false);
        try (Statement st = conn.createStatement()) {
            st.setFetchSize(100);
            long total = 0;
            int rows = 0;
            try (ResultSet rs = st.executeQuery("SELECT id FROM jf" + s + " ORDER BY id")) {
                while (rs.next()) {
                    rows++;
                    total += rs.getInt(1);
                    check(rs.getInt(1) == rows, "order at row " + rows);
                }
            }
            check(rows == 10000, "10000 rows, got " + rows);
            check(total == 50005000L, "sum of ids");
        }
        conn.commit();
        conn.setAutoCommit(true);
    }

    static void metadata(Connection conn, String s) throws SQLException {
        DatabaseMetaData md = conn.getMetaData();
        check(md.getDatabaseProductName().equals("PostgreSQL"), "product name");
        List<String> tables = new ArrayList<>();
        try (ResultSet rs = md.getTables(null, "public", "j%" + s, new String[] {"TABLE"})) {
            while (rs.next()) {
                tables.add(rs.getString("TABLE_NAME"));
            }
        }
        check(tables.contains("jb" + s) && tables.contains("jt" + s), "getTables " + tables);
        List<String> columns = new ArrayList<>();
        try (ResultSet rs = md.getColumns(null, "public", "jb" + s, "%")) {
            while (rs.next()) {
                columns.add(rs.getString("COLUMN_NAME") + ":" + rs.getString("TYPE_NAME")
                    + ":" + rs.getInt("DATA_TYPE"));
            }
        }
        check(columns.equals(Arrays.asList("id:int4:4", "name:text:12", "amount:numeric:2")),
              "getColumns " + columns);
        List<String> keys = new ArrayList<>();
        try (ResultSet rs = md.getPrimaryKeys(null, "public", "jb" + s)) {
            while (rs.next()) {
                keys.add(rs.getString("COLUMN_NAME") + "@" + rs.getString("PK_NAME"));
            }
        }
        check(keys.equals(Arrays.asList("id@jb" + s + "_pkey")), "getPrimaryKeys " + keys);
        List<String> schemas = new ArrayList<>();
        try (ResultSet rs = md.getSchemas()) {
            while (rs.next()) {
                schemas.add(rs.getString("TABLE_SCHEM"));
            }
        }
        check(schemas.contains("public") && schemas.contains("pg_catalog"), "getSchemas " + schemas);
        List<String> types = new ArrayList<>();
        try (ResultSet rs = md.getTypeInfo()) {
            while (rs.next()) {
                types.add(rs.getString("TYPE_NAME"));
            }
        }
        check(types.contains("int4") && types.contains("text") && types.contains("timestamptz"),
              "getTypeInfo " + types.size());
    }

    static void failingBatch(Connection conn, String s) throws SQLException {
        try (Statement st = conn.createStatement()) {
            st.execute("CREATE TABLE jx" + s + " (id int PRIMARY KEY)");
        }
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO jx" + s + " VALUES (?)")) {
            for (int id : new int[] {1, 2, 2, 3}) {
                ps.setInt(1, id);
                ps.addBatch();
            }
            try {
                ps.executeBatch();
                check(false, "duplicate key must fail the batch");
            } catch (BatchUpdateException expected) {
                check("23505".equals(expected.getSQLState()), "sqlstate " + expected.getSQLState());
            }
        }
        try (Statement st = conn.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM jx" + s)) {
            rs.next();
            check(rs.getLong(1) == 0, "failed batch rolled back entirely, found " + rs.getLong(1));
        }
    }
}
